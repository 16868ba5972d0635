//! A [`LivePeriod`] as bytes and back: the durable checkpoint a restarted process serves from
//! instead of recomputing the period from every stored game.
//!
//! A checkpoint holds each player's state (the current line's progression, counters, reset,
//! elimination), the games' ids the steps refer to, and the period-wide `last_key` and game count.
//! The derived parts are rebuilt on restore: the id → handle map, each row's points, cached line
//! and `ranked` flag ([`LivePeriod::refresh_key`]), and the leaderboard index (one sort). It also
//! carries a fingerprint of the rules, days and tie-breaks it was computed under: restored under
//! others it is refused ([`CheckpointError::RulesChanged`]), and the caller recomputes.
//!
//! The encoding is postcard (varints); instants are (seconds, nanoseconds), not text.

use chrono::{DateTime, Utc};
use serde::de::Error as _;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{GameIds, LivePeriod, PlayerState, RowKey, Step};
use crate::scoring::{OnlineRules, PeriodDays};
use crate::standings::{Elimination, TieBreak};

/// Changes whenever the encoding or the meaning of a field changes: an older checkpoint is then
/// refused, never misread.
const FORMAT: u32 = 1;

/// Why a checkpoint cannot be restored. The period is then recomputed from the stored games.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    #[error("the checkpoint cannot be decoded: {0}")]
    Decode(String),
    #[error("the checkpoint has format {found}, this build reads format {FORMAT}")]
    Format { found: u32 },
    #[error("the checkpoint was taken under other rules, days or tie-breaks")]
    RulesChanged,
    #[error("the checkpoint is inconsistent: {0}")]
    Inconsistent(&'static str),
}

/// What the checkpoint must have been taken under.
fn fingerprint(rules: &OnlineRules, days: &PeriodDays, tie_breaks: &[TieBreak]) -> String {
    format!("{rules:?} {days:?} {tie_breaks:?}")
}

mod at {
    use super::*;

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        (t.timestamp(), t.timestamp_subsec_nanos()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let (secs, nanos) = <(i64, u32)>::deserialize(d)?;
        DateTime::from_timestamp(secs, nanos)
            .ok_or_else(|| D::Error::custom("instant out of range"))
    }
}

mod at_opt {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        t.map(|t| (t.timestamp(), t.timestamp_subsec_nanos()))
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        <Option<(i64, u32)>>::deserialize(d)?
            .map(|(secs, nanos)| {
                DateTime::from_timestamp(secs, nanos)
                    .ok_or_else(|| D::Error::custom("instant out of range"))
            })
            .transpose()
    }
}

/// An instant in a tuple (where `with` cannot reach).
struct At(DateTime<Utc>);

impl Serialize for At {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        at::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for At {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<At, D::Error> {
        at::deserialize(d).map(At)
    }
}

impl Serialize for Step {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (At(self.at()), self.points(), self.game()).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Step, D::Error> {
        let (At(at), points, game) = <(At, i64, u32)>::deserialize(d)?;
        Ok(Step { at, points, game })
    }
}

/// [`RowKey`] without what [`LivePeriod::refresh_key`] derives from the state.
#[derive(Serialize, Deserialize)]
struct Counts {
    game_time_ms: i64,
    wins: u32,
    counted: u32,
    escapes: u32,
}

#[derive(Serialize, Deserialize)]
struct PlayerRecord {
    counts: Counts,
    progression: Vec<Step>,
    #[serde(with = "at_opt")]
    reset_at: Option<DateTime<Utc>>,
    #[serde(with = "at_opt")]
    last_end: Option<DateTime<Utc>>,
    elimination: Option<(At, String)>,
    losses: u32,
    draws: u32,
    voids: u32,
    period_escapes: u32,
    present: bool,
    cancelled: bool,
}

/// One player as written: borrowed from the table, no copy of the progression.
struct PlayerOut<'a> {
    name: &'a str,
    key: &'a RowKey,
    state: &'a PlayerState,
}

impl Serialize for PlayerOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (key, state) = (self.key, self.state);
        // Field for field as `(String, PlayerRecord)` reads it.
        (
            self.name,
            (
                (key.game_time_ms, key.wins, key.counted, key.escapes),
                &state.progression,
                state.reset_at.map(At),
                state.last_end.map(At),
                state
                    .elimination
                    .as_deref()
                    .map(|e| (At(e.at), e.game_id.as_str())),
                state.losses,
                state.draws,
                state.voids,
                state.period_escapes,
                state.present,
                state.cancelled,
            ),
        )
            .serialize(s)
    }
}

struct PlayersOut<'a>(&'a LivePeriod);

impl Serialize for PlayersOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = &self.0.table;
        let mut seq = s.serialize_seq(Some(t.names.len()))?;
        for ((name, key), state) in t.names.iter().zip(&t.keys).zip(&t.players) {
            seq.serialize_element(&PlayerOut { name, key, state })?;
        }
        seq.end()
    }
}

impl Serialize for GameIds {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.bytes, &self.ends).serialize(s)
    }
}

impl<'de> Deserialize<'de> for GameIds {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GameIds, D::Error> {
        let (bytes, ends) = <(String, Vec<usize>)>::deserialize(d)?;
        Ok(GameIds { bytes, ends })
    }
}

#[derive(Serialize)]
struct CheckpointOut<'a> {
    format: u32,
    fingerprint: String,
    games_applied: u64,
    last_key: Option<(At, &'a str)>,
    game_ids: &'a GameIds,
    players: PlayersOut<'a>,
}

#[derive(Deserialize)]
struct CheckpointIn {
    format: u32,
    fingerprint: String,
    games_applied: u64,
    last_key: Option<(At, String)>,
    game_ids: GameIds,
    players: Vec<(String, PlayerRecord)>,
}

impl LivePeriod {
    /// The period as a checkpoint: everything [`LivePeriod::restore`] needs to give back a period
    /// equal to this one, under the same rules, days and tie-breaks.
    pub fn checkpoint(&self) -> Vec<u8> {
        let out = CheckpointOut {
            format: FORMAT,
            fingerprint: fingerprint(&self.rules, &self.days, &self.table.tie_breaks),
            games_applied: self.games_applied,
            last_key: self.last_key.as_ref().map(|(t, id)| (At(*t), id.as_str())),
            game_ids: &self.table.game_ids,
            players: PlayersOut(self),
        };
        // Serializing plain data into a vector does not fail.
        postcard::to_stdvec(&out).unwrap_or_default()
    }

    /// The period a [`LivePeriod::checkpoint`] was taken of, under these rules, days and
    /// tie-breaks. Refuses (changing nothing anywhere) a checkpoint of another format, taken
    /// under other rules, or not self-consistent. Given the bytes themselves (not a borrow), it
    /// frees them once decoded, before the period is built.
    pub fn restore(
        rules: OnlineRules,
        days: PeriodDays,
        tie_breaks: Vec<TieBreak>,
        bytes: impl AsRef<[u8]>,
    ) -> Result<LivePeriod, CheckpointError> {
        let found: CheckpointIn = postcard::from_bytes(bytes.as_ref())
            .map_err(|e| CheckpointError::Decode(e.to_string()))?;
        drop(bytes);
        if found.format != FORMAT {
            return Err(CheckpointError::Format {
                found: found.format,
            });
        }
        if found.fingerprint != fingerprint(&rules, &days, &tie_breaks) {
            return Err(CheckpointError::RulesChanged);
        }
        let ids = &found.game_ids;
        if ids.ends.windows(2).any(|w| w[0] > w[1])
            || ids.ends.last().is_some_and(|&e| e != ids.bytes.len())
            || ids.ends.iter().any(|&e| !ids.bytes.is_char_boundary(e))
            || ids.ends.len() > u32::MAX as usize
        {
            return Err(CheckpointError::Inconsistent("game ids"));
        }
        if found.players.len() > (u32::MAX - 2) as usize {
            return Err(CheckpointError::Inconsistent("too many players"));
        }
        let mut live = LivePeriod::new(rules, days, tie_breaks);
        live.games_applied = found.games_applied;
        live.last_key = found.last_key.map(|(At(t), id)| (t, id));
        live.reserve_players(found.players.len());
        for (name, p) in found.players {
            if p.progression
                .iter()
                .any(|s| s.game() as usize >= ids.ends.len())
            {
                return Err(CheckpointError::Inconsistent("a step names no game"));
            }
            if live.handle(&name).is_some() {
                return Err(CheckpointError::Inconsistent("a player twice"));
            }
            let h = live
                .intern(&name)
                .ok_or(CheckpointError::Inconsistent("too many players"))?;
            let state = PlayerState {
                progression: p.progression,
                reset_at: p.reset_at,
                last_end: p.last_end,
                elimination: p
                    .elimination
                    .map(|(At(at), game_id)| Box::new(Elimination { at, game_id })),
                losses: p.losses,
                draws: p.draws,
                voids: p.voids,
                period_escapes: p.period_escapes,
                present: p.present,
                cancelled: p.cancelled,
            };
            if let Some(slot) = live.table.players.get_mut(h as usize) {
                *slot = state;
            }
            if let Some(slot) = live.table.keys.get_mut(h as usize) {
                *slot = RowKey {
                    game_time_ms: p.counts.game_time_ms,
                    wins: p.counts.wins,
                    counted: p.counts.counted,
                    escapes: p.counts.escapes,
                    ..RowKey::default()
                };
            }
            live.refresh_key(h);
        }
        live.table.game_ids = found.game_ids;
        live.index_all(false);
        Ok(live)
    }
}
