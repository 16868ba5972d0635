//! Pairs events of the final (双人赛, R-PAIR-1..3, R-REG-10): the shell around `qiwang_core::pairs`
//! and `qiwang_core::lottery`.
//!
//! Readings:
//! - How far each partner got (online, 入围, final) comes from the qualification service's
//!   `GetReach`, asked with the caller's token at registration and again at the draw (a finalist
//!   pair is judged when the draw is made).
//! - Registration order is the order of `registered_at`, then the pair id (UUIDv7, time-ordered).
//! - Parent-child pairs are drawn only once an organizer verified the relation against the family's
//!   document; the draw waits while one is pending, and a rejected relation drops the pair.
//! - The seed is published before the draw and never changes; the draw freezes the ordered
//!   candidates (pairs other than finalist pairs, in registration order). The lottery's order is
//!   continued past the places as a reserve list: a pair withdrawing after the draw is replaced by
//!   the first reserve pair still registered.

use chrono::NaiveDate;
use qiwang_core::lottery;
use qiwang_core::pairs::{
    self, PairKind, PairsRules, PairsSelection, Partner, Reach, RegisteredPair, Relation,
};
use qiwang_core::stage::StageKind;
use qiwang_proto::qualification::v1 as q;
use std::collections::HashMap;

use super::*;
use crate::entity::pair::{draw, member, registered};
use crate::error::precondition;

const REGISTERED: &str = "REGISTERED";
const WITHDRAWN: &str = "WITHDRAWN";
const ADMITTED: &str = "ADMITTED";
const NOT_ADMITTED: &str = "NOT_ADMITTED";
const NOT_STARTED: &str = "NOT_STARTED";
const REJECTED: &str = "REJECTED";

fn relation_code(r: Option<Relation>) -> &'static str {
    match r {
        Some(Relation::ParentChild) => "parent-child",
        Some(Relation::GrandparentGrandchild) => "grandparent-grandchild",
        None => "",
    }
}

fn relation_pb(code: &str) -> pb::PairRelation {
    match code {
        "parent-child" => pb::PairRelation::ParentChild,
        "grandparent-grandchild" => pb::PairRelation::GrandparentGrandchild,
        _ => pb::PairRelation::Unspecified,
    }
}

fn pair_pb(p: &registered::Model) -> pb::Pair {
    pb::Pair {
        id: p.id.clone(),
        championship_id: p.championship_id.clone(),
        event: p.event.clone(),
        first_player_id: p.first_player.clone(),
        second_player_id: p.second_player.clone(),
        relation: relation_pb(&p.relation).into(),
        relation_document: p.relation_document.clone(),
        relation_check: match p.relation_check.as_str() {
            "PENDING" => pb::RelationCheck::Pending,
            "VERIFIED" => pb::RelationCheck::Verified,
            "REJECTED" => pb::RelationCheck::Rejected,
            _ => pb::RelationCheck::NotNeeded,
        }
        .into(),
        status: match p.status.as_str() {
            REGISTERED => pb::PairStatus::Registered,
            WITHDRAWN => pb::PairStatus::Withdrawn,
            ADMITTED => pb::PairStatus::Admitted,
            NOT_ADMITTED => pb::PairStatus::NotAdmitted,
            NOT_STARTED => pb::PairStatus::NotStarted,
            REJECTED => pb::PairStatus::Rejected,
            _ => pb::PairStatus::Unspecified,
        }
        .into(),
        status_reason: p.status_reason.clone(),
        registered_at: Some(timestamp(p.registered_at)),
    }
}

/// The stored outcome of a draw: one `key=value` line per field, ids comma-separated.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Outcome {
    started: bool,
    registered: u32,
    places: u32,
    by_priority: Vec<String>,
    by_lottery: Vec<String>,
    reserve: Vec<String>,
}

impl Outcome {
    fn encode(&self) -> String {
        format!(
            "started={}\nregistered={}\nplaces={}\npriority={}\nlottery={}\nreserve={}\n",
            self.started,
            self.registered,
            self.places,
            self.by_priority.join(","),
            self.by_lottery.join(","),
            self.reserve.join(",")
        )
    }

    fn decode(text: &str) -> Outcome {
        let mut o = Outcome::default();
        let list = |v: &str| -> Vec<String> {
            v.split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        };
        for line in text.lines() {
            let Some((k, v)) = line.split_once('=') else {
                continue;
            };
            match k {
                "started" => o.started = v == "true",
                "registered" => o.registered = v.parse().unwrap_or(0),
                "places" => o.places = v.parse().unwrap_or(0),
                "priority" => o.by_priority = list(v),
                "lottery" => o.by_lottery = list(v),
                "reserve" => o.reserve = list(v),
                _ => {}
            }
        }
        o
    }
}

fn draw_pb(
    d: Option<&draw::Model>,
    championship: &str,
    event: &str,
    rules: &PairsRules,
) -> pb::PairsDraw {
    let mut out = pb::PairsDraw {
        championship_id: championship.to_owned(),
        event: event.to_owned(),
        minimum: u32::try_from(rules.min_pairs).unwrap_or(u32::MAX),
        maximum: u32::try_from(rules.max_pairs).unwrap_or(u32::MAX),
        ..Default::default()
    };
    if let Some(d) = d {
        out.seed = d.seed.clone();
        out.seed_published_at = Some(timestamp(d.seed_published_at));
        out.candidates = d
            .candidates
            .as_deref()
            .map(|c| {
                c.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(o) = d.outcome.as_deref().map(Outcome::decode) {
            out.drawn = true;
            out.started = o.started;
            out.registered = o.registered;
            out.places = o.places;
            out.by_priority = o.by_priority;
            out.by_lottery = o.by_lottery;
            out.reserve = o.reserve;
        }
        out.drawn_at = d.drawn_at.map(timestamp);
    }
    out
}

fn reach_of(r: i32) -> Reach {
    match q::Reach::try_from(r) {
        Ok(q::Reach::Final) => Reach::Finalist,
        Ok(q::Reach::Ruwei) => Reach::Ruwei,
        Ok(q::Reach::Online) => Reach::PlayedOnline,
        _ => Reach::None,
    }
}

impl RegistrationApi {
    /// A pairs event's rules and the final's first day (ages are taken on it).
    fn pairs_rules<'p>(preset: &'p Preset, event: &str) -> Result<(&'p PairsRules, NaiveDate)> {
        let ev = preset.event(event).ok_or_else(|| {
            invalid(
                "event",
                format!("{event:?} is not an event of this championship"),
            )
        })?;
        let rules = ev
            .pairs
            .as_ref()
            .ok_or_else(|| invalid("event", format!("{event:?} is not a pairs event")))?;
        let starts = preset
            .stages
            .iter()
            .find(|s| s.kind == StageKind::Final)
            .and_then(|s| s.starts_on)
            .ok_or_else(|| {
                precondition(
                    "NO_FINAL_DATE",
                    event,
                    "the preset gives no first day of the final",
                )
            })?;
        Ok((rules, starts))
    }

    /// How far each player got, from the qualification service (with the caller's token).
    async fn reach(
        &self,
        caller: &Caller,
        championship: &str,
        players: &[String],
    ) -> Result<HashMap<String, Reach>> {
        let Some(client) = self.qualification.clone() else {
            return Err(precondition(
                "QUALIFICATION_UNAVAILABLE",
                championship,
                "the qualification service is not configured (services.qualification)",
            ));
        };
        let mut client = client;
        let response = client
            .get_reach(caller.forward(q::GetReachRequest {
                championship_id: championship.to_owned(),
                player_ids: players.to_vec(),
            }))
            .await
            .map_err(|status| RegistrationError::Upstream {
                context: "qualification",
                status,
            })?
            .into_inner();
        Ok(response
            .players
            .into_iter()
            .map(|p| (p.player_id, reach_of(p.reach)))
            .collect())
    }

    /// A partner: an unknown id is a field error, anything else passes on.
    async fn registered_player(&self, id: &str, field: &'static str) -> Result<player::Model> {
        match self.player(id).await {
            Err(RegistrationError::NotFound(_)) => {
                Err(invalid(field, format!("player {id} is not registered")))
            }
            other => other,
        }
    }

    async fn pairs_of(&self, championship: &str, event: &str) -> Result<Vec<registered::Model>> {
        Ok(registered::Entity::find()
            .filter(registered::Column::ChampionshipId.eq(championship))
            .filter(registered::Column::Event.eq(event))
            .order_by_asc(registered::Column::RegisteredAt)
            .order_by_asc(registered::Column::Id)
            .all(&self.db)
            .await?)
    }

    async fn pair_row(&self, id: &str) -> Result<registered::Model> {
        registered::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await?
            .ok_or_else(|| RegistrationError::NotFound(format!("pair {id}")))
    }

    async fn draw_row(&self, championship: &str, event: &str) -> Result<Option<draw::Model>> {
        Ok(
            draw::Entity::find_by_id((championship.to_owned(), event.to_owned()))
                .one(&self.db)
                .await?,
        )
    }

    pub(super) async fn register_pair_impl(
        &self,
        caller: Caller,
        req: pb::RegisterPairRequest,
    ) -> Result<pb::Pair> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        if caller.is(Role::Player)
            && !caller.is_player(&req.first_player_id)
            && !caller.is_player(&req.second_player_id)
        {
            return Err(RegistrationError::PermissionDenied(
                "a player may register only a pair they are in".into(),
            ));
        }
        let (champ, preset) = self.championship(&req.championship_id).await?;
        let (rules, final_starts) = Self::pairs_rules(&preset, &req.event)?;
        if self
            .draw_row(&champ.id, &req.event)
            .await?
            .is_some_and(|d| d.outcome.is_some())
        {
            return Err(precondition(
                "PAIRS_DRAWN",
                &req.event,
                "the pairs are already drawn",
            ));
        }
        let relation = match pb::PairRelation::try_from(req.relation) {
            Ok(pb::PairRelation::ParentChild) => Some(Relation::ParentChild),
            Ok(pb::PairRelation::GrandparentGrandchild) => Some(Relation::GrandparentGrandchild),
            _ => None,
        };
        let parent_child = rules.kind == PairKind::ParentChild;
        if !parent_child && relation.is_some() {
            return Err(invalid(
                "relation",
                "only parent-child pairs declare a relation",
            ));
        }
        if parent_child && req.relation_document.trim().is_empty() {
            return Err(invalid(
                "relation_document",
                "a parent-child pair uploads a document proving the relation",
            ));
        }
        let first = self
            .registered_player(&req.first_player_id, "first_player_id")
            .await?;
        let second = self
            .registered_player(&req.second_player_id, "second_player_id")
            .await?;
        let reach = self
            .reach(&caller, &champ.id, &[first.id.clone(), second.id.clone()])
            .await?;
        let partner = |p: &player::Model| -> Result<Partner> {
            Ok(Partner {
                player: p.id.clone(),
                sex: sex_from_code(&p.sex).ok_or_else(|| {
                    RegistrationError::NotFound(format!("sex of player {}", p.id))
                })?,
                birth_date: p.birth_date,
                reach: reach.get(&p.id).copied().unwrap_or(Reach::None),
            })
        };
        let (a, b) = (partner(&first)?, partner(&second)?);
        let members: Vec<String> = member::Entity::find()
            .filter(member::Column::ChampionshipId.eq(&champ.id))
            .filter(member::Column::Event.eq(&req.event))
            .filter(member::Column::PlayerId.is_in([first.id.clone(), second.id.clone()]))
            .all(&self.db)
            .await?
            .into_iter()
            .map(|m| m.player_id)
            .collect();
        let now = self.now();
        pairs::check_pair(
            rules,
            &a,
            &b,
            relation,
            &|p| members.iter().any(|m| m == p),
            now,
            final_starts,
        )?;
        let row = registered::Model {
            id: new_id("pr"),
            championship_id: champ.id.clone(),
            event: req.event.clone(),
            first_player: first.id.clone(),
            second_player: second.id.clone(),
            relation: relation_code(relation).to_owned(),
            relation_document: req.relation_document.trim().to_owned(),
            relation_check: if parent_child {
                "PENDING"
            } else {
                "NOT_NEEDED"
            }
            .to_owned(),
            status: REGISTERED.to_owned(),
            status_reason: String::new(),
            registered_at: now,
            registered_by: caller.subject.clone(),
        };
        let txn = self.db.begin().await?;
        for p in [&first.id, &second.id] {
            let inserted = member::Entity::insert(member::ActiveModel {
                championship_id: Set(champ.id.clone()),
                event: Set(req.event.clone()),
                player_id: Set(p.clone()),
                pair_id: Set(row.id.clone()),
            })
            .exec_without_returning(&txn)
            .await;
            if let Err(e) = inserted {
                return Err(if is_unique_violation(&e) {
                    RegistrationError::Pair(pairs::PairRefusal::AlreadyPaired(p.clone()))
                } else {
                    e.into()
                });
            }
        }
        registered::Entity::insert(registered::ActiveModel::from(row.clone()))
            .exec_without_returning(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            "pair.register",
            &row.id,
            format!("{} {} {} + {}", champ.id, req.event, first.id, second.id),
        )
        .await?;
        txn.commit().await?;
        tracing::info!(pair = %row.id, event = %req.event, "pair registered");
        Ok(pair_pb(&row))
    }

    pub(super) async fn withdraw_pair_impl(
        &self,
        caller: Caller,
        req: pb::WithdrawPairRequest,
    ) -> Result<pb::Pair> {
        require(&caller, &[Role::Organizer, Role::Player])?;
        let row = self.pair_row(&req.pair_id).await?;
        if caller.is(Role::Player)
            && !caller.is_player(&row.first_player)
            && !caller.is_player(&row.second_player)
        {
            return Err(RegistrationError::PermissionDenied(
                "a player may withdraw only their own pair".into(),
            ));
        }
        if req.reason.trim().is_empty() {
            return Err(invalid("reason", "is required"));
        }
        if !matches!(row.status.as_str(), REGISTERED | ADMITTED) {
            return Err(precondition(
                "PAIR_NOT_ACTIVE",
                &row.id,
                format!("the pair is {}", row.status.to_lowercase()),
            ));
        }
        let drawn = self.draw_row(&row.championship_id, &row.event).await?;
        let outcome = drawn
            .as_ref()
            .and_then(|d| d.outcome.as_deref())
            .map(Outcome::decode);
        let pairs = self.pairs_of(&row.championship_id, &row.event).await?;
        let txn = self.db.begin().await?;
        let mut updated = row.clone();
        updated.status = WITHDRAWN.to_owned();
        updated.status_reason = req.reason.trim().to_owned();
        registered::Entity::update(registered::ActiveModel::from(updated.clone()).reset_all())
            .exec(&txn)
            .await?;
        member::Entity::delete_many()
            .filter(member::Column::ChampionshipId.eq(&row.championship_id))
            .filter(member::Column::Event.eq(&row.event))
            .filter(member::Column::PairId.eq(&row.id))
            .exec(&txn)
            .await?;
        let mut replacement = None;
        if row.status == ADMITTED
            && let Some(o) = outcome.filter(|o| o.started)
        {
            let by_id: HashMap<&str, &registered::Model> =
                pairs.iter().map(|p| (p.id.as_str(), p)).collect();
            if let Some(next) = o
                .reserve
                .iter()
                .filter_map(|id| by_id.get(id.as_str()))
                .find(|p| p.status == NOT_ADMITTED)
            {
                let mut next = (*next).clone();
                next.status = ADMITTED.to_owned();
                next.status_reason =
                    format!("replaces pair {} (reserve order of the lottery)", row.id);
                registered::Entity::update(registered::ActiveModel::from(next.clone()).reset_all())
                    .exec(&txn)
                    .await?;
                replacement = Some(next.id);
            }
        }
        audit(
            &txn,
            &caller,
            "pair.withdraw",
            &row.id,
            format!(
                "{}; replaced by {}",
                req.reason.trim(),
                replacement.as_deref().unwrap_or("nobody")
            ),
        )
        .await?;
        txn.commit().await?;
        Ok(pair_pb(&updated))
    }

    pub(super) async fn verify_pair_relation_impl(
        &self,
        caller: Caller,
        req: pb::VerifyPairRelationRequest,
    ) -> Result<pb::Pair> {
        require(&caller, &[Role::Organizer])?;
        if req.reason.trim().is_empty() {
            return Err(invalid("reason", "is required"));
        }
        let mut row = self.pair_row(&req.pair_id).await?;
        if row.relation_check != "PENDING" {
            return Err(precondition(
                "RELATION_NOT_PENDING",
                &row.id,
                format!(
                    "the relation check is {}",
                    row.relation_check.to_lowercase()
                ),
            ));
        }
        let txn = self.db.begin().await?;
        if req.verified {
            row.relation_check = "VERIFIED".into();
        } else {
            row.relation_check = "REJECTED".into();
            row.status = REJECTED.into();
            row.status_reason = req.reason.trim().to_owned();
            member::Entity::delete_many()
                .filter(member::Column::PairId.eq(&row.id))
                .exec(&txn)
                .await?;
        }
        registered::Entity::update(registered::ActiveModel::from(row.clone()).reset_all())
            .exec(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            if req.verified {
                "pair.relation.verify"
            } else {
                "pair.relation.reject"
            },
            &row.id,
            req.reason.trim().to_owned(),
        )
        .await?;
        txn.commit().await?;
        Ok(pair_pb(&row))
    }

    pub(super) async fn list_pairs_impl(
        &self,
        caller: Caller,
        req: pb::PairsEventRef,
    ) -> Result<pb::ListPairsResponse> {
        require(
            &caller,
            &[
                Role::Organizer,
                Role::Referee,
                Role::Player,
                Role::Partner,
                Role::Federation,
            ],
        )?;
        let (_, preset) = self.championship(&req.championship_id).await?;
        Self::pairs_rules(&preset, &req.event)?;
        Ok(pb::ListPairsResponse {
            pairs: self
                .pairs_of(&req.championship_id, &req.event)
                .await?
                .iter()
                .map(pair_pb)
                .collect(),
        })
    }

    pub(super) async fn publish_pairs_seed_impl(
        &self,
        caller: Caller,
        req: pb::PublishPairsSeedRequest,
    ) -> Result<pb::PairsDraw> {
        require(&caller, &[Role::Organizer])?;
        let (champ, preset) = self.championship(&req.championship_id).await?;
        let (rules, _) = Self::pairs_rules(&preset, &req.event)?;
        if req.seed.trim().is_empty() {
            return Err(invalid("seed", "must not be empty"));
        }
        let row = draw::Model {
            championship_id: champ.id.clone(),
            event: req.event.clone(),
            seed: req.seed.clone(),
            seed_published_at: self.now(),
            candidates: None,
            outcome: None,
            drawn_at: None,
        };
        let txn = self.db.begin().await?;
        if let Err(e) = draw::Entity::insert(draw::ActiveModel::from(row.clone()))
            .exec_without_returning(&txn)
            .await
        {
            return Err(if is_unique_violation(&e) {
                RegistrationError::AlreadyExists(
                    "the seed is published and can never change (R-PAIR-3)".into(),
                )
            } else {
                e.into()
            });
        }
        audit(
            &txn,
            &caller,
            "pairs.seed",
            &req.event,
            format!("{} {:?}", champ.id, req.seed),
        )
        .await?;
        txn.commit().await?;
        Ok(draw_pb(Some(&row), &champ.id, &req.event, rules))
    }

    pub(super) async fn draw_pairs_impl(
        &self,
        caller: Caller,
        req: pb::PairsEventRef,
    ) -> Result<pb::PairsDraw> {
        require(&caller, &[Role::Organizer])?;
        let (champ, preset) = self.championship(&req.championship_id).await?;
        let (rules, _) = Self::pairs_rules(&preset, &req.event)?;
        let today = qiwang_core::time::china_date(self.now());
        if today <= rules.closes_on {
            return Err(precondition(
                "PAIRS_WINDOW_OPEN",
                &req.event,
                format!(
                    "the draw follows the window, which closes on {}",
                    rules.closes_on
                ),
            ));
        }
        let mut d = self.draw_row(&champ.id, &req.event).await?.ok_or_else(|| {
            precondition(
                "NO_SEED",
                &req.event,
                "publish the lottery seed before the draw (R-PAIR-3)",
            )
        })?;
        if d.outcome.is_some() {
            return Err(precondition(
                "PAIRS_DRAWN",
                &req.event,
                "the pairs are already drawn",
            ));
        }
        let pairs: Vec<registered::Model> = self
            .pairs_of(&champ.id, &req.event)
            .await?
            .into_iter()
            .filter(|p| p.status == REGISTERED)
            .collect();
        if let Some(p) = pairs.iter().find(|p| p.relation_check == "PENDING") {
            return Err(precondition(
                "RELATION_PENDING",
                &p.id,
                format!("pair {}'s relation is not verified yet", p.id),
            ));
        }
        let players: Vec<String> = pairs
            .iter()
            .flat_map(|p| [p.first_player.clone(), p.second_player.clone()])
            .collect();
        let reach = self.reach(&caller, &champ.id, &players).await?;
        let finalist = |id: &str| reach.get(id) == Some(&Reach::Finalist);
        let ordered: Vec<RegisteredPair> = pairs
            .iter()
            .map(|p| RegisteredPair {
                pair: p.id.clone(),
                finalist_pair: finalist(&p.first_player) && finalist(&p.second_player),
            })
            .collect();
        let candidates: Vec<String> = ordered
            .iter()
            .filter(|p| !p.finalist_pair)
            .map(|p| p.pair.clone())
            .collect();
        let selection = pairs::select_pairs(rules, &ordered, &d.seed)
            .map_err(|e| invalid("seed", e.to_string()))?;
        let now = self.now();
        let mut outcome = Outcome {
            registered: u32::try_from(pairs.len()).unwrap_or(u32::MAX),
            ..Outcome::default()
        };
        let mut status: HashMap<String, (&str, String)> = HashMap::new();
        match &selection {
            PairsSelection::NotStarted {
                registered,
                minimum,
            } => {
                for p in &pairs {
                    status.insert(
                        p.id.clone(),
                        (
                            NOT_STARTED,
                            format!("{registered} pairs registered, the event needs {minimum}"),
                        ),
                    );
                }
            }
            PairsSelection::Started {
                by_priority,
                by_lottery,
                not_admitted,
            } => {
                outcome.started = true;
                outcome.places =
                    u32::try_from(rules.max_pairs.saturating_sub(by_priority.len())).unwrap_or(0);
                outcome.by_priority = by_priority.clone();
                outcome.by_lottery = by_lottery.clone();
                // The lottery's order continued: the reserve list for replacements.
                let full = if candidates.is_empty() {
                    Vec::new()
                } else {
                    lottery::draw(&d.seed, &candidates, candidates.len())
                        .map_err(|e| invalid("seed", e.to_string()))?
                };
                outcome.reserve = full
                    .into_iter()
                    .filter(|id| not_admitted.contains(id))
                    .collect();
                for (i, id) in by_priority.iter().enumerate() {
                    status.insert(
                        id.clone(),
                        (
                            ADMITTED,
                            format!("finalist pair, {} in registration order", i + 1),
                        ),
                    );
                }
                for (i, id) in by_lottery.iter().enumerate() {
                    status.insert(id.clone(), (ADMITTED, format!("drawn by lot, {}", i + 1)));
                }
                for (i, id) in outcome.reserve.iter().enumerate() {
                    status.insert(
                        id.clone(),
                        (NOT_ADMITTED, format!("reserve {} of the lottery", i + 1)),
                    );
                }
            }
        }
        let txn = self.db.begin().await?;
        for p in &pairs {
            if let Some((s, why)) = status.get(&p.id) {
                let mut row = p.clone();
                row.status = (*s).to_owned();
                row.status_reason = why.clone();
                registered::Entity::update(registered::ActiveModel::from(row).reset_all())
                    .exec(&txn)
                    .await?;
            }
        }
        d.candidates = Some(candidates.join(","));
        d.outcome = Some(outcome.encode());
        d.drawn_at = Some(now);
        draw::Entity::update(draw::ActiveModel::from(d.clone()).reset_all())
            .exec(&txn)
            .await?;
        audit(
            &txn,
            &caller,
            "pairs.draw",
            &req.event,
            format!("{} started={} seed={:?}", champ.id, outcome.started, d.seed),
        )
        .await?;
        txn.commit().await?;
        tracing::info!(championship = %champ.id, event = %req.event, started = outcome.started, "pairs drawn");
        Ok(draw_pb(Some(&d), &champ.id, &req.event, rules))
    }

    pub(super) async fn get_pairs_draw_impl(
        &self,
        caller: Caller,
        req: pb::PairsEventRef,
    ) -> Result<pb::PairsDraw> {
        require(
            &caller,
            &[
                Role::Organizer,
                Role::Referee,
                Role::Player,
                Role::Partner,
                Role::Federation,
            ],
        )?;
        let (champ, preset) = self.championship(&req.championship_id).await?;
        let (rules, _) = Self::pairs_rules(&preset, &req.event)?;
        let d = self.draw_row(&champ.id, &req.event).await?;
        Ok(draw_pb(d.as_ref(), &champ.id, &req.event, rules))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_pair_3_a_stored_outcome_reads_back() {
        let o = Outcome {
            started: true,
            registered: 40,
            places: 30,
            by_priority: vec!["pr_a".into(), "pr_b".into()],
            by_lottery: vec!["pr_c".into()],
            reserve: Vec::new(),
        };
        assert_eq!(Outcome::decode(&o.encode()), o);
    }
}
