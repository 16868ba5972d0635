//! The real `qiwang` binary as a child process, for what only a process shows: `kill -9` mid-stream,
//! SIGTERM during a stream, a restart with clients waiting.
//!
//! The binary is the one `cargo test --workspace` builds beside the test executables
//! (`services/qiwang` has a test target, so Cargo builds it before any test runs). A run filtered
//! to one test target (`--test resilience`) does not rebuild it: `cargo build -p qiwang` first.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use qiwang_infra::auth::Role;
use qiwang_infra::{Settings, Verifier};

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use qiwang::bench::{synthetic_game, synthetic_players};
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use tonic::transport::Channel;

use crate::{
    Backend, DatabaseDropper, fresh_data_dir, fresh_database, preset_with_window, with_token,
};

/// The `qiwang` binary of this build.
pub fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps");
    let bin = dir.join(format!("qiwang{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test --workspace` builds it",
        bin.display()
    );
    bin
}

/// A database and data directory that outlive the processes started on them.
pub struct Data {
    pub backend: Backend,
    pub dir: PathBuf,
    pub url: String,
    _dropper: Option<DatabaseDropper>,
}

impl Data {
    /// A fresh database on `backend`, migrated (PostgreSQL deployments migrate explicitly).
    pub async fn fresh(backend: &Backend) -> Data {
        let dir = fresh_data_dir();
        std::fs::create_dir_all(&dir).expect("data dir");
        let (url, dropper) = fresh_database(backend, &dir).await;
        let data = Data {
            backend: backend.clone(),
            dir,
            url,
            _dropper: dropper,
        };
        let out = data
            .command()
            .args(["migrate", "up"])
            .output()
            .expect("qiwang migrate up");
        assert!(out.status.success(), "migrate: {out:?}");
        data
    }

    fn command(&self) -> Command {
        let mut command = Command::new(binary());
        // Nothing of the caller's settings leaks in.
        for (key, _) in std::env::vars() {
            if key.starts_with("QIWANG_") || key == "DATABASE_URL" {
                command.env_remove(key);
            }
        }
        command
            .env("QIWANG_DATA_DIR", &self.dir)
            .env("DATABASE_URL", &self.url)
            .env("QIWANG_GRPC__LISTEN", "127.0.0.1:0")
            .env("QIWANG_GATEWAY__LISTEN", "127.0.0.1:0")
            .env("QIWANG_METRICS__LISTEN", "127.0.0.1:0")
            .env(
                "RUST_LOG",
                if std::env::var_os("TEST_LOG").is_some() {
                    "info"
                } else {
                    "error"
                },
            );
        command
    }

    /// Starts `qiwang up` on this data and waits until it prints its gRPC address.
    pub fn start(&self) -> Process {
        self.start_with(&[])
    }

    /// [`Data::start`] with these environment variables set too (settings, `RUST_LOG`).
    pub fn start_with(&self, env: &[(&str, &str)]) -> Process {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("qiwang.log"))
            .expect("log file");
        let mut child = self
            .command()
            .envs(env.iter().copied())
            .arg("up")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("qiwang up");
        let stdout = child.stdout.take().expect("stdout");
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(self.dir.join("qiwang.log"))
            .expect("log file");
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads the banner, then drains stdout (the log, too) into the log file, so the child
        // never blocks on a full pipe.
        std::thread::spawn(move || {
            use std::io::Write;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(rest) = line.trim_start().strip_prefix("gRPC")
                    && let Some(addr) = rest.split_whitespace().next()
                {
                    let _ = tx.send(addr.to_owned());
                }
                let _ = writeln!(log, "{line}");
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("qiwang up printed no gRPC address; see {}", self.log()));
        Process {
            child,
            grpc_url: format!("http://{addr}"),
        }
    }

    /// The processes' log (stderr), for failure messages.
    pub fn log(&self) -> String {
        self.dir.join("qiwang.log").display().to_string()
    }

    /// How many lines of the processes' log contain `text`, once there are `n` of them or 10 s
    /// have passed (a line reaches the file a moment after the process writes it).
    pub fn log_lines_with(&self, text: &str, n: usize) -> usize {
        let started = Instant::now();
        loop {
            let found = self.log_text().lines().filter(|l| l.contains(text)).count();
            if found >= n || started.elapsed() > Duration::from_secs(10) {
                return found;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The processes' log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(self.dir.join("qiwang.log")).unwrap_or_default()
    }

    /// The first column of the first row of `sql` on this data's database, read behind the
    /// suite's back (what an operator's `psql` would see).
    pub async fn query_i64(&self, sql: &str) -> Option<i64> {
        use sea_orm::{ConnectionTrait, Database, Statement};
        let db = Database::connect(&self.url).await.expect("connect");
        let row = db
            .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
            .await
            .expect("query");
        let value = row.and_then(|r| r.try_get_by_index::<Option<i64>>(0).expect("an integer"));
        db.close().await.expect("close");
        value
    }

    /// Runs `sql` on this data's database, behind the suite's back.
    pub async fn execute(&self, sql: &str) {
        use sea_orm::{ConnectionTrait, Database};
        let db = Database::connect(&self.url).await.expect("connect");
        db.execute_unprepared(sql).await.expect("execute");
        db.close().await.expect("close");
    }

    /// A token of `role`, signed with the development secret the first start wrote.
    pub fn token(&self, role: Role, sub: &str) -> String {
        let verifier =
            Verifier::from_settings(&Settings::default().auth, &self.dir).expect("verifier");
        let platform = (role == Role::Partner).then_some("yizhan");
        verifier.mint(role, sub, platform, None).expect("mint")
    }
}

impl Drop for Data {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A running `qiwang up`.
pub struct Process {
    child: Child,
    pub grpc_url: String,
}

impl Process {
    /// `kill -9`: no shutdown, no flush, nothing.
    pub fn kill9(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }

    /// Sends SIGTERM, as Kubernetes does at a rolling update.
    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
    }

    /// Waits up to `limit` for the process to exit; `None` if it is still running.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if started.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub async fn channel(&self) -> tonic::transport::Channel {
        tonic::transport::Channel::from_shared(self.grpc_url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A championship with an open 海选 period and `players` entrants (accounts `acc-0`…).
pub struct Qualifier {
    pub champ: String,
    pub period: q::PeriodRef,
    pub org: String,
    pub partner: String,
    pub players: u32,
}

impl Qualifier {
    pub async fn new(data: &Data, process: &Process, players: u32) -> Qualifier {
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
    pub fn game(&self, n: u32) -> q::GameReport {
        let mut g = synthetic_game(&self.champ, n, self.players);
        g.result = q::Result::FirstWins as i32;
        g.end_reason = q::EndReason::Resignation as i32;
        g.ended_by = q::Side::Unspecified as i32;
        g.first_disconnections.clear();
        g
    }

    /// The whole board, page by page. Its first read after a start builds it: UNAVAILABLE with
    /// a retry hint meanwhile, retried here for up to five minutes.
    pub async fn board(&self, channel: Channel) -> Vec<q::LeaderboardRow> {
        let mut client = client(channel);
        let mut rows = Vec::new();
        let started = std::time::Instant::now();
        loop {
            let answer = client
                .get_leaderboard(with_token(
                    &self.org,
                    q::LeaderboardRequest {
                        period: Some(self.period.clone()),
                        page_size: 1000,
                        offset: u32::try_from(rows.len()).expect("small"),
                        ..Default::default()
                    },
                ))
                .await;
            let page = match answer {
                Ok(page) => page.into_inner(),
                Err(status) if status.code() == tonic::Code::Unavailable => {
                    assert!(started.elapsed().as_secs() < 300, "{status:?}");
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    continue;
                }
                Err(status) => panic!("leaderboard: {status:?}"),
            };
            let last = page.rows.len() < 1000;
            rows.extend(page.rows);
            if last {
                return rows;
            }
        }
    }

    /// Streams `games` on `StreamGames`; every outcome that arrives goes into `ledger`. Ends with
    /// the stream's status.
    pub async fn stream(
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

pub fn client(channel: Channel) -> QualificationServiceClient<Channel> {
    QualificationServiceClient::new(channel).max_decoding_message_size(64 << 20)
}
