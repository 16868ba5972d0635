//! The finalist list (R-FIN-1), its public notice with reports (公示 / 举报, R-PUB-1..3), and the
//! finals-information deadline (R-REG-6): the shell around `qiwang_core::workflow` and
//! `qiwang_core::workday`.
//!
//! Readings:
//! - The list is composed from the frozen advancement lists into the final stage (period cuts and
//!   knockout stages, period 0), the direct seeds into it, and the wildcards approved in the
//!   registration service (filling what is left of a fixed number of entrants, in approval order). It can be (re)composed only while the
//!   notice is a draft; composing again adds what is new and never drops a decided place.
//! - An upheld report disqualifies the player at once (R-PUB-2) and offers the place to the next
//!   eligible qualifier of the same stage and period (`workflow::replacement`): the best-ranked
//!   player of that period's frozen list who did not advance, is not on the list in any status and
//!   whose results were not cancelled. A seed's or a knockout winner's place has no such list:
//!   it is not refilled here (a repechage, R-ADV-12, fills shortfalls).
//! - The notice cannot close while a report is still open or under investigation; once closed,
//!   an upheld report needs an override reason, which is audited (R-PUB-3).
//! - R-REG-6 applies to qualifiers and their replacements (online qualifiers), not to seeds; the
//!   deadline is the `working_days`-th working day after the China-time day of qualifying; a player
//!   deemed withdrawn is replaced like a disqualified one (issue 8: "the place goes back to the
//!   qualification service's replacement flow"), and the replacement's own clock starts then.

use qiwang_core::stage::StageKind;
use qiwang_core::workday::{WorkingCalendar, finals_information_deadline};
use qiwang_core::workflow::{
    self, Decision, NoticeState, ReportState, close_notice, file_report, investigate,
    may_change_list, publish,
};
use sea_orm::{ActiveModelTrait, PaginatorTrait};
use std::collections::HashSet;

use super::*;
use crate::entity::{finalist, notice, notice_report, seed};

const LISTED: &str = "LISTED";
const DISQUALIFIED: &str = "DISQUALIFIED";
const WITHDRAWN: &str = "WITHDRAWN";

fn final_stage(preset: &Preset) -> Result<&Stage> {
    preset
        .stages
        .iter()
        .find(|s| s.kind == StageKind::Final)
        .ok_or_else(|| precondition("NO_FINAL", "championship", "the preset has no final stage"))
}

fn decision(caller: &Caller, at: DateTime<Utc>) -> Decision {
    Decision {
        by: caller.subject.clone(),
        at,
    }
}

fn notice_of(row: Option<&notice::Model>) -> NoticeState {
    let decided = |by: &Option<String>, at: &Option<DateTime<Utc>>| Decision {
        by: by.clone().unwrap_or_default(),
        at: at.unwrap_or_default(),
    };
    match row {
        Some(n) if n.state == "CLOSED" => NoticeState::Closed(decided(&n.closed_by, &n.closed_at)),
        Some(n) if n.state == "PUBLISHED" => {
            NoticeState::Published(decided(&n.published_by, &n.published_at))
        }
        _ => NoticeState::Draft,
    }
}

fn report_of(r: &notice_report::Model) -> ReportState {
    let by = Decision {
        by: r.decided_by.clone().unwrap_or_default(),
        at: r.decided_at.unwrap_or(r.filed_at),
    };
    let reason = r.decision_reason.clone().unwrap_or_default();
    match r.state.as_str() {
        "UNDER_INVESTIGATION" => ReportState::UnderInvestigation(by),
        "UPHELD" => ReportState::Upheld {
            decision: by,
            reason,
        },
        "DISMISSED" => ReportState::Dismissed {
            decision: by,
            reason,
        },
        _ => ReportState::Open(Decision {
            by: r.filed_by.clone(),
            at: r.filed_at,
        }),
    }
}

fn workflow_refusal(e: workflow::WorkflowError) -> QualificationError {
    precondition("NOTICE_WORKFLOW", "notice", e.to_string())
}

fn report_view(r: notice_report::Model) -> pb::NoticeReport {
    pb::NoticeReport {
        report_id: r.id,
        championship_id: r.championship_id,
        player_id: r.player_id,
        text: r.text,
        state: r.state,
        filed_by: r.filed_by,
        filed_at: Some(timestamp(r.filed_at)),
        decided_by: r.decided_by.unwrap_or_default(),
        decided_at: r.decided_at.map(timestamp),
        decision_reason: r.decision_reason.unwrap_or_default(),
        replacement_player_id: r.replacement.unwrap_or_default(),
        receipt: String::new(),
    }
}

/// At most this many reports from one reporter per championship per hour (R-PUB-2 flooding).
pub const REPORTS_PER_REPORTER_PER_HOUR: u64 = 5;
/// At most this many anonymous reports per championship per hour, whoever sends them: a bound
/// that holds even against a reporter who forges client addresses.
pub const PUBLIC_REPORTS_PER_CHAMPIONSHIP_PER_HOUR: u64 = 200;

/// The hash a receipt is stored as.
fn receipt_hash(receipt: &str) -> String {
    qiwang_core::lottery::hex(&qiwang_core::lottery::sha256(receipt.as_bytes()))
}

impl QualificationApi {
    async fn notice_row(&self, championship: &str) -> Result<Option<notice::Model>> {
        Ok(notice::Entity::find_by_id(championship.to_owned())
            .one(&self.db)
            .await?)
    }

    async fn finalist_rows(&self, championship: &str) -> Result<Vec<finalist::Model>> {
        Ok(finalist::Entity::find()
            .filter(finalist::Column::ChampionshipId.eq(championship))
            .order_by_asc(finalist::Column::Origin)
            .order_by_asc(finalist::Column::Stage)
            .order_by_asc(finalist::Column::Period)
            .order_by_asc(finalist::Column::PlayerId)
            .all(&self.db)
            .await?)
    }

    /// The R-REG-6 deadline of a finalist, when the preset has the rule and the place is an
    /// online qualifier's.
    fn finals_deadline(preset: &Preset, f: &finalist::Model) -> Result<Option<chrono::NaiveDate>> {
        let Some(days) = preset.finals_information_working_days else {
            return Ok(None);
        };
        if f.origin == "SEED" {
            return Ok(None);
        }
        let calendar = WorkingCalendar::official()
            .map_err(|e| QualificationError::Preset("calendar".into(), e.to_string()))?;
        finals_information_deadline(calendar, china_date(f.qualified_at), days)
            .map(Some)
            .map_err(|e| precondition("CALENDAR", "finalist", e.to_string()))
    }

    async fn finalist_list(&self, preset: &Preset, championship: &str) -> Result<pb::FinalistList> {
        let notice = self.notice_row(championship).await?;
        let state = match notice_of(notice.as_ref()) {
            NoticeState::Draft => pb::NoticeState::Draft,
            NoticeState::Published(_) => pb::NoticeState::Published,
            NoticeState::Closed(_) => pb::NoticeState::Closed,
        };
        let mut finalists = Vec::new();
        for f in self.finalist_rows(championship).await? {
            // A deadline the calendar cannot compute yet (a year not published) is shown empty;
            // applying the deadline refuses then.
            let deadline = Self::finals_deadline(preset, &f).unwrap_or_else(|e| {
                tracing::warn!(error = %e, player = %f.player_id, "finals-information deadline unknown");
                None
            });
            finalists.push(pb::Finalist {
                player_id: f.player_id.clone(),
                origin: f.origin.clone(),
                stage: f.stage.clone(),
                period: f.period as u32,
                status: match f.status.as_str() {
                    LISTED => pb::FinalistStatus::Listed,
                    DISQUALIFIED => pb::FinalistStatus::Disqualified,
                    _ => pb::FinalistStatus::Withdrawn,
                } as i32,
                status_reason: f.status_reason.clone(),
                qualified_at: Some(timestamp(f.qualified_at)),
                finals_information_at: f.finals_information_at.map(timestamp),
                finals_information_deadline: deadline.map(|d| d.to_string()).unwrap_or_default(),
                replaces: f.replaces.clone(),
            });
        }
        Ok(pb::FinalistList {
            championship_id: championship.to_owned(),
            notice: state as i32,
            published_at: notice.as_ref().and_then(|n| n.published_at).map(timestamp),
            closed_at: notice.as_ref().and_then(|n| n.closed_at).map(timestamp),
            finalists,
            supplementary_rules: notice
                .as_ref()
                .and_then(|n| n.supplementary_rules.clone())
                .unwrap_or_default(),
        })
    }

    fn announce_finalists(&self, list: &pb::FinalistList) {
        let _ = self.changes.send((
            list.championship_id.clone(),
            pb::Change {
                kind: Some(pb::change::Kind::Finalists(list.clone())),
                at: None,
            },
        ));
    }

    fn championship_of(req: &pb::ChampionshipRef) -> Result<&str> {
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        Ok(&req.championship_id)
    }

    /// The notice as the public sees it (R-PUB-1): published or closed only; origins, stages,
    /// statuses and replacements, without organizers' notes or finals-information dates.
    pub(super) async fn public_notice_impl(
        &self,
        req: pb::ChampionshipRef,
    ) -> Result<pb::FinalistList> {
        let championship = Self::championship_of(&req)?;
        let notice = self.notice_row(championship).await?;
        let state = match notice_of(notice.as_ref()) {
            NoticeState::Draft => {
                return Err(precondition(
                    "NOTICE_NOT_PUBLISHED",
                    "notice",
                    format!("the finalist list of {championship} is not published"),
                ));
            }
            NoticeState::Published(_) => pb::NoticeState::Published,
            NoticeState::Closed(_) => pb::NoticeState::Closed,
        };
        let finalists = self
            .finalist_rows(championship)
            .await?
            .into_iter()
            .map(|f| pb::Finalist {
                player_id: f.player_id,
                origin: f.origin,
                stage: f.stage,
                period: f.period as u32,
                status: match f.status.as_str() {
                    LISTED => pb::FinalistStatus::Listed,
                    DISQUALIFIED => pb::FinalistStatus::Disqualified,
                    _ => pb::FinalistStatus::Withdrawn,
                } as i32,
                qualified_at: Some(timestamp(f.qualified_at)),
                replaces: f.replaces,
                ..Default::default()
            })
            .collect();
        Ok(pb::FinalistList {
            championship_id: championship.to_owned(),
            notice: state as i32,
            published_at: notice.as_ref().and_then(|n| n.published_at).map(timestamp),
            closed_at: notice.as_ref().and_then(|n| n.closed_at).map(timestamp),
            finalists,
            supplementary_rules: notice
                .as_ref()
                .and_then(|n| n.supplementary_rules.clone())
                .unwrap_or_default(),
        })
    }

    /// Refuses a report past the rate limits (per reporter; for the public, per championship too).
    async fn check_report_rate(
        &self,
        caller: &Caller,
        championship: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let since = now - chrono::Duration::hours(1);
        let recent = notice_report::Entity::find()
            .filter(notice_report::Column::ChampionshipId.eq(championship))
            .filter(notice_report::Column::FiledBy.eq(&caller.subject))
            .filter(notice_report::Column::FiledAt.gt(since))
            .count(&self.db)
            .await?;
        if recent >= REPORTS_PER_REPORTER_PER_HOUR {
            return Err(QualificationError::RateLimited(format!(
                "at most {REPORTS_PER_REPORTER_PER_HOUR} reports an hour from one reporter; try again later"
            )));
        }
        if caller.is(Role::Public) {
            let public = notice_report::Entity::find()
                .filter(notice_report::Column::ChampionshipId.eq(championship))
                .filter(notice_report::Column::FiledBy.starts_with("public:"))
                .filter(notice_report::Column::FiledAt.gt(since))
                .count(&self.db)
                .await?;
            if public >= PUBLIC_REPORTS_PER_CHAMPIONSHIP_PER_HOUR {
                return Err(QualificationError::RateLimited(format!(
                    "at most {PUBLIC_REPORTS_PER_CHAMPIONSHIP_PER_HOUR} anonymous reports an hour per championship; try again later or sign in"
                )));
            }
        }
        Ok(())
    }

    /// A report as its reporter sees it: with the receipt, anyone; signed in, the reporter;
    /// organizers and referees always. Who decided is not shown outside the committee.
    pub(super) async fn report_status_impl(
        &self,
        caller: Caller,
        req: pb::NoticeReportStatusRequest,
    ) -> Result<pb::NoticeReport> {
        let refused = || {
            QualificationError::PermissionDenied(
                "a report's status is shown to its reporter (with the receipt) and the committee"
                    .into(),
            )
        };
        if req.report_id.is_empty() {
            return Err(invalid("report_id", "is required"));
        }
        let Some(row) = notice_report::Entity::find_by_id(req.report_id.clone())
            .one(&self.db)
            .await?
        else {
            // Unknown ids and wrong receipts get the same answer, so neither can be probed.
            return Err(refused());
        };
        let committee = caller.is(Role::Organizer) || caller.is(Role::Referee);
        let reporter = !caller.is(Role::Public) && caller.subject == row.filed_by;
        let holds_receipt = !req.receipt.is_empty()
            && row
                .receipt_hash
                .as_deref()
                .is_some_and(|h| h == receipt_hash(&req.receipt));
        if !(committee || reporter || holds_receipt) {
            return Err(refused());
        }
        let mut view = report_view(row);
        if !committee {
            view.decided_by = String::new();
            view.filed_by = String::new();
        }
        Ok(view)
    }

    pub(super) async fn get_finalists_impl(
        &self,
        caller: Caller,
        req: pb::ChampionshipRef,
    ) -> Result<pb::FinalistList> {
        let championship = Self::championship_of(&req)?;
        let preset = self.preset(&caller, championship).await?;
        self.finalist_list(&preset, championship).await
    }

    pub(super) async fn compose_finalists_impl(
        &self,
        caller: Caller,
        req: pb::ChampionshipRef,
    ) -> Result<pb::FinalistList> {
        require(&caller, &[Role::Organizer])?;
        let championship = Self::championship_of(&req)?;
        let preset = self.preset(&caller, championship).await?;
        let final_code = final_stage(&preset)?.code.clone();
        let _guard = self.organizer_write.lock().await;
        if !matches!(
            notice_of(self.notice_row(championship).await?.as_ref()),
            NoticeState::Draft
        ) {
            return Err(precondition(
                "NOTICE_PUBLISHED",
                "championship",
                "the list is composed only while the notice is a draft",
            ));
        }
        let now = Utc::now();
        // The final's qualifiers, by stage, period and player id.
        let mut qualifiers: Vec<(String, String, i32, DateTime<Utc>)> = Vec::new();
        for list in self.advanced_to(championship, &final_code).await? {
            let (stage, period, at) = (&list.key.1, list.key.2 as i32, list.decided_at);
            qualifiers.extend(
                list.advanced()
                    .map(|r| (r.player_id.to_string(), stage.clone(), period, at)),
            );
        }
        qualifiers.sort_unstable_by(|a, b| (&a.1, a.2, &a.0).cmp(&(&b.1, b.2, &b.0)));
        let seeds = seed::Entity::find()
            .filter(seed::Column::ChampionshipId.eq(championship))
            .filter(seed::Column::ToStage.eq(&final_code))
            .all(&self.db)
            .await?;
        // Approved wildcards (R-WC-2) fill what qualifiers and seeds leave when the rules fix the
        // number of entrants (xiangqi-2022: 240, R-FIN-1), in the order they were approved.
        let wildcards = self
            .registration
            .clone()
            .list_wildcards(authed(
                &caller,
                reg::ListWildcardsRequest {
                    championship_id: championship.to_owned(),
                    event: String::new(),
                    status: reg::WildcardStatus::Approved as i32,
                    ..Default::default()
                },
            ))
            .await
            .map_err(|status| QualificationError::Upstream {
                context: "wildcards",
                status,
            })?
            .into_inner()
            .wildcards;
        let cap = preset
            .stages
            .iter()
            .filter_map(|s| s.advance.as_ref().and_then(|a| a.final_entrants))
            .max()
            .map(|c| c as usize);
        let room = cap.map_or(usize::MAX, |c| {
            c.saturating_sub(qualifiers.len() + seeds.len())
        });
        let wildcard_rows: Vec<(String, &str, String, i32, DateTime<Utc>)> = wildcards
            .into_iter()
            .take(room)
            .map(|w| {
                let at = w
                    .decided_at
                    .and_then(|t| DateTime::from_timestamp(t.seconds, 0))
                    .unwrap_or(now);
                (w.player_id, "WILDCARD", String::new(), 0, at)
            })
            .collect();
        let rows: Vec<finalist::Model> = qualifiers
            .into_iter()
            .map(|(player, stage, period, at)| (player, "QUALIFIER", stage, period, at))
            .chain(
                seeds
                    .into_iter()
                    .map(|s| (s.player_id, "SEED", String::new(), 0, s.decided_at)),
            )
            .chain(wildcard_rows)
            .map(|(player, origin, stage, period, at)| finalist::Model {
                championship_id: championship.to_owned(),
                player_id: player,
                origin: origin.to_owned(),
                stage,
                period,
                status: LISTED.into(),
                status_reason: String::new(),
                replaces: String::new(),
                qualified_at: at,
                finals_information_at: None,
                changed_at: now,
            })
            .collect();
        let txn = self.db.begin().await?;
        let mut added = 0;
        for row in rows {
            added += finalist::Entity::insert(finalist::ActiveModel::from(row))
                .on_conflict(
                    OnConflict::columns([
                        finalist::Column::ChampionshipId,
                        finalist::Column::PlayerId,
                    ])
                    .do_nothing()
                    .to_owned(),
                )
                .exec_without_returning(&txn)
                .await?;
        }
        Self::audit(
            &txn,
            &caller,
            "finalists.composed",
            championship,
            format!("{added} places added"),
        )
        .await?;
        txn.commit().await?;
        let list = self.finalist_list(&preset, championship).await?;
        self.announce_finalists(&list);
        Ok(list)
    }

    /// Publishes (draft → published) or closes (published → closed) the notice.
    /// Publishes (with the supplementary rules, `Some`) or closes (`None`) the notice.
    pub(super) async fn notice_step_impl(
        &self,
        caller: Caller,
        req: pb::ChampionshipRef,
        publish_with: Option<String>,
    ) -> Result<pb::FinalistList> {
        require(&caller, &[Role::Organizer])?;
        let close = publish_with.is_none();
        let rules = publish_with
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty());
        if rules.as_ref().is_some_and(|r| r.chars().count() > 20_000) {
            return Err(invalid("supplementary_rules", "at most 20,000 characters"));
        }
        let championship = Self::championship_of(&req)?;
        let preset = self.preset(&caller, championship).await?;
        let _guard = self.organizer_write.lock().await;
        let row = self.notice_row(championship).await?;
        let state = notice_of(row.as_ref());
        let now = Utc::now();
        let next = if close {
            let pending = notice_report::Entity::find()
                .filter(notice_report::Column::ChampionshipId.eq(championship))
                .filter(notice_report::Column::State.is_in(["OPEN", "UNDER_INVESTIGATION"]))
                .all(&self.db)
                .await?;
            if !pending.is_empty() {
                return Err(precondition(
                    "REPORTS_PENDING",
                    "championship",
                    format!(
                        "{} reports are still open or under investigation",
                        pending.len()
                    ),
                ));
            }
            close_notice(&state, decision(&caller, now)).map_err(workflow_refusal)?
        } else {
            if self.finalist_rows(championship).await?.is_empty() {
                return Err(precondition(
                    "EMPTY_LIST",
                    "championship",
                    "compose the finalist list before publishing it",
                ));
            }
            publish(&state, decision(&caller, now)).map_err(workflow_refusal)?
        };
        let mut model = row.unwrap_or(notice::Model {
            championship_id: championship.to_owned(),
            state: "DRAFT".into(),
            published_by: None,
            published_at: None,
            closed_by: None,
            closed_at: None,
            supplementary_rules: None,
        });
        match next {
            NoticeState::Published(d) => {
                model.state = "PUBLISHED".into();
                model.supplementary_rules = rules;
                model.published_by = Some(d.by);
                model.published_at = Some(d.at);
            }
            NoticeState::Closed(d) => {
                model.state = "CLOSED".into();
                model.closed_by = Some(d.by);
                model.closed_at = Some(d.at);
            }
            NoticeState::Draft => {}
        }
        let txn = self.db.begin().await?;
        notice::Entity::insert(notice::ActiveModel::from(model.clone()))
            .on_conflict(
                OnConflict::column(notice::Column::ChampionshipId)
                    .update_columns([
                        notice::Column::State,
                        notice::Column::PublishedBy,
                        notice::Column::PublishedAt,
                        notice::Column::ClosedBy,
                        notice::Column::ClosedAt,
                        notice::Column::SupplementaryRules,
                    ])
                    .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        Self::audit(
            &txn,
            &caller,
            if close {
                "notice.closed"
            } else {
                "notice.published"
            },
            championship,
            String::new(),
        )
        .await?;
        txn.commit().await?;
        let list = self.finalist_list(&preset, championship).await?;
        self.announce_finalists(&list);
        Ok(list)
    }

    pub(super) async fn file_report_impl(
        &self,
        caller: Caller,
        req: pb::FileNoticeReportRequest,
    ) -> Result<pb::NoticeReport> {
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        let text = req.text.trim();
        if text.is_empty() || text.chars().count() > 2000 {
            return Err(invalid("text", "must be 1-2000 characters"));
        }
        let listed =
            finalist::Entity::find_by_id((req.championship_id.clone(), req.player_id.clone()))
                .one(&self.db)
                .await?
                .is_some_and(|f| f.status == LISTED);
        if !listed {
            return Err(invalid(
                "player_id",
                format!("player {:?} is not on the finalist list", req.player_id),
            ));
        }
        let now = Utc::now();
        let state = notice_of(self.notice_row(&req.championship_id).await?.as_ref());
        file_report(&state, decision(&caller, now)).map_err(workflow_refusal)?;
        self.check_report_rate(&caller, &req.championship_id, now)
            .await?;
        let receipt = format!("rcpt_{}", uuid::Uuid::new_v4().simple());
        let model = notice_report::Model {
            id: format!("rep_{}", uuid::Uuid::now_v7().simple()),
            championship_id: req.championship_id.clone(),
            player_id: req.player_id.clone(),
            text: text.to_owned(),
            state: "OPEN".into(),
            filed_by: caller.subject.clone(),
            filed_at: now,
            decided_by: None,
            decided_at: None,
            decision_reason: None,
            replacement: None,
            receipt_hash: Some(receipt_hash(&receipt)),
        };
        let txn = self.db.begin().await?;
        notice_report::Entity::insert(notice_report::ActiveModel::from(model.clone()))
            .exec_without_returning(&txn)
            .await?;
        Self::audit(
            &txn,
            &caller,
            "notice.report_filed",
            &format!("{}/{}", req.championship_id, req.player_id),
            model.id.clone(),
        )
        .await?;
        txn.commit().await?;
        let mut view = report_view(model);
        view.receipt = receipt;
        Ok(view)
    }

    async fn report_row(&self, id: &str) -> Result<notice_report::Model> {
        if id.is_empty() {
            return Err(invalid("report_id", "is required"));
        }
        notice_report::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await?
            .ok_or_else(|| QualificationError::NotFound(format!("report {id}")))
    }

    pub(super) async fn investigate_report_impl(
        &self,
        caller: Caller,
        req: pb::NoticeReportRef,
    ) -> Result<pb::NoticeReport> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        let _guard = self.organizer_write.lock().await;
        let row = self.report_row(&req.report_id).await?;
        let now = Utc::now();
        investigate(&report_of(&row), decision(&caller, now)).map_err(workflow_refusal)?;
        let mut active: notice_report::ActiveModel = row.clone().into();
        active.state = Set("UNDER_INVESTIGATION".into());
        active.decided_by = Set(Some(caller.subject.clone()));
        active.decided_at = Set(Some(now));
        let txn = self.db.begin().await?;
        let updated = active.update(&txn).await?;
        Self::audit(
            &txn,
            &caller,
            "notice.report_investigated",
            &format!("{}/{}", row.championship_id, row.player_id),
            row.id.clone(),
        )
        .await?;
        txn.commit().await?;
        Ok(report_view(updated))
    }

    pub(super) async fn conclude_report_impl(
        &self,
        caller: Caller,
        req: pb::ConcludeNoticeReportRequest,
    ) -> Result<pb::NoticeReport> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        let _guard = self.organizer_write.lock().await;
        let row = self.report_row(&req.report_id).await?;
        let now = Utc::now();
        let concluded = workflow::conclude(
            &report_of(&row),
            req.uphold,
            &req.reason,
            decision(&caller, now),
        )
        .map_err(|e| match e {
            workflow::WorkflowError::NoReason => invalid("reason", "is required"),
            other => workflow_refusal(other),
        })?;
        let championship = row.championship_id.clone();
        let notice_state = notice_of(self.notice_row(&championship).await?.as_ref());
        let override_reason =
            (!req.override_reason.trim().is_empty()).then_some(req.override_reason.as_str());
        if req.uphold {
            may_change_list(&notice_state, override_reason).map_err(workflow_refusal)?;
            // Reading: referees investigate and decide reports with the organizers (issue 6), but
            // changing a frozen list is an organizer's override.
            if override_reason.is_some() && !caller.is(Role::Organizer) {
                return Err(QualificationError::PermissionDenied(
                    "only organizers may override the closed notice".into(),
                ));
            }
        }
        let mut replacement = None;
        let txn = self.db.begin().await?;
        if let ReportState::Upheld { reason, .. } = &concluded {
            let listed =
                finalist::Entity::find_by_id((championship.clone(), row.player_id.clone()))
                    .one(&txn)
                    .await?
                    .ok_or_else(|| {
                        QualificationError::NotFound(format!("finalist {}", row.player_id))
                    })?;
            if listed.status == LISTED {
                let mut active: finalist::ActiveModel = listed.clone().into();
                active.status = Set(DISQUALIFIED.into());
                active.status_reason = Set(format!("report {} upheld: {reason}", row.id));
                active.changed_at = Set(now);
                active.update(&txn).await?;
                if listed.period > 0
                    && matches!(listed.origin.as_str(), "QUALIFIER" | "REPLACEMENT")
                {
                    replacement = self.replace(&txn, &listed, now).await?;
                }
            }
        }
        let mut active: notice_report::ActiveModel = row.clone().into();
        active.state = Set(if req.uphold { "UPHELD" } else { "DISMISSED" }.into());
        active.decided_by = Set(Some(caller.subject.clone()));
        active.decided_at = Set(Some(now));
        active.decision_reason = Set(Some(req.reason.trim().to_owned()));
        active.replacement = Set(replacement.clone());
        let updated = active.update(&txn).await?;
        Self::audit(
            &txn,
            &caller,
            if req.uphold {
                "notice.report_upheld"
            } else {
                "notice.report_dismissed"
            },
            &format!("{championship}/{}", row.player_id),
            format!(
                "{}: {}; replacement {:?}; override {:?}",
                row.id,
                req.reason.trim(),
                replacement,
                override_reason
            ),
        )
        .await?;
        txn.commit().await?;
        if req.uphold {
            let preset = self.preset(&caller, &championship).await?;
            let list = self.finalist_list(&preset, &championship).await?;
            self.announce_finalists(&list);
        }
        Ok(report_view(updated))
    }

    /// Offers a disqualified qualifier's place to the next eligible qualifier of the same stage and
    /// period (R-PUB-3), and lists them; `None` when nobody is left.
    async fn replace<C: ConnectionTrait>(
        &self,
        txn: &C,
        gone: &finalist::Model,
        now: DateTime<Utc>,
    ) -> Result<Option<String>> {
        // The stage and period's ranked players, in list order (by rank, then player id).
        let key: PeriodKey = (
            gone.championship_id.clone(),
            gone.stage.clone(),
            u32::try_from(gone.period).unwrap_or(0),
        );
        let ranking: Vec<frozen::FrozenRow> = frozen::load(txn, &key)
            .await?
            .map(|l| l.rows.into_iter().filter(|r| r.rank > 0).collect())
            .unwrap_or_default();
        let on_list: HashSet<String> = finalist::Entity::find()
            .filter(finalist::Column::ChampionshipId.eq(&gone.championship_id))
            .all(txn)
            .await?
            .into_iter()
            .map(|f| f.player_id)
            .collect();
        let cancelled: HashSet<String> = cancellation::Entity::find()
            .filter(cancellation::Column::ChampionshipId.eq(&gone.championship_id))
            .all(txn)
            .await?
            .into_iter()
            .map(|c| c.player_id)
            .collect();
        let advanced: HashSet<&str> = ranking
            .iter()
            .filter(|r| r.advanced)
            .map(|r| &*r.player_id)
            .collect();
        let order: Vec<String> = ranking.iter().map(|r| r.player_id.to_string()).collect();
        let next = workflow::replacement(&order, &|p| advanced.contains(p), &|p| {
            on_list.contains(p) || cancelled.contains(p)
        })
        .map(str::to_owned);
        if let Some(p) = &next {
            finalist::Entity::insert(finalist::ActiveModel::from(finalist::Model {
                championship_id: gone.championship_id.clone(),
                player_id: p.clone(),
                origin: "REPLACEMENT".into(),
                stage: gone.stage.clone(),
                period: gone.period,
                status: LISTED.into(),
                status_reason: String::new(),
                replaces: gone.player_id.clone(),
                qualified_at: now,
                finals_information_at: None,
                changed_at: now,
            }))
            .exec_without_returning(txn)
            .await?;
        }
        Ok(next)
    }

    pub(super) async fn list_reports_impl(
        &self,
        caller: Caller,
        req: pb::ChampionshipRef,
    ) -> Result<pb::ListNoticeReportsResponse> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        let championship = Self::championship_of(&req)?;
        let rows = notice_report::Entity::find()
            .filter(notice_report::Column::ChampionshipId.eq(championship))
            .order_by_asc(notice_report::Column::FiledAt)
            .order_by_asc(notice_report::Column::Id)
            .all(&self.db)
            .await?;
        Ok(pb::ListNoticeReportsResponse {
            reports: rows.into_iter().map(report_view).collect(),
        })
    }

    pub(super) async fn record_finals_info_impl(
        &self,
        caller: Caller,
        req: pb::FinalistRef,
    ) -> Result<pb::Finalist> {
        if !(caller.is(Role::Organizer)
            || (caller.is(Role::Player) && caller.subject == req.player_id))
        {
            return Err(QualificationError::PermissionDenied(
                "only the player themself or an organizer records finals information".into(),
            ));
        }
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        let preset = self.preset(&caller, &req.championship_id).await?;
        let _guard = self.organizer_write.lock().await;
        let row =
            finalist::Entity::find_by_id((req.championship_id.clone(), req.player_id.clone()))
                .one(&self.db)
                .await?
                .ok_or_else(|| {
                    QualificationError::NotFound(format!("finalist {}", req.player_id))
                })?;
        if row.status != LISTED {
            return Err(precondition(
                "NOT_LISTED",
                "player_id",
                format!(
                    "the place is {}: {}",
                    row.status.to_lowercase(),
                    row.status_reason
                ),
            ));
        }
        let now = Utc::now();
        if let Some(deadline) = Self::finals_deadline(&preset, &row)?
            && china_date(now) > deadline
        {
            return Err(precondition(
                "DEADLINE_PASSED",
                "player_id",
                format!("the finals information was due by {deadline} (China time, R-REG-6)"),
            ));
        }
        let updated = if row.finals_information_at.is_none() {
            let mut active: finalist::ActiveModel = row.clone().into();
            active.finals_information_at = Set(Some(now));
            active.changed_at = Set(now);
            let txn = self.db.begin().await?;
            let updated = active.update(&txn).await?;
            Self::audit(
                &txn,
                &caller,
                "finalist.finals_information",
                &format!("{}/{}", req.championship_id, req.player_id),
                String::new(),
            )
            .await?;
            txn.commit().await?;
            updated
        } else {
            row
        };
        let list = self.finalist_list(&preset, &req.championship_id).await?;
        list.finalists
            .into_iter()
            .find(|f| f.player_id == updated.player_id)
            .ok_or_else(|| QualificationError::NotFound(format!("finalist {}", req.player_id)))
    }

    pub(super) async fn apply_deadline_impl(
        &self,
        caller: Caller,
        req: pb::ApplyDeadlineRequest,
    ) -> Result<pb::FinalistList> {
        require(&caller, &[Role::Organizer])?;
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        let preset = self.preset(&caller, &req.championship_id).await?;
        if preset.finals_information_working_days.is_none() {
            return Err(precondition(
                "NO_DEADLINE_RULE",
                "championship",
                "this championship's rules set no finals-information deadline (R-REG-6)",
            ));
        }
        let as_of = match req.as_of.as_ref() {
            Some(t) => instant("as_of", Some(t))?,
            None => Utc::now(),
        };
        let _guard = self.organizer_write.lock().await;
        let now = Utc::now();
        let txn = self.db.begin().await?;
        let mut withdrawn = Vec::new();
        for f in self.finalist_rows(&req.championship_id).await? {
            if f.status != LISTED || f.finals_information_at.is_some() {
                continue;
            }
            let Some(deadline) = Self::finals_deadline(&preset, &f)? else {
                continue;
            };
            if china_date(as_of) > deadline {
                let mut active: finalist::ActiveModel = f.clone().into();
                active.status = Set(WITHDRAWN.into());
                active.status_reason = Set(format!(
                    "finals information not completed by {deadline} (China time): deemed withdrawn (R-REG-6)"
                ));
                active.changed_at = Set(now);
                active.update(&txn).await?;
                // The place goes back to the replacement flow (issue 8): the next eligible
                // qualifier of the same stage and period, whose own R-REG-6 clock starts now.
                let replacement = self.replace(&txn, &f, now).await?;
                withdrawn.push((f.player_id, replacement));
            }
        }
        Self::audit(
            &txn,
            &caller,
            "finalists.deadline_applied",
            &req.championship_id,
            format!("as of {as_of}: withdrawn {withdrawn:?}"),
        )
        .await?;
        txn.commit().await?;
        let list = self.finalist_list(&preset, &req.championship_id).await?;
        if !withdrawn.is_empty() {
            self.announce_finalists(&list);
        }
        Ok(list)
    }
}
