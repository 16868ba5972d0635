//! Live standings of one period (实时排行榜, R-ONL-9): the incrementally maintained equivalent of
//! [`compute_period`] followed by [`leaderboard`](crate::standings::leaderboard).
//!
//! [`compute_period`] recomputes a whole period from all its games; at national scale (a million
//! players, millions of games per period) the shell cannot do that, nor sort every row, on each read
//! after a write. [`LivePeriod`] keeps, per player, the aggregates of the current score line and an
//! order-statistics index of the leaderboard ([`RankIndex`]), so that a game, a reset (清零) or a
//! cheating verdict costs O(log n) plus the player's own games, a page of the leaderboard costs
//! O(log n + page size) and a player's own row and rank O(log n).
//!
//! # Exactness
//!
//! A [`LivePeriod`] always holds exactly what [`compute_period`] + `leaderboard` give on everything
//! applied so far. [`compute_period`] takes the games in (end instant, game id) order — the *period
//! order* — so a game that arrives after games that follow it in that order ("late") could, in
//! general, change what those games counted as. Each operation either applies exactly, or returns
//! `NeedsRebuild` **without changing anything**; the shell then recomputes the period
//! ([`LivePeriod::compute`] or [`compute_period`] + [`LivePeriod::from_ledger`]) including the item.
//!
//! Only the escapes of counted games are order-sensitive across players (R-ONL-3: the n-th escape of
//! the period eliminates; the player's later games count for neither side). Everything else a game
//! contributes is per player and commutative, apart from the order of a score line's progression.
//! So a game with key k = (end instant, id):
//!
//! - starting outside the play hours, with the same player on both sides or with facts that cannot be
//!   scored counts for nobody, in any order (R-STR-4, R-ONL-4, R-ONL-5);
//! - counts for nobody if a player's elimination game comes before k (exact in any order: a game
//!   that counts for nobody changes nothing else);
//! - otherwise counts, and it is added to each player's line current at its end (the last reset
//!   strictly before its end, R-ONL-7). This is exact unless:
//!   - one side escapes, the stage eliminates, and that player is already eliminated by a later game:
//!     the elimination would move earlier and uncount games → [`RebuildReason::EliminationMoves`];
//!   - one side escapes for the n-th time and the player already has a counted game ending at or
//!     after k's end instant: those games would stop counting → [`RebuildReason::EliminationUncounts`].
//!
//!   A game is *in order* when k is after every counted game applied so far: then none of these can
//!   happen, so games applied in period order never need a rebuild. A late non-escape game, a late
//!   escape below the elimination count and a game of an older line (which only adds to the period's
//!   escapes) are exact: a late game takes its place in the line's progression by k, the game id
//!   deciding among games ending at the same instant (the steps keep their games' ids for that,
//!   since with negative points that order decides when a line is reached). So without resets and
//!   escape eliminations (xiangqi-2022, go-2025 海选) no game in any order needs a rebuild.
//! - A reset (清零) at or after the end of each of the player's games opens the current line
//!   ([`ResetApplied::Opened`]); one at or before the player's latest reset only opens a line in the
//!   history and changes no row ([`ResetApplied::Unchanged`]); one before the end of a game of the
//!   current line would move games to a new line → [`RebuildReason::ResetBeforeLaterGames`].
//!   Without resets in the stage (R-ONL-7: 2022/2025) it is ignored, as [`compute_period`] does.
//! - A cheating verdict (R-ONL-8) removes the cheater's row and changes nothing else, exactly as
//!   [`compute_period`] reads it; a verdict before the player's first game keeps him off the board.
//!
//! Game ids are assumed unique in the period (the shell stores a game once per id). A repeated id is
//! noticed when it repeats the latest counted game, an elimination game or a counted game of a
//! player's current line ([`RebuildReason::DuplicateId`]); otherwise (a game of an older line) it is
//! counted again, where [`compute_period`] would count neither.
//!
//! # Cost
//!
//! Players are interned to a `u32` handle; nothing is allocated per game except for a player's first
//! game (his entry) and, rarely, an elimination record or a grown progression. With n players:
//!
//! - [`LivePeriod::apply_game`]: two hash look-ups, scoring, and for each side O(log n) to move the
//!   row in the index (plus O(games of the player's current line) for a late game, to insert it in
//!   the line's progression); [`LivePeriod::apply_reset`] and [`LivePeriod::cancel_results`] the
//!   same for one player.
//! - [`LivePeriod::page`]: O(log n + size); [`LivePeriod::row`], [`LivePeriod::rank_of`] and
//!   [`LivePeriod::position_of`]: O(log n); [`LivePeriod::total`]: O(1).
//! - [`LivePeriod::standings`]: O(n log n) on fixed-size keys (player-id order), then one row each.
//! - [`LivePeriod::compute`] / [`LivePeriod::from_ledger`]: [`compute_period`] plus O(n log n).
//!
//! Memory per player: the sort key twice (table and index, ~50 bytes each), the rest of the
//! state (~90 bytes), the id once (shared by the name table and the hash map), and 24 bytes per
//! counted game of the current line (the progression, needed for
//! [`TieBreak::ReachedLineFirst`] and the row's progression): roughly 350-450 bytes plus 24 per
//! game at a million players; and per counted game its id (its bytes and 8 for an offset), once
//! when applied, once per side when the period was recomputed.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::advancement::{Candidate, Field};

use crate::scoring::{
    CountedResult, GameOutcome, OnlineRules, PeriodDays, PlayTime, Side, SideOutcome,
    judge_play_time, score_game,
};
mod checkpoint;
pub use checkpoint::CheckpointError;

use crate::standings::{
    AverageGameTime, Elimination, GameStatus, NotCounted, PeriodGame, PeriodLedger, RankedRow,
    ResetRequest, StandingRow, TieBreak, compute_period,
};

// ---------------------------------------------------------------------------------------------
// RankIndex: an order-statistics container of keyed handles

/// Entries per block of a [`RankIndex`] at most; a fuller block splits in two. An entry is about
/// 56 bytes, so a block is at most 14 KiB to shift on an insert.
const BLOCK_MAX: usize = 256;
/// A block with fewer entries merges with a neighbour when the two fit in one block.
const BLOCK_MIN: usize = 32;
/// Entries per block when an index is built from a sorted list.
const BLOCK_BUILD: usize = 128;

/// An order-statistics container of players' leaderboard keys: entries `(key, handle)` kept in
/// leaderboard order as a list of sorted blocks ("blocked sorted vectors"), with a copy of each
/// block's last entry (the fences, searched first) and a Fenwick tree over the block sizes.
///
/// The order is not stored: every operation takes it as `before(a, b)`, a strict total order over
/// the entries in the index (the leaderboard's order, whose last tie-break, the player id, makes
/// it total). Keys are stored inline, so a search reads one contiguous fence array and one block,
/// not a key table. With n entries: finding a position is O(log n) comparisons; inserting or
/// removing moves at most one block (≤ [`BLOCK_MAX`] entries), plus an O(n / block) rebuild of
/// the fences and sizes when a block splits or merges (once per hundreds of changes); reading the
/// entry at a position is O(log n) and every next one O(1).
#[derive(Debug, Clone)]
pub struct RankIndex<K> {
    /// Never empty blocks, in order.
    blocks: Vec<Vec<(K, u32)>>,
    /// The last entry of each block.
    fences: Vec<(K, u32)>,
    /// Fenwick tree over the block sizes, 1-based (`tree[0]` unused).
    tree: Vec<usize>,
    len: usize,
}

impl<K> Default for RankIndex<K> {
    fn default() -> Self {
        RankIndex {
            blocks: Vec::new(),
            fences: Vec::new(),
            tree: Vec::new(),
            len: 0,
        }
    }
}

impl<K: Copy> RankIndex<K> {
    pub fn new() -> RankIndex<K> {
        RankIndex::default()
    }

    /// An index of entries already in order.
    pub fn from_sorted(entries: &[(K, u32)]) -> RankIndex<K> {
        let mut index = RankIndex {
            blocks: entries.chunks(BLOCK_BUILD).map(<[_]>::to_vec).collect(),
            fences: Vec::new(),
            tree: Vec::new(),
            len: entries.len(),
        };
        index.rebuild();
        index
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Rebuilds the fences and the Fenwick tree after blocks split, merge or go, in the arrays they
    /// have: at a million entries the fences are about 450 KB, and a new array at every split or
    /// merge was fresh memory to fault in and zero each time.
    /// Measured with a throwaway test (1,000,000 players, the last million of 3,000,000 games of
    /// equal length, release build): 14.9 µs a game instead of 15.9 µs.
    fn rebuild(&mut self) {
        self.fences.clear();
        self.fences
            .extend(self.blocks.iter().filter_map(|b| b.last().copied()));
        let n = self.blocks.len();
        let tree = &mut self.tree;
        tree.clear();
        tree.resize(n + 1, 0);
        for j in 1..=n {
            tree[j] += self.blocks[j - 1].len();
            let parent = j + (j & j.wrapping_neg());
            if parent <= n {
                tree[parent] += tree[j];
            }
        }
    }

    fn refresh_fence(&mut self, block: usize) {
        if let (Some(fence), Some(last)) = (
            self.fences.get_mut(block),
            self.blocks.get(block).and_then(|b| b.last()),
        ) {
            *fence = *last;
        }
    }

    fn tree_grow(&mut self, block: usize) {
        let mut j = block + 1;
        while j < self.tree.len() {
            self.tree[j] += 1;
            j += j & j.wrapping_neg();
        }
    }

    fn tree_shrink(&mut self, block: usize) {
        let mut j = block + 1;
        while j < self.tree.len() {
            self.tree[j] = self.tree[j].saturating_sub(1);
            j += j & j.wrapping_neg();
        }
    }

    /// Entries in the blocks before `block`.
    fn prefix(&self, block: usize) -> usize {
        let mut j = block.min(self.tree.len().saturating_sub(1));
        let mut sum = 0;
        while j > 0 {
            sum += self.tree[j];
            j -= j & j.wrapping_neg();
        }
        sum
    }

    /// (block, offset in the block) of a position; `(blocks.len(), _)` past the end.
    fn locate(&self, position: usize) -> (usize, usize) {
        let n = self.blocks.len();
        if n == 0 {
            return (0, 0);
        }
        let mut block = 0;
        let mut rest = position;
        let mut step = 1usize << (usize::BITS - 1 - n.leading_zeros());
        while step > 0 {
            let next = block + step;
            if next <= n && self.tree[next] <= rest {
                block = next;
                rest -= self.tree[next];
            }
            step >>= 1;
        }
        (block, rest)
    }

    /// The number of entries for which `before` holds, when it holds for a prefix of the order.
    pub fn partition_point(&self, mut before: impl FnMut(&(K, u32)) -> bool) -> usize {
        let block = self.fences.partition_point(&mut before);
        match self.blocks.get(block) {
            Some(b) => self.prefix(block) + b.partition_point(before),
            None => self.len,
        }
    }

    /// Where an entry is in the order, if it is in the index.
    pub fn position(
        &self,
        entry: &(K, u32),
        mut before: impl FnMut(&(K, u32), &(K, u32)) -> bool,
    ) -> Option<usize> {
        let (block, at) = self.find(entry, &mut before)?;
        Some(self.prefix(block) + at)
    }

    fn find(
        &self,
        entry: &(K, u32),
        before: &mut impl FnMut(&(K, u32), &(K, u32)) -> bool,
    ) -> Option<(usize, usize)> {
        let block = self.fences.partition_point(|e| before(e, entry));
        let b = self.blocks.get(block)?;
        let at = b.partition_point(|e| before(e, entry));
        (b.get(at).map(|e| e.1) == Some(entry.1)).then_some((block, at))
    }

    /// Inserts an entry whose handle is not in the index yet.
    pub fn insert(
        &mut self,
        entry: (K, u32),
        mut before: impl FnMut(&(K, u32), &(K, u32)) -> bool,
    ) {
        let Some(last) = self.blocks.len().checked_sub(1) else {
            self.blocks.push(vec![entry]);
            self.len = 1;
            self.rebuild();
            return;
        };
        let block = self.fences.partition_point(|e| before(e, &entry)).min(last);
        let b = &mut self.blocks[block];
        let at = b.partition_point(|e| before(e, &entry));
        b.insert(at, entry);
        let at_end = at + 1 == b.len();
        self.len += 1;
        if b.len() > BLOCK_MAX {
            let tail = b.split_off(b.len() / 2);
            self.blocks.insert(block + 1, tail);
            self.rebuild();
        } else {
            if at_end {
                self.refresh_fence(block);
            }
            self.tree_grow(block);
        }
    }

    /// Removes an entry, found by its key as inserted; `false` if it is not there.
    pub fn remove(
        &mut self,
        entry: &(K, u32),
        mut before: impl FnMut(&(K, u32), &(K, u32)) -> bool,
    ) -> bool {
        let found = self.find(entry, &mut before);
        debug_assert!(
            found.is_some() || !self.blocks.iter().flatten().any(|e| e.1 == entry.1),
            "the index is out of order"
        );
        // An entry not where its key says (a bug) is still removed, by a scan.
        let found = found.or_else(|| {
            self.blocks
                .iter()
                .enumerate()
                .find_map(|(i, b)| b.iter().position(|e| e.1 == entry.1).map(|at| (i, at)))
        });
        let Some((block, at)) = found else {
            return false;
        };
        let b = &mut self.blocks[block];
        b.remove(at);
        let was_last = at == b.len();
        self.len -= 1;
        if b.is_empty() {
            self.blocks.remove(block);
            self.rebuild();
        } else if b.len() < BLOCK_MIN && self.merge(block) {
            self.rebuild();
        } else {
            if was_last {
                self.refresh_fence(block);
            }
            self.tree_shrink(block);
        }
        true
    }

    /// Merges a small block into a neighbour if both fit in one block.
    fn merge(&mut self, block: usize) -> bool {
        let size = |i: usize| self.blocks.get(i).map_or(usize::MAX, Vec::len);
        let own = size(block);
        if size(block + 1).saturating_add(own) <= BLOCK_MAX {
            let next = self.blocks.remove(block + 1);
            self.blocks[block].extend(next);
            true
        } else if block > 0 && size(block - 1).saturating_add(own) <= BLOCK_MAX {
            let this = self.blocks.remove(block);
            self.blocks[block - 1].extend(this);
            true
        } else {
            false
        }
    }

    /// The entry at a position.
    pub fn get(&self, position: usize) -> Option<&(K, u32)> {
        let (block, at) = self.locate(position);
        self.blocks.get(block)?.get(at)
    }

    /// The entries from a position on, in order.
    pub fn iter_from(&self, position: usize) -> impl Iterator<Item = &(K, u32)> + '_ {
        let (block, at) = self.locate(position);
        self.blocks
            .iter()
            .skip(block)
            .enumerate()
            .flat_map(move |(i, b)| b.iter().skip(if i == 0 { at } else { 0 }))
    }
}

// ---------------------------------------------------------------------------------------------
// Per-player state

/// One counted game of the current line: its end instant, its points and its id (as a
/// [`GameIds`] number, to order games ending at the same instant). Packed to 24 bytes (an instant
/// is 12 bytes aligned to 4).
#[derive(Debug, Clone, Copy)]
#[repr(C, packed(4))]
struct Step {
    at: DateTime<Utc>,
    points: i64,
    game: u32,
}

impl Step {
    fn at(self) -> DateTime<Utc> {
        self.at
    }
    fn points(self) -> i64 {
        self.points
    }
    fn game(self) -> u32 {
        self.game
    }
}

/// The ids of the games in progressions, numbered in the order they were kept: one byte string
/// and one end offset per game, so a step carries 4 bytes, not an id. Ids are needed only to order
/// a late game among the games of a line ending at the very same instant (the period order is
/// (end instant, game id)); they are never removed (a reset or a verdict drops steps, not ids).
#[derive(Debug, Clone, Default)]
struct GameIds {
    bytes: String,
    ends: Vec<usize>,
}

impl GameIds {
    /// Keeps an id; `None` past `u32::MAX` games.
    fn push(&mut self, id: &str) -> Option<u32> {
        let n = u32::try_from(self.ends.len()).ok()?;
        self.bytes.push_str(id);
        self.ends.push(self.bytes.len());
        Some(n)
    }

    fn is_full(&self) -> bool {
        self.ends.len() >= u32::MAX as usize
    }

    fn get(&self, n: u32) -> &str {
        let n = n as usize;
        let start = match n.checked_sub(1) {
            Some(previous) => self.ends.get(previous).copied().unwrap_or(0),
            None => 0,
        };
        let end = self.ends.get(n).copied().unwrap_or(start);
        self.bytes.get(start..end).unwrap_or("")
    }
}

/// What [`crate::standings::compare_rows`] and ranking need of a row, precomputed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct RowKey {
    points: i64,
    /// Total length of the current line's counted games, ms (R-ONL-9 average game time).
    game_time_ms: i64,
    /// When the current line reached the first [`TieBreak::ReachedLineFirst`] line.
    reached: Option<DateTime<Utc>>,
    wins: u32,
    /// Counted games (责任局) of the current line.
    counted: u32,
    /// Escapes of the current line (the row's escapes column).
    escapes: u32,
    /// Not eliminated and enough counted games (R-ONL-10).
    ranked: bool,
}

/// Everything else kept about one player.
#[derive(Debug, Clone, Default)]
struct PlayerState {
    /// The current line's counted games in period order.
    progression: Vec<Step>,
    /// The latest reset: the current line is the games ending strictly after it (R-ONL-7).
    reset_at: Option<DateTime<Utc>>,
    /// The latest end among the player's counted and void games of every line.
    last_end: Option<DateTime<Utc>>,
    elimination: Option<Box<Elimination>>,
    losses: u32,
    draws: u32,
    voids: u32,
    period_escapes: u32,
    /// Named by a game or a reset: the player has a ledger (a row unless cancelled).
    present: bool,
    /// Results cancelled for cheating (R-ONL-8).
    cancelled: bool,
}

impl PlayerState {
    fn shown(&self) -> bool {
        self.present && !self.cancelled
    }
}

/// When the progression first reached `line` points ([`StandingRow::reached_at`]).
fn reached_in(progression: &[Step], line: i64) -> Option<DateTime<Utc>> {
    let mut points = 0i64;
    for s in progression {
        points = points.saturating_add(s.points());
        if points >= line {
            return Some(s.at());
        }
    }
    None
}

/// Smaller first, `None` last (as the leaderboard orders average times and instants).
fn none_last<T: Ord>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Names, keys and states by handle, and the leaderboard's order over them.
#[derive(Debug, Clone)]
struct Table {
    /// Player ids by handle, shared with the id → handle map.
    names: Vec<Arc<str>>,
    keys: Vec<RowKey>,
    players: Vec<PlayerState>,
    tie_breaks: Vec<TieBreak>,
    /// The line of the first [`TieBreak::ReachedLineFirst`], cached in [`RowKey::reached`]; other
    /// lines are computed from the progression when two rows tie up to them.
    cached_line: Option<i64>,
    /// The ids of the steps' games.
    game_ids: GameIds,
}

impl Table {
    fn key(&self, h: u32) -> RowKey {
        self.keys.get(h as usize).copied().unwrap_or_default()
    }

    fn name(&self, h: u32) -> &str {
        self.names.get(h as usize).map_or("", |n| n)
    }

    fn reached(&self, h: u32, key: &RowKey, line: i64) -> Option<DateTime<Utc>> {
        if self.cached_line == Some(line) {
            key.reached
        } else {
            self.players
                .get(h as usize)
                .and_then(|p| reached_in(&p.progression, line))
        }
    }

    /// [`crate::standings::compare_rows`] on two players' keys (`ka` is `a`'s key, `kb` `b`'s).
    fn compare_keys(&self, a: u32, ka: &RowKey, b: u32, kb: &RowKey) -> Ordering {
        let average = |k: &RowKey| {
            (k.counted > 0).then_some(AverageGameTime {
                total_ms: k.game_time_ms,
                games: k.counted,
            })
        };
        let mut order = kb.points.cmp(&ka.points);
        for t in &self.tie_breaks {
            if order != Ordering::Equal {
                break;
            }
            order = match *t {
                TieBreak::MoreWins => kb.wins.cmp(&ka.wins),
                TieBreak::LowerAverageGameTime => none_last(average(ka), average(kb)),
                TieBreak::ReachedLineFirst { line } => {
                    none_last(self.reached(a, ka, line), self.reached(b, kb, line))
                }
                TieBreak::FewerEscapes => ka.escapes.cmp(&kb.escapes),
            };
        }
        order
    }

    /// The leaderboard's order on index entries: ranked rows first, then [`Table::compare_keys`],
    /// then player id.
    fn order(&self, (ka, a): &(RowKey, u32), (kb, b): &(RowKey, u32)) -> Ordering {
        kb.ranked
            .cmp(&ka.ranked)
            .then_with(|| self.compare_keys(*a, ka, *b, kb))
            .then_with(|| self.name(*a).cmp(self.name(*b)))
    }

    /// The handles of the rows on the board, sorted by player id. Handles are read in handle order
    /// (ids were allocated in that order, so memory is read sequentially) and sorted by the 16
    /// bytes after the ids' common prefix first: the ids themselves are compared only for equal
    /// windows, which keeps a million UUID-like ids (sharing a long prefix) fast.
    fn shown_by_name(&self) -> Vec<u32> {
        let shown = || {
            self.players
                .iter()
                .zip(&self.names)
                .zip(0u32..)
                .filter(|((p, _), _)| p.shown())
                .map(|((_, name), h)| (name.as_bytes(), h))
        };
        let mut common: Option<&[u8]> = None;
        for (name, _) in shown() {
            common = Some(match common {
                None => name,
                Some(c) => {
                    let n = c.iter().zip(name).take_while(|(x, y)| x == y).count();
                    c.get(..n).unwrap_or(&[])
                }
            });
        }
        let skip = common.map_or(0, <[u8]>::len);
        let mut keyed: Vec<(u128, u32)> = shown()
            .map(|(name, h)| {
                let mut bytes = [0u8; 16];
                for (b, r) in bytes.iter_mut().zip(name.get(skip..).unwrap_or(&[])) {
                    *b = *r;
                }
                // Zero padding keeps the byte order: a strictly smaller window is a smaller id.
                (u128::from_be_bytes(bytes), h)
            })
            .collect();
        keyed.sort_unstable_by(|(wa, a), (wb, b)| {
            wa.cmp(wb).then_with(|| self.name(*a).cmp(self.name(*b)))
        });
        keyed.into_iter().map(|(_, h)| h).collect()
    }

    fn before(&self, a: &(RowKey, u32), b: &(RowKey, u32)) -> bool {
        self.order(a, b) == Ordering::Less
    }

    /// A player's index entry, with his current key.
    fn entry(&self, h: u32) -> (RowKey, u32) {
        (self.key(h), h)
    }

    /// The player's row, as [`crate::standings::PlayerLedger::standing`] builds it.
    fn standing(&self, h: u32) -> StandingRow {
        let key = self.key(h);
        let state = self.players.get(h as usize);
        let mut points = 0i64;
        let progression = state
            .map(|s| s.progression.as_slice())
            .unwrap_or(&[])
            .iter()
            .map(|s| {
                points = points.saturating_add(s.points());
                (s.at(), points)
            })
            .collect();
        StandingRow {
            player: self.name(h).to_owned(),
            points: key.points,
            wins: key.wins,
            losses: state.map_or(0, |s| s.losses),
            draws: state.map_or(0, |s| s.draws),
            escapes: key.escapes,
            voids: state.map_or(0, |s| s.voids),
            game_time_ms: key.game_time_ms,
            progression,
            period_escapes: state.map_or(0, |s| s.period_escapes),
            eliminated: state.is_some_and(|s| s.elimination.is_some()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// LivePeriod

/// Why an item cannot be applied exactly in place: the period must be recomputed (with the item).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RebuildReason {
    /// The game has the (end instant, id) of the latest counted game, of an elimination game or of
    /// a counted game of a player's current line: a repeated id, which [`compute_period`] counts
    /// for nobody.
    DuplicateId,
    /// A late escape of a player already eliminated by a later game (R-ONL-3): the elimination
    /// would move earlier and uncount the games in between.
    EliminationMoves,
    /// A late escape that eliminates (the n-th of the period) while the player has counted games
    /// ending at or after it: those would stop counting, for the opponents too.
    EliminationUncounts,
    /// A reset (清零) before the end of a game of the current line: games would move to a new line.
    ResetBeforeLaterGames,
    /// More players than `u32` handles (unreachable in practice).
    Capacity,
}

/// What applying a game did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// The game counts (for both sides), as [`compute_period`] would count it.
    Counted(GameOutcome),
    /// The game counts for nobody; its players have a row from now on.
    NotCounted(NotCounted),
    /// Nothing changed: recompute the period including this game.
    NeedsRebuild(RebuildReason),
}

/// What applying a reset (清零, R-ONL-7) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetApplied {
    /// A new current line, empty.
    Opened,
    /// The reset is at or before the player's latest one: it opens a line in the history only (or
    /// repeats a reset); no row changes.
    Unchanged,
    /// The stage allows no resets (R-ONL-7: 2022/2025): ignored, as [`compute_period`] ignores it.
    /// The player has a row from now on.
    Ignored,
    /// Nothing changed: recompute the period including this reset.
    NeedsRebuild(RebuildReason),
}

/// Where a counted game goes for one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// A line before the current one: only the period's escapes can change.
    OldLine,
    /// A void game of the current line (R-ONL-5): counted in the voids column only.
    Void,
    /// After every counted game of the current line.
    Append,
    /// Before the current line's counted game at this index (a late game).
    Insert(usize),
}

#[derive(Debug, Clone, Copy)]
struct SidePlan {
    /// The player's handle, `None` for a player not seen yet.
    handle: Option<u32>,
    mine: SideOutcome,
    slot: Slot,
    eliminates: bool,
}

/// One period's standings and leaderboard (排行榜), maintained game by game. See the module
/// documentation for when an item is applied in place and when it asks for a rebuild.
#[derive(Debug, Clone)]
pub struct LivePeriod {
    rules: OnlineRules,
    days: PeriodDays,
    /// Counted games needed to be ranked (R-ONL-10; at least 1).
    min_ranked: u32,
    table: Table,
    index: RankIndex<RowKey>,
    by_name: HashMap<Arc<str>, u32>,
    /// The latest (end instant, id) among counted games: a game after it is in period order.
    last_key: Option<(DateTime<Utc>, String)>,
    games_applied: u64,
}

impl LivePeriod {
    /// An empty period.
    pub fn new(rules: OnlineRules, days: PeriodDays, tie_breaks: Vec<TieBreak>) -> LivePeriod {
        let cached_line = tie_breaks.iter().find_map(|t| match t {
            TieBreak::ReachedLineFirst { line } => Some(*line),
            _ => None,
        });
        LivePeriod {
            rules,
            days,
            min_ranked: rules.min_games_ranked.max(1),
            table: Table {
                names: Vec::new(),
                keys: Vec::new(),
                players: Vec::new(),
                tie_breaks,
                cached_line,
                game_ids: GameIds::default(),
            },
            index: RankIndex::new(),
            by_name: HashMap::new(),
            last_key: None,
            games_applied: 0,
        }
    }

    /// The period recomputed from everything stored: [`compute_period`] over the games, resets and
    /// cheating verdicts, then [`LivePeriod::from_ledger`] and [`LivePeriod::cancel_results`] for
    /// each cheater (so a cheater without a game yet stays off the board when his games arrive).
    pub fn compute(
        rules: OnlineRules,
        days: PeriodDays,
        tie_breaks: Vec<TieBreak>,
        games: &[PeriodGame],
        resets: &[ResetRequest],
        cheaters: &[String],
    ) -> LivePeriod {
        let ledger = compute_period(&rules, days, games, resets, cheaters);
        let mut live = LivePeriod::from_ledger(rules, days, tie_breaks, &ledger);
        for c in cheaters {
            live.cancel_results(c);
        }
        live
    }

    /// The live equivalent of a computed period. Cheaters not in the ledger (no game or reset yet)
    /// are not known to it: call [`LivePeriod::cancel_results`] for them.
    pub fn from_ledger(
        rules: OnlineRules,
        days: PeriodDays,
        tie_breaks: Vec<TieBreak>,
        ledger: &PeriodLedger,
    ) -> LivePeriod {
        let mut live = LivePeriod::new(rules, days, tie_breaks);
        live.table.names.reserve(ledger.players.len());
        live.table.keys.reserve(ledger.players.len());
        live.table.players.reserve(ledger.players.len());
        live.by_name.reserve(ledger.players.len());
        for (name, p) in &ledger.players {
            let Some(h) = live.intern(name) else {
                break;
            };
            let mut state = PlayerState {
                reset_at: p.lines.last().and_then(|l| l.opened_at),
                last_end: p
                    .lines
                    .iter()
                    .flat_map(|l| &l.entries)
                    .map(|e| e.ended_at)
                    .max(),
                elimination: p.eliminated.clone().map(Box::new),
                period_escapes: p.period_escapes,
                present: true,
                cancelled: p.results_cancelled,
                ..PlayerState::default()
            };
            let mut key = RowKey::default();
            for e in p
                .current_line()
                .map(|l| l.entries.as_slice())
                .unwrap_or(&[])
            {
                match e.result {
                    CountedResult::Win => key.wins = key.wins.saturating_add(1),
                    CountedResult::Loss => state.losses = state.losses.saturating_add(1),
                    CountedResult::Draw => state.draws = state.draws.saturating_add(1),
                    CountedResult::Escape => key.escapes = key.escapes.saturating_add(1),
                    CountedResult::Void => {
                        state.voids = state.voids.saturating_add(1);
                        continue;
                    }
                }
                key.counted = key.counted.saturating_add(1);
                key.game_time_ms = key.game_time_ms.saturating_add(
                    e.ended_at
                        .signed_duration_since(e.started_at)
                        .num_milliseconds(),
                );
                let Some(game) = live.table.game_ids.push(&e.game_id) else {
                    break;
                };
                state.progression.push(Step {
                    at: e.ended_at,
                    points: e.points,
                    game,
                });
            }
            state.progression.shrink_to_fit();
            if let Some(slot) = live.table.players.get_mut(h as usize) {
                *slot = state;
            }
            if let Some(slot) = live.table.keys.get_mut(h as usize) {
                *slot = key;
            }
            live.refresh_key(h);
        }
        live.last_key = ledger
            .games
            .iter()
            .rev()
            .find(|v| matches!(v.status, GameStatus::Counted(_)))
            .map(|v| (v.ended_at, v.game_id.clone()));
        live.games_applied = u64::try_from(ledger.games.len()).unwrap_or(u64::MAX);
        // Handles were given in player id order.
        live.index_all(true);
        live
    }

    /// Builds the leaderboard index over every shown row at once (one sort). The keys are copied
    /// beside the handles, so the sort reads no other memory in the common case; when handles
    /// were given in player id order, the last tie-break compares handles, not ids.
    fn index_all(&mut self, handles_in_id_order: bool) {
        let mut shown: Vec<(RowKey, u32)> = (0..self.table.players.len())
            .filter_map(|h| u32::try_from(h).ok())
            .filter(|&h| self.state(h).is_some_and(PlayerState::shown))
            .map(|h| (self.table.key(h), h))
            .collect();
        let table = &self.table;
        if handles_in_id_order {
            shown.sort_unstable_by(|(ka, a), (kb, b)| {
                kb.ranked
                    .cmp(&ka.ranked)
                    .then_with(|| table.compare_keys(*a, ka, *b, kb))
                    .then_with(|| a.cmp(b))
            });
        } else {
            shown.sort_unstable_by(|a, b| table.order(a, b));
        }
        self.index = RankIndex::from_sorted(&shown);
    }

    fn state(&self, h: u32) -> Option<&PlayerState> {
        self.table.players.get(h as usize)
    }

    fn handle(&self, player: &str) -> Option<u32> {
        self.by_name.get(player).copied()
    }

    fn intern(&mut self, player: &str) -> Option<u32> {
        if let Some(h) = self.handle(player) {
            return Some(h);
        }
        let h = u32::try_from(self.table.names.len()).ok()?;
        let name: Arc<str> = Arc::from(player);
        self.table.names.push(Arc::clone(&name));
        self.table.keys.push(RowKey::default());
        self.table.players.push(PlayerState::default());
        self.by_name.insert(name, h);
        Some(h)
    }

    /// Recomputes points, the cached line and `ranked` from the state.
    fn refresh_key(&mut self, h: u32) {
        let (Some(state), Some(key)) = (
            self.table.players.get(h as usize),
            self.table.keys.get_mut(h as usize),
        ) else {
            return;
        };
        key.points = state
            .progression
            .iter()
            .fold(0i64, |sum, s| sum.saturating_add(s.points()));
        key.reached = self
            .table
            .cached_line
            .and_then(|line| reached_in(&state.progression, line));
        key.ranked = state.elimination.is_none() && key.counted >= self.min_ranked;
    }

    fn unindex(&mut self, h: u32) {
        let table = &self.table;
        self.index
            .remove(&table.entry(h), |a, b| table.before(a, b));
    }

    fn reindex(&mut self, h: u32) {
        let table = &self.table;
        self.index.insert(table.entry(h), |a, b| table.before(a, b));
    }

    /// Marks a player named by a game or a reset; a new row enters the board.
    fn name(&mut self, h: u32) {
        let Some(state) = self.table.players.get_mut(h as usize) else {
            return;
        };
        if !state.present {
            state.present = true;
            if !state.cancelled {
                self.reindex(h);
            }
        }
    }

    /// Applies one finished game. Exact (see the module documentation) or `NeedsRebuild` with no
    /// change. Assumes game ids unique in the period.
    pub fn apply_game(&mut self, g: &PeriodGame) -> Applied {
        if self.table.names.len() > (u32::MAX - 2) as usize || self.table.game_ids.is_full() {
            return Applied::NeedsRebuild(RebuildReason::Capacity);
        }
        let judged = self.judge(g);
        if !matches!(judged, Err(Applied::NeedsRebuild(_))) {
            self.games_applied = self.games_applied.saturating_add(1);
        }
        let (outcome, in_order, plans) = match judged {
            Ok(plan) => plan,
            Err(applied) => {
                if let Applied::NotCounted(_) = applied {
                    for p in [&g.first_player, &g.second_player] {
                        if let Some(h) = self.intern(p) {
                            self.name(h);
                        }
                    }
                }
                return applied;
            }
        };
        // The id is kept once for both sides' steps.
        let game = if plans
            .iter()
            .any(|p| matches!(p.slot, Slot::Append | Slot::Insert(_)))
        {
            // Not full: checked above.
            self.table.game_ids.push(&g.id).unwrap_or(0)
        } else {
            0
        };
        for (plan, player) in plans.into_iter().zip([&g.first_player, &g.second_player]) {
            if let Some(h) = plan.handle.or_else(|| self.intern(player)) {
                self.record(h, plan, g, game);
            }
        }
        if in_order {
            match &mut self.last_key {
                Some((at, id)) => {
                    *at = g.facts.ended_at;
                    id.clear();
                    id.push_str(&g.id);
                }
                None => self.last_key = Some((g.facts.ended_at, g.id.clone())),
            }
        }
        Applied::Counted(outcome)
    }

    /// Judges a game like [`compute_period`] and plans each side, changing nothing.
    #[allow(clippy::type_complexity)]
    fn judge(&self, g: &PeriodGame) -> Result<(GameOutcome, bool, [SidePlan; 2]), Applied> {
        let refuse = |reason| Err(Applied::NotCounted(reason));
        if g.first_player == g.second_player {
            return refuse(NotCounted::SamePlayerOnBothSides);
        }
        match judge_play_time(&self.rules.play_hours, self.days, g.facts.started_at) {
            PlayTime::Inside => {}
            other => return refuse(NotCounted::OutsidePlayTime(other)),
        }
        let outcome = match score_game(&self.rules, &g.facts) {
            Ok(o) => o,
            Err(e) => return refuse(NotCounted::InvalidFacts(e)),
        };
        let ended_at = g.facts.ended_at;
        let k = (ended_at, g.id.as_str());
        let handles = [self.handle(&g.first_player), self.handle(&g.second_player)];
        for (h, name) in handles.iter().zip([&g.first_player, &g.second_player]) {
            let elimination = h
                .and_then(|h| self.state(h))
                .and_then(|s| s.elimination.as_deref());
            if let Some(e) = elimination {
                match (e.at, e.game_id.as_str()).cmp(&k) {
                    Ordering::Less => {
                        return refuse(NotCounted::PlayerEliminated {
                            player: name.clone(),
                        });
                    }
                    Ordering::Equal => {
                        return Err(Applied::NeedsRebuild(RebuildReason::DuplicateId));
                    }
                    Ordering::Greater => {}
                }
            }
        }
        let in_order = match &self.last_key {
            None => true,
            Some((at, id)) => match (*at, id.as_str()).cmp(&k) {
                Ordering::Less => true,
                Ordering::Equal => {
                    return Err(Applied::NeedsRebuild(RebuildReason::DuplicateId));
                }
                Ordering::Greater => false,
            },
        };
        let mut plans =
            [(Side::First, handles[0]), (Side::Second, handles[1])].map(|(side, handle)| {
                SidePlan {
                    handle,
                    mine: outcome.side(side),
                    slot: Slot::Append,
                    eliminates: false,
                }
            });
        for (plan, h) in plans.iter_mut().zip(handles) {
            let state = h.and_then(|h| self.state(h));
            self.plan_side(plan, state, k, in_order)
                .map_err(Applied::NeedsRebuild)?;
        }
        Ok((outcome, in_order, plans))
    }

    /// Where a counted game goes for one side, or why it cannot be applied in place.
    fn plan_side(
        &self,
        plan: &mut SidePlan,
        state: Option<&PlayerState>,
        (ended_at, id): (DateTime<Utc>, &str),
        in_order: bool,
    ) -> Result<(), RebuildReason> {
        let escape = plan.mine.result == CountedResult::Escape;
        let escapes = state.map_or(0, |s| s.period_escapes);
        // No counted game of the player ends at or after this one.
        let after_all = in_order || state.is_none_or(|s| s.last_end.is_none_or(|e| e < ended_at));
        if escape && let Some(n) = self.rules.eliminate_at_escapes {
            if state.is_some_and(|s| s.elimination.is_some()) {
                // Eliminated by a later game (an earlier one was refused in `judge`).
                return Err(RebuildReason::EliminationMoves);
            }
            if escapes.saturating_add(1) >= n {
                if !after_all {
                    return Err(RebuildReason::EliminationUncounts);
                }
                plan.eliminates = true;
            }
        }
        let current = state
            .and_then(|s| s.reset_at)
            .is_none_or(|reset| reset < ended_at);
        plan.slot = if !current {
            Slot::OldLine
        } else if !plan.mine.result.is_counted() {
            Slot::Void
        } else if in_order {
            Slot::Append
        } else {
            // Period order: (end instant, game id); ids are compared only within one instant.
            let progression = state.map_or(&[][..], |s| s.progression.as_slice());
            let ids = &self.table.game_ids;
            let at = progression.partition_point(|s| {
                s.at() < ended_at || (s.at() == ended_at && ids.get(s.game()) < id)
            });
            match progression.get(at) {
                None => Slot::Append,
                Some(s) if s.at() == ended_at && ids.get(s.game()) == id => {
                    return Err(RebuildReason::DuplicateId);
                }
                Some(_) => Slot::Insert(at),
            }
        };
        Ok(())
    }

    /// Adds a counted game to one side.
    fn record(&mut self, h: u32, plan: SidePlan, g: &PeriodGame, game: u32) {
        let ended_at = g.facts.ended_at;
        let was_shown = self.state(h).is_some_and(PlayerState::shown);
        let in_line = matches!(plan.slot, Slot::Append | Slot::Insert(_));
        let reposition = in_line || plan.eliminates;
        if was_shown && reposition {
            self.unindex(h);
        }
        let cached_line = self.table.cached_line;
        let (Some(state), Some(key)) = (
            self.table.players.get_mut(h as usize),
            self.table.keys.get_mut(h as usize),
        ) else {
            return;
        };
        state.present = true;
        state.last_end = Some(state.last_end.map_or(ended_at, |e| e.max(ended_at)));
        let result = plan.mine.result;
        if result == CountedResult::Escape {
            state.period_escapes = state.period_escapes.saturating_add(1);
            if plan.eliminates {
                state.elimination = Some(Box::new(Elimination {
                    at: ended_at,
                    game_id: g.id.clone(),
                }));
            }
        }
        match plan.slot {
            Slot::OldLine => {}
            Slot::Void => state.voids = state.voids.saturating_add(1),
            Slot::Append | Slot::Insert(_) => {
                match result {
                    CountedResult::Win => key.wins = key.wins.saturating_add(1),
                    CountedResult::Loss => state.losses = state.losses.saturating_add(1),
                    CountedResult::Draw => state.draws = state.draws.saturating_add(1),
                    CountedResult::Escape => key.escapes = key.escapes.saturating_add(1),
                    CountedResult::Void => {}
                }
                key.counted = key.counted.saturating_add(1);
                key.game_time_ms = key
                    .game_time_ms
                    .saturating_add(g.facts.duration().num_milliseconds());
                let step = Step {
                    at: ended_at,
                    points: plan.mine.points,
                    game,
                };
                if let Slot::Insert(at) = plan.slot {
                    state
                        .progression
                        .insert(at.min(state.progression.len()), step);
                    key.points = state
                        .progression
                        .iter()
                        .fold(0i64, |sum, s| sum.saturating_add(s.points()));
                    key.reached = cached_line.and_then(|l| reached_in(&state.progression, l));
                } else {
                    state.progression.push(step);
                    key.points = key.points.saturating_add(plan.mine.points);
                    if let Some(line) = cached_line
                        && key.reached.is_none()
                        && key.points >= line
                    {
                        key.reached = Some(ended_at);
                    }
                }
            }
        }
        key.ranked = state.elimination.is_none() && key.counted >= self.min_ranked;
        let now_shown = state.shown();
        if now_shown && (!was_shown || reposition) {
            self.reindex(h);
        }
    }

    /// Applies a reset request (清零, R-ONL-7). See [`ResetApplied`].
    pub fn apply_reset(&mut self, r: &ResetRequest) -> ResetApplied {
        let existing = self.handle(&r.player);
        if self.rules.resets_allowed
            && let Some(state) = existing.and_then(|h| self.state(h))
        {
            if state.reset_at.is_some_and(|t| r.at <= t) {
                return ResetApplied::Unchanged;
            }
            if state.last_end.is_some_and(|e| e > r.at) {
                return ResetApplied::NeedsRebuild(RebuildReason::ResetBeforeLaterGames);
            }
        }
        let Some(h) = self.intern(&r.player) else {
            return ResetApplied::NeedsRebuild(RebuildReason::Capacity);
        };
        if !self.rules.resets_allowed {
            self.name(h);
            return ResetApplied::Ignored;
        }
        if self.state(h).is_some_and(PlayerState::shown) {
            self.unindex(h);
        }
        if let Some(state) = self.table.players.get_mut(h as usize) {
            state.progression.clear();
            state.losses = 0;
            state.draws = 0;
            state.voids = 0;
            state.reset_at = Some(r.at);
            state.present = true;
        }
        if let Some(key) = self.table.keys.get_mut(h as usize) {
            *key = RowKey::default();
        }
        self.refresh_key(h);
        if self.state(h).is_some_and(PlayerState::shown) {
            self.reindex(h);
        }
        ResetApplied::Opened
    }

    /// Cancels a player's results for verified cheating (R-ONL-8): his row disappears, now and
    /// when later games arrive; his games still count for his opponents exactly as before
    /// ([`compute_period`]'s reading).
    pub fn cancel_results(&mut self, player: &str) {
        let Some(h) = self.intern(player) else {
            return;
        };
        if self.state(h).is_some_and(PlayerState::shown) {
            self.unindex(h);
        }
        if let Some(state) = self.table.players.get_mut(h as usize) {
            state.cancelled = true;
        }
    }

    /// Makes room for `players` players in all, so that none of the first `players` to appear
    /// moves the period's per-player tables. Without it they grow by doubling, and each doubling
    /// copies every player's state and rehashes every id at once, inside one `apply_game`, while
    /// every read of the period waits. Timing each `apply_game` in the service during `qiwang bench
    /// ingest --players 200000 --games 300000` on PostgreSQL (a slow 2-core VM, throwaway
    /// instrumentation): the slowest took 18 ms without the room reserved and 7 ms with it (what is
    /// left is the CPU shared with the database). Reserving while the period is small copies
    /// little, and the room is only address space until players fill it. A period never holds more
    /// players than the championship's entrants, so they are the bound to reserve.
    pub fn reserve_players(&mut self, players: usize) {
        if self.player_capacity() >= players {
            return;
        }
        let more = players.saturating_sub(self.table.names.len());
        self.table.names.reserve(more);
        self.table.keys.reserve(more);
        self.table.players.reserve(more);
        self.by_name.reserve(more);
    }

    /// Players the period holds room for without growing its tables (see
    /// [`LivePeriod::reserve_players`]).
    pub fn player_capacity(&self) -> usize {
        self.table
            .names
            .capacity()
            .min(self.table.keys.capacity())
            .min(self.table.players.capacity())
            .min(self.by_name.capacity())
    }

    /// Rows on the board: players named by a game or a reset whose results stand.
    pub fn total(&self) -> usize {
        self.index.len()
    }

    /// Games applied (counted or not), as in [`PeriodLedger::games`]; `NeedsRebuild` ones excluded.
    pub fn games_applied(&self) -> u64 {
        self.games_applied
    }

    fn rank_of_handle(&self, h: u32) -> Option<u32> {
        if !self.table.key(h).ranked {
            return None;
        }
        let key = self.table.key(h);
        let better = self.index.partition_point(|(k, q)| {
            k.ranked && self.table.compare_keys(*q, k, h, &key) == Ordering::Less
        });
        Some(u32::try_from(better + 1).unwrap_or(u32::MAX))
    }

    /// A player's shared rank: 1 + the ranked rows strictly better; `None` when not ranked
    /// (R-ONL-10, eliminated), cancelled or unknown.
    pub fn rank_of(&self, player: &str) -> Option<u32> {
        let h = self.handle(player)?;
        self.state(h)
            .is_some_and(PlayerState::shown)
            .then(|| self.rank_of_handle(h))
            .flatten()
    }

    /// A player's own row and rank (排行榜下方显示本人当轮情况); `None` without a row.
    pub fn row(&self, player: &str) -> Option<RankedRow> {
        let h = self.handle(player)?;
        if !self.state(h).is_some_and(PlayerState::shown) {
            return None;
        }
        Some(RankedRow {
            rank: self.rank_of_handle(h),
            row: self.table.standing(h),
        })
    }

    /// Whether a player's row shows them eliminated (R-ONL-3): `row(player)` says the same, but
    /// this builds no row (the live service asks it twice per player of every game it applies).
    pub fn is_eliminated(&self, player: &str) -> bool {
        self.handle(player)
            .and_then(|h| self.state(h))
            .is_some_and(|s| s.shown() && s.elimination.is_some())
    }

    /// Whether a player's row shows them eliminated (R-ONL-3) by the game `game_id`: after
    /// [`LivePeriod::apply_game`] counted that game, whether it is the one that eliminated him.
    /// Only an escape eliminates, so a caller asks only for a side whose result was one, and
    /// spares every other side of every game the lookups a before-and-after `is_eliminated` costs.
    pub fn eliminated_by(&self, player: &str, game_id: &str) -> bool {
        self.handle(player)
            .and_then(|h| self.state(h))
            .is_some_and(|s| {
                s.shown()
                    && s.elimination
                        .as_deref()
                        .is_some_and(|e| e.game_id == game_id)
            })
    }

    /// Where a player's row is on the board (0-based), for paging around it.
    pub fn position_of(&self, player: &str) -> Option<usize> {
        let h = self.handle(player)?;
        let table = &self.table;
        self.index
            .position(&table.entry(h), |a, b| table.before(a, b))
    }

    /// `size` rows of the board from position `offset`, in leaderboard order with their ranks:
    /// the same as `leaderboard(..).rows[offset..offset + size]`.
    pub fn page(&self, offset: usize, size: usize) -> Vec<RankedRow> {
        let mut rows = Vec::with_capacity(size.min(self.total().saturating_sub(offset)));
        let mut previous: Option<(&(RowKey, u32), u32)> = None;
        for (i, entry) in self.index.iter_from(offset).take(size).enumerate() {
            let (key, h) = entry;
            let rank = if key.ranked {
                let rank = match previous {
                    Some(((pk, p), rank))
                        if self.table.compare_keys(*p, pk, *h, key) == Ordering::Equal =>
                    {
                        rank
                    }
                    Some(_) => u32::try_from(offset + i + 1).unwrap_or(u32::MAX),
                    None => self.rank_of_handle(*h).unwrap_or(u32::MAX),
                };
                previous = Some((entry, rank));
                Some(rank)
            } else {
                None
            };
            rows.push(RankedRow {
                rank,
                row: self.table.standing(*h),
            });
        }
        rows
    }

    /// Every row, ordered by player id: the same as [`PeriodLedger::standings`] (for the cut when
    /// the period closes).
    pub fn standings(&self) -> Vec<StandingRow> {
        self.table
            .shown_by_name()
            .into_iter()
            .map(|h| self.table.standing(h))
            .collect()
    }

    /// Every shown player as a cut candidate, in no particular order (the cut orders them), with
    /// when their current line reached `line` points; `excluded` marks the eliminated (R-ONL-3).
    /// What a period's close needs from [`LivePeriod::standings`], without its sort by player id
    /// and its per-game progression: a national period is a million players. A [`Field`] without
    /// a check: the table holds each player once (one handle per interned name), and the ids are
    /// shared with it, not copied.
    pub fn candidates(&self, line: Option<i64>) -> Field {
        let t = &self.table;
        // Sized up front: a national period has a million players, and a vector grown by doubling
        // would copy them into freshly faulted pages several times over.
        let mut candidates = Vec::with_capacity(t.players.len());
        candidates.extend(
            (0u32..)
                .zip(t.players.iter().zip(&t.names))
                .filter(|(_, (p, _))| p.shown())
                .map(|(h, (state, name))| {
                    let key = t.key(h);
                    Candidate {
                        player: Arc::clone(name),
                        points: key.points,
                        wins: key.wins,
                        counted_games: key.wins + state.losses + state.draws + key.escapes,
                        total_game_secs: u64::try_from(key.game_time_ms / 1000).unwrap_or(0),
                        reached_line_at: line.and_then(|line| t.reached(h, &key, line)),
                        excluded: state.elimination.is_some(),
                    }
                }),
        );
        Field::of_distinct(candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::tests::{cn, rules, secs};
    use crate::scoring::{EndReason, GameFacts, ReportedResult};
    use crate::standings::{DEFAULT_TIE_BREAKS, leaderboard};
    use chrono::{NaiveDate, TimeDelta};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    use EndReason::{Escape, Normal};
    use ReportedResult::{Draw, FirstWins, SecondWins};

    /// go-2015 / xiangqi-2015 海选 period 1.
    fn p1_2015() -> PeriodDays {
        let d = |day| NaiveDate::from_ymd_opt(2015, 8, day).expect("date");
        PeriodDays {
            first_day: d(1),
            last_day: d(14),
        }
    }

    /// 2015 象棋海选 with the 2nd escape eliminating (R-ONL-3), for short cases.
    fn elim2() -> OnlineRules {
        let mut r = rules("xiangqi-2015", "haixuan");
        r.eliminate_at_escapes = Some(2);
        r
    }

    fn reached_tie_breaks() -> Vec<TieBreak> {
        vec![
            TieBreak::ReachedLineFirst { line: 2 },
            TieBreak::FewerEscapes,
            TieBreak::ReachedLineFirst { line: 4 },
            TieBreak::MoreWins,
        ]
    }

    /// The `n`-th 10-minute mark of 2015-08-02 from 10:00 China time.
    fn at(n: i64) -> DateTime<Utc> {
        cn(2015, 8, 2, 10, 0, 0) + TimeDelta::minutes(10 * n)
    }

    /// A game ending at mark `end`, 5 minutes long.
    fn game(
        id: &str,
        first: &str,
        second: &str,
        end: i64,
        reported: ReportedResult,
        how: EndReason,
    ) -> PeriodGame {
        PeriodGame {
            id: id.to_owned(),
            first_player: first.to_owned(),
            second_player: second.to_owned(),
            facts: GameFacts::plain(at(end) - secs(300), at(end), reported, how),
        }
    }

    fn reset(player: &str, mark: i64) -> ResetRequest {
        ResetRequest {
            player: player.to_owned(),
            at: at(mark),
        }
    }

    /// Everything applied so far, as the shell's database would hold it.
    #[derive(Debug, Clone, Default)]
    struct Stored {
        games: Vec<PeriodGame>,
        resets: Vec<ResetRequest>,
        cheaters: Vec<String>,
    }

    /// Asserts that the live period equals `compute_period` + `leaderboard` on `stored`.
    fn assert_same(live: &LivePeriod, r: &OnlineRules, stored: &Stored, tie_breaks: &[TieBreak]) {
        let ledger = compute_period(
            r,
            p1_2015(),
            &stored.games,
            &stored.resets,
            &stored.cheaters,
        );
        let board = leaderboard(r, &ledger.standings(), tie_breaks, None);
        assert_eq!(live.page(0, usize::MAX), board.rows);
        assert_eq!(live.total(), board.rows.len());
        assert_eq!(live.standings(), ledger.standings());
        assert_eq!(live.games_applied(), ledger.games.len() as u64);
        for (i, ranked) in board.rows.iter().enumerate() {
            let p = ranked.row.player.as_str();
            assert_eq!(live.row(p).as_ref(), Some(ranked), "{p}");
            assert_eq!(live.rank_of(p), ranked.rank, "{p}");
            assert_eq!(live.position_of(p), Some(i), "{p}");
            assert_eq!(live.is_eliminated(p), ranked.row.eliminated, "{p}");
        }
        for offset in 0..=board.rows.len() + 1 {
            for size in [0, 1, 2, 3] {
                let end = (offset + size).min(board.rows.len());
                let want = board.rows.get(offset.min(end)..end).unwrap_or(&[]);
                assert_eq!(live.page(offset, size), want, "page({offset}, {size})");
            }
        }
        for p in ledger.players.values().filter(|p| p.results_cancelled) {
            assert_eq!(live.row(&p.player), None);
            assert_eq!(live.rank_of(&p.player), None);
            assert!(!live.is_eliminated(&p.player));
        }
    }

    /// Applies games in order, checking each against the full recompute.
    fn apply_all(
        r: &OnlineRules,
        games: &[PeriodGame],
        tie_breaks: &[TieBreak],
    ) -> (LivePeriod, Stored) {
        let mut live = LivePeriod::new(*r, p1_2015(), tie_breaks.to_vec());
        let mut stored = Stored::default();
        for g in games {
            stored.games.push(g.clone());
            assert!(
                !matches!(live.apply_game(g), Applied::NeedsRebuild(_)),
                "{}",
                g.id
            );
            assert_same(&live, r, &stored, tie_breaks);
        }
        (live, stored)
    }

    /// Asserts that an item asked for a rebuild without changing anything.
    fn assert_unchanged(before: &LivePeriod, after: &LivePeriod) {
        assert_eq!(before.page(0, usize::MAX), after.page(0, usize::MAX));
        assert_eq!(before.standings(), after.standings());
        assert_eq!(before.games_applied(), after.games_applied());
    }

    // --- in-order and commutative late games ------------------------------------------------

    #[test]
    fn r_onl_9_games_in_period_order_give_the_computed_leaderboard_with_shared_ranks() {
        let r = rules("xiangqi-2015", "haixuan");
        let games = [
            game("g1", "a", "b", 1, FirstWins, Normal),
            game("g2", "c", "d", 1, FirstWins, Normal),
            game("g3", "e", "f", 2, Draw, Normal),
            game("g4", "a", "c", 3, Draw, Normal),
            game("g5", "b", "d", 4, SecondWins, Escape(Side::First)),
        ];
        for tb in [DEFAULT_TIE_BREAKS.to_vec(), reached_tie_breaks()] {
            let (live, _) = apply_all(&r, &games, &tb);
            let a = live.row("a").expect("row");
            assert_eq!((a.row.points, a.rank), (3, Some(1)));
        }
        // a and c tie on everything under the default tie-breaks: they share rank 1, the next is 3.
        let (live, _) = apply_all(&r, &games, &DEFAULT_TIE_BREAKS);
        let ranks: Vec<Option<u32>> = live.page(0, 3).iter().map(|r| r.rank).collect();
        assert_eq!(ranks, [Some(1), Some(1), Some(3)]);
    }

    #[test]
    fn r_onl_9_a_late_non_escape_game_is_commutative() {
        let r = elim2();
        for tb in [DEFAULT_TIE_BREAKS.to_vec(), reached_tie_breaks()] {
            let (mut live, mut stored) = apply_all(
                &r,
                &[
                    game("g1", "a", "b", 1, FirstWins, Normal),
                    game("g3", "a", "c", 5, SecondWins, Normal),
                    game("g4", "b", "c", 6, SecondWins, Escape(Side::First)),
                ],
                &tb,
            );
            let late = game("g2", "c", "a", 3, FirstWins, Normal);
            stored.games.push(late.clone());
            assert!(matches!(live.apply_game(&late), Applied::Counted(_)));
            assert_same(&live, &r, &stored, &tb);
            // a late escape below the elimination count is commutative too.
            let late = game("g0", "b", "d", 0, FirstWins, Escape(Side::Second));
            stored.games.push(late.clone());
            assert!(matches!(live.apply_game(&late), Applied::Counted(_)));
            assert_same(&live, &r, &stored, &tb);
        }
    }

    // --- R-ONL-3: elimination ---------------------------------------------------------------

    #[test]
    fn r_onl_3_a_late_game_after_the_elimination_counts_for_nobody() {
        let r = elim2();
        let (mut live, mut stored) = apply_all(
            &r,
            &[
                game("g1", "a", "b", 1, SecondWins, Escape(Side::First)),
                game("g2", "a", "c", 2, SecondWins, Escape(Side::First)),
                game("g4", "c", "b", 4, FirstWins, Normal),
            ],
            &DEFAULT_TIE_BREAKS,
        );
        assert!(
            live.row("a")
                .is_some_and(|r| r.row.eliminated && r.rank.is_none())
        );
        let late = game("g3", "b", "a", 3, FirstWins, Normal);
        stored.games.push(late.clone());
        assert_eq!(
            live.apply_game(&late),
            Applied::NotCounted(NotCounted::PlayerEliminated { player: "a".into() })
        );
        assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        // Same end instant as the eliminating game, larger id: after it, counts for nobody.
        let tie = game("g2z", "d", "a", 2, FirstWins, Normal);
        stored.games.push(tie.clone());
        assert_eq!(
            live.apply_game(&tie),
            Applied::NotCounted(NotCounted::PlayerEliminated { player: "a".into() })
        );
        assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        // Smaller id: before it, so it counts, placed before the eliminating game in a's line.
        let tie = game("g1z", "d", "a", 2, FirstWins, Normal);
        stored.games.push(tie.clone());
        assert!(matches!(live.apply_game(&tie), Applied::Counted(_)));
        assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
    }

    #[test]
    fn r_onl_9_late_games_ending_at_one_instant_take_their_place_by_game_id() {
        // xiangqi-2022: a loss costs 2 points, so the order within an instant decides whether
        // (and when) a line is reached: 1 + 2 (g5) reaches 2 before -2 (g7) takes it back.
        let mut r = rules("xiangqi-2022", "ruwei");
        r.play_hours = rules("xiangqi-2015", "haixuan").play_hours;
        let tb = reached_tie_breaks();
        // Both sides moved within the first-move limit (R-ONL-5), so the games count.
        let game = |id, first, second, end, result, how| {
            let mut g = game(id, first, second, end, result, how);
            g.facts.first_side_first_move = Some(secs(10));
            g.facts.second_side_first_move = Some(secs(10));
            g
        };
        let (mut live, mut stored) = apply_all(
            &r,
            &[
                game("g1", "a", "b", 1, Draw, Normal),
                game("g5", "a", "c", 3, FirstWins, Normal),
                game("g9", "d", "a", 3, FirstWins, Normal),
                game("g9z", "d", "e", 4, Draw, Normal),
            ],
            &tb,
        );
        for (id, first, second, result) in [
            ("g7", "a", "e", SecondWins),
            ("g0", "f", "a", FirstWins),
            ("g6", "b", "a", Draw),
            ("g9a", "a", "f", FirstWins),
        ] {
            let late = game(id, first, second, 3, result, Normal);
            stored.games.push(late.clone());
            let applied = live.apply_game(&late);
            assert!(
                matches!(&applied, Applied::Counted(o) if o.first.result.is_counted()),
                "{id}: {applied:?}"
            );
            assert_same(&live, &r, &stored, &tb);
        }
        // The same id again at that instant is a repeat, which the period counts for nobody.
        let again = game("g6", "b", "a", 3, Draw, Normal);
        let before = live.clone();
        assert_eq!(
            live.apply_game(&again),
            Applied::NeedsRebuild(RebuildReason::DuplicateId)
        );
        assert_unchanged(&before, &live);
    }

    #[test]
    fn r_onl_3_a_late_escape_that_eliminates_before_later_games_needs_a_rebuild() {
        let r = elim2();
        let (mut live, stored) = apply_all(
            &r,
            &[
                game("g1", "a", "b", 1, SecondWins, Escape(Side::First)),
                game("g3", "a", "c", 3, FirstWins, Normal),
            ],
            &DEFAULT_TIE_BREAKS,
        );
        // a's 2nd escape at mark 2 would uncount g3 (and c's loss in it).
        let late = game("g2", "a", "d", 2, SecondWins, Escape(Side::First));
        let before = live.clone();
        assert_eq!(
            live.apply_game(&late),
            Applied::NeedsRebuild(RebuildReason::EliminationUncounts)
        );
        assert_unchanged(&before, &live);
        let mut all = stored.clone();
        all.games.push(late);
        let rebuilt = LivePeriod::compute(
            r,
            p1_2015(),
            DEFAULT_TIE_BREAKS.to_vec(),
            &all.games,
            &[],
            &[],
        );
        assert_same(&rebuilt, &r, &all, &DEFAULT_TIE_BREAKS);
        assert_eq!(rebuilt.row("c").map(|c| c.row.counted_games()), Some(0));
    }

    #[test]
    fn r_onl_3_a_late_escape_that_eliminates_after_all_the_players_games_is_exact() {
        let r = elim2();
        let (mut live, mut stored) = apply_all(
            &r,
            &[
                game("g1", "a", "b", 1, SecondWins, Escape(Side::First)),
                game("g5", "b", "c", 5, FirstWins, Normal),
            ],
            &DEFAULT_TIE_BREAKS,
        );
        let late = game("g3", "d", "a", 3, FirstWins, Escape(Side::Second));
        stored.games.push(late.clone());
        assert!(matches!(live.apply_game(&late), Applied::Counted(_)));
        assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        assert!(live.row("a").is_some_and(|a| a.row.eliminated));
    }

    #[test]
    fn r_onl_3_eliminated_by_names_only_the_eliminating_game() {
        let r = elim2();
        let (mut live, _) = apply_all(
            &r,
            &[game("g1", "a", "b", 1, SecondWins, Escape(Side::First))],
            &DEFAULT_TIE_BREAKS,
        );
        // One escape of two: not yet eliminated, by g1 or anything else.
        assert!(!live.eliminated_by("a", "g1"));
        let second = game("g2", "a", "c", 2, SecondWins, Escape(Side::First));
        assert!(matches!(live.apply_game(&second), Applied::Counted(_)));
        assert!(live.is_eliminated("a"));
        assert!(live.eliminated_by("a", "g2"));
        assert!(!live.eliminated_by("a", "g1"));
        // The opponents, and players the period has never seen, are eliminated by nothing.
        assert!(!live.eliminated_by("c", "g2"));
        assert!(!live.eliminated_by("z", "g2"));
    }

    #[test]
    fn r_onl_3_a_late_escape_before_an_elimination_moves_it_and_needs_a_rebuild() {
        let r = elim2();
        let (mut live, _) = apply_all(
            &r,
            &[
                game("g1", "a", "b", 1, SecondWins, Escape(Side::First)),
                game("g5", "a", "c", 5, SecondWins, Escape(Side::First)),
            ],
            &DEFAULT_TIE_BREAKS,
        );
        let before = live.clone();
        let late = game("g3", "a", "d", 3, SecondWins, Escape(Side::First));
        assert_eq!(
            live.apply_game(&late),
            Applied::NeedsRebuild(RebuildReason::EliminationMoves)
        );
        assert_unchanged(&before, &live);
    }

    // --- R-ONL-7: resets --------------------------------------------------------------------

    #[test]
    fn r_onl_7_resets_after_the_players_games_open_a_line_and_others_need_a_rebuild() {
        let r = elim2();
        let tb = reached_tie_breaks();
        let (mut live, mut stored) = apply_all(
            &r,
            &[
                game("g1", "a", "b", 1, FirstWins, Normal),
                game("g2", "a", "b", 2, FirstWins, Normal),
            ],
            &tb,
        );
        // At the very end of g2: g2 stays in the old line.
        let r1 = reset("a", 2);
        stored.resets.push(r1.clone());
        assert_eq!(live.apply_reset(&r1), ResetApplied::Opened);
        assert_same(&live, &r, &stored, &tb);
        assert_eq!(live.row("a").map(|a| a.row.points), Some(0));
        // Repeated, or earlier than the latest: a line in the history only.
        for past in [reset("a", 2), reset("a", 1)] {
            stored.resets.push(past.clone());
            assert_eq!(live.apply_reset(&past), ResetApplied::Unchanged);
            assert_same(&live, &r, &stored, &tb);
        }
        let g3 = game("g3", "a", "b", 4, FirstWins, Normal);
        stored.games.push(g3.clone());
        assert!(matches!(live.apply_game(&g3), Applied::Counted(_)));
        // A late game of an older line: only the period's escapes change.
        let old = game("g0", "a", "c", 0, SecondWins, Escape(Side::First));
        stored.games.push(old.clone());
        assert!(matches!(live.apply_game(&old), Applied::Counted(_)));
        assert_same(&live, &r, &stored, &tb);
        assert_eq!(
            live.row("a")
                .map(|a| (a.row.points, a.row.escapes, a.row.period_escapes)),
            Some((2, 0, 1))
        );
        // A reset before g3's end would move it to a new line.
        let before = live.clone();
        assert_eq!(
            live.apply_reset(&reset("a", 3)),
            ResetApplied::NeedsRebuild(RebuildReason::ResetBeforeLaterGames)
        );
        assert_unchanged(&before, &live);
        // A reset of a player without games names him.
        let new = reset("z", 3);
        stored.resets.push(new.clone());
        assert_eq!(live.apply_reset(&new), ResetApplied::Opened);
        assert_same(&live, &r, &stored, &tb);
    }

    #[test]
    fn r_onl_7_resets_are_ignored_where_the_stage_has_none_but_name_the_player() {
        let r = rules("xiangqi-2022", "haixuan");
        let mut live = LivePeriod::new(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec());
        let mut stored = Stored::default();
        let g = PeriodGame {
            id: "g1".into(),
            first_player: "a".into(),
            second_player: "b".into(),
            facts: GameFacts::plain(
                cn(2015, 8, 2, 12, 0, 0),
                cn(2015, 8, 2, 12, 10, 0),
                FirstWins,
                Normal,
            ),
        };
        stored.games.push(g.clone());
        assert!(matches!(live.apply_game(&g), Applied::Counted(_)));
        for reset in [reset("a", 0), reset("x", 50)] {
            stored.resets.push(reset.clone());
            assert_eq!(live.apply_reset(&reset), ResetApplied::Ignored);
            assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        }
        assert_eq!(live.row("a").map(|a| a.row.points), Some(2));
    }

    // --- R-ONL-8: cheating ------------------------------------------------------------------

    #[test]
    fn r_onl_8_a_cancelled_player_has_no_row_now_or_later_and_opponents_keep_theirs() {
        let r = elim2();
        let (mut live, mut stored) = apply_all(
            &r,
            &[game("g1", "cheat", "a", 1, FirstWins, Normal)],
            &DEFAULT_TIE_BREAKS,
        );
        for c in ["cheat", "later"] {
            stored.cheaters.push(c.into());
            live.cancel_results(c);
            assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        }
        for g in [
            game("g2", "later", "a", 2, FirstWins, Escape(Side::Second)),
            game("g3", "b", "cheat", 3, FirstWins, Normal),
        ] {
            stored.games.push(g.clone());
            assert!(matches!(live.apply_game(&g), Applied::Counted(_)));
            assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        }
        assert_eq!(live.row("later"), None);
        assert_eq!(live.row("a").map(|a| a.row.points), Some(-4));
    }

    #[test]
    fn a_period_reserved_for_its_entrants_holds_them_without_growing_and_ranks_the_same() {
        let r = elim2();
        let mut live = LivePeriod::new(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec());
        live.reserve_players(300);
        let room = live.player_capacity();
        assert!(room >= 300, "{room}");
        let mut stored = Stored::default();
        for i in 0..150 {
            let g = game(
                &format!("g{i}"),
                &format!("p{i}"),
                &format!("q{i}"),
                // Within the day's play hours.
                i64::from(i % 50) + 1,
                if i % 3 == 0 { Draw } else { FirstWins },
                Normal,
            );
            stored.games.push(g.clone());
            let applied = live.apply_game(&g);
            assert!(matches!(applied, Applied::Counted(_)), "{i}: {applied:?}");
        }
        assert_eq!(
            live.player_capacity(),
            room,
            "300 players fit in the room reserved"
        );
        assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        // Reserving less than the period holds, or again, changes nothing.
        live.reserve_players(10);
        live.reserve_players(300);
        assert_eq!(live.player_capacity(), room);
        assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
    }

    // --- not counted, duplicates ------------------------------------------------------------

    #[test]
    fn r_str_4_games_counting_for_nobody_still_name_their_players() {
        let r = elim2();
        let mut live = LivePeriod::new(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec());
        let mut stored = Stored::default();
        let mut early = game("g1", "a", "b", 1, FirstWins, Normal);
        early.facts.started_at = cn(2015, 8, 2, 8, 0, 0);
        let same = game("g2", "c", "c", 2, FirstWins, Normal);
        let mut broken = game("g3", "d", "e", 3, FirstWins, Normal);
        broken.facts.ended_at = broken.facts.started_at - secs(1);
        let expected = [
            NotCounted::OutsidePlayTime(PlayTime::OutsideHours),
            NotCounted::SamePlayerOnBothSides,
            NotCounted::InvalidFacts(crate::scoring::FactsError::EndsBeforeStart),
        ];
        for (g, reason) in [early, same, broken].into_iter().zip(expected) {
            stored.games.push(g.clone());
            assert_eq!(live.apply_game(&g), Applied::NotCounted(reason));
            assert_same(&live, &r, &stored, &DEFAULT_TIE_BREAKS);
        }
        assert_eq!(live.total(), 5);
    }

    #[test]
    fn a_repeated_latest_game_id_asks_for_a_rebuild() {
        let r = elim2();
        let (mut live, _) = apply_all(
            &r,
            &[game("g1", "a", "b", 1, FirstWins, Normal)],
            &DEFAULT_TIE_BREAKS,
        );
        let before = live.clone();
        assert_eq!(
            live.apply_game(&game("g1", "a", "b", 1, SecondWins, Normal)),
            Applied::NeedsRebuild(RebuildReason::DuplicateId)
        );
        assert_unchanged(&before, &live);
    }

    #[test]
    fn from_ledger_equals_applying_game_by_game() {
        let r = elim2();
        let games = [
            game("g1", "a", "b", 1, FirstWins, Normal),
            game("g2", "a", "c", 2, Draw, Normal),
            game("g3", "c", "b", 3, SecondWins, Escape(Side::First)),
        ];
        let tb = reached_tie_breaks();
        let (live, stored) = apply_all(&r, &games, &tb);
        let rebuilt = LivePeriod::compute(r, p1_2015(), tb.clone(), &stored.games, &[], &[]);
        assert_eq!(rebuilt.page(0, usize::MAX), live.page(0, usize::MAX));
        assert_same(&rebuilt, &r, &stored, &tb);
    }

    #[test]
    fn per_player_memory_stays_small() {
        fn shared_across_threads<T: Send + Sync>() {}
        shared_across_threads::<LivePeriod>();
        assert_eq!(std::mem::size_of::<Step>(), 24);
        assert!(
            std::mem::size_of::<RowKey>() <= 48,
            "{}",
            std::mem::size_of::<RowKey>()
        );
        assert!(
            std::mem::size_of::<PlayerState>() <= 96,
            "{}",
            std::mem::size_of::<PlayerState>()
        );
    }

    // --- RankIndex --------------------------------------------------------------------------

    #[test]
    fn rank_index_keeps_order_and_positions_through_splits_and_merges() {
        // Entries (key, handle) ordered by key then handle; keys change as on a leaderboard.
        let mut keys: Vec<u64> = (0..6000u64).map(|i| (i * 7919) % 1009).collect();
        let mut index: RankIndex<u64> = RankIndex::new();
        let mut model: BTreeSet<(u64, u32)> = BTreeSet::new();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let before = |a: &(u64, u32), b: &(u64, u32)| a < b;
        let mut present = vec![false; keys.len()];
        for step in 0..30_000 {
            let h = (next() % keys.len() as u64) as u32;
            let i = h as usize;
            if present[i] {
                assert!(index.remove(&(keys[i], h), before));
                model.remove(&(keys[i], h));
                present[i] = false;
                if step % 3 == 0 {
                    keys[i] = next() % 1009;
                    index.insert((keys[i], h), before);
                    model.insert((keys[i], h));
                    present[i] = true;
                }
            } else {
                index.insert((keys[i], h), before);
                model.insert((keys[i], h));
                present[i] = true;
            }
            if step % 997 == 0 {
                let order: Vec<(u64, u32)> = index.iter_from(0).copied().collect();
                let want: Vec<(u64, u32)> = model.iter().copied().collect();
                assert_eq!(order, want);
                assert_eq!(index.len(), model.len());
                for (i, e) in want.iter().enumerate().step_by(37) {
                    assert_eq!(index.get(i), Some(e));
                    assert_eq!(index.position(e, before), Some(i));
                    assert_eq!(
                        index.partition_point(|q| q.0 < e.0),
                        model.range(..(e.0, 0)).count()
                    );
                    assert_eq!(index.iter_from(i).next(), Some(e));
                }
                assert_eq!(index.get(want.len()), None);
                assert!(!index.remove(&(2000, 999_999), before));
            }
        }
        let sorted: Vec<(u64, u32)> = index.iter_from(0).copied().collect();
        let rebuilt = RankIndex::from_sorted(&sorted);
        assert_eq!(rebuilt.iter_from(0).copied().collect::<Vec<_>>(), sorted);
    }

    // --- properties -------------------------------------------------------------------------

    #[derive(Debug, Clone)]
    enum Item {
        Game(PeriodGame),
        Reset(ResetRequest),
        Cancel(String, DateTime<Utc>),
    }

    impl Item {
        /// When the item happened: a game's end, a reset's instant.
        fn sort_key(&self) -> (DateTime<Utc>, u8, String) {
            match self {
                Item::Game(g) => (g.facts.ended_at, 1, g.id.clone()),
                Item::Reset(r) => (r.at, 0, r.player.clone()),
                Item::Cancel(p, at) => (*at, 2, p.clone()),
            }
        }
    }

    /// The stage variants: 0 = 2015 海选 with the 2nd escape eliminating and 2 games to be ranked;
    /// 1 = a first-move (void) rule with resets and the 3rd escape eliminating; 2 = no resets, no
    /// elimination.
    fn variant_rules(variant: u8) -> OnlineRules {
        let hours = rules("xiangqi-2015", "haixuan").play_hours;
        match variant {
            0 => {
                let mut r = elim2();
                r.min_games_ranked = 2;
                r.points.escape_opponent = 3;
                r
            }
            1 => {
                let mut r = rules("xiangqi-2022", "ruwei");
                r.play_hours = hours;
                r.resets_allowed = true;
                r.eliminate_at_escapes = Some(3);
                r
            }
            _ => {
                let mut r = rules("xiangqi-2022", "ruwei");
                r.play_hours = hours;
                r
            }
        }
    }

    fn arb_items() -> impl Strategy<Value = (u8, Vec<Item>)> {
        let players = 4usize;
        let arb_game = (
            0..players,
            0..players,
            0i64..10,
            1i64..4,
            0u8..3,
            0u8..6,
            0u8..3,
        );
        (
            0u8..3,
            proptest::collection::vec(arb_game, 0..24),
            proptest::collection::vec((0..players, 0i64..24), 0..5),
            proptest::collection::vec((0..players, 0i64..24), 0..2),
        )
            .prop_map(move |(variant, games, resets, cancels)| {
                // 08:20 China time: the first slots are outside the 09:00-23:00 hours.
                let base = cn(2015, 8, 2, 8, 20, 0);
                let name = |i: usize| format!("p{i}");
                let mut items = Vec::new();
                for (i, (a, b, slot, len, rep, end, first_move)) in games.into_iter().enumerate() {
                    let start = base + TimeDelta::minutes(20 * slot);
                    let reported = [FirstWins, SecondWins, Draw][usize::from(rep)];
                    let how = [
                        Normal,
                        EndReason::Resignation,
                        Escape(Side::First),
                        Escape(Side::Second),
                        Escape(Side::First),
                        Normal,
                    ][usize::from(end)];
                    let mut facts = GameFacts::plain(
                        start,
                        start + TimeDelta::minutes(10 * len),
                        reported,
                        how,
                    );
                    facts.first_side_first_move =
                        [None, Some(secs(30)), Some(secs(90))][usize::from(first_move)];
                    items.push(Item::Game(PeriodGame {
                        id: format!("g{i:02}"),
                        first_player: name(a),
                        second_player: name(b),
                        facts,
                    }));
                }
                for (p, m) in resets {
                    items.push(Item::Reset(ResetRequest {
                        player: name(p),
                        at: base + TimeDelta::minutes(10 * m),
                    }));
                }
                for (p, m) in cancels {
                    items.push(Item::Cancel(name(p), base + TimeDelta::minutes(10 * m)));
                }
                (variant, items)
            })
    }

    /// Applies the items in order, rebuilding on `NeedsRebuild`, and checks every step against
    /// the full recompute. Returns the number of rebuilds.
    fn replay(
        r: &OnlineRules,
        items: &[Item],
        tie_breaks: &[TieBreak],
    ) -> Result<usize, TestCaseError> {
        let mut live = LivePeriod::new(*r, p1_2015(), tie_breaks.to_vec());
        let mut stored = Stored::default();
        let mut rebuilds = 0;
        for item in items {
            let before = live.clone();
            let rebuild = match item {
                Item::Game(g) => {
                    stored.games.push(g.clone());
                    let applied = live.apply_game(g);
                    let ledger = compute_period(
                        r,
                        p1_2015(),
                        &stored.games,
                        &stored.resets,
                        &stored.cheaters,
                    );
                    let verdict = ledger
                        .games
                        .iter()
                        .find(|v| v.game_id == g.id)
                        .map(|v| v.status.clone());
                    match applied {
                        Applied::Counted(o) => {
                            prop_assert_eq!(verdict, Some(GameStatus::Counted(o)))
                        }
                        Applied::NotCounted(ref n) => {
                            prop_assert_eq!(verdict, Some(GameStatus::NotCounted(n.clone())))
                        }
                        Applied::NeedsRebuild(_) => {}
                    }
                    matches!(applied, Applied::NeedsRebuild(_))
                }
                Item::Reset(reset) => {
                    stored.resets.push(reset.clone());
                    matches!(live.apply_reset(reset), ResetApplied::NeedsRebuild(_))
                }
                Item::Cancel(p, _) => {
                    stored.cheaters.push(p.clone());
                    live.cancel_results(p);
                    false
                }
            };
            if rebuild {
                prop_assert_eq!(before.page(0, usize::MAX), live.page(0, usize::MAX));
                prop_assert_eq!(before.standings(), live.standings());
                rebuilds += 1;
                live = LivePeriod::compute(
                    *r,
                    p1_2015(),
                    tie_breaks.to_vec(),
                    &stored.games,
                    &stored.resets,
                    &stored.cheaters,
                );
            }
            // Every other item, the period goes on from its checkpoint (a restart): what follows
            // must apply exactly as it would have to the period never written.
            if stored.games.len() % 2 == 1 {
                live = LivePeriod::restore(*r, p1_2015(), tie_breaks.to_vec(), live.checkpoint())
                    .map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
            let ledger = compute_period(
                r,
                p1_2015(),
                &stored.games,
                &stored.resets,
                &stored.cheaters,
            );
            let board = leaderboard(r, &ledger.standings(), tie_breaks, None);
            prop_assert_eq!(live.page(0, usize::MAX), board.rows.clone());
            prop_assert_eq!(live.standings(), ledger.standings());
            // R-ADV: a close's candidates are the standings' rows, whatever the points line.
            for line in [None, Some(2), Some(5)] {
                let mut got = live.candidates(line).into_candidates();
                got.sort_by(|a, b| a.player.cmp(&b.player));
                let want: Vec<Candidate> = ledger
                    .standings()
                    .into_iter()
                    .map(|row| Candidate {
                        counted_games: row.counted_games(),
                        total_game_secs: u64::try_from(row.game_time_ms / 1000).unwrap_or(0),
                        reached_line_at: line.and_then(|l| row.reached_at(l)),
                        excluded: row.eliminated,
                        points: row.points,
                        wins: row.wins,
                        player: row.player.into(),
                    })
                    .collect();
                prop_assert_eq!(got, want);
            }
            prop_assert_eq!(live.total(), board.rows.len());
            prop_assert_eq!(live.games_applied(), ledger.games.len() as u64);
            for p in ledger.players.keys() {
                let want = board.rows.iter().find(|row| &row.row.player == p);
                let got = live.row(p);
                prop_assert_eq!(got.as_ref(), want);
                prop_assert_eq!(live.rank_of(p), want.and_then(|w| w.rank));
            }
            if let Some(mid) = board.rows.len().checked_div(2) {
                prop_assert_eq!(
                    live.page(mid, 2),
                    board.rows[mid..(mid + 2).min(board.rows.len())].to_vec()
                );
            }
        }
        Ok(rebuilds)
    }

    #[test]
    fn a_checkpoint_restores_only_under_its_own_rules_and_format() {
        let r = elim2();
        let mut live = LivePeriod::new(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec());
        live.apply_game(&game("g1", "a", "b", 1, FirstWins, Normal));
        live.apply_game(&game("g2", "c", "a", 2, SecondWins, Escape(Side::First)));
        let bytes = live.checkpoint();
        let back = LivePeriod::restore(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec(), &bytes)
            .expect("restores");
        assert_eq!(back.page(0, 10), live.page(0, 10));
        assert_eq!(
            LivePeriod::restore(r, p1_2015(), reached_tie_breaks(), &bytes).err(),
            Some(CheckpointError::RulesChanged)
        );
        let mut other = bytes.clone();
        other[0] = 9;
        assert_eq!(
            LivePeriod::restore(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec(), &other).err(),
            Some(CheckpointError::Format { found: 9 })
        );
        assert!(
            LivePeriod::restore(
                r,
                p1_2015(),
                DEFAULT_TIE_BREAKS.to_vec(),
                &bytes[..bytes.len() / 2]
            )
            .is_err()
        );
    }

    proptest! {
        #[test]
        fn a_checkpoint_read_from_arbitrary_bytes_is_refused_or_consistent(
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            let r = elim2();
            if let Ok(live) = LivePeriod::restore(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec(), &bytes) {
                let rows = live.page(0, usize::MAX);
                prop_assert_eq!(rows.len(), live.total());
                for row in &rows {
                    prop_assert_eq!(live.row(&row.row.player), Some(row.clone()));
                }
            }
        }

        #[test]
        fn a_checkpoint_with_one_byte_changed_is_refused_or_consistent(
            (variant, items) in arb_items(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
        ) {
            let r = variant_rules(variant);
            let mut live = LivePeriod::new(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec());
            for item in &items {
                if let Item::Game(g) = item {
                    live.apply_game(g);
                }
            }
            let mut bytes = live.checkpoint();
            let i = at.index(bytes.len());
            bytes[i] = byte;
            if let Ok(back) = LivePeriod::restore(r, p1_2015(), DEFAULT_TIE_BREAKS.to_vec(), &bytes) {
                let rows = back.page(0, usize::MAX);
                prop_assert_eq!(rows.len(), back.total());
                for item in &items {
                    if let Item::Game(g) = item {
                        let mut again = back.clone();
                        again.apply_game(g);
                    }
                }
            }
        }

        #[test]
        fn r_onl_9_live_standings_equal_the_recomputed_period_in_any_arrival_order(
            (variant, items) in arb_items().prop_flat_map(|(v, items)| (Just(v), Just(items).prop_shuffle())),
        ) {
            let r = variant_rules(variant);
            for tb in [DEFAULT_TIE_BREAKS.to_vec(), reached_tie_breaks()] {
                replay(&r, &items, &tb)?;
            }
        }

        #[test]
        fn r_onl_9_games_without_resets_or_escape_eliminations_never_need_a_rebuild(
            items in arb_items().prop_flat_map(|(_, items)| Just(items).prop_shuffle()),
        ) {
            // xiangqi-2022 / go-2025 海选: late games in any order, same instants included.
            let r = variant_rules(2);
            let games: Vec<Item> = items.into_iter().filter(|i| matches!(i, Item::Game(_))).collect();
            for tb in [DEFAULT_TIE_BREAKS.to_vec(), reached_tie_breaks()] {
                prop_assert_eq!(replay(&r, &games, &tb)?, 0);
            }
        }

        #[test]
        fn r_onl_9_items_in_period_order_never_need_a_rebuild((variant, mut items) in arb_items()) {
            let r = variant_rules(variant);
            items.sort_by_key(Item::sort_key);
            for tb in [DEFAULT_TIE_BREAKS.to_vec(), reached_tie_breaks()] {
                prop_assert_eq!(replay(&r, &items, &tb)?, 0);
            }
        }
    }
}
