//! Presets: a championship's rules as data (RULES.md "Five rule sets ship as presets").
//!
//! A preset is a TOML file in a documented, versioned format (`format = 1`, see
//! `services/core/presets/README.md`). The five official presets are embedded at build time; an
//! organizer can copy one, edit it for a new season and check it with `qiwang presets check FILE`.
//! Loading validates everything and reports *every* problem with the path of the bad field
//! (`events[2].code: must not be empty`), never panicking.
//!
//! The file types (`*File`) are serde DTOs; the validated domain types ([`Preset`], [`Event`], …) are
//! built from them by hand and are not `Deserialize`, so an unchecked preset cannot reach a rule.

use chrono::NaiveDate;
use serde::Deserialize;
use std::fmt;

use crate::advancement::Selection;
use crate::dan::{DanApplications, DanApplicationsFile, check_dan_applications};
use crate::finals::{
    CityTeamRules, CityTeamsFile, FeeRules, FeesFile, check_city_teams, check_fees,
};
use crate::identity::Sex;
use crate::pairs::{PairsFile, PairsRules, check_pairs};
use crate::prize::{PrizeTable, PrizeTableFile, check_prizes, check_prizes_against_events};
use crate::stage::{Stage, StageFile, StageKind, check_stage};
use crate::team::{TeamCategory, TeamCategoryFile, check_teams, check_teams_against};
use crate::workflow::{
    NoticeFile, NoticePeriod, WildcardRules, WildcardsFile, check_notice, check_wildcards,
};

/// The preset file format this build reads.
pub const FORMAT_VERSION: u32 = 1;

/// The game a championship is played in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Game {
    /// 围棋
    Go,
    /// 象棋
    Xiangqi,
    /// 国际象棋
    Chess,
}

impl Game {
    pub fn code(self) -> &'static str {
        match self {
            Game::Go => "go",
            Game::Xiangqi => "xiangqi",
            Game::Chess => "chess",
        }
    }
    pub fn parse(code: &str) -> Option<Game> {
        match code {
            "go" => Some(Game::Go),
            "xiangqi" => Some(Game::Xiangqi),
            "chess" => Some(Game::Chess),
            _ => None,
        }
    }
}

/// Who may enter an event by sex. The "men's" individual ranking is in fact open (R-IND-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSex {
    Open,
    Male,
    Female,
}

impl EventSex {
    pub fn admits(self, sex: Sex) -> bool {
        match self {
            EventSex::Open => true,
            EventSex::Male => sex == Sex::Male,
            EventSex::Female => sex == Sex::Female,
        }
    }
}

/// An inclusive birth-date window (R-REG-8): `born_from..=born_to`, either end open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BirthWindow {
    pub born_from: Option<NaiveDate>,
    pub born_to: Option<NaiveDate>,
}

impl BirthWindow {
    /// Both bounds are inclusive (R-REG-8: "2009年1月1日以后" includes 1 January 2009).
    pub fn contains(&self, birth: NaiveDate) -> bool {
        self.born_from.is_none_or(|from| birth >= from) && self.born_to.is_none_or(|to| birth <= to)
    }
}

/// One event of a championship (R-STR-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub code: String,
    pub name_zh: String,
    pub name_en: String,
    pub sex: EventSex,
    /// Entered through the online qualifier (海选), free and without approval (R-REG-1).
    pub online_qualifier: bool,
    pub birth_window: Option<BirthWindow>,
    /// Finalists need a grade certificate (R-REG-5: go-2025 CWA; xiangqi-2022 youth CXA).
    pub requires_grade_certificate: bool,
    /// Entries need organizer approval (R-REG-8: youth and senior groups).
    pub requires_approval: bool,
    /// For a pairs event: who may pair, the window, 8..32 (R-PAIR-1, R-PAIR-2, R-REG-10).
    pub pairs: Option<PairsRules>,
}

/// The online registration window, inclusive China-time calendar days (R-REG-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegistrationWindow {
    pub opens_on: NaiveDate,
    pub closes_on: NaiveDate,
    /// Whether a player may enter the 海选 again during the window (R-REG-1).
    pub repeat_entry: bool,
}

/// Bar-list policy (R-REG-2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarPolicy {
    /// Overseas players are not barred even if listed (xiangqi-2015). Reading: "overseas" means
    /// a player identified by a foreign passport.
    pub overseas_exempt: bool,
}

/// A validated preset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preset {
    pub name: String,
    pub game: Game,
    pub season: i32,
    pub title_zh: String,
    pub title_en: String,
    pub registration: RegistrationWindow,
    pub bar: BarPolicy,
    pub events: Vec<Event>,
    /// The stage chain, in order (R-STR-3).
    pub stages: Vec<Stage>,
    /// Team categories (R-TEAM-1..5).
    pub teams: Vec<TeamCategory>,
    /// Prize tables (R-PRZ-1, R-IND-2).
    pub prizes: Vec<PrizeTable>,
    /// go-2025 dan applications (R-GRD-4).
    pub dan_applications: Option<DanApplications>,
    /// The offline service fee (R-REG-7).
    pub fees: FeeRules,
    /// Working days a qualifier has to complete their finals information (R-REG-6).
    pub finals_information_working_days: Option<u32>,
    /// City teams (R-REG-9).
    pub city_teams: Option<CityTeamRules>,
    /// Wildcards (R-WC-1).
    pub wildcards: WildcardRules,
    /// The finalist list's public notice (R-PUB-1); `None`: organizers set it.
    pub public_notice: Option<NoticePeriod>,
}

impl Preset {
    pub fn event(&self, code: &str) -> Option<&Event> {
        self.events.iter().find(|e| e.code == code)
    }
    pub fn stage(&self, code: &str) -> Option<&Stage> {
        self.stages.iter().find(|s| s.code == code)
    }
    /// The final stage, if the preset has one.
    pub fn final_stage(&self) -> Option<&Stage> {
        self.stages.iter().find(|s| s.kind == StageKind::Final)
    }

    /// Whether no other stage advances into `stage`: it takes its players from entries (the 海选).
    pub fn is_entry_stage(&self, stage: &str) -> bool {
        !self.stages.iter().any(|s| {
            s.advance
                .as_ref()
                .is_some_and(|a| a.to == stage || a.repechage.as_deref() == Some(stage))
        })
    }

    /// The preset with each repechage stage (复活赛, R-ADV-12) that has one online day or span and no
    /// numbered periods given that span as its period 1 (Reading: so that reports, leaderboards
    /// and the cut work as in any points stage).
    pub fn with_repechage_periods(mut self) -> Preset {
        for stage in &mut self.stages {
            if stage.kind == StageKind::Repechage
                && stage.periods.is_empty()
                && let (Some(opens_on), Some(closes_on)) = (stage.starts_on, stage.ends_on)
            {
                stage.periods.push(crate::stage::Period {
                    number: 1,
                    opens_on,
                    closes_on,
                });
            }
        }
        self
    }

    /// Where a women's individual event without a final section of its own is ranked: the open
    /// individual event (the first event open to all, entered online, not a pairs event), whose
    /// women form the women's ranking (R-IND-2: women play the open field and may win both an
    /// open and a women's prize; R-TEAM-1 reading). `None` for any other event.
    pub fn women_ranked_in(&self, code: &str) -> Option<&str> {
        let event = self.event(code)?;
        if event.sex != EventSex::Female || event.pairs.is_some() {
            return None;
        }
        self.events
            .iter()
            .find(|e| e.sex == EventSex::Open && e.online_qualifier && e.pairs.is_none())
            .map(|e| e.code.as_str())
    }
}

/// One problem in a preset file, with the path of the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresetError {
    pub path: String,
    pub message: String,
}

impl fmt::Display for PresetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every problem found in a preset file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PresetErrors(pub Vec<PresetError>);

impl fmt::Display for PresetErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetFile {
    format: u32,
    name: String,
    game: String,
    season: i32,
    title_zh: String,
    title_en: String,
    registration: RegistrationFile,
    #[serde(default)]
    bar: BarFile,
    events: Vec<EventFile>,
    #[serde(default)]
    stages: Vec<StageFile>,
    #[serde(default)]
    teams: Vec<TeamCategoryFile>,
    #[serde(default)]
    prizes: Vec<PrizeTableFile>,
    #[serde(default)]
    dan_applications: Option<DanApplicationsFile>,
    fees: FeesFile,
    #[serde(default)]
    finals_information: Option<FinalsInformationFile>,
    #[serde(default)]
    city_teams: Option<CityTeamsFile>,
    #[serde(default)]
    wildcards: Option<WildcardsFile>,
    #[serde(default)]
    public_notice: Option<NoticeFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FinalsInformationFile {
    working_days: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistrationFile {
    opens_on: String,
    closes_on: String,
    repeat_entry: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct BarFile {
    #[serde(default)]
    overseas_exempt: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventFile {
    code: String,
    name_zh: String,
    name_en: String,
    sex: String,
    online_qualifier: bool,
    born_from: Option<String>,
    born_to: Option<String>,
    #[serde(default)]
    requires_grade_certificate: bool,
    #[serde(default)]
    requires_approval: bool,
    #[serde(default)]
    pairs: Option<PairsFile>,
}

/// Collects every problem while a preset file is checked. Each module that owns a section of the
/// preset validates its section with it, giving the full path of each bad field
/// (`stages[2].advance.top_n`).
pub(crate) struct Checker(pub(crate) Vec<PresetError>);

impl Checker {
    pub(crate) fn new() -> Self {
        Checker(Vec::new())
    }
    pub(crate) fn err(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(PresetError {
            path: path.into(),
            message: message.into(),
        });
    }
    pub(crate) fn non_empty(&mut self, path: &str, value: &str) {
        if value.trim().is_empty() {
            self.err(path, "must not be empty");
        }
    }
    /// A number that must be > 0.
    pub(crate) fn positive(&mut self, path: &str, value: i64) {
        if value <= 0 {
            self.err(path, "must be > 0");
        }
    }
    pub(crate) fn date(&mut self, path: &str, value: &str) -> Option<NaiveDate> {
        match NaiveDate::parse_from_str(value, "%Y-%m-%d") {
            Ok(d) => Some(d),
            Err(_) => {
                self.err(path, format!("{value:?} is not a date (YYYY-MM-DD)"));
                None
            }
        }
    }
}

/// Parses and fully validates a preset file.
pub fn parse(text: &str) -> Result<Preset, PresetErrors> {
    let file: PresetFile = toml::from_str(text).map_err(|e| {
        let message = e.message().to_owned();
        let path = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!("line {line}")
            })
            .unwrap_or_default();
        PresetErrors(vec![PresetError { path, message }])
    })?;
    let mut c = Checker::new();
    if file.format != FORMAT_VERSION {
        c.err(
            "format",
            format!("must be {FORMAT_VERSION} (this build reads format {FORMAT_VERSION})"),
        );
    }
    c.non_empty("name", &file.name);
    if !file
        .name
        .chars()
        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-')
    {
        c.err("name", "must be lowercase letters, digits and '-'");
    }
    let game = Game::parse(&file.game);
    if game.is_none() {
        c.err(
            "game",
            format!("{:?} is not one of go, xiangqi, chess", file.game),
        );
    }
    if !(2000..=2100).contains(&file.season) {
        c.err("season", "must be a year between 2000 and 2100");
    }
    c.non_empty("title_zh", &file.title_zh);
    c.non_empty("title_en", &file.title_en);
    let opens = c.date("registration.opens_on", &file.registration.opens_on);
    let closes = c.date("registration.closes_on", &file.registration.closes_on);
    if let (Some(o), Some(cl)) = (opens, closes)
        && cl < o
    {
        c.err(
            "registration.closes_on",
            "must not be before registration.opens_on",
        );
    }
    if file.events.is_empty() {
        c.err("events", "must list at least one event");
    }
    let mut events = Vec::with_capacity(file.events.len());
    for (i, e) in file.events.iter().enumerate() {
        let p = |field: &str| format!("events[{i}].{field}");
        c.non_empty(&p("code"), &e.code);
        if file.events[..i].iter().any(|prev| prev.code == e.code) {
            c.err(p("code"), format!("{:?} appears more than once", e.code));
        }
        c.non_empty(&p("name_zh"), &e.name_zh);
        c.non_empty(&p("name_en"), &e.name_en);
        let sex = match e.sex.as_str() {
            "open" => Some(EventSex::Open),
            "male" => Some(EventSex::Male),
            "female" => Some(EventSex::Female),
            other => {
                c.err(
                    p("sex"),
                    format!("{other:?} is not one of open, male, female"),
                );
                None
            }
        };
        let born_from = e
            .born_from
            .as_deref()
            .and_then(|v| c.date(&p("born_from"), v));
        let born_to = e.born_to.as_deref().and_then(|v| c.date(&p("born_to"), v));
        if let (Some(f), Some(t)) = (born_from, born_to)
            && t < f
        {
            c.err(p("born_to"), "must not be before born_from");
        }
        let birth_window = (e.born_from.is_some() || e.born_to.is_some())
            .then_some(BirthWindow { born_from, born_to });
        let pairs = e
            .pairs
            .as_ref()
            .and_then(|pf| check_pairs(pf, &p("pairs"), &e.sex, &mut c));
        if let Some(sex) = sex {
            events.push(Event {
                code: e.code.clone(),
                name_zh: e.name_zh.clone(),
                name_en: e.name_en.clone(),
                sex,
                online_qualifier: e.online_qualifier,
                birth_window,
                requires_grade_certificate: e.requires_grade_certificate,
                requires_approval: e.requires_approval,
                pairs,
            });
        }
    }
    let mut stages = Vec::with_capacity(file.stages.len());
    for (i, st) in file.stages.iter().enumerate() {
        if file.stages[..i].iter().any(|prev| prev.code == st.code) {
            c.err(
                format!("stages[{i}].code"),
                format!("{:?} appears more than once", st.code),
            );
        }
        if let Some(stage) = check_stage(st, &format!("stages[{i}]"), &mut c) {
            stages.push(stage);
        }
    }
    let teams = check_teams(&file.teams, "teams", &mut c).unwrap_or_default();
    let prizes = check_prizes(&file.prizes, "prizes", &mut c).unwrap_or_default();
    check_prizes_against_events(&prizes, &events, "prizes", &mut c);
    check_teams_against(&teams, &events, &prizes, "teams", &mut c);
    let dan_applications = file
        .dan_applications
        .as_ref()
        .and_then(|d| check_dan_applications(d, "dan_applications", &mut c));
    let fees = check_fees(&file.fees, "fees", &mut c);
    let finals_information_working_days = file.finals_information.as_ref().and_then(|f| {
        c.positive("finals_information.working_days", f.working_days);
        u32::try_from(f.working_days).ok().filter(|n| *n > 0)
    });
    let city_teams = file
        .city_teams
        .as_ref()
        .and_then(|f| check_city_teams(f, "city_teams", &mut c));
    let wildcards = match &file.wildcards {
        Some(w) => check_wildcards(w, "wildcards", &mut c),
        None => WildcardRules {
            deadline: None,
            quota_per_event: None,
            sources: Vec::new(),
        },
    };
    let public_notice = file
        .public_notice
        .as_ref()
        .and_then(|n| check_notice(n, "public_notice", &mut c));
    cross_check(&events, &stages, dan_applications.as_ref(), &mut c);
    match (c.0.is_empty(), game, opens, closes) {
        (true, Some(game), Some(opens_on), Some(closes_on)) => Ok(Preset {
            name: file.name,
            game,
            season: file.season,
            title_zh: file.title_zh,
            title_en: file.title_en,
            registration: RegistrationWindow {
                opens_on,
                closes_on,
                repeat_entry: file.registration.repeat_entry,
            },
            bar: BarPolicy {
                overseas_exempt: file.bar.overseas_exempt,
            },
            events,
            stages,
            teams,
            prizes,
            dan_applications,
            fees,
            finals_information_working_days,
            city_teams,
            wildcards,
            public_notice,
        }),
        _ => Err(PresetErrors(c.0)),
    }
}

/// Checks between sections: every code one section uses names something another section defines.
fn cross_check(events: &[Event], stages: &[Stage], dan: Option<&DanApplications>, c: &mut Checker) {
    let has_event = |code: &str| events.iter().any(|e| e.code == code);
    let has_stage = |code: &str| stages.iter().any(|s| s.code == code);
    if stages.iter().filter(|s| s.kind == StageKind::Final).count() > 1 {
        c.err("stages", "at most one stage may be the final");
    }
    for (i, stage) in stages.iter().enumerate() {
        let Some(advance) = &stage.advance else {
            continue;
        };
        let p = format!("stages[{i}].advance");
        if !has_stage(&advance.to) {
            c.err(
                format!("{p}.to"),
                format!("{:?} is not a stage of this preset", advance.to),
            );
        }
        if let Some(r) = &advance.repechage
            && !has_stage(r)
        {
            c.err(
                format!("{p}.repechage"),
                format!("{r:?} is not a stage of this preset"),
            );
        }
        let by_knockout = matches!(advance.selection, Selection::Knockout);
        if by_knockout != (stage.kind == StageKind::Knockout) {
            c.err(
                format!("{p}.by"),
                format!("does not match the stage's kind {:?}", stage.kind.code()),
            );
        }
        for (g, group) in advance.groups.iter().enumerate() {
            for (k, e) in group.events.iter().enumerate() {
                if !has_event(e) {
                    c.err(
                        format!("{p}.groups[{g}].events[{k}]"),
                        format!("{e:?} is not an event of this preset"),
                    );
                }
            }
        }
    }
    for (i, stage) in stages.iter().enumerate() {
        let Some(grades) = &stage.grades else {
            continue;
        };
        for (k, t) in grades.pairs.iter().enumerate() {
            if !events
                .iter()
                .any(|e| e.code == t.event && e.pairs.is_some())
            {
                c.err(
                    format!("stages[{i}].grades.pairs[{k}].event"),
                    format!("{:?} is not a pairs event of this preset", t.event),
                );
            }
        }
    }
    if let Some(dan) = dan {
        for (g, group) in dan.groups.iter().enumerate() {
            if !has_event(&group.event) {
                c.err(
                    format!("dan_applications.groups[{g}].event"),
                    format!("{:?} is not an event of this preset", group.event),
                );
            }
        }
    }
}

/// The five official presets, embedded at build time: (name, file text).
pub const OFFICIAL: &[(&str, &str)] = &[
    ("go-2015", include_str!("../presets/go-2015.toml")),
    ("xiangqi-2015", include_str!("../presets/xiangqi-2015.toml")),
    ("chess-2015", include_str!("../presets/chess-2015.toml")),
    ("xiangqi-2022", include_str!("../presets/xiangqi-2022.toml")),
    ("go-2025", include_str!("../presets/go-2025.toml")),
];

/// All official presets, parsed. An invalid embedded preset is a build defect that the unit tests
/// below catch, so this returns the errors rather than hiding them.
pub fn official() -> Result<Vec<Preset>, PresetErrors> {
    OFFICIAL.iter().map(|(_, text)| parse(text)).collect()
}

/// One official preset by name.
pub fn official_by_name(name: &str) -> Option<Result<Preset, PresetErrors>> {
    OFFICIAL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| parse(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }

    #[test]
    fn r_ind_2_r_team_1_the_women_are_ranked_in_the_open_individual_event() {
        for preset in official().expect("presets") {
            assert_eq!(
                preset.women_ranked_in("women-individual"),
                Some("men-individual"),
                "{}",
                preset.name
            );
            assert_eq!(preset.women_ranked_in("men-individual"), None);
            assert_eq!(preset.women_ranked_in("women-pairs"), None);
            assert_eq!(preset.women_ranked_in("no-such-event"), None);
        }
    }

    #[test]
    fn every_official_preset_loads_and_is_named_after_its_file() {
        for (name, text) in OFFICIAL {
            let preset = parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&preset.name, name);
        }
    }

    #[test]
    fn r_str_2_event_lists() {
        let count = |name: &str| {
            official_by_name(name)
                .expect("known")
                .expect("valid")
                .events
                .len()
        };
        assert_eq!(count("go-2015"), 8);
        assert_eq!(count("xiangqi-2015"), 8);
        assert_eq!(count("chess-2015"), 8);
        assert_eq!(count("xiangqi-2022"), 9);
        assert_eq!(count("go-2025"), 7);
    }

    #[test]
    fn r_reg_1_registration_windows() {
        let window = |name: &str| {
            official_by_name(name)
                .expect("known")
                .expect("valid")
                .registration
        };
        let w = window("go-2015");
        assert_eq!(
            (w.opens_on, w.closes_on, w.repeat_entry),
            (d(2015, 6, 26), d(2015, 10, 2), true)
        );
        let w = window("xiangqi-2022");
        assert_eq!((w.opens_on, w.closes_on), (d(2022, 6, 11), d(2022, 9, 23)));
    }

    #[test]
    fn r_reg_8_age_windows_are_inclusive() {
        let go = official_by_name("go-2025").expect("known").expect("valid");
        let junior = go
            .event("junior")
            .and_then(|e| e.birth_window)
            .expect("window");
        assert!(junior.contains(d(2011, 9, 1)));
        assert!(junior.contains(d(2019, 8, 31)));
        assert!(!junior.contains(d(2011, 8, 31)));
        assert!(!junior.contains(d(2019, 9, 1)));
        let senior = go
            .event("senior")
            .and_then(|e| e.birth_window)
            .expect("window");
        assert!(senior.contains(d(1955, 1, 1)) && senior.contains(d(1980, 12, 31)));
        assert!(!senior.contains(d(1981, 1, 1)));
        let xq = official_by_name("xiangqi-2022")
            .expect("known")
            .expect("valid");
        let youth = xq
            .event("youth")
            .and_then(|e| e.birth_window)
            .expect("window");
        assert!(youth.contains(d(2009, 1, 1)) && !youth.contains(d(2008, 12, 31)));
        assert_eq!(youth.born_to, None);
    }

    #[test]
    fn r_reg_2_overseas_xiangqi_exemption_only_in_xiangqi_2015() {
        for (name, _) in OFFICIAL {
            let p = official_by_name(name).expect("known").expect("valid");
            assert_eq!(p.bar.overseas_exempt, *name == "xiangqi-2015", "{name}");
        }
    }

    #[test]
    fn a_bad_file_reports_every_error_with_its_path() {
        let text = r#"
            format = 2
            name = "Go 2030"
            game = "shogi"
            season = 1990
            title_zh = ""
            title_en = "x"
            [registration]
            opens_on = "2030-07-01"
            closes_on = "2030-06-01"
            repeat_entry = true
            [fees]
            offline_service_fee_yuan = 0
            refund_no_show = false
            [[events]]
            code = "a"
            name_zh = "甲"
            name_en = "A"
            sex = "open"
            online_qualifier = true
            [[events]]
            code = "a"
            name_zh = "乙"
            name_en = "B"
            sex = "men"
            online_qualifier = false
            born_from = "2030-13-01"
        "#;
        let errors = parse(text).expect_err("invalid").0;
        let rendered: Vec<String> = errors.iter().map(ToString::to_string).collect();
        let expected = [
            "format: must be 1 (this build reads format 1)",
            "name: must be lowercase letters, digits and '-'",
            "game: \"shogi\" is not one of go, xiangqi, chess",
            "season: must be a year between 2000 and 2100",
            "title_zh: must not be empty",
            "registration.closes_on: must not be before registration.opens_on",
            "events[1].code: \"a\" appears more than once",
            "events[1].sex: \"men\" is not one of open, male, female",
            "events[1].born_from: \"2030-13-01\" is not a date (YYYY-MM-DD)",
        ];
        assert_eq!(rendered, expected);
    }

    #[test]
    fn unknown_fields_and_syntax_errors_are_reported_not_panicked() {
        let err = parse("format = 1\nnmae = \"x\"\n").expect_err("invalid");
        assert_eq!(err.0.len(), 1);
        assert!(err.0[0].message.contains("nmae"), "{}", err);
        assert!(parse("this is not toml").is_err());
    }
}
