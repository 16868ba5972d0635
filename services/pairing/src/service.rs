//! The gRPC shell of the pairing service: it authenticates, replays the event's log into a
//! `qiwang_swiss::event::FinalEvent`, asks it for the facts a request makes, and appends them.

use chrono::{DateTime, Utc};
use prost::Message;
use qiwang_core::preset;
use qiwang_core::stage::StageKind;
use qiwang_infra::auth::{self, AuthInterceptor, Caller, Role, Verifier};
use qiwang_infra::db::is_unique_violation;
use qiwang_proto::pairing::v1 as pb;
use qiwang_proto::pairing::v1::pairing_service_server::{PairingService, PairingServiceServer};
use qiwang_proto::registration::v1 as reg;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use qiwang_swiss::event::{Appeal, AppealStatus, Fact, FinalEvent, GameResult, PLACEMENT};
use qiwang_swiss::tiebreak::format_value;
use qiwang_swiss::trf::Sex;
use sea_orm::{
    ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, Set, TransactionTrait,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

use crate::convert::{self, appeal_pb, entrant_pb, result_pb, timestamp, unix_timestamp};
use crate::entity::{change, event};
use crate::error::{PairingError, Result, invalid};

/// Attempts of a write that loses the race for the next sequence number.
const WRITE_ATTEMPTS: usize = 32;

/// An event as of a sequence number of its log.
#[derive(Clone)]
struct Replayed {
    seq: i64,
    state: Arc<FinalEvent>,
    created: Arc<pb::EventCreated>,
}

/// The pairing service.
#[derive(Clone)]
pub struct PairingApi {
    db: DatabaseConnection,
    registration: RegistrationServiceClient<Channel>,
    /// Replayed events of this replica; always brought up to date from the log before use.
    events: Arc<Mutex<HashMap<String, Replayed>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn require(caller: &Caller, roles: &[Role]) -> Result<()> {
    auth::require(caller, roles).map_err(|s| PairingError::PermissionDenied(s.message().to_owned()))
}

type Reply<T> = std::result::Result<Response<T>, Status>;

fn reply<T>(r: Result<T>) -> Reply<T> {
    r.map(Response::new).map_err(Status::from)
}

const STAFF: &[Role] = &[Role::Organizer, Role::Referee];
const ANYONE: &[Role] = &[
    Role::Organizer,
    Role::Referee,
    Role::Player,
    Role::Partner,
    Role::Federation,
];

fn required(field: &'static str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        Err(invalid(field, "is required"))
    } else {
        Ok(())
    }
}

/// Appends one change to an event's log (fails on a taken sequence number).
async fn append<C: sea_orm::ConnectionTrait>(
    db: &C,
    event_id: &str,
    seq: i64,
    at: DateTime<Utc>,
    caller: &Caller,
    reason: &str,
    fact: &pb::Fact,
) -> std::result::Result<(), sea_orm::DbErr> {
    change::Entity::insert(change::ActiveModel {
        event_id: Set(event_id.to_owned()),
        seq: Set(seq),
        at: Set(at),
        actor: Set(caller.subject.clone()),
        role: Set(caller.role.as_str().to_owned()),
        reason: Set(reason.to_owned()),
        fact: Set(fact.encode_to_vec()),
    })
    .exec_without_returning(db)
    .await
    .map(|_| ())
}

impl PairingApi {
    pub fn new(db: DatabaseConnection, registration: RegistrationServiceClient<Channel>) -> Self {
        PairingApi {
            db,
            registration,
            events: Arc::default(),
        }
    }

    /// The tonic service, with every call authenticated by `verifier`.
    pub fn into_server(
        self,
        verifier: Verifier,
    ) -> InterceptedService<PairingServiceServer<Self>, AuthInterceptor> {
        PairingServiceServer::with_interceptor(self, AuthInterceptor::new(verifier))
    }

    /// The event as of the newest change in the database.
    async fn load(&self, event_id: &str) -> Result<Replayed> {
        required("event_id", event_id)?;
        let cached = lock(&self.events).get(event_id).cloned();
        let from = cached.as_ref().map_or(0, |c| c.seq);
        let rows = change::Entity::find()
            .filter(change::Column::EventId.eq(event_id))
            .filter(change::Column::Seq.gt(from))
            .order_by_asc(change::Column::Seq)
            .all(&self.db)
            .await?;
        if rows.is_empty() {
            return cached.ok_or_else(|| PairingError::NotFound(format!("event {event_id}")));
        }
        let corrupt = |seq: i64, why: String| PairingError::Corrupt(event_id.to_owned(), seq, why);
        let (mut state, mut created, mut seq) = match cached {
            Some(c) => (Some((*c.state).clone()), Some(c.created), c.seq),
            None => (None, None, 0),
        };
        for row in rows {
            if row.seq != seq + 1 {
                return Err(corrupt(row.seq, format!("expected change {}", seq + 1)));
            }
            let fact = pb::Fact::decode(row.fact.as_slice())
                .map_err(|e| corrupt(row.seq, e.to_string()))?;
            match (&mut state, fact.kind) {
                (None, Some(pb::fact::Kind::Created(c))) => {
                    let config =
                        convert::config(&c).map_err(|e| corrupt(row.seq, e.to_string()))?;
                    state =
                        Some(FinalEvent::new(config).map_err(|e| corrupt(row.seq, e.to_string()))?);
                    created = Some(Arc::new(c));
                }
                (Some(s), kind) => {
                    let core = convert::fact(s, &pb::Fact { kind }, row.at.timestamp())
                        .map_err(|e| corrupt(row.seq, e))?;
                    s.apply(&core)
                        .map_err(|e| corrupt(row.seq, e.to_string()))?;
                }
                (None, _) => {
                    return Err(corrupt(
                        row.seq,
                        "the log does not start with the event's creation".into(),
                    ));
                }
            }
            seq = row.seq;
        }
        let (Some(state), Some(created)) = (state, created) else {
            return Err(corrupt(seq, "no creation".into()));
        };
        let replayed = Replayed {
            seq,
            state: Arc::new(state),
            created,
        };
        let mut events = lock(&self.events);
        if events.get(event_id).is_none_or(|c| c.seq < seq) {
            events.insert(event_id.to_owned(), replayed.clone());
        }
        Ok(replayed)
    }

    /// Derives facts from the current state and appends them; retried when another writer
    /// appended first. `derive` returning no fact is an idempotent no-op.
    async fn write<F>(
        &self,
        caller: &Caller,
        event_id: &str,
        reason: &str,
        derive: F,
    ) -> Result<Replayed>
    where
        F: Fn(&FinalEvent, DateTime<Utc>) -> Result<Vec<Fact>>,
    {
        for _ in 0..WRITE_ATTEMPTS {
            let current = self.load(event_id).await?;
            let now = Utc::now();
            let facts = derive(&current.state, now)?;
            if facts.is_empty() {
                return Ok(current);
            }
            let mut next = (*current.state).clone();
            let mut stored = Vec::with_capacity(facts.len());
            for f in &facts {
                stored.push(convert::fact_pb(&next, f));
                next.apply(f)?;
            }
            let txn = self.db.begin().await?;
            let mut seq = current.seq;
            let mut conflict = false;
            for f in stored {
                seq += 1;
                match append(&txn, event_id, seq, now, caller, reason, &f).await {
                    Ok(_) => {}
                    Err(e) if is_unique_violation(&e) => {
                        conflict = true;
                        break;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            if conflict {
                txn.rollback().await?;
                continue;
            }
            match txn.commit().await {
                Ok(()) => {}
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
            tracing::info!(event_id, actor = %caller.subject, seq, reason, "event changed");
            let replayed = Replayed {
                seq,
                state: Arc::new(next),
                created: current.created,
            };
            let mut events = lock(&self.events);
            if events.get(event_id).is_none_or(|c| c.seq < seq) {
                events.insert(event_id.to_owned(), replayed.clone());
            }
            return Ok(replayed);
        }
        Err(PairingError::Contended(event_id.to_owned()))
    }

    /// The championship's preset, from the registration service.
    async fn preset(&self, caller: &Caller, championship: &str) -> Result<preset::Preset> {
        let rules = self
            .registration
            .clone()
            .get_championship_rules(caller.forward(reg::GetChampionshipRequest {
                id: championship.to_owned(),
            }))
            .await
            .map_err(|status| PairingError::Upstream {
                context: "championship",
                status,
            })?
            .into_inner();
        preset::parse(&rules.preset_toml)
            .map_err(|e| invalid("championship_id", format!("its preset does not load: {e}")))
    }

    /// A registered player, as the registration service has them.
    async fn player(&self, caller: &Caller, id: &str, field: &'static str) -> Result<reg::Player> {
        required(field, id)?;
        match self
            .registration
            .clone()
            .get_player(caller.forward(reg::GetPlayerRequest { id: id.to_owned() }))
            .await
        {
            Ok(p) => Ok(p.into_inner()),
            Err(s) if s.code() == tonic::Code::NotFound => {
                Err(invalid(field, format!("player {id} is not registered")))
            }
            Err(status) => Err(PairingError::Upstream {
                context: "registration",
                status,
            }),
        }
    }

    fn event_pb(&self, id: &str, r: &Replayed) -> pb::Event {
        let s = &r.state;
        let c = &r.created;
        let (first, second) = convert::colour_names(s.config.game);
        pb::Event {
            id: id.to_owned(),
            championship_id: c.championship_id.clone(),
            event_code: c.event_code.clone(),
            name: s.config.name.clone(),
            game: c.game.clone(),
            rounds: s.config.rounds,
            groups: s.config.groups.clone(),
            placement_pairs: s.config.placement_pairs.unwrap_or(0),
            tie_breaks: c.tie_breaks.clone(),
            first_mover: first,
            second_mover: second,
            appeal_minutes: s.config.appeal.map_or(0, |a| a.within_minutes),
            appeal_fee_yuan: s.config.appeal.map_or(0, |a| a.fee_yuan),
            entrants: s
                .entrants()
                .iter()
                .map(|e| pb::Entrant {
                    disqualified: s.is_disqualified(e.start_number),
                    ..entrant_pb(e)
                })
                .collect(),
            paired_rounds: s
                .config
                .group_codes()
                .iter()
                .map(|g| s.paired_rounds(g))
                .collect(),
            version: u64::try_from(r.seq).unwrap_or(0),
        }
    }

    fn round_pb(&self, id: &str, s: &FinalEvent, group: &str, number: u32) -> Result<pb::Round> {
        let round = s
            .round(group, number)
            .ok_or_else(|| PairingError::NotFound(format!("round {number} of group {group:?}")))?;
        // Scores before the round: the group's results through the previous round.
        let scores: HashMap<u32, String> = if group == PLACEMENT {
            HashMap::new()
        } else {
            s.standings_through(group, number - 1)?
                .rows
                .iter()
                .map(|r| (r.start_number, s.points_text(r.points)))
                .collect()
        };
        let who = |n: u32| {
            s.entrant(n)
                .map(|e| (e.player_id.clone(), e.name.clone()))
                .unwrap_or_default()
        };
        Ok(pb::Round {
            event_id: id.to_owned(),
            group: group.to_owned(),
            number,
            boards: round
                .boards
                .iter()
                .map(|b| {
                    let (fp, fname) = who(b.first);
                    let (sp, sname) = who(b.second);
                    pb::Board {
                        number: b.number,
                        first_start_number: b.first,
                        first_player_id: fp,
                        first_name: fname,
                        second_start_number: b.second,
                        second_player_id: sp,
                        second_name: sname,
                        result: result_pb(b.result).into(),
                        first_points: scores.get(&b.first).cloned().unwrap_or_default(),
                        second_points: scores.get(&b.second).cloned().unwrap_or_default(),
                    }
                })
                .collect(),
            bye_start_number: round.bye.unwrap_or(0),
            bye_player_id: round.bye.map(|n| who(n).0).unwrap_or_default(),
            paired_at: Some(unix_timestamp(round.paired_at)),
            completed_at: round.completed_at.map(unix_timestamp),
        })
    }

    fn entrant_of(s: &FinalEvent, player_id: &str) -> Result<u32> {
        required("player_id", player_id)?;
        s.entrant_by_player(player_id)
            .map(|e| e.start_number)
            .ok_or_else(|| invalid("player_id", format!("player {player_id} is not an entrant")))
    }

    async fn create_event(&self, caller: Caller, r: pb::CreateEventRequest) -> Result<pb::Event> {
        require(&caller, &[Role::Organizer])?;
        required("championship_id", &r.championship_id)?;
        required("event_code", &r.event_code)?;
        if r.entrants.is_empty() {
            return Err(invalid("entrants", "an event needs entrants"));
        }
        let preset = self.preset(&caller, &r.championship_id).await?;
        let ev = preset.event(&r.event_code).ok_or_else(|| {
            invalid(
                "event_code",
                format!("the preset has no event {:?}", r.event_code),
            )
        })?;
        let format = preset
            .stages
            .iter()
            .find(|s| s.kind == StageKind::Final)
            .and_then(|s| s.final_format.clone())
            .ok_or_else(|| invalid("championship_id", "the preset has no final format"))?;
        let rounds = match (format.rounds, r.rounds) {
            (None, 0) => qiwang_swiss::event::rounds_for_clear_winner(r.entrants.len()),
            (None, n) => n,
            (Some(p), 0) => p,
            (Some(p), n) if n == p || r.single_field => n,
            (Some(p), n) => {
                return Err(invalid(
                    "rounds",
                    format!(
                        "the preset plays {p} rounds, not {n} (set single_field for an event whose rounds are set by its entries)"
                    ),
                ));
            }
        };
        let name = if r.name.trim().is_empty() {
            ev.name_zh.clone()
        } else {
            r.name.trim().to_owned()
        };
        let game = convert::game_of_preset(preset.game);
        let created = convert::created(
            &r.championship_id,
            &r.event_code,
            &name,
            game,
            &format,
            rounds,
            r.single_field,
        );
        let mut state = FinalEvent::new(convert::config(&created)?)?;
        // Entrants: registered players, numbered in pairing order (rating, then the list's order).
        let mut specs: Vec<(usize, &pb::EntrantSpec)> = r.entrants.iter().enumerate().collect();
        specs.sort_by_key(|(i, e)| (std::cmp::Reverse(e.rating), *i));
        let mut facts = Vec::with_capacity(specs.len());
        let admission = self
            .admission(&caller, &preset, &r.championship_id, &r.event_code)
            .await?;
        for (_, spec) in specs {
            let who = self.who(&caller, &admission, spec).await?;
            let fact = Self::join_fact(&state, &who, spec)?;
            state.apply(&fact)?;
            facts.push(fact);
        }
        let id = format!("evt_{}", uuid::Uuid::now_v7().simple());
        let now = Utc::now();
        let txn = self.db.begin().await?;
        event::Entity::insert(event::ActiveModel {
            id: Set(id.clone()),
            championship_id: Set(r.championship_id.clone()),
            event_code: Set(r.event_code.clone()),
            name: Set(name.clone()),
            created_at: Set(now),
            created_by: Set(caller.subject.clone()),
        })
        .exec_without_returning(&txn)
        .await?;
        let mut stored = vec![pb::Fact {
            kind: Some(pb::fact::Kind::Created(created.clone())),
        }];
        let mut replay = FinalEvent::new(convert::config(&created)?)?;
        for f in &facts {
            stored.push(convert::fact_pb(&replay, f));
            replay.apply(f)?;
        }
        for (i, f) in stored.into_iter().enumerate() {
            append(&txn, &id, i as i64 + 1, now, &caller, &r.reason, &f).await?;
        }
        txn.commit().await?;
        tracing::info!(event_id = %id, entrants = r.entrants.len(), "final event created");
        let replayed = self.load(&id).await?;
        Ok(self.event_pb(&id, &replayed))
    }

    /// Who may enter an event of the final, from the registration service (loaded once per call).
    async fn admission(
        &self,
        caller: &Caller,
        preset: &qiwang_core::preset::Preset,
        championship: &str,
        event: &str,
    ) -> Result<Admission> {
        let ev = preset
            .event(event)
            .ok_or_else(|| invalid("event_code", format!("the preset has no event {event:?}")))?;
        let upstream = |status| PairingError::Upstream {
            context: "registration",
            status,
        };
        let reference = reg::PairsEventRef {
            championship_id: championship.to_owned(),
            event: event.to_owned(),
        };
        if ev.pairs.is_some() {
            let pairs = self
                .registration
                .clone()
                .list_pairs(caller.forward(reference))
                .await
                .map_err(upstream)?
                .into_inner()
                .pairs;
            return Ok(Admission::Pairs(
                pairs
                    .into_iter()
                    .filter(|p| p.status == reg::PairStatus::Admitted as i32)
                    .map(|p| (p.id.clone(), (p.first_player_id, p.second_player_id)))
                    .collect(),
            ));
        }
        if ev.requires_approval {
            let entries = self
                .registration
                .clone()
                .list_final_entries(caller.forward(reference))
                .await
                .map_err(upstream)?
                .into_inner()
                .entries;
            return Ok(Admission::Approved(
                entries
                    .into_iter()
                    .filter(|e| e.status == reg::FinalEntryStatus::Approved as i32)
                    .map(|e| e.player_id)
                    .collect(),
            ));
        }
        Ok(Admission::Listed)
    }

    /// The entrant an entry names: a registered player, or an admitted pair.
    async fn who(
        &self,
        caller: &Caller,
        admission: &Admission,
        spec: &pb::EntrantSpec,
    ) -> Result<Who> {
        let federation = |p: &reg::Player| {
            if p.region_name.is_empty() {
                p.nationality.clone()
            } else {
                p.region_name.clone()
            }
        };
        let sex = |p: &reg::Player| match reg::Sex::try_from(p.sex) {
            Ok(reg::Sex::Male) => Some(Sex::Male),
            Ok(reg::Sex::Female) => Some(Sex::Female),
            _ => None,
        };
        match admission {
            Admission::Pairs(pairs) => {
                required("entrants.pair_id", &spec.pair_id)?;
                let (a, b) = pairs.get(&spec.pair_id).ok_or_else(|| {
                    invalid(
                        "entrants.pair_id",
                        format!(
                            "pair {} is not an admitted pair of this event",
                            spec.pair_id
                        ),
                    )
                })?;
                let a = self.player(caller, a, "entrants.pair_id").await?;
                let b = self.player(caller, b, "entrants.pair_id").await?;
                Ok(Who {
                    id: spec.pair_id.clone(),
                    name: format!("{} / {}", a.name, b.name),
                    sex: sex(&a).filter(|s| Some(*s) == sex(&b)),
                    federation: federation(&a),
                })
            }
            Admission::Approved(approved) if !approved.contains(&spec.player_id) => Err(invalid(
                "entrants.player_id",
                format!(
                    "player {} has no approved entry in this event",
                    spec.player_id
                ),
            )),
            Admission::Approved(_) | Admission::Listed => {
                if !spec.pair_id.is_empty() {
                    return Err(invalid("entrants.pair_id", "this is not a pairs event"));
                }
                let p = self
                    .player(caller, &spec.player_id, "entrants.player_id")
                    .await?;
                Ok(Who {
                    id: p.id.clone(),
                    name: p.name.clone(),
                    sex: sex(&p),
                    federation: federation(&p),
                })
            }
        }
    }

    fn join_fact(state: &FinalEvent, who: &Who, spec: &pb::EntrantSpec) -> Result<Fact> {
        let rating = u16::try_from(spec.rating)
            .map_err(|_| invalid("entrants.rating", "must be at most 65535"))?;
        Ok(state.join(
            &who.id,
            &who.name,
            who.sex,
            (rating > 0).then_some(rating),
            &who.federation,
            &spec.group,
        )?)
    }
}

/// Who may enter an event, as the registration service says.
enum Admission {
    /// Any registered player the organizers list (individual events fed by qualification).
    Listed,
    /// Players with an approved direct entry (youth, seniors).
    Approved(std::collections::HashSet<String>),
    /// Admitted pairs: id → partners.
    Pairs(HashMap<String, (String, String)>),
}

/// An entrant's identity: a player, or a pair ("A / B").
struct Who {
    id: String,
    name: String,
    sex: Option<Sex>,
    federation: String,
}

#[tonic::async_trait]
impl PairingService for PairingApi {
    async fn create_event(&self, request: Request<pb::CreateEventRequest>) -> Reply<pb::Event> {
        let caller = auth::caller(&request)?;
        reply(self.create_event(caller, request.into_inner()).await)
    }

    async fn get_event(&self, request: Request<pb::GetEventRequest>) -> Reply<pb::Event> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                let e = self.load(&r.event_id).await?;
                Ok(self.event_pb(&r.event_id, &e))
            }
            .await,
        )
    }

    async fn list_events(
        &self,
        request: Request<pb::ListEventsRequest>,
    ) -> Reply<pb::ListEventsResponse> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                required("championship_id", &r.championship_id)?;
                let mut query = event::Entity::find()
                    .filter(event::Column::ChampionshipId.eq(&r.championship_id))
                    .order_by_asc(event::Column::CreatedAt)
                    .order_by_asc(event::Column::Id);
                if !r.event_code.is_empty() {
                    query = query.filter(event::Column::EventCode.eq(&r.event_code));
                }
                Ok(pb::ListEventsResponse {
                    events: query
                        .all(&self.db)
                        .await?
                        .into_iter()
                        .map(|e| pb::EventSummary {
                            id: e.id,
                            championship_id: e.championship_id,
                            event_code: e.event_code,
                            name: e.name,
                        })
                        .collect(),
                })
            }
            .await,
        )
    }

    async fn get_final_ranking(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Reply<pb::FinalRanking> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                let e = self.load(&r.event_id).await?;
                let s = &e.state;
                let (places, complete) = s.final_places()?;
                let mut entrants = Vec::with_capacity(places.len());
                let mut last_open = None;
                for (place, start) in places {
                    let Some(x) = s.entrant(start) else {
                        continue;
                    };
                    if r.women && x.sex != Some(Sex::Female) {
                        continue;
                    }
                    // The women's ranking renumbers places among women; a shared place stays shared.
                    let shown = if !r.women {
                        place
                    } else {
                        match (last_open, entrants.last()) {
                            (Some(p), Some(prev)) if p == place => {
                                let prev: &pb::RankedEntrant = prev;
                                prev.place
                            }
                            _ => entrants.len() as u32 + 1,
                        }
                    };
                    last_open = Some(place);
                    entrants.push(pb::RankedEntrant {
                        place: shown,
                        start_number: start,
                        player_id: x.player_id.clone(),
                        name: x.name.clone(),
                        sex: convert::sex_code(x.sex).to_owned(),
                        group: x.group.clone(),
                    });
                }
                Ok(pb::FinalRanking {
                    event_id: r.event_id.clone(),
                    women: r.women,
                    complete,
                    entrants,
                    disqualified_player_ids: s
                        .disqualified()
                        .filter_map(|n| s.entrant(n))
                        .map(|x| x.player_id.clone())
                        .collect(),
                })
            }
            .await,
        )
    }

    async fn add_late_entrant(
        &self,
        request: Request<pb::AddLateEntrantRequest>,
    ) -> Reply<pb::Event> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, STAFF)?;
                required("reason", &r.reason)?;
                let spec = r.entrant.ok_or_else(|| invalid("entrant", "is required"))?;
                let current = self.load(&r.event_id).await?;
                let championship = current.created.championship_id.clone();
                let preset = self.preset(&caller, &championship).await?;
                let admission = self
                    .admission(&caller, &preset, &championship, &current.created.event_code)
                    .await?;
                let p = self.who(&caller, &admission, &spec).await?;
                let e = self
                    .write(&caller, &r.event_id, &r.reason, |s, _| {
                        Ok(vec![Self::join_fact(s, &p, &spec)?])
                    })
                    .await?;
                Ok(self.event_pb(&r.event_id, &e))
            }
            .await,
        )
    }

    async fn withdraw_entrant(
        &self,
        request: Request<pb::WithdrawEntrantRequest>,
    ) -> Reply<pb::Event> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, STAFF)?;
                required("reason", &r.reason)?;
                let e = self
                    .write(&caller, &r.event_id, &r.reason, |s, _| {
                        let n = Self::entrant_of(s, &r.player_id)?;
                        Ok(vec![s.withdraw(n)?])
                    })
                    .await?;
                Ok(self.event_pb(&r.event_id, &e))
            }
            .await,
        )
    }

    async fn disqualify_entrant(
        &self,
        request: Request<pb::WithdrawEntrantRequest>,
    ) -> Reply<pb::Event> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, &[Role::Organizer])?;
                required("reason", &r.reason)?;
                let e = self
                    .write(&caller, &r.event_id, &r.reason, |s, _| {
                        Ok(vec![Fact::Disqualified {
                            start_number: Self::entrant_of(s, &r.player_id)?,
                        }])
                    })
                    .await?;
                tracing::info!(event = %r.event_id, player = %r.player_id, by = %caller.subject, "entrant disqualified");
                Ok(self.event_pb(&r.event_id, &e))
            }
            .await,
        )
    }

    async fn request_bye(&self, request: Request<pb::RequestByeRequest>) -> Reply<pb::Event> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, STAFF)?;
                let kind = convert::bye_kind(r.kind)?;
                if r.round == 0 {
                    return Err(invalid("round", "is required"));
                }
                let e = self
                    .write(&caller, &r.event_id, &r.reason, |s, _| {
                        Ok(vec![Fact::ByeRequested {
                            start_number: Self::entrant_of(s, &r.player_id)?,
                            round: r.round,
                            kind,
                        }])
                    })
                    .await?;
                Ok(self.event_pb(&r.event_id, &e))
            }
            .await,
        )
    }

    async fn pair_round(&self, request: Request<pb::PairRoundRequest>) -> Reply<pb::Round> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, STAFF)?;
                let e = self
                    .write(&caller, &r.event_id, "pairing", |s, now| {
                        Ok(vec![s.pair_next(&r.group, now.timestamp())?])
                    })
                    .await?;
                let number = e
                    .state
                    .rounds()
                    .iter()
                    .filter(|x| x.group == r.group)
                    .map(|x| x.number)
                    .max()
                    .unwrap_or(0);
                self.round_pb(&r.event_id, &e.state, &r.group, number)
            }
            .await,
        )
    }

    async fn get_round(&self, request: Request<pb::GetRoundRequest>) -> Reply<pb::Round> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                let e = self.load(&r.event_id).await?;
                self.round_pb(&r.event_id, &e.state, &r.group, r.round)
            }
            .await,
        )
    }

    async fn record_result(&self, request: Request<pb::RecordResultRequest>) -> Reply<pb::Round> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, STAFF)?;
                let result = convert::result(r.result, "result")?;
                let e = self
                    .write(&caller, &r.event_id, &r.reason, |s, now| {
                        let round = s.round(&r.group, r.round).ok_or_else(|| {
                            PairingError::NotFound(format!(
                                "round {} of group {:?}",
                                r.round, r.group
                            ))
                        })?;
                        let board = round
                            .boards
                            .iter()
                            .find(|b| b.number == r.board)
                            .ok_or_else(|| PairingError::NotFound(format!("board {}", r.board)))?;
                        if board.result == result {
                            return Ok(Vec::new());
                        }
                        if board.result != GameResult::Pending && r.reason.trim().is_empty() {
                            return Err(invalid(
                                "reason",
                                "a correction of a recorded result needs a reason",
                            ));
                        }
                        Ok(vec![Fact::ResultRecorded {
                            group: r.group.clone(),
                            round: r.round,
                            board: r.board,
                            result,
                            at: now.timestamp(),
                        }])
                    })
                    .await?;
                self.round_pb(&r.event_id, &e.state, &r.group, r.round)
            }
            .await,
        )
    }

    async fn get_standings(
        &self,
        request: Request<pb::GetStandingsRequest>,
    ) -> Reply<pb::Standings> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                let e = self.load(&r.event_id).await?;
                let s = &e.state;
                let standings = if r.women {
                    s.women_standings(&r.group)?
                } else {
                    s.standings(&r.group)?
                };
                Ok(pb::Standings {
                    event_id: r.event_id.clone(),
                    group: r.group.clone(),
                    women: r.women,
                    after_round: s.completed_rounds(&r.group),
                    tie_breaks: standings.order.iter().map(|t| t.code()).collect(),
                    rows: standings
                        .rows
                        .iter()
                        .map(|row| {
                            let entrant = s.entrant(row.start_number);
                            pb::StandingRow {
                                place: row.place,
                                start_number: row.start_number,
                                player_id: entrant.map(|x| x.player_id.clone()).unwrap_or_default(),
                                name: entrant.map(|x| x.name.clone()).unwrap_or_default(),
                                points: s.points_text(row.points),
                                tie_break_values: standings
                                    .order
                                    .iter()
                                    .zip(&row.values)
                                    .map(|(t, v)| format_value(*t, *v))
                                    .collect(),
                                federation: entrant
                                    .map(|x| x.federation.clone())
                                    .unwrap_or_default(),
                                sex: convert::sex_code(entrant.and_then(|x| x.sex)).to_owned(),
                            }
                        })
                        .collect(),
                })
            }
            .await,
        )
    }

    async fn file_appeal(&self, request: Request<pb::FileAppealRequest>) -> Reply<pb::Appeal> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, &[Role::Player, Role::Organizer])?;
                if caller.role == Role::Player && caller.subject != r.player_id {
                    return Err(PairingError::PermissionDenied(
                        "a player may only appeal for themself".into(),
                    ));
                }
                let id = format!("apl_{}", uuid::Uuid::now_v7().simple());
                let e = self
                    .write(&caller, &r.event_id, &r.text, |s, now| {
                        let fee = s.config.appeal.map_or(0, |a| a.fee_yuan);
                        Ok(vec![Fact::AppealFiled(Appeal {
                            id: id.clone(),
                            group: r.group.clone(),
                            round: r.round,
                            board: r.board,
                            appellant: Self::entrant_of(s, &r.player_id)?,
                            filed_at: now.timestamp(),
                            text: r.text.clone(),
                            fee_yuan: fee,
                            status: AppealStatus::Pending,
                            decision: String::new(),
                            decided_at: None,
                            refund_yuan: 0,
                        })])
                    })
                    .await?;
                let a = e
                    .state
                    .appeals()
                    .iter()
                    .find(|a| a.id == id)
                    .ok_or_else(|| PairingError::NotFound(format!("appeal {id}")))?;
                Ok(appeal_pb(&r.event_id, &e.state, a))
            }
            .await,
        )
    }

    async fn decide_appeal(&self, request: Request<pb::DecideAppealRequest>) -> Reply<pb::Appeal> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, &[Role::Organizer])?;
                let corrected = if r.corrected_result == pb::GameResult::Unspecified as i32 {
                    None
                } else {
                    Some(convert::result(r.corrected_result, "corrected_result")?)
                };
                required("appeal_id", &r.appeal_id)?;
                let e = self
                    .write(&caller, &r.event_id, &r.decision, |_, now| {
                        Ok(vec![Fact::AppealDecided {
                            id: r.appeal_id.clone(),
                            upheld: r.upheld,
                            decision: r.decision.clone(),
                            corrected,
                            at: now.timestamp(),
                        }])
                    })
                    .await?;
                let a = e
                    .state
                    .appeals()
                    .iter()
                    .find(|a| a.id == r.appeal_id)
                    .ok_or_else(|| PairingError::NotFound(format!("appeal {}", r.appeal_id)))?;
                Ok(appeal_pb(&r.event_id, &e.state, a))
            }
            .await,
        )
    }

    async fn list_appeals(
        &self,
        request: Request<pb::ListAppealsRequest>,
    ) -> Reply<pb::ListAppealsResponse> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                let e = self.load(&r.event_id).await?;
                Ok(pb::ListAppealsResponse {
                    appeals: e
                        .state
                        .appeals()
                        .iter()
                        .map(|a| appeal_pb(&r.event_id, &e.state, a))
                        .collect(),
                })
            }
            .await,
        )
    }

    async fn export_event(
        &self,
        request: Request<pb::ExportEventRequest>,
    ) -> Reply<pb::ExportEventResponse> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, ANYONE)?;
                let e = self.load(&r.event_id).await?;
                let s = &e.state;
                let stem = if r.group.is_empty() {
                    r.event_id.clone()
                } else {
                    format!("{}-{}", r.event_id, r.group)
                };
                let (content, file_name) = match pb::ExportFormat::try_from(r.format) {
                    Ok(pb::ExportFormat::Trf) => {
                        let trf = s.to_trf(&r.group)?;
                        let text = qiwang_swiss::trf::write(&trf).map_err(|e| {
                            invalid("event_id", format!("does not fit a TRF file: {e}"))
                        })?;
                        (text, format!("{stem}.trf"))
                    }
                    Ok(pb::ExportFormat::Csv) => {
                        (s.to_csv(&r.group, r.women)?, format!("{stem}.csv"))
                    }
                    Ok(pb::ExportFormat::H9) => {
                        if s.config.game != qiwang_swiss::colour::Game::Go {
                            return Err(invalid("format", "EGD h9 is for Go events"));
                        }
                        (s.to_h9(&r.group)?, format!("{stem}.h9"))
                    }
                    _ => return Err(invalid("format", "must be EXPORT_FORMAT_TRF, _CSV or _H9")),
                };
                Ok(pb::ExportEventResponse { content, file_name })
            }
            .await,
        )
    }

    async fn list_changes(
        &self,
        request: Request<pb::ListChangesRequest>,
    ) -> Reply<pb::ListChangesResponse> {
        let caller = auth::caller(&request)?;
        let r = request.into_inner();
        reply(
            async {
                require(&caller, STAFF)?;
                required("event_id", &r.event_id)?;
                let rows = change::Entity::find()
                    .filter(change::Column::EventId.eq(&r.event_id))
                    .order_by_asc(change::Column::Seq)
                    .all(&self.db)
                    .await?;
                if rows.is_empty() {
                    return Err(PairingError::NotFound(format!("event {}", r.event_id)));
                }
                let changes = rows
                    .into_iter()
                    .map(|row| {
                        let fact = pb::Fact::decode(row.fact.as_slice()).map_err(|e| {
                            PairingError::Corrupt(r.event_id.clone(), row.seq, e.to_string())
                        })?;
                        Ok(pb::Change {
                            seq: u64::try_from(row.seq).unwrap_or(0),
                            at: Some(timestamp(row.at)),
                            actor: row.actor,
                            role: row.role,
                            reason: row.reason,
                            fact: Some(fact),
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(pb::ListChangesResponse { changes })
            }
            .await,
        )
    }
}
