//! Entering the offline final (线下赛): the grade-certificate requirement (R-REG-5), the service fee
//! (R-REG-7) and city-team rosters (R-REG-9).

use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;

use crate::identity::Sex;
use crate::preset::Checker;
use crate::time::china_date;

/// The offline service fee (R-REG-7), integer yuan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeRules {
    /// Due from every offline entrant (go-2025: 260; 2015/2022: 0).
    pub offline_service_fee_yuan: i64,
    /// Whether a registered player who does not show up gets the fee back (go-2025: no).
    pub refund_no_show: bool,
}

/// How a paid-up entrant's final went, for the fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attendance {
    Played,
    /// Registered and did not come, without a reason the organizers accepted (无故不参加).
    NoShowWithoutCause,
    /// Did not come for a reason the organizers accepted (their audited decision).
    ExcusedByOrganizer,
}

/// The fee an offline entrant owes (R-REG-7).
pub fn fee_due(rules: &FeeRules) -> i64 {
    rules.offline_service_fee_yuan
}

/// The refund owed on a fee of `paid` yuan (R-REG-7). Reading: the fee pays for the service, so a
/// player who played gets nothing back; a no-show without cause gets nothing back unless the
/// preset says otherwise; an absence the organizers excused is refunded in full.
pub fn refund_due(rules: &FeeRules, paid: i64, attendance: Attendance) -> i64 {
    match attendance {
        Attendance::Played => 0,
        Attendance::NoShowWithoutCause if rules.refund_no_show => paid,
        Attendance::NoShowWithoutCause => 0,
        Attendance::ExcusedByOrganizer => paid,
    }
}

/// Whether a finalist may play without the required grade certificate (R-REG-5). Reading: an event
/// that requires one (go-2025: the CWA amateur dan/kyu certificate; xiangqi-2022 youth: the CXA
/// certificate) admits nobody without it; players from Hong Kong, Macau and Taiwan "另行规定" are
/// admitted only by an organizer's audited waiver.
pub fn certificate_ok(required: bool, holds_certificate: bool, organizer_waiver: bool) -> bool {
    !required || holds_certificate || organizer_waiver
}

/// City-team rules (go-2025, R-REG-9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CityTeamRules {
    pub men: u32,
    pub women: u32,
    pub opens_on: NaiveDate,
    pub closes_on: NaiveDate,
}

/// What a city's roster makes of its players.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CityTeamVerdict {
    /// Exactly the men's team size: they form the men's team.
    pub men_team: bool,
    /// Exactly the women's team size: they form the women's team.
    pub women_team: bool,
    /// Roster players who play as individuals because their side is incomplete.
    pub individuals: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CityTeamError {
    #[error("city-team registration runs {opens_on} to {closes_on} (China time)")]
    OutsideWindow {
        opens_on: NaiveDate,
        closes_on: NaiveDate,
    },
    #[error("player {0} is on the roster twice")]
    Duplicate(String),
}

/// The host city's team of the 2015 presets (R-TEAM-2: 东道主杭州市具有组队权): every player the
/// organizers name plays for it, and its best players count like a province's (R-TEAM-1). Reading:
/// the seeds set neither a roster size nor a window for it, so neither is checked; a side without
/// players simply forms no team.
pub fn host_city_roster(roster: &[(String, Sex)]) -> Result<CityTeamVerdict, CityTeamError> {
    for (i, (player, _)) in roster.iter().enumerate() {
        if roster[..i].iter().any(|(p, _)| p == player) {
            return Err(CityTeamError::Duplicate(player.clone()));
        }
    }
    Ok(CityTeamVerdict {
        men_team: roster.iter().any(|(_, s)| *s == Sex::Male),
        women_team: roster.iter().any(|(_, s)| *s == Sex::Female),
        individuals: Vec::new(),
    })
}

/// Checks a city's roster (R-REG-9): at most 3 men and 2 women (5 in all), registered inside the
/// window. Reading of "不足或超过可以以个人名义参赛" (as the product owner's issue 8 states it: "a city
/// team with 4 men: the fourth plays as an individual"): a side that is short plays as individuals;
/// on a side that is over, the first players in roster order form the team and the rest play as
/// individuals.
pub fn check_city_team(
    rules: &CityTeamRules,
    roster: &[(String, Sex)],
    now: DateTime<Utc>,
) -> Result<CityTeamVerdict, CityTeamError> {
    let today = china_date(now);
    if today < rules.opens_on || today > rules.closes_on {
        return Err(CityTeamError::OutsideWindow {
            opens_on: rules.opens_on,
            closes_on: rules.closes_on,
        });
    }
    for (i, (player, _)) in roster.iter().enumerate() {
        if roster[..i].iter().any(|(p, _)| p == player) {
            return Err(CityTeamError::Duplicate(player.clone()));
        }
    }
    let side = |sex: Sex| {
        roster
            .iter()
            .filter(|(_, s)| *s == sex)
            .map(|(p, _)| p.clone())
            .collect::<Vec<_>>()
    };
    let (mut men, mut women) = (side(Sex::Male), side(Sex::Female));
    let mut individuals = Vec::new();
    let men_over = men.split_off(men.len().min(rules.men as usize));
    let women_over = women.split_off(women.len().min(rules.women as usize));
    let men_team = men.len() == rules.men as usize;
    let women_team = women.len() == rules.women as usize;
    if !men_team {
        individuals.extend(men);
    }
    individuals.extend(men_over);
    if !women_team {
        individuals.extend(women);
    }
    individuals.extend(women_over);
    Ok(CityTeamVerdict {
        men_team,
        women_team,
        individuals,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FeesFile {
    offline_service_fee_yuan: i64,
    refund_no_show: bool,
}

pub(crate) fn check_fees(f: &FeesFile, path: &str, c: &mut Checker) -> FeeRules {
    if f.offline_service_fee_yuan < 0 {
        c.err(format!("{path}.offline_service_fee_yuan"), "must be >= 0");
    }
    FeeRules {
        offline_service_fee_yuan: f.offline_service_fee_yuan,
        refund_no_show: f.refund_no_show,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CityTeamsFile {
    men: i64,
    women: i64,
    opens_on: String,
    closes_on: String,
}

pub(crate) fn check_city_teams(
    f: &CityTeamsFile,
    path: &str,
    c: &mut Checker,
) -> Option<CityTeamRules> {
    c.positive(&format!("{path}.men"), f.men);
    c.positive(&format!("{path}.women"), f.women);
    let opens_on = c.date(&format!("{path}.opens_on"), &f.opens_on);
    let closes_on = c.date(&format!("{path}.closes_on"), &f.closes_on);
    if let (Some(o), Some(cl)) = (opens_on, closes_on)
        && cl < o
    {
        c.err(format!("{path}.closes_on"), "must not be before opens_on");
    }
    Some(CityTeamRules {
        men: u32::try_from(f.men).ok().filter(|n| *n > 0)?,
        women: u32::try_from(f.women).ok().filter(|n| *n > 0)?,
        opens_on: opens_on?,
        closes_on: closes_on?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }
    const GO_2025: FeeRules = FeeRules {
        offline_service_fee_yuan: 260,
        refund_no_show: false,
    };

    #[test]
    fn r_reg_7_go_2025_fee_is_not_refunded_to_a_no_show() {
        assert_eq!(fee_due(&GO_2025), 260);
        assert_eq!(refund_due(&GO_2025, 260, Attendance::NoShowWithoutCause), 0);
        assert_eq!(refund_due(&GO_2025, 260, Attendance::Played), 0);
        assert_eq!(
            refund_due(&GO_2025, 260, Attendance::ExcusedByOrganizer),
            260
        );
        let free = FeeRules {
            offline_service_fee_yuan: 0,
            refund_no_show: false,
        };
        assert_eq!(fee_due(&free), 0, "2015 and 2022: everything free");
    }

    #[test]
    fn r_team_2_the_host_city_team_counts_everyone_named() {
        let roster = [
            ("a".to_owned(), Sex::Male),
            ("b".to_owned(), Sex::Male),
            ("c".to_owned(), Sex::Male),
            ("d".to_owned(), Sex::Male),
        ];
        let v = host_city_roster(&roster).expect("roster");
        assert!(v.men_team && !v.women_team && v.individuals.is_empty());
        let twice = [("a".to_owned(), Sex::Male), ("a".to_owned(), Sex::Male)];
        assert_eq!(
            host_city_roster(&twice),
            Err(CityTeamError::Duplicate("a".into()))
        );
    }

    #[test]
    fn r_reg_5_certificate_required_unless_waived() {
        assert!(certificate_ok(true, true, false));
        assert!(!certificate_ok(true, false, false));
        assert!(
            certificate_ok(true, false, true),
            "organizer's waiver (港澳台 另行规定)"
        );
        assert!(certificate_ok(false, false, false));
    }

    #[test]
    fn r_reg_9_city_team_rosters() {
        let rules = CityTeamRules {
            men: 3,
            women: 2,
            opens_on: d(2025, 6, 1),
            closes_on: d(2025, 10, 8),
        };
        let now = Utc
            .with_ymd_and_hms(2025, 7, 1, 4, 0, 0)
            .single()
            .expect("time");
        let p = |id: &str, s: Sex| (id.to_owned(), s);
        let full = [
            p("m1", Sex::Male),
            p("m2", Sex::Male),
            p("m3", Sex::Male),
            p("w1", Sex::Female),
            p("w2", Sex::Female),
        ];
        let v = check_city_team(&rules, &full, now).expect("full roster");
        assert!(v.men_team && v.women_team && v.individuals.is_empty());
        let short = [
            p("m1", Sex::Male),
            p("m2", Sex::Male),
            p("w1", Sex::Female),
            p("w2", Sex::Female),
        ];
        let v = check_city_team(&rules, &short, now).expect("two men");
        assert!(!v.men_team && v.women_team);
        assert_eq!(
            v.individuals,
            ["m1", "m2"],
            "a short side plays as individuals"
        );
        let four_men = [
            p("m1", Sex::Male),
            p("m2", Sex::Male),
            p("m3", Sex::Male),
            p("m4", Sex::Male),
        ];
        let v = check_city_team(&rules, &four_men, now).expect("four men");
        assert!(v.men_team && !v.women_team);
        assert_eq!(
            v.individuals,
            ["m4"],
            "the fourth man plays as an individual"
        );
        let twice = [p("m1", Sex::Male), p("m1", Sex::Male)];
        assert_eq!(
            check_city_team(&rules, &twice, now),
            Err(CityTeamError::Duplicate("m1".into()))
        );
        let late = Utc
            .with_ymd_and_hms(2025, 10, 8, 16, 0, 0)
            .single()
            .expect("time");
        assert!(matches!(
            check_city_team(&rules, &full, late),
            Err(CityTeamError::OutsideWindow { .. })
        ));
    }
}
