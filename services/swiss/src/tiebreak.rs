//! Tie-breaks (R-IND-4) as FIDE C.07 defines them, with its rules for unplayed rounds, the
//! Chinese orders, ordered rankings with shared places, and the women's ranking of an open event
//! (R-IND-2).
//!
//! ## Unplayed rounds ([`UnplayedRounds`])
//!
//! [`UnplayedRounds::FideC07`] follows C.07 (the version in force from 2024), as read here:
//! - a participant's own unplayed round (any bye, a forfeit either way, an absence) counts, in
//!   the Buchholz family, as a game against a *dummy opponent* who has the participant's own
//!   final score; in Sonneborn-Berger that score is multiplied by the points of the round; in
//!   SOSOS the dummy's Buchholz is the participant's own Buchholz;
//! - an opponent's score, wherever it is used for others, is *adjusted*: each of the opponent's
//!   voluntary unplayed rounds ([`Round::is_voluntary_unplayed`]) counts as a draw;
//! - a cut (Cut-1, Median-1) removes the participant's voluntary unplayed rounds first, then the
//!   lowest contributions; Median also removes the highest.
//!
//! [`UnplayedRounds::OpponentsOnly`] is the plain Chinese 对手分 (and Go SOS) reading: only real
//! opponents count (including a forfeiting opponent), with their actual scores; byes and absences
//! add nothing.
//!
//! ## Values and scales
//!
//! Every value is an `i64` where more is better: half-points for the Buchholz family, SOSOS,
//! progressive score and direct encounter; half-points × half-points for Sonneborn-Berger (FIDE
//! SB × 4); counts for wins and games; rating points for ARO and TPR; minus the count for fouls
//! (fewer is better). [`format_value`] shows them as FIDE does.

use std::collections::{BTreeMap, BTreeSet};

use crate::colour::Mover;
use crate::points::HalfPoints;
use crate::tournament::{Round, Tournament};
use crate::trf::Sex;

/// One tie-break criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// BH: sum of the opponents' scores (Go SOS, Xiangqi 对手分).
    Buchholz,
    /// BH-Cn: Buchholz without the `n` least significant contributions (Cut-1: `n` = 1;
    /// Xiangqi "dropping rounds").
    BuchholzCut(u8),
    /// BH-Mn: Buchholz without the `n` lowest and the `n` highest contributions (Median-1).
    BuchholzMedian(u8),
    /// SOSOS: sum of the opponents' Buchholz (Go).
    Sosos,
    /// SB: sum over games of the opponent's score times the points scored against them.
    SonnebornBerger,
    /// PS: progressive (cumulative) score, the sum of the running totals after each round (累进分).
    Progressive,
    /// DE: points scored in the games among the tied participants.
    DirectEncounter,
    /// WIN: rounds in which a win's points were obtained, played or not (forfeit wins, full-point
    /// and pairing-allocated byes worth a win included).
    Wins,
    /// WON: games won over the board (胜局).
    GamesWon,
    /// BPG: games played as the second mover (Black in Chess and Xiangqi: 后走局数).
    SecondMoverGames,
    /// BWG: games won as the second mover (后手胜局).
    SecondMoverWins,
    /// ARO: average rating of the opponents in rated games played, rounded half up.
    Aro,
    /// TPR: tournament performance rating, ARO + dp(p) (FIDE table B.02 8.1a).
    Tpr,
    /// 犯规: fouls recorded by the referees (an input); fewer is better.
    Fouls,
}

impl TieBreak {
    /// The short code (C.07 acronyms where C.07 has one).
    pub fn code(self) -> String {
        match self {
            TieBreak::Buchholz => "BH".into(),
            TieBreak::BuchholzCut(n) => format!("BH-C{n}"),
            TieBreak::BuchholzMedian(n) => format!("BH-M{n}"),
            TieBreak::Sosos => "SOSOS".into(),
            TieBreak::SonnebornBerger => "SB".into(),
            TieBreak::Progressive => "PS".into(),
            TieBreak::DirectEncounter => "DE".into(),
            TieBreak::Wins => "WIN".into(),
            TieBreak::GamesWon => "WON".into(),
            TieBreak::SecondMoverGames => "BPG".into(),
            TieBreak::SecondMoverWins => "BWG".into(),
            TieBreak::Aro => "ARO".into(),
            TieBreak::Tpr => "TPR".into(),
            TieBreak::Fouls => "FOULS".into(),
        }
    }
}

/// How unplayed rounds enter opponent-based tie-breaks (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UnplayedRounds {
    /// FIDE C.07: dummy opponent with the participant's own score, adjusted opponents' scores,
    /// voluntary unplayed rounds cut first.
    #[default]
    FideC07,
    /// Real opponents only, with their actual scores (Chinese 对手分 / Go SOS as commonly applied).
    OpponentsOnly,
}

/// An ordered tie-break list and its unplayed-round rule: a preset's final ranking.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ranking {
    /// Applied in order after points.
    pub order: Vec<TieBreak>,
    pub unplayed: UnplayedRounds,
}

/// One row of a ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub start_number: u32,
    /// 1-based; shared by every player equal on points and all tie-breaks.
    pub place: u32,
    pub points: HalfPoints,
    /// One value per tie-break of the [`Ranking`], in its order. For direct encounter, the value
    /// within the last tied group the player was compared in (0 when never tied).
    pub values: Vec<i64>,
}

/// A ranking: rows in order, best first; equal rows share a place and are listed by starting rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standings {
    pub order: Vec<TieBreak>,
    pub rows: Vec<Standing>,
}

impl Standings {
    /// The rows of one sex, in the same order, with places renumbered among them (shared places
    /// stay shared). The women's ranking of an open event (R-IND-2): `of_sex(t, Sex::Female)`.
    pub fn of_sex(&self, tournament: &Tournament, sex: Sex) -> Standings {
        self.only(|start| tournament.entrant(start).and_then(|e| e.sex) == Some(sex))
    }

    /// The rows whose starting number `keep` accepts, in the same order, with places renumbered
    /// among them (shared places stay shared).
    pub fn only(&self, keep: impl Fn(u32) -> bool) -> Standings {
        let mut rows: Vec<Standing> = Vec::new();
        let mut last_open_place = None;
        for row in &self.rows {
            if !keep(row.start_number) {
                continue;
            }
            let place = match (last_open_place, rows.last()) {
                (Some(open), Some(prev)) if open == row.place => prev.place,
                _ => rows.len() as u32 + 1,
            };
            last_open_place = Some(row.place);
            rows.push(Standing {
                place,
                ..row.clone()
            });
        }
        Standings {
            order: self.order.clone(),
            rows,
        }
    }

    /// The women's ranking (R-IND-2); the open ranking is `self`.
    pub fn women(&self, tournament: &Tournament) -> Standings {
        self.of_sex(tournament, Sex::Female)
    }

    /// The row of a player.
    pub fn row(&self, start_number: u32) -> Option<&Standing> {
        self.rows.iter().find(|r| r.start_number == start_number)
    }
}

/// Ranks a tournament: points, then each tie-break in order. Tied groups are split criterion by
/// criterion; direct encounter is evaluated inside the group still tied and re-applied to a
/// smaller group that stays tied (C.07). `fouls` gives the fouls per starting rank (missing: 0).
/// The result does not depend on the order of the tournament's players.
pub fn rank(tournament: &Tournament, ranking: &Ranking, fouls: &BTreeMap<u32, u32>) -> Standings {
    let calc = Calc::new(tournament, ranking.unplayed);
    let mut values: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    for e in tournament.entrants() {
        let row = ranking
            .order
            .iter()
            .map(|&tb| calc.value(tb, e.start_number, fouls).unwrap_or(0))
            .collect();
        values.insert(e.start_number, row);
    }
    let everyone: Vec<u32> = tournament
        .entrants()
        .iter()
        .map(|e| e.start_number)
        .collect();
    let mut groups = Vec::new();
    for group in split(&everyone, |p| calc.score(p)) {
        order_group(&calc, &ranking.order, 0, group, &mut values, &mut groups);
    }
    let mut rows = Vec::with_capacity(everyone.len());
    for group in groups {
        let place = rows.len() as u32 + 1;
        for p in group {
            rows.push(Standing {
                start_number: p,
                place,
                points: HalfPoints(u32::try_from(calc.score(p)).unwrap_or(u32::MAX)),
                values: values.get(&p).cloned().unwrap_or_default(),
            });
        }
    }
    Standings {
        order: ranking.order.clone(),
        rows,
    }
}

/// Splits players into runs of equal key, best (highest) first; each run by starting rank.
fn split(players: &[u32], key: impl Fn(u32) -> i64) -> Vec<Vec<u32>> {
    let mut keyed: Vec<(i64, u32)> = players.iter().map(|&p| (key(p), p)).collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut runs: Vec<Vec<u32>> = Vec::new();
    let mut last = None;
    for (k, p) in keyed {
        match runs.last_mut() {
            Some(run) if last == Some(k) => run.push(p),
            _ => runs.push(vec![p]),
        }
        last = Some(k);
    }
    runs
}

fn order_group(
    calc: &Calc<'_>,
    order: &[TieBreak],
    level: usize,
    group: Vec<u32>,
    values: &mut BTreeMap<u32, Vec<i64>>,
    out: &mut Vec<Vec<u32>>,
) {
    if group.len() < 2 || level >= order.len() {
        out.push(group);
        return;
    }
    let tb = order[level];
    let runs = if tb == TieBreak::DirectEncounter {
        let de = calc.direct_encounter(&group);
        for (&p, &v) in &de {
            if let Some(slot) = values.get_mut(&p).and_then(|row| row.get_mut(level)) {
                *slot = v;
            }
        }
        split(&group, |p| de.get(&p).copied().unwrap_or(0))
    } else {
        split(&group, |p| {
            values
                .get(&p)
                .and_then(|row| row.get(level))
                .copied()
                .unwrap_or(0)
        })
    };
    let whole = group.len();
    for run in runs {
        // C.07: direct encounter is applied again among those it left tied, when fewer.
        let next = if tb == TieBreak::DirectEncounter && run.len() < whole {
            level
        } else {
            level + 1
        };
        order_group(calc, order, next, run, values, out);
    }
}

/// The value of one tie-break for one player (`None` for an unknown player or for
/// [`TieBreak::DirectEncounter`], which depends on the tied group: see [`direct_encounter`]).
pub fn value(
    tournament: &Tournament,
    unplayed: UnplayedRounds,
    tie_break: TieBreak,
    start_number: u32,
    fouls: &BTreeMap<u32, u32>,
) -> Option<i64> {
    Calc::new(tournament, unplayed).value(tie_break, start_number, fouls)
}

/// Direct encounter among `group`: the points each scored in games (played or forfeited) against
/// the others. When not every pair of the group met, the values only separate a player who stays
/// ahead whatever the missing games give (their points; everyone else 0); otherwise all are 0.
pub fn direct_encounter(tournament: &Tournament, group: &[u32]) -> BTreeMap<u32, i64> {
    Calc::new(tournament, UnplayedRounds::FideC07).direct_encounter(group)
}

/// A tie-break value as FIDE writes it: `12.5` for half-point values, `31.25` for
/// Sonneborn-Berger, whole numbers otherwise (fouls as the positive count).
pub fn format_value(tie_break: TieBreak, value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let abs = value.unsigned_abs();
    match tie_break {
        TieBreak::Buchholz
        | TieBreak::BuchholzCut(_)
        | TieBreak::BuchholzMedian(_)
        | TieBreak::Sosos
        | TieBreak::Progressive
        | TieBreak::DirectEncounter => {
            format!("{sign}{}.{}", abs / 2, if abs % 2 == 1 { 5 } else { 0 })
        }
        TieBreak::SonnebornBerger => {
            let frac = match abs % 4 {
                0 => "",
                1 => ".25",
                2 => ".5",
                _ => ".75",
            };
            format!("{sign}{}{frac}", abs / 4)
        }
        TieBreak::Fouls => abs.to_string(),
        _ => value.to_string(),
    }
}

/// FIDE rating-difference table (B.02 8.1a): dp for p = 0.50 … 1.00 in hundredths.
const DP: [i64; 51] = [
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// dp for a fractional score in hundredths (0..=100).
pub fn rating_difference(p_hundredths: u32) -> i64 {
    let p = p_hundredths.min(100) as usize;
    if p >= 50 { DP[p - 50] } else { -DP[50 - p] }
}

/// Everything the tie-breaks share, computed once.
struct Calc<'a> {
    t: &'a Tournament,
    unplayed: UnplayedRounds,
    score: BTreeMap<u32, i64>,
    adjusted: BTreeMap<u32, i64>,
    buchholz: BTreeMap<u32, i64>,
}

impl<'a> Calc<'a> {
    fn new(t: &'a Tournament, unplayed: UnplayedRounds) -> Calc<'a> {
        let draw = i64::from(t.point_system().draw.0);
        let mut score = BTreeMap::new();
        let mut adjusted = BTreeMap::new();
        for e in t.entrants() {
            let s: i64 = e.rounds.iter().map(|r| i64::from(r.points.0)).sum();
            let a: i64 = e
                .rounds
                .iter()
                .map(|r| {
                    if r.is_voluntary_unplayed() {
                        draw
                    } else {
                        i64::from(r.points.0)
                    }
                })
                .sum();
            score.insert(e.start_number, s);
            adjusted.insert(
                e.start_number,
                match unplayed {
                    UnplayedRounds::FideC07 => a,
                    UnplayedRounds::OpponentsOnly => s,
                },
            );
        }
        let mut calc = Calc {
            t,
            unplayed,
            score,
            adjusted,
            buchholz: BTreeMap::new(),
        };
        let buchholz = t
            .entrants()
            .iter()
            .map(|e| {
                (
                    e.start_number,
                    calc.contributions(e.start_number).iter().map(|c| c.0).sum(),
                )
            })
            .collect();
        calc.buchholz = buchholz;
        calc
    }

    fn score(&self, p: u32) -> i64 {
        self.score.get(&p).copied().unwrap_or(0)
    }

    fn adjusted(&self, p: u32) -> i64 {
        self.adjusted.get(&p).copied().unwrap_or(0)
    }

    fn rounds(&self, p: u32) -> &[Round] {
        self.t.entrant(p).map_or(&[], |e| e.rounds.as_slice())
    }

    /// The opponent a round counts against, or `None` when the round is unplayed for
    /// opponent-based tie-breaks (C.07: forfeits are unplayed; plain: forfeits count).
    fn counted_opponent(&self, r: &Round) -> Option<u32> {
        match self.unplayed {
            UnplayedRounds::FideC07 => r.opponent.filter(|_| r.is_played()),
            UnplayedRounds::OpponentsOnly => r.opponent,
        }
    }

    /// Buchholz contributions of a player's rounds: (value, is a voluntary unplayed round).
    fn contributions(&self, p: u32) -> Vec<(i64, bool)> {
        let own = self.score(p);
        self.rounds(p)
            .iter()
            .filter_map(|r| match (self.counted_opponent(r), self.unplayed) {
                (Some(o), _) => Some((self.adjusted(o), false)),
                (None, UnplayedRounds::FideC07) => Some((own, r.is_voluntary_unplayed())),
                (None, UnplayedRounds::OpponentsOnly) => None,
            })
            .collect()
    }

    fn cut(&self, p: u32, lowest: usize, highest: usize) -> i64 {
        let mut c = self.contributions(p);
        // Voluntary unplayed rounds first, then by value: the first `lowest` are cut.
        c.sort_by_key(|&(v, vur)| (!vur, v));
        let mut rest: Vec<i64> = c.into_iter().skip(lowest).map(|(v, _)| v).collect();
        rest.sort_unstable();
        let keep = rest.len().saturating_sub(highest);
        rest.into_iter().take(keep).sum()
    }

    fn value(&self, tb: TieBreak, p: u32, fouls: &BTreeMap<u32, u32>) -> Option<i64> {
        let e = self.t.entrant(p)?;
        let ps = self.t.point_system();
        let win = i64::from(ps.win.0);
        let rounds = &e.rounds;
        let count = |f: &dyn Fn(&Round) -> bool| rounds.iter().filter(|r| f(r)).count() as i64;
        Some(match tb {
            TieBreak::Buchholz => self.buchholz.get(&p).copied().unwrap_or(0),
            TieBreak::BuchholzCut(n) => self.cut(p, usize::from(n), 0),
            TieBreak::BuchholzMedian(n) => self.cut(p, usize::from(n), usize::from(n)),
            TieBreak::Sosos => {
                let own = self.buchholz.get(&p).copied().unwrap_or(0);
                rounds
                    .iter()
                    .filter_map(|r| match (self.counted_opponent(r), self.unplayed) {
                        (Some(o), _) => Some(self.buchholz.get(&o).copied().unwrap_or(0)),
                        (None, UnplayedRounds::FideC07) => Some(own),
                        (None, UnplayedRounds::OpponentsOnly) => None,
                    })
                    .sum()
            }
            TieBreak::SonnebornBerger => {
                let own = self.score(p);
                rounds
                    .iter()
                    .filter_map(|r| {
                        let pts = i64::from(r.points.0);
                        match (self.counted_opponent(r), self.unplayed) {
                            (Some(o), _) => Some(self.adjusted(o).saturating_mul(pts)),
                            (None, UnplayedRounds::FideC07) => Some(own.saturating_mul(pts)),
                            (None, UnplayedRounds::OpponentsOnly) => None,
                        }
                    })
                    .fold(0, i64::saturating_add)
            }
            TieBreak::Progressive => {
                let mut running = 0i64;
                rounds
                    .iter()
                    .map(|r| {
                        running += i64::from(r.points.0);
                        running
                    })
                    .sum()
            }
            TieBreak::DirectEncounter => return None,
            TieBreak::Wins => {
                if win > i64::from(ps.draw.0) {
                    count(&|r| i64::from(r.points.0) == win)
                } else {
                    0
                }
            }
            TieBreak::GamesWon => count(&|r| r.is_game_won()),
            TieBreak::SecondMoverGames => {
                count(&|r| r.is_played() && r.mover == Some(Mover::Second))
            }
            TieBreak::SecondMoverWins => {
                count(&|r| r.is_game_won() && r.mover == Some(Mover::Second))
            }
            TieBreak::Aro => self.aro_tpr(rounds).0,
            TieBreak::Tpr => self.aro_tpr(rounds).1,
            TieBreak::Fouls => -i64::from(fouls.get(&p).copied().unwrap_or(0)),
        })
    }

    /// (ARO, TPR) over rated games against rated opponents; (0, 0) when there are none.
    fn aro_tpr(&self, rounds: &[Round]) -> (i64, i64) {
        let win = i64::from(self.t.point_system().win.0);
        let mut n = 0i64;
        let mut ratings = 0i64;
        let mut scored = 0i64;
        for r in rounds.iter().filter(|r| r.is_rated_game()) {
            let rating = r
                .opponent
                .and_then(|o| self.t.entrant(o))
                .and_then(|o| o.rating)
                .filter(|&x| x > 0);
            if let Some(rating) = rating {
                n += 1;
                ratings += i64::from(rating);
                scored += i64::from(r.points.0);
            }
        }
        if n == 0 || win == 0 {
            return (0, 0);
        }
        let aro = (2 * ratings + n) / (2 * n);
        // p in hundredths, rounded half up: 100·scored / (win·n).
        let p = ((200 * scored + win * n) / (2 * win * n)).clamp(0, 100) as u32;
        (aro, aro + rating_difference(p))
    }

    fn direct_encounter(&self, group: &[u32]) -> BTreeMap<u32, i64> {
        let members: BTreeSet<u32> = group.iter().copied().collect();
        let mut points: BTreeMap<u32, i64> = members.iter().map(|&p| (p, 0)).collect();
        let mut met: BTreeSet<(u32, u32)> = BTreeSet::new();
        for &p in &members {
            for r in self.rounds(p) {
                if let Some(o) = r.opponent.filter(|o| *o != p && members.contains(o)) {
                    *points.entry(p).or_insert(0) += i64::from(r.points.0);
                    met.insert((p.min(o), p.max(o)));
                }
            }
        }
        let all_pairs = members.len() * members.len().saturating_sub(1) / 2;
        if met.len() == all_pairs {
            return points;
        }
        let win = i64::from(self.t.point_system().win.0);
        let best_possible: BTreeMap<u32, i64> = members
            .iter()
            .map(|&p| {
                let missing = members
                    .iter()
                    .filter(|&&o| o != p && !met.contains(&(p.min(o), p.max(o))))
                    .count();
                (
                    p,
                    points.get(&p).copied().unwrap_or(0) + win * missing as i64,
                )
            })
            .collect();
        let leader = members.iter().copied().find(|&a| {
            let pa = points.get(&a).copied().unwrap_or(0);
            members
                .iter()
                .all(|&b| b == a || pa > best_possible.get(&b).copied().unwrap_or(0))
        });
        members
            .iter()
            .map(|&p| {
                (
                    p,
                    if Some(p) == leader {
                        points.get(&p).copied().unwrap_or(0)
                    } else {
                        0
                    },
                )
            })
            .collect()
    }
}
