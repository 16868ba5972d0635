//! The tamper-evident audit logs (R-DIS-3): every organizer decision is chained to the one before
//! it, and the check names the first entry that was edited or follows a removed one. SQLite, and
//! PostgreSQL when configured.

use qiwang_blackbox::{backends, championship_from, preset_with_window, spawn_app};
use qiwang_infra::audit::{ChainCheck, check_chain};
use qiwang_infra::auth::Role;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::json;

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
        // Organizers read the log through GraphQL, a page at a time, every link intact.
        let org = app.token(Role::Organizer, "org-1");
        let log = "query($a: String) { auditLog(service: REGISTRATION, after: $a, size: 2) { entries { seq action actor intact } nextCursor } }";
        let first = app.graphql(Some(&org), log, json!({})).await;
        let page = &first["data"]["auditLog"];
        assert_eq!(
            page["entries"].as_array().map(Vec::len),
            Some(2),
            "{backend}: {first}"
        );
        assert_eq!(
            page["entries"][0]["action"], "championship.create",
            "{backend}: {first}"
        );
        assert_eq!(page["entries"][0]["actor"], "org-1");
        let rest = app
            .graphql(Some(&org), log, json!({ "a": page["nextCursor"] }))
            .await;
        let entries = rest["data"]["auditLog"]["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(entries.len(), 1, "{backend}: {rest}");
        assert!(rest["data"]["auditLog"]["nextCursor"].is_null(), "{rest}");
        let player = app.token(Role::Player, "pl_x");
        let denied = app.graphql(Some(&player), log, json!({})).await;
        assert_eq!(
            denied["errors"][0]["extensions"]["code"], "PERMISSION_DENIED",
            "{backend}: {denied}"
        );
        let all = "{ auditLog(service: REGISTRATION) { entries { seq intact } } }";
        let intact = |r: &serde_json::Value| -> Vec<bool> {
            r["data"]["auditLog"]["entries"]
                .as_array()
                .map(|e| e.iter().map(|x| x["intact"] == true).collect())
                .unwrap_or_default()
        };
        assert_eq!(
            intact(&app.graphql(Some(&org), all, json!({})).await),
            [true, true, true]
        );

        // Someone edits the second decision in the database.
        run(format!(
            "UPDATE registration_audit SET detail = 'nothing happened' WHERE id = {}",
            ids[1]
        ))
        .await;
        assert_eq!(
            intact(&app.graphql(Some(&org), all, json!({})).await),
            [true, false, true],
            "{backend}: the console shows the edited entry"
        );
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
