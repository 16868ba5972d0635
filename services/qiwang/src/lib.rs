//! The composition root: builds the services and the gateway from [`Settings`] and runs them.
//!
//! `qiwang up` runs everything in one process on the embedded SQLite default; `qiwang serve NAME`
//! runs one component (how Kubernetes runs it). Black-box tests call [`start`] with port 0.

pub mod bench;
pub mod bench_pairing;
pub mod describe;

use anyhow::Context;
use axum::serve::ListenerExt;
use qiwang_awards::AwardsApi;
use qiwang_gateway::{GatewayConfig, Services};
use qiwang_infra::metrics::{GrpcMetricsLayer, Metrics, RequestIdLayer};
use qiwang_infra::{Settings, Verifier};
use qiwang_migrations::{Migrator, MigratorTrait};
use qiwang_pairing::PairingApi;
use qiwang_proto::awards::v1::awards_service_server::AwardsServiceServer;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::pairing::v1::pairing_service_server::PairingServiceServer;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::qualification::v1::qualification_service_server::QualificationServiceServer;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use qiwang_proto::registration::v1::registration_service_server::RegistrationServiceServer;
use qiwang_proto::teamranking::v1::team_ranking_service_client::TeamRankingServiceClient;
use qiwang_proto::teamranking::v1::team_ranking_service_server::TeamRankingServiceServer;
use qiwang_qualification::QualificationApi;
use qiwang_registration::RegistrationApi;
use qiwang_team_ranking::TeamRankingApi;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tonic::transport::Endpoint;

/// `qiwang lottery verify`: re-runs a published draw (R-PAIR-3, R-ADV-3) from its seed and ordered
/// candidates. Returns the printed report (one `place<TAB>candidate` line each, then the verdict
/// when `expect` is given) and whether the published result matches (always true without one).
pub fn lottery_verify(
    seed: &str,
    candidates: &[String],
    places: Option<usize>,
    expect: &[String],
) -> anyhow::Result<(String, bool)> {
    let drawn = qiwang_core::lottery::draw(seed, candidates, places.unwrap_or(candidates.len()))?;
    let mut report = String::new();
    for (i, c) in drawn.iter().enumerate() {
        report.push_str(&format!("{}\t{c}\n", i + 1));
    }
    if expect.is_empty() {
        return Ok((report, true));
    }
    let verified = drawn == expect;
    report.push_str(if verified {
        "verified: the published result is this draw\n"
    } else {
        "MISMATCH: the published result is not this draw\n"
    });
    Ok((report, verified))
}

/// A component `qiwang serve` can run alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Component {
    Registration,
    Qualification,
    Pairing,
    TeamRanking,
    Awards,
    Gateway,
}

/// Which components to start, and whether to apply migrations first.
#[derive(Debug, Clone)]
pub struct Plan {
    pub components: Vec<Component>,
    /// Apply pending migrations on start (the embedded default only; PostgreSQL deployments run
    /// `qiwang migrate up` as a separate step).
    pub migrate_on_start: bool,
}

impl Plan {
    /// Everything, in one process: `qiwang up`.
    pub fn everything(settings: &Settings) -> Plan {
        Plan {
            components: vec![
                Component::Registration,
                Component::Qualification,
                Component::Pairing,
                Component::TeamRanking,
                Component::Awards,
                Component::Gateway,
            ],
            migrate_on_start: settings.is_embedded_database(),
        }
    }
}

/// The gRPC listener's HTTP/2 flow-control windows (see where the server is built).
const STREAM_WINDOW: u32 = 64 * 1024;
const CONNECTION_WINDOW: u32 = 4 * 1024 * 1024;

/// How long a graceful shutdown may take before the process gives up on it: within
/// Kubernetes' 45 s grace period, with room to spare (a partner's stream stops reading at once,
/// stores what it read, and ends with `UNAVAILABLE`).
const SHUTDOWN_LIMIT: Duration = Duration::from_secs(30);
/// How long the live boards' last checkpoints may take at a shutdown, within [`SHUTDOWN_LIMIT`].
const FINAL_CHECKPOINT_LIMIT: Duration = Duration::from_secs(20);

/// A running suite. Drop does not stop it: call [`RunningSuite::shutdown`].
pub struct RunningSuite {
    pub grpc_addr: Option<SocketAddr>,
    pub gateway_addr: Option<SocketAddr>,
    /// Where `/metrics` is served (Prometheus text format).
    pub metrics_addr: Option<SocketAddr>,
    shutdown: watch::Sender<bool>,
    tasks: Vec<(&'static str, JoinHandle<anyhow::Result<()>>)>,
    health: Option<tonic_health::server::HealthReporter>,
    /// A SQLite database is served by this suite alone while it runs (released when it stops).
    claim: Option<qiwang_infra::db::SqliteClaim>,
}

/// Every service's audit log (`qiwang audit check`).
pub const AUDIT_CHAINS: &[qiwang_infra::audit::ChainedTable] = &[
    qiwang_registration::AUDIT_CHAIN,
    qiwang_qualification::AUDIT_CHAIN,
    qiwang_awards::AUDIT_CHAIN,
];

/// gRPC service names, as health and reflection report them.
pub const REGISTRATION_SERVICE: &str = "qiwang.registration.v1.RegistrationService";
pub const QUALIFICATION_SERVICE: &str = "qiwang.qualification.v1.QualificationService";
pub const PAIRING_SERVICE: &str = "qiwang.pairing.v1.PairingService";
pub const TEAM_RANKING_SERVICE: &str = "qiwang.teamranking.v1.TeamRankingService";
pub const AWARDS_SERVICE: &str = "qiwang.awards.v1.AwardsService";

/// The registration client another service uses: in one process, the listener just bound;
/// otherwise `services.registration`.
fn registration_client(
    settings: &Settings,
    grpc_addr: Option<SocketAddr>,
    services: &[Component],
) -> anyhow::Result<RegistrationServiceClient<tonic::transport::Channel>> {
    let url = match grpc_addr {
        Some(addr) if services.contains(&Component::Registration) => format!("http://{addr}"),
        _ => settings.services.registration.clone(),
    };
    let channel =
        lazy_channel(settings, &url).with_context(|| format!("services.registration = {url:?}"))?;
    Ok(RegistrationServiceClient::new(channel))
}

/// A channel to another service, connected on first use, with the configured call timeout.
fn lazy_channel(settings: &Settings, url: &str) -> anyhow::Result<tonic::transport::Channel> {
    Ok(Endpoint::from_shared(url.to_owned())?
        .timeout(Duration::from_millis(settings.gateway.service_timeout_ms))
        .connect_lazy())
}

/// Starts the planned components on the configured listen addresses (port 0 picks a free port).
pub async fn start(settings: &Settings, plan: &Plan) -> anyhow::Result<RunningSuite> {
    if settings.clock_offset_seconds != 0
        && settings.auth.mode == qiwang_infra::config::AuthMode::Production
    {
        anyhow::bail!(
            "clock_offset_seconds is for development and tests; production runs on the real clock"
        );
    }
    let verifier =
        Verifier::from_settings(&settings.auth, &settings.data_dir).context("loading JWT keys")?;
    let (shutdown, _) = watch::channel(false);
    let metrics = Metrics::new();
    let mut suite = RunningSuite {
        grpc_addr: None,
        gateway_addr: None,
        metrics_addr: None,
        shutdown,
        tasks: Vec::new(),
        health: None,
        claim: None,
    };

    let services: Vec<Component> = plan
        .components
        .iter()
        .copied()
        .filter(|c| *c != Component::Gateway)
        .collect();
    if !services.is_empty() {
        // One process serves a SQLite database (several replicas run on PostgreSQL).
        suite.claim = qiwang_infra::db::claim_sqlite(&settings.database_url())
            .context("claiming the SQLite database")?;
        let db = qiwang_infra::db::connect(&settings.database_url())
            .await
            .context("connecting to the database")?;
        if plan.migrate_on_start {
            Migrator::up(&db, None)
                .await
                .context("applying migrations")?;
        }
        let listener = TcpListener::bind(settings.grpc.listen)
            .await
            .with_context(|| format!("binding gRPC on {}", settings.grpc.listen))?;
        suite.grpc_addr = Some(listener.local_addr()?);

        let (reporter, health_service) = tonic_health::server::health_reporter();
        let reflection_v1 = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(qiwang_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .build_v1()?;
        let reflection_v1alpha = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(qiwang_proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .build_v1alpha()?;
        // HTTP/2 flow control is what holds a partner's stream back while ingest stores the
        // groups ahead of it (qualification's `service/stream.rs`), so the stream window is small:
        // it bounds what a sender pushes ahead of the reader. h2 ends a connection whose buffered
        // small DATA frames (grpcio sends a report per frame) outgrow a budget of half the
        // connection window (`ENHANCE_YOUR_CALM "too_many_data_frames"`); with 64 KiB per stream
        // and 4 MiB per connection, dozens of held-back streams of 100-byte reports stay inside it.
        let mut router = tonic::transport::Server::builder()
            .initial_stream_window_size(STREAM_WINDOW)
            .initial_connection_window_size(CONNECTION_WINDOW)
            .layer(RequestIdLayer)
            .layer(GrpcMetricsLayer::new(metrics.clone()))
            .add_service(health_service)
            .add_service(reflection_v1)
            .add_service(reflection_v1alpha);
        let mut qualification = None;
        if services.contains(&Component::Registration) {
            // Pairs eligibility asks qualification: in one process, the listener just bound.
            let url = match suite.grpc_addr {
                Some(addr) if services.contains(&Component::Qualification) => {
                    format!("http://{addr}")
                }
                _ => settings.services.qualification.clone(),
            };
            let qualification = QualificationServiceClient::new(
                lazy_channel(settings, &url)
                    .with_context(|| format!("services.qualification = {url:?}"))?,
            );
            router = router.add_service(
                RegistrationApi::new(db.clone())
                    .with_qualification(qualification)
                    .with_clock_offset(settings.clock_offset_seconds)
                    .into_server(verifier.clone()),
            );
            reporter
                .set_serving::<RegistrationServiceServer<RegistrationApi>>()
                .await;
        }
        if services.contains(&Component::Qualification) {
            let mut api = QualificationApi::new(
                db.clone(),
                registration_client(settings, suite.grpc_addr, &services)?,
                suite.shutdown.subscribe(),
                metrics.clone(),
            );
            if suite.claim.is_some() {
                api = api.sole_writer();
            }
            let every = Duration::from_secs(settings.qualification.checkpoint_every_secs.max(1));
            let checkpoints = api.clone();
            suite.tasks.push((
                "qualification checkpoints",
                tokio::spawn(async move {
                    checkpoints.keep_checkpoints(every).await;
                    Ok(())
                }),
            ));
            qualification = Some(api.clone());
            router = router.add_service(api.into_server(verifier.clone()));
            reporter
                .set_serving::<QualificationServiceServer<QualificationApi>>()
                .await;
        }
        if services.contains(&Component::Pairing) {
            let api = PairingApi::new(
                db.clone(),
                registration_client(settings, suite.grpc_addr, &services)?,
            );
            router = router.add_service(api.into_server(verifier.clone()));
            reporter
                .set_serving::<PairingServiceServer<PairingApi>>()
                .await;
        }
        if services.contains(&Component::TeamRanking) {
            // In one process, the rankings come from the pairing service on this listener.
            let url = match suite.grpc_addr {
                Some(addr) if services.contains(&Component::Pairing) => format!("http://{addr}"),
                _ => settings.services.pairing.clone(),
            };
            let pairing = PairingServiceClient::new(
                lazy_channel(settings, &url)
                    .with_context(|| format!("services.pairing = {url:?}"))?,
            );
            let api = TeamRankingApi::new(
                db.clone(),
                registration_client(settings, suite.grpc_addr, &services)?,
                pairing,
            );
            router = router.add_service(api.into_server(verifier.clone()));
            reporter
                .set_serving::<TeamRankingServiceServer<TeamRankingApi>>()
                .await;
        }
        if services.contains(&Component::Awards) {
            // In one process, every upstream is on this listener.
            let local = |component: Component, configured: &str| match suite.grpc_addr {
                Some(addr) if services.contains(&component) => format!("http://{addr}"),
                _ => configured.to_owned(),
            };
            let channel = |url: String| {
                lazy_channel(settings, &url).with_context(|| format!("service URL {url:?}"))
            };
            let up = qiwang_awards::Upstream {
                registration: registration_client(settings, suite.grpc_addr, &services)?,
                qualification: QualificationServiceClient::new(channel(local(
                    Component::Qualification,
                    &settings.services.qualification,
                ))?),
                pairing: PairingServiceClient::new(channel(local(
                    Component::Pairing,
                    &settings.services.pairing,
                ))?),
                team_ranking: TeamRankingServiceClient::new(channel(local(
                    Component::TeamRanking,
                    &settings.services.team_ranking,
                ))?),
            };
            let api = AwardsApi::new(db.clone(), up);
            router = router.add_service(api.into_server(verifier.clone()));
            reporter
                .set_serving::<AwardsServiceServer<AwardsApi>>()
                .await;
        }
        reporter
            .set_service_status("", tonic_health::ServingStatus::Serving)
            .await;
        let mut rx = suite.shutdown.subscribe();
        // Accepted connections get TCP_NODELAY, as `Server::serve` would set: without it a reply
        // larger than one segment (a leaderboard page) waits ~40 ms on the peer's delayed ACK.
        let incoming =
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true));
        suite.tasks.push((
            "grpc",
            tokio::spawn(async move {
                router
                    .serve_with_incoming_shutdown(incoming, async move {
                        let _ = rx.wait_for(|stop| *stop).await;
                    })
                    .await?;
                // Every request has ended: the boards' last checkpoint, so the next start reads
                // them at once instead of rebuilding them (given up within the shutdown's limit:
                // a start without it rebuilds).
                if let Some(qualification) = qualification {
                    let last = qualification.checkpoint_all(Duration::ZERO);
                    if tokio::time::timeout(FINAL_CHECKPOINT_LIMIT, last)
                        .await
                        .is_err()
                    {
                        tracing::warn!(
                            "the last checkpoints took too long; a start rebuilds the boards"
                        );
                    }
                    qualification.close_boards();
                }
                db.close().await?;
                Ok(())
            }),
        ));
        suite.health = Some(reporter);
    }

    if plan.components.contains(&Component::Gateway) {
        // In one process, the gateway calls the services on the listener just bound.
        let local = |component: Component, configured: &str| match suite.grpc_addr {
            Some(addr) if services.contains(&component) => format!("http://{addr}"),
            _ => configured.to_owned(),
        };
        let urls = qiwang_gateway::ServiceUrls {
            registration: local(Component::Registration, &settings.services.registration),
            qualification: local(Component::Qualification, &settings.services.qualification),
            pairing: local(Component::Pairing, &settings.services.pairing),
            team_ranking: local(Component::TeamRanking, &settings.services.team_ranking),
            awards: local(Component::Awards, &settings.services.awards),
        };
        let clients = Services::connect_lazy(
            &urls,
            Duration::from_millis(settings.gateway.service_timeout_ms),
        )
        .with_context(|| format!("service URLs {urls:?}"))?;
        let app = qiwang_gateway::router(
            clients,
            verifier.clone(),
            metrics.clone(),
            &GatewayConfig {
                max_depth: settings.gateway.max_depth,
                max_complexity: settings.gateway.max_complexity,
                max_body_bytes: settings.gateway.max_body_bytes,
                max_upload_bytes: settings.gateway.max_upload_bytes,
            },
        );
        let listener = TcpListener::bind(settings.gateway.listen)
            .await
            .with_context(|| format!("binding the gateway on {}", settings.gateway.listen))?;
        suite.gateway_addr = Some(listener.local_addr()?);
        let mut rx = suite.shutdown.subscribe();
        suite.tasks.push((
            "gateway",
            tokio::spawn(async move {
                // The peer address is the public's client address when no proxy names one.
                // TCP_NODELAY on every connection (see the gRPC listener).
                let listener = listener.tap_io(|tcp| {
                    if let Err(e) = tcp.set_nodelay(true) {
                        tracing::warn!(error = %e, "could not set TCP_NODELAY");
                    }
                });
                axum::serve(
                    listener,
                    app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
                )
                .with_graceful_shutdown(async move {
                    let _ = rx.wait_for(|stop| *stop).await;
                })
                .await?;
                Ok(())
            }),
        ));
    }
    let listener = TcpListener::bind(settings.metrics.listen)
        .await
        .with_context(|| format!("binding metrics on {}", settings.metrics.listen))?;
    suite.metrics_addr = Some(listener.local_addr()?);
    let app = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let metrics = metrics.clone();
            async move {
                (
                    [(http::header::CONTENT_TYPE, "text/plain; version=0.0.4")],
                    metrics.render(),
                )
            }
        }),
    );
    let mut rx = suite.shutdown.subscribe();
    suite.tasks.push((
        "metrics",
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = rx.wait_for(|stop| *stop).await;
                })
                .await?;
            Ok(())
        }),
    ));
    Ok(suite)
}

impl RunningSuite {
    /// Graceful shutdown: health turns NOT_SERVING, listeners stop accepting, in-flight requests
    /// finish, then the database pool closes.
    pub async fn shutdown(mut self) -> anyhow::Result<()> {
        if let Some(health) = &self.health {
            health
                .set_service_status("", tonic_health::ServingStatus::NotServing)
                .await;
            health
                .set_not_serving::<RegistrationServiceServer<RegistrationApi>>()
                .await;
            health
                .set_not_serving::<QualificationServiceServer<QualificationApi>>()
                .await;
        }
        let _ = self.shutdown.send(true);
        for (name, task) in self.tasks.drain(..) {
            task.await
                .with_context(|| format!("{name} task panicked"))?
                .with_context(|| format!("{name} failed"))?;
        }
        Ok(())
    }

    /// Runs until `stop` resolves (Ctrl-C, SIGTERM) or a component fails, then shuts down.
    pub async fn run_until(
        mut self,
        stop: impl std::future::Future<Output = ()>,
    ) -> anyhow::Result<()> {
        let failed = {
            let watch_tasks = async {
                loop {
                    if let Some(i) = self.tasks.iter().position(|(_, t)| t.is_finished()) {
                        return i;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            };
            tokio::select! {
                () = stop => None,
                i = watch_tasks => Some(i),
            }
        };
        if let Some(i) = failed {
            let (name, task) = self.tasks.remove(i);
            let outcome = task.await;
            let _ = self.shutdown().await;
            return match outcome {
                Ok(Ok(())) => Err(anyhow::anyhow!("{name} stopped unexpectedly")),
                Ok(Err(e)) => Err(e.context(format!("{name} failed"))),
                Err(e) => Err(anyhow::anyhow!("{name} panicked: {e}")),
            };
        }
        tracing::info!("shutting down");
        match tokio::time::timeout(SHUTDOWN_LIMIT, self.shutdown()).await {
            Ok(done) => done,
            Err(_) => Err(anyhow::anyhow!(
                "graceful shutdown took longer than {SHUTDOWN_LIMIT:?}; exiting"
            )),
        }
    }
}
