//! Registration's workflows over GraphQL beyond sign-up (registration service, R-REG, R-WC):
//! presets and championships, bar lists, online entries, pairs and their draw, entries to the
//! final's events, host-city teams, fees and attendance, wildcard applications with their uploaded
//! certificate photo.
//!
//! The service decides who may do what; guards here only keep a field from being asked of the
//! service by a role that can never have it (bar lists hold ID numbers: organizers and referees).

use std::io::Read;

use async_graphql::{Context, Enum, ID, InputObject, Object, SimpleObject, Upload};
use base64::Engine;
use qiwang_infra::auth::Role;
use qiwang_proto::registration::v1 as pb;

use super::{Event, Game, RoleGuard, authed, game, rfc3339, services, viewer};
use crate::error::{GatewayError, GqlResult, gql};

/// The name of a protobuf enum value without its type prefix (`PAIR_STATUS_ADMITTED` → `ADMITTED`).
fn short(full: &str, prefix: &str) -> String {
    full.strip_prefix(prefix).unwrap_or(full).to_owned()
}

fn pb_game(g: Game) -> i32 {
    match g {
        Game::Go => pb::Game::Go,
        Game::Xiangqi => pb::Game::Xiangqi,
        Game::Chess => pb::Game::Chess,
    }
    .into()
}

#[derive(SimpleObject, Clone)]
pub struct PresetSummary {
    pub name: String,
    pub game: Option<Game>,
    pub season: i32,
    pub title_zh: String,
    pub title_en: String,
    pub events: Vec<Event>,
}

/// A championship's rules as stored with it (the preset's text), and its stages and periods.
#[derive(SimpleObject, Clone)]
pub struct ChampionshipRules {
    pub championship_id: ID,
    pub preset: String,
    pub preset_toml: String,
    pub stages: Vec<StageSummary>,
}

/// A stage of the championship (赛段), in order.
#[derive(SimpleObject, Clone)]
pub struct StageSummary {
    pub code: String,
    pub name_zh: String,
    pub name_en: String,
    /// points, knockout, repechage, offline or final.
    pub kind: String,
    pub periods: Vec<PeriodSummary>,
    pub starts_on: Option<String>,
    pub ends_on: Option<String>,
}

/// A period (期) of a points stage: inclusive China-time days.
#[derive(SimpleObject, Clone)]
pub struct PeriodSummary {
    pub number: u32,
    pub opens_on: String,
    pub closes_on: String,
}

/// A title holder barred from entering (R-REG-2).
#[derive(SimpleObject, Clone)]
pub struct Bar {
    pub game: Option<Game>,
    pub id_number: String,
    pub reason: String,
    pub added_by: String,
    pub added_at: Option<String>,
}

impl From<pb::Bar> for Bar {
    fn from(b: pb::Bar) -> Self {
        Bar {
            game: game(b.game),
            id_number: b.id_number,
            reason: b.reason,
            added_by: b.added_by,
            added_at: rfc3339(b.added_at),
        }
    }
}

/// A pair for a pairs event (双人赛, R-REG-8).
#[derive(SimpleObject, Clone)]
pub struct Pair {
    pub id: ID,
    pub championship_id: ID,
    pub event: String,
    pub first_player_id: ID,
    pub second_player_id: ID,
    /// PARENT_CHILD, GRANDPARENT_GRANDCHILD, or UNSPECIFIED.
    pub relation: String,
    pub relation_document: String,
    /// NOT_NEEDED, PENDING, VERIFIED, REJECTED.
    pub relation_check: String,
    /// REGISTERED, WITHDRAWN, ADMITTED, NOT_ADMITTED, NOT_STARTED.
    pub status: String,
    pub status_reason: String,
    pub registered_at: Option<String>,
}

impl From<pb::Pair> for Pair {
    fn from(p: pb::Pair) -> Self {
        let relation = short(p.relation().as_str_name(), "PAIR_RELATION_");
        let relation_check = short(p.relation_check().as_str_name(), "RELATION_CHECK_");
        let status = short(p.status().as_str_name(), "PAIR_STATUS_");
        Pair {
            id: ID(p.id),
            championship_id: ID(p.championship_id),
            event: p.event,
            first_player_id: ID(p.first_player_id),
            second_player_id: ID(p.second_player_id),
            relation,
            relation_document: p.relation_document,
            relation_check,
            status,
            status_reason: p.status_reason,
            registered_at: rfc3339(p.registered_at),
        }
    }
}

/// A pairs event's draw: its published seed and the lottery's outcome.
#[derive(SimpleObject, Clone)]
pub struct PairsDraw {
    pub championship_id: ID,
    pub event: String,
    pub seed: String,
    pub seed_published_at: Option<String>,
    pub drawn: bool,
    pub started: bool,
    pub registered: u32,
    pub minimum: u32,
    pub maximum: u32,
    pub candidates: Vec<ID>,
    pub places: u32,
    pub by_priority: Vec<ID>,
    pub by_lottery: Vec<ID>,
    pub reserve: Vec<ID>,
    pub drawn_at: Option<String>,
}

fn ids(v: Vec<String>) -> Vec<ID> {
    v.into_iter().map(ID).collect()
}

impl From<pb::PairsDraw> for PairsDraw {
    fn from(d: pb::PairsDraw) -> Self {
        PairsDraw {
            championship_id: ID(d.championship_id),
            event: d.event,
            seed: d.seed,
            seed_published_at: rfc3339(d.seed_published_at),
            drawn: d.drawn,
            started: d.started,
            registered: d.registered,
            minimum: d.minimum,
            maximum: d.maximum,
            candidates: ids(d.candidates),
            places: d.places,
            by_priority: ids(d.by_priority),
            by_lottery: ids(d.by_lottery),
            reserve: ids(d.reserve),
            drawn_at: rfc3339(d.drawn_at),
        }
    }
}

/// An entry to an event of the final entered directly (R-REG-5).
#[derive(SimpleObject, Clone)]
pub struct FinalEntry {
    pub id: ID,
    pub championship_id: ID,
    pub event: String,
    pub player_id: ID,
    pub unit: String,
    pub holds_certificate: bool,
    /// PENDING, APPROVED, REJECTED.
    pub status: String,
    pub reason: String,
    pub entered_at: Option<String>,
}

impl From<pb::FinalEntry> for FinalEntry {
    fn from(e: pb::FinalEntry) -> Self {
        FinalEntry {
            id: ID(e.id.clone()),
            championship_id: ID(e.championship_id.clone()),
            event: e.event.clone(),
            player_id: ID(e.player_id.clone()),
            unit: e.unit.clone(),
            holds_certificate: e.holds_certificate,
            status: short(e.status().as_str_name(), "FINAL_ENTRY_STATUS_"),
            reason: e.reason,
            entered_at: rfc3339(e.entered_at),
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct CityTeamMember {
    pub player_id: ID,
    pub female: bool,
    /// Counts for the city's team; false = plays as an individual.
    pub counted: bool,
}

/// The host city's team (东道主城市队, R-REG-9).
#[derive(SimpleObject, Clone)]
pub struct CityTeam {
    pub id: ID,
    pub championship_id: ID,
    pub city: String,
    pub men_team: bool,
    pub women_team: bool,
    pub members: Vec<CityTeamMember>,
}

impl From<pb::CityTeam> for CityTeam {
    fn from(t: pb::CityTeam) -> Self {
        CityTeam {
            id: ID(t.id),
            championship_id: ID(t.championship_id),
            city: t.city,
            men_team: t.men_team,
            women_team: t.women_team,
            members: t
                .members
                .into_iter()
                .map(|m| CityTeamMember {
                    female: m.sex() == pb::Sex::Female,
                    player_id: ID(m.player_id),
                    counted: m.counted,
                })
                .collect(),
        }
    }
}

/// A player's fee for the final, in whole yuan (R-REG-7).
#[derive(SimpleObject, Clone)]
pub struct Fee {
    pub championship_id: ID,
    pub player_id: ID,
    pub due_yuan: i64,
    pub paid_yuan: i64,
    /// DUE, PAID, WAIVED.
    pub status: String,
    pub payment_ref: String,
    /// PLAYED, NO_SHOW, EXCUSED, or UNSPECIFIED (not yet known).
    pub attendance: String,
    pub refund_yuan: i64,
}

impl From<pb::Fee> for Fee {
    fn from(f: pb::Fee) -> Self {
        Fee {
            championship_id: ID(f.championship_id.clone()),
            player_id: ID(f.player_id.clone()),
            due_yuan: f.due_yuan,
            paid_yuan: f.paid_yuan,
            status: short(f.status().as_str_name(), "FEE_STATUS_"),
            payment_ref: f.payment_ref.clone(),
            attendance: short(f.attendance().as_str_name(), "ATTENDANCE_"),
            refund_yuan: f.refund_yuan,
        }
    }
}

/// A wildcard application (外卡, R-WC-1, R-WC-2).
#[derive(SimpleObject, Clone)]
pub struct Wildcard {
    pub id: ID,
    pub championship_id: ID,
    pub event: String,
    pub player_id: ID,
    pub source: String,
    /// SUBMITTED, UNDER_REVIEW, APPROVED, REJECTED.
    pub status: String,
    pub reason: String,
    pub submitted_at: Option<String>,
    pub decided_by: String,
    pub decided_at: Option<String>,
    /// The uploaded certificate photo (`evidence(id:)`: organizers and the applicant).
    pub certificate_photo: ID,
}

impl From<pb::Wildcard> for Wildcard {
    fn from(w: pb::Wildcard) -> Self {
        Wildcard {
            id: ID(w.id.clone()),
            championship_id: ID(w.championship_id.clone()),
            event: w.event.clone(),
            player_id: ID(w.player_id.clone()),
            source: w.source.clone(),
            status: short(w.status().as_str_name(), "WILDCARD_STATUS_"),
            reason: w.reason,
            submitted_at: rfc3339(w.submitted_at),
            decided_by: w.decided_by,
            decided_at: rfc3339(w.decided_at),
            certificate_photo: ID(w.certificate_photo),
        }
    }
}

/// An uploaded piece of evidence (a certificate photo).
#[derive(SimpleObject, Clone)]
pub struct Evidence {
    pub id: ID,
    pub player_id: ID,
    pub content_type: String,
    pub size: u64,
    pub sha256: String,
    pub uploaded_at: Option<String>,
    pub uploaded_by: String,
    /// The image itself, base64 (only when read back with `evidence(id:)`).
    pub content_base64: Option<String>,
}

impl From<pb::Evidence> for Evidence {
    fn from(e: pb::Evidence) -> Self {
        Evidence {
            id: ID(e.id),
            player_id: ID(e.player_id),
            content_type: e.content_type,
            size: e.size,
            sha256: e.sha256,
            uploaded_at: rfc3339(e.uploaded_at),
            uploaded_by: e.uploaded_by,
            content_base64: None,
        }
    }
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum PairRelation {
    /// 父母与子女
    ParentChild,
    /// 祖父母/外祖父母与孙子女/外孙子女
    GrandparentGrandchild,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum FeeSettlement {
    Paid,
    Waived,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum AttendanceInput {
    Played,
    NoShow,
    Excused,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum WildcardStatusFilter {
    Submitted,
    UnderReview,
    Approved,
    Rejected,
}

#[derive(InputObject)]
pub struct CreateChampionshipInput {
    /// An official preset's name ("go-2025")…
    pub preset: Option<String>,
    /// …or an edited preset file's full text, for a new season.
    pub preset_toml: Option<String>,
    pub name: Option<String>,
}

#[derive(InputObject)]
pub struct UpdatePlayerInput {
    pub id: ID,
    pub name: Option<String>,
    pub phone: Option<String>,
}

#[derive(InputObject)]
pub struct RegisterPairInput {
    pub championship_id: ID,
    pub event: String,
    pub first_player_id: ID,
    pub second_player_id: ID,
    /// Parent-child pairs only.
    pub relation: Option<PairRelation>,
    /// Parent-child pairs: a reference to the document (户口簿, birth certificate).
    pub relation_document: Option<String>,
}

#[derive(InputObject)]
pub struct EnterFinalEventInput {
    pub championship_id: ID,
    pub event: String,
    pub player_id: ID,
    /// The entering unit (报名单位).
    pub unit: String,
    pub certificate_ref: Option<String>,
}

#[derive(InputObject)]
pub struct SubmitWildcardInput {
    pub championship_id: ID,
    pub event: String,
    pub player_id: ID,
    /// One of the preset's eligible sources (R-WC-1).
    pub source: String,
    /// An evidence id from `uploadEvidence`…
    pub certificate_photo_id: Option<ID>,
    /// …or the photo itself, uploaded with this request (multipart).
    pub certificate_photo: Option<Upload>,
}

#[derive(Default)]
pub struct EntriesQuery;

#[Object]
impl EntriesQuery {
    /// The official presets (rule sets) a championship can be created from.
    async fn presets(&self, ctx: &Context<'_>) -> GqlResult<Vec<PresetSummary>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .list_presets(authed(caller, pb::ListPresetsRequest {}))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(r.presets
            .into_iter()
            .map(|p| PresetSummary {
                name: p.name,
                game: game(p.game),
                season: p.season,
                title_zh: p.title_zh,
                title_en: p.title_en,
                events: p.events.into_iter().map(Event::from).collect(),
            })
            .collect())
    }

    /// One championship.
    async fn championship(&self, ctx: &Context<'_>, id: ID) -> GqlResult<super::Championship> {
        let caller = viewer(ctx)?;
        let c = services(ctx)
            .registration
            .clone()
            .get_championship(authed(caller, pb::GetChampionshipRequest { id: id.0 }))
            .await
            .map_err(gql)?;
        Ok(c.into_inner().into())
    }

    /// The rules a championship runs by: its preset's stored text.
    async fn championship_rules(&self, ctx: &Context<'_>, id: ID) -> GqlResult<ChampionshipRules> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .get_championship_rules(authed(caller, pb::GetChampionshipRequest { id: id.0 }))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(ChampionshipRules {
            championship_id: ID(r.championship_id),
            preset: r.preset,
            preset_toml: r.preset_toml,
            stages: r
                .stages
                .into_iter()
                .map(|st| StageSummary {
                    code: st.code,
                    name_zh: st.name_zh,
                    name_en: st.name_en,
                    kind: st.kind,
                    periods: st
                        .periods
                        .into_iter()
                        .map(|p| PeriodSummary {
                            number: p.number,
                            opens_on: p.opens_on,
                            closes_on: p.closes_on,
                        })
                        .collect(),
                    starts_on: (!st.starts_on.is_empty()).then_some(st.starts_on),
                    ends_on: (!st.ends_on.is_empty()).then_some(st.ends_on),
                })
                .collect(),
        })
    }

    /// A game's bar list (title holders who may not enter).
    #[graphql(guard = "RoleGuard(&[Role::Organizer, Role::Referee])")]
    async fn bars(&self, ctx: &Context<'_>, game: Game) -> GqlResult<Vec<Bar>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .list_bars(authed(
                caller,
                pb::ListBarsRequest {
                    game: pb_game(game),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().bars.into_iter().map(Bar::from).collect())
    }

    /// Online entries of a championship (a player: their own).
    async fn entries(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        player_id: Option<ID>,
    ) -> GqlResult<Vec<super::Entry>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .list_entries(authed(
                caller,
                pb::ListEntriesRequest {
                    championship_id: championship_id.0,
                    player_id: player_id.map(|p| p.0).unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner()
            .entries
            .into_iter()
            .map(super::Entry::from)
            .collect())
    }

    /// The pairs registered for a pairs event.
    async fn pairs(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event: String,
    ) -> GqlResult<Vec<Pair>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .list_pairs(authed(
                caller,
                pb::PairsEventRef {
                    championship_id: championship_id.0,
                    event,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().pairs.into_iter().map(Pair::from).collect())
    }

    /// A pairs event's seed and draw.
    async fn pairs_draw(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event: String,
    ) -> GqlResult<PairsDraw> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .get_pairs_draw(authed(
                caller,
                pb::PairsEventRef {
                    championship_id: championship_id.0,
                    event,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Direct entries to an event of the final.
    async fn final_entries(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event: String,
    ) -> GqlResult<Vec<FinalEntry>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .list_final_entries(authed(
                caller,
                pb::PairsEventRef {
                    championship_id: championship_id.0,
                    event,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner()
            .entries
            .into_iter()
            .map(FinalEntry::from)
            .collect())
    }

    /// The host city's teams.
    async fn city_teams(&self, ctx: &Context<'_>, championship_id: ID) -> GqlResult<Vec<CityTeam>> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .list_city_teams(authed(
                caller,
                pb::ListCityTeamsRequest {
                    championship_id: championship_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner()
            .teams
            .into_iter()
            .map(CityTeam::from)
            .collect())
    }

    /// A player's fee for the final.
    async fn fee(&self, ctx: &Context<'_>, championship_id: ID, player_id: ID) -> GqlResult<Fee> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .get_fee(authed(
                caller,
                pb::GetFeeRequest {
                    championship_id: championship_id.0,
                    player_id: player_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().into())
    }

    /// Wildcard applications (organizers and referees; a player: `playerId` = themself).
    async fn wildcards(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event: Option<String>,
        status: Option<WildcardStatusFilter>,
        player_id: Option<ID>,
    ) -> GqlResult<Vec<Wildcard>> {
        let caller = viewer(ctx)?;
        let status = match status {
            None => pb::WildcardStatus::Unspecified,
            Some(WildcardStatusFilter::Submitted) => pb::WildcardStatus::Submitted,
            Some(WildcardStatusFilter::UnderReview) => pb::WildcardStatus::UnderReview,
            Some(WildcardStatusFilter::Approved) => pb::WildcardStatus::Approved,
            Some(WildcardStatusFilter::Rejected) => pb::WildcardStatus::Rejected,
        };
        let r = services(ctx)
            .registration
            .clone()
            .list_wildcards(authed(
                caller,
                pb::ListWildcardsRequest {
                    championship_id: championship_id.0,
                    event: event.unwrap_or_default(),
                    status: status.into(),
                    player_id: player_id.map(|p| p.0).unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner()
            .wildcards
            .into_iter()
            .map(Wildcard::from)
            .collect())
    }

    /// An uploaded certificate photo with its content (organizers and the player it belongs to).
    async fn evidence(&self, ctx: &Context<'_>, id: ID) -> GqlResult<Evidence> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .get_evidence(authed(caller, pb::EvidenceRef { evidence_id: id.0 }))
            .await
            .map_err(gql)?
            .into_inner();
        let mut evidence = Evidence::from(r.evidence.unwrap_or_default());
        evidence.content_base64 =
            Some(base64::engine::general_purpose::STANDARD.encode(&r.content));
        Ok(evidence)
    }
}

/// Reads an uploaded file of the request.
fn read_upload(ctx: &Context<'_>, upload: &Upload) -> GqlResult<(String, Vec<u8>)> {
    let value = upload.value(ctx).map_err(|e| {
        gql(GatewayError::InvalidInput {
            field: "certificatePhoto",
            reason: format!("the upload could not be read: {e}"),
        })
    })?;
    let content_type = value.content_type.clone().unwrap_or_default();
    let mut bytes = Vec::new();
    value.into_read().read_to_end(&mut bytes).map_err(|e| {
        gql(GatewayError::InvalidInput {
            field: "certificatePhoto",
            reason: format!("the upload could not be read: {e}"),
        })
    })?;
    Ok((content_type, bytes))
}

async fn upload_evidence(
    ctx: &Context<'_>,
    player_id: String,
    file: &Upload,
) -> GqlResult<pb::Evidence> {
    let caller = viewer(ctx)?;
    let (content_type, content) = read_upload(ctx, file)?;
    let r = services(ctx)
        .registration
        .clone()
        .upload_evidence(authed(
            caller,
            pb::UploadEvidenceRequest {
                player_id,
                content_type,
                content,
            },
        ))
        .await
        .map_err(gql)?;
    Ok(r.into_inner())
}

#[derive(Default)]
pub struct EntriesMutation;

#[Object]
impl EntriesMutation {
    /// Create a championship from an official preset or an edited preset file (organizers).
    async fn create_championship(
        &self,
        ctx: &Context<'_>,
        input: CreateChampionshipInput,
    ) -> GqlResult<super::Championship> {
        let caller = viewer(ctx)?;
        let c = services(ctx)
            .registration
            .clone()
            .create_championship(authed(
                caller,
                pb::CreateChampionshipRequest {
                    preset: input.preset.unwrap_or_default(),
                    name: input.name.unwrap_or_default(),
                    preset_toml: input.preset_toml.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(c.into_inner().into())
    }

    /// Change a player's name or phone (the player themself, or an organizer).
    async fn update_player(
        &self,
        ctx: &Context<'_>,
        input: UpdatePlayerInput,
    ) -> GqlResult<super::Player> {
        let caller = viewer(ctx)?;
        let p = services(ctx)
            .registration
            .clone()
            .update_player(authed(
                caller,
                pb::UpdatePlayerRequest {
                    id: input.id.0,
                    name: input.name,
                    phone: input.phone,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(p.into_inner().into())
    }

    /// Put a title holder on a game's bar list (organizers).
    async fn add_bar(
        &self,
        ctx: &Context<'_>,
        game: Game,
        id_number: String,
        reason: String,
    ) -> GqlResult<Bar> {
        let caller = viewer(ctx)?;
        let b = services(ctx)
            .registration
            .clone()
            .add_bar(authed(
                caller,
                pb::AddBarRequest {
                    game: pb_game(game),
                    id_number,
                    reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(b.into_inner().into())
    }

    /// Take someone off a bar list (organizers); false when they were not on it.
    async fn remove_bar(
        &self,
        ctx: &Context<'_>,
        game: Game,
        id_number: String,
    ) -> GqlResult<bool> {
        let caller = viewer(ctx)?;
        let r = services(ctx)
            .registration
            .clone()
            .remove_bar(authed(
                caller,
                pb::RemoveBarRequest {
                    game: pb_game(game),
                    id_number,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(r.into_inner().removed)
    }

    /// Register a pair for a pairs event.
    async fn register_pair(&self, ctx: &Context<'_>, input: RegisterPairInput) -> GqlResult<Pair> {
        let caller = viewer(ctx)?;
        let relation = match input.relation {
            None => pb::PairRelation::Unspecified,
            Some(PairRelation::ParentChild) => pb::PairRelation::ParentChild,
            Some(PairRelation::GrandparentGrandchild) => pb::PairRelation::GrandparentGrandchild,
        };
        let p = services(ctx)
            .registration
            .clone()
            .register_pair(authed(
                caller,
                pb::RegisterPairRequest {
                    championship_id: input.championship_id.0,
                    event: input.event,
                    first_player_id: input.first_player_id.0,
                    second_player_id: input.second_player_id.0,
                    relation: relation.into(),
                    relation_document: input.relation_document.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(p.into_inner().into())
    }

    /// Withdraw a pair, with a reason.
    async fn withdraw_pair(
        &self,
        ctx: &Context<'_>,
        pair_id: ID,
        reason: String,
    ) -> GqlResult<Pair> {
        let caller = viewer(ctx)?;
        let p = services(ctx)
            .registration
            .clone()
            .withdraw_pair(authed(
                caller,
                pb::WithdrawPairRequest {
                    pair_id: pair_id.0,
                    reason,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(p.into_inner().into())
    }

    /// Verify (or reject, with a reason) a pair's stated family relation (organizers).
    async fn verify_pair_relation(
        &self,
        ctx: &Context<'_>,
        pair_id: ID,
        verified: bool,
        reason: Option<String>,
    ) -> GqlResult<Pair> {
        let caller = viewer(ctx)?;
        let p = services(ctx)
            .registration
            .clone()
            .verify_pair_relation(authed(
                caller,
                pb::VerifyPairRelationRequest {
                    pair_id: pair_id.0,
                    verified,
                    reason: reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(p.into_inner().into())
    }

    /// Publish the seed of a pairs event's lottery before the draw (organizers).
    async fn publish_pairs_seed(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event: String,
        seed: String,
    ) -> GqlResult<PairsDraw> {
        let caller = viewer(ctx)?;
        let d = services(ctx)
            .registration
            .clone()
            .publish_pairs_seed(authed(
                caller,
                pb::PublishPairsSeedRequest {
                    championship_id: championship_id.0,
                    event,
                    seed,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(d.into_inner().into())
    }

    /// Draw a pairs event (organizers).
    async fn draw_pairs(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        event: String,
    ) -> GqlResult<PairsDraw> {
        let caller = viewer(ctx)?;
        let d = services(ctx)
            .registration
            .clone()
            .draw_pairs(authed(
                caller,
                pb::PairsEventRef {
                    championship_id: championship_id.0,
                    event,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(d.into_inner().into())
    }

    /// Enter an event of the final directly (R-REG-5).
    async fn enter_final_event(
        &self,
        ctx: &Context<'_>,
        input: EnterFinalEventInput,
    ) -> GqlResult<FinalEntry> {
        let caller = viewer(ctx)?;
        let e = services(ctx)
            .registration
            .clone()
            .enter_final_event(authed(
                caller,
                pb::EnterFinalEventRequest {
                    championship_id: input.championship_id.0,
                    event: input.event,
                    player_id: input.player_id.0,
                    unit: input.unit,
                    certificate_ref: input.certificate_ref.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(e.into_inner().into())
    }

    /// Approve or reject (with a reason) a direct entry (organizers).
    async fn decide_final_entry(
        &self,
        ctx: &Context<'_>,
        entry_id: ID,
        approve: bool,
        reason: Option<String>,
    ) -> GqlResult<FinalEntry> {
        let caller = viewer(ctx)?;
        let e = services(ctx)
            .registration
            .clone()
            .decide_final_entry(authed(
                caller,
                pb::DecideFinalEntryRequest {
                    entry_id: entry_id.0,
                    approve,
                    reason: reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(e.into_inner().into())
    }

    /// Register the host city's team roster (organizers).
    async fn register_city_team(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        city: String,
        player_ids: Vec<ID>,
    ) -> GqlResult<CityTeam> {
        let caller = viewer(ctx)?;
        let t = services(ctx)
            .registration
            .clone()
            .register_city_team(authed(
                caller,
                pb::RegisterCityTeamRequest {
                    championship_id: championship_id.0,
                    city,
                    player_ids: player_ids.into_iter().map(|p| p.0).collect(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(t.into_inner().into())
    }

    /// Record a fee as paid (with the payment's reference) or waived (with a reason) (organizers).
    async fn record_fee(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        player_id: ID,
        settlement: FeeSettlement,
        payment_ref: Option<String>,
        reason: Option<String>,
    ) -> GqlResult<Fee> {
        let caller = viewer(ctx)?;
        let status = match settlement {
            FeeSettlement::Paid => pb::FeeStatus::Paid,
            FeeSettlement::Waived => pb::FeeStatus::Waived,
        };
        let f = services(ctx)
            .registration
            .clone()
            .record_fee(authed(
                caller,
                pb::RecordFeeRequest {
                    championship_id: championship_id.0,
                    player_id: player_id.0,
                    status: status.into(),
                    payment_ref: payment_ref.unwrap_or_default(),
                    reason: reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(f.into_inner().into())
    }

    /// Record whether a player came to the final (organizers); refunds follow R-REG-7.
    async fn record_attendance(
        &self,
        ctx: &Context<'_>,
        championship_id: ID,
        player_id: ID,
        attendance: AttendanceInput,
        reason: Option<String>,
    ) -> GqlResult<Fee> {
        let caller = viewer(ctx)?;
        let attendance = match attendance {
            AttendanceInput::Played => pb::Attendance::Played,
            AttendanceInput::NoShow => pb::Attendance::NoShow,
            AttendanceInput::Excused => pb::Attendance::Excused,
        };
        let f = services(ctx)
            .registration
            .clone()
            .record_attendance(authed(
                caller,
                pb::RecordAttendanceRequest {
                    championship_id: championship_id.0,
                    player_id: player_id.0,
                    attendance: attendance.into(),
                    reason: reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(f.into_inner().into())
    }

    /// Upload a certificate photo (multipart; JPEG or PNG, at most 2 MiB) for a player: the player
    /// themself or an organizer.
    async fn upload_evidence(
        &self,
        ctx: &Context<'_>,
        player_id: ID,
        file: Upload,
    ) -> GqlResult<Evidence> {
        Ok(upload_evidence(ctx, player_id.0, &file).await?.into())
    }

    /// Apply for a wildcard (R-WC-1) with the certificate photo: an uploaded evidence id, or the
    /// file itself in this request.
    async fn submit_wildcard(
        &self,
        ctx: &Context<'_>,
        input: SubmitWildcardInput,
    ) -> GqlResult<Wildcard> {
        let caller = viewer(ctx)?;
        let photo = match (input.certificate_photo_id, &input.certificate_photo) {
            (Some(id), None) => id.0,
            (None, Some(file)) => {
                upload_evidence(ctx, input.player_id.0.clone(), file)
                    .await?
                    .id
            }
            (None, None) => String::new(),
            (Some(_), Some(_)) => {
                return Err(gql(GatewayError::InvalidInput {
                    field: "certificatePhoto",
                    reason: "give either certificatePhotoId or certificatePhoto, not both".into(),
                }));
            }
        };
        let w = services(ctx)
            .registration
            .clone()
            .submit_wildcard(authed(
                caller,
                pb::SubmitWildcardRequest {
                    championship_id: input.championship_id.0,
                    event: input.event,
                    player_id: input.player_id.0,
                    source: input.source,
                    certificate_photo: photo,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(w.into_inner().into())
    }

    /// Start reviewing a wildcard application (organizers).
    async fn review_wildcard(&self, ctx: &Context<'_>, wildcard_id: ID) -> GqlResult<Wildcard> {
        let caller = viewer(ctx)?;
        let w = services(ctx)
            .registration
            .clone()
            .review_wildcard(authed(
                caller,
                pb::WildcardRef {
                    wildcard_id: wildcard_id.0,
                },
            ))
            .await
            .map_err(gql)?;
        Ok(w.into_inner().into())
    }

    /// Approve (within the quota) or reject (with a reason) a reviewed application (organizers).
    async fn decide_wildcard(
        &self,
        ctx: &Context<'_>,
        wildcard_id: ID,
        approve: bool,
        reason: Option<String>,
    ) -> GqlResult<Wildcard> {
        let caller = viewer(ctx)?;
        let w = services(ctx)
            .registration
            .clone()
            .decide_wildcard(authed(
                caller,
                pb::DecideWildcardRequest {
                    wildcard_id: wildcard_id.0,
                    approve,
                    reason: reason.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?;
        Ok(w.into_inner().into())
    }
}
