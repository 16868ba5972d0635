//! Period score lines, standings and the leaderboard of an online points stage (R-ONL-3, R-ONL-7,
//! R-ONL-8, R-ONL-9, R-ONL-10).
//!
//! A period is computed as a whole from the set of its games ([`compute_period`]), never game by
//! game as reports arrive: games are taken in the order (end instant, game id), so the result does
//! not depend on the order the platform reported them in, and the elimination of one player
//! (R-ONL-3) correctly stops the counting of their opponents' later games. The shell recomputes
//! the period whenever a game, a reset or a cheating verdict arrives (the leaderboard is "live",
//! R-ONL-9).
//!
//! Each player has one or more score lines ([`ScoreLine`]) per period: a reset (清零, R-ONL-7) opens a
//! new line and keeps the old ones as history; only the current (last) line counts, for the
//! leaderboard, the minimum-games rules and certificates. [`StandingRow`] is a player's row built
//! from the current line; [`leaderboard`] ranks the rows.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Utc};

use crate::scoring::{
    CountedResult, FactsError, GameFacts, GameOutcome, OnlineRules, PeriodDays, PlayTime, Side,
    judge_play_time, score_game,
};

/// One finished game of a period, as reported by the platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodGame {
    /// The platform's game id, unique in the period.
    pub id: String,
    /// The player on the side that moves first.
    pub first_player: String,
    pub second_player: String,
    pub facts: GameFacts,
}

/// A player's request to reset his period score (清零, R-ONL-7).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ResetRequest {
    pub player: String,
    pub at: DateTime<Utc>,
}

/// Why a game counts for nobody.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotCounted {
    /// Two or more reported games share this id; none of them counts until the platform's data is
    /// corrected. Reading: keeping either would depend on report order.
    DuplicateId,
    /// The same player is on both sides.
    SamePlayerOnBothSides,
    /// The game started outside the period or the play hours (R-STR-4).
    OutsidePlayTime(PlayTime),
    /// The facts cannot be scored.
    InvalidFacts(FactsError),
    /// The player had been eliminated by escapes earlier in the period (R-ONL-3): the game counts
    /// for neither side.
    PlayerEliminated { player: String },
}

/// What a game counts as in the period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GameStatus {
    Counted(GameOutcome),
    NotCounted(NotCounted),
}

/// The period's verdict on one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameVerdict {
    pub game_id: String,
    pub ended_at: DateTime<Utc>,
    pub status: GameStatus,
}

/// One game in a player's score line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineEntry {
    pub game_id: String,
    pub opponent: String,
    pub started_at: DateTime<Utc>,
    pub ended_at: DateTime<Utc>,
    pub result: CountedResult,
    pub points: i64,
}

/// A score line: the player's games from the start of the period, or from a reset, up to the next
/// reset (R-ONL-7). Entries are in (end instant, game id) order; void games are kept but not counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreLine {
    /// The reset that opened this line; `None` for the period's first line.
    pub opened_at: Option<DateTime<Utc>>,
    pub entries: Vec<LineEntry>,
}

/// When and by which game a player was eliminated (R-ONL-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elimination {
    pub at: DateTime<Utc>,
    pub game_id: String,
}

/// Everything about one player in one period: all score lines (history kept), escapes over the
/// whole period, elimination and cancellation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerLedger {
    pub player: String,
    /// Never empty: the last line is the current one.
    pub lines: Vec<ScoreLine>,
    /// Escapes over the whole period, across resets (R-ONL-3 elimination counts these).
    pub period_escapes: u32,
    pub eliminated: Option<Elimination>,
    /// Verified cheating cancelled the player's results (R-ONL-8).
    pub results_cancelled: bool,
}

impl PlayerLedger {
    /// The line that counts (R-ONL-7).
    pub fn current_line(&self) -> Option<&ScoreLine> {
        self.lines.last()
    }

    /// The player's row, from the current line.
    pub fn standing(&self) -> StandingRow {
        let mut row = StandingRow {
            player: self.player.clone(),
            points: 0,
            wins: 0,
            losses: 0,
            draws: 0,
            escapes: 0,
            voids: 0,
            game_time_ms: 0,
            progression: Vec::new(),
            period_escapes: self.period_escapes,
            eliminated: self.eliminated.is_some(),
        };
        for e in self
            .current_line()
            .map(|l| l.entries.as_slice())
            .unwrap_or(&[])
        {
            match e.result {
                CountedResult::Win => row.wins += 1,
                CountedResult::Loss => row.losses += 1,
                CountedResult::Draw => row.draws += 1,
                CountedResult::Escape => row.escapes += 1,
                CountedResult::Void => {
                    row.voids += 1;
                    continue;
                }
            }
            row.points = row.points.saturating_add(e.points);
            row.game_time_ms = row.game_time_ms.saturating_add(
                e.ended_at
                    .signed_duration_since(e.started_at)
                    .num_milliseconds(),
            );
            row.progression.push((e.ended_at, row.points));
        }
        row
    }
}

/// A whole period computed from its games, resets and cheating verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodLedger {
    /// Every reported game's verdict, in (end instant, game id) order.
    pub games: Vec<GameVerdict>,
    pub players: BTreeMap<String, PlayerLedger>,
    /// Reset requests refused because the stage allows none (R-ONL-7: 2022/2025), sorted.
    pub ignored_resets: Vec<ResetRequest>,
}

impl PeriodLedger {
    /// The rows of every player whose results stand, ordered by player id. Players whose results
    /// were cancelled for cheating (R-ONL-8) have no row.
    pub fn standings(&self) -> Vec<StandingRow> {
        self.players
            .values()
            .filter(|p| !p.results_cancelled)
            .map(PlayerLedger::standing)
            .collect()
    }
}

/// Computes one period of one online points stage from all its games (R-ONL-3, R-ONL-7, R-ONL-8,
/// R-STR-4).
///
/// - Games are taken in (end instant, game id) order. A game counts for nobody if its id is
///   duplicated, the same player is on both sides, it started outside the period's days or the
///   play hours, its facts cannot be scored, or one of its players was already eliminated.
/// - A counted game goes to each player's line that was current when the game ended. Reading: a
///   reset at the very instant a game ended comes after that game.
/// - Escapes are counted over the whole period across resets; with `eliminate_at_escapes = n`, the
///   n-th escape eliminates (the game of that escape still counts for both sides), and the player's
///   later games count for neither side.
/// - Reading (R-ONL-8): cheating cancels the cheater's results in the period (no row, nothing
///   ranked) but changes nothing for anyone else: the cheater's games, escapes and elimination are
///   computed as if there had been no verdict, so the opponents keep exactly their results.
/// - Resets where the stage allows none are ignored and listed.
pub fn compute_period(
    rules: &OnlineRules,
    days: PeriodDays,
    games: &[PeriodGame],
    resets: &[ResetRequest],
    cheaters: &[String],
) -> PeriodLedger {
    let mut ignored_resets = Vec::new();
    let mut reset_times: BTreeMap<&str, BTreeSet<DateTime<Utc>>> = BTreeMap::new();
    for r in resets {
        if rules.resets_allowed {
            reset_times.entry(&r.player).or_default().insert(r.at);
        } else {
            ignored_resets.push(r.clone());
        }
    }
    ignored_resets.sort();
    ignored_resets.dedup();

    let mut players: BTreeMap<String, PlayerLedger> = BTreeMap::new();
    let names = games
        .iter()
        .flat_map(|g| [g.first_player.as_str(), g.second_player.as_str()])
        .chain(resets.iter().map(|r| r.player.as_str()));
    for name in names {
        players.entry(name.to_owned()).or_insert_with(|| {
            let times = reset_times.get(name);
            let lines = std::iter::once(None)
                .chain(times.into_iter().flatten().map(|t| Some(*t)))
                .map(|opened_at| ScoreLine {
                    opened_at,
                    entries: Vec::new(),
                })
                .collect();
            PlayerLedger {
                player: name.to_owned(),
                lines,
                period_escapes: 0,
                eliminated: None,
                results_cancelled: cheaters.iter().any(|c| c == name),
            }
        });
    }

    let mut id_count: BTreeMap<&str, usize> = BTreeMap::new();
    for g in games {
        *id_count.entry(&g.id).or_default() += 1;
    }
    let mut order: Vec<&PeriodGame> = games.iter().collect();
    order.sort_by(|a, b| (a.facts.ended_at, &a.id).cmp(&(b.facts.ended_at, &b.id)));

    let mut verdicts = Vec::with_capacity(order.len());
    for g in order {
        let status = match judge_game(rules, days, g, &id_count, &players) {
            Ok(outcome) => {
                for (side, me, opponent) in [
                    (Side::First, &g.first_player, &g.second_player),
                    (Side::Second, &g.second_player, &g.first_player),
                ] {
                    if let Some(p) = players.get_mut(me.as_str()) {
                        record(rules, p, g, side, opponent, &outcome);
                    }
                }
                GameStatus::Counted(outcome)
            }
            Err(reason) => GameStatus::NotCounted(reason),
        };
        verdicts.push(GameVerdict {
            game_id: g.id.clone(),
            ended_at: g.facts.ended_at,
            status,
        });
    }
    PeriodLedger {
        games: verdicts,
        players,
        ignored_resets,
    }
}

fn judge_game(
    rules: &OnlineRules,
    days: PeriodDays,
    g: &PeriodGame,
    id_count: &BTreeMap<&str, usize>,
    players: &BTreeMap<String, PlayerLedger>,
) -> Result<GameOutcome, NotCounted> {
    if id_count.get(g.id.as_str()).copied().unwrap_or(0) > 1 {
        return Err(NotCounted::DuplicateId);
    }
    if g.first_player == g.second_player {
        return Err(NotCounted::SamePlayerOnBothSides);
    }
    match judge_play_time(&rules.play_hours, days, g.facts.started_at) {
        PlayTime::Inside => {}
        other => return Err(NotCounted::OutsidePlayTime(other)),
    }
    let outcome = score_game(rules, &g.facts).map_err(NotCounted::InvalidFacts)?;
    for name in [&g.first_player, &g.second_player] {
        if players.get(name).is_some_and(|p| p.eliminated.is_some()) {
            return Err(NotCounted::PlayerEliminated {
                player: name.clone(),
            });
        }
    }
    Ok(outcome)
}

fn record(
    rules: &OnlineRules,
    p: &mut PlayerLedger,
    g: &PeriodGame,
    side: Side,
    opponent: &str,
    outcome: &GameOutcome,
) {
    let mine = outcome.side(side);
    let ended_at = g.facts.ended_at;
    // The line current when the game ended: the last line opened strictly before the end.
    let index = p
        .lines
        .iter()
        .rposition(|l| l.opened_at.is_none_or(|t| t < ended_at))
        .unwrap_or(0);
    if let Some(line) = p.lines.get_mut(index) {
        line.entries.push(LineEntry {
            game_id: g.id.clone(),
            opponent: opponent.to_owned(),
            started_at: g.facts.started_at,
            ended_at,
            result: mine.result,
            points: mine.points,
        });
    }
    if mine.result == CountedResult::Escape {
        p.period_escapes = p.period_escapes.saturating_add(1);
        if p.eliminated.is_none()
            && rules
                .eliminate_at_escapes
                .is_some_and(|n| p.period_escapes >= n)
        {
            p.eliminated = Some(Elimination {
                at: ended_at,
                game_id: g.id.clone(),
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rows (R-ONL-9)

/// A win rate as an exact fraction (wins / counted games); ordered and compared exactly, never as
/// a float.
#[derive(Debug, Clone, Copy)]
pub struct WinRate {
    pub wins: u32,
    /// Counted games, > 0.
    pub games: u32,
}

impl WinRate {
    /// Per mille, rounded half up (19/20 → 950).
    pub fn per_mille(self) -> u32 {
        rounded_ratio(u64::from(self.wins) * 1000, u64::from(self.games))
    }
    /// Per cent, rounded half up, as the seeds' leaderboards show it (19/20 → 95).
    pub fn percent(self) -> u32 {
        rounded_ratio(u64::from(self.wins) * 100, u64::from(self.games))
    }
}

fn rounded_ratio(numerator: u64, denominator: u64) -> u32 {
    if denominator == 0 {
        return 0;
    }
    u32::try_from((2 * numerator + denominator) / (2 * denominator)).unwrap_or(u32::MAX)
}

impl PartialEq for WinRate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for WinRate {}
impl PartialOrd for WinRate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for WinRate {
    fn cmp(&self, other: &Self) -> Ordering {
        (u64::from(self.wins) * u64::from(other.games))
            .cmp(&(u64::from(other.wins) * u64::from(self.games)))
    }
}

/// An average game time as an exact fraction (total milliseconds / counted games).
#[derive(Debug, Clone, Copy)]
pub struct AverageGameTime {
    pub total_ms: i64,
    /// Counted games, > 0.
    pub games: u32,
}

impl AverageGameTime {
    /// Whole seconds, rounded half up, as the seeds' leaderboards show it (9分21秒 = 561).
    pub fn whole_seconds(self) -> i64 {
        if self.games == 0 {
            return 0;
        }
        let den = i128::from(self.games) * 2000;
        let num = i128::from(self.total_ms) * 2 + i128::from(self.games) * 1000;
        i64::try_from(num.div_euclid(den)).unwrap_or(i64::MAX)
    }
}

impl PartialEq for AverageGameTime {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for AverageGameTime {}
impl PartialOrd for AverageGameTime {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for AverageGameTime {
    fn cmp(&self, other: &Self) -> Ordering {
        (i128::from(self.total_ms) * i128::from(other.games))
            .cmp(&(i128::from(other.total_ms) * i128::from(self.games)))
    }
}

/// A player's leaderboard row in one period, from the current score line (R-ONL-9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandingRow {
    pub player: String,
    pub points: i64,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    pub escapes: u32,
    /// Void games (R-ONL-5): shown for information, not counted.
    pub voids: u32,
    /// Total length of the counted games, in milliseconds.
    pub game_time_ms: i64,
    /// (end instant, points after the game) for each counted game of the current line, in order.
    pub progression: Vec<(DateTime<Utc>, i64)>,
    /// Escapes over the whole period, across resets.
    pub period_escapes: u32,
    /// Eliminated by escapes (R-ONL-3): shown, never ranked.
    pub eliminated: bool,
}

impl StandingRow {
    /// Counted games (责任局) = wins + losses + draws + escapes; void games excluded (R-ONL-9).
    pub fn counted_games(&self) -> u32 {
        self.wins + self.losses + self.draws + self.escapes
    }

    /// wins / counted games; `None` without counted games.
    pub fn win_rate(&self) -> Option<WinRate> {
        let games = self.counted_games();
        (games > 0).then_some(WinRate {
            wins: self.wins,
            games,
        })
    }

    /// The average length of the counted games; `None` without counted games.
    pub fn average_game_time(&self) -> Option<AverageGameTime> {
        let games = self.counted_games();
        (games > 0).then_some(AverageGameTime {
            total_ms: self.game_time_ms,
            games,
        })
    }

    /// When the current line first reached `line` points ("先达到分数线", R-ADV-5/8): the end instant
    /// of the game after which the line's points were first at least `line`, even if they dropped
    /// again later. Reading: the empty line's 0 points do not "reach" anything; only a game does.
    pub fn reached_at(&self, line: i64) -> Option<DateTime<Utc>> {
        self.progression
            .iter()
            .find(|(_, points)| *points >= line)
            .map(|(at, _)| *at)
    }

    /// Ranked: not eliminated and at least the stage's minimum of counted games (R-ONL-10; at least
    /// one counted game everywhere).
    pub fn is_ranked(&self, rules: &OnlineRules) -> bool {
        !self.eliminated && self.counted_games() >= rules.min_games_ranked.max(1)
    }

    /// Whether the current line has the counted games a grade certificate needs (R-ONL-10,
    /// R-GRD-7); the grade rules decide the rest.
    pub fn meets_certificate_games(&self, rules: &OnlineRules) -> bool {
        rules
            .min_games_certificate
            .is_none_or(|n| self.counted_games() >= n)
    }
}

// ---------------------------------------------------------------------------------------------
// Leaderboard (R-ONL-9)

/// A tie-break after points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// More wins first (R-ADV-2, R-ADV-10, R-ADV-11).
    MoreWins,
    /// Lower average game time first (R-ADV-5, R-ADV-8).
    LowerAverageGameTime,
    /// Earlier to reach `line` points first; never reached comes after (R-ADV-5, R-ADV-8).
    ReachedLineFirst { line: i64 },
    /// Fewer escapes first.
    FewerEscapes,
}

/// The default leaderboard order after points: more wins, then lower average game time. The seeds'
/// example leaderboards (2015 Xiangqi/Chess, rows 1-6) order equal points by lower average game time.
pub const DEFAULT_TIE_BREAKS: [TieBreak; 2] = [TieBreak::MoreWins, TieBreak::LowerAverageGameTime];

/// Compares two rows: more points first, then `tie_breaks` in order. `Equal` means tied on all of
/// them (they share a rank).
pub fn compare_rows(a: &StandingRow, b: &StandingRow, tie_breaks: &[TieBreak]) -> Ordering {
    let mut order = b.points.cmp(&a.points);
    for t in tie_breaks {
        if order != Ordering::Equal {
            break;
        }
        order = match *t {
            TieBreak::MoreWins => b.wins.cmp(&a.wins),
            TieBreak::LowerAverageGameTime => {
                none_last(a.average_game_time(), b.average_game_time())
            }
            TieBreak::ReachedLineFirst { line } => {
                none_last(a.reached_at(line), b.reached_at(line))
            }
            TieBreak::FewerEscapes => a.escapes.cmp(&b.escapes),
        };
    }
    order
}

/// Smaller first, `None` last.
fn none_last<T: Ord>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// A row with its rank; `None` for a row that is not ranked (R-ONL-10, eliminated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankedRow {
    pub rank: Option<u32>,
    pub row: StandingRow,
}

/// A leaderboard: every row in order, and the viewing player's own row (排行榜下方显示本人当轮情况).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaderboard {
    pub rows: Vec<RankedRow>,
    pub own: Option<RankedRow>,
}

/// Orders and ranks rows (R-ONL-9, R-ONL-10).
///
/// Ranked rows come first, ordered by [`compare_rows`]; rows tied on points and every tie-break
/// share a rank, and the next rank skips (1, 2, 2, 4). Rows that are not ranked (too few counted
/// games, eliminated) follow in the same order, without a rank. Player id orders otherwise equal
/// rows for display only.
pub fn leaderboard(
    rules: &OnlineRules,
    rows: &[StandingRow],
    tie_breaks: &[TieBreak],
    viewer: Option<&str>,
) -> Leaderboard {
    let mut sorted: Vec<&StandingRow> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        b.is_ranked(rules)
            .cmp(&a.is_ranked(rules))
            .then_with(|| compare_rows(a, b, tie_breaks))
            .then_with(|| a.player.cmp(&b.player))
    });
    let mut out: Vec<RankedRow> = Vec::with_capacity(sorted.len());
    let mut previous: Option<(&StandingRow, u32)> = None;
    for (i, row) in sorted.iter().enumerate() {
        let rank = if row.is_ranked(rules) {
            let position = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let rank = match previous {
                Some((prev, prev_rank))
                    if compare_rows(prev, row, tie_breaks) == Ordering::Equal =>
                {
                    prev_rank
                }
                _ => position,
            };
            previous = Some((row, rank));
            Some(rank)
        } else {
            None
        };
        out.push(RankedRow {
            rank,
            row: (*row).clone(),
        });
    }
    let own = viewer.and_then(|v| out.iter().find(|r| r.row.player == v).cloned());
    Leaderboard { rows: out, own }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::tests::{cn, rules, secs};
    use crate::scoring::{EndReason, Interruption, ReportedResult};
    use chrono::{NaiveDate, TimeDelta};
    use proptest::prelude::*;

    fn days(first: (i32, u32, u32), last: (i32, u32, u32)) -> PeriodDays {
        let d = |(y, m, dd): (i32, u32, u32)| NaiveDate::from_ymd_opt(y, m, dd).expect("date");
        PeriodDays {
            first_day: d(first),
            last_day: d(last),
        }
    }
    /// go-2015 / xiangqi-2015 / chess-2015 海选 period 1.
    fn p1_2015() -> PeriodDays {
        days((2015, 8, 1), (2015, 8, 14))
    }
    /// xiangqi-2022 period 1 (海选 and 入围 together, for brevity).
    fn p1_2022() -> PeriodDays {
        days((2022, 5, 30), (2022, 6, 19))
    }

    fn game(
        id: &str,
        first: &str,
        second: &str,
        started_at: DateTime<Utc>,
        length_s: i64,
        reported: ReportedResult,
        end: EndReason,
    ) -> PeriodGame {
        PeriodGame {
            id: id.to_owned(),
            first_player: first.to_owned(),
            second_player: second.to_owned(),
            facts: GameFacts::plain(started_at, started_at + secs(length_s), reported, end),
        }
    }

    /// The `n`-th 15-minute slot of 2015-08-02 from 10:00 China time.
    fn slot(n: i64) -> DateTime<Utc> {
        cn(2015, 8, 2, 10, 0, 0) + TimeDelta::minutes(15 * n)
    }

    fn row<'a>(rows: &'a [StandingRow], player: &str) -> &'a StandingRow {
        rows.iter()
            .find(|r| r.player == player)
            .unwrap_or_else(|| panic!("no row for {player}"))
    }

    /// (W, L, D, E, points, counted)
    fn line(r: &StandingRow) -> (u32, u32, u32, u32, i64, u32) {
        (
            r.wins,
            r.losses,
            r.draws,
            r.escapes,
            r.points,
            r.counted_games(),
        )
    }

    use EndReason::{Escape, Normal};
    use ReportedResult::{Draw, FirstWins, SecondWins};

    // --- R-ONL-9: the seeds' example leaderboards --------------------------------------------

    /// One named player's games against fresh opponents: `wins`, `losses` and `draws` games, each
    /// `length_s` long, on China day `day` of period 1 from 09:00.
    fn record_games(
        games: &mut Vec<PeriodGame>,
        player: &str,
        day: u32,
        (wins, losses, draws): (u32, u32, u32),
        length_s: i64,
    ) {
        let results = std::iter::repeat_n(FirstWins, wins as usize)
            .chain(std::iter::repeat_n(SecondWins, losses as usize))
            .chain(std::iter::repeat_n(Draw, draws as usize));
        for (i, reported) in results.enumerate() {
            let start = cn(2015, 8, day, 9, 0, 0) + TimeDelta::minutes(15 * i as i64);
            games.push(game(
                &format!("{player}-{i}"),
                player,
                &format!("{player}-opponent-{i}"),
                start,
                length_s,
                reported,
                Normal,
            ));
        }
    }

    struct SeedRow {
        name: &'static str,
        points: i64,
        win_rate_percent: u32,
        wins: u32,
        losses: u32,
        draws: u32,
        escapes: u32,
        average_s: i64,
    }

    fn check_seed_table(preset: &str, table: &[SeedRow]) {
        let r = rules(preset, "haixuan");
        let mut games = Vec::new();
        for (i, s) in table.iter().enumerate() {
            record_games(
                &mut games,
                s.name,
                2 + i as u32,
                (s.wins, s.losses, s.draws),
                s.average_s,
            );
        }
        let ledger = compute_period(&r, p1_2015(), &games, &[], &[]);
        let named: Vec<StandingRow> = ledger
            .standings()
            .into_iter()
            .filter(|row| table.iter().any(|s| s.name == row.player))
            .collect();
        let board = leaderboard(&r, &named, &DEFAULT_TIE_BREAKS, Some(table[0].name));
        for (i, (s, ranked)) in table.iter().zip(&board.rows).enumerate() {
            let got = &ranked.row;
            assert_eq!(got.player, s.name, "{preset} rank {}", i + 1);
            assert_eq!(ranked.rank, Some(i as u32 + 1), "{preset} {}", s.name);
            assert_eq!(
                line(got),
                (
                    s.wins,
                    s.losses,
                    s.draws,
                    s.escapes,
                    s.points,
                    s.wins + s.losses + s.draws
                ),
                "{preset} {}",
                s.name
            );
            assert_eq!(
                got.win_rate().map(WinRate::percent),
                Some(s.win_rate_percent),
                "{preset} {}",
                s.name
            );
            assert_eq!(
                got.average_game_time().map(AverageGameTime::whole_seconds),
                Some(s.average_s),
                "{preset} {}",
                s.name
            );
        }
        // 排行榜下方显示本人当轮情况: the viewer's own row, with its rank.
        let own = board.own.expect("own row");
        assert_eq!(
            (own.row.player.as_str(), own.rank),
            (table[0].name, Some(1))
        );
    }

    fn ms(m: i64, s: i64) -> i64 {
        60 * m + s
    }

    #[test]
    fn r_onl_9_go_2015_example_leaderboard() {
        // 2015 Go seed, 积分排行榜 (the 7th row's 40% win rate is missing in the extracted text).
        #[rustfmt::skip]
        let table = [
            SeedRow { name: "赵大", points: 20, win_rate_percent: 100, wins: 10, losses: 0, draws: 0, escapes: 0, average_s: ms(9, 21) },
            SeedRow { name: "钱二", points: 16, win_rate_percent: 90, wins: 9, losses: 1, draws: 0, escapes: 0, average_s: ms(9, 58) },
            SeedRow { name: "孙三", points: 12, win_rate_percent: 80, wins: 8, losses: 2, draws: 0, escapes: 0, average_s: ms(10, 32) },
            SeedRow { name: "李四", points: 8, win_rate_percent: 70, wins: 7, losses: 3, draws: 0, escapes: 0, average_s: ms(10, 32) },
            SeedRow { name: "周五", points: 4, win_rate_percent: 60, wins: 6, losses: 4, draws: 0, escapes: 0, average_s: ms(10, 32) },
            SeedRow { name: "吴六", points: 0, win_rate_percent: 50, wins: 5, losses: 5, draws: 0, escapes: 0, average_s: ms(9, 27) },
            SeedRow { name: "郑七", points: -4, win_rate_percent: 40, wins: 4, losses: 6, draws: 0, escapes: 0, average_s: ms(10, 32) },
        ];
        check_seed_table("go-2015", &table);
    }

    #[test]
    fn r_onl_9_xiangqi_2015_example_leaderboard_rows_1_to_6() {
        // 2015 Xiangqi/Chess seed: rows 7-8 contradict R-ONL-2 and are left out. Equal points are
        // ordered by lower average game time, as the seed's rows 1-3 and 4-6 show.
        #[rustfmt::skip]
        let table = [
            SeedRow { name: "赵大", points: 40, win_rate_percent: 100, wins: 20, losses: 0, draws: 0, escapes: 0, average_s: ms(9, 21) },
            SeedRow { name: "钱二", points: 40, win_rate_percent: 100, wins: 20, losses: 0, draws: 0, escapes: 0, average_s: ms(9, 58) },
            SeedRow { name: "孙三", points: 40, win_rate_percent: 100, wins: 20, losses: 0, draws: 0, escapes: 0, average_s: ms(10, 32) },
            SeedRow { name: "李四", points: 39, win_rate_percent: 95, wins: 19, losses: 0, draws: 1, escapes: 0, average_s: ms(9, 18) },
            SeedRow { name: "周五", points: 39, win_rate_percent: 95, wins: 19, losses: 0, draws: 1, escapes: 0, average_s: ms(10, 2) },
            SeedRow { name: "吴六", points: 39, win_rate_percent: 95, wins: 19, losses: 0, draws: 1, escapes: 0, average_s: ms(11, 40) },
        ];
        check_seed_table("xiangqi-2015", &table);
        check_seed_table("chess-2015", &table);
    }

    #[test]
    fn r_onl_9_twenty_points_is_ten_wins_and_thirty_nine_is_nineteen_wins_one_draw() {
        let r = rules("xiangqi-2015", "haixuan");
        let mut games = Vec::new();
        record_games(&mut games, "a", 2, (10, 0, 0), 600);
        record_games(&mut games, "b", 3, (19, 0, 1), 600);
        let rows = compute_period(&r, p1_2015(), &games, &[], &[]).standings();
        assert_eq!(line(row(&rows, "a")), (10, 0, 0, 0, 20, 10));
        assert_eq!(line(row(&rows, "b")), (19, 0, 1, 0, 39, 20));
        assert_eq!(
            row(&rows, "b").win_rate().map(WinRate::per_mille),
            Some(950)
        );
    }

    #[test]
    fn r_onl_9_counted_games_exclude_voids_and_win_rate_is_over_counted_games() {
        let r = rules("xiangqi-2022", "ruwei");
        let start = cn(2022, 6, 12, 12, 0, 0);
        let mut won = game("g1", "a", "b", start, 900, FirstWins, Normal);
        won.facts.first_side_first_move = Some(secs(5));
        won.facts.second_side_first_move = Some(secs(60));
        let mut void = game("g2", "a", "c", start + secs(1000), 900, FirstWins, Normal);
        void.facts.first_side_first_move = Some(secs(61));
        let rows = compute_period(&r, p1_2022(), &[won, void], &[], &[]).standings();
        let a = row(&rows, "a");
        assert_eq!((line(a), a.voids), ((1, 0, 0, 0, 2, 1), 1));
        assert_eq!(a.win_rate().map(WinRate::per_mille), Some(1000));
        // The void game's length is not in the average.
        assert_eq!(
            a.average_game_time().map(AverageGameTime::whole_seconds),
            Some(900)
        );
        assert_eq!(line(row(&rows, "c")), (0, 0, 0, 0, 0, 0));
    }

    #[test]
    fn r_onl_9_win_rate_and_average_time_compare_exactly() {
        let third = WinRate { wins: 1, games: 3 };
        assert_eq!(third, WinRate { wins: 2, games: 6 });
        assert!(
            third
                < WinRate {
                    wins: 334,
                    games: 1000
                }
        );
        assert!(
            third
                > WinRate {
                    wins: 333,
                    games: 1000
                }
        );
        assert_eq!(third.per_mille(), 333);
        assert_eq!(WinRate { wins: 2, games: 3 }.per_mille(), 667);
        let a = AverageGameTime {
            total_ms: 1000,
            games: 3,
        };
        let b = AverageGameTime {
            total_ms: 333,
            games: 1,
        };
        assert!(a > b);
        assert_eq!(
            AverageGameTime {
                total_ms: 1500,
                games: 1
            }
            .whole_seconds(),
            2
        );
        assert_eq!(
            AverageGameTime {
                total_ms: 1499,
                games: 1
            }
            .whole_seconds(),
            1
        );
    }

    #[test]
    fn r_onl_9_equal_rows_share_a_rank_and_unranked_rows_follow() {
        let r = rules("go-2015", "jinji");
        let games = vec![
            game("g1", "a", "x", slot(0), 600, FirstWins, Normal),
            game("g2", "b", "y", slot(1), 600, FirstWins, Normal),
            game("g3", "c", "z", slot(2), 700, SecondWins, Normal),
        ];
        let mut rows =
            compute_period(&r, days((2015, 8, 1), (2015, 8, 21)), &games, &[], &[]).standings();
        rows.push(StandingRow {
            player: "idle".into(),
            ..row(&rows, "a").clone()
        });
        if let Some(idle) = rows.iter_mut().find(|r| r.player == "idle") {
            idle.wins = 0;
            idle.points = 50;
            idle.progression.clear();
            idle.game_time_ms = 0;
        }
        let board = leaderboard(&r, &rows, &DEFAULT_TIE_BREAKS, Some("z"));
        let ranks: Vec<(&str, Option<u32>)> = board
            .rows
            .iter()
            .map(|r| (r.row.player.as_str(), r.rank))
            .collect();
        assert_eq!(
            ranks,
            [
                ("a", Some(1)),
                ("b", Some(1)),
                ("z", Some(3)),
                ("x", Some(4)),
                ("y", Some(4)),
                ("c", Some(6)),
                ("idle", None),
            ]
        );
        assert_eq!(board.own.map(|o| o.rank), Some(Some(3)));
        assert_eq!(
            leaderboard(&r, &rows, &DEFAULT_TIE_BREAKS, Some("nobody")).own,
            None
        );
    }

    #[test]
    fn r_onl_9_reached_the_line_first_is_the_end_of_the_game_that_reached_it() {
        let r = rules("xiangqi-2015", "jinji");
        let games = vec![
            game("g1", "a", "x", slot(0), 600, FirstWins, Normal),
            game("g2", "a", "x", slot(1), 600, FirstWins, Normal),
            game("g3", "a", "x", slot(2), 600, FirstWins, Normal), // 6 points here
            game("g4", "a", "x", slot(3), 600, SecondWins, Normal), // back to 4
            game("g5", "a", "x", slot(4), 600, FirstWins, Normal),
        ];
        let rows =
            compute_period(&r, days((2015, 8, 1), (2015, 8, 21)), &games, &[], &[]).standings();
        let a = row(&rows, "a");
        assert_eq!(a.reached_at(6), Some(slot(2) + secs(600)));
        assert_eq!(a.reached_at(8), None);
        assert_eq!(row(&rows, "x").reached_at(6), None);
    }

    #[test]
    fn r_onl_9_tie_breaks_can_be_chosen_for_the_cuts() {
        let r = rules("chess-2015", "ruwei");
        let d = days((2015, 10, 3), (2015, 10, 11));
        let at = |n: i64| cn(2015, 10, 4, 10, 0, 0) + TimeDelta::minutes(15 * n);
        // a and b: 6 points each, same average time; b reached 6 first.
        let mut games = Vec::new();
        for i in 0..3 {
            games.push(game(
                &format!("b{i}"),
                "b",
                &format!("bx{i}"),
                at(i),
                600,
                FirstWins,
                Normal,
            ));
            games.push(game(
                &format!("a{i}"),
                "a",
                &format!("ax{i}"),
                at(i + 10),
                600,
                FirstWins,
                Normal,
            ));
        }
        let rows = compute_period(&r, d, &games, &[], &[]).standings();
        let (a, b) = (row(&rows, "a"), row(&rows, "b"));
        assert_eq!(compare_rows(a, b, &DEFAULT_TIE_BREAKS), Ordering::Equal);
        let chain = [
            TieBreak::LowerAverageGameTime,
            TieBreak::ReachedLineFirst { line: 6 },
        ];
        assert_eq!(compare_rows(b, a, &chain), Ordering::Less);
        assert_eq!(
            compare_rows(a, b, &[TieBreak::FewerEscapes]),
            Ordering::Equal
        );
    }

    // --- R-ONL-3: escapes and elimination ----------------------------------------------------

    #[test]
    fn r_onl_3_an_escape_is_in_the_escapes_column_only_and_a_win_for_the_opponent() {
        let r = rules("go-2015", "haixuan");
        let games = vec![game(
            "g1",
            "a",
            "b",
            slot(0),
            300,
            SecondWins,
            Escape(Side::First),
        )];
        let rows = compute_period(&r, p1_2015(), &games, &[], &[]).standings();
        assert_eq!(line(row(&rows, "a")), (0, 0, 0, 1, -2, 1));
        assert_eq!(line(row(&rows, "b")), (1, 0, 0, 0, 2, 1));
    }

    #[test]
    fn r_onl_3_both_escaping_is_minus_two_each() {
        let r = rules("go-2015", "haixuan");
        let mut g = game("g1", "a", "b", slot(0), 1200, FirstWins, Normal);
        let gap = Interruption {
            from: slot(0) + secs(100),
            to: slot(0) + secs(400),
        };
        g.facts.first_interruptions = vec![gap];
        g.facts.second_interruptions = vec![gap];
        let rows = compute_period(&r, p1_2015(), &[g], &[], &[]).standings();
        assert_eq!(line(row(&rows, "a")), (0, 0, 0, 1, -2, 1));
        assert_eq!(line(row(&rows, "b")), (0, 0, 0, 1, -2, 1));
    }

    /// `a` escapes against fresh opponents in slots `from..to`.
    fn escapes(from: i64, to: i64) -> Vec<PeriodGame> {
        (from..to)
            .map(|i| {
                game(
                    &format!("e{i}"),
                    "a",
                    &format!("o{i}"),
                    slot(i),
                    300,
                    FirstWins,
                    Escape(Side::First),
                )
            })
            .collect()
    }

    #[test]
    fn r_onl_3_the_sixth_escape_eliminates_counted_across_resets() {
        let r = rules("xiangqi-2015", "haixuan");
        let mut games = escapes(0, 5);
        games.extend(escapes(6, 7)); // the 6th escape, after a reset
        games.push(game("later", "a", "z", slot(8), 300, FirstWins, Normal));
        let resets = [ResetRequest {
            player: "a".into(),
            at: slot(5),
        }];
        let ledger = compute_period(&r, p1_2015(), &games, &resets, &[]);
        let a = &ledger.players["a"];
        assert_eq!(a.lines.len(), 2);
        assert_eq!(a.period_escapes, 6);
        assert_eq!(
            a.eliminated,
            Some(Elimination {
                at: slot(6) + secs(300),
                game_id: "e6".into()
            })
        );
        let rows = ledger.standings();
        // The 6th escape still counts for both sides.
        assert_eq!(line(row(&rows, "a")), (0, 0, 0, 1, -2, 1));
        assert_eq!(line(row(&rows, "o6")), (1, 0, 0, 0, 2, 1));
        // The later game counts for neither side.
        assert_eq!(line(row(&rows, "z")), (0, 0, 0, 0, 0, 0));
        let later = ledger
            .games
            .iter()
            .find(|g| g.game_id == "later")
            .expect("verdict");
        assert_eq!(
            later.status,
            GameStatus::NotCounted(NotCounted::PlayerEliminated { player: "a".into() })
        );
        assert!(row(&rows, "a").eliminated && !row(&rows, "a").is_ranked(&r));
    }

    #[test]
    fn r_onl_3_five_escapes_do_not_eliminate() {
        let r = rules("chess-2015", "haixuan");
        let mut games = escapes(0, 5);
        games.push(game("later", "a", "z", slot(8), 300, FirstWins, Normal));
        let ledger = compute_period(&r, p1_2015(), &games, &[], &[]);
        assert_eq!(ledger.players["a"].eliminated, None);
        assert_eq!(line(row(&ledger.standings(), "z")), (0, 1, 0, 0, -2, 1));
    }

    #[test]
    fn r_onl_3_no_elimination_outside_2015_haixuan() {
        for (preset, stage, d) in [
            ("go-2015", "jinji", days((2015, 8, 1), (2015, 8, 21))),
            ("xiangqi-2022", "haixuan", days((2015, 8, 1), (2015, 8, 21))),
        ] {
            let r = rules(preset, stage);
            let ledger = compute_period(&r, d, &escapes(0, 8), &[], &[]);
            assert_eq!(ledger.players["a"].eliminated, None, "{preset} {stage}");
            assert_eq!(row(&ledger.standings(), "a").escapes, 8);
        }
    }

    #[test]
    fn r_onl_3_elimination_follows_end_instants_then_game_ids_not_report_order() {
        let r = rules("go-2015", "haixuan");
        let mut games = escapes(0, 5);
        // Two games end at the same instant: "e5" (6th escape) sorts before "f5" (a win).
        games.push(game("f5", "a", "y", slot(5), 300, FirstWins, Normal));
        games.push(game(
            "e5",
            "a",
            "x",
            slot(5),
            300,
            FirstWins,
            Escape(Side::First),
        ));
        let forward = compute_period(&r, p1_2015(), &games, &[], &[]);
        games.reverse();
        let backward = compute_period(&r, p1_2015(), &games, &[], &[]);
        assert_eq!(forward, backward);
        assert_eq!(line(row(&forward.standings(), "y")), (0, 0, 0, 0, 0, 0));
    }

    // --- R-ONL-7: resets ---------------------------------------------------------------------

    #[test]
    fn r_onl_7_a_reset_opens_a_new_line_and_keeps_the_history() {
        let r = rules("go-2015", "haixuan");
        let games = vec![
            game("g1", "a", "x", slot(0), 600, SecondWins, Normal),
            game("g2", "a", "x", slot(1), 600, SecondWins, Normal),
            game("g3", "a", "x", slot(3), 600, FirstWins, Normal),
        ];
        let resets = [ResetRequest {
            player: "a".into(),
            at: slot(2),
        }];
        let ledger = compute_period(&r, p1_2015(), &games, &resets, &[]);
        let a = &ledger.players["a"];
        let ids = |l: &ScoreLine| {
            l.entries
                .iter()
                .map(|e| e.game_id.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&a.lines[0]), ["g1", "g2"]);
        assert_eq!(ids(&a.lines[1]), ["g3"]);
        assert_eq!(a.lines[1].opened_at, Some(slot(2)));
        assert_eq!(line(row(&ledger.standings(), "a")), (1, 0, 0, 0, 2, 1));
        // The opponent did not reset: all three games count for him.
        assert_eq!(line(row(&ledger.standings(), "x")), (2, 1, 0, 0, 2, 3));
    }

    #[test]
    fn r_onl_7_a_game_belongs_to_the_line_current_when_it_ended() {
        let r = rules("xiangqi-2015", "jinji");
        let d = days((2015, 8, 15), (2015, 8, 21));
        let start = cn(2015, 8, 16, 10, 0, 0);
        // Started before the reset, ended after it: the new line.
        let across = game("g1", "a", "x", start, 1200, FirstWins, Normal);
        // Ended exactly at the reset instant: the old line (a reset at the end instant comes after).
        let at_reset = game("g0", "a", "y", start - secs(600), 1200, FirstWins, Normal);
        let resets = [ResetRequest {
            player: "a".into(),
            at: start + secs(600),
        }];
        let ledger = compute_period(&r, d, &[across, at_reset], &resets, &[]);
        let a = &ledger.players["a"];
        assert_eq!(a.lines[0].entries.len(), 1);
        assert_eq!(a.lines[0].entries[0].game_id, "g0");
        assert_eq!(a.lines[1].entries[0].game_id, "g1");
    }

    #[test]
    fn r_onl_7_no_resets_in_2022_and_2025() {
        for (preset, stage) in [("xiangqi-2022", "haixuan"), ("go-2025", "haixuan")] {
            let r = rules(preset, stage);
            let start = cn(2022, 6, 1, 12, 0, 0);
            let games = vec![
                game("g1", "a", "x", start, 600, SecondWins, Normal),
                game("g2", "a", "x", start + secs(3600), 600, FirstWins, Normal),
            ];
            let reset = ResetRequest {
                player: "a".into(),
                at: start + secs(1800),
            };
            let ledger = compute_period(&r, p1_2022(), &games, std::slice::from_ref(&reset), &[]);
            assert_eq!(ledger.players["a"].lines.len(), 1, "{preset}");
            assert_eq!(ledger.ignored_resets, [reset], "{preset}");
            assert_eq!(line(row(&ledger.standings(), "a")), (1, 1, 0, 0, 0, 2));
        }
    }

    #[test]
    fn r_onl_7_minimum_games_and_the_line_reached_use_the_current_line_only() {
        let r = rules("xiangqi-2015", "jinji");
        let d = days((2015, 8, 15), (2015, 8, 21));
        let at = |n: i64| cn(2015, 8, 16, 10, 0, 0) + TimeDelta::minutes(15 * n);
        let mut games = Vec::new();
        for i in 0..6 {
            games.push(game(
                &format!("old{i}"),
                "a",
                "x",
                at(i),
                600,
                FirstWins,
                Normal,
            ));
        }
        for i in 0..3 {
            games.push(game(
                &format!("new{i}"),
                "a",
                "x",
                at(10 + i),
                600,
                FirstWins,
                Normal,
            ));
        }
        let resets = [ResetRequest {
            player: "a".into(),
            at: at(8),
        }];
        let rows = compute_period(&r, d, &games, &resets, &[]).standings();
        let a = row(&rows, "a");
        assert_eq!(line(a), (3, 0, 0, 0, 6, 3));
        assert!(!a.is_ranked(&r), "3 counted games in the current line < 5");
        assert_eq!(a.reached_at(6), Some(at(12) + secs(600)));
    }

    // --- R-ONL-8: cheating -------------------------------------------------------------------

    #[test]
    fn r_onl_8_cheating_cancels_the_cheaters_results_and_opponents_keep_theirs() {
        let r = rules("xiangqi-2022", "haixuan");
        let start = cn(2022, 6, 1, 12, 0, 0);
        let games = vec![
            game("g1", "cheat", "a", start, 600, FirstWins, Normal),
            game(
                "g2",
                "b",
                "cheat",
                start + secs(3600),
                600,
                FirstWins,
                Normal,
            ),
            game("g3", "a", "b", start + secs(7200), 600, Draw, Normal),
        ];
        let clean = compute_period(&r, p1_2022(), &games, &[], &[]);
        let ledger = compute_period(&r, p1_2022(), &games, &[], &["cheat".into()]);
        let rows = ledger.standings();
        assert!(rows.iter().all(|r| r.player != "cheat"));
        assert!(ledger.players["cheat"].results_cancelled);
        assert_eq!(line(row(&rows, "a")), (0, 1, 1, 0, -1, 2));
        assert_eq!(line(row(&rows, "b")), (1, 0, 1, 0, 3, 2));
        let without = |rows: Vec<StandingRow>| {
            rows.into_iter()
                .filter(|r| r.player != "cheat")
                .collect::<Vec<_>>()
        };
        assert_eq!(rows, without(clean.standings()));
    }

    // --- R-ONL-10: counted games to be ranked / for certificates -----------------------------

    #[test]
    fn r_onl_10_five_counted_games_to_be_ranked_in_xiangqi_2015_jinji() {
        let r = rules("xiangqi-2015", "jinji");
        let d = days((2015, 8, 15), (2015, 8, 21));
        let at = |n: i64| cn(2015, 8, 16, 10, 0, 0) + TimeDelta::minutes(15 * n);
        let mut games = Vec::new();
        for i in 0..4 {
            games.push(game(
                &format!("a{i}"),
                "a",
                &format!("ax{i}"),
                at(i),
                600,
                FirstWins,
                Normal,
            ));
        }
        for i in 0..5 {
            games.push(game(
                &format!("b{i}"),
                "b",
                &format!("bx{i}"),
                at(i),
                600,
                Draw,
                Normal,
            ));
        }
        let rows = compute_period(&r, d, &games, &[], &[]).standings();
        let board = leaderboard(&r, &rows, &DEFAULT_TIE_BREAKS, Some("a"));
        assert_eq!(board.rows[0].row.player, "b");
        assert_eq!(board.rows[0].rank, Some(1));
        // 8 points from 4 games: more points, but not ranked.
        assert_eq!(board.own.map(|o| (o.row.points, o.rank)), Some((8, None)));
    }

    #[test]
    fn r_onl_10_ten_counted_games_for_a_certificate_in_haixuan() {
        let r = rules("xiangqi-2015", "haixuan");
        let mut games = Vec::new();
        record_games(&mut games, "a", 2, (5, 4, 0), 600);
        record_games(&mut games, "b", 3, (5, 4, 1), 600);
        let rows = compute_period(&r, p1_2015(), &games, &[], &[]).standings();
        assert!(!row(&rows, "a").meets_certificate_games(&r));
        assert!(row(&rows, "b").meets_certificate_games(&r));
        assert!(row(&rows, "a").meets_certificate_games(&rules("go-2015", "haixuan")));
    }

    // --- R-STR-4: games outside the play hours ----------------------------------------------

    #[test]
    fn r_str_4_a_game_started_outside_the_hours_counts_for_nobody() {
        let r = rules("go-2015", "haixuan");
        let early = game(
            "early",
            "a",
            "b",
            cn(2015, 8, 2, 8, 59, 59),
            600,
            FirstWins,
            Normal,
        );
        let late = game(
            "late",
            "a",
            "b",
            cn(2015, 8, 2, 22, 59, 59),
            1800,
            FirstWins,
            Normal,
        );
        let after = game(
            "after",
            "a",
            "b",
            cn(2015, 8, 15, 10, 0, 0),
            600,
            FirstWins,
            Normal,
        );
        let ledger = compute_period(&r, p1_2015(), &[early, late, after], &[], &[]);
        let status = |id: &str| {
            ledger
                .games
                .iter()
                .find(|g| g.game_id == id)
                .map(|g| g.status.clone())
                .expect("verdict")
        };
        assert_eq!(
            status("early"),
            GameStatus::NotCounted(NotCounted::OutsidePlayTime(PlayTime::OutsideHours))
        );
        assert!(
            matches!(status("late"), GameStatus::Counted(_)),
            "judged by its start"
        );
        assert_eq!(
            status("after"),
            GameStatus::NotCounted(NotCounted::OutsidePlayTime(PlayTime::AfterPeriod))
        );
        assert_eq!(line(row(&ledger.standings(), "a")), (1, 0, 0, 0, 2, 1));
    }

    #[test]
    fn duplicate_ids_and_self_games_count_for_nobody() {
        let r = rules("go-2015", "haixuan");
        let games = vec![
            game("g1", "a", "b", slot(0), 600, FirstWins, Normal),
            game("g1", "a", "b", slot(1), 600, SecondWins, Normal),
            game("g2", "a", "a", slot(2), 600, SecondWins, Normal),
        ];
        let ledger = compute_period(&r, p1_2015(), &games, &[], &[]);
        let reasons: Vec<&GameStatus> = ledger.games.iter().map(|g| &g.status).collect();
        assert_eq!(
            reasons,
            [
                &GameStatus::NotCounted(NotCounted::DuplicateId),
                &GameStatus::NotCounted(NotCounted::DuplicateId),
                &GameStatus::NotCounted(NotCounted::SamePlayerOnBothSides),
            ]
        );
        assert_eq!(line(row(&ledger.standings(), "a")), (0, 0, 0, 0, 0, 0));
    }

    // --- properties --------------------------------------------------------------------------

    fn arb_period() -> impl Strategy<Value = (bool, Vec<PeriodGame>, Vec<ResetRequest>, Vec<String>)>
    {
        let players = 5usize;
        let arb_gap = (0i64..1500, 0i64..250);
        let arb_game = (
            0u32..40,
            0..players,
            0..players,
            0i64..(14 * 24 * 60),
            1i64..1500,
            0u8..3,
            0u8..5,
            proptest::collection::vec(arb_gap.clone(), 0..4),
            proptest::collection::vec(arb_gap, 0..4),
            proptest::option::of(0i64..100),
        );
        let arb_reset = (0..players, 0i64..(14 * 24 * 60));
        (
            any::<bool>(),
            proptest::collection::vec(arb_game, 0..40),
            proptest::collection::vec(arb_reset, 0..5),
            proptest::option::of(0..players),
        )
            .prop_map(move |(ruwei, games, resets, cheater)| {
                let base = cn(2015, 8, 1, 0, 0, 0);
                let name = |i: usize| format!("p{i}");
                let games = games
                    .into_iter()
                    .map(|(id, a, b, start_min, len, rep, end, ga, gb, first_move)| {
                        let start = base + TimeDelta::minutes(start_min);
                        let reported = [FirstWins, SecondWins, Draw][usize::from(rep)];
                        let end_reason = [
                            Normal,
                            EndReason::Resignation,
                            EndReason::Time,
                            Escape(Side::First),
                            Escape(Side::Second),
                        ][usize::from(end)];
                        let mut g = game(
                            &format!("g{id}"),
                            &name(a),
                            &name(b),
                            start,
                            len,
                            reported,
                            end_reason,
                        );
                        let gaps = |v: Vec<(i64, i64)>| {
                            v.into_iter()
                                .filter(|(from, _)| *from <= len)
                                .map(|(from, l)| Interruption {
                                    from: start + secs(from),
                                    to: start + secs(from + l),
                                })
                                .collect()
                        };
                        g.facts.first_interruptions = gaps(ga);
                        g.facts.second_interruptions = gaps(gb);
                        g.facts.first_side_first_move = first_move.map(secs);
                        g
                    })
                    .collect();
                let resets = resets
                    .into_iter()
                    .map(|(p, m)| ResetRequest {
                        player: name(p),
                        at: base + TimeDelta::minutes(m),
                    })
                    .collect();
                (
                    ruwei,
                    games,
                    resets,
                    cheater.map(name).into_iter().collect(),
                )
            })
    }

    fn period_rules(ruwei: bool) -> OnlineRules {
        if ruwei {
            // A first-move rule, 2022 counting, draws, no resets.
            let mut r = rules("xiangqi-2022", "ruwei");
            r.play_hours = rules("xiangqi-2015", "haixuan").play_hours;
            r
        } else {
            rules("xiangqi-2015", "haixuan")
        }
    }

    proptest! {
        #[test]
        fn r_onl_9_standings_do_not_depend_on_report_order(
            (ruwei, games, resets, cheaters) in arb_period(),
            seed in any::<u64>(),
        ) {
            let r = period_rules(ruwei);
            let first = compute_period(&r, p1_2015(), &games, &resets, &cheaters);
            // A deterministic shuffle of games and resets from the seed.
            let mut shuffled = games.clone();
            let mut resets2 = resets.clone();
            let mut state = seed | 1;
            let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
            for i in (1..shuffled.len()).rev() {
                let j = (next() % (i as u64 + 1)) as usize;
                shuffled.swap(i, j);
            }
            resets2.reverse();
            let second = compute_period(&r, p1_2015(), &shuffled, &resets2, &cheaters);
            prop_assert_eq!(&first, &second);
            let board = |l: &PeriodLedger| leaderboard(&r, &l.standings(), &DEFAULT_TIE_BREAKS, Some("p0"));
            prop_assert_eq!(board(&first), board(&second));
        }

        #[test]
        fn r_onl_2_points_are_the_sum_of_per_game_points(
            (ruwei, games, resets, cheaters) in arb_period(),
        ) {
            let r = period_rules(ruwei);
            let ledger = compute_period(&r, p1_2015(), &games, &resets, &cheaters);
            let mut from_games: BTreeMap<String, i64> = BTreeMap::new();
            for v in &ledger.games {
                if let GameStatus::Counted(o) = &v.status {
                    let g = games.iter().find(|g| g.id == v.game_id).expect("game");
                    *from_games.entry(g.first_player.clone()).or_default() += o.first.points;
                    *from_games.entry(g.second_player.clone()).or_default() += o.second.points;
                }
            }
            for p in ledger.players.values() {
                let all_lines: i64 = p.lines.iter().flat_map(|l| &l.entries).map(|e| e.points).sum();
                prop_assert_eq!(all_lines, from_games.get(&p.player).copied().unwrap_or(0));
                let current: i64 = p.current_line().map(|l| l.entries.iter().map(|e| e.points).sum()).unwrap_or(0);
                prop_assert_eq!(p.standing().points, current);
            }
        }

        #[test]
        fn r_onl_9_counted_games_are_wins_losses_draws_and_escapes(
            (ruwei, games, resets, cheaters) in arb_period(),
        ) {
            let r = period_rules(ruwei);
            let ledger = compute_period(&r, p1_2015(), &games, &resets, &cheaters);
            for p in ledger.players.values() {
                let row = p.standing();
                prop_assert_eq!(row.counted_games(), row.wins + row.losses + row.draws + row.escapes);
                let entries = p.current_line().map(|l| l.entries.as_slice()).unwrap_or(&[]);
                let counted = entries.iter().filter(|e| e.result.is_counted()).count();
                prop_assert_eq!(row.counted_games() as usize, counted);
                prop_assert_eq!(row.voids as usize, entries.len() - counted);
                prop_assert_eq!(row.progression.len(), counted);
            }
        }
    }
}
