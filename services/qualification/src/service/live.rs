//! Live leaderboards (实时排行榜, R-ONL-9): each period this replica serves is one task, the only
//! writer of its board ([`Board`], a `qiwang_core::live::LivePeriod`), kept exact by the period's
//! change sequence.
//!
//! - **The sequence.** Every write that changes a period's standings takes the next value of the
//!   period's own sequence (`seq` on its `qualification_periods` row; a verdict takes one of every
//!   period of its championship) inside its transaction. The row stays locked until commit, so a
//!   period's values commit in order and without holes, and other periods' writes go on beside.
//! - **The board.** It holds exactly the standings over every stored item with `seq <= state.seq`
//!   (and every verdict of its championship). Its inbox takes this process's committed games
//!   ([`Notice::Applied`], applied in slices of [`APPLY_SLICE`] with the inbox read between
//!   them), other writes ([`Notice::Moved`]: fetched from the database), reads (closures run on
//!   the board) and checkpoints. Values it has not been given (another replica's, or a notice
//!   that never came) it fetches from the database: at once when a read or a write waits for
//!   them, otherwise after [`GAP_WAIT`].
//! - **Acknowledgements.** A write is acknowledged once its board has applied it, so a read after
//!   an acknowledgement sees the write, and ingest goes no faster than its boards apply. (While a
//!   board fetches from the database, a start or a rebuild, its writers are acknowledged after
//!   [`APPLY_WAIT`] and the board holds reads back until it has applied them.) A read is served
//!   between slices without the writes still being applied: none of them has been acknowledged.
//! - **Replicas.** When replicas share the database (PostgreSQL), a board also reads its period's
//!   sequence every [`SHARED_POLL`] and fetches what other replicas committed.
//! - **Restarts.** A board starts from its period's latest checkpoint (`qualification_checkpoints`,
//!   written every `qualification.checkpoint_every_secs` and at a graceful shutdown), then fetches
//!   the tail; without one, from the first stored item. Until it is ready, reads answer
//!   `UNAVAILABLE` with a retry hint once their patience ([`patience`]) is spent; the board goes
//!   on whoever asked.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Duration;

use qiwang_core::live::{Applied, LivePeriod, ResetApplied};
use qiwang_core::scoring::{CountedResult, Side};
use sea_orm::{DbBackend, Statement};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

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

/// Games a board applies between two looks at its inbox: a read waits for at most this many
/// (about 0.2 ms at a million players, where the core takes 10-16 µs a game).
const APPLY_SLICE: usize = 16;

/// How often a writer waiting for its board to apply its write looks whether the board is
/// fetching from the database (a start, a rebuild): it then acknowledges at once, and the board
/// holds reads back until it has applied the write. Otherwise it waits, so ingest goes no faster
/// than its boards apply.
const APPLY_WAIT: Duration = Duration::from_millis(100);

/// How long a board waits for a notice of a sequence value it knows committed before it fetches
/// the value from the database: this process's notice may come after a later one, or after the
/// period's sequence was read (an ingest that has just committed on the bulk lane's threads, which
/// yield to requests).
const GAP_WAIT: Duration = Duration::from_millis(100);

/// How often a board whose database is shared with other replicas reads its period's sequence.
const SHARED_POLL: Duration = Duration::from_millis(50);

/// A checkpoint's rows hold parts of at most this many bytes.
const CHECKPOINT_PART: usize = 4 << 20;

/// What wrote a checkpoint: a checkpoint of another build is not read (the core's own format
/// check refuses other encodings and rules; this one other releases).
fn checkpoint_format() -> String {
    format!("qiwang {} live", env!("CARGO_PKG_VERSION"))
}

/// How long a leaderboard read waits for its board (a start from a checkpoint or a rebuild can
/// take seconds) before it answers `UNAVAILABLE` with [`RETRY_AFTER`] as its hint: what the
/// client's deadline leaves after a margin for the answer's way back, and never more than
/// [`READ_PATIENCE`].
pub(super) fn patience(client_timeout: Option<Duration>) -> Duration {
    client_timeout.map_or(READ_PATIENCE, |t| {
        t.saturating_sub(ANSWER_MARGIN).min(READ_PATIENCE)
    })
}
const READ_PATIENCE: Duration = Duration::from_secs(3);
const ANSWER_MARGIN: Duration = Duration::from_millis(200);
/// The retry hint of a read that found its board not ready.
const RETRY_AFTER: Duration = Duration::from_millis(500);

/// A board's standings and the sequence value they cover.
pub(super) struct LiveState {
    pub period: LivePeriod,
    /// Every item with a sequence value up to this one is applied.
    pub seq: i64,
    /// The sequence value of the latest checkpoint known stored of this period; 0 for none.
    pub checkpointed: i64,
}

/// How current a read must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Freshness {
    /// A leaderboard: every acknowledged write of this replica, other replicas' within about
    /// [`SHARED_POLL`] and [`GAP_WAIT`]. It waits for a board that is not ready at most this long.
    Leaderboard(Duration),
    /// Every committed write (a period's close), however long that takes.
    Exact,
}

/// A read run on the board: `None` when the board could not be brought current (logged).
type ReadFn = Box<dyn FnOnce(Option<&LivePeriod>) + Send>;

/// What a board's inbox takes.
enum Notice {
    /// This process committed these games at `seq`; `done` once they are applied.
    Applied {
        seq: i64,
        games: Vec<PeriodGame>,
        done: oneshot::Sender<()>,
    },
    /// Another write committed at `seq` (`None`: a write that may have committed; the board
    /// reads the period's sequence): fetched from the database, then `done`.
    Moved {
        seq: Option<i64>,
        done: Option<oneshot::Sender<()>>,
    },
    /// Run `read` once every value up to `need` is applied.
    Read { need: i64, read: ReadFn },
    /// The period's sequence as read from the database (replicas).
    Seen(i64),
    /// Write a checkpoint unless one as new, or one taken less than `recent` ago, is stored.
    Checkpoint {
        recent: Duration,
        done: oneshot::Sender<Result<bool>>,
    },
    /// A checkpoint of `seq` was stored.
    Checkpointed(i64),
}

/// What waits for a board to reach a sequence value.
enum Waiter {
    Read(ReadFn),
    Done(oneshot::Sender<()>),
}

impl Waiter {
    fn answer(self, period: Option<&LivePeriod>) {
        match self {
            Waiter::Read(read) => read(period),
            Waiter::Done(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// The handle of a period's board: the inbox of the task that owns it.
#[derive(Clone)]
pub(super) struct Board {
    inbox: mpsc::UnboundedSender<Notice>,
    /// The highest sequence value acknowledged before the board applied it (see [`APPLY_WAIT`]):
    /// reads wait until the board has.
    acked: Arc<AtomicI64>,
    /// The board is fetching from the database.
    fetching: Arc<AtomicBool>,
}

impl Board {
    /// Waits for the board to apply `seq`, unless it is fetching from the database meanwhile;
    /// afterwards, reads on this board see the write either way.
    async fn settle(&self, seq: i64, mut done: oneshot::Receiver<()>) {
        while tokio::time::timeout(APPLY_WAIT, &mut done).await.is_err() {
            if self.fetching.load(Ordering::SeqCst) {
                self.acked.fetch_max(seq, Ordering::SeqCst);
                return;
            }
        }
    }
}

/// A write being applied slice by slice.
struct Applying {
    seq: i64,
    games: Vec<PeriodGame>,
    next: usize,
    /// Players its games eliminated so far (told to followers once it is applied).
    eliminated: Vec<String>,
}

/// The task that owns a period's board (on the request runtime).
struct Actor {
    api: QualificationApi,
    key: PeriodKey,
    rules: OnlineRules,
    days: PeriodDays,
    /// `None` until first brought current (or after a failure).
    state: Option<LiveState>,
    /// The highest sequence value known committed.
    known: i64,
    /// This process's committed games not yet applied, by sequence value.
    pending: BTreeMap<i64, Vec<PeriodGame>>,
    applying: Option<Applying>,
    /// What waits for a sequence value; `urgent` ones have the board fetch it at once.
    waiters: Vec<(i64, Waiter, bool)>,
    /// Since when the board has known of a value it was given no notice of.
    gap_since: Option<Instant>,
    checkpoint: Option<(Duration, oneshot::Sender<Result<bool>>)>,
    /// Shared with [`Board::fetching`].
    fetching: Arc<AtomicBool>,
    me: mpsc::WeakUnboundedSender<Notice>,
}

impl Actor {
    fn seq(&self) -> Option<i64> {
        self.state.as_ref().map(|s| s.seq)
    }

    async fn run(mut self, mut inbox: mpsc::UnboundedReceiver<Notice>) {
        loop {
            loop {
                match inbox.try_recv() {
                    Ok(message) => self.take(message).await,
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => return,
                }
            }
            let answered = self.answer();
            if self.applying.is_some() {
                // The readers just answered go first, then the next slice; the runtime's other
                // tasks go on between slices too.
                if !answered {
                    self.apply_slice();
                }
                tokio::task::yield_now().await;
                continue;
            }
            if self.checkpoint.is_some() {
                self.take_checkpoint().await;
                continue;
            }
            if let Some(seq) = self.seq()
                && let Some(games) = self.pending.remove(&(seq + 1))
            {
                self.start_applying(seq + 1, games);
                continue;
            }
            let behind = match self.seq() {
                Some(seq) => self.known > seq,
                None => !self.waiters.is_empty(),
            };
            if !behind {
                self.gap_since = None;
            } else {
                let since = *self.gap_since.get_or_insert_with(Instant::now);
                let seq = self.seq().unwrap_or(i64::MIN);
                let urgent = self.state.is_none()
                    || self.waiters.iter().any(|(need, _, u)| *u && *need > seq)
                    || since.elapsed() >= GAP_WAIT;
                if urgent {
                    self.bring_current().await;
                    continue;
                }
            }
            let message = match self.gap_since {
                Some(since) => tokio::select! {
                    m = inbox.recv() => m,
                    () = tokio::time::sleep_until(since + GAP_WAIT) => continue,
                },
                None => inbox.recv().await,
            };
            match message {
                Some(message) => self.take(message).await,
                None => return,
            }
        }
    }

    async fn take(&mut self, message: Notice) {
        match message {
            Notice::Applied { seq, games, done } => {
                self.known = self.known.max(seq);
                match self.seq() {
                    Some(at) if seq > at => {
                        self.pending.insert(seq, games);
                        self.waiters.push((seq, Waiter::Done(done), false));
                    }
                    // Already fetched from the database; or no board yet, which will fetch it.
                    _ => drop(done),
                }
            }
            Notice::Moved { seq, done } => {
                let seq = match seq {
                    Some(seq) => Some(seq),
                    None => current_seq(&self.api.db, &self.key)
                        .await
                        .inspect_err(|error| tracing::warn!(%error, "reading a period's sequence"))
                        .ok(),
                };
                if let Some(seq) = seq {
                    self.known = self.known.max(seq);
                    if let Some(done) = done
                        && self.seq().is_some_and(|at| seq > at)
                    {
                        self.waiters.push((seq, Waiter::Done(done), true));
                    }
                }
            }
            Notice::Read { need, read } => {
                self.known = self.known.max(need);
                self.waiters.push((need, Waiter::Read(read), true));
            }
            Notice::Seen(seq) => self.known = self.known.max(seq),
            Notice::Checkpoint { recent, done } => {
                if let Some((_, earlier)) = self.checkpoint.replace((recent, done)) {
                    let _ = earlier.send(Ok(false));
                }
            }
            Notice::Checkpointed(seq) => {
                if let Some(state) = self.state.as_mut() {
                    state.checkpointed = state.checkpointed.max(seq);
                }
            }
        }
    }

    /// Answers what waits for a value the board has reached; whether a read was answered.
    fn answer(&mut self) -> bool {
        let Some(state) = self.state.as_ref() else {
            return false;
        };
        let mut read = false;
        let mut i = 0;
        while i < self.waiters.len() {
            if self.waiters[i].0 <= state.seq {
                let (_, waiter, _) = self.waiters.swap_remove(i);
                read |= matches!(waiter, Waiter::Read(_));
                waiter.answer(Some(&state.period));
            } else {
                i += 1;
            }
        }
        read
    }

    fn start_applying(&mut self, seq: i64, mut games: Vec<PeriodGame>) {
        games.sort_by(|a, b| (a.facts.ended_at, &a.id).cmp(&(b.facts.ended_at, &b.id)));
        if let Some(state) = self.state.as_mut() {
            state
                .period
                .reserve_players(self.api.entrants_known(&self.key.0));
        }
        self.gap_since = None;
        self.applying = Some(Applying {
            seq,
            games,
            next: 0,
            eliminated: Vec::new(),
        });
    }

    fn apply_slice(&mut self) {
        let (Some(state), Some(applying)) = (self.state.as_mut(), self.applying.as_mut()) else {
            self.applying = None;
            return;
        };
        let end = (applying.next + APPLY_SLICE).min(applying.games.len());
        for g in &applying.games[applying.next..end] {
            // Applied in place, a game eliminates only a side it charges an escape, and only by
            // itself (a move of an elimination needs a rebuild), so asking that side is the same
            // as asking every side before and after.
            match state.period.apply_game(g) {
                Applied::NeedsRebuild(_) => {
                    // Partly applied: the board starts over from the database.
                    self.state = None;
                    self.applying = None;
                    self.pending.clear();
                    return;
                }
                Applied::Counted(outcome) => {
                    for (p, side) in [
                        (&g.first_player, Side::First),
                        (&g.second_player, Side::Second),
                    ] {
                        if outcome.side(side).result == CountedResult::Escape
                            && state.period.eliminated_by(p, &g.id)
                        {
                            applying.eliminated.push(p.clone());
                        }
                    }
                }
                Applied::NotCounted(_) => {}
            }
        }
        applying.next = end;
        if end < applying.games.len() {
            return;
        }
        state.seq = applying.seq;
        let key = &self.key;
        for player in std::mem::take(&mut applying.eliminated) {
            let _ = self.api.changes.send((
                key.0.clone(),
                pb::Change {
                    kind: Some(pb::change::Kind::Eliminated(pb::PlayerEliminated {
                        player_id: player,
                        reason: "eliminated by escapes (R-ONL-3)".into(),
                    })),
                    at: Some(period_ref(key)),
                },
            ));
        }
        self.applying = None;
    }

    /// Fetches from the database what the board was given no notice of: up to the first value it
    /// holds the games of, or the highest one known; the board from its checkpoint or rebuilt
    /// first when there is none.
    async fn bring_current(&mut self) {
        self.fetching.store(true, Ordering::SeqCst);
        self.fetch().await;
        self.fetching.store(false, Ordering::SeqCst);
    }

    async fn fetch(&mut self) {
        self.gap_since = None;
        let mut target = match self.pending.keys().next() {
            Some(&first) => first - 1,
            None => self.known,
        };
        if self.state.is_none() {
            match current_seq(&self.api.db, &self.key).await {
                Ok(seq) => target = target.max(seq),
                Err(error) => return self.failed(&error),
            }
        }
        let state = self.state.take();
        let brought = self
            .api
            .bring_current(&self.key, state, target, self.rules, self.days);
        match brought.await {
            Ok(state) => {
                self.known = self.known.max(state.seq);
                self.pending = self.pending.split_off(&(state.seq + 1));
                self.state = Some(state);
            }
            Err(error) => self.failed(&error),
        }
    }

    /// The board could not be brought current: what waits is told, and the board starts over
    /// on the next read.
    fn failed(&mut self, error: &dyn std::fmt::Display) {
        let key = &self.key;
        tracing::error!(championship = %key.0, stage = %key.1, period = key.2, %error, "a live board could not be brought current");
        self.state = None;
        self.pending.clear();
        for (_, waiter, _) in self.waiters.drain(..) {
            waiter.answer(None);
        }
    }

    async fn take_checkpoint(&mut self) {
        let Some((recent, done)) = self.checkpoint.take() else {
            return;
        };
        let encoded = match self.encode_checkpoint(recent).await {
            Ok(Some(encoded)) => encoded,
            other => {
                let _ = done.send(other.map(|_| false));
                return;
            }
        };
        // Stored by a task of its own: the board goes on meanwhile.
        let (api, key, me) = (self.api.clone(), self.key.clone(), self.me.clone());
        tokio::spawn(async move {
            let (seq, bytes) = encoded;
            let written = api.store_checkpoint(&key, seq, &bytes, recent).await;
            if let (Ok(true), Some(me)) = (&written, me.upgrade()) {
                let _ = me.send(Notice::Checkpointed(seq));
            }
            let _ = done.send(written);
        });
    }

    /// The board encoded, when it moved since its last checkpoint and none as new (or one taken
    /// less than `recent` ago, by another replica) is stored. Reads wait meanwhile (a national
    /// period takes a fraction of a second, see `docs/performance.md`).
    async fn encode_checkpoint(&mut self, recent: Duration) -> Result<Option<(i64, Vec<u8>)>> {
        let seq = match &self.state {
            Some(state) if state.seq > state.checkpointed => state.seq,
            _ => return Ok(None),
        };
        if covered(
            stored_checkpoint(&self.api.db, &self.key).await?,
            seq,
            recent,
        ) {
            return Ok(None);
        }
        let Some(state) = self.state.take() else {
            return Ok(None);
        };
        // Encoded off the runtime's workers (a fraction of a second at national scale).
        let (state, bytes) = tokio::task::spawn_blocking(move || {
            let bytes = state.period.checkpoint();
            (state, bytes)
        })
        .await?;
        self.state = Some(state);
        Ok(Some((seq, bytes)))
    }
}

/// Whether a stored checkpoint (its sequence value and time) makes one of `seq` needless.
fn covered(
    found: Option<(i64, chrono::DateTime<chrono::Utc>)>,
    seq: i64,
    recent: Duration,
) -> bool {
    found.is_some_and(|(stored, at)| {
        stored >= seq
            || chrono::Utc::now()
                .signed_duration_since(at)
                .to_std()
                .is_ok_and(|age| age < recent)
    })
}

/// Reads the period's sequence every [`SHARED_POLL`] for its board, while the board lives.
async fn poll_sequence(
    db: DatabaseConnection,
    key: PeriodKey,
    board: mpsc::WeakUnboundedSender<Notice>,
) {
    let mut tick = tokio::time::interval(SHARED_POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let seen = current_seq(&db, &key).await;
        let Some(board) = board.upgrade() else {
            return;
        };
        match seen {
            Ok(seq) => {
                if board.send(Notice::Seen(seq)).is_err() {
                    return;
                }
            }
            Err(error) => tracing::warn!(%error, "reading a period's sequence"),
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
    /// The period's board, started (on the request runtime) if this replica has none yet.
    async fn board(&self, caller: &Caller, key: &PeriodKey) -> Result<Board> {
        if let Some(board) = lock(&self.live).get(key) {
            return Ok(board.clone());
        }
        let preset = self.preset(caller, &key.0).await?;
        let (rules, days) = Self::period_rules(&preset, key)?;
        let mut boards = lock(&self.live);
        if let Some(board) = boards.get(key) {
            return Ok(board.clone());
        }
        let (inbox, messages) = mpsc::unbounded_channel();
        let board = Board {
            inbox,
            acked: Arc::default(),
            fetching: Arc::default(),
        };
        let actor = Actor {
            api: self.clone(),
            key: key.clone(),
            rules,
            days,
            state: None,
            known: 0,
            pending: BTreeMap::new(),
            applying: None,
            waiters: Vec::new(),
            gap_since: None,
            checkpoint: None,
            fetching: board.fetching.clone(),
            me: board.inbox.downgrade(),
        };
        let spawn = |task: Pin<Box<dyn Future<Output = ()> + Send>>| match &self.requests {
            Some(requests) => drop(requests.spawn(task)),
            None => drop(tokio::spawn(task)),
        };
        spawn(Box::pin(actor.run(messages)));
        if !self.sole_writer {
            let poll = poll_sequence(self.db.clone(), key.clone(), board.inbox.downgrade());
            spawn(Box::pin(poll));
        }
        boards.insert(key.clone(), board.clone());
        Ok(board)
    }

    /// Runs `read` on the period's board once it is as current as `fresh` asks. A leaderboard
    /// read that its board cannot answer within its patience answers `UNAVAILABLE` with a retry
    /// hint; the board goes on bringing itself current.
    pub(super) async fn read<R: Send + 'static>(
        &self,
        caller: &Caller,
        key: &PeriodKey,
        fresh: Freshness,
        read: impl FnOnce(&LivePeriod) -> R + Send + 'static,
    ) -> Result<R> {
        let board = self.board(caller, key).await?;
        let need = match fresh {
            Freshness::Leaderboard(_) => board.acked.load(Ordering::SeqCst),
            Freshness::Exact => current_seq(&self.db, key).await?,
        };
        let (tx, rx) = oneshot::channel();
        let read: ReadFn = Box::new(move |period| {
            // A reader that gave up is not read for.
            if !tx.is_closed() {
                let _ = tx.send(period.map(read));
            }
        });
        let not_ready = || QualificationError::Warming {
            what: format!("the leaderboard of {} period {}", key.1, key.2),
            retry_after: RETRY_AFTER,
        };
        board
            .inbox
            .send(Notice::Read { need, read })
            .map_err(|_| not_ready())?;
        let answer = match fresh {
            Freshness::Leaderboard(patience) => tokio::time::timeout(patience, rx)
                .await
                .map_err(|_| not_ready())?,
            Freshness::Exact => rx.await,
        };
        answer.ok().flatten().ok_or_else(not_ready)
    }

    /// Tells the boards this process serves of games it committed, each period's at the sequence
    /// value in `seqs`; the future returned settles once they are applied (see [`Board::settle`]).
    /// On SQLite the caller holds the write queue, so they arrive in commit order; on PostgreSQL
    /// one may come after a later one, and the board holds the later one until it does.
    pub(super) fn tell_applied(
        &self,
        seqs: &HashMap<PeriodKey, i64>,
        games: Vec<(PeriodKey, PeriodGame)>,
    ) -> impl Future<Output = ()> + use<> {
        let mut by_period: HashMap<PeriodKey, Vec<PeriodGame>> = HashMap::new();
        for (key, g) in games {
            by_period.entry(key).or_default().push(g);
        }
        let boards = lock(&self.live);
        let mut settling = Vec::new();
        for (key, &seq) in seqs {
            if let Some(board) = boards.get(key) {
                let (done, applied) = oneshot::channel();
                let games = by_period.remove(key).unwrap_or_default();
                if board
                    .inbox
                    .send(Notice::Applied { seq, games, done })
                    .is_ok()
                {
                    settling.push((board.clone(), seq, applied));
                }
            }
        }
        async move {
            for (board, seq, applied) in settling {
                board.settle(seq, applied).await;
            }
        }
    }

    /// Tells the boards of a write that committed at these sequence values (`None`: may have
    /// committed) and settles once they have fetched it.
    pub(super) async fn tell_moved(
        &self,
        seqs: impl IntoIterator<Item = (PeriodKey, Option<i64>)>,
    ) {
        let mut settling = Vec::new();
        {
            let boards = lock(&self.live);
            for (key, seq) in seqs {
                if let Some(board) = boards.get(&key) {
                    let (done, moved) = oneshot::channel();
                    let done = seq.is_some().then_some(done);
                    if board.inbox.send(Notice::Moved { seq, done }).is_ok()
                        && let Some(seq) = seq
                    {
                        settling.push((board.clone(), seq, moved));
                    }
                }
            }
        }
        for (board, seq, moved) in settling {
            board.settle(seq, moved).await;
        }
    }

    /// The period's online rules and days.
    fn period_rules(preset: &Preset, key: &PeriodKey) -> Result<(OnlineRules, PeriodDays)> {
        let stage = online_stage(preset, key)?;
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

    /// `state` (the period's checkpoint when there is none) caught up to `now`, or the period
    /// rebuilt when it cannot be.
    async fn bring_current(
        &self,
        key: &PeriodKey,
        state: Option<LiveState>,
        now: i64,
        rules: OnlineRules,
        days: PeriodDays,
    ) -> Result<LiveState> {
        let state = match state {
            Some(state) => Some(state),
            None => self.load_checkpoint(key, rules, days).await?,
        };
        if let Some(state) = state
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
        state.seq = state.seq.max(now);
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
        // Read the sequence first and load only what it covers: whatever commits later is fetched
        // by the next catch-up, exactly once.
        let seq = current_seq(&self.db, key).await?;
        let started = std::time::Instant::now();
        let mut period = LivePeriod::new(rules, days, DEFAULT_TIE_BREAKS.to_vec());
        period.reserve_players(self.entrants_known(&key.0));
        let empty = LiveState {
            period,
            seq: i64::MIN,
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
                    checkpointed: seq,
                }))
            }
            Err(error) => {
                tracing::warn!(championship = %key.0, stage = %key.1, period = key.2, %error, "recomputing the period instead of restoring its checkpoint");
                Ok(None)
            }
        }
    }

    /// Stores the checkpoint of `seq` in one transaction that replaces the period's previous one,
    /// unless one as new, or one taken less than `recent` ago, is stored by then; returns whether
    /// it wrote it.
    async fn store_checkpoint(
        &self,
        key: &PeriodKey,
        seq: i64,
        bytes: &[u8],
        recent: Duration,
    ) -> Result<bool> {
        let started = std::time::Instant::now();
        let _queued = self.write_queue().await;
        let txn = self.db.begin().await?;
        if covered(stored_checkpoint(&txn, key).await?, seq, recent) {
            return Ok(false);
        }
        checkpoint::Entity::delete_many()
            .filter(checkpoint_of(key))
            .exec(&txn)
            .await?;
        let (taken_at, format) = (chrono::Utc::now(), checkpoint_format());
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
        txn.commit().await?;
        self.metrics.gauge(
            "qiwang_leaderboard_checkpoint_seconds",
            started.elapsed().as_secs_f64(),
        );
        tracing::info!(championship = %key.0, stage = %key.1, period = key.2, seq, bytes = bytes.len(), seconds = started.elapsed().as_secs_f64(), "live period checkpointed");
        Ok(true)
    }

    /// Ends every board's task (at shutdown, after their last checkpoints).
    pub fn close_boards(&self) {
        lock(&self.live).clear();
    }

    /// Checkpoints every board this process serves that moved since its last checkpoint, unless
    /// a checkpoint was stored less than `recent` ago (by another replica).
    pub async fn checkpoint_all(&self, recent: Duration) {
        let boards: Vec<(PeriodKey, Board)> = lock(&self.live)
            .iter()
            .map(|(k, b)| (k.clone(), b.clone()))
            .collect();
        for (key, board) in boards {
            let (done, written) = oneshot::channel();
            if board
                .inbox
                .send(Notice::Checkpoint { recent, done })
                .is_err()
            {
                continue;
            }
            if let Ok(Err(error)) = written.await {
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
}
