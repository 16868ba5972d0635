//! Frozen advancement lists (晋级名单): a closed period's cut, or a knockout stage's outcome.
//!
//! A list never changes once decided and is read whole or a page at a time, never one player at a
//! time by the database, so it is stored once rather than once per player: a header row
//! (`frozen_list`: target stage, decision time, counts, the list's distinct reasons) and its rows
//! in list order as columnar JSON chunks of [`ROWS_PER_CHUNK`] (`frozen_chunk`):
//!
//! ```json
//! {"prefix": "pl_", "players": ["p1", "p2", "p3"], "wins": [10, 9, 9], "counted": [12, 12, 12],
//!  "rank_runs": [[1, 1], [2, 2]], "advanced_runs": [[1, 2], [0, 1]], "point_runs": [[30, 1], [28, 2]],
//!  "place_runs": [[23, 3]], "reason_runs": [[0, 2], [1, 1]]}
//! ```
//!
//! `prefix` is what every id of the chunk begins with, `players` the rest of each: ids made in
//! bulk share a long prefix, a third of a national list's bytes when written per row.
//!
//! The columns that follow the list's order, rank, verdict, points, places and reason, are
//! written as runs of equal values, `[value, count]`: a national list in rank order has a few
//! thousand runs for a million rows (a whole tie has one rank and one point total). A chunk of
//! 65,536 such rows with bulk-made ids took 2.1 MB instead of 3.3 MB, and reading a national list
//! back a page at a time got about a third faster (`qiwang bench ingest`); the close's store time
//! did not measurably change. Wins and counted games vary from row to row and are written whole.
//!
//! Chunks stored earlier read as they did: without `prefix`, with whole ids; without runs, with
//! the columns `ranks`, `advanced`, `points`, `places` and `reasons` written value by value.
//!
//! `reasons` index the header's reasons, a JSON array of `[code, sentence]`: a national list of a
//! million players has a few distinct reasons, so each sentence is written and stored once.
//! Storing a million-row list is a few MB in a handful of statements, where one row per player was
//! 2.2 s of a 4.8 s close.

use qiwang_core::advancement::shared_id_prefix;
use serde::{Deserialize, Serialize};

use super::*;
use crate::entity::{frozen_chunk, frozen_list};

/// Rows per stored chunk: a chunk is about 2 MB at national scale.
const ROWS_PER_CHUNK: usize = 65_536;

/// Rows of a page when the caller names no size (and of the first page `ClosePeriod` and
/// `GetAdvancement` return).
pub(super) const PAGE_ROWS: usize = 1_000;
/// The most rows one page may hold: a page of a national list stays well inside gRPC's default
/// 4 MB message limit, which the whole list (about 70 MB at a million players) does not.
pub(super) const MAX_PAGE_ROWS: usize = 10_000;

/// Where a page starts, as the API carries it: opaque to callers (here, the offset of the
/// page's first row; a frozen list never changes, so an offset names the same rows forever).
pub(super) fn page_token(offset: usize) -> String {
    format!("r{offset}")
}

/// The offset a page token names; the empty token is the top of the list.
pub(super) fn page_offset(token: &str) -> Result<usize> {
    if token.is_empty() {
        return Ok(0);
    }
    token
        .strip_prefix('r')
        .and_then(|n| n.parse::<usize>().ok())
        .filter(|n| token == page_token(*n))
        .ok_or_else(|| invalid("page_token", "is not a token this list gave"))
}

/// The number of rows a page request asks for: 0 is the default, more than the most is refused.
pub(super) fn page_size(requested: u32) -> Result<usize> {
    match requested as usize {
        0 => Ok(PAGE_ROWS),
        n if n <= MAX_PAGE_ROWS => Ok(n),
        _ => Err(invalid(
            "page_size",
            format!("at most {MAX_PAGE_ROWS} rows per page"),
        )),
    }
}

/// One player's line of a frozen list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FrozenRow {
    /// Shared with the live period's interned id when the list was just decided.
    pub player_id: Arc<str>,
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

/// A chunk's columns, as stored. Of each column with runs, a chunk holds either the runs (written
/// since runs were introduced) or the values (written before); the other is absent.
#[derive(Serialize, Deserialize, Default)]
struct Chunk<P> {
    /// What every id of the chunk begins with; `players` hold the rest. Absent (empty) in chunks
    /// stored before it was introduced, whose `players` are whole ids.
    #[serde(default)]
    prefix: P,
    players: Vec<P>,
    wins: Vec<u32>,
    counted: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ranks: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    rank_runs: Runs<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    advanced: Vec<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    advanced_runs: Runs<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    points: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    point_runs: Runs<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    places: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    place_runs: Runs<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reasons: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reason_runs: Runs<u32>,
}

/// A column as runs of equal values: `(value, how many rows in a row have it)`.
type Runs<T> = Vec<(T, u32)>;

/// `values` as runs of equal values.
fn runs<T: PartialEq>(values: impl IntoIterator<Item = T>) -> Runs<T> {
    let mut out: Runs<T> = Vec::new();
    for value in values {
        match out.last_mut() {
            Some((last, n)) if *last == value => *n += 1,
            _ => out.push((value, 1)),
        }
    }
    out
}

/// A stored column of `rows` values: its values, or its runs expanded; `None` when it has both,
/// or not exactly `rows` values.
fn column<T: Copy>(values: Vec<T>, runs: &[(T, u32)], rows: usize) -> Option<Vec<T>> {
    if runs.is_empty() {
        return (values.len() == rows).then_some(values);
    }
    let total: u64 = runs.iter().map(|&(_, n)| u64::from(n)).sum();
    if !values.is_empty() || total != rows as u64 {
        return None;
    }
    let mut out = Vec::with_capacity(rows);
    for &(value, n) in runs {
        out.extend(std::iter::repeat_n(value, n as usize));
    }
    Some(out)
}

/// Interns reasons while a list is built: each distinct reason is described once.
pub(super) struct ReasonTable<K> {
    index: HashMap<K, u32>,
    /// The reason interned last: a list's rows come in long runs of one reason, which are then
    /// compared, not hashed.
    last: Option<(K, u32)>,
    pub reasons: Vec<(String, String)>,
}

impl<K: std::hash::Hash + Eq + Clone> ReasonTable<K> {
    pub fn new() -> Self {
        ReasonTable {
            index: HashMap::new(),
            last: None,
            reasons: Vec::new(),
        }
    }

    /// The index of `key`'s reason, described by `describe` the first time it is seen.
    pub fn intern(&mut self, key: K, describe: impl FnOnce(&K) -> (String, String)) -> u32 {
        if let Some((last, i)) = &self.last
            && *last == key
        {
            return *i;
        }
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                let i = self.reasons.len() as u32;
                self.reasons.push(describe(&key));
                self.index.insert(key.clone(), i);
                i
            }
        };
        self.last = Some((key, i));
        i
    }
}

/// List order: ranked players by rank and player id, then the unranked by player id.
fn list_order(a: &FrozenRow, b: &FrozenRow) -> std::cmp::Ordering {
    (a.rank == 0, a.rank, &a.player_id).cmp(&(b.rank == 0, b.rank, &b.player_id))
}

impl FrozenList {
    /// Puts the rows in list order (already so for most lists: checked, not sorted). A close with one
    /// group does not call it: its cut gives list order, and checking a million rows compares ids at
    /// every equal rank.
    pub fn sort(&mut self) {
        if !self.rows.is_sorted_by(|a, b| list_order(a, b).is_le()) {
            self.rows.sort_unstable_by(list_order);
        }
    }

    pub fn advanced(&self) -> impl Iterator<Item = &FrozenRow> {
        self.rows.iter().filter(|r| r.advanced)
    }

    /// The page of `size` rows from `offset` as the API shows it (`offset` past the end is
    /// refused: the list never grows, so no token of it points there).
    pub fn page(&self, offset: usize, size: usize) -> Result<pb::AdvancementList> {
        let total = self.rows.len();
        if offset > total {
            return Err(invalid("page_token", "points past the end of the list"));
        }
        let rows = &self.rows[offset..(offset + size).min(total)];
        Ok(self.page_of(
            rows,
            self.rows.first().map_or(0, |r| r.places),
            offset,
            total,
            self.advanced().count(),
        ))
    }

    /// `rows` (from `offset` of a list of `total` rows, `advanced` of them advanced) as the API
    /// shows them; `places` is the list's first row's (a stage's groups may differ).
    fn page_of(
        &self,
        rows: &[FrozenRow],
        places: u32,
        offset: usize,
        total: usize,
        advanced: usize,
    ) -> pb::AdvancementList {
        let reason = |r: &FrozenRow| {
            self.reasons
                .get(r.reason as usize)
                .cloned()
                .unwrap_or_default()
        };
        let end = offset + rows.len();
        pb::AdvancementList {
            period: Some(period_ref(&self.key)),
            to_stage: self.to_stage.clone(),
            places,
            decided_at: Some(timestamp(self.decided_at)),
            rows: rows
                .iter()
                .map(|r| {
                    let (reason_code, reason) = reason(r);
                    pb::AdvancementRow {
                        player_id: r.player_id.to_string(),
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
            total_rows: u32::try_from(total).unwrap_or(u32::MAX),
            advanced_count: u32::try_from(advanced).unwrap_or(u32::MAX),
            next_page_token: if end < total {
                page_token(end)
            } else {
                String::new()
            },
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

/// The length of the prefix every id of `rows` shares, in bytes, cut back to a character boundary
/// (the rest of each id is stored as a string of its own).
fn shared_prefix(rows: &[FrozenRow]) -> usize {
    let shared = shared_id_prefix(rows.iter().map(|r| &*r.player_id));
    let first = rows.first().map_or("", |r| &*r.player_id);
    (0..=shared)
        .rev()
        .find(|&n| first.is_char_boundary(n))
        .unwrap_or(0)
}

/// One chunk of `rows` as stored: ids made in bulk share a long prefix (`pl_` and a time), which
/// is written once per chunk instead of once per row.
fn encode_chunk(rows: &[FrozenRow]) -> Result<String> {
    let shared = shared_prefix(rows);
    let chunk = Chunk {
        prefix: rows
            .first()
            .map_or("", |r| r.player_id.get(..shared).unwrap_or_default()),
        players: rows
            .iter()
            .map(|r| r.player_id.get(shared..).unwrap_or_default())
            .collect(),
        wins: rows.iter().map(|r| r.wins).collect(),
        counted: rows.iter().map(|r| r.counted_games).collect(),
        rank_runs: runs(rows.iter().map(|r| r.rank)),
        advanced_runs: runs(rows.iter().map(|r| u8::from(r.advanced))),
        point_runs: runs(rows.iter().map(|r| r.points)),
        place_runs: runs(rows.iter().map(|r| r.places)),
        reason_runs: runs(rows.iter().map(|r| r.reason)),
        ..Chunk::default()
    };
    encode("chunk", &chunk)
}

/// A decided list's chunks as stored, made by [`encode_chunks`] (plain CPU work, for a blocking
/// thread) and written by [`store_encoded`].
pub(super) struct EncodedChunks(Vec<String>);

/// Encodes a decided list's chunks (rows in list order), on two threads when it has several.
/// A national list's rows name a million ids scattered in memory (their rank order is not the
/// order they were allocated in), and encoding them was the largest part of storing a close:
/// 0.21 s of 0.36 s on one thread (SQLite, 950,289 rows; 0.13 s is the commit), 0.13–0.22 s on
/// two (`encode_seconds` in the close's log, 1M-row closes on SQLite and PostgreSQL).
pub(super) fn encode_chunks(rows: &[FrozenRow]) -> Result<EncodedChunks> {
    debug_assert!(rows.is_sorted_by(|a, b| list_order(a, b).is_le()));
    let chunks: Vec<&[FrozenRow]> = rows.chunks(ROWS_PER_CHUNK).collect();
    let encode_all = |chunks: &[&[FrozenRow]]| {
        chunks
            .iter()
            .map(|c| encode_chunk(c))
            .collect::<Result<Vec<_>>>()
    };
    if chunks.len() < 2 {
        return encode_all(&chunks).map(EncodedChunks);
    }
    let (first, second) = chunks.split_at(chunks.len().div_ceil(2));
    std::thread::scope(|s| {
        let other = s.spawn(|| encode_all(second));
        let mut bodies = encode_all(first)?;
        let rest = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        bodies.extend(rest);
        Ok(EncodedChunks(bodies))
    })
}

/// Stores a decided list (rows in list order) inside the caller's transaction.
pub(super) async fn store<C: ConnectionTrait>(db: &C, list: &FrozenList) -> Result<()> {
    let chunks = encode_chunks(&list.rows)?;
    store_encoded(db, list, chunks).await
}

/// Stores a decided list whose chunks `chunks` are (see [`encode_chunks`]) inside the caller's
/// transaction.
pub(super) async fn store_encoded<C: ConnectionTrait>(
    db: &C,
    list: &FrozenList,
    chunks: EncodedChunks,
) -> Result<()> {
    let (championship, stage, period) = (&list.key.0, &list.key.1, list.key.2 as i32);
    frozen_list::Entity::insert(frozen_list::ActiveModel {
        championship_id: Set(championship.clone()),
        stage: Set(stage.clone()),
        period: Set(period),
        to_stage: Set(list.to_stage.clone()),
        decided_at: Set(list.decided_at),
        row_count: Set(list.rows.len() as i32),
        advanced_count: Set(list.advanced().count() as i32),
        chunk_count: Set(chunks.0.len() as i32),
        reasons: Set(encode("reasons", &list.reasons)?),
    })
    .exec(db)
    .await?;
    for (n, body) in chunks.0.into_iter().enumerate() {
        frozen_chunk::Entity::insert(frozen_chunk::ActiveModel {
            championship_id: Set(championship.clone()),
            stage: Set(stage.clone()),
            period: Set(period),
            chunk: Set(n as i32),
            body: Set(body),
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

fn header_key(header: &frozen_list::Model) -> PeriodKey {
    (
        header.championship_id.clone(),
        header.stage.clone(),
        u32::try_from(header.period).unwrap_or(0),
    )
}

/// The header's list with no rows: what every page shares.
fn empty_list(header: frozen_list::Model) -> Result<FrozenList> {
    let key = header_key(&header);
    let reasons: Vec<(String, String)> = decode(&key, "reasons", &header.reasons)?;
    Ok(FrozenList {
        key,
        to_stage: header.to_stage,
        decided_at: header.decided_at,
        reasons,
        rows: Vec::new(),
    })
}

/// The stored chunks `chunks` (all when `None`) of the list behind `header`, in order, each as
/// (chunk number, its rows); `reasons` is the list's reason count (to check the rows' indexes).
async fn read_chunks<C: ConnectionTrait>(
    db: &C,
    header: &frozen_list::Model,
    chunks: Option<Vec<i32>>,
    reasons: usize,
) -> Result<Vec<(i32, Vec<FrozenRow>)>> {
    let key = header_key(header);
    let mut query = frozen_chunk::Entity::find()
        .filter(frozen_chunk::Column::ChampionshipId.eq(&key.0))
        .filter(frozen_chunk::Column::Stage.eq(&key.1))
        .filter(frozen_chunk::Column::Period.eq(header.period));
    if let Some(numbers) = chunks {
        query = query.filter(frozen_chunk::Column::Chunk.is_in(numbers));
    }
    let stored = query
        .order_by_asc(frozen_chunk::Column::Chunk)
        .all(db)
        .await?;
    let mut out = Vec::with_capacity(stored.len());
    for c in stored {
        let chunk: Chunk<String> = decode(&key, "chunk", &c.body)?;
        let n = chunk.players.len();
        let ragged = || -> QualificationError {
            sea_orm::DbErr::Custom(format!(
                "frozen list {}/{}/{}: chunk {} has ragged columns or unknown reasons",
                key.0, key.1, key.2, c.chunk
            ))
            .into()
        };
        let (Some(ranks), Some(advanced), Some(points), Some(places), Some(row_reasons)) = (
            column(chunk.ranks, &chunk.rank_runs, n),
            column(chunk.advanced, &chunk.advanced_runs, n),
            column(chunk.points, &chunk.point_runs, n),
            column(chunk.places, &chunk.place_runs, n),
            column(chunk.reasons, &chunk.reason_runs, n),
        ) else {
            return Err(ragged());
        };
        if chunk.wins.len() != n
            || chunk.counted.len() != n
            || row_reasons.iter().any(|&r| r as usize >= reasons)
        {
            return Err(ragged());
        }
        let rows = chunk
            .players
            .into_iter()
            .enumerate()
            .map(|(i, rest)| FrozenRow {
                player_id: if chunk.prefix.is_empty() {
                    Arc::from(rest)
                } else {
                    Arc::from(format!("{}{rest}", chunk.prefix))
                },
                rank: ranks[i],
                advanced: advanced[i] != 0,
                points: points[i],
                wins: chunk.wins[i],
                counted_games: chunk.counted[i],
                places: places[i],
                reason: row_reasons[i],
            })
            .collect();
        out.push((c.chunk, rows));
    }
    Ok(out)
}

/// Reads the list behind `header` in full.
pub(super) async fn read<C: ConnectionTrait>(
    db: &C,
    header: frozen_list::Model,
) -> Result<FrozenList> {
    let rows = usize::try_from(header.row_count).unwrap_or(0);
    let mut list = empty_list(header.clone())?;
    let chunks = read_chunks(db, &header, None, list.reasons.len()).await?;
    list.rows.reserve(rows);
    for (_, rows) in chunks {
        list.rows.extend(rows);
    }
    Ok(list)
}

/// The places of a list's first row, without decoding the rest of its first chunk's rows.
async fn first_places<C: ConnectionTrait>(db: &C, key: &PeriodKey) -> Result<u32> {
    /// The places column, as values (older chunks) or as runs.
    #[derive(Deserialize)]
    struct Places {
        #[serde(default)]
        places: Vec<u32>,
        #[serde(default)]
        place_runs: Runs<u32>,
    }
    let Some(first) =
        frozen_chunk::Entity::find_by_id((key.0.clone(), key.1.clone(), key.2 as i32, 0))
            .one(db)
            .await?
    else {
        return Ok(0);
    };
    let chunk: Places = decode(key, "chunk", &first.body)?;
    Ok(chunk
        .place_runs
        .first()
        .map(|&(places, _)| places)
        .or_else(|| chunk.places.first().copied())
        .unwrap_or(0))
}

/// One page of the list of `key` (`None` when no list is decided there), reading only the chunks
/// the page's rows are in, and the first chunk's `places` column for the list's `places`.
pub(super) async fn load_page<C: ConnectionTrait>(
    db: &C,
    key: &PeriodKey,
    offset: usize,
    size: usize,
) -> Result<Option<pb::AdvancementList>> {
    let Some(header) =
        frozen_list::Entity::find_by_id((key.0.clone(), key.1.clone(), key.2 as i32))
            .one(db)
            .await?
    else {
        return Ok(None);
    };
    let total = usize::try_from(header.row_count).unwrap_or(0);
    let advanced = usize::try_from(header.advanced_count).unwrap_or(0);
    if offset > total {
        return Err(invalid("page_token", "points past the end of the list"));
    }
    let end = (offset + size).min(total);
    let list = empty_list(header.clone())?;
    let chunks = if end > offset {
        let wanted = (offset / ROWS_PER_CHUNK..=(end - 1) / ROWS_PER_CHUNK).map(|c| c as i32);
        read_chunks(db, &header, Some(wanted.collect()), list.reasons.len()).await?
    } else {
        Vec::new()
    };
    let places = match chunks.first() {
        Some((0, rows)) => rows.first().map_or(0, |r| r.places),
        _ => first_places(db, &list.key).await?,
    };
    let mut rows = Vec::with_capacity(end - offset);
    for (n, chunk) in chunks {
        let start = usize::try_from(n).unwrap_or(0) * ROWS_PER_CHUNK;
        let from = offset.saturating_sub(start).min(chunk.len());
        let to = end.saturating_sub(start).min(chunk.len());
        rows.extend(chunk.into_iter().take(to).skip(from));
    }
    Ok(Some(list.page_of(&rows, places, offset, total, advanced)))
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
    use sea_orm::{Database, Schema};

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
        let order: Vec<&str> = list.rows.iter().map(|r| &*r.player_id).collect();
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

    /// An in-memory database with the frozen-list tables.
    async fn database() -> sea_orm::DatabaseConnection {
        let db = Database::connect("sqlite::memory:").await.expect("sqlite");
        let schema = Schema::new(db.get_database_backend());
        for table in [
            schema.create_table_from_entity(frozen_list::Entity),
            schema.create_table_from_entity(frozen_chunk::Entity),
        ] {
            db.execute(&table).await.expect("table");
        }
        db
    }

    #[test]
    fn a_chunk_writes_the_ids_shared_prefix_once_at_a_character_boundary() {
        let rows = |ids: &[&str]| ids.iter().map(|p| row(p, 1, true, 0)).collect::<Vec<_>>();
        assert_eq!(shared_prefix(&rows(&["pl_01a2", "pl_01b7", "pl_01"])), 5);
        assert_eq!(shared_prefix(&rows(&["pl_1", "pl_1"])), 4);
        assert_eq!(shared_prefix(&rows(&["a", "b"])), 0);
        assert_eq!(shared_prefix(&rows(&[])), 0);
        // 棋 and 棒 share their first two UTF-8 bytes, not a character: nothing is shared.
        assert_eq!(shared_prefix(&rows(&["棋a", "棒a"])), 0);
        assert_eq!(shared_prefix(&rows(&["棋王a", "棋王b"])), 6);
        let body = encode_chunk(&rows(&["pl_01a2", "pl_01b7"])).expect("encode");
        assert!(
            body.starts_with(r#"{"prefix":"pl_01","players":["a2","b7"],"#),
            "{body}"
        );
    }

    /// Replaces a stored list's first chunk with `body`, as another version might have written it.
    async fn overwrite_first_chunk(db: &sea_orm::DatabaseConnection, key: &PeriodKey, body: &str) {
        frozen_chunk::Entity::update(frozen_chunk::ActiveModel {
            championship_id: Set(key.0.clone()),
            stage: Set(key.1.clone()),
            period: Set(key.2 as i32),
            chunk: Set(0),
            body: Set(body.to_owned()),
        })
        .exec(db)
        .await
        .expect("chunk replaced");
    }

    #[test]
    fn a_chunk_writes_the_columns_in_list_order_as_runs_of_equal_values() {
        let mut rows = vec![
            row("pl_a", 1, true, 0),
            row("pl_b", 2, true, 0),
            row("pl_c", 2, true, 0),
            row("pl_d", 4, false, 1),
        ];
        rows[3].places = 3;
        let body = encode_chunk(&rows).expect("encode");
        for column in [
            r#""rank_runs":[[1,1],[2,2],[4,1]]"#,
            r#""advanced_runs":[[1,3],[0,1]]"#,
            r#""point_runs":[[38,1],[36,2],[32,1]]"#,
            r#""place_runs":[[2,3],[3,1]]"#,
            r#""reason_runs":[[0,3],[1,1]]"#,
            r#""wins":[1,2,2,4]"#,
        ] {
            assert!(body.contains(column), "{column} in {body}");
        }
        for plain in [
            "\"ranks\"",
            "\"advanced\"",
            "\"points\"",
            "\"places\"",
            "\"reasons\"",
        ] {
            assert!(!body.contains(plain), "{plain} in {body}");
        }
        assert_eq!(
            column(Vec::new(), &[(7u32, 2), (9, 1)], 3),
            Some(vec![7, 7, 9])
        );
        assert_eq!(column(vec![7u32, 7, 9], &[], 3), Some(vec![7, 7, 9]));
        // Runs of the wrong total, or runs and values both: unreadable, never guessed.
        assert_eq!(column(Vec::new(), &[(7u32, 2)], 3), None);
        assert_eq!(column(vec![7u32, 7, 9], &[(7, 3)], 3), None);
        assert_eq!(column(vec![7u32], &[], 3), None);
    }

    #[tokio::test]
    async fn a_chunk_whose_runs_do_not_add_up_is_refused_as_unreadable() {
        let db = database().await;
        let whole = list(3);
        store(&db, &whole).await.expect("store");
        let short = r#"{"prefix":"p000000","players":["0","1","2"],"wins":[0,1,2],"counted":[0,1,2],
            "rank_runs":[[1,2]],"advanced_runs":[[1,3]],"point_runs":[[5,3]],"place_runs":[[30,3]],
            "reason_runs":[[0,3]]}"#;
        overwrite_first_chunk(&db, &whole.key, short).await;
        let error = load(&db, &whole.key).await.expect_err("ragged");
        assert!(error.to_string().contains("ragged columns"), "{error}");
    }

    #[tokio::test]
    async fn a_chunk_stored_before_prefixes_reads_as_it_did() {
        let db = database().await;
        let whole = list(3);
        store(&db, &whole).await.expect("store");
        // The chunk as an earlier version wrote it: whole ids, no prefix.
        let old = r#"{"players":["p0000000","p0000001","p0000002"],"ranks":[1,2,3],
            "advanced":[1,1,1],"points":[1000000,999999,999998],"wins":[0,1,2],
            "counted":[0,1,2],"places":[38,30,30],"reasons":[0,0,0]}"#;
        overwrite_first_chunk(&db, &whole.key, old).await;
        assert_eq!(load(&db, &whole.key).await.expect("load"), Some(whole));
    }

    /// A list over three chunks, its first row with places of its own (as a stage's first group).
    fn list(rows: usize) -> FrozenList {
        FrozenList {
            key: ("c1".into(), "haixuan".into(), 1),
            to_stage: "ruwei".into(),
            decided_at: DateTime::from_timestamp(1_780_000_000, 0).expect("instant"),
            reasons: vec![
                ("WITHIN_PLACES".into(), "inside".into()),
                ("OUTSIDE_PLACES".into(), "outside".into()),
            ],
            rows: (0..rows)
                .map(|i| FrozenRow {
                    player_id: format!("p{i:07}").into(),
                    rank: i as u32 + 1,
                    advanced: i < 1_000,
                    points: 1_000_000 - i as i64,
                    wins: (i % 50) as u32,
                    counted_games: (i % 60) as u32,
                    places: if i == 0 { 38 } else { 30 },
                    reason: u32::from(i >= 1_000),
                })
                .collect(),
        }
    }

    #[tokio::test]
    async fn a_page_reads_only_its_chunks_and_equals_the_same_page_of_the_whole_list() {
        let db = database().await;
        let rows = 2 * ROWS_PER_CHUNK + 18_928;
        let whole = list(rows);
        store(&db, &whole).await.expect("store");
        assert_eq!(
            load(&db, &whole.key).await.expect("load"),
            Some(whole.clone())
        );
        for (offset, size) in [
            (0, PAGE_ROWS),
            (ROWS_PER_CHUNK - 6, 10),
            (ROWS_PER_CHUNK, 1),
            (2 * ROWS_PER_CHUNK - 2, MAX_PAGE_ROWS),
            (rows - 1, 5),
            (rows, 5),
        ] {
            let page = load_page(&db, &whole.key, offset, size)
                .await
                .expect("page")
                .expect("decided");
            assert_eq!(
                page,
                whole.page(offset, size).expect("page"),
                "{offset}+{size}"
            );
            assert_eq!(
                (page.places, page.total_rows, page.advanced_count),
                (38, rows as u32, 1_000),
                "{offset}+{size}: the whole list's places and totals on every page"
            );
            let end = (offset + size).min(rows);
            assert_eq!(page.rows.len(), end - offset);
            assert_eq!(
                page_offset(&page.next_page_token).expect("token"),
                if end < rows { end } else { 0 },
            );
        }
        assert!(load_page(&db, &whole.key, rows + 1, 5).await.is_err());
        assert!(whole.page(rows + 1, 5).is_err());
        let undecided = ("c1".to_owned(), "haixuan".to_owned(), 2);
        assert_eq!(load_page(&db, &undecided, 0, 5).await.expect("read"), None);
    }

    #[test]
    fn page_tokens_round_trip_and_foreign_ones_are_refused() {
        for offset in [0, 1, 65_536, 999_999] {
            assert_eq!(page_offset(&page_token(offset)).expect("token"), offset);
        }
        assert_eq!(page_offset("").expect("top"), 0);
        for foreign in ["r", "r-1", "r01", "x5", "r5 ", "5"] {
            assert!(page_offset(foreign).is_err(), "{foreign:?}");
        }
        assert_eq!(page_size(0).expect("default"), PAGE_ROWS);
        assert_eq!(page_size(10_000).expect("most"), MAX_PAGE_ROWS);
        assert!(page_size(10_001).is_err());
    }
}
