//! The online qualifier on the days production brings, against the real `qiwang` binary as a
//! child process (issue 43): `kill -9` while partners stream, `kill -9` during a close, SIGTERM
//! during a stream, and reads with a client deadline right after a restart. SQLite, and
//! PostgreSQL when configured.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use qiwang::bench::{synthetic_game, synthetic_players};
use qiwang_blackbox::process::{Data, Process};
use qiwang_blackbox::{backends, preset_with_window, with_token};
use qiwang_infra::auth::Role;
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use tonic::Code;
use tonic::transport::Channel;

/// A championship with an open 海选 period and `players` entrants (accounts `acc-0`…).
struct Qualifier {
    champ: String,
    period: q::PeriodRef,
    org: String,
    partner: String,
    players: u32,
}

impl Qualifier {
    async fn new(data: &Data, process: &Process, players: u32) -> Qualifier {
        let org = data.token(Role::Organizer, "org-1");
        let partner = data.token(Role::Partner, "partner-bot");
        let mut reg = RegistrationServiceClient::new(process.channel().await);
        let champ = reg
            .create_championship(with_token(
                &org,
                pb::CreateChampionshipRequest {
                    preset_toml: preset_with_window("xiangqi-2022", -1, 1),
                    ..Default::default()
                },
            ))
            .await
            .expect("championship")
            .into_inner()
            .id;
        let imported = reg
            .import_players(with_token(
                &org,
                tokio_stream::iter(synthetic_players(&champ, "yizhan", 0..players)),
            ))
            .await
            .expect("import")
            .into_inner();
        assert_eq!(imported.refused, 0, "{:?}", imported.refusals.first());
        let period = q::PeriodRef {
            championship_id: champ.clone(),
            stage: "haixuan".into(),
            period: 1,
        };
        client(process.channel().await)
            .open_period(with_token(&org, period.clone()))
            .await
            .expect("open");
        Qualifier {
            champ,
            period,
            org,
            partner,
            players,
        }
    }

    /// Game `n`: a plain win (every game counts twice on the board, once per player).
    fn game(&self, n: u32) -> q::GameReport {
        let mut g = synthetic_game(&self.champ, n, self.players);
        g.result = q::Result::FirstWins as i32;
        g.end_reason = q::EndReason::Resignation as i32;
        g.ended_by = q::Side::Unspecified as i32;
        g.first_disconnections.clear();
        g
    }

    /// The whole board, page by page.
    async fn board(&self, channel: Channel) -> Vec<q::LeaderboardRow> {
        let mut client = client(channel);
        let mut rows = Vec::new();
        loop {
            let page = client
                .get_leaderboard(with_token(
                    &self.org,
                    q::LeaderboardRequest {
                        period: Some(self.period.clone()),
                        page_size: 1000,
                        offset: u32::try_from(rows.len()).expect("small"),
                        ..Default::default()
                    },
                ))
                .await
                .expect("leaderboard")
                .into_inner();
            let last = page.rows.len() < 1000;
            rows.extend(page.rows);
            if last {
                return rows;
            }
        }
    }

    /// Streams `games` on `StreamGames`; every outcome that arrives goes into `ledger`. Ends with
    /// the stream's status.
    async fn stream(
        &self,
        channel: Channel,
        games: Vec<q::GameReport>,
        ledger: Arc<Mutex<HashMap<String, q::ReportOutcome>>>,
    ) -> Result<(), tonic::Status> {
        let mut outcomes = client(channel)
            .stream_games(with_token(&self.partner, tokio_stream::iter(games)))
            .await?
            .into_inner();
        while let Some(outcome) = outcomes.message().await? {
            ledger
                .lock()
                .expect("ledger")
                .insert(outcome.game_id.clone(), outcome);
        }
        Ok(())
    }
}

fn client(channel: Channel) -> QualificationServiceClient<Channel> {
    QualificationServiceClient::new(channel).max_decoding_message_size(64 << 20)
}

fn acknowledged(ledger: &Mutex<HashMap<String, q::ReportOutcome>>) -> HashSet<String> {
    ledger
        .lock()
        .expect("ledger")
        .values()
        .filter(|o| o.code == "OK")
        .map(|o| o.game_id.clone())
        .collect()
}

async fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

const PLAYERS: u32 = 400;
const PARTNERS: u32 = 3;
const PER_PARTNER: u32 = 15_000;

/// Partners stream; the process is killed with SIGKILL mid-stream and started again on the same
/// data. Every game a partner was told is stored is there, exactly once: resent, it is a
/// duplicate; the board counts each game once; and reads with a 1 s deadline right after the
/// restart answer within it (OK, or UNAVAILABLE while the board is rebuilt), never hang.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_stream_loses_no_acknowledged_game_and_counts_none_twice() {
    for backend in backends() {
        let data = Data::fresh(&backend).await;
        let process = data.start();
        let qualifier = Arc::new(Qualifier::new(&data, &process, PLAYERS).await);
        let total = PARTNERS * PER_PARTNER;
        let ledger = Arc::new(Mutex::new(HashMap::new()));
        let mut partners = Vec::new();
        for p in 0..PARTNERS {
            let games = (p * PER_PARTNER..(p + 1) * PER_PARTNER)
                .map(|n| qualifier.game(n))
                .collect();
            // Each partner on a connection of its own.
            let (channel, ledger, qualifier) =
                (process.channel().await, ledger.clone(), qualifier.clone());
            partners.push(tokio::spawn(async move {
                qualifier.stream(channel, games, ledger).await
            }));
        }
        wait_for("3,000 acknowledgements", Duration::from_secs(300), || {
            acknowledged(&ledger).len() >= 3_000
        })
        .await;
        process.kill9();
        let mut cut = 0;
        for partner in partners {
            if partner.await.expect("partner task").is_err() {
                cut += 1;
            }
        }
        let acked = acknowledged(&ledger);
        assert!(
            cut > 0 && acked.len() < total as usize,
            "{backend}: the kill came after every stream ended; nothing was tested"
        );
        let refused: Vec<_> = ledger
            .lock()
            .expect("ledger")
            .values()
            .filter(|o| o.code != "OK")
            .cloned()
            .collect();
        assert!(refused.is_empty(), "{backend}: {:?}", refused.first());

        // Restarted: reads with a 1 s deadline answer within it, OK or UNAVAILABLE with a retry
        // hint while the board is being rebuilt; one succeeds soon.
        let process = data.start();
        let started = Instant::now();
        let mut reader = client(process.channel().await);
        let mut unavailable = 0;
        loop {
            let mut request = with_token(
                &qualifier.org,
                q::LeaderboardRequest {
                    period: Some(qualifier.period.clone()),
                    page_size: 100,
                    ..Default::default()
                },
            );
            request.set_timeout(Duration::from_secs(1));
            let asked = Instant::now();
            let answer = reader.get_leaderboard(request).await;
            assert!(
                asked.elapsed() < Duration::from_millis(1_500),
                "{backend}: a read took {:?}",
                asked.elapsed()
            );
            match answer {
                Ok(_) => break,
                Err(status) if status.code() == Code::Unavailable => {
                    assert!(status.message().contains("retry in"), "{status:?}");
                    unavailable += 1;
                }
                Err(status) => panic!("{backend}: {status:?}"),
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "{backend}: no read succeeded within 120 s of the restart ({unavailable} unavailable)"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        eprintln!(
            "{backend}: first leaderboard read {:?} after the restart ({unavailable} UNAVAILABLE before it)",
            started.elapsed()
        );

        // Every game resent: the acknowledged ones are all there already.
        let resent = Arc::new(Mutex::new(HashMap::new()));
        let all: Vec<q::GameReport> = (0..total).map(|n| qualifier.game(n)).collect();
        qualifier
            .stream(process.channel().await, all, resent.clone())
            .await
            .expect("resend");
        let resent = resent.lock().expect("ledger").clone();
        assert_eq!(resent.len(), total as usize, "{backend}");
        for id in &acked {
            let outcome = &resent[id];
            assert_eq!(
                outcome.ack.as_ref().map(|a| a.status),
                Some(q::AckStatus::Duplicate as i32),
                "{backend}: acknowledged game {id} was not stored: {outcome:?}"
            );
        }
        let board = qualifier.board(process.channel().await).await;
        let counted: u32 = board.iter().map(|r| r.counted_games).sum();
        assert_eq!(counted, 2 * total, "{backend}: every game counted once");
        // The board kept live through the restart equals one rebuilt from the database.
        drop(process);
        let process = data.start();
        let mut rebuilt = Vec::new();
        for _ in 0..600 {
            let mut c = client(process.channel().await);
            match c
                .get_leaderboard(with_token(
                    &qualifier.org,
                    q::LeaderboardRequest {
                        period: Some(qualifier.period.clone()),
                        page_size: 1,
                        ..Default::default()
                    },
                ))
                .await
            {
                Ok(_) => {
                    rebuilt = qualifier.board(process.channel().await).await;
                    break;
                }
                Err(status) if status.code() == Code::Unavailable => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(status) => panic!("{backend}: {status:?}"),
            }
        }
        assert_eq!(board, rebuilt, "{backend}");
    }
}

/// An organizer's close is killed with SIGKILL at several moments; after each restart the period
/// is either open without a list (and closes) or closed with its whole list, never closed with
/// an empty one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_a_close_leaves_the_period_open_or_closed_with_its_whole_list() {
    for backend in backends() {
        let data = Data::fresh(&backend).await;
        let mut process = data.start();
        let qualifier = Arc::new(Qualifier::new(&data, &process, 2_000).await);
        let games: Vec<q::GameReport> = (0..20_000).map(|n| qualifier.game(n)).collect();
        let ledger = Arc::new(Mutex::new(HashMap::new()));
        qualifier
            .stream(process.channel().await, games, ledger.clone())
            .await
            .expect("stream");
        assert_eq!(acknowledged(&ledger).len(), 20_000);
        let mut interrupted = 0;
        let mut closed = None;
        // A restarted process rebuilds the board before it cuts: a kill soon after the request
        // lands in the middle of the close.
        for after_ms in [0u64, 30, 100, 300, 1_000, 3_000] {
            let mut c = client(process.channel().await);
            let (org, period) = (qualifier.org.clone(), qualifier.period.clone());
            let close = tokio::spawn(async move { c.close_period(with_token(&org, period)).await });
            tokio::time::sleep(Duration::from_millis(after_ms)).await;
            process.kill9();
            let answered = close.await.expect("close task");
            process = data.start();
            let mut c = client(process.channel().await);
            let state = c
                .get_advancement(with_token(&qualifier.org, qualifier.period.clone()))
                .await;
            match state {
                Ok(list) => {
                    let list = list.into_inner();
                    assert_eq!(
                        list.total_rows, 2_000,
                        "{backend}: a closed period has its whole list"
                    );
                    closed = Some(list);
                    break;
                }
                Err(status) => {
                    assert_eq!(
                        status.code(),
                        Code::FailedPrecondition,
                        "{backend}: {status:?}"
                    );
                    assert!(
                        status.message().contains("once the period is closed"),
                        "{backend}: the period must be open again, not closed without a list: {status:?}"
                    );
                    assert!(
                        answered.is_err(),
                        "{backend}: a close answered OK but left nothing"
                    );
                    interrupted += 1;
                }
            }
        }
        assert!(interrupted > 0, "{backend}: no kill landed inside a close");
        let list = match closed {
            Some(list) => list,
            None => client(process.channel().await)
                .close_period(with_token(&qualifier.org, qualifier.period.clone()))
                .await
                .expect("close after the crashes")
                .into_inner(),
        };
        assert_eq!(list.total_rows, 2_000, "{backend}");
        // New games are refused once it is closed.
        let late = Arc::new(Mutex::new(HashMap::new()));
        qualifier
            .stream(
                process.channel().await,
                vec![qualifier.game(30_000)],
                late.clone(),
            )
            .await
            .expect("stream");
        let late = late.lock().expect("ledger")["bench-30000"].clone();
        assert!(
            late.code != "OK" && late.field == "period",
            "{backend}: {late:?}"
        );
    }
}

/// SIGTERM while a partner streams: the server stops reading, stores and acknowledges what it
/// read, ends the stream with UNAVAILABLE, and exits well within Kubernetes' 45 s grace period.
/// After a restart, exactly the acknowledged games are stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_stream_acknowledges_what_it_stored_and_exits_in_time() {
    for backend in backends() {
        let data = Data::fresh(&backend).await;
        let mut process = data.start();
        let qualifier = Arc::new(Qualifier::new(&data, &process, PLAYERS).await);
        let total = 40_000u32;
        let ledger = Arc::new(Mutex::new(HashMap::new()));
        let partner = {
            let games = (0..total).map(|n| qualifier.game(n)).collect();
            let (channel, ledger, qualifier) =
                (process.channel().await, ledger.clone(), qualifier.clone());
            tokio::spawn(async move { qualifier.stream(channel, games, ledger).await })
        };
        wait_for("2,000 acknowledgements", Duration::from_secs(300), || {
            acknowledged(&ledger).len() >= 2_000
        })
        .await;
        let asked = Instant::now();
        process.sigterm();
        let ended = partner.await.expect("partner task");
        let status = ended.expect_err("the stream ends with the shutdown");
        assert_eq!(status.code(), Code::Unavailable, "{backend}: {status:?}");
        assert!(status.message().contains("resend"), "{status:?}");
        let exit = process.wait_exit(Duration::from_secs(40));
        assert!(
            exit.is_some_and(|s| s.success()),
            "{backend}: exit {exit:?} within 40 s"
        );
        eprintln!("{backend}: exited {:?} after SIGTERM", asked.elapsed());
        let acked = acknowledged(&ledger);
        assert!(
            acked.len() < total as usize,
            "{backend}: the stream ended before SIGTERM"
        );

        let process = data.start();
        let resent = Arc::new(Mutex::new(HashMap::new()));
        let all: Vec<q::GameReport> = (0..total).map(|n| qualifier.game(n)).collect();
        qualifier
            .stream(process.channel().await, all, resent.clone())
            .await
            .expect("resend");
        let resent = resent.lock().expect("ledger").clone();
        let stored_before: HashSet<String> = resent
            .values()
            .filter(|o| o.ack.as_ref().map(|a| a.status) == Some(q::AckStatus::Duplicate as i32))
            .map(|o| o.game_id.clone())
            .collect();
        assert_eq!(stored_before, acked, "{backend}: acknowledged == stored");
    }
}
