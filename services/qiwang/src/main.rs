//! `qiwang`: the one binary. See `qiwang --help`.

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use qiwang::{Component, Plan};
use qiwang_core::preset;
use qiwang_infra::auth::Role;
use qiwang_infra::{Settings, Verifier, telemetry};
use qiwang_migrations::{Migrator, MigratorTrait};
use std::path::PathBuf;
use std::process::ExitCode;

/// mimalloc, not the system allocator: at national scale ingest and the period close are
/// allocation-heavy (a profile of ingest at 200,000 players spent about 29% of its CPU in glibc's
/// malloc and free, much of it consolidating and unlinking chunks; with mimalloc's thread-local
/// free lists the same bench acknowledged about 40% more games per second). Only the binary sets
/// it: the library and its tests keep the default.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "qiwang",
    version,
    about = "The National Amateur Chess King Championship back end (全国业余棋王争霸赛)"
)]
struct Cli {
    /// A TOML configuration file (also: QIWANG_CONFIG). Environment variables QIWANG_… override it.
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every service plus the gateway, in one process, on the embedded default (SQLite in ./qiwang-data/).
    Up,
    /// One component alone (how Kubernetes runs it); the services it calls come from configuration.
    Serve {
        #[arg(value_enum)]
        component: Component,
    },
    /// Explicit schema migrations (PostgreSQL deployments).
    Migrate {
        #[arg(value_enum, default_value = "up")]
        action: MigrateAction,
    },
    /// Mint a development token with the generated HS256 secret (refused in production mode).
    Token {
        #[arg(long)]
        role: Role,
        /// Subject: the player id for role player, any id for other roles.
        #[arg(long)]
        sub: String,
        /// Partner tokens: the platform the partner speaks for.
        #[arg(long)]
        platform: Option<String>,
        /// Lifetime in seconds (default: auth.dev_token_ttl_secs).
        #[arg(long)]
        ttl: Option<u64>,
    },
    /// Benchmarks that print figures (never pass/fail).
    Bench {
        #[command(subcommand)]
        which: BenchKind,
    },
    /// The official presets, and checking an edited preset file.
    Presets {
        #[command(subcommand)]
        action: PresetsAction,
    },
    /// Swiss pairing from a TRF file, compatible with bbpPairings and JaVaFo:
    /// `qiwang pair --dutch in.trf -p [out.txt]` pairs the next round, `... -c` checks every round
    /// of a finished file. Exit codes: 0 ok, 1 no valid pairing, 3 bad input, 5 file error.
    Pair {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The verifiable lottery (R-PAIR-3, R-ADV-3): re-run a published draw.
    Lottery {
        #[command(subcommand)]
        action: LotteryAction,
    },
    /// The tamper-evident audit logs (R-DIS-3).
    Audit {
        #[command(subcommand)]
        action: AuditAction,
    },
}

#[derive(Subcommand)]
enum AuditAction {
    /// Checks every link of every service's audit log; prints the first broken link and exits 1
    /// when one is broken.
    Check,
}

#[derive(Subcommand)]
enum LotteryAction {
    /// Re-runs a draw from its published seed and ordered candidates and prints the drawn order;
    /// with `--expect`, exits 1 unless the draw gives exactly that order.
    Verify {
        /// The published seed, exactly as published.
        #[arg(long)]
        seed: String,
        /// How many places the draw fills (default: all, the full lottery order).
        #[arg(long)]
        places: Option<usize>,
        /// The published result to check, comma-separated.
        #[arg(long, value_delimiter = ',')]
        expect: Vec<String>,
        /// The candidates in their published order.
        #[arg(required = true)]
        candidates: Vec<String>,
    },
}

#[derive(Subcommand)]
enum BenchKind {
    /// Online-qualifier ingest through the public gRPC API on the all-in-one suite.
    Ingest(qiwang::bench::IngestBench),
    /// Dutch pairing of one round at 50, 200, 1000 and 3000 players: time and peak memory per
    /// size (no database, no server); `--compare PATH` runs bbpPairings on the same files.
    Pairing(qiwang::bench_pairing::PairingBench),
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum MigrateAction {
    Up,
    Down,
    Status,
    /// Exit 0 when no migration is pending, 1 otherwise (a Kubernetes initContainer waits on it).
    Check,
}

#[derive(Subcommand)]
enum PresetsAction {
    /// List the official presets.
    List,
    /// Show one official preset as organizers read it, in Chinese and English.
    Show { name: String },
    /// Check a preset file; prints every problem with the path of its field.
    Check { file: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    if let Command::Presets { action } = &cli.command {
        return presets(action);
    }
    if let Command::Pair { args } = &cli.command {
        return Ok(pair(args));
    }
    if let Command::Lottery { action } = &cli.command {
        return lottery(action);
    }
    if let Command::Bench {
        which: BenchKind::Pairing(bench),
    } = &cli.command
    {
        qiwang::bench_pairing::run(bench)?;
        return Ok(ExitCode::SUCCESS);
    }
    let settings = Settings::load(cli.config.as_deref())?;
    if let Command::Token {
        role,
        sub,
        platform,
        ttl,
    } = &cli.command
    {
        let verifier = Verifier::from_settings(&settings.auth, &settings.data_dir)?;
        println!("{}", verifier.mint(*role, sub, platform.as_deref(), *ttl)?);
        return Ok(ExitCode::SUCCESS);
    }
    let _telemetry = if let Command::Bench { .. } = &cli.command {
        // A benchmark prints figures; per-request logs would drown them (and cost time).
        let mut quiet = settings.log.clone();
        quiet.filter = "warn".into();
        telemetry::init(&quiet)
    } else {
        telemetry::init(&settings.log)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        match cli.command {
            Command::Up => {
                let suite = qiwang::start(&settings, &Plan::everything(&settings)).await?;
                let grpc = suite.grpc_addr.map(|a| a.to_string()).unwrap_or_default();
                let gateway = suite.gateway_addr.map(|a| a.to_string()).unwrap_or_default();
                println!("qiwang is up on {}", settings.database_url().split('?').next().unwrap_or_default());
                println!("  gRPC     {grpc}   (all services, grpc.health.v1, reflection: grpcurl -plaintext {grpc} list)");
                println!("  GraphQL  http://{gateway}/graphql   (POST; GraphiQL in a browser)");
                let metrics = suite.metrics_addr.map(|a| a.to_string()).unwrap_or_default();
                println!("  metrics  http://{metrics}/metrics   (Prometheus text format)");
                println!("  token    cargo run -- token --role organizer --sub me   (then: authorization: Bearer <token>)");
                let stop = shutdown_signal();
                println!("Ctrl-C stops it gracefully.");
                suite.run_until(stop).await?;
            }
            Command::Serve { component } => {
                let plan = Plan { components: vec![component], migrate_on_start: false };
                let stop = shutdown_signal();
                let suite = qiwang::start(&settings, &plan).await?;
                tracing::info!(?component, grpc = ?suite.grpc_addr, gateway = ?suite.gateway_addr, "serving");
                suite.run_until(stop).await?;
            }
            Command::Migrate { action } => {
                let db = qiwang_infra::db::connect(&settings.database_url()).await.context("connecting to the database")?;
                match action {
                    MigrateAction::Up => {
                        Migrator::up(&db, None).await?;
                        println!("migrations applied");
                    }
                    MigrateAction::Down => {
                        Migrator::down(&db, Some(1)).await?;
                        println!("rolled back the last migration");
                    }
                    MigrateAction::Check => {
                        let pending = Migrator::get_pending_migrations(&db).await?;
                        if !pending.is_empty() {
                            let names: Vec<&str> = pending.iter().map(|m| m.name()).collect();
                            eprintln!("pending migrations: {}", names.join(", "));
                            return Ok(ExitCode::FAILURE);
                        }
                        println!("schema up to date");
                    }
                    MigrateAction::Status => {
                        for m in Migrator::get_applied_migrations(&db).await? {
                            println!("applied  {}", m.name());
                        }
                        for m in Migrator::get_pending_migrations(&db).await? {
                            println!("pending  {}", m.name());
                        }
                    }
                }
            }
            Command::Audit { action: AuditAction::Check } => {
                let db = qiwang_infra::db::connect(&settings.database_url()).await.context("connecting to the database")?;
                let mut broken = false;
                for table in qiwang::AUDIT_CHAINS {
                    match qiwang_infra::audit::check_chain(&db, table).await? {
                        qiwang_infra::audit::ChainCheck::Intact { entries } => {
                            println!("{}: intact, {entries} entries", table.name);
                        }
                        qiwang_infra::audit::ChainCheck::Broken(link) => {
                            println!("BROKEN {link}");
                            broken = true;
                        }
                    }
                }
                if broken {
                    return Ok(ExitCode::FAILURE);
                }
            }
            Command::Bench { which: BenchKind::Ingest(bench) } => qiwang::bench::run(bench).await?,
            Command::Token { .. }
            | Command::Bench { which: BenchKind::Pairing(_) }
            | Command::Presets { .. }
            | Command::Pair { .. }
            | Command::Lottery { .. } => {
                unreachable!("handled above")
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Ctrl-C or SIGTERM. The handlers are installed when this is called, not when the future is
/// first polled: a SIGTERM that arrives right after the banner is printed must stop the suite
/// gracefully, not kill it.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let (interrupt, terminate) = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {},
                () = wait(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

/// `qiwang lottery verify` (`qiwang::lottery_verify`, the same `qiwang_core::lottery::draw` the
/// services run).
fn lottery(action: &LotteryAction) -> anyhow::Result<ExitCode> {
    let LotteryAction::Verify {
        seed,
        places,
        expect,
        candidates,
    } = action;
    let (report, verified) = qiwang::lottery_verify(seed, candidates, *places, expect)?;
    print!("{report}");
    Ok(if verified {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The pairing engine's command line (`qiwang_swiss::cli`), with the file IO done here.
fn pair(args: &[String]) -> ExitCode {
    let outcome = qiwang_swiss::cli::run(args, &|path| std::fs::read_to_string(path));
    print!("{}", outcome.stdout);
    eprint!("{}", outcome.stderr);
    for (path, content) in &outcome.files {
        if let Err(e) = std::fs::write(path, content) {
            eprintln!("cannot write {path}: {e}");
            return ExitCode::from(qiwang_swiss::cli::FILE_ERROR as u8);
        }
    }
    ExitCode::from(u8::try_from(outcome.code).unwrap_or(1))
}

fn presets(action: &PresetsAction) -> anyhow::Result<ExitCode> {
    match action {
        PresetsAction::List => {
            for (name, text) in preset::OFFICIAL {
                let p = preset::parse(text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
                println!(
                    "{name:14} {:8} {}  {}",
                    p.game.code(),
                    p.title_zh,
                    p.title_en
                );
            }
        }
        PresetsAction::Show { name } => {
            let Some(result) = preset::official_by_name(name) else {
                let known: Vec<&str> = preset::OFFICIAL.iter().map(|(n, _)| *n).collect();
                bail!(
                    "unknown preset {name:?}; official presets: {}",
                    known.join(", ")
                );
            };
            let p = result.map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            print!("{}", qiwang::describe::describe(&p));
        }
        PresetsAction::Check { file } => {
            let text = std::fs::read_to_string(file)
                .with_context(|| format!("reading {}", file.display()))?;
            match preset::parse(&text) {
                Ok(p) => println!(
                    "{}: ok (preset {}, {} events)",
                    file.display(),
                    p.name,
                    p.events.len()
                ),
                Err(errors) => {
                    for e in &errors.0 {
                        println!("{}: {e}", file.display());
                    }
                    return Ok(ExitCode::FAILURE);
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
