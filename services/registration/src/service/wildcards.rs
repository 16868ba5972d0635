//! Wildcard applications (外卡, R-WC-1, R-WC-2): the shell around `qiwang_core::workflow`.
//!
//! Readings:
//! - The evidence of R-WC-1 comes from the registered player (name, sex, phone, ID number) plus the
//!   application's source and the certificate photo, an uploaded evidence id of the same player
//!   (`UploadEvidence`); a player without a phone on
//!   record cannot apply until they add one.
//! - The state is stored as its name with the last decision's who and when; each step is audited.
//! - Wildcards are applied for per event of the final; the quota, when the preset has one, counts
//!   the event's approved wildcards.

use qiwang_core::workflow::{
    self, Decision, WildcardEvidence, WildcardState, WorkflowError, approve, reject, start_review,
};

use super::*;
use crate::entity::finals::wildcard;
use crate::error::precondition;

fn state_of(w: &wildcard::Model) -> WildcardState {
    let d = Decision {
        by: w.decided_by.clone(),
        at: w.decided_at,
    };
    match w.status.as_str() {
        "UNDER_REVIEW" => WildcardState::UnderReview(d),
        "APPROVED" => WildcardState::Approved(d),
        "REJECTED" => WildcardState::Rejected {
            decision: d,
            reason: w.reason.clone(),
        },
        _ => WildcardState::Submitted(d),
    }
}

fn store_state(w: &mut wildcard::Model, state: &WildcardState) {
    let (status, d) = match state {
        WildcardState::Submitted(d) => ("SUBMITTED", d),
        WildcardState::UnderReview(d) => ("UNDER_REVIEW", d),
        WildcardState::Approved(d) => ("APPROVED", d),
        WildcardState::Rejected { decision, reason } => {
            w.reason = reason.clone();
            ("REJECTED", decision)
        }
    };
    w.status = status.to_owned();
    w.decided_by = d.by.clone();
    w.decided_at = d.at;
}

fn wildcard_pb(w: &wildcard::Model) -> pb::Wildcard {
    pb::Wildcard {
        id: w.id.clone(),
        championship_id: w.championship_id.clone(),
        event: w.event.clone(),
        player_id: w.player_id.clone(),
        source: w.source.clone(),
        status: match w.status.as_str() {
            "SUBMITTED" => pb::WildcardStatus::Submitted,
            "UNDER_REVIEW" => pb::WildcardStatus::UnderReview,
            "APPROVED" => pb::WildcardStatus::Approved,
            "REJECTED" => pb::WildcardStatus::Rejected,
            _ => pb::WildcardStatus::Unspecified,
        }
        .into(),
        reason: w.reason.clone(),
        submitted_at: Some(timestamp(w.submitted_at)),
        decided_by: w.decided_by.clone(),
        decided_at: Some(timestamp(w.decided_at)),
        certificate_photo: w.certificate_photo.clone(),
    }
}

fn workflow_error(e: WorkflowError) -> RegistrationError {
    let message = e.to_string();
    match e {
        WorkflowError::PastDeadline(_) => precondition("WILDCARD_CLOSED", "wildcard", message),
        WorkflowError::MissingEvidence(_) => invalid("evidence", message),
        WorkflowError::UnknownSource(_) => invalid("source", message),
        WorkflowError::NoReason => invalid("reason", message),
        WorkflowError::QuotaFull(_) => precondition("WILDCARD_QUOTA_FULL", "event", message),
        _ => precondition("WILDCARD_STATE", "wildcard", message),
    }
}

impl RegistrationApi {
    async fn wildcard_row(&self, id: &str) -> Result<wildcard::Model> {
        wildcard::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await?
            .ok_or_else(|| RegistrationError::NotFound(format!("wildcard {id}")))
    }

    async fn save_wildcard(
        &self,
        caller: &Caller,
        w: &wildcard::Model,
        action: &str,
    ) -> Result<()> {
        let txn = self.db.begin().await?;
        wildcard::Entity::update(wildcard::ActiveModel::from(w.clone()).reset_all())
            .exec(&txn)
            .await?;
        audit(
            &txn,
            caller,
            action,
            &w.id,
            format!("{} {} {}", w.player_id, w.event, w.reason),
        )
        .await?;
        txn.commit().await?;
        Ok(())
    }

    pub(super) async fn submit_wildcard_impl(
        &self,
        caller: Caller,
        req: pb::SubmitWildcardRequest,
    ) -> Result<pb::Wildcard> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may apply only for themself".into(),
            ));
        }
        let (champ, preset) = self.championship(&req.championship_id).await?;
        if preset.event(&req.event).is_none() {
            return Err(invalid(
                "event",
                format!("{:?} is not an event of this championship", req.event),
            ));
        }
        let p = self.player(&req.player_id).await?;
        let photo = req.certificate_photo.trim();
        if !photo.is_empty() {
            self.evidence_of(photo, &p.id).await?;
        }
        let now = self.now();
        let by = Decision {
            by: caller.subject.clone(),
            at: now,
        };
        let state = workflow::submit_wildcard(
            &preset.wildcards,
            &WildcardEvidence {
                event: req.event.clone(),
                name: p.name.clone(),
                sex_stated: sex_from_code(&p.sex).is_some(),
                phone: p.phone.clone().unwrap_or_default(),
                id_number: p.id_number.clone(),
                certificate_photo: !req.certificate_photo.trim().is_empty(),
                source: req.source.clone(),
            },
            by,
        )
        .map_err(workflow_error)?;
        let mut row = wildcard::Model {
            id: new_id("wc"),
            championship_id: champ.id.clone(),
            event: req.event.clone(),
            player_id: p.id.clone(),
            source: req.source.clone(),
            certificate_photo: req.certificate_photo.trim().to_owned(),
            status: String::new(),
            reason: String::new(),
            submitted_at: now,
            submitted_by: caller.subject.clone(),
            decided_at: now,
            decided_by: caller.subject.clone(),
        };
        store_state(&mut row, &state);
        let txn = self.db.begin().await?;
        if let Err(e) = wildcard::Entity::insert(wildcard::ActiveModel::from(row.clone()))
            .exec_without_returning(&txn)
            .await
        {
            return Err(if is_unique_violation(&e) {
                RegistrationError::AlreadyExists(format!(
                    "player {} has already applied for a wildcard in {}",
                    p.id, req.event
                ))
            } else {
                e.into()
            });
        }
        audit(
            &txn,
            &caller,
            "wildcard.submit",
            &row.id,
            format!("{} {} {}", row.player_id, row.event, row.source),
        )
        .await?;
        txn.commit().await?;
        Ok(wildcard_pb(&row))
    }

    pub(super) async fn review_wildcard_impl(
        &self,
        caller: Caller,
        req: pb::WildcardRef,
    ) -> Result<pb::Wildcard> {
        require(&caller, &[Role::Organizer])?;
        let mut w = self.wildcard_row(&req.wildcard_id).await?;
        let next = start_review(
            &state_of(&w),
            Decision {
                by: caller.subject.clone(),
                at: self.now(),
            },
        )
        .map_err(workflow_error)?;
        store_state(&mut w, &next);
        self.save_wildcard(&caller, &w, "wildcard.review").await?;
        Ok(wildcard_pb(&w))
    }

    pub(super) async fn decide_wildcard_impl(
        &self,
        caller: Caller,
        req: pb::DecideWildcardRequest,
    ) -> Result<pb::Wildcard> {
        require(&caller, &[Role::Organizer])?;
        let mut w = self.wildcard_row(&req.wildcard_id).await?;
        let (_, preset) = self.championship(&w.championship_id).await?;
        let by = Decision {
            by: caller.subject.clone(),
            at: self.now(),
        };
        let next = if req.approve {
            let approved = wildcard::Entity::find()
                .filter(wildcard::Column::ChampionshipId.eq(&w.championship_id))
                .filter(wildcard::Column::Event.eq(&w.event))
                .filter(wildcard::Column::Status.eq("APPROVED"))
                .count(&self.db)
                .await?;
            approve(
                &preset.wildcards,
                &state_of(&w),
                u32::try_from(approved).unwrap_or(u32::MAX),
                by,
            )
        } else {
            reject(&state_of(&w), &req.reason, by)
        }
        .map_err(workflow_error)?;
        store_state(&mut w, &next);
        let action = if req.approve {
            "wildcard.approve"
        } else {
            "wildcard.reject"
        };
        self.save_wildcard(&caller, &w, action).await?;
        Ok(wildcard_pb(&w))
    }

    pub(super) async fn list_wildcards_impl(
        &self,
        caller: Caller,
        req: pb::ListWildcardsRequest,
    ) -> Result<pb::ListWildcardsResponse> {
        require(&caller, &[Role::Organizer, Role::Referee, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may list only their own wildcard applications".into(),
            ));
        }
        let mut query = wildcard::Entity::find()
            .filter(wildcard::Column::ChampionshipId.eq(&req.championship_id))
            .order_by_asc(wildcard::Column::DecidedAt)
            .order_by_asc(wildcard::Column::Id);
        if !req.event.is_empty() {
            query = query.filter(wildcard::Column::Event.eq(&req.event));
        }
        if !req.player_id.is_empty() {
            query = query.filter(wildcard::Column::PlayerId.eq(&req.player_id));
        }
        let status = match pb::WildcardStatus::try_from(req.status) {
            Ok(pb::WildcardStatus::Submitted) => Some("SUBMITTED"),
            Ok(pb::WildcardStatus::UnderReview) => Some("UNDER_REVIEW"),
            Ok(pb::WildcardStatus::Approved) => Some("APPROVED"),
            Ok(pb::WildcardStatus::Rejected) => Some("REJECTED"),
            _ => None,
        };
        if let Some(status) = status {
            query = query.filter(wildcard::Column::Status.eq(status));
        }
        Ok(pb::ListWildcardsResponse {
            wildcards: query.all(&self.db).await?.iter().map(wildcard_pb).collect(),
        })
    }
}
