//! Migrations that move data: run on a database holding the old form, checked on both databases.

use qiwang_blackbox::{backends, fresh_data_dir, fresh_database};
use qiwang_migrations::{Migrator, MigratorTrait};
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};

/// The legacy rows, one per player: (championship, stage, period, player, rank, advanced, points,
/// reason, code, to stage, places).
#[rustfmt::skip]
type Legacy = (String, String, i32, String, i32, bool, i64, String, String, String, i32);

/// (stage, period, player, rank, advanced, points, reason, code, places).
type LegacyInput = (
    &'static str,
    i32,
    &'static str,
    i32,
    bool,
    i64,
    &'static str,
    &'static str,
    i32,
);

#[rustfmt::skip]
const LEGACY: &[LegacyInput] = &[
    // (stage, period, player, rank, advanced, points, reason, code, places), not in list order.
    ("online", 1, "p-c", 0, false, 4, "2 counted games, 5 needed", "TOO_FEW_GAMES", 2),
    ("online", 1, "p-b", 2, true, 20, "tied at the cut", "TIED_AT_CUT", 2),
    ("online", 1, "p-d", 3, false, 12, "outside the 2 places", "OUTSIDE_PLACES", 2),
    ("online", 1, "p-a", 2, true, 20, "tied at the cut", "TIED_AT_CUT", 2),
    ("online", 1, "p-e", 1, true, 24, "within the 2 places", "WITHIN_PLACES", 2),
    ("knockout", 0, "p-e", 1, true, 0, "won round 2 of 2 rounds", "KNOCKOUT_WINNER", 1),
    ("knockout", 0, "p-a", 0, false, 0, "knocked out in round 1", "KNOCKED_OUT", 1),
];

async fn legacy_rows(db: &impl ConnectionTrait) -> Vec<Legacy> {
    db.query_all_raw(Statement::from_string(
        db.get_database_backend(),
        "SELECT championship_id, stage, period, player_id, rank, advanced, points, reason, \
         reason_code, to_stage, places FROM qualification_advancement \
         ORDER BY stage, period, player_id",
    ))
    .await
    .expect("legacy rows")
    .into_iter()
    .map(|r| {
        (
            r.try_get("", "championship_id").expect("column"),
            r.try_get("", "stage").expect("column"),
            r.try_get("", "period").expect("column"),
            r.try_get("", "player_id").expect("column"),
            r.try_get("", "rank").expect("column"),
            r.try_get("", "advanced").expect("column"),
            r.try_get("", "points").expect("column"),
            r.try_get("", "reason").expect("column"),
            r.try_get("", "reason_code").expect("column"),
            r.try_get("", "to_stage").expect("column"),
            r.try_get("", "places").expect("column"),
        )
    })
    .collect()
}

/// A fresh database on `backend` migrated up to just before `migration`, and its data directory.
async fn just_before(
    backend: &qiwang_blackbox::Backend,
    migration: &str,
) -> (
    sea_orm::DatabaseConnection,
    std::path::PathBuf,
    Option<qiwang_blackbox::DatabaseDropper>,
) {
    let dir = fresh_data_dir();
    std::fs::create_dir_all(&dir).expect("data dir");
    let (url, dropper) = fresh_database(backend, &dir).await;
    let db = qiwang_infra::db::connect(&url).await.expect("connect");
    let before = Migrator::migrations()
        .iter()
        .position(|m| m.name() == migration)
        .unwrap_or_else(|| panic!("{migration} is in the migrator"));
    Migrator::up(&db, Some(before as u32))
        .await
        .expect("migrate to before it");
    (db, dir, dropper)
}

/// The position of the migration that moved per-player rows into frozen lists.
fn frozen_lists_migration() -> usize {
    Migrator::migrations()
        .iter()
        .position(|m| m.name() == "m20261204_000001_qualification_frozen_lists")
        .expect("the frozen-list migration is in the migrator")
}

/// Frozen advancement lists: up moves per-player rows into one header and chunk per list, in list
/// order with each reason stored once; down moves them back unchanged.
#[tokio::test]
async fn frozen_lists_move_per_player_rows_and_back() {
    for backend in backends() {
        let dir = fresh_data_dir();
        std::fs::create_dir_all(&dir).expect("data dir");
        let (url, _dropper) = fresh_database(&backend, &dir).await;
        let db = qiwang_infra::db::connect(&url).await.expect("connect");
        let frozen = frozen_lists_migration();
        let before_frozen = frozen as u32;
        Migrator::up(&db, Some(before_frozen))
            .await
            .expect("migrate to the per-player form");
        for (stage, period, player, rank, advanced, points, reason, code, places) in LEGACY {
            let to = if *stage == "online" {
                "knockout"
            } else {
                "final"
            };
            db.execute_raw(Statement::from_sql_and_values(
                db.get_database_backend(),
                match db.get_database_backend() {
                    sea_orm::DbBackend::Postgres => {
                        "INSERT INTO qualification_advancement VALUES \
                         ($1, $2, $3, $4, $5, $6, $7, 0, 0, $8, $9, $10, $11, $12)"
                    }
                    _ => {
                        "INSERT INTO qualification_advancement VALUES \
                         (?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?)"
                    }
                },
                [
                    "c1".into(),
                    (*stage).into(),
                    (*period).into(),
                    (*player).into(),
                    (*rank).into(),
                    (*advanced).into(),
                    (*points).into(),
                    (*reason).into(),
                    (*code).into(),
                    to.into(),
                    (*places).into(),
                    chrono::DateTime::from_timestamp(1_780_000_000, 0)
                        .expect("instant")
                        .into(),
                ],
            ))
            .await
            .expect("legacy row");
        }
        let legacy = legacy_rows(&db).await;
        assert_eq!(legacy.len(), LEGACY.len(), "{backend}");

        Migrator::up(&db, Some(1)).await.expect("migrate up");
        let heads = db
            .query_all_raw(Statement::from_string(
                db.get_database_backend(),
                "SELECT stage, period, to_stage, row_count, advanced_count, chunk_count, reasons \
                 FROM qualification_frozen_lists ORDER BY stage",
            ))
            .await
            .expect("headers");
        let heads: Vec<(String, i32, String, i32, i32, i32, Value)> = heads
            .into_iter()
            .map(|r| {
                let reasons: String = r.try_get("", "reasons").expect("column");
                (
                    r.try_get("", "stage").expect("column"),
                    r.try_get("", "period").expect("column"),
                    r.try_get("", "to_stage").expect("column"),
                    r.try_get("", "row_count").expect("column"),
                    r.try_get("", "advanced_count").expect("column"),
                    r.try_get("", "chunk_count").expect("column"),
                    serde_json::from_str(&reasons).expect("reasons JSON"),
                )
            })
            .collect();
        assert_eq!(
            heads,
            vec![
                (
                    "knockout".into(),
                    0,
                    "final".into(),
                    2,
                    1,
                    1,
                    json!([
                        ["KNOCKOUT_WINNER", "won round 2 of 2 rounds"],
                        ["KNOCKED_OUT", "knocked out in round 1"]
                    ])
                ),
                (
                    "online".into(),
                    1,
                    "knockout".into(),
                    5,
                    3,
                    1,
                    json!([
                        ["WITHIN_PLACES", "within the 2 places"],
                        ["TIED_AT_CUT", "tied at the cut"],
                        ["OUTSIDE_PLACES", "outside the 2 places"],
                        ["TOO_FEW_GAMES", "2 counted games, 5 needed"]
                    ])
                ),
            ],
            "{backend}"
        );
        let body: String = db
            .query_one_raw(Statement::from_string(
                db.get_database_backend(),
                "SELECT body FROM qualification_frozen_chunks WHERE stage = 'online'",
            ))
            .await
            .expect("chunk")
            .expect("one chunk")
            .try_get("", "body")
            .expect("column");
        let body: Value = serde_json::from_str(&body).expect("chunk JSON");
        assert_eq!(
            body,
            json!({
                "players": ["p-e", "p-a", "p-b", "p-d", "p-c"],
                "ranks": [1, 2, 2, 3, 0],
                "advanced": [1, 1, 1, 0, 0],
                "points": [24, 20, 20, 12, 4],
                "wins": [0, 0, 0, 0, 0],
                "counted": [0, 0, 0, 0, 0],
                "places": [2, 2, 2, 2, 2],
                "reasons": [0, 1, 1, 2, 3],
            }),
            "{backend}: rows in list order, each reason stored once"
        );

        Migrator::down(&db, Some(1)).await.expect("migrate down");
        assert_eq!(
            legacy_rows(&db).await,
            legacy,
            "{backend}: down restores every row"
        );
        db.close().await.expect("close");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// How PostgreSQL stores frozen-list chunk bodies (`pg_attribute.attstorage`); `None` on SQLite.
async fn chunk_storage(db: &impl ConnectionTrait) -> Option<String> {
    if db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return None;
    }
    let row = db
        .query_one_raw(Statement::from_string(
            sea_orm::DbBackend::Postgres,
            "SELECT attstorage::text AS storage FROM pg_attribute \
             WHERE attrelid = 'qualification_frozen_chunks'::regclass AND attname = 'body'",
        ))
        .await
        .expect("query")
        .expect("the body column");
    Some(row.try_get("", "storage").expect("column"))
}

/// Frozen-list chunks are stored uncompressed on PostgreSQL (TOAST's default compression made a
/// national close's store slow); down restores PostgreSQL's default. On SQLite both run and
/// change nothing.
#[tokio::test]
async fn frozen_chunks_are_stored_uncompressed_on_postgresql_and_back() {
    for backend in backends() {
        let (db, dir, _dropper) = just_before(
            &backend,
            "m20261204_000003_qualification_frozen_chunk_storage",
        )
        .await;
        let default = chunk_storage(&db).await;
        Migrator::up(&db, Some(1)).await.expect("migrate up");
        let pg = db.get_database_backend() == sea_orm::DbBackend::Postgres;
        assert_eq!(
            chunk_storage(&db).await,
            pg.then(|| "e".to_owned()),
            "{backend}: external, uncompressed"
        );
        Migrator::down(&db, Some(1)).await.expect("migrate down");
        assert_eq!(
            default,
            pg.then(|| "x".to_owned()),
            "{backend}: the default"
        );
        assert_eq!(
            chunk_storage(&db).await,
            default,
            "{backend}: down restores it"
        );
        db.close().await.expect("close");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Per-period change sequences: up starts every period's sequence at the old counter's value
/// (above every value stored under it) and drops the counter; down recreates the counter at the
/// highest period value.
#[tokio::test]
async fn period_sequences_start_at_the_old_counter_and_back() {
    for backend in backends() {
        let (db, dir, _dropper) =
            just_before(&backend, "m20261207_000002_qualification_period_sequences").await;
        for sql in [
            "UPDATE qualification_counters SET value = 41 WHERE name = 'changes'",
            "INSERT INTO qualification_periods (championship_id, stage, period, open, closed, \
             changed_at) VALUES ('c1', 'haixuan', 1, true, false, '2026-12-07 00:00:00+00'), \
             ('c1', 'haixuan', 2, true, true, '2026-12-07 00:00:00+00')",
        ] {
            db.execute_unprepared(sql).await.expect("old form");
        }
        let one = |sql: &'static str| {
            let db = &db;
            async move {
                db.query_one_raw(Statement::from_string(db.get_database_backend(), sql))
                    .await
                    .map(|row| row.and_then(|r| r.try_get_by_index::<i64>(0).ok()))
            }
        };
        Migrator::up(&db, Some(1)).await.expect("migrate up");
        assert_eq!(
            one("SELECT MIN(seq) FROM qualification_periods").await.ok(),
            Some(Some(41)),
            "{backend}"
        );
        assert_eq!(
            one("SELECT MAX(seq) FROM qualification_periods").await.ok(),
            Some(Some(41)),
            "{backend}"
        );
        assert!(
            one("SELECT value FROM qualification_counters")
                .await
                .is_err(),
            "{backend}: the counter is gone"
        );
        db.execute_unprepared("UPDATE qualification_periods SET seq = 57 WHERE period = 2")
            .await
            .expect("a later write");
        Migrator::down(&db, Some(1)).await.expect("migrate down");
        assert_eq!(
            one("SELECT value FROM qualification_counters WHERE name = 'changes'")
                .await
                .ok(),
            Some(Some(57)),
            "{backend}"
        );
        assert!(
            one("SELECT seq FROM qualification_periods").await.is_err(),
            "{backend}: the column is gone"
        );
        db.close().await.expect("close");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
