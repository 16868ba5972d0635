//! How far each player got in a championship (R-PAIR-1, R-PAIR-2): the pairs events of the final
//! draw on it through the registration service.
//!
//! Readings:
//! - *final*: on the finalist list and still listed (not disqualified, not withdrawn).
//! - *入围*: admitted to the stage that feeds the final — advanced into it by a frozen list,
//!   seeded into it, or (when that stage is the first, as go-2025's 海选) played a game in it.
//!   A finalist has reached it too.
//! - *online*: at least one stored online game of the championship, on either side.

use std::collections::HashSet;

use qiwang_core::stage::StageKind;
use sea_orm::Condition;

use super::*;
use crate::entity::{finalist, seed};

/// At most this many players per call.
const MAX_PLAYERS: usize = 1_000;

impl QualificationApi {
    pub(super) async fn get_reach_impl(
        &self,
        caller: Caller,
        req: pb::GetReachRequest,
    ) -> Result<pb::GetReachResponse> {
        if req.player_ids.len() > MAX_PLAYERS {
            return Err(invalid(
                "player_ids",
                format!("at most {MAX_PLAYERS} players per call"),
            ));
        }
        let preset = self.preset(&caller, &req.championship_id).await?;
        let championship = req.championship_id.as_str();
        let ids: Vec<String> = req.player_ids.clone();
        let finalists: HashSet<String> = finalist::Entity::find()
            .filter(finalist::Column::ChampionshipId.eq(championship))
            .filter(finalist::Column::PlayerId.is_in(ids.clone()))
            .filter(finalist::Column::Status.eq("LISTED"))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|f| f.player_id)
            .collect();
        let final_code = preset
            .stages
            .iter()
            .find(|s| s.kind == StageKind::Final)
            .map(|s| s.code.clone());
        let feeding: Vec<&Stage> = preset
            .stages
            .iter()
            .filter(|s| {
                s.advance
                    .as_ref()
                    .is_some_and(|a| Some(&a.to) == final_code.as_ref())
            })
            .collect();
        let mut ruwei: HashSet<String> = HashSet::new();
        for stage in &feeding {
            let fed = preset
                .stages
                .iter()
                .any(|s| s.advance.as_ref().is_some_and(|a| a.to == stage.code));
            if fed {
                // The stage's entrants by advancement and direct seeds, as its eligibility reads
                // them (cached per replica).
                let advanced = self
                    .advanced_into(&preset, championship, &stage.code)
                    .await?;
                ruwei.extend(ids.iter().filter(|p| advanced.contains_key(*p)).cloned());
            } else {
                ruwei.extend(
                    self.players_with_games(championship, &ids, Some(&stage.code))
                        .await?,
                );
                ruwei.extend(
                    seed::Entity::find()
                        .filter(seed::Column::ChampionshipId.eq(championship))
                        .filter(seed::Column::ToStage.eq(&stage.code))
                        .filter(seed::Column::PlayerId.is_in(ids.clone()))
                        .all(&self.db)
                        .await?
                        .into_iter()
                        .map(|s| s.player_id),
                );
            }
        }
        let online = self.players_with_games(championship, &ids, None).await?;
        Ok(pb::GetReachResponse {
            players: ids
                .iter()
                .map(|id| pb::PlayerReach {
                    player_id: id.clone(),
                    reach: if finalists.contains(id) {
                        pb::Reach::Final
                    } else if ruwei.contains(id) {
                        pb::Reach::Ruwei
                    } else if online.contains(id) {
                        pb::Reach::Online
                    } else {
                        pb::Reach::None
                    }
                    .into(),
                })
                .collect(),
        })
    }

    /// Which of `ids` have a stored game of the championship (of one stage, when given).
    async fn players_with_games(
        &self,
        championship: &str,
        ids: &[String],
        stage: Option<&str>,
    ) -> Result<HashSet<String>> {
        let mut query = game::Entity::find()
            .filter(game::Column::ChampionshipId.eq(championship))
            .filter(
                Condition::any()
                    .add(game::Column::FirstPlayer.is_in(ids.to_vec()))
                    .add(game::Column::SecondPlayer.is_in(ids.to_vec())),
            );
        if let Some(stage) = stage {
            query = query.filter(game::Column::Stage.eq(stage));
        }
        let wanted: HashSet<&String> = ids.iter().collect();
        let mut found = HashSet::new();
        for g in query.all(&self.db).await? {
            for p in [g.first_player, g.second_player] {
                if wanted.contains(&p) {
                    found.insert(p);
                }
            }
        }
        Ok(found)
    }
}
