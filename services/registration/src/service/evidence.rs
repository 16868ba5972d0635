//! Uploaded evidence (证明材料): certificate photos for wildcard applications (R-WC-1).
//!
//! Readings:
//! - The player themself or an organizer uploads; the checks (`qiwang_core::evidence`) are JPEG or
//!   PNG judged from the bytes, the declared type agreeing, at most 2 MiB.
//! - Only organizers and the player the evidence belongs to read it back; referees do not (the
//!   issue names organizers and the applicant), and a refusal does not say whether the id exists.
//! - An upload is audited by its id, size and digest, never its content.

use qiwang_core::evidence::{EvidenceRefusal, check_upload};
use qiwang_core::lottery::{hex, sha256};

use super::*;
use crate::entity::evidence;

fn evidence_pb(e: &evidence::Model) -> pb::Evidence {
    pb::Evidence {
        id: e.id.clone(),
        player_id: e.player_id.clone(),
        content_type: e.content_type.clone(),
        size: u64::try_from(e.size).unwrap_or_default(),
        sha256: e.sha256.clone(),
        uploaded_at: Some(timestamp(e.uploaded_at)),
        uploaded_by: e.uploaded_by.clone(),
    }
}

fn refusal(e: EvidenceRefusal) -> RegistrationError {
    let field = match e {
        EvidenceRefusal::TypeNotAccepted(_) => "content_type",
        _ => "content",
    };
    invalid(field, e.to_string())
}

impl RegistrationApi {
    pub(super) async fn upload_evidence_impl(
        &self,
        caller: Caller,
        req: pb::UploadEvidenceRequest,
    ) -> Result<pb::Evidence> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        if caller.is(Role::Player) && !caller.is_player(&req.player_id) {
            return Err(RegistrationError::PermissionDenied(
                "a player may upload evidence only for themself".into(),
            ));
        }
        let kind = check_upload(&req.content_type, &req.content).map_err(refusal)?;
        let p = self.player(&req.player_id).await?;
        let row = evidence::Model {
            id: new_id("ev"),
            player_id: p.id.clone(),
            content_type: kind.media_type().to_owned(),
            size: i64::try_from(req.content.len()).unwrap_or(i64::MAX),
            sha256: hex(&sha256(&req.content)),
            content: req.content,
            uploaded_at: self.now(),
            uploaded_by: caller.subject.clone(),
        };
        let txn = self.db.begin().await?;
        evidence::Entity::insert(evidence::ActiveModel::from(row.clone()))
            .exec_without_returning(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            "evidence.upload",
            &row.id,
            format!(
                "{} {} {} bytes sha256 {}",
                row.player_id, row.content_type, row.size, row.sha256
            ),
        )
        .await?;
        txn.commit().await?;
        Ok(evidence_pb(&row))
    }

    pub(super) async fn get_evidence_impl(
        &self,
        caller: Caller,
        req: pb::EvidenceRef,
    ) -> Result<pb::EvidenceContent> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        let row = evidence::Entity::find_by_id(req.evidence_id.clone())
            .one(&self.db)
            .await?;
        match row {
            Some(row) if caller.is(Role::Organizer) || caller.is_player(&row.player_id) => {
                Ok(pb::EvidenceContent {
                    evidence: Some(evidence_pb(&row)),
                    content: row.content,
                })
            }
            // Another player's, or none: the same answer, so ids cannot be probed.
            _ => Err(RegistrationError::PermissionDenied(
                "evidence is shown only to organizers and the player it belongs to".into(),
            )),
        }
    }

    /// The evidence `id`, which must be `player_id`'s (for a wildcard's certificate photo).
    pub(super) async fn evidence_of(&self, id: &str, player_id: &str) -> Result<evidence::Model> {
        evidence::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await?
            .filter(|e| e.player_id == player_id)
            .ok_or_else(|| {
                invalid(
                    "certificate_photo",
                    format!(
                        "no uploaded evidence {id:?} of player {player_id} (UploadEvidence first)"
                    ),
                )
            })
    }
}
