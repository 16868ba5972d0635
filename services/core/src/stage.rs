//! Stages (阶段) of a championship and the final's format, as preset data (R-STR-1, R-STR-3,
//! R-IND-1, R-IND-3, R-IND-4, R-IND-5, R-ADV-12).
//!
//! A stage is online (points or knockout), a repechage, an offline stage organizers define later
//! (go-2025's 分站赛/复赛, "by later notice"), or the final. Points stages run in numbered, parallel
//! periods (R-STR-1). Each concern of a stage lives in its own sub-table, owned by its module:
//! `online` (scoring), `advance` and `knockout` (advancement), `grades` (certificates), `final`
//! (here).

use chrono::NaiveDate;
use serde::Deserialize;

use crate::advancement::{AdvanceConfig, AdvanceFile, check_advance};
use crate::grade::{StageGrades, StageGradesFile, check_stage_grades};
use crate::knockout::{KnockoutConfig, KnockoutFile, check_knockout};
use crate::preset::Checker;
use crate::scoring::{OnlineFile, OnlineRules, check_online};

/// What kind of stage this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    /// Online, points by period (海选, 晋级, xiangqi-2022/chess-2015 入围).
    Points,
    /// Online knockout (go-2015/xiangqi-2015 入围).
    Knockout,
    /// Repechage held when a quota is short (复活赛, R-ADV-12).
    Repechage,
    /// Offline stage defined by organizers (go-2025 分站赛/复赛).
    Offline,
    /// The offline grand final (总决赛), Swiss (R-IND-1).
    Final,
}

impl StageKind {
    fn parse(s: &str) -> Option<StageKind> {
        match s {
            "points" => Some(StageKind::Points),
            "knockout" => Some(StageKind::Knockout),
            "repechage" => Some(StageKind::Repechage),
            "offline" => Some(StageKind::Offline),
            "final" => Some(StageKind::Final),
            _ => None,
        }
    }
    pub fn code(self) -> &'static str {
        match self {
            StageKind::Points => "points",
            StageKind::Knockout => "knockout",
            StageKind::Repechage => "repechage",
            StageKind::Offline => "offline",
            StageKind::Final => "final",
        }
    }
}

/// One numbered period (期) of a points stage, inclusive China-time days (R-STR-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Period {
    pub number: u32,
    pub opens_on: NaiveDate,
    pub closes_on: NaiveDate,
}

/// A Swiss tie-break (R-IND-4), each as FIDE C.07 defines it, plus the Chinese Xiangqi orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TieBreak {
    /// Buchholz = 对手分 = SOS.
    Buchholz,
    BuchholzCut1,
    MedianBuchholz,
    /// Sum of opponents' Buchholz (SOSOS).
    Sosos,
    SonnebornBerger,
    /// 累进分: cumulative (progressive) score.
    Progressive,
    DirectEncounter,
    /// 胜局
    Wins,
    /// Games with Black (后走局数).
    BlackGames,
    /// Wins with Black (后手胜局).
    BlackWins,
    /// 犯规: fewer fouls first.
    Fouls,
    /// Average rating of opponents.
    Aro,
    /// Tournament performance rating.
    Tpr,
}

impl TieBreak {
    pub const ALL: [(&'static str, TieBreak); 13] = [
        ("buchholz", TieBreak::Buchholz),
        ("buchholz-cut1", TieBreak::BuchholzCut1),
        ("median-buchholz", TieBreak::MedianBuchholz),
        ("sosos", TieBreak::Sosos),
        ("sonneborn-berger", TieBreak::SonnebornBerger),
        ("progressive", TieBreak::Progressive),
        ("direct-encounter", TieBreak::DirectEncounter),
        ("wins", TieBreak::Wins),
        ("black-games", TieBreak::BlackGames),
        ("black-wins", TieBreak::BlackWins),
        ("fouls", TieBreak::Fouls),
        ("aro", TieBreak::Aro),
        ("tpr", TieBreak::Tpr),
    ];
    pub fn parse(s: &str) -> Option<TieBreak> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, t)| *t)
    }
    pub fn code(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, t)| *t == self)
            .map(|(n, _)| *n)
            .unwrap_or("?")
    }
}

/// Points for one game of the final, in half-points so that FIDE's 1/½/0 is 2/1/0 too
/// (Xiangqi and Go finals score 2/1/0 outright).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultPoints {
    pub win: u32,
    pub draw: u32,
    pub loss: u32,
}

/// A written appeal against a referee's ruling (R-IND-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppealRule {
    /// Minutes after the round ends within which the appeal must be filed.
    pub within_minutes: u32,
    /// Fee in yuan, refunded if the appeal is upheld.
    pub fee_yuan: i64,
}

/// The final's format (R-IND-1..5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalFormat {
    /// Swiss rounds; `None` = set by organizers from the entries ("轮次视报名情况而定").
    pub rounds: Option<u32>,
    /// Parallel Swiss groups (go-2025 open group: A and B); empty = one field.
    pub groups: Vec<String>,
    /// After the group rounds, equal places across groups play one more round for places
    /// 1..=2N (go-2025: A1–B1 … A16–B16).
    pub placement_pairs: Option<u32>,
    pub points: ResultPoints,
    /// The tie-break order after points (R-IND-4).
    pub tie_breaks: Vec<TieBreak>,
    /// Men's and women's places are ranked separately from one open event (R-IND-2).
    pub separate_women_ranking: bool,
    pub appeal: Option<AppealRule>,
}

/// A validated stage, with the sections other modules own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stage {
    pub code: String,
    pub name_zh: String,
    pub name_en: String,
    pub kind: StageKind,
    pub periods: Vec<Period>,
    /// Non-period stages: their inclusive dates (knockout rounds, repechage day, final).
    pub starts_on: Option<NaiveDate>,
    pub ends_on: Option<NaiveDate>,
    pub final_format: Option<FinalFormat>,
    /// Online scoring rules (`scoring`).
    pub online: Option<OnlineRules>,
    /// Who advances, and where to (`advancement`).
    pub advance: Option<AdvanceConfig>,
    /// Knockout rules (`knockout`).
    pub knockout: Option<KnockoutConfig>,
    /// Grade and title bands (`grade`).
    pub grades: Option<StageGrades>,
}

impl Stage {
    /// The period with this number, if the stage has it.
    pub fn period(&self, number: u32) -> Option<&Period> {
        self.periods.iter().find(|p| p.number == number)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PeriodFile {
    number: i64,
    opens_on: String,
    closes_on: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FinalFile {
    #[serde(default)]
    rounds: Option<i64>,
    #[serde(default)]
    groups: Vec<String>,
    #[serde(default)]
    placement_pairs: Option<i64>,
    points: PointsFile,
    tie_breaks: Vec<String>,
    #[serde(default)]
    separate_women_ranking: bool,
    #[serde(default)]
    appeal: Option<AppealFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PointsFile {
    win: i64,
    draw: i64,
    loss: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AppealFile {
    within_minutes: i64,
    fee_yuan: i64,
}

/// One `[[stages]]` table of a preset file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StageFile {
    pub(crate) code: String,
    name_zh: String,
    name_en: String,
    kind: String,
    #[serde(default)]
    periods: Vec<PeriodFile>,
    #[serde(default)]
    starts_on: Option<String>,
    #[serde(default)]
    ends_on: Option<String>,
    #[serde(default, rename = "final")]
    final_format: Option<FinalFile>,
    #[serde(default)]
    online: Option<OnlineFile>,
    #[serde(default)]
    advance: Option<AdvanceFile>,
    #[serde(default)]
    knockout: Option<KnockoutFile>,
    #[serde(default)]
    grades: Option<StageGradesFile>,
}

/// Checks one stage: its own fields, then each section with the section's module.
pub(crate) fn check_stage(f: &StageFile, path: &str, c: &mut Checker) -> Option<Stage> {
    let online = f
        .online
        .as_ref()
        .and_then(|o| check_online(o, &format!("{path}.online"), c));
    let advance = f
        .advance
        .as_ref()
        .and_then(|a| check_advance(a, &format!("{path}.advance"), c));
    let knockout = f
        .knockout
        .as_ref()
        .and_then(|k| check_knockout(k, &format!("{path}.knockout"), c));
    let grades = f
        .grades
        .as_ref()
        .and_then(|g| check_stage_grades(g, &format!("{path}.grades"), c));
    let mut stage = check_stage_skeleton(f, path, c)?;
    if stage.kind == StageKind::Knockout && f.knockout.is_none() {
        c.err(
            format!("{path}.knockout"),
            "a knockout stage needs its knockout rules",
        );
    }
    if stage.kind == StageKind::Final && f.online.is_some() {
        c.err(
            format!("{path}.online"),
            "the final is offline; online rules do not apply",
        );
    }
    stage.online = online;
    stage.advance = advance;
    stage.knockout = knockout;
    stage.grades = grades;
    Some(stage)
}

fn check_stage_skeleton(f: &StageFile, path: &str, c: &mut Checker) -> Option<Stage> {
    c.non_empty(&format!("{path}.code"), &f.code);
    c.non_empty(&format!("{path}.name_zh"), &f.name_zh);
    c.non_empty(&format!("{path}.name_en"), &f.name_en);
    let kind = StageKind::parse(&f.kind);
    if kind.is_none() {
        c.err(
            format!("{path}.kind"),
            format!(
                "{:?} is not one of points, knockout, repechage, offline, final",
                f.kind
            ),
        );
    }
    let mut periods = Vec::with_capacity(f.periods.len());
    for (i, p) in f.periods.iter().enumerate() {
        let pp = format!("{path}.periods[{i}]");
        if p.number != i as i64 + 1 {
            c.err(
                format!("{pp}.number"),
                format!("must be {} (periods are numbered 1, 2, … in order)", i + 1),
            );
        }
        let opens = c.date(&format!("{pp}.opens_on"), &p.opens_on);
        let closes = c.date(&format!("{pp}.closes_on"), &p.closes_on);
        if let (Some(o), Some(cl)) = (opens, closes) {
            if cl < o {
                c.err(format!("{pp}.closes_on"), "must not be before opens_on");
            }
            periods.push(Period {
                number: u32::try_from(p.number).unwrap_or(0),
                opens_on: o,
                closes_on: cl,
            });
        }
    }
    if kind == Some(StageKind::Points) && f.periods.is_empty() {
        c.err(
            format!("{path}.periods"),
            "a points stage needs at least one period",
        );
    }
    let starts_on = f
        .starts_on
        .as_deref()
        .and_then(|v| c.date(&format!("{path}.starts_on"), v));
    let ends_on = f
        .ends_on
        .as_deref()
        .and_then(|v| c.date(&format!("{path}.ends_on"), v));
    if let (Some(s), Some(e)) = (starts_on, ends_on)
        && e < s
    {
        c.err(format!("{path}.ends_on"), "must not be before starts_on");
    }
    let final_format = match (&f.final_format, kind) {
        (Some(ff), _) => check_final(ff, &format!("{path}.final"), c),
        (None, Some(StageKind::Final)) => {
            c.err(format!("{path}.final"), "a final stage needs its format");
            None
        }
        (None, _) => None,
    };
    Some(Stage {
        code: f.code.clone(),
        name_zh: f.name_zh.clone(),
        name_en: f.name_en.clone(),
        kind: kind?,
        periods,
        starts_on,
        ends_on,
        final_format,
        online: None,
        advance: None,
        knockout: None,
        grades: None,
    })
}

fn check_final(f: &FinalFile, path: &str, c: &mut Checker) -> Option<FinalFormat> {
    if let Some(r) = f.rounds {
        c.positive(&format!("{path}.rounds"), r);
    }
    if let Some(p) = f.placement_pairs {
        c.positive(&format!("{path}.placement_pairs"), p);
        if f.groups.len() != 2 {
            c.err(
                format!("{path}.placement_pairs"),
                "needs exactly two groups",
            );
        }
    }
    for (i, g) in f.groups.iter().enumerate() {
        c.non_empty(&format!("{path}.groups[{i}]"), g);
        if f.groups[..i].contains(g) {
            c.err(
                format!("{path}.groups[{i}]"),
                format!("{g:?} appears more than once"),
            );
        }
    }
    let pts = &f.points;
    if !(pts.win > pts.draw && pts.draw >= pts.loss && pts.loss >= 0) {
        c.err(
            format!("{path}.points"),
            "must satisfy win > draw >= loss >= 0",
        );
    }
    let mut tie_breaks = Vec::new();
    for (i, t) in f.tie_breaks.iter().enumerate() {
        match TieBreak::parse(t) {
            Some(tb) if tie_breaks.contains(&tb) => c.err(
                format!("{path}.tie_breaks[{i}]"),
                format!("{t:?} appears twice"),
            ),
            Some(tb) => tie_breaks.push(tb),
            None => {
                let known: Vec<&str> = TieBreak::ALL.iter().map(|(n, _)| *n).collect();
                c.err(
                    format!("{path}.tie_breaks[{i}]"),
                    format!("{t:?} is not one of {}", known.join(", ")),
                );
            }
        }
    }
    let appeal = f.appeal.as_ref().map(|a| {
        c.positive(&format!("{path}.appeal.within_minutes"), a.within_minutes);
        if a.fee_yuan < 0 {
            c.err(format!("{path}.appeal.fee_yuan"), "must be >= 0");
        }
        AppealRule {
            within_minutes: u32::try_from(a.within_minutes).unwrap_or(0),
            fee_yuan: a.fee_yuan,
        }
    });
    let to_u32 = |v: i64| u32::try_from(v).ok();
    Some(FinalFormat {
        rounds: f.rounds.and_then(to_u32),
        groups: f.groups.clone(),
        placement_pairs: f.placement_pairs.and_then(to_u32),
        points: ResultPoints {
            win: to_u32(pts.win)?,
            draw: to_u32(pts.draw)?,
            loss: to_u32(pts.loss)?,
        },
        tie_breaks,
        separate_women_ranking: f.separate_women_ranking,
        appeal,
    })
}
