//! A crash or a SIGTERM loses no acknowledged write and counts nothing twice (issue 4's crash
//! test, issue 7's SIGTERM test): the real `qiwang up` binary, killed mid-stream, restarted on the
//! same data directory.

use chrono::{Duration, TimeZone, Utc};
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;
use tonic::transport::Channel;

fn qiwang(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_qiwang"));
    for (key, _) in std::env::vars() {
        if key.starts_with("QIWANG_") || key == "DATABASE_URL" {
            cmd.env_remove(key);
        }
    }
    cmd.current_dir(dir);
    cmd
}

/// Starts `qiwang up` on free ports; returns the child and its gRPC URL.
fn up(dir: &Path) -> (Child, String) {
    let mut child = qiwang(dir)
        .arg("up")
        .env("QIWANG_GRPC__LISTEN", "127.0.0.1:0")
        .env("QIWANG_GATEWAY__LISTEN", "127.0.0.1:0")
        .env("QIWANG_METRICS__LISTEN", "127.0.0.1:0")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn qiwang up");
    let stdout = child.stdout.take().expect("stdout");
    let mut grpc = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("banner");
        if let Some(rest) = line.trim_start().strip_prefix("gRPC") {
            grpc = rest
                .split_whitespace()
                .next()
                .map(|a| format!("http://{a}"));
        }
        if line.starts_with("Ctrl-C") {
            break;
        }
    }
    (child, grpc.expect("gRPC address in the banner"))
}

fn token(dir: &Path, args: &[&str]) -> String {
    let out = qiwang(dir).arg("token").args(args).output().expect("token");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn req<T>(token: &str, message: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("header"),
    );
    r
}

fn temp_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("qiwang-crash-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

fn game(championship: &str, n: u32) -> q::GameReport {
    // 2022-06-01 12:00 China time onwards, one a minute: inside 海选 period 1 of xiangqi-2022.
    let start = Utc
        .with_ymd_and_hms(2022, 6, 1, 4, 0, 0)
        .single()
        .expect("time")
        + Duration::minutes(i64::from(n));
    let ts = |t: chrono::DateTime<Utc>| {
        Some(prost_types::Timestamp {
            seconds: t.timestamp(),
            nanos: 0,
        })
    };
    q::GameReport {
        championship_id: championship.into(),
        game_id: format!("g{n:06}"),
        first_account: if n.is_multiple_of(2) {
            "acc-a".into()
        } else {
            "acc-b".into()
        },
        second_account: if n.is_multiple_of(2) {
            "acc-b".into()
        } else {
            "acc-a".into()
        },
        result: q::Result::FirstWins as i32,
        end_reason: q::EndReason::Resignation as i32,
        started_at: ts(start),
        ended_at: ts(start + Duration::seconds(50)),
        ..Default::default()
    }
}

async fn connect(
    url: &str,
) -> (
    RegistrationServiceClient<Channel>,
    QualificationServiceClient<Channel>,
) {
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match Channel::from_shared(url.to_owned())
            .expect("url")
            .connect()
            .await
        {
            Ok(ch) => {
                return (
                    RegistrationServiceClient::new(ch.clone()),
                    QualificationServiceClient::new(ch),
                );
            }
            Err(e) if Instant::now() < deadline => {
                let _ = e;
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => panic!("connect: {e}"),
        }
    }
}

/// Sets up a championship with two players and an open period; returns the championship id.
async fn prepare(dir: &Path, url: &str) -> String {
    let org = token(dir, &["--role", "organizer", "--sub", "org-1"]);
    let partner = token(
        dir,
        &["--role", "partner", "--sub", "bot", "--platform", "yizhan"],
    );
    let (mut reg, mut qual) = connect(url).await;
    let champ = reg
        .create_championship(req(
            &org,
            pb::CreateChampionshipRequest {
                preset_toml: qiwang::bench::preset_with_registration_window("xiangqi-2022", -1, 1)
                    .expect("preset"),
                ..Default::default()
            },
        ))
        .await
        .expect("championship")
        .into_inner()
        .id;
    for (name, id, acc) in [
        ("甲", "11010519491231002X", "acc-a"),
        ("乙", "440524188001010014", "acc-b"),
    ] {
        let sex = if acc == "acc-a" {
            pb::Sex::Female
        } else {
            pb::Sex::Male
        };
        let birth = if acc == "acc-a" {
            "1949-12-31"
        } else {
            "1880-01-01"
        };
        let p = reg
            .register_player(req(
                &org,
                pb::RegisterPlayerRequest {
                    name: name.into(),
                    sex: sex as i32,
                    birth_date: birth.into(),
                    identity: Some(pb::Identity {
                        kind: Some(pb::identity::Kind::Resident(pb::ResidentId {
                            number: id.into(),
                        })),
                    }),
                    phone: String::new(),
                },
            ))
            .await
            .expect("player")
            .into_inner();
        reg.enter_event(req(
            &org,
            pb::EnterEventRequest {
                championship_id: champ.clone(),
                event: "men-individual".into(),
                player_id: p.id.clone(),
            },
        ))
        .await
        .expect("enter");
        reg.link_account(req(
            &partner,
            pb::LinkAccountRequest {
                player_id: p.id,
                platform: "yizhan".into(),
                account_id: acc.into(),
            },
        ))
        .await
        .expect("link");
    }
    qual.open_period(req(
        &org,
        q::PeriodRef {
            championship_id: champ.clone(),
            stage: "haixuan".into(),
            period: 1,
        },
    ))
    .await
    .expect("open");
    champ
}

/// Reports games 0.. one by one until `stop` games are acknowledged, sending the kill `signal`
/// while the next report is in flight. Returns (acknowledged, sent).
async fn report_until_killed(
    dir: &Path,
    url: &str,
    champ: &str,
    child: &Child,
    stop: u32,
    signal: &str,
) -> (Vec<u32>, u32) {
    let partner = token(
        dir,
        &["--role", "partner", "--sub", "bot", "--platform", "yizhan"],
    );
    let (_, mut qual) = connect(url).await;
    let mut acked = Vec::new();
    let mut sent = 0;
    let pid = child.id().to_string();
    let killer = {
        let signal = signal.to_owned();
        move || {
            let _ = Command::new("kill")
                .args([signal.as_str(), pid.as_str()])
                .status();
        }
    };
    let mut killed = false;
    for n in 0..stop * 4 {
        let call = qual.report_game(req(&partner, game(champ, n)));
        sent = n + 1;
        if acked.len() as u32 == stop && !killed {
            // Kill while this report is in flight.
            killed = true;
            let killer = killer.clone();
            std::thread::spawn(killer);
        }
        match call.await {
            Ok(ack) => {
                assert_eq!(ack.into_inner().status, q::AckStatus::Stored as i32);
                acked.push(n);
            }
            Err(_) if killed => break,
            Err(e) => panic!("report {n}: {e}"),
        }
    }
    assert!(killed, "the process was killed mid-stream");
    (acked, sent)
}

async fn check_after_restart(dir: &Path, champ: &str, acked: &[u32], sent: u32) {
    let (mut child, url) = up(dir);
    let partner = token(
        dir,
        &["--role", "partner", "--sub", "bot", "--platform", "yizhan"],
    );
    let org = token(dir, &["--role", "organizer", "--sub", "org-1"]);
    let (_, mut qual) = connect(&url).await;
    // Every acknowledged game is there: reporting it again is a duplicate.
    for n in acked {
        let ack = qual
            .report_game(req(&partner, game(champ, *n)))
            .await
            .expect("re-report")
            .into_inner();
        assert_eq!(
            ack.status,
            q::AckStatus::Duplicate as i32,
            "acknowledged game {n} was lost"
        );
    }
    // The unacknowledged tail is either there or not, never twice: send it again.
    for n in acked.len() as u32..sent {
        qual.report_game(req(&partner, game(champ, n)))
            .await
            .expect("re-send the tail");
    }
    let board = qual
        .get_leaderboard(req(
            &org,
            q::LeaderboardRequest {
                period: Some(q::PeriodRef {
                    championship_id: champ.into(),
                    stage: "haixuan".into(),
                    period: 1,
                }),
                ..Default::default()
            },
        ))
        .await
        .expect("leaderboard")
        .into_inner();
    let counted: u32 = board.rows.iter().map(|r| r.counted_games).sum();
    assert_eq!(
        counted,
        2 * sent,
        "every sent game counted exactly once (two players per game)"
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_suite_loses_no_acknowledged_game_and_counts_none_twice() {
    let dir = temp_dir();
    let (child, url) = up(&dir);
    let champ = prepare(&dir, &url).await;
    let (acked, sent) = report_until_killed(&dir, &url, &champ, &child, 150, "-KILL").await;
    let mut child = child;
    let _ = child.wait();
    assert!(acked.len() >= 150, "{} acknowledged", acked.len());
    check_after_restart(&dir, &champ, &acked, sent).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_finishes_in_flight_reports_and_exits_cleanly() {
    let dir = temp_dir();
    let (child, url) = up(&dir);
    let champ = prepare(&dir, &url).await;
    let (acked, sent) = report_until_killed(&dir, &url, &champ, &child, 100, "-TERM").await;
    let mut child = child;
    let status = child.wait().expect("wait");
    assert!(status.success(), "graceful exit on SIGTERM: {status:?}");
    check_after_restart(&dir, &champ, &acked, sent).await;
    let _ = std::fs::remove_dir_all(dir);
}
