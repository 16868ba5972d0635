//! Scoring one online game (R-ONL-2..5) and online play hours (R-STR-4).
//!
//! The platform reports the raw facts of a finished game ([`GameFacts`]): the reported result, why the
//! game ended, each side's interruptions (disconnected or outside the app) and how long each side took
//! for its first move. [`score_game`] turns them into what counts for each side ([`GameOutcome`]): a
//! win, loss, draw, escape (逃跑) or no result (void), with points. [`judge_play_time`] says whether a
//! game was played inside the stage's play hours. Everything numeric comes from the stage's
//! `[stages.online]` preset section ([`OnlineRules`], checked by [`check_online`]).
//!
//! Score lines, resets, elimination, cheating and leaderboards are in [`crate::standings`].
//!
//! Preset section `[stages.online]` (one per online stage; the offline finals have none):
//!
//! | key | type | meaning (RULES.md id) |
//! |---|---|---|
//! | `resets` | bool | a player may reset his period score to zero and start a new line (R-ONL-7) |
//! | `eliminate_at_escapes` | integer > 0, optional | the escape that eliminates, counted over the whole period (R-ONL-3: 6 in 2015 海选) |
//! | `min_games_ranked` | integer > 0 | counted games (责任局) needed to be ranked (R-ONL-10; 1 where the seeds are silent) |
//! | `min_games_certificate` | integer > 0, optional | counted games needed for a grade certificate (R-ONL-10, R-GRD-7) |
//! | `first_move_limit_secs` | integer > 0, optional | each side's first move must come within this; later → void game (R-ONL-5) |
//! | `points.win`, `points.loss`, `points.draw` | integer, `draw` optional | R-ONL-2; no `draw` = the game has no draws (Go) |
//! | `points.escape`, `points.escape_opponent` | integer | the escaper's and the opponent's points (R-ONL-3) |
//! | `disconnection.total_over_secs` | integer > 0 | total disconnected time strictly over this is an escape (R-ONL-4) |
//! | `disconnection.count_over` | integer ≥ 0 | strictly more disconnections than this is an escape (R-ONL-4) |
//! | `disconnection.interruption_over_secs` | integer > 0, optional | only interruptions strictly longer count (2022/2025: 60); absent = every reported interval counts (2015) |
//! | `play_hours.any_time` | bool | play is allowed at any hour (R-STR-4) |
//! | `play_hours.from`, `play_hours.to` | `HH:MM`, China time | daily window `[from, to)`, required unless `any_time` |
//! | `play_hours.first_day_from` | `HH:MM`, optional | a period's first day opens later (2022 入围, 2025 海选: 10:00) |
//!
//! Reading: knockout stages (2015 入围) and the online repechage (复活赛) keep the section too: their
//! games are online, so the points, disconnection rules and play hours decide each game (an escaper
//! is out, R-ADV-3/6); `resets` is false and there is no elimination count. The offline finals are
//! refereed (R-IND-5) and have no `[stages.online]`.

use chrono::{DateTime, NaiveDate, NaiveTime, TimeDelta, Utc};
use serde::Deserialize;

use crate::preset::Checker;
use crate::time::{china_date, china_offset};
use crate::time_control::{TimeControl, TimeControlFile, check_time_control};

/// A side of a game: the side that moves first (Go: Black, Xiangqi: Red, Chess: White) or second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// Points per counted result (R-ONL-2, R-ONL-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Points {
    pub win: i64,
    pub loss: i64,
    /// `None`: the game has no draws (Go); a reported draw is then refused.
    pub draw: Option<i64>,
    /// The escaper's points (逃跑扣除2分).
    pub escape: i64,
    /// The escaper's opponent's points, counted as a win (对手得2分).
    pub escape_opponent: i64,
}

/// When disconnection turns into an escape (R-ONL-4). All limits are strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisconnectionRules {
    /// An escape when the total counted disconnected time in one game is strictly over this.
    pub total_over: TimeDelta,
    /// An escape when a side has strictly more counted disconnections than this in one game.
    pub count_over: u32,
    /// 2022/2025: only an interruption strictly longer than this is a disconnection, and then its
    /// full length counts toward the total. `None` (2015): every reported interval counts.
    pub interruption_over: Option<TimeDelta>,
}

/// A daily window `[from, to)` in China time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DailyHours {
    pub from: NaiveTime,
    pub to: NaiveTime,
}

/// Online play hours (R-STR-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayHours {
    /// `None`: any time of day.
    pub daily: Option<DailyHours>,
    /// A period's first day opens at this China time instead (每期的首日比赛从10点开始).
    pub first_day_from: Option<NaiveTime>,
}

/// The validated `[stages.online]` section of one online stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnlineRules {
    pub points: Points,
    pub disconnection: DisconnectionRules,
    pub play_hours: PlayHours,
    /// R-ONL-5: each side's first move must come within this (exactly the limit is in time).
    pub first_move_limit: Option<TimeDelta>,
    /// R-ONL-7: resets (清零) are allowed.
    pub resets_allowed: bool,
    /// R-ONL-3: the escape (counted over the whole period, across resets) that eliminates.
    pub eliminate_at_escapes: Option<u32>,
    /// R-ONL-10: counted games needed to be ranked (at least 1).
    pub min_games_ranked: u32,
    /// R-ONL-10, R-GRD-7: counted games needed for a grade certificate.
    pub min_games_certificate: Option<u32>,
    /// R-ONL-6: the stage's time control, where the seed states it (the platform enforces it; a
    /// loss on time is an ordinary loss).
    pub time_control: Option<TimeControl>,
}

/// The TOML table `[stages.online]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OnlineFile {
    pub(crate) resets: bool,
    pub(crate) eliminate_at_escapes: Option<i64>,
    pub(crate) min_games_ranked: i64,
    pub(crate) min_games_certificate: Option<i64>,
    pub(crate) first_move_limit_secs: Option<i64>,
    pub(crate) points: PointsFile,
    pub(crate) disconnection: DisconnectionFile,
    pub(crate) play_hours: PlayHoursFile,
    #[serde(default)]
    pub(crate) time_control: Option<TimeControlFile>,
}

/// The TOML table `[stages.online.points]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PointsFile {
    pub(crate) win: i64,
    pub(crate) loss: i64,
    pub(crate) draw: Option<i64>,
    pub(crate) escape: i64,
    pub(crate) escape_opponent: i64,
}

/// The TOML table `[stages.online.disconnection]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DisconnectionFile {
    pub(crate) total_over_secs: i64,
    pub(crate) count_over: i64,
    pub(crate) interruption_over_secs: Option<i64>,
}

/// The TOML table `[stages.online.play_hours]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlayHoursFile {
    pub(crate) any_time: bool,
    pub(crate) from: Option<String>,
    pub(crate) to: Option<String>,
    pub(crate) first_day_from: Option<String>,
}

/// The longest duration a preset may give (one day), so every limit is a sane [`TimeDelta`].
const MAX_SECS: i64 = 86_400;

fn secs(path: &str, value: i64, c: &mut Checker) -> Option<TimeDelta> {
    if value <= 0 {
        c.err(path, "must be > 0");
        None
    } else if value > MAX_SECS {
        c.err(path, format!("must be at most {MAX_SECS} (one day)"));
        None
    } else {
        TimeDelta::try_seconds(value)
    }
}

fn count(path: &str, value: i64, min: i64, c: &mut Checker) -> Option<u32> {
    if value < min {
        c.err(path, format!("must be >= {min}"));
        return None;
    }
    match u32::try_from(value) {
        Ok(v) => Some(v),
        Err(_) => {
            c.err(path, "is too large");
            None
        }
    }
}

fn clock(path: &str, value: &str, c: &mut Checker) -> Option<NaiveTime> {
    match NaiveTime::parse_from_str(value, "%H:%M") {
        Ok(t) => Some(t),
        Err(_) => {
            c.err(path, format!("{value:?} is not a time of day (HH:MM)"));
            None
        }
    }
}

/// Checks a `[stages.online]` table, reporting every problem under `path` (e.g.
/// `stages[0].online.points.draw: must be between loss and win`).
pub(crate) fn check_online(file: &OnlineFile, path: &str, c: &mut Checker) -> Option<OnlineRules> {
    let p = |field: &str| format!("{path}.{field}");
    let before = c.0.len();

    let eliminate_at_escapes = file
        .eliminate_at_escapes
        .and_then(|v| count(&p("eliminate_at_escapes"), v, 1, c));
    let min_games_ranked = count(&p("min_games_ranked"), file.min_games_ranked, 1, c);
    let min_games_certificate = file
        .min_games_certificate
        .and_then(|v| count(&p("min_games_certificate"), v, 1, c));
    let first_move_limit = file
        .first_move_limit_secs
        .and_then(|v| secs(&p("first_move_limit_secs"), v, c));

    let pt = &file.points;
    if pt.win <= pt.loss {
        c.err(p("points.win"), "must be greater than points.loss");
    }
    if let Some(draw) = pt.draw
        && !(pt.loss < draw && draw < pt.win)
    {
        c.err(
            p("points.draw"),
            "must be between points.loss and points.win",
        );
    }
    if pt.escape > pt.loss {
        c.err(p("points.escape"), "must not be more than points.loss");
    }
    if pt.escape_opponent <= pt.escape {
        c.err(
            p("points.escape_opponent"),
            "must be greater than points.escape",
        );
    }

    let d = &file.disconnection;
    let total_over = secs(&p("disconnection.total_over_secs"), d.total_over_secs, c);
    let count_over = count(&p("disconnection.count_over"), d.count_over, 0, c);
    let interruption_over = d
        .interruption_over_secs
        .and_then(|v| secs(&p("disconnection.interruption_over_secs"), v, c));

    let h = &file.play_hours;
    let from = h
        .from
        .as_deref()
        .and_then(|v| clock(&p("play_hours.from"), v, c));
    let to =
        h.to.as_deref()
            .and_then(|v| clock(&p("play_hours.to"), v, c));
    let first_day_from = h
        .first_day_from
        .as_deref()
        .and_then(|v| clock(&p("play_hours.first_day_from"), v, c));
    let mut daily = None;
    if h.any_time {
        for (field, value) in [("from", &h.from), ("to", &h.to)] {
            if value.is_some() {
                c.err(
                    p(&format!("play_hours.{field}")),
                    "must be absent when play_hours.any_time is true",
                );
            }
        }
    } else {
        for (field, value) in [("from", &h.from), ("to", &h.to)] {
            if value.is_none() {
                c.err(
                    p(&format!("play_hours.{field}")),
                    "is required unless play_hours.any_time is true",
                );
            }
        }
        if let (Some(from), Some(to)) = (from, to) {
            if to <= from {
                c.err(p("play_hours.to"), "must be later than play_hours.from");
            } else {
                daily = Some(DailyHours { from, to });
                if let Some(first) = first_day_from
                    && !(from < first && first < to)
                {
                    c.err(
                        p("play_hours.first_day_from"),
                        "must be after play_hours.from and before play_hours.to",
                    );
                }
            }
        }
    }

    let time_control = file
        .time_control
        .as_ref()
        .and_then(|t| check_time_control(t, &p("time_control"), c));
    if c.0.len() != before {
        return None;
    }
    Some(OnlineRules {
        points: Points {
            win: pt.win,
            loss: pt.loss,
            draw: pt.draw,
            escape: pt.escape,
            escape_opponent: pt.escape_opponent,
        },
        disconnection: DisconnectionRules {
            total_over: total_over?,
            count_over: count_over?,
            interruption_over,
        },
        play_hours: PlayHours {
            daily,
            first_day_from,
        },
        first_move_limit,
        resets_allowed: file.resets,
        eliminate_at_escapes,
        min_games_ranked: min_games_ranked?,
        min_games_certificate,
        time_control,
    })
}

// ---------------------------------------------------------------------------------------------
// Play hours (R-STR-4)

/// The inclusive China-time calendar days of one period of a stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodDays {
    pub first_day: NaiveDate,
    pub last_day: NaiveDate,
}

/// Whether a game was played inside a period's days and the stage's play hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlayTime {
    Inside,
    BeforePeriod,
    AfterPeriod,
    /// On a period day but outside the day's hours (including before the first day's later start).
    OutsideHours,
}

/// Judges the instant a game *started* against the period's days and the play hours (R-STR-4).
///
/// Reading: a game is judged by its start, in China time: a game started inside the hours counts
/// even if it ends after closing time; a game started outside them is refused (counts for nobody).
/// The daily window is half-open: 09:00:00 is inside, 23:00:00 is outside. On a period's first day
/// with `first_day_from`, play opens at that time (and, with a daily window, closes at its end).
pub fn judge_play_time(hours: &PlayHours, days: PeriodDays, started_at: DateTime<Utc>) -> PlayTime {
    let day = china_date(started_at);
    if day < days.first_day {
        return PlayTime::BeforePeriod;
    }
    if day > days.last_day {
        return PlayTime::AfterPeriod;
    }
    let time = started_at.with_timezone(&china_offset()).time();
    let opens = match (day == days.first_day, hours.first_day_from, hours.daily) {
        (true, Some(first), _) => Some(first),
        (_, _, Some(daily)) => Some(daily.from),
        _ => None,
    };
    let opened = opens.is_none_or(|o| time >= o);
    let not_closed = hours.daily.is_none_or(|d| time < d.to);
    if opened && not_closed {
        PlayTime::Inside
    } else {
        PlayTime::OutsideHours
    }
}

// ---------------------------------------------------------------------------------------------
// One game (R-ONL-2..5)

/// The result the platform reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportedResult {
    FirstWins,
    SecondWins,
    Draw,
}

/// Why the game ended, as the platform reported it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// Played out (mate, counting, agreed draw…).
    Normal,
    Resignation,
    /// Loss on time: an ordinary loss (R-ONL-6).
    Time,
    /// The side abandoned the game (逃跑).
    Escape(Side),
    /// The platform ended the game because the side's disconnection passed a limit.
    Disconnect(Side),
    /// The platform ended the game because a first move was too late (R-ONL-5).
    FirstMoveTimeout,
}

/// One interval during which a side was interrupted: disconnected, or (2022/2025) outside the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interruption {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

/// The raw facts of one finished game, as reported by the platform (R-ONL-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameFacts {
    pub started_at: DateTime<Utc>,
    pub ended_at: DateTime<Utc>,
    pub reported: ReportedResult,
    pub end_reason: EndReason,
    pub first_interruptions: Vec<Interruption>,
    pub second_interruptions: Vec<Interruption>,
    /// Time from the start to the first side's first move; `None`: it never moved. In a stage with
    /// a first-move limit (R-ONL-5) the platform must report it: a game that went on past the limit
    /// without a first move is void.
    pub first_side_first_move: Option<TimeDelta>,
    /// Time from the first side's first move to the second side's first move; `None`: it never moved.
    pub second_side_first_move: Option<TimeDelta>,
}

impl GameFacts {
    /// A game without interruptions or first-move data.
    pub fn plain(
        started_at: DateTime<Utc>,
        ended_at: DateTime<Utc>,
        reported: ReportedResult,
        end_reason: EndReason,
    ) -> GameFacts {
        GameFacts {
            started_at,
            ended_at,
            reported,
            end_reason,
            first_interruptions: Vec::new(),
            second_interruptions: Vec::new(),
            first_side_first_move: None,
            second_side_first_move: None,
        }
    }

    /// The game's length (end − start).
    pub fn duration(&self) -> TimeDelta {
        self.ended_at.signed_duration_since(self.started_at)
    }

    fn interruptions(&self, side: Side) -> &[Interruption] {
        match side {
            Side::First => &self.first_interruptions,
            Side::Second => &self.second_interruptions,
        }
    }
}

/// Why the facts of a game cannot be scored. The game then counts for nobody until a referee
/// corrects the facts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    #[error("the game ends before it starts")]
    EndsBeforeStart,
    #[error("interruption {index} of the {side:?} side ends before it starts")]
    InterruptionEndsBeforeStart { side: Side, index: usize },
    #[error("interruption {index} of the {side:?} side starts outside the game")]
    InterruptionOutsideGame { side: Side, index: usize },
    #[error("the {side:?} side's first move is negative or after the end of the game")]
    FirstMoveOutsideGame { side: Side },
    #[error("the second side moved before the first side")]
    SecondMovedFirst,
    #[error("a draw was reported but this stage's game has no draws")]
    DrawNotPossible,
    #[error(
        "the game ended by the {side:?} side's disconnection, but its interruptions pass no limit"
    )]
    DisconnectWithoutPassedLimit { side: Side },
    #[error("the game ended by a first-move timeout, but no first move was late")]
    FirstMoveTimeoutWithoutLateMove,
    #[error("an instant is out of range")]
    InstantOutOfRange,
}

/// What one game counts as for one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CountedResult {
    Win,
    Loss,
    Draw,
    /// Charged an escape (逃跑): counted in the escapes column only, not as a loss (R-ONL-3).
    Escape,
    /// No result (R-ONL-5): not a counted game.
    Void,
}

impl CountedResult {
    /// Counted (责任局): a win, loss, draw or escape; a void game is not counted (R-ONL-9).
    pub fn is_counted(self) -> bool {
        self != CountedResult::Void
    }
}

/// One side's counted result and points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideOutcome {
    pub result: CountedResult,
    pub points: i64,
}

/// What decided a game's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeBasis {
    /// The reported result stands.
    Reported,
    /// An escape derived from the interruptions: the side(s) passed a disconnection limit at `at`.
    DisconnectionEscape { at: DateTime<Utc> },
    /// The platform reported the side abandoning the game.
    DeclaredEscape,
    /// A first move came too late (passed the limit at `at`): no result for either side.
    VoidFirstMove { at: DateTime<Utc> },
}

/// What a game counts as for each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameOutcome {
    pub first: SideOutcome,
    pub second: SideOutcome,
    pub basis: OutcomeBasis,
}

impl GameOutcome {
    pub fn side(&self, side: Side) -> SideOutcome {
        match side {
            Side::First => self.first,
            Side::Second => self.second,
        }
    }
}

fn outcome(
    first: CountedResult,
    second: CountedResult,
    pts: &Points,
    basis: OutcomeBasis,
) -> GameOutcome {
    // The escaper's opponent gets `escape_opponent` (counted as a win); a draw's points exist when
    // the result is a draw (checked before).
    let of = |me: CountedResult, opponent: CountedResult| match me {
        CountedResult::Win if opponent == CountedResult::Escape => pts.escape_opponent,
        CountedResult::Win => pts.win,
        CountedResult::Loss => pts.loss,
        CountedResult::Draw => pts.draw.unwrap_or(0),
        CountedResult::Escape => pts.escape,
        CountedResult::Void => 0,
    };
    GameOutcome {
        first: SideOutcome {
            result: first,
            points: of(first, second),
        },
        second: SideOutcome {
            result: second,
            points: of(second, first),
        },
        basis,
    }
}

/// Validates one side's interruptions and merges them into maximal intervals, in time order,
/// clipped at the end of the game.
///
/// Reading: overlapping or touching intervals (say, disconnected while outside the app) are one
/// interruption; an interval running past the end of the game is cut at the end.
/// A closed interval of time.
type Span = (DateTime<Utc>, DateTime<Utc>);

fn merged_interruptions(facts: &GameFacts, side: Side) -> Result<Vec<Span>, FactsError> {
    let mut spans = Vec::new();
    for (index, i) in facts.interruptions(side).iter().enumerate() {
        if i.to < i.from {
            return Err(FactsError::InterruptionEndsBeforeStart { side, index });
        }
        if i.from < facts.started_at || i.from > facts.ended_at {
            return Err(FactsError::InterruptionOutsideGame { side, index });
        }
        spans.push((i.from, i.to.min(facts.ended_at)));
    }
    spans.sort();
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for (from, to) in spans {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    Ok(merged)
}

/// The instant a side's interruptions first passed a disconnection limit (R-ONL-4), if they did.
///
/// Limits are strict, so the instant returned is the last instant still within the limit: the side
/// is over the limit at any moment after it. A counted interruption becomes a disconnection once it
/// is longer than `interruption_over` (2015: at its start); the total grows with each counted
/// interruption's full length from then on.
fn limit_passed_at(rules: &DisconnectionRules, spans: &[Span]) -> Option<DateTime<Utc>> {
    let threshold = rules.interruption_over.unwrap_or_else(TimeDelta::zero);
    let mut total = TimeDelta::zero();
    let mut count: u32 = 0;
    for &(from, to) in spans {
        let len = to.signed_duration_since(from);
        if rules.interruption_over.is_some_and(|over| len <= over) {
            continue; // too short to count for anything (2022/2025)
        }
        count = count.saturating_add(1);
        if count > rules.count_over {
            return from.checked_add_signed(threshold).or(Some(to));
        }
        let remaining = rules
            .total_over
            .checked_sub(&total)
            .unwrap_or_else(TimeDelta::zero)
            .max(TimeDelta::zero());
        let offset = remaining.max(threshold);
        if len > offset {
            return from.checked_add_signed(offset).or(Some(to));
        }
        total = total.checked_add(&len).unwrap_or(TimeDelta::MAX);
    }
    None
}

/// The instant the first-move rule voided the game (R-ONL-5), if it did. Exactly the limit is in
/// time. A side that never moved voids the game if the game went on longer than the limit after
/// its turn began.
///
/// Reading: "每局开始的第一回合设置有60s步时" limits the first 回合, that is, each side's first move
/// (the second side's from the first side's move).
fn void_at(limit: TimeDelta, facts: &GameFacts) -> Result<Option<DateTime<Utc>>, FactsError> {
    let game = facts.duration();
    let Some(first) = facts.first_side_first_move else {
        return Ok((game > limit)
            .then(|| facts.started_at.checked_add_signed(limit))
            .flatten());
    };
    if first > limit {
        return Ok(facts.started_at.checked_add_signed(limit));
    }
    let turn = facts
        .started_at
        .checked_add_signed(first)
        .ok_or(FactsError::InstantOutOfRange)?;
    let late = match facts.second_side_first_move {
        Some(second) => second > limit,
        None => facts.ended_at.signed_duration_since(turn) > limit,
    };
    Ok(late.then(|| turn.checked_add_signed(limit)).flatten())
}

fn check_first_moves(facts: &GameFacts) -> Result<(), FactsError> {
    let game = facts.duration();
    let zero = TimeDelta::zero();
    match (facts.first_side_first_move, facts.second_side_first_move) {
        (None, Some(_)) => Err(FactsError::SecondMovedFirst),
        (Some(f), _) if f < zero || f > game => {
            Err(FactsError::FirstMoveOutsideGame { side: Side::First })
        }
        (Some(f), Some(s)) if s < zero || f.checked_add(&s).is_none_or(|sum| sum > game) => {
            Err(FactsError::FirstMoveOutsideGame { side: Side::Second })
        }
        _ => Ok(()),
    }
}

/// Scores one game from its raw facts (R-ONL-2, R-ONL-3, R-ONL-4, R-ONL-5).
///
/// In order:
/// 1. A first move later than the stage's limit voids the game (no result, 0 points each), whatever
///    was reported, unless a disconnection limit was passed strictly earlier.
/// 2. An escape derived from the interruptions overrides the reported result and end reason: the
///    side that passed a limit first escaped; if both passed one at the same instant, both are
///    charged an escape (`points.escape` each, nobody gets `escape_opponent`).
/// 3. Otherwise an escape declared by the platform (end reason [`EndReason::Escape`]) stands.
///    Reading: an end reason the facts do not bear out ([`EndReason::Disconnect`] without a passed
///    limit, [`EndReason::FirstMoveTimeout`] without a late first move) is an error for a referee,
///    not a guess.
/// 4. Otherwise the reported result counts (a loss on time is an ordinary loss).
///
/// The escaper's opponent is counted a win with `points.escape_opponent`; the escaper is counted in
/// the escapes column only.
pub fn score_game(rules: &OnlineRules, facts: &GameFacts) -> Result<GameOutcome, FactsError> {
    use CountedResult::{Draw, Escape, Loss, Void, Win};
    if facts.ended_at < facts.started_at {
        return Err(FactsError::EndsBeforeStart);
    }
    check_first_moves(facts)?;
    let first_spans = merged_interruptions(facts, Side::First)?;
    let second_spans = merged_interruptions(facts, Side::Second)?;
    let pts = &rules.points;

    let first_passed = limit_passed_at(&rules.disconnection, &first_spans);
    let second_passed = limit_passed_at(&rules.disconnection, &second_spans);
    let escape = match (first_passed, second_passed) {
        (Some(a), Some(b)) if a == b => Some((a, Escape, Escape)),
        (Some(a), Some(b)) if a < b => Some((a, Escape, Win)),
        (Some(_), Some(b)) => Some((b, Win, Escape)),
        (Some(a), None) => Some((a, Escape, Win)),
        (None, Some(b)) => Some((b, Win, Escape)),
        (None, None) => None,
    };

    if let Some(limit) = rules.first_move_limit
        && let Some(at) = void_at(limit, facts)?
        && escape.is_none_or(|(escaped_at, _, _)| at <= escaped_at)
    {
        return Ok(outcome(Void, Void, pts, OutcomeBasis::VoidFirstMove { at }));
    }
    if let Some((at, first, second)) = escape {
        return Ok(outcome(
            first,
            second,
            pts,
            OutcomeBasis::DisconnectionEscape { at },
        ));
    }
    match facts.end_reason {
        EndReason::Escape(Side::First) => {
            return Ok(outcome(Escape, Win, pts, OutcomeBasis::DeclaredEscape));
        }
        EndReason::Escape(Side::Second) => {
            return Ok(outcome(Win, Escape, pts, OutcomeBasis::DeclaredEscape));
        }
        EndReason::Disconnect(side) => {
            return Err(FactsError::DisconnectWithoutPassedLimit { side });
        }
        EndReason::FirstMoveTimeout => return Err(FactsError::FirstMoveTimeoutWithoutLateMove),
        EndReason::Normal | EndReason::Resignation | EndReason::Time => {}
    }
    let (first, second) = match facts.reported {
        ReportedResult::FirstWins => (Win, Loss),
        ReportedResult::SecondWins => (Loss, Win),
        ReportedResult::Draw if pts.draw.is_none() => return Err(FactsError::DrawNotPossible),
        ReportedResult::Draw => (Draw, Draw),
    };
    Ok(outcome(first, second, pts, OutcomeBasis::Reported))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use chrono::TimeZone;

    /// A stage's `[stages.online]` section: `None` if the stage has none.
    type Section = Option<OnlineRules>;

    /// Every stage of an official preset, as `(stage code, section)` in order.
    fn stages(preset: &str) -> Vec<(String, Section)> {
        crate::advancement::tests::official(preset)
            .stages
            .iter()
            .map(|s| (s.code.clone(), s.online))
            .collect()
    }

    /// The checked rules of one stage of one official preset.
    pub(crate) fn rules(preset: &str, stage: &str) -> OnlineRules {
        crate::advancement::tests::official(preset)
            .stage(stage)
            .and_then(|s| s.online)
            .unwrap_or_else(|| panic!("{preset} {stage} has no [stages.online]"))
    }

    /// A UTC instant from a China-time clock reading.
    pub(crate) fn cn(y: i32, m: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
        china_offset()
            .with_ymd_and_hms(y, m, d, h, mi, s)
            .single()
            .expect("time")
            .with_timezone(&Utc)
    }

    pub(crate) fn secs(s: i64) -> TimeDelta {
        TimeDelta::seconds(s)
    }

    fn start() -> DateTime<Utc> {
        cn(2015, 8, 2, 10, 0, 0)
    }

    /// A 20-minute game from `start()` with the given result and end reason.
    fn facts(reported: ReportedResult, end: EndReason) -> GameFacts {
        GameFacts::plain(start(), start() + secs(1200), reported, end)
    }

    /// An interruption `from_s` seconds into the game, `len_s` long.
    fn gap(from_s: i64, len_s: i64) -> Interruption {
        Interruption {
            from: start() + secs(from_s),
            to: start() + secs(from_s + len_s),
        }
    }

    fn results(o: &GameOutcome) -> ((CountedResult, i64), (CountedResult, i64)) {
        (
            (o.first.result, o.first.points),
            (o.second.result, o.second.points),
        )
    }

    use CountedResult::{Draw, Escape, Loss, Void, Win};
    use EndReason::Normal;
    use ReportedResult::{FirstWins, SecondWins};

    // --- presets ---------------------------------------------------------------------------

    #[test]
    fn every_snippet_stage_checks_and_only_finals_have_no_online_section() {
        let expected: &[(&str, &[&str])] = &[
            ("go-2015", &["haixuan", "jinji", "ruwei", "fuhuo", "final"]),
            (
                "xiangqi-2015",
                &["haixuan", "jinji", "ruwei", "fuhuo", "final"],
            ),
            ("chess-2015", &["haixuan", "ruwei", "fuhuo", "final"]),
            ("xiangqi-2022", &["haixuan", "ruwei", "final"]),
            ("go-2025", &["haixuan", "final"]),
        ];
        for (preset, codes) in expected {
            let got = stages(preset);
            let got_codes: Vec<&str> = got.iter().map(|(c, _)| c.as_str()).collect();
            assert_eq!(&got_codes, codes, "{preset}");
            for (code, section) in got {
                assert_eq!(section.is_none(), code == "final", "{preset} {code}");
            }
        }
    }

    #[test]
    fn r_onl_2_points_and_draws_per_preset() {
        for preset in ["go-2015", "go-2025"] {
            for (code, section) in stages(preset) {
                if let Some(r) = section {
                    assert_eq!(r.points.draw, None, "{preset} {code}: Go has no draws");
                    assert_eq!((r.points.win, r.points.loss), (2, -2));
                }
            }
        }
        for preset in ["xiangqi-2015", "chess-2015", "xiangqi-2022"] {
            for (code, section) in stages(preset) {
                if let Some(r) = section {
                    assert_eq!(r.points.draw, Some(1), "{preset} {code}");
                    assert_eq!((r.points.escape, r.points.escape_opponent), (-2, 2));
                }
            }
        }
    }

    #[test]
    fn r_onl_3_elimination_count_only_in_2015_haixuan() {
        for preset in [
            "go-2015",
            "xiangqi-2015",
            "chess-2015",
            "xiangqi-2022",
            "go-2025",
        ] {
            for (code, section) in stages(preset) {
                if let Some(r) = section {
                    let expected = (preset.ends_with("2015") && code == "haixuan").then_some(6);
                    assert_eq!(r.eliminate_at_escapes, expected, "{preset} {code}");
                }
            }
        }
    }

    #[test]
    fn r_onl_4_disconnection_limits_per_season() {
        let r = rules("go-2015", "haixuan");
        assert_eq!(
            r.disconnection,
            DisconnectionRules {
                total_over: secs(180),
                count_over: 2,
                interruption_over: None
            }
        );
        for (preset, stage) in [
            ("xiangqi-2022", "haixuan"),
            ("xiangqi-2022", "ruwei"),
            ("go-2025", "haixuan"),
        ] {
            assert_eq!(
                rules(preset, stage).disconnection,
                DisconnectionRules {
                    total_over: secs(120),
                    count_over: 2,
                    interruption_over: Some(secs(60))
                },
                "{preset} {stage}"
            );
        }
    }

    #[test]
    fn r_onl_5_first_move_limit_only_in_xiangqi_2022_ruwei() {
        for preset in [
            "go-2015",
            "xiangqi-2015",
            "chess-2015",
            "xiangqi-2022",
            "go-2025",
        ] {
            for (code, section) in stages(preset) {
                if let Some(r) = section {
                    let expected = (preset == "xiangqi-2022" && code == "ruwei").then(|| secs(60));
                    assert_eq!(r.first_move_limit, expected, "{preset} {code}");
                }
            }
        }
    }

    #[test]
    fn r_onl_7_resets_only_in_2015_haixuan_and_jinji() {
        for preset in [
            "go-2015",
            "xiangqi-2015",
            "chess-2015",
            "xiangqi-2022",
            "go-2025",
        ] {
            for (code, section) in stages(preset) {
                if let Some(r) = section {
                    let expected =
                        preset.ends_with("2015") && (code == "haixuan" || code == "jinji");
                    assert_eq!(r.resets_allowed, expected, "{preset} {code}");
                }
            }
        }
    }

    #[test]
    fn r_onl_10_minimum_counted_games_per_stage() {
        assert_eq!(rules("xiangqi-2015", "jinji").min_games_ranked, 5);
        assert_eq!(rules("chess-2015", "ruwei").min_games_ranked, 5);
        assert_eq!(rules("go-2015", "jinji").min_games_ranked, 1);
        assert_eq!(rules("xiangqi-2022", "ruwei").min_games_ranked, 1);
        assert_eq!(
            rules("xiangqi-2015", "haixuan").min_games_certificate,
            Some(10)
        );
        assert_eq!(
            rules("chess-2015", "haixuan").min_games_certificate,
            Some(10)
        );
        assert_eq!(
            rules("xiangqi-2022", "haixuan").min_games_certificate,
            Some(10)
        );
        assert_eq!(rules("go-2015", "haixuan").min_games_certificate, None);
    }

    #[test]
    fn r_str_4_play_hours_per_preset() {
        let nine_to_eleven = PlayHours {
            daily: Some(DailyHours {
                from: NaiveTime::from_hms_opt(9, 0, 0).expect("time"),
                to: NaiveTime::from_hms_opt(23, 0, 0).expect("time"),
            }),
            first_day_from: None,
        };
        let any_time_first_day_ten = PlayHours {
            daily: None,
            first_day_from: NaiveTime::from_hms_opt(10, 0, 0),
        };
        for preset in ["go-2015", "xiangqi-2015", "chess-2015"] {
            for (code, section) in stages(preset) {
                if let Some(r) = section {
                    assert_eq!(r.play_hours, nine_to_eleven, "{preset} {code}");
                }
            }
        }
        assert_eq!(
            rules("xiangqi-2022", "haixuan").play_hours,
            PlayHours {
                daily: None,
                first_day_from: None
            }
        );
        assert_eq!(
            rules("xiangqi-2022", "ruwei").play_hours,
            any_time_first_day_ten
        );
        assert_eq!(
            rules("go-2025", "haixuan").play_hours,
            any_time_first_day_ten
        );
    }

    #[test]
    fn a_bad_online_section_reports_every_error_with_its_path() {
        let text = r#"
            resets = true
            eliminate_at_escapes = 0
            min_games_ranked = 0
            min_games_certificate = -1
            first_move_limit_secs = 100000
            [points]
            win = -2
            loss = 2
            draw = 3
            escape = 4
            escape_opponent = 4
            [disconnection]
            total_over_secs = 0
            count_over = -1
            interruption_over_secs = -60
            [play_hours]
            any_time = false
            from = "9h"
            first_day_from = "25:00"
        "#;
        let file: OnlineFile = toml::from_str(text).expect("shape is right");
        let mut c = Checker::new();
        assert_eq!(check_online(&file, "stages[1].online", &mut c), None);
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        let expected = [
            "stages[1].online.eliminate_at_escapes: must be >= 1",
            "stages[1].online.min_games_ranked: must be >= 1",
            "stages[1].online.min_games_certificate: must be >= 1",
            "stages[1].online.first_move_limit_secs: must be at most 86400 (one day)",
            "stages[1].online.points.win: must be greater than points.loss",
            "stages[1].online.points.draw: must be between points.loss and points.win",
            "stages[1].online.points.escape: must not be more than points.loss",
            "stages[1].online.points.escape_opponent: must be greater than points.escape",
            "stages[1].online.disconnection.total_over_secs: must be > 0",
            "stages[1].online.disconnection.count_over: must be >= 0",
            "stages[1].online.disconnection.interruption_over_secs: must be > 0",
            "stages[1].online.play_hours.from: \"9h\" is not a time of day (HH:MM)",
            "stages[1].online.play_hours.first_day_from: \"25:00\" is not a time of day (HH:MM)",
            "stages[1].online.play_hours.to: is required unless play_hours.any_time is true",
        ];
        assert_eq!(rendered, expected);
    }

    #[test]
    fn a_bad_play_hours_table_is_reported() {
        let base = |hours: &str| {
            format!(
                "resets = false\nmin_games_ranked = 1\n[points]\nwin = 2\nloss = -2\nescape = -2\n\
                 escape_opponent = 2\n[disconnection]\ntotal_over_secs = 120\ncount_over = 2\n\
                 [play_hours]\n{hours}\n"
            )
        };
        let check = |hours: &str| {
            let file: OnlineFile = toml::from_str(&base(hours)).expect("shape");
            let mut c = Checker::new();
            let r = check_online(&file, "s", &mut c);
            (
                r.is_some(),
                c.0.iter().map(ToString::to_string).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            check("any_time = true\nfrom = \"09:00\""),
            (
                false,
                vec![
                    "s.play_hours.from: must be absent when play_hours.any_time is true".to_owned()
                ]
            )
        );
        assert_eq!(
            check("any_time = false\nfrom = \"23:00\"\nto = \"09:00\""),
            (
                false,
                vec!["s.play_hours.to: must be later than play_hours.from".to_owned()]
            )
        );
        assert_eq!(
            check("any_time = false\nfrom = \"09:00\"\nto = \"23:00\"\nfirst_day_from = \"08:00\""),
            (
                false,
                vec!["s.play_hours.first_day_from: must be after play_hours.from and before play_hours.to".to_owned()]
            )
        );
        assert_eq!(
            check("any_time = true\nfirst_day_from = \"10:00\""),
            (true, vec![])
        );
        let unknown: Result<OnlineFile, _> =
            toml::from_str(&base("any_time = true\nfrist_day = 1"));
        assert!(unknown.is_err(), "unknown keys are refused");
    }

    // --- R-ONL-2 / R-ONL-3: one game ---------------------------------------------------------

    #[test]
    fn r_onl_2_win_loss_and_draw_points() {
        let r = rules("xiangqi-2015", "haixuan");
        let o = score_game(&r, &facts(FirstWins, Normal)).expect("scores");
        assert_eq!(results(&o), ((Win, 2), (Loss, -2)));
        assert_eq!(o.basis, OutcomeBasis::Reported);
        let o = score_game(&r, &facts(SecondWins, EndReason::Resignation)).expect("scores");
        assert_eq!(results(&o), ((Loss, -2), (Win, 2)));
        let o = score_game(&r, &facts(ReportedResult::Draw, Normal)).expect("scores");
        assert_eq!(results(&o), ((Draw, 1), (Draw, 1)));
    }

    #[test]
    fn r_onl_2_go_has_no_draws() {
        let r = rules("go-2015", "haixuan");
        assert_eq!(
            score_game(&r, &facts(ReportedResult::Draw, Normal)),
            Err(FactsError::DrawNotPossible)
        );
    }

    #[test]
    fn r_onl_2_loss_on_time_is_an_ordinary_loss() {
        let r = rules("go-2025", "haixuan");
        let o = score_game(&r, &facts(SecondWins, EndReason::Time)).expect("scores");
        assert_eq!(results(&o), ((Loss, -2), (Win, 2)));
    }

    #[test]
    fn r_onl_3_declared_escape_is_minus_two_and_a_win_for_the_opponent() {
        let r = rules("go-2015", "haixuan");
        // The reported result is overridden by the escape.
        let o = score_game(&r, &facts(FirstWins, EndReason::Escape(Side::First))).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
        assert_eq!(o.basis, OutcomeBasis::DeclaredEscape);
        let o = score_game(&r, &facts(FirstWins, EndReason::Escape(Side::Second))).expect("scores");
        assert_eq!(results(&o), ((Win, 2), (Escape, -2)));
    }

    // --- R-ONL-4: disconnection --------------------------------------------------------------

    #[test]
    fn r_onl_4_2015_exactly_three_minutes_in_total_is_not_an_escape() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(FirstWins, Normal);
        f.first_interruptions = vec![gap(100, 90), gap(400, 90)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Win, 2), (Loss, -2)));
    }

    #[test]
    fn r_onl_4_2015_over_three_minutes_in_total_is_an_escape() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(FirstWins, Normal);
        f.first_interruptions = vec![gap(100, 90), gap(400, 91)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
        // Passed when the second interruption had lasted 90 s (90 + 90 = 180, over after that).
        assert_eq!(
            o.basis,
            OutcomeBasis::DisconnectionEscape {
                at: start() + secs(490)
            }
        );
    }

    #[test]
    fn r_onl_4_2015_exactly_two_disconnections_is_not_an_escape() {
        let r = rules("xiangqi-2015", "haixuan");
        let mut f = facts(SecondWins, Normal);
        f.second_interruptions = vec![gap(100, 1), gap(200, 1)];
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Loss, -2), (Win, 2))
        );
    }

    #[test]
    fn r_onl_4_2015_every_disconnection_counts_so_a_third_short_one_is_an_escape() {
        let r = rules("xiangqi-2015", "haixuan");
        let mut f = facts(SecondWins, Normal);
        f.second_interruptions = vec![gap(300, 1), gap(100, 1), gap(200, 1)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Win, 2), (Escape, -2)));
        assert_eq!(
            o.basis,
            OutcomeBasis::DisconnectionEscape {
                at: start() + secs(300)
            }
        );
    }

    #[test]
    fn r_onl_4_2022_interruptions_of_exactly_sixty_seconds_count_for_nothing() {
        let r = rules("xiangqi-2022", "haixuan");
        let mut f = facts(FirstWins, Normal);
        // Three interruptions of exactly 60 s: no disconnection, and no total (180 s uncounted).
        f.first_interruptions = vec![gap(100, 60), gap(300, 60), gap(500, 60)];
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
        // Many short ones neither.
        f.first_interruptions = (0..10).map(|i| gap(100 + 100 * i, 59)).collect();
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
    }

    #[test]
    fn r_onl_4_2022_a_third_interruption_over_sixty_seconds_is_an_escape() {
        let r = rules("xiangqi-2022", "haixuan");
        let mut f = facts(FirstWins, Normal);
        // 61 + 59 (uncounted) + 61: two disconnections, 122 s counted: over 120 s at the second one.
        f.first_interruptions = vec![gap(100, 61), gap(200, 59), gap(300, 61)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
        assert_eq!(
            o.basis,
            OutcomeBasis::DisconnectionEscape {
                at: start() + secs(360)
            }
        );
    }

    #[test]
    fn r_onl_4_2022_total_counts_full_lengths_and_exactly_two_minutes_is_in() {
        let r = rules("go-2025", "haixuan");
        let mut f = facts(FirstWins, Normal);
        f.second_interruptions = vec![gap(100, 120)];
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
        f.second_interruptions = vec![gap(100, 121)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Win, 2), (Escape, -2)));
        assert_eq!(
            o.basis,
            OutcomeBasis::DisconnectionEscape {
                at: start() + secs(220)
            }
        );
    }

    #[test]
    fn r_onl_4_2022_three_counted_disconnections_under_two_minutes_total_still_escape() {
        // count_over 2 with interruption_over 60 and total_over 120: the count limit can only bite
        // with a custom total; check it with a larger total limit.
        let mut r = rules("xiangqi-2022", "haixuan");
        r.disconnection.total_over = secs(600);
        let mut f = facts(FirstWins, Normal);
        f.first_interruptions = vec![gap(100, 61), gap(300, 61), gap(500, 61)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
        assert_eq!(
            o.basis,
            OutcomeBasis::DisconnectionEscape {
                at: start() + secs(560)
            }
        );
    }

    #[test]
    fn r_onl_4_overlapping_interruptions_are_one() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(FirstWins, Normal);
        // Disconnected while outside the app: one interruption, not three disconnections.
        f.first_interruptions = vec![gap(100, 10), gap(105, 10), gap(115, 5)];
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
    }

    #[test]
    fn r_onl_4_derived_escape_overrides_the_reported_result() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(FirstWins, Normal);
        f.first_interruptions = vec![gap(100, 200)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
        // …and a declared escape of the other side.
        let mut f = facts(FirstWins, EndReason::Escape(Side::Second));
        f.first_interruptions = vec![gap(100, 200)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
    }

    #[test]
    fn r_onl_4_the_side_that_passed_a_limit_first_escaped() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(FirstWins, EndReason::Disconnect(Side::First));
        f.first_interruptions = vec![gap(100, 500)]; // passes at 280
        f.second_interruptions = vec![gap(50, 1), gap(60, 1), gap(270, 1)]; // third at 270
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Win, 2), (Escape, -2)));
        assert_eq!(
            o.basis,
            OutcomeBasis::DisconnectionEscape {
                at: start() + secs(270)
            }
        );
    }

    #[test]
    fn r_onl_4_both_passing_at_the_same_instant_both_escape_and_nobody_gets_two() {
        let r = rules("xiangqi-2022", "haixuan");
        let mut f = facts(ReportedResult::Draw, Normal);
        f.first_interruptions = vec![gap(100, 300)];
        f.second_interruptions = vec![gap(100, 200)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Escape, -2)));
    }

    #[test]
    fn r_onl_4_an_interruption_past_the_end_is_cut_at_the_end() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(SecondWins, Normal);
        f.first_interruptions = vec![gap(1100, 1000)]; // 100 s inside the game
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Loss, -2), (Win, 2))
        );
    }

    #[test]
    fn r_onl_4_an_end_reason_the_facts_do_not_bear_out_is_an_error() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(SecondWins, EndReason::Disconnect(Side::First));
        f.first_interruptions = vec![gap(100, 180)];
        assert_eq!(
            score_game(&r, &f),
            Err(FactsError::DisconnectWithoutPassedLimit { side: Side::First })
        );
        let f = facts(SecondWins, EndReason::FirstMoveTimeout);
        assert_eq!(
            score_game(&r, &f),
            Err(FactsError::FirstMoveTimeoutWithoutLateMove)
        );
    }

    #[test]
    fn r_onl_4_inconsistent_facts_are_errors_not_panics() {
        let r = rules("go-2015", "haixuan");
        let mut f = facts(SecondWins, Normal);
        f.ended_at = f.started_at - secs(1);
        assert_eq!(score_game(&r, &f), Err(FactsError::EndsBeforeStart));
        let mut f = facts(SecondWins, Normal);
        f.second_interruptions = vec![
            gap(10, 1),
            Interruption {
                from: start() + secs(50),
                to: start() + secs(40),
            },
        ];
        assert_eq!(
            score_game(&r, &f),
            Err(FactsError::InterruptionEndsBeforeStart {
                side: Side::Second,
                index: 1
            })
        );
        let mut f = facts(SecondWins, Normal);
        f.first_interruptions = vec![gap(-10, 30)];
        assert_eq!(
            score_game(&r, &f),
            Err(FactsError::InterruptionOutsideGame {
                side: Side::First,
                index: 0
            })
        );
        let mut f = facts(SecondWins, Normal);
        f.second_side_first_move = Some(secs(5));
        assert_eq!(score_game(&r, &f), Err(FactsError::SecondMovedFirst));
        let mut f = facts(SecondWins, Normal);
        f.first_side_first_move = Some(secs(5000));
        assert_eq!(
            score_game(&r, &f),
            Err(FactsError::FirstMoveOutsideGame { side: Side::First })
        );
    }

    // --- R-ONL-5: void games -----------------------------------------------------------------

    #[test]
    fn r_onl_5_exactly_sixty_seconds_is_in_time() {
        let r = rules("xiangqi-2022", "ruwei");
        let mut f = facts(FirstWins, Normal);
        f.first_side_first_move = Some(secs(60));
        f.second_side_first_move = Some(secs(60));
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
    }

    #[test]
    fn r_onl_5_a_late_first_move_voids_the_game_whatever_was_reported() {
        let r = rules("xiangqi-2022", "ruwei");
        let mut f = facts(FirstWins, Normal);
        f.first_side_first_move = Some(secs(60) + TimeDelta::milliseconds(1));
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Void, 0), (Void, 0)));
        assert_eq!(
            o.basis,
            OutcomeBasis::VoidFirstMove {
                at: start() + secs(60)
            }
        );
        // The second side's first move (the first 回合) too, counted from the first side's move.
        let mut f = facts(SecondWins, EndReason::Escape(Side::First));
        f.first_side_first_move = Some(secs(10));
        f.second_side_first_move = Some(secs(61));
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Void, 0), (Void, 0)));
        assert_eq!(
            o.basis,
            OutcomeBasis::VoidFirstMove {
                at: start() + secs(70)
            }
        );
    }

    #[test]
    fn r_onl_5_a_side_that_never_moved_voids_a_game_that_went_on() {
        let r = rules("xiangqi-2022", "ruwei");
        let mut f = GameFacts::plain(
            start(),
            start() + secs(61),
            FirstWins,
            EndReason::FirstMoveTimeout,
        );
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Void, 0), (Void, 0))
        );
        // Ended (resigned) within the minute without a move: an ordinary result.
        f.ended_at = start() + secs(30);
        f.end_reason = EndReason::Resignation;
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
    }

    #[test]
    fn r_onl_5_no_void_rule_outside_xiangqi_2022_ruwei() {
        let r = rules("xiangqi-2022", "haixuan");
        let mut f = facts(FirstWins, Normal);
        f.first_side_first_move = Some(secs(300));
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Win, 2), (Loss, -2))
        );
    }

    #[test]
    fn r_onl_5_an_escape_passed_before_the_void_instant_stands() {
        // A custom preset combining 2015 counting with a first-move limit: three short
        // disconnections in the first 30 s pass the count limit before the first move is late.
        let mut r = rules("xiangqi-2022", "ruwei");
        r.disconnection = rules("xiangqi-2015", "haixuan").disconnection;
        let mut f = facts(FirstWins, Normal);
        f.first_side_first_move = Some(secs(90));
        f.first_interruptions = vec![gap(10, 1), gap(20, 1), gap(30, 1)];
        let o = score_game(&r, &f).expect("scores");
        assert_eq!(results(&o), ((Escape, -2), (Win, 2)));
        // The same escape after the void instant: void.
        f.first_interruptions = vec![gap(10, 1), gap(20, 1), gap(70, 1)];
        f.first_side_first_move = Some(secs(90));
        assert_eq!(
            results(&score_game(&r, &f).expect("scores")),
            ((Void, 0), (Void, 0))
        );
    }

    // --- R-STR-4: play hours -----------------------------------------------------------------

    #[test]
    fn r_str_4_2015_hours_are_nine_to_eleven_china_time_half_open() {
        let hours = rules("go-2015", "haixuan").play_hours;
        let days = PeriodDays {
            first_day: NaiveDate::from_ymd_opt(2015, 8, 1).expect("date"),
            last_day: NaiveDate::from_ymd_opt(2015, 8, 14).expect("date"),
        };
        let at = |d, h, m, s| judge_play_time(&hours, days, cn(2015, 8, d, h, m, s));
        assert_eq!(at(1, 8, 59, 59), PlayTime::OutsideHours);
        assert_eq!(at(1, 9, 0, 0), PlayTime::Inside);
        assert_eq!(at(14, 22, 59, 59), PlayTime::Inside);
        assert_eq!(at(14, 23, 0, 0), PlayTime::OutsideHours);
        assert_eq!(at(15, 10, 0, 0), PlayTime::AfterPeriod);
        assert_eq!(
            judge_play_time(&hours, days, cn(2015, 7, 31, 10, 0, 0)),
            PlayTime::BeforePeriod
        );
        // 01:00 UTC is 09:00 in China.
        let utc = Utc
            .with_ymd_and_hms(2015, 8, 3, 1, 0, 0)
            .single()
            .expect("time");
        assert_eq!(judge_play_time(&hours, days, utc), PlayTime::Inside);
    }

    #[test]
    fn r_str_4_any_time_except_a_periods_first_day_before_ten() {
        let days = PeriodDays {
            first_day: NaiveDate::from_ymd_opt(2022, 6, 11).expect("date"),
            last_day: NaiveDate::from_ymd_opt(2022, 6, 19).expect("date"),
        };
        for (preset, stage) in [("xiangqi-2022", "ruwei"), ("go-2025", "haixuan")] {
            let hours = rules(preset, stage).play_hours;
            let at = |d, h, m, s| judge_play_time(&hours, days, cn(2022, 6, d, h, m, s));
            assert_eq!(at(11, 9, 59, 59), PlayTime::OutsideHours, "{preset}");
            assert_eq!(at(11, 10, 0, 0), PlayTime::Inside, "{preset}");
            assert_eq!(at(11, 23, 59, 59), PlayTime::Inside, "{preset}");
            assert_eq!(at(12, 0, 0, 0), PlayTime::Inside, "{preset}");
            assert_eq!(at(19, 3, 0, 0), PlayTime::Inside, "{preset}");
        }
        let hours = rules("xiangqi-2022", "haixuan").play_hours;
        assert_eq!(
            judge_play_time(&hours, days, cn(2022, 6, 11, 0, 0, 0)),
            PlayTime::Inside
        );
    }
}
