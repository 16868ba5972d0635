//! China Standard Time (UTC+8). Times are stored in UTC; rules are judged on the China-time
//! calendar day and clock (R-STR-4).

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};

/// UTC+8, no daylight saving.
pub fn china_offset() -> FixedOffset {
    // 8 hours is within FixedOffset's ±24h range, so this cannot fail.
    FixedOffset::east_opt(8 * 3600).unwrap_or_else(|| unreachable!("UTC+8 is a valid offset"))
}

/// The calendar day in China at a UTC instant.
pub fn china_date(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&china_offset()).date_naive()
}

/// Whole years of age on `on` for someone born on `birth` (a birthday counts on its own day;
/// someone born on 29 February turns a year older on 1 March in common years).
pub fn age_on(birth: NaiveDate, on: NaiveDate) -> i32 {
    use chrono::Datelike;
    let mut age = on.year() - birth.year();
    if (on.month(), on.day()) < (birth.month(), birth.day()) {
        age -= 1;
    }
    age
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }

    #[test]
    fn r_str_4_china_day_turns_at_16_utc() {
        let before = Utc
            .with_ymd_and_hms(2022, 9, 23, 15, 59, 59)
            .single()
            .expect("time");
        let after = Utc
            .with_ymd_and_hms(2022, 9, 23, 16, 0, 0)
            .single()
            .expect("time");
        assert_eq!(china_date(before), d(2022, 9, 23));
        assert_eq!(china_date(after), d(2022, 9, 24));
    }

    #[test]
    fn r_reg_8_age_counts_the_birthday_itself() {
        assert_eq!(age_on(d(2000, 5, 10), d(2010, 5, 9)), 9);
        assert_eq!(age_on(d(2000, 5, 10), d(2010, 5, 10)), 10);
        assert_eq!(age_on(d(2000, 2, 29), d(2001, 2, 28)), 0);
        assert_eq!(age_on(d(2000, 2, 29), d(2001, 3, 1)), 1);
    }
}
