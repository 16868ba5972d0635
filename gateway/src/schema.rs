//! The GraphQL schema. Types here are DTOs built from the services' protobuf messages; every
//! resolver calls a service over gRPC with the viewer's own token. The roots merge one part per
//! service area: registration (this file), the online stages (`qualification`), the final
//! (`final_event`), and team standings and awards (`awards`).

use std::collections::HashMap;

use async_graphql::dataloader::{DataLoader, Loader};
use async_graphql::{
    Context, Enum, Guard, ID, InputObject, MergedObject, Object, Schema, SimpleObject,
};
use qiwang_infra::auth::{Caller, Role};
use qiwang_proto::registration::v1 as pb;

use crate::Services;
use crate::error::{GatewayError, GqlResult, gql};

mod audit;
mod awards;
mod final_event;
mod live;
mod online_ops;
mod qualification;
mod registration;

pub type QiwangSchema = Schema<QueryRoot, MutationRoot, live::SubscriptionRoot>;

/// Every query, one part per service area.
#[derive(MergedObject, Default)]
pub struct QueryRoot(
    RegistrationQuery,
    registration::EntriesQuery,
    qualification::QualificationQuery,
    online_ops::OnlineOpsQuery,
    final_event::FinalQuery,
    awards::AwardsQuery,
    audit::AuditQuery,
);

/// Every mutation, one part per service area.
#[derive(MergedObject, Default)]
pub struct MutationRoot(
    RegistrationMutation,
    registration::EntriesMutation,
    qualification::QualificationMutation,
    online_ops::OnlineOpsMutation,
    final_event::FinalMutation,
    awards::AwardsMutation,
);

/// Who is asking, as established from the `Authorization` header before execution.
#[derive(Debug, Clone)]
pub enum Viewer {
    Anonymous,
    /// A header was sent but the token was refused (reason kept for the error message).
    Refused(String),
    Caller(Caller),
}

impl Viewer {
    fn caller(&self) -> Result<&Caller, GatewayError> {
        match self {
            Viewer::Caller(c) => Ok(c),
            Viewer::Anonymous => Err(GatewayError::Unauthenticated("no bearer token".into())),
            Viewer::Refused(why) => Err(GatewayError::Unauthenticated(why.clone())),
        }
    }
}

/// The client's address as the gateway judged it (the public's identity for rate limits).
#[derive(Debug, Clone, Default)]
pub struct ClientAddress(pub Option<String>);

/// A request for what anyone may do: with the viewer's token when signed in; without one (naming
/// the client's address) for the public. A token that was sent and refused is still refused: a
/// bad token is never quietly read as "anonymous".
fn public_request<T>(
    viewer: &Viewer,
    client: &ClientAddress,
    message: T,
) -> Result<tonic::Request<T>, GatewayError> {
    match viewer {
        Viewer::Caller(c) => Ok(c.forward(message)),
        Viewer::Refused(why) => Err(GatewayError::Unauthenticated(why.clone())),
        Viewer::Anonymous => {
            let mut request = tonic::Request::new(message);
            if let Some(v) = client.0.as_deref().and_then(|a| a.parse().ok()) {
                request
                    .metadata_mut()
                    .insert(qiwang_infra::auth::PUBLIC_CLIENT, v);
            }
            Ok(request)
        }
    }
}

fn public_call<T>(ctx: &Context<'_>, message: T) -> GqlResult<tonic::Request<T>> {
    let viewer = ctx.data::<Viewer>().unwrap_or(&Viewer::Anonymous);
    let client = ctx.data::<ClientAddress>().cloned().unwrap_or_default();
    public_request(viewer, &client, message).map_err(gql)
}

/// A player as a published list shows them: no ID number, birth date or phone (R-REG-3).
#[derive(SimpleObject, Clone)]
pub struct PublicProfile {
    pub player_id: ID,
    pub name: String,
    pub sex: Option<Sex>,
    pub region_name: Option<String>,
}

/// Batches every profile a response needs into one registration call per 500 players, so a page
/// of a list never makes one call per row.
pub struct PublicProfileLoader {
    services: Services,
    viewer: Viewer,
    client: ClientAddress,
}

impl PublicProfileLoader {
    pub fn new(services: Services, viewer: Viewer, client: ClientAddress) -> Self {
        PublicProfileLoader {
            services,
            viewer,
            client,
        }
    }
}

impl Loader<String> for PublicProfileLoader {
    type Value = PublicProfile;
    type Error = async_graphql::Error;

    async fn load(&self, keys: &[String]) -> Result<HashMap<String, PublicProfile>, Self::Error> {
        let mut out = HashMap::new();
        for chunk in keys.chunks(500) {
            let request = public_request(
                &self.viewer,
                &self.client,
                pb::GetPublicProfilesRequest {
                    player_ids: chunk.to_vec(),
                },
            )
            .map_err(gql)?;
            let r = self
                .services
                .registration
                .clone()
                .get_public_profiles(request)
                .await
                .map_err(gql)?;
            for p in r.into_inner().profiles {
                let sex = match pb::Sex::try_from(p.sex) {
                    Ok(pb::Sex::Male) => Some(Sex::Male),
                    Ok(pb::Sex::Female) => Some(Sex::Female),
                    _ => None,
                };
                out.insert(
                    p.player_id.clone(),
                    PublicProfile {
                        player_id: ID(p.player_id),
                        name: p.name,
                        sex,
                        region_name: non_empty(p.region_name),
                    },
                );
            }
        }
        Ok(out)
    }
}

/// The public profile of `player_id`, through the request's loader.
async fn public_profile(ctx: &Context<'_>, player_id: &str) -> GqlResult<Option<PublicProfile>> {
    let loader = ctx.data::<DataLoader<PublicProfileLoader>>()?;
    loader.load_one(player_id.to_owned()).await
}

/// The gRPC clients.
fn services<'a>(ctx: &'a Context<'_>) -> &'a Services {
    ctx.data_unchecked::<Services>()
}

fn viewer<'a>(ctx: &'a Context<'_>) -> GqlResult<&'a Caller> {
    ctx.data::<Viewer>()
        .map_err(|_| gql(GatewayError::Unauthenticated("no viewer".into())))?
        .caller()
        .map_err(gql)
}

/// Field guard: the viewer must hold one of the roles.
pub struct RoleGuard(&'static [Role]);

impl Guard for RoleGuard {
    async fn check(&self, ctx: &Context<'_>) -> async_graphql::Result<()> {
        let caller = viewer(ctx)?;
        if self.0.contains(&caller.role) {
            Ok(())
        } else {
            Err(gql(GatewayError::Forbidden(format!(
                "role {} may not read this field",
                caller.role
            ))))
        }
    }
}

/// Wraps a message in a gRPC request carrying the viewer's token.
fn authed<T>(caller: &Caller, message: T) -> tonic::Request<T> {
    caller.forward(message)
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum Sex {
    Male,
    Female,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
pub enum Game {
    Go,
    Xiangqi,
    Chess,
}

#[derive(Enum, Copy, Clone, Eq, PartialEq, Debug)]
#[graphql(name = "Role")]
pub enum RoleName {
    Organizer,
    Referee,
    Player,
    Partner,
    Federation,
    /// Anyone, without signing in.
    Public,
}

impl From<Role> for RoleName {
    fn from(r: Role) -> Self {
        match r {
            Role::Organizer => RoleName::Organizer,
            Role::Referee => RoleName::Referee,
            Role::Player => RoleName::Player,
            Role::Partner => RoleName::Partner,
            Role::Federation => RoleName::Federation,
            Role::Public => RoleName::Public,
        }
    }
}

fn game(value: i32) -> Option<Game> {
    match pb::Game::try_from(value) {
        Ok(pb::Game::Go) => Some(Game::Go),
        Ok(pb::Game::Xiangqi) => Some(Game::Xiangqi),
        Ok(pb::Game::Chess) => Some(Game::Chess),
        _ => None,
    }
}

fn rfc3339(t: Option<prost_types::Timestamp>) -> Option<String> {
    let t = t?;
    let dt = chrono::DateTime::from_timestamp(t.seconds, u32::try_from(t.nanos).ok()?)?;
    Some(dt.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// A player. `idNumber` and `phone` are masked unless the viewer is the player, an organizer or a
/// referee (R-REG-3); `idMasked` says which.
#[derive(SimpleObject, Clone)]
pub struct Player {
    pub id: ID,
    pub name: String,
    pub sex: Option<Sex>,
    pub birth_date: String,
    pub id_kind: String,
    pub id_number: String,
    pub id_masked: bool,
    pub nationality: String,
    pub region_code: Option<String>,
    pub region_name: Option<String>,
    pub phone: Option<String>,
    pub accounts: Vec<LinkedAccount>,
    pub created_at: Option<String>,
}

#[derive(SimpleObject, Clone)]
pub struct LinkedAccount {
    pub platform: String,
    pub account_id: String,
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

impl From<pb::Player> for Player {
    fn from(p: pb::Player) -> Self {
        Player {
            id: ID(p.id),
            name: p.name,
            sex: match pb::Sex::try_from(p.sex) {
                Ok(pb::Sex::Male) => Some(Sex::Male),
                Ok(pb::Sex::Female) => Some(Sex::Female),
                _ => None,
            },
            birth_date: p.birth_date,
            id_kind: p.id_kind,
            id_number: p.id_number,
            id_masked: p.id_masked,
            nationality: p.nationality,
            region_code: non_empty(p.region_code),
            region_name: non_empty(p.region_name),
            phone: non_empty(p.phone),
            accounts: p
                .accounts
                .into_iter()
                .map(|a| LinkedAccount {
                    platform: a.platform,
                    account_id: a.account_id,
                })
                .collect(),
            created_at: rfc3339(p.created_at),
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Event {
    pub code: String,
    pub name_zh: String,
    pub name_en: String,
    pub online_qualifier: bool,
}

impl From<pb::Event> for Event {
    fn from(e: pb::Event) -> Self {
        Event {
            code: e.code,
            name_zh: e.name_zh,
            name_en: e.name_en,
            online_qualifier: e.online_qualifier,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Championship {
    pub id: ID,
    pub name: String,
    pub preset: String,
    pub game: Option<Game>,
    pub season: i32,
    pub events: Vec<Event>,
    /// Online registration window, inclusive, China time (R-REG-1).
    pub registration_opens_on: String,
    pub registration_closes_on: String,
}

impl From<pb::Championship> for Championship {
    fn from(c: pb::Championship) -> Self {
        Championship {
            id: ID(c.id),
            name: c.name,
            preset: c.preset,
            game: game(c.game),
            season: c.season,
            events: c.events.into_iter().map(Event::from).collect(),
            registration_opens_on: c.registration_opens_on,
            registration_closes_on: c.registration_closes_on,
        }
    }
}

#[derive(SimpleObject, Clone)]
pub struct Entry {
    pub id: ID,
    pub championship_id: ID,
    pub event: String,
    pub player_id: ID,
    pub sequence: i32,
    pub entered_at: Option<String>,
}

impl From<pb::Entry> for Entry {
    fn from(e: pb::Entry) -> Self {
        Entry {
            id: ID(e.id),
            championship_id: ID(e.championship_id),
            event: e.event,
            player_id: ID(e.player_id),
            sequence: e.sequence,
            entered_at: rfc3339(e.entered_at),
        }
    }
}

/// The signed-in viewer.
#[derive(SimpleObject, Clone)]
pub struct Me {
    pub subject: String,
    pub role: RoleName,
    /// The viewer's player record, when the viewer is a registered player.
    pub player: Option<Player>,
}

#[derive(SimpleObject, Clone)]
pub struct PlayerPage {
    pub players: Vec<Player>,
    /// Pass as `page.after` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

#[derive(InputObject, Default)]
pub struct PlayerFilter {
    pub name_contains: Option<String>,
    pub region_code: Option<String>,
}

#[derive(InputObject, Default)]
pub struct PageInput {
    /// 1-500, default 50.
    pub size: Option<i32>,
    pub after: Option<String>,
}

#[derive(InputObject)]
pub struct RegisterPlayerInput {
    pub name: String,
    pub sex: Sex,
    /// YYYY-MM-DD; must agree with the resident ID.
    pub birth_date: String,
    /// 18-digit resident ID (Chinese players)…
    pub resident_id: Option<String>,
    /// …or passport number plus ISO 3166-1 alpha-3 nationality (foreigners).
    pub passport_number: Option<String>,
    pub nationality: Option<String>,
    pub phone: Option<String>,
}

#[derive(InputObject)]
pub struct LinkAccountInput {
    pub player_id: ID,
    pub platform: String,
    pub account_id: String,
}

#[derive(InputObject)]
pub struct EnterEventInput {
    pub championship_id: ID,
    pub event: String,
    pub player_id: ID,
}

#[derive(Default)]
pub struct RegistrationQuery;

#[Object]
impl RegistrationQuery {
    /// The signed-in viewer, with their player record if they are a registered player.
    async fn me(&self, ctx: &Context<'_>) -> GqlResult<Me> {
        let caller = viewer(ctx)?;
        let player = if caller.is(Role::Player) {
            let mut client = services(ctx).registration.clone();
            match client
                .get_player(authed(
                    caller,
                    pb::GetPlayerRequest {
                        id: caller.subject.clone(),
                    },
                ))
                .await
            {
                Ok(r) => Some(Player::from(r.into_inner())),
                Err(s) if s.code() == tonic::Code::NotFound => None,
                Err(s) => return Err(gql(s)),
            }
        } else {
            None
        };
        Ok(Me {
            subject: caller.subject.clone(),
            role: caller.role.into(),
            player,
        })
    }

    /// One player; personal data masked unless the viewer may see it.
    async fn player(&self, ctx: &Context<'_>, id: ID) -> GqlResult<Option<Player>> {
        let caller = viewer(ctx)?;
        let mut client = services(ctx).registration.clone();
        match client
            .get_player(authed(caller, pb::GetPlayerRequest { id: id.0 }))
            .await
        {
            Ok(r) => Ok(Some(r.into_inner().into())),
            Err(s) if s.code() == tonic::Code::NotFound => Ok(None),
            Err(s) => Err(gql(s)),
        }
    }

    /// Players, a page at a time (organizers and referees).
    #[graphql(
        guard = "RoleGuard(&[Role::Organizer, Role::Referee])",
        complexity = "5 + child_complexity * 10"
    )]
    async fn players(
        &self,
        ctx: &Context<'_>,
        filter: Option<PlayerFilter>,
        page: Option<PageInput>,
    ) -> GqlResult<PlayerPage> {
        let caller = viewer(ctx)?;
        let filter = filter.unwrap_or_default();
        let page = page.unwrap_or_default();
        let mut client = services(ctx).registration.clone();
        let response = client
            .list_players(authed(
                caller,
                pb::ListPlayersRequest {
                    name_contains: filter.name_contains.unwrap_or_default(),
                    region_code: filter.region_code.unwrap_or_default(),
                    page_size: page.size.unwrap_or(0),
                    page_token: page.after.unwrap_or_default(),
                },
            ))
            .await
            .map_err(gql)?
            .into_inner();
        Ok(PlayerPage {
            players: response.players.into_iter().map(Player::from).collect(),
            next_cursor: non_empty(response.next_page_token),
        })
    }

    /// Every championship.
    async fn championships(&self, ctx: &Context<'_>) -> GqlResult<Vec<Championship>> {
        let caller = viewer(ctx)?;
        let mut client = services(ctx).registration.clone();
        let response = client
            .list_championships(authed(caller, pb::ListChampionshipsRequest {}))
            .await
            .map_err(gql)?;
        Ok(response
            .into_inner()
            .championships
            .into_iter()
            .map(Championship::from)
            .collect())
    }
}

#[derive(Default)]
pub struct RegistrationMutation;

#[Object]
impl RegistrationMutation {
    /// Register a player: a player registers themself; an organizer registers on a player's behalf.
    async fn register_player(
        &self,
        ctx: &Context<'_>,
        input: RegisterPlayerInput,
    ) -> GqlResult<Player> {
        let caller = viewer(ctx)?;
        let identity = match (input.resident_id, input.passport_number, input.nationality) {
            (Some(number), None, _) => pb::identity::Kind::Resident(pb::ResidentId { number }),
            (None, Some(number), Some(nationality)) => pb::identity::Kind::Passport(pb::Passport {
                number,
                nationality,
            }),
            (None, Some(_), None) => {
                return Err(gql(GatewayError::InvalidInput {
                    field: "nationality",
                    reason: "required with a passport".into(),
                }));
            }
            _ => {
                return Err(gql(GatewayError::InvalidInput {
                    field: "residentId",
                    reason: "give either residentId or passportNumber with nationality".into(),
                }));
            }
        };
        let request = pb::RegisterPlayerRequest {
            name: input.name,
            sex: match input.sex {
                Sex::Male => pb::Sex::Male,
                Sex::Female => pb::Sex::Female,
            } as i32,
            birth_date: input.birth_date,
            identity: Some(pb::Identity {
                kind: Some(identity),
            }),
            phone: input.phone.unwrap_or_default(),
        };
        let mut client = services(ctx).registration.clone();
        let player = client
            .register_player(authed(caller, request))
            .await
            .map_err(gql)?;
        Ok(player.into_inner().into())
    }

    /// Link a partner-platform account to a player (R-REG-4).
    async fn link_account(&self, ctx: &Context<'_>, input: LinkAccountInput) -> GqlResult<Player> {
        let caller = viewer(ctx)?;
        let mut client = services(ctx).registration.clone();
        let request = pb::LinkAccountRequest {
            player_id: input.player_id.0,
            platform: input.platform,
            account_id: input.account_id,
        };
        let player = client
            .link_account(authed(caller, request))
            .await
            .map_err(gql)?;
        Ok(player.into_inner().into())
    }

    /// Enter the online qualifier of an event (R-REG-1).
    async fn enter_event(&self, ctx: &Context<'_>, input: EnterEventInput) -> GqlResult<Entry> {
        let caller = viewer(ctx)?;
        let mut client = services(ctx).registration.clone();
        let request = pb::EnterEventRequest {
            championship_id: input.championship_id.0,
            event: input.event,
            player_id: input.player_id.0,
        };
        let entry = client
            .enter_event(authed(caller, request))
            .await
            .map_err(gql)?;
        Ok(entry.into_inner().into())
    }
}

/// Builds the schema with its limits. `services` are the gRPC clients resolvers call.
pub fn build(services: Services, max_depth: usize, max_complexity: usize) -> QiwangSchema {
    Schema::build(
        QueryRoot::default(),
        MutationRoot::default(),
        live::SubscriptionRoot,
    )
    .data(services)
    .extension(crate::free_text::FreeTextGuard)
    .extension(crate::i18n::LocalizeSubscriptions)
    .limit_depth(max_depth)
    .limit_complexity(max_complexity)
    .limit_recursive_depth(32)
    .limit_directives(16)
    .finish()
}

/// The schema's SDL, as committed in `gateway/schema.graphql`.
pub fn sdl() -> String {
    Schema::build(
        QueryRoot::default(),
        MutationRoot::default(),
        live::SubscriptionRoot,
    )
    .finish()
    .sdl()
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_render_as_rfc3339_utc() {
        let ts = |seconds, nanos| Some(prost_types::Timestamp { seconds, nanos });
        assert_eq!(
            super::rfc3339(ts(0, 0)).as_deref(),
            Some("1970-01-01T00:00:00.000Z")
        );
        assert_eq!(
            super::rfc3339(ts(1_664_000_000, 5_000_000)).as_deref(),
            Some("2022-09-24T06:13:20.005Z")
        );
        assert_eq!(super::rfc3339(None), None);
    }
}
