//! Live leaderboards (实时排行榜, R-ONL-9) without recomputing: each period a replica serves is a
//! `qiwang_core::live::LivePeriod`, kept exact by the change sequence.
//!
//! Invariant: a [`LiveState`] holds exactly the period's standings over every stored item with
//! `seq <= state.seq` (and every cheating verdict of its championship). Every write that changes
//! a period's standings takes the next value of the period's own sequence (`seq` on its
//! `qualification_periods` row; a verdict one of each period of its championship) inside its
//! transaction: the row stays locked until commit, so a period's values become visible in order,
//! and other periods' writes go on beside them. A read first takes the period's latest value as
//! this process knows it ([`InFlight::current`]: exact for the embedded suite, within a bound for
//! replicas; a period's close reads it exactly); when it moved, the replica applies the items
//! with `state.seq < seq <= counter` — verdicts, resets and games one by one, or, for an item the
//! core cannot apply exactly in place, by a recomputation from the database. In this process, the
//! ingest path applies the games it has just committed itself, so reads after its own writes find
//! nothing to fetch.
//!
//! A period first read after a start is its latest checkpoint (`qualification_checkpoints`,
//! written every `qualification.checkpoint_every_secs` and at a graceful shutdown) caught up the
//! same way; without one, an empty period caught up from the first stored item.

use std::sync::Arc;
use std::time::{Duration, Instant};

use qiwang_core::live::{Applied, LivePeriod, ResetApplied};
use qiwang_core::scoring::{CountedResult, Side};
use sea_orm::{DbBackend, Statement};

use super::*;
use crate::entity::{cancellation, checkpoint, game, period, reset};

/// Stored games decoded at a time when a period is recomputed or caught up.
const REBUILD_PAGE: usize = 20_000;

/// Where paging through a period's games (`next_games`) stands: the games with
/// `after < seq <= upto` are still to come.
struct GamePages {
    after: i64,
    upto: i64,
    done: bool,
}

impl GamePages {
    fn new(after: i64, upto: i64) -> GamePages {
        GamePages {
            after,
            upto,
            done: false,
        }
    }
}

/// A checkpoint's rows hold parts of at most this many bytes.
const CHECKPOINT_PART: usize = 4 << 20;

/// What wrote a checkpoint: a checkpoint of another build is not read (the core's own format
/// check refuses other encodings and rules; this one other releases).
fn checkpoint_format() -> String {
    format!("qiwang {} live", env!("CARGO_PKG_VERSION"))
}

/// Games applied to a period between two releases of its lock: a reader waits for at most this
/// many (about 0.2 ms at a million players, where the core takes 10-16 µs a game), not for a whole
/// group of 2,000. 16 → 4 did not measurably change the own row's p99 on PostgreSQL (3.6 ms against
/// 3.4-3.8 ms, 1.5 million games). At a million
/// players and games, 128 → 16 took the page's p99 from 7.8 to 5.6 ms and the own row's from 5.2
/// to 3.7 ms (`qiwang bench ingest`, when the slices were applied on the bulk lane).
///
/// Ingest applies its slices on the request runtime, not on the bulk lane (`qiwang_infra::lane`),
/// and yields to that runtime's other tasks between two slices. A bulk thread preempted while it
/// held the period kept readers waiting behind every thread of normal priority. Applying on the
/// request runtime took the own row's p99 from 2.9–3.3 to 1.7–1.9 ms (1,000,000 players,
/// 1–2 million games, SQLite; measured before the bench's reader was fixed to read a player who
/// has a row: with it, SQLite's p99 at 5 million games is 2.0–2.1 ms).
const APPLY_SLICE: usize = 16;

/// How long a leaderboard read waits for its period to be brought current (a rebuild after a
/// restart can take seconds) before it answers `UNAVAILABLE` with [`RETRY_AFTER`] as its hint:
/// what the client's deadline leaves after a margin for the answer's way back, and never more
/// than [`READ_PATIENCE`].
pub(super) fn patience(client_timeout: Option<Duration>) -> Duration {
    client_timeout.map_or(READ_PATIENCE, |t| {
        t.saturating_sub(ANSWER_MARGIN).min(READ_PATIENCE)
    })
}
const READ_PATIENCE: Duration = Duration::from_secs(3);
const ANSWER_MARGIN: Duration = Duration::from_millis(200);
/// The retry hint of a read that found its period being rebuilt.
const RETRY_AFTER: Duration = Duration::from_millis(500);

/// One period as this replica knows it.
pub(super) struct LiveState {
    pub period: LivePeriod,
    /// Every item with a sequence value up to this one is applied.
    pub seq: i64,
    /// This process's ingest is applying the games of this sequence value (`seq + 1`) slice by
    /// slice: some are applied, the rest follow. Readers may serve the period meanwhile only when
    /// they may omit that write in progress; anything else waits for the slices to finish.
    pub applying: Option<i64>,
    /// The sequence value of the latest checkpoint known stored of this period (see
    /// [`QualificationApi::checkpoint`]); 0 for none.
    pub checkpointed: i64,
}

/// How current a period read must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Freshness {
    /// A leaderboard: this replica's acknowledged writes, and other replicas' within a bound
    /// ([`InFlight::current`]). It waits for a period being brought current at most this long
    /// (see [`patience`]).
    Leaderboard(Duration),
    /// Every committed write (a period's close).
    Exact,
}

pub(super) type LiveSlot = Arc<tokio::sync::Mutex<Option<LiveState>>>;

/// The change sequence values this process's writes have taken and not yet completed, per period:
/// from `next_seq` inside the transaction until ingest has applied its games to the live periods
/// after the commit (a reset or a verdict: until its commit), or the transaction is given up (its
/// value then was never committed and is taken again). A write is acknowledged only after that, so
/// a read may serve a period without these values: they are writes in progress, not yet complete.
/// Values from anywhere else — another replica, or this process's completed writes — are never in
/// here and are caught up first.
#[derive(Clone)]
pub(super) struct InFlight {
    values: Arc<Mutex<std::collections::BTreeSet<(PeriodKey, i64)>>>,
    known: Arc<Known>,
}

impl Default for InFlight {
    fn default() -> Self {
        InFlight::new(false)
    }
}

/// How long a replica that shares its database may serve a leaderboard from a change counter read
/// earlier, at most: other replicas' writes acknowledged this long before a read are in it.
const SHARED_SERVE_WITHIN: Duration = Duration::from_millis(100);
/// A counter read this long ago is read again in the background by the next read, which does not
/// wait for it.
const SHARED_REFRESH_AFTER: Duration = Duration::from_millis(10);

/// The latest committed change sequence value of each period, as this process knows it.
///
/// - When this process is the database's only writer (the embedded SQLite suite holds the file's
///   claim, `qiwang_infra::db::claim_sqlite`), every value is taken by this process's own writes,
///   so a read never asks the database: it knows every committed value. A write that ends without
///   knowing whether it committed (failed or abandoned midway) marks its period's counter stale,
///   and the next read asks the database again.
/// - When replicas share the database (PostgreSQL), a read serves the counter as read at most
///   [`SHARED_SERVE_WITHIN`] ago, raised by this replica's own commits as they happen: a replica
///   shows its own acknowledged writes at once and other replicas' within that bound. A read that
///   finds the counter older than [`SHARED_REFRESH_AFTER`] has it read again in the background;
///   one that finds it older than the bound reads it itself. Without this, every leaderboard read
///   waited for one more query on a database busy with ingest: at a million players the page's
///   p99 was 9.1 ms with it and 5.0-5.5 ms without it (`qiwang bench ingest` on PostgreSQL).
///   A period's close does not use it: it reads the counter ([`InFlight::exact`]).
struct Known {
    sole_writer: bool,
    periods: Mutex<HashMap<PeriodKey, KnownPeriod>>,
    serve_within: Duration,
    refresh_after: Duration,
}

/// One period's counter as known: never read (absent), or read at `read_at` (raised since by
/// this process's commits).
struct KnownPeriod {
    latest: i64,
    /// Sole writer: `latest` may miss a commit; ask the database.
    stale: bool,
    /// Shared: when the counter was last read (its query's start).
    read_at: Option<Instant>,
    /// Shared: a background read is under way.
    refreshing: bool,
}

impl Known {
    /// Reads the period's counter from the database and keeps it (never lowering what is known).
    async fn read(&self, db: &DatabaseConnection, key: &PeriodKey) -> Result<i64> {
        let started = Instant::now();
        let seq = current_seq(db, key).await?;
        let mut periods = lock(&self.periods);
        let known = periods.entry(key.clone()).or_insert(KnownPeriod {
            latest: seq,
            stale: false,
            read_at: None,
            refreshing: false,
        });
        known.latest = known.latest.max(seq);
        known.read_at = known.read_at.max(Some(started));
        Ok(known.latest)
    }

    fn mark_stale(&self, key: &PeriodKey) {
        if let Some(known) = lock(&self.periods).get_mut(key) {
            known.stale = true;
        }
    }

    fn raise(&self, key: &PeriodKey, seq: i64) {
        if let Some(known) = lock(&self.periods).get_mut(key) {
            known.latest = known.latest.max(seq);
        }
    }
}

/// Holds one value in [`InFlight`] until dropped.
pub(super) struct InFlightValue {
    set: InFlight,
    key: PeriodKey,
    seq: i64,
    committed: bool,
}

impl InFlightValue {
    /// The transaction that took the value has committed.
    pub(super) fn committed(&mut self) {
        self.set.known.raise(&self.key, self.seq);
        self.committed = true;
    }
}

impl Drop for InFlightValue {
    fn drop(&mut self) {
        if !self.committed {
            // Given up, or dropped during the commit: whether it committed is not known here.
            // (A replica sharing the database reads the counter again within its bound anyway.)
            self.set.known.mark_stale(&self.key);
        }
        lock(&self.set.values).remove(&(std::mem::take(&mut self.key), self.seq));
    }
}

impl InFlight {
    /// `sole_writer`: no other process writes this database (see [`Known`]).
    pub(super) fn new(sole_writer: bool) -> InFlight {
        InFlight::with_bounds(sole_writer, SHARED_SERVE_WITHIN, SHARED_REFRESH_AFTER)
    }

    fn with_bounds(sole_writer: bool, serve_within: Duration, refresh_after: Duration) -> InFlight {
        InFlight {
            values: Arc::default(),
            known: Arc::new(Known {
                sole_writer,
                periods: Mutex::default(),
                serve_within,
                refresh_after,
            }),
        }
    }

    pub(super) fn take(&self, key: &PeriodKey, seq: i64) -> InFlightValue {
        lock(&self.values).insert((key.clone(), seq));
        InFlightValue {
            set: self.clone(),
            key: key.clone(),
            seq,
            committed: false,
        }
    }

    fn holds(&self, key: &PeriodKey, seq: i64) -> bool {
        lock(&self.values).contains(&(key.clone(), seq))
    }

    /// Whether every value of the period in `after < value <= upto` is this process's write in
    /// progress.
    fn covers(&self, key: &PeriodKey, after: i64, upto: i64) -> bool {
        if upto <= after {
            return true;
        }
        // Values are distinct: all are there when as many are in the range as it spans.
        let span = (key.clone(), after + 1)..=(key.clone(), upto);
        upto - after <= 64
            && lock(&self.values).range(span).count() == usize::try_from(upto - after).unwrap_or(0)
    }

    /// The period's latest committed change sequence value for a leaderboard read (see
    /// [`Known`]).
    async fn current(&self, db: &DatabaseConnection, key: &PeriodKey) -> Result<i64> {
        let known = &self.known;
        if known.sole_writer {
            return self.exact(db, key).await;
        }
        let (age, latest, refresh) = {
            let mut periods = lock(&known.periods);
            match periods.get_mut(key) {
                Some(k) => {
                    let age = k.read_at.map(|at| at.elapsed());
                    let refresh = age
                        .is_some_and(|a| a > known.refresh_after && a <= known.serve_within)
                        && !std::mem::replace(&mut k.refreshing, true);
                    (age, k.latest, refresh)
                }
                None => (None, 0, false),
            }
        };
        match age {
            Some(age) if age <= known.refresh_after => Ok(latest),
            Some(age) if age <= known.serve_within => {
                if refresh {
                    let (known, db, key) = (known.clone(), db.clone(), key.clone());
                    tokio::spawn(async move {
                        if let Err(error) = known.read(&db, &key).await {
                            tracing::warn!(%error, "reading a period's change counter in the background");
                        }
                        if let Some(k) = lock(&known.periods).get_mut(&key) {
                            k.refreshing = false;
                        }
                    });
                }
                Ok(latest)
            }
            _ => known.read(db, key).await,
        }
    }

    /// The period's latest committed change sequence value, exactly: from memory when this
    /// process is the only writer and the value is known, otherwise from the database.
    async fn exact(&self, db: &DatabaseConnection, key: &PeriodKey) -> Result<i64> {
        let known = &self.known;
        if known.sole_writer {
            let mut periods = lock(&known.periods);
            if let Some(k) = periods.get_mut(key) {
                if !k.stale {
                    return Ok(k.latest);
                }
                // Cleared before reading: a write that goes stale meanwhile marks it again.
                k.stale = false;
            }
        }
        match known.read(db, key).await {
            Ok(seq) => Ok(seq),
            Err(e) => {
                known.mark_stale(key);
                Err(e)
            }
        }
    }
}

/// Takes the period's next change sequence value inside `txn` if the period is open (its row
/// stays locked until the transaction ends: a period's writes are serialized, on every replica);
/// `None` when it is not open.
pub(super) async fn next_seq<C: ConnectionTrait>(txn: &C, key: &PeriodKey) -> Result<Option<i64>> {
    take_seq(txn, key, true).await
}

/// Takes the next change sequence value of every period of the championship that has a row, in
/// key order (so it never deadlocks with an ingest taking several), for a write that concerns
/// them all (a cheating verdict).
pub(super) async fn next_seqs<C: ConnectionTrait>(
    txn: &C,
    championship: &str,
) -> Result<Vec<(PeriodKey, i64)>> {
    let mut keys: Vec<PeriodKey> = period::Entity::find()
        .filter(period::Column::ChampionshipId.eq(championship))
        .all(txn)
        .await?
        .into_iter()
        .map(|p| {
            (
                p.championship_id,
                p.stage,
                u32::try_from(p.period).unwrap_or(0),
            )
        })
        .collect();
    keys.sort();
    let mut taken = Vec::with_capacity(keys.len());
    for key in keys {
        if let Some(seq) = take_seq(txn, &key, false).await? {
            taken.push((key, seq));
        }
    }
    Ok(taken)
}

/// Raises the period's sequence by one (only while it is open, if asked) and returns the new
/// value; `None` when no row was raised.
async fn take_seq<C: ConnectionTrait>(
    txn: &C,
    key: &PeriodKey,
    only_open: bool,
) -> Result<Option<i64>> {
    let open = if only_open {
        " AND open AND NOT closed"
    } else {
        ""
    };
    let sql =
        format!("UPDATE qualification_periods SET seq = seq + 1 WHERE {{key}}{open} RETURNING seq");
    period_seq(txn, &sql, key).await
}

/// The period's latest committed change sequence value (0 for a period without a row).
async fn current_seq(db: &DatabaseConnection, key: &PeriodKey) -> Result<i64> {
    let sql = "SELECT seq FROM qualification_periods WHERE {key}";
    Ok(period_seq(db, sql, key).await?.unwrap_or(0))
}

/// The sequence value `sql` answers, its `{key}` the condition naming the period's row.
async fn period_seq<C: ConnectionTrait>(db: &C, sql: &str, key: &PeriodKey) -> Result<Option<i64>> {
    let backend = db.get_database_backend();
    let condition = match backend {
        DbBackend::Postgres => "championship_id = $1 AND stage = $2 AND period = $3",
        _ => "championship_id = ? AND stage = ? AND period = ?",
    };
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql.replace("{key}", condition),
            [
                key.0.clone().into(),
                key.1.clone().into(),
                (key.2 as i32).into(),
            ],
        ))
        .await?;
    Ok(row.map(|r| r.try_get_by_index::<i64>(0)).transpose()?)
}

/// The rows of the period's checkpoint.
fn checkpoint_of(key: &PeriodKey) -> sea_orm::Condition {
    sea_orm::Condition::all()
        .add(checkpoint::Column::ChampionshipId.eq(&key.0))
        .add(checkpoint::Column::Stage.eq(&key.1))
        .add(checkpoint::Column::Period.eq(key.2 as i32))
}

/// The sequence value and time of the period's stored checkpoint of this build, if any.
async fn stored_checkpoint<C: ConnectionTrait>(
    db: &C,
    key: &PeriodKey,
) -> Result<Option<(i64, chrono::DateTime<chrono::Utc>)>> {
    Ok(checkpoint::Entity::find()
        .select_only()
        .column(checkpoint::Column::Seq)
        .column(checkpoint::Column::TakenAt)
        .filter(checkpoint_of(key))
        .filter(checkpoint::Column::Part.eq(0))
        .filter(checkpoint::Column::Format.eq(checkpoint_format()))
        .into_tuple::<(i64, chrono::DateTime<chrono::Utc>)>()
        .one(db)
        .await?)
}

/// A stored game in the core's terms.
pub(super) fn period_game(row: &game::Model) -> Result<PeriodGame> {
    let report = pb::GameReport::decode(row.report.as_slice()).map_err(|e| {
        QualificationError::Preset(
            row.championship_id.clone(),
            format!("stored report {}: {e}", row.game_id),
        )
    })?;
    // Stored reports passed these checks on the way in.
    let facts = game_facts(&report)?;
    Ok(PeriodGame {
        id: format!("{}:{}", row.platform, row.game_id),
        first_player: row.first_player.clone(),
        second_player: row.second_player.clone(),
        facts,
    })
}

impl QualificationApi {
    fn live_slot(&self, key: &PeriodKey) -> LiveSlot {
        lock(&self.live).entry(key.clone()).or_default().clone()
    }

    /// The period's online rules and days.
    fn period_rules(preset: &Preset, key: &PeriodKey) -> Result<(OnlineRules, PeriodDays)> {
        let stage = preset.stage(&key.1).ok_or_else(|| {
            invalid(
                "period.stage",
                format!("{:?} is not a stage of this championship", key.1),
            )
        })?;
        let rules = stage
            .online
            .ok_or_else(|| invalid("period.stage", "is not an online stage"))?;
        let period = stage.period(key.2).ok_or_else(|| {
            invalid(
                "period.period",
                format!("{} has no period {}", stage.code, key.2),
            )
        })?;
        Ok((
            rules,
            PeriodDays {
                first_day: period.opens_on,
                last_day: period.closes_on,
            },
        ))
    }

    /// The period, current as of the change counter now (as `fresh` asks), locked for the caller.
    ///
    /// A period that must be caught up or rebuilt is brought current by a task of its own, which
    /// holds the period until it is done: a caller that gives up (a client deadline) never throws
    /// the work away, and the next read finds it done or under way. A leaderboard read waits for
    /// that at most [`READ_PATIENCE`], then answers `UNAVAILABLE` with a retry hint; a close waits.
    pub(super) async fn live(
        &self,
        caller: &Caller,
        key: &PeriodKey,
        fresh: Freshness,
    ) -> Result<(tokio::sync::OwnedMutexGuard<Option<LiveState>>, OnlineRules)> {
        let preset = self.preset(caller, &key.0).await?;
        let (rules, days) = Self::period_rules(&preset, key)?;
        // The counter is read before the lock is taken, so a reader holds the period only while it
        // applies what is newer (usually nothing: ingest applies its own commits) and reads its page.
        // A state at or past the counter as it was when the request arrived is current for it.
        let now = match fresh {
            Freshness::Leaderboard(_) => self.in_flight.current(&self.db, key).await?,
            Freshness::Exact => self.in_flight.exact(&self.db, key).await?,
        };
        let give_up_at = match fresh {
            Freshness::Leaderboard(patience) => Some(tokio::time::Instant::now() + patience),
            Freshness::Exact => None,
        };
        let warming = || QualificationError::Warming {
            what: format!("the leaderboard of {} period {}", key.1, key.2),
            retry_after: RETRY_AFTER,
        };
        let slot = self.live_slot(key);
        loop {
            let guard = match give_up_at {
                Some(at) => tokio::time::timeout_at(at, slot.clone().lock_owned())
                    .await
                    .map_err(|_| warming())?,
                None => slot.clone().lock_owned().await,
            };
            let current = match guard.as_ref() {
                // Partly applied by an ingest that is gone (it failed midway): recompute.
                Some(state)
                    if state
                        .applying
                        .is_some_and(|s| !self.in_flight.holds(key, s)) =>
                {
                    false
                }
                // Partly applied, and something else to catch up on: let the slices finish first.
                Some(state)
                    if state.applying.is_some_and(|s| self.in_flight.holds(key, s))
                        && !self.in_flight.covers(key, state.seq, now) =>
                {
                    drop(guard);
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                    continue;
                }
                Some(state) if state.seq >= now => true,
                // Newer only by this process's own writes in progress: they are applied (and then
                // acknowledged) by their ingest, which would wait for this lock; serving without
                // them is serving before they complete.
                Some(state) => self.in_flight.covers(key, state.seq, now),
                None => false,
            };
            if current {
                return Ok((guard, rules));
            }
            let (api, period) = (self.clone(), key.clone());
            let bring = tokio::spawn(async move {
                let mut guard = guard;
                let state = guard.take();
                *guard = Some(api.bring_current(&period, state, now, rules, days).await?);
                Ok::<(), QualificationError>(())
            });
            match give_up_at {
                Some(at) => tokio::time::timeout_at(at, bring)
                    .await
                    .map_err(|_| warming())???,
                None => bring.await??,
            }
        }
    }

    /// `state` caught up to `now`, or the period recomputed when it cannot be.
    async fn bring_current(
        &self,
        key: &PeriodKey,
        state: Option<LiveState>,
        now: i64,
        rules: OnlineRules,
        days: PeriodDays,
    ) -> Result<LiveState> {
        // After a restart: the latest checkpoint, then only the tail stored after it.
        let state = match state {
            Some(state) => Some(state),
            None => self.load_checkpoint(key, rules, days).await?,
        };
        if let Some(state) = state
            && state.applying.is_none_or(|s| self.in_flight.holds(key, s))
            && let Some(state) = self.catch_up(key, state, now).await?
        {
            return Ok(state);
        }
        self.rebuild(key, rules, days).await
    }

    /// Applies the items stored after `state.seq` up to `now`; `None` when the period must be
    /// recomputed instead.
    async fn catch_up(
        &self,
        key: &PeriodKey,
        mut state: LiveState,
        now: i64,
    ) -> Result<Option<LiveState>> {
        // A verdict removes the cheater's row and changes nothing else, in any order and as often
        // as applied (R-ONL-8): every verdict of the championship is applied again. (A verdict
        // takes a value of every period's sequence, so a period it concerns is caught up.)
        let verdicts = cancellation::Entity::find()
            .filter(cancellation::Column::ChampionshipId.eq(&key.0))
            .all(&self.db)
            .await?;
        for verdict in verdicts {
            state.period.cancel_results(&verdict.player_id);
        }
        let resets = reset::Entity::find()
            .filter(reset::Column::ChampionshipId.eq(&key.0))
            .filter(reset::Column::Stage.eq(&key.1))
            .filter(reset::Column::Period.eq(key.2 as i32))
            .filter(reset::Column::Seq.gt(state.seq))
            .filter(reset::Column::Seq.lte(now))
            .order_by_asc(reset::Column::At)
            .all(&self.db)
            .await?;
        for r in resets {
            let applied = state.period.apply_reset(&ResetRequest {
                player: r.player_id,
                at: r.at,
            });
            if matches!(applied, ResetApplied::NeedsRebuild(_)) {
                return Ok(None);
            }
        }
        // The tail after a checkpoint can be many pages: each applied off the runtime's workers.
        let mut pages = GamePages::new(state.seq, now);
        while let Some(mut games) = self.next_games(key, &mut pages).await? {
            games.sort_by(|a, b| (a.facts.ended_at, &a.id).cmp(&(b.facts.ended_at, &b.id)));
            let (back, exact) = tokio::task::spawn_blocking(move || {
                let exact = games
                    .iter()
                    .all(|g| !matches!(state.period.apply_game(g), Applied::NeedsRebuild(_)));
                (state, exact)
            })
            .await?;
            if !exact {
                return Ok(None);
            }
            state = back;
        }
        state.seq = now;
        Ok(Some(state))
    }

    /// The next page of the period's games in `pages`, decoded; `None` after the last.
    ///
    /// Pages follow the (championship, stage, period, seq) index, each one range of it read
    /// without a sort, each row dropped once decoded. (Pages ordered by (seq, platform, game id)
    /// made every page scan and sort all later rows: quadratic, 73 s for a million games on
    /// PostgreSQL.) A page ends before its last change, whose rows come whole with the next page.
    async fn next_games(
        &self,
        key: &PeriodKey,
        pages: &mut GamePages,
    ) -> Result<Option<Vec<PeriodGame>>> {
        if pages.done {
            return Ok(None);
        }
        let period_rows = || {
            game::Entity::find()
                .filter(game::Column::ChampionshipId.eq(&key.0))
                .filter(game::Column::Stage.eq(&key.1))
                .filter(game::Column::Period.eq(key.2 as i32))
        };
        let mut rows = period_rows()
            .filter(game::Column::Seq.gt(pages.after))
            .filter(game::Column::Seq.lte(pages.upto))
            .order_by_asc(game::Column::Seq)
            .limit(REBUILD_PAGE as u64)
            .all(&self.db)
            .await?;
        let full = rows.len() == REBUILD_PAGE;
        match (rows.first().map(|r| r.seq), rows.last().map(|r| r.seq)) {
            (Some(first), Some(last)) if full && first == last => {
                // One change of a page or more (never, with groups of 2,000): read it whole.
                rows = period_rows()
                    .filter(game::Column::Seq.eq(last))
                    .all(&self.db)
                    .await?;
                pages.after = last;
            }
            (_, Some(last)) if full => {
                rows.retain(|r| r.seq < last);
                pages.after = last - 1;
            }
            _ => pages.done = true,
        }
        // Decoding is CPU work: off the runtime's workers, which serve reads meanwhile.
        let decoded = tokio::task::spawn_blocking(move || {
            rows.iter().map(period_game).collect::<Result<Vec<_>>>()
        })
        .await??;
        Ok(Some(decoded))
    }

    /// Recomputes the period from the database: every stored item applied to an empty period,
    /// page by page, holding nothing but the period; when an item cannot be applied in place
    /// (rare: see `qiwang_core::live`), from all of them at once ([`QualificationApi::recompute`]).
    async fn rebuild(
        &self,
        key: &PeriodKey,
        rules: OnlineRules,
        days: PeriodDays,
    ) -> Result<LiveState> {
        // Read the counter first and load only what it covers: whatever commits later is fetched
        // by the next catch-up, exactly once.
        let seq = current_seq(&self.db, key).await?;
        let started = std::time::Instant::now();
        let mut period = LivePeriod::new(rules, days, DEFAULT_TIE_BREAKS.to_vec());
        period.reserve_players(self.entrants_known(&key.0));
        let empty = LiveState {
            period,
            seq: i64::MIN,
            applying: None,
            checkpointed: 0,
        };
        let state = match self.catch_up(key, empty, seq).await? {
            Some(state) => state,
            None => self.recompute(key, rules, days, seq).await?,
        };
        self.metrics.gauge(
            "qiwang_leaderboard_rebuild_seconds",
            started.elapsed().as_secs_f64(),
        );
        tracing::info!(championship = %key.0, stage = %key.1, period = key.2, games = state.period.games_applied(), seconds = started.elapsed().as_secs_f64(), "live period rebuilt");
        Ok(state)
    }

    /// The period computed from every item stored up to `seq` at once (`compute_period`, then the
    /// live index).
    async fn recompute(
        &self,
        key: &PeriodKey,
        rules: OnlineRules,
        days: PeriodDays,
        seq: i64,
    ) -> Result<LiveState> {
        let mut games = Vec::new();
        let mut pages = GamePages::new(i64::MIN, seq);
        while let Some(page) = self.next_games(key, &mut pages).await? {
            // `compute_period` orders the games itself.
            games.extend(page);
        }
        let resets: Vec<ResetRequest> = reset::Entity::find()
            .filter(reset::Column::ChampionshipId.eq(&key.0))
            .filter(reset::Column::Stage.eq(&key.1))
            .filter(reset::Column::Period.eq(key.2 as i32))
            .filter(reset::Column::Seq.lte(seq))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|r| ResetRequest {
                player: r.player_id,
                at: r.at,
            })
            .collect();
        let cheaters: Vec<String> = cancellation::Entity::find()
            .filter(cancellation::Column::ChampionshipId.eq(&key.0))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|c| c.player_id)
            .collect();
        let entrants = self.entrants_known(&key.0);
        let period = tokio::task::spawn_blocking(move || {
            let mut period = LivePeriod::compute(
                rules,
                days,
                DEFAULT_TIE_BREAKS.to_vec(),
                &games,
                &resets,
                &cheaters,
            );
            period.reserve_players(entrants);
            period
        })
        .await?;
        Ok(LiveState {
            period,
            seq,
            applying: None,
            checkpointed: 0,
        })
    }

    /// The period's latest checkpoint, restored; `None` when there is none, or none this build
    /// can read under the period's rules (then the period is recomputed: a checkpoint is derived
    /// data, never a reason to fail a read).
    async fn load_checkpoint(
        &self,
        key: &PeriodKey,
        rules: OnlineRules,
        days: PeriodDays,
    ) -> Result<Option<LiveState>> {
        let started = std::time::Instant::now();
        let parts = checkpoint::Entity::find()
            .filter(checkpoint_of(key))
            .order_by_asc(checkpoint::Column::Part)
            .all(&self.db)
            .await?;
        let Some(seq) = parts.first().map(|p| p.seq) else {
            return Ok(None);
        };
        let format = checkpoint_format();
        let whole = parts
            .iter()
            .zip(0..)
            .all(|(p, n)| p.part == n && p.seq == seq && p.format == format);
        if !whole {
            tracing::warn!(championship = %key.0, stage = %key.1, period = key.2, "a checkpoint of another build or a torn one: recomputing the period");
            return Ok(None);
        }
        let restored = tokio::task::spawn_blocking(move || {
            let mut body = Vec::with_capacity(parts.iter().map(|p| p.body.len()).sum());
            for part in parts {
                body.extend_from_slice(&part.body);
            }
            LivePeriod::restore(rules, days, DEFAULT_TIE_BREAKS.to_vec(), body)
        })
        .await?;
        match restored {
            Ok(period) => {
                tracing::info!(championship = %key.0, stage = %key.1, period = key.2, seq, seconds = started.elapsed().as_secs_f64(), "live period restored from its checkpoint");
                Ok(Some(LiveState {
                    period,
                    seq,
                    applying: None,
                    checkpointed: seq,
                }))
            }
            Err(error) => {
                tracing::warn!(championship = %key.0, stage = %key.1, period = key.2, %error, "recomputing the period instead of restoring its checkpoint");
                Ok(None)
            }
        }
    }

    /// Writes the period's checkpoint when its board moved since the last one this process knows
    /// of and no checkpoint at least as new, or one taken less than `recent` ago (another
    /// replica's), is stored; returns whether it wrote one. The board is encoded while readers
    /// wait for it (a national period takes a fraction of a second, see `docs/performance.md`),
    /// then stored without it, in one transaction that replaces the previous checkpoint.
    pub(crate) async fn checkpoint(&self, key: &PeriodKey, recent: Duration) -> Result<bool> {
        let Some(slot) = lock(&self.live).get(key).cloned() else {
            return Ok(false);
        };
        let format = checkpoint_format();
        let covered = |found: Option<(i64, chrono::DateTime<chrono::Utc>)>, seq: i64| {
            found.is_some_and(|(stored, at)| {
                stored >= seq
                    || chrono::Utc::now()
                        .signed_duration_since(at)
                        .to_std()
                        .is_ok_and(|age| age < recent)
            })
        };
        let seq = match slot.lock().await.as_ref() {
            Some(state) if state.applying.is_none() && state.seq > state.checkpointed => state.seq,
            _ => return Ok(false),
        };
        if covered(stored_checkpoint(&self.db, key).await?, seq) {
            return Ok(false);
        }
        let guard = slot.clone().lock_owned().await;
        // Encoded off the runtime's workers; the period is released as soon as it is encoded.
        let encoded = tokio::task::spawn_blocking(move || {
            guard
                .as_ref()
                .filter(|s| s.applying.is_none())
                .map(|s| (s.seq, s.period.checkpoint()))
        })
        .await?;
        let Some((seq, bytes)) = encoded else {
            return Ok(false);
        };
        let started = std::time::Instant::now();
        // On the embedded database, this process's ingest waits in its queue rather than in
        // SQLite's busy loop.
        let _queued = match self.db.get_database_backend() {
            DbBackend::Sqlite => Some(self.ingest_write.clone().lock_owned().await),
            _ => None,
        };
        let txn = self.db.begin().await?;
        let written = !covered(stored_checkpoint(&txn, key).await?, seq);
        if written {
            checkpoint::Entity::delete_many()
                .filter(checkpoint_of(key))
                .exec(&txn)
                .await?;
            let taken_at = chrono::Utc::now();
            for (part, body) in (0..).zip(bytes.chunks(CHECKPOINT_PART)) {
                checkpoint::Entity::insert(checkpoint::ActiveModel {
                    championship_id: Set(key.0.clone()),
                    stage: Set(key.1.clone()),
                    period: Set(key.2 as i32),
                    part: Set(part),
                    seq: Set(seq),
                    taken_at: Set(taken_at),
                    format: Set(format.clone()),
                    body: Set(body.to_vec()),
                })
                .exec(&txn)
                .await?;
            }
        }
        txn.commit().await?;
        if !written {
            return Ok(false);
        }
        if let Some(state) = slot.lock().await.as_mut() {
            state.checkpointed = state.checkpointed.max(seq);
        }
        self.metrics.gauge(
            "qiwang_leaderboard_checkpoint_seconds",
            started.elapsed().as_secs_f64(),
        );
        tracing::info!(championship = %key.0, stage = %key.1, period = key.2, seq, bytes = bytes.len(), seconds = started.elapsed().as_secs_f64(), "live period checkpointed");
        Ok(true)
    }

    /// Checkpoints every period this process serves whose board moved since its last checkpoint,
    /// unless a checkpoint was stored less than `recent` ago (by another replica).
    pub async fn checkpoint_all(&self, recent: Duration) {
        let keys: Vec<PeriodKey> = lock(&self.live).keys().cloned().collect();
        for key in keys {
            if let Err(error) = self.checkpoint(&key, recent).await {
                tracing::warn!(championship = %key.0, stage = %key.1, period = key.2, %error, "checkpointing a live period failed; the next try or a restart recomputes");
            }
        }
    }

    /// Checkpoints the boards that moved every `every` (see [`QualificationApi::checkpoint_all`];
    /// replicas serving the same period write about one checkpoint per `every` between them)
    /// until the process shuts down; the last checkpoint is the caller's, after the server has
    /// stopped taking games.
    pub async fn keep_checkpoints(self, every: Duration) {
        let mut shutdown = self.shutdown.clone();
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = tick.tick() => self.checkpoint_all(every / 2).await,
                () = async {
                    let _ = shutdown.wait_for(|stop| *stop).await;
                } => return,
            }
        }
    }

    /// The championship's online entrants this replica has loaded (see `preload_entrants`): the
    /// players its live periods make room for ([`LivePeriod::reserve_players`]), so that a period
    /// filling up with a national qualifier's players never stops a reader while its tables double.
    /// Before the load is done, fewer (or none): a period then grows as before, and makes room as
    /// soon as the next commit finds more entrants known.
    fn entrants_known(&self, championship: &str) -> usize {
        lock(&self.entered)
            .get(championship)
            .map_or(0, HashSet::len)
    }

    /// After a commit that took each period's sequence value in `seqs`: applies this process's own
    /// games to the periods it holds when nothing else was committed to them in between; otherwise
    /// the next read catches up.
    pub(super) async fn apply_committed(
        &self,
        seqs: &HashMap<PeriodKey, i64>,
        games: Vec<(PeriodKey, PeriodGame)>,
    ) {
        let mut by_period: HashMap<PeriodKey, Vec<PeriodGame>> = HashMap::new();
        for (key, g) in games {
            by_period.entry(key).or_default().push(g);
        }
        // In period order, sorted before any period is locked.
        for games in by_period.values_mut() {
            games.sort_by(|a, b| (a.facts.ended_at, &a.id).cmp(&(b.facts.ended_at, &b.id)));
        }
        let held: Vec<(PeriodKey, LiveSlot)> = lock(&self.live)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (key, slot) in held {
            let Some(&seq) = seqs.get(&key) else {
                continue;
            };
            let entrants = self.entrants_known(&key.0);
            // Readers hold a period only while they read a page, so waiting is short; but never wait
            // long for one (a recomputation can take seconds): a period still busy after that
            // catches up from the database on its next read instead.
            let Ok(mut guard) =
                tokio::time::timeout(std::time::Duration::from_millis(50), slot.lock()).await
            else {
                continue;
            };
            if !guard
                .as_ref()
                .is_some_and(|state| state.seq == seq - 1 && state.applying.is_none())
            {
                continue;
            }
            if let Some(state) = guard.as_mut() {
                state.period.reserve_players(entrants);
            }
            let mut ok = true;
            let mut eliminated = Vec::new();
            let games = by_period.get(&key).map_or(&[][..], Vec::as_slice);
            let mut slices = games.chunks(APPLY_SLICE).peekable();
            while let Some(slice) = slices.next() {
                let Some(state) = guard.as_mut() else {
                    ok = false;
                    break;
                };
                for g in slice {
                    // Applied in place, a game eliminates only a side it charges an escape, and
                    // only by itself (a move of an elimination needs a rebuild), so asking that
                    // side is the same as asking every side before and after.
                    match state.period.apply_game(g) {
                        Applied::NeedsRebuild(_) => {
                            ok = false;
                            break;
                        }
                        Applied::Counted(outcome) => {
                            for (p, side) in [
                                (&g.first_player, Side::First),
                                (&g.second_player, Side::Second),
                            ] {
                                if outcome.side(side).result == CountedResult::Escape
                                    && state.period.eliminated_by(p, &g.id)
                                {
                                    eliminated.push(p.clone());
                                }
                            }
                        }
                        Applied::NotCounted(_) => {}
                    }
                }
                if !ok || slices.peek().is_none() {
                    break;
                }
                // Let readers in between slices; the state says a write is being applied. Yield
                // too: this runs on the request runtime, whose other tasks should not wait for
                // all the slices.
                state.applying = Some(seq);
                drop(guard);
                tokio::task::yield_now().await;
                guard = slot.lock().await;
            }
            if ok && let Some(state) = guard.as_mut() {
                state.seq = seq;
                state.applying = None;
                for player in eliminated {
                    let _ = self.changes.send((
                        key.0.clone(),
                        pb::Change {
                            kind: Some(pb::change::Kind::Eliminated(pb::PlayerEliminated {
                                player_id: player,
                                reason: "eliminated by escapes (R-ONL-3)".into(),
                            })),
                            at: Some(period_ref(&key)),
                        },
                    ));
                }
            } else {
                // Partly applied: drop it; the next read recomputes.
                *guard = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sea_orm::{ConnectionTrait, Database};

    fn key(period: u32) -> PeriodKey {
        ("ch".to_owned(), "haixuan".to_owned(), period)
    }

    async fn periods_db(value: i64) -> DatabaseConnection {
        let db = Database::connect("sqlite::memory:").await.expect("sqlite");
        for sql in [
            "CREATE TABLE qualification_periods (championship_id TEXT, stage TEXT, period INTEGER, \
             open BOOLEAN, closed BOOLEAN, seq BIGINT NOT NULL DEFAULT 0)"
                .to_owned(),
            format!("INSERT INTO qualification_periods VALUES ('ch', 'haixuan', 1, 1, 0, {value})"),
            "INSERT INTO qualification_periods VALUES ('ch', 'haixuan', 2, 1, 0, 100)".to_owned(),
        ] {
            db.execute_unprepared(&sql).await.expect("setup");
        }
        db
    }

    async fn set(db: &DatabaseConnection, value: i64) {
        db.execute_unprepared(&format!(
            "UPDATE qualification_periods SET seq = {value} WHERE period = 1"
        ))
        .await
        .expect("update");
    }

    #[tokio::test]
    async fn a_sole_writer_knows_its_committed_changes_and_asks_again_when_unsure() {
        let db = periods_db(5).await;
        let sole = InFlight::new(true);
        let p1 = key(1);
        assert_eq!(
            sole.current(&db, &p1).await.expect("read"),
            5,
            "first read asks"
        );
        assert_eq!(
            sole.current(&db, &key(2)).await.expect("read"),
            100,
            "per period"
        );
        assert_eq!(
            sole.current(&db, &key(3)).await.expect("read"),
            0,
            "no row yet"
        );
        // Nothing else writes: what the database holds behind its back is not looked at.
        set(&db, 9).await;
        assert_eq!(sole.current(&db, &p1).await.expect("read"), 5);
        // Its own commit is known at once.
        let mut ten = sole.take(&p1, 10);
        assert!(sole.covers(&p1, 9, 10) && !sole.covers(&p1, 8, 10));
        assert!(
            !sole.covers(&key(2), 9, 10),
            "another period's values are its own"
        );
        ten.committed();
        assert_eq!(sole.current(&db, &p1).await.expect("read"), 10);
        drop(ten);
        assert!(!sole.holds(&p1, 10));
        // A write that ends without knowing whether it committed: the next read asks.
        set(&db, 11).await;
        drop(sole.take(&p1, 11));
        assert_eq!(sole.current(&db, &p1).await.expect("read"), 11);
        set(&db, 12).await;
        assert_eq!(sole.current(&db, &p1).await.expect("read"), 11);
        // The close reads exactly what a sole writer knows.
        assert_eq!(sole.exact(&db, &p1).await.expect("read"), 11);
    }

    #[tokio::test]
    async fn a_replica_serves_a_recent_counter_with_its_own_commits_and_the_close_reads_it() {
        let db = periods_db(5).await;
        let p1 = key(1);
        let hour = Duration::from_secs(3600);
        // Within its bound: the counter read first, raised by this replica's own commits.
        let replica = InFlight::with_bounds(false, hour, hour);
        assert_eq!(
            replica.current(&db, &p1).await.expect("read"),
            5,
            "first read asks"
        );
        set(&db, 9).await;
        assert_eq!(replica.current(&db, &p1).await.expect("read"), 5);
        let mut ten = replica.take(&p1, 10);
        ten.committed();
        assert_eq!(replica.current(&db, &p1).await.expect("read"), 10);
        // Another replica commits 11 and 12: a close sees them at once, and so does every read
        // after it (what is known never goes back).
        set(&db, 12).await;
        assert_eq!(replica.exact(&db, &p1).await.expect("read"), 12);
        assert_eq!(replica.current(&db, &p1).await.expect("read"), 12);
        // A bound of zero: every read asks.
        let strict = InFlight::with_bounds(false, Duration::ZERO, Duration::ZERO);
        assert_eq!(strict.current(&db, &p1).await.expect("read"), 12);
        set(&db, 13).await;
        assert_eq!(strict.current(&db, &p1).await.expect("read"), 13);
        // Older than the refresh age: served as known while it is read again in the background.
        let refreshing = InFlight::with_bounds(false, hour, Duration::ZERO);
        assert_eq!(refreshing.current(&db, &p1).await.expect("read"), 13);
        set(&db, 14).await;
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(refreshing.current(&db, &p1).await.expect("read"), 13);
        let mut seen = 13;
        for _ in 0..1000 {
            seen = refreshing.current(&db, &p1).await.expect("read");
            if seen == 14 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(seen, 14, "the background read brings the new value");
    }
}
