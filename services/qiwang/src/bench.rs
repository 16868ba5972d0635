//! `qiwang bench ingest`: measures the online-qualifier path through the public gRPC API on the
//! all-in-one suite: games acknowledged per second (durably stored), leaderboard top-100 page and
//! own-row latency measured while ingesting, and the time to close the period (the cut).
//!
//! Figures are printed, never asserted: this is a benchmark, not a test.

use anyhow::Context;
use chrono::{Duration, TimeZone, Utc};
use qiwang_infra::Settings;
use qiwang_infra::auth::Role;
use qiwang_infra::config::Secret;
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use std::time::Instant;
use tonic::transport::Channel;

/// What to simulate.
#[derive(Debug, Clone, clap::Args)]
pub struct IngestBench {
    /// Players in the period.
    #[arg(long, default_value_t = 2_000)]
    pub players: u32,
    /// Games to report.
    #[arg(long, default_value_t = 50_000)]
    pub games: u32,
    /// Reports per client stream (each stream is committed in groups of 2,000).
    #[arg(long, default_value_t = 5_000)]
    pub stream_size: u32,
    /// Partner streams reporting at the same time.
    #[arg(long, default_value_t = 2)]
    pub streams: u32,
    /// Games offered per second, all streams together, spread evenly over time; 0 offers them as
    /// fast as the suite acknowledges them (which measures throughput, on a saturated machine).
    #[arg(long, default_value_t = 0)]
    pub rate: u32,
    /// Periods of the 海选 open and ingesting at once: each stream request carries one period's
    /// games, the requests taking the periods in turn. Reads, the restart and the close are
    /// measured on period 1.
    #[arg(long, default_value_t = 1)]
    pub periods: u32,
    /// Database to run on (default: a fresh SQLite file in a temporary directory).
    #[arg(long)]
    pub database_url: Option<String>,
}

/// The text of official preset `name` with only its `[registration]` window moved to
/// `opens_in_days..=closes_in_days` from today (China time); periods and every other date stay as
/// shipped. Benchmarks and tests use it to enter players today into a historical season.
pub fn preset_with_registration_window(
    name: &str,
    opens_in_days: i64,
    closes_in_days: i64,
) -> anyhow::Result<String> {
    let (_, text) = qiwang_core::preset::OFFICIAL
        .iter()
        .find(|(n, _)| *n == name)
        .with_context(|| format!("no official preset {name:?}"))?;
    let today = qiwang_core::time::china_date(Utc::now());
    let opens = today + Duration::days(opens_in_days);
    let closes = today + Duration::days(closes_in_days);
    let mut out = String::new();
    let mut in_registration = false;
    for line in text.lines() {
        if line.starts_with('[') {
            in_registration = line.trim() == "[registration]";
        }
        if in_registration && line.starts_with("opens_on") {
            out.push_str(&format!("opens_on = \"{opens}\"\n"));
        } else if in_registration && line.starts_with("closes_on") {
            out.push_str(&format!("closes_on = \"{closes}\"\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// The leaderboard's top-100 page, the read the bench measures.
fn top_100(period: &q::PeriodRef) -> q::LeaderboardRequest {
    q::LeaderboardRequest {
        period: Some(period.clone()),
        page_size: 100,
        ..Default::default()
    }
}

fn req<T>(token: &str, message: T) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    if let Ok(v) = format!("Bearer {token}").parse() {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

/// A deterministic pseudo-random sequence (SplitMix64), so runs are comparable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Game number `n` of the benchmark's synthetic qualifier among `players` players (accounts
/// `acc-0`…): the same game for the same `n`, whoever sends it. Tests use it too.
pub fn synthetic_game(champ: &str, n: u32, players: u32) -> q::GameReport {
    game(champ, n, players, 1, &mut Rng(0x5EED ^ u64::from(n)))
}

/// The first day of period `period` of xiangqi-2022's 海选, as the official preset gives it
/// (read once); `None` for a period the stage does not have.
fn haixuan_opens_on(period: u32) -> Option<chrono::NaiveDate> {
    static PERIODS: std::sync::OnceLock<Vec<qiwang_core::stage::Period>> =
        std::sync::OnceLock::new();
    PERIODS
        .get_or_init(|| {
            qiwang_core::preset::OFFICIAL
                .iter()
                .find(|(name, _)| *name == "xiangqi-2022")
                .and_then(|(_, text)| qiwang_core::preset::parse(text).ok())
                .and_then(|preset| preset.stage("haixuan").map(|s| s.periods.clone()))
                .unwrap_or_default()
        })
        .iter()
        .find(|p| p.number == period)
        .map(|p| p.opens_on)
}

/// Import rows for players `range` of the synthetic qualifier: valid passports, account
/// `acc-<i>` on `platform`, entered in the championship's men's online event.
pub fn synthetic_players(
    champ: &str,
    platform: &str,
    range: std::ops::Range<u32>,
) -> Vec<pb::ImportPlayerRequest> {
    range
        .map(|i| pb::ImportPlayerRequest {
            // Synthetic but valid passports keep registration on its real path.
            player: Some(pb::RegisterPlayerRequest {
                name: format!("棋手{i}"),
                sex: pb::Sex::Male as i32,
                birth_date: "1990-01-01".into(),
                identity: Some(pb::Identity {
                    kind: Some(pb::identity::Kind::Passport(pb::Passport {
                        number: format!("BN{i:08}"),
                        nationality: "SGP".into(),
                    })),
                }),
                phone: String::new(),
            }),
            accounts: vec![pb::LinkedAccount {
                platform: platform.into(),
                account_id: format!("acc-{i}"),
            }],
            championship_id: champ.to_owned(),
            events: vec!["men-individual".into()],
        })
        .collect()
}

/// A realistic game: mostly decisive, some draws, ~3% escapes, ~2% disconnections that pass no limit.
fn game(champ: &str, n: u32, players: u32, period: u32, rng: &mut Rng) -> q::GameReport {
    let a = rng.below(u64::from(players)) as u32;
    let mut b = rng.below(u64::from(players)) as u32;
    if b == a {
        b = (a + 1) % players;
    }
    // From noon (China time) of the period's first day, over its first 11 days. (A period the
    // stage lacks gives games in 1970, which every check refuses.)
    let opens_on = haixuan_opens_on(period).unwrap_or_default();
    let start = Utc.from_utc_datetime(&opens_on.and_time(chrono::NaiveTime::MIN))
        + Duration::hours(4)
        + Duration::seconds(i64::from(n) * 17 % (11 * 86_400));
    let length = Duration::seconds(300 + rng.below(1500) as i64);
    let ts = |t: chrono::DateTime<Utc>| {
        Some(prost_types::Timestamp {
            seconds: t.timestamp(),
            nanos: 0,
        })
    };
    let roll = rng.below(100);
    let (result, end_reason, ended_by) = match roll {
        0..=2 => (q::Result::FirstWins, q::EndReason::Escape, q::Side::Second),
        3..=9 => (q::Result::Draw, q::EndReason::Normal, q::Side::Unspecified),
        10..=54 => (
            q::Result::FirstWins,
            q::EndReason::Resignation,
            q::Side::Unspecified,
        ),
        _ => (
            q::Result::SecondWins,
            q::EndReason::Time,
            q::Side::Unspecified,
        ),
    };
    let mut report = q::GameReport {
        championship_id: champ.to_owned(),
        game_id: format!("bench-{n}"),
        first_account: format!("acc-{a}"),
        second_account: format!("acc-{b}"),
        result: result as i32,
        end_reason: end_reason as i32,
        ended_by: ended_by as i32,
        started_at: ts(start),
        ended_at: ts(start + length),
        stage: "haixuan".into(),
        period,
        ..Default::default()
    };
    if rng.below(50) == 0 {
        let from = start + Duration::seconds(60);
        report.first_disconnections.push(q::Interval {
            from: ts(from),
            to: ts(from + Duration::seconds(30)),
        });
    }
    report
}

/// When game number `game` may leave at an offered `rate` (games per second, all streams
/// together) from `started`; `None` at rate 0 (as fast as acknowledged).
fn release_time(started: Instant, game: u32, rate: u32) -> Option<Instant> {
    (rate > 0)
        .then(|| started + std::time::Duration::from_secs_f64(f64::from(game) / f64::from(rate)))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub async fn run(bench: IngestBench) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("qiwang-bench-{}", std::process::id()));
    let mut settings = Settings {
        data_dir: dir.clone(),
        ..Settings::default()
    };
    settings.grpc.listen = "127.0.0.1:0".parse()?;
    settings.gateway.listen = "127.0.0.1:0".parse()?;
    settings.metrics.listen = "127.0.0.1:0".parse()?;
    if let Some(url) = &bench.database_url {
        settings.database_url = Some(Secret::new(url.clone()));
    }
    let plan = crate::Plan {
        migrate_on_start: true,
        ..crate::Plan::everything(&settings)
    };
    let suite = crate::start(&settings, &plan).await?;
    let url = format!("http://{}", suite.grpc_addr.context("grpc")?);
    let verifier = qiwang_infra::Verifier::from_settings(&settings.auth, &settings.data_dir)?;
    let org = verifier.mint(Role::Organizer, "bench-org", None, None)?;
    let partner = verifier.mint(Role::Partner, "bench-bot", Some("bench"), None)?;
    let channel = Channel::from_shared(url.clone())?.connect().await?;
    let mut reg = RegistrationServiceClient::new(channel.clone());
    // The close returns the whole frozen list: a million rows is far above tonic's 4 MB default.
    let mut qual =
        QualificationServiceClient::new(channel.clone()).max_decoding_message_size(usize::MAX);

    println!(
        "database: {}",
        settings
            .database_url()
            .split('?')
            .next()
            .unwrap_or_default()
    );
    println!(
        "setup: {} players, {} games, {} period(s) ingesting at once",
        bench.players,
        bench.games,
        bench.periods.max(1)
    );
    let champ = reg
        .create_championship(req(
            &org,
            pb::CreateChampionshipRequest {
                preset_toml: preset_with_registration_window("xiangqi-2022", -1, 1)?,
                ..Default::default()
            },
        ))
        .await?
        .into_inner()
        .id;
    let t = Instant::now();
    // Players come in as an organizer's bulk import (ImportPlayers), 20,000 rows per stream.
    // The own row read while ingesting is that of the first player of the first game sent, so
    // that it is there from the first commit on (a player with no game yet has no row to read).
    let first = game(&champ, 0, bench.players, 1, &mut Rng(0x5EED)).first_account;
    let measured: u32 = first.trim_start_matches("acc-").parse()?;
    let mut measured_player = String::new();
    let mut start = 0;
    while start < bench.players {
        let end = (start + 20_000).min(bench.players);
        let rows = synthetic_players(&champ, "bench", start..end);
        let summary = reg
            .import_players(req(&org, tokio_stream::iter(rows)))
            .await?
            .into_inner();
        anyhow::ensure!(
            summary.refused == 0,
            "import refused rows, e.g. {:?}",
            summary.refusals.first()
        );
        if (start..end).contains(&measured) {
            let at = (measured - start) as usize;
            measured_player = summary.player_ids.get(at).cloned().unwrap_or_default();
        }
        start = end;
    }
    println!(
        "registered {} players in {:.1} s",
        bench.players,
        t.elapsed().as_secs_f64()
    );
    let period = q::PeriodRef {
        championship_id: champ.clone(),
        stage: "haixuan".into(),
        period: 1,
    };
    anyhow::ensure!(
        haixuan_opens_on(bench.periods.max(1)).is_some(),
        "xiangqi-2022's 海选 has fewer than {} periods",
        bench.periods
    );
    for p in 1..=bench.periods.max(1) {
        let other = q::PeriodRef {
            period: p,
            ..period.clone()
        };
        qual.open_period(req(&org, other)).await?;
    }

    // Readers: the top-100 page and one player's own row, measured while ingesting.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    // They are another client than the partners, on a connection of their own.
    let reader_channel =
        Channel::from_shared(format!("http://{}", suite.grpc_addr.context("grpc")?))?
            .connect()
            .await?;
    let reader = {
        let mut qual = QualificationServiceClient::new(reader_channel);
        let (org, period, stop, player) = (
            org.clone(),
            period.clone(),
            stop.clone(),
            measured_player.clone(),
        );
        tokio::spawn(async move {
            let (mut page, mut own) = (Vec::new(), Vec::new());
            let (mut missing, mut failed) = (0u32, 0u32);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let t = Instant::now();
                let _ = qual.get_leaderboard(req(&org, top_100(&period))).await;
                page.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                let row = qual
                    .get_player_row(req(
                        &org,
                        q::PlayerRowRequest {
                            period: Some(period.clone()),
                            player_id: player.clone(),
                        },
                    ))
                    .await;
                // Until the first commit the player has no row: such a read is counted apart, and
                // so is any other failure (which the summary then shows).
                match row {
                    Ok(_) => own.push(t.elapsed().as_secs_f64() * 1000.0),
                    Err(status) if status.code() == tonic::Code::NotFound => missing += 1,
                    Err(_) => failed += 1,
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            (page, own, missing, failed)
        })
    };

    // Partners: `streams` concurrent client streams of `stream_size` reports each, on a
    // connection of their own made on the bulk lane, so that its tasks (encoding, framing,
    // writing) run there too. A real partner's client runs on its own machine and takes no CPU
    // from the suite; here it shares the suite's cores, and it is not what the reads measure.
    let endpoint = Channel::from_shared(url)?;
    let partner_channel =
        qiwang_infra::lane::spawn_bulk(async move { endpoint.connect().await }).await??;
    let t = Instant::now();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let mut partners = Vec::new();
    for _ in 0..bench.streams.max(1) {
        let mut qual = QualificationServiceClient::new(partner_channel.clone());
        let (partner, champ, next) = (partner.clone(), champ.clone(), next.clone());
        let (games, size, players) = (bench.games, bench.stream_size.max(1), bench.players);
        let periods = bench.periods.max(1);
        let (rate, started) = (bench.rate, t);
        partners.push(qiwang_infra::lane::spawn_bulk(async move {
            let (mut stored, mut refused) = (0u64, 0u64);
            loop {
                let n = next.fetch_add(size, std::sync::atomic::Ordering::Relaxed);
                if n >= games {
                    break;
                }
                // The same game numbers give the same games, whichever stream sends them.
                let mut rng = Rng(0x5EED ^ u64::from(n));
                let period = 1 + (n / size) % periods;
                let reports: Vec<(u32, q::GameReport)> = (n..(n + size).min(games))
                    .map(|i| (i, game(&champ, i, players, period, &mut rng)))
                    .collect();
                // At an offered rate, game `i` leaves no earlier than `i / rate` seconds after
                // the start, whichever stream carries it.
                let paced = tokio_stream::StreamExt::then(
                    tokio_stream::iter(reports),
                    move |(i, report)| async move {
                        if let Some(due) = release_time(started, i, rate) {
                            tokio::time::sleep_until(due.into()).await;
                        }
                        report
                    },
                );
                let summary = qual.report_games(req(&partner, paced)).await?.into_inner();
                stored += u64::from(summary.stored + summary.duplicates);
                refused += u64::from(summary.refused);
                if let Some(bad) = summary.outcomes.iter().find(|o| o.code != "OK") {
                    anyhow::ensure!(refused < 100, "too many refusals, e.g. {bad:?}");
                }
            }
            anyhow::Ok((stored, refused))
        }));
    }
    let (mut stored, mut refused) = (0u64, 0u64);
    for p in partners {
        let (s, r) = p.await??;
        stored += s;
        refused += r;
    }
    let ingest = t.elapsed().as_secs_f64();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (mut page, mut own, missing, failed) = reader.await?;
    page.sort_by(f64::total_cmp);
    own.sort_by(f64::total_cmp);
    let offered = match bench.rate {
        0 => "as fast as acknowledged".to_owned(),
        rate => format!("offered at {rate} games/s"),
    };
    println!(
        "ingest ({offered}): {stored} games acknowledged (durable) in {ingest:.1} s = {:.0} games/s ({refused} refused)",
        stored as f64 / ingest
    );
    println!(
        "leaderboard top-100 while ingesting: p50 {:.1} ms, p99 {:.1} ms ({} samples)",
        percentile(&page, 0.5),
        percentile(&page, 0.99),
        page.len()
    );
    println!(
        "own row while ingesting: p50 {:.1} ms, p99 {:.1} ms ({} samples; {missing} before the player had a row, {failed} failed)",
        percentile(&own, 0.5),
        percentile(&own, 0.99),
        own.len()
    );
    // The suite's own view of the same reads, from its request histogram: the time from a
    // request's arrival at the service to its response headers. What the client saw beyond that
    // is transport and waiting for a CPU on a machine the ingest keeps busy.
    match suite.metrics_addr {
        Some(addr) => match scrape(addr).await {
            Ok(text) => {
                for (label, method) in [
                    ("leaderboard top-100", "GetLeaderboard"),
                    ("own row", "GetPlayerRow"),
                ] {
                    println!("{label}, in the service: {}", service_share(&text, method));
                }
            }
            Err(error) => println!("the suite's metrics could not be read: {error:#}"),
        },
        None => println!("the suite serves no metrics"),
    }
    println!(
        "peak RSS while ingesting (suite and clients): {}",
        peak_rss_anew()
    );
    // A rolling update: a graceful stop (which checkpoints the board) and a start on the same
    // data; how long after the new suite accepts connections its first leaderboard read answers.
    let t = Instant::now();
    suite.shutdown().await?;
    println!(
        "graceful stop (with the board's last checkpoint): {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let (suite, _) = restart(&settings, &plan, &org, &period, "from the checkpoint").await?;
    println!("peak RSS of that restart: {}", peak_rss_anew());
    // A start without a checkpoint (a first start of this release, or one deleted): the board is
    // rebuilt from every stored game.
    suite.shutdown().await?;
    {
        use sea_orm::ConnectionTrait;
        let db = sea_orm::Database::connect(settings.database_url()).await?;
        let size = db
            .query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                "SELECT CAST(SUM(LENGTH(body)) AS BIGINT) FROM qualification_checkpoints",
            ))
            .await?
            .and_then(|row| row.try_get_by_index::<Option<i64>>(0).ok().flatten())
            .unwrap_or(0);
        println!("the checkpoints stored: {:.1} MB", size as f64 / 1e6);
        db.execute_unprepared("DELETE FROM qualification_checkpoints")
            .await?;
        db.close().await?;
    }
    let _ = peak_rss_anew();
    let (suite, _) = restart(&settings, &plan, &org, &period, "rebuilt from the games").await?;
    println!("peak RSS of that restart: {}", peak_rss_anew());
    suite.shutdown().await?;
    // The close below runs on a board restored from the checkpoint the rebuilt one wrote.
    let (suite, mut qual) = restart(&settings, &plan, &org, &period, "from the checkpoint").await?;
    println!("peak RSS of that stop and restart: {}", peak_rss_anew());
    let t = Instant::now();
    let list = qual
        .close_period(req(&org, period.clone()))
        .await?
        .into_inner();
    println!(
        "close period (cut over {} players): {:.2} s, {} advanced",
        list.total_rows,
        t.elapsed().as_secs_f64(),
        list.advanced_count
    );
    // The frozen list read back whole, a page of the most rows at a time, as a client pages it.
    let t = Instant::now();
    let (mut rows, mut pages, mut token) = (list.rows.len(), Vec::new(), list.next_page_token);
    while !token.is_empty() {
        let started = Instant::now();
        let page = qual
            .list_advancement(req(
                &org,
                q::AdvancementPageRequest {
                    period: Some(period.clone()),
                    page_size: 10_000,
                    page_token: token,
                },
            ))
            .await?
            .into_inner();
        pages.push(started.elapsed().as_secs_f64() * 1000.0);
        rows += page.rows.len();
        token = page.next_page_token;
    }
    pages.sort_by(f64::total_cmp);
    println!(
        "advancement list read in pages of 10,000: {rows} rows in {:.2} s, page p50 {:.1} ms, p99 {:.1} ms",
        t.elapsed().as_secs_f64(),
        percentile(&pages, 0.5),
        percentile(&pages, 0.99)
    );
    println!(
        "peak RSS of the close and the list's reading: {}",
        peak_rss_anew()
    );
    suite.shutdown().await?;
    let _ = std::fs::remove_dir_all(dir);
    Ok(())
}

/// The process's peak resident set (suite and clients) since the last call, which starts a new
/// peak (`/proc/self/clear_refs`; Linux only, "unknown" elsewhere).
fn peak_rss_anew() -> String {
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_owned()))
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    peak
}

/// Starts the suite on the bench's data and reads the top-100 page until it answers, printing how
/// long after the suite accepted connections that was.
async fn restart(
    settings: &Settings,
    plan: &crate::Plan,
    org: &str,
    period: &q::PeriodRef,
    how: &str,
) -> anyhow::Result<(crate::RunningSuite, QualificationServiceClient<Channel>)> {
    let suite = crate::start(settings, plan).await?;
    let restarted = Instant::now();
    let channel = Channel::from_shared(format!("http://{}", suite.grpc_addr.context("grpc")?))?
        .connect()
        .await?;
    let mut qual = QualificationServiceClient::new(channel).max_decoding_message_size(usize::MAX);
    let mut unavailable = 0u32;
    loop {
        match qual.get_leaderboard(req(org, top_100(period))).await {
            Ok(_) => break,
            Err(status) if status.code() == tonic::Code::Unavailable => {
                unavailable += 1;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(status) => return Err(status.into()),
        }
    }
    println!(
        "restart ({how}): first leaderboard read {:.2} s after the suite accepted connections ({unavailable} UNAVAILABLE before it)",
        restarted.elapsed().as_secs_f64()
    );
    Ok((suite, qual))
}

/// The suite's `/metrics` text (HTTP/1.0, so the body ends when the connection does).
async fn scrape(addr: std::net::SocketAddr) -> anyhow::Result<String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut socket = tokio::net::TcpStream::connect(addr).await?;
    socket
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: qiwang\r\n\r\n")
        .await?;
    let mut text = String::new();
    socket.read_to_string(&mut text).await?;
    Ok(text)
}

/// How many of the qualification service's successful `method` calls took at most each of the
/// request latency histogram's bounds up to 5 ms (0.5, 1, 2.5 and 5 ms) in the service.
fn service_share(metrics: &str, method: &str) -> String {
    let path = format!("method=\"/qiwang.qualification.v1.QualificationService/{method}\"");
    let mut buckets: Vec<(String, u64)> = Vec::new();
    for line in metrics.lines() {
        let Some(rest) = line.strip_prefix("qiwang_request_duration_seconds_bucket{") else {
            continue;
        };
        if !rest.contains(&path) || !rest.contains("code=\"OK\"") {
            continue;
        }
        let Some((labels, count)) = rest.rsplit_once("} ") else {
            continue;
        };
        let Some(bound) = labels
            .split(',')
            .find_map(|l| l.strip_prefix("le=\""))
            .map(|l| l.trim_end_matches('"').to_owned())
        else {
            continue;
        };
        if let Ok(count) = count.trim().parse() {
            buckets.push((bound, count));
        }
    }
    let total = buckets
        .iter()
        .find(|(bound, _)| bound == "+Inf")
        .map_or(0, |(_, n)| *n);
    if total == 0 {
        return "no calls recorded".into();
    }
    // The histogram's own bounds up to 5 ms, labelled as the exposition writes them.
    let shares: Vec<String> = qiwang_infra::metrics::BUCKETS
        .iter()
        .filter(|bound| **bound <= 0.005)
        .filter_map(|bound| {
            let le = bound.to_string();
            let (_, n) = buckets.iter().find(|(b, _)| *b == le)?;
            let ms = (bound * 1e6).round() / 1e3;
            Some(format!(
                "{:.2}% within {ms} ms",
                *n as f64 * 100.0 / total as f64
            ))
        })
        .collect();
    format!("{} ({total} calls)", shares.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_offered_rate_spreads_the_games_evenly_over_time_and_rate_zero_sends_at_once() {
        let started = Instant::now();
        assert_eq!(release_time(started, 0, 20_000), Some(started));
        assert_eq!(
            release_time(started, 40_000, 20_000),
            Some(started + std::time::Duration::from_secs(2))
        );
        assert_eq!(
            release_time(started, 1, 4),
            Some(started + std::time::Duration::from_millis(250))
        );
        assert_eq!(release_time(started, 40_000, 0), None);
    }

    #[test]
    fn the_service_share_reads_one_methods_successful_calls_from_the_histogram() {
        let row = |method: &str, code: &str, le: &str, n: u64| {
            format!(
                "qiwang_request_duration_seconds_bucket{{protocol=\"grpc\",method=\"/qiwang.qualification.v1.QualificationService/{method}\",code=\"{code}\",le=\"{le}\"}} {n}\n"
            )
        };
        let mut text = String::from("# TYPE qiwang_request_duration_seconds histogram\n");
        for (le, n) in [
            ("0.0005", 990),
            ("0.001", 995),
            ("0.0025", 999),
            ("0.005", 1000),
            ("+Inf", 1000),
        ] {
            text += &row("GetPlayerRow", "OK", le, n);
            text += &row("GetPlayerRow", "NOT_FOUND", le, 7);
            text += &row("GetLeaderboard", "OK", le, 1);
        }
        assert_eq!(
            service_share(&text, "GetPlayerRow"),
            "99.00% within 0.5 ms, 99.50% within 1 ms, 99.90% within 2.5 ms, 100.00% within 5 ms (1000 calls)"
        );
        assert_eq!(service_share(&text, "ReportGames"), "no calls recorded");
    }
}
