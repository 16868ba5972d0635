//! Online knockout stages (淘汰赛): go-2015 入围 (R-ADV-3) and xiangqi-2015 入围 (R-ADV-6), with the
//! blitz tie-break's time control (R-ONL-6), as data (`[stages.knockout]`) and pure functions.
//!
//! Reading for every knockout (RULES.md §4): random pairing inside the round; an odd player out
//! gets a bye and advances; a player who escapes is out, and if both escape both are out.
//!
//! Online, players are matched by the platform at random (R-ONL-1) or by a drawn pairing
//! ([`crate::lottery::pair_knockout_round`]); either way the platform reports who was matched with
//! whom and, later, the result. [`round_state`] turns those reports into each entrant's status in
//! the round (advanced, out, or still pending, and why), [`RoundState::advancing`] gives the next
//! round's entrants, and [`finish`] the round a player was knocked out in (grades depend on it,
//! R-GRD-1, R-GRD-2).

use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

use crate::preset::Checker;
pub use crate::time_control::TimeControl;
use crate::time_control::{TimeControlFile, check_time_control};

// ---------------------------------------------------------------------------------------------
// Domain types
// ---------------------------------------------------------------------------------------------

/// A side of a game by move order: the first mover is Red in Xiangqi, Black in Go, White in Chess.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    FirstMover,
    SecondMover,
}

/// The one-game blitz replay of a drawn knockout game (xiangqi-2015 入围: "如和棋则交换先后手加赛一局
/// 快棋。快棋赛用时红方6分钟，黑方2分钟，每步加5秒，和棋黑胜", R-ADV-6, R-ONL-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlitzReplay {
    /// Main time of the first mover (Red), seconds.
    pub first_mover_secs: u32,
    /// Main time of the second mover (Black), seconds.
    pub second_mover_secs: u32,
    /// Added per move, seconds.
    pub increment_secs: u32,
    /// Who wins a drawn blitz game (和棋黑胜: the second mover).
    pub draw_winner: Side,
}

/// What a drawn knockout game leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawRule {
    /// The game has no draws (Go, R-ONL-2); a reported draw is an error.
    Impossible,
    /// One blitz game with colours swapped.
    BlitzReplay(BlitzReplay),
}

/// How a round is paired. Only random pairing is in the rules (R-ADV-3 "随机匹配").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairingRule {
    Random,
}

/// What happens to the odd player out. Only "advances" is in the rules (Reading for every knockout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByeRule {
    Advances,
}

/// What happens to an escaper. Only "out" is in the rules (R-ADV-3, R-ADV-6: "逃跑棋手直接淘汰").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscapeRule {
    Out,
}

/// A stage's `[stages.knockout]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnockoutConfig {
    /// Number of rounds (3 in both 2015 presets).
    pub rounds: u32,
    pub pairing: PairingRule,
    pub bye: ByeRule,
    pub escape: EscapeRule,
    pub draw: DrawRule,
    /// The regular games' time control, when the rules state it (R-ONL-6).
    pub time_control: Option<TimeControl>,
    /// A player not matched within this many minutes of entering the room advances (R-ADV-6: 60).
    pub unmatched_advance_after_minutes: Option<u32>,
}

// ---------------------------------------------------------------------------------------------
// Reports and the state of a round
// ---------------------------------------------------------------------------------------------

/// A player entering the round's room (比赛房间).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomEntry {
    pub player: String,
    pub entered_at: DateTime<Utc>,
}

/// Which game of a pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameKind {
    /// The round's game.
    Regular,
    /// The blitz replay after a drawn regular game (colours swapped).
    BlitzReplay,
}

/// The result of a knockout game as the platform (after R-ONL-4 disconnection rulings) reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    FirstMoverWon,
    SecondMoverWon,
    Draw,
    FirstMoverEscaped,
    SecondMoverEscaped,
    BothEscaped,
}

/// A game reported by the platform: matched at `matched_at`; `result` is `None` while it is played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnockoutGame {
    pub first_mover: String,
    pub second_mover: String,
    pub kind: GameKind,
    pub matched_at: DateTime<Utc>,
    pub result: Option<GameResult>,
}

/// Everything known about one round.
#[derive(Debug, Clone, Copy)]
pub struct RoundReport<'a> {
    /// 1-based.
    pub round: u32,
    /// The round's entrants, in a fixed order (the order of the results below).
    pub entrants: &'a [String],
    /// Players given a bye by a drawn pairing ([`crate::lottery::RoundPairing::bye`]).
    pub byes: &'a [String],
    pub room_entries: &'a [RoomEntry],
    pub games: &'a [KnockoutGame],
    pub now: DateTime<Utc>,
    /// The round's play window is over (2015: each round day 9:00-23:00): no more matching.
    pub closed: bool,
}

/// Why a player advanced from a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Advanced {
    Won {
        opponent: String,
    },
    /// Won the blitz replay.
    WonBlitz {
        opponent: String,
    },
    /// The blitz replay was drawn and the rules give it to this player's side (和棋黑胜).
    BlitzDrawAwarded {
        opponent: String,
    },
    /// The opponent escaped (in the game or the blitz replay).
    OpponentEscaped {
        opponent: String,
    },
    /// The odd player out of a drawn pairing.
    Bye,
    /// Not matched within the configured minutes of entering the room (R-ADV-6: "1小时内未配对到对手，
    /// 则自动晋级"), from `since`.
    NotMatchedInTime {
        entered_at: DateTime<Utc>,
        since: DateTime<Utc>,
    },
    /// In the room and never matched by the round's close: the odd player out (Reading).
    UnmatchedAtClose,
}

/// Why a player is out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    Lost {
        opponent: String,
    },
    LostBlitz {
        opponent: String,
    },
    /// The blitz replay was drawn and the rules give it to the opponent's side.
    BlitzDrawAgainst {
        opponent: String,
    },
    Escaped {
        opponent: String,
    },
    /// Both escaped: both are out (Reading for every knockout).
    BothEscaped {
        opponent: String,
    },
    /// Never entered the room by the round's close (Reading: a no-show forfeits).
    NoShow,
}

/// Why a player's round is not decided yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// Not in the room yet.
    NotEntered,
    /// In the room, not matched; advances after `advances_after` if still unmatched (when the stage
    /// has a wait limit).
    Waiting {
        entered_at: DateTime<Utc>,
        advances_after: Option<DateTime<Utc>>,
    },
    /// Matched, game not finished.
    Playing { opponent: String },
    /// The game was drawn; the blitz replay is due or being played.
    AwaitingBlitz { opponent: String },
}

/// A player's status in a round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoundStatus {
    Advanced(Advanced),
    Out(Out),
    Pending(Pending),
}

/// The state of one round: each entrant's status, in entrant order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundState {
    pub round: u32,
    pub statuses: Vec<(String, RoundStatus)>,
}

impl RoundState {
    /// Players who advance, in entrant order: the next round's entrants.
    pub fn advancing(&self) -> Vec<String> {
        self.select(|s| matches!(s, RoundStatus::Advanced(_)))
    }
    /// Players knocked out in this round, in entrant order.
    pub fn knocked_out(&self) -> Vec<String> {
        self.select(|s| matches!(s, RoundStatus::Out(_)))
    }
    /// Players whose round is not decided yet.
    pub fn pending(&self) -> Vec<String> {
        self.select(|s| matches!(s, RoundStatus::Pending(_)))
    }
    /// Every entrant's round is decided.
    pub fn is_complete(&self) -> bool {
        self.pending().is_empty()
    }
    /// The next round's entrants, once this round is complete.
    pub fn next_round_entrants(&self) -> Option<Vec<String>> {
        self.is_complete().then(|| self.advancing())
    }
    pub fn status(&self, player: &str) -> Option<&RoundStatus> {
        self.statuses
            .iter()
            .find(|(p, _)| p == player)
            .map(|(_, s)| s)
    }
    fn select(&self, f: impl Fn(&RoundStatus) -> bool) -> Vec<String> {
        self.statuses
            .iter()
            .filter(|(_, s)| f(s))
            .map(|(p, _)| p.clone())
            .collect()
    }
}

/// Reports that cannot be turned into a round state.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KnockoutError {
    #[error("round {round} is not a round of this stage (1..={rounds})")]
    NoSuchRound { round: u32, rounds: u32 },
    #[error("entrant {0:?} appears more than once")]
    DuplicateEntrant(String),
    #[error("{0:?} is not an entrant of this round")]
    NotAnEntrant(String),
    #[error("{0:?} cannot play against themselves")]
    SelfPairing(String),
    #[error("{0:?} has a bye and cannot also play")]
    ByePlayerPlayed(String),
    #[error("{0:?} is in more than one game of this round")]
    MoreThanOneGame(String),
    #[error("a draw was reported between {0:?} and {1:?}, but this game has no draws")]
    DrawNotPossible(String, String),
    #[error("a blitz replay between {0:?} and {1:?} has no drawn regular game before it")]
    BlitzWithoutDraw(String, String),
    #[error("the blitz replay between {0:?} and {1:?} must swap colours")]
    BlitzColoursNotSwapped(String, String),
    #[error("the blitz replay between {0:?} and {1:?} was reported more than once")]
    MoreThanOneBlitz(String, String),
    #[error(
        "the blitz replay between {0:?} and {1:?} was drawn, which is impossible without a draw winner"
    )]
    BlitzNotConfigured(String, String),
    #[error(
        "{player:?} was matched at {matched_at} although he had advanced unmatched after {advanced_after}"
    )]
    MatchedAfterWaitExpired {
        player: String,
        matched_at: DateTime<Utc>,
        advanced_after: DateTime<Utc>,
    },
}

fn opponent_of<'g>(g: &'g KnockoutGame, player: &str) -> &'g str {
    if g.first_mover == player {
        &g.second_mover
    } else {
        &g.first_mover
    }
}

/// The outcome of a finished game for `player`: `Ok(advanced)` or `Err(out)`, or `None` for a draw.
fn outcome_for(result: GameResult, player_is_first: bool, opponent: &str) -> Option<RoundStatus> {
    let opponent = opponent.to_owned();
    let won = || {
        RoundStatus::Advanced(Advanced::Won {
            opponent: opponent.clone(),
        })
    };
    let lost = || {
        RoundStatus::Out(Out::Lost {
            opponent: opponent.clone(),
        })
    };
    Some(match (result, player_is_first) {
        (GameResult::Draw, _) => return None,
        (GameResult::FirstMoverWon, true) | (GameResult::SecondMoverWon, false) => won(),
        (GameResult::FirstMoverWon, false) | (GameResult::SecondMoverWon, true) => lost(),
        (GameResult::FirstMoverEscaped, true) | (GameResult::SecondMoverEscaped, false) => {
            RoundStatus::Out(Out::Escaped {
                opponent: opponent.clone(),
            })
        }
        (GameResult::FirstMoverEscaped, false) | (GameResult::SecondMoverEscaped, true) => {
            RoundStatus::Advanced(Advanced::OpponentEscaped {
                opponent: opponent.clone(),
            })
        }
        (GameResult::BothEscaped, _) => RoundStatus::Out(Out::BothEscaped {
            opponent: opponent.clone(),
        }),
    })
}

/// The state of a round from what the platform reported (R-ADV-3, R-ADV-6, Reading for every
/// knockout).
///
/// For each entrant, in order:
/// * a drawn bye advances;
/// * with a finished regular game: the winner advances, the loser is out; an escaper is out and
///   the opponent advances; both escapers are out; a draw (where draws are possible) leads to the
///   blitz replay with colours swapped, whose winner advances, whose draw goes to the configured
///   side (和棋黑胜), and whose escapers are out as in the regular game;
/// * with a game being played: pending;
/// * in the room and unmatched: advances once strictly more than the configured minutes have
///   passed since entering (Reading: matched at exactly 60 minutes is "within 1 hour"; the earliest
///   entry counts), or when the round closes unmatched (Reading: the odd player out); otherwise
///   pending;
/// * never in the room: out when the round closes (no-show), pending before.
pub fn round_state(
    config: &KnockoutConfig,
    report: &RoundReport<'_>,
) -> Result<RoundState, KnockoutError> {
    if report.round == 0 || report.round > config.rounds {
        return Err(KnockoutError::NoSuchRound {
            round: report.round,
            rounds: config.rounds,
        });
    }
    let mut entrants = BTreeSet::new();
    for e in report.entrants {
        if !entrants.insert(e.as_str()) {
            return Err(KnockoutError::DuplicateEntrant(e.clone()));
        }
    }
    let known = |p: &str| -> Result<(), KnockoutError> {
        if entrants.contains(p) {
            Ok(())
        } else {
            Err(KnockoutError::NotAnEntrant(p.to_owned()))
        }
    };
    let byes: BTreeSet<&str> = report.byes.iter().map(String::as_str).collect();
    for b in &byes {
        known(b)?;
    }
    let mut entered: BTreeMap<&str, DateTime<Utc>> = BTreeMap::new();
    for e in report.room_entries {
        known(&e.player)?;
        let t = entered.entry(e.player.as_str()).or_insert(e.entered_at);
        *t = (*t).min(e.entered_at);
    }
    let wait = config
        .unmatched_advance_after_minutes
        .map(|m| Duration::minutes(i64::from(m)));

    let mut regular: BTreeMap<&str, &KnockoutGame> = BTreeMap::new();
    let mut blitz: BTreeMap<&str, &KnockoutGame> = BTreeMap::new();
    for g in report.games {
        known(&g.first_mover)?;
        known(&g.second_mover)?;
        if g.first_mover == g.second_mover {
            return Err(KnockoutError::SelfPairing(g.first_mover.clone()));
        }
        for p in [&g.first_mover, &g.second_mover] {
            if byes.contains(p.as_str()) {
                return Err(KnockoutError::ByePlayerPlayed(p.clone()));
            }
        }
        let pair = || (g.first_mover.clone(), g.second_mover.clone());
        match g.kind {
            GameKind::Regular => {
                for p in [&g.first_mover, &g.second_mover] {
                    if regular.insert(p.as_str(), g).is_some() {
                        return Err(KnockoutError::MoreThanOneGame(p.clone()));
                    }
                    if let (Some(w), Some(&t)) = (wait, entered.get(p.as_str()))
                        && g.matched_at > t + w
                    {
                        return Err(KnockoutError::MatchedAfterWaitExpired {
                            player: p.clone(),
                            matched_at: g.matched_at,
                            advanced_after: t + w,
                        });
                    }
                }
                if g.result == Some(GameResult::Draw) && config.draw == DrawRule::Impossible {
                    let (a, b) = pair();
                    return Err(KnockoutError::DrawNotPossible(a, b));
                }
            }
            GameKind::BlitzReplay => {
                for p in [&g.first_mover, &g.second_mover] {
                    if blitz.insert(p.as_str(), g).is_some() {
                        let (a, b) = pair();
                        return Err(KnockoutError::MoreThanOneBlitz(a, b));
                    }
                }
            }
        }
    }
    // Every blitz replay follows a drawn regular game between the same two, colours swapped.
    for g in report
        .games
        .iter()
        .filter(|g| g.kind == GameKind::BlitzReplay)
    {
        let (a, b) = (g.first_mover.clone(), g.second_mover.clone());
        let Some(r) = regular.get(g.first_mover.as_str()) else {
            return Err(KnockoutError::BlitzWithoutDraw(a, b));
        };
        if r.result != Some(GameResult::Draw) || opponent_of(r, &g.first_mover) != g.second_mover {
            return Err(KnockoutError::BlitzWithoutDraw(a, b));
        }
        if r.first_mover != g.second_mover {
            return Err(KnockoutError::BlitzColoursNotSwapped(a, b));
        }
        if g.result == Some(GameResult::Draw) && !matches!(config.draw, DrawRule::BlitzReplay(_)) {
            return Err(KnockoutError::BlitzNotConfigured(a, b));
        }
    }

    let statuses = report
        .entrants
        .iter()
        .map(|p| {
            let status = status_of(config, report, p, &byes, &entered, wait, &regular, &blitz);
            (p.clone(), status)
        })
        .collect();
    Ok(RoundState {
        round: report.round,
        statuses,
    })
}

#[allow(clippy::too_many_arguments)]
fn status_of(
    config: &KnockoutConfig,
    report: &RoundReport<'_>,
    p: &str,
    byes: &BTreeSet<&str>,
    entered: &BTreeMap<&str, DateTime<Utc>>,
    wait: Option<Duration>,
    regular: &BTreeMap<&str, &KnockoutGame>,
    blitz: &BTreeMap<&str, &KnockoutGame>,
) -> RoundStatus {
    if byes.contains(p) {
        return RoundStatus::Advanced(Advanced::Bye);
    }
    if let Some(g) = regular.get(p) {
        let opponent = opponent_of(g, p).to_owned();
        let Some(result) = g.result else {
            return RoundStatus::Pending(Pending::Playing { opponent });
        };
        if let Some(s) = outcome_for(result, g.first_mover == p, &opponent) {
            return s;
        }
        // Drawn: the blitz replay decides.
        let Some(b) = blitz.get(p) else {
            return RoundStatus::Pending(Pending::AwaitingBlitz { opponent });
        };
        let Some(result) = b.result else {
            return RoundStatus::Pending(Pending::AwaitingBlitz { opponent });
        };
        let is_first = b.first_mover == p;
        return match outcome_for(result, is_first, &opponent) {
            Some(RoundStatus::Advanced(Advanced::Won { opponent })) => {
                RoundStatus::Advanced(Advanced::WonBlitz { opponent })
            }
            Some(RoundStatus::Out(Out::Lost { opponent })) => {
                RoundStatus::Out(Out::LostBlitz { opponent })
            }
            Some(other) => other,
            None => {
                // A blitz draw: checked above that a blitz rule exists.
                let winner = match config.draw {
                    DrawRule::BlitzReplay(r) => r.draw_winner,
                    DrawRule::Impossible => Side::SecondMover,
                };
                let mine = if is_first {
                    Side::FirstMover
                } else {
                    Side::SecondMover
                };
                if mine == winner {
                    RoundStatus::Advanced(Advanced::BlitzDrawAwarded { opponent })
                } else {
                    RoundStatus::Out(Out::BlitzDrawAgainst { opponent })
                }
            }
        };
    }
    match entered.get(p) {
        Some(&entered_at) => {
            let advances_after = wait.map(|w| entered_at + w);
            match advances_after {
                Some(since) if report.now > since => {
                    RoundStatus::Advanced(Advanced::NotMatchedInTime { entered_at, since })
                }
                _ if report.closed => RoundStatus::Advanced(Advanced::UnmatchedAtClose),
                _ => RoundStatus::Pending(Pending::Waiting {
                    entered_at,
                    advances_after,
                }),
            }
        }
        None if report.closed => RoundStatus::Out(Out::NoShow),
        None => RoundStatus::Pending(Pending::NotEntered),
    }
}

/// How far a player went in a knockout stage (R-GRD-1: out in round 1/2/3 or won round 3;
/// R-GRD-2: winner or loser).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KnockoutFinish {
    OutInRound(u32),
    /// Advanced from the last round: goes on to the final. Reading: a bye or an unmatched advance
    /// counts as winning the round ("自动晋级").
    WonLastRound,
}

/// A player's finish from the states of the rounds played so far (any order). `None` while the
/// player is still in (or pending), or if they never entered the stage.
pub fn finish(
    config: &KnockoutConfig,
    rounds: &[RoundState],
    player: &str,
) -> Option<KnockoutFinish> {
    let mut ordered: Vec<&RoundState> = rounds.iter().collect();
    ordered.sort_by_key(|r| r.round);
    for r in ordered {
        match r.status(player) {
            Some(RoundStatus::Out(_)) => return Some(KnockoutFinish::OutInRound(r.round)),
            Some(RoundStatus::Advanced(_)) if r.round == config.rounds => {
                return Some(KnockoutFinish::WonLastRound);
            }
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Preset section `[stages.knockout]`
// ---------------------------------------------------------------------------------------------

/// `[stages.knockout]` as written in a preset file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KnockoutFile {
    pub(crate) rounds: i64,
    /// `random`.
    pub(crate) pairing: String,
    /// `advances`.
    pub(crate) bye: String,
    /// `out`.
    pub(crate) escape: String,
    /// `impossible` | `blitz-replay`.
    pub(crate) draw: String,
    pub(crate) unmatched_advance_after_minutes: Option<i64>,
    pub(crate) time_control: Option<TimeControlFile>,
    pub(crate) blitz: Option<BlitzFile>,
}

/// `[stages.knockout.blitz]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BlitzFile {
    pub(crate) first_mover_secs: i64,
    pub(crate) second_mover_secs: i64,
    pub(crate) increment_secs: i64,
    /// `first-mover` | `second-mover`.
    pub(crate) draw_winner: String,
}

fn bounded_u32(c: &mut Checker, path: &str, value: i64, min: i64) -> Option<u32> {
    if value < min {
        c.err(
            path,
            if min > 0 {
                "must be > 0"
            } else {
                "must be ≥ 0"
            },
        );
        return None;
    }
    match u32::try_from(value) {
        Ok(v) => Some(v),
        Err(_) => {
            c.err(path, format!("must be at most {}", u32::MAX));
            None
        }
    }
}

/// Checks `[stages.knockout]`, reporting every problem under `path` (e.g. `stages[2].knockout`).
pub(crate) fn check_knockout(
    file: &KnockoutFile,
    path: &str,
    c: &mut Checker,
) -> Option<KnockoutConfig> {
    let p = |field: &str| format!("{path}.{field}");
    let before = c.0.len();
    let rounds = bounded_u32(c, &p("rounds"), file.rounds, 1);
    if file.pairing != "random" {
        c.err(
            p("pairing"),
            format!("{:?} is not one of random", file.pairing),
        );
    }
    if file.bye != "advances" {
        c.err(p("bye"), format!("{:?} is not one of advances", file.bye));
    }
    if file.escape != "out" {
        c.err(p("escape"), format!("{:?} is not one of out", file.escape));
    }
    let wait = file
        .unmatched_advance_after_minutes
        .and_then(|m| bounded_u32(c, &p("unmatched_advance_after_minutes"), m, 1));
    let draw = match (file.draw.as_str(), &file.blitz) {
        ("impossible", None) => Some(DrawRule::Impossible),
        ("impossible", Some(_)) => {
            c.err(p("blitz"), "only with draw = \"blitz-replay\"");
            None
        }
        ("blitz-replay", None) => {
            c.err(p("blitz"), "required with draw = \"blitz-replay\"");
            None
        }
        ("blitz-replay", Some(b)) => {
            let bp = |field: &str| format!("{path}.blitz.{field}");
            let first = bounded_u32(c, &bp("first_mover_secs"), b.first_mover_secs, 1);
            let second = bounded_u32(c, &bp("second_mover_secs"), b.second_mover_secs, 1);
            let inc = bounded_u32(c, &bp("increment_secs"), b.increment_secs, 0);
            let winner = match b.draw_winner.as_str() {
                "first-mover" => Some(Side::FirstMover),
                "second-mover" => Some(Side::SecondMover),
                other => {
                    c.err(
                        bp("draw_winner"),
                        format!("{other:?} is not one of first-mover, second-mover"),
                    );
                    None
                }
            };
            match (first, second, inc, winner) {
                (Some(f), Some(s), Some(i), Some(w)) => Some(DrawRule::BlitzReplay(BlitzReplay {
                    first_mover_secs: f,
                    second_mover_secs: s,
                    increment_secs: i,
                    draw_winner: w,
                })),
                _ => None,
            }
        }
        (other, _) => {
            c.err(
                p("draw"),
                format!("{other:?} is not one of impossible, blitz-replay"),
            );
            None
        }
    };
    let time_control = file
        .time_control
        .as_ref()
        .and_then(|t| check_time_control(t, &format!("{path}.time_control"), c));
    if c.0.len() != before {
        return None;
    }
    Some(KnockoutConfig {
        rounds: rounds?,
        pairing: PairingRule::Random,
        bye: ByeRule::Advances,
        escape: EscapeRule::Out,
        draw: draw?,
        time_control,
        unmatched_advance_after_minutes: wait,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::advancement::tests::official;
    use crate::lottery::pair_knockout_round;
    use chrono::TimeZone;

    fn knockout(preset: &str) -> KnockoutConfig {
        official(preset)
            .stages
            .iter()
            .find_map(|s| s.knockout.clone())
            .expect("a knockout stage")
    }

    /// Round day 2015-10-03, minutes after 09:00 China time (01:00 UTC).
    fn t(minutes: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2015, 10, 3, 1, 0, 0)
            .single()
            .expect("time")
            + Duration::minutes(minutes)
    }

    fn names(ns: &[&str]) -> Vec<String> {
        ns.iter().map(|s| (*s).to_owned()).collect()
    }

    fn entry(p: &str, at: i64) -> RoomEntry {
        RoomEntry {
            player: p.into(),
            entered_at: t(at),
        }
    }

    fn game(first: &str, second: &str, kind: GameKind, result: Option<GameResult>) -> KnockoutGame {
        KnockoutGame {
            first_mover: first.into(),
            second_mover: second.into(),
            kind,
            matched_at: t(5),
            result,
        }
    }

    fn report<'a>(
        round: u32,
        entrants: &'a [String],
        entries: &'a [RoomEntry],
        games: &'a [KnockoutGame],
        now: i64,
        closed: bool,
    ) -> RoundReport<'a> {
        RoundReport {
            round,
            entrants,
            byes: &[],
            room_entries: entries,
            games,
            now: t(now),
            closed,
        }
    }

    #[test]
    fn r_adv_3_go_2015_three_rounds_no_draws_no_wait_rule() {
        let k = knockout("go-2015");
        assert_eq!(k.rounds, 3);
        assert_eq!(k.draw, DrawRule::Impossible);
        assert_eq!(k.unmatched_advance_after_minutes, None);
    }

    #[test]
    fn r_onl_6_go_2015_ruwei_30_minutes_and_three_20_second_byoyomi() {
        assert_eq!(
            knockout("go-2015").time_control,
            Some(TimeControl {
                main_secs: 1800,
                byoyomi_secs: Some(20),
                byoyomi_periods: Some(3)
            })
        );
    }

    #[test]
    fn r_onl_6_xiangqi_2015_ruwei_10_minutes_then_20_seconds_a_move_blitz_6_2_plus_5() {
        let k = knockout("xiangqi-2015");
        assert_eq!(
            k.time_control,
            Some(TimeControl {
                main_secs: 600,
                byoyomi_secs: Some(20),
                byoyomi_periods: None
            })
        );
        let DrawRule::BlitzReplay(b) = k.draw else {
            panic!("xiangqi-2015 replays draws as blitz");
        };
        assert_eq!(
            (b.first_mover_secs, b.second_mover_secs, b.increment_secs),
            (360, 120, 5)
        );
    }

    #[test]
    fn r_adv_3_winner_advances_loser_and_escaper_out_both_escapers_out() {
        let k = knockout("go-2015");
        let e = names(&["a", "b", "c", "d", "e", "f"]);
        let entries: Vec<RoomEntry> = e.iter().map(|p| entry(p, 0)).collect();
        let games = [
            game(
                "a",
                "b",
                GameKind::Regular,
                Some(GameResult::SecondMoverWon),
            ),
            game(
                "c",
                "d",
                GameKind::Regular,
                Some(GameResult::FirstMoverEscaped),
            ),
            game("e", "f", GameKind::Regular, Some(GameResult::BothEscaped)),
        ];
        let s = round_state(&k, &report(1, &e, &entries, &games, 100, false)).expect("state");
        assert_eq!(s.advancing(), ["b", "d"]);
        assert_eq!(s.knocked_out(), ["a", "c", "e", "f"]);
        assert_eq!(
            s.status("c"),
            Some(&RoundStatus::Out(Out::Escaped {
                opponent: "d".into()
            }))
        );
        assert_eq!(
            s.status("d"),
            Some(&RoundStatus::Advanced(Advanced::OpponentEscaped {
                opponent: "c".into()
            }))
        );
        assert_eq!(
            s.status("f"),
            Some(&RoundStatus::Out(Out::BothEscaped {
                opponent: "e".into()
            }))
        );
        assert_eq!(s.next_round_entrants(), Some(names(&["b", "d"])));
    }

    #[test]
    fn r_adv_3_a_draw_in_go_is_an_error() {
        let k = knockout("go-2015");
        let e = names(&["a", "b"]);
        let games = [game("a", "b", GameKind::Regular, Some(GameResult::Draw))];
        assert_eq!(
            round_state(&k, &report(1, &e, &[], &games, 100, false)),
            Err(KnockoutError::DrawNotPossible("a".into(), "b".into()))
        );
    }

    #[test]
    fn r_adv_3_odd_player_out_gets_a_bye_from_the_drawn_pairing() {
        let k = knockout("go-2015");
        let e = names(&["a", "b", "c"]);
        let pairing = pair_knockout_round("go-2015/ruwei/round-1", &e).expect("pairing");
        let bye = pairing.bye.clone().expect("odd field");
        let pair = &pairing.pairs[0];
        let games = [game(
            &pair.first,
            &pair.second,
            GameKind::Regular,
            Some(GameResult::FirstMoverWon),
        )];
        let byes = [bye.clone()];
        let r = RoundReport {
            byes: &byes,
            ..report(1, &e, &[], &games, 100, false)
        };
        let s = round_state(&k, &r).expect("state");
        assert_eq!(s.status(&bye), Some(&RoundStatus::Advanced(Advanced::Bye)));
        assert!(s.is_complete());
        let mut next = s.advancing();
        next.sort();
        let mut expected = vec![bye, pair.first.clone()];
        expected.sort();
        assert_eq!(next, expected);
        // A bye player cannot also play.
        let games = [game(&byes[0], &pair.first, GameKind::Regular, None)];
        let r = RoundReport {
            byes: &byes,
            ..report(1, &e, &[], &games, 100, false)
        };
        assert_eq!(
            round_state(&k, &r),
            Err(KnockoutError::ByePlayerPlayed(byes[0].clone()))
        );
    }

    #[test]
    fn r_adv_3_unmatched_at_close_advances_and_no_show_is_out() {
        let k = knockout("go-2015");
        let e = names(&["a", "b", "c", "lonely", "absent"]);
        let entries = [entry("a", 0), entry("b", 0), entry("lonely", 30)];
        let games = [game("a", "b", GameKind::Regular, None)];
        let open = round_state(&k, &report(1, &e, &entries, &games, 600, false)).expect("state");
        assert_eq!(
            open.status("lonely"),
            Some(&RoundStatus::Pending(Pending::Waiting {
                entered_at: t(30),
                advances_after: None
            }))
        );
        assert_eq!(
            open.status("a"),
            Some(&RoundStatus::Pending(Pending::Playing {
                opponent: "b".into()
            }))
        );
        assert_eq!(
            open.status("absent"),
            Some(&RoundStatus::Pending(Pending::NotEntered))
        );
        assert_eq!(open.next_round_entrants(), None);
        let closed = round_state(&k, &report(1, &e, &entries, &games, 840, true)).expect("state");
        assert_eq!(
            closed.status("lonely"),
            Some(&RoundStatus::Advanced(Advanced::UnmatchedAtClose))
        );
        assert_eq!(
            closed.status("absent"),
            Some(&RoundStatus::Out(Out::NoShow))
        );
        assert_eq!(closed.status("c"), Some(&RoundStatus::Out(Out::NoShow)));
        // The game still being played keeps the round open.
        assert!(!closed.is_complete());
    }

    #[test]
    fn r_adv_3_finish_gives_the_round_a_player_went_out_in() {
        let k = knockout("go-2015");
        let r1e = names(&["a", "b", "c", "d"]);
        let g1 = [
            game("a", "b", GameKind::Regular, Some(GameResult::FirstMoverWon)),
            game("c", "d", GameKind::Regular, Some(GameResult::FirstMoverWon)),
        ];
        let r1 = round_state(&k, &report(1, &r1e, &[], &g1, 100, true)).expect("r1");
        let r2e = r1.next_round_entrants().expect("complete");
        assert_eq!(r2e, ["a", "c"]);
        let g2 = [game(
            "c",
            "a",
            GameKind::Regular,
            Some(GameResult::SecondMoverWon),
        )];
        let r2 = round_state(&k, &report(2, &r2e, &[], &g2, 100, true)).expect("r2");
        let r3e = r2.next_round_entrants().expect("complete");
        let byes = names(&["a"]);
        let r3 = round_state(
            &k,
            &RoundReport {
                byes: &byes,
                ..report(3, &r3e, &[], &[], 100, true)
            },
        )
        .expect("r3");
        let rounds = [r3, r1, r2];
        assert_eq!(
            finish(&k, &rounds, "b"),
            Some(KnockoutFinish::OutInRound(1))
        );
        assert_eq!(
            finish(&k, &rounds, "c"),
            Some(KnockoutFinish::OutInRound(2))
        );
        assert_eq!(finish(&k, &rounds, "a"), Some(KnockoutFinish::WonLastRound));
        assert_eq!(finish(&k, &rounds, "zz"), None);
        assert_eq!(finish(&k, &rounds[1..], "a"), None);
    }

    #[test]
    fn r_adv_6_xiangqi_2015_three_rounds_blitz_replay_and_60_minute_wait() {
        let k = knockout("xiangqi-2015");
        assert_eq!(k.rounds, 3);
        assert_eq!(k.unmatched_advance_after_minutes, Some(60));
        // R-ONL-6: red 6 min, black 2 min, +5 s per move; 和棋黑胜.
        assert_eq!(
            k.draw,
            DrawRule::BlitzReplay(BlitzReplay {
                first_mover_secs: 360,
                second_mover_secs: 120,
                increment_secs: 5,
                draw_winner: Side::SecondMover
            })
        );
    }

    #[test]
    fn r_adv_6_a_draw_is_replayed_as_blitz_with_colours_swapped_and_a_blitz_draw_is_a_black_win() {
        let k = knockout("xiangqi-2015");
        let e = names(&["red", "black", "r2", "b2", "r3", "b3"]);
        let games = [
            game("red", "black", GameKind::Regular, Some(GameResult::Draw)),
            // Colours swapped: the regular game's Black is Red in the blitz, and the blitz draw goes
            // to the blitz's Black, i.e. the regular game's Red.
            game(
                "black",
                "red",
                GameKind::BlitzReplay,
                Some(GameResult::Draw),
            ),
            game("r2", "b2", GameKind::Regular, Some(GameResult::Draw)),
            game(
                "b2",
                "r2",
                GameKind::BlitzReplay,
                Some(GameResult::FirstMoverWon),
            ),
            game("r3", "b3", GameKind::Regular, Some(GameResult::Draw)),
        ];
        let s = round_state(&k, &report(2, &e, &[], &games, 100, false)).expect("state");
        assert_eq!(
            s.status("red"),
            Some(&RoundStatus::Advanced(Advanced::BlitzDrawAwarded {
                opponent: "black".into()
            }))
        );
        assert_eq!(
            s.status("black"),
            Some(&RoundStatus::Out(Out::BlitzDrawAgainst {
                opponent: "red".into()
            }))
        );
        assert_eq!(
            s.status("b2"),
            Some(&RoundStatus::Advanced(Advanced::WonBlitz {
                opponent: "r2".into()
            }))
        );
        assert_eq!(
            s.status("r2"),
            Some(&RoundStatus::Out(Out::LostBlitz {
                opponent: "b2".into()
            }))
        );
        assert_eq!(
            s.status("r3"),
            Some(&RoundStatus::Pending(Pending::AwaitingBlitz {
                opponent: "b3".into()
            }))
        );
        // Colours not swapped, or a blitz without a drawn game, are errors.
        let bad = [
            game("r3", "b3", GameKind::Regular, Some(GameResult::Draw)),
            game(
                "r3",
                "b3",
                GameKind::BlitzReplay,
                Some(GameResult::FirstMoverWon),
            ),
        ];
        let e3 = names(&["r3", "b3"]);
        assert_eq!(
            round_state(&k, &report(1, &e3, &[], &bad, 100, false)),
            Err(KnockoutError::BlitzColoursNotSwapped(
                "r3".into(),
                "b3".into()
            ))
        );
        let bad = [
            game(
                "r3",
                "b3",
                GameKind::Regular,
                Some(GameResult::FirstMoverWon),
            ),
            game(
                "b3",
                "r3",
                GameKind::BlitzReplay,
                Some(GameResult::FirstMoverWon),
            ),
        ];
        assert_eq!(
            round_state(&k, &report(1, &e3, &[], &bad, 100, false)),
            Err(KnockoutError::BlitzWithoutDraw("b3".into(), "r3".into()))
        );
    }

    #[test]
    fn r_adv_6_escape_in_the_blitz_replay_is_out() {
        let k = knockout("xiangqi-2015");
        let e = names(&["a", "b"]);
        let games = [
            game("a", "b", GameKind::Regular, Some(GameResult::Draw)),
            game(
                "b",
                "a",
                GameKind::BlitzReplay,
                Some(GameResult::SecondMoverEscaped),
            ),
        ];
        let s = round_state(&k, &report(1, &e, &[], &games, 100, false)).expect("state");
        assert_eq!(s.advancing(), ["b"]);
        assert_eq!(
            s.status("a"),
            Some(&RoundStatus::Out(Out::Escaped {
                opponent: "b".into()
            }))
        );
    }

    #[test]
    fn r_adv_6_not_matched_within_one_hour_advances_exactly_60_minutes_is_within() {
        let k = knockout("xiangqi-2015");
        let e = names(&["w"]);
        let entries = [entry("w", 0), entry("w", 20)];
        let at_60 = round_state(&k, &report(1, &e, &entries, &[], 60, false)).expect("state");
        assert_eq!(
            at_60.status("w"),
            Some(&RoundStatus::Pending(Pending::Waiting {
                entered_at: t(0),
                advances_after: Some(t(60))
            }))
        );
        let mut r = report(1, &e, &entries, &[], 60, false);
        r.now = t(60) + Duration::seconds(1);
        let after = round_state(&k, &r).expect("state");
        assert_eq!(
            after.status("w"),
            Some(&RoundStatus::Advanced(Advanced::NotMatchedInTime {
                entered_at: t(0),
                since: t(60)
            }))
        );
        // Matched at exactly 60 minutes: within the hour, the game counts.
        let e2 = names(&["w", "x"]);
        let mut g = game(
            "w",
            "x",
            GameKind::Regular,
            Some(GameResult::SecondMoverWon),
        );
        g.matched_at = t(60);
        let games = [g.clone()];
        let s = round_state(&k, &report(1, &e2, &entries, &games, 100, false)).expect("state");
        assert_eq!(s.advancing(), ["x"]);
        // Matched later: the platform should not have matched him.
        g.matched_at = t(61);
        let games = [g];
        assert_eq!(
            round_state(&k, &report(1, &e2, &entries, &games, 100, false)),
            Err(KnockoutError::MatchedAfterWaitExpired {
                player: "w".into(),
                matched_at: t(61),
                advanced_after: t(60)
            })
        );
    }

    #[test]
    fn r_adv_6_round_state_rejects_inconsistent_reports() {
        let k = knockout("xiangqi-2015");
        let e = names(&["a", "b", "c"]);
        let two = [
            game("a", "b", GameKind::Regular, None),
            game("a", "c", GameKind::Regular, None),
        ];
        assert_eq!(
            round_state(&k, &report(1, &e, &[], &two, 0, false)),
            Err(KnockoutError::MoreThanOneGame("a".into()))
        );
        let stranger = [game("a", "z", GameKind::Regular, None)];
        assert_eq!(
            round_state(&k, &report(1, &e, &[], &stranger, 0, false)),
            Err(KnockoutError::NotAnEntrant("z".into()))
        );
        assert_eq!(
            round_state(&k, &report(4, &e, &[], &[], 0, false)),
            Err(KnockoutError::NoSuchRound {
                round: 4,
                rounds: 3
            })
        );
        let dup = names(&["a", "a"]);
        assert_eq!(
            round_state(&k, &report(1, &dup, &[], &[], 0, false)),
            Err(KnockoutError::DuplicateEntrant("a".into()))
        );
    }

    #[test]
    fn check_knockout_reports_every_problem_with_its_path() {
        let text = r#"
            rounds = 0
            pairing = "swiss"
            bye = "replay"
            escape = "warning"
            draw = "blitz-replay"
            unmatched_advance_after_minutes = -5
            [time_control]
            main_secs = 0
            byoyomi_periods = 3
            [blitz]
            first_mover_secs = 0
            second_mover_secs = 120
            increment_secs = -1
            draw_winner = "black"
        "#;
        let file: KnockoutFile = toml::from_str(text).expect("parses");
        let mut c = Checker::new();
        assert_eq!(check_knockout(&file, "stages[2].knockout", &mut c), None);
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            rendered,
            [
                "stages[2].knockout.rounds: must be > 0",
                "stages[2].knockout.pairing: \"swiss\" is not one of random",
                "stages[2].knockout.bye: \"replay\" is not one of advances",
                "stages[2].knockout.escape: \"warning\" is not one of out",
                "stages[2].knockout.unmatched_advance_after_minutes: must be > 0",
                "stages[2].knockout.blitz.first_mover_secs: must be > 0",
                "stages[2].knockout.blitz.increment_secs: must be ≥ 0",
                "stages[2].knockout.blitz.draw_winner: \"black\" is not one of first-mover, second-mover",
                "stages[2].knockout.time_control.main_secs: must be > 0",
                "stages[2].knockout.time_control.byoyomi_periods: needs byoyomi_secs",
            ]
        );
        let text = "rounds = 3\npairing = \"random\"\nbye = \"advances\"\nescape = \"out\"\ndraw = \"blitz-replay\"";
        let file: KnockoutFile = toml::from_str(text).expect("parses");
        let mut c = Checker::new();
        assert_eq!(check_knockout(&file, "k", &mut c), None);
        assert_eq!(
            c.0[0].to_string(),
            "k.blitz: required with draw = \"blitz-replay\""
        );
    }
}
