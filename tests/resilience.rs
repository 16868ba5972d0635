//! The online qualifier on the days production brings, against the real `qiwang` binary as a
//! child process (issue 43): `kill -9` while partners stream, `kill -9` during a close, SIGTERM
//! during a stream, and reads with a client deadline right after a restart. SQLite, and
//! PostgreSQL when configured.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use qiwang_blackbox::process::{Data, Process, Qualifier, client};
use qiwang_blackbox::{Backend, backends, with_token};
use qiwang_proto::qualification::v1 as q;
use tonic::Code;

fn acknowledged(ledger: &Mutex<HashMap<String, q::ReportOutcome>>) -> HashSet<String> {
    ledger
        .lock()
        .expect("ledger")
        .values()
        .filter(|o| o.code == "OK")
        .map(|o| o.game_id.clone())
        .collect()
}

/// Games `0..total` sent again on one stream; their outcomes by game id.
async fn resend_all(
    qualifier: &Qualifier,
    process: &Process,
    total: u32,
) -> HashMap<String, q::ReportOutcome> {
    let resent = Arc::new(Mutex::new(HashMap::new()));
    let all: Vec<q::GameReport> = (0..total).map(|n| qualifier.game(n)).collect();
    qualifier
        .stream(process.channel().await, all, resent.clone())
        .await
        .expect("resend");
    resent.lock().expect("ledger").clone()
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
        let resent = resend_all(&qualifier, &process, total).await;
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
        // The board kept live through the restart equals one recomputed from every stored game
        // (any checkpoint written meanwhile forgotten).
        drop(process);
        data.execute("DELETE FROM qualification_checkpoints").await;
        let process = data.start();
        let rebuilt = qualifier.board(process.channel().await).await;
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
        let resent = resend_all(&qualifier, &process, total).await;
        let stored_before: HashSet<String> = resent
            .values()
            .filter(|o| o.ack.as_ref().map(|a| a.status) == Some(q::AckStatus::Duplicate as i32))
            .map(|o| o.game_id.clone())
            .collect();
        assert_eq!(stored_before, acked, "{backend}: acknowledged == stored");
    }
}

/// Streams games `range` on one stream and waits for every outcome: all stored.
async fn store_all(qualifier: &Qualifier, process: &Process, range: std::ops::Range<u32>) {
    let ledger = Arc::new(Mutex::new(HashMap::new()));
    let n = range.len();
    let games = range.map(|n| qualifier.game(n)).collect();
    qualifier
        .stream(process.channel().await, games, ledger.clone())
        .await
        .expect("stream");
    let ledger = ledger.lock().expect("ledger");
    assert_eq!(ledger.len(), n);
    assert!(
        ledger.values().all(|o| o.code == "OK"),
        "{:?}",
        ledger.values().find(|o| o.code != "OK")
    );
}

/// R-ONL-9 after a restart: a graceful stop checkpoints the live board; after a crash the
/// restarted process restores that checkpoint and applies only the games stored after it (the
/// tail); the board it serves equals one recomputed from every stored game. The periodic
/// checkpoint catches up with ingest while the process runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_onl_9_a_restart_serves_the_checkpoint_plus_the_games_stored_after_it() {
    const LIVE_LOG: (&str, &str) = ("RUST_LOG", "error,qiwang_qualification::service::live=info");
    const NO_PERIODIC: (&str, &str) = ("QIWANG_QUALIFICATION__CHECKPOINT_EVERY_SECS", "3600");
    let restored = "restored from its checkpoint";
    for backend in backends() {
        let data = Data::fresh(&backend).await;
        let mut process = data.start_with(&[NO_PERIODIC]);
        let qualifier = Qualifier::new(&data, &process, PLAYERS).await;
        store_all(&qualifier, &process, 0..8_000).await;
        // The board is live once read; a graceful stop writes its checkpoint.
        assert_eq!(
            qualifier.board(process.channel().await).await.len(),
            PLAYERS as usize
        );
        process.sigterm();
        let exit = process.wait_exit(Duration::from_secs(40));
        assert!(
            exit.is_some_and(|s| s.success()),
            "{backend}: {exit:?}: {}",
            data.log_text()
        );
        // The period's change sequence: every stored game and reset is at or below it.
        let max_seq = "SELECT MAX(seq) FROM qualification_periods";
        let checkpoint_seq = "SELECT MAX(seq) FROM qualification_checkpoints";
        let first = data.query_i64(checkpoint_seq).await;
        assert_eq!(
            first,
            data.query_i64(max_seq).await,
            "{backend}: checkpointed at the stop"
        );

        // Restored, not recomputed; then a tail the checkpoint does not cover, and a crash.
        let process = data.start_with(&[NO_PERIODIC, LIVE_LOG]);
        let board = qualifier.board(process.channel().await).await;
        assert_eq!(
            data.log_lines_with(restored, 1),
            1,
            "{backend}: {}",
            data.log_text()
        );
        assert_eq!(
            board.iter().map(|r| r.counted_games).sum::<u32>(),
            2 * 8_000
        );
        store_all(&qualifier, &process, 8_000..14_000).await;
        process.kill9();
        assert_eq!(
            data.query_i64(checkpoint_seq).await,
            first,
            "{backend}: no newer checkpoint"
        );
        assert!(data.query_i64(max_seq).await > first, "{backend}: a tail");

        // Checkpoint + tail, and the periodic checkpoint catching up with ingest.
        let process = data.start_with(&[
            ("QIWANG_QUALIFICATION__CHECKPOINT_EVERY_SECS", "1"),
            LIVE_LOG,
        ]);
        let resumed = qualifier.board(process.channel().await).await;
        assert_eq!(
            data.log_lines_with(restored, 2),
            2,
            "{backend}: {}",
            data.log_text()
        );
        assert_eq!(
            resumed.iter().map(|r| r.counted_games).sum::<u32>(),
            2 * 14_000,
            "{backend}: every game counted once"
        );
        store_all(&qualifier, &process, 14_000..16_000).await;
        let started = Instant::now();
        while data.query_i64(checkpoint_seq).await != data.query_i64(max_seq).await {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{backend}: no periodic checkpoint"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let live = qualifier.board(process.channel().await).await;
        process.kill9();
        let process = data.start_with(&[LIVE_LOG]);
        let from_checkpoint = qualifier.board(process.channel().await).await;
        assert_eq!(
            data.log_lines_with(restored, 3),
            3,
            "{backend}: {}",
            data.log_text()
        );
        assert_eq!(from_checkpoint, live, "{backend}");
        drop(process);

        // Recomputed from every stored game, with the checkpoints forgotten: the same board.
        data.execute("DELETE FROM qualification_checkpoints").await;
        let process = data.start();
        let recomputed = qualifier.board(process.channel().await).await;
        assert_eq!(live, recomputed, "{backend}");
    }
}

/// Two replicas on one PostgreSQL database (issue 43): partners stream one period's games to both
/// at once. Each replica shows the games it acknowledged as soon as it acknowledged them, follows
/// the other's through the period's sequence within a moment, and both boards end equal, every
/// game counted once. (The embedded SQLite suite is one process by design: it claims its file.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_database_follow_one_sequence_and_count_every_game_once() {
    for backend in backends() {
        if matches!(backend, Backend::Sqlite) {
            continue;
        }
        let data = Data::fresh(&backend).await;
        let replicas = [data.start(), data.start()];
        let qualifier = Arc::new(Qualifier::new(&data, &replicas[0], PLAYERS).await);
        const PER_REPLICA: u32 = 6_000;
        // Both boards exist before the games come: each then follows the other's writes live.
        for replica in &replicas {
            assert!(qualifier.board(replica.channel().await).await.is_empty());
        }
        let mut partners = Vec::new();
        for (r, replica) in replicas.iter().enumerate() {
            let r = u32::try_from(r).expect("two");
            let games = (r * PER_REPLICA..(r + 1) * PER_REPLICA)
                .map(|n| qualifier.game(n))
                .collect();
            let (channel, qualifier) = (replica.channel().await, qualifier.clone());
            partners.push(tokio::spawn(async move {
                let ledger = Arc::new(Mutex::new(HashMap::new()));
                qualifier
                    .stream(channel.clone(), games, ledger.clone())
                    .await?;
                // Right after its last acknowledgement, this replica's board holds all its games.
                let board = qualifier.board(channel).await;
                Ok::<_, tonic::Status>((acknowledged(&ledger).len(), board))
            }));
        }
        for partner in partners {
            let (acked, board) = partner.await.expect("partner").expect("stream");
            assert_eq!(acked, PER_REPLICA as usize, "{backend}");
            let counted: u32 = board.iter().map(|r| r.counted_games).sum();
            assert!(
                counted >= 2 * PER_REPLICA,
                "{backend}: a replica showed {counted} results after acknowledging {acked} games"
            );
        }
        let total = 2 * PER_REPLICA;
        let started = Instant::now();
        let boards = loop {
            let mut boards = Vec::new();
            for replica in &replicas {
                boards.push(qualifier.board(replica.channel().await).await);
            }
            let counted: Vec<u32> = boards
                .iter()
                .map(|b| b.iter().map(|r| r.counted_games).sum())
                .collect();
            assert!(
                counted.iter().all(|&c| c <= 2 * total),
                "{backend}: counted twice: {counted:?}"
            );
            if counted.iter().all(|&c| c == 2 * total) {
                break boards;
            }
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "{backend}: the replicas did not follow each other within 5 s: {counted:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(boards[0], boards[1], "{backend}");
    }
}
