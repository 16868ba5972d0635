//! The online stages over GraphQL (qualification service, R-ONL, R-ADV, R-PUB): live leaderboards
//! with the viewer's own row, period cuts with each player's reason, knockout rounds, the finalist
//! list with its public notice and reports.

use async_graphql::{ComplexObject, Context, Enum, ID, InputObject, Object, SimpleObject};
use qiwang_infra::auth::Role;
use qiwang_proto::qualification::v1 as pb;

use super::{
    PublicProfile, RoleGuard, authed, public_call, public_profile, rfc3339, services, viewer,
};
use crate::error::{GqlResult, gql};

#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct LeaderboardRow {
    /// 0 = not ranked (too few games, eliminated).
    pub rank: u32,
    pub player_id: ID,
    pub points: i64,
    pub win_rate_per_mille: u32,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    pub escapes: u32,
    pub counted_games: u32,
    pub average_game_secs: u64,
    pub eliminated: bool,
}

impl From<pb::LeaderboardRow> for LeaderboardRow {
    fn from(r: pb::LeaderboardRow) -> Self {
        LeaderboardRow {
            rank: r.rank,
            player_id: ID(r.player_id),
            points: r.points,
            win_rate_per_mille: r.win_rate_per_mille,
            wins: r.wins,
            losses: r.losses,
            draws: r.draws,
            escapes: r.escapes,
            counted_games: r.counted_games,
            average_game_secs: r.average_game_secs,
            eliminated: r.eliminated,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct LeaderboardPage {
    pub rows: Vec<LeaderboardRow>,
    pub total: u32,
    /// The viewer's own row (a player's own, wherever it stands).
    pub own: Option<LeaderboardRow>,
}

#[derive(SimpleObject, Clone)]
pub struct AdvancementRow {
    pub player_id: ID,
    pub rank: u32,
    pub advanced: bool,
    pub points: i64,
    pub wins: u32,
    pub counted_games: u32,
    /// Why, in words, with the tie-chain criterion that decided.
    pub reason: String,
    pub reason_code: String,
}

#[derive(SimpleObject, Clone)]
pub struct AdvancementList {
    pub stage: String,
    pub period: u32,
    pub to_stage: String,
    /// 0 = a points line without a top N.
    pub places: u32,
    /// This page's rows, in list order.
    pub rows: Vec<AdvancementRow>,
    pub decided_at: Option<String>,
    /// The whole list's rows and advanced players.
    pub total_rows: u32,
    pub advanced_count: u32,
    /// Pass to `advancement(pageToken:)` for the next page; null on the last page.
    pub next_page_token: Option<String>,
}

impl From<pb::AdvancementList> for AdvancementList {
    fn from(a: pb::AdvancementList) -> Self {
        let period = a.period.unwrap_or_default();
        AdvancementList {
            stage: period.stage,
            period: period.period,
            to_stage: a.to_stage,
            places: a.places,
            rows: a
                .rows
                .into_iter()
                .map(|r| AdvancementRow {
                    player_id: ID(r.player_id),
                    rank: r.rank,
                    advanced: r.advanced,
                    points: r.points,
                    wins: r.wins,
                    counted_games: r.counted_games,
                    reason: r.reason,
                    reason_code: r.reason_code,
                })
                .collect(),
            decided_at: rfc3339(a.decided_at),
            total_rows: a.total_rows,
            advanced_count: a.advanced_count,
            next_page_token: (!a.next_page_token.is_empty()).then_some(a.next_page_token),
        }
    }
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum KnockoutOutcome {
    Advanced,
    Out,
    Pending,
}

#[derive(SimpleObject, Clone)]
pub struct KnockoutStatus {
    pub player_id: ID,
    pub outcome: Option<KnockoutOutcome>,
    pub reason_code: String,
    pub reason: String,
    pub opponent_player_id: Option<ID>,
}

#[derive(SimpleObject, Clone)]
pub struct KnockoutPair {
    /// Red in Xiangqi, Black in Go, White in Chess.
    pub first_mover: ID,
    pub second_mover: ID,
}

/// One knockout round: its published seed, the draw anyone can re-run, and each player's outcome.
#[derive(SimpleObject, Clone)]
pub struct KnockoutRound {
    pub stage: String,
    pub round: u32,
    pub rounds: u32,
    pub seed: String,
    pub seed_published_at: Option<String>,
    pub entrants: Vec<ID>,
    pub lottery_algorithm: u32,
    pub pairs: Vec<KnockoutPair>,
    pub bye: Option<ID>,
    pub drawn_at: Option<String>,
    pub closed_at: Option<String>,
    pub statuses: Vec<KnockoutStatus>,
}

impl From<pb::KnockoutRound> for KnockoutRound {
    fn from(r: pb::KnockoutRound) -> Self {
        let at = r.round.unwrap_or_default();
        KnockoutRound {
            stage: at.stage,
            round: at.round,
            rounds: r.rounds,
            seed: r.seed,
            seed_published_at: rfc3339(r.seed_published_at),
            entrants: r.entrants.into_iter().map(ID).collect(),
            lottery_algorithm: r.lottery_algorithm,
            pairs: r
                .pairs
                .into_iter()
                .map(|p| KnockoutPair {
                    first_mover: ID(p.first_mover),
                    second_mover: ID(p.second_mover),
                })
                .collect(),
            bye: (!r.bye.is_empty()).then_some(ID(r.bye)),
            drawn_at: rfc3339(r.drawn_at),
            closed_at: rfc3339(r.closed_at),
            statuses: r
                .statuses
                .into_iter()
                .map(|s| KnockoutStatus {
                    player_id: ID(s.player_id),
                    outcome: match pb::KnockoutOutcome::try_from(s.outcome) {
                        Ok(pb::KnockoutOutcome::Advanced) => Some(KnockoutOutcome::Advanced),
                        Ok(pb::KnockoutOutcome::Out) => Some(KnockoutOutcome::Out),
                        Ok(pb::KnockoutOutcome::Pending) => Some(KnockoutOutcome::Pending),
                        _ => None,
                    },
                    reason_code: s.reason_code,
                    reason: s.reason,
                    opponent_player_id: (!s.opponent_player_id.is_empty())
                        .then_some(ID(s.opponent_player_id)),
                })
                .collect(),
        }
    }
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum FinalistStatus {
    Listed,
    Disqualified,
    Withdrawn,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum NoticeState {
    Draft,
    Published,
    Closed,
}

#[derive(SimpleObject, Clone)]
#[graphql(complex)]
pub struct Finalist {
    pub player_id: ID,
    /// QUALIFIER, SEED, WILDCARD or REPLACEMENT.
    pub origin: String,
    pub stage: String,
    pub period: u32,
    pub status: Option<FinalistStatus>,
    pub status_reason: String,
    pub qualified_at: Option<String>,
    pub finals_information_at: Option<String>,
    pub finals_information_deadline: String,
    pub replaces: Option<ID>,
}

impl From<pb::Finalist> for Finalist {
    fn from(f: pb::Finalist) -> Self {
        Finalist {
            player_id: ID(f.player_id),
            origin: f.origin,
            stage: f.stage,
            period: f.period,
            status: match pb::FinalistStatus::try_from(f.status) {
                Ok(pb::FinalistStatus::Listed) => Some(FinalistStatus::Listed),
                Ok(pb::FinalistStatus::Disqualified) => Some(FinalistStatus::Disqualified),
                Ok(pb::FinalistStatus::Withdrawn) => Some(FinalistStatus::Withdrawn),
                _ => None,
            },
            status_reason: f.status_reason,
            qualified_at: rfc3339(f.qualified_at),
            finals_information_at: rfc3339(f.finals_information_at),
            finals_information_deadline: f.finals_information_deadline,
            replaces: (!f.replaces.is_empty()).then_some(ID(f.replaces)),
        }
    }
}

#[ComplexObject]
impl Finalist {
    /// Name, sex and region, as the published list shows them (batched per response).
    async fn profile(&self, ctx: &Context<'_>) -> GqlResult<Option<PublicProfile>> {
        public_profile(ctx, &self.player_id).await
    }
}

#[ComplexObject]
impl LeaderboardRow {
    /// Name, sex and region (batched per page: one registration call for the whole page).
    async fn profile(&self, ctx: &Context<'_>) -> GqlResult<Option<PublicProfile>> {
        public_profile(ctx, &self.player_id).await
    }
}

#[derive(SimpleObject, Clone)]
pub struct FinalistList {
    pub championship_id: ID,
    pub notice: Option<NoticeState>,
    pub published_at: Option<String>,
    pub closed_at: Option<String>,
    pub finalists: Vec<Finalist>,
    /// Published with the list (补充规定); null when there are none.
    pub supplementary_rules: Option<String>,
}

impl From<pb::FinalistList> for FinalistList {
    fn from(l: pb::FinalistList) -> Self {
        FinalistList {
            championship_id: ID(l.championship_id),
            notice: match pb::NoticeState::try_from(l.notice) {
                Ok(pb::NoticeState::Draft) => Some(NoticeState::Draft),
                Ok(pb::NoticeState::Published) => Some(NoticeState::Published),
                Ok(pb::NoticeState::Closed) => Some(NoticeState::Closed),
                _ => None,
            },
            published_at: rfc3339(l.published_at),
            closed_at: rfc3339(l.closed_at),
            finalists: l.finalists.into_iter().map(Finalist::from).collect(),
            supplementary_rules: (!l.supplementary_rules.is_empty())
                .then_some(l.supplementary_rules),
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct NoticeReport {
    pub report_id: ID,
    pub player_id: ID,
    pub text: String,
    /// OPEN, UNDER_INVESTIGATION, UPHELD, DISMISSED.
    pub state: String,
    pub filed_by: String,
    pub filed_at: Option<String>,
    pub decided_by: String,
    pub decided_at: Option<String>,
    pub decision_reason: String,
    pub replacement_player_id: Option<ID>,
    /// Only when the report is filed: keep it to follow the report (`noticeReportStatus`) without
    /// signing in. Shown once; the service keeps only its hash.
    pub receipt: Option<String>,
}

impl From<pb::NoticeReport> for NoticeReport {
    fn from(r: pb::NoticeReport) -> Self {
        NoticeReport {
            report_id: ID(r.report_id),
            player_id: ID(r.player_id),
            text: r.text,
            state: r.state,
            filed_by: r.filed_by,
            filed_at: rfc3339(r.filed_at),
            decided_by: r.decided_by,
            decided_at: rfc3339(r.decided_at),
            decision_reason: r.decision_reason,
            replacement_player_id: (!r.replacement_player_id.is_empty())
                .then_some(ID(r.replacement_player_id)),
            receipt: (!r.receipt.is_empty()).then_some(r.receipt),
        }
    }
}

#[derive(InputObject, Clone)]
pub struct PeriodInput {
    pub championship_id: ID,
    pub stage: String,
    pub period: u32,
}

impl PeriodInput {
    pub(super) fn to_pb(&self) -> pb::PeriodRef {
        pb::PeriodRef {
            championship_id: self.championship_id.0.clone(),
            stage: self.stage.clone(),
            period: self.period,
        }
    }
}

#[derive(Default)]
pub struct QualificationQuery;

#[Object]
impl QualificationQuery {
    /// A period's live leaderboard, a page at a time (at most 1000 rows), with the viewer's row.
    async fn leaderboard(
        &self,
        ctx: &Context<'_>,
        period: PeriodInput,
        #[graphql(default)] offset: u32,
        #[graphql(default = 100)] size: u32,
    ) -> GqlResult<LeaderboardPage> {
        let caller = viewer(ctx)?;
        let page = services(ctx)
            .qualification
            .clone()
            .get_leaderboard(authed(
                caller,
                pb::LeaderboardRequest {
                    period: Some(period.to_pb()),
                    page_size: size,
                    offset,
                    viewer_player_id: String::new(),
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(LeaderboardPage {
            rows: page.rows.into_iter().map(LeaderboardRow::from).collect(),
            total: page.total,
            own: page.own.map(LeaderboardRow::from),
        })
    }

    /// A closed period's frozen cut, each player with the reason, a page at a time in list order
    /// (`pageSize` 1-10,000, default 1,000; `pageToken` from the previous page).
    async fn advancement(
        &self,
        ctx: &Context<'_>,
        period: PeriodInput,
        page_size: Option<u32>,
        page_token: Option<String>,
    ) -> GqlResult<AdvancementList> {
        let caller = viewer(ctx)?;
        let a = services(ctx)
            .qualification
            .clone()
            .list_advancement(authed(
                caller,
                pb::AdvancementPageRequest {
                    period: Some(period.to_pb()),
                    page_size: page_size.unwrap_or(0),
                    page_token: page_token.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(a.into_inner().into())
    }

    /// A knockout round (the bracket of one round).
    async fn knockout_round(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        stage: String,
        round: u32,
    ) -> GqlResult<KnockoutRound> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .get_knockout_round(authed(
                caller,
                pb::KnockoutRoundRef {
                    championship_id: championship_id.0,
                    stage,
                    round,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// The finalist list and the state of its public notice (R-PUB-1).
    async fn finalists(&self, ctx: &Context<'_>, championship_id: ID) -> GqlResult<FinalistList> {
        let caller = viewer(ctx)?;
        let l = services(ctx)
            .qualification
            .clone()
            .get_finalists(authed(
                caller,
                pb::ChampionshipRef {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(l.into_inner().into())
    }

    /// The published finalist list (R-PUB-1): anyone, without signing in. Each finalist's
    /// `profile` gives name, sex and region; no personal data, no organizers' notes.
    async fn public_notice(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<FinalistList> {
        let request = public_call(
            ctx,
            pb::ChampionshipRef {
                championship_id: championship_id.0,
            },
        )?;
        let l = services(ctx)
            .qualification
            .clone()
            .get_public_notice(request)
            .await
            .map_err(gql)?;
        Ok(l.into_inner().into())
    }

    /// A report as its reporter follows it: anyone with the receipt, the signed-in reporter,
    /// organizers and referees.
    async fn notice_report_status(
        &self,
        ctx: &Context<'_>,
        report_id: ID,
        receipt: Option<String>,
    ) -> GqlResult<NoticeReport> {
        let request = public_call(
            ctx,
            pb::NoticeReportStatusRequest {
                report_id: report_id.0,
                receipt: receipt.unwrap_or_default(),
            },
        )?;
        let r = services(ctx)
            .qualification
            .clone()
            .get_notice_report_status(request)
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Reports against the notice (organizers and referees).
    #[graphql(guard = "RoleGuard(&[Role::Organizer, Role::Referee])")]
    async fn notice_reports(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<Vec<NoticeReport>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .list_notice_reports(authed(
                caller,
                pb::ChampionshipRef {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(r.reports.into_iter().map(NoticeReport::from).collect())
    }
}

#[derive(InputObject)]
pub struct ConcludeReportInput {
    pub report_id: ID,
    pub uphold: bool,
    pub reason: String,
    /// Needed once the notice is closed (R-PUB-3).
    pub override_reason: Option<String>,
}

#[derive(Default)]
pub struct QualificationMutation;

#[Object]
impl QualificationMutation {
    /// Organizer: opens a period for games.
    async fn open_period(&self, ctx: &Context<'_>, period: PeriodInput) -> GqlResult<bool> {
        let caller = viewer(ctx)?;
        let s = services(ctx)
            .qualification
            .clone()
            .open_period(authed(caller, period.to_pb()))
            .await
            .map_err(gql)?;
        Ok(s.into_inner().open)
    }

    /// Organizer: closes a period and freezes its cut.
    async fn close_period(
        &self,
        ctx: &Context<'_>,
        period: PeriodInput,
    ) -> GqlResult<AdvancementList> {
        let caller = viewer(ctx)?;
        let a = services(ctx)
            .qualification
            .clone()
            .close_period(authed(caller, period.to_pb()))
            .await
            .map_err(gql)?;
        Ok(a.into_inner().into())
    }

    /// Organizer: composes the finalist list from the frozen lists, seeds and wildcards.
    async fn compose_finalists(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<FinalistList> {
        let caller = viewer(ctx)?;
        let l = services(ctx)
            .qualification
            .clone()
            .compose_finalists(authed(
                caller,
                pb::ChampionshipRef {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(l.into_inner().into())
    }

    /// Organizer: publishes the finalist list with the supplementary rules (R-PUB-1).
    async fn publish_notice(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        supplementary_rules: Option<String>,
    ) -> GqlResult<FinalistList> {
        let caller = viewer(ctx)?;
        let l = services(ctx)
            .qualification
            .clone()
            .publish_notice(authed(
                caller,
                pb::PublishNoticeRequest {
                    championship_id: championship_id.0,
                    supplementary_rules: supplementary_rules.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(l.into_inner().into())
    }

    /// Organizer: closes the notice (no report may be pending).
    async fn close_notice(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
    ) -> GqlResult<FinalistList> {
        let caller = viewer(ctx)?;
        let l = services(ctx)
            .qualification
            .clone()
            .close_notice(authed(
                caller,
                pb::ChampionshipRef {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(l.into_inner().into())
    }

    /// Anyone, signed in or not, while the notice is published: a report against a listed player
    /// (1-2000 characters; a few an hour per reporter). Keep the answer's `receipt`.
    async fn file_notice_report(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        player_id: ID,
        text: String,
    ) -> GqlResult<NoticeReport> {
        let request = public_call(
            ctx,
            pb::FileNoticeReportRequest {
                championship_id: championship_id.0,
                player_id: player_id.0,
                text,
            },
        )?;
        let r = services(ctx)
            .qualification
            .clone()
            .file_notice_report(request)
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Organizer or referee: starts investigating a report.
    async fn investigate_notice_report(
        &self,
        ctx: &Context<'_>,
        report_id: ID,
    ) -> GqlResult<NoticeReport> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .investigate_notice_report(authed(
                caller,
                pb::NoticeReportRef {
                    report_id: report_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Organizers and referees: uphold (the player is disqualified and replaced) or dismiss a
    /// report; after the notice closes, upholding needs an organizer's override reason.
    async fn conclude_notice_report(
        &self,
        ctx: &Context<'_>,
        input: ConcludeReportInput,
    ) -> GqlResult<NoticeReport> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .qualification
            .clone()
            .conclude_notice_report(authed(
                caller,
                pb::ConcludeNoticeReportRequest {
                    report_id: input.report_id.0,
                    uphold: input.uphold,
                    reason: input.reason,
                    override_reason: input.override_reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }
}
