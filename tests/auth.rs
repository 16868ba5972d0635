//! Authentication and authorization at the gRPC edge: every call except health and reflection
//! needs a valid JWT; the wrong role is PERMISSION_DENIED.

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use qiwang_blackbox::{backends, chinese_player, spawn_app, with_token};
use qiwang_infra::auth::{Claims, Role};
use qiwang_proto::registration::v1 as pb;
use tonic::Code;
use tonic_health::pb::health_client::HealthClient;

fn forged(secret: &[u8], exp_offset: i64) -> String {
    let now = jsonwebtoken::get_current_timestamp() as i64;
    let claims = Claims {
        sub: "org-1".into(),
        role: Role::Organizer,
        platform: None,
        iss: "qiwang".into(),
        aud: "qiwang".into(),
        iat: (now - 7200) as u64,
        exp: (now + exp_offset) as u64,
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(secret).expect("key"),
    )
    .expect("encode")
}

#[tokio::test]
async fn calls_without_a_valid_token_are_unauthenticated() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let mut client = app.registration().await;
        let status = client
            .list_presets(pb::ListPresetsRequest {})
            .await
            .expect_err("no token");
        assert_eq!(status.code(), Code::Unauthenticated, "{backend}");

        let secret = std::fs::read_to_string(app.settings.data_dir.join("dev-jwt-secret"))
            .expect("dev secret");
        use base64::Engine;
        let secret = base64::engine::general_purpose::STANDARD
            .decode(secret.trim())
            .expect("base64");
        // Sanity: a token forged with the right key and a future expiry is accepted…
        client
            .list_presets(with_token(&forged(&secret, 600), pb::ListPresetsRequest {}))
            .await
            .expect("valid forged token");
        // …an expired one is not…
        let status = client
            .list_presets(with_token(
                &forged(&secret, -600),
                pb::ListPresetsRequest {},
            ))
            .await
            .expect_err("expired");
        assert_eq!(status.code(), Code::Unauthenticated, "{backend}");
        assert!(
            status.message().contains("expired"),
            "{backend}: {}",
            status.message()
        );
        // …nor one signed with another key, nor garbage, nor a non-Bearer header.
        let status = client
            .list_presets(with_token(
                &forged(b"not-the-deployment-key-0123456789", 600),
                pb::ListPresetsRequest {},
            ))
            .await
            .expect_err("other key");
        assert_eq!(status.code(), Code::Unauthenticated, "{backend}");
        let status = client
            .list_presets(with_token("not.a.jwt", pb::ListPresetsRequest {}))
            .await
            .expect_err("garbage");
        assert_eq!(status.code(), Code::Unauthenticated, "{backend}");
        let mut request = tonic::Request::new(pb::ListPresetsRequest {});
        request
            .metadata_mut()
            .insert("authorization", "Basic b3JnOnB3".parse().expect("header"));
        assert_eq!(
            client
                .list_presets(request)
                .await
                .expect_err("basic")
                .code(),
            Code::Unauthenticated,
            "{backend}"
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn the_wrong_role_is_permission_denied_and_changes_nothing() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let mut client = app.registration().await;
        for role in [Role::Referee, Role::Partner, Role::Federation] {
            let token = app.token(role, "someone");
            let status = client
                .register_player(with_token(&token, chinese_player("某人", "19900101", 11)))
                .await
                .expect_err("role");
            assert_eq!(status.code(), Code::PermissionDenied, "{backend} {role}");
        }
        let federation = app.token(Role::Federation, "cxa");
        let status = client
            .list_players(with_token(&federation, pb::ListPlayersRequest::default()))
            .await
            .expect_err("federation");
        assert_eq!(status.code(), Code::PermissionDenied, "{backend}");
        let org = app.token(Role::Organizer, "org-1");
        let players = client
            .list_players(with_token(&org, pb::ListPlayersRequest::default()))
            .await
            .expect("list")
            .into_inner();
        assert!(
            players.players.is_empty(),
            "{backend}: refused calls stored nothing"
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn health_and_reflection_need_no_token() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    let mut health = HealthClient::new(app.channel().await);
    for service in ["", qiwang::REGISTRATION_SERVICE] {
        let reply = health
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.into(),
            })
            .await
            .expect("health")
            .into_inner();
        assert_eq!(
            reply.status,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32,
            "{service:?}"
        );
    }

    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    let mut reflection = ServerReflectionClient::new(app.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut stream = reflection
        .server_reflection_info(tokio_stream::iter(vec![request]))
        .await
        .expect("reflection")
        .into_inner();
    let reply = stream.message().await.expect("message").expect("one reply");
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else {
        panic!("unexpected reply")
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(
        names.contains(&qiwang::REGISTRATION_SERVICE.to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"grpc.health.v1.Health".to_owned()),
        "{names:?}"
    );
    app.stop().await;
}
