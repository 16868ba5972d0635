//! Test support: start the real suite in-process on free ports (after zero2prod's `spawn_app`),
//! against a fresh SQLite file, and against a fresh PostgreSQL database when
//! `QIWANG_TEST_DATABASE_URL` is set (created per app, dropped after).
//!
//! Set `TEST_LOG=1` to see the suite's logs.

pub mod process;

use qiwang::{Plan, RunningSuite};
use qiwang_infra::auth::Role;
use qiwang_infra::config::Secret;
use qiwang_infra::{Settings, Verifier};
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use sea_orm::{ConnectionTrait, Database};
use std::path::PathBuf;

use tonic::transport::Channel;

/// A storage backend the suite runs on in a test.
#[derive(Debug, Clone)]
pub enum Backend {
    Sqlite,
    Postgres { admin_url: String },
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Sqlite => f.write_str("sqlite"),
            Backend::Postgres { .. } => f.write_str("postgres"),
        }
    }
}

/// SQLite always; PostgreSQL too when `QIWANG_TEST_DATABASE_URL` is set.
pub fn backends() -> Vec<Backend> {
    let mut all = vec![Backend::Sqlite];
    if let Ok(url) = std::env::var("QIWANG_TEST_DATABASE_URL")
        && !url.is_empty()
    {
        all.push(Backend::Postgres { admin_url: url });
    }
    all
}

/// The running suite plus what a client needs to talk to it.
pub struct TestApp {
    pub backend: Backend,
    pub settings: Settings,
    pub grpc_url: String,
    pub graphql_url: String,
    pub metrics_url: String,
    pub verifier: Verifier,
    suite: Option<RunningSuite>,
    dropper: Option<DatabaseDropper>,
}

/// Drops a per-test PostgreSQL database when the app goes away, even after a panic.
pub struct DatabaseDropper {
    admin_url: String,
    name: String,
}

impl Drop for DatabaseDropper {
    fn drop(&mut self) {
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        // A fresh runtime on a plain thread: Drop may run inside (or outside) the test's runtime.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                if let Ok(db) = Database::connect(&admin_url).await {
                    let _ = db
                        .execute_unprepared(&format!(
                            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                        ))
                        .await;
                    let _ = db.close().await;
                }
            });
        })
        .join();
    }
}

pub fn fresh_data_dir() -> PathBuf {
    std::env::temp_dir().join(format!("qiwang-test-{}", uuid::Uuid::new_v4().simple()))
}

/// Settings for a test app: free ports, a fresh data directory, development auth.
pub fn test_settings(data_dir: PathBuf) -> Settings {
    let mut settings = Settings {
        data_dir,
        ..Settings::default()
    };
    settings.grpc.listen = "127.0.0.1:0".parse().expect("address");
    settings.gateway.listen = "127.0.0.1:0".parse().expect("address");
    settings.metrics.listen = "127.0.0.1:0".parse().expect("address");
    settings
}

/// Creates the backend's fresh database and returns its URL (and a dropper for PostgreSQL).
pub async fn fresh_database(
    backend: &Backend,
    data_dir: &std::path::Path,
) -> (String, Option<DatabaseDropper>) {
    match backend {
        Backend::Sqlite => (
            format!("sqlite://{}?mode=rwc", data_dir.join("qiwang.db").display()),
            None,
        ),
        Backend::Postgres { admin_url } => {
            let name = format!("qiwang_test_{}", uuid::Uuid::new_v4().simple());
            let admin = Database::connect(admin_url)
                .await
                .expect("PostgreSQL reachable at QIWANG_TEST_DATABASE_URL");
            admin
                .execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
                .await
                .expect("create test database");
            admin.close().await.expect("close");
            let base = admin_url
                .rsplit_once('/')
                .map(|(b, _)| b)
                .unwrap_or(admin_url);
            (
                format!("{base}/{name}"),
                Some(DatabaseDropper {
                    admin_url: admin_url.clone(),
                    name,
                }),
            )
        }
    }
}

/// Starts the whole suite (all services and the gateway) on `backend`, migrations applied.
pub async fn spawn_app(backend: Backend) -> TestApp {
    if std::env::var_os("TEST_LOG").is_some() {
        // The guard is dropped at once: tests never export spans.
        drop(qiwang_infra::telemetry::init(&Settings::default().log));
    }
    let data_dir = fresh_data_dir();
    let (url, dropper) = fresh_database(&backend, &data_dir).await;
    let mut settings = test_settings(data_dir);
    settings.database_url = Some(Secret::new(url));
    start_with(backend, settings, dropper).await
}

async fn start_with(
    backend: Backend,
    settings: Settings,
    dropper: Option<DatabaseDropper>,
) -> TestApp {
    let plan = Plan {
        migrate_on_start: true,
        ..Plan::everything(&settings)
    };
    let suite = qiwang::start(&settings, &plan).await.expect("suite starts");
    let verifier = Verifier::from_settings(&settings.auth, &settings.data_dir).expect("verifier");
    TestApp {
        grpc_url: format!("http://{}", suite.grpc_addr.expect("grpc")),
        graphql_url: format!("http://{}/graphql", suite.gateway_addr.expect("gateway")),
        metrics_url: format!("http://{}/metrics", suite.metrics_addr.expect("metrics")),
        backend,
        settings,
        verifier,
        suite: Some(suite),
        dropper,
    }
}

impl TestApp {
    /// Stops the suite gracefully and starts it again on the same database and data directory
    /// (new ports): what a restart looks like to clients.
    pub async fn restart(mut self) -> TestApp {
        if let Some(suite) = self.suite.take() {
            suite.shutdown().await.expect("graceful shutdown");
        }
        let mut settings = self.settings.clone();
        settings.grpc.listen = "127.0.0.1:0".parse().expect("address");
        settings.gateway.listen = "127.0.0.1:0".parse().expect("address");
        settings.metrics.listen = "127.0.0.1:0".parse().expect("address");
        let dropper = self.dropper.take();
        // The data directory now belongs to the new app: the old one's Drop must not remove it
        // (the old pool's open files hid this; a new SQLite connection could not open the file).
        self.settings.data_dir = PathBuf::new();
        start_with(self.backend.clone(), settings, dropper).await
    }

    /// Restarts the suite with its clock `seconds` ahead (`Settings::clock_offset_seconds`): how a
    /// test reaches the day after a registration window.
    pub async fn restart_later(mut self, seconds: i64) -> TestApp {
        self.settings.clock_offset_seconds = seconds;
        self.restart().await
    }

    /// Stops the suite gracefully (the database is dropped when the app is dropped).
    pub async fn stop(mut self) {
        if let Some(suite) = self.suite.take() {
            suite.shutdown().await.expect("graceful shutdown");
        }
    }

    /// The suite's metrics, as a scraper reads them.
    pub async fn metrics(&self) -> String {
        reqwest::get(&self.metrics_url)
            .await
            .expect("metrics")
            .text()
            .await
            .expect("body")
    }

    /// How many calls a gRPC method (`/package.Service/Method`) has served, whatever their code,
    /// from the suite's metrics.
    pub async fn grpc_calls(&self, method: &str) -> u64 {
        let method = format!("method=\"{method}\"");
        self.metrics()
            .await
            .lines()
            .filter(|l| {
                l.starts_with("qiwang_requests_total{protocol=\"grpc\"") && l.contains(&method)
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    }

    pub fn token(&self, role: Role, sub: &str) -> String {
        let platform = (role == Role::Partner).then_some("yizhan");
        self.verifier.mint(role, sub, platform, None).expect("mint")
    }

    pub async fn registration(&self) -> RegistrationServiceClient<Channel> {
        RegistrationServiceClient::connect(self.grpc_url.clone())
            .await
            .expect("connect")
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(self.grpc_url.clone())
            .expect("url")
            .connect()
            .await
            .expect("connect")
    }

    /// POSTs a GraphQL document with an optional bearer token; returns the JSON response.
    pub async fn graphql(
        &self,
        token: Option<&str>,
        query: &str,
        variables: serde_json::Value,
    ) -> serde_json::Value {
        self.graphql_in(None, token, query, variables).await
    }

    /// [`TestApp::graphql`] with an `Accept-Language` header (`None`: no header, Chinese).
    pub async fn graphql_in(
        &self,
        accept_language: Option<&str>,
        token: Option<&str>,
        query: &str,
        variables: serde_json::Value,
    ) -> serde_json::Value {
        let mut request = reqwest::Client::new()
            .post(&self.graphql_url)
            .json(&serde_json::json!({ "query": query, "variables": variables }));
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        if let Some(lang) = accept_language {
            request = request.header("accept-language", lang);
        }
        let response = request.send().await.expect("gateway reachable");
        response.json().await.expect("JSON response")
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.settings.data_dir);
    }
}

/// Wraps a message with a bearer token.
pub fn with_token<T>(token: &str, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("header"),
    );
    request
}

/// A valid resident ID: region 330106 (Hangzhou), the given birth date (YYYYMMDD) and 3-digit
/// sequence (odd = male), with the computed check character.
pub fn resident_id(birth: &str, seq: u32) -> String {
    resident_id_in("330106", birth, seq)
}

/// A valid resident ID of the county `area` (6 digits: the first two are the province, R-TEAM-3).
pub fn resident_id_in(area: &str, birth: &str, seq: u32) -> String {
    let first17 = format!("{area}{birth}{seq:03}");
    let mut digits = [0u32; 17];
    for (slot, c) in digits.iter_mut().zip(first17.chars()) {
        *slot = c.to_digit(10).expect("digit");
    }
    format!(
        "{first17}{}",
        qiwang_core::identity::resident_id_check_char(&digits)
    )
}

/// A registration request for a foreign man born on `birth_date` (YYYY-MM-DD), identified by
/// passport `number` of `nationality` (ISO alpha-3), who gave no phone.
pub fn foreign_player(
    name: &str,
    birth_date: &str,
    number: &str,
    nationality: &str,
) -> pb::RegisterPlayerRequest {
    pb::RegisterPlayerRequest {
        name: name.into(),
        sex: pb::Sex::Male as i32,
        birth_date: birth_date.into(),
        identity: Some(pb::Identity {
            kind: Some(pb::identity::Kind::Passport(pb::Passport {
                number: number.into(),
                nationality: nationality.into(),
            })),
        }),
        phone: String::new(),
    }
}

/// A registration request for a Chinese player born on `birth` (YYYYMMDD).
pub fn chinese_player(name: &str, birth: &str, seq: u32) -> pb::RegisterPlayerRequest {
    chinese_player_in("330106", name, birth, seq)
}

/// A registration request for a Chinese player of county `area` (odd `seq`: a man).
pub fn chinese_player_in(
    area: &str,
    name: &str,
    birth: &str,
    seq: u32,
) -> pb::RegisterPlayerRequest {
    let sex = if seq % 2 == 1 {
        pb::Sex::Male
    } else {
        pb::Sex::Female
    };
    pb::RegisterPlayerRequest {
        name: name.into(),
        sex: sex as i32,
        birth_date: format!("{}-{}-{}", &birth[..4], &birth[4..6], &birth[6..]),
        identity: Some(pb::Identity {
            kind: Some(pb::identity::Kind::Resident(pb::ResidentId {
                number: resident_id_in(area, birth, seq),
            })),
        }),
        phone: "13812345678".into(),
    }
}

/// The text of official preset `name` with its registration window moved to `days_from_today`
/// (inclusive, China time): how an organizer prepares a new season without a code change.
pub fn preset_with_window(name: &str, opens_in_days: i64, closes_in_days: i64) -> String {
    qiwang::bench::preset_with_registration_window(name, opens_in_days, closes_in_days)
        .expect("official preset")
}

/// Creates a championship (as an organizer) from preset text; returns its id.
pub async fn championship_from(app: &TestApp, preset_toml: String) -> String {
    let org = app.token(Role::Organizer, "org-1");
    let mut client = app.registration().await;
    client
        .create_championship(with_token(
            &org,
            pb::CreateChampionshipRequest {
                preset_toml,
                ..Default::default()
            },
        ))
        .await
        .expect("create championship")
        .into_inner()
        .id
}

/// The smallest valid PNG header a certificate photo upload is checked for (1×1, RGB), plus
/// `padding` bytes of image data.
pub fn png_bytes(padding: usize) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR".to_vec();
    b.extend_from_slice(&[0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
    b.resize(b.len() + padding, 0x42);
    b
}

/// Uploads a certificate photo of `player_id` (as `token`'s holder); returns the evidence id.
pub async fn upload_photo(app: &TestApp, token: &str, player_id: &str) -> String {
    let mut client = app.registration().await;
    client
        .upload_evidence(with_token(
            token,
            pb::UploadEvidenceRequest {
                player_id: player_id.into(),
                content_type: "image/png".into(),
                content: png_bytes(64),
            },
        ))
        .await
        .expect("upload a certificate photo")
        .into_inner()
        .id
}

impl TestApp {
    /// A GraphQL multipart request (the GraphQL multipart request spec): `variables` with the
    /// file's variable at `file_path` (e.g. `variables.file`) set to null, and the file's bytes.
    /// Returns the HTTP status and the body (null when it is not JSON).
    pub async fn graphql_upload(
        &self,
        token: Option<&str>,
        query: &str,
        variables: serde_json::Value,
        file_path: &str,
        file: (Vec<u8>, &str),
    ) -> (u16, serde_json::Value) {
        let operations = serde_json::json!({ "query": query, "variables": variables });
        let part = reqwest::multipart::Part::bytes(file.0)
            .file_name("certificate")
            .mime_str(file.1)
            .expect("content type");
        let form = reqwest::multipart::Form::new()
            .text("operations", operations.to_string())
            .text("map", serde_json::json!({ "0": [file_path] }).to_string())
            .part("0", part);
        let mut request = reqwest::Client::new()
            .post(&self.graphql_url)
            .multipart(form);
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        let response = request.send().await.expect("gateway reachable");
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(serde_json::Value::Null);
        (status, body)
    }
}
