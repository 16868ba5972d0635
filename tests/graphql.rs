//! The GraphQL gateway, used as the admin console and players use it.

use qiwang_blackbox::{backends, championship_from, preset_with_window, resident_id, spawn_app};
use qiwang_infra::auth::Role;
use serde_json::{Value, json};

const REGISTER: &str = r#"
mutation Register($input: RegisterPlayerInput!) {
  registerPlayer(input: $input) { id name regionName idNumber idMasked phone }
}"#;

fn error_code(response: &Value) -> &str {
    response["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("<none>")
}

fn input(name: &str, birth: &str, seq: u32) -> Value {
    let sex = if seq % 2 == 1 { "MALE" } else { "FEMALE" };
    json!({ "input": {
        "name": name, "sex": sex,
        "birthDate": format!("{}-{}-{}", &birth[..4], &birth[4..6], &birth[6..]),
        "residentId": resident_id(birth, seq), "phone": "13700001111"
    }})
}

#[tokio::test]
async fn r_reg_3_register_and_read_back_through_graphql() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let player = app.token(Role::Player, "gq-1");
        let created = app
            .graphql(Some(&player), REGISTER, input("陈一", "19910303", 31))
            .await;
        assert!(created["errors"].is_null(), "{backend}: {created}");
        assert_eq!(created["data"]["registerPlayer"]["id"], "gq-1", "{backend}");
        assert_eq!(
            created["data"]["registerPlayer"]["regionName"], "浙江省",
            "{backend}"
        );

        let me = app
            .graphql(
                Some(&player),
                "{ me { subject role player { name idNumber idMasked } } }",
                json!({}),
            )
            .await;
        assert_eq!(me["data"]["me"]["role"], "PLAYER", "{backend}: {me}");
        assert_eq!(
            me["data"]["me"]["player"]["idNumber"],
            resident_id("19910303", 31),
            "{backend}"
        );

        let org = app.token(Role::Organizer, "org-1");
        let page = app
            .graphql(Some(&org), "query($f: PlayerFilter) { players(filter: $f) { players { id name idMasked } nextCursor } }", json!({ "f": { "nameContains": "陈" } }))
            .await;
        assert_eq!(
            page["data"]["players"]["players"][0]["id"], "gq-1",
            "{backend}: {page}"
        );
        assert_eq!(
            page["data"]["players"]["players"][0]["idMasked"], false,
            "{backend}"
        );

        // Another player sees the record masked.
        let other = app.token(Role::Player, "gq-2");
        let seen = app
            .graphql(
                Some(&other),
                r#"{ player(id: "gq-1") { idNumber idMasked phone } }"#,
                json!({}),
            )
            .await;
        assert_eq!(
            seen["data"]["player"]["idMasked"], true,
            "{backend}: {seen}"
        );
        assert_eq!(seen["data"]["player"]["phone"], "137****1111", "{backend}");
        assert_eq!(
            app.graphql(
                Some(&other),
                r#"{ player(id: "nobody") { id } }"#,
                json!({})
            )
            .await["data"]["player"],
            Value::Null
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn graphql_errors_carry_extensions_code_and_field() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        // No token.
        let anonymous = app
            .graphql(None, "{ championships { id } }", json!({}))
            .await;
        assert_eq!(
            error_code(&anonymous),
            "UNAUTHENTICATED",
            "{backend}: {anonymous}"
        );
        // A bad token is refused as such.
        let refused = app
            .graphql(Some("x.y.z"), "{ championships { id } }", json!({}))
            .await;
        assert_eq!(error_code(&refused), "UNAUTHENTICATED", "{backend}");
        // A bad checksum comes back with the service's field.
        let mut bad = input("错号", "19900101", 11);
        let id = resident_id("19900101", 11);
        let wrong = if id.ends_with('0') { "1" } else { "0" };
        bad["input"]["residentId"] = json!(format!("{}{wrong}", &id[..17]));
        let response = app.graphql(Some(&org), REGISTER, bad).await;
        assert_eq!(
            error_code(&response),
            "INVALID_ARGUMENT",
            "{backend}: {response}"
        );
        assert_eq!(
            response["errors"][0]["extensions"]["field"], "identity.resident.number",
            "{backend}"
        );
        // Duplicate registration.
        assert!(
            app.graphql(Some(&org), REGISTER, input("一号", "19900101", 11))
                .await["errors"]
                .is_null()
        );
        let duplicate = app
            .graphql(Some(&org), REGISTER, input("一号", "19900101", 11))
            .await;
        assert_eq!(error_code(&duplicate), "ALREADY_EXISTS", "{backend}");
        // Role guard on players().
        let player = app.token(Role::Player, "p");
        let guarded = app
            .graphql(Some(&player), "{ players { players { id } } }", json!({}))
            .await;
        assert_eq!(
            error_code(&guarded),
            "PERMISSION_DENIED",
            "{backend}: {guarded}"
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_1_enter_event_and_link_account_through_graphql() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let championship = championship_from(&app, preset_with_window("chess-2015", -1, 1)).await;
        let me = app.token(Role::Player, "gq-chess");
        assert!(
            app.graphql(Some(&me), REGISTER, input("棋手", "19930303", 41))
                .await["errors"]
                .is_null()
        );
        let linked = app
            .graphql(
                Some(&me),
                "mutation($i: LinkAccountInput!) { linkAccount(input: $i) { accounts { platform accountId } } }",
                json!({ "i": { "playerId": "gq-chess", "platform": "wechat", "accountId": "wx-1" } }),
            )
            .await;
        assert_eq!(
            linked["data"]["linkAccount"]["accounts"][0]["accountId"], "wx-1",
            "{backend}: {linked}"
        );
        let entered = app
            .graphql(
                Some(&me),
                "mutation($i: EnterEventInput!) { enterEvent(input: $i) { sequence event } }",
                json!({ "i": { "championshipId": championship, "event": "men-individual", "playerId": "gq-chess" } }),
            )
            .await;
        assert_eq!(
            entered["data"]["enterEvent"]["sequence"], 1,
            "{backend}: {entered}"
        );
        let list = app
            .graphql(
                Some(&me),
                "{ championships { id preset game events { code onlineQualifier } } }",
                json!({}),
            )
            .await;
        assert_eq!(
            list["data"]["championships"][0]["game"], "CHESS",
            "{backend}: {list}"
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn depth_and_complexity_limits_refuse_abusive_queries() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    let org = app.token(Role::Organizer, "org-1");
    // Depth: nest well past the configured limit through introspection types.
    let mut deep = String::from("name");
    for _ in 0..20 {
        deep = format!("ofType {{ {deep} }}");
    }
    let query = format!("{{ __type(name: \"Player\") {{ fields {{ type {{ {deep} }} }} }} }}");
    let response = app.graphql(Some(&org), &query, json!({})).await;
    let message = response["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("nested too deep"), "{response}");
    // Complexity: many aliased copies of an expensive field.
    let aliases: Vec<String> = (0..60)
        .map(|i| format!("a{i}: players {{ players {{ id name }} }}"))
        .collect();
    let response = app
        .graphql(
            Some(&org),
            &format!("{{ {} }}", aliases.join(" ")),
            json!({}),
        )
        .await;
    let message = response["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("too complex"), "{response}");
    app.stop().await;
}

#[tokio::test]
async fn oversized_requests_are_refused_before_parsing() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    let padding = " ".repeat(app.settings.gateway.max_body_bytes + 1);
    let response = reqwest::Client::new()
        .post(&app.graphql_url)
        .header("content-type", "application/json")
        .body(format!("{{\"query\":\"{{ me {{ subject }} }}{padding}\"}}"))
        .send()
        .await
        .expect("gateway reachable");
    assert_eq!(response.status(), reqwest::StatusCode::PAYLOAD_TOO_LARGE);
    app.stop().await;
}
