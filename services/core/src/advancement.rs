//! Advancement between stages (晋级, 入围, 复活): R-ADV-1 to R-ADV-12 and the final's entrant counts
//! (R-FIN-1), as data (`[stages.advance]`) and pure functions.
//!
//! * [`cut`] ranks one leaderboard (one stage, one period, one group: R-STR-1 periods are
//!   independent, so the shell calls it once per period) and says, for every player, whether they
//!   advance and why: rank, points, and which criterion of the tie chain decided for or against them.
//! * [`quota_status`] compares the places of the final that a stage fills (its quota) with the
//!   qualifiers and direct seeds actually there: how many places are short, whether a repechage
//!   (复活赛) is needed (R-ADV-12), how many places are left for wildcards (R-FIN-1).
//! * Knockout stages (R-ADV-3, R-ADV-6) are in [`crate::knockout`]; their `[stages.advance]` says
//!   only where the winners go and the quota they fill.
//!
//! The input, [`Candidate`], is a plain row the shell fills from the standings; this module does not
//! depend on how standings are computed.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use crate::preset::Checker;

// ---------------------------------------------------------------------------------------------
// Domain types
// ---------------------------------------------------------------------------------------------

/// One criterion of a tie chain, applied after points (higher points always rank first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TieCriterion {
    /// 胜局数多者列前 (R-ADV-2, R-ADV-10, R-ADV-11).
    MoreWins,
    /// 平均局时少者列前 (R-ADV-5, R-ADV-8): lower average game time over counted games.
    LowerAverageGameTime,
    /// 先达到分数线 (R-ADV-5 Reading, R-ADV-8): earlier instant at which the player's current score
    /// line first reached the stage's points line; a player who never reached it comes last.
    EarlierReachedLine,
}

impl TieCriterion {
    pub const ALL: [TieCriterion; 3] = [
        TieCriterion::MoreWins,
        TieCriterion::LowerAverageGameTime,
        TieCriterion::EarlierReachedLine,
    ];

    /// The preset code.
    pub fn code(self) -> &'static str {
        match self {
            TieCriterion::MoreWins => "more_wins",
            TieCriterion::LowerAverageGameTime => "lower_average_game_time",
            TieCriterion::EarlierReachedLine => "earlier_reached_line",
        }
    }

    pub fn parse(code: &str) -> Option<TieCriterion> {
        TieCriterion::ALL.into_iter().find(|t| t.code() == code)
    }

    /// `Less` when `a` ranks before `b` on this criterion.
    pub fn compare(self, a: &Candidate, b: &Candidate) -> Ordering {
        self.compare_values(&ChainValues::of(a), &ChainValues::of(b))
    }

    fn compare_values(self, a: &ChainValues, b: &ChainValues) -> Ordering {
        match self {
            TieCriterion::MoreWins => b.wins.cmp(&a.wins),
            TieCriterion::LowerAverageGameTime => {
                // a.total / a.games  vs  b.total / b.games, exactly, by cross-multiplication.
                let lhs = u128::from(a.total_game_secs) * u128::from(b.counted_games);
                let rhs = u128::from(b.total_game_secs) * u128::from(a.counted_games);
                lhs.cmp(&rhs)
            }
            TieCriterion::EarlierReachedLine => match (a.reached_line_at, b.reached_line_at) {
                (Some(x), Some(y)) => x.cmp(&y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
        }
    }
}

/// What points and the tie chain compare of a candidate, by value.
#[derive(Debug, Clone, Copy)]
struct ChainValues {
    points: i64,
    wins: u32,
    counted_games: u32,
    total_game_secs: u64,
    reached_line_at: Option<DateTime<Utc>>,
}

impl ChainValues {
    fn of(c: &Candidate) -> ChainValues {
        ChainValues {
            points: c.points,
            wins: c.wins,
            counted_games: c.counted_games,
            total_game_secs: c.total_game_secs,
            reached_line_at: c.reached_line_at,
        }
    }

    /// Points first (higher first), then the tie chain.
    fn compare(&self, rule: &PointsRule, other: &ChainValues) -> Ordering {
        rule.tie_chain
            .iter()
            .fold(other.points.cmp(&self.points), |o, t| {
                o.then_with(|| t.compare_values(self, other))
            })
    }
}

/// How one leaderboard is cut (积分晋级制).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointsRule {
    /// The points line: points ≥ this to advance ("达到X分及以上", R-ADV-1, 4, 5, 7, 8, 9).
    pub min_points: Option<i64>,
    /// At most this many advance per leaderboard (per period), before full ties at the cut.
    pub top_n: Option<u32>,
    /// Counted games (责任局) needed to be ranked at all (R-ONL-10; at least 1 by the Reading for
    /// every cut).
    pub min_counted_games: u32,
    /// Tie-breaks after points, in order.
    pub tie_chain: Vec<TieCriterion>,
    /// Players tied on points and the whole chain at the cut all advance together (R-ADV-10 "并列一同
    /// 晋级"; the Reading applies it to every top-N stage). When false, the tied players across the
    /// cut are left undecided for the organizer (e.g. a lottery, [`crate::lottery::draw`]).
    pub ties_advance_together: bool,
}

impl PointsRule {
    /// The points line whose reaching instant this cut compares (R-ADV-5 Reading: 先达到分数线),
    /// `None` when its tie chain does not: finding the instant walks every player's games (5
    /// million at national scale), so a rule without the criterion asks for none.
    pub fn line_to_reach(&self) -> Option<i64> {
        self.min_points
            .filter(|_| self.tie_chain.contains(&TieCriterion::EarlierReachedLine))
    }
}

/// How the advancers of a stage are selected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// A points leaderboard per period, cut by [`cut`].
    Points(PointsRule),
    /// The winners of the last knockout round advance ([`crate::knockout`]).
    Knockout,
    /// 复活赛 (R-ADV-12): a points leaderboard whose number of places is the shortfall of the final
    /// quota, known only when the stage is held ([`AdvanceConfig::repechage_rule`]).
    Repechage(PointsRule),
}

/// A group of events with its own leaderboard and numbers inside one stage (go-2025: the open group
/// takes 38 per period, the youth group 30, R-ADV-11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdvanceGroup {
    pub code: String,
    /// Event codes whose players share this group's leaderboard.
    pub events: Vec<String>,
    /// Overrides the stage's `top_n`.
    pub top_n: Option<u32>,
    /// Overrides the stage's `final_quota`.
    pub final_quota: Option<u32>,
}

/// Players placed straight into the next stage (直接晋级), e.g. the top 3 of a quarterly
/// tournament (R-ADV-2, R-ADV-5, R-FIN-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectSeed {
    pub count: u32,
    /// Where they come from, for people (e.g. "2015年业余围棋棋王争霸赛季度赛（4段组）前3名").
    pub source: String,
}

/// A stage's `[stages.advance]`: who advances, where to, who joins them there directly, and the
/// final's numbers when the stage feeds the final.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdvanceConfig {
    /// The code of the stage the advancers go to.
    pub to: String,
    pub selection: Selection,
    pub groups: Vec<AdvanceGroup>,
    /// Seeded straight into the `to` stage alongside this stage's advancers.
    pub seeds: Vec<DirectSeed>,
    /// Places of the final this stage's qualifiers are meant to fill, over all periods (R-FIN-1:
    /// 360, 240, 120, 184). Seeds and wildcards are on top.
    pub final_quota: Option<u32>,
    /// All entrants of the final's individual events, wildcards included, when the rules fix it
    /// (xiangqi-2022: 240, R-FIN-1); wildcards then fill what qualifiers and seeds leave.
    pub final_entrants: Option<u32>,
    /// The stage that fills a shortfall of `final_quota` (R-ADV-12), when the preset defines one.
    pub repechage: Option<String>,
}

impl AdvanceConfig {
    fn group(&self, code: Option<&str>) -> Result<Option<&AdvanceGroup>, ()> {
        match code {
            None => Ok(None),
            Some(c) => self.groups.iter().find(|g| g.code == c).map(Some).ok_or(()),
        }
    }

    /// The points rule of a leaderboard: of the whole stage (`group` = None) or of a group (its
    /// `top_n` overriding the stage's). `None` for a knockout or repechage stage, an unknown group,
    /// or the whole stage when it has groups (each leaderboard then belongs to a group).
    pub fn rule(&self, group: Option<&str>) -> Option<PointsRule> {
        let Selection::Points(rule) = &self.selection else {
            return None;
        };
        if group.is_none() && !self.groups.is_empty() {
            return None;
        }
        let g = self.group(group).ok()?;
        let mut rule = rule.clone();
        if let Some(n) = g.and_then(|g| g.top_n) {
            rule.top_n = Some(n);
        }
        Some(rule)
    }

    /// The points rule of a repechage held to fill `places` places (R-ADV-12). `None` unless this
    /// is a repechage stage.
    pub fn repechage_rule(&self, places: u32) -> Option<PointsRule> {
        let Selection::Repechage(rule) = &self.selection else {
            return None;
        };
        Some(PointsRule {
            top_n: Some(places),
            ..rule.clone()
        })
    }

    /// The final quota of the stage or of a group. `None` if none applies or the group is unknown.
    pub fn final_quota(&self, group: Option<&str>) -> Option<u32> {
        let g = self.group(group).ok()?;
        g.and_then(|g| g.final_quota).or(self.final_quota)
    }

    /// Players seeded directly into the `to` stage.
    pub fn seeded(&self) -> u32 {
        self.seeds.iter().map(|s| s.count).sum()
    }

    /// The nominal number of advancers of a top-N stage over `periods` periods, before ties at the
    /// cut (R-ADV-10: 23 × 8 = 184). `None` without a top N.
    pub fn nominal_advancers(&self, group: Option<&str>, periods: u32) -> Option<u32> {
        self.rule(group)?.top_n?.checked_mul(periods)
    }
}

/// One player's row of a leaderboard, as the standings give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Shared, not copied: a national close hands the live period's million ids to the cut and on
    /// to the stored list without allocating one of them again.
    pub player: Arc<str>,
    pub points: i64,
    pub wins: u32,
    /// Counted games (责任局) of the current score line: wins + losses + draws + escapes (R-ONL-9).
    pub counted_games: u32,
    /// Total duration of the counted games, seconds; the average game time is
    /// `total_game_secs / counted_games`, compared exactly (R-ONL-9).
    pub total_game_secs: u64,
    /// End of the game after which the current score line first reached the stage's points line.
    pub reached_line_at: Option<DateTime<Utc>>,
    /// Out of the stage whatever the points: eliminated for escapes (R-ONL-3), results cancelled for
    /// cheating (R-ONL-8) or disqualified (R-DIS-1).
    pub excluded: bool,
}

impl Candidate {
    /// The average game time in whole seconds, rounded down, for display. `None` without games.
    pub fn average_game_secs(&self) -> Option<u64> {
        (self.counted_games > 0).then(|| self.total_game_secs / u64::from(self.counted_games))
    }
}

/// What separated two players: points, or a criterion of the tie chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decider {
    Points,
    Tie(TieCriterion),
}

/// Why a player advanced or not.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CutReason {
    // Advanced.
    /// Reached the points line in a stage without a top N (R-ADV-1, 4, 7, 9).
    ReachedLine { min_points: i64 },
    /// The eligible field (ranked, over the line) is no larger than the places: all advance.
    WholeFieldAdvances { field: u32, places: u32 },
    /// Inside the places, ahead of `ahead_of` (the first player below this one's group at the cut)
    /// on `by`.
    WithinPlaces {
        places: u32,
        ahead_of: Arc<str>,
        by: Decider,
    },
    /// Tied on points and the whole chain with the player at the cut; `tied` players advance
    /// together beyond the places (R-ADV-10).
    TiedAtCut { places: u32, tied: u32 },
    // Not advanced.
    /// Eliminated, cancelled or disqualified (see [`Candidate::excluded`]).
    Excluded,
    /// Not ranked: too few counted games.
    TooFewGames { counted: u32, needed: u32 },
    /// Ranked but under the points line.
    BelowLine { min_points: i64 },
    /// Outside the places, behind `behind` (the last player in, or the tied group at the cut) on `by`.
    OutsidePlaces {
        places: u32,
        behind: Arc<str>,
        by: Decider,
    },
    /// The stage has no places at all (a repechage with nothing to fill).
    NoPlaces,
    /// Tied across the cut where ties do not advance together: `places_left` places remain for the
    /// `tied` players, for the organizer to decide.
    UndecidedTie { places_left: u32, tied: u32 },
}

impl Decider {
    /// The criterion's stable code (`points` for points).
    pub fn code(self) -> &'static str {
        match self {
            Decider::Points => "points",
            Decider::Tie(t) => t.code(),
        }
    }
}

impl CutReason {
    /// A stable machine code and a sentence for why a player did or did not advance.
    pub fn describe(&self) -> (&'static str, String) {
        match self {
            CutReason::ReachedLine { min_points } => (
                "REACHED_LINE",
                format!("reached the line of {min_points} points"),
            ),
            CutReason::WholeFieldAdvances { field, places } => (
                "WHOLE_FIELD",
                format!("the eligible field of {field} is within the {places} places"),
            ),
            CutReason::WithinPlaces {
                places,
                ahead_of,
                by,
            } => (
                "WITHIN_PLACES",
                format!(
                    "within the {places} places, ahead of {ahead_of} on {}",
                    by.code()
                ),
            ),
            CutReason::TiedAtCut { places, tied } => (
                "TIED_AT_CUT",
                format!(
                    "tied on the whole chain at the cut of {places}: all {tied} tied players advance"
                ),
            ),
            CutReason::Excluded => ("EXCLUDED", "eliminated or results cancelled".into()),
            CutReason::TooFewGames { counted, needed } => (
                "TOO_FEW_GAMES",
                format!("{counted} counted games, {needed} needed to be ranked"),
            ),
            CutReason::BelowLine { min_points } => (
                "BELOW_LINE",
                format!("below the line of {min_points} points"),
            ),
            CutReason::OutsidePlaces { places, behind, by } => (
                "OUTSIDE_PLACES",
                format!(
                    "outside the {places} places, behind {behind} on {}",
                    by.code()
                ),
            ),
            CutReason::NoPlaces => ("NO_PLACES", "the stage has no places".into()),
            CutReason::UndecidedTie { places_left, tied } => (
                "UNDECIDED_TIE",
                format!(
                    "{tied} players tied for {places_left} places: for the organizers to decide"
                ),
            ),
        }
    }
}

/// One player's line of a cut: the candidate (so the tie chain values are shown per player), the
/// rank, the verdict and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutRow {
    pub candidate: Candidate,
    /// Competition rank (1, 2, 2, 4) among ranked players by points and the whole tie chain;
    /// `None` for unranked players.
    pub rank: Option<u32>,
    pub advanced: bool,
    pub reason: CutReason,
}

/// The result of cutting one leaderboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdvancementCut {
    /// Ranked players by rank (equal ranks by player id, for a stable display), then unranked
    /// players by player id.
    pub rows: Vec<CutRow>,
    pub places: Option<u32>,
    /// Places left undecided by a tie across the cut (only when ties do not advance together).
    pub undecided_places: u32,
}

impl AdvancementCut {
    /// The advancing players, in rank order.
    pub fn advanced(&self) -> Vec<&str> {
        self.rows
            .iter()
            .filter(|r| r.advanced)
            .map(|r| &*r.candidate.player)
            .collect()
    }

    pub fn row(&self, player: &str) -> Option<&CutRow> {
        self.rows.iter().find(|r| &*r.candidate.player == player)
    }
}

/// Why a leaderboard could not be cut.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CutError {
    #[error("player {0:?} appears more than once in the leaderboard")]
    DuplicatePlayer(String),
}

// ---------------------------------------------------------------------------------------------
// The cut
// ---------------------------------------------------------------------------------------------

/// Points first (higher first), then the tie chain.
#[cfg(test)]
fn compare_chain(rule: &PointsRule, a: &Candidate, b: &Candidate) -> Ordering {
    ChainValues::of(a).compare(rule, &ChainValues::of(b))
}

/// The first key (points, then each criterion) on which `a` and `b` differ.
fn decider(rule: &PointsRule, a: &ChainValues, b: &ChainValues) -> Decider {
    if a.points != b.points {
        return Decider::Points;
    }
    rule.tie_chain
        .iter()
        .find(|t| t.compare_values(a, b) != Ordering::Equal)
        .map_or(Decider::Points, |t| Decider::Tie(*t))
}

/// A player the verdicts of a cut refer to: the first out, the last in, the head of the tie.
#[derive(Debug, Clone)]
struct Landmark {
    player: Arc<str>,
    values: ChainValues,
}

impl Landmark {
    /// The player of a sorted key.
    fn at(key: &SortKey) -> Landmark {
        Landmark {
            player: Arc::clone(&key.player),
            values: key.chain,
        }
    }
}

/// How the eligible field's rows (ranked, over the line: `0..eligible` in rank order) are judged,
/// decided once per cut from its shape.
#[derive(Debug)]
enum Plan {
    /// Every eligible row alike.
    All(bool, CutReason),
    /// A clean cut between rows `n − 1` and `n`.
    Clean {
        places: u32,
        n: usize,
        first_out: Landmark,
        last_in: Landmark,
    },
    /// The players tied with the N-th, rows `lo..hi`, straddle the cut.
    Tie {
        places: u32,
        lo: usize,
        hi: usize,
        group_head: Landmark,
        /// Whom the rows after the tie are behind: its last row when the tie advances together,
        /// else its head.
        behind: Landmark,
        together: bool,
        undecided_places: u32,
    },
}

impl Plan {
    /// `keys` the ranked candidates' keys in rank order, `eligible` its eligible prefix.
    fn new(rule: &PointsRule, keys: &[SortKey], eligible: usize) -> Plan {
        let Some(places) = rule.top_n else {
            return Plan::All(
                true,
                match rule.min_points {
                    Some(min_points) => CutReason::ReachedLine { min_points },
                    None => CutReason::WholeFieldAdvances {
                        field: count(eligible),
                        places: count(eligible),
                    },
                },
            );
        };
        let n = usize::try_from(places).unwrap_or(usize::MAX);
        if n == 0 {
            return Plan::All(false, CutReason::NoPlaces);
        }
        if eligible <= n {
            return Plan::All(
                true,
                CutReason::WholeFieldAdvances {
                    field: count(eligible),
                    places,
                },
            );
        }
        // The tied group [lo, hi) of the N-th player (index n − 1).
        let at_cut = keys[n - 1].chain;
        let same = |k: &SortKey| k.chain.compare(rule, &at_cut) == Ordering::Equal;
        let lo = keys[..n]
            .iter()
            .rposition(|k| !same(k))
            .map_or(0, |i| i + 1);
        let hi = n + keys[n..eligible].iter().take_while(|k| same(k)).count();
        if hi == n {
            return Plan::Clean {
                places,
                n,
                first_out: Landmark::at(&keys[n]),
                last_in: Landmark::at(&keys[n - 1]),
            };
        }
        let together = rule.ties_advance_together;
        Plan::Tie {
            places,
            lo,
            hi,
            group_head: Landmark::at(&keys[lo]),
            behind: Landmark::at(&keys[if together { hi - 1 } else { lo }]),
            together,
            undecided_places: if together { 0 } else { count(n - lo) },
        }
    }

    /// The verdict on eligible row `i`, whose values are `c`.
    fn verdict(&self, rule: &PointsRule, i: usize, c: &ChainValues) -> (bool, CutReason) {
        let within = |places: u32, of: &Landmark| {
            (
                true,
                CutReason::WithinPlaces {
                    places,
                    ahead_of: of.player.clone(),
                    by: decider(rule, c, &of.values),
                },
            )
        };
        let outside = |places: u32, of: &Landmark| {
            (
                false,
                CutReason::OutsidePlaces {
                    places,
                    behind: of.player.clone(),
                    by: decider(rule, c, &of.values),
                },
            )
        };
        match self {
            Plan::All(advanced, reason) => (*advanced, reason.clone()),
            Plan::Clean {
                places,
                n,
                first_out,
                last_in,
            } => {
                if i < *n {
                    within(*places, first_out)
                } else {
                    outside(*places, last_in)
                }
            }
            Plan::Tie {
                places,
                lo,
                hi,
                group_head,
                behind,
                together,
                undecided_places,
            } => {
                let tied = count(hi - lo);
                if i < *lo {
                    within(*places, group_head)
                } else if i >= *hi {
                    outside(*places, behind)
                } else if *together {
                    (
                        true,
                        CutReason::TiedAtCut {
                            places: *places,
                            tied,
                        },
                    )
                } else {
                    (
                        false,
                        CutReason::UndecidedTie {
                            places_left: *undecided_places,
                            tied,
                        },
                    )
                }
            }
        }
    }
}

/// A ranked candidate as the cut's sort sees it: what [`compare_chain`] compares, inline, and the
/// player id's first bytes after the prefix every ranked id shares. Sorting these, not the
/// candidates, reads no string and follows no pointer unless two players tie on all of it: a
/// national period sorts a million, mostly tied on points (xiangqi-2022 海选 has no tie chain, so
/// the player id decides most comparisons, and ids made in bulk share a long prefix).
///
/// A key is the whole ranked candidate (its values, the id's pointer, and `excluded` false), so
/// the pass in rank order reads the sorted keys only. With an index into the unsorted candidates
/// instead, the pass read a million candidates in random memory order: the close of
/// `qiwang bench ingest --players 1000000 --games 1500000` (SQLite, 950,289 rows, 2-core VM) logged
/// `cut_seconds` 0.39 before and 0.32–0.35 after.
#[derive(Debug, Clone)]
struct SortKey {
    chain: ChainValues,
    /// Big-endian, zero-padded: ordered as the id's bytes are, up to a tie on these 16.
    id_head: u128,
    player: Arc<str>,
}

impl SortKey {
    fn new(c: Candidate, shared_prefix: usize) -> SortKey {
        let mut head = [0u8; 16];
        let rest = c.player.as_bytes().get(shared_prefix..).unwrap_or_default();
        let n = rest.len().min(16);
        head[..n].copy_from_slice(&rest[..n]);
        SortKey {
            chain: ChainValues::of(&c),
            id_head: u128::from_be_bytes(head),
            player: c.player,
        }
    }

    /// The ranked candidate it was made of.
    fn into_candidate(self) -> Candidate {
        let ChainValues {
            points,
            wins,
            counted_games,
            total_game_secs,
            reached_line_at,
        } = self.chain;
        Candidate {
            player: self.player,
            points,
            wins,
            counted_games,
            total_game_secs,
            reached_line_at,
            excluded: false,
        }
    }
}

/// The length of the prefix all of `ids` share, in bytes (0 for none). Ids made in bulk share a
/// long one (`pl_` and a time): the cut's sort keys and a frozen list's chunks leave it out.
pub fn shared_id_prefix<'a>(ids: impl IntoIterator<Item = &'a str>) -> usize {
    let mut ids = ids.into_iter();
    let Some(first) = ids.next() else {
        return 0;
    };
    let first = first.as_bytes();
    ids.fold(first.len(), |shared, id| {
        first[..shared]
            .iter()
            .zip(id.as_bytes())
            .take_while(|(a, b)| a == b)
            .count()
    })
}

/// The ranked candidates as keys in rank order: by points, the tie chain and player id (a total
/// order: ids are unique).
fn sorted_keys(rule: &PointsRule, ranked: Vec<Candidate>) -> Vec<SortKey> {
    let shared = shared_id_prefix(ranked.iter().map(|c| &*c.player));
    let mut keys: Vec<SortKey> = ranked
        .into_iter()
        .map(|c| SortKey::new(c, shared))
        .collect();
    let order = |a: &SortKey, b: &SortKey| {
        a.chain
            .compare(rule, &b.chain)
            .then_with(|| a.id_head.cmp(&b.id_head))
            .then_with(|| a.player.cmp(&b.player))
    };
    if keys.len() >= SORT_IN_TWO_FROM {
        sort_in_two(&mut keys, order);
    } else {
        keys.sort_unstable_by(order);
    }
    keys
}

/// From how many ranked players the sort uses a second thread: a national period (a million)
/// does; a 入围 stage (hundreds) does not pay for a thread.
const SORT_IN_TWO_FROM: usize = 65_536;

/// Sorts `items` by `order` on two threads: split at the median (everything before it orders no
/// later than everything after), then each half sorted on its own thread. No memory beyond the
/// items'; with `order` total the result is the one a plain sort gives. The period's close runs
/// after ingest has stopped, so the second core is otherwise idle.
fn sort_in_two<T: Send>(items: &mut [T], order: impl Fn(&T, &T) -> Ordering + Sync) {
    if items.len() < 2 {
        return;
    }
    let order = &order;
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, order);
    let (low, high) = items.split_at_mut(mid);
    std::thread::scope(|s| {
        s.spawn(|| low.sort_unstable_by(order));
        high.sort_unstable_by(order);
    });
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A leaderboard's players as the cut takes them: no player twice. Made by [`Field::new`], which
/// checks that, or by the live period (`LivePeriod::candidates`), whose players are distinct by
/// construction: a national close then skips hashing a million ids to learn what it knows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Field(Vec<Candidate>);

impl Field {
    /// `candidates` as a field, refused when a player appears twice.
    pub fn new(candidates: Vec<Candidate>) -> Result<Field, CutError> {
        let mut seen = HashSet::with_capacity(candidates.len());
        for c in &candidates {
            if !seen.insert(&*c.player) {
                return Err(CutError::DuplicatePlayer(c.player.to_string()));
            }
        }
        drop(seen);
        Ok(Field(candidates))
    }

    /// Candidates the caller knows to be distinct players (a crate-internal promise).
    pub(crate) fn of_distinct(candidates: Vec<Candidate>) -> Field {
        debug_assert!(Field::new(candidates.clone()).is_ok());
        Field(candidates)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Candidate> {
        self.0.iter()
    }

    /// Marks the players `out` names as excluded (cancelled for cheating, R-ONL-8).
    pub fn exclude(&mut self, out: impl Fn(&str) -> bool) {
        for c in &mut self.0 {
            c.excluded |= out(&c.player);
        }
    }

    pub fn into_candidates(self) -> Vec<Candidate> {
        self.0
    }
}

/// What a cut says beside its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutSummary {
    pub places: Option<u32>,
    /// Places left undecided by a tie across the cut (only when ties do not advance together).
    pub undecided_places: u32,
}

/// Cuts one leaderboard (R-ADV-1, 2, 4, 5, 7 to 11; "Reading for every cut").
///
/// * Excluded players and players with fewer than `max(min_counted_games, 1)` counted games are
///   unranked and do not advance.
/// * The others are ranked by points, then the tie chain; players equal on all of it share a rank.
/// * Those under `min_points` do not advance. Of the rest (the eligible field), all advance when
///   there is no top N or the field is no larger than N; otherwise the first N do, and players tied
///   on the whole chain with the N-th all advance with them when `ties_advance_together`, or are
///   left undecided when not.
///
/// The result does not depend on the order of `candidates`; a player given twice is refused.
pub fn cut(rule: &PointsRule, candidates: Vec<Candidate>) -> Result<AdvancementCut, CutError> {
    let mut rows = Vec::with_capacity(candidates.len());
    let summary = cut_field(rule, Field::new(candidates)?, |row| rows.push(row));
    Ok(AdvancementCut {
        rows,
        places: summary.places,
        undecided_places: summary.undecided_places,
    })
}

/// [`cut`] of a field, each row handed to `emit` in the order of [`AdvancementCut::rows`] instead
/// of collected: a national close turns a million rows straight into its stored list's, with no
/// list of cut rows (~130 MB of fresh memory) between. The candidates move into the rows; none is
/// copied.
pub fn cut_field(rule: &PointsRule, field: Field, mut emit: impl FnMut(CutRow)) -> CutSummary {
    let needed = rule.min_counted_games.max(1);
    // Ranked first, in place: only the unranked (few) move to a list of their own. A national
    // period is a million candidates, and each list of them is ~60 MB of fresh memory.
    let mut ranked = field.0;
    let mut in_front = 0;
    for i in 0..ranked.len() {
        if ranked
            .get(i)
            .is_some_and(|c| !c.excluded && c.counted_games >= needed)
        {
            ranked.swap(i, in_front);
            in_front += 1;
        }
    }
    let mut unranked = ranked.split_off(in_front);
    // Player ids are unique (a field's are), so both orders are total and an unstable sort gives
    // the one result.
    let keys = sorted_keys(rule, ranked);
    unranked.sort_unstable_by(|a, b| a.player.cmp(&b.player));

    // The eligible field is a prefix, since points rank first.
    let eligible = rule.min_points.map_or(keys.len(), |m| {
        keys.iter().take_while(|k| k.chain.points >= m).count()
    });
    let plan = Plan::new(rule, &keys, eligible);
    let undecided_places = match &plan {
        Plan::Tie {
            undecided_places, ..
        } => *undecided_places,
        _ => 0,
    };

    // One pass in rank order: each key becomes its row with its rank and verdict, so a national
    // cut makes no list of ranks or of reasons beside its rows.
    let mut previous: Option<(ChainValues, u32)> = None;
    for (i, key) in keys.into_iter().enumerate() {
        let values = key.chain;
        let candidate = key.into_candidate();
        let rank = match previous {
            Some((p, r)) if p.compare(rule, &values) == Ordering::Equal => r,
            _ => count(i + 1),
        };
        previous = Some((values, rank));
        let (advanced, reason) = if i < eligible {
            plan.verdict(rule, i, &values)
        } else {
            // Only a points line leaves players out of the eligible field.
            let min_points = rule.min_points.unwrap_or_default();
            (false, CutReason::BelowLine { min_points })
        };
        emit(CutRow {
            candidate,
            rank: Some(rank),
            advanced,
            reason,
        });
    }
    for c in unranked {
        emit(CutRow {
            reason: if c.excluded {
                CutReason::Excluded
            } else {
                CutReason::TooFewGames {
                    counted: c.counted_games,
                    needed,
                }
            },
            candidate: c,
            rank: None,
            advanced: false,
        });
    }
    CutSummary {
        places: rule.top_n,
        undecided_places,
    }
}

// ---------------------------------------------------------------------------------------------
// Quotas, seeds, wildcards, repechage
// ---------------------------------------------------------------------------------------------

/// The final's places that a stage fills, against what it filled (R-ADV-12, R-FIN-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaStatus {
    pub quota: u32,
    /// Online qualifiers of the stage (over all periods) who take their place.
    pub qualified: u32,
    /// `quota − qualified` when positive: the places a repechage must fill.
    pub short: u32,
    /// `qualified − quota` when positive (full ties at a cut, knockout byes): they all go.
    pub surplus: u32,
    /// R-ADV-12: a repechage is needed when places are short.
    pub repechage_needed: bool,
    /// The stage that holds it, if the preset defines one; `None` with `repechage_needed` means the
    /// organizer must define one (R-ADV-12 "复活赛规程届时另行通知").
    pub repechage_stage: Option<String>,
    pub seeds_declared: u32,
    pub seeds_present: u32,
    /// Seed places not taken. Reading: they are not filled by the repechage (R-ADV-12 counts the
    /// online admissions, "录取人数"); they are left to wildcards.
    pub seeds_short: u32,
    /// Places left for wildcards when the final's size is fixed (xiangqi-2022: 240 − qualifiers),
    /// never negative; `None` when the number of wildcards is the committee's decision (R-WC-1).
    pub wildcard_places: Option<u32>,
}

/// The quota status of a stage (or one of its groups) that feeds the final. `None` when no quota
/// applies. `seeds_present` counts the direct seeds who take their place (capped at the declared
/// seeds for the shortfall).
pub fn quota_status(
    config: &AdvanceConfig,
    group: Option<&str>,
    qualified: u32,
    seeds_present: u32,
) -> Option<QuotaStatus> {
    let quota = config.final_quota(group)?;
    let short = quota.saturating_sub(qualified);
    let seeds_declared = config.seeded();
    Some(QuotaStatus {
        quota,
        qualified,
        short,
        surplus: qualified.saturating_sub(quota),
        repechage_needed: short > 0,
        repechage_stage: config.repechage.clone(),
        seeds_declared,
        seeds_present,
        seeds_short: seeds_declared.saturating_sub(seeds_present),
        wildcard_places: config.final_entrants.map(|total| {
            total
                .saturating_sub(qualified)
                .saturating_sub(seeds_present)
        }),
    })
}

// ---------------------------------------------------------------------------------------------
// Preset section `[stages.advance]`
// ---------------------------------------------------------------------------------------------

/// `[stages.advance]` as written in a preset file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdvanceFile {
    pub(crate) to: String,
    /// `points` | `knockout` | `repechage`.
    pub(crate) by: String,
    pub(crate) min_points: Option<i64>,
    pub(crate) top_n: Option<i64>,
    pub(crate) min_counted_games: Option<i64>,
    pub(crate) tie_chain: Option<Vec<String>>,
    pub(crate) ties_advance_together: Option<bool>,
    pub(crate) final_quota: Option<i64>,
    pub(crate) final_entrants: Option<i64>,
    pub(crate) repechage: Option<String>,
    #[serde(default)]
    pub(crate) seeds: Vec<SeedFile>,
    #[serde(default)]
    pub(crate) groups: Vec<GroupFile>,
}

/// `[[stages.advance.seeds]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SeedFile {
    pub(crate) count: i64,
    pub(crate) source: String,
}

/// `[[stages.advance.groups]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GroupFile {
    pub(crate) code: String,
    pub(crate) events: Vec<String>,
    pub(crate) top_n: Option<i64>,
    pub(crate) final_quota: Option<i64>,
}

/// A count that must be > 0 and fit in u32.
fn positive_u32(c: &mut Checker, path: &str, value: i64) -> Option<u32> {
    if value <= 0 {
        c.err(path, "must be > 0");
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

/// Checks `[stages.advance]`, reporting every problem under `path` (e.g. `stages[2].advance`).
/// Cross-section checks (that `to`, `repechage` and group events name real stages and events, that
/// a `knockout` stage has a `[stages.knockout]`) belong to the preset loader.
pub(crate) fn check_advance(
    file: &AdvanceFile,
    path: &str,
    c: &mut Checker,
) -> Option<AdvanceConfig> {
    let p = |field: &str| format!("{path}.{field}");
    let errors_before = c.0.len();
    c.non_empty(&p("to"), &file.to);

    #[derive(PartialEq)]
    enum By {
        Points,
        Knockout,
        Repechage,
    }
    let by = match file.by.as_str() {
        "points" => Some(By::Points),
        "knockout" => Some(By::Knockout),
        "repechage" => Some(By::Repechage),
        other => {
            c.err(
                p("by"),
                format!("{other:?} is not one of points, knockout, repechage"),
            );
            None
        }
    };

    if by == Some(By::Knockout) {
        let points_only = [
            ("min_points", file.min_points.is_some()),
            ("top_n", file.top_n.is_some()),
            ("min_counted_games", file.min_counted_games.is_some()),
            ("tie_chain", file.tie_chain.is_some()),
            (
                "ties_advance_together",
                file.ties_advance_together.is_some(),
            ),
            ("groups", !file.groups.is_empty()),
        ];
        for (field, present) in points_only {
            if present {
                c.err(
                    p(field),
                    "only for by = \"points\" or \"repechage\" (a knockout's winners advance)",
                );
            }
        }
    }
    if by == Some(By::Repechage) {
        if file.top_n.is_some() {
            c.err(
                p("top_n"),
                "not for by = \"repechage\": its places are the final quota's shortfall (R-ADV-12)",
            );
        }
        if !file.groups.is_empty() {
            c.err(p("groups"), "only for by = \"points\"");
        }
    }
    if by == Some(By::Points)
        && file.min_points.is_none()
        && file.top_n.is_none()
        && file.groups.iter().all(|g| g.top_n.is_none())
    {
        c.err(
            p("top_n"),
            "a points stage needs min_points, top_n or both (otherwise everyone advances)",
        );
    }

    let top_n = file.top_n.and_then(|v| positive_u32(c, &p("top_n"), v));
    let min_counted_games = match file.min_counted_games {
        None => 1,
        Some(v) => positive_u32(c, &p("min_counted_games"), v).unwrap_or(1),
    };
    let mut tie_chain = Vec::new();
    for (i, code) in file.tie_chain.iter().flatten().enumerate() {
        match TieCriterion::parse(code) {
            Some(t) if tie_chain.contains(&t) => {
                c.err(
                    format!("{path}.tie_chain[{i}]"),
                    format!("{code:?} appears more than once"),
                );
            }
            Some(t) => tie_chain.push(t),
            None => c.err(
                format!("{path}.tie_chain[{i}]"),
                format!(
                    "{code:?} is not one of more_wins, lower_average_game_time, earlier_reached_line"
                ),
            ),
        }
    }
    if tie_chain.contains(&TieCriterion::EarlierReachedLine) && file.min_points.is_none() {
        c.err(
            p("tie_chain"),
            "earlier_reached_line needs min_points (the line to reach)",
        );
    }

    let final_quota = file
        .final_quota
        .and_then(|v| positive_u32(c, &p("final_quota"), v));
    let final_entrants = file
        .final_entrants
        .and_then(|v| positive_u32(c, &p("final_entrants"), v));
    if let Some(r) = &file.repechage {
        c.non_empty(&p("repechage"), r);
        if file.final_quota.is_none() && file.groups.iter().all(|g| g.final_quota.is_none()) {
            c.err(
                p("repechage"),
                "a repechage fills a final quota: set final_quota",
            );
        }
    }

    let mut seeds = Vec::new();
    for (i, s) in file.seeds.iter().enumerate() {
        let sp = |field: &str| format!("{path}.seeds[{i}].{field}");
        let count = positive_u32(c, &sp("count"), s.count);
        c.non_empty(&sp("source"), &s.source);
        if let Some(count) = count {
            seeds.push(DirectSeed {
                count,
                source: s.source.clone(),
            });
        }
    }
    let seeded: u64 = seeds.iter().map(|s| u64::from(s.count)).sum();
    if let (Some(total), Some(quota)) = (final_entrants, final_quota)
        && u64::from(total) < u64::from(quota) + seeded
    {
        c.err(
            p("final_entrants"),
            "must be at least final_quota plus the direct seeds",
        );
    }

    let mut groups: Vec<AdvanceGroup> = Vec::new();
    let mut all_events: BTreeSet<&str> = BTreeSet::new();
    for (i, g) in file.groups.iter().enumerate() {
        let gp = |field: &str| format!("{path}.groups[{i}].{field}");
        c.non_empty(&gp("code"), &g.code);
        if file.groups[..i].iter().any(|prev| prev.code == g.code) {
            c.err(gp("code"), format!("{:?} appears more than once", g.code));
        }
        if g.events.is_empty() {
            c.err(gp("events"), "must list at least one event");
        }
        for (j, e) in g.events.iter().enumerate() {
            let ep = format!("{path}.groups[{i}].events[{j}]");
            c.non_empty(&ep, e);
            if !all_events.insert(e.as_str()) {
                c.err(ep, format!("{e:?} is already in a group"));
            }
        }
        if by == Some(By::Points)
            && g.top_n.is_none()
            && top_n.is_none()
            && file.min_points.is_none()
        {
            c.err(
                gp("top_n"),
                "needed: the stage sets neither top_n nor min_points",
            );
        }
        let g_top = g.top_n.and_then(|v| positive_u32(c, &gp("top_n"), v));
        let g_quota = g
            .final_quota
            .and_then(|v| positive_u32(c, &gp("final_quota"), v));
        groups.push(AdvanceGroup {
            code: g.code.clone(),
            events: g.events.clone(),
            top_n: g_top,
            final_quota: g_quota,
        });
    }

    if c.0.len() != errors_before {
        return None;
    }
    let rule = PointsRule {
        min_points: file.min_points,
        top_n,
        min_counted_games,
        tie_chain,
        ties_advance_together: file.ties_advance_together.unwrap_or(true),
    };
    let selection = match by? {
        By::Points => Selection::Points(rule),
        By::Knockout => Selection::Knockout,
        By::Repechage => Selection::Repechage(rule),
    };
    Some(AdvanceConfig {
        to: file.to.clone(),
        selection,
        groups,
        seeds,
        final_quota,
        final_entrants,
        repechage: file.repechage.clone(),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use chrono::TimeZone;
    use proptest::prelude::*;

    #[test]
    fn r_adv_5_a_cut_asks_when_the_line_was_reached_only_if_its_chain_compares_it() {
        use TieCriterion::{EarlierReachedLine, LowerAverageGameTime, MoreWins};
        let rule = |tie_chain, min_points| PointsRule {
            min_points,
            top_n: Some(120),
            min_counted_games: 1,
            tie_chain,
            ties_advance_together: true,
        };
        // chess-2015 / xiangqi-2015: average game time, then who reached the line first.
        let chain = vec![LowerAverageGameTime, EarlierReachedLine];
        assert_eq!(rule(chain.clone(), Some(5)).line_to_reach(), Some(5));
        assert_eq!(rule(chain, None).line_to_reach(), None, "no line to reach");
        // xiangqi-2022 海选 (no chain) and 入围 (more wins): never.
        assert_eq!(rule(Vec::new(), Some(7)).line_to_reach(), None);
        assert_eq!(rule(vec![MoreWins], Some(7)).line_to_reach(), None);
    }

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2015, 9, 1, 2, 0, 0)
            .single()
            .expect("time")
            + chrono::Duration::minutes(i64::from(minute))
    }

    fn cand(player: &str, points: i64, wins: u32, games: u32) -> Candidate {
        Candidate {
            player: player.into(),
            points,
            wins,
            counted_games: games,
            total_game_secs: u64::from(games) * 1200,
            reached_line_at: None,
            excluded: false,
        }
    }

    fn rule(min_points: Option<i64>, top_n: Option<u32>, chain: &[TieCriterion]) -> PointsRule {
        PointsRule {
            min_points,
            top_n,
            min_counted_games: 1,
            tie_chain: chain.to_vec(),
            ties_advance_together: true,
        }
    }

    #[test]
    fn a_sort_in_two_halves_orders_as_one_sort() {
        for n in [0usize, 1, 2, 3, 10, 1001] {
            // Many equal keys (by the first field), told apart by the second.
            let mut items: Vec<(u8, u32)> = (0..n as u32)
                .map(|i| ((i.wrapping_mul(2_654_435_761) % 7) as u8, i))
                .collect();
            let mut want = items.clone();
            want.sort_unstable();
            sort_in_two(&mut items, |a, b| a.cmp(b));
            assert_eq!(items, want, "{n} items");
        }
    }

    #[test]
    fn r_adv_10_a_national_size_cut_sorted_on_two_threads_ranks_as_the_chain_says() {
        // Past SORT_IN_TWO_FROM, so the two-thread sort runs; few points values and wins, so most
        // players tie on the chain and their ids decide the order.
        let n = SORT_IN_TWO_FROM + 4_465;
        let field: Vec<Candidate> = (0..n as u64)
            .map(|i| {
                let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                cand(
                    &format!("pl_{h:08x}_{i}"),
                    (h % 13) as i64,
                    (h % 5) as u32,
                    5,
                )
            })
            .collect();
        let r = rule(None, Some(1_000), &[TieCriterion::MoreWins]);
        let c = cut(&r, field.clone()).expect("cut");
        let mut expected = field.clone();
        expected.sort_by(|a, b| compare_chain(&r, a, b).then_with(|| a.player.cmp(&b.player)));
        let got: Vec<&Candidate> = c.rows.iter().map(|x| &x.candidate).collect();
        assert_eq!(got, expected.iter().collect::<Vec<_>>());
        for (i, (row, before)) in c.rows.iter().skip(1).zip(&c.rows).enumerate() {
            let tied = compare_chain(&r, &row.candidate, &before.candidate) == Ordering::Equal;
            let want = if tied {
                before.rank
            } else {
                Some(i as u32 + 2)
            };
            assert_eq!(row.rank, want, "row {}", i + 1);
        }
        // The tie at place 1,000 advances whole (R-ADV-10); the input's order does not matter.
        let last_in = c
            .rows
            .iter()
            .rposition(|x| x.advanced)
            .expect("some advance");
        assert!(last_in >= 999);
        assert_eq!(c.rows[last_in].rank, c.rows[999].rank);
        let mut reversed = field;
        reversed.reverse();
        assert_eq!(cut(&r, reversed).expect("cut"), c);
    }

    #[test]
    fn the_shared_id_prefix_is_measured_in_bytes() {
        assert_eq!(shared_id_prefix(["pl_01ab", "pl_01ac", "pl_02"]), 4);
        assert_eq!(shared_id_prefix(["pl_01", "pl_01x"]), 5);
        assert_eq!(shared_id_prefix(["棋王a", "棋王b"]), "棋王".len());
        assert_eq!(shared_id_prefix([]), 0);
    }

    /// The official preset names.
    pub(crate) const PRESETS: [&str; 5] = [
        "go-2015",
        "xiangqi-2015",
        "chess-2015",
        "xiangqi-2022",
        "go-2025",
    ];

    /// The official presets, loaded and checked once for every test module that reads them.
    static OFFICIAL: std::sync::LazyLock<Vec<crate::preset::Preset>> =
        std::sync::LazyLock::new(|| {
            PRESETS
                .iter()
                .map(|name| {
                    crate::preset::official_by_name(name)
                        .expect("official preset")
                        .expect("valid preset")
                })
                .collect()
        });

    /// The official preset of that name (`services/core/presets/<name>.toml`).
    pub(crate) fn official(preset: &str) -> &'static crate::preset::Preset {
        OFFICIAL
            .iter()
            .find(|p| p.name == preset)
            .unwrap_or_else(|| panic!("no official preset {preset}"))
    }

    fn advance(preset: &str, stage: &str) -> AdvanceConfig {
        official(preset)
            .stage(stage)
            .and_then(|s| s.advance.clone())
            .expect("stage with [stages.advance]")
    }

    fn points_rule(preset: &str, stage: &str) -> PointsRule {
        advance(preset, stage).rule(None).expect("points stage")
    }

    #[test]
    fn every_snippet_parses_and_checks() {
        for name in PRESETS {
            let stages: Vec<_> = official(name)
                .stages
                .iter()
                .filter(|s| s.advance.is_some() || s.knockout.is_some())
                .collect();
            assert!(!stages.is_empty(), "{name}");
        }
    }

    #[test]
    fn r_adv_1_go_2015_haixuan_4_points_advance_to_jinji() {
        let a = advance("go-2015", "haixuan");
        assert_eq!(a.to, "jinji");
        let r = a.rule(None).expect("points");
        assert_eq!((r.min_points, r.top_n), (Some(4), None));
        let cut = cut(
            &r,
            vec![
                cand("a", 4, 3, 5),
                cand("b", 2, 2, 2),
                cand("c", 8, 4, 4),
                cand("d", 0, 0, 0),
            ],
        )
        .expect("cut");
        assert_eq!(cut.advanced(), ["c", "a"]);
        assert_eq!(
            cut.row("a").map(|r| &r.reason),
            Some(&CutReason::ReachedLine { min_points: 4 })
        );
        assert_eq!(
            cut.row("b").map(|r| (&r.reason, r.rank)),
            Some((&CutReason::BelowLine { min_points: 4 }, Some(3)))
        );
        // No counted game: unranked (Reading for every cut).
        assert_eq!(
            cut.row("d").map(|r| (&r.reason, r.rank)),
            Some((
                &CutReason::TooFewGames {
                    counted: 0,
                    needed: 1
                },
                None
            ))
        );
    }

    #[test]
    fn r_adv_2_go_2015_jinji_top_720_more_wins_first_and_3_seeds() {
        let a = advance("go-2015", "jinji");
        assert_eq!((a.to.as_str(), a.seeded()), ("ruwei", 3));
        let r = a.rule(None).expect("points");
        assert_eq!(r.top_n, Some(720));
        assert_eq!(r.tie_chain, [TieCriterion::MoreWins]);
        assert_eq!(a.nominal_advancers(None, 4), Some(2880));
        // 719 players on 20 points, then two on 10 points: 6 wins beats 5 wins for place 720.
        let mut field: Vec<Candidate> = (0..719)
            .map(|i| cand(&format!("p{i:03}"), 20, 10, 10))
            .collect();
        field.push(cand("five-wins", 10, 5, 5));
        field.push(cand("six-wins", 10, 6, 7));
        let cut = cut(&r, field.clone()).expect("cut");
        assert_eq!(cut.advanced().len(), 720);
        let six = cut.row("six-wins").expect("row");
        assert_eq!((six.advanced, six.rank), (true, Some(720)));
        assert_eq!(
            six.reason,
            CutReason::WithinPlaces {
                places: 720,
                ahead_of: "five-wins".into(),
                by: Decider::Tie(TieCriterion::MoreWins)
            }
        );
        let five = cut.row("five-wins").expect("row");
        assert_eq!(
            (five.advanced, five.rank, &five.reason),
            (
                false,
                Some(721),
                &CutReason::OutsidePlaces {
                    places: 720,
                    behind: "six-wins".into(),
                    by: Decider::Tie(TieCriterion::MoreWins)
                }
            )
        );
        // Players far above the cut are in on points.
        assert_eq!(
            cut.row("p000").map(|r| &r.reason),
            Some(&CutReason::WithinPlaces {
                places: 720,
                ahead_of: "five-wins".into(),
                by: Decider::Points
            })
        );
    }

    #[test]
    fn r_adv_3_go_2015_ruwei_is_a_knockout_filling_360_plus_12_seeds() {
        let a = advance("go-2015", "ruwei");
        assert_eq!(a.selection, Selection::Knockout);
        assert_eq!(a.rule(None), None);
        assert_eq!(
            (a.to.as_str(), a.final_quota(None), a.seeded()),
            ("final", Some(360), 12)
        );
        assert_eq!(a.repechage.as_deref(), Some("fuhuo"));
    }

    #[test]
    fn r_adv_4_xiangqi_2015_haixuan_5_points() {
        let r = points_rule("xiangqi-2015", "haixuan");
        assert_eq!((r.min_points, r.top_n), (Some(5), None));
        let cut = cut(&r, vec![cand("a", 5, 3, 4), cand("b", 4, 3, 5)]).expect("cut");
        assert_eq!(cut.advanced(), ["a"]);
    }

    fn xq_candidate(
        player: &str,
        points: i64,
        games: u32,
        avg: u64,
        reached: Option<u32>,
    ) -> Candidate {
        Candidate {
            player: player.into(),
            points,
            wins: 0,
            counted_games: games,
            total_game_secs: avg * u64::from(games),
            reached_line_at: reached.map(at),
            excluded: false,
        }
    }

    #[test]
    fn r_adv_5_xiangqi_2015_jinji_5_games_6_points_top_480_average_time_then_line() {
        let a = advance("xiangqi-2015", "jinji");
        assert_eq!((a.to.as_str(), a.seeded()), ("ruwei", 10));
        let r = a.rule(None).expect("points");
        assert_eq!(
            (r.min_points, r.top_n, r.min_counted_games),
            (Some(6), Some(480), 5)
        );
        assert_eq!(
            r.tie_chain,
            [
                TieCriterion::LowerAverageGameTime,
                TieCriterion::EarlierReachedLine
            ]
        );
        let mut field: Vec<Candidate> = (0..478)
            .map(|i| xq_candidate(&format!("p{i:03}"), 20, 12, 900, Some(10)))
            .collect();
        // Three on 8 points for places 479-480: the faster average first, then the earlier line.
        field.push(xq_candidate("fast", 8, 6, 600, Some(50)));
        field.push(xq_candidate("slow-early", 8, 6, 700, Some(20)));
        field.push(xq_candidate("slow-late", 8, 6, 700, Some(30)));
        // 30 points but only 4 counted games: not ranked (R-ONL-10).
        field.push(xq_candidate("four-games", 30, 4, 600, Some(5)));
        // 5 games but 4 points: under the line.
        field.push(xq_candidate("under", 4, 9, 600, None));
        let cut = cut(&r, field.clone()).expect("cut");
        assert_eq!(cut.advanced().len(), 480);
        let reason = |p: &str| cut.row(p).map(|r| (r.advanced, r.reason.clone()));
        assert_eq!(
            reason("fast"),
            Some((
                true,
                CutReason::WithinPlaces {
                    places: 480,
                    ahead_of: "slow-late".into(),
                    by: Decider::Tie(TieCriterion::LowerAverageGameTime)
                }
            ))
        );
        assert_eq!(
            reason("slow-early"),
            Some((
                true,
                CutReason::WithinPlaces {
                    places: 480,
                    ahead_of: "slow-late".into(),
                    by: Decider::Tie(TieCriterion::EarlierReachedLine)
                }
            ))
        );
        assert_eq!(
            reason("slow-late"),
            Some((
                false,
                CutReason::OutsidePlaces {
                    places: 480,
                    behind: "slow-early".into(),
                    by: Decider::Tie(TieCriterion::EarlierReachedLine)
                }
            ))
        );
        assert_eq!(
            reason("four-games"),
            Some((
                false,
                CutReason::TooFewGames {
                    counted: 4,
                    needed: 5
                }
            ))
        );
        assert_eq!(
            reason("under"),
            Some((false, CutReason::BelowLine { min_points: 6 }))
        );
    }

    #[test]
    fn r_adv_5_average_game_time_is_compared_exactly() {
        // 1000/3 = 333.33… s against 333 s: the second is faster although both display as 333.
        let r = rule(None, Some(1), &[TieCriterion::LowerAverageGameTime]);
        let mut a = cand("a", 6, 3, 3);
        a.total_game_secs = 1000;
        let mut b = cand("b", 6, 3, 3);
        b.total_game_secs = 999;
        assert_eq!(a.average_game_secs(), b.average_game_secs());
        let cut = cut(&r, vec![a, b]).expect("cut");
        assert_eq!(cut.advanced(), ["b"]);
    }

    #[test]
    fn r_adv_6_xiangqi_2015_ruwei_is_a_knockout_filling_240_plus_12_seeds() {
        let a = advance("xiangqi-2015", "ruwei");
        assert_eq!(a.selection, Selection::Knockout);
        assert_eq!((a.final_quota(None), a.seeded()), (Some(240), 12));
    }

    #[test]
    fn r_adv_7_chess_2015_haixuan_5_points_to_ruwei() {
        let a = advance("chess-2015", "haixuan");
        assert_eq!(a.to, "ruwei");
        let r = a.rule(None).expect("points");
        assert_eq!((r.min_points, r.top_n), (Some(5), None));
    }

    #[test]
    fn r_adv_8_chess_2015_ruwei_top_120_to_the_final() {
        let a = advance("chess-2015", "ruwei");
        let r = a.rule(None).expect("points");
        assert_eq!(
            (r.min_points, r.top_n, r.min_counted_games),
            (Some(6), Some(120), 5)
        );
        assert_eq!(
            r.tie_chain,
            [
                TieCriterion::LowerAverageGameTime,
                TieCriterion::EarlierReachedLine
            ]
        );
        assert_eq!(
            (
                a.to.as_str(),
                a.final_quota(None),
                a.seeded(),
                a.repechage.as_deref()
            ),
            ("final", Some(120), 12, Some("fuhuo"))
        );
        // Never having reached the line ranks after having reached it (equal average).
        let r2 = PointsRule {
            top_n: Some(1),
            ..r
        };
        let cut = cut(
            &r2,
            vec![
                xq_candidate("never", 6, 5, 600, None),
                xq_candidate("reached", 6, 5, 600, Some(100)),
            ],
        )
        .expect("cut");
        assert_eq!(cut.advanced(), ["reached"]);
    }

    #[test]
    fn r_adv_9_xiangqi_2022_haixuan_7_points_to_ruwei() {
        let a = advance("xiangqi-2022", "haixuan");
        let r = a.rule(None).expect("points");
        assert_eq!(
            (a.to.as_str(), r.min_points, r.top_n),
            ("ruwei", Some(7), None)
        );
        let cut = cut(&r, vec![cand("a", 7, 4, 5), cand("b", 6, 3, 4)]).expect("cut");
        assert_eq!(cut.advanced(), ["a"]);
    }

    #[test]
    fn r_adv_10_xiangqi_2022_ruwei_23_per_period_184_in_all_full_ties_advance_together() {
        let a = advance("xiangqi-2022", "ruwei");
        let r = a.rule(None).expect("points");
        assert_eq!(r.top_n, Some(23));
        assert_eq!(r.tie_chain, [TieCriterion::MoreWins]);
        assert!(r.ties_advance_together);
        assert_eq!(a.nominal_advancers(None, 8), Some(184));
        assert_eq!(a.final_quota(None), Some(184));
        // 21 clear players, then three on 10 points and 6 wins for places 22-23, one on 10 and 5 wins.
        let mut field: Vec<Candidate> = (0..21)
            .map(|i| cand(&format!("p{i:02}"), 30, 15, 20))
            .collect();
        for p in ["t1", "t2", "t3"] {
            field.push(cand(p, 10, 6, 8));
        }
        field.push(cand("fewer-wins", 10, 5, 5));
        let cut = cut(&r, field.clone()).expect("cut");
        assert_eq!(cut.advanced().len(), 24);
        for p in ["t1", "t2", "t3"] {
            let row = cut.row(p).expect("row");
            assert_eq!(
                (row.advanced, row.rank, &row.reason),
                (
                    true,
                    Some(22),
                    &CutReason::TiedAtCut {
                        places: 23,
                        tied: 3
                    }
                )
            );
        }
        let out = cut.row("fewer-wins").expect("row");
        assert_eq!(
            (out.advanced, out.rank, &out.reason),
            (
                false,
                Some(25),
                &CutReason::OutsidePlaces {
                    places: 23,
                    behind: "t3".into(),
                    by: Decider::Tie(TieCriterion::MoreWins)
                }
            )
        );
        // Eight periods of 24 (one tie each) exceed the quota: a surplus, no repechage.
        let q = quota_status(&a, None, 8 * 24, 0).expect("quota");
        assert_eq!((q.short, q.surplus, q.repechage_needed), (0, 8, false));
    }

    #[test]
    fn r_adv_10_ties_not_together_leave_the_cut_undecided() {
        let mut r = rule(None, Some(2), &[TieCriterion::MoreWins]);
        r.ties_advance_together = false;
        let field = [
            cand("a", 10, 5, 5),
            cand("b", 8, 4, 4),
            cand("c", 8, 4, 6),
            cand("d", 8, 4, 7),
        ];
        let cut = cut(&r, field.to_vec()).expect("cut");
        assert_eq!(cut.advanced(), ["a"]);
        assert_eq!(cut.undecided_places, 1);
        assert_eq!(
            cut.row("c").map(|r| &r.reason),
            Some(&CutReason::UndecidedTie {
                places_left: 1,
                tied: 3
            })
        );
    }

    #[test]
    fn r_adv_11_go_2025_open_38_youth_30_per_period_tie_as_r_adv_10() {
        let a = advance("go-2025", "haixuan");
        assert_eq!(a.to, "final");
        let open = a.rule(Some("open")).expect("open");
        let youth = a.rule(Some("youth")).expect("youth");
        assert_eq!((open.top_n, youth.top_n), (Some(38), Some(30)));
        assert_eq!(open.tie_chain, [TieCriterion::MoreWins]);
        assert!(open.ties_advance_together && youth.ties_advance_together);
        assert_eq!(
            (
                a.nominal_advancers(Some("open"), 6),
                a.nominal_advancers(Some("youth"), 6)
            ),
            (Some(228), Some(180))
        );
        assert_eq!(
            (a.final_quota(Some("open")), a.final_quota(Some("youth"))),
            (Some(228), Some(180))
        );
        assert_eq!(a.rule(Some("senior")), None);
        let g = a.groups.iter().find(|g| g.code == "youth").expect("youth");
        assert_eq!(g.events, ["junior", "infant"]);
        // A youth period with 12 ranked players: the whole field advances.
        let field: Vec<Candidate> = (0..12)
            .map(|i| cand(&format!("y{i}"), i64::from(i) * 2 - 4, i, 12))
            .collect();
        let cut = cut(&youth, field.clone()).expect("cut");
        assert_eq!(cut.advanced().len(), 12);
        assert_eq!(
            cut.row("y0").map(|r| &r.reason),
            Some(&CutReason::WholeFieldAdvances {
                field: 12,
                places: 30
            })
        );
    }

    #[test]
    fn r_adv_12_short_quota_needs_a_repechage_that_fills_the_shortfall() {
        let ruwei = advance("go-2015", "ruwei");
        let q = quota_status(&ruwei, None, 351, 12).expect("quota");
        assert_eq!(
            (
                q.quota,
                q.short,
                q.repechage_needed,
                q.repechage_stage.as_deref()
            ),
            (360, 9, true, Some("fuhuo"))
        );
        let fuhuo = advance("go-2015", "fuhuo");
        assert_eq!(fuhuo.to, "final");
        assert_eq!(fuhuo.rule(None), None);
        let r = fuhuo.repechage_rule(q.short).expect("repechage");
        assert_eq!(r.top_n, Some(9));
        let field: Vec<Candidate> = (0..20)
            .map(|i| cand(&format!("r{i:02}"), 40 - i64::from(i) * 2, 20 - i, 20))
            .collect();
        assert_eq!(cut(&r, field.clone()).expect("cut").advanced().len(), 9);
        // Nothing short: a repechage cut with 0 places takes nobody.
        let none = fuhuo.repechage_rule(0).expect("repechage");
        let c = cut(&none, field.clone()).expect("cut");
        assert!(c.advanced().is_empty());
        assert_eq!(c.rows[0].reason, CutReason::NoPlaces);
        // xiangqi-2022 defines no repechage: a shortfall tells the organizer to define one.
        let xq = advance("xiangqi-2022", "ruwei");
        let q = quota_status(&xq, None, 180, 0).expect("quota");
        assert_eq!(
            (q.short, q.repechage_needed, q.repechage_stage),
            (4, true, None)
        );
        // A full quota needs none.
        let q = quota_status(&ruwei, None, 361, 12).expect("quota");
        assert_eq!((q.short, q.surplus, q.repechage_needed), (0, 1, false));
    }

    #[test]
    fn r_fin_1_final_entrants_qualifiers_seeds_and_wildcards() {
        let expect = [
            ("go-2015", "ruwei", 360, 12),
            ("xiangqi-2015", "ruwei", 240, 12),
            ("chess-2015", "ruwei", 120, 12),
            ("xiangqi-2022", "ruwei", 184, 0),
        ];
        for (preset, stage, quota, seeds) in expect {
            let a = advance(preset, stage);
            assert_eq!(
                (a.to.as_str(), a.final_quota(None), a.seeded()),
                ("final", Some(quota), seeds),
                "{preset}"
            );
        }
        // xiangqi-2022: 184 qualifiers + wildcards = 240.
        let xq = advance("xiangqi-2022", "ruwei");
        let q = quota_status(&xq, None, 184, 0).expect("quota");
        assert_eq!(q.wildcard_places, Some(56));
        // Ties at the cut take wildcard places, never below zero.
        assert_eq!(
            quota_status(&xq, None, 190, 0).and_then(|q| q.wildcard_places),
            Some(50)
        );
        assert_eq!(
            quota_status(&xq, None, 250, 0).and_then(|q| q.wildcard_places),
            Some(0)
        );
        // go-2015: the number of wildcards is the committee's; 2 of the 12 seeds absent.
        let go = advance("go-2015", "ruwei");
        let q = quota_status(&go, None, 360, 10).expect("quota");
        assert_eq!(
            (q.wildcard_places, q.seeds_short, q.repechage_needed),
            (None, 2, false)
        );
    }

    #[test]
    fn reading_every_cut_excluded_players_are_unranked() {
        let r = rule(Some(4), None, &[]);
        let mut cheat = cand("cheat", 30, 15, 15);
        cheat.excluded = true;
        let cut = cut(&r, vec![cheat, cand("a", 4, 2, 2)]).expect("cut");
        assert_eq!(cut.advanced(), ["a"]);
        assert_eq!(
            cut.row("cheat").map(|r| (&r.reason, r.rank)),
            Some((&CutReason::Excluded, None))
        );
    }

    #[test]
    fn reading_every_cut_duplicate_players_are_an_error() {
        let r = rule(Some(4), None, &[]);
        assert_eq!(
            cut(&r, vec![cand("a", 4, 2, 2), cand("a", 6, 3, 3)]),
            Err(CutError::DuplicatePlayer("a".into()))
        );
    }

    #[test]
    fn reading_every_cut_ranks_are_competition_ranks_over_the_whole_chain() {
        let r = rule(None, Some(10), &[TieCriterion::MoreWins]);
        let cut = cut(
            &r,
            vec![
                cand("a", 10, 5, 5),
                cand("b", 10, 5, 6),
                cand("c", 10, 4, 6),
                cand("d", 8, 4, 4),
            ],
        )
        .expect("cut");
        let ranks: Vec<(String, Option<u32>)> = cut
            .rows
            .iter()
            .map(|r| (r.candidate.player.to_string(), r.rank))
            .collect();
        assert_eq!(
            ranks,
            [
                ("a".to_owned(), Some(1)),
                ("b".to_owned(), Some(1)),
                ("c".to_owned(), Some(3)),
                ("d".to_owned(), Some(4))
            ]
        );
    }

    #[test]
    fn check_advance_reports_every_problem_with_its_path() {
        let text = r#"
            to = ""
            by = "knockout"
            top_n = 5
            tie_chain = ["more_wins"]
            final_quota = 0
            repechage = "fuhuo"
            [[seeds]]
            count = -1
            source = ""
        "#;
        let file: AdvanceFile = toml::from_str(text).expect("parses");
        let mut c = Checker::new();
        assert_eq!(check_advance(&file, "stages[2].advance", &mut c), None);
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            rendered,
            [
                "stages[2].advance.to: must not be empty",
                "stages[2].advance.top_n: only for by = \"points\" or \"repechage\" (a knockout's winners advance)",
                "stages[2].advance.tie_chain: only for by = \"points\" or \"repechage\" (a knockout's winners advance)",
                "stages[2].advance.final_quota: must be > 0",
                "stages[2].advance.seeds[0].count: must be > 0",
                "stages[2].advance.seeds[0].source: must not be empty",
            ]
        );

        let text = r#"
            to = "final"
            by = "pointz"
            top_n = 0
            min_counted_games = 0
            tie_chain = ["more_wins", "fewer_losses", "more_wins", "earlier_reached_line"]
            final_quota = 10
            final_entrants = 11
            [[seeds]]
            count = 2
            source = "x"
            [[groups]]
            code = "g"
            events = []
            [[groups]]
            code = "g"
            events = ["a", "a"]
            top_n = -3
        "#;
        let file: AdvanceFile = toml::from_str(text).expect("parses");
        let mut c = Checker::new();
        assert_eq!(check_advance(&file, "stages[0].advance", &mut c), None);
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            rendered,
            [
                "stages[0].advance.by: \"pointz\" is not one of points, knockout, repechage",
                "stages[0].advance.top_n: must be > 0",
                "stages[0].advance.min_counted_games: must be > 0",
                "stages[0].advance.tie_chain[1]: \"fewer_losses\" is not one of more_wins, lower_average_game_time, earlier_reached_line",
                "stages[0].advance.tie_chain[2]: \"more_wins\" appears more than once",
                "stages[0].advance.tie_chain: earlier_reached_line needs min_points (the line to reach)",
                "stages[0].advance.final_entrants: must be at least final_quota plus the direct seeds",
                "stages[0].advance.groups[0].events: must list at least one event",
                "stages[0].advance.groups[1].code: \"g\" appears more than once",
                "stages[0].advance.groups[1].events[1]: \"a\" is already in a group",
                "stages[0].advance.groups[1].top_n: must be > 0",
            ]
        );
    }

    #[test]
    fn check_advance_points_stage_needs_a_line_or_places_and_repechage_takes_no_top_n() {
        let file: AdvanceFile = toml::from_str("to = \"x\"\nby = \"points\"").expect("parses");
        let mut c = Checker::new();
        assert_eq!(check_advance(&file, "s", &mut c), None);
        assert_eq!(
            c.0[0].to_string(),
            "s.top_n: a points stage needs min_points, top_n or both (otherwise everyone advances)"
        );
        let file: AdvanceFile =
            toml::from_str("to = \"final\"\nby = \"repechage\"\ntop_n = 3").expect("parses");
        let mut c = Checker::new();
        assert_eq!(check_advance(&file, "s", &mut c), None);
        assert_eq!(
            c.0[0].to_string(),
            "s.top_n: not for by = \"repechage\": its places are the final quota's shortfall (R-ADV-12)"
        );
        assert!(toml::from_str::<AdvanceFile>("to = \"x\"\nby = \"points\"\ntopn = 3").is_err());
    }

    // ---- properties ----

    fn candidate_strategy() -> impl Strategy<Value = Vec<Candidate>> {
        prop::collection::vec(
            (
                -4i64..12,
                0u32..4,
                0u32..6,
                0u64..4,
                prop::option::of(0u32..3),
                prop::bool::weighted(0.05),
            ),
            0..30,
        )
        .prop_map(|rows| {
            rows.into_iter()
                .enumerate()
                .map(
                    |(i, (points, wins, games, avg, reached, excluded))| Candidate {
                        player: format!("p{i:02}").into(),
                        points: points * 2,
                        wins,
                        counted_games: games,
                        total_game_secs: avg * 300 * u64::from(games),
                        reached_line_at: reached.map(at),
                        excluded,
                    },
                )
                .collect()
        })
    }

    fn rule_strategy() -> impl Strategy<Value = PointsRule> {
        (
            prop::option::of(-2i64..10),
            prop::option::of(0u32..12),
            1u32..3,
            prop::sample::subsequence(TieCriterion::ALL.to_vec(), 0..=3).prop_shuffle(),
            any::<bool>(),
        )
            .prop_map(
                |(min_points, top_n, min_counted_games, tie_chain, together)| PointsRule {
                    min_points,
                    top_n,
                    min_counted_games,
                    tie_chain,
                    ties_advance_together: together,
                },
            )
    }

    proptest! {
        #[test]
        fn r_adv_10_a_cut_never_splits_a_full_tie(r in rule_strategy(), field in candidate_strategy()) {
            let r = PointsRule { ties_advance_together: true, ..r };
            let c = cut(&r, field.clone()).expect("cut");
            for a in c.rows.iter().filter(|x| x.rank.is_some()) {
                for b in c.rows.iter().filter(|x| x.rank.is_some()) {
                    if compare_chain(&r, &a.candidate, &b.candidate) == Ordering::Equal {
                        prop_assert_eq!(a.advanced, b.advanced, "{} {}", a.candidate.player, b.candidate.player);
                    }
                }
            }
            prop_assert_eq!(c.undecided_places, 0);
        }

        #[test]
        fn reading_every_cut_advanced_players_rank_at_or_above_every_other_ranked_player(
            r in rule_strategy(), field in candidate_strategy()
        ) {
            let c = cut(&r, field.clone()).expect("cut");
            let worst_in = c.rows.iter().filter(|x| x.advanced).filter_map(|x| x.rank).max();
            let best_out = c.rows.iter().filter(|x| !x.advanced).filter_map(|x| x.rank).min();
            if let (Some(w), Some(b)) = (worst_in, best_out) {
                prop_assert!(w <= b);
                if r.ties_advance_together {
                    prop_assert!(w < b);
                }
            }
            prop_assert!(c.rows.iter().all(|x| x.rank.is_some() || !x.advanced));
            if let (Some(n), true) = (r.top_n, r.ties_advance_together) {
                // More than N only through a full tie at the cut.
                let advanced = c.advanced().len();
                let n = n as usize;
                let tied = c.rows.iter().any(|x| matches!(x.reason, CutReason::TiedAtCut { .. }));
                prop_assert!(advanced <= n || tied);
            }
        }

        #[test]
        fn reading_every_cut_orders_the_ranked_by_chain_then_player_id_bytes(
            r in rule_strategy(),
            field in candidate_strategy(),
            ids in prop::collection::vec("(pl_0123456789abcdef)?[ab\\x00]{0,20}", 30),
        ) {
            // Ids sharing long prefixes, of any length, tied beyond the 16 bytes the sort keys
            // hold: the order is still the chain, then the ids' bytes.
            let mut seen = HashSet::new();
            let field: Vec<Candidate> = field
                .into_iter()
                .zip(ids)
                .filter(|(_, id)| seen.insert(id.clone()))
                .map(|(c, player)| Candidate { player: player.into(), ..c })
                .collect();
            let c = cut(&r, field.clone()).expect("cut");
            let needed = r.min_counted_games.max(1);
            let mut expected: Vec<Candidate> = field
                .into_iter()
                .filter(|c| !c.excluded && c.counted_games >= needed)
                .collect();
            expected.sort_by(|a, b| compare_chain(&r, a, b).then_with(|| a.player.cmp(&b.player)));
            let got: Vec<&Candidate> = c.rows.iter().filter(|x| x.rank.is_some()).map(|x| &x.candidate).collect();
            prop_assert_eq!(got, expected.iter().collect::<Vec<_>>());
        }

        #[test]
        fn reading_every_cut_is_independent_of_input_order(
            r in rule_strategy(),
            (field, shuffled) in candidate_strategy().prop_flat_map(|f| (Just(f.clone()), Just(f).prop_shuffle())),
        ) {
            prop_assert_eq!(cut(&r, field.clone()).expect("cut"), cut(&r, shuffled.clone()).expect("cut"));
        }
    }
}
