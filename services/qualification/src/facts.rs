//! Translation of a partner's `GameReport` into the core's `GameFacts`, field by field, with a
//! field-level reason for every refusal.

use chrono::{DateTime, TimeDelta, Utc};
use qiwang_core::scoring::{EndReason, GameFacts, Interruption, ReportedResult, Side};
use qiwang_proto::qualification::v1 as pb;

use crate::error::{Result, invalid};

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

fn intervals(field: &'static str, list: &[pb::Interval]) -> Result<Vec<Interruption>> {
    list.iter()
        .map(|i| {
            Ok(Interruption {
                from: instant(field, i.from.as_ref())?,
                to: instant(field, i.to.as_ref())?,
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
    Ok(GameFacts {
        started_at: instant("started_at", r.started_at.as_ref())?,
        ended_at: instant("ended_at", r.ended_at.as_ref())?,
        reported,
        end_reason,
        first_interruptions: intervals("first_disconnections", &r.first_disconnections)?,
        second_interruptions: intervals("second_disconnections", &r.second_disconnections)?,
        first_side_first_move: millis("first_move_ms", r.first_move_ms)?,
        second_side_first_move: millis("second_move_ms", r.second_move_ms)?,
    })
}
