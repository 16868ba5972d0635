//! Frozen advancement lists (晋级名单): a closed period's cut, or a knockout stage's outcome.
//!
//! A list never changes once decided and is read whole or from its top, never one player at a
//! time by the database, so it is stored once rather than once per player: a header row
//! (`frozen_list`: target stage, decision time, counts, the list's distinct reasons) and its rows
//! in list order as columnar JSON chunks of [`ROWS_PER_CHUNK`] (`frozen_chunk`):
//!
//! ```json
//! {"players": ["p1", "p2"], "ranks": [1, 2], "advanced": [1, 0], "points": [30, 28],
//!  "wins": [10, 9], "counted": [12, 12], "places": [23, 23], "reasons": [0, 1]}
//! ```
//!
//! `reasons` index the header's reasons, a JSON array of `[code, sentence]`: a national list of a
//! million players has a few distinct reasons, so each sentence is written and stored once.
//! Storing a million-row list is a few MB in a handful of statements, where one row per player was
//! 2.2 s of a 4.8 s close.

use serde::{Deserialize, Serialize};

use super::*;
use crate::entity::{frozen_chunk, frozen_list};

/// Rows per stored chunk: a chunk is about 2 MB at national scale.
const ROWS_PER_CHUNK: usize = 65_536;

/// One player's line of a frozen list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FrozenRow {
    pub player_id: String,
    /// Competition rank; 0 for the unranked.
    pub rank: u32,
    pub advanced: bool,
    pub points: i64,
    pub wins: u32,
    pub counted_games: u32,
    /// The places of the player's group (a stage's groups may have different quotas).
    pub places: u32,
    /// Index into [`FrozenList::reasons`].
    pub reason: u32,
}

/// A decided list: ranked players by rank and player id, then the unranked by player id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FrozenList {
    /// (championship, stage, period); period 0 for a stage decided as a whole (a knockout).
    pub key: PeriodKey,
    pub to_stage: String,
    pub decided_at: DateTime<Utc>,
    /// Distinct (code, sentence) pairs the rows point into.
    pub reasons: Vec<(String, String)>,
    pub rows: Vec<FrozenRow>,
}

/// A chunk's columns, as stored.
#[derive(Serialize, Deserialize, Default)]
struct Chunk<P> {
    players: Vec<P>,
    ranks: Vec<u32>,
    advanced: Vec<u8>,
    points: Vec<i64>,
    wins: Vec<u32>,
    counted: Vec<u32>,
    places: Vec<u32>,
    reasons: Vec<u32>,
}

/// Interns reasons while a list is built: each distinct reason is described once.
pub(super) struct ReasonTable<K> {
    index: HashMap<K, u32>,
    pub reasons: Vec<(String, String)>,
}

impl<K: std::hash::Hash + Eq> ReasonTable<K> {
    pub fn new() -> Self {
        ReasonTable {
            index: HashMap::new(),
            reasons: Vec::new(),
        }
    }

    /// The index of `key`'s reason, described by `describe` the first time it is seen.
    pub fn intern(&mut self, key: K, describe: impl FnOnce(&K) -> (String, String)) -> u32 {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.reasons.len() as u32;
        self.reasons.push(describe(&key));
        self.index.insert(key, i);
        i
    }
}

/// List order: ranked players by rank and player id, then the unranked by player id.
fn list_order(a: &FrozenRow, b: &FrozenRow) -> std::cmp::Ordering {
    (a.rank == 0, a.rank, &a.player_id).cmp(&(b.rank == 0, b.rank, &b.player_id))
}

impl FrozenList {
    /// Puts the rows in list order (already so for a close without groups: checked, not sorted).
    pub fn sort(&mut self) {
        if !self.rows.is_sorted_by(|a, b| list_order(a, b).is_le()) {
            self.rows.sort_unstable_by(list_order);
        }
    }

    pub fn advanced(&self) -> impl Iterator<Item = &FrozenRow> {
        self.rows.iter().filter(|r| r.advanced)
    }

    /// The list as the API shows it; `places` is the first row's (a stage's groups may differ).
    pub fn to_pb(&self) -> pb::AdvancementList {
        let reason = |r: &FrozenRow| {
            self.reasons
                .get(r.reason as usize)
                .cloned()
                .unwrap_or_default()
        };
        pb::AdvancementList {
            period: Some(period_ref(&self.key)),
            to_stage: self.to_stage.clone(),
            places: self.rows.first().map(|r| r.places).unwrap_or(0),
            decided_at: Some(timestamp(self.decided_at)),
            rows: self
                .rows
                .iter()
                .map(|r| {
                    let (reason_code, reason) = reason(r);
                    pb::AdvancementRow {
                        player_id: r.player_id.clone(),
                        rank: r.rank,
                        advanced: r.advanced,
                        points: r.points,
                        wins: r.wins,
                        counted_games: r.counted_games,
                        reason,
                        reason_code,
                    }
                })
                .collect(),
        }
    }
}

fn encode<T: Serialize>(what: &str, value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| sea_orm::DbErr::Custom(format!("frozen list {what} as JSON: {e}")).into())
}

fn decode<'a, T: Deserialize<'a>>(key: &PeriodKey, what: &str, text: &'a str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| {
        sea_orm::DbErr::Custom(format!(
            "frozen list {}/{}/{}: unreadable {what}: {e}",
            key.0, key.1, key.2
        ))
        .into()
    })
}

/// Stores a decided list (rows in list order) inside the caller's transaction.
pub(super) async fn store<C: ConnectionTrait>(db: &C, list: &FrozenList) -> Result<()> {
    debug_assert!(list.rows.is_sorted_by(|a, b| list_order(a, b).is_le()));
    let (championship, stage, period) = (&list.key.0, &list.key.1, list.key.2 as i32);
    let chunks = list.rows.chunks(ROWS_PER_CHUNK);
    frozen_list::Entity::insert(frozen_list::ActiveModel {
        championship_id: Set(championship.clone()),
        stage: Set(stage.clone()),
        period: Set(period),
        to_stage: Set(list.to_stage.clone()),
        decided_at: Set(list.decided_at),
        row_count: Set(list.rows.len() as i32),
        advanced_count: Set(list.advanced().count() as i32),
        chunk_count: Set(chunks.len() as i32),
        reasons: Set(encode("reasons", &list.reasons)?),
    })
    .exec(db)
    .await?;
    for (n, rows) in chunks.enumerate() {
        let chunk = Chunk {
            players: rows.iter().map(|r| r.player_id.as_str()).collect(),
            ranks: rows.iter().map(|r| r.rank).collect(),
            advanced: rows.iter().map(|r| u8::from(r.advanced)).collect(),
            points: rows.iter().map(|r| r.points).collect(),
            wins: rows.iter().map(|r| r.wins).collect(),
            counted: rows.iter().map(|r| r.counted_games).collect(),
            places: rows.iter().map(|r| r.places).collect(),
            reasons: rows.iter().map(|r| r.reason).collect(),
        };
        frozen_chunk::Entity::insert(frozen_chunk::ActiveModel {
            championship_id: Set(championship.clone()),
            stage: Set(stage.clone()),
            period: Set(period),
            chunk: Set(n as i32),
            body: Set(encode("chunk", &chunk)?),
        })
        .exec(db)
        .await?;
    }
    Ok(())
}

/// The headers of the lists matching `filter` (a championship's, with more conditions).
pub(super) async fn headers<C: ConnectionTrait>(
    db: &C,
    filter: sea_orm::Condition,
) -> Result<Vec<frozen_list::Model>> {
    Ok(frozen_list::Entity::find().filter(filter).all(db).await?)
}

/// Reads the list behind `header` in full.
pub(super) async fn read<C: ConnectionTrait>(
    db: &C,
    header: frozen_list::Model,
) -> Result<FrozenList> {
    let key: PeriodKey = (
        header.championship_id,
        header.stage,
        u32::try_from(header.period).unwrap_or(0),
    );
    let chunks = frozen_chunk::Entity::find()
        .filter(frozen_chunk::Column::ChampionshipId.eq(&key.0))
        .filter(frozen_chunk::Column::Stage.eq(&key.1))
        .filter(frozen_chunk::Column::Period.eq(header.period))
        .order_by_asc(frozen_chunk::Column::Chunk)
        .all(db)
        .await?;
    let reasons: Vec<(String, String)> = decode(&key, "reasons", &header.reasons)?;
    let mut rows = Vec::with_capacity(usize::try_from(header.row_count).unwrap_or(0));
    for c in chunks {
        let chunk: Chunk<String> = decode(&key, "chunk", &c.body)?;
        let n = chunk.players.len();
        let lengths = [
            chunk.ranks.len(),
            chunk.advanced.len(),
            chunk.points.len(),
            chunk.wins.len(),
            chunk.counted.len(),
            chunk.places.len(),
            chunk.reasons.len(),
        ];
        if lengths.iter().any(|&l| l != n)
            || chunk.reasons.iter().any(|&r| r as usize >= reasons.len())
        {
            return Err(sea_orm::DbErr::Custom(format!(
                "frozen list {}/{}/{}: chunk {} has ragged columns or unknown reasons",
                key.0, key.1, key.2, c.chunk
            ))
            .into());
        }
        rows.extend(
            chunk
                .players
                .into_iter()
                .enumerate()
                .map(|(i, player_id)| FrozenRow {
                    player_id,
                    rank: chunk.ranks[i],
                    advanced: chunk.advanced[i] != 0,
                    points: chunk.points[i],
                    wins: chunk.wins[i],
                    counted_games: chunk.counted[i],
                    places: chunk.places[i],
                    reason: chunk.reasons[i],
                }),
        );
    }
    Ok(FrozenList {
        key,
        to_stage: header.to_stage,
        decided_at: header.decided_at,
        reasons,
        rows,
    })
}

/// The list of one period (or of a knockout stage, period 0), if decided.
pub(super) async fn load<C: ConnectionTrait>(
    db: &C,
    key: &PeriodKey,
) -> Result<Option<FrozenList>> {
    match frozen_list::Entity::find_by_id((key.0.clone(), key.1.clone(), key.2 as i32))
        .one(db)
        .await?
    {
        Some(header) => Ok(Some(read(db, header).await?)),
        None => Ok(None),
    }
}

/// Every list matching `filter`, read in full.
pub(super) async fn load_all<C: ConnectionTrait>(
    db: &C,
    filter: sea_orm::Condition,
) -> Result<Vec<FrozenList>> {
    let mut lists = Vec::new();
    for header in headers(db, filter).await? {
        lists.push(read(db, header).await?);
    }
    Ok(lists)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(player: &str, rank: u32, advanced: bool, reason: u32) -> FrozenRow {
        FrozenRow {
            player_id: player.into(),
            rank,
            advanced,
            points: i64::from(rank) * -2 + 40,
            wins: rank,
            counted_games: 12,
            places: 2,
            reason,
        }
    }

    #[test]
    fn list_order_puts_ranked_first_by_rank_then_player_then_unranked() {
        let mut list = FrozenList {
            key: ("c".into(), "s".into(), 1),
            to_stage: "t".into(),
            decided_at: Utc::now(),
            reasons: vec![("A".into(), "a".into())],
            rows: vec![
                row("z", 0, false, 0),
                row("b", 2, false, 0),
                row("a", 2, true, 0),
                row("y", 1, true, 0),
            ],
        };
        list.sort();
        let order: Vec<&str> = list.rows.iter().map(|r| r.player_id.as_str()).collect();
        assert_eq!(order, ["y", "a", "b", "z"]);
    }

    #[test]
    fn reasons_are_described_once_each() {
        let mut table = ReasonTable::new();
        let mut described = 0;
        let mut describe = |k: &u8| {
            described += 1;
            (format!("C{k}"), format!("reason {k}"))
        };
        let ids: Vec<u32> = [3u8, 4, 3, 3, 4, 5]
            .into_iter()
            .map(|k| table.intern(k, &mut describe))
            .collect();
        assert_eq!(ids, [0, 1, 0, 0, 1, 2]);
        assert_eq!(described, 3);
        assert_eq!(table.reasons[1], ("C4".to_owned(), "reason 4".to_owned()));
    }
}
