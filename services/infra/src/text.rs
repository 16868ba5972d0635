//! Free text from people (names, reasons, report texts, units, notes): what qiwang refuses.
//!
//! Every value is stored as data and bound as a parameter, never spliced into SQL, HTML or a
//! template, so none of these strings could do harm inside qiwang. They are refused anyway because
//! they travel on: into the organizers' console (HTML), into CSV and H9 exports that federations
//! open in spreadsheets, and into printed certificates. Reading (the issue's "injection-shaped
//! strings in every free-text field are refused"): a name, a reason or a note has no use for
//! markup, template syntax, SQL comment or statement shapes, spreadsheet formulas, path traversal,
//! or invisible control and bidirectional-override characters, so a value carrying any of them is
//! refused with the reason, and a person can rephrase. Ordinary punctuation stays allowed: an
//! apostrophe in a foreign name, a `+` before a phone number, `<` before a digit ("<3 games").

use std::fmt;

/// Why a free-text value is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextRefusal {
    /// A control, zero-width or bidirectional-override character (U+xxxx).
    ControlCharacter(u32),
    /// HTML or XML markup, or a script URL.
    Markup,
    /// Template or expression syntax (`${`, `{{`, `<%`, `#{`).
    Template,
    /// An SQL comment or statement shape (`'--`, `/*`, `'; drop`, `' or '1'='1`, `union select`).
    Sql,
    /// A spreadsheet formula (a leading `=`, `@`, or `+`/`-` before anything but a number).
    Formula,
    /// A path traversal (`../`).
    Path,
}

impl fmt::Display for TextRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextRefusal::ControlCharacter(c) => {
                write!(f, "contains the invisible or control character U+{c:04X}")
            }
            TextRefusal::Markup => f.write_str("contains markup (HTML/XML tags or a script URL)"),
            TextRefusal::Template => f.write_str("contains template syntax"),
            TextRefusal::Sql => f.write_str("contains an SQL comment or statement shape"),
            TextRefusal::Formula => f.write_str("starts like a spreadsheet formula"),
            TextRefusal::Path => f.write_str("contains a path traversal"),
        }
    }
}

fn is_forbidden_char(c: char) -> bool {
    let u = c as u32;
    (u < 0x20 && !matches!(c, '\n' | '\t' | '\r'))
        || (0x7F..=0x9F).contains(&u)
        || (0x200B..=0x200F).contains(&u)
        || (0x202A..=0x202E).contains(&u)
        || (0x2066..=0x2069).contains(&u)
        || u == 0xFEFF
}

/// What an account id must be: the one policy of registration, which links it, and of
/// qualification, which receives it in partners' reports.
pub const ACCOUNT_ID_RULE: &str =
    "must be 1-128 characters without spaces, control or direction characters";

/// The longest partner identifier (account id, game id) accepted, in bytes.
pub const MAX_ID_LEN: usize = 128;

/// Whether `value` is a partner platform's account id ([`ACCOUNT_ID_RULE`]).
pub fn is_account_id(value: &str) -> bool {
    (1..=MAX_ID_LEN).contains(&value.len())
        && !value
            .chars()
            .any(|c| c.is_whitespace() || is_forbidden_char(c))
}

/// Checks one free-text value; `Ok` means it may be stored and shown.
pub fn check_free_text(value: &str) -> Result<(), TextRefusal> {
    if let Some(c) = value.chars().find(|c| is_forbidden_char(*c)) {
        return Err(TextRefusal::ControlCharacter(c as u32));
    }
    // Lowercased, with runs of whitespace as one space, so spacing tricks do not hide a shape.
    let folded: String = value
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let bytes = folded.as_bytes();
    for w in bytes.windows(2) {
        if w[0] == b'<' && (w[1].is_ascii_alphabetic() || matches!(w[1], b'/' | b'!' | b'?')) {
            return Err(TextRefusal::Markup);
        }
        if matches!(w, b"${" | b"{{" | b"}}" | b"#{" | b"<%" | b"%>") {
            return Err(TextRefusal::Template);
        }
        if matches!(w, b"/*" | b"*/" | b"--") {
            return Err(TextRefusal::Sql);
        }
    }
    const MARKUP: [&str; 4] = ["javascript:", "vbscript:", "data:text/html", "onerror="];
    if MARKUP.iter().any(|m| folded.contains(m)) {
        return Err(TextRefusal::Markup);
    }
    const SQL: [&str; 14] = [
        "';",
        "\";",
        "' or ",
        "\" or ",
        "' and ",
        "\" and ",
        "union select",
        "union all select",
        "drop table",
        "delete from",
        "insert into",
        "truncate table",
        "; drop ",
        "; shutdown",
    ];
    if SQL.iter().any(|s| folded.contains(s)) {
        return Err(TextRefusal::Sql);
    }
    if folded.contains("../") || folded.contains("..\\") {
        return Err(TextRefusal::Path);
    }
    let trimmed = value.trim_start();
    let mut chars = trimmed.chars();
    match chars.next() {
        Some('=' | '@') => return Err(TextRefusal::Formula),
        Some('+' | '-') => {
            let rest = chars.as_str().trim_start();
            if !rest.is_empty() && !rest.starts_with(|c: char| c.is_ascii_digit() || c == '(') {
                return Err(TextRefusal::Formula);
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_ids_are_one_policy_for_linking_and_reporting() {
        for ok in ["alice", "王小明", "user.42@platform", &"a".repeat(128)] {
            assert!(is_account_id(ok), "{ok}");
        }
        let long = "a".repeat(129);
        for bad in [
            "",
            "a b",
            "a\tb",
            "a\u{200B}b",
            "a\u{202E}b",
            "\u{FEFF}a",
            "a\u{85}",
            &long,
        ] {
            assert!(!is_account_id(bad), "{bad:?}");
        }
    }

    #[test]
    fn ordinary_names_reasons_and_notes_pass() {
        for ok in [
            "王小明",
            "O'Neil",
            "Jean-Luc Picard",
            "他在第三轮对局中疑似使用软件——请核查。",
            "+86 138 0013 8000",
            "-5 points after the appeal",
            "<3 games played",
            "1 < 2 and 3 > 2",
            "杭州市棋类协会（盖章）",
            "多行\n说明\t可以",
            "2022-10-01 福彩3D 开奖号 4 7 1",
            "WX-0001",
            "hukou-scan-0001.pdf",
            "100% sure",
        ] {
            assert_eq!(check_free_text(ok), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn injection_shaped_strings_are_refused_with_their_reason() {
        let cases: [(&str, TextRefusal); 22] = [
            ("<script>alert(1)</script>", TextRefusal::Markup),
            ("<img src=x onerror=alert(1)>", TextRefusal::Markup),
            ("</textarea>", TextRefusal::Markup),
            ("<!-- x -->", TextRefusal::Markup),
            ("JavaScript:alert(1)", TextRefusal::Markup),
            ("${jndi:ldap://x/a}", TextRefusal::Template),
            ("{{7*7}}", TextRefusal::Template),
            ("#{7*7}", TextRefusal::Template),
            ("<%= 7*7 %>", TextRefusal::Template),
            ("x'--", TextRefusal::Sql),
            ("admin' -- ", TextRefusal::Sql),
            ("1; DROP TABLE registration_players", TextRefusal::Sql),
            ("' OR '1'='1", TextRefusal::Sql),
            ("\" or \"\"=\"", TextRefusal::Sql),
            ("1 UNION   SELECT id_number FROM x", TextRefusal::Sql),
            ("/* hidden */", TextRefusal::Sql),
            ("=HYPERLINK(\"http://x\",\"y\")", TextRefusal::Formula),
            ("@SUM(A1:A9)", TextRefusal::Formula),
            ("+cmd|' /C calc'!A0", TextRefusal::Formula),
            ("../../etc/passwd", TextRefusal::Path),
            ("name\u{0}", TextRefusal::ControlCharacter(0)),
            ("abc\u{202E}gnp.exe", TextRefusal::ControlCharacter(0x202E)),
        ];
        for (bad, why) in cases {
            assert_eq!(check_free_text(bad), Err(why.clone()), "{bad:?}");
            assert!(!why.to_string().is_empty());
        }
    }
}
