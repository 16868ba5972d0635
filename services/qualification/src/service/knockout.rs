//! Direct seeds (直接晋级) and online knockout stages (淘汰赛, R-ADV-3, R-ADV-6): the shell around
//! `qiwang_core::knockout` and `qiwang_core::lottery`.
//!
//! A round goes: seed published (never changed afterwards) → drawn (the ordered entrants are
//! shuffled by the published seed, [`pair_knockout_round`]; anyone can re-run it) → played (the
//! platform reports room entries and games of the drawn pairs) → closed (no-shows out, unmatched
//! players in the room advance; every game must be finished). Round 1's entrants are the players
//! the feeding stages' frozen lists advanced into the stage plus its direct seeds; round n's are
//! round n−1's advancers. Closing the last round freezes the stage's list into the advancement table
//! (period 0 = the whole stage) towards the stage's `advance.to`.
//!
//! Reading: qiwang draws every round (the rules' "随机匹配", done verifiably), and the platform seats
//! the drawn pairs; a regular game between players who were not drawn together is refused.

use std::collections::{BTreeSet, HashSet};

use qiwang_core::knockout::{
    Advanced, GameKind, GameResult, KnockoutConfig, KnockoutGame, Out, Pending, RoomEntry,
    RoundReport, RoundState, RoundStatus, round_state,
};
use qiwang_core::lottery::{ALGORITHM_VERSION, pair_knockout_round};
use qiwang_core::stage::StageKind;
use sea_orm::ActiveModelTrait;

use super::*;
use crate::entity::{knockout_event, knockout_round, seed};

/// (championship, stage, round).
pub(super) type RoundKey = (String, String, u32);

fn lines(s: Option<&str>) -> Vec<String> {
    s.unwrap_or("")
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn pairs_of(s: Option<&str>) -> Vec<(String, String)> {
    lines(s)
        .into_iter()
        .filter_map(|l| {
            l.split_once('\t')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
        })
        .collect()
}

fn round_ref(key: &RoundKey) -> pb::KnockoutRoundRef {
    pb::KnockoutRoundRef {
        championship_id: key.0.clone(),
        stage: key.1.clone(),
        round: key.2,
    }
}

fn round_key(r: Option<&pb::KnockoutRoundRef>) -> Result<RoundKey> {
    let r = r.ok_or_else(|| invalid("round", "is required"))?;
    if r.championship_id.is_empty() {
        return Err(invalid("round.championship_id", "is required"));
    }
    if r.stage.is_empty() {
        return Err(invalid("round.stage", "is required"));
    }
    if r.round == 0 {
        return Err(invalid("round.round", "must be >= 1"));
    }
    Ok((r.championship_id.clone(), r.stage.clone(), r.round))
}

fn knockout_config<'p>(
    preset: &'p Preset,
    key: &RoundKey,
) -> Result<(&'p Stage, &'p KnockoutConfig)> {
    let stage = preset.stage(&key.1).ok_or_else(|| {
        invalid(
            "round.stage",
            format!("{:?} is not a stage of this championship", key.1),
        )
    })?;
    let config = stage
        .knockout
        .as_ref()
        .filter(|_| stage.kind == StageKind::Knockout)
        .ok_or_else(|| {
            invalid(
                "round.stage",
                format!("{} is not a knockout stage", stage.code),
            )
        })?;
    if key.2 > config.rounds {
        return Err(invalid(
            "round.round",
            format!("{} has {} rounds", stage.code, config.rounds),
        ));
    }
    Ok((stage, config))
}

fn result_of(code: i32) -> Result<Option<GameResult>> {
    use pb::KnockoutResult as R;
    Ok(match R::try_from(code) {
        Ok(R::Unspecified) => None,
        Ok(R::FirstWins) => Some(GameResult::FirstMoverWon),
        Ok(R::SecondWins) => Some(GameResult::SecondMoverWon),
        Ok(R::Draw) => Some(GameResult::Draw),
        Ok(R::FirstEscaped) => Some(GameResult::FirstMoverEscaped),
        Ok(R::SecondEscaped) => Some(GameResult::SecondMoverEscaped),
        Ok(R::BothEscaped) => Some(GameResult::BothEscaped),
        Err(_) => return Err(invalid("game.result", format!("unknown result {code}"))),
    })
}

/// A status for people and programs: (outcome, code, words, opponent).
fn status_view(status: &RoundStatus) -> (pb::KnockoutOutcome, &'static str, String, String) {
    use pb::KnockoutOutcome as O;
    let none = String::new();
    match status {
        RoundStatus::Advanced(a) => match a {
            Advanced::Won { opponent } => {
                (O::Advanced, "WON", "won the game".into(), opponent.clone())
            }
            Advanced::WonBlitz { opponent } => (
                O::Advanced,
                "WON_BLITZ",
                "won the blitz replay".into(),
                opponent.clone(),
            ),
            Advanced::BlitzDrawAwarded { opponent } => (
                O::Advanced,
                "BLITZ_DRAW_AWARDED",
                "the blitz replay was drawn and the rules give it to this side (和棋黑胜)".into(),
                opponent.clone(),
            ),
            Advanced::OpponentEscaped { opponent } => (
                O::Advanced,
                "OPPONENT_ESCAPED",
                "the opponent escaped".into(),
                opponent.clone(),
            ),
            Advanced::Bye => (
                O::Advanced,
                "BYE",
                "the odd player out of the draw".into(),
                none,
            ),
            Advanced::NotMatchedInTime { entered_at, since } => (
                O::Advanced,
                "NOT_MATCHED_IN_TIME",
                format!("in the room since {entered_at}, not matched by {since}"),
                none,
            ),
            Advanced::UnmatchedAtClose => (
                O::Advanced,
                "UNMATCHED_AT_CLOSE",
                "in the room and never matched by the round's close".into(),
                none,
            ),
        },
        RoundStatus::Out(o) => match o {
            Out::Lost { opponent } => (O::Out, "LOST", "lost the game".into(), opponent.clone()),
            Out::LostBlitz { opponent } => (
                O::Out,
                "LOST_BLITZ",
                "lost the blitz replay".into(),
                opponent.clone(),
            ),
            Out::BlitzDrawAgainst { opponent } => (
                O::Out,
                "BLITZ_DRAW_AGAINST",
                "the blitz replay was drawn and the rules give it to the other side (和棋黑胜)"
                    .into(),
                opponent.clone(),
            ),
            Out::Escaped { opponent } => (O::Out, "ESCAPED", "escaped".into(), opponent.clone()),
            Out::BothEscaped { opponent } => (
                O::Out,
                "BOTH_ESCAPED",
                "both players escaped: both are out".into(),
                opponent.clone(),
            ),
            Out::NoShow => (
                O::Out,
                "NO_SHOW",
                "never entered the room by the round's close".into(),
                none,
            ),
        },
        RoundStatus::Pending(p) => match p {
            Pending::NotEntered => (
                O::Pending,
                "NOT_ENTERED",
                "not in the room yet".into(),
                none,
            ),
            Pending::Waiting {
                entered_at,
                advances_after,
            } => (
                O::Pending,
                "WAITING",
                match advances_after {
                    Some(t) => format!(
                        "in the room since {entered_at}; advances after {t} if still unmatched"
                    ),
                    None => format!("in the room since {entered_at}"),
                },
                none,
            ),
            Pending::Playing { opponent } => {
                (O::Pending, "PLAYING", "playing".into(), opponent.clone())
            }
            Pending::AwaitingBlitz { opponent } => (
                O::Pending,
                "AWAITING_BLITZ",
                "the game was drawn; the blitz replay is due".into(),
                opponent.clone(),
            ),
        },
    }
}

/// The round's reported events in core terms.
fn round_inputs(events: &[knockout_event::Model]) -> Result<(Vec<RoomEntry>, Vec<KnockoutGame>)> {
    let mut rooms = Vec::new();
    let mut games = Vec::new();
    for e in events {
        if e.kind == "room" {
            rooms.push(RoomEntry {
                player: e.first_player.clone(),
                entered_at: e.at,
            });
        } else {
            games.push(KnockoutGame {
                first_mover: e.first_player.clone(),
                second_mover: e.second_player.clone(),
                kind: if e.blitz {
                    GameKind::BlitzReplay
                } else {
                    GameKind::Regular
                },
                matched_at: e.at,
                result: result_of(e.result)?,
            });
        }
    }
    Ok((rooms, games))
}

impl QualificationApi {
    async fn round_row(&self, key: &RoundKey) -> Result<Option<knockout_round::Model>> {
        Ok(
            knockout_round::Entity::find_by_id((key.0.clone(), key.1.clone(), key.2 as i32))
                .one(&self.db)
                .await?,
        )
    }

    async fn round_events(&self, key: &RoundKey) -> Result<Vec<knockout_event::Model>> {
        Ok(knockout_event::Entity::find()
            .filter(knockout_event::Column::ChampionshipId.eq(&key.0))
            .filter(knockout_event::Column::Stage.eq(&key.1))
            .filter(knockout_event::Column::Round.eq(key.2 as i32))
            .order_by_asc(knockout_event::Column::Platform)
            .order_by_asc(knockout_event::Column::EventId)
            .all(&self.db)
            .await?)
    }

    /// The seeds placed into `stage`.
    async fn seeds_into(&self, championship: &str, stage: &str) -> Result<Vec<seed::Model>> {
        Ok(seed::Entity::find()
            .filter(seed::Column::ChampionshipId.eq(championship))
            .filter(seed::Column::ToStage.eq(stage))
            .order_by_asc(seed::Column::PlayerId)
            .all(&self.db)
            .await?)
    }

    /// The round's entrants, ordered by player id (the order the draw shuffles).
    async fn round_entrants(&self, preset: &Preset, key: &RoundKey) -> Result<Vec<String>> {
        if key.2 > 1 {
            let previous = (key.0.clone(), key.1.clone(), key.2 - 1);
            let row = self.round_row(&previous).await?;
            return match row {
                Some(r) if r.closed_at.is_some() => {
                    let mut v = lines(r.advancing.as_deref());
                    v.sort();
                    Ok(v)
                }
                _ => Err(precondition(
                    "PREVIOUS_ROUND_OPEN",
                    "round",
                    format!("round {} of {} is not closed yet", key.2 - 1, key.1),
                )),
            };
        }
        // Every period of every stage advancing into this one must be closed: its list is final.
        let feeding: Vec<&Stage> = preset
            .stages
            .iter()
            .filter(|s| s.advance.as_ref().is_some_and(|a| a.to == key.1))
            .collect();
        let states = self.period_states(&key.0).await?;
        for s in &feeding {
            for p in &s.periods {
                if states.get(&(s.code.clone(), p.number)) != Some(&false) {
                    return Err(precondition(
                        "SOURCES_OPEN",
                        "round",
                        format!(
                            "{} period {} is not closed: round 1 of {} has no final entrants yet",
                            s.code, p.number, key.1
                        ),
                    ));
                }
            }
        }
        let advanced = self.advanced_into(preset, &key.0, &key.1).await?;
        let mut entrants: BTreeSet<String> = advanced.keys().cloned().collect();
        entrants.extend(
            self.seeds_into(&key.0, &key.1)
                .await?
                .into_iter()
                .map(|s| s.player_id),
        );
        Ok(entrants.into_iter().collect())
    }

    /// The round as stored, with every entrant's status now (or at its close).
    async fn round_view(
        &self,
        preset: &Preset,
        key: &RoundKey,
        row: Option<&knockout_round::Model>,
    ) -> Result<(pb::KnockoutRound, Option<RoundState>)> {
        let (_, config) = knockout_config(preset, key)?;
        let mut view = pb::KnockoutRound {
            round: Some(round_ref(key)),
            rounds: config.rounds,
            lottery_algorithm: ALGORITHM_VERSION,
            ..Default::default()
        };
        let Some(row) = row else {
            return Ok((view, None));
        };
        view.seed = row.seed.clone().unwrap_or_default();
        view.seed_published_at = row.seed_published_at.map(timestamp);
        view.entrants = lines(row.entrants.as_deref());
        view.pairs = pairs_of(row.pairs.as_deref())
            .into_iter()
            .map(|(a, b)| pb::KnockoutPair {
                first_mover: a,
                second_mover: b,
            })
            .collect();
        view.bye = row.bye.clone().unwrap_or_default();
        view.drawn_at = row.drawn_at.map(timestamp);
        view.closed_at = row.closed_at.map(timestamp);
        if row.drawn_at.is_none() {
            return Ok((view, None));
        }
        let events = self.round_events(key).await?;
        let (rooms, games) = round_inputs(&events)?;
        let byes: Vec<String> = row.bye.iter().cloned().collect();
        let state = round_state(
            config,
            &RoundReport {
                round: key.2,
                entrants: &view.entrants,
                byes: &byes,
                room_entries: &rooms,
                games: &games,
                now: row.closed_at.unwrap_or_else(Utc::now),
                closed: row.closed_at.is_some(),
            },
        )
        .map_err(|e| precondition("ROUND_INCONSISTENT", "round", e.to_string()))?;
        view.statuses = state
            .statuses
            .iter()
            .map(|(player, status)| {
                let (outcome, code, reason, opponent) = status_view(status);
                pb::KnockoutStatus {
                    round: Some(round_ref(key)),
                    player_id: player.clone(),
                    outcome: outcome as i32,
                    reason_code: code.to_owned(),
                    reason,
                    opponent_player_id: opponent,
                }
            })
            .collect();
        Ok((view, Some(state)))
    }

    fn announce(&self, key: &RoundKey, kind: pb::change::Kind) {
        let _ = self.changes.send((
            key.0.clone(),
            pb::Change {
                kind: Some(kind),
                at: None,
            },
        ));
    }

    pub(super) async fn get_round_impl(
        &self,
        caller: Caller,
        req: pb::KnockoutRoundRef,
    ) -> Result<pb::KnockoutRound> {
        let key = round_key(Some(&req))?;
        let preset = self.preset(&caller, &key.0).await?;
        let row = self.round_row(&key).await?;
        Ok(self.round_view(&preset, &key, row.as_ref()).await?.0)
    }

    pub(super) async fn publish_seed_impl(
        &self,
        caller: Caller,
        req: pb::PublishKnockoutSeedRequest,
    ) -> Result<pb::KnockoutRound> {
        require(&caller, &[Role::Organizer])?;
        let key = round_key(req.round.as_ref())?;
        let seed = req.seed.trim();
        if seed.is_empty() || seed.len() > 200 || seed != req.seed {
            return Err(invalid(
                "seed",
                "must be 1-200 characters without leading or trailing spaces",
            ));
        }
        let preset = self.preset(&caller, &key.0).await?;
        knockout_config(&preset, &key)?;
        let _guard = self.organizer_write.lock().await;
        let now = Utc::now();
        let row = match self.round_row(&key).await? {
            Some(r) if r.seed.is_some() => {
                if r.seed.as_deref() == Some(seed) {
                    return Ok(self.round_view(&preset, &key, Some(&r)).await?.0);
                }
                return Err(precondition(
                    "SEED_PUBLISHED",
                    "seed",
                    "this round's seed was published already and never changes",
                ));
            }
            Some(r) => {
                let mut active: knockout_round::ActiveModel = r.into();
                active.seed = Set(Some(seed.to_owned()));
                active.seed_published_at = Set(Some(now));
                active
            }
            None => knockout_round::ActiveModel {
                championship_id: Set(key.0.clone()),
                stage: Set(key.1.clone()),
                round: Set(key.2 as i32),
                seed: Set(Some(seed.to_owned())),
                seed_published_at: Set(Some(now)),
                entrants: Set(None),
                pairs: Set(None),
                bye: Set(None),
                drawn_at: Set(None),
                closed_at: Set(None),
                advancing: Set(None),
            },
        };
        let txn = self.db.begin().await?;
        knockout_round::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    knockout_round::Column::ChampionshipId,
                    knockout_round::Column::Stage,
                    knockout_round::Column::Round,
                ])
                .update_columns([
                    knockout_round::Column::Seed,
                    knockout_round::Column::SeedPublishedAt,
                ])
                .to_owned(),
            )
            .exec_without_returning(&txn)
            .await?;
        Self::audit(
            &txn,
            &caller,
            "knockout.seed_published",
            &format!("{}/{}/round-{}", key.0, key.1, key.2),
            format!("seed {seed:?}"),
        )
        .await?;
        txn.commit().await?;
        let row = self.round_row(&key).await?;
        let view = self.round_view(&preset, &key, row.as_ref()).await?.0;
        self.announce(&key, pb::change::Kind::KnockoutRound(view.clone()));
        Ok(view)
    }

    pub(super) async fn draw_round_impl(
        &self,
        caller: Caller,
        req: pb::KnockoutRoundRef,
    ) -> Result<pb::KnockoutRound> {
        require(&caller, &[Role::Organizer])?;
        let key = round_key(Some(&req))?;
        let preset = self.preset(&caller, &key.0).await?;
        knockout_config(&preset, &key)?;
        let _guard = self.organizer_write.lock().await;
        let row = self.round_row(&key).await?;
        let Some(row) = row.filter(|r| r.seed.is_some()) else {
            return Err(precondition(
                "SEED_NOT_PUBLISHED",
                "round",
                "publish the round's seed before the draw",
            ));
        };
        if row.drawn_at.is_some() {
            // Drawn once, for ever: the same answer again.
            return Ok(self.round_view(&preset, &key, Some(&row)).await?.0);
        }
        let entrants = self.round_entrants(&preset, &key).await?;
        if entrants.is_empty() {
            return Err(precondition(
                "NO_ENTRANTS",
                "round",
                format!("round {} of {} has no entrants", key.2, key.1),
            ));
        }
        let seed = row.seed.clone().unwrap_or_default();
        let pairing = pair_knockout_round(&seed, &entrants)
            .map_err(|e| precondition("DRAW_FAILED", "round", e.to_string()))?;
        let now = Utc::now();
        let mut active: knockout_round::ActiveModel = row.into();
        active.entrants = Set(Some(entrants.join("\n")));
        active.pairs = Set(Some(
            pairing
                .pairs
                .iter()
                .map(|p| format!("{}\t{}", p.first, p.second))
                .collect::<Vec<_>>()
                .join("\n"),
        ));
        active.bye = Set(pairing.bye.clone());
        active.drawn_at = Set(Some(now));
        let txn = self.db.begin().await?;
        knockout_round::Entity::update(active).exec(&txn).await?;
        Self::audit(
            &txn,
            &caller,
            "knockout.drawn",
            &format!("{}/{}/round-{}", key.0, key.1, key.2),
            format!(
                "{} entrants, {} pairs, bye {:?}, seed {seed:?}, lottery v{ALGORITHM_VERSION}",
                entrants.len(),
                pairing.pairs.len(),
                pairing.bye
            ),
        )
        .await?;
        txn.commit().await?;
        let row = self.round_row(&key).await?;
        let view = self.round_view(&preset, &key, row.as_ref()).await?.0;
        tracing::info!(championship = %key.0, stage = %key.1, round = key.2, pairs = view.pairs.len(), "knockout round drawn");
        self.announce(&key, pb::change::Kind::KnockoutRound(view.clone()));
        Ok(view)
    }

    pub(super) async fn close_round_impl(
        &self,
        caller: Caller,
        req: pb::KnockoutRoundRef,
    ) -> Result<pb::KnockoutRound> {
        require(&caller, &[Role::Organizer])?;
        let key = round_key(Some(&req))?;
        let preset = self.preset(&caller, &key.0).await?;
        let (stage, config) = knockout_config(&preset, &key)?;
        let _guard = self.organizer_write.lock().await;
        let Some(row) = self.round_row(&key).await?.filter(|r| r.drawn_at.is_some()) else {
            return Err(precondition(
                "ROUND_NOT_DRAWN",
                "round",
                "only a drawn round can be closed",
            ));
        };
        if row.closed_at.is_some() {
            return Ok(self.round_view(&preset, &key, Some(&row)).await?.0);
        }
        let now = Utc::now();
        let mut closing = row.clone();
        closing.closed_at = Some(now);
        let (_, state) = self.round_view(&preset, &key, Some(&closing)).await?;
        let state = state.ok_or_else(|| precondition("ROUND_NOT_DRAWN", "round", "not drawn"))?;
        let pending = state.pending();
        if !pending.is_empty() {
            return Err(precondition(
                "GAMES_UNFINISHED",
                "round",
                format!(
                    "{} players still have a game to finish: {}",
                    pending.len(),
                    pending.join(", ")
                ),
            ));
        }
        let advancing = state.advancing();
        let mut active: knockout_round::ActiveModel = row.into();
        active.closed_at = Set(Some(now));
        active.advancing = Set(Some(advancing.join("\n")));
        let last = key.2 == config.rounds;
        let txn = self.db.begin().await?;
        knockout_round::Entity::update(active).exec(&txn).await?;
        if last {
            // The stage's frozen list: every round-1 entrant, the winners of the last round advanced.
            let to = stage
                .advance
                .as_ref()
                .map(|a| a.to.clone())
                .unwrap_or_default();
            let quota = stage
                .advance
                .as_ref()
                .and_then(|a| a.final_quota(None))
                .unwrap_or(0);
            let winners: HashSet<&String> = advancing.iter().collect();
            let mut out_in: Vec<(String, u32)> = Vec::new();
            for r in 1..key.2 {
                let earlier = self
                    .round_row(&(key.0.clone(), key.1.clone(), r))
                    .await?
                    .ok_or_else(|| precondition("ROUND_MISSING", "round", format!("round {r}")))?;
                let went_on: HashSet<String> =
                    lines(earlier.advancing.as_deref()).into_iter().collect();
                out_in.extend(
                    lines(earlier.entrants.as_deref())
                        .into_iter()
                        .filter(|p| !went_on.contains(p))
                        .map(|p| (p, r)),
                );
            }
            out_in.extend(state.knocked_out().into_iter().map(|p| (p, key.2)));
            // Each reason described once: the winners' (`None`), and each round's knocked out.
            let mut reasons = frozen::ReasonTable::new();
            let mut rows: Vec<frozen::FrozenRow> = Vec::new();
            let winner_rows = advancing.iter().map(|p| (p.clone(), None));
            let out_rows = out_in
                .iter()
                .filter(|(p, _)| !winners.contains(p))
                .map(|(p, r)| (p.clone(), Some(*r)));
            for (player, out_in_round) in winner_rows.chain(out_rows) {
                let reason = reasons.intern(out_in_round, |r| match r {
                    None => (
                        "KNOCKOUT_WINNER".to_owned(),
                        format!("won round {} of {} rounds", key.2, config.rounds),
                    ),
                    Some(r) => (
                        "KNOCKED_OUT".to_owned(),
                        format!("knocked out in round {r}"),
                    ),
                });
                let advanced = out_in_round.is_none();
                rows.push(frozen::FrozenRow {
                    player_id: player.into(),
                    rank: u32::from(advanced),
                    advanced,
                    points: 0,
                    wins: 0,
                    counted_games: 0,
                    places: quota,
                    reason,
                });
            }
            let mut list = frozen::FrozenList {
                key: (key.0.clone(), key.1.clone(), 0),
                to_stage: to,
                decided_at: now.trunc_subsecs(6),
                reasons: reasons.reasons,
                rows,
            };
            list.sort();
            frozen::store(&txn, &list).await?;
        }
        Self::audit(
            &txn,
            &caller,
            "knockout.closed",
            &format!("{}/{}/round-{}", key.0, key.1, key.2),
            format!(
                "{} advanced, {} out",
                advancing.len(),
                state.knocked_out().len()
            ),
        )
        .await?;
        txn.commit().await?;
        if last {
            lock(&self.advanced).retain(|k, _| k.0 != key.0);
        }
        let row = self.round_row(&key).await?;
        let view = self.round_view(&preset, &key, row.as_ref()).await?.0;
        for status in &view.statuses {
            self.announce(&key, pb::change::Kind::KnockoutStatus(status.clone()));
        }
        self.announce(&key, pb::change::Kind::KnockoutRound(view.clone()));
        tracing::info!(championship = %key.0, stage = %key.1, round = key.2, advanced = advancing.len(), "knockout round closed");
        Ok(view)
    }

    /// A partner's room entry or game of a knockout round. Idempotent by (platform, event id): a
    /// game first reported while being played may be reported again with its result; any other
    /// change is `ALREADY_EXISTS`.
    pub(super) async fn report_knockout_impl(
        &self,
        caller: Caller,
        req: pb::KnockoutReport,
    ) -> Result<pb::ReportAck> {
        require(&caller, &[Role::Partner])?;
        let platform = caller.platform.clone().ok_or_else(|| {
            QualificationError::PermissionDenied("partner token without platform".into())
        })?;
        let key = round_key(req.round.as_ref())?;
        let preset = self.preset(&caller, &key.0).await?;
        let (stage, config) = knockout_config(&preset, &key)?;
        let event = req
            .event
            .ok_or_else(|| invalid("event", "a room entry or a game is required"))?;
        let accounts: Vec<String> = match &event {
            pb::knockout_report::Event::RoomEntry(r) => vec![r.account.clone()],
            pb::knockout_report::Event::Game(g) => {
                vec![g.first_account.clone(), g.second_account.clone()]
            }
        };
        if accounts.iter().any(String::is_empty) {
            return Err(invalid("account", "is required"));
        }
        let players = self.resolve(&caller, &platform, accounts.clone()).await?;
        let player = |field: &'static str, account: &str| {
            players.get(account).cloned().ok_or_else(|| {
                invalid(
                    field,
                    format!("{platform} account {account:?} is linked to no player"),
                )
            })
        };
        let now = Utc::now();
        let within_stage = |field: &'static str, at: DateTime<Utc>| -> Result<()> {
            match (stage.starts_on, stage.ends_on, stage.online) {
                (Some(first_day), Some(last_day), Some(rules)) => inside_play_time(
                    &rules,
                    PeriodDays {
                        first_day,
                        last_day,
                    },
                    field,
                    at,
                ),
                _ => Ok(()),
            }
        };
        let row = match &event {
            pb::knockout_report::Event::RoomEntry(r) => {
                let p = player("room_entry.account", &r.account)?;
                let at = instant("room_entry.entered_at", r.entered_at.as_ref())?;
                within_stage("room_entry.entered_at", at)?;
                knockout_event::Model {
                    championship_id: key.0.clone(),
                    platform: platform.clone(),
                    event_id: format!("room:{p}:{}", at.to_rfc3339()),
                    stage: key.1.clone(),
                    round: key.2 as i32,
                    kind: "room".into(),
                    first_player: p,
                    second_player: String::new(),
                    blitz: false,
                    at,
                    result: 0,
                    reported_at: now,
                }
            }
            pb::knockout_report::Event::Game(g) => {
                if g.game_id.is_empty() || g.game_id.len() > 128 {
                    return Err(invalid("game.game_id", "must be 1-128 characters"));
                }
                let first = player("game.first_account", &g.first_account)?;
                let second = player("game.second_account", &g.second_account)?;
                if first == second {
                    return Err(invalid(
                        "game.second_account",
                        "a player cannot play themself",
                    ));
                }
                let at = instant("game.matched_at", g.matched_at.as_ref())?;
                within_stage("game.matched_at", at)?;
                result_of(g.result)?;
                knockout_event::Model {
                    championship_id: key.0.clone(),
                    platform: platform.clone(),
                    event_id: format!("game:{}", g.game_id),
                    stage: key.1.clone(),
                    round: key.2 as i32,
                    kind: "game".into(),
                    first_player: first,
                    second_player: second,
                    blitz: g.blitz_replay,
                    at,
                    result: g.result,
                    reported_at: now,
                }
            }
        };
        let game_id = match &event {
            pb::knockout_report::Event::Game(g) => g.game_id.clone(),
            pb::knockout_report::Event::RoomEntry(_) => row.event_id.clone(),
        };
        let ack = |status: pb::AckStatus| pb::ReportAck {
            game_id: game_id.clone(),
            status: status as i32,
            stage: key.1.clone(),
            period: key.2,
        };

        let _guard = self.organizer_write.lock().await;
        let round = self.round_row(&key).await?;
        let Some(round) = round.filter(|r| r.drawn_at.is_some() && r.closed_at.is_none()) else {
            return Err(invalid(
                "round",
                format!(
                    "round {} of {} is not being played (not drawn, or closed)",
                    key.2, key.1
                ),
            ));
        };
        let entrants = lines(round.entrants.as_deref());
        for p in [&row.first_player, &row.second_player] {
            if !p.is_empty() && !entrants.contains(p) {
                return Err(invalid(
                    "account",
                    format!(
                        "player {p} is not an entrant of round {} of {}",
                        key.2, key.1
                    ),
                ));
            }
        }
        if row.kind == "game" {
            let drawn = pairs_of(round.pairs.as_deref());
            let (a, b) = if row.blitz {
                (&row.second_player, &row.first_player)
            } else {
                (&row.first_player, &row.second_player)
            };
            if !drawn.iter().any(|(x, y)| x == a && y == b) {
                return Err(invalid(
                    "game",
                    format!(
                        "{} against {} (first mover first) is not a pair of this round's draw{}",
                        row.first_player,
                        row.second_player,
                        if row.blitz { ", colours swapped" } else { "" }
                    ),
                ));
            }
        }
        let mut events = self.round_events(&key).await?;
        let existing = events
            .iter()
            .position(|e| e.platform == row.platform && e.event_id == row.event_id);
        let same = |e: &knockout_event::Model| {
            e.kind == row.kind
                && e.first_player == row.first_player
                && e.second_player == row.second_player
                && e.blitz == row.blitz
                && e.at == row.at
        };
        match existing {
            Some(i) if same(&events[i]) && events[i].result == row.result => {
                return Ok(ack(pb::AckStatus::Duplicate));
            }
            Some(i) if same(&events[i]) && events[i].result == 0 => {
                events[i] = row.clone();
            }
            Some(_) => {
                return Err(QualificationError::AlreadyExists(format!(
                    "{} was reported before with different content",
                    row.event_id
                )));
            }
            None => events.push(row.clone()),
        }
        // The whole round must still make sense with this report (one game per player, blitz only
        // after a draw, no draws in Go, ...).
        let (rooms, games) = round_inputs(&events)?;
        let byes: Vec<String> = round.bye.iter().cloned().collect();
        round_state(
            config,
            &RoundReport {
                round: key.2,
                entrants: &entrants,
                byes: &byes,
                room_entries: &rooms,
                games: &games,
                now,
                closed: false,
            },
        )
        .map_err(|e| invalid("event", e.to_string()))?;
        let txn = self.db.begin().await?;
        if existing.is_some() {
            knockout_event::Entity::update(knockout_event::ActiveModel::from(row).reset_all())
                .exec(&txn)
                .await?;
        } else {
            knockout_event::Entity::insert(knockout_event::ActiveModel::from(row))
                .exec_without_returning(&txn)
                .await?;
        }
        txn.commit().await?;
        self.metrics
            .count("qiwang_knockout_reports_total", "stored", 1);
        Ok(ack(pb::AckStatus::Stored))
    }

    /// Places a player straight into a stage, within the preset's seed count (R-ADV-2, R-ADV-5,
    /// R-FIN-1). Reading: the feeding stage's `[[stages.advance.seeds]]` give the sources and
    /// their counts; a source's count is a hard limit.
    pub(super) async fn add_seed_impl(
        &self,
        caller: Caller,
        req: pb::AddDirectSeedRequest,
    ) -> Result<pb::DirectSeed> {
        require(&caller, &[Role::Organizer])?;
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        if req.player_id.is_empty() {
            return Err(invalid("player_id", "is required"));
        }
        if req.reason.trim().is_empty() || req.reason.len() > 500 {
            return Err(invalid("reason", "must be 1-500 characters"));
        }
        let preset = self.preset(&caller, &req.championship_id).await?;
        let sources: Vec<_> = preset
            .stages
            .iter()
            .filter_map(|s| s.advance.as_ref())
            .filter(|a| a.to == req.to_stage)
            .flat_map(|a| a.seeds.iter())
            .collect();
        if sources.is_empty() {
            return Err(invalid(
                "to_stage",
                format!("the preset seeds nobody into {:?}", req.to_stage),
            ));
        }
        let source = sources.get(req.source_index as usize).ok_or_else(|| {
            invalid(
                "source_index",
                format!("{:?} has {} seed sources", req.to_stage, sources.len()),
            )
        })?;
        // The player must exist: ask the registration service.
        self.registration
            .clone()
            .get_player(authed(
                &caller,
                reg::GetPlayerRequest {
                    id: req.player_id.clone(),
                },
            ))
            .await
            .map_err(|status| QualificationError::Upstream {
                context: "finding the player",
                status,
            })?;
        let _guard = self.organizer_write.lock().await;
        let existing = self.seeds_into(&req.championship_id, &req.to_stage).await?;
        if let Some(s) = existing.iter().find(|s| s.player_id == req.player_id) {
            if s.source_index == req.source_index as i32 && s.reason == req.reason {
                return Ok(seed_view(s.clone()));
            }
            return Err(QualificationError::AlreadyExists(format!(
                "player {} is already seeded into {}",
                req.player_id, req.to_stage
            )));
        }
        let used = existing
            .iter()
            .filter(|s| s.source_index == req.source_index as i32)
            .count();
        if used >= source.count as usize {
            return Err(precondition(
                "SEEDS_FULL",
                "source_index",
                format!("{} has {} places, all taken", source.source, source.count),
            ));
        }
        if self
            .round_row(&(req.championship_id.clone(), req.to_stage.clone(), 1))
            .await?
            .is_some_and(|r| r.drawn_at.is_some())
        {
            return Err(precondition(
                "ALREADY_DRAWN",
                "to_stage",
                "the stage's first round is drawn: no more seeds",
            ));
        }
        let model = seed::Model {
            championship_id: req.championship_id.clone(),
            to_stage: req.to_stage.clone(),
            player_id: req.player_id.clone(),
            source_index: req.source_index as i32,
            source: source.source.clone(),
            reason: req.reason.clone(),
            decided_by: caller.subject.clone(),
            decided_at: Utc::now(),
        };
        let txn = self.db.begin().await?;
        seed::Entity::insert(seed::ActiveModel::from(model.clone()))
            .exec_without_returning(&txn)
            .await?;
        Self::audit(
            &txn,
            &caller,
            "seed.added",
            &format!("{}/{}/{}", req.championship_id, req.to_stage, req.player_id),
            format!("{} — {}", source.source, req.reason),
        )
        .await?;
        txn.commit().await?;
        lock(&self.advanced).retain(|k, _| k.0 != req.championship_id);
        Ok(seed_view(model))
    }

    pub(super) async fn list_seeds_impl(
        &self,
        req: pb::ListDirectSeedsRequest,
    ) -> Result<pb::ListDirectSeedsResponse> {
        if req.championship_id.is_empty() {
            return Err(invalid("championship_id", "is required"));
        }
        let mut q =
            seed::Entity::find().filter(seed::Column::ChampionshipId.eq(&req.championship_id));
        if !req.to_stage.is_empty() {
            q = q.filter(seed::Column::ToStage.eq(&req.to_stage));
        }
        let rows = q
            .order_by_asc(seed::Column::ToStage)
            .order_by_asc(seed::Column::PlayerId)
            .all(&self.db)
            .await?;
        Ok(pb::ListDirectSeedsResponse {
            seeds: rows.into_iter().map(seed_view).collect(),
        })
    }
}

fn seed_view(s: seed::Model) -> pb::DirectSeed {
    pb::DirectSeed {
        championship_id: s.championship_id,
        to_stage: s.to_stage,
        player_id: s.player_id,
        source: s.source,
        reason: s.reason,
        decided_by: s.decided_by,
        decided_at: Some(timestamp(s.decided_at)),
    }
}
