//! Translation of a partner's `GameReport` into the core's `GameFacts`, field by field, with a
//! field-level reason for every refusal.

use chrono::{DateTime, TimeDelta, Utc};
use qiwang_core::scoring::{EndReason, GameFacts, Interruption, ReportedResult, Side};
use qiwang_proto::qualification::v1 as pb;

use crate::error::{Result, invalid};

/// The longest game a report may describe, from its start to its end and to any disconnection's
/// end. No online time control of any preset comes near it; a report beyond it is a partner's
/// error (a wrong year, an unset field), and its length would distort the average game time
/// (R-ONL-9's tie-break).
pub const MAX_GAME_LENGTH: TimeDelta = TimeDelta::hours(24);
/// Disconnections a report may list for one side (every one counts towards R-ONL-4's limits; a
/// real game has a handful).
pub const MAX_DISCONNECTIONS: usize = 64;
pub use qiwang_infra::text::MAX_ID_LEN;

/// A partner's game id: 1-128 ASCII letters, digits, `-`, `_`, `.`, `:` and `/`, starting with a
/// letter or digit. Nothing else reaches the organizers' console or the exports through it: no
/// control or direction characters, no markup, no cell formula (`=`, `+`, `-`, `@` first).
pub fn check_game_id(id: &str) -> Result<()> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '/');
    let ok = (1..=MAX_ID_LEN).contains(&id.len())
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
        && id.chars().all(allowed);
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "game_id",
            "must be 1-128 of A-Z, a-z, 0-9, '-', '_', '.', ':', '/', starting with a letter or digit",
        ))
    }
}

/// A partner's account id, as registration links it (`qiwang_infra::text::is_account_id`).
pub fn check_account(field: &'static str, id: &str) -> Result<()> {
    if qiwang_infra::text::is_account_id(id) {
        Ok(())
    } else {
        Err(invalid(field, qiwang_infra::text::ACCOUNT_ID_RULE))
    }
}

pub fn instant(field: &'static str, t: Option<&prost_types::Timestamp>) -> Result<DateTime<Utc>> {
    let t = t.ok_or_else(|| invalid(field, "is required"))?;
    u32::try_from(t.nanos)
        .ok()
        .and_then(|n| DateTime::from_timestamp(t.seconds, n))
        .ok_or_else(|| invalid(field, "is not a valid instant"))
}

fn side(field: &'static str, value: i32) -> Result<Side> {
    match pb::Side::try_from(value) {
        Ok(pb::Side::First) => Ok(Side::First),
        Ok(pb::Side::Second) => Ok(Side::Second),
        _ => Err(invalid(field, "must be SIDE_FIRST or SIDE_SECOND")),
    }
}

/// A side's disconnections: at most [`MAX_DISCONNECTIONS`], each ending within
/// [`MAX_GAME_LENGTH`] of the game's start. (Where each one starts and whether it ends before it
/// starts the core judges: `FactsError`. One ending after the game is cut at the game's end.)
fn intervals(
    field: &'static str,
    list: &[pb::Interval],
    started_at: DateTime<Utc>,
) -> Result<Vec<Interruption>> {
    if list.len() > MAX_DISCONNECTIONS {
        return Err(invalid(
            field,
            format!("at most {MAX_DISCONNECTIONS} disconnections per side"),
        ));
    }
    list.iter()
        .map(|i| {
            let to = instant(field, i.to.as_ref())?;
            if to.signed_duration_since(started_at) > MAX_GAME_LENGTH {
                return Err(invalid(
                    field,
                    "a disconnection ends more than 24 hours after the game started",
                ));
            }
            Ok(Interruption {
                from: instant(field, i.from.as_ref())?,
                to,
            })
        })
        .collect()
}

fn millis(field: &'static str, ms: Option<u64>) -> Result<Option<TimeDelta>> {
    ms.map(|ms| {
        i64::try_from(ms)
            .ok()
            .and_then(TimeDelta::try_milliseconds)
            .ok_or_else(|| invalid(field, "is out of range"))
    })
    .transpose()
}

/// The core facts of a report.
pub fn game_facts(r: &pb::GameReport) -> Result<GameFacts> {
    let reported = match pb::Result::try_from(r.result) {
        Ok(pb::Result::FirstWins) => ReportedResult::FirstWins,
        Ok(pb::Result::SecondWins) => ReportedResult::SecondWins,
        Ok(pb::Result::Draw) => ReportedResult::Draw,
        _ => {
            return Err(invalid(
                "result",
                "must be RESULT_FIRST_WINS, RESULT_SECOND_WINS or RESULT_DRAW",
            ));
        }
    };
    let end_reason = match pb::EndReason::try_from(r.end_reason) {
        Ok(pb::EndReason::Normal) => EndReason::Normal,
        Ok(pb::EndReason::Resignation) => EndReason::Resignation,
        Ok(pb::EndReason::Time) => EndReason::Time,
        Ok(pb::EndReason::Escape) => EndReason::Escape(side("ended_by", r.ended_by)?),
        Ok(pb::EndReason::Disconnect) => EndReason::Disconnect(side("ended_by", r.ended_by)?),
        Ok(pb::EndReason::FirstMoveTimeout) => EndReason::FirstMoveTimeout,
        _ => return Err(invalid("end_reason", "is required")),
    };
    let started_at = instant("started_at", r.started_at.as_ref())?;
    let ended_at = instant("ended_at", r.ended_at.as_ref())?;
    if ended_at.signed_duration_since(started_at) > MAX_GAME_LENGTH {
        return Err(invalid("ended_at", "the game lasts more than 24 hours"));
    }
    Ok(GameFacts {
        started_at,
        ended_at,
        reported,
        end_reason,
        first_interruptions: intervals(
            "first_disconnections",
            &r.first_disconnections,
            started_at,
        )?,
        second_interruptions: intervals(
            "second_disconnections",
            &r.second_disconnections,
            started_at,
        )?,
        first_side_first_move: millis("first_move_ms", r.first_move_ms)?,
        second_side_first_move: millis("second_move_ms", r.second_move_ms)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_are_plain_identifiers() {
        for ok in ["bench-1", "g1", "yizhan:2026/12/07.001", "A_b-C"] {
            assert!(check_game_id(ok).is_ok(), "{ok}");
        }
        let long = "g".repeat(MAX_ID_LEN + 1);
        for bad in [
            "",
            "g\0x",
            "\u{202E}evil",
            "<script>alert(1)</script>",
            "=HYPERLINK(\"x\")",
            "-1+cmd|' /C calc'!A0",
            "+1-cmd",
            "@SUM(A1)",
            "a b",
            "棋局1",
            long.as_str(),
        ] {
            assert!(check_game_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn account_ids_refuse_spaces_controls_and_direction_characters() {
        assert!(check_account("first_account", "acc-p01").is_ok());
        assert!(check_account("first_account", "棋手01").is_ok());
        for bad in ["", "a b", "a\0", "\u{202E}x", "x\u{200B}", &"a".repeat(129)] {
            assert!(check_account("first_account", bad).is_err(), "{bad:?}");
        }
    }
}
