//! Organizer workflows as state machines: wildcard applications (外卡, R-WC-1, R-WC-2) and the
//! public notice of the finalist list with its reports (公示 / 举报, R-PUB-1..3).
//!
//! Every transition is a pure function from a state and a decision (who, when, why) to the next
//! state or a refusal; the services store the states and audit the decisions (R-DIS-3).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Deserialize;

use crate::preset::Checker;
use crate::time::china_date;

/// Who decided something, and when (R-WC-2: "every decision records who made it and when").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub by: String,
    pub at: DateTime<Utc>,
}

/// Wildcard rules of a preset (`wildcards`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WildcardRules {
    /// Last day to apply, inclusive, China time (xiangqi-2022: 10-01). `None`: organizers set it.
    pub deadline: Option<NaiveDate>,
    /// Maximum approved wildcards per event; `None`: the organizing committee decides case by case.
    pub quota_per_event: Option<u32>,
    /// The eligible sources, for the application form (R-WC-1).
    pub sources: Vec<String>,
}

/// The evidence an application must carry (R-WC-1): event, name, sex, phone, ID number and a photo
/// of the award certificate. The service checks the formats; here: all present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WildcardEvidence {
    pub event: String,
    pub name: String,
    pub sex_stated: bool,
    pub phone: String,
    pub id_number: String,
    pub certificate_photo: bool,
    pub source: String,
}

/// A wildcard application's state (R-WC-2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WildcardState {
    Submitted(Decision),
    UnderReview(Decision),
    Approved(Decision),
    Rejected { decision: Decision, reason: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorkflowError {
    #[error("the deadline was {0} (China time)")]
    PastDeadline(NaiveDate),
    #[error("the application lacks {0}")]
    MissingEvidence(&'static str),
    #[error("source {0:?} is not an eligible wildcard source")]
    UnknownSource(String),
    #[error("cannot {action} an application that is {state}")]
    WrongState {
        action: &'static str,
        state: &'static str,
    },
    #[error("a rejection needs a reason")]
    NoReason,
    #[error("the event's wildcard quota of {0} is used up")]
    QuotaFull(u32),
    #[error("the notice is {0}; this is not possible now")]
    NoticeState(&'static str),
    #[error(
        "the finalist list is frozen; a change needs an audited organizer override with a reason"
    )]
    Frozen,
}

impl WildcardState {
    fn name(&self) -> &'static str {
        match self {
            WildcardState::Submitted(_) => "submitted",
            WildcardState::UnderReview(_) => "under review",
            WildcardState::Approved(_) => "approved",
            WildcardState::Rejected { .. } => "rejected",
        }
    }
}

/// Submits an application (R-WC-1): before the deadline, with every piece of evidence.
pub fn submit_wildcard(
    rules: &WildcardRules,
    evidence: &WildcardEvidence,
    by: Decision,
) -> Result<WildcardState, WorkflowError> {
    if let Some(deadline) = rules.deadline
        && china_date(by.at) > deadline
    {
        return Err(WorkflowError::PastDeadline(deadline));
    }
    let checks: [(bool, &'static str); 6] = [
        (!evidence.event.trim().is_empty(), "the event"),
        (!evidence.name.trim().is_empty(), "the name"),
        (evidence.sex_stated, "the sex"),
        (!evidence.phone.trim().is_empty(), "the phone number"),
        (!evidence.id_number.trim().is_empty(), "the ID number"),
        (
            evidence.certificate_photo,
            "a photo of the award certificate",
        ),
    ];
    if let Some((_, what)) = checks.iter().find(|(ok, _)| !ok) {
        return Err(WorkflowError::MissingEvidence(what));
    }
    if !rules.sources.is_empty() && !rules.sources.iter().any(|s| s == &evidence.source) {
        return Err(WorkflowError::UnknownSource(evidence.source.clone()));
    }
    Ok(WildcardState::Submitted(by))
}

/// An organizer takes the application up.
pub fn start_review(state: &WildcardState, by: Decision) -> Result<WildcardState, WorkflowError> {
    match state {
        WildcardState::Submitted(_) => Ok(WildcardState::UnderReview(by)),
        other => Err(WorkflowError::WrongState {
            action: "review",
            state: other.name(),
        }),
    }
}

/// Approves an application under review, within the event's quota (`approved_so_far` counts the
/// event's approved wildcards). An approved wildcard joins the finalist list (R-WC-2).
pub fn approve(
    rules: &WildcardRules,
    state: &WildcardState,
    approved_so_far: u32,
    by: Decision,
) -> Result<WildcardState, WorkflowError> {
    if !matches!(state, WildcardState::UnderReview(_)) {
        return Err(WorkflowError::WrongState {
            action: "approve",
            state: state.name(),
        });
    }
    if let Some(quota) = rules.quota_per_event
        && approved_so_far >= quota
    {
        return Err(WorkflowError::QuotaFull(quota));
    }
    Ok(WildcardState::Approved(by))
}

/// Rejects an application under review, with a reason (R-WC-2).
pub fn reject(
    state: &WildcardState,
    reason: &str,
    by: Decision,
) -> Result<WildcardState, WorkflowError> {
    if !matches!(state, WildcardState::UnderReview(_)) {
        return Err(WorkflowError::WrongState {
            action: "reject",
            state: state.name(),
        });
    }
    if reason.trim().is_empty() {
        return Err(WorkflowError::NoReason);
    }
    Ok(WildcardState::Rejected {
        decision: by,
        reason: reason.trim().to_owned(),
    })
}

/// When the public notice runs (R-PUB-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticePeriod {
    /// Fixed dates, inclusive (xiangqi-2022: 10-14..10-20).
    Dates {
        opens_on: NaiveDate,
        closes_on: NaiveDate,
    },
    /// A number of days ending the day before the final starts (2015: one week before the final).
    DaysBeforeFinal(u32),
}

impl NoticePeriod {
    /// The inclusive notice days for a final starting on `final_starts_on`.
    pub fn days(self, final_starts_on: NaiveDate) -> (NaiveDate, NaiveDate) {
        match self {
            NoticePeriod::Dates {
                opens_on,
                closes_on,
            } => (opens_on, closes_on),
            NoticePeriod::DaysBeforeFinal(n) => {
                let closes = final_starts_on - Duration::days(1);
                (closes - Duration::days(i64::from(n.max(1)) - 1), closes)
            }
        }
    }
}

/// The finalist list's notice (R-PUB-3): draft → published → closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeState {
    Draft,
    Published(Decision),
    Closed(Decision),
}

impl NoticeState {
    fn name(&self) -> &'static str {
        match self {
            NoticeState::Draft => "a draft",
            NoticeState::Published(_) => "published",
            NoticeState::Closed(_) => "closed",
        }
    }
}

pub fn publish(state: &NoticeState, by: Decision) -> Result<NoticeState, WorkflowError> {
    match state {
        NoticeState::Draft => Ok(NoticeState::Published(by)),
        other => Err(WorkflowError::NoticeState(other.name())),
    }
}

pub fn close_notice(state: &NoticeState, by: Decision) -> Result<NoticeState, WorkflowError> {
    match state {
        NoticeState::Published(_) => Ok(NoticeState::Closed(by)),
        other => Err(WorkflowError::NoticeState(other.name())),
    }
}

/// Whether the finalist list may change now (R-PUB-3): freely before the notice closes; after it,
/// only by an organizer override that carries a reason (which the service audits).
pub fn may_change_list(
    state: &NoticeState,
    override_reason: Option<&str>,
) -> Result<(), WorkflowError> {
    match (state, override_reason.map(str::trim)) {
        (NoticeState::Closed(_), Some(reason)) if !reason.is_empty() => Ok(()),
        (NoticeState::Closed(_), _) => Err(WorkflowError::Frozen),
        _ => Ok(()),
    }
}

/// A report against a listed player (R-PUB-2, R-PUB-3): open → under investigation → upheld | dismissed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportState {
    Open(Decision),
    UnderInvestigation(Decision),
    /// The player is disqualified at once and removed from the list (R-PUB-2).
    Upheld {
        decision: Decision,
        reason: String,
    },
    Dismissed {
        decision: Decision,
        reason: String,
    },
}

/// Files a report: anyone may, but only while the notice is published (R-PUB-2).
pub fn file_report(notice: &NoticeState, by: Decision) -> Result<ReportState, WorkflowError> {
    match notice {
        NoticeState::Published(_) => Ok(ReportState::Open(by)),
        other => Err(WorkflowError::NoticeState(other.name())),
    }
}

pub fn investigate(report: &ReportState, by: Decision) -> Result<ReportState, WorkflowError> {
    match report {
        ReportState::Open(_) => Ok(ReportState::UnderInvestigation(by)),
        _ => Err(WorkflowError::WrongState {
            action: "investigate",
            state: "past investigation",
        }),
    }
}

/// Upholds or dismisses a report under investigation; both need a reason.
pub fn conclude(
    report: &ReportState,
    uphold: bool,
    reason: &str,
    by: Decision,
) -> Result<ReportState, WorkflowError> {
    if !matches!(report, ReportState::UnderInvestigation(_)) {
        return Err(WorkflowError::WrongState {
            action: "conclude",
            state: "not under investigation",
        });
    }
    if reason.trim().is_empty() {
        return Err(WorkflowError::NoReason);
    }
    let reason = reason.trim().to_owned();
    Ok(if uphold {
        ReportState::Upheld {
            decision: by,
            reason,
        }
    } else {
        ReportState::Dismissed {
            decision: by,
            reason,
        }
    })
}

/// The replacement for a disqualified finalist (R-PUB-3 reading): the next eligible qualifier of the
/// same stage and period, i.e. the best-ranked player of that period's ranking who did not advance
/// and is not excluded (disqualified, withdrawn, already a finalist).
pub fn replacement<'a>(
    period_ranking: &'a [String],
    advanced: &dyn Fn(&str) -> bool,
    excluded: &dyn Fn(&str) -> bool,
) -> Option<&'a str> {
    period_ranking
        .iter()
        .map(String::as_str)
        .find(|p| !advanced(p) && !excluded(p))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct WildcardsFile {
    #[serde(default)]
    deadline: Option<String>,
    #[serde(default)]
    quota_per_event: Option<i64>,
    #[serde(default)]
    sources: Vec<String>,
}

pub(crate) fn check_wildcards(f: &WildcardsFile, path: &str, c: &mut Checker) -> WildcardRules {
    let deadline = f
        .deadline
        .as_deref()
        .and_then(|d| c.date(&format!("{path}.deadline"), d));
    if let Some(q) = f.quota_per_event {
        c.positive(&format!("{path}.quota_per_event"), q);
    }
    for (i, s) in f.sources.iter().enumerate() {
        c.non_empty(&format!("{path}.sources[{i}]"), s);
    }
    WildcardRules {
        deadline,
        quota_per_event: f.quota_per_event.and_then(|q| u32::try_from(q).ok()),
        sources: f.sources.clone(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoticeFile {
    #[serde(default)]
    opens_on: Option<String>,
    #[serde(default)]
    closes_on: Option<String>,
    #[serde(default)]
    days_before_final: Option<i64>,
}

pub(crate) fn check_notice(f: &NoticeFile, path: &str, c: &mut Checker) -> Option<NoticePeriod> {
    match (&f.opens_on, &f.closes_on, f.days_before_final) {
        (Some(o), Some(cl), None) => {
            let opens_on = c.date(&format!("{path}.opens_on"), o)?;
            let closes_on = c.date(&format!("{path}.closes_on"), cl)?;
            if closes_on < opens_on {
                c.err(format!("{path}.closes_on"), "must not be before opens_on");
            }
            Some(NoticePeriod::Dates {
                opens_on,
                closes_on,
            })
        }
        (None, None, Some(n)) => {
            c.positive(&format!("{path}.days_before_final"), n);
            u32::try_from(n)
                .ok()
                .filter(|n| *n > 0)
                .map(NoticePeriod::DaysBeforeFinal)
        }
        _ => {
            c.err(
                path.to_owned(),
                "give either opens_on and closes_on, or days_before_final",
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).expect("date")
    }
    fn by(who: &str, y: i32, m: u32, day: u32, h: u32) -> Decision {
        Decision {
            by: who.into(),
            at: Utc
                .with_ymd_and_hms(y, m, day, h, 0, 0)
                .single()
                .expect("time"),
        }
    }
    fn rules() -> WildcardRules {
        WildcardRules {
            deadline: Some(d(2022, 10, 1)),
            quota_per_event: Some(1),
            sources: vec![
                "hangzhou-district-top3".into(),
                "provincial-games-top3".into(),
            ],
        }
    }
    fn evidence() -> WildcardEvidence {
        WildcardEvidence {
            event: "men-individual".into(),
            name: "张三".into(),
            sex_stated: true,
            phone: "13812345678".into(),
            id_number: "11010519491231002X".into(),
            certificate_photo: true,
            source: "provincial-games-top3".into(),
        }
    }

    #[test]
    fn r_wc_1_applications_before_the_deadline_with_all_evidence() {
        // 2022-10-01 15:59 UTC is 23:59 on the deadline day in China.
        assert!(submit_wildcard(&rules(), &evidence(), by("p", 2022, 10, 1, 15)).is_ok());
        assert_eq!(
            submit_wildcard(&rules(), &evidence(), by("p", 2022, 10, 1, 16)),
            Err(WorkflowError::PastDeadline(d(2022, 10, 1)))
        );
        let mut no_photo = evidence();
        no_photo.certificate_photo = false;
        assert_eq!(
            submit_wildcard(&rules(), &no_photo, by("p", 2022, 9, 1, 0)),
            Err(WorkflowError::MissingEvidence(
                "a photo of the award certificate"
            ))
        );
        let mut other = evidence();
        other.source = "my-club".into();
        assert_eq!(
            submit_wildcard(&rules(), &other, by("p", 2022, 9, 1, 0)),
            Err(WorkflowError::UnknownSource("my-club".into()))
        );
    }

    #[test]
    fn r_wc_2_review_then_approve_or_reject_with_reason_and_quota() {
        let submitted =
            submit_wildcard(&rules(), &evidence(), by("p", 2022, 9, 1, 0)).expect("submit");
        assert!(matches!(
            approve(&rules(), &submitted, 0, by("o", 2022, 9, 2, 0)),
            Err(WorkflowError::WrongState { .. })
        ));
        let review = start_review(&submitted, by("org-1", 2022, 9, 2, 0)).expect("review");
        let approved = approve(&rules(), &review, 0, by("org-1", 2022, 9, 3, 0)).expect("approve");
        assert_eq!(
            approved,
            WildcardState::Approved(by("org-1", 2022, 9, 3, 0)),
            "who and when are recorded"
        );
        assert_eq!(
            approve(&rules(), &review, 1, by("org-1", 2022, 9, 3, 0)),
            Err(WorkflowError::QuotaFull(1))
        );
        assert_eq!(
            reject(&review, "  ", by("org-1", 2022, 9, 3, 0)),
            Err(WorkflowError::NoReason)
        );
        let rejected = reject(&review, "证书不符", by("org-2", 2022, 9, 3, 0)).expect("reject");
        assert!(
            matches!(rejected, WildcardState::Rejected { ref reason, .. } if reason == "证书不符")
        );
        assert!(
            start_review(&rejected, by("o", 2022, 9, 4, 0)).is_err(),
            "a decided application stays decided"
        );
    }

    #[test]
    fn r_pub_1_notice_period_by_dates_or_one_week_before_the_final() {
        let week = NoticePeriod::DaysBeforeFinal(7);
        // go-2015's final starts 2015-10-30: notice 10-23..10-29.
        assert_eq!(
            week.days(d(2015, 10, 30)),
            (d(2015, 10, 23), d(2015, 10, 29))
        );
        let fixed = NoticePeriod::Dates {
            opens_on: d(2022, 10, 14),
            closes_on: d(2022, 10, 20),
        };
        assert_eq!(
            fixed.days(d(2022, 11, 25)),
            (d(2022, 10, 14), d(2022, 10, 20))
        );
    }

    #[test]
    fn r_pub_2_reports_only_while_the_notice_is_published() {
        assert_eq!(
            file_report(&NoticeState::Draft, by("anyone", 2022, 10, 15, 0)),
            Err(WorkflowError::NoticeState("a draft"))
        );
        let published = publish(&NoticeState::Draft, by("org", 2022, 10, 14, 0)).expect("publish");
        let report = file_report(&published, by("anyone", 2022, 10, 15, 0)).expect("report");
        let investigating =
            investigate(&report, by("ref-1", 2022, 10, 15, 2)).expect("investigate");
        let upheld =
            conclude(&investigating, true, "代打属实", by("org", 2022, 10, 16, 0)).expect("uphold");
        assert!(matches!(upheld, ReportState::Upheld { .. }));
        assert_eq!(
            conclude(&investigating, false, "", by("org", 2022, 10, 16, 0)),
            Err(WorkflowError::NoReason)
        );
        let closed = close_notice(&published, by("org", 2022, 10, 21, 0)).expect("close");
        assert_eq!(
            file_report(&closed, by("late", 2022, 10, 22, 0)),
            Err(WorkflowError::NoticeState("closed"))
        );
    }

    #[test]
    fn r_pub_3_replacement_and_frozen_list() {
        let ranking: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let advanced = |p: &str| p == "a" || p == "b";
        let excluded = |p: &str| p == "c";
        assert_eq!(replacement(&ranking, &advanced, &excluded), Some("d"));
        assert_eq!(replacement(&ranking, &|_| true, &|_| false), None);
        let published = publish(&NoticeState::Draft, by("org", 2022, 10, 14, 0)).expect("publish");
        assert_eq!(may_change_list(&published, None), Ok(()));
        let closed = close_notice(&published, by("org", 2022, 10, 21, 0)).expect("close");
        assert_eq!(may_change_list(&closed, None), Err(WorkflowError::Frozen));
        assert_eq!(
            may_change_list(&closed, Some(" ")),
            Err(WorkflowError::Frozen)
        );
        assert_eq!(may_change_list(&closed, Some("选手伤病退赛")), Ok(()));
        assert!(publish(&closed, by("org", 2022, 10, 22, 0)).is_err());
    }

    #[test]
    fn workflow_tables_are_validated_with_paths() {
        let mut c = Checker::new();
        let f: NoticeFile =
            toml::from_str("opens_on = \"2022-10-14\"\ndays_before_final = 7").expect("toml");
        assert!(check_notice(&f, "public_notice", &mut c).is_none());
        let f: WildcardsFile =
            toml::from_str("deadline = \"2022-10-32\"\nquota_per_event = 0").expect("toml");
        let _ = check_wildcards(&f, "wildcards", &mut c);
        let got: Vec<String> = c.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            got,
            [
                "public_notice: give either opens_on and closes_on, or days_before_final",
                "wildcards.deadline: \"2022-10-32\" is not a date (YYYY-MM-DD)",
                "wildcards.quota_per_event: must be > 0",
            ]
        );
    }
}
