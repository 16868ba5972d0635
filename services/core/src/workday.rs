//! Chinese working days (工作日) for deadlines such as R-REG-6 ("within 10 working days of
//! qualifying, or deemed withdrawn").
//!
//! The calendar is data: `data/cn-days-2015-2026.csv` lists every official holiday day off and every
//! make-up working day on a weekend. Any other Monday-Friday is a working day; any other Saturday or
//! Sunday is not. A date outside the years the data covers is an error, never a guess.

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The embedded official calendar.
const OFFICIAL_CSV: &str = include_str!("../data/cn-days-2015-2026.csv");

/// What the calendar says about a date that is not an ordinary weekday/weekend day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialDay {
    /// An official holiday day off (放假).
    Holiday,
    /// A weekend day that is a make-up working day (调休上班).
    MakeUpWorkday,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalendarError {
    #[error("{date} is outside the working-day calendar ({first}..={last})")]
    OutOfRange {
        date: NaiveDate,
        first: i32,
        last: i32,
    },
    #[error("calendar line {line}: {message}")]
    BadLine { line: usize, message: String },
}

/// A working-day calendar over whole years `first_year..=last_year`.
#[derive(Debug, Clone)]
pub struct WorkingCalendar {
    first_year: i32,
    last_year: i32,
    special: HashMap<NaiveDate, SpecialDay>,
}

impl WorkingCalendar {
    /// Parses calendar rows `date,kind,festival` (header first) for the given years.
    pub fn parse(csv: &str, first_year: i32, last_year: i32) -> Result<Self, CalendarError> {
        let mut special = HashMap::new();
        for (i, line) in csv.lines().enumerate().skip(1) {
            let line_no = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let mut fields = line.split(',');
            let bad = |message: &str| CalendarError::BadLine {
                line: line_no,
                message: message.to_owned(),
            };
            let date = fields
                .next()
                .and_then(|d| NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d").ok())
                .ok_or_else(|| bad("first field must be a date"))?;
            if !(first_year..=last_year).contains(&date.year()) {
                return Err(bad("date outside the calendar's years"));
            }
            let kind = match fields.next().map(str::trim) {
                Some("holiday") => SpecialDay::Holiday,
                Some("workday") => SpecialDay::MakeUpWorkday,
                _ => return Err(bad("second field must be holiday or workday")),
            };
            special.insert(date, kind);
        }
        Ok(WorkingCalendar {
            first_year,
            last_year,
            special,
        })
    }

    /// The official calendar, 2015 through 2026, parsed once. (The embedded file is checked by the
    /// unit tests; the error path exists so that a defective build reports rather than panics.)
    pub fn official() -> Result<&'static WorkingCalendar, CalendarError> {
        static CALENDAR: OnceLock<Result<WorkingCalendar, CalendarError>> = OnceLock::new();
        CALENDAR
            .get_or_init(|| {
                WorkingCalendar::parse(OFFICIAL_CSV, CALENDAR_YEARS.0, CALENDAR_YEARS.1)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn check(&self, date: NaiveDate) -> Result<(), CalendarError> {
        if (self.first_year..=self.last_year).contains(&date.year()) {
            Ok(())
        } else {
            Err(CalendarError::OutOfRange {
                date,
                first: self.first_year,
                last: self.last_year,
            })
        }
    }

    /// Whether `date` is a working day in mainland China.
    pub fn is_working_day(&self, date: NaiveDate) -> Result<bool, CalendarError> {
        self.check(date)?;
        Ok(match self.special.get(&date) {
            Some(SpecialDay::Holiday) => false,
            Some(SpecialDay::MakeUpWorkday) => true,
            None => !matches!(date.weekday(), Weekday::Sat | Weekday::Sun),
        })
    }

    /// The `n`-th working day after `date` (`date` itself is not counted; `n` = 0 gives `date`).
    pub fn working_days_after(&self, date: NaiveDate, n: u32) -> Result<NaiveDate, CalendarError> {
        self.check(date)?;
        let mut day = date;
        let mut left = n;
        while left > 0 {
            day += Duration::days(1);
            if self.is_working_day(day)? {
                left -= 1;
            }
        }
        Ok(day)
    }
}

/// The years the embedded calendar covers.
pub const CALENDAR_YEARS: (i32, i32) = (2015, 2026);

/// The last China-time calendar day on which a qualifier may still complete their finals
/// information (R-REG-6): the `working_days`-th working day after the qualifying day.
///
/// Reading: the day of qualifying is not counted ("within 10 working days of qualifying"), and the
/// deadline day counts in full (until 24:00 China time).
pub fn finals_information_deadline(
    calendar: &WorkingCalendar,
    qualified_on: NaiveDate,
    working_days: u32,
) -> Result<NaiveDate, CalendarError> {
    calendar.working_days_after(qualified_on, working_days)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }

    #[test]
    fn r_reg_6_the_embedded_calendar_loads_and_covers_2015_to_2026() {
        let cal = WorkingCalendar::parse(OFFICIAL_CSV, CALENDAR_YEARS.0, CALENDAR_YEARS.1)
            .expect("valid");
        assert!(
            cal.special.len() > 300,
            "{} special days",
            cal.special.len()
        );
        assert!(
            cal.special.keys().any(|d| d.year() == 2015)
                && cal.special.keys().any(|d| d.year() == 2026)
        );
    }

    #[test]
    fn r_reg_6_holidays_and_make_up_days() {
        let cal = WorkingCalendar::official().expect("calendar");
        // National Day 2025: 1-8 October off; Sunday 28 September and Saturday 11 October worked.
        assert_eq!(cal.is_working_day(d(2025, 10, 1)), Ok(false));
        assert_eq!(cal.is_working_day(d(2025, 10, 8)), Ok(false));
        assert_eq!(cal.is_working_day(d(2025, 9, 28)), Ok(true));
        assert_eq!(cal.is_working_day(d(2025, 10, 11)), Ok(true));
        // Ordinary days.
        assert_eq!(cal.is_working_day(d(2025, 9, 3)), Ok(true)); // Wednesday
        assert_eq!(cal.is_working_day(d(2025, 9, 6)), Ok(false)); // Saturday
    }

    #[test]
    fn r_reg_6_ten_working_days_across_national_day() {
        let cal = WorkingCalendar::official().expect("calendar");
        // Qualifying on Tuesday 2025-09-23: working days 24, 25, 26, (27 Sat off), 28 (Sun, make-up),
        // 29, 30, then 1-8 October off, 9, 10, 11 (Sat, make-up), (12 Sun off), 13 -> the 10th is
        // Monday 13 October.
        assert_eq!(
            finals_information_deadline(cal, d(2025, 9, 23), 10),
            Ok(d(2025, 10, 13))
        );
        assert_eq!(
            finals_information_deadline(cal, d(2025, 9, 23), 9),
            Ok(d(2025, 10, 11))
        );
        // An ordinary fortnight: Monday 2025-09-01 + 10 working days = Monday 15 September.
        assert_eq!(
            finals_information_deadline(cal, d(2025, 9, 1), 10),
            Ok(d(2025, 9, 15))
        );
        assert_eq!(cal.working_days_after(d(2025, 9, 1), 0), Ok(d(2025, 9, 1)));
    }

    #[test]
    fn r_reg_6_dates_outside_the_calendar_are_an_error() {
        let cal = WorkingCalendar::official().expect("calendar");
        assert_eq!(
            cal.is_working_day(d(2027, 1, 4)),
            Err(CalendarError::OutOfRange {
                date: d(2027, 1, 4),
                first: 2015,
                last: 2026
            })
        );
        // Running off the end of the data while counting is an error too, not a guess.
        assert!(matches!(
            cal.working_days_after(d(2026, 12, 28), 10),
            Err(CalendarError::OutOfRange { .. })
        ));
        assert!(cal.is_working_day(d(2014, 12, 31)).is_err());
    }

    #[test]
    fn r_reg_6_bad_calendar_rows_name_their_line() {
        let err = WorkingCalendar::parse(
            "date,kind,festival\n2025-10-01,holiday,x\n2025-13-01,holiday,x\n",
            2025,
            2025,
        )
        .expect_err("bad date");
        assert_eq!(
            err,
            CalendarError::BadLine {
                line: 3,
                message: "first field must be a date".into()
            }
        );
        let err =
            WorkingCalendar::parse("h\n2025-10-01,vacation,x\n", 2025, 2025).expect_err("bad kind");
        assert!(matches!(err, CalendarError::BadLine { line: 2, .. }));
    }
}
