//! Prizes of the final (录取名次和奖励, RULES.md section 9): prize tables as preset data, and the
//! award list of one ranking (R-PRZ-1, R-PRZ-2, R-IND-2).
//!
//! A [`PrizeTable`] belongs to one ranking of one event (`event = "men-individual"`,
//! `ranking = "open"`). Special prizes (best woman, best girl, the top 8 aged 60 or more) are tables
//! of their own, over the same ranking narrowed by [`Eligibility`]. [`award_list`] turns a table and
//! a final ranking into the awards: who gets which place, how much money (integer yuan) and which
//! in-kind awards, with shared places and the unpaid remainders reported. Deductions (R-PRZ-2) are
//! recorded against an award with [`deduct`]; [`totals`] sums a person's awards across events.

use chrono::{Datelike, NaiveDate};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;

use crate::identity::Sex;
use crate::preset::{Checker, Event, EventSex};

/// The highest place a prize table may list. Reading: no championship awards more than 1000 places;
/// the bound keeps a mistyped range ("1-4000000000") from being accepted.
pub const MAX_PLACES: u32 = 1000;

/// The largest amount one place may carry, in yuan.
pub const MAX_AMOUNT: i64 = 100_000_000;

/// An award given in kind with a prize (R-PRZ-1: "授予奖金、奖杯和奖状").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InKind {
    /// 奖杯
    Trophy,
    /// 奖牌
    Medal,
    /// 奖状 / 荣誉证书
    Certificate,
    /// 礼包 (go-2025: 千岛湖特色农副产品大礼包 for the top 8 seniors aged 60 or more)
    GiftPack,
}

impl InKind {
    pub fn code(self) -> &'static str {
        match self {
            InKind::Trophy => "trophy",
            InKind::Medal => "medal",
            InKind::Certificate => "certificate",
            InKind::GiftPack => "gift-pack",
        }
    }
    pub fn parse(code: &str) -> Option<InKind> {
        match code {
            "trophy" => Some(InKind::Trophy),
            "medal" => Some(InKind::Medal),
            "certificate" => Some(InKind::Certificate),
            "gift-pack" => Some(InKind::GiftPack),
            _ => None,
        }
    }
}

/// Who may take a place of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Eligibility {
    pub sex: EventSex,
    /// Aged at least this many full years on the reference day passed to [`award_list`].
    /// Reading: "60岁以上" includes 60 ("以上" is inclusive in Chinese sports rules), and age is
    /// counted in full years on the first day of the final.
    pub min_age: Option<u32>,
}

impl Eligibility {
    /// Everyone in the ranking.
    pub const ALL: Eligibility = Eligibility {
        sex: EventSex::Open,
        min_age: None,
    };

    /// Whether a ranked entry qualifies. An entry whose sex or birth date is unknown (a team, a
    /// pair) qualifies only for the conditions that do not need it.
    pub fn admits(&self, entry: &Placed, age_on: NaiveDate) -> bool {
        let sex_ok = match self.sex {
            EventSex::Open => true,
            restricted => entry.sex.is_some_and(|s| restricted.admits(s)),
        };
        let age_ok = match self.min_age {
            None => true,
            Some(min) => entry
                .birth_date
                .and_then(|b| full_years(b, age_on))
                .is_some_and(|age| age >= min),
        };
        sex_ok && age_ok
    }
}

/// Age in full years on `on` (None if `on` is before the birth date). A 29 February birthday is
/// reached on 1 March in common years.
pub fn full_years(birth: NaiveDate, on: NaiveDate) -> Option<u32> {
    if on < birth {
        return None;
    }
    let mut years = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        years -= 1;
    }
    u32::try_from(years).ok()
}

/// One prize table: the places of one ranking of one event and their amounts (RULES.md section 9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrizeTable {
    /// The event code the table belongs to (`men-individual`, `senior`, `men-team`, …).
    pub event: String,
    /// The ranking within the event (`open`, `women`, `boys`, `girls`, `team`, `pairs`,
    /// `best-woman`, …); unique with `event`.
    pub ranking: String,
    pub name_zh: String,
    pub name_en: String,
    pub eligible: Eligibility,
    /// 顺延: when true, ineligible players are removed from the ranking and the rest renumbered, so
    /// a place an ineligible player holds passes down. When false ("名次不再顺延"), places are
    /// counted in the full ranking and the share of an ineligible holder is vacated, not passed on.
    pub roll_down: bool,
    /// Amount in yuan for place 1, 2, … (index 0 is place 1). May be 0 for an in-kind-only place.
    pub amounts: Vec<i64>,
    /// What every place winner also receives.
    pub in_kind: Vec<InKind>,
    /// What the in-kind award is, when the seed says (`千岛湖特色农副产品大礼包`).
    pub note_zh: Option<String>,
}

impl PrizeTable {
    /// The number of places the table awards (录取名次).
    pub fn places(&self) -> u32 {
        u32::try_from(self.amounts.len()).unwrap_or(u32::MAX)
    }
    /// The amount of one place, 0 beyond the table.
    pub fn amount(&self, place: u32) -> i64 {
        usize::try_from(place)
            .ok()
            .and_then(|p| p.checked_sub(1))
            .and_then(|i| self.amounts.get(i))
            .copied()
            .unwrap_or(0)
    }
    /// The sum of all places' amounts.
    pub fn total(&self) -> i64 {
        self.amounts.iter().sum()
    }
    /// The same table awarding only its first `places` places (R-TEAM-5 limits team tables).
    pub fn limited_to(&self, places: u32) -> PrizeTable {
        let keep = usize::try_from(places).unwrap_or(usize::MAX);
        let mut t = self.clone();
        t.amounts.truncate(keep);
        t
    }
}

/// The table of `ranking` in `event`, if the preset has one.
pub fn find_table<'a>(
    tables: &'a [PrizeTable],
    event: &str,
    ranking: &str,
) -> Option<&'a PrizeTable> {
    tables
        .iter()
        .find(|t| t.event == event && t.ranking == ranking)
}

/// One entry of a final ranking, as the prize rules need it. `id` is a player id, or a team or pair
/// id for team and pairs tables (which have no sex or birth date).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub id: String,
    /// 1-based place; equal places are shared (standard competition ranking: 1, 2, 2, 4).
    pub place: u32,
    pub sex: Option<Sex>,
    pub birth_date: Option<NaiveDate>,
}

/// Why a ranking cannot be awarded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrizeError {
    #[error("{0:?} appears more than once in the ranking")]
    DuplicateEntry(String),
    #[error("{id:?} has place 0; places start at 1")]
    PlaceZero { id: String },
    #[error(
        "place {place} follows {ahead} entries; with shared places it must be {expected} (1, 2, 2, 4, …)"
    )]
    InconsistentPlaces {
        place: u32,
        ahead: u32,
        expected: u32,
    },
}

/// Checks that a ranking is in standard competition form (every place = 1 + entries strictly
/// ahead) with no entry twice, and returns it sorted by place, then id.
pub fn checked_ranking(ranking: &[Placed]) -> Result<Vec<Placed>, PrizeError> {
    let mut sorted: Vec<Placed> = ranking.to_vec();
    sorted.sort_by(|a, b| a.place.cmp(&b.place).then_with(|| a.id.cmp(&b.id)));
    let mut ids: Vec<&str> = sorted.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(PrizeError::DuplicateEntry(w[0].to_owned()));
    }
    let mut ahead = 0u32;
    let mut i = 0;
    while i < sorted.len() {
        let place = sorted[i].place;
        if place == 0 {
            return Err(PrizeError::PlaceZero {
                id: sorted[i].id.clone(),
            });
        }
        if place != ahead.saturating_add(1) {
            return Err(PrizeError::InconsistentPlaces {
                place,
                ahead,
                expected: ahead.saturating_add(1),
            });
        }
        let group = sorted[i..].iter().take_while(|p| p.place == place).count();
        ahead = ahead.saturating_add(u32::try_from(group).unwrap_or(u32::MAX));
        i += group;
    }
    Ok(sorted)
}

/// The entries `keep` accepts, in the ranking's order, renumbered: each place becomes 1 + the
/// number of kept entries strictly ahead, so entries sharing a place still share it. This is how
/// the women's ranking comes from the open ranking (R-TEAM-1 reading) and how a table rolls down.
pub fn renumbered(ranking: &[Placed], keep: impl Fn(&Placed) -> bool) -> Vec<Placed> {
    let mut kept: Vec<Placed> = ranking.iter().filter(|p| keep(p)).cloned().collect();
    kept.sort_by(|a, b| a.place.cmp(&b.place).then_with(|| a.id.cmp(&b.id)));
    let mut out = Vec::with_capacity(kept.len());
    let mut ahead = 0u32;
    let mut i = 0;
    while i < kept.len() {
        let original = kept[i].place;
        let group = kept[i..].iter().take_while(|p| p.place == original).count();
        for p in &kept[i..i + group] {
            out.push(Placed {
                place: ahead + 1,
                ..p.clone()
            });
        }
        ahead = ahead.saturating_add(u32::try_from(group).unwrap_or(u32::MAX));
        i += group;
    }
    out
}

/// A deduction recorded against an award (R-PRZ-2: 扣除部分奖金).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deduction {
    pub yuan: i64,
    pub reason: String,
    /// Who decided it (an organizer), for the audit trail (R-DIS-3).
    pub decided_by: String,
}

/// One award of a table: a place winner's prize and certificate data (R-PRZ-1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Award {
    pub event: String,
    pub ranking: String,
    /// Player, team or pair id.
    pub awardee: String,
    /// The place, in the table's ranking (renumbered when the table rolls down).
    pub place: u32,
    /// How many awardees share the place (1 when not shared).
    pub shared_by: u32,
    /// The awardee's share in yuan before deductions (the floor of pool / shared_by).
    pub yuan: i64,
    pub in_kind: Vec<InKind>,
    pub deductions: Vec<Deduction>,
}

impl Award {
    pub fn deducted(&self) -> i64 {
        self.deductions.iter().map(|d| d.yuan).sum()
    }
    /// What is paid: the share less the deductions.
    pub fn net_yuan(&self) -> i64 {
        self.yuan - self.deducted()
    }
}

/// One place, or a group of tied entries covering several places, and how its pool was split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedPlace {
    pub first_place: u32,
    /// The last place the group covers (`first_place` when nobody ties).
    pub last_place: u32,
    /// Entries holding the place.
    pub holders: u32,
    /// The summed amounts of the covered places within the table.
    pub pool: i64,
    /// Each holder's share: floor(pool / holders).
    pub share: i64,
    /// pool − share × holders: reported, not paid (R-PRZ-1 reading).
    pub remainder: i64,
    /// Shares of holders the table does not admit, when it does not roll down: not paid.
    pub vacated: i64,
}

/// The award list of one table over one ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwardList {
    pub event: String,
    pub ranking: String,
    /// In place order, then by awardee.
    pub awards: Vec<Award>,
    /// Every place group that covers at least one place of the table, in place order.
    pub places: Vec<SharedPlace>,
}

impl AwardList {
    /// Sum of the awards' shares before deductions.
    pub fn gross(&self) -> i64 {
        self.awards.iter().map(|a| a.yuan).sum()
    }
    /// Sum actually paid (after deductions).
    pub fn paid(&self) -> i64 {
        self.awards.iter().map(Award::net_yuan).sum()
    }
    /// Yuan left over by splitting pools into equal whole-yuan shares.
    pub fn unpaid_remainder(&self) -> i64 {
        self.places.iter().map(|p| p.remainder).sum()
    }
    /// Yuan of places held by entries the table does not admit (no roll-down).
    pub fn vacated(&self) -> i64 {
        self.places.iter().map(|p| p.vacated).sum()
    }
    /// The awards of one awardee.
    pub fn awards_of<'a>(&'a self, awardee: &'a str) -> impl Iterator<Item = &'a Award> + 'a {
        self.awards.iter().filter(move |a| a.awardee == awardee)
    }
}

/// The award list of `table` over a final `ranking` (R-PRZ-1, R-IND-2).
///
/// The ranking is the full ranking the table is read from (the open ranking for the open, women's
/// and special tables of an event; the team ranking for a team table). `age_on` is the day ages are
/// counted on for an age-restricted table (the first day of the final).
///
/// - A table that rolls down is read from the ranking narrowed to the eligible entries and
///   renumbered ([`renumbered`]); one that does not is read from the full ranking, and the shares
///   of ineligible holders are vacated (R-IND-2: "名次不再顺延").
/// - Entries sharing a place cover as many places as there are of them and share the summed
///   amounts of those places; each gets the floor of the share, the remainder is reported.
///   Places beyond the table add nothing; a group entirely beyond the table gets nothing.
/// - Every holder of a place within the table gets the table's in-kind awards, also when the
///   amount is 0.
///
/// Reading: tables are independent, so a woman in the open ranking also takes her women's prize
/// (cumulative, R-IND-2), and a special prize (best woman, best girl) adds to a place prize.
pub fn award_list(
    table: &PrizeTable,
    ranking: &[Placed],
    age_on: NaiveDate,
) -> Result<AwardList, PrizeError> {
    let full = checked_ranking(ranking)?;
    let read_from = if table.roll_down {
        renumbered(&full, |p| table.eligible.admits(p, age_on))
    } else {
        full
    };
    let mut awards = Vec::new();
    let mut places = Vec::new();
    let mut i = 0;
    while i < read_from.len() {
        let first = read_from[i].place;
        let group: Vec<&Placed> = read_from[i..]
            .iter()
            .take_while(|p| p.place == first)
            .collect();
        i += group.len();
        if first > table.places() {
            break;
        }
        let holders = u32::try_from(group.len()).unwrap_or(u32::MAX);
        let last = first.saturating_add(holders - 1);
        let pool: i64 = (first..=last.min(table.places()))
            .map(|p| table.amount(p))
            .sum();
        let share = pool / i64::from(holders);
        let remainder = pool - share * i64::from(holders);
        let mut vacated = 0;
        for p in group {
            if table.eligible.admits(p, age_on) {
                awards.push(Award {
                    event: table.event.clone(),
                    ranking: table.ranking.clone(),
                    awardee: p.id.clone(),
                    place: first,
                    shared_by: holders,
                    yuan: share,
                    in_kind: table.in_kind.clone(),
                    deductions: Vec::new(),
                });
            } else {
                vacated += share;
            }
        }
        places.push(SharedPlace {
            first_place: first,
            last_place: last,
            holders,
            pool,
            share,
            remainder,
            vacated,
        });
    }
    Ok(AwardList {
        event: table.event.clone(),
        ranking: table.ranking.clone(),
        awards,
        places,
    })
}

/// Why a deduction was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeductionError {
    #[error("a deduction must be more than 0 yuan")]
    NotPositive,
    #[error("a deduction needs a reason")]
    NoReason,
    #[error("a deduction needs the organizer who decided it")]
    NoDecider,
    #[error(
        "deducting {requested} yuan would take more than the award's {award} yuan ({already} already deducted)"
    )]
    ExceedsAward {
        award: i64,
        already: i64,
        requested: i64,
    },
}

/// Records a deduction against an award (R-PRZ-2: a finalist who skips the mandatory ceremonies
/// may lose part of the prize). Returns the award with the deduction added.
///
/// Reading: deductions together may take at most the whole money share, never more (the net is
/// never negative); in-kind awards are not touched. The seed names deductions for go-2025; the
/// function records one in any preset, since the disciplinary rules of the other seasons do not
/// rule it out.
pub fn deduct(
    award: &Award,
    yuan: i64,
    reason: &str,
    decided_by: &str,
) -> Result<Award, DeductionError> {
    if yuan <= 0 {
        return Err(DeductionError::NotPositive);
    }
    if reason.trim().is_empty() {
        return Err(DeductionError::NoReason);
    }
    if decided_by.trim().is_empty() {
        return Err(DeductionError::NoDecider);
    }
    let already = award.deducted();
    if already.saturating_add(yuan) > award.yuan {
        return Err(DeductionError::ExceedsAward {
            award: award.yuan,
            already,
            requested: yuan,
        });
    }
    let mut out = award.clone();
    out.deductions.push(Deduction {
        yuan,
        reason: reason.trim().to_owned(),
        decided_by: decided_by.trim().to_owned(),
    });
    Ok(out)
}

/// One awardee's prizes across events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwardeeTotal {
    pub awardee: String,
    /// Number of awards.
    pub awards: u32,
    pub gross: i64,
    pub deducted: i64,
    pub net: i64,
    /// Every in-kind award, in order of the lists.
    pub in_kind: Vec<InKind>,
}

/// Totals per awardee over several award lists (a woman's open and women's prizes add up, R-IND-2),
/// sorted by awardee.
pub fn totals(lists: &[AwardList]) -> Vec<AwardeeTotal> {
    let mut by: BTreeMap<&str, AwardeeTotal> = BTreeMap::new();
    for a in lists.iter().flat_map(|l| &l.awards) {
        let t = by.entry(&a.awardee).or_insert_with(|| AwardeeTotal {
            awardee: a.awardee.clone(),
            awards: 0,
            gross: 0,
            deducted: 0,
            net: 0,
            in_kind: Vec::new(),
        });
        t.awards += 1;
        t.gross += a.yuan;
        t.deducted += a.deducted();
        t.net += a.net_yuan();
        t.in_kind.extend(a.in_kind.iter().copied());
    }
    by.into_values().collect()
}

// ---------------------------------------------------------------------------------------------
// Preset section `[[prizes]]`
// ---------------------------------------------------------------------------------------------

/// One `[[prizes]]` table of a preset file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PrizeTableFile {
    pub(crate) event: String,
    pub(crate) ranking: String,
    pub(crate) name_zh: String,
    pub(crate) name_en: String,
    /// `open` | `male` | `female`
    pub(crate) sex: String,
    pub(crate) min_age: Option<i64>,
    pub(crate) roll_down: bool,
    /// Places to amounts: keys `"1"` or ranges `"4-8"`, values yuan.
    pub(crate) places: BTreeMap<String, i64>,
    #[serde(default)]
    pub(crate) in_kind: Vec<String>,
    pub(crate) note_zh: Option<String>,
}

/// A place key of `places`: `"7"` or `"9-16"`.
fn parse_place_key(key: &str) -> Option<(u32, u32)> {
    let parse = |s: &str| -> Option<u32> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    match key.split_once('-') {
        None => parse(key).map(|p| (p, p)),
        Some((a, b)) => Some((parse(a)?, parse(b)?)),
    }
}

/// Validates one `[[prizes]]` table, reporting every problem under `path` (e.g. `prizes[3]`).
pub(crate) fn check_prize_table(
    file: &PrizeTableFile,
    path: &str,
    c: &mut Checker,
) -> Option<PrizeTable> {
    let p = |field: &str| format!("{path}.{field}");
    let errors_before = c.0.len();
    c.non_empty(&p("event"), &file.event);
    c.non_empty(&p("ranking"), &file.ranking);
    c.non_empty(&p("name_zh"), &file.name_zh);
    c.non_empty(&p("name_en"), &file.name_en);
    let sex = match file.sex.as_str() {
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
    let min_age = match file.min_age {
        None => None,
        Some(a) if (1..=150).contains(&a) => u32::try_from(a).ok(),
        Some(_) => {
            c.err(p("min_age"), "must be between 1 and 150");
            None
        }
    };
    // Places: every key parses, ranges are ascending, nothing overlaps, 1..=N has no gap.
    let mut covered: Vec<Option<i64>> = Vec::new();
    if file.places.is_empty() {
        c.err(p("places"), "must list at least one place");
    }
    let mut ranges: Vec<(u32, u32, &str)> = Vec::new();
    for (key, &amount) in &file.places {
        let kp = format!("{path}.places.{key}");
        let Some((from, to)) = parse_place_key(key) else {
            c.err(
                kp,
                "must be a place (\"7\") or a range of places (\"9-16\")",
            );
            continue;
        };
        if from == 0 {
            c.err(&kp, "places start at 1");
        }
        if to < from {
            c.err(&kp, "range must not end before it starts");
        }
        if to > MAX_PLACES {
            c.err(&kp, format!("places must not exceed {MAX_PLACES}"));
        }
        if amount < 0 {
            c.err(&kp, "amount must not be negative");
        } else if amount > MAX_AMOUNT {
            c.err(&kp, format!("amount must be at most {MAX_AMOUNT} yuan"));
        }
        if from == 0 || to < from || to > MAX_PLACES {
            continue;
        }
        for &(f, t, other) in &ranges {
            if from <= t && f <= to {
                c.err(&kp, format!("overlaps places {other}"));
            }
        }
        ranges.push((from, to, key));
        let len = usize::try_from(to).unwrap_or(usize::MAX);
        if covered.len() < len {
            covered.resize(len, None);
        }
        for slot in covered
            .iter_mut()
            .take(len)
            .skip(usize::try_from(from - 1).unwrap_or(0))
        {
            *slot = Some(amount.clamp(0, MAX_AMOUNT));
        }
    }
    let missing: Vec<String> = covered
        .iter()
        .enumerate()
        .filter(|(_, a)| a.is_none())
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    if !missing.is_empty() {
        c.err(
            p("places"),
            format!(
                "places 1-{} must all be listed; missing {}",
                covered.len(),
                missing.join(", ")
            ),
        );
    }
    let mut in_kind = Vec::new();
    for (i, code) in file.in_kind.iter().enumerate() {
        match InKind::parse(code) {
            Some(k) if in_kind.contains(&k) => {
                c.err(
                    format!("{path}.in_kind[{i}]"),
                    format!("{code:?} is listed twice"),
                );
            }
            Some(k) => in_kind.push(k),
            None => c.err(
                format!("{path}.in_kind[{i}]"),
                format!("{code:?} is not one of trophy, medal, certificate, gift-pack"),
            ),
        }
    }
    if let Some(note) = &file.note_zh {
        c.non_empty(&p("note_zh"), note);
    }
    if c.0.len() > errors_before {
        return None;
    }
    Some(PrizeTable {
        event: file.event.clone(),
        ranking: file.ranking.clone(),
        name_zh: file.name_zh.clone(),
        name_en: file.name_en.clone(),
        eligible: Eligibility { sex: sex?, min_age },
        roll_down: file.roll_down,
        amounts: covered.into_iter().map(|a| a.unwrap_or(0)).collect(),
        in_kind,
        note_zh: file.note_zh.clone(),
    })
}

/// Validates the `[[prizes]]` array (`path` is `prizes`): every table, and no `(event, ranking)`
/// twice.
pub(crate) fn check_prizes(
    files: &[PrizeTableFile],
    path: &str,
    c: &mut Checker,
) -> Option<Vec<PrizeTable>> {
    let mut tables = Vec::with_capacity(files.len());
    let mut ok = true;
    for (i, f) in files.iter().enumerate() {
        let here = format!("{path}[{i}]");
        if files[..i]
            .iter()
            .any(|prev| prev.event == f.event && prev.ranking == f.ranking)
        {
            c.err(
                format!("{here}.ranking"),
                format!(
                    "event {:?} already has a {:?} prize table",
                    f.event, f.ranking
                ),
            );
            ok = false;
        }
        match check_prize_table(f, &here, c) {
            Some(t) => tables.push(t),
            None => ok = false,
        }
    }
    ok.then_some(tables)
}

/// Cross-checks validated tables against the preset's events: every table names a known event.
pub(crate) fn check_prizes_against_events(
    tables: &[PrizeTable],
    events: &[Event],
    path: &str,
    c: &mut Checker,
) {
    for (i, t) in tables.iter().enumerate() {
        if !events.iter().any(|e| e.code == t.event) {
            c.err(
                format!("{path}[{i}].event"),
                format!("{:?} is not an event of this preset", t.event),
            );
        }
    }
}

impl fmt::Display for PrizeTable {
    /// The compact form of the places (`1: 50000, 2: 20000, 4-8: 3000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut i = 0;
        let mut first = true;
        while i < self.amounts.len() {
            let a = self.amounts[i];
            let run = self.amounts[i..].iter().take_while(|&&x| x == a).count();
            if !first {
                write!(f, ", ")?;
            }
            first = false;
            if run == 1 {
                write!(f, "{}: {a}", i + 1)?;
            } else {
                write!(f, "{}-{}: {a}", i + 1, i + run)?;
            }
            i += run;
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The prize tables of an official preset.
    pub(crate) fn tables(preset: &str) -> Vec<PrizeTable> {
        crate::advancement::tests::official(preset).prizes.clone()
    }

    fn table<'a>(tables: &'a [PrizeTable], event: &str, ranking: &str) -> &'a PrizeTable {
        find_table(tables, event, ranking).expect("table")
    }

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }

    fn pl(id: &str, place: u32, sex: Sex) -> Placed {
        Placed {
            id: id.to_owned(),
            place,
            sex: Some(sex),
            birth_date: Some(d(1990, 1, 1)),
        }
    }

    /// A ranking without ties of `n` men, `m1`…`mn`.
    fn men(n: u32) -> Vec<Placed> {
        (1..=n)
            .map(|i| pl(&format!("m{i}"), i, Sex::Male))
            .collect()
    }

    fn yuan_of(list: &AwardList, id: &str) -> i64 {
        list.awards_of(id).map(|a| a.yuan).sum()
    }

    fn final_day() -> NaiveDate {
        d(2025, 11, 7)
    }

    /// Expands RULES.md section 9's compact notation: (last place, amount) runs.
    fn runs(runs: &[(usize, i64)]) -> Vec<i64> {
        let mut v = Vec::new();
        for &(last, amount) in runs {
            while v.len() < last {
                v.push(amount);
            }
        }
        v
    }

    /// (event, ranking, amounts of places 1, 2, …)
    type ExpectedTable = (&'static str, &'static str, Vec<i64>);

    #[test]
    fn r_prz_1_every_prize_table_of_section_9_is_in_the_snippets() {
        let expected: &[(&str, &[ExpectedTable])] = &[
            (
                "go-2015",
                &[
                    (
                        "men-individual",
                        "open",
                        runs(&[
                            (1, 60000),
                            (2, 30000),
                            (3, 20000),
                            (4, 10000),
                            (6, 5000),
                            (8, 3000),
                            (16, 2000),
                            (32, 1000),
                        ]),
                    ),
                    (
                        "women-individual",
                        "women",
                        vec![10000, 5000, 3000, 1000, 800, 600],
                    ),
                    (
                        "men-team",
                        "team",
                        vec![25000, 12000, 8000, 5000, 5000, 5000],
                    ),
                    (
                        "women-team",
                        "team",
                        vec![15000, 10000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "men-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "women-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "mixed-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "parent-child-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                ],
            ),
            (
                "xiangqi-2015",
                &[
                    (
                        "men-individual",
                        "open",
                        runs(&[
                            (1, 50000),
                            (2, 20000),
                            (3, 10000),
                            (8, 3000),
                            (16, 2000),
                            (32, 1000),
                        ]),
                    ),
                    (
                        "women-individual",
                        "women",
                        vec![3000, 2000, 1000, 800, 600, 500],
                    ),
                    (
                        "men-team",
                        "team",
                        vec![12000, 9000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "women-team",
                        "team",
                        vec![12000, 9000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "men-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "women-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "mixed-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                    (
                        "parent-child-pairs",
                        "pairs",
                        vec![10000, 8000, 6000, 3000, 3000, 3000],
                    ),
                ],
            ),
            (
                "xiangqi-2022",
                &[
                    (
                        "men-individual",
                        "open",
                        runs(&[(1, 50000), (2, 20000), (3, 10000), (8, 3000), (32, 1000)]),
                    ),
                    (
                        "women-individual",
                        "women",
                        vec![5000, 3000, 2000, 1000, 800, 600],
                    ),
                    (
                        "youth",
                        "boys",
                        runs(&[(1, 2000), (2, 1500), (3, 1000), (8, 500)]),
                    ),
                    ("youth", "girls", vec![1000, 800, 500]),
                    (
                        "men-pairs",
                        "pairs",
                        vec![6000, 4000, 2000, 1000, 1000, 1000],
                    ),
                    (
                        "women-pairs",
                        "pairs",
                        vec![6000, 4000, 2000, 1000, 1000, 1000],
                    ),
                    (
                        "mixed-pairs",
                        "pairs",
                        vec![6000, 4000, 2000, 1000, 1000, 1000],
                    ),
                    (
                        "parent-child-pairs",
                        "pairs",
                        vec![6000, 4000, 2000, 1000, 1000, 1000],
                    ),
                    (
                        "men-team",
                        "team",
                        vec![12000, 9000, 6000, 4000, 3000, 2000],
                    ),
                    ("women-team", "team", vec![8000, 5000, 2000]),
                    ("youth", "team", vec![3000, 2000, 1000, 800, 800, 800]),
                ],
            ),
            (
                "go-2025",
                &[
                    (
                        "men-individual",
                        "open",
                        runs(&[
                            (1, 60000),
                            (2, 30000),
                            (3, 20000),
                            (4, 10000),
                            (6, 5000),
                            (8, 3000),
                            (32, 1000),
                        ]),
                    ),
                    (
                        "women-individual",
                        "women",
                        vec![10000, 5000, 3000, 1000, 800, 600],
                    ),
                    ("men-team", "team", vec![10000, 6000, 4000, 3000, 800, 600]),
                    ("women-team", "team", vec![8000, 5000, 2000]),
                    (
                        "junior",
                        "boys",
                        runs(&[(1, 6000), (2, 4000), (3, 2000), (10, 1000), (16, 800)]),
                    ),
                    (
                        "junior",
                        "girls",
                        runs(&[(1, 3000), (2, 2000), (3, 1000), (8, 500)]),
                    ),
                    (
                        "infant",
                        "open",
                        runs(&[(1, 2000), (2, 1500), (3, 800), (8, 500)]),
                    ),
                    ("infant", "best-girl", vec![800]),
                    (
                        "senior",
                        "open",
                        runs(&[(1, 5000), (2, 2000), (3, 1000), (8, 600), (16, 400)]),
                    ),
                    ("senior", "best-woman", vec![800]),
                    ("senior", "aged-60-plus", vec![0; 8]),
                ],
            ),
        ];
        for (preset, want) in expected {
            let got = tables(preset);
            assert_eq!(got.len(), want.len());
            for (event, ranking, amounts) in *want {
                assert_eq!(
                    &table(&got, event, ranking).amounts,
                    amounts,
                    "{event}/{ranking}"
                );
            }
        }
    }

    #[test]
    fn r_prz_1_go_2015_open_top_32_sums_to_168000() {
        let t = tables("go-2015");
        let open = table(&t, "men-individual", "open");
        assert_eq!(open.places(), 32);
        assert_eq!(open.total(), 168_000);
        let list = award_list(open, &men(40), final_day()).expect("valid");
        assert_eq!(list.awards.len(), 32);
        assert_eq!(list.gross(), 168_000);
        assert_eq!(list.unpaid_remainder(), 0);
        assert_eq!(yuan_of(&list, "m1"), 60000);
        assert_eq!(yuan_of(&list, "m16"), 2000);
        assert_eq!(yuan_of(&list, "m32"), 1000);
        assert_eq!(yuan_of(&list, "m33"), 0);
        assert_eq!(
            open.to_string(),
            "1: 60000, 2: 30000, 3: 20000, 4: 10000, 5-6: 5000, 7-8: 3000, 9-16: 2000, 17-32: 1000"
        );
    }

    #[test]
    fn r_prz_1_xiangqi_2015_tie_at_places_4_and_5_shares_3000_plus_3000() {
        let t = tables("xiangqi-2015");
        let open = table(&t, "men-individual", "open");
        let mut ranking = men(6);
        ranking[4].place = 4; // m4 and m5 share 4th; m6 is 6th
        let list = award_list(open, &ranking, final_day()).expect("valid");
        assert_eq!(yuan_of(&list, "m4"), 3000);
        assert_eq!(yuan_of(&list, "m5"), 3000);
        let shared = &list.places[3];
        assert_eq!(
            (
                shared.first_place,
                shared.last_place,
                shared.holders,
                shared.pool,
                shared.share,
                shared.remainder
            ),
            (4, 5, 2, 6000, 3000, 0)
        );
        assert!(
            list.awards_of("m4")
                .all(|a| a.place == 4 && a.shared_by == 2)
        );
        assert_eq!(yuan_of(&list, "m6"), 3000);
    }

    #[test]
    fn r_prz_1_shares_are_floored_and_the_remainder_reported() {
        // go-2015 open: three players share 5th, covering 5-7: 5000 + 5000 + 3000 = 13000.
        let t = tables("go-2015");
        let open = table(&t, "men-individual", "open");
        let mut ranking = men(8);
        ranking[5].place = 5;
        ranking[6].place = 5;
        let list = award_list(open, &ranking, final_day()).expect("valid");
        for id in ["m5", "m6", "m7"] {
            assert_eq!(yuan_of(&list, id), 4333, "{id}");
        }
        assert_eq!(list.places[4].remainder, 1);
        assert_eq!(list.unpaid_remainder(), 1);
        assert_eq!(yuan_of(&list, "m8"), 3000);
        assert_eq!(
            list.gross() + list.unpaid_remainder(),
            open.amounts[..8].iter().sum::<i64>()
        );
    }

    #[test]
    fn r_prz_1_places_beyond_the_table_add_nothing() {
        let t = tables("go-2015");
        let women = table(&t, "women-individual", "women");
        let mut ranking: Vec<Placed> = (1..=9)
            .map(|i| pl(&format!("w{i}"), i, Sex::Female))
            .collect();
        ranking[6].place = 6; // w6 and w7 share 6th, covering 6-7: only 600 is in the table
        let list = award_list(women, &ranking, final_day()).expect("valid");
        assert_eq!(yuan_of(&list, "w6"), 300);
        assert_eq!(yuan_of(&list, "w7"), 300);
        assert!(list.awards_of("w8").next().is_none());
        assert_eq!(list.places.len(), 6);
        // A group entirely beyond the table gets nothing, not even a certificate.
        assert!(list.awards.iter().all(|a| a.place <= 6));
    }

    #[test]
    fn r_prz_1_place_winners_get_the_in_kind_awards() {
        let t = tables("go-2015");
        let list =
            award_list(table(&t, "men-individual", "open"), &men(3), final_day()).expect("valid");
        assert!(
            list.awards
                .iter()
                .all(|a| a.in_kind == [InKind::Trophy, InKind::Certificate])
        );
        let t = tables("go-2025");
        let list = award_list(table(&t, "men-team", "team"), &men(1), final_day()).expect("valid");
        assert_eq!(
            list.awards[0].in_kind,
            [InKind::Trophy, InKind::Certificate]
        );
    }

    #[test]
    fn r_ind_2_the_open_ranking_includes_women_without_roll_down_and_prizes_add_up() {
        let t = tables("go-2025");
        let mut ranking = men(8);
        ranking[2] = pl("w", 3, Sex::Female);
        ranking.push(pl("w2", 9, Sex::Female));
        let open =
            award_list(table(&t, "men-individual", "open"), &ranking, final_day()).expect("valid");
        assert_eq!(yuan_of(&open, "w"), 20000, "she keeps 3rd place");
        assert_eq!(yuan_of(&open, "m4"), 10000, "4th does not move up to 3rd");
        assert_eq!(open.vacated(), 0);
        let women = award_list(
            table(&t, "women-individual", "women"),
            &ranking,
            final_day(),
        )
        .expect("valid");
        assert_eq!(
            women
                .awards
                .iter()
                .map(|a| (a.awardee.as_str(), a.place, a.yuan))
                .collect::<Vec<_>>(),
            [("w", 1, 10000), ("w2", 2, 5000)]
        );
        let all = totals(&[open, women]);
        let w = all.iter().find(|t| t.awardee == "w").expect("w");
        assert_eq!((w.awards, w.net), (2, 30000));
        let w2 = all.iter().find(|t| t.awardee == "w2").expect("w2");
        assert_eq!(w2.net, 1000 + 5000);
    }

    #[test]
    fn r_ind_2_go_2025_junior_boys_table_is_open_to_girls_without_roll_down() {
        let t = tables("go-2025");
        let mut ranking = men(17);
        ranking[0] = pl("g", 1, Sex::Female);
        let boys = award_list(table(&t, "junior", "boys"), &ranking, final_day()).expect("valid");
        assert_eq!(yuan_of(&boys, "g"), 6000);
        assert_eq!(yuan_of(&boys, "m2"), 4000);
        assert_eq!(boys.awards.len(), 16);
        assert!(
            boys.awards_of("m17").next().is_none(),
            "17th does not roll into the top 16"
        );
        let girls = award_list(table(&t, "junior", "girls"), &ranking, final_day()).expect("valid");
        assert_eq!((girls.awards.len(), yuan_of(&girls, "g")), (1, 3000));
    }

    #[test]
    fn r_prz_1_a_table_that_does_not_roll_down_vacates_ineligible_shares() {
        // A hypothetical men-only table without roll-down: the woman's place is not passed on.
        let t = PrizeTable {
            event: "x".into(),
            ranking: "men".into(),
            name_zh: "男".into(),
            name_en: "Men".into(),
            eligible: Eligibility {
                sex: EventSex::Male,
                min_age: None,
            },
            roll_down: false,
            amounts: vec![300, 200, 100],
            in_kind: vec![],
            note_zh: None,
        };
        let mut ranking = men(4);
        ranking[0] = pl("w", 1, Sex::Female);
        let list = award_list(&t, &ranking, final_day()).expect("valid");
        assert_eq!(list.vacated(), 300);
        assert_eq!((yuan_of(&list, "m2"), yuan_of(&list, "m4")), (200, 0));
        let mut rolling = t.clone();
        rolling.roll_down = true;
        let list = award_list(&rolling, &ranking, final_day()).expect("valid");
        assert_eq!((yuan_of(&list, "m2"), yuan_of(&list, "m4")), (300, 100));
        assert_eq!(list.vacated(), 0);
    }

    #[test]
    fn r_prz_1_go_2025_special_prizes_best_woman_best_girl_and_aged_60_plus() {
        let t = tables("go-2025");
        let final_day = d(2025, 11, 7);
        // Seniors: s1..s10; s3 and s5 are women; s2 turns 60 on the first day of the final,
        // s4 turns 60 the day after; s6..s10 are over 60.
        let mut ranking: Vec<Placed> = (1..=10)
            .map(|i| Placed {
                id: format!("s{i}"),
                place: i,
                sex: Some(if i == 3 || i == 5 {
                    Sex::Female
                } else {
                    Sex::Male
                }),
                birth_date: Some(d(1970, 1, 1)),
            })
            .collect();
        ranking[1].birth_date = Some(d(1965, 11, 7));
        ranking[3].birth_date = Some(d(1965, 11, 8));
        for p in &mut ranking[5..] {
            p.birth_date = Some(d(1956, 3, 1));
        }
        let best =
            award_list(table(&t, "senior", "best-woman"), &ranking, final_day).expect("valid");
        assert_eq!(
            best.awards
                .iter()
                .map(|a| (a.awardee.as_str(), a.yuan))
                .collect::<Vec<_>>(),
            [("s3", 800)]
        );
        let place = award_list(table(&t, "senior", "open"), &ranking, final_day).expect("valid");
        assert_eq!(
            yuan_of(&place, "s3") + yuan_of(&best, "s3"),
            1000 + 800,
            "cumulative"
        );
        let aged =
            award_list(table(&t, "senior", "aged-60-plus"), &ranking, final_day).expect("valid");
        let got: Vec<(&str, u32, i64)> = aged
            .awards
            .iter()
            .map(|a| (a.awardee.as_str(), a.place, a.yuan))
            .collect();
        assert_eq!(
            got,
            [
                ("s2", 1, 0),
                ("s6", 2, 0),
                ("s7", 3, 0),
                ("s8", 4, 0),
                ("s9", 5, 0),
                ("s10", 6, 0)
            ]
        );
        assert!(aged.awards.iter().all(|a| a.in_kind == [InKind::GiftPack]));
        assert_eq!(
            table(&t, "senior", "aged-60-plus").note_zh.as_deref(),
            Some("千岛湖特色农副产品大礼包")
        );
        // Two girls sharing the best girls' place share the 800.
        let infants = vec![
            pl("b", 1, Sex::Male),
            pl("g1", 2, Sex::Female),
            pl("g2", 2, Sex::Female),
        ];
        let girl =
            award_list(table(&t, "infant", "best-girl"), &infants, final_day).expect("valid");
        assert_eq!((yuan_of(&girl, "g1"), yuan_of(&girl, "g2")), (400, 400));
    }

    #[test]
    fn r_prz_1_full_years_counts_birthdays_exactly() {
        assert_eq!(full_years(d(1965, 11, 7), d(2025, 11, 7)), Some(60));
        assert_eq!(full_years(d(1965, 11, 8), d(2025, 11, 7)), Some(59));
        assert_eq!(full_years(d(1964, 2, 29), d(2025, 2, 28)), Some(60));
        assert_eq!(full_years(d(1964, 2, 29), d(2024, 2, 29)), Some(60));
        assert_eq!(full_years(d(2026, 1, 1), d(2025, 1, 1)), None);
    }

    #[test]
    fn r_prz_1_a_ranking_must_be_in_competition_form() {
        let t = tables("go-2015");
        let open = table(&t, "men-individual", "open");
        let dense = vec![
            pl("a", 1, Sex::Male),
            pl("b", 1, Sex::Male),
            pl("c", 2, Sex::Male),
        ];
        assert_eq!(
            award_list(open, &dense, final_day()),
            Err(PrizeError::InconsistentPlaces {
                place: 2,
                ahead: 2,
                expected: 3
            })
        );
        let twice = vec![pl("a", 1, Sex::Male), pl("a", 2, Sex::Male)];
        assert_eq!(
            award_list(open, &twice, final_day()),
            Err(PrizeError::DuplicateEntry("a".into()))
        );
        let zero = vec![pl("a", 0, Sex::Male)];
        assert_eq!(
            award_list(open, &zero, final_day()),
            Err(PrizeError::PlaceZero { id: "a".into() })
        );
        let empty = award_list(open, &[], final_day()).expect("valid");
        assert!(empty.awards.is_empty() && empty.places.is_empty());
    }

    #[test]
    fn r_prz_2_deductions_are_recorded_against_the_award_with_a_reason() {
        let t = tables("go-2025");
        let list =
            award_list(table(&t, "men-individual", "open"), &men(1), final_day()).expect("valid");
        let award = &list.awards[0];
        let once = deduct(
            award,
            6000,
            "absent from the opening ceremony",
            "organizer-1",
        )
        .expect("ok");
        assert_eq!(once.net_yuan(), 54000);
        assert_eq!(
            once.deductions[0].reason,
            "absent from the opening ceremony"
        );
        assert_eq!(once.deductions[0].decided_by, "organizer-1");
        let twice =
            deduct(&once, 4000, "absent from the award ceremony", "organizer-2").expect("ok");
        assert_eq!(
            (twice.deducted(), twice.net_yuan(), twice.yuan),
            (10000, 50000, 60000)
        );
        assert_eq!(
            deduct(&twice, 50001, "x", "o"),
            Err(DeductionError::ExceedsAward {
                award: 60000,
                already: 10000,
                requested: 50001
            })
        );
        assert_eq!(deduct(award, 0, "x", "o"), Err(DeductionError::NotPositive));
        assert_eq!(deduct(award, 1, "  ", "o"), Err(DeductionError::NoReason));
        assert_eq!(deduct(award, 1, "x", ""), Err(DeductionError::NoDecider));
        let mut list2 = list.clone();
        list2.awards[0] = twice;
        let total = &totals(&[list2])[0];
        assert_eq!(
            (total.gross, total.deducted, total.net),
            (60000, 10000, 50000)
        );
    }

    #[test]
    fn r_prz_1_totals_per_person_across_events() {
        let t = tables("xiangqi-2022");
        let mut ranking = men(3);
        ranking[0] = pl("w", 1, Sex::Female);
        let open =
            award_list(table(&t, "men-individual", "open"), &ranking, final_day()).expect("valid");
        let women = award_list(
            table(&t, "women-individual", "women"),
            &ranking,
            final_day(),
        )
        .expect("valid");
        let pairs = vec![
            Placed {
                id: "pair-1".into(),
                place: 1,
                sex: None,
                birth_date: None,
            },
            Placed {
                id: "w".into(),
                place: 2,
                sex: None,
                birth_date: None,
            },
        ];
        let pairs =
            award_list(table(&t, "mixed-pairs", "pairs"), &pairs, final_day()).expect("valid");
        let all = totals(&[open, women, pairs]);
        assert_eq!(
            all.iter()
                .map(|t| (t.awardee.as_str(), t.awards, t.net))
                .collect::<Vec<_>>(),
            [
                ("m2", 1, 20000),
                ("m3", 1, 10000),
                ("pair-1", 1, 6000),
                ("w", 3, 50000 + 5000 + 4000)
            ]
        );
    }

    #[test]
    fn r_prz_1_a_bad_table_reports_every_error_with_its_path() {
        let text = r#"
            [[prizes]]
            event = ""
            ranking = "open"
            name_zh = "x"
            name_en = "x"
            sex = "men"
            min_age = 0
            roll_down = false
            places = { 1 = 100, 3-2 = 5, 4-6 = -1, 5 = 10, x = 1, 9 = 1 }
            in_kind = ["trophy", "cup", "trophy"]
            [[prizes]]
            event = "a"
            ranking = "open"
            name_zh = "x"
            name_en = "x"
            sex = "open"
            roll_down = false
            places = { 1 = 100, 2-2000 = 1 }
            [[prizes]]
            event = "a"
            ranking = "open"
            name_zh = "x"
            name_en = "x"
            sex = "open"
            roll_down = false
            places = {}
        "#;
        #[derive(Deserialize)]
        struct OnlyPrizes {
            prizes: Vec<PrizeTableFile>,
        }
        let f: OnlyPrizes = toml::from_str(text).expect("toml");
        let mut c = Checker::new();
        assert!(check_prizes(&f.prizes, "prizes", &mut c).is_none());
        let rendered: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        let expected = [
            "prizes[0].event: must not be empty",
            "prizes[0].sex: \"men\" is not one of open, male, female",
            "prizes[0].min_age: must be between 1 and 150",
            "prizes[0].places.3-2: range must not end before it starts",
            "prizes[0].places.4-6: amount must not be negative",
            "prizes[0].places.5: overlaps places 4-6",
            "prizes[0].places.x: must be a place (\"7\") or a range of places (\"9-16\")",
            "prizes[0].places: places 1-9 must all be listed; missing 2, 3, 7, 8",
            "prizes[0].in_kind[1]: \"cup\" is not one of trophy, medal, certificate, gift-pack",
            "prizes[0].in_kind[2]: \"trophy\" is listed twice",
            "prizes[1].places.2-2000: places must not exceed 1000",
            "prizes[2].ranking: event \"a\" already has a \"open\" prize table",
            "prizes[2].places: must list at least one place",
        ];
        assert_eq!(rendered, expected);
    }

    #[test]
    fn r_prz_1_tables_must_name_events_of_the_preset() {
        let t = tables("go-2025");
        let preset = crate::preset::official_by_name("go-2025")
            .expect("known")
            .expect("valid");
        let mut c = Checker::new();
        check_prizes_against_events(&t, &preset.events, "prizes", &mut c);
        assert!(c.0.is_empty(), "{:?}", c.0);
        let mut bad = t.clone();
        bad[0].event = "blitz".into();
        check_prizes_against_events(&bad, &preset.events, "prizes", &mut c);
        assert_eq!(c.0.len(), 1);
        assert_eq!(
            c.0[0].to_string(),
            "prizes[0].event: \"blitz\" is not an event of this preset"
        );
    }

    /// A ranking with ties: group sizes → places in competition form, alternating sexes.
    fn ranking_from_groups(groups: &[usize]) -> Vec<Placed> {
        let mut out = Vec::new();
        let mut ahead = 0u32;
        for (g, &size) in groups.iter().enumerate() {
            for k in 0..size {
                let n = out.len();
                out.push(Placed {
                    id: format!("p{g}-{k}"),
                    place: ahead + 1,
                    sex: Some(if n % 3 == 0 { Sex::Female } else { Sex::Male }),
                    birth_date: Some(d(1950 + (n as i32 % 30), 6, 1)),
                });
            }
            ahead += size as u32;
        }
        out
    }

    fn arb_table() -> impl Strategy<Value = PrizeTable> {
        (
            proptest::collection::vec(0i64..100_000, 1..40),
            any::<bool>(),
            prop_oneof![
                Just(EventSex::Open),
                Just(EventSex::Male),
                Just(EventSex::Female)
            ],
            proptest::option::of(50u32..70),
        )
            .prop_map(|(amounts, roll_down, sex, min_age)| PrizeTable {
                event: "e".into(),
                ranking: "r".into(),
                name_zh: "e".into(),
                name_en: "e".into(),
                eligible: Eligibility { sex, min_age },
                roll_down,
                amounts,
                in_kind: vec![],
                note_zh: None,
            })
    }

    proptest! {
        #[test]
        fn r_prz_1_paid_never_exceeds_the_table_and_shares_plus_remainder_equal_the_pool(
            table in arb_table(),
            groups in proptest::collection::vec(1usize..5, 0..30),
        ) {
            let ranking = ranking_from_groups(&groups);
            let list = award_list(&table, &ranking, d(2025, 11, 7)).expect("valid ranking");
            prop_assert!(list.paid() <= table.total());
            prop_assert!(list.gross() <= table.total());
            let mut pools = 0;
            for p in &list.places {
                prop_assert_eq!(p.share * i64::from(p.holders) + p.remainder, p.pool);
                prop_assert!(p.remainder >= 0 && p.remainder < i64::from(p.holders));
                pools += p.pool;
            }
            prop_assert_eq!(list.gross() + list.vacated() + list.unpaid_remainder(), pools);
            prop_assert!(pools <= table.total());
            // Reordering the input changes nothing.
            let mut reversed = ranking.clone();
            reversed.reverse();
            prop_assert_eq!(award_list(&table, &reversed, d(2025, 11, 7)).expect("valid"), list);
        }

        #[test]
        fn r_prz_1_every_place_of_a_full_field_is_paid_when_nobody_ties(
            table in arb_table(),
            extra in 0usize..5,
        ) {
            let mut table = table;
            table.eligible = Eligibility::ALL;
            let n = table.amounts.len() + extra;
            let ranking = ranking_from_groups(&vec![1; n]);
            let list = award_list(&table, &ranking, d(2025, 11, 7)).expect("valid");
            prop_assert_eq!(list.gross(), table.total());
            prop_assert_eq!(list.awards.len(), table.amounts.len());
        }
    }
}
