//! The gRPC shell of the awards service: it gathers the rankings over gRPC, asks [`crate::book`]
//! (and through it the core) for the award book, and stores approvals, the feed and the audit.

use chrono::{NaiveDate, Utc};
use prost::Message;
use qiwang_core::grade::KnockoutOutcome;
use qiwang_core::identity::mask_id_number;
use qiwang_core::preset::{self, Preset};
use qiwang_core::stage::StageKind;
use qiwang_infra::auth::{self, AuthInterceptor, Caller, Role, Verifier};
use qiwang_infra::db::is_unique_violation;
use qiwang_proto::awards::v1 as pb;
use qiwang_proto::awards::v1::awards_service_server::{AwardsService, AwardsServiceServer};
use qiwang_proto::pairing::v1 as pairing;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::qualification::v1 as qual;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as reg;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use qiwang_proto::teamranking::v1 as tr;
use qiwang_proto::teamranking::v1::team_ranking_service_client::TeamRankingServiceClient;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set, TransactionTrait,
};
use std::collections::{BTreeMap, HashMap};
use std::pin::Pin;
use tokio_stream::Stream;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Request, Response, Status};

use crate::book::{self, FinalRanking, Inputs, OnlineRow, TeamTable};
use crate::entity::{books, dan_holdings, decisions, deductions, feed};
use crate::error::{AwardsError, Result, invalid, precondition};

/// The services the awards are computed from.
#[derive(Clone)]
pub struct Upstream {
    pub registration: RegistrationServiceClient<Channel>,
    pub qualification: QualificationServiceClient<Channel>,
    pub pairing: PairingServiceClient<Channel>,
    pub team_ranking: TeamRankingServiceClient<Channel>,
}

/// The awards service.
#[derive(Clone)]
pub struct AwardsApi {
    db: DatabaseConnection,
    up: Upstream,
}

type Reply<T> = std::result::Result<Response<T>, Status>;
type ChangeStream =
    Pin<Box<dyn Stream<Item = std::result::Result<pb::CertificateChange, Status>> + Send>>;

fn reply<T>(r: Result<T>) -> Reply<T> {
    r.map(Response::new).map_err(Status::from)
}

fn require(caller: &Caller, roles: &[Role]) -> Result<()> {
    auth::require(caller, roles).map_err(|s| AwardsError::PermissionDenied(s.message().to_owned()))
}

fn upstream(context: &'static str) -> impl Fn(Status) -> AwardsError {
    move |status| AwardsError::Upstream { context, status }
}

fn required(field: &'static str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        Err(invalid(field, "is required"))
    } else {
        Ok(())
    }
}

fn timestamp(t: chrono::DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.timestamp(),
        nanos: 0,
    }
}

const ANYONE: &[Role] = &[
    Role::Organizer,
    Role::Referee,
    Role::Player,
    Role::Partner,
    Role::Federation,
];
const FEED: &[Role] = &[Role::Federation, Role::Organizer];

/// The most feed changes one pull returns.
const MAX_PULL: u32 = 10_000;

/// Cursors are opaque to clients: `f1.<sequence>`.
fn parse_cursor(cursor: &str) -> Result<i64> {
    if cursor.is_empty() {
        return Ok(0);
    }
    cursor
        .strip_prefix("f1.")
        .and_then(|n| n.parse::<i64>().ok())
        .filter(|n| *n >= 0)
        .ok_or_else(|| invalid("cursor", "is not a cursor this service gave out"))
}

fn cursor_of(seq: i64) -> String {
    format!("f1.{seq}")
}

/// The parts of a book an approval freezes (not its approval fields).
fn same_content(a: &pb::AwardBook, b: &pb::AwardBook) -> bool {
    a.prize_lists == b.prize_lists
        && a.totals == b.totals
        && a.certificates == b.certificates
        && a.dan_groups == b.dan_groups
}

impl AwardsApi {
    pub fn new(db: DatabaseConnection, up: Upstream) -> Self {
        AwardsApi { db, up }
    }

    /// The tonic service, with every call authenticated by `verifier`.
    pub fn into_server(
        self,
        verifier: Verifier,
    ) -> InterceptedService<AwardsServiceServer<Self>, AuthInterceptor> {
        AwardsServiceServer::with_interceptor(self, AuthInterceptor::new(verifier))
    }

    async fn preset(&self, caller: &Caller, championship: &str) -> Result<Preset> {
        required("championship_id", championship)?;
        let rules = self
            .up
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

    /// Everything the book reads, gathered over gRPC.
    async fn gather(&self, caller: &Caller, championship: &str, preset: &Preset) -> Result<Inputs> {
        let mut inputs = Inputs {
            championship: championship.to_owned(),
            ..Default::default()
        };
        // The final's sections: the first created of each event code.
        let sections = self
            .up
            .pairing
            .clone()
            .list_events(caller.forward(pairing::ListEventsRequest {
                championship_id: championship.to_owned(),
                event_code: String::new(),
            }))
            .await
            .map_err(upstream("pairing"))?
            .into_inner()
            .events;
        let mut first: BTreeMap<String, String> = BTreeMap::new();
        for s in sections {
            first.entry(s.event_code).or_insert(s.id);
        }
        for (code, id) in &first {
            let ranking = self
                .up
                .pairing
                .clone()
                .get_final_ranking(caller.forward(pairing::GetStandingsRequest {
                    event_id: id.clone(),
                    group: String::new(),
                    women: false,
                }))
                .await
                .map_err(upstream("pairing"))?
                .into_inner();
            let is_pairs = preset.event(code).is_some_and(|e| e.pairs.is_some());
            let started = if is_pairs {
                let event = self
                    .up
                    .pairing
                    .clone()
                    .get_event(caller.forward(pairing::GetEventRequest {
                        event_id: id.clone(),
                    }))
                    .await
                    .map_err(upstream("pairing"))?
                    .into_inner();
                u32::try_from(event.entrants.iter().filter(|e| e.first_round <= 1).count())
                    .unwrap_or(u32::MAX)
            } else {
                u32::try_from(ranking.entrants.len() + ranking.disqualified_player_ids.len())
                    .unwrap_or(u32::MAX)
            };
            if is_pairs {
                let pairs = self
                    .up
                    .registration
                    .clone()
                    .list_pairs(caller.forward(reg::PairsEventRef {
                        championship_id: championship.to_owned(),
                        event: code.clone(),
                    }))
                    .await
                    .map_err(upstream("registration"))?
                    .into_inner()
                    .pairs;
                for p in pairs {
                    inputs
                        .pairs
                        .insert(p.id, (p.first_player_id, p.second_player_id));
                }
            }
            inputs
                .rankings
                .insert(code.clone(), FinalRanking::from_pb(ranking, started));
        }
        // Team standings (frozen when frozen).
        for team in &preset.teams {
            let s = self
                .up
                .team_ranking
                .clone()
                .get_team_standings(caller.forward(tr::TeamEventRef {
                    championship_id: championship.to_owned(),
                    team_event: team.event.clone(),
                }))
                .await
                .map_err(upstream("team-ranking"))?
                .into_inner();
            if s.frozen && s.live_differs {
                inputs.problems.push(format!(
                    "{}: the frozen team standings differ from the results now; team-ranking needs an override",
                    team.event
                ));
            }
            inputs.teams.insert(
                team.event.clone(),
                TeamTable {
                    complete: s.complete,
                    places_awarded: s.places_awarded,
                    ranked: s
                        .ranked
                        .into_iter()
                        .map(|t| {
                            (
                                t.team,
                                t.place,
                                t.counted.into_iter().map(|m| m.player_id).collect(),
                            )
                        })
                        .collect(),
                },
            );
        }
        // Birth dates, for age-restricted tables.
        let aged: Vec<&str> = preset
            .prizes
            .iter()
            .filter(|t| t.eligible.min_age.is_some())
            .map(|t| t.event.as_str())
            .collect();
        let mut players: Vec<String> = aged
            .iter()
            .filter_map(|e| inputs.ranking_of(preset, e))
            .flat_map(|r| r.entrants.iter().map(|(_, id, _)| id.clone()))
            .collect();
        players.sort();
        players.dedup();
        for id in players {
            let p = self.player(caller, &id).await?;
            if let Ok(d) = NaiveDate::parse_from_str(&p.birth_date, "%Y-%m-%d") {
                inputs.birth_dates.insert(id, d);
            }
        }
        // Online stages with grades.
        for stage in preset.stages.iter().filter(|s| s.grades.is_some()) {
            match stage.kind {
                StageKind::Points => {
                    for period in &stage.periods {
                        let rows = self
                            .period_rows(caller, championship, &stage.code, period.number)
                            .await?;
                        inputs
                            .online
                            .insert((stage.code.clone(), period.number), rows);
                    }
                }
                StageKind::Knockout => {
                    let outcomes = self
                        .knockout_outcomes(caller, championship, &stage.code)
                        .await?;
                    inputs.knockouts.insert(stage.code.clone(), outcomes);
                }
                _ => {}
            }
        }
        // Dan holdings and deductions, from this service's own tables.
        if preset.dan_applications.is_some() {
            for h in dan_holdings::Entity::find()
                .filter(dan_holdings::Column::ChampionshipId.eq(championship))
                .all(&self.db)
                .await?
            {
                let dan = u8::try_from(h.amateur_dan)
                    .map_err(|_| AwardsError::Corrupt(format!("dan {}", h.amateur_dan)))?;
                inputs.holdings.insert(h.player_id, (dan, h.professional));
            }
        }
        inputs.deductions = deductions::Entity::find()
            .filter(deductions::Column::ChampionshipId.eq(championship))
            .order_by_asc(deductions::Column::DecidedAt)
            .order_by_asc(deductions::Column::Id)
            .all(&self.db)
            .await?
            .into_iter()
            .map(deduction_pb)
            .collect();
        Ok(inputs)
    }

    async fn player(&self, caller: &Caller, id: &str) -> Result<reg::Player> {
        Ok(self
            .up
            .registration
            .clone()
            .get_player(caller.forward(reg::GetPlayerRequest { id: id.to_owned() }))
            .await
            .map_err(upstream("registration"))?
            .into_inner())
    }

    /// Every row of a period's leaderboard (none when the period has no standings).
    async fn period_rows(
        &self,
        caller: &Caller,
        championship: &str,
        stage: &str,
        period: u32,
    ) -> Result<Vec<OnlineRow>> {
        let mut rows = Vec::new();
        loop {
            let page = self
                .up
                .qualification
                .clone()
                .get_leaderboard(caller.forward(qual::LeaderboardRequest {
                    period: Some(qual::PeriodRef {
                        championship_id: championship.to_owned(),
                        stage: stage.to_owned(),
                        period,
                    }),
                    page_size: 1000,
                    offset: u32::try_from(rows.len()).unwrap_or(u32::MAX),
                    viewer_player_id: String::new(),
                }))
                .await;
            let page = match page {
                Ok(p) => p.into_inner(),
                Err(s) if s.code() == Code::NotFound => break,
                Err(s) => return Err(upstream("qualification")(s)),
            };
            let n = page.rows.len();
            rows.extend(page.rows.into_iter().map(|r| OnlineRow {
                player: r.player_id,
                rank: r.rank,
                points: r.points,
                counted_games: r.counted_games,
                eliminated: r.eliminated,
            }));
            if n == 0 || rows.len() >= page.total as usize {
                break;
            }
        }
        Ok(rows)
    }

    /// Each player's exit from a knockout stage (R-GRD-1, R-GRD-2).
    async fn knockout_outcomes(
        &self,
        caller: &Caller,
        championship: &str,
        stage: &str,
    ) -> Result<BTreeMap<String, KnockoutOutcome>> {
        let mut out = BTreeMap::new();
        let mut round = 1u32;
        loop {
            let r = self
                .up
                .qualification
                .clone()
                .get_knockout_round(caller.forward(qual::KnockoutRoundRef {
                    championship_id: championship.to_owned(),
                    stage: stage.to_owned(),
                    round,
                }))
                .await;
            let r = match r {
                Ok(r) => r.into_inner(),
                Err(s) if matches!(s.code(), Code::NotFound | Code::FailedPrecondition) => break,
                Err(s) => return Err(upstream("qualification")(s)),
            };
            for s in &r.statuses {
                let outcome = qual::KnockoutOutcome::try_from(s.outcome)
                    .unwrap_or(qual::KnockoutOutcome::Unspecified);
                match outcome {
                    qual::KnockoutOutcome::Out => {
                        out.insert(s.player_id.clone(), KnockoutOutcome::OutInRound(round));
                    }
                    qual::KnockoutOutcome::Advanced if round == r.rounds => {
                        out.insert(s.player_id.clone(), KnockoutOutcome::WonLastRound);
                    }
                    _ => {}
                }
            }
            if round >= r.rounds || r.closed_at.is_none() {
                break;
            }
            round += 1;
        }
        Ok(out)
    }

    /// The book computed now.
    async fn live(&self, caller: &Caller, championship: &str) -> Result<pb::AwardBook> {
        let preset = self.preset(caller, championship).await?;
        let inputs = self.gather(caller, championship, &preset).await?;
        Ok(book::compute(&preset, &inputs)?)
    }

    async fn latest(&self, championship: &str) -> Result<Option<books::Model>> {
        Ok(books::Entity::find()
            .filter(books::Column::ChampionshipId.eq(championship))
            .order_by_desc(books::Column::Version)
            .one(&self.db)
            .await?)
    }

    async fn get_book_impl(&self, caller: Caller, r: pb::ChampionshipRef) -> Result<pb::AwardBook> {
        require(&caller, ANYONE)?;
        let live = self.live(&caller, &r.championship_id).await?;
        let Some(stored) = self.latest(&r.championship_id).await? else {
            return Ok(live);
        };
        let mut approved = pb::AwardBook::decode(stored.book.as_slice())
            .map_err(|e| AwardsError::Corrupt(e.to_string()))?;
        approved.live_differs = !same_content(&approved, &live);
        Ok(approved)
    }

    async fn record_deduction_impl(
        &self,
        caller: Caller,
        r: pb::RecordDeductionRequest,
    ) -> Result<pb::Deduction> {
        require(&caller, &[Role::Organizer])?;
        required("event", &r.event)?;
        required("ranking", &r.ranking)?;
        required("awardee", &r.awardee)?;
        required("reason", &r.reason)?;
        if r.yuan <= 0 {
            return Err(invalid("yuan", "must be more than 0"));
        }
        // The award must exist now, and the deduction must fit it (R-PRZ-2).
        let live = self.live(&caller, &r.championship_id).await?;
        let award = live
            .prize_lists
            .iter()
            .find(|l| l.event == r.event && l.ranking == r.ranking)
            .ok_or_else(|| invalid("ranking", "the preset has no such prize table"))?
            .awards
            .iter()
            .find(|a| a.awardee == r.awardee)
            .ok_or_else(|| invalid("awardee", "holds no award in that prize list"))?;
        if r.yuan > award.net_yuan {
            return Err(invalid(
                "yuan",
                format!(
                    "{} yuan is more than the {} yuan left of the award",
                    r.yuan, award.net_yuan
                ),
            ));
        }
        let now = Utc::now();
        let row = deductions::Model {
            id: format!("ded_{}", uuid::Uuid::now_v7().simple()),
            championship_id: r.championship_id.clone(),
            event: r.event.clone(),
            ranking: r.ranking.clone(),
            awardee: r.awardee.clone(),
            yuan: r.yuan,
            reason: r.reason.trim().to_owned(),
            decided_by: caller.subject.clone(),
            decided_at: now,
        };
        let txn = self.db.begin().await?;
        deductions::Entity::insert(deductions::ActiveModel::from(row.clone()).reset_all())
            .exec_without_returning(&txn)
            .await?;
        audit(
            &txn,
            &r.championship_id,
            "deduction",
            &caller,
            &row.reason,
            format!(
                "{} yuan from {} in {}/{}",
                r.yuan, r.awardee, r.event, r.ranking
            ),
        )
        .await?;
        txn.commit().await?;
        tracing::info!(championship = %r.championship_id, awardee = %r.awardee, yuan = r.yuan, by = %caller.subject, "deduction recorded");
        Ok(deduction_pb(row))
    }

    async fn record_dan_holding_impl(
        &self,
        caller: Caller,
        r: pb::RecordDanHoldingRequest,
    ) -> Result<pb::DanHolding> {
        require(&caller, &[Role::Organizer])?;
        required("player_id", &r.player_id)?;
        required("reason", &r.reason)?;
        if r.amateur_dan > u32::from(qiwang_core::dan::MAX_AMATEUR_DAN) {
            return Err(invalid("amateur_dan", "amateur dans go up to 8"));
        }
        let preset = self.preset(&caller, &r.championship_id).await?;
        if preset.dan_applications.is_none() {
            return Err(precondition(
                "NO_DAN_APPLICATIONS",
                format!("{} has no dan applications", preset.name),
            ));
        }
        // The player must exist (registration answers NOT_FOUND otherwise).
        self.player(&caller, &r.player_id).await?;
        let now = Utc::now();
        let row = dan_holdings::Model {
            championship_id: r.championship_id.clone(),
            player_id: r.player_id.clone(),
            amateur_dan: i32::try_from(r.amateur_dan).unwrap_or(i32::MAX),
            professional: r.professional,
            recorded_by: caller.subject.clone(),
            recorded_at: now,
        };
        let txn = self.db.begin().await?;
        dan_holdings::Entity::delete_by_id((r.championship_id.clone(), r.player_id.clone()))
            .exec(&txn)
            .await?;
        dan_holdings::Entity::insert(dan_holdings::ActiveModel::from(row.clone()).reset_all())
            .exec_without_returning(&txn)
            .await?;
        audit(
            &txn,
            &r.championship_id,
            "dan-holding",
            &caller,
            r.reason.trim(),
            format!(
                "{}: amateur {} dan{}",
                r.player_id,
                r.amateur_dan,
                if r.professional {
                    ", newly certified professional"
                } else {
                    ""
                }
            ),
        )
        .await?;
        txn.commit().await?;
        Ok(pb::DanHolding {
            championship_id: row.championship_id,
            player_id: row.player_id,
            amateur_dan: r.amateur_dan,
            professional: row.professional,
            recorded_by: row.recorded_by,
            recorded_at: Some(timestamp(now)),
        })
    }

    /// Approval (`override_reason = None`) or an override: stores the next version of the book
    /// and appends what changed to the feed, in one transaction.
    async fn decide(
        &self,
        caller: Caller,
        r: pb::ApproveAwardsRequest,
        is_override: bool,
    ) -> Result<pb::AwardBook> {
        require(&caller, &[Role::Organizer])?;
        required("reason", &r.reason)?;
        let reason = r.reason.trim().to_owned();
        let mut live = self.live(&caller, &r.championship_id).await?;
        if !live.complete {
            return Err(precondition(
                "RANKINGS_NOT_FINAL",
                format!(
                    "the award book reads rankings that are not final: {}",
                    live.problems.join("; ")
                ),
            ));
        }
        let previous = self.latest(&r.championship_id).await?;
        let (version, before) = match (&previous, is_override) {
            (Some(_), false) => {
                return Err(AwardsError::AlreadyExists(
                    "the awards are approved; a change needs an audited override".into(),
                ));
            }
            (None, true) => {
                return Err(precondition(
                    "NOT_APPROVED",
                    "the awards are not approved yet: approve them instead",
                ));
            }
            (None, false) => (1, None),
            (Some(p), true) => {
                let book = pb::AwardBook::decode(p.book.as_slice())
                    .map_err(|e| AwardsError::Corrupt(e.to_string()))?;
                (p.version + 1, Some(book))
            }
        };
        if let Some(b) = &before
            && same_content(b, &live)
        {
            return Err(precondition(
                "NOTHING_CHANGED",
                "the award book computed now is the approved one",
            ));
        }
        let now = Utc::now();
        live.approved = true;
        live.version = u32::try_from(version).unwrap_or(u32::MAX);
        live.approved_at = Some(timestamp(now));
        live.live_differs = false;

        // What the feed gets: every certificate at approval; at an override, what changed.
        let old: BTreeMap<&str, &pb::Certificate> = before
            .iter()
            .flat_map(|b| b.certificates.iter().map(|c| (c.key.as_str(), c)))
            .collect();
        let new: BTreeMap<&str, &pb::Certificate> = live
            .certificates
            .iter()
            .map(|c| (c.key.as_str(), c))
            .collect();
        let mut changes: Vec<(pb::ChangeKind, &pb::Certificate)> = Vec::new();
        for (key, c) in &new {
            match old.get(key) {
                None => changes.push((pb::ChangeKind::Issued, c)),
                Some(o) if o.content_hash != c.content_hash => {
                    changes.push((pb::ChangeKind::Updated, c));
                }
                Some(_) => {}
            }
        }
        for (key, c) in &old {
            if !new.contains_key(key) {
                changes.push((pb::ChangeKind::Revoked, c));
            }
        }
        // Identities as the federation may see them (the ID number masked).
        let mut identities: HashMap<String, pb::PlayerIdentity> = HashMap::new();
        for (_, c) in &changes {
            if identities.contains_key(&c.player_id) {
                continue;
            }
            let p = self.player(&caller, &c.player_id).await?;
            identities.insert(c.player_id.clone(), identity_pb(&p));
        }

        let txn = self.db.begin().await?;
        let inserted = books::Entity::insert(books::ActiveModel {
            championship_id: Set(r.championship_id.clone()),
            version: Set(version),
            book: Set(live.encode_to_vec()),
            decided_at: Set(now),
            decided_by: Set(caller.subject.clone()),
            reason: Set(reason.clone()),
        })
        .exec_without_returning(&txn)
        .await;
        match inserted {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {
                return Err(AwardsError::AlreadyExists(
                    "another organizer decided the awards at the same time; read them again".into(),
                ));
            }
            Err(e) => return Err(e.into()),
        }
        // Record versions so far, per key.
        let past = feed::Entity::find()
            .filter(feed::Column::ChampionshipId.eq(&r.championship_id))
            .order_by_asc(feed::Column::Seq)
            .all(&txn)
            .await?;
        let mut next_seq = past.last().map_or(0, |f| f.seq) + 1;
        let mut versions: HashMap<String, u32> = HashMap::new();
        for f in &past {
            let c = pb::CertificateChange::decode(f.change.as_slice())
                .map_err(|e| AwardsError::Corrupt(e.to_string()))?;
            versions.insert(f.certificate_key.clone(), c.record_version);
        }
        let (mut issued, mut updated, mut revoked) = (0, 0, 0);
        for (kind, c) in &changes {
            match kind {
                pb::ChangeKind::Issued => issued += 1,
                pb::ChangeKind::Updated => updated += 1,
                _ => revoked += 1,
            }
            let change = pb::CertificateChange {
                cursor: String::new(),
                kind: *kind as i32,
                record_version: versions.get(&c.key).map_or(1, |v| v + 1),
                certificate: Some((*c).clone()),
                player: identities.get(&c.player_id).cloned(),
                book_version: live.version,
                published_at: Some(timestamp(now)),
                reason: reason.clone(),
            };
            feed::Entity::insert(feed::ActiveModel {
                championship_id: Set(r.championship_id.clone()),
                seq: Set(next_seq),
                certificate_key: Set(c.key.clone()),
                change: Set(change.encode_to_vec()),
                published_at: Set(now),
            })
            .exec_without_returning(&txn)
            .await?;
            next_seq += 1;
        }
        let action = if is_override { "override" } else { "approve" };
        audit(
            &txn,
            &r.championship_id,
            action,
            &caller,
            &reason,
            format!(
                "award book version {version}: {} prize lists, {} certificates; feed: {issued} issued, {updated} updated, {revoked} revoked",
                live.prize_lists.len(),
                live.certificates.len()
            ),
        )
        .await?;
        txn.commit().await?;
        tracing::info!(championship = %r.championship_id, version, action, by = %caller.subject, issued, updated, revoked, "awards decided");
        Ok(live)
    }

    async fn list_decisions_impl(
        &self,
        caller: Caller,
        r: pb::ChampionshipRef,
    ) -> Result<pb::ListAwardDecisionsResponse> {
        require(&caller, &[Role::Organizer, Role::Referee])?;
        required("championship_id", &r.championship_id)?;
        let rows = decisions::Entity::find()
            .filter(decisions::Column::ChampionshipId.eq(&r.championship_id))
            .order_by_asc(decisions::Column::Id)
            .all(&self.db)
            .await?;
        Ok(pb::ListAwardDecisionsResponse {
            decisions: rows
                .into_iter()
                .map(|d| pb::AwardDecision {
                    seq: u64::try_from(d.id).unwrap_or(0),
                    championship_id: d.championship_id,
                    action: d.action,
                    decided_by: d.decided_by,
                    decided_at: Some(timestamp(d.decided_at)),
                    reason: d.reason,
                    detail: d.detail,
                })
                .collect(),
        })
    }

    async fn pull_impl(
        &self,
        caller: Caller,
        r: pb::PullCertificatesRequest,
    ) -> Result<Vec<pb::CertificateChange>> {
        require(&caller, FEED)?;
        required("championship_id", &r.championship_id)?;
        let after = parse_cursor(&r.cursor)?;
        let limit = match r.limit {
            0 => MAX_PULL,
            n if n <= MAX_PULL => n,
            _ => return Err(invalid("limit", format!("must be at most {MAX_PULL}"))),
        };
        let rows = feed::Entity::find()
            .filter(feed::Column::ChampionshipId.eq(&r.championship_id))
            .filter(feed::Column::Seq.gt(after))
            .order_by_asc(feed::Column::Seq)
            .limit(u64::from(limit))
            .all(&self.db)
            .await?;
        rows.into_iter()
            .map(|f| {
                let mut c = pb::CertificateChange::decode(f.change.as_slice())
                    .map_err(|e| AwardsError::Corrupt(e.to_string()))?;
                c.cursor = cursor_of(f.seq);
                Ok(c)
            })
            .collect()
    }

    async fn export_impl(
        &self,
        caller: Caller,
        r: pb::ExportCertificatesRequest,
    ) -> Result<pb::ExportFile> {
        require(&caller, FEED)?;
        required("championship_id", &r.championship_id)?;
        match pb::ExportFormat::try_from(r.format) {
            Ok(pb::ExportFormat::Csv) => {
                let changes = self.pull_all(&caller, &r.championship_id).await?;
                Ok(pb::ExportFile {
                    filename: format!("{}-certificates.csv", r.championship_id),
                    content_type: "text/csv; charset=utf-8".into(),
                    content: certificates_csv(&changes),
                })
            }
            Ok(pb::ExportFormat::H9) => {
                let preset = self.preset(&caller, &r.championship_id).await?;
                if preset.game != qiwang_core::preset::Game::Go {
                    return Err(invalid("format", "EGD h9 is a Go results format"));
                }
                let open = preset
                    .events
                    .iter()
                    .find(|e| {
                        e.sex == qiwang_core::preset::EventSex::Open
                            && e.online_qualifier
                            && e.pairs.is_none()
                    })
                    .ok_or_else(|| {
                        precondition("NO_OPEN_EVENT", "the preset has no open individual event")
                    })?;
                let sections = self
                    .up
                    .pairing
                    .clone()
                    .list_events(caller.forward(pairing::ListEventsRequest {
                        championship_id: r.championship_id.clone(),
                        event_code: open.code.clone(),
                    }))
                    .await
                    .map_err(upstream("pairing"))?
                    .into_inner()
                    .events;
                let section = sections.first().ok_or_else(|| {
                    precondition("NO_FINAL_SECTION", "the final has no open section yet")
                })?;
                let file = self
                    .up
                    .pairing
                    .clone()
                    .export_event(caller.forward(pairing::ExportEventRequest {
                        event_id: section.id.clone(),
                        group: r.group.clone(),
                        format: pairing::ExportFormat::H9 as i32,
                        women: false,
                    }))
                    .await
                    .map_err(upstream("pairing"))?
                    .into_inner();
                Ok(pb::ExportFile {
                    filename: file.file_name,
                    content_type: "text/plain; charset=utf-8".into(),
                    content: file.content,
                })
            }
            _ => Err(invalid("format", "is required: CSV or H9")),
        }
    }

    async fn pull_all(
        &self,
        caller: &Caller,
        championship: &str,
    ) -> Result<Vec<pb::CertificateChange>> {
        let mut all = Vec::new();
        loop {
            let page = self
                .pull_impl(
                    caller.clone(),
                    pb::PullCertificatesRequest {
                        championship_id: championship.to_owned(),
                        cursor: all
                            .last()
                            .map(|c: &pb::CertificateChange| c.cursor.clone())
                            .unwrap_or_default(),
                        limit: MAX_PULL,
                    },
                )
                .await?;
            let n = page.len();
            all.extend(page);
            if n < MAX_PULL as usize {
                return Ok(all);
            }
        }
    }
}

fn deduction_pb(d: deductions::Model) -> pb::Deduction {
    pb::Deduction {
        id: d.id,
        championship_id: d.championship_id,
        event: d.event,
        ranking: d.ranking,
        awardee: d.awardee,
        yuan: d.yuan,
        reason: d.reason,
        decided_by: d.decided_by,
        decided_at: Some(timestamp(d.decided_at)),
        not_applied: String::new(),
    }
}

fn identity_pb(p: &reg::Player) -> pb::PlayerIdentity {
    pb::PlayerIdentity {
        player_id: p.id.clone(),
        name: p.name.clone(),
        sex: match reg::Sex::try_from(p.sex) {
            Ok(reg::Sex::Male) => "male".into(),
            Ok(reg::Sex::Female) => "female".into(),
            _ => String::new(),
        },
        birth_date: p.birth_date.clone(),
        id_kind: p.id_kind.clone(),
        id_number_masked: if p.id_masked {
            p.id_number.clone()
        } else {
            mask_id_number(&p.id_number)
        },
        nationality: p.nationality.clone(),
        region_code: p.region_code.clone(),
    }
}

/// The certificates standing after every change, as CSV (RFC 4180), one row per certificate.
fn certificates_csv(changes: &[pb::CertificateChange]) -> String {
    let mut standing: BTreeMap<String, &pb::CertificateChange> = BTreeMap::new();
    for c in changes {
        let Some(cert) = &c.certificate else {
            continue;
        };
        if c.kind == pb::ChangeKind::Revoked as i32 {
            standing.remove(&cert.key);
        } else {
            standing.insert(cert.key.clone(), c);
        }
    }
    let field = |s: &str| {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_owned()
        }
    };
    let mut out = String::from(
        "certificate,record_version,player_id,name,sex,birth_date,id_kind,id_number_masked,nationality,region_code,game,event,stage,period,kind,grade_zh,grade_en,basis,result_date,content_hash\r\n",
    );
    for c in standing.values() {
        let Some(cert) = &c.certificate else {
            continue;
        };
        let who = c.player.clone().unwrap_or_default();
        let cells = [
            cert.key.clone(),
            c.record_version.to_string(),
            cert.player_id.clone(),
            who.name,
            who.sex,
            who.birth_date,
            who.id_kind,
            who.id_number_masked,
            who.nationality,
            who.region_code,
            cert.game.clone(),
            cert.event.clone(),
            cert.stage.clone(),
            cert.period.to_string(),
            cert.kind.clone(),
            cert.grade_zh.clone(),
            cert.grade_en.clone(),
            cert.basis.clone(),
            cert.result_date.clone(),
            cert.content_hash.clone(),
        ];
        out.push_str(&cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(","));
        out.push_str("\r\n");
    }
    out
}

async fn audit(
    txn: &sea_orm::DatabaseTransaction,
    championship: &str,
    action: &str,
    caller: &Caller,
    reason: &str,
    detail: String,
) -> Result<()> {
    use qiwang_infra::audit as chain;
    chain::lock_chain(txn, crate::AUDIT_CHAIN.name).await?;
    let prev_hash = chain::last_hash(txn, &crate::AUDIT_CHAIN).await?;
    let at = chain::chain_time(Utc::now());
    let hash = chain::entry_hash(
        &prev_hash,
        at,
        &[championship, action, &caller.subject, reason, &detail],
    );
    decisions::Entity::insert(decisions::ActiveModel {
        championship_id: Set(championship.to_owned()),
        action: Set(action.to_owned()),
        decided_by: Set(caller.subject.clone()),
        decided_at: Set(at),
        reason: Set(reason.to_owned()),
        detail: Set(detail),
        prev_hash: Set(prev_hash),
        hash: Set(hash),
        ..Default::default()
    })
    .exec_without_returning(txn)
    .await?;
    Ok(())
}

#[tonic::async_trait]
impl AwardsService for AwardsApi {
    async fn get_award_book(&self, request: Request<pb::ChampionshipRef>) -> Reply<pb::AwardBook> {
        let caller = auth::caller(&request)?;
        reply(self.get_book_impl(caller, request.into_inner()).await)
    }

    async fn record_deduction(
        &self,
        request: Request<pb::RecordDeductionRequest>,
    ) -> Reply<pb::Deduction> {
        let caller = auth::caller(&request)?;
        reply(
            self.record_deduction_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn record_dan_holding(
        &self,
        request: Request<pb::RecordDanHoldingRequest>,
    ) -> Reply<pb::DanHolding> {
        let caller = auth::caller(&request)?;
        reply(
            self.record_dan_holding_impl(caller, request.into_inner())
                .await,
        )
    }

    async fn approve_awards(
        &self,
        request: Request<pb::ApproveAwardsRequest>,
    ) -> Reply<pb::AwardBook> {
        let caller = auth::caller(&request)?;
        reply(self.decide(caller, request.into_inner(), false).await)
    }

    async fn override_awards(
        &self,
        request: Request<pb::ApproveAwardsRequest>,
    ) -> Reply<pb::AwardBook> {
        let caller = auth::caller(&request)?;
        reply(self.decide(caller, request.into_inner(), true).await)
    }

    async fn list_award_decisions(
        &self,
        request: Request<pb::ChampionshipRef>,
    ) -> Reply<pb::ListAwardDecisionsResponse> {
        let caller = auth::caller(&request)?;
        reply(self.list_decisions_impl(caller, request.into_inner()).await)
    }

    type PullCertificatesStream = ChangeStream;

    async fn pull_certificates(
        &self,
        request: Request<pb::PullCertificatesRequest>,
    ) -> Reply<Self::PullCertificatesStream> {
        let caller = auth::caller(&request)?;
        let changes = self
            .pull_impl(caller, request.into_inner())
            .await
            .map_err(Status::from)?;
        let stream: ChangeStream = Box::pin(tokio_stream::iter(changes.into_iter().map(Ok)));
        Ok(Response::new(stream))
    }

    async fn export_certificates(
        &self,
        request: Request<pb::ExportCertificatesRequest>,
    ) -> Reply<pb::ExportFile> {
        let caller = auth::caller(&request)?;
        reply(self.export_impl(caller, request.into_inner()).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_grd_6_cursors_round_trip_and_foreign_ones_are_refused() {
        assert_eq!(parse_cursor("").ok(), Some(0));
        assert_eq!(parse_cursor(&cursor_of(42)).ok(), Some(42));
        for bad in ["42", "f1.", "f1.-3", "f2.4", "f1.x"] {
            assert!(parse_cursor(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn r_grd_6_the_csv_lists_what_stands_after_revocations() {
        let change =
            |kind: pb::ChangeKind, key: &str, version: u32, name: &str| pb::CertificateChange {
                kind: kind as i32,
                record_version: version,
                certificate: Some(pb::Certificate {
                    key: key.into(),
                    player_id: format!("pl_{key}"),
                    grade_zh: "6段".into(),
                    ..Default::default()
                }),
                player: Some(pb::PlayerIdentity {
                    name: name.into(),
                    ..Default::default()
                }),
                ..Default::default()
            };
        let csv = certificates_csv(&[
            change(pb::ChangeKind::Issued, "a", 1, "张三"),
            change(pb::ChangeKind::Issued, "b", 1, "李, 四"),
            change(pb::ChangeKind::Revoked, "a", 2, "张三"),
        ]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 2, "{csv}");
        assert!(lines[1].starts_with("b,1,pl_b,\"李, 四\","), "{csv}");
    }
}
