//! The qualification service's frozen advancement lists (晋级名单), stored once per list instead of
//! once per player.
//!
//! A national period's list is a million players. Written as a million indexed rows, storing it
//! was most of a period's close (2.2 s of 4.8 s at 1M players on SQLite). A frozen list never
//! changes and is always read whole or from its top, so it is now one header row
//! (`qualification_frozen_lists`: target stage, decision time, counts, and the list's distinct
//! reasons) and its rows in list order as columnar JSON chunks (`qualification_frozen_chunks`,
//! format 1):
//!
//! ```json
//! {"players": ["p1", "p2"], "ranks": [1, 2], "advanced": [1, 0], "points": [30, 28],
//!  "wins": [10, 9], "counted": [12, 12], "places": [23, 23], "reasons": [0, 1]}
//! ```
//!
//! where `reasons` index the header's `reasons`, a JSON array of `[code, sentence]`. Up moves the
//! rows of `qualification_advancement` into this form (one chunk per list) and drops that table;
//! down moves them back.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, Statement, TransactionTrait};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationFrozenLists {
    Table,
    ChampionshipId,
    Stage,
    Period,
    ToStage,
    DecidedAt,
    RowCount,
    AdvancedCount,
    ChunkCount,
    Reasons,
}

#[derive(DeriveIden)]
enum QualificationFrozenChunks {
    Table,
    ChampionshipId,
    Stage,
    Period,
    Chunk,
    Body,
}

#[derive(DeriveIden)]
enum QualificationAdvancement {
    Table,
    ChampionshipId,
    Stage,
    Period,
    PlayerId,
    Rank,
    Advanced,
    Points,
    Wins,
    CountedGames,
    Reason,
    ReasonCode,
    ToStage,
    Places,
    DecidedAt,
}

/// One legacy row, as `qualification_advancement` held it.
struct LegacyRow {
    player_id: String,
    rank: i32,
    advanced: bool,
    points: i64,
    wins: i32,
    counted_games: i32,
    reason: String,
    reason_code: String,
    places: i32,
}

/// A list's shared values: target stage and decision time.
type ListHead = (String, chrono::DateTime<chrono::Utc>);
type ListKey = (String, String, i32);

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationFrozenChunks as C;
        use QualificationFrozenLists as L;
        manager
            .create_table(
                Table::create()
                    .table(L::Table)
                    .col(string_len(L::ChampionshipId, 40))
                    .col(string_len(L::Stage, 32))
                    .col(integer(L::Period))
                    .col(string_len(L::ToStage, 32))
                    .col(timestamp_with_time_zone(L::DecidedAt))
                    .col(integer(L::RowCount))
                    .col(integer(L::AdvancedCount))
                    .col(integer(L::ChunkCount))
                    .col(text(L::Reasons))
                    .primary_key(
                        Index::create()
                            .col(L::ChampionshipId)
                            .col(L::Stage)
                            .col(L::Period),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("qualification_frozen_lists_to_stage")
                    .table(L::Table)
                    .col(L::ChampionshipId)
                    .col(L::ToStage)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(C::Table)
                    .col(string_len(C::ChampionshipId, 40))
                    .col(string_len(C::Stage, 32))
                    .col(integer(C::Period))
                    .col(integer(C::Chunk))
                    .col(text(C::Body))
                    .primary_key(
                        Index::create()
                            .col(C::ChampionshipId)
                            .col(C::Stage)
                            .col(C::Period)
                            .col(C::Chunk),
                    )
                    .to_owned(),
            )
            .await?;

        // Move the lists stored row by row.
        let db = manager.get_connection();
        let txn = db.begin().await?;
        let backend = txn.get_database_backend();
        let select = Query::select()
            .columns([
                QualificationAdvancement::ChampionshipId,
                QualificationAdvancement::Stage,
                QualificationAdvancement::Period,
                QualificationAdvancement::PlayerId,
                QualificationAdvancement::Rank,
                QualificationAdvancement::Advanced,
                QualificationAdvancement::Points,
                QualificationAdvancement::Wins,
                QualificationAdvancement::CountedGames,
                QualificationAdvancement::Reason,
                QualificationAdvancement::ReasonCode,
                QualificationAdvancement::ToStage,
                QualificationAdvancement::Places,
                QualificationAdvancement::DecidedAt,
            ])
            .from(QualificationAdvancement::Table)
            .to_owned();
        let mut lists: BTreeMap<ListKey, (ListHead, Vec<LegacyRow>)> = BTreeMap::new();
        for r in txn.query_all_raw(backend.build(&select)).await? {
            let key: ListKey = (
                r.try_get("", "championship_id")?,
                r.try_get("", "stage")?,
                r.try_get("", "period")?,
            );
            let head: ListHead = (r.try_get("", "to_stage")?, r.try_get("", "decided_at")?);
            lists
                .entry(key)
                .or_insert_with(|| (head, Vec::new()))
                .1
                .push(LegacyRow {
                    player_id: r.try_get("", "player_id")?,
                    rank: r.try_get("", "rank")?,
                    advanced: r.try_get("", "advanced")?,
                    points: r.try_get("", "points")?,
                    wins: r.try_get("", "wins")?,
                    counted_games: r.try_get("", "counted_games")?,
                    reason: r.try_get("", "reason")?,
                    reason_code: r.try_get("", "reason_code")?,
                    places: r.try_get("", "places")?,
                });
        }
        for ((championship, stage, period), ((to_stage, decided_at), mut rows)) in lists {
            // List order: ranked players by rank and player id, then the unranked by player id.
            rows.sort_by(|a, b| {
                (a.rank == 0, a.rank, &a.player_id).cmp(&(b.rank == 0, b.rank, &b.player_id))
            });
            let mut reasons: Vec<(&str, &str)> = Vec::new();
            let mut index: HashMap<(&str, &str), usize> = HashMap::new();
            let mut reason_of = Vec::with_capacity(rows.len());
            for r in &rows {
                let pair = (r.reason_code.as_str(), r.reason.as_str());
                let i = *index.entry(pair).or_insert_with(|| {
                    reasons.push(pair);
                    reasons.len() - 1
                });
                reason_of.push(i);
            }
            let body = json!({
                "players": rows.iter().map(|r| &r.player_id).collect::<Vec<_>>(),
                "ranks": rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
                "advanced": rows.iter().map(|r| u8::from(r.advanced)).collect::<Vec<_>>(),
                "points": rows.iter().map(|r| r.points).collect::<Vec<_>>(),
                "wins": rows.iter().map(|r| r.wins).collect::<Vec<_>>(),
                "counted": rows.iter().map(|r| r.counted_games).collect::<Vec<_>>(),
                "places": rows.iter().map(|r| r.places).collect::<Vec<_>>(),
                "reasons": reason_of,
            });
            let advanced = rows.iter().filter(|r| r.advanced).count() as i32;
            let insert = Query::insert()
                .into_table(L::Table)
                .columns([
                    L::ChampionshipId,
                    L::Stage,
                    L::Period,
                    L::ToStage,
                    L::DecidedAt,
                    L::RowCount,
                    L::AdvancedCount,
                    L::ChunkCount,
                    L::Reasons,
                ])
                .values_panic([
                    championship.clone().into(),
                    stage.clone().into(),
                    period.into(),
                    to_stage.into(),
                    decided_at.into(),
                    (rows.len() as i32).into(),
                    advanced.into(),
                    1.into(),
                    json!(reasons).to_string().into(),
                ])
                .to_owned();
            txn.execute_raw(backend.build(&insert)).await?;
            let insert = Query::insert()
                .into_table(C::Table)
                .columns([C::ChampionshipId, C::Stage, C::Period, C::Chunk, C::Body])
                .values_panic([
                    championship.into(),
                    stage.into(),
                    period.into(),
                    0.into(),
                    body.to_string().into(),
                ])
                .to_owned();
            txn.execute_raw(backend.build(&insert)).await?;
        }
        txn.commit().await?;
        manager
            .drop_table(
                Table::drop()
                    .table(QualificationAdvancement::Table)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationAdvancement as A;
        manager
            .create_table(
                Table::create()
                    .table(A::Table)
                    .col(string_len(A::ChampionshipId, 40))
                    .col(string_len(A::Stage, 32))
                    .col(integer(A::Period))
                    .col(string_len(A::PlayerId, 128))
                    .col(integer(A::Rank))
                    .col(boolean(A::Advanced))
                    .col(big_integer(A::Points))
                    .col(integer(A::Wins))
                    .col(integer(A::CountedGames))
                    .col(text(A::Reason))
                    .col(string_len(A::ReasonCode, 32))
                    .col(string_len(A::ToStage, 32))
                    .col(integer(A::Places))
                    .col(timestamp_with_time_zone(A::DecidedAt))
                    .primary_key(
                        Index::create()
                            .col(A::ChampionshipId)
                            .col(A::Stage)
                            .col(A::Period)
                            .col(A::PlayerId),
                    )
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        let txn = db.begin().await?;
        let backend = txn.get_database_backend();
        let heads = txn
            .query_all_raw(Statement::from_string(
                backend,
                "SELECT championship_id, stage, period, to_stage, decided_at, reasons \
                 FROM qualification_frozen_lists",
            ))
            .await?;
        let unreadable = |what: &str| DbErr::Migration(format!("frozen list: unreadable {what}"));
        for h in heads {
            let championship: String = h.try_get("", "championship_id")?;
            let stage: String = h.try_get("", "stage")?;
            let period: i32 = h.try_get("", "period")?;
            let to_stage: String = h.try_get("", "to_stage")?;
            let decided_at: chrono::DateTime<chrono::Utc> = h.try_get("", "decided_at")?;
            let reasons: Vec<(String, String)> =
                serde_json::from_str(&h.try_get::<String>("", "reasons")?)
                    .map_err(|_| unreadable("reasons"))?;
            let chunks = txn
                .query_all_raw(
                    backend.build(
                        Query::select()
                            .column(QualificationFrozenChunks::Body)
                            .from(QualificationFrozenChunks::Table)
                            .and_where(
                                Expr::col(QualificationFrozenChunks::ChampionshipId)
                                    .eq(championship.clone()),
                            )
                            .and_where(
                                Expr::col(QualificationFrozenChunks::Stage).eq(stage.clone()),
                            )
                            .and_where(Expr::col(QualificationFrozenChunks::Period).eq(period))
                            .order_by(QualificationFrozenChunks::Chunk, Order::Asc),
                    ),
                )
                .await?;
            for c in chunks {
                let body: Value = serde_json::from_str(&c.try_get::<String>("", "body")?)
                    .map_err(|_| unreadable("chunk"))?;
                let column = |name: &str| -> Result<Vec<Value>, DbErr> {
                    body.get(name)
                        .and_then(Value::as_array)
                        .cloned()
                        .ok_or_else(|| unreadable(name))
                };
                let players = column("players")?;
                let [ranks, advanced, points, wins, counted, places, reason_of] = [
                    "ranks", "advanced", "points", "wins", "counted", "places", "reasons",
                ]
                .map(|name| -> Result<Vec<i64>, DbErr> {
                    column(name)?
                        .iter()
                        .map(|v| v.as_i64().ok_or_else(|| unreadable(name)))
                        .collect()
                });
                let (ranks, advanced, points, wins, counted, places, reason_of) = (
                    ranks?, advanced?, points?, wins?, counted?, places?, reason_of?,
                );
                for batch in (0..players.len()).collect::<Vec<_>>().chunks(1_000) {
                    let mut insert = Query::insert()
                        .into_table(A::Table)
                        .columns([
                            A::ChampionshipId,
                            A::Stage,
                            A::Period,
                            A::PlayerId,
                            A::Rank,
                            A::Advanced,
                            A::Points,
                            A::Wins,
                            A::CountedGames,
                            A::Reason,
                            A::ReasonCode,
                            A::ToStage,
                            A::Places,
                            A::DecidedAt,
                        ])
                        .to_owned();
                    for &i in batch {
                        let at = |v: &Vec<i64>| v.get(i).copied().ok_or_else(|| unreadable("row"));
                        let (code, sentence) = usize::try_from(at(&reason_of)?)
                            .ok()
                            .and_then(|r| reasons.get(r))
                            .cloned()
                            .ok_or_else(|| unreadable("reason"))?;
                        let player = players
                            .get(i)
                            .and_then(Value::as_str)
                            .ok_or_else(|| unreadable("player"))?;
                        insert.values_panic([
                            championship.clone().into(),
                            stage.clone().into(),
                            period.into(),
                            player.into(),
                            (at(&ranks)? as i32).into(),
                            (at(&advanced)? != 0).into(),
                            at(&points)?.into(),
                            (at(&wins)? as i32).into(),
                            (at(&counted)? as i32).into(),
                            sentence.into(),
                            code.into(),
                            to_stage.clone().into(),
                            (at(&places)? as i32).into(),
                            decided_at.into(),
                        ]);
                    }
                    txn.execute_raw(backend.build(&insert)).await?;
                }
            }
        }
        txn.commit().await?;
        manager
            .drop_table(
                Table::drop()
                    .table(QualificationFrozenChunks::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(QualificationFrozenLists::Table)
                    .to_owned(),
            )
            .await
    }
}
