//! Who a player is (R-REG-3): Chinese resident IDs (居民身份证号码, GB 11643) and foreign passports.
//!
//! "Parse, don't validate": [`ResidentId::parse`] is the only way to get a `ResidentId`, so a value
//! of that type always has a valid check digit, a known province-level region and a real birth date.

use chrono::NaiveDate;
use std::fmt;

use crate::region::Region;
use crate::{nationality, region};

/// A person's sex as recorded on their identity document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sex {
    Male,
    Female,
}

/// Why a resident ID number was refused. Each variant names what is wrong, for a field-level message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResidentIdError {
    #[error("must be 18 characters, got {0}")]
    Length(usize),
    #[error("characters 1-17 must be digits and the 18th a digit or X")]
    Characters,
    #[error("region code {0} is not a province-level region")]
    UnknownRegion(String),
    #[error("birth date {0} is not a real date")]
    BirthDate(String),
    #[error("check digit is {found}, expected {expected} (ISO 7064 MOD 11-2)")]
    CheckDigit { found: char, expected: char },
}

/// An 18-character resident ID whose structure and check digit are valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResidentId {
    number: String,
    region: Region,
    birth_date: NaiveDate,
    sex: Sex,
}

/// GB 11643 weights for positions 1..=17: 2^(18-i) mod 11.
const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/// The check character for each weighted sum mod 11.
const CHECK_CHARS: [char; 11] = ['1', '0', 'X', '9', '8', '7', '6', '5', '4', '3', '2'];

/// The ISO 7064 MOD 11-2 check character for the first 17 digits.
pub fn resident_id_check_char(first17: &[u32; 17]) -> char {
    let sum: u32 = first17.iter().zip(WEIGHTS).map(|(d, w)| d * w).sum();
    CHECK_CHARS[(sum % 11) as usize]
}

impl ResidentId {
    /// Parses and checks a resident ID. A lowercase `x` is accepted and normalised to `X`.
    pub fn parse(raw: &str) -> Result<Self, ResidentIdError> {
        let number = raw.trim().to_ascii_uppercase();
        let chars: Vec<char> = number.chars().collect();
        if chars.len() != 18 {
            return Err(ResidentIdError::Length(chars.len()));
        }
        let mut digits = [0u32; 17];
        for (slot, c) in digits.iter_mut().zip(&chars[..17]) {
            *slot = c.to_digit(10).ok_or(ResidentIdError::Characters)?;
        }
        let last = chars[17];
        if !(last.is_ascii_digit() || last == 'X') {
            return Err(ResidentIdError::Characters);
        }
        let region_code = &number[..2];
        let region = region::by_code(region_code)
            .ok_or_else(|| ResidentIdError::UnknownRegion(number[..6].to_owned()))?;
        let birth = &number[6..14];
        let birth_date = NaiveDate::parse_from_str(birth, "%Y%m%d")
            .map_err(|_| ResidentIdError::BirthDate(birth.to_owned()))?;
        let expected = resident_id_check_char(&digits);
        if expected != last {
            return Err(ResidentIdError::CheckDigit {
                found: last,
                expected,
            });
        }
        // The 17th digit is the sequence's last: odd for men, even for women.
        let sex = if digits[16] % 2 == 1 {
            Sex::Male
        } else {
            Sex::Female
        };
        Ok(ResidentId {
            number,
            region,
            birth_date,
            sex,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.number
    }
    pub fn region(&self) -> Region {
        self.region
    }
    pub fn birth_date(&self) -> NaiveDate {
        self.birth_date
    }
    pub fn sex(&self) -> Sex {
        self.sex
    }
}

impl fmt::Display for ResidentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.number)
    }
}

/// Why a passport identity was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassportError {
    #[error("passport number must be 5-20 letters or digits")]
    Number,
    #[error("nationality {0:?} is not an ISO 3166-1 alpha-3 code")]
    Nationality(String),
    #[error("nationality CHN must register with a resident ID")]
    ChineseNational,
}

/// A foreign player's passport (R-REG-3): number plus ISO 3166-1 alpha-3 nationality.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Passport {
    number: String,
    nationality: &'static str,
}

impl Passport {
    pub fn parse(number: &str, nationality: &str) -> Result<Self, PassportError> {
        let number = number.trim().to_ascii_uppercase();
        if !(5..=20).contains(&number.len()) || !number.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(PassportError::Number);
        }
        let code = nationality.trim().to_ascii_uppercase();
        let nationality = nationality::by_code(&code)
            .ok_or_else(|| PassportError::Nationality(nationality.to_owned()))?;
        if nationality == "CHN" {
            return Err(PassportError::ChineseNational);
        }
        Ok(Passport {
            number,
            nationality,
        })
    }
    pub fn number(&self) -> &str {
        &self.number
    }
    pub fn nationality(&self) -> &'static str {
        self.nationality
    }
}

/// A checked identity: exactly one person per value of [`Identity::key`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Identity {
    Resident(ResidentId),
    Passport(Passport),
}

impl Identity {
    /// The document number that identifies the person (unique across players).
    /// Passports are keyed with their nationality, since numbers are only unique per issuing country.
    pub fn key(&self) -> String {
        match self {
            Identity::Resident(id) => id.as_str().to_owned(),
            Identity::Passport(p) => format!("{}:{}", p.nationality, p.number),
        }
    }
    pub fn number(&self) -> &str {
        match self {
            Identity::Resident(id) => id.as_str(),
            Identity::Passport(p) => p.number(),
        }
    }
    pub fn nationality(&self) -> &'static str {
        match self {
            Identity::Resident(_) => "CHN",
            Identity::Passport(p) => p.nationality(),
        }
    }
    pub fn is_foreign(&self) -> bool {
        matches!(self, Identity::Passport(_))
    }
}

/// A mismatch between what a player stated and what their resident ID says (R-REG-3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatedFactsError {
    #[error("stated birth date {stated} disagrees with the resident ID's {on_id}")]
    BirthDate { stated: NaiveDate, on_id: NaiveDate },
    #[error("stated sex disagrees with the resident ID")]
    Sex,
}

/// Checks the stated birth date and sex against a resident ID (R-REG-3). Passports carry neither,
/// so for foreigners the stated facts stand.
pub fn check_stated_facts(
    identity: &Identity,
    stated_birth: NaiveDate,
    stated_sex: Sex,
) -> Result<(), StatedFactsError> {
    let Identity::Resident(id) = identity else {
        return Ok(());
    };
    if id.birth_date() != stated_birth {
        return Err(StatedFactsError::BirthDate {
            stated: stated_birth,
            on_id: id.birth_date(),
        });
    }
    if id.sex() != stated_sex {
        return Err(StatedFactsError::Sex);
    }
    Ok(())
}

/// Masks an identity document number for viewers who may not see it (R-REG-3):
/// the first 4 and last 4 characters stay, the rest become `*`. Short numbers keep only the last 2.
pub fn mask_id_number(number: &str) -> String {
    mask(number, 4, 4)
}

/// Masks a phone number: the first 3 and last 4 digits stay (`138****5678`).
pub fn mask_phone(phone: &str) -> String {
    mask(phone, 3, 4)
}

fn mask(value: &str, keep_front: usize, keep_back: usize) -> String {
    let chars: Vec<char> = value.chars().collect();
    let n = chars.len();
    if n == 0 {
        return String::new();
    }
    let (front, back) = if n > keep_front + keep_back {
        (keep_front, keep_back)
    } else {
        (0, n.min(2))
    };
    chars
        .iter()
        .enumerate()
        .map(|(i, c)| if i < front || i >= n - back { *c } else { '*' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a valid ID from its first 17 digits by appending the right check character.
    fn with_check(first17: &str) -> String {
        let mut d = [0u32; 17];
        for (slot, c) in d.iter_mut().zip(first17.chars()) {
            *slot = c.to_digit(10).expect("digit");
        }
        format!("{first17}{}", resident_id_check_char(&d))
    }

    #[test]
    fn r_reg_3_known_good_ids_parse() {
        // The GB 11643 standard's worked example and a checksum that ends in X.
        let id = ResidentId::parse("11010519491231002X").expect("valid");
        assert_eq!(id.region().code, "11");
        assert_eq!(
            id.birth_date(),
            NaiveDate::from_ymd_opt(1949, 12, 31).expect("date")
        );
        assert_eq!(id.sex(), Sex::Female);
        let id = ResidentId::parse("440524188001010014").expect("valid");
        assert_eq!(id.region().name_zh, "广东省");
        assert_eq!(id.sex(), Sex::Male);
    }

    #[test]
    fn r_reg_3_lowercase_x_is_normalised() {
        let id = ResidentId::parse("11010519491231002x").expect("valid");
        assert_eq!(id.as_str(), "11010519491231002X");
    }

    #[test]
    fn r_reg_3_wrong_check_digit_is_refused_with_the_expected_one() {
        assert_eq!(
            ResidentId::parse("110105194912310021"),
            Err(ResidentIdError::CheckDigit {
                found: '1',
                expected: 'X'
            })
        );
    }

    #[test]
    fn r_reg_3_each_bad_shape_has_its_own_error() {
        let cases: &[(&str, ResidentIdError)] = &[
            ("1101051949123100", ResidentIdError::Length(16)),
            ("1101051949123100XX", ResidentIdError::Characters),
            ("11010519491231002Y", ResidentIdError::Characters),
            (
                "99010519491231002X",
                ResidentIdError::UnknownRegion("990105".into()),
            ),
        ];
        for (raw, err) in cases {
            assert_eq!(ResidentId::parse(raw).as_ref(), Err(err), "{raw}");
        }
        // 30 February with a correct check digit still fails on the date.
        let bad_date = with_check("33010619900230001");
        assert_eq!(
            ResidentId::parse(&bad_date),
            Err(ResidentIdError::BirthDate("19900230".into()))
        );
    }

    #[test]
    fn r_reg_3_sex_from_the_seventeenth_digit() {
        for (seq, sex) in [
            ("001", Sex::Male),
            ("002", Sex::Female),
            ("019", Sex::Male),
            ("990", Sex::Female),
        ] {
            let id = with_check(&format!("33010619900101{seq}"));
            assert_eq!(ResidentId::parse(&id).expect("valid").sex(), sex, "{id}");
        }
    }

    #[test]
    fn r_reg_3_stated_facts_must_agree() {
        let id = Identity::Resident(ResidentId::parse("11010519491231002X").expect("valid"));
        let born = NaiveDate::from_ymd_opt(1949, 12, 31).expect("date");
        assert_eq!(check_stated_facts(&id, born, Sex::Female), Ok(()));
        assert!(matches!(
            check_stated_facts(&id, born.succ_opt().expect("date"), Sex::Female),
            Err(StatedFactsError::BirthDate { .. })
        ));
        assert_eq!(
            check_stated_facts(&id, born, Sex::Male),
            Err(StatedFactsError::Sex)
        );
    }

    #[test]
    fn r_reg_3_passports_need_a_foreign_alpha3_nationality() {
        let p = Passport::parse("m1234567", "kor").expect("valid");
        assert_eq!((p.number(), p.nationality()), ("M1234567", "KOR"));
        assert_eq!(
            Passport::parse("M1234567", "KR"),
            Err(PassportError::Nationality("KR".into()))
        );
        assert_eq!(
            Passport::parse("M1234567", "XYZ"),
            Err(PassportError::Nationality("XYZ".into()))
        );
        assert_eq!(
            Passport::parse("M1234567", "CHN"),
            Err(PassportError::ChineseNational)
        );
        assert_eq!(Passport::parse("M1-234", "KOR"), Err(PassportError::Number));
        let key = Identity::Passport(p).key();
        assert_eq!(key, "KOR:M1234567");
    }

    #[test]
    fn r_reg_3_masking_keeps_only_the_ends() {
        assert_eq!(mask_id_number("11010519491231002X"), "1101**********002X");
        assert_eq!(mask_phone("13812345678"), "138****5678");
        assert_eq!(mask_id_number("M1234567"), "******67");
        assert_eq!(mask_phone(""), "");
    }

    proptest::proptest! {
        /// Every 17-digit prefix with a known region and a real date yields exactly one valid ID:
        /// the one with the computed check character.
        #[test]
        fn r_reg_3_exactly_one_check_char_is_valid(seq in 0u32..1000, day in 0i64..36500) {
            let born = NaiveDate::from_ymd_opt(1926, 1, 1).expect("date") + chrono::Duration::days(day);
            let first17 = format!("330106{}{seq:03}", born.format("%Y%m%d"));
            let good = with_check(&first17);
            proptest::prop_assert!(ResidentId::parse(&good).is_ok());
            for c in CHECK_CHARS {
                let candidate = format!("{first17}{c}");
                if candidate != good {
                    proptest::prop_assert!(ResidentId::parse(&candidate).is_err());
                }
            }
        }
    }
}
