//! The gRPC shell of the team-ranking service: it gathers the rankings and the teams over gRPC and
//! asks `qiwang_core::team` for the standings.
//!
//! Readings:
//! - A counted ranking (`men-individual` / `open`) is the final ranking of the pairing event of that
//!   event code (the first created, when several); `women`, `boys` and `girls` are that ranking's
//!   players of one sex, renumbered (`team::sex_ranking`). A women's individual event without a
//!   section of its own is ranked among the women of the open event (`Preset::women_ranked_in`).
//!   An event without a pairing event yet counts nobody (its teams are incomplete) and the
//!   standings are not complete.
//! - Registered teams: a city roster's counted players (R-REG-9); otherwise the entering unit of an
//!   approved direct entry into a counted event (youth, R-TEAM-4). Region teams: the region code or
//!   nationality registration publishes (R-TEAM-2, R-TEAM-3); the players on the host city's roster
//!   (registered like a city team, 2015 presets) count for the host-city team instead.
//! - The number of places awarded follows the team event's prize table (R-TEAM-5).

use chrono::Utc;
use prost::Message;
use qiwang_core::identity::Sex;
use qiwang_core::preset::{self, Preset};
use qiwang_core::team::{
    self, IndividualRank, MemberRank, Origin, RankingRef, TeamGrouping, TeamMembership,
    TeamStandings,
};
use qiwang_infra::auth::{self, AuthInterceptor, Caller, Role, Verifier};
use qiwang_infra::db::is_unique_violation;
use qiwang_proto::pairing::v1 as pairing;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::registration::v1 as reg;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use qiwang_proto::teamranking::v1 as pb;
use qiwang_proto::teamranking::v1::team_ranking_service_server::{
    TeamRankingService, TeamRankingServiceServer,
};
use sea_orm::{ActiveModelTrait, DatabaseConnection, EntityTrait, Set, TransactionTrait};
use std::collections::{BTreeMap, HashMap};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use crate::entity::{frozen, overrides};
use crate::error::{Result, TeamRankingError, invalid};

/// The team-ranking service.
#[derive(Clone)]
pub struct TeamRankingApi {
    db: DatabaseConnection,
    registration: RegistrationServiceClient<Channel>,
    pairing: PairingServiceClient<Channel>,
}

type Reply<T> = std::result::Result<Response<T>, Status>;

fn reply<T>(r: Result<T>) -> Reply<T> {
    r.map(Response::new).map_err(Status::from)
}

fn require(caller: &Caller, roles: &[Role]) -> Result<()> {
    auth::require(caller, roles)
        .map_err(|s| TeamRankingError::PermissionDenied(s.message().to_owned()))
}

fn upstream(context: &'static str) -> impl Fn(Status) -> TeamRankingError {
    move |status| TeamRankingError::Upstream { context, status }
}

const ANYONE: &[Role] = &[
    Role::Organizer,
    Role::Referee,
    Role::Player,
    Role::Partner,
    Role::Federation,
];

fn sex_of(code: &str) -> Option<Sex> {
    match code {
        "male" => Some(Sex::Male),
        "female" => Some(Sex::Female),
        _ => None,
    }
}

fn standings_pb(championship: &str, team_event: &str, s: &TeamStandings) -> pb::TeamStandings {
    let member = |m: &team::CountedMember| pb::CountedMember {
        player_id: m.player.clone(),
        ranking: format!("{}/{}", m.ranking.event, m.ranking.ranking),
        place: m.place,
    };
    pb::TeamStandings {
        championship_id: championship.to_owned(),
        team_event: team_event.to_owned(),
        places_awarded: s.places_awarded,
        ranked: s
            .ranked
            .iter()
            .map(|t| pb::TeamRow {
                team: t.team.to_string(),
                place: t.place,
                sum: t.sum,
                best_place: t.best_place,
                counted: t.counted.iter().map(member).collect(),
                awarded: t.awarded,
            })
            .collect(),
        unranked: s
            .unranked
            .iter()
            .map(|t| pb::IncompleteTeam {
                team: t.team.to_string(),
                members: t.members.iter().map(member).collect(),
                missing: t.missing,
            })
            .collect(),
        ..Default::default()
    }
}

impl TeamRankingApi {
    pub fn new(
        db: DatabaseConnection,
        registration: RegistrationServiceClient<Channel>,
        pairing: PairingServiceClient<Channel>,
    ) -> Self {
        TeamRankingApi {
            db,
            registration,
            pairing,
        }
    }

    /// The tonic service, with every call authenticated by `verifier`.
    pub fn into_server(
        self,
        verifier: Verifier,
    ) -> InterceptedService<TeamRankingServiceServer<Self>, AuthInterceptor> {
        TeamRankingServiceServer::with_interceptor(self, AuthInterceptor::new(verifier))
    }

    async fn preset(&self, caller: &Caller, championship: &str) -> Result<Preset> {
        let rules = self
            .registration
            .clone()
            .get_championship_rules(caller.forward(reg::GetChampionshipRequest {
                id: championship.to_owned(),
            }))
            .await
            .map_err(upstream("championship"))?
            .into_inner();
        preset::parse(&rules.preset_toml)
            .map_err(|e| invalid("championship_id", format!("its preset does not load: {e}")))
    }

    /// The final ranking of an event code: (open ranking, complete), or `None` without an event.
    async fn open_ranking(
        &self,
        caller: &Caller,
        championship: &str,
        event: &str,
        sexes: &mut HashMap<String, Sex>,
    ) -> Result<Option<(Vec<IndividualRank>, bool)>> {
        let events = self
            .pairing
            .clone()
            .list_events(caller.forward(pairing::ListEventsRequest {
                championship_id: championship.to_owned(),
                event_code: event.to_owned(),
            }))
            .await
            .map_err(upstream("pairing"))?
            .into_inner()
            .events;
        let Some(first) = events.first() else {
            return Ok(None);
        };
        let ranking = self
            .pairing
            .clone()
            .get_final_ranking(caller.forward(pairing::GetStandingsRequest {
                event_id: first.id.clone(),
                group: String::new(),
                women: false,
            }))
            .await
            .map_err(upstream("pairing"))?
            .into_inner();
        let mut rows = Vec::with_capacity(ranking.entrants.len());
        for e in ranking.entrants {
            // Pairs (no sex of their own) are no team members.
            let Some(sex) = sex_of(&e.sex) else {
                continue;
            };
            sexes.insert(e.player_id.clone(), sex);
            rows.push(IndividualRank {
                player: e.player_id,
                place: e.place,
                sex,
            });
        }
        Ok(Some((rows, ranking.complete)))
    }

    /// Computes the standings now.
    async fn compute(
        &self,
        caller: &Caller,
        championship: &str,
        team_event: &str,
    ) -> Result<pb::TeamStandings> {
        let preset = self.preset(caller, championship).await?;
        let category = preset
            .teams
            .iter()
            .find(|t| t.event == team_event)
            .ok_or_else(|| {
                invalid(
                    "team_event",
                    format!("the preset has no team event {team_event:?}"),
                )
            })?
            .clone();
        // The counted rankings.
        let mut sexes: HashMap<String, Sex> = HashMap::new();
        let mut complete = true;
        let mut opens: BTreeMap<String, Vec<IndividualRank>> = BTreeMap::new();
        let mut rankings: Vec<(RankingRef, Vec<IndividualRank>)> = Vec::new();
        for component in &category.counted {
            let r = &component.ranking;
            if !opens.contains_key(&r.event) {
                let mut found = self
                    .open_ranking(caller, championship, &r.event, &mut sexes)
                    .await?;
                if found.is_none()
                    && let Some(open) = preset.women_ranked_in(&r.event)
                {
                    found = self
                        .open_ranking(caller, championship, open, &mut sexes)
                        .await?;
                }
                match found {
                    Some((rows, done)) => {
                        complete &= done;
                        opens.insert(r.event.clone(), rows);
                    }
                    None => {
                        complete = false;
                        opens.insert(r.event.clone(), Vec::new());
                    }
                }
            }
            let open = opens.get(&r.event).cloned().unwrap_or_default();
            let rows = if r.ranking == "open" {
                open
            } else {
                team::sex_ranking(&open, component.sex)
            };
            if !rankings.iter().any(|(x, _)| x == r) {
                rankings.push((r.clone(), rows));
            }
        }
        // Each player's team.
        let mut membership: HashMap<String, TeamMembership> = HashMap::new();
        if let Some(host) = category.host_city_team.as_deref()
            && category.grouping == TeamGrouping::Region
        {
            // The host city's roster (R-TEAM-2), registered like a city team.
            let teams = self
                .registration
                .clone()
                .list_city_teams(caller.forward(reg::ListCityTeamsRequest {
                    championship_id: championship.to_owned(),
                }))
                .await
                .map_err(upstream("registration"))?
                .into_inner()
                .teams;
            for t in teams.iter().filter(|t| t.city == host) {
                for m in t.members.iter().filter(|m| m.counted) {
                    membership.insert(m.player_id.clone(), TeamMembership::HostCity);
                }
            }
        }
        if category.grouping == TeamGrouping::Registered {
            let teams = self
                .registration
                .clone()
                .list_city_teams(caller.forward(reg::ListCityTeamsRequest {
                    championship_id: championship.to_owned(),
                }))
                .await
                .map_err(upstream("registration"))?
                .into_inner()
                .teams;
            for t in teams {
                for m in t.members.iter().filter(|m| m.counted) {
                    membership.insert(
                        m.player_id.clone(),
                        TeamMembership::Registered(t.city.clone()),
                    );
                }
            }
            let mut events: Vec<&str> = category
                .counted
                .iter()
                .map(|c| c.ranking.event.as_str())
                .collect();
            events.dedup();
            for event in events {
                // Approved direct entries carry their entering unit (youth); other events have none.
                let entries = self
                    .registration
                    .clone()
                    .list_final_entries(caller.forward(reg::PairsEventRef {
                        championship_id: championship.to_owned(),
                        event: event.to_owned(),
                    }))
                    .await;
                let entries = match entries {
                    Ok(e) => e.into_inner().entries,
                    Err(s) if s.code() == tonic::Code::PermissionDenied => Vec::new(),
                    Err(s) => return Err(upstream("registration")(s)),
                };
                for e in entries
                    .into_iter()
                    .filter(|e| e.status == reg::FinalEntryStatus::Approved as i32)
                {
                    membership
                        .entry(e.player_id)
                        .or_insert(TeamMembership::Registered(e.unit));
                }
            }
        }
        let mut candidates = Vec::with_capacity(sexes.len());
        let mut problems = Vec::new();
        for player in sexes.keys() {
            let p = self
                .registration
                .clone()
                .get_player(caller.forward(reg::GetPlayerRequest { id: player.clone() }))
                .await
                .map_err(upstream("registration"))?
                .into_inner();
            let Some(origin) = Origin::parse(&p.region_code, &p.nationality) else {
                problems.push(format!("{player}: no region or country on record"));
                continue;
            };
            candidates.push((player.clone(), origin, membership.get(player).cloned()));
        }
        let mut teams: BTreeMap<String, team::TeamKey> = BTreeMap::new();
        for (player, origin, m) in &candidates {
            match team::team_key_of_origin(&category, *origin, m.as_ref()) {
                Ok(Some(key)) => {
                    teams.insert(player.clone(), key);
                }
                Ok(None) => {}
                Err(e) => problems.push(format!("{player}: {e}")),
            }
        }
        let rows: Vec<MemberRank> = rankings
            .iter()
            .flat_map(|(r, ranks)| team::member_ranks(r, ranks, &teams))
            .collect();
        let table_places = preset
            .prizes
            .iter()
            .find(|p| p.event == team_event)
            .map_or(0, |p| p.places());
        let standings = team::team_standings(&category, &rows, table_places)?;
        let mut out = standings_pb(championship, team_event, &standings);
        // A registered team none of whose players has a place yet is listed as incomplete too.
        let listed: std::collections::BTreeSet<String> = out
            .ranked
            .iter()
            .map(|t| t.team.clone())
            .chain(out.unranked.iter().map(|t| t.team.clone()))
            .collect();
        let registered: std::collections::BTreeSet<String> = membership
            .values()
            .filter_map(|m| match m {
                TeamMembership::Registered(name) => {
                    Some(team::TeamKey::Registered(name.clone()).to_string())
                }
                TeamMembership::HostCity => None,
            })
            .collect();
        for t in registered.difference(&listed) {
            out.unranked.push(pb::IncompleteTeam {
                team: t.clone(),
                members: Vec::new(),
                missing: category.members_counted(),
            });
        }
        out.complete = complete;
        problems.sort();
        out.problems = problems;
        Ok(out)
    }

    async fn get_impl(&self, caller: Caller, r: pb::TeamEventRef) -> Result<pb::TeamStandings> {
        require(&caller, ANYONE)?;
        if r.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        let live = self
            .compute(&caller, &r.championship_id, &r.team_event)
            .await?;
        let stored = frozen::Entity::find_by_id((r.championship_id.clone(), r.team_event.clone()))
            .one(&self.db)
            .await?;
        let Some(f) = stored else {
            return Ok(live);
        };
        let mut frozen = pb::TeamStandings::decode(f.standings.as_slice())
            .map_err(|e| TeamRankingError::Corrupt(e.to_string()))?;
        frozen.live_differs = frozen.ranked != live.ranked || frozen.unranked != live.unranked;
        Ok(frozen)
    }

    /// An organizer's decision on the standings (freeze or override): checked, and computed from
    /// final rankings only.
    async fn final_standings(
        &self,
        caller: &Caller,
        r: &pb::FreezeRequest,
    ) -> Result<pb::TeamStandings> {
        require(caller, &[Role::Organizer])?;
        if r.reason.trim().is_empty() {
            return Err(invalid("reason", "is required: the decision is audited"));
        }
        let live = self
            .compute(caller, &r.championship_id, &r.team_event)
            .await?;
        if !live.complete {
            return Err(TeamRankingError::Precondition {
                kind: "RANKINGS_NOT_FINAL",
                message: "a counted ranking is not final yet".into(),
            });
        }
        Ok(live)
    }

    async fn freeze_impl(&self, caller: Caller, r: pb::FreezeRequest) -> Result<pb::TeamStandings> {
        let mut live = self.final_standings(&caller, &r).await?;
        let now = Utc::now();
        live.frozen = true;
        live.frozen_at = Some(prost_types::Timestamp {
            seconds: now.timestamp(),
            nanos: 0,
        });
        let inserted = frozen::Entity::insert(frozen::ActiveModel {
            championship_id: Set(r.championship_id.clone()),
            team_event: Set(r.team_event.clone()),
            standings: Set(live.encode_to_vec()),
            frozen_at: Set(now),
            frozen_by: Set(caller.subject.clone()),
            reason: Set(r.reason.trim().to_owned()),
        })
        .exec_without_returning(&self.db)
        .await;
        match inserted {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {
                return Err(TeamRankingError::AlreadyExists(
                    "the standings are frozen; a change needs an audited override".into(),
                ));
            }
            Err(e) => return Err(e.into()),
        }
        tracing::info!(championship = %r.championship_id, team_event = %r.team_event, by = %caller.subject, "team standings frozen");
        Ok(live)
    }

    async fn override_impl(
        &self,
        caller: Caller,
        r: pb::FreezeRequest,
    ) -> Result<pb::TeamStandings> {
        let mut live = self.final_standings(&caller, &r).await?;
        let txn = self.db.begin().await?;
        let Some(stored) =
            frozen::Entity::find_by_id((r.championship_id.clone(), r.team_event.clone()))
                .one(&txn)
                .await?
        else {
            return Err(TeamRankingError::Precondition {
                kind: "NOT_FROZEN",
                message: "the standings are not frozen: freeze them instead".into(),
            });
        };
        let previous = pb::TeamStandings::decode(stored.standings.as_slice())
            .map_err(|e| TeamRankingError::Corrupt(e.to_string()))?;
        let now = Utc::now();
        live.frozen = true;
        live.frozen_at = previous.frozen_at;
        live.overrides = previous.overrides + 1;
        overrides::Entity::insert(overrides::ActiveModel {
            championship_id: Set(r.championship_id.clone()),
            team_event: Set(r.team_event.clone()),
            previous: Set(stored.standings.clone()),
            overridden_at: Set(now),
            overridden_by: Set(caller.subject.clone()),
            reason: Set(r.reason.trim().to_owned()),
            ..Default::default()
        })
        .exec_without_returning(&txn)
        .await?;
        let mut row: frozen::ActiveModel = stored.into();
        row.standings = Set(live.encode_to_vec());
        row.update(&txn).await?;
        txn.commit().await?;
        tracing::info!(championship = %r.championship_id, team_event = %r.team_event, by = %caller.subject, reason = %r.reason.trim(), "frozen team standings overridden");
        Ok(live)
    }
}

#[tonic::async_trait]
impl TeamRankingService for TeamRankingApi {
    async fn get_team_standings(
        &self,
        request: Request<pb::TeamEventRef>,
    ) -> Reply<pb::TeamStandings> {
        let caller = auth::caller(&request)?;
        reply(self.get_impl(caller, request.into_inner()).await)
    }

    async fn freeze_team_standings(
        &self,
        request: Request<pb::FreezeRequest>,
    ) -> Reply<pb::TeamStandings> {
        let caller = auth::caller(&request)?;
        reply(self.freeze_impl(caller, request.into_inner()).await)
    }

    async fn override_team_standings(
        &self,
        request: Request<pb::FreezeRequest>,
    ) -> Reply<pb::TeamStandings> {
        let caller = auth::caller(&request)?;
        reply(self.override_impl(caller, request.into_inner()).await)
    }
}
