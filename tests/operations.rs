//! Operations: a restart loses no acknowledged write. (The binary's own CLI is tested in
//! `services/qiwang/tests/cli.rs`, where Cargo provides its path.)

use qiwang_blackbox::{backends, chinese_player, spawn_app, with_token};
use qiwang_infra::auth::Role;
use qiwang_proto::registration::v1 as pb;

#[tokio::test]
async fn acknowledged_writes_survive_a_restart() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let mut ids = Vec::new();
        for seq in 0..20u32 {
            let player = client
                .register_player(with_token(
                    &org,
                    chinese_player("选手", "19900101", 100 + seq),
                ))
                .await
                .expect("register")
                .into_inner();
            ids.push(player.id);
        }
        let app = app.restart().await;
        // The development key persists in the data directory, so the old token still works.
        let mut client = app.registration().await;
        for id in &ids {
            client
                .get_player(with_token(&org, pb::GetPlayerRequest { id: id.clone() }))
                .await
                .unwrap_or_else(|s| panic!("{backend}: {id} lost: {s:?}"));
        }
        app.stop().await;
    }
}

#[tokio::test]
async fn metrics_are_scrapeable_and_count_requests_by_rpc_and_code() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    let mut client = app.registration().await;
    let org = app.token(Role::Organizer, "org-1");
    client
        .list_presets(with_token(&org, pb::ListPresetsRequest {}))
        .await
        .expect("presets");
    let _ = client
        .get_player(with_token(
            &org,
            pb::GetPlayerRequest {
                id: "nobody".into(),
            },
        ))
        .await;
    let _ = app
        .graphql(Some(&org), "{ me { subject } }", serde_json::json!({}))
        .await;
    let text = app.metrics().await;
    assert!(
        text.contains("qiwang_requests_total{protocol=\"grpc\",method=\"/qiwang.registration.v1.RegistrationService/ListPresets\",code=\"OK\"} 1"),
        "{text}"
    );
    assert!(
        text.contains(
            "method=\"/qiwang.registration.v1.RegistrationService/GetPlayer\",code=\"NOT_FOUND\"} 1"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "qiwang_requests_total{protocol=\"http\",method=\"/graphql\",code=\"200\"} 1"
        ),
        "{text}"
    );
    assert!(
        text.contains("qiwang_request_duration_seconds_bucket"),
        "{text}"
    );
    app.stop().await;
}
