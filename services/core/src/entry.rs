//! Entering the online qualifier of an event (R-REG-1, R-REG-2, R-REG-8), as one pure verdict.
//!
//! The shell gathers the facts (the preset, the clock, the player, whether the bar list names them,
//! how many entries they already have) and asks [`judge_entry`]; nothing here does IO.

use chrono::{DateTime, NaiveDate, Utc};

use crate::identity::Sex;
use crate::preset::Preset;
use crate::time::china_date;

/// The facts about one attempt to enter.
#[derive(Debug, Clone)]
pub struct EntryAttempt<'a> {
    pub preset: &'a Preset,
    pub event_code: &'a str,
    pub now: DateTime<Utc>,
    pub sex: Sex,
    pub birth_date: NaiveDate,
    /// The player's identity is on this game's bar list (R-REG-2).
    pub on_bar_list: bool,
    /// The player is identified by a foreign passport.
    pub foreign: bool,
    /// Entries this player already has in this event of this championship.
    pub previous_entries: u32,
}

/// Why an entry was refused. Each variant is a distinct, user-facing reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryRefusal {
    #[error("event {0:?} is not an event of this championship")]
    UnknownEvent(String),
    #[error("event {0:?} is not entered through the online qualifier")]
    NotOnlineQualifier(String),
    #[error("registration opens on {opens_on} (China time)")]
    NotYetOpen { opens_on: NaiveDate },
    #[error("registration closed on {closes_on} (China time)")]
    Closed { closes_on: NaiveDate },
    #[error("the player holds a title that bars them from this game (R-REG-2)")]
    Barred,
    #[error("this event does not admit the player's sex")]
    SexNotAdmitted,
    #[error("the player's birth date is outside the event's age window (R-REG-8)")]
    OutsideAgeWindow,
    #[error("the player has already entered and this championship allows one entry")]
    AlreadyEntered,
    #[error(
        "event {0:?} is not entered directly (its players come from the online qualifier, pairs or team rosters)"
    )]
    NotDirectEntry(String),
    #[error("this event requires a grade certificate (R-REG-5)")]
    CertificateRequired,
}

/// The facts about entering an event of the final directly, through a unit with organizer
/// approval (youth and senior groups: R-REG-5, R-REG-8).
#[derive(Debug, Clone)]
pub struct FinalEntryAttempt<'a> {
    pub preset: &'a Preset,
    pub event_code: &'a str,
    pub now: DateTime<Utc>,
    pub sex: Sex,
    pub birth_date: NaiveDate,
    pub on_bar_list: bool,
    pub foreign: bool,
    /// The player holds the grade certificate the event may require.
    pub holds_certificate: bool,
    /// An organizer's audited waiver of the certificate (港澳台 另行规定).
    pub certificate_waived: bool,
}

/// Judges a direct entry into an event of the final. Reading: only events that take entries with
/// organizer approval are entered directly; the preset's registration window applies (the seeds
/// give the offline groups no window of their own); the birth window is inclusive at both ends.
/// On success the entry awaits the organizer's approval.
pub fn judge_final_entry(a: &FinalEntryAttempt<'_>) -> Result<(), EntryRefusal> {
    let event = a
        .preset
        .event(a.event_code)
        .ok_or_else(|| EntryRefusal::UnknownEvent(a.event_code.to_owned()))?;
    if !event.requires_approval || event.online_qualifier || event.pairs.is_some() {
        return Err(EntryRefusal::NotDirectEntry(event.code.clone()));
    }
    let today = china_date(a.now);
    let window = &a.preset.registration;
    if today < window.opens_on {
        return Err(EntryRefusal::NotYetOpen {
            opens_on: window.opens_on,
        });
    }
    if today > window.closes_on {
        return Err(EntryRefusal::Closed {
            closes_on: window.closes_on,
        });
    }
    if is_barred(a.preset, a.on_bar_list, a.foreign) {
        return Err(EntryRefusal::Barred);
    }
    if !event.sex.admits(a.sex) {
        return Err(EntryRefusal::SexNotAdmitted);
    }
    if let Some(w) = event.birth_window
        && !w.contains(a.birth_date)
    {
        return Err(EntryRefusal::OutsideAgeWindow);
    }
    if !crate::finals::certificate_ok(
        event.requires_grade_certificate,
        a.holds_certificate,
        a.certificate_waived,
    ) {
        return Err(EntryRefusal::CertificateRequired);
    }
    Ok(())
}

/// Whether a player is barred from a game's championships (R-REG-2): listed, unless the preset
/// exempts overseas players and the player is one.
pub fn is_barred(preset: &Preset, on_bar_list: bool, foreign: bool) -> bool {
    on_bar_list && !(preset.bar.overseas_exempt && foreign)
}

/// Judges an entry. On success, returns the entry's sequence number (1 for the first entry,
/// 2 for the first repeat, …).
pub fn judge_entry(a: &EntryAttempt<'_>) -> Result<u32, EntryRefusal> {
    let event = a
        .preset
        .event(a.event_code)
        .ok_or_else(|| EntryRefusal::UnknownEvent(a.event_code.to_owned()))?;
    if !event.online_qualifier {
        return Err(EntryRefusal::NotOnlineQualifier(event.code.clone()));
    }
    let today = china_date(a.now);
    let window = &a.preset.registration;
    if today < window.opens_on {
        return Err(EntryRefusal::NotYetOpen {
            opens_on: window.opens_on,
        });
    }
    if today > window.closes_on {
        return Err(EntryRefusal::Closed {
            closes_on: window.closes_on,
        });
    }
    if is_barred(a.preset, a.on_bar_list, a.foreign) {
        return Err(EntryRefusal::Barred);
    }
    if !event.sex.admits(a.sex) {
        return Err(EntryRefusal::SexNotAdmitted);
    }
    if let Some(w) = event.birth_window
        && !w.contains(a.birth_date)
    {
        return Err(EntryRefusal::OutsideAgeWindow);
    }
    if a.previous_entries > 0 && !window.repeat_entry {
        return Err(EntryRefusal::AlreadyEntered);
    }
    Ok(a.previous_entries + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preset::official_by_name;
    use chrono::TimeZone;

    fn preset(name: &str) -> Preset {
        official_by_name(name).expect("known").expect("valid")
    }
    fn utc(y: i32, m: u32, d: u32, h: u32, min: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, min, 0)
            .single()
            .expect("time")
    }
    fn attempt<'a>(p: &'a Preset, event: &'a str, now: DateTime<Utc>) -> EntryAttempt<'a> {
        EntryAttempt {
            preset: p,
            event_code: event,
            now,
            sex: Sex::Male,
            birth_date: NaiveDate::from_ymd_opt(1990, 1, 1).expect("date"),
            on_bar_list: false,
            foreign: false,
            previous_entries: 0,
        }
    }

    #[test]
    fn r_reg_1_window_is_judged_in_china_time_inclusive() {
        let p = preset("xiangqi-2022"); // 2022-06-11 ..= 2022-09-23
        // 2022-06-10 16:00 UTC is 2022-06-11 00:00 in China: open.
        assert_eq!(
            judge_entry(&attempt(&p, "men-individual", utc(2022, 6, 10, 16, 0))),
            Ok(1)
        );
        assert_eq!(
            judge_entry(&attempt(&p, "men-individual", utc(2022, 6, 10, 15, 59))),
            Err(EntryRefusal::NotYetOpen {
                opens_on: p.registration.opens_on
            })
        );
        // 2022-09-23 15:59 UTC is 23:59 on the last day in China: still open.
        assert_eq!(
            judge_entry(&attempt(&p, "men-individual", utc(2022, 9, 23, 15, 59))),
            Ok(1)
        );
        assert_eq!(
            judge_entry(&attempt(&p, "men-individual", utc(2022, 9, 23, 16, 0))),
            Err(EntryRefusal::Closed {
                closes_on: p.registration.closes_on
            })
        );
    }

    #[test]
    fn r_reg_1_repeated_entry_is_allowed_within_the_window() {
        let p = preset("go-2015");
        let mut a = attempt(&p, "men-individual", utc(2015, 8, 1, 4, 0));
        a.previous_entries = 2;
        assert_eq!(judge_entry(&a), Ok(3));
        let mut strict = p.clone();
        strict.registration.repeat_entry = false;
        let mut a = attempt(&strict, "men-individual", utc(2015, 8, 1, 4, 0));
        a.previous_entries = 1;
        assert_eq!(judge_entry(&a), Err(EntryRefusal::AlreadyEntered));
    }

    #[test]
    fn r_reg_1_only_online_qualifier_events_are_entered_here() {
        let p = preset("go-2015");
        let now = utc(2015, 8, 1, 4, 0);
        assert_eq!(
            judge_entry(&attempt(&p, "men-team", now)),
            Err(EntryRefusal::NotOnlineQualifier("men-team".into()))
        );
        assert_eq!(
            judge_entry(&attempt(&p, "blitz", now)),
            Err(EntryRefusal::UnknownEvent("blitz".into()))
        );
    }

    #[test]
    fn r_reg_2_barred_players_cannot_enter_except_overseas_xiangqi_2015() {
        let now = utc(2015, 8, 1, 4, 0);
        for name in ["go-2015", "chess-2015", "xiangqi-2015"] {
            let p = preset(name);
            let mut a = attempt(&p, "men-individual", now);
            a.on_bar_list = true;
            assert_eq!(judge_entry(&a), Err(EntryRefusal::Barred), "{name}");
            a.foreign = true;
            let expected = if name == "xiangqi-2015" {
                Ok(1)
            } else {
                Err(EntryRefusal::Barred)
            };
            assert_eq!(judge_entry(&a), expected, "{name} overseas");
        }
    }

    #[test]
    fn r_ind_2_men_individual_is_open_women_individual_is_women_only() {
        let p = preset("go-2025");
        let now = utc(2025, 6, 1, 4, 0);
        let mut a = attempt(&p, "men-individual", now);
        a.sex = Sex::Female;
        assert_eq!(judge_entry(&a), Ok(1));
        let mut a = attempt(&p, "women-individual", now);
        a.sex = Sex::Male;
        assert_eq!(judge_entry(&a), Err(EntryRefusal::SexNotAdmitted));
    }

    #[test]
    fn r_reg_8_youth_events_check_the_birth_window() {
        let p = preset("go-2025");
        let now = utc(2025, 6, 1, 4, 0);
        let mut a = attempt(&p, "junior", now);
        a.birth_date = NaiveDate::from_ymd_opt(2011, 9, 1).expect("date");
        assert_eq!(judge_entry(&a), Ok(1));
        a.birth_date = NaiveDate::from_ymd_opt(2011, 8, 31).expect("date");
        assert_eq!(judge_entry(&a), Err(EntryRefusal::OutsideAgeWindow));
    }
}
