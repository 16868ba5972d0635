//! Grades and titles earned by results (等级申报: R-GRD-1, R-GRD-2, R-GRD-3, R-GRD-5, R-GRD-7) and the
//! certificate records the federation pulls (R-GRD-6).
//!
//! A stage's grade table is preset data ([`StageGrades`], the `[stages.grades]` sub-table): bands by
//! points (海选, 晋级 in Xiangqi), by place in the period's or stage's ranking (晋级 in Go, 入围 in
//! Chess, the final), by knockout outcome (入围 in Go and Xiangqi), and by place in each pairs event.
//! [`judge_grade`] turns one player's stage result into a [`Grade`] or the reason there is none;
//! [`CertificateRecord`] is what the federation receives, with a content hash that tells a changed
//! record from an unchanged one.
//!
//! Reading (R-GRD-7, "eliminated"): a knockout table grades players knocked out in a round ("out in
//! round 2 → 1 kyu"), so "eliminated" cannot mean knocked out. It means removed from the stage by a
//! rule or a decision: the 海选 escape limit (R-ONL-3), disqualification (R-PUB-2, R-DIS-1). Losing a
//! knockout game by one's own escape (R-ADV-3) is an ordinary exit in that round.
//!
//! Reading (R-ONL-7): the points and counted games given for a stage with resets are those of the
//! player's current score line; earlier lines earn nothing.

use chrono::NaiveDate;
use serde::Deserialize;

use crate::lottery::{hex, sha256};
use crate::preset::{Checker, Game};

// ---------------------------------------------------------------------------------------------
// Domain types
// ---------------------------------------------------------------------------------------------

/// A grade or title (级/段, n级棋士, 地方大师, 候补棋协大师) as it is written on a certificate.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Grade {
    /// The Chinese name (`9级`, `6级棋士`, `地方大师`).
    pub zh: String,
    /// The English name (`9 kyu`, `6th-grade`, `local master`).
    pub en: String,
    /// Position in the game's ladder; higher is better. The presets use −n for n kyu (n级) and for
    /// the n-th grade (n级棋士), +n for n dan (n段) and +1 for the master titles.
    pub level: i32,
}

/// 积分: players with at least `min_points` (and less than the next band's `min_points`) get `grade`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointsBand {
    pub min_points: i32,
    pub grade: Grade,
}

/// 名次: places `from..=to` (`to = None`: and every place after) get `grade`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaceBand {
    pub from: u32,
    pub to: Option<u32>,
    pub grade: Grade,
}

impl PlaceBand {
    pub fn contains(&self, place: u32) -> bool {
        place >= self.from && self.to.is_none_or(|to| place <= to)
    }
}

/// How a player left a knockout stage (入围赛). Ordered from worst to best: out in round 1 < out in
/// round 2 < … < won the last round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KnockoutOutcome {
    /// 第N轮淘汰: knocked out in this round (1-based), by a loss or by one's own escape.
    OutInRound(u32),
    /// Won the stage's last round (第三轮获胜 / 胜者入围): goes on to the final. A bye in a round counts
    /// as passing it.
    WonLastRound,
}

/// A knockout outcome and its grade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnockoutBand {
    pub outcome: KnockoutOutcome,
    pub grade: Grade,
}

/// The grade table of one pairs event for fields of at least `min_pairs` pairs (R-GRD-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairsTable {
    /// The pairs event's code in the preset (`men-pairs`, `parent-child-pairs`).
    pub event: String,
    /// The table applies when the event started with at least this many pairs.
    pub min_pairs: u32,
    pub places: Vec<PlaceBand>,
}

/// The individual grade table of a stage: one kind per stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GradeTable {
    /// The stage grades no individual result (a final that only grades its pairs events).
    None,
    /// Bands by points, lowest threshold first.
    Points(Vec<PointsBand>),
    /// Bands by place, place 1 first, contiguous.
    Places(Vec<PlaceBand>),
    /// Bands by knockout outcome, worst first; the graded outcomes are the best ones.
    Knockout(Vec<KnockoutBand>),
}

/// A stage's grades: the validated `[stages.grades]` sub-table.
///
/// Invariants (checked by [`check_stage_grades`]): points thresholds strictly increase with levels
/// never decreasing; place bands start at place 1, are contiguous, only the last is open-ended, and
/// levels never increase with the place; knockout bands are a run of rounds up to the won-the-last-round
/// band, levels never decreasing; a grade name has one English name and one level throughout.
/// So a better result never earns a lower grade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StageGrades {
    /// 责任局: the fewest counted games (R-ONL-9) a player's individual result needs to earn a grade
    /// (R-ONL-10, R-GRD-7). 0 means no minimum beyond what the table implies. Pairs results are not
    /// subject to it.
    pub min_counted_games: u32,
    pub table: GradeTable,
    /// Pairs tables, any number per pairs event (one per field-size step, R-GRD-5).
    pub pairs: Vec<PairsTable>,
}

/// A player's standing in the stage, as far as certificates are concerned (R-GRD-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultStatus {
    /// The result stands.
    Standing,
    /// Removed from the stage by a rule or a decision (the 海选 escape limit, disqualification).
    Eliminated,
    /// Results cancelled (verified cheating, R-ONL-8; a verified report, R-DIS-1).
    Cancelled,
}

/// A place in a ranking, possibly shared: `best..=worst` (a single place has `best == worst`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placing {
    pub best: u32,
    pub worst: u32,
}

impl Placing {
    pub fn single(place: u32) -> Self {
        Placing {
            best: place,
            worst: place,
        }
    }
    /// Players tied over places `best..=worst` (e.g. two players sharing places 20 and 21).
    pub fn shared(best: u32, worst: u32) -> Self {
        Placing { best, worst }
    }
}

/// What a player achieved in a stage.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StageOutcome {
    /// Points of the player's current score line in a points stage (海选, 晋级 in Xiangqi).
    Points(i32),
    /// Place in the period's ranking (晋级), in the stage's ranking (chess 入围) or in the final.
    Place(Placing),
    /// Outcome in a knockout stage (入围 in Go and Xiangqi).
    Knockout(KnockoutOutcome),
    /// The pair's place in a pairs event that started with `pairs_at_start` pairs; each partner
    /// earns the same grade.
    PairsPlace {
        event: String,
        placing: Placing,
        pairs_at_start: u32,
    },
}

/// One player's result in one stage (and period), as graded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StageResult {
    pub status: ResultStatus,
    /// Counted games (责任局) of the result: wins + losses + draws + escapes, void games excluded.
    pub counted_games: u32,
    pub outcome: StageOutcome,
}

/// Why a result earns no grade. Each variant is a distinct reason a player can be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoGrade {
    #[error("the player was eliminated from the stage (R-GRD-7)")]
    Eliminated,
    #[error("the player's results were cancelled (R-GRD-7)")]
    Cancelled,
    #[error("{counted} counted games, a certificate needs at least {required}")]
    TooFewGames { counted: u32, required: u32 },
    #[error("the pairs event started with {pairs} pairs; its grades need at least {required}")]
    PairsFieldTooSmall { pairs: u32, required: u32 },
    #[error("the stage grades no result of this kind")]
    NotGradedHere,
    #[error("the result is below every band of the stage's grade table")]
    BelowEveryBand,
    #[error("place {0} is not a valid place")]
    InvalidPlace(u32),
}

/// The grade a stage result earns, or why there is none.
///
/// * No grade for an eliminated player or one whose results were cancelled (R-GRD-7).
/// * An individual result needs the stage's minimum counted games (R-ONL-10, R-GRD-7).
/// * Points: the band with the highest `min_points` not above the points.
/// * Places: the band containing the placing's *best* place. Reading (R-GRD-7): "a shared place
///   takes the better band": players tied over places 20-21 both get the band of place 20.
/// * Knockout: the band of the outcome; an outcome without a band earns nothing (go-2015: out in
///   round 1 → "——").
/// * Pairs (R-GRD-5): Reading: the tables apply when the event started with at least the table's
///   `min_pairs` (8 in every official preset: an event starts with 8 pairs, R-PAIR-1). A preset may
///   scale a table down by adding, for the same event, tables for larger fields: the table with the
///   largest `min_pairs` not above the number of pairs at the start applies.
pub fn judge_grade(config: &StageGrades, result: &StageResult) -> Result<Grade, NoGrade> {
    match result.status {
        ResultStatus::Standing => {}
        ResultStatus::Eliminated => return Err(NoGrade::Eliminated),
        ResultStatus::Cancelled => return Err(NoGrade::Cancelled),
    }
    if let StageOutcome::PairsPlace {
        event,
        placing,
        pairs_at_start,
    } = &result.outcome
    {
        return pairs_grade(config, event, *placing, *pairs_at_start);
    }
    if result.counted_games < config.min_counted_games {
        return Err(NoGrade::TooFewGames {
            counted: result.counted_games,
            required: config.min_counted_games,
        });
    }
    let band = match (&config.table, &result.outcome) {
        (GradeTable::Points(bands), StageOutcome::Points(points)) => bands
            .iter()
            .rev()
            .find(|b| *points >= b.min_points)
            .map(|b| &b.grade),
        (GradeTable::Places(bands), StageOutcome::Place(placing)) => {
            return place_band(bands, *placing);
        }
        (GradeTable::Knockout(bands), StageOutcome::Knockout(outcome)) => bands
            .iter()
            .find(|b| b.outcome == *outcome)
            .map(|b| &b.grade),
        _ => return Err(NoGrade::NotGradedHere),
    };
    band.cloned().ok_or(NoGrade::BelowEveryBand)
}

/// [`judge_grade`] without the reason.
pub fn grade_for(config: &StageGrades, result: &StageResult) -> Option<Grade> {
    judge_grade(config, result).ok()
}

fn place_band(bands: &[PlaceBand], placing: Placing) -> Result<Grade, NoGrade> {
    if placing.best == 0 || placing.worst < placing.best {
        return Err(NoGrade::InvalidPlace(placing.best));
    }
    bands
        .iter()
        .find(|b| b.contains(placing.best))
        .map(|b| b.grade.clone())
        .ok_or(NoGrade::BelowEveryBand)
}

fn pairs_grade(
    config: &StageGrades,
    event: &str,
    placing: Placing,
    pairs_at_start: u32,
) -> Result<Grade, NoGrade> {
    let tables: Vec<&PairsTable> = config.pairs.iter().filter(|t| t.event == event).collect();
    let Some(smallest) = tables.iter().map(|t| t.min_pairs).min() else {
        return Err(NoGrade::NotGradedHere);
    };
    let table = tables
        .iter()
        .filter(|t| t.min_pairs <= pairs_at_start)
        .max_by_key(|t| t.min_pairs)
        .ok_or(NoGrade::PairsFieldTooSmall {
            pairs: pairs_at_start,
            required: smallest,
        })?;
    place_band(&table.places, placing)
}

// ---------------------------------------------------------------------------------------------
// Certificate records (R-GRD-6)
// ---------------------------------------------------------------------------------------------

/// The result a certificate rests on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CertificateBasis {
    /// Points of the current score line and its counted games.
    Points { points: i32, counted_games: u32 },
    /// A place (shared over `best..=worst`) in a ranking, with the counted games.
    Place {
        placing: Placing,
        counted_games: u32,
    },
    /// A knockout outcome.
    Knockout(KnockoutOutcome),
    /// A pair's place in a pairs event and the number of pairs it started with.
    PairsPlace {
        placing: Placing,
        pairs_at_start: u32,
    },
    /// A go-2025 dan application (R-GRD-4): the final place, the place among amateurs, and the
    /// amateur place the award was for (different when it rolled down).
    DanApplication {
        place: u32,
        amateur_place: u32,
        nominal_place: u32,
    },
    /// The champion's option to apply for professional 1 dan instead (R-GRD-4), claimable for
    /// `claim_within_months` months from the day of the title.
    ProfessionalOption {
        place: u32,
        claim_within_months: u32,
    },
}

impl CertificateBasis {
    /// The basis of a graded stage result.
    pub fn of(result: &StageResult) -> Self {
        match &result.outcome {
            StageOutcome::Points(points) => CertificateBasis::Points {
                points: *points,
                counted_games: result.counted_games,
            },
            StageOutcome::Place(placing) => CertificateBasis::Place {
                placing: *placing,
                counted_games: result.counted_games,
            },
            StageOutcome::Knockout(outcome) => CertificateBasis::Knockout(*outcome),
            StageOutcome::PairsPlace {
                placing,
                pairs_at_start,
                ..
            } => CertificateBasis::PairsPlace {
                placing: *placing,
                pairs_at_start: *pairs_at_start,
            },
        }
    }

    /// The record kind, part of a record's identity: `grade`, `dan-application` or
    /// `professional-option`.
    pub fn kind(&self) -> &'static str {
        match self {
            CertificateBasis::Points { .. }
            | CertificateBasis::Place { .. }
            | CertificateBasis::Knockout(_)
            | CertificateBasis::PairsPlace { .. } => "grade",
            CertificateBasis::DanApplication { .. } => "dan-application",
            CertificateBasis::ProfessionalOption { .. } => "professional-option",
        }
    }
}

/// Whether a record is in force. A record is never deleted: when results are cancelled after it
/// was issued, it is revoked, and the federation sees that as a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CertificateStatus {
    Issued,
    Revoked,
}

/// Where and when a certificate's result was earned; shared by every record of a stage.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CertificateContext {
    /// The championship: the preset name (`go-2015`).
    pub championship: String,
    pub game: Game,
    /// The event's code in the preset (`men-individual`, `mixed-pairs`).
    pub event: String,
    /// The stage's code in the preset (`haixuan`, `final`).
    pub stage: String,
    /// The period (期) of an online stage, 1-based; `None` for a stage without periods.
    pub period: Option<u32>,
    /// The China-time date the result became final (the period's or stage's last day).
    pub result_date: NaiveDate,
}

/// The identity of a certificate record: at most one record per key. A feed keys its versions on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CertificateKey {
    pub championship: String,
    pub event: String,
    pub stage: String,
    pub period: Option<u32>,
    pub player: String,
    pub kind: &'static str,
}

/// What the federation pulls for one award (R-GRD-6): the player, the game, the grade or title, the
/// stage and the result it rests on, the championship and the date.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CertificateRecord {
    pub context: CertificateContext,
    pub player: String,
    pub grade: Grade,
    pub basis: CertificateBasis,
    pub status: CertificateStatus,
}

/// The version tag at the start of the hashed encoding; a new encoding gets a new tag.
const RECORD_ENCODING: &str = "qiwang.certificate.v1";

impl CertificateRecord {
    /// The record's identity.
    pub fn key(&self) -> CertificateKey {
        CertificateKey {
            championship: self.context.championship.clone(),
            event: self.context.event.clone(),
            stage: self.context.stage.clone(),
            period: self.context.period,
            player: self.player.clone(),
            kind: self.basis.kind(),
        }
    }

    /// The canonical byte encoding the content hash is taken over (version 1). Fields, in this
    /// order, each encoded as:
    ///
    /// * a string: its UTF-8 length as 4 big-endian bytes, then the bytes;
    /// * an unsigned or signed 32-bit integer: 4 big-endian bytes (two's complement);
    /// * an optional value: byte `0` if absent, byte `1` then the value if present;
    /// * a date: the string `YYYY-MM-DD`; the game: its code string (`go`, `xiangqi`, `chess`);
    /// * an enum: its tag string, then its fields.
    ///
    /// Order: the tag `qiwang.certificate.v1`, championship, game, event, stage, period, player,
    /// grade zh, grade en, grade level, basis, result date, status (`issued` | `revoked`). Basis:
    /// `points` points counted_games | `place` best worst counted_games | `knockout` (`out` round |
    /// `won`) | `pairs` best worst pairs_at_start | `dan` place amateur_place nominal_place |
    /// `professional` place claim_within_months.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(256);
        let c = &self.context;
        put_str(&mut out, RECORD_ENCODING);
        put_str(&mut out, &c.championship);
        put_str(&mut out, c.game.code());
        put_str(&mut out, &c.event);
        put_str(&mut out, &c.stage);
        match c.period {
            None => out.push(0),
            Some(p) => {
                out.push(1);
                out.extend_from_slice(&p.to_be_bytes());
            }
        }
        put_str(&mut out, &self.player);
        put_str(&mut out, &self.grade.zh);
        put_str(&mut out, &self.grade.en);
        out.extend_from_slice(&self.grade.level.to_be_bytes());
        let put_u32s = |out: &mut Vec<u8>, tag: &str, values: &[u32]| {
            put_str(out, tag);
            for v in values {
                out.extend_from_slice(&v.to_be_bytes());
            }
        };
        match &self.basis {
            CertificateBasis::Points {
                points,
                counted_games,
            } => {
                put_str(&mut out, "points");
                out.extend_from_slice(&points.to_be_bytes());
                out.extend_from_slice(&counted_games.to_be_bytes());
            }
            CertificateBasis::Place {
                placing,
                counted_games,
            } => put_u32s(
                &mut out,
                "place",
                &[placing.best, placing.worst, *counted_games],
            ),
            CertificateBasis::Knockout(KnockoutOutcome::OutInRound(round)) => {
                put_str(&mut out, "knockout");
                put_u32s(&mut out, "out", &[*round]);
            }
            CertificateBasis::Knockout(KnockoutOutcome::WonLastRound) => {
                put_str(&mut out, "knockout");
                put_str(&mut out, "won");
            }
            CertificateBasis::PairsPlace {
                placing,
                pairs_at_start,
            } => put_u32s(
                &mut out,
                "pairs",
                &[placing.best, placing.worst, *pairs_at_start],
            ),
            CertificateBasis::DanApplication {
                place,
                amateur_place,
                nominal_place,
            } => put_u32s(&mut out, "dan", &[*place, *amateur_place, *nominal_place]),
            CertificateBasis::ProfessionalOption {
                place,
                claim_within_months,
            } => put_u32s(&mut out, "professional", &[*place, *claim_within_months]),
        }
        put_str(&mut out, &c.result_date.format("%Y-%m-%d").to_string());
        put_str(
            &mut out,
            match self.status {
                CertificateStatus::Issued => "issued",
                CertificateStatus::Revoked => "revoked",
            },
        );
        out
    }

    /// The record's content hash: lowercase hex SHA-256 of [`Self::canonical_bytes`]. Equal records
    /// have equal hashes on every platform and build; a change of any field changes it. A feed
    /// that stores the hash it last sent can send only the records whose hash differs (R-GRD-6).
    pub fn content_hash(&self) -> String {
        hex(&sha256(&self.canonical_bytes()))
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    // A string longer than 4 GiB cannot occur in a record; saturate rather than panic.
    let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The certificate record a stage result earns, if any (R-GRD-6, R-GRD-7).
pub fn certificate_for(
    config: &StageGrades,
    context: &CertificateContext,
    player: &str,
    result: &StageResult,
) -> Option<CertificateRecord> {
    let grade = grade_for(config, result)?;
    Some(CertificateRecord {
        context: context.clone(),
        player: player.to_owned(),
        grade,
        basis: CertificateBasis::of(result),
        status: CertificateStatus::Issued,
    })
}

// ---------------------------------------------------------------------------------------------
// The preset section `[stages.grades]`
// ---------------------------------------------------------------------------------------------

/// `[stages.grades]` as written in a preset file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StageGradesFile {
    #[serde(default)]
    pub(crate) min_counted_games: i64,
    pub(crate) points: Option<Vec<PointsBandFile>>,
    pub(crate) places: Option<Vec<PlaceBandFile>>,
    pub(crate) knockout: Option<Vec<KnockoutBandFile>>,
    #[serde(default)]
    pub(crate) pairs: Vec<PairsTableFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PointsBandFile {
    pub(crate) min_points: i64,
    pub(crate) zh: String,
    pub(crate) en: String,
    pub(crate) level: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PlaceBandFile {
    pub(crate) from: i64,
    pub(crate) to: Option<i64>,
    pub(crate) zh: String,
    pub(crate) en: String,
    pub(crate) level: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KnockoutBandFile {
    pub(crate) out_in_round: Option<i64>,
    #[serde(default)]
    pub(crate) won_last_round: bool,
    pub(crate) zh: String,
    pub(crate) en: String,
    pub(crate) level: i64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PairsTableFile {
    pub(crate) event: String,
    pub(crate) min_pairs: i64,
    pub(crate) places: Vec<PlaceBandFile>,
}

/// Levels are small integers; this bound only keeps nonsense out.
const LEVEL_BOUND: i64 = 100;

fn check_grade(path: &str, zh: &str, en: &str, level: i64, c: &mut Checker) -> Option<Grade> {
    c.non_empty(&format!("{path}.zh"), zh);
    c.non_empty(&format!("{path}.en"), en);
    let level_ok = (-LEVEL_BOUND..=LEVEL_BOUND).contains(&level);
    if !level_ok {
        c.err(
            format!("{path}.level"),
            format!("must be between -{LEVEL_BOUND} and {LEVEL_BOUND}"),
        );
    }
    let level = i32::try_from(level).ok().filter(|_| level_ok)?;
    (!zh.trim().is_empty() && !en.trim().is_empty()).then(|| Grade {
        zh: zh.to_owned(),
        en: en.to_owned(),
        level,
    })
}

/// Checks a list of place bands (a final's table or a pairs table) at `path`.
fn check_place_bands(path: &str, bands: &[PlaceBandFile], c: &mut Checker) -> Vec<PlaceBand> {
    let mut out = Vec::with_capacity(bands.len());
    let mut next_from: i64 = 1;
    let mut open_ended_at: Option<usize> = None;
    let mut prev_level: Option<i64> = None;
    for (i, b) in bands.iter().enumerate() {
        let p = format!("{path}[{i}]");
        if let Some(j) = open_ended_at {
            c.err(
                format!("{p}.from"),
                format!("no band may follow the open-ended band {path}[{j}]"),
            );
        }
        if open_ended_at.is_none() && b.from != next_from {
            c.err(
                format!("{p}.from"),
                format!("must be {next_from} (bands start at place 1 and leave no gap)"),
            );
        }
        match b.to {
            Some(to) if to < b.from => c.err(format!("{p}.to"), "must not be below from"),
            Some(to) => next_from = to.saturating_add(1),
            None => open_ended_at = Some(i),
        }
        if let Some(prev) = prev_level
            && b.level > prev
        {
            c.err(
                format!("{p}.level"),
                format!("must not be higher than the better places' level {prev}"),
            );
        }
        prev_level = Some(b.level);
        let grade = check_grade(&p, &b.zh, &b.en, b.level, c);
        let from = u32::try_from(b.from).ok().filter(|f| *f >= 1);
        let to = match b.to {
            None => Some(None),
            Some(t) => u32::try_from(t).ok().map(Some),
        };
        if to.is_none() {
            c.err(format!("{p}.to"), "is out of range");
        }
        if let (Some(grade), Some(from), Some(to)) = (grade, from, to) {
            out.push(PlaceBand { from, to, grade });
        }
    }
    out
}

/// Every grade name must mean one grade: the same `zh` always with the same `en` and `level`, and
/// the same `en` always with the same `zh`.
fn check_grade_names(entries: &[(String, &str, &str, i64)], c: &mut Checker) {
    for (i, (path, zh, en, level)) in entries.iter().enumerate() {
        if let Some((first, _, fen, flevel)) = entries[..i]
            .iter()
            .find(|(_, z, _, _)| z == zh)
            .filter(|(_, _, e, l)| e != en || l != level)
        {
            c.err(
                format!("{path}.zh"),
                format!(
                    "{zh:?} is {fen:?} at level {flevel} in {first}; a grade has one name and level"
                ),
            );
        } else if let Some((first, fzh, _, _)) =
            entries[..i].iter().find(|(_, z, e, _)| e == en && z != zh)
        {
            c.err(
                format!("{path}.en"),
                format!("{en:?} already names {fzh:?} in {first}"),
            );
        }
    }
}

/// Validates a `[stages.grades]` sub-table; `path` is the caller's prefix (`stages[2].grades`).
/// Reports every problem; returns the domain value only if there is none.
pub(crate) fn check_stage_grades(
    file: &StageGradesFile,
    path: &str,
    c: &mut Checker,
) -> Option<StageGrades> {
    let before = c.0.len();
    let mut names: Vec<(String, &str, &str, i64)> = Vec::new();
    let min_counted_games = u32::try_from(file.min_counted_games).ok();
    if min_counted_games.is_none() {
        c.err(format!("{path}.min_counted_games"), "must be 0 or more");
    }
    let kinds = [
        file.points.is_some(),
        file.places.is_some(),
        file.knockout.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() > 1 {
        c.err(
            path.to_owned(),
            "give at most one of points, places, knockout (a stage grades one kind of result)",
        );
    }
    if !kinds.iter().any(|k| *k) && file.pairs.is_empty() {
        c.err(
            path.to_owned(),
            "must have points, places, knockout or pairs",
        );
    }
    let mut table = GradeTable::None;
    if let Some(bands) = &file.points {
        let mut out = Vec::with_capacity(bands.len());
        for (i, b) in bands.iter().enumerate() {
            let p = format!("{path}.points[{i}]");
            if i > 0 {
                let prev = &bands[i - 1];
                if b.min_points <= prev.min_points {
                    c.err(
                        format!("{p}.min_points"),
                        format!("must be above the previous band's {}", prev.min_points),
                    );
                }
                if b.level < prev.level {
                    c.err(
                        format!("{p}.level"),
                        format!("must not be below the previous band's {}", prev.level),
                    );
                }
            }
            let min_points = i32::try_from(b.min_points).ok();
            if min_points.is_none() {
                c.err(format!("{p}.min_points"), "is out of range");
            }
            names.push((p.clone(), &b.zh, &b.en, b.level));
            if let (Some(grade), Some(min_points)) =
                (check_grade(&p, &b.zh, &b.en, b.level, c), min_points)
            {
                out.push(PointsBand { min_points, grade });
            }
        }
        table = GradeTable::Points(out);
    }
    if let Some(bands) = &file.places {
        let p = format!("{path}.places");
        for (i, b) in bands.iter().enumerate() {
            names.push((format!("{p}[{i}]"), &b.zh, &b.en, b.level));
        }
        table = GradeTable::Places(check_place_bands(&p, bands, c));
    }
    if let Some(bands) = &file.knockout {
        let mut out = Vec::with_capacity(bands.len());
        let mut prev: Option<(KnockoutOutcome, i64)> = None;
        for (i, b) in bands.iter().enumerate() {
            let p = format!("{path}.knockout[{i}]");
            let outcome = match (b.out_in_round, b.won_last_round) {
                (Some(_), true) | (None, false) => {
                    c.err(
                        p.clone(),
                        "give exactly one of out_in_round or won_last_round = true",
                    );
                    None
                }
                (Some(r), false) => match u32::try_from(r).ok().filter(|r| *r >= 1) {
                    Some(r) => Some(KnockoutOutcome::OutInRound(r)),
                    None => {
                        c.err(format!("{p}.out_in_round"), "must be a round (1 or more)");
                        None
                    }
                },
                (None, true) => Some(KnockoutOutcome::WonLastRound),
            };
            if let (Some(o), Some((po, plevel))) = (outcome, prev) {
                let follows = match (po, o) {
                    (KnockoutOutcome::OutInRound(a), KnockoutOutcome::OutInRound(b)) => {
                        b == a.saturating_add(1)
                    }
                    (KnockoutOutcome::OutInRound(_), KnockoutOutcome::WonLastRound) => true,
                    (KnockoutOutcome::WonLastRound, _) => false,
                };
                if !follows {
                    c.err(
                        p.clone(),
                        "bands must run round by round (out in round r, r+1, …) and end with \
                         won_last_round",
                    );
                }
                if b.level < plevel {
                    c.err(
                        format!("{p}.level"),
                        format!("must not be below the previous band's {plevel}"),
                    );
                }
            }
            if i + 1 == bands.len() && !b.won_last_round {
                c.err(
                    p.clone(),
                    "the last band must be won_last_round (a better outcome never earns less)",
                );
            }
            if let Some(o) = outcome {
                prev = Some((o, b.level));
            }
            names.push((p.clone(), &b.zh, &b.en, b.level));
            if let (Some(grade), Some(outcome)) =
                (check_grade(&p, &b.zh, &b.en, b.level, c), outcome)
            {
                out.push(KnockoutBand { outcome, grade });
            }
        }
        table = GradeTable::Knockout(out);
    }
    let mut pairs = Vec::with_capacity(file.pairs.len());
    for (i, t) in file.pairs.iter().enumerate() {
        let p = format!("{path}.pairs[{i}]");
        c.non_empty(&format!("{p}.event"), &t.event);
        let min_pairs = u32::try_from(t.min_pairs).ok().filter(|m| *m >= 1);
        if min_pairs.is_none() {
            c.err(format!("{p}.min_pairs"), "must be > 0");
        }
        if file.pairs[..i]
            .iter()
            .any(|prev| prev.event == t.event && prev.min_pairs == t.min_pairs)
        {
            c.err(
                format!("{p}.min_pairs"),
                format!(
                    "{:?} already has a table for {} pairs",
                    t.event, t.min_pairs
                ),
            );
        }
        let pp = format!("{p}.places");
        for (j, b) in t.places.iter().enumerate() {
            names.push((format!("{pp}[{j}]"), &b.zh, &b.en, b.level));
        }
        let places = check_place_bands(&pp, &t.places, c);
        if let Some(min_pairs) = min_pairs {
            pairs.push(PairsTable {
                event: t.event.clone(),
                min_pairs,
                places,
            });
        }
    }
    check_grade_names(&names, c);
    match min_counted_games {
        Some(min_counted_games) if c.0.len() == before => Some(StageGrades {
            min_counted_games,
            table,
            pairs,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The `[stages.grades]` section of one stage of an official preset.
    fn grades(preset: &str, stage: &str) -> StageGrades {
        crate::advancement::tests::official(preset)
            .stage(stage)
            .and_then(|s| s.grades.clone())
            .unwrap_or_else(|| panic!("{preset} {stage} has no [stages.grades]"))
    }

    fn load(text: &str) -> StageGrades {
        let file: StageGradesFile = toml::from_str(text).expect("toml");
        let mut c = Checker::new();
        let grades = check_stage_grades(&file, "stages[0].grades", &mut c);
        assert!(c.0.is_empty(), "{:?}", c.0);
        grades.expect("valid")
    }

    fn check_errors(text: &str) -> Vec<String> {
        let file: StageGradesFile = toml::from_str(text).expect("toml");
        let mut c = Checker::new();
        let grades = check_stage_grades(&file, "stages[1].grades", &mut c);
        assert_eq!(grades.is_none(), !c.0.is_empty());
        c.0.iter().map(ToString::to_string).collect()
    }

    fn standing(counted_games: u32, outcome: StageOutcome) -> StageResult {
        StageResult {
            status: ResultStatus::Standing,
            counted_games,
            outcome,
        }
    }
    fn points(p: i32, games: u32) -> StageResult {
        standing(games, StageOutcome::Points(p))
    }
    fn place(n: u32) -> StageResult {
        standing(9, StageOutcome::Place(Placing::single(n)))
    }
    fn knockout(o: KnockoutOutcome) -> StageResult {
        standing(3, StageOutcome::Knockout(o))
    }
    fn pairs(event: &str, n: u32, pairs_at_start: u32) -> StageResult {
        standing(
            0,
            StageOutcome::PairsPlace {
                event: event.to_owned(),
                placing: Placing::single(n),
                pairs_at_start,
            },
        )
    }
    fn zh(config: &StageGrades, result: &StageResult) -> Option<String> {
        grade_for(config, result).map(|g| g.zh)
    }

    #[test]
    fn every_snippet_section_is_valid() {
        for (preset, stage) in [
            ("go-2015", "haixuan"),
            ("go-2015", "jinji"),
            ("go-2015", "ruwei"),
            ("go-2015", "final"),
            ("xiangqi-2015", "haixuan"),
            ("xiangqi-2015", "jinji"),
            ("xiangqi-2015", "ruwei"),
            ("xiangqi-2015", "final"),
            ("chess-2015", "haixuan"),
            ("chess-2015", "ruwei"),
            ("chess-2015", "final"),
            ("xiangqi-2022", "haixuan"),
            ("xiangqi-2022", "ruwei"),
            ("xiangqi-2022", "final"),
        ] {
            grades(preset, stage);
        }
    }

    #[test]
    fn r_grd_1_go_2015_haixuan_points_4_6_8() {
        let g = grades("go-2015", "haixuan");
        let cases = [
            (-4, None),
            (0, None),
            (2, None),
            (3, None),
            (4, Some("9级")),
            (5, Some("9级")),
            (6, Some("8级")),
            (7, Some("8级")),
            (8, Some("7级")),
            (40, Some("7级")),
        ];
        for (p, expected) in cases {
            assert_eq!(zh(&g, &points(p, 4)).as_deref(), expected, "{p} points");
        }
        assert_eq!(
            grade_for(&g, &points(6, 3)),
            Some(Grade {
                zh: "8级".into(),
                en: "8 kyu".into(),
                level: -8
            })
        );
        assert_eq!(judge_grade(&g, &points(2, 1)), Err(NoGrade::BelowEveryBand));
    }

    #[test]
    fn r_grd_1_go_2015_jinji_period_rank_every_edge() {
        let g = grades("go-2015", "jinji");
        let cases = [
            (1, Some("1级")),
            (20, Some("1级")),
            (21, Some("2级")),
            (60, Some("2级")),
            (61, Some("3级")),
            (100, Some("3级")),
            (101, Some("4级")),
            (300, Some("4级")),
            (301, Some("5级")),
            (500, Some("5级")),
            (501, Some("6级")),
            (800, Some("6级")),
            (801, None),
        ];
        for (n, expected) in cases {
            assert_eq!(zh(&g, &place(n)).as_deref(), expected, "place {n}");
        }
        assert_eq!(judge_grade(&g, &place(0)), Err(NoGrade::InvalidPlace(0)));
    }

    #[test]
    fn r_grd_1_go_2015_ruwei_knockout_outcomes() {
        let g = grades("go-2015", "ruwei");
        use KnockoutOutcome::*;
        assert_eq!(zh(&g, &knockout(OutInRound(1))), None);
        assert_eq!(zh(&g, &knockout(OutInRound(2))).as_deref(), Some("1级"));
        assert_eq!(zh(&g, &knockout(OutInRound(3))).as_deref(), Some("1段"));
        assert_eq!(zh(&g, &knockout(WonLastRound)).as_deref(), Some("2段"));
        assert_eq!(
            judge_grade(&g, &knockout(OutInRound(1))),
            Err(NoGrade::BelowEveryBand)
        );
    }

    #[test]
    fn r_grd_1_go_2015_final_rank_every_edge() {
        let g = grades("go-2015", "final");
        let cases = [
            (1, "7段"),
            (2, "6段"),
            (9, "6段"),
            (10, "5段"),
            (49, "5段"),
            (50, "4段"),
            (119, "4段"),
            (120, "3段"),
            (209, "3段"),
            (210, "2段"),
            (309, "2段"),
            (310, "1段"),
            (372, "1段"),
            (5000, "1段"),
        ];
        for (n, expected) in cases {
            assert_eq!(zh(&g, &place(n)).as_deref(), Some(expected), "place {n}");
        }
    }

    #[test]
    fn r_grd_1_go_2015_pairs_tables() {
        let g = grades("go-2015", "final");
        let cases = [
            ("men-pairs", 1, Some("4段")),
            ("men-pairs", 2, Some("3段")),
            ("men-pairs", 3, Some("3段")),
            ("men-pairs", 4, Some("2段")),
            ("men-pairs", 6, Some("2段")),
            ("men-pairs", 7, None),
            ("women-pairs", 1, Some("3段")),
            ("women-pairs", 3, Some("2段")),
            ("women-pairs", 4, Some("1段")),
            ("women-pairs", 7, None),
            ("mixed-pairs", 1, Some("3段")),
            ("mixed-pairs", 2, Some("2段")),
            ("mixed-pairs", 6, Some("1段")),
            ("parent-child-pairs", 1, Some("2段")),
            ("parent-child-pairs", 2, Some("1段")),
            ("parent-child-pairs", 6, Some("1段")),
            ("parent-child-pairs", 7, None),
        ];
        for (event, n, expected) in cases {
            assert_eq!(
                zh(&g, &pairs(event, n, 32)).as_deref(),
                expected,
                "{event} {n}"
            );
        }
        assert_eq!(
            judge_grade(&g, &pairs("youth-pairs", 1, 32)),
            Err(NoGrade::NotGradedHere)
        );
    }

    #[test]
    fn r_grd_2_xiangqi_2015_table() {
        let haixuan = grades("xiangqi-2015", "haixuan");
        assert_eq!(zh(&haixuan, &points(5, 10)).as_deref(), Some("6级棋士"));
        assert_eq!(zh(&haixuan, &points(12, 30)).as_deref(), Some("6级棋士"));
        assert_eq!(zh(&haixuan, &points(4, 10)), None);
        assert_eq!(
            judge_grade(&haixuan, &points(5, 9)),
            Err(NoGrade::TooFewGames {
                counted: 9,
                required: 10
            })
        );
        let jinji = grades("xiangqi-2015", "jinji");
        assert_eq!(zh(&jinji, &points(6, 5)).as_deref(), Some("5级棋士"));
        assert_eq!(zh(&jinji, &points(5, 5)), None);
        assert_eq!(zh(&jinji, &points(8, 4)), None);
        // Reading: the 入围 winner goes to the final; a loser in any round gets 4th grade.
        let ruwei = grades("xiangqi-2015", "ruwei");
        use KnockoutOutcome::*;
        for round in 1..=3 {
            assert_eq!(
                zh(&ruwei, &knockout(OutInRound(round))).as_deref(),
                Some("4级棋士")
            );
        }
        assert_eq!(
            zh(&ruwei, &knockout(WonLastRound)).as_deref(),
            Some("3级棋士")
        );
        let fin = grades("xiangqi-2015", "final");
        let cases = [
            (1, "地方大师"),
            (6, "地方大师"),
            (7, "1级棋士"),
            (17, "1级棋士"),
            (18, "2级棋士"),
            (252, "2级棋士"),
        ];
        for (n, expected) in cases {
            assert_eq!(zh(&fin, &place(n)).as_deref(), Some(expected), "place {n}");
        }
        assert_eq!(
            grade_for(&fin, &place(3)).map(|g| g.en),
            Some("local master".to_owned())
        );
        let pair_cases = [
            ("men-pairs", 3, "1级棋士"),
            ("men-pairs", 4, "2级棋士"),
            ("women-pairs", 1, "2级棋士"),
            ("women-pairs", 6, "3级棋士"),
            ("mixed-pairs", 2, "2级棋士"),
            ("mixed-pairs", 5, "3级棋士"),
            ("parent-child-pairs", 3, "3级棋士"),
            ("parent-child-pairs", 4, "4级棋士"),
        ];
        for (event, n, expected) in pair_cases {
            assert_eq!(
                zh(&fin, &pairs(event, n, 8)).as_deref(),
                Some(expected),
                "{event} {n}"
            );
        }
    }

    #[test]
    fn r_grd_3_chess_2015_table() {
        let haixuan = grades("chess-2015", "haixuan");
        assert_eq!(zh(&haixuan, &points(5, 10)).as_deref(), Some("6级棋士"));
        assert_eq!(zh(&haixuan, &points(5, 9)), None);
        let ruwei = grades("chess-2015", "ruwei");
        let cases = [
            (1, "3级棋士"),
            (100, "3级棋士"),
            (101, "4级棋士"),
            (200, "4级棋士"),
            (201, "5级棋士"),
            (999, "5级棋士"),
        ];
        for (n, expected) in cases {
            assert_eq!(
                zh(&ruwei, &place(n)).as_deref(),
                Some(expected),
                "place {n}"
            );
        }
        // R-ONL-10: fewer than 5 counted games is not ranked, so no grade either.
        assert_eq!(
            judge_grade(
                &ruwei,
                &standing(4, StageOutcome::Place(Placing::single(1)))
            ),
            Err(NoGrade::TooFewGames {
                counted: 4,
                required: 5
            })
        );
        let fin = grades("chess-2015", "final");
        let g = grade_for(&fin, &place(6)).expect("graded");
        assert_eq!(
            (g.zh.as_str(), g.en.as_str()),
            ("候补棋协大师", "candidate association master")
        );
        assert_eq!(zh(&fin, &place(7)).as_deref(), Some("1级棋士"));
        assert_eq!(zh(&fin, &place(17)).as_deref(), Some("1级棋士"));
        assert_eq!(zh(&fin, &place(18)).as_deref(), Some("2级棋士"));
        // Pairs as R-GRD-2.
        assert_eq!(
            zh(&fin, &pairs("men-pairs", 1, 8)).as_deref(),
            Some("1级棋士")
        );
        assert_eq!(
            zh(&fin, &pairs("parent-child-pairs", 6, 8)).as_deref(),
            Some("4级棋士")
        );
    }

    #[test]
    fn r_grd_5_pairs_tables_need_the_event_to_have_started() {
        let g = grades("go-2015", "final");
        assert_eq!(
            judge_grade(&g, &pairs("men-pairs", 1, 7)),
            Err(NoGrade::PairsFieldTooSmall {
                pairs: 7,
                required: 8
            })
        );
        assert_eq!(zh(&g, &pairs("men-pairs", 1, 8)).as_deref(), Some("4段"));
    }

    #[test]
    fn r_grd_5_a_preset_may_scale_pairs_grades_down_for_small_fields() {
        let g = load(
            r#"
            [[pairs]]
            event = "men-pairs"
            min_pairs = 8
            places = [ { from = 1, to = 1, zh = "3段", en = "3 dan", level = 3 } ]
            [[pairs]]
            event = "men-pairs"
            min_pairs = 16
            places = [
              { from = 1, to = 1, zh = "4段", en = "4 dan", level = 4 },
              { from = 2, to = 3, zh = "3段", en = "3 dan", level = 3 },
            ]
        "#,
        );
        assert_eq!(zh(&g, &pairs("men-pairs", 1, 8)).as_deref(), Some("3段"));
        assert_eq!(zh(&g, &pairs("men-pairs", 2, 15)), None);
        assert_eq!(zh(&g, &pairs("men-pairs", 1, 16)).as_deref(), Some("4段"));
        assert_eq!(zh(&g, &pairs("men-pairs", 3, 32)).as_deref(), Some("3段"));
        assert_eq!(g.table, GradeTable::None);
        assert_eq!(judge_grade(&g, &place(1)), Err(NoGrade::NotGradedHere));
    }

    #[test]
    fn r_grd_7_no_certificate_when_eliminated_or_cancelled() {
        let g = grades("go-2015", "final");
        let mut r = place(1);
        r.status = ResultStatus::Eliminated;
        assert_eq!(judge_grade(&g, &r), Err(NoGrade::Eliminated));
        r.status = ResultStatus::Cancelled;
        assert_eq!(judge_grade(&g, &r), Err(NoGrade::Cancelled));
        let mut p = pairs("men-pairs", 1, 8);
        p.status = ResultStatus::Cancelled;
        assert_eq!(grade_for(&g, &p), None);
        // R-ONL-3: the 6th escape eliminates a 海选 player whatever the points.
        let haixuan = grades("go-2015", "haixuan");
        let mut r = points(20, 16);
        r.status = ResultStatus::Eliminated;
        assert_eq!(grade_for(&haixuan, &r), None);
    }

    #[test]
    fn r_grd_7_a_shared_place_takes_the_better_band() {
        let g = grades("go-2015", "jinji");
        let tied = standing(12, StageOutcome::Place(Placing::shared(20, 21)));
        assert_eq!(zh(&g, &tied).as_deref(), Some("1级"));
        let fin = grades("go-2015", "final");
        let tied = standing(9, StageOutcome::Place(Placing::shared(9, 11)));
        assert_eq!(zh(&fin, &tied).as_deref(), Some("6段"));
        let tied_pair = standing(
            0,
            StageOutcome::PairsPlace {
                event: "men-pairs".into(),
                placing: Placing::shared(6, 7),
                pairs_at_start: 20,
            },
        );
        assert_eq!(zh(&fin, &tied_pair).as_deref(), Some("2段"));
        let inverted = standing(9, StageOutcome::Place(Placing::shared(9, 8)));
        assert_eq!(judge_grade(&fin, &inverted), Err(NoGrade::InvalidPlace(9)));
    }

    #[test]
    fn r_grd_7_xiangqi_2022_needs_10_counted_games_and_an_organizer_table() {
        let g = grades("xiangqi-2022", "haixuan");
        assert_eq!(g.min_counted_games, 10);
        assert_eq!(
            judge_grade(&g, &points(30, 9)),
            Err(NoGrade::TooFewGames {
                counted: 9,
                required: 10
            })
        );
        // The seed does not reproduce the CXA table: until organizers enter it, nothing is graded.
        assert_eq!(
            judge_grade(&g, &points(30, 10)),
            Err(NoGrade::BelowEveryBand)
        );
        assert_eq!(grade_for(&grades("xiangqi-2022", "ruwei"), &place(1)), None);
        assert_eq!(grade_for(&grades("xiangqi-2022", "final"), &place(1)), None);
    }

    #[test]
    fn r_grd_1_a_result_of_another_kind_is_not_graded() {
        let g = grades("go-2015", "haixuan");
        assert_eq!(judge_grade(&g, &place(1)), Err(NoGrade::NotGradedHere));
        assert_eq!(
            judge_grade(&g, &knockout(KnockoutOutcome::WonLastRound)),
            Err(NoGrade::NotGradedHere)
        );
    }

    #[test]
    fn r_grd_1_check_reports_every_problem_with_its_path() {
        let errors = check_errors(
            r#"
            min_counted_games = -1
            points = [
              { min_points = 6, zh = "8级", en = "8 kyu", level = -8 },
              { min_points = 6, zh = "9级", en = "9 kyu", level = -9 },
              { min_points = 8, zh = "", en = "8 kyu", level = 500 },
            ]
            places = [
              { from = 2, to = 1, zh = "1级", en = "1 kyu", level = -1 },
            ]
            [[pairs]]
            event = ""
            min_pairs = 0
            places = [
              { from = 1, zh = "2段", en = "2 dan", level = 2 },
              { from = 2, to = 6, zh = "2段", en = "2 dan", level = 3 },
            ]
        "#,
        );
        let expected = [
            "stages[1].grades.min_counted_games: must be 0 or more",
            "stages[1].grades: give at most one of points, places, knockout (a stage grades one kind of result)",
            "stages[1].grades.points[1].min_points: must be above the previous band's 6",
            "stages[1].grades.points[1].level: must not be below the previous band's -8",
            "stages[1].grades.points[2].zh: must not be empty",
            "stages[1].grades.points[2].level: must be between -100 and 100",
            "stages[1].grades.places[0].from: must be 1 (bands start at place 1 and leave no gap)",
            "stages[1].grades.places[0].to: must not be below from",
            "stages[1].grades.pairs[0].event: must not be empty",
            "stages[1].grades.pairs[0].min_pairs: must be > 0",
            "stages[1].grades.pairs[0].places[1].from: no band may follow the open-ended band stages[1].grades.pairs[0].places[0]",
            "stages[1].grades.pairs[0].places[1].level: must not be higher than the better places' level 2",
            "stages[1].grades.points[2].en: \"8 kyu\" already names \"8级\" in stages[1].grades.points[0]",
            "stages[1].grades.pairs[0].places[1].zh: \"2段\" is \"2 dan\" at level 2 in stages[1].grades.pairs[0].places[0]; a grade has one name and level",
        ];
        assert_eq!(errors, expected);
    }

    #[test]
    fn r_grd_1_check_knockout_bands_run_round_by_round() {
        let errors = check_errors(
            r#"
            knockout = [
              { out_in_round = 1, won_last_round = true, zh = "1级", en = "1 kyu", level = -1 },
              { out_in_round = 3, zh = "1段", en = "1 dan", level = 1 },
              { out_in_round = 5, zh = "9级", en = "9 kyu", level = -9 },
            ]
        "#,
        );
        let expected = [
            "stages[1].grades.knockout[0]: give exactly one of out_in_round or won_last_round = true",
            "stages[1].grades.knockout[2]: bands must run round by round (out in round r, r+1, …) and end with won_last_round",
            "stages[1].grades.knockout[2].level: must not be below the previous band's 1",
            "stages[1].grades.knockout[2]: the last band must be won_last_round (a better outcome never earns less)",
        ];
        assert_eq!(errors, expected);
        assert_eq!(
            check_errors("min_counted_games = 3"),
            ["stages[1].grades: must have points, places, knockout or pairs"]
        );
        assert_eq!(
            check_errors(
                r#"
                [[pairs]]
                event = "men-pairs"
                min_pairs = 8
                places = []
                [[pairs]]
                event = "men-pairs"
                min_pairs = 8
                places = []
            "#
            ),
            ["stages[1].grades.pairs[1].min_pairs: \"men-pairs\" already has a table for 8 pairs"]
        );
    }

    #[test]
    fn r_grd_1_unknown_keys_are_rejected() {
        let err = toml::from_str::<StageGradesFile>("minimum_games = 3\n").expect_err("unknown");
        assert!(err.message().contains("minimum_games"), "{err}");
    }

    // --- certificate records (R-GRD-6) ---

    fn context() -> CertificateContext {
        CertificateContext {
            championship: "go-2015".into(),
            game: Game::Go,
            event: "men-individual".into(),
            stage: "jinji".into(),
            period: Some(2),
            result_date: NaiveDate::from_ymd_opt(2015, 9, 4).expect("date"),
        }
    }

    #[test]
    fn r_grd_6_a_certificate_carries_what_the_federation_needs() {
        let g = grades("go-2015", "jinji");
        let result = place(61);
        let record = certificate_for(&g, &context(), "p-1", &result).expect("graded");
        assert_eq!(record.player, "p-1");
        assert_eq!(record.context.game, Game::Go);
        assert_eq!(record.context.stage, "jinji");
        assert_eq!(record.grade.zh, "3级");
        assert_eq!(
            record.basis,
            CertificateBasis::Place {
                placing: Placing::single(61),
                counted_games: 9
            }
        );
        assert_eq!(record.status, CertificateStatus::Issued);
        assert_eq!(
            record.key(),
            CertificateKey {
                championship: "go-2015".into(),
                event: "men-individual".into(),
                stage: "jinji".into(),
                period: Some(2),
                player: "p-1".into(),
                kind: "grade",
            }
        );
        assert_eq!(certificate_for(&g, &context(), "p-2", &place(801)), None);
    }

    #[test]
    fn r_grd_6_content_hash_is_stable_and_sees_every_change() {
        let g = grades("go-2015", "jinji");
        let record = certificate_for(&g, &context(), "p-1", &place(61)).expect("graded");
        let hash = record.content_hash();
        assert_eq!(hash.len(), 64);
        assert_eq!(hash, record.clone().content_hash());
        // The hash is a pure function of the documented encoding.
        assert_eq!(hash, hex(&sha256(&record.canonical_bytes())));
        let bytes = record.canonical_bytes();
        assert!(bytes.starts_with(b"\0\0\0\x15qiwang.certificate.v1"));
        let mut changes: Vec<CertificateRecord> = Vec::new();
        let mut r = record.clone();
        r.player = "p-2".into();
        changes.push(r);
        let mut r = record.clone();
        r.grade.zh = "2级".into();
        changes.push(r);
        let mut r = record.clone();
        r.grade.level = -2;
        changes.push(r);
        let mut r = record.clone();
        r.basis = CertificateBasis::Place {
            placing: Placing::shared(61, 62),
            counted_games: 9,
        };
        changes.push(r);
        let mut r = record.clone();
        r.context.period = None;
        changes.push(r);
        let mut r = record.clone();
        r.context.result_date = NaiveDate::from_ymd_opt(2015, 9, 5).expect("date");
        changes.push(r);
        let mut r = record.clone();
        r.status = CertificateStatus::Revoked;
        changes.push(r);
        let mut r = record.clone();
        r.context.game = Game::Xiangqi;
        changes.push(r);
        // Field boundaries are length-prefixed: moving a character between fields is a change.
        let mut r = record.clone();
        r.context.event = "men-individualj".into();
        r.context.stage = "inji".into();
        changes.push(r);
        for (i, changed) in changes.iter().enumerate() {
            assert_ne!(changed.content_hash(), hash, "change {i}");
        }
    }

    #[test]
    fn r_grd_6_knockout_and_pairs_records() {
        let ruwei = grades("go-2015", "ruwei");
        let mut ctx = context();
        ctx.stage = "ruwei".into();
        ctx.period = None;
        let won = certificate_for(
            &ruwei,
            &ctx,
            "p-3",
            &knockout(KnockoutOutcome::WonLastRound),
        )
        .expect("graded");
        let out3 = certificate_for(
            &ruwei,
            &ctx,
            "p-3",
            &knockout(KnockoutOutcome::OutInRound(3)),
        )
        .expect("graded");
        assert_eq!(won.key(), out3.key());
        assert_ne!(won.content_hash(), out3.content_hash());
        let fin = grades("go-2015", "final");
        ctx.stage = "final".into();
        ctx.event = "mixed-pairs".into();
        let pair =
            certificate_for(&fin, &ctx, "p-4", &pairs("mixed-pairs", 1, 12)).expect("graded");
        assert_eq!(
            pair.basis,
            CertificateBasis::PairsPlace {
                placing: Placing::single(1),
                pairs_at_start: 12
            }
        );
        assert_eq!(pair.grade.en, "3 dan");
    }

    // --- properties ---

    /// A valid place table built from random band widths and level drops.
    fn place_table(widths: &[u32], drops: &[i32], open_end: bool) -> Vec<PlaceBand> {
        let mut from = 1;
        let mut level = 10;
        let mut out = Vec::new();
        for (i, (w, d)) in widths.iter().zip(drops).enumerate() {
            level -= d;
            let last = i + 1 == widths.len();
            let to = if last && open_end {
                None
            } else {
                Some(from + w - 1)
            };
            out.push(PlaceBand {
                from,
                to,
                grade: Grade {
                    zh: format!("L{level}"),
                    en: format!("level {level}"),
                    level,
                },
            });
            from += w;
        }
        out
    }

    fn level_of(config: &StageGrades, result: &StageResult) -> Option<i32> {
        grade_for(config, result).map(|g| g.level)
    }

    proptest! {
        #[test]
        fn r_grd_1_better_place_never_earns_a_lower_grade(
            widths in proptest::collection::vec(1u32..50, 0..8),
            drops in proptest::collection::vec(0i32..3, 8),
            open_end in any::<bool>(),
            a in 1u32..500,
            b in 1u32..500,
        ) {
            let (better, worse) = (a.min(b), a.max(b));
            let bands = place_table(&widths, &drops, open_end);
            let config = StageGrades {
                min_counted_games: 0,
                table: GradeTable::Places(bands.clone()),
                pairs: vec![PairsTable { event: "mixed-pairs".into(), min_pairs: 8, places: bands }],
            };
            let lb = level_of(&config, &place(better));
            let lw = level_of(&config, &place(worse));
            if let Some(lw) = lw {
                prop_assert!(lb.is_some_and(|lb| lb >= lw), "{better}: {lb:?}, {worse}: {lw}");
            }
            let pb = level_of(&config, &pairs("mixed-pairs", better, 8));
            let pw = level_of(&config, &pairs("mixed-pairs", worse, 8));
            if let Some(pw) = pw {
                prop_assert!(pb.is_some_and(|pb| pb >= pw));
            }
        }

        #[test]
        fn r_grd_1_preset_tables_are_monotone(
            a in 1u32..1000,
            b in 1u32..1000,
            pa in -20i32..60,
            pb in -20i32..60,
            ra in 1u32..=4,
            rb in 1u32..=4,
        ) {
            let (better, worse) = (a.min(b), a.max(b));
            for (preset, stage) in [("go-2015", "jinji"), ("go-2015", "final"), ("xiangqi-2015", "final"), ("chess-2015", "ruwei"), ("chess-2015", "final")] {
                let g = grades(preset, stage);
                if let Some(lw) = level_of(&g, &place(worse)) {
                    prop_assert!(level_of(&g, &place(better)).is_some_and(|lb| lb >= lw));
                }
            }
            let (more, fewer) = (pa.max(pb), pa.min(pb));
            for (preset, stage) in [("go-2015", "haixuan"), ("xiangqi-2015", "haixuan"), ("xiangqi-2015", "jinji"), ("chess-2015", "haixuan")] {
                let g = grades(preset, stage);
                if let Some(lf) = level_of(&g, &points(fewer, 10)) {
                    prop_assert!(level_of(&g, &points(more, 10)).is_some_and(|lm| lm >= lf));
                }
            }
            // Round 4 stands for "won the last round" of a 3-round knockout.
            let outcome = |r: u32| if r == 4 { KnockoutOutcome::WonLastRound } else { KnockoutOutcome::OutInRound(r) };
            let (later, earlier) = (outcome(ra.max(rb)), outcome(ra.min(rb)));
            for (preset, stage) in [("go-2015", "ruwei"), ("xiangqi-2015", "ruwei")] {
                let g = grades(preset, stage);
                if let Some(le) = level_of(&g, &knockout(earlier)) {
                    prop_assert!(level_of(&g, &knockout(later)).is_some_and(|ll| ll >= le));
                }
            }
        }
    }
}
