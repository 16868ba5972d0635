//! The gRPC shell of the qualification service. It authenticates, translates reports into core
//! facts, stores them idempotently, and asks `qiwang-core` for standings and the advancement cut.
//! No rule lives here.

use chrono::{DateTime, SubsecRound, Utc};
use prost::Message;
use qiwang_core::advancement::{Candidate, Field, PointsRule, Selection, cut_field};
use qiwang_core::lottery::{hex, sha256};
use qiwang_core::preset::{self, Preset};
use qiwang_core::scoring::{
    GameFacts, OnlineRules, PeriodDays, PlayTime, judge_play_time, score_game,
};
use qiwang_core::stage::Stage;
use qiwang_core::standings::{DEFAULT_TIE_BREAKS, PeriodGame, ResetRequest};
use qiwang_core::time::china_date;
use qiwang_infra::auth::{self, AuthInterceptor, Caller, Role, Verifier};
use qiwang_infra::metrics::Metrics;
use qiwang_infra::status::code_name;
use qiwang_proto::qualification::v1 as pb;
use qiwang_proto::qualification::v1::qualification_service_server::{
    QualificationService, QualificationServiceServer,
};
use qiwang_proto::registration::v1 as reg;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, EntityTrait, NotSet, QueryFilter,
    QueryOrder, QuerySelect, QueryTrait, Set, TransactionTrait,
};
use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use tokio_stream::{Stream, StreamExt};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response, Status, Streaming};

use crate::entity::{audit, cancellation, conflict, frozen_list, game, period, reset};
use crate::error::{QualificationError, Result, invalid, precondition};
use crate::facts::{check_account, check_game_id, game_facts, instant};

mod finalists;
mod frozen;
mod knockout;
mod live;
mod reach;
mod repechage;
mod stream;

/// Reports committed per transaction on a stream (group commit).
const BATCH: usize = 2_000;
/// Rows per INSERT of games: a whole group (13 parameters a row).
const ROWS_PER_INSERT: usize = BATCH;
const _: () = assert!(13 * ROWS_PER_INSERT < 32_766);

type PeriodKey = (String, String, u32);

/// The players advanced into a stage, each with where they came from: (source stage, period).
type AdvancedRows = Arc<HashMap<String, Vec<(String, u32)>>>;

/// The seats a group of reports may fill: period -> players allowed to play in it.
type Seats = HashMap<PeriodKey, HashSet<String>>;

fn admit(seats: &mut Seats, key: &PeriodKey, player: &str) {
    match seats.get_mut(key) {
        Some(players) => {
            players.insert(player.to_owned());
        }
        None => {
            seats.insert(key.clone(), [player.to_owned()].into());
        }
    }
}

/// The qualification service.
#[derive(Clone)]
pub struct QualificationApi {
    db: DatabaseConnection,
    registration: RegistrationServiceClient<Channel>,
    presets: Arc<Mutex<HashMap<String, Arc<Preset>>>>,
    /// The boards of the periods this replica serves live (see `live`).
    live: Arc<Mutex<HashMap<PeriodKey, live::Board>>>,
    /// No other process writes the database (the embedded suite): boards never poll it.
    sole_writer: bool,
    /// platform -> account -> player, for accounts known to be linked (see `resolve`).
    linked: Arc<Mutex<HashMap<String, HashMap<String, String>>>>,
    /// championship -> players known to have entered its online qualifier.
    entered: Arc<Mutex<HashMap<String, HashSet<String>>>>,
    /// (championship, platform) pairs whose entrants this replica has begun to load into `linked`
    /// and `entered` in one stream (see `preload_entrants`).
    preloaded: Arc<Mutex<HashSet<(String, String)>>>,
    /// (championship, target stage) -> players the frozen lists advanced there.
    advanced: Arc<Mutex<HashMap<(String, String), AdvancedRows>>>,
    /// Serializes organizer workflows in this process (seeds, knockout rounds, the finalist list and
    /// its notice): each write is checked against the whole round or list before it is stored
    /// (thousands of items, not millions).
    organizer_write: Arc<tokio::sync::Mutex<()>>,
    /// On SQLite, which has one writer at a time, queues this process's ingest transactions (from
    /// `BEGIN` to `COMMIT`), checkpoints and closes in arrival order, sparing SQLite's busy-wait
    /// sleeps (see `write_queue`).
    sqlite_writes: Arc<tokio::sync::Mutex<()>>,
    changes: broadcast::Sender<(String, pb::Change)>,
    /// Turns true when the process shuts down: open change streams end then, so a graceful
    /// shutdown never waits on a follower.
    shutdown: tokio::sync::watch::Receiver<bool>,
    metrics: Metrics,
    /// The runtime that serves requests, at normal priority (the one this was built on), where
    /// the boards run; `None` when built outside a runtime.
    requests: Option<tokio::runtime::Handle>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.timestamp(),
        nanos: i32::try_from(t.timestamp_subsec_nanos()).unwrap_or(0),
    }
}

/// A request on the caller's behalf: their token and the request id go along.
fn authed<T>(caller: &Caller, message: T) -> Request<T> {
    caller.forward(message)
}

fn require(caller: &Caller, roles: &[Role]) -> Result<()> {
    auth::require(caller, roles)
        .map_err(|s| QualificationError::PermissionDenied(s.message().to_owned()))
}

type Reply<T> = std::result::Result<Response<T>, Status>;

fn reply<T>(r: Result<T>) -> Reply<T> {
    r.map(Response::new).map_err(Status::from)
}

/// A report that passed every check and is ready to store.
struct Accepted {
    row: game::Model,
    key: PeriodKey,
    game: PeriodGame,
}

impl QualificationApi {
    pub fn new(
        db: DatabaseConnection,
        registration: RegistrationServiceClient<Channel>,
        shutdown: tokio::sync::watch::Receiver<bool>,
        metrics: Metrics,
    ) -> Self {
        let (changes, _) = broadcast::channel(1024);
        QualificationApi {
            db,
            registration,
            presets: Arc::default(),
            live: Arc::default(),
            linked: Arc::default(),
            entered: Arc::default(),
            preloaded: Arc::default(),
            advanced: Arc::default(),
            organizer_write: Arc::default(),
            sole_writer: false,
            sqlite_writes: Arc::default(),
            changes,
            shutdown,
            metrics,
            requests: tokio::runtime::Handle::try_current().ok(),
        }
    }

    /// Declares this process the database's only writer (the embedded SQLite suite, which holds
    /// the file's `qiwang_infra::db::SqliteClaim`): its boards learn every write from it and never
    /// poll the database.
    pub fn sole_writer(mut self) -> Self {
        self.sole_writer = true;
        self
    }

    /// On SQLite, this process's turn to write (see `sqlite_writes`); on PostgreSQL, nothing: its
    /// row locks order the writes that must be ordered, and the rest go on in parallel.
    async fn write_queue(&self) -> Option<tokio::sync::OwnedMutexGuard<()>> {
        match self.db.get_database_backend() {
            sea_orm::DbBackend::Sqlite => Some(self.sqlite_writes.clone().lock_owned().await),
            _ => None,
        }
    }

    /// The tonic service, with every call authenticated by `verifier`.
    pub fn into_server(
        self,
        verifier: Verifier,
    ) -> InterceptedService<QualificationServiceServer<Self>, AuthInterceptor> {
        QualificationServiceServer::with_interceptor(
            self,
            AuthInterceptor::admitting_public(verifier),
        )
    }

    /// The championship's preset, fetched once from the registration service.
    async fn preset(&self, caller: &Caller, championship: &str) -> Result<Arc<Preset>> {
        if championship.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        if let Some(p) = lock(&self.presets).get(championship) {
            return Ok(p.clone());
        }
        let rules = self
            .registration
            .clone()
            .get_championship_rules(authed(
                caller,
                reg::GetChampionshipRequest {
                    id: championship.to_owned(),
                },
            ))
            .await
            .map_err(|status| QualificationError::Upstream {
                context: "championship",
                status,
            })?
            .into_inner();
        let parsed = preset::parse(&rules.preset_toml)
            .map_err(|e| QualificationError::Preset(championship.to_owned(), e.to_string()))?;
        let parsed = Arc::new(parsed.with_repechage_periods());
        lock(&self.presets).insert(championship.to_owned(), parsed.clone());
        Ok(parsed)
    }

    async fn period_row(&self, key: &PeriodKey) -> Result<Option<period::Model>> {
        Ok(
            period::Entity::find_by_id((key.0.clone(), key.1.clone(), key.2 as i32))
                .one(&self.db)
                .await?,
        )
    }

    async fn audit<C: ConnectionTrait>(
        db: &C,
        caller: &Caller,
        action: &str,
        subject: &str,
        detail: String,
    ) -> Result<()> {
        use qiwang_infra::audit as chain;
        chain::lock_chain(db, crate::AUDIT_CHAIN.name).await?;
        let prev_hash = chain::last_hash(db, &crate::AUDIT_CHAIN).await?;
        let at = chain::chain_time(Utc::now());
        let role = caller.role.as_str();
        let hash = chain::entry_hash(
            &prev_hash,
            at,
            &[&caller.subject, role, action, subject, &detail],
        );
        audit::Entity::insert(audit::ActiveModel {
            id: NotSet,
            at: Set(at),
            actor: Set(caller.subject.clone()),
            role: Set(role.to_owned()),
            action: Set(action.to_owned()),
            subject: Set(subject.to_owned()),
            detail: Set(detail),
            prev_hash: Set(prev_hash),
            hash: Set(hash),
        })
        .exec(db)
        .await?;
        Ok(())
    }

    /// Checks one report against the rules and the period's state; resolves nothing yet.
    fn check_report(
        &self,
        preset: &Preset,
        open: &HashMap<(String, u32), bool>,
        report: &pb::GameReport,
    ) -> Result<(PeriodKey, GameFacts)> {
        check_game_id(&report.game_id)?;
        check_account("first_account", &report.first_account)?;
        check_account("second_account", &report.second_account)?;
        if report.first_account == report.second_account {
            return Err(invalid("second_account", "a player cannot play themself"));
        }
        let facts = game_facts(report)?;
        let (stage, period_no) = locate(preset, open, report, facts.started_at)?;
        let rules = stage
            .online
            .ok_or_else(|| invalid("stage", format!("{} is not an online stage", stage.code)))?;
        let period = stage.period(period_no).ok_or_else(|| {
            invalid(
                "period",
                format!("{} has no period {period_no}", stage.code),
            )
        })?;
        match open.get(&(stage.code.clone(), period_no)) {
            Some(true) => {}
            Some(false) => {
                return Err(invalid(
                    "period",
                    format!("{} period {period_no} is closed", stage.code),
                ));
            }
            None => {
                return Err(invalid(
                    "period",
                    format!("{} period {period_no} is not open", stage.code),
                ));
            }
        }
        let days = PeriodDays {
            first_day: period.opens_on,
            last_day: period.closes_on,
        };
        inside_play_time(&rules, days, "started_at", facts.started_at)?;
        score_game(&rules, &facts).map_err(|e| invalid("facts", e.to_string()))?;
        let key = (
            report.championship_id.clone(),
            stage.code.clone(),
            period_no,
        );
        Ok((key, facts))
    }

    /// Which periods of the championship are open (true) or closed (false).
    async fn period_states(&self, championship: &str) -> Result<HashMap<(String, u32), bool>> {
        let rows = period::Entity::find()
            .filter(period::Column::ChampionshipId.eq(championship))
            .all(&self.db)
            .await?;
        Ok(rows
            .into_iter()
            .map(|r| ((r.stage, r.period as u32), r.open && !r.closed))
            .collect())
    }

    /// Resolves the accounts of a batch of reports of one platform: those this replica has not seen
    /// linked yet with one call. A link is never removed or moved to another player (registration
    /// has no such call, R-REG-4), so a positive answer is cached; a negative one is asked again.
    async fn resolve(
        &self,
        caller: &Caller,
        platform: &str,
        accounts: Vec<String>,
    ) -> Result<HashMap<String, String>> {
        let mut out = HashMap::new();
        let mut unique = Vec::new();
        {
            let linked = lock(&self.linked);
            let known = linked.get(platform);
            for account in accounts {
                match known.and_then(|k| k.get(&account)) {
                    Some(player) => {
                        out.insert(account, player.clone());
                    }
                    None => unique.push(account),
                }
            }
        }
        unique.sort();
        unique.dedup();
        let mut found = Vec::new();
        for chunk in unique.chunks(10_000) {
            let response = self
                .registration
                .clone()
                .resolve_accounts(authed(
                    caller,
                    reg::ResolveAccountsRequest {
                        platform: platform.to_owned(),
                        account_ids: chunk.to_vec(),
                    },
                ))
                .await
                .map_err(|status| QualificationError::Upstream {
                    context: "resolving accounts",
                    status,
                })?
                .into_inner();
            for (account, player) in chunk.iter().zip(response.player_ids) {
                if !player.is_empty() {
                    found.push((account.clone(), player));
                }
            }
        }
        if !found.is_empty() {
            let mut linked = lock(&self.linked);
            let known = linked.entry(platform.to_owned()).or_default();
            for (account, player) in found {
                known.insert(account.clone(), player.clone());
                out.insert(account, player);
            }
        }
        Ok(out)
    }

    /// Starts, once per replica for each (championship, platform), loading every account of the
    /// platform whose player entered the championship's online qualifier into `linked` and
    /// `entered`, from registration's `StreamOnlineEntrants`, on the bulk lane. Until it is done,
    /// and for anyone registered after it read them, `resolve` and `eligible` ask as before: the
    /// load only spares them the asking (at national scale, most of the first hour's lookups). It
    /// adds positives only, which stay true (links and entries are never removed), so it may race
    /// with ingest freely. A failed load is logged and not retried; lookups still work without it.
    fn preload_entrants(&self, caller: &Caller, championship: &str, platform: &str) {
        let pair = (championship.to_owned(), platform.to_owned());
        if !lock(&self.preloaded).insert(pair) {
            return;
        }
        let api = self.clone();
        let request = authed(
            caller,
            reg::StreamOnlineEntrantsRequest {
                championship_id: championship.to_owned(),
                platform: platform.to_owned(),
            },
        );
        let (championship, platform) = (championship.to_owned(), platform.to_owned());
        qiwang_infra::lane::spawn_bulk(async move {
            match api.load_entrants(request, &championship, &platform).await {
                Ok(accounts) => {
                    tracing::info!(
                        championship = %championship,
                        platform = %platform,
                        accounts,
                        "online entrants loaded"
                    );
                    api.metrics.count(
                        "qiwang_online_entrants_loaded_total",
                        &platform,
                        accounts as u64,
                    );
                }
                Err(status) => tracing::warn!(
                    championship = %championship,
                    platform = %platform,
                    code = ?status.code(),
                    message = status.message(),
                    "loading online entrants failed; accounts are looked up as they come"
                ),
            }
        });
    }

    /// Reads one `StreamOnlineEntrants` into the caches, a page at a time; the accounts read.
    async fn load_entrants(
        &self,
        request: Request<reg::StreamOnlineEntrantsRequest>,
        championship: &str,
        platform: &str,
    ) -> std::result::Result<usize, Status> {
        let mut pages = self
            .registration
            .clone()
            .stream_online_entrants(request)
            .await?
            .into_inner();
        let mut accounts = 0;
        while let Some(page) = pages.message().await? {
            if page.account_ids.len() != page.player_ids.len() {
                return Err(Status::internal(
                    "a page of online entrants whose columns differ in length",
                ));
            }
            accounts += page.account_ids.len();
            {
                let mut entered = lock(&self.entered);
                entered
                    .entry(championship.to_owned())
                    .or_default()
                    .extend(page.player_ids.iter().cloned());
            }
            let mut linked = lock(&self.linked);
            let known = linked.entry(platform.to_owned()).or_default();
            known.extend(page.account_ids.into_iter().zip(page.player_ids));
        }
        Ok(accounts)
    }

    /// Checks, resolves and stores a group of reports in one transaction; one outcome per report.
    async fn ingest(
        &self,
        caller: &Caller,
        reports: Vec<pb::GameReport>,
    ) -> Result<Vec<std::result::Result<pb::ReportAck, QualificationError>>> {
        require(caller, &[Role::Partner])?;
        let platform = caller.platform.clone().ok_or_else(|| {
            QualificationError::PermissionDenied("partner token without platform".into())
        })?;
        let mut presets: HashMap<String, Arc<Preset>> = HashMap::new();
        let mut states: HashMap<String, HashMap<(String, u32), bool>> = HashMap::new();
        let mut checked = Vec::with_capacity(reports.len());
        for report in &reports {
            let result = async {
                let championship = report.championship_id.clone();
                if !presets.contains_key(&championship) {
                    presets.insert(
                        championship.clone(),
                        self.preset(caller, &championship).await?,
                    );
                    self.preload_entrants(caller, &championship, &platform);
                    states.insert(
                        championship.clone(),
                        self.period_states(&championship).await?,
                    );
                }
                let preset = presets
                    .get(&championship)
                    .ok_or_else(|| invalid("championship_id", "unknown"))?;
                let open = states
                    .get(&championship)
                    .ok_or_else(|| invalid("championship_id", "unknown"))?;
                self.check_report(preset, open, report)
            }
            .await;
            checked.push(result);
        }
        let accounts: Vec<String> = reports
            .iter()
            .zip(&checked)
            .filter(|(_, c)| c.is_ok())
            .flat_map(|(r, _)| [r.first_account.clone(), r.second_account.clone()])
            .collect();
        let players = if accounts.is_empty() {
            HashMap::new()
        } else {
            self.resolve(caller, &platform, accounts).await?
        };
        // Who may play where: entered players in entry stages, advanced players in later ones.
        let mut seats: Vec<(&PeriodKey, &str)> = Vec::new();
        for (report, check) in reports.iter().zip(&checked) {
            if let Ok((key, ..)) = check {
                for account in [&report.first_account, &report.second_account] {
                    if let Some(player) = players.get(account) {
                        seats.push((key, player));
                    }
                }
            }
        }
        let eligible = self.eligible(caller, &presets, &seats).await?;
        let now = Utc::now();
        let mut accepted: Vec<std::result::Result<Accepted, QualificationError>> =
            Vec::with_capacity(reports.len());
        for (report, check) in reports.iter().zip(checked) {
            accepted.push(check.and_then(|(key, facts)| {
                let first = players.get(&report.first_account).ok_or_else(|| {
                    invalid(
                        "first_account",
                        format!(
                            "{platform} account {:?} is linked to no player",
                            report.first_account
                        ),
                    )
                })?;
                let second = players.get(&report.second_account).ok_or_else(|| {
                    invalid(
                        "second_account",
                        format!(
                            "{platform} account {:?} is linked to no player",
                            report.second_account
                        ),
                    )
                })?;
                if first == second {
                    return Err(invalid(
                        "second_account",
                        "both accounts belong to the same player",
                    ));
                }
                for (field, player) in [("first_account", first), ("second_account", second)] {
                    if !eligible.get(&key).is_some_and(|p| p.contains(player)) {
                        return Err(invalid(
                            field,
                            format!("player {player} may not play in {} period {}: not entered, or not advanced to it", key.1, key.2),
                        ));
                    }
                }
                let bytes = report.encode_to_vec();
                let (started_at, ended_at) = (facts.started_at, facts.ended_at);
                let game = PeriodGame {
                    id: format!("{platform}:{}", report.game_id),
                    first_player: first.clone(),
                    second_player: second.clone(),
                    facts,
                };
                Ok(Accepted {
                    game,
                    row: game::Model {
                        championship_id: key.0.clone(),
                        platform: platform.clone(),
                        game_id: report.game_id.clone(),
                        stage: key.1.clone(),
                        period: key.2 as i32,
                        first_player: first.clone(),
                        second_player: second.clone(),
                        started_at,
                        ended_at,
                        content_hash: hex(&sha256(&bytes)),
                        report: bytes,
                        reported_at: now,
                        seq: 0,
                    },
                    key,
                })
            }));
        }
        // Store: one transaction for the group, each period's games stamped with the period's next
        // change sequence value, taken in key order. Taking it locks the period's row until commit
        // (a period's writes are serialized, on every replica; a close waits for them) and finds
        // whether the period is still open: one closed since the check gains no game.
        let queued = self.write_queue().await;
        let txn = self.db.begin().await?;
        let keys: std::collections::BTreeSet<PeriodKey> = accepted
            .iter()
            .filter_map(|a| a.as_ref().ok())
            .map(|a| a.key.clone())
            .collect();
        let mut seqs: HashMap<PeriodKey, i64> = HashMap::new();
        for key in keys {
            if let Some(seq) = live::next_seq(&txn, &key).await? {
                seqs.insert(key, seq);
            }
        }
        // Insert first: the primary key decides what is new, on both databases and at any size,
        // without a lookup whose plan depends on the table's statistics (PostgreSQL filtered a
        // growing table's rows one by one while ingest outran autoanalyze). The first report of an
        // id in this group is the one offered; a later one is judged against what is stored.
        let mut offered: HashSet<(String, String)> = HashSet::new();
        let mut rows: Vec<game::Model> = Vec::new();
        for a in accepted.iter().filter_map(|a| a.as_ref().ok()) {
            if let Some(&seq) = seqs.get(&a.key)
                && offered.insert((a.row.championship_id.clone(), a.row.game_id.clone()))
            {
                let mut row = a.row.clone();
                row.seq = seq;
                rows.push(row);
            }
        }
        let inserted = insert_games(&txn, rows).await?;
        // What was stored before under the ids not inserted now (reports repeated, or conflicting).
        let mut stored: HashMap<(String, String), String> = HashMap::new();
        let mut wanted: HashMap<String, Vec<String>> = HashMap::new();
        for id in offered.iter().filter(|id| !inserted.contains(*id)) {
            wanted.entry(id.0.clone()).or_default().push(id.1.clone());
        }
        for (championship, ids) in &wanted {
            for chunk in ids.chunks(500) {
                let rows = game::Entity::find()
                    .select_only()
                    .column(game::Column::GameId)
                    .column(game::Column::ContentHash)
                    .filter(game::Column::ChampionshipId.eq(championship))
                    .filter(game::Column::Platform.eq(&platform))
                    .filter(game::Column::GameId.is_in(chunk.iter().cloned()))
                    .into_tuple::<(String, String)>()
                    .all(&txn)
                    .await?;
                for (id, hash) in rows {
                    stored.insert((championship.clone(), id), hash);
                }
            }
        }
        let mut outcomes = Vec::with_capacity(accepted.len());
        let mut committed: Vec<(PeriodKey, PeriodGame)> = Vec::new();
        for item in accepted {
            let a = match item {
                Ok(a) if !seqs.contains_key(&a.key) => {
                    outcomes.push(Err(invalid(
                        "period",
                        format!(
                            "{} period {} closed while the report was being stored",
                            a.key.1, a.key.2
                        ),
                    )));
                    continue;
                }
                Ok(a) => a,
                Err(e) => {
                    outcomes.push(Err(e));
                    continue;
                }
            };
            let ack = |status: pb::AckStatus| pb::ReportAck {
                game_id: a.row.game_id.clone(),
                status: status as i32,
                stage: a.key.1.clone(),
                period: a.key.2,
            };
            let id = (a.row.championship_id.clone(), a.row.game_id.clone());
            match stored.get(&id) {
                None if inserted.contains(&id) => {
                    stored.insert(id, a.row.content_hash.clone());
                    outcomes.push(Ok(ack(pb::AckStatus::Stored)));
                    committed.push((a.key, a.game));
                }
                None => {
                    // Unreachable: a concurrent insert of the same id waits for this one's outcome
                    // at the primary key, whichever period it is for; never guess.
                    return Err(QualificationError::Db(sea_orm::DbErr::Custom(format!(
                        "game {} was neither stored nor found: a concurrent writer; retry the batch",
                        a.row.game_id
                    ))));
                }
                Some(hash) if *hash == a.row.content_hash => {
                    outcomes.push(Ok(ack(pb::AckStatus::Duplicate)));
                }
                Some(hash) => {
                    conflict::Entity::insert(conflict::ActiveModel {
                        id: NotSet,
                        championship_id: Set(a.row.championship_id.clone()),
                        platform: Set(a.row.platform.clone()),
                        game_id: Set(a.row.game_id.clone()),
                        stored_hash: Set(hash.clone()),
                        conflicting_hash: Set(a.row.content_hash.clone()),
                        report: Set(a.row.report.clone()),
                        reported_at: Set(now),
                    })
                    .exec(&txn)
                    .await?;
                    outcomes.push(Err(QualificationError::AlreadyExists(format!(
                        "game {} was reported before with different content; kept for an organizer to review",
                        a.row.game_id
                    ))));
                }
            }
        }
        if let Err(error) = txn.commit().await {
            // It may have committed: the boards look.
            self.tell_moved(seqs.into_keys().map(|key| (key, None)))
                .await;
            return Err(error.into());
        }
        // Told in commit order (on SQLite; on PostgreSQL a board waits a moment for a notice
        // that comes late), acknowledged once applied.
        let applied = self.tell_applied(&seqs, committed);
        drop(queued);
        applied.await;
        for outcome in &outcomes {
            let kind = match outcome {
                Ok(ack) if ack.status == pb::AckStatus::Duplicate as i32 => "duplicate",
                Ok(_) => "stored",
                Err(QualificationError::AlreadyExists(_)) => "conflict",
                Err(_) => "refused",
            };
            self.metrics.count("qiwang_games_ingested_total", kind, 1);
        }
        Ok(outcomes)
    }

    /// Which (period, player) seats are allowed (R-REG-1, R-ADV): in a stage no other stage advances
    /// into (the 海选), players who entered the championship's online qualifier; in a later stage,
    /// players the frozen advancement lists sent there, from the period of the same number when
    /// both stages have as many periods (xiangqi-2022: 海选 P1 → 入围 P1), else from any period.
    async fn eligible(
        &self,
        caller: &Caller,
        presets: &HashMap<String, Arc<Preset>>,
        seats: &[(&PeriodKey, &str)],
    ) -> Result<Seats> {
        let mut ok = Seats::new();
        let mut ask: HashMap<&str, Vec<String>> = HashMap::new();
        let mut entry_seats = Vec::new();
        for &(key, player) in seats {
            let Some(preset) = presets.get(&key.0) else {
                continue;
            };
            if preset.is_entry_stage(&key.1) {
                let known = lock(&self.entered)
                    .get(&key.0)
                    .is_some_and(|players| players.contains(player));
                if !known {
                    ask.entry(&key.0).or_default().push(player.to_owned());
                }
                entry_seats.push((key, player));
                continue;
            }
            let advanced = self.advanced_into(preset, &key.0, &key.1).await?;
            let target = preset.stage(&key.1).map(|s| s.periods.len()).unwrap_or(0);
            let fits = advanced.get(player).is_some_and(|sources| {
                sources.iter().any(|(stage, period)| {
                    let source = preset.stage(stage).map(|s| s.periods.len()).unwrap_or(0);
                    source != target || target == 0 || *period == key.2
                })
            });
            if fits {
                admit(&mut ok, key, player);
            }
        }
        for (championship, mut players) in ask {
            players.sort();
            players.dedup();
            let entered = self
                .registration
                .clone()
                .list_entered_players(authed(
                    caller,
                    reg::ListEnteredPlayersRequest {
                        championship_id: championship.to_owned(),
                        player_ids: players,
                    },
                ))
                .await
                .map_err(|status| QualificationError::Upstream {
                    context: "checking entries",
                    status,
                })?
                .into_inner()
                .player_ids;
            // Entries are never withdrawn, so a positive answer is cached; a negative one is asked again.
            lock(&self.entered)
                .entry(championship.to_owned())
                .or_default()
                .extend(entered);
        }
        let cache = lock(&self.entered);
        for (key, player) in entry_seats {
            if cache
                .get(&key.0)
                .is_some_and(|players| players.contains(player))
            {
                admit(&mut ok, key, player);
            }
        }
        Ok(ok)
    }

    /// The players advanced into `stage` by closed periods, each with its (source stage, period).
    /// Frozen lists only grow when a period closes, which drops this cache.
    ///
    /// A repechage (复活赛, R-ADV-12) takes the players its feeding stage's frozen list did not
    /// advance (Reading: those who played for the places the repechage fills).
    async fn advanced_into(
        &self,
        preset: &Preset,
        championship: &str,
        stage: &str,
    ) -> Result<AdvancedRows> {
        let key = (championship.to_owned(), stage.to_owned());
        if let Some(rows) = lock(&self.advanced).get(&key) {
            return Ok(rows.clone());
        }
        let feeding = preset
            .stages
            .iter()
            .find(|s| {
                s.advance
                    .as_ref()
                    .is_some_and(|a| a.repechage.as_deref() == Some(stage))
            })
            .map(|s| s.code.clone());
        let lists = match &feeding {
            Some(f) => {
                frozen::load_all(
                    &self.db,
                    Condition::all()
                        .add(frozen_list::Column::ChampionshipId.eq(championship))
                        .add(frozen_list::Column::Stage.eq(f)),
                )
                .await?
            }
            None => self.advanced_to(championship, stage).await?,
        };
        let advanced = feeding.is_none();
        let mut rows: HashMap<String, Vec<(String, u32)>> = HashMap::new();
        for list in lists {
            for r in list.rows.into_iter().filter(|r| r.advanced == advanced) {
                rows.entry(r.player_id.to_string())
                    .or_default()
                    .push((list.key.1.clone(), list.key.2));
            }
        }
        // Direct seeds (直接晋级) play there too; their source is no stage ("seed", period 0).
        for s in crate::entity::seed::Entity::find()
            .filter(crate::entity::seed::Column::ChampionshipId.eq(championship))
            .filter(crate::entity::seed::Column::ToStage.eq(stage))
            .all(&self.db)
            .await?
        {
            rows.entry(s.player_id)
                .or_default()
                .push(("seed".to_owned(), 0));
        }
        let rows = Arc::new(rows);
        lock(&self.advanced).insert(key, rows.clone());
        Ok(rows)
    }

    /// The frozen lists that advance players into `stage`.
    async fn advanced_to(
        &self,
        championship: &str,
        stage: &str,
    ) -> Result<Vec<frozen::FrozenList>> {
        frozen::load_all(
            &self.db,
            Condition::all()
                .add(frozen_list::Column::ChampionshipId.eq(championship))
                .add(frozen_list::Column::ToStage.eq(stage)),
        )
        .await
    }

    fn period_key(p: Option<&pb::PeriodRef>) -> Result<PeriodKey> {
        let p = p.ok_or_else(|| invalid("period", "is required"))?;
        if p.championship_id.is_empty() {
            return Err(invalid("period.championship_id", "is required"));
        }
        if p.stage.is_empty() {
            return Err(invalid("period.stage", "is required"));
        }
        if p.period == 0 {
            return Err(invalid("period.period", "must be >= 1"));
        }
        Ok((p.championship_id.clone(), p.stage.clone(), p.period))
    }

    async fn leaderboard_impl(
        &self,
        caller: Caller,
        req: pb::LeaderboardRequest,
        patience: std::time::Duration,
    ) -> Result<pb::LeaderboardPage> {
        let key = Self::period_key(req.period.as_ref())?;
        let size = match req.page_size {
            0 => 100,
            n @ 1..=1000 => n as usize,
            _ => return Err(invalid("page_size", "must be at most 1000")),
        };
        let viewer = if req.viewer_player_id.is_empty() && caller.is(Role::Player) {
            Some(caller.subject.clone())
        } else {
            (!req.viewer_player_id.is_empty()).then(|| req.viewer_player_id.clone())
        };
        let fresh = live::Freshness::Leaderboard(patience);
        self.read(&caller, &key, fresh, move |period| pb::LeaderboardPage {
            rows: period
                .page(req.offset as usize, size)
                .iter()
                .map(row_to_pb)
                .collect(),
            total: u32::try_from(period.total()).unwrap_or(u32::MAX),
            own: viewer.and_then(|v| period.row(&v)).as_ref().map(row_to_pb),
        })
        .await
    }

    async fn player_row_impl(
        &self,
        caller: Caller,
        req: pb::PlayerRowRequest,
        patience: std::time::Duration,
    ) -> Result<pb::LeaderboardRow> {
        let key = Self::period_key(req.period.as_ref())?;
        if req.player_id.is_empty() {
            return Err(invalid("player_id", "is required"));
        }
        let fresh = live::Freshness::Leaderboard(patience);
        let player = req.player_id.clone();
        self.read(&caller, &key, fresh, move |period| {
            period.row(&player).as_ref().map(row_to_pb)
        })
        .await?
        .ok_or_else(|| {
            QualificationError::NotFound(format!("player {} in this period", req.player_id))
        })
    }

    async fn set_period(
        &self,
        caller: &Caller,
        key: &PeriodKey,
        open: bool,
        closed: bool,
    ) -> Result<()> {
        let txn = self.db.begin().await?;
        Self::write_period_state(&txn, caller, key, open, closed).await?;
        txn.commit().await?;
        self.period_changed(key, open, closed);
        Ok(())
    }

    /// Writes a period's state and audits it, inside the caller's transaction.
    async fn write_period_state<C: ConnectionTrait>(
        txn: &C,
        caller: &Caller,
        key: &PeriodKey,
        open: bool,
        closed: bool,
    ) -> Result<()> {
        let model = period::ActiveModel {
            championship_id: Set(key.0.clone()),
            stage: Set(key.1.clone()),
            period: Set(key.2 as i32),
            open: Set(open),
            closed: Set(closed),
            changed_at: Set(Utc::now()),
        };
        period::Entity::insert(model)
            .on_conflict(
                OnConflict::columns([
                    period::Column::ChampionshipId,
                    period::Column::Stage,
                    period::Column::Period,
                ])
                .update_columns([
                    period::Column::Open,
                    period::Column::Closed,
                    period::Column::ChangedAt,
                ])
                .to_owned(),
            )
            .exec_without_returning(txn)
            .await?;
        let action = if closed {
            "period.close"
        } else {
            "period.open"
        };
        Self::audit(
            txn,
            caller,
            action,
            &format!("{}/{}/{}", key.0, key.1, key.2),
            String::new(),
        )
        .await
    }

    /// Tells followers a period's new state (after its commit).
    fn period_changed(&self, key: &PeriodKey, open: bool, closed: bool) {
        let _ = self.changes.send((
            key.0.clone(),
            pb::Change {
                kind: Some(pb::change::Kind::Period(period_state(key, open, closed))),
                at: Some(period_ref(key)),
            },
        ));
    }

    async fn open_period_impl(
        &self,
        caller: Caller,
        req: pb::PeriodRef,
    ) -> Result<pb::PeriodState> {
        require(&caller, &[Role::Organizer])?;
        let key = Self::period_key(Some(&req))?;
        let preset = self.preset(&caller, &key.0).await?;
        let stage = online_stage(&preset, &key)?;
        stage
            .period(key.2)
            .ok_or_else(|| invalid("period", format!("{} has no period {}", stage.code, key.2)))?;
        if stage.kind == qiwang_core::stage::StageKind::Repechage {
            self.repechage_places(&key.0, &key.1).await?;
        }
        if self.period_row(&key).await?.is_some_and(|p| p.closed) {
            return Err(precondition(
                "PERIOD_CLOSED",
                "period",
                "a closed period stays closed (its advancement list is frozen)",
            ));
        }
        self.set_period(&caller, &key, true, false).await?;
        Ok(period_state(&key, true, false))
    }

    /// Closes a period and returns its frozen list (the RPC returns its first page).
    async fn close_period_impl(
        &self,
        caller: Caller,
        req: pb::PeriodRef,
    ) -> Result<frozen::FrozenList> {
        require(&caller, &[Role::Organizer])?;
        let key = Self::period_key(Some(&req))?;
        // Atomic (R-ADV, issue 43): the period turns closed in the transaction that stores its
        // list, so a crash at any point leaves it open without a list or closed with all of it.
        // Ingest of the period is held back meanwhile by the period row this transaction locks
        // (ingest takes the row's next sequence value, and then finds it closed); on SQLite, this
        // process's ingest waits in its queue first.
        let ingest_paused = self.write_queue().await;
        let writer = qiwang_infra::db::for_large_write(&self.db).await?;
        let txn = writer.begin().await?;
        let row = period::Entity::find_by_id((key.0.clone(), key.1.clone(), key.2 as i32))
            .lock_exclusive()
            .one(&txn)
            .await?;
        let was_closed = match row {
            Some(p) if p.closed => true,
            Some(p) if p.open => false,
            _ => {
                return Err(precondition(
                    "PERIOD_NOT_OPEN",
                    "period",
                    "only an open period can be closed",
                ));
            }
        };
        // Closed with its list (closed again, or a concurrent close won): the list it has.
        // Closed without one (data from before closes were atomic): computed and stored now.
        if was_closed && let Some(stored) = frozen::load(&txn, &key).await? {
            return Ok(stored);
        }
        let preset = self.preset(&caller, &key.0).await?;
        let stage = online_stage(&preset, &key)?;
        let advance = stage.advance.as_ref().ok_or_else(|| {
            precondition(
                "NO_ADVANCEMENT",
                "stage",
                format!("stage {} has no advancement rule", stage.code),
            )
        })?;
        // What to cut: the whole field, or each group of the players who entered its events
        // (go-2025: open group top 38, youth group top 30 per period, R-ADV-11).
        let groups: Vec<(Option<String>, PointsRule, Vec<String>)> = match &advance.selection {
            Selection::Knockout => {
                return Err(precondition(
                    "KNOCKOUT_STAGE",
                    "stage",
                    "a knockout stage advances by rounds, not by a period cut",
                ));
            }
            Selection::Repechage(_) => {
                let places = self.repechage_places(&key.0, &key.1).await?;
                let rule = advance.repechage_rule(places).ok_or_else(|| {
                    precondition("NO_RULE", "stage", "the stage has no repechage rule")
                })?;
                vec![(None, rule, Vec::new())]
            }
            _ if advance.groups.is_empty() => {
                let rule = advance.rule(None).ok_or_else(|| {
                    precondition("NO_RULE", "stage", "the stage has no points rule")
                })?;
                vec![(None, rule, Vec::new())]
            }
            _ => advance
                .groups
                .iter()
                .map(|g| {
                    let rule = advance.rule(Some(&g.code)).ok_or_else(|| {
                        precondition(
                            "NO_RULE",
                            "stage",
                            format!("group {} has no points rule", g.code),
                        )
                    })?;
                    Ok((Some(g.code.clone()), rule, g.events.clone()))
                })
                .collect::<Result<_>>()?,
        };
        // Closed first in the transaction (ingest elsewhere now waits for the row, then finds it
        // closed), then cut from the caught-up period: no stored game is missing from the cut.
        if !was_closed {
            Self::write_period_state(&txn, &caller, &key, false, true).await?;
        }
        let started = std::time::Instant::now();
        // The live period, caught up with every stored item: exact, since nothing more comes. Its
        // players as candidates, with when they reached the first group's points line where the
        // rule needs it (the other groups' lines, where they differ, are asked for below).
        let lines: Vec<Option<i64>> = groups
            .iter()
            .map(|(_, rule, _)| rule.line_to_reach())
            .collect();
        let first_line = lines.first().copied().flatten();
        let field = self.field(&caller, &key, first_line).await?;
        let fielded = started.elapsed();
        let cancelled: HashSet<String> = cancellation::Entity::find()
            .filter(cancellation::Column::ChampionshipId.eq(&key.0))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|c| c.player_id)
            .collect();
        // A player is ranked in the first group (preset order) whose events they entered; a stage
        // without groups ranks everyone in one (`None`: no lookup kept per player).
        let group_of: Option<HashMap<String, usize>> = if groups.len() > 1 || groups[0].0.is_some()
        {
            let players: Vec<String> = field.iter().map(|c| c.player.to_string()).collect();
            let mut entries: HashMap<String, Vec<String>> = HashMap::new();
            for chunk in players.chunks(10_000) {
                let response = self
                    .registration
                    .clone()
                    .list_entered_players(authed(
                        &caller,
                        reg::ListEnteredPlayersRequest {
                            championship_id: key.0.clone(),
                            player_ids: chunk.to_vec(),
                        },
                    ))
                    .await
                    .map_err(|status| QualificationError::Upstream {
                        context: "reading entries",
                        status,
                    })?
                    .into_inner();
                for e in response.entries {
                    entries.insert(e.player_id, e.events);
                }
            }
            Some(
                players
                    .into_iter()
                    .filter_map(|p| {
                        let events = entries.get(&p)?;
                        let g = groups
                            .iter()
                            .position(|(_, _, ev)| ev.iter().any(|e| events.contains(e)))?;
                        Some((p, g))
                    })
                    .collect(),
            )
        } else {
            None
        };
        // Each group's candidates, the field's rows moved into them (a million at national scale:
        // nothing is copied that need not be). A group whose points line differs from the first
        // group's takes its players from a field computed for its own line.
        let mut fields = vec![(first_line, field)];
        for &line in &lines {
            if fields.iter().all(|(l, _)| *l != line) {
                fields.push((line, self.field(&caller, &key, line).await?));
            }
        }
        let candidates: Vec<Field> = match (&group_of, fields.as_mut_slice()) {
            // One group and one field: the field is the group, flagged in place.
            (None, [(_, field)]) => {
                field.exclude(|p| cancelled.contains(p));
                vec![std::mem::take(field)]
            }
            _ => {
                let mut grouped: Vec<Vec<Candidate>> = vec![Vec::new(); groups.len()];
                for (line, field) in fields {
                    for mut c in field.into_candidates() {
                        let g = match &group_of {
                            None => 0,
                            Some(group_of) => match group_of.get(&*c.player) {
                                Some(&g) => g,
                                None => continue,
                            },
                        };
                        if lines.get(g) != Some(&line) {
                            continue;
                        }
                        let Some(into) = grouped.get_mut(g) else {
                            continue;
                        };
                        c.excluded |= cancelled.contains(&*c.player);
                        into.push(c);
                    }
                }
                grouped
                    .into_iter()
                    .map(Field::new)
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|e| precondition("CUT_FAILED", "period", e.to_string()))?
            }
        };
        // Whole microseconds: what both databases keep, so the list returned now is the list read
        // back later.
        let list = frozen::FrozenList {
            key: key.clone(),
            to_stage: advance.to.clone(),
            decided_at: Utc::now().trunc_subsecs(6),
            reasons: Vec::new(),
            rows: Vec::new(),
        };
        // Cut and encode on a blocking thread: a national cut is most of a second of CPU, which on
        // a request runtime worker would stall the leaderboard reads queued behind it.
        let (list, chunks, cutting, encoding) = tokio::task::spawn_blocking(move || {
            let (list, cutting) = decide(list, &groups, candidates);
            let encode_started = std::time::Instant::now();
            let chunks = frozen::encode_chunks(&list.rows);
            (list, chunks, cutting, encode_started.elapsed())
        })
        .await?;
        let decided = started.elapsed();
        frozen::store_encoded(&txn, &list, chunks?).await?;
        txn.commit().await?;
        drop(ingest_paused);
        if !was_closed {
            self.period_changed(&key, false, true);
        }
        let stored = started.elapsed();
        qiwang_infra::db::checkpoint_soon(&self.db);
        lock(&self.advanced).retain(|k, _| k.0 != key.0);
        // Followers subscribed now get every row; with none, a million copies are not made for
        // nobody (one subscribing meanwhile follows from its subscription, as always).
        if self.changes.receiver_count() > 0 {
            for row in list.page(0, list.rows.len())?.rows {
                let _ = self.changes.send((
                    key.0.clone(),
                    pb::Change {
                        kind: Some(pb::change::Kind::Advancement(row)),
                        at: Some(period_ref(&key)),
                    },
                ));
            }
        }
        tracing::info!(
            championship = %key.0,
            stage = %key.1,
            period = key.2,
            rows = list.rows.len(),
            advanced = list.advanced().count(),
            decided_seconds = decided.as_secs_f64(),
            field_seconds = fielded.as_secs_f64(),
            cut_seconds = cutting.as_secs_f64(),
            encode_seconds = encoding.as_secs_f64(),
            stored_seconds = (stored - decided).as_secs_f64(),
            followed_seconds = (started.elapsed() - stored).as_secs_f64(),
            "period closed"
        );
        Ok(list)
    }

    /// Every player of a period as a cut candidate reaching `line` (the live period caught up).
    async fn field(&self, caller: &Caller, key: &PeriodKey, line: Option<i64>) -> Result<Field> {
        self.read(caller, key, live::Freshness::Exact, move |period| {
            period.candidates(line)
        })
        .await
    }

    /// A page of a frozen list: a closed period's, or with period 0 a knockout stage's.
    async fn advancement_page(
        &self,
        period: Option<&pb::PeriodRef>,
        offset: usize,
        size: usize,
    ) -> Result<pb::AdvancementList> {
        if let Some(r) = period
            && r.period == 0
            && !r.championship_id.is_empty()
            && !r.stage.is_empty()
        {
            // Period 0: a stage decided as a whole (a knockout's frozen list, once its last
            // round is closed).
            let key = (r.championship_id.clone(), r.stage.clone(), 0);
            return match frozen::load_page(&self.db, &key, offset, size).await? {
                Some(page) if page.total_rows > 0 => Ok(page),
                _ => Err(precondition(
                    "STAGE_NOT_DECIDED",
                    "period",
                    "period 0 is a knockout stage's list, which exists once its last round is closed",
                )),
            };
        }
        let key = Self::period_key(period)?;
        if !self.period_row(&key).await?.is_some_and(|p| p.closed) {
            return Err(precondition(
                "PERIOD_NOT_CLOSED",
                "period",
                "the advancement list exists once the period is closed",
            ));
        }
        // A close stores the list in the transaction that closes the period, so a closed period
        // without one comes only from data older than that: say so, never answer an empty list.
        frozen::load_page(&self.db, &key, offset, size)
            .await?
            .ok_or_else(|| {
                precondition(
                    "LIST_MISSING",
                    "period",
                    "the period is closed but its advancement list was never stored; \
                     an organizer's ClosePeriod computes and stores it",
                )
            })
    }

    async fn reset_impl(&self, caller: Caller, req: pb::ResetRequest) -> Result<pb::ResetAck> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        let key = Self::period_key(req.period.as_ref())?;
        if req.player_id.is_empty() {
            return Err(invalid("player_id", "is required"));
        }
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(QualificationError::PermissionDenied(
                "a player may reset only their own score".into(),
            ));
        }
        let at = match (&req.at, caller.role) {
            (Some(t), Role::Organizer) => instant("at", Some(t))?,
            (Some(_), _) => {
                return Err(QualificationError::PermissionDenied(
                    "only organizers may record a reset at an earlier instant".into(),
                ));
            }
            (None, _) => Utc::now(),
        };
        let preset = self.preset(&caller, &key.0).await?;
        let stage = online_stage(&preset, &key)?;
        if !stage.online.is_some_and(|o| o.resets_allowed) {
            return Err(precondition(
                "RESET_NOT_ALLOWED",
                "stage",
                format!("stage {} allows no score reset (R-ONL-7)", stage.code),
            ));
        }
        // Taking the period's next sequence value finds whether it is open.
        let txn = self.db.begin().await?;
        let seq = live::next_seq(&txn, &key).await?.ok_or_else(|| {
            precondition(
                "PERIOD_NOT_OPEN",
                "period",
                "resets are taken only while the period is open",
            )
        })?;
        reset::Entity::insert(reset::ActiveModel {
            id: NotSet,
            championship_id: Set(key.0.clone()),
            stage: Set(key.1.clone()),
            period: Set(key.2 as i32),
            player_id: Set(req.player_id.clone()),
            at: Set(at),
            requested_by: Set(caller.subject.clone()),
            seq: Set(seq),
        })
        .exec(&txn)
        .await?;
        if caller.is(Role::Organizer) {
            Self::audit(
                &txn,
                &caller,
                "score.reset",
                &req.player_id,
                format!("{}/{}/{} at {at}", key.0, key.1, key.2),
            )
            .await?;
        }
        txn.commit().await?;
        self.tell_moved([(key, Some(seq))]).await;
        Ok(pb::ResetAck {
            at: Some(timestamp(at)),
        })
    }

    async fn cancel_impl(
        &self,
        caller: Caller,
        req: pb::CancelResultsRequest,
    ) -> Result<pb::CancelResultsAck> {
        require(&caller, &[Role::Organizer])?;
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        if req.player_id.is_empty() {
            return Err(invalid("player_id", "is required"));
        }
        if req.reason.trim().is_empty() {
            return Err(invalid(
                "reason",
                "a cancellation for cheating needs the verified finding",
            ));
        }
        self.preset(&caller, &req.championship_id).await?;
        let txn = self.db.begin().await?;
        // Every period of the championship moves: each board catches the verdict up.
        let seqs = live::next_seqs(&txn, &req.championship_id).await?;
        let seq = seqs.iter().map(|(_, seq)| *seq).max().unwrap_or(0);
        cancellation::Entity::insert(cancellation::ActiveModel {
            championship_id: Set(req.championship_id.clone()),
            player_id: Set(req.player_id.clone()),
            reason: Set(req.reason.trim().to_owned()),
            decided_by: Set(caller.subject.clone()),
            decided_at: Set(Utc::now()),
            seq: Set(seq),
        })
        .on_conflict(
            OnConflict::columns([
                cancellation::Column::ChampionshipId,
                cancellation::Column::PlayerId,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
        Self::audit(
            &txn,
            &caller,
            "results.cancel",
            &req.player_id,
            req.reason.trim().to_owned(),
        )
        .await?;
        txn.commit().await?;
        self.tell_moved(seqs.into_iter().map(|(key, seq)| (key, Some(seq))))
            .await;
        Ok(pb::CancelResultsAck {})
    }
}

/// Inserts a group's new games, skipping ids already stored; returns the (championship, game id)
/// of the rows it inserted.
///
/// On PostgreSQL one `INSERT … SELECT FROM UNNEST` with one array per column: 13 parameters
/// whatever the group's size, so the server plans a short statement instead of one with 26,000
/// parameters. The multi-row `VALUES` form cost as much to plan (its bind step) as to run, about
/// 39 ms a group of 2,000 on PostgreSQL 15 (`qiwang bench ingest --players 200000 --games 1000000`
/// with `log_min_duration_statement`). One statement is also one round trip: sqlx 0.9.0 sends
/// without TCP_NODELAY (launchbadge/sqlx#4335), so every statement larger than a TCP segment may
/// wait ~40 ms on PostgreSQL's delayed ACK.
///
/// On SQLite, which plans in-process and has no arrays, one multi-row `VALUES` statement for the
/// whole group (13 columns × [`ROWS_PER_INSERT`] stays below its 32,766 parameters).
async fn insert_games(
    txn: &sea_orm::DatabaseTransaction,
    mut rows: Vec<game::Model>,
) -> Result<HashSet<(String, String)>> {
    let mut inserted: HashSet<(String, String)> = HashSet::new();
    if rows.is_empty() {
        return Ok(inserted);
    }
    // In key order: two groups (of two periods, whose transactions run at once on PostgreSQL)
    // that share game ids then wait for each other's ids in one order and never deadlock.
    rows.sort_unstable_by(|a, b| {
        (&a.championship_id, &a.platform, &a.game_id).cmp(&(
            &b.championship_id,
            &b.platform,
            &b.game_id,
        ))
    });
    let backend = txn.get_database_backend();
    let statements = if backend == sea_orm::DbBackend::Postgres {
        use sea_orm::sea_query::ArrayType;
        // The rows moved into one array per column (in the statement's column order).
        let kinds = [
            ArrayType::String,
            ArrayType::String,
            ArrayType::String,
            ArrayType::String,
            ArrayType::Int,
            ArrayType::String,
            ArrayType::String,
            ArrayType::ChronoDateTimeUtc,
            ArrayType::ChronoDateTimeUtc,
            ArrayType::Bytes,
            ArrayType::String,
            ArrayType::ChronoDateTimeUtc,
            ArrayType::BigInt,
        ];
        let mut columns: Vec<Vec<sea_orm::Value>> = kinds
            .iter()
            .map(|_| Vec::with_capacity(rows.len()))
            .collect();
        for r in rows {
            let row: [sea_orm::Value; 13] = [
                r.championship_id.into(),
                r.platform.into(),
                r.game_id.into(),
                r.stage.into(),
                r.period.into(),
                r.first_player.into(),
                r.second_player.into(),
                r.started_at.into(),
                r.ended_at.into(),
                r.report.into(),
                r.content_hash.into(),
                r.reported_at.into(),
                r.seq.into(),
            ];
            for (column, value) in columns.iter_mut().zip(row) {
                column.push(value);
            }
        }
        let values: Vec<sea_orm::Value> = kinds
            .into_iter()
            .zip(columns)
            .map(|(kind, column)| sea_orm::Value::Array(kind, Some(Box::new(column))))
            .collect();
        vec![sea_orm::Statement::from_sql_and_values(
            backend,
            "INSERT INTO qualification_games (championship_id, platform, game_id, stage, period, \
             first_player, second_player, started_at, ended_at, report, content_hash, reported_at, seq) \
             SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], $5::int4[], \
             $6::text[], $7::text[], $8::timestamptz[], $9::timestamptz[], $10::bytea[], $11::text[], \
             $12::timestamptz[], $13::int8[]) \
             ON CONFLICT (championship_id, platform, game_id) DO NOTHING \
             RETURNING championship_id, game_id",
            values,
        )]
    } else {
        let mut statements = Vec::new();
        let mut rows = rows.into_iter().map(game::ActiveModel::from).peekable();
        while rows.peek().is_some() {
            let chunk: Vec<game::ActiveModel> = rows.by_ref().take(ROWS_PER_INSERT).collect();
            let mut statement = game::Entity::insert_many(chunk)
                .on_conflict(
                    OnConflict::columns([
                        game::Column::ChampionshipId,
                        game::Column::Platform,
                        game::Column::GameId,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .into_query();
            statement.returning(
                sea_orm::sea_query::Query::returning()
                    .columns([game::Column::ChampionshipId, game::Column::GameId]),
            );
            statements.push(backend.build(&statement));
        }
        statements
    };
    for statement in statements {
        for row in txn.query_all_raw(statement).await? {
            inserted.insert((
                row.try_get_by_index::<String>(0)?,
                row.try_get_by_index::<String>(1)?,
            ));
        }
    }
    Ok(inserted)
}

/// The stage and period a report belongs to: as the platform says, or else the one *open* online
/// period whose days contain the game's start (China time). Reading: periods overlap (xiangqi-2022's
/// 入围 of period 1 runs during 海选 period 2), so only open periods are candidates; when several
/// open periods fit, the platform must name the stage.
fn locate<'p>(
    preset: &'p Preset,
    open: &HashMap<(String, u32), bool>,
    report: &pb::GameReport,
    started_at: DateTime<Utc>,
) -> Result<(&'p Stage, u32)> {
    let day = china_date(started_at);
    if !report.stage.is_empty() {
        let stage = preset.stage(&report.stage).ok_or_else(|| {
            invalid(
                "stage",
                format!("{:?} is not a stage of this championship", report.stage),
            )
        })?;
        if report.period > 0 {
            return Ok((stage, report.period));
        }
        let p = stage
            .periods
            .iter()
            .find(|p| p.opens_on <= day && day <= p.closes_on)
            .ok_or_else(|| {
                invalid(
                    "started_at",
                    format!("{day} is in no period of stage {}", stage.code),
                )
            })?;
        return Ok((stage, p.number));
    }
    let matches: Vec<(&Stage, u32)> = preset
        .stages
        .iter()
        .filter(|s| s.online.is_some())
        .flat_map(|s| {
            s.periods
                .iter()
                .filter(|p| p.opens_on <= day && day <= p.closes_on)
                .map(move |p| (s, p.number))
        })
        .collect();
    let open_matches: Vec<(&Stage, u32)> = matches
        .iter()
        .copied()
        .filter(|(s, p)| open.get(&(s.code.clone(), *p)) == Some(&true))
        .collect();
    match (open_matches.as_slice(), matches.as_slice()) {
        ([one], _) => Ok(*one),
        ([], [one]) => Ok(*one),
        ([], []) => Err(invalid(
            "started_at",
            format!("{day} (China time) is in no online period of this championship"),
        )),
        ([], many) => {
            let names: Vec<String> = many
                .iter()
                .map(|(s, p)| format!("{}/{p}", s.code))
                .collect();
            Err(invalid(
                "period",
                format!(
                    "none of the periods on {day} is open ({})",
                    names.join(", ")
                ),
            ))
        }
        (many, _) => {
            let names: Vec<String> = many
                .iter()
                .map(|(s, p)| format!("{}/{p}", s.code))
                .collect();
            Err(invalid(
                "stage",
                format!(
                    "the start falls in several open periods ({}); say which",
                    names.join(", ")
                ),
            ))
        }
    }
}

/// A game or room entry must start inside the stage's play hours on its days (R-STR-4).
fn inside_play_time(
    rules: &OnlineRules,
    days: PeriodDays,
    field: &'static str,
    at: DateTime<Utc>,
) -> Result<()> {
    match judge_play_time(&rules.play_hours, days, at) {
        PlayTime::Inside => Ok(()),
        other => Err(invalid(
            field,
            format!("outside the stage's play time ({other:?}, China time)"),
        )),
    }
}

fn online_stage<'p>(preset: &'p Preset, key: &PeriodKey) -> Result<&'p Stage> {
    let stage = preset.stage(&key.1).ok_or_else(|| {
        invalid(
            "period.stage",
            format!("{:?} is not a stage of this championship", key.1),
        )
    })?;
    if stage.online.is_none() {
        return Err(invalid(
            "period.stage",
            format!("{} is not an online stage", stage.code),
        ));
    }
    Ok(stage)
}

fn period_ref(key: &PeriodKey) -> pb::PeriodRef {
    pb::PeriodRef {
        championship_id: key.0.clone(),
        stage: key.1.clone(),
        period: key.2,
    }
}

fn period_state(key: &PeriodKey, open: bool, closed: bool) -> pb::PeriodState {
    pb::PeriodState {
        period: Some(period_ref(key)),
        open,
        closed,
    }
}

fn row_to_pb(r: &qiwang_core::standings::RankedRow) -> pb::LeaderboardRow {
    let row = &r.row;
    pb::LeaderboardRow {
        rank: r.rank.unwrap_or(0),
        player_id: row.player.clone(),
        points: row.points,
        win_rate_per_mille: row.win_rate().map(|w| w.per_mille()).unwrap_or(0),
        wins: row.wins,
        losses: row.losses,
        draws: row.draws,
        escapes: row.escapes,
        counted_games: row.counted_games(),
        average_game_secs: row
            .average_game_time()
            .map(|a| u64::try_from(a.whole_seconds()).unwrap_or(0))
            .unwrap_or(0),
        eliminated: row.eliminated,
    }
}

/// Cuts each group's field (`groups` and `fields` in the same order) into `list`'s rows, each
/// with its group's places and its reason, interned; returns the list in list order and the time
/// the cuts took.
fn decide(
    mut list: frozen::FrozenList,
    groups: &[(Option<String>, PointsRule, Vec<String>)],
    fields: Vec<Field>,
) -> (frozen::FrozenList, std::time::Duration) {
    // A national list has a few distinct reasons: each is described once.
    let mut reasons = frozen::ReasonTable::new();
    let mut cutting = std::time::Duration::ZERO;
    for ((label, rule, _), field) in groups.iter().zip(fields) {
        let cut_started = std::time::Instant::now();
        list.rows.reserve(field.len());
        let places = rule.top_n.unwrap_or(0);
        cut_field(rule, field, |row| {
            let reason = reasons.intern((label.as_deref(), row.reason), |(label, why)| {
                let (code, reason) = why.describe();
                let reason = match label {
                    Some(group) => format!("[{group}] {reason}"),
                    None => reason,
                };
                (code.to_owned(), reason)
            });
            list.rows.push(frozen::FrozenRow {
                rank: row.rank.unwrap_or(0),
                advanced: row.advanced,
                points: row.candidate.points,
                wins: row.candidate.wins,
                counted_games: row.candidate.counted_games,
                player_id: row.candidate.player,
                places,
                reason,
            });
        });
        cutting += cut_started.elapsed();
    }
    list.reasons = reasons.reasons;
    // One group's rows come in list order from its cut (ranked by rank, equal ranks by player id,
    // then the unranked by player id); only several groups' rows are merged. Checking a national
    // list's order compares ids at every equal rank, in random memory order: 35 ms.
    if groups.len() > 1 {
        list.sort();
    }
    (list, cutting)
}

type OutcomeStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::ReportOutcome, Status>> + Send>>;
type ChangeStream = Pin<Box<dyn Stream<Item = std::result::Result<pb::Change, Status>> + Send>>;

#[tonic::async_trait]
impl QualificationService for QualificationApi {
    async fn report_game(&self, request: Request<pb::GameReport>) -> Reply<pb::ReportAck> {
        let caller = auth::caller(&request)?;
        let (api, report) = (self.clone(), request.into_inner());
        // In a task of its own: a caller hanging up never stops a write between its commit and
        // its board's notice.
        let mut outcomes = tokio::spawn(async move { api.ingest(&caller, vec![report]).await })
            .await
            .map_err(|e| Status::from(QualificationError::from(e)))?
            .map_err(Status::from)?;
        match outcomes.pop() {
            Some(outcome) => reply(outcome),
            None => Err(Status::internal("no outcome")),
        }
    }

    async fn report_games(
        &self,
        request: Request<Streaming<pb::GameReport>>,
    ) -> Reply<pb::ReportGamesSummary> {
        let caller = auth::caller(&request)?;
        let stream = request.into_inner();
        // The whole stream on the bulk lane (`qiwang_infra::lane`), decoding included: thousands
        // of reports per call are throughput work, and on a request worker their decoding would
        // queue the leaderboard reads behind it. A group being stored completes even if the
        // stream is dropped meanwhile: its games are then stored, unacknowledged, and a retry is a
        // duplicate.
        let api = self.clone();
        let summary =
            qiwang_infra::lane::spawn_bulk(async move { api.report_stream(&caller, stream).await })
                .await
                .map_err(|e| Status::from(QualificationError::from(e)))??;
        Ok(Response::new(summary))
    }

    type StreamGamesStream = OutcomeStream;

    async fn stream_games(
        &self,
        request: Request<Streaming<pb::GameReport>>,
    ) -> Reply<Self::StreamGamesStream> {
        let caller = auth::caller(&request)?;
        let stream = request.into_inner();
        // As `report_games`, on the bulk lane; each group's outcomes go out once it is committed,
        // and the call ends with the stream's final status (UNAVAILABLE on shutdown).
        let (tx, rx) = tokio::sync::mpsc::channel(BATCH);
        let api = self.clone();
        drop(qiwang_infra::lane::spawn_bulk(async move {
            if let Err(status) = api.ingest_stream(&caller, stream, &tx).await {
                let _ = tx.send(Err(status)).await;
            }
        }));
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        )))
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::LeaderboardRequest>,
    ) -> Reply<pb::LeaderboardPage> {
        let caller = auth::caller(&request)?;
        let patience = live::patience(qiwang_infra::status::client_timeout(request.metadata()));
        reply(
            self.leaderboard_impl(caller, request.into_inner(), patience)
                .await,
        )
    }

    async fn get_player_row(
        &self,
        request: Request<pb::PlayerRowRequest>,
    ) -> Reply<pb::LeaderboardRow> {
        let caller = auth::caller(&request)?;
        let patience = live::patience(qiwang_infra::status::client_timeout(request.metadata()));
        reply(
            self.player_row_impl(caller, request.into_inner(), patience)
                .await,
        )
    }

    async fn open_period(&self, request: Request<pb::PeriodRef>) -> Reply<pb::PeriodState> {
        let caller = auth::caller(&request)?;
        reply(self.open_period_impl(caller, request.into_inner()).await)
    }

    async fn close_period(&self, request: Request<pb::PeriodRef>) -> Reply<pb::AdvancementList> {
        let caller = auth::caller(&request)?;
        reply(
            self.close_period_impl(caller, request.into_inner())
                .await
                .and_then(|list| {
                    let page = list.page(0, frozen::PAGE_ROWS);
                    // A national list is a million rows whose ids the live period shares: dropping
                    // it releases a million reference counts in random memory order, which the
                    // organizer need not wait for.
                    tokio::task::spawn_blocking(move || drop(list));
                    page
                }),
        )
    }

    async fn get_advancement(&self, request: Request<pb::PeriodRef>) -> Reply<pb::AdvancementList> {
        auth::caller(&request)?;
        reply(
            self.advancement_page(Some(request.get_ref()), 0, frozen::PAGE_ROWS)
                .await,
        )
    }

    async fn list_advancement(
        &self,
        request: Request<pb::AdvancementPageRequest>,
    ) -> Reply<pb::AdvancementList> {
        auth::caller(&request)?;
        let r = request.get_ref();
        let result = async {
            let size = frozen::page_size(r.page_size)?;
            let offset = frozen::page_offset(&r.page_token)?;
            self.advancement_page(r.period.as_ref(), offset, size).await
        };
        reply(result.await)
    }

    async fn request_reset(&self, request: Request<pb::ResetRequest>) -> Reply<pb::ResetAck> {
        let caller = auth::caller(&request)?;
        reply(self.reset_impl(caller, request.into_inner()).await)
    }

    async fn cancel_results(
        &self,
        request: Request<pb::CancelResultsRequest>,
    ) -> Reply<pb::CancelResultsAck> {
        let caller = auth::caller(&request)?;
        reply(self.cancel_impl(caller, request.into_inner()).await)
    }

    async fn list_conflicts(
        &self,
        request: Request<pb::ListConflictsRequest>,
    ) -> Reply<pb::ListConflictsResponse> {
        let caller = auth::caller(&request)?;
        let result = async {
            require(&caller, &[Role::Organizer, Role::Referee])?;
            let rows = conflict::Entity::find()
                .filter(conflict::Column::ChampionshipId.eq(&request.get_ref().championship_id))
                .order_by_asc(conflict::Column::Id)
                .all(&self.db)
                .await?;
            Ok(pb::ListConflictsResponse {
                conflicts: rows
                    .into_iter()
                    .map(|c| pb::Conflict {
                        platform: c.platform,
                        game_id: c.game_id,
                        reported_at: Some(timestamp(c.reported_at)),
                        stored_hash: c.stored_hash,
                        conflicting_hash: c.conflicting_hash,
                    })
                    .collect(),
            })
        };
        reply(result.await)
    }

    type WatchChangesStream = ChangeStream;

    async fn watch_changes(
        &self,
        request: Request<pb::WatchRequest>,
    ) -> Reply<Self::WatchChangesStream> {
        auth::caller(&request)?;
        let championship = request.into_inner().championship_id;
        let mut receiver = self.changes.subscribe();
        let mut shutdown = self.shutdown.clone();
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        tokio::spawn(async move {
            loop {
                let item = tokio::select! {
                    _ = shutdown.wait_for(|stop| *stop) => break,
                    item = receiver.recv() => item,
                };
                let out = match item {
                    Ok((c, change)) if c == championship => Ok(change),
                    Ok(_) => continue,
                    // A slow follower missed changes: tell it, so it re-reads instead of trusting a gap.
                    Err(broadcast::error::RecvError::Lagged(_)) => Err(Status::data_loss(
                        "missed changes; re-read the state and follow again",
                    )),
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if tx.send(out).await.is_err() {
                    break;
                }
            }
        });
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
        Ok(Response::new(Box::pin(stream)))
    }

    async fn add_direct_seed(
        &self,
        request: Request<pb::AddDirectSeedRequest>,
    ) -> Reply<pb::DirectSeed> {
        let caller = auth::caller(&request)?;
        reply(self.add_seed_impl(caller, request.into_inner()).await)
    }

    async fn list_direct_seeds(
        &self,
        request: Request<pb::ListDirectSeedsRequest>,
    ) -> Reply<pb::ListDirectSeedsResponse> {
        auth::caller(&request)?;
        reply(self.list_seeds_impl(request.into_inner()).await)
    }

    async fn publish_knockout_seed(
        &self,
        request: Request<pb::PublishKnockoutSeedRequest>,
    ) -> Reply<pb::KnockoutRound> {
        let caller = auth::caller(&request)?;
        reply(self.publish_seed_impl(caller, request.into_inner()).await)
    }

    async fn draw_knockout_round(
        &self,
        request: Request<pb::KnockoutRoundRef>,
    ) -> Reply<pb::KnockoutRound> {
        let caller = auth::caller(&request)?;
        reply(self.draw_round_impl(caller, request.into_inner()).await)
    }

    async fn close_knockout_round(
        &self,
        request: Request<pb::KnockoutRoundRef>,
    ) -> Reply<pb::KnockoutRound> {
        let caller = auth::caller(&request)?;
        reply(self.close_round_impl(caller, request.into_inner()).await)
    }

    async fn get_knockout_round(
        &self,
        request: Request<pb::KnockoutRoundRef>,
    ) -> Reply<pb::KnockoutRound> {
        let caller = auth::caller(&request)?;
        reply(self.get_round_impl(caller, request.into_inner()).await)
    }

    async fn report_knockout(&self, request: Request<pb::KnockoutReport>) -> Reply<pb::ReportAck> {
        let caller = auth::caller(&request)?;
        reply(
            self.report_knockout_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn compose_finalists(
        &self,
        request: Request<pb::ChampionshipRef>,
    ) -> Reply<pb::FinalistList> {
        let caller = auth::caller(&request)?;
        reply(
            self.compose_finalists_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn get_reach(
        &self,
        request: Request<pb::GetReachRequest>,
    ) -> Reply<pb::GetReachResponse> {
        let caller = auth::caller(&request)?;
        reply(self.get_reach_impl(caller, request.into_inner()).await)
    }

    async fn get_finalists(
        &self,
        request: Request<pb::ChampionshipRef>,
    ) -> Reply<pb::FinalistList> {
        let caller = auth::caller(&request)?;
        reply(self.get_finalists_impl(caller, request.into_inner()).await)
    }

    async fn publish_notice(
        &self,
        request: Request<pb::PublishNoticeRequest>,
    ) -> Reply<pb::FinalistList> {
        let caller = auth::caller(&request)?;
        let req = request.into_inner();
        let championship = pb::ChampionshipRef {
            championship_id: req.championship_id,
        };
        reply(
            self.notice_step_impl(caller, championship, Some(req.supplementary_rules))
                .await,
        )
    }

    async fn close_notice(&self, request: Request<pb::ChampionshipRef>) -> Reply<pb::FinalistList> {
        let caller = auth::caller(&request)?;
        reply(
            self.notice_step_impl(caller, request.into_inner(), None)
                .await,
        )
    }

    async fn get_public_notice(
        &self,
        request: Request<pb::ChampionshipRef>,
    ) -> Reply<pb::FinalistList> {
        auth::caller_or_public(&request)?;
        reply(self.public_notice_impl(request.into_inner()).await)
    }

    async fn file_notice_report(
        &self,
        request: Request<pb::FileNoticeReportRequest>,
    ) -> Reply<pb::NoticeReport> {
        let caller = auth::caller_or_public(&request)?;
        reply(self.file_report_impl(caller, request.into_inner()).await)
    }

    async fn get_notice_report_status(
        &self,
        request: Request<pb::NoticeReportStatusRequest>,
    ) -> Reply<pb::NoticeReport> {
        let caller = auth::caller_or_public(&request)?;
        reply(self.report_status_impl(caller, request.into_inner()).await)
    }

    async fn investigate_notice_report(
        &self,
        request: Request<pb::NoticeReportRef>,
    ) -> Reply<pb::NoticeReport> {
        let caller = auth::caller(&request)?;
        reply(
            self.investigate_report_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn conclude_notice_report(
        &self,
        request: Request<pb::ConcludeNoticeReportRequest>,
    ) -> Reply<pb::NoticeReport> {
        let caller = auth::caller(&request)?;
        reply(
            self.conclude_report_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn list_notice_reports(
        &self,
        request: Request<pb::ChampionshipRef>,
    ) -> Reply<pb::ListNoticeReportsResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_reports_impl(caller, request.into_inner()).await)
    }

    async fn record_finals_information(
        &self,
        request: Request<pb::FinalistRef>,
    ) -> Reply<pb::Finalist> {
        let caller = auth::caller(&request)?;
        reply(
            self.record_finals_info_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn apply_finals_information_deadline(
        &self,
        request: Request<pb::ApplyDeadlineRequest>,
    ) -> Reply<pb::FinalistList> {
        let caller = auth::caller(&request)?;
        reply(self.apply_deadline_impl(caller, request.into_inner()).await)
    }

    async fn define_repechage(
        &self,
        request: Request<pb::DefineRepechageRequest>,
    ) -> Reply<pb::Repechage> {
        let caller = auth::caller(&request)?;
        reply(
            self.define_repechage_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn list_audit_entries(
        &self,
        request: Request<qiwang_proto::audit::v1::AuditPageRequest>,
    ) -> Reply<qiwang_proto::audit::v1::AuditPage> {
        let caller = auth::caller(&request)?;
        require(&caller, &[Role::Organizer])?;
        let page =
            qiwang_infra::audit::page_pb(&self.db, &crate::AUDIT_CHAIN, request.into_inner())
                .await
                .map_err(|e| Status::from(crate::error::QualificationError::from(e)))?;
        Ok(Response::new(page))
    }
}
