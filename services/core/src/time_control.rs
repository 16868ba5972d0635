//! Time controls (用时) of online games (R-ONL-6). The platform enforces them; qiwang records them
//! per stage so that organizers, referees and players read one source, and a loss on time is an
//! ordinary loss in scoring.

use serde::Deserialize;

use crate::preset::Checker;

/// Main time per side, then byo-yomi (读秒) of `byoyomi_secs` a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    pub main_secs: u32,
    pub byoyomi_secs: Option<u32>,
    /// How many byo-yomi periods may be overrun before the loss on time (go-2015: "20秒3次": the
    /// third overrun loses); `None` = every move must be made within `byoyomi_secs`
    /// (xiangqi-2015: "10分钟后每步20秒").
    pub byoyomi_periods: Option<u32>,
}

/// `time_control` tables (`[stages.online.time_control]`, `[stages.knockout.time_control]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TimeControlFile {
    pub(crate) main_secs: i64,
    pub(crate) byoyomi_secs: Option<i64>,
    pub(crate) byoyomi_periods: Option<i64>,
}

fn positive_u32(c: &mut Checker, path: String, value: i64) -> Option<u32> {
    match u32::try_from(value) {
        Ok(v) if v > 0 => Some(v),
        _ => {
            c.err(path, "must be > 0");
            None
        }
    }
}

pub(crate) fn check_time_control(
    t: &TimeControlFile,
    path: &str,
    c: &mut Checker,
) -> Option<TimeControl> {
    let main_secs = positive_u32(c, format!("{path}.main_secs"), t.main_secs);
    let byoyomi_secs = t
        .byoyomi_secs
        .and_then(|v| positive_u32(c, format!("{path}.byoyomi_secs"), v));
    let byoyomi_periods = t
        .byoyomi_periods
        .and_then(|v| positive_u32(c, format!("{path}.byoyomi_periods"), v));
    if t.byoyomi_periods.is_some() && t.byoyomi_secs.is_none() {
        c.err(format!("{path}.byoyomi_periods"), "needs byoyomi_secs");
    }
    Some(TimeControl {
        main_secs: main_secs?,
        byoyomi_secs,
        byoyomi_periods,
    })
}
