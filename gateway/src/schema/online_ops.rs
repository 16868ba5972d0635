//! The organizers' operations on the online stages over GraphQL (qualification service): direct
//! seeds (R-ADV-2), the knockout rounds' published seed, draw and close (R-ADV-3, R-ADV-6), the
//! repechage (R-ADV-12), score resets (R-ONL-7), cancelled results for cheating (R-ONL-8),
//! finals information and its deadline (R-REG-6), conflicting reports, and how far players reached.
//! Partners report online and knockout games over gRPC; everything an organizer does is here.

use async_graphql::{Context, ID, InputObject, Object, SimpleObject};
use qiwang_proto::qualification::v1 as pb;

use super::qualification::{Finalist, FinalistList, KnockoutRound, PeriodInput};
use super::{authed, rfc3339, services, viewer};
use crate::error::{GqlResult, gql};

#[derive(SimpleObject, Clone)]
pub struct DirectSeed {
    pub championship_id: ID,
    pub to_stage: String,
    pub player_id: ID,
    /// The preset's words for the source.
    pub source: String,
    pub reason: String,
    pub decided_by: String,
    pub decided_at: Option<String>,
}

impl From<pb::DirectSeed> for DirectSeed {
    fn from(d: pb::DirectSeed) -> Self {
        DirectSeed {
            championship_id: ID(d.championship_id),
            to_stage: d.to_stage,
            player_id: ID(d.player_id),
            source: d.source,
            reason: d.reason,
            decided_by: d.decided_by,
            decided_at: rfc3339(d.decided_at),
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Repechage {
    pub championship_id: ID,
    pub stage: String,
    pub feeding_stage: String,
    pub quota: u32,
    pub qualifiers: u32,
    /// The shortfall the repechage fills.
    pub places: u32,
    pub decided_by: String,
    pub decided_at: Option<String>,
}

/// A game reported twice with different content, kept for an organizer to look at.
#[derive(SimpleObject, Clone)]
pub struct ReportConflict {
    pub platform: String,
    pub game_id: String,
    pub reported_at: Option<String>,
    pub stored_hash: String,
    pub conflicting_hash: String,
}

#[derive(InputObject)]
pub struct DirectSeedInput {
    pub championship_id: ID,
    /// The stage the player is placed into.
    pub to_stage: String,
    pub player_id: ID,
    /// Which of the preset's seed sources (0-based).
    pub source_index: u32,
    pub reason: String,
}

#[derive(InputObject)]
pub struct KnockoutRoundInput {
    pub championship_id: ID,
    pub stage: String,
    /// 1-based.
    pub round: u32,
}

impl KnockoutRoundInput {
    fn to_pb(&self) -> pb::KnockoutRoundRef {
        pb::KnockoutRoundRef {
            championship_id: self.championship_id.0.clone(),
            stage: self.stage.clone(),
            round: self.round,
        }
    }
}

#[derive(Default)]
pub struct OnlineOpsQuery;

#[Object]
impl OnlineOpsQuery {
    /// Direct seeds into a stage (empty `toStage`: every stage).
    async fn direct_seeds(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        to_stage: Option<String>,
    ) -> GqlResult<Vec<DirectSeed>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .list_direct_seeds(authed(
                caller,
                pb::ListDirectSeedsRequest {
                    championship_id: championship_id.0,
                    to_stage: to_stage.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner()
            .seeds
            .into_iter()
            .map(DirectSeed::from)
            .collect())
    }

    /// Games reported twice with different content (organizers).
    async fn report_conflicts(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<Vec<ReportConflict>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .list_conflicts(authed(
                caller,
                pb::ListConflictsRequest {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner()
            .conflicts
            .into_iter()
            .map(|c| ReportConflict {
                platform: c.platform,
                game_id: c.game_id,
                reported_at: rfc3339(c.reported_at),
                stored_hash: c.stored_hash,
                conflicting_hash: c.conflicting_hash,
            })
            .collect())
    }
}

#[derive(Default)]
pub struct OnlineOpsMutation;

#[Object]
impl OnlineOpsMutation {
    /// Place a player directly into a stage from one of the preset's seed sources (organizers).
    async fn add_direct_seed(
        &self,
        ctx: &Context<'_>,
        input: DirectSeedInput,
    ) -> GqlResult<DirectSeed> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .add_direct_seed(authed(
                caller,
                pb::AddDirectSeedRequest {
                    championship_id: input.championship_id.0,
                    to_stage: input.to_stage,
                    player_id: input.player_id.0,
                    source_index: input.source_index,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Publish a knockout round's seed before its draw; it never changes (organizers).
    async fn publish_knockout_seed(
        &self,
        ctx: &Context<'_>,
        round: KnockoutRoundInput,
        seed: String,
    ) -> GqlResult<KnockoutRound> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .publish_knockout_seed(authed(
                caller,
                pb::PublishKnockoutSeedRequest {
                    round: Some(round.to_pb()),
                    seed,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Draw a knockout round from its published seed (organizers).
    async fn draw_knockout_round(
        &self,
        ctx: &Context<'_>,
        round: KnockoutRoundInput,
    ) -> GqlResult<KnockoutRound> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .draw_knockout_round(authed(caller, round.to_pb()))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Close a knockout round once every game is decided (organizers).
    async fn close_knockout_round(
        &self,
        ctx: &Context<'_>,
        round: KnockoutRoundInput,
    ) -> GqlResult<KnockoutRound> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .close_knockout_round(authed(caller, round.to_pb()))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Define the repechage for a short final quota (organizers).
    async fn define_repechage(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        stage: String,
    ) -> GqlResult<Repechage> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .define_repechage(authed(
                caller,
                pb::DefineRepechageRequest {
                    championship_id: championship_id.0,
                    stage,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(Repechage {
            championship_id: ID(r.championship_id),
            stage: r.stage,
            feeding_stage: r.feeding_stage,
            quota: r.quota,
            qualifiers: r.qualifiers,
            places: r.places,
            decided_by: r.decided_by,
            decided_at: rfc3339(r.decided_at),
        })
    }

    /// Reset a player's score in a period where the preset allows it (the player, or an
    /// organizer recording an earlier request); returns the instant it counts from.
    async fn request_reset(
        &self,
        ctx: &Context<'_>,
        period: PeriodInput,
        player_id: ID,
    ) -> GqlResult<Option<String>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .request_reset(authed(
                caller,
                pb::ResetRequest {
                    period: Some(period.to_pb()),
                    player_id: player_id.0,
                    at: None,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(rfc3339(r.into_inner().at))
    }

    /// Cancel a cheater's results (R-ONL-8, organizers); their opponents keep their games.
    async fn cancel_results(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        player_id: ID,
        reason: String,
    ) -> GqlResult<bool> {
        let caller = viewer(ctx)?;
        services(ctx)
            .qualification
            .clone()
            .cancel_results(authed(
                caller,
                pb::CancelResultsRequest {
                    championship_id: championship_id.0,
                    player_id: player_id.0,
                    reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(true)
    }

    /// Record that a finalist's finals information is complete (the player, or an organizer).
    async fn record_finals_information(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        player_id: ID,
    ) -> GqlResult<Finalist> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .record_finals_information(authed(
                caller,
                pb::FinalistRef {
                    championship_id: championship_id.0,
                    player_id: player_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Apply the R-REG-6 deadline now: qualifiers without finals information after 10 working
    /// days are withdrawn and replaced (organizers).
    async fn apply_finals_information_deadline(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<FinalistList> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .apply_finals_information_deadline(authed(
                caller,
                pb::ApplyDeadlineRequest {
                    championship_id: championship_id.0,
                    as_of: None,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }
}
