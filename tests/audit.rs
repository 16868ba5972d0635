//! The tamper-evident audit logs (R-DIS-3): every organizer decision is chained to the one before
//! it, and the check names the first entry that was edited or follows a removed one. SQLite, and
//! PostgreSQL when configured.

use qiwang_blackbox::{backends, championship_from, preset_with_window, spawn_app};
use qiwang_infra::audit::{ChainCheck, check_chain};
use sea_orm::{ConnectionTrait, Statement};

#[tokio::test]
async fn r_dis_3_an_edited_or_removed_audit_entry_breaks_the_chain_where_it_was() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        for _ in 0..3 {
            championship_from(&app, preset_with_window("go-2025", -1, 1)).await;
        }
        let db = qiwang_infra::db::connect(&app.settings.database_url())
            .await
            .expect("database");
        let chain = qiwang_registration::AUDIT_CHAIN;
        let ids: Vec<i64> = db
            .query_all_raw(Statement::from_string(
                db.get_database_backend(),
                "SELECT id FROM registration_audit ORDER BY id".to_owned(),
            ))
            .await
            .expect("ids")
            .iter()
            .map(|r| r.try_get::<i64>("", "id").expect("id"))
            .collect();
        assert_eq!(ids.len(), 3, "{backend}");
        match check_chain(&db, &chain).await.expect("check") {
            ChainCheck::Intact { entries } => assert_eq!(entries, 3, "{backend}"),
            ChainCheck::Broken(b) => panic!("{backend}: an untouched log is broken: {b}"),
        }
        let run = |sql: String| {
            let db = db.clone();
            async move {
                db.execute_raw(Statement::from_string(db.get_database_backend(), sql))
                    .await
                    .expect("tamper");
            }
        };
        // Someone edits the second decision in the database.
        run(format!(
            "UPDATE registration_audit SET detail = 'nothing happened' WHERE id = {}",
            ids[1]
        ))
        .await;
        match check_chain(&db, &chain).await.expect("check") {
            ChainCheck::Broken(b) => {
                assert_eq!(b.id, ids[1], "{backend}: {b}");
                assert!(b.why.contains("content"), "{backend}: {b}");
            }
            other => panic!("{backend}: an edit went unnoticed: {other:?}"),
        }
        // …and then removes it: the entry after it no longer follows.
        run(format!(
            "DELETE FROM registration_audit WHERE id = {}",
            ids[1]
        ))
        .await;
        match check_chain(&db, &chain).await.expect("check") {
            ChainCheck::Broken(b) => {
                assert_eq!(b.id, ids[2], "{backend}: {b}");
                assert!(b.why.contains("previous hash"), "{backend}: {b}");
            }
            other => panic!("{backend}: a removal went unnoticed: {other:?}"),
        }
        db.close().await.expect("close");
        app.stop().await;
    }
}
