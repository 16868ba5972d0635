//! The repechage (复活赛, R-ADV-12): defined when a stage leaves its final quota short, with the
//! shortfall as its places; then run as an ordinary points period (period 1, see
//! `with_repechage_periods`) by the players the feeding stage did not advance, and cut by the
//! preset's `repechage_rule(places)`.
//!
//! Readings: the feeding stage must be decided (a knockout's last round closed, or every period of
//! a points stage closed); its qualifiers are its rows advanced to the final; the places are fixed
//! when defined (later disqualifications do not change them; defining again returns the same).

use qiwang_core::advancement::Selection;

use super::*;
use crate::entity::repechage;

fn view(r: repechage::Model) -> pb::Repechage {
    pb::Repechage {
        championship_id: r.championship_id,
        stage: r.stage,
        feeding_stage: r.feeding_stage,
        quota: r.quota as u32,
        qualifiers: r.qualifiers as u32,
        places: r.places as u32,
        decided_by: r.decided_by,
        decided_at: Some(timestamp(r.decided_at)),
    }
}

impl QualificationApi {
    /// The places of a defined repechage; `FAILED_PRECONDITION` before it is defined.
    pub(super) async fn repechage_places(&self, championship: &str, stage: &str) -> Result<u32> {
        repechage::Entity::find_by_id((championship.to_owned(), stage.to_owned()))
            .one(&self.db)
            .await?
            .map(|r| r.places as u32)
            .ok_or_else(|| {
                precondition(
                    "REPECHAGE_NOT_DEFINED",
                    "period.stage",
                    format!("the repechage {stage} is not defined (no shortfall decided yet)"),
                )
            })
    }

    pub(super) async fn define_repechage_impl(
        &self,
        caller: Caller,
        req: pb::DefineRepechageRequest,
    ) -> Result<pb::Repechage> {
        require(&caller, &[Role::Organizer])?;
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        let preset = self.preset(&caller, &req.championship_id).await?;
        let stage = preset
            .stage(&req.stage)
            .filter(|s| {
                s.advance
                    .as_ref()
                    .is_some_and(|a| matches!(a.selection, Selection::Repechage(_)))
            })
            .ok_or_else(|| invalid("stage", format!("{:?} is not a repechage stage", req.stage)))?;
        let feeding = preset
            .stages
            .iter()
            .find(|s| {
                s.advance
                    .as_ref()
                    .is_some_and(|a| a.repechage.as_deref() == Some(stage.code.as_str()))
            })
            .ok_or_else(|| {
                precondition(
                    "NO_FEEDING_STAGE",
                    "stage",
                    format!("no stage names {} as its repechage", stage.code),
                )
            })?;
        let advance = feeding.advance.as_ref().ok_or_else(|| {
            precondition(
                "NO_FEEDING_STAGE",
                "stage",
                "the feeding stage advances nobody",
            )
        })?;
        let quota = advance.final_quota(None).ok_or_else(|| {
            precondition(
                "NO_QUOTA",
                "stage",
                format!("{} has no final quota to fill", feeding.code),
            )
        })?;
        if let Some(existing) =
            repechage::Entity::find_by_id((req.championship_id.clone(), stage.code.clone()))
                .one(&self.db)
                .await?
        {
            return Ok(view(existing));
        }
        // The feeding stage must be decided.
        let lists = frozen::headers(
            &self.db,
            Condition::all()
                .add(frozen_list::Column::ChampionshipId.eq(&req.championship_id))
                .add(frozen_list::Column::Stage.eq(&feeding.code)),
        )
        .await?;
        let states = self.period_states(&req.championship_id).await?;
        let decided = if feeding.periods.is_empty() {
            lists.iter().any(|l| l.period == 0)
        } else {
            feeding
                .periods
                .iter()
                .all(|p| states.get(&(feeding.code.clone(), p.number)) == Some(&false))
        };
        if !decided {
            return Err(precondition(
                "FEEDING_STAGE_OPEN",
                "stage",
                format!("{} is not decided yet", feeding.code),
            ));
        }
        let qualifiers = lists
            .iter()
            .filter(|l| l.to_stage == advance.to)
            .map(|l| u32::try_from(l.advanced_count).unwrap_or(0))
            .sum::<u32>();
        if qualifiers >= quota {
            return Err(precondition(
                "QUOTA_FILLED",
                "stage",
                format!(
                    "{} advanced {qualifiers} for a quota of {quota}: no repechage is needed",
                    feeding.code
                ),
            ));
        }
        let model = repechage::Model {
            championship_id: req.championship_id.clone(),
            stage: stage.code.clone(),
            feeding_stage: feeding.code.clone(),
            quota: quota as i32,
            qualifiers: qualifiers as i32,
            places: (quota - qualifiers) as i32,
            decided_by: caller.subject.clone(),
            decided_at: Utc::now(),
        };
        let txn = self.db.begin().await?;
        repechage::Entity::insert(repechage::ActiveModel::from(model.clone()))
            .exec_without_returning(&txn)
            .await?;
        Self::audit(
            &txn,
            &caller,
            "repechage.defined",
            &format!("{}/{}", req.championship_id, stage.code),
            format!(
                "{} places: quota {quota}, {qualifiers} qualified in {}",
                model.places, feeding.code
            ),
        )
        .await?;
        txn.commit().await?;
        lock(&self.advanced).retain(|k, _| k.0 != req.championship_id);
        Ok(view(model))
    }
}
