//! The final over GraphQL (pairing service, R-IND-1..5, R-DIS-1): events, rounds, results,
//! standings, appeals and the log. Each field makes one gRPC call with the viewer's token; rows
//! come in the one reply, never one call per row.

use async_graphql::{ComplexObject, Context, Enum, ID, InputObject, Object, SimpleObject};
use qiwang_infra::auth::Role;
use qiwang_proto::pairing::v1 as pb;

use super::{PublicProfile, RoleGuard, authed, public_profile, rfc3339, services, viewer};
use crate::error::{GqlResult, gql};

/// A board's result by move order (the first mover is Black in Go, Red in Xiangqi, White in Chess).
#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum GameResult {
    Pending,
    FirstWins,
    Draw,
    SecondWins,
    FirstForfeits,
    SecondForfeits,
    DoubleForfeit,
}

impl GameResult {
    fn from_pb(value: i32) -> Option<GameResult> {
        Some(match pb::GameResult::try_from(value).ok()? {
            pb::GameResult::Pending => GameResult::Pending,
            pb::GameResult::FirstWins => GameResult::FirstWins,
            pb::GameResult::Draw => GameResult::Draw,
            pb::GameResult::SecondWins => GameResult::SecondWins,
            pb::GameResult::FirstForfeits => GameResult::FirstForfeits,
            pb::GameResult::SecondForfeits => GameResult::SecondForfeits,
            pb::GameResult::DoubleForfeit => GameResult::DoubleForfeit,
            pb::GameResult::Unspecified => return None,
        })
    }

    fn to_pb(self) -> pb::GameResult {
        match self {
            GameResult::Pending => pb::GameResult::Pending,
            GameResult::FirstWins => pb::GameResult::FirstWins,
            GameResult::Draw => pb::GameResult::Draw,
            GameResult::SecondWins => pb::GameResult::SecondWins,
            GameResult::FirstForfeits => pb::GameResult::FirstForfeits,
            GameResult::SecondForfeits => pb::GameResult::SecondForfeits,
            GameResult::DoubleForfeit => pb::GameResult::DoubleForfeit,
        }
    }
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum AppealStatus {
    Pending,
    Upheld,
    Dismissed,
}

#[derive(SimpleObject, Clone)]
pub struct FinalEntrant {
    pub start_number: u32,
    pub player_id: ID,
    pub name: String,
    /// "male", "female", or empty for a pair.
    pub sex: String,
    pub rating: u32,
    pub federation: String,
    pub group: String,
    pub first_round: u32,
    /// 0 = still playing; n = not paired after round n.
    pub withdrawn_after: u32,
    /// Results cancelled (R-DIS-1).
    pub disqualified: bool,
}

/// A section of the final (one event code, its groups and rounds).
#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct FinalEvent {
    pub id: ID,
    pub championship_id: ID,
    pub event_code: String,
    pub name: String,
    pub game: String,
    pub rounds: u32,
    pub groups: Vec<String>,
    pub placement_pairs: u32,
    pub tie_breaks: Vec<String>,
    pub first_mover: String,
    pub second_mover: String,
    pub appeal_minutes: u32,
    pub appeal_fee_yuan: i64,
    /// Rounds paired per group, in the order of `groups`.
    pub paired_rounds: Vec<u32>,
    pub entrants: Vec<FinalEntrant>,
}

impl From<pb::Event> for FinalEvent {
    fn from(e: pb::Event) -> Self {
        FinalEvent {
            id: ID(e.id),
            championship_id: ID(e.championship_id),
            event_code: e.event_code,
            name: e.name,
            game: e.game,
            rounds: e.rounds,
            groups: e.groups,
            placement_pairs: e.placement_pairs,
            tie_breaks: e.tie_breaks,
            first_mover: e.first_mover,
            second_mover: e.second_mover,
            appeal_minutes: e.appeal_minutes,
            appeal_fee_yuan: e.appeal_fee_yuan,
            paired_rounds: e.paired_rounds,
            entrants: e
                .entrants
                .into_iter()
                .map(|x| FinalEntrant {
                    start_number: x.start_number,
                    player_id: ID(x.player_id),
                    name: x.name,
                    sex: x.sex,
                    rating: x.rating,
                    federation: x.federation,
                    group: x.group,
                    first_round: x.first_round,
                    withdrawn_after: x.withdrawn_after,
                    disqualified: x.disqualified,
                })
                .collect(),
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Board {
    pub number: u32,
    pub first_start_number: u32,
    pub first_player_id: ID,
    pub first_name: String,
    pub second_start_number: u32,
    pub second_player_id: ID,
    pub second_name: String,
    pub result: Option<GameResult>,
    pub first_points: String,
    pub second_points: String,
}

#[derive(SimpleObject, Clone)]
pub struct Round {
    pub event_id: ID,
    pub group: String,
    pub number: u32,
    pub boards: Vec<Board>,
    /// The pairing-allocated bye, if any.
    pub bye_player_id: Option<ID>,
    pub paired_at: Option<String>,
    /// Unset while results are pending.
    pub completed_at: Option<String>,
}

impl From<pb::Round> for Round {
    fn from(r: pb::Round) -> Self {
        Round {
            event_id: ID(r.event_id),
            group: r.group,
            number: r.number,
            boards: r
                .boards
                .into_iter()
                .map(|b| Board {
                    number: b.number,
                    first_start_number: b.first_start_number,
                    first_player_id: ID(b.first_player_id),
                    first_name: b.first_name,
                    second_start_number: b.second_start_number,
                    second_player_id: ID(b.second_player_id),
                    second_name: b.second_name,
                    result: GameResult::from_pb(b.result),
                    first_points: b.first_points,
                    second_points: b.second_points,
                })
                .collect(),
            bye_player_id: (!r.bye_player_id.is_empty()).then_some(ID(r.bye_player_id)),
            paired_at: rfc3339(r.paired_at),
            completed_at: rfc3339(r.completed_at),
        }
    }
}

#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct StandingRow {
    pub place: u32,
    pub start_number: u32,
    pub player_id: ID,
    pub name: String,
    pub points: String,
    /// One per tie-break of `Standings.tieBreaks` (R-IND-4).
    pub tie_break_values: Vec<String>,
    pub federation: String,
    pub sex: String,
}

#[ComplexObject]
impl StandingRow {
    /// The player's public profile, region included (batched per response).
    async fn profile(&self, ctx: &Context<'_>) -> GqlResult<Option<PublicProfile>> {
        public_profile(ctx, &self.player_id).await
    }
}

#[ComplexObject]
impl RankedEntrant {
    /// The player's public profile, region included (batched per response).
    async fn profile(&self, ctx: &Context<'_>) -> GqlResult<Option<PublicProfile>> {
        public_profile(ctx, &self.player_id).await
    }
}

#[derive(SimpleObject, Clone)]
pub struct Standings {
    pub group: String,
    pub women: bool,
    pub after_round: u32,
    pub tie_breaks: Vec<String>,
    pub rows: Vec<StandingRow>,
}

#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct RankedEntrant {
    pub place: u32,
    pub player_id: ID,
    pub name: String,
    pub sex: String,
    pub group: String,
}

/// The places over all groups (R-IND-1, R-IND-2).
#[derive(SimpleObject, Clone)]
pub struct FinalRanking {
    pub women: bool,
    /// Every group's rounds (and the placement round) are in.
    pub complete: bool,
    pub entrants: Vec<RankedEntrant>,
    pub disqualified_player_ids: Vec<ID>,
}

#[derive(SimpleObject, Clone)]
pub struct Appeal {
    pub id: ID,
    pub event_id: ID,
    pub group: String,
    pub round: u32,
    pub board: u32,
    pub player_id: ID,
    pub text: String,
    pub fee_yuan: i64,
    pub status: Option<AppealStatus>,
    pub decision: String,
    pub refund_yuan: i64,
    pub filed_at: Option<String>,
    pub decided_at: Option<String>,
}

impl From<pb::Appeal> for Appeal {
    fn from(a: pb::Appeal) -> Self {
        Appeal {
            id: ID(a.id),
            event_id: ID(a.event_id),
            group: a.group,
            round: a.round,
            board: a.board,
            player_id: ID(a.player_id),
            text: a.text,
            fee_yuan: a.fee_yuan,
            status: match pb::AppealStatus::try_from(a.status) {
                Ok(pb::AppealStatus::Pending) => Some(AppealStatus::Pending),
                Ok(pb::AppealStatus::Upheld) => Some(AppealStatus::Upheld),
                Ok(pb::AppealStatus::Dismissed) => Some(AppealStatus::Dismissed),
                _ => None,
            },
            decision: a.decision,
            refund_yuan: a.refund_yuan,
            filed_at: rfc3339(a.filed_at),
            decided_at: rfc3339(a.decided_at),
        }
    }
}

fn fact_name(kind: pb::fact::Kind) -> &'static str {
    use pb::fact::Kind;
    match kind {
        Kind::Created(_) => "created",
        Kind::Joined(_) => "joined",
        Kind::Withdrawn(_) => "withdrawn",
        Kind::ByeRequested(_) => "bye requested",
        Kind::Paired(_) => "round paired",
        Kind::ResultRecorded(_) => "result recorded",
        Kind::AppealFiled(_) => "appeal filed",
        Kind::AppealDecided(_) => "appeal decided",
        Kind::Disqualified(_) => "disqualified",
    }
}

/// One entry of an event's log: who, when, what, why.
#[derive(SimpleObject, Clone)]
pub struct EventChange {
    pub seq: u64,
    pub at: Option<String>,
    pub who: String,
    pub role: String,
    pub why: String,
    pub what: String,
}

#[ComplexObject]
impl FinalEvent {
    /// A paired round (the group is empty for a single field, "placement" for go-2025's round 10).
    async fn round(
        &self,
        ctx: &Context<'_>,
        #[graphql(default)] group: String,
        number: u32,
    ) -> GqlResult<Round> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .pairing
            .clone()
            .get_round(authed(
                caller,
                pb::GetRoundRequest {
                    event_id: self.id.0.clone(),
                    group,
                    round: number,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Standings over the completed rounds with tie-breaks (R-IND-4); `women`: the women's ranking.
    async fn standings(
        &self,
        ctx: &Context<'_>,
        #[graphql(default)] group: String,
        #[graphql(default)] women: bool,
    ) -> GqlResult<Standings> {
        let caller = viewer(ctx)?;
        let s = services(ctx)
            .pairing
            .clone()
            .get_standings(authed(
                caller,
                pb::GetStandingsRequest {
                    event_id: self.id.0.clone(),
                    group,
                    women,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(Standings {
            group: s.group,
            women: s.women,
            after_round: s.after_round,
            tie_breaks: s.tie_breaks,
            rows: s
                .rows
                .into_iter()
                .map(|r| StandingRow {
                    place: r.place,
                    start_number: r.start_number,
                    player_id: ID(r.player_id),
                    name: r.name,
                    points: r.points,
                    tie_break_values: r.tie_break_values,
                    federation: r.federation,
                    sex: r.sex,
                })
                .collect(),
        })
    }

    /// The places over all groups; provisional until `complete`.
    async fn final_ranking(
        &self,
        ctx: &Context<'_>,
        #[graphql(default)] women: bool,
    ) -> GqlResult<FinalRanking> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .pairing
            .clone()
            .get_final_ranking(authed(
                caller,
                pb::GetStandingsRequest {
                    event_id: self.id.0.clone(),
                    group: String::new(),
                    women,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(FinalRanking {
            women: r.women,
            complete: r.complete,
            entrants: r
                .entrants
                .into_iter()
                .map(|e| RankedEntrant {
                    place: e.place,
                    player_id: ID(e.player_id),
                    name: e.name,
                    sex: e.sex,
                    group: e.group,
                })
                .collect(),
            disqualified_player_ids: r.disqualified_player_ids.into_iter().map(ID).collect(),
        })
    }

    async fn appeals(&self, ctx: &Context<'_>) -> GqlResult<Vec<Appeal>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .pairing
            .clone()
            .list_appeals(authed(
                caller,
                pb::ListAppealsRequest {
                    event_id: self.id.0.clone(),
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(r.appeals.into_iter().map(Appeal::from).collect())
    }

    /// The event's log (organizers and referees).
    #[graphql(guard = "RoleGuard(&[Role::Organizer, Role::Referee])")]
    async fn changes(&self, ctx: &Context<'_>) -> GqlResult<Vec<EventChange>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .pairing
            .clone()
            .list_changes(authed(
                caller,
                pb::ListChangesRequest {
                    event_id: self.id.0.clone(),
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(r.changes
            .into_iter()
            .map(|c| EventChange {
                seq: c.seq,
                at: rfc3339(c.at),
                what: c.fact.and_then(|f| f.kind).map_or("", fact_name).to_owned(),
                who: c.actor,
                role: c.role,
                why: c.reason,
            })
            .collect())
    }
}

#[derive(Default)]
pub struct FinalQuery;

#[Object]
impl FinalQuery {
    /// A championship's final sections, optionally of one event code.
    async fn final_events(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event_code: Option<String>,
    ) -> GqlResult<Vec<FinalEvent>> {
        let caller = viewer(ctx)?;
        let mut client = services(ctx).pairing.clone();
        let summaries = client
            .list_events(authed(
                caller,
                pb::ListEventsRequest {
                    championship_id: championship_id.0,
                    event_code: event_code.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?
            .into_inner()
            .events;
        let mut out = Vec::with_capacity(summaries.len());
        for s in summaries {
            let e = client
                .get_event(authed(caller, pb::GetEventRequest { event_id: s.id }))
                .await
                .map_err(gql)?;
            out.push(e.into_inner().into());
        }
        Ok(out)
    }

    async fn final_event(&self, ctx: &Context<'_>, id: ID) -> GqlResult<Option<FinalEvent>> {
        let caller = viewer(ctx)?;
        match services(ctx)
            .pairing
            .clone()
            .get_event(authed(caller, pb::GetEventRequest { event_id: id.0 }))
            .await
        {
            Ok(e) => Ok(Some(e.into_inner().into())),
            Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
            Err(s) => Err(gql(s)),
        }
    }
}

#[derive(InputObject)]
pub struct FinalEntrantInput {
    /// A registered player, or `pairId` for a pairs event.
    pub player_id: Option<ID>,
    pub pair_id: Option<ID>,
    /// "A"/"B" when the preset has groups.
    #[graphql(default)]
    pub group: String,
    #[graphql(default)]
    pub rating: u32,
}

#[derive(InputObject)]
pub struct CreateFinalEventInput {
    pub championship_id: ID,
    pub event_code: String,
    pub name: Option<String>,
    /// 0 or absent: the preset's (or enough for one clear winner where the preset leaves it open).
    #[graphql(default)]
    pub rounds: u32,
    pub entrants: Vec<FinalEntrantInput>,
    pub reason: String,
    /// One field without the preset's groups (go-2025 youth and seniors).
    #[graphql(default)]
    pub single_field: bool,
}

#[derive(InputObject)]
pub struct RecordResultInput {
    pub event_id: ID,
    #[graphql(default)]
    pub group: String,
    pub round: u32,
    pub board: u32,
    pub result: GameResult,
    /// Required for a correction.
    pub reason: Option<String>,
}

#[derive(InputObject)]
pub struct EntrantDecisionInput {
    pub event_id: ID,
    pub player_id: ID,
    pub reason: String,
}

#[derive(InputObject)]
pub struct FileAppealInput {
    pub event_id: ID,
    #[graphql(default)]
    pub group: String,
    pub round: u32,
    pub board: u32,
    pub player_id: ID,
    pub text: String,
}

#[derive(InputObject)]
pub struct DecideAppealInput {
    pub event_id: ID,
    pub appeal_id: ID,
    pub upheld: bool,
    pub decision: String,
    pub corrected_result: Option<GameResult>,
}

#[derive(Default)]
pub struct FinalMutation;

#[Object]
impl FinalMutation {
    /// Organizer: a final section from the preset and the registered entrants.
    async fn create_final_event(
        &self,
        ctx: &Context<'_>,
        input: CreateFinalEventInput,
    ) -> GqlResult<FinalEvent> {
        let caller = viewer(ctx)?;
        let e = services(ctx)
            .pairing
            .clone()
            .create_event(authed(
                caller,
                pb::CreateEventRequest {
                    championship_id: input.championship_id.0,
                    event_code: input.event_code,
                    name: input.name.unwrap_or_default(),
                    rounds: input.rounds,
                    entrants: input
                        .entrants
                        .into_iter()
                        .map(|x| pb::EntrantSpec {
                            player_id: x.player_id.map(|i| i.0).unwrap_or_default(),
                            group: x.group,
                            rating: x.rating,
                            pair_id: x.pair_id.map(|i| i.0).unwrap_or_default(),
                        })
                        .collect(),
                    reason: input.reason,
                    single_field: input.single_field,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(e.into_inner().into())
    }

    /// Referee or organizer: pairs a group's next round ("placement": go-2025's cross-group round).
    async fn pair_round(
        &self,
        ctx: &Context<'_>,
        event_id: ID,
        #[graphql(default)] group: String,
    ) -> GqlResult<Round> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .pairing
            .clone()
            .pair_round(authed(
                caller,
                pb::PairRoundRequest {
                    event_id: event_id.0,
                    group,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Referee or organizer: a board's result; changing one is a correction and needs a reason.
    async fn record_result(&self, ctx: &Context<'_>, input: RecordResultInput) -> GqlResult<Round> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .pairing
            .clone()
            .record_result(authed(
                caller,
                pb::RecordResultRequest {
                    event_id: input.event_id.0,
                    group: input.group,
                    round: input.round,
                    board: input.board,
                    result: input.result.to_pb() as i32,
                    reason: input.reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Referee or organizer: not paired from the next round on.
    async fn withdraw_entrant(
        &self,
        ctx: &Context<'_>,
        input: EntrantDecisionInput,
    ) -> GqlResult<FinalEvent> {
        let caller = viewer(ctx)?;
        let e = services(ctx)
            .pairing
            .clone()
            .withdraw_entrant(authed(
                caller,
                pb::WithdrawEntrantRequest {
                    event_id: input.event_id.0,
                    player_id: input.player_id.0,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(e.into_inner().into())
    }

    /// Organizer: the entrant's results are cancelled (R-DIS-1).
    async fn disqualify_entrant(
        &self,
        ctx: &Context<'_>,
        input: EntrantDecisionInput,
    ) -> GqlResult<FinalEvent> {
        let caller = viewer(ctx)?;
        let e = services(ctx)
            .pairing
            .clone()
            .disqualify_entrant(authed(
                caller,
                pb::WithdrawEntrantRequest {
                    event_id: input.event_id.0,
                    player_id: input.player_id.0,
                    reason: input.reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(e.into_inner().into())
    }

    /// A player on the board (for themself) or an organizer: a written appeal (R-IND-5).
    async fn file_appeal(&self, ctx: &Context<'_>, input: FileAppealInput) -> GqlResult<Appeal> {
        let caller = viewer(ctx)?;
        let a = services(ctx)
            .pairing
            .clone()
            .file_appeal(authed(
                caller,
                pb::FileAppealRequest {
                    event_id: input.event_id.0,
                    group: input.group,
                    round: input.round,
                    board: input.board,
                    player_id: input.player_id.0,
                    text: input.text,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(a.into_inner().into())
    }

    /// Organizer (appeals committee): uphold (fee refunded) or dismiss.
    async fn decide_appeal(
        &self,
        ctx: &Context<'_>,
        input: DecideAppealInput,
    ) -> GqlResult<Appeal> {
        let caller = viewer(ctx)?;
        let a = services(ctx)
            .pairing
            .clone()
            .decide_appeal(authed(
                caller,
                pb::DecideAppealRequest {
                    event_id: input.event_id.0,
                    appeal_id: input.appeal_id.0,
                    upheld: input.upheld,
                    decision: input.decision,
                    corrected_result: input
                        .corrected_result
                        .map_or(pb::GameResult::Unspecified, GameResult::to_pb)
                        as i32,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(a.into_inner().into())
    }
}
