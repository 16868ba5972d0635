//! Pairs events (双人赛): who may form a pair (R-PAIR-1, R-PAIR-2), inside which window (R-REG-10),
//! and which registered pairs play (8 to start, at most 32, finalist pairs first in registration
//! order, the rest by a verifiable lottery: R-PAIR-1, R-PAIR-3).

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde::Deserialize;

use crate::identity::Sex;
use crate::lottery::{LotteryError, draw};
use crate::preset::Checker;
use crate::time::{age_on, china_date};

/// How far a player got in this championship, for pairs eligibility. Ordered: a finalist has also
/// reached 入围 and played online.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reach {
    /// Never played an online game of this championship.
    None,
    /// Played at least one online game (参加过网络赛).
    PlayedOnline,
    /// Reached the 入围 stage (网络入围赛选手).
    Ruwei,
    /// Plays the offline final (线下总决赛选手).
    Finalist,
}

impl Reach {
    fn parse(s: &str) -> Option<Reach> {
        match s {
            "none" => Some(Reach::None),
            "online" => Some(Reach::PlayedOnline),
            "ruwei" => Some(Reach::Ruwei),
            "final" => Some(Reach::Finalist),
            _ => None,
        }
    }
}

/// The kind of a pairs event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairKind {
    /// 男子双人 / 女子双人: both partners of the event's sex.
    SameSex(Sex),
    /// 男女混双: one man and one woman.
    Mixed,
    /// 亲子双人: lineal relatives (R-PAIR-2).
    ParentChild,
}

/// A declared lineal relation inside a parent-child pair (R-PAIR-2: "parent-child,
/// grandparent-grandchild on either side"; the seed's 三代直系亲属).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// 父母与子女
    ParentChild,
    /// 祖父母/外祖父母与孙子女/外孙子女
    GrandparentGrandchild,
}

/// Inclusive age bounds on the final's first day (xiangqi-2022: "4周岁以上，65周岁以下").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgeBounds {
    /// The player must be past this birthday (strictly older than `older_than` whole years).
    pub older_than: i32,
    /// The player must not yet have reached this birthday.
    pub younger_than: i32,
}

/// A pairs event's rules (preset: `events[i].pairs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairsRules {
    pub kind: PairKind,
    /// Both partners must have reached at least this (R-PAIR-1: 入围 or final players; xiangqi-2022:
    /// online players). For parent-child pairs this applies to the one partner of `min_reach_one`.
    pub min_reach_both: Reach,
    /// At least one partner must have reached this (R-PAIR-2: one of the two played online).
    pub min_reach_one: Reach,
    /// The event starts with this many pairs (8).
    pub min_pairs: usize,
    /// At most this many pairs play (32).
    pub max_pairs: usize,
    /// Registration window, inclusive China-time days (R-REG-10).
    pub opens_on: NaiveDate,
    pub closes_on: NaiveDate,
    pub age: Option<AgeBounds>,
}

/// One partner as the rules see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partner {
    pub player: String,
    pub sex: Sex,
    pub birth_date: NaiveDate,
    pub reach: Reach,
}

/// Why a pair was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairRefusal {
    #[error("pairs registration opens on {0} (China time)")]
    NotYetOpen(NaiveDate),
    #[error("pairs registration closed on {0} (China time)")]
    Closed(NaiveDate),
    #[error("a player cannot pair with themself")]
    SamePlayer,
    #[error("both partners must be {0}")]
    WrongSex(&'static str),
    #[error("a mixed pair is one man and one woman")]
    NotMixed,
    #[error("player {0} has not reached the stage this event draws from")]
    NotReached(String),
    #[error("at least one partner must have played online")]
    NobodyPlayedOnline,
    #[error("a parent-child pair needs a declared lineal relation")]
    NoRelation,
    #[error(
        "the declared relation does not fit the birth dates (the elder must be at least {0} years older)"
    )]
    ImplausibleRelation(i32),
    #[error("player {0} is outside the event's age bounds on the final's first day")]
    Age(String),
    #[error("player {0} already has a pair in this event")]
    AlreadyPaired(String),
}

/// The smallest plausible age gap for a declared relation. Reading: the seeds say nothing; a
/// demanding organizer refuses a "parent" less than 12 years older (24 for a grandparent), and
/// verifies the relation with the family's document anyway.
fn minimum_gap(relation: Relation) -> i32 {
    match relation {
        Relation::ParentChild => 12,
        Relation::GrandparentGrandchild => 24,
    }
}

/// Judges one pair registration. `already_paired` says whether either player already has a pair
/// in this event (one pair per player per event). `final_starts_on` is the final's first day, on
/// which ages are taken.
pub fn check_pair(
    rules: &PairsRules,
    a: &Partner,
    b: &Partner,
    relation: Option<Relation>,
    already_paired: &dyn Fn(&str) -> bool,
    now: DateTime<Utc>,
    final_starts_on: NaiveDate,
) -> Result<(), PairRefusal> {
    let today = china_date(now);
    if today < rules.opens_on {
        return Err(PairRefusal::NotYetOpen(rules.opens_on));
    }
    if today > rules.closes_on {
        return Err(PairRefusal::Closed(rules.closes_on));
    }
    if a.player == b.player {
        return Err(PairRefusal::SamePlayer);
    }
    match rules.kind {
        PairKind::SameSex(sex) => {
            if a.sex != sex || b.sex != sex {
                return Err(PairRefusal::WrongSex(if sex == Sex::Male {
                    "men"
                } else {
                    "women"
                }));
            }
        }
        PairKind::Mixed => {
            if a.sex == b.sex {
                return Err(PairRefusal::NotMixed);
            }
        }
        PairKind::ParentChild => {
            let relation = relation.ok_or(PairRefusal::NoRelation)?;
            let (elder, younger) = if a.birth_date <= b.birth_date {
                (a, b)
            } else {
                (b, a)
            };
            let gap = age_on(elder.birth_date, younger.birth_date);
            if gap < minimum_gap(relation) {
                return Err(PairRefusal::ImplausibleRelation(minimum_gap(relation)));
            }
        }
    }
    for p in [a, b] {
        if p.reach < rules.min_reach_both {
            return Err(PairRefusal::NotReached(p.player.clone()));
        }
    }
    if a.reach < rules.min_reach_one && b.reach < rules.min_reach_one {
        return Err(if rules.min_reach_one == Reach::PlayedOnline {
            PairRefusal::NobodyPlayedOnline
        } else {
            PairRefusal::NotReached(a.player.clone())
        });
    }
    if let Some(bounds) = rules.age {
        for p in [a, b] {
            if !within_age(bounds, p.birth_date, final_starts_on) {
                return Err(PairRefusal::Age(p.player.clone()));
            }
        }
    }
    for p in [a, b] {
        if already_paired(&p.player) {
            return Err(PairRefusal::AlreadyPaired(p.player.clone()));
        }
    }
    Ok(())
}

/// Reading of "4周岁以上，65周岁以下" (R-PAIR-2): on the final's first day the player is past their
/// 4th birthday (the birthday itself is not "over 4") and has not reached their 65th.
pub fn within_age(bounds: AgeBounds, birth: NaiveDate, on: NaiveDate) -> bool {
    let age = age_on(birth, on);
    let is_birthday = birth.month() == on.month() && birth.day() == on.day();
    let past_lower = age > bounds.older_than || (age == bounds.older_than && !is_birthday);
    past_lower && age < bounds.younger_than
}

/// Whether a pair counts as a finalist pair (both partners play the final), which comes first
/// in registration order (R-PAIR-1).
pub fn is_finalist_pair(a: &Partner, b: &Partner) -> bool {
    a.reach == Reach::Finalist && b.reach == Reach::Finalist
}

/// A registered pair, in registration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisteredPair {
    pub pair: String,
    /// Both partners play the final (R-PAIR-1: such pairs come first).
    pub finalist_pair: bool,
}

/// Which pairs play when the window closes (R-PAIR-1, R-PAIR-3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairsSelection {
    /// Fewer than the minimum registered: the event does not start (entrants are told why).
    NotStarted { registered: usize, minimum: usize },
    Started {
        /// Finalist pairs in registration order, up to the cap.
        by_priority: Vec<String>,
        /// The remaining places, drawn by lot among the other pairs, in drawn order.
        by_lottery: Vec<String>,
        /// Registered pairs that did not get a place.
        not_admitted: Vec<String>,
    },
}

/// Selects the pairs that play: finalist pairs first in registration order, the remaining places up
/// to the cap by the verifiable lottery among the other pairs (in registration order, the order that
/// is published with the seed).
///
/// Reading: finalist pairs beyond the cap (more than 32) are admitted in registration order too; the
/// lottery only runs when places remain.
pub fn select_pairs(
    rules: &PairsRules,
    registered: &[RegisteredPair],
    seed: &str,
) -> Result<PairsSelection, LotteryError> {
    if registered.len() < rules.min_pairs {
        return Ok(PairsSelection::NotStarted {
            registered: registered.len(),
            minimum: rules.min_pairs,
        });
    }
    let (finalists, others): (Vec<&RegisteredPair>, Vec<&RegisteredPair>) =
        registered.iter().partition(|p| p.finalist_pair);
    let by_priority: Vec<String> = finalists
        .iter()
        .take(rules.max_pairs)
        .map(|p| p.pair.clone())
        .collect();
    let places = rules.max_pairs - by_priority.len();
    let candidates: Vec<String> = others.iter().map(|p| p.pair.clone()).collect();
    let by_lottery = if places == 0 || candidates.is_empty() {
        Vec::new()
    } else if candidates.len() <= places {
        // Everyone fits: no draw needed, registration order kept.
        candidates.clone()
    } else {
        draw(seed, &candidates, places)?
    };
    let admitted = |p: &String| by_priority.contains(p) || by_lottery.contains(p);
    let not_admitted = registered
        .iter()
        .map(|p| p.pair.clone())
        .filter(|p| !admitted(p))
        .collect();
    Ok(PairsSelection::Started {
        by_priority,
        by_lottery,
        not_admitted,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PairsFile {
    kind: String,
    min_reach_both: String,
    #[serde(default)]
    min_reach_one: Option<String>,
    min_pairs: i64,
    max_pairs: i64,
    opens_on: String,
    closes_on: String,
    #[serde(default)]
    older_than: Option<i32>,
    #[serde(default)]
    younger_than: Option<i32>,
}

/// Checks an event's `pairs` table; `sex` is the event's sex restriction ("male", "female", "open").
pub(crate) fn check_pairs(
    file: &PairsFile,
    path: &str,
    event_sex: &str,
    c: &mut Checker,
) -> Option<PairsRules> {
    let kind = match (file.kind.as_str(), event_sex) {
        ("same-sex", "male") => Some(PairKind::SameSex(Sex::Male)),
        ("same-sex", "female") => Some(PairKind::SameSex(Sex::Female)),
        ("same-sex", _) => {
            c.err(
                format!("{path}.kind"),
                "same-sex pairs need an event sex of male or female",
            );
            None
        }
        ("mixed", _) => Some(PairKind::Mixed),
        ("parent-child", _) => Some(PairKind::ParentChild),
        (other, _) => {
            c.err(
                format!("{path}.kind"),
                format!("{other:?} is not one of same-sex, mixed, parent-child"),
            );
            None
        }
    };
    let mut reach = |field: &str, value: &str| {
        let r = Reach::parse(value);
        if r.is_none() {
            c.err(
                format!("{path}.{field}"),
                format!("{value:?} is not one of none, online, ruwei, final"),
            );
        }
        r
    };
    let both = reach("min_reach_both", &file.min_reach_both);
    let one = match &file.min_reach_one {
        Some(v) => reach("min_reach_one", v),
        None => Some(Reach::None),
    };
    c.positive(&format!("{path}.min_pairs"), file.min_pairs);
    c.positive(&format!("{path}.max_pairs"), file.max_pairs);
    if file.min_pairs > 0 && file.max_pairs > 0 && file.max_pairs < file.min_pairs {
        c.err(format!("{path}.max_pairs"), "must not be below min_pairs");
    }
    let opens = c.date(&format!("{path}.opens_on"), &file.opens_on);
    let closes = c.date(&format!("{path}.closes_on"), &file.closes_on);
    if let (Some(o), Some(cl)) = (opens, closes)
        && cl < o
    {
        c.err(format!("{path}.closes_on"), "must not be before opens_on");
    }
    let age = match (file.older_than, file.younger_than) {
        (None, None) => None,
        (Some(older_than), Some(younger_than)) if older_than >= 0 && younger_than > older_than => {
            Some(AgeBounds {
                older_than,
                younger_than,
            })
        }
        _ => {
            c.err(
                format!("{path}.younger_than"),
                "older_than and younger_than go together, with older_than < younger_than",
            );
            None
        }
    };
    Some(PairsRules {
        kind: kind?,
        min_reach_both: both?,
        min_reach_one: one?,
        min_pairs: usize::try_from(file.min_pairs).ok()?,
        max_pairs: usize::try_from(file.max_pairs).ok()?,
        opens_on: opens?,
        closes_on: closes?,
        age,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }
    fn in_window() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2022, 9, 15, 4, 0, 0)
            .single()
            .expect("time")
    }
    fn rules(kind: PairKind) -> PairsRules {
        PairsRules {
            kind,
            min_reach_both: Reach::Ruwei,
            min_reach_one: Reach::None,
            min_pairs: 8,
            max_pairs: 32,
            opens_on: d(2022, 9, 1),
            closes_on: d(2022, 9, 30),
            age: None,
        }
    }
    fn p(id: &str, sex: Sex, born: NaiveDate, reach: Reach) -> Partner {
        Partner {
            player: id.into(),
            sex,
            birth_date: born,
            reach,
        }
    }
    fn nobody(_: &str) -> bool {
        false
    }
    const FINAL: fn() -> NaiveDate = || NaiveDate::from_ymd_opt(2022, 11, 26).expect("date");

    #[test]
    fn r_pair_1_sexes_per_event() {
        let m1 = p("m1", Sex::Male, d(1990, 1, 1), Reach::Finalist);
        let m2 = p("m2", Sex::Male, d(1991, 1, 1), Reach::Ruwei);
        let w1 = p("w1", Sex::Female, d(1992, 1, 1), Reach::Ruwei);
        let now = in_window();
        let men = rules(PairKind::SameSex(Sex::Male));
        assert_eq!(
            check_pair(&men, &m1, &m2, None, &nobody, now, FINAL()),
            Ok(())
        );
        assert_eq!(
            check_pair(&men, &m1, &w1, None, &nobody, now, FINAL()),
            Err(PairRefusal::WrongSex("men"))
        );
        let mixed = rules(PairKind::Mixed);
        assert_eq!(
            check_pair(&mixed, &m1, &w1, None, &nobody, now, FINAL()),
            Ok(())
        );
        assert_eq!(
            check_pair(&mixed, &m1, &m2, None, &nobody, now, FINAL()),
            Err(PairRefusal::NotMixed)
        );
        assert_eq!(
            check_pair(&mixed, &m1, &m1, None, &nobody, now, FINAL()),
            Err(PairRefusal::SamePlayer)
        );
    }

    #[test]
    fn r_pair_1_partners_come_from_ruwei_or_the_final_and_pair_once() {
        let men = rules(PairKind::SameSex(Sex::Male));
        let a = p("a", Sex::Male, d(1990, 1, 1), Reach::Ruwei);
        let online_only = p("b", Sex::Male, d(1990, 1, 1), Reach::PlayedOnline);
        assert_eq!(
            check_pair(&men, &a, &online_only, None, &nobody, in_window(), FINAL()),
            Err(PairRefusal::NotReached("b".into()))
        );
        // xiangqi-2022: pairs are formed from online players.
        let mut xq = men.clone();
        xq.min_reach_both = Reach::PlayedOnline;
        assert_eq!(
            check_pair(&xq, &a, &online_only, None, &nobody, in_window(), FINAL()),
            Ok(())
        );
        let paired = |id: &str| id == "a";
        assert_eq!(
            check_pair(&xq, &a, &online_only, None, &paired, in_window(), FINAL()),
            Err(PairRefusal::AlreadyPaired("a".into()))
        );
        assert!(is_finalist_pair(
            &p("x", Sex::Male, d(1990, 1, 1), Reach::Finalist),
            &p("y", Sex::Male, d(1990, 1, 1), Reach::Finalist)
        ));
        assert!(!is_finalist_pair(
            &a,
            &p("y", Sex::Male, d(1990, 1, 1), Reach::Finalist)
        ));
    }

    #[test]
    fn r_reg_10_pairs_window_is_inclusive_china_time() {
        let men = rules(PairKind::SameSex(Sex::Male));
        let a = p("a", Sex::Male, d(1990, 1, 1), Reach::Ruwei);
        let b = p("b", Sex::Male, d(1990, 1, 1), Reach::Ruwei);
        let at = |y, m, day, h| {
            Utc.with_ymd_and_hms(y, m, day, h, 0, 0)
                .single()
                .expect("time")
        };
        // 2022-08-31 16:00 UTC is 1 September 00:00 in China.
        assert_eq!(
            check_pair(&men, &a, &b, None, &nobody, at(2022, 8, 31, 16), FINAL()),
            Ok(())
        );
        assert_eq!(
            check_pair(&men, &a, &b, None, &nobody, at(2022, 8, 31, 15), FINAL()),
            Err(PairRefusal::NotYetOpen(d(2022, 9, 1)))
        );
        assert_eq!(
            check_pair(&men, &a, &b, None, &nobody, at(2022, 9, 30, 16), FINAL()),
            Err(PairRefusal::Closed(d(2022, 9, 30)))
        );
    }

    #[test]
    fn r_pair_2_parent_child_needs_a_relation_one_online_partner_and_the_age_bounds() {
        let mut pc = rules(PairKind::ParentChild);
        pc.min_reach_both = Reach::None;
        pc.min_reach_one = Reach::PlayedOnline;
        pc.age = Some(AgeBounds {
            older_than: 4,
            younger_than: 65,
        });
        let parent = p("parent", Sex::Female, d(1980, 5, 1), Reach::PlayedOnline);
        let child = p("child", Sex::Male, d(2012, 3, 3), Reach::None);
        let now = in_window();
        assert_eq!(
            check_pair(
                &pc,
                &parent,
                &child,
                Some(Relation::ParentChild),
                &nobody,
                now,
                FINAL()
            ),
            Ok(())
        );
        assert_eq!(
            check_pair(&pc, &parent, &child, None, &nobody, now, FINAL()),
            Err(PairRefusal::NoRelation)
        );
        let parent_offline = Partner {
            reach: Reach::None,
            ..parent.clone()
        };
        assert_eq!(
            check_pair(
                &pc,
                &parent_offline,
                &child,
                Some(Relation::ParentChild),
                &nobody,
                now,
                FINAL()
            ),
            Err(PairRefusal::NobodyPlayedOnline)
        );
        // A "grandparent" only 20 years older is implausible.
        let young_grand = p("g", Sex::Male, d(1992, 1, 1), Reach::PlayedOnline);
        assert_eq!(
            check_pair(
                &pc,
                &young_grand,
                &child,
                Some(Relation::GrandparentGrandchild),
                &nobody,
                now,
                FINAL()
            ),
            Err(PairRefusal::ImplausibleRelation(24))
        );
        // Ages on the final's first day (2022-11-26): 65 years old is too old.
        let grandparent = p("gp", Sex::Male, d(1957, 11, 26), Reach::PlayedOnline);
        assert_eq!(
            check_pair(
                &pc,
                &grandparent,
                &child,
                Some(Relation::GrandparentGrandchild),
                &nobody,
                now,
                FINAL()
            ),
            Err(PairRefusal::Age("gp".into()))
        );
    }

    #[test]
    fn r_pair_2_over_4_and_under_65_on_the_first_day() {
        let b = AgeBounds {
            older_than: 4,
            younger_than: 65,
        };
        let first_day = d(2022, 11, 26);
        assert!(
            !within_age(b, d(2018, 11, 26), first_day),
            "exactly 4 today is not over 4"
        );
        assert!(
            within_age(b, d(2018, 11, 25), first_day),
            "4 years and a day"
        );
        assert!(!within_age(b, d(2019, 1, 1), first_day), "3 years old");
        assert!(
            within_age(b, d(1957, 11, 27), first_day),
            "64, turning 65 tomorrow"
        );
        assert!(!within_age(b, d(1957, 11, 26), first_day), "65 today");
    }

    fn registered(finalists: usize, others: usize) -> Vec<RegisteredPair> {
        let mut out = Vec::new();
        for i in 0..finalists.max(others) {
            if i < others {
                out.push(RegisteredPair {
                    pair: format!("o{i:02}"),
                    finalist_pair: false,
                });
            }
            if i < finalists {
                out.push(RegisteredPair {
                    pair: format!("f{i:02}"),
                    finalist_pair: true,
                });
            }
        }
        out
    }

    #[test]
    fn r_pair_1_fewer_than_8_pairs_and_the_event_does_not_start() {
        let r = rules(PairKind::Mixed);
        assert_eq!(
            select_pairs(&r, &registered(3, 4), "seed"),
            Ok(PairsSelection::NotStarted {
                registered: 7,
                minimum: 8
            })
        );
    }

    #[test]
    fn r_pair_1_finalist_pairs_first_then_the_lottery_up_to_32() {
        let r = rules(PairKind::Mixed);
        let pairs = registered(10, 40);
        let PairsSelection::Started {
            by_priority,
            by_lottery,
            not_admitted,
        } = select_pairs(&r, &pairs, "2015-pairs-mixed").expect("draw")
        else {
            panic!("started")
        };
        assert_eq!(
            by_priority,
            (0..10).map(|i| format!("f{i:02}")).collect::<Vec<_>>(),
            "registration order"
        );
        assert_eq!(by_lottery.len(), 22);
        assert!(by_lottery.iter().all(|p| p.starts_with('o')));
        assert_eq!(not_admitted.len(), 18);
        // Small fields need no draw: everyone plays.
        let PairsSelection::Started {
            by_lottery,
            not_admitted,
            ..
        } = select_pairs(&r, &registered(2, 8), "s").expect("ok")
        else {
            panic!("started")
        };
        assert_eq!((by_lottery.len(), not_admitted.len()), (8, 0));
    }

    #[test]
    fn r_pair_3_the_draw_is_reproducible_from_the_seed_and_the_ordered_list() {
        let r = rules(PairKind::SameSex(Sex::Female));
        let pairs = registered(0, 50);
        let first = select_pairs(&r, &pairs, "published-seed-2022-09-30").expect("draw");
        let again = select_pairs(&r, &pairs, "published-seed-2022-09-30").expect("draw");
        assert_eq!(first, again);
        let other = select_pairs(&r, &pairs, "another-seed").expect("draw");
        assert_ne!(first, other, "the seed decides");
        assert_eq!(select_pairs(&r, &pairs, ""), Err(LotteryError::EmptySeed));
    }

    #[test]
    fn pairs_tables_are_validated_with_paths() {
        let file: PairsFile = toml::from_str(
            r#"kind = "same-sex"
               min_reach_both = "finalist"
               min_pairs = 0
               max_pairs = -1
               opens_on = "2015-10-25"
               closes_on = "2015-10-13"
               older_than = 4"#,
        )
        .expect("toml");
        let mut c = Checker::new();
        assert!(check_pairs(&file, "events[4].pairs", "open", &mut c).is_none());
        let got: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "events[4].pairs.kind: same-sex pairs need an event sex of male or female",
                "events[4].pairs.min_reach_both: \"finalist\" is not one of none, online, ruwei, final",
                "events[4].pairs.min_pairs: must be > 0",
                "events[4].pairs.max_pairs: must be > 0",
                "events[4].pairs.closes_on: must not be before opens_on",
                "events[4].pairs.younger_than: older_than and younger_than go together, with older_than < younger_than",
            ]
        );
    }
}
