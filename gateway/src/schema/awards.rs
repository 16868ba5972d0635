//! After the final, over GraphQL: team standings (team-ranking service, R-TEAM-1..5) and the
//! award book (awards service: prize lists, certificates, dan applications, R-PRZ-1..2,
//! R-GRD-1..7), with the organizers' freezes, approvals, overrides and the audit of decisions.

use async_graphql::{Context, ID, InputObject, Object, SimpleObject};
use qiwang_infra::auth::Role;
use qiwang_proto::awards::v1 as aw;
use qiwang_proto::teamranking::v1 as tr;

use super::{RoleGuard, authed, rfc3339, services, viewer};
use crate::error::{GqlResult, gql};

#[derive(SimpleObject, Clone)]
pub struct CountedMember {
    pub player_id: ID,
    /// "men-individual/open", "women-individual/women", …
    pub ranking: String,
    pub place: u32,
}

#[derive(SimpleObject, Clone)]
pub struct TeamRow {
    /// "region:33", "country:KOR", "registered:杭州市", "host-city".
    pub team: String,
    pub place: u32,
    /// Sum of the counted places (lower is better).
    pub sum: u64,
    /// The tie-break: the best counted place.
    pub best_place: u32,
    pub counted: Vec<CountedMember>,
    /// Within the places the rules award (R-TEAM-5).
    pub awarded: bool,
}

#[derive(SimpleObject, Clone)]
pub struct IncompleteTeam {
    pub team: String,
    pub members: Vec<CountedMember>,
    pub missing: u32,
}

#[derive(SimpleObject, Clone)]
pub struct TeamStandings {
    pub championship_id: ID,
    pub team_event: String,
    pub complete: bool,
    pub frozen: bool,
    pub frozen_at: Option<String>,
    /// Frozen, and the standings computed now differ: a change needs an override.
    pub live_differs: bool,
    pub overrides: u32,
    pub places_awarded: u32,
    pub ranked: Vec<TeamRow>,
    pub unranked: Vec<IncompleteTeam>,
    pub problems: Vec<String>,
}

fn members(m: Vec<tr::CountedMember>) -> Vec<CountedMember> {
    m.into_iter()
        .map(|m| CountedMember {
            player_id: ID(m.player_id),
            ranking: m.ranking,
            place: m.place,
        })
        .collect()
}

impl From<tr::TeamStandings> for TeamStandings {
    fn from(s: tr::TeamStandings) -> Self {
        TeamStandings {
            championship_id: ID(s.championship_id),
            team_event: s.team_event,
            complete: s.complete,
            frozen: s.frozen,
            frozen_at: rfc3339(s.frozen_at),
            live_differs: s.live_differs,
            overrides: s.overrides,
            places_awarded: s.places_awarded,
            ranked: s
                .ranked
                .into_iter()
                .map(|t| TeamRow {
                    team: t.team,
                    place: t.place,
                    sum: t.sum,
                    best_place: t.best_place,
                    counted: members(t.counted),
                    awarded: t.awarded,
                })
                .collect(),
            unranked: s
                .unranked
                .into_iter()
                .map(|t| IncompleteTeam {
                    team: t.team,
                    members: members(t.members),
                    missing: t.missing,
                })
                .collect(),
            problems: s.problems,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Deduction {
    pub id: ID,
    pub event: String,
    pub ranking: String,
    pub awardee: String,
    pub yuan: i64,
    pub reason: String,
    pub decided_by: String,
    pub decided_at: Option<String>,
    /// Empty while it applies; otherwise why it does not.
    pub not_applied: String,
}

impl From<aw::Deduction> for Deduction {
    fn from(d: aw::Deduction) -> Self {
        Deduction {
            id: ID(d.id),
            event: d.event,
            ranking: d.ranking,
            awardee: d.awardee,
            yuan: d.yuan,
            reason: d.reason,
            decided_by: d.decided_by,
            decided_at: rfc3339(d.decided_at),
            not_applied: d.not_applied,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Award {
    /// A player id, a pair id or a team key.
    pub awardee: String,
    /// "player", "pair" or "team".
    pub awardee_kind: String,
    pub player_ids: Vec<ID>,
    pub place: u32,
    pub shared_by: u32,
    /// Integer yuan before tax.
    pub yuan: i64,
    pub in_kind: Vec<String>,
    pub deductions: Vec<Deduction>,
    pub net_yuan: i64,
}

#[derive(SimpleObject, Clone)]
pub struct SharedPlace {
    pub first_place: u32,
    pub last_place: u32,
    pub holders: u32,
    pub pool_yuan: i64,
    pub share_yuan: i64,
    pub remainder_yuan: i64,
    pub vacated_yuan: i64,
}

#[derive(SimpleObject, Clone)]
pub struct PrizeList {
    pub event: String,
    pub ranking: String,
    pub name_zh: String,
    pub name_en: String,
    pub complete: bool,
    pub awards: Vec<Award>,
    pub places: Vec<SharedPlace>,
    pub gross_yuan: i64,
    pub paid_yuan: i64,
    pub unpaid_remainder_yuan: i64,
    pub vacated_yuan: i64,
}

#[derive(SimpleObject, Clone)]
pub struct AwardeeTotal {
    pub awardee: String,
    pub awards: u32,
    pub gross_yuan: i64,
    pub deducted_yuan: i64,
    pub net_yuan: i64,
    pub in_kind: Vec<String>,
}

#[derive(SimpleObject, Clone)]
pub struct Certificate {
    pub key: String,
    pub player_id: ID,
    pub game: String,
    pub event: String,
    pub stage: String,
    pub period: u32,
    /// "grade", "dan-application" or "professional-option".
    pub kind: String,
    pub grade_zh: String,
    pub grade_en: String,
    pub grade_level: i32,
    pub basis: String,
    pub result_date: String,
    pub content_hash: String,
}

#[derive(SimpleObject, Clone)]
pub struct DanAwardRow {
    pub player_id: ID,
    pub dan: u32,
    pub place: u32,
    pub amateur_place: u32,
    pub nominal_place: u32,
    pub roll_down_to: u32,
    pub rolled_down: bool,
}

#[derive(SimpleObject, Clone)]
pub struct DanGroupOutcome {
    pub group: String,
    pub event: String,
    pub field: Vec<String>,
    /// The tier applied, 1-based; 0 = none.
    pub tier: u32,
    pub awards: Vec<DanAwardRow>,
    pub passes: Vec<String>,
    pub lapsed: Vec<String>,
    pub professional_option_player_id: Option<ID>,
}

#[derive(SimpleObject, Clone)]
pub struct AwardBook {
    pub championship_id: ID,
    pub complete: bool,
    pub approved: bool,
    pub version: u32,
    pub approved_at: Option<String>,
    pub live_differs: bool,
    pub prize_lists: Vec<PrizeList>,
    pub totals: Vec<AwardeeTotal>,
    pub certificates: Vec<Certificate>,
    pub dan_groups: Vec<DanGroupOutcome>,
    pub problems: Vec<String>,
}

impl From<aw::AwardBook> for AwardBook {
    fn from(b: aw::AwardBook) -> Self {
        AwardBook {
            championship_id: ID(b.championship_id),
            complete: b.complete,
            approved: b.approved,
            version: b.version,
            approved_at: rfc3339(b.approved_at),
            live_differs: b.live_differs,
            prize_lists: b
                .prize_lists
                .into_iter()
                .map(|l| PrizeList {
                    event: l.event,
                    ranking: l.ranking,
                    name_zh: l.name_zh,
                    name_en: l.name_en,
                    complete: l.complete,
                    awards: l
                        .awards
                        .into_iter()
                        .map(|a| Award {
                            awardee: a.awardee,
                            awardee_kind: a.awardee_kind,
                            player_ids: a.player_ids.into_iter().map(ID).collect(),
                            place: a.place,
                            shared_by: a.shared_by,
                            yuan: a.yuan,
                            in_kind: a.in_kind,
                            deductions: a.deductions.into_iter().map(Deduction::from).collect(),
                            net_yuan: a.net_yuan,
                        })
                        .collect(),
                    places: l
                        .places
                        .into_iter()
                        .map(|p| SharedPlace {
                            first_place: p.first_place,
                            last_place: p.last_place,
                            holders: p.holders,
                            pool_yuan: p.pool_yuan,
                            share_yuan: p.share_yuan,
                            remainder_yuan: p.remainder_yuan,
                            vacated_yuan: p.vacated_yuan,
                        })
                        .collect(),
                    gross_yuan: l.gross_yuan,
                    paid_yuan: l.paid_yuan,
                    unpaid_remainder_yuan: l.unpaid_remainder_yuan,
                    vacated_yuan: l.vacated_yuan,
                })
                .collect(),
            totals: b
                .totals
                .into_iter()
                .map(|t| AwardeeTotal {
                    awardee: t.awardee,
                    awards: t.awards,
                    gross_yuan: t.gross_yuan,
                    deducted_yuan: t.deducted_yuan,
                    net_yuan: t.net_yuan,
                    in_kind: t.in_kind,
                })
                .collect(),
            certificates: b
                .certificates
                .into_iter()
                .map(|c| Certificate {
                    key: c.key,
                    player_id: ID(c.player_id),
                    game: c.game,
                    event: c.event,
                    stage: c.stage,
                    period: c.period,
                    kind: c.kind,
                    grade_zh: c.grade_zh,
                    grade_en: c.grade_en,
                    grade_level: c.grade_level,
                    basis: c.basis,
                    result_date: c.result_date,
                    content_hash: c.content_hash,
                })
                .collect(),
            dan_groups: b
                .dan_groups
                .into_iter()
                .map(|g| DanGroupOutcome {
                    group: g.group,
                    event: g.event,
                    field: g.field,
                    tier: g.tier,
                    awards: g
                        .awards
                        .into_iter()
                        .map(|a| DanAwardRow {
                            player_id: ID(a.player_id),
                            dan: a.dan,
                            place: a.place,
                            amateur_place: a.amateur_place,
                            nominal_place: a.nominal_place,
                            roll_down_to: a.roll_down_to,
                            rolled_down: a.rolled_down,
                        })
                        .collect(),
                    passes: g.passes,
                    lapsed: g.lapsed,
                    professional_option_player_id: (!g.professional_option_player_id.is_empty())
                        .then_some(ID(g.professional_option_player_id)),
                })
                .collect(),
            problems: b.problems,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct AwardDecision {
    pub seq: u64,
    /// "approve", "override", "deduction", "dan-holding".
    pub action: String,
    pub decided_by: String,
    pub decided_at: Option<String>,
    pub reason: String,
    pub detail: String,
}

#[derive(SimpleObject, Clone)]
pub struct DanHolding {
    pub player_id: ID,
    pub amateur_dan: u32,
    pub professional: bool,
    pub recorded_by: String,
    pub recorded_at: Option<String>,
}

#[derive(Default)]
pub struct AwardsQuery;

#[Object]
impl AwardsQuery {
    /// Team standings of a team event: frozen when frozen, provisional otherwise.
    async fn team_standings(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        team_event: String,
    ) -> GqlResult<TeamStandings> {
        let caller = viewer(ctx)?;
        let s = services(ctx)
            .team_ranking
            .clone()
            .get_team_standings(authed(
                caller,
                tr::TeamEventRef {
                    championship_id: championship_id.0,
                    team_event,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(s.into_inner().into())
    }

    /// The championship's award book: approved when approved, computed now otherwise.
    async fn award_book(&self, ctx: &Context<'_>, championship_id: ID) -> GqlResult<AwardBook> {
        let caller = viewer(ctx)?;
        let b = services(ctx)
            .awards
            .clone()
            .get_award_book(authed(
                caller,
                aw::ChampionshipRef {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(b.into_inner().into())
    }

    /// Every awards decision: who, when, what, why (organizers and referees).
    #[graphql(guard = "RoleGuard(&[Role::Organizer, Role::Referee])")]
    async fn award_decisions(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<Vec<AwardDecision>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .awards
            .clone()
            .list_award_decisions(authed(
                caller,
                aw::ChampionshipRef {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(r.decisions
            .into_iter()
            .map(|d| AwardDecision {
                seq: d.seq,
                action: d.action,
                decided_by: d.decided_by,
                decided_at: rfc3339(d.decided_at),
                reason: d.reason,
                detail: d.detail,
            })
            .collect())
    }
}

#[derive(InputObject)]
pub struct TeamDecisionInput {
    pub championship_id: ID,
    pub team_event: String,
    pub reason: String,
}

#[derive(InputObject)]
pub struct AwardsDecisionInput {
    pub championship_id: ID,
    pub reason: String,
}

#[derive(InputObject)]
pub struct DeductionInput {
    pub championship_id: ID,
    pub event: String,
    pub ranking: String,
    pub awardee: String,
    pub yuan: i64,
    pub reason: String,
}

#[derive(InputObject)]
pub struct DanHoldingInput {
    pub championship_id: ID,
    pub player_id: ID,
    pub amateur_dan: u32,
    #[graphql(default)]
    pub professional: bool,
    pub reason: String,
}

#[derive(Default)]
pub struct AwardsMutation;

#[Object]
impl AwardsMutation {
    /// Organizer: freezes final team standings.
    async fn freeze_team_standings(
        &self,
        ctx: &Context<'_>,
        input: TeamDecisionInput,
    ) -> GqlResult<TeamStandings> {
        let caller = viewer(ctx)?;
        let s = services(ctx)
            .team_ranking
            .clone()
            .freeze_team_standings(authed(
                caller,
                tr::FreezeRequest {
                    championship_id: input.championship_id.0,
                    team_event: input.team_event,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(s.into_inner().into())
    }

    /// Organizer: replaces frozen team standings with the ones computed now (audited).
    async fn override_team_standings(
        &self,
        ctx: &Context<'_>,
        input: TeamDecisionInput,
    ) -> GqlResult<TeamStandings> {
        let caller = viewer(ctx)?;
        let s = services(ctx)
            .team_ranking
            .clone()
            .override_team_standings(authed(
                caller,
                tr::FreezeRequest {
                    championship_id: input.championship_id.0,
                    team_event: input.team_event,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(s.into_inner().into())
    }

    /// Organizer: approves the award book (freezes it, publishes its certificates).
    async fn approve_awards(
        &self,
        ctx: &Context<'_>,
        input: AwardsDecisionInput,
    ) -> GqlResult<AwardBook> {
        let caller = viewer(ctx)?;
        let b = services(ctx)
            .awards
            .clone()
            .approve_awards(authed(
                caller,
                aw::ApproveAwardsRequest {
                    championship_id: input.championship_id.0,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(b.into_inner().into())
    }

    /// Organizer: a later change to the approved book, with a reason (audited; the federation
    /// feed gets the differences).
    async fn override_awards(
        &self,
        ctx: &Context<'_>,
        input: AwardsDecisionInput,
    ) -> GqlResult<AwardBook> {
        let caller = viewer(ctx)?;
        let b = services(ctx)
            .awards
            .clone()
            .override_awards(authed(
                caller,
                aw::ApproveAwardsRequest {
                    championship_id: input.championship_id.0,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(b.into_inner().into())
    }

    /// Organizer: a deduction against one award (R-PRZ-2).
    async fn record_deduction(
        &self,
        ctx: &Context<'_>,
        input: DeductionInput,
    ) -> GqlResult<Deduction> {
        let caller = viewer(ctx)?;
        let d = services(ctx)
            .awards
            .clone()
            .record_deduction(authed(
                caller,
                aw::RecordDeductionRequest {
                    championship_id: input.championship_id.0,
                    event: input.event,
                    ranking: input.ranking,
                    awardee: input.awardee,
                    yuan: input.yuan,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(d.into_inner().into())
    }

    /// Organizer: a Go entrant's verified dan and professional status (R-GRD-4).
    async fn record_dan_holding(
        &self,
        ctx: &Context<'_>,
        input: DanHoldingInput,
    ) -> GqlResult<DanHolding> {
        let caller = viewer(ctx)?;
        let h = services(ctx)
            .awards
            .clone()
            .record_dan_holding(authed(
                caller,
                aw::RecordDanHoldingRequest {
                    championship_id: input.championship_id.0,
                    player_id: input.player_id.0,
                    amateur_dan: input.amateur_dan,
                    professional: input.professional,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(DanHolding {
            player_id: ID(h.player_id),
            amateur_dan: h.amateur_dan,
            professional: h.professional,
            recorded_by: h.recorded_by,
            recorded_at: rfc3339(h.recorded_at),
        })
    }
}
