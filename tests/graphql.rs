//! The GraphQL gateway, used as the admin console and players use it.

use qiwang_blackbox::{
    backends, championship_from, png_bytes, preset_with_window, resident_id, spawn_app, with_token,
};
use qiwang_infra::auth::Role;
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
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

/// Issue 6: people read Chinese unless they ask for English; the machine code, the precondition
/// kind and the service's own words travel in `extensions` either way.
#[tokio::test]
async fn r_reg_1_refusals_speak_chinese_by_default_and_english_on_request() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    // Registration closed yesterday.
    let championship = championship_from(&app, preset_with_window("chess-2015", -10, -1)).await;
    let me = app.token(Role::Player, "gq-late");
    assert!(
        app.graphql(Some(&me), REGISTER, input("迟到", "19930303", 42))
            .await["errors"]
            .is_null()
    );
    let enter = "mutation($i: EnterEventInput!) { enterEvent(input: $i) { sequence } }";
    let vars = json!({ "i": { "championshipId": championship, "event": "men-individual", "playerId": "gq-late" } });
    let zh = app.graphql(Some(&me), enter, vars.clone()).await;
    assert_eq!(error_code(&zh), "FAILED_PRECONDITION", "{zh}");
    assert_eq!(
        zh["errors"][0]["extensions"]["reason"], "REGISTRATION_CLOSED",
        "{zh}"
    );
    assert_eq!(zh["errors"][0]["message"], "报名已截止", "{zh}");
    let detail = zh["errors"][0]["extensions"]["detail"]
        .as_str()
        .unwrap_or_default();
    assert!(!detail.is_empty() && detail.is_ascii(), "{zh}");
    let en = app
        .graphql_in(Some("en"), Some(&me), enter, vars.clone())
        .await;
    assert_eq!(error_code(&en), "FAILED_PRECONDITION", "{en}");
    assert_eq!(en["errors"][0]["message"].as_str(), Some(detail), "{en}");
    // A bad field names the field in both.
    let bad =
        json!({ "i": { "championshipId": championship, "event": "", "playerId": "gq-late" } });
    let zh = app.graphql_in(Some("zh-CN"), Some(&me), enter, bad).await;
    assert_eq!(error_code(&zh), "INVALID_ARGUMENT", "{zh}");
    let message = zh["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("输入有误（字段 "), "{zh}");
    // No token at all: Chinese too.
    let anonymous = app.graphql(None, "{ me { subject } }", json!({})).await;
    assert_eq!(error_code(&anonymous), "UNAUTHENTICATED", "{anonymous}");
    assert_eq!(
        anonymous["errors"][0]["message"], "请先登录：身份令牌缺失、过期或无效",
        "{anonymous}"
    );
    app.stop().await;
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
    // Chinese by default, with the machine code and the original text beside it…
    let response = app.graphql(Some(&org), &query, json!({})).await;
    assert_eq!(error_code(&response), "QUERY_TOO_DEEP", "{response}");
    assert_eq!(
        response["errors"][0]["message"], "查询嵌套层数超过上限",
        "{response}"
    );
    let detail = response["errors"][0]["extensions"]["detail"]
        .as_str()
        .unwrap_or_default();
    assert!(detail.contains("nested too deep"), "{response}");
    // …and English when asked for.
    let response = app
        .graphql_in(Some("en-GB,en;q=0.9"), Some(&org), &query, json!({}))
        .await;
    let message = response["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("nested too deep"), "{response}");
    // Complexity: many aliased copies of an expensive field.
    let aliases: Vec<String> = (0..60)
        .map(|i| format!("a{i}: players {{ players {{ id name }} }}"))
        .collect();
    let response = app
        .graphql_in(
            Some("en"),
            Some(&org),
            &format!("{{ {} }}", aliases.join(" ")),
            json!({}),
        )
        .await;
    assert_eq!(error_code(&response), "QUERY_TOO_COMPLEX", "{response}");
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

/// Registers a player through GraphQL as the organizer; returns the id.
async fn gql_player(app: &qiwang_blackbox::TestApp, org: &str, name: &str, seq: u32) -> String {
    let created = app
        .graphql(Some(org), REGISTER, input(name, "19900909", seq))
        .await;
    assert!(created["errors"].is_null(), "{created}");
    created["data"]["registerPlayer"]["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

#[tokio::test]
async fn r_ind_1_r_prz_1_the_final_and_its_awards_through_graphql_alone() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let referee = app.token(Role::Referee, "ref-1");
        let champ = championship_from(&app, preset_with_window("xiangqi-2022", -1, 1)).await;
        let mut ids = Vec::new();
        for seq in [801, 803, 805, 802, 804, 807, 806, 808] {
            ids.push(gql_player(&app, &org, &format!("决赛{seq}"), seq).await);
        }
        let created = app
            .graphql(
                Some(&org),
                r#"mutation($input: CreateFinalEventInput!) {
                    createFinalEvent(input: $input) { id rounds groups entrants { startNumber playerId } }
                }"#,
                json!({ "input": {
                    "championshipId": champ, "eventCode": "men-individual", "rounds": 3,
                    "singleField": true, "reason": "finalists",
                    "entrants": ids.iter().enumerate()
                        .map(|(i, id)| json!({ "playerId": id, "rating": 2000 - 10 * i }))
                        .collect::<Vec<_>>()
                }}),
            )
            .await;
        assert!(created["errors"].is_null(), "{backend}: {created}");
        let event = created["data"]["createFinalEvent"]["id"]
            .as_str()
            .expect("event id")
            .to_owned();
        assert_eq!(
            created["data"]["createFinalEvent"]["entrants"]
                .as_array()
                .map(Vec::len),
            Some(8)
        );

        for round in 1..=3 {
            let paired = app
                .graphql(
                    Some(&referee),
                    "mutation($e: ID!) { pairRound(eventId: $e) { number boards { number } } }",
                    json!({ "e": event }),
                )
                .await;
            assert!(paired["errors"].is_null(), "{backend}: {paired}");
            assert_eq!(paired["data"]["pairRound"]["number"], round);
            for board in paired["data"]["pairRound"]["boards"]
                .as_array()
                .expect("boards")
            {
                let recorded = app
                    .graphql(
                        Some(&referee),
                        "mutation($i: RecordResultInput!) { recordResult(input: $i) { number } }",
                        json!({ "i": { "eventId": event, "round": round,
                                       "board": board["number"], "result": "FIRST_WINS" } }),
                    )
                    .await;
                assert!(recorded["errors"].is_null(), "{backend}: {recorded}");
            }
        }
        // A correction without a reason is refused, with the field named.
        let refused = app
            .graphql(
                Some(&referee),
                "mutation($i: RecordResultInput!) { recordResult(input: $i) { number } }",
                json!({ "i": { "eventId": event, "round": 3, "board": 1, "result": "DRAW" } }),
            )
            .await;
        assert_eq!(
            error_code(&refused),
            "INVALID_ARGUMENT",
            "{backend}: {refused}"
        );

        // A player reads the standings and the ranking, but not the referees' log: that field
        // alone fails, the rest of the response resolves.
        let player = app.token(Role::Player, &ids[0]);
        let read = app
            .graphql(
                Some(&player),
                r#"query($e: ID!) { finalEvent(id: $e) {
                    standings { afterRound tieBreaks rows { place playerId points tieBreakValues } }
                    finalRanking { complete entrants { place playerId profile { name regionName } } }
                    changes { seq }
                } }"#,
                json!({ "e": event }),
            )
            .await;
        assert_eq!(error_code(&read), "PERMISSION_DENIED", "{backend}: {read}");
        let fe = &read["data"]["finalEvent"];
        assert_eq!(fe["standings"]["afterRound"], 3, "{backend}: {read}");
        assert_eq!(fe["finalRanking"]["complete"], true);
        assert_eq!(
            fe["finalRanking"]["entrants"].as_array().map(Vec::len),
            Some(8)
        );
        assert!(
            fe["finalRanking"]["entrants"]
                .as_array()
                .is_some_and(|e| e.iter().all(|x| x["profile"]["name"].is_string())),
            "{backend}: {read}"
        );
        let log = app
            .graphql(
                Some(&referee),
                "query($e: ID!) { finalEvent(id: $e) { changes { what who why } } }",
                json!({ "e": event }),
            )
            .await;
        assert!(log["errors"].is_null(), "{backend}: {log}");
        assert_eq!(log["data"]["finalEvent"]["changes"][0]["what"], "created");

        // Team standings and the award book.
        let book_query = r#"query($c: ID!) {
            teamStandings(championshipId: $c, teamEvent: "men-team") { complete ranked { team place sum } }
            awardBook(championshipId: $c) {
                complete approved version
                prizeLists { event ranking awards { awardee place yuan netYuan } }
                totals { awardee grossYuan }
            }
        }"#;
        let book = app
            .graphql(Some(&player), book_query, json!({ "c": champ }))
            .await;
        assert!(book["errors"].is_null(), "{backend}: {book}");
        assert_eq!(
            book["data"]["teamStandings"]["ranked"][0]["team"],
            "region:33"
        );
        assert_eq!(book["data"]["awardBook"]["complete"], true);
        let open = book["data"]["awardBook"]["prizeLists"]
            .as_array()
            .expect("lists")
            .iter()
            .find(|l| l["event"] == "men-individual")
            .expect("open list")
            .clone();
        assert_eq!(open["awards"][0]["place"], 1);
        assert_eq!(open["awards"][0]["yuan"], 50000);

        // Approval: a player may not; the organizer does, and the decision is in the audit.
        let approve =
            "mutation($i: AwardsDecisionInput!) { approveAwards(input: $i) { approved version } }";
        let input = json!({ "i": { "championshipId": champ, "reason": "committee approved" } });
        let denied = app.graphql(Some(&player), approve, input.clone()).await;
        assert_eq!(
            error_code(&denied),
            "PERMISSION_DENIED",
            "{backend}: {denied}"
        );
        let approved = app.graphql(Some(&org), approve, input).await;
        assert!(approved["errors"].is_null(), "{backend}: {approved}");
        assert_eq!(approved["data"]["approveAwards"]["version"], 1);
        let audit = app
            .graphql(
                Some(&org),
                "query($c: ID!) { awardDecisions(championshipId: $c) { action decidedBy reason } }",
                json!({ "c": champ }),
            )
            .await;
        assert_eq!(
            audit["data"]["awardDecisions"][0]["action"], "approve",
            "{backend}: {audit}"
        );
        let hidden = app
            .graphql(
                Some(&player),
                "query($c: ID!) { awardDecisions(championshipId: $c) { action } }",
                json!({ "c": champ }),
            )
            .await;
        assert_eq!(error_code(&hidden), "PERMISSION_DENIED");
        app.stop().await;
    }
}

#[tokio::test]
async fn a_service_that_is_down_fails_only_the_fields_that_need_it() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    // A second gateway whose awards service is unreachable (nothing listens on port 9).
    let mut settings = app.settings.clone();
    settings.gateway.listen = "127.0.0.1:0".parse().expect("address");
    settings.metrics.listen = "127.0.0.1:0".parse().expect("address");
    settings.gateway.service_timeout_ms = 2_000;
    settings.services.registration = app.grpc_url.clone();
    settings.services.awards = "http://127.0.0.1:9".into();
    let gateway = qiwang::start(
        &settings,
        &qiwang::Plan {
            components: vec![qiwang::Component::Gateway],
            migrate_on_start: false,
        },
    )
    .await
    .expect("gateway alone");
    let url = format!("http://{}/graphql", gateway.gateway_addr.expect("address"));
    let org = app.token(Role::Organizer, "org-1");
    let response: Value = reqwest::Client::new()
        .post(&url)
        .bearer_auth(&org)
        .json(&json!({ "query": "{ me { subject } awardBook(championshipId: \"ch_x\") { complete } }" }))
        .send()
        .await
        .expect("gateway reachable")
        .json()
        .await
        .expect("JSON");
    assert_eq!(response["data"]["me"]["subject"], "org-1", "{response}");
    assert_eq!(error_code(&response), "UNAVAILABLE", "{response}");
    assert_eq!(response["errors"][0]["path"][0], "awardBook");
    gateway.shutdown().await.expect("shutdown");
    app.stop().await;
}

#[tokio::test]
async fn r_onl_2_r_adv_1_leaderboard_with_own_row_and_the_cut_through_graphql() {
    use qiwang_blackbox::{chinese_player, with_token};
    use qiwang_proto::qualification::v1 as q;
    use qiwang_proto::registration::v1 as pb;
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let champ = championship_from(&app, preset_with_window("go-2015", -1, 1)).await;
        let mut reg = app.registration().await;
        let mut ids = Vec::new();
        for i in 0..3u32 {
            let p = reg
                .register_player(with_token(
                    &org,
                    chinese_player(&format!("网{i}"), "19900101", 901 + 2 * i),
                ))
                .await
                .expect("register")
                .into_inner();
            reg.link_account(with_token(
                &partner,
                pb::LinkAccountRequest {
                    player_id: p.id.clone(),
                    platform: "yizhan".into(),
                    account_id: format!("acc-{i}"),
                },
            ))
            .await
            .expect("link");
            reg.enter_event(with_token(
                &org,
                pb::EnterEventRequest {
                    championship_id: champ.clone(),
                    event: "men-individual".into(),
                    player_id: p.id.clone(),
                },
            ))
            .await
            .expect("enter");
            ids.push(p.id);
        }
        let period = json!({ "championshipId": champ, "stage": "haixuan", "period": 1 });
        let opened = app
            .graphql(
                Some(&org),
                "mutation($p: PeriodInput!) { openPeriod(period: $p) }",
                json!({ "p": period }),
            )
            .await;
        assert_eq!(opened["data"]["openPeriod"], true, "{backend}: {opened}");
        // Player 0 beats player 1 twice and player 2 once (10:00 China time, 2015-08-02).
        let t0 = 1_438_480_800i64;
        let games: Vec<q::GameReport> = [(0, 1), (0, 1), (0, 2), (2, 1)]
            .iter()
            .enumerate()
            .map(|(k, (w, l))| {
                let start = t0 + 1800 * k as i64;
                q::GameReport {
                    championship_id: champ.clone(),
                    game_id: format!("gq{k}"),
                    first_account: format!("acc-{w}"),
                    second_account: format!("acc-{l}"),
                    result: q::Result::FirstWins as i32,
                    end_reason: q::EndReason::Resignation as i32,
                    first_move_ms: Some(3_000),
                    second_move_ms: Some(4_000),
                    started_at: Some(prost_types::Timestamp {
                        seconds: start,
                        nanos: 0,
                    }),
                    ended_at: Some(prost_types::Timestamp {
                        seconds: start + 1200,
                        nanos: 0,
                    }),
                    ..Default::default()
                }
            })
            .collect();
        let mut qual = qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let summary = qual
            .report_games(with_token(&partner, tokio_stream::iter(games)))
            .await
            .expect("report")
            .into_inner();
        assert_eq!(summary.stored, 4, "{backend}: {summary:?}");

        // A player sees the first page and their own row wherever it stands.
        let board = app
            .graphql(
                Some(&app.token(Role::Player, &ids[1])),
                "query($p: PeriodInput!) { leaderboard(period: $p, size: 1) { total rows { rank playerId points } own { rank playerId points } } }",
                json!({ "p": period }),
            )
            .await;
        assert!(board["errors"].is_null(), "{backend}: {board}");
        let lb = &board["data"]["leaderboard"];
        assert_eq!(lb["total"], 3);
        assert_eq!(lb["rows"][0]["playerId"], ids[0].as_str());
        assert_eq!(lb["rows"][0]["points"], 6);
        assert_eq!(lb["own"]["playerId"], ids[1].as_str());
        assert_eq!(
            lb["own"]["points"], -6,
            "three losses (go-2015: a loss costs 2 points)"
        );

        // Closing is the organizers'; the cut gives each player's reason (R-ADV-1: 4 points).
        let close = "mutation($p: PeriodInput!) { closePeriod(period: $p) { toStage rows { playerId advanced reason } } }";
        let denied = app
            .graphql(
                Some(&app.token(Role::Player, &ids[0])),
                close,
                json!({ "p": period }),
            )
            .await;
        assert_eq!(
            error_code(&denied),
            "PERMISSION_DENIED",
            "{backend}: {denied}"
        );
        // A console follows the championship live while the period closes.
        let mut live = subscribe(
            &app,
            Some(&org),
            "subscription($c: ID!) { qualificationChanges(championshipId: $c) { kind stage period playerId summary } }",
            json!({ "c": champ }),
        )
        .await;
        // Opening the next period is the marker that the subscription is live.
        let second = json!({ "championshipId": champ, "stage": "haixuan", "period": 2 });
        let opened = app
            .graphql(
                Some(&org),
                "mutation($p: PeriodInput!) { openPeriod(period: $p) }",
                json!({ "p": second }),
            )
            .await;
        assert_eq!(opened["data"]["openPeriod"], true, "{backend}: {opened}");
        let marker = next_event(&mut live).await.expect("the period change");
        assert_eq!(
            marker["data"]["qualificationChanges"]["kind"], "PERIOD",
            "{backend}: {marker}"
        );
        assert_eq!(
            marker["data"]["qualificationChanges"]["period"], 2,
            "{backend}: {marker}"
        );
        // Without a token there is no live view.
        let mut anonymous_live = subscribe(
            &app,
            None,
            "subscription($c: ID!) { qualificationChanges(championshipId: $c) { kind } }",
            json!({ "c": champ }),
        )
        .await;
        let refused = next_event(&mut anonymous_live).await.unwrap_or_default();
        assert_eq!(
            error_code(&refused),
            "UNAUTHENTICATED",
            "{backend}: {refused}"
        );
        assert_eq!(
            refused["errors"][0]["message"], "请先登录：身份令牌缺失、过期或无效",
            "{backend}: subscriptions speak Chinese too: {refused}"
        );
        let cut = app.graphql(Some(&org), close, json!({ "p": period })).await;
        assert!(cut["errors"].is_null(), "{backend}: {cut}");
        let mut kinds = Vec::new();
        while let Some(change) = next_event(&mut live).await {
            let c = &change["data"]["qualificationChanges"];
            kinds.push(c["kind"].as_str().unwrap_or_default().to_owned());
            if c["kind"] == "ADVANCEMENT" && c["playerId"] == ids[0].as_str() {
                assert!(
                    c["summary"]
                        .as_str()
                        .unwrap_or_default()
                        .starts_with("advances"),
                    "{backend}: {change}"
                );
                break;
            }
        }
        assert!(
            kinds.contains(&"ADVANCEMENT".to_owned()),
            "{backend}: {kinds:?}"
        );
        let rows = cut["data"]["closePeriod"]["rows"].as_array().expect("rows");
        let advanced: Vec<&str> = rows
            .iter()
            .filter(|r| r["advanced"] == true)
            .map(|r| r["playerId"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(advanced, [ids[0].as_str()], "{backend}: {cut}");
        assert!(
            rows.iter()
                .all(|r| !r["reason"].as_str().unwrap_or_default().is_empty())
        );
        let again = app
            .graphql(
                Some(&app.token(Role::Player, &ids[2])),
                "query($p: PeriodInput!) { advancement(period: $p) { toStage rows { playerId } } }",
                json!({ "p": period }),
            )
            .await;
        assert_eq!(
            again["data"]["advancement"]["toStage"], "jinji",
            "{backend}: {again}"
        );
        // A page at a time: one row, then the rest from its token.
        let query = "query($p: PeriodInput!, $t: String) { advancement(period: $p, pageSize: 1, pageToken: $t) { totalRows advancedCount nextPageToken rows { playerId } } }";
        let token = app.token(Role::Player, &ids[2]);
        let first = app
            .graphql(Some(&token), query, json!({ "p": period, "t": null }))
            .await;
        let page = &first["data"]["advancement"];
        assert_eq!(
            (page["totalRows"].as_u64(), page["advancedCount"].as_u64()),
            (Some(rows.len() as u64), Some(1)),
            "{backend}: {first}"
        );
        assert_eq!(
            page["rows"][0]["playerId"], rows[0]["playerId"],
            "{backend}"
        );
        let second = app
            .graphql(
                Some(&token),
                query,
                json!({ "p": period, "t": page["nextPageToken"] }),
            )
            .await;
        assert_eq!(
            second["data"]["advancement"]["rows"][0]["playerId"], rows[1]["playerId"],
            "{backend}: {second}"
        );
        let refused = app
            .graphql(Some(&token), query, json!({ "p": period, "t": "r999" }))
            .await;
        assert_eq!(
            refused["errors"][0]["extensions"]["code"], "INVALID_ARGUMENT",
            "{backend}: {refused}"
        );
        app.stop().await;
    }
}

/// A season's preset with the registration window, and the named event windows, open today.
fn open_today(name: &str, windows: &[(&str, &str)]) -> String {
    let today = qiwang_core::time::china_date(chrono::Utc::now());
    let mut text = preset_with_window(name, -1, 1);
    for (opens, closes) in windows {
        text = text.replace(
            &format!("opens_on = \"{opens}\"\ncloses_on = \"{closes}\""),
            &format!(
                "opens_on = \"{}\"\ncloses_on = \"{}\"",
                today - chrono::Duration::days(1),
                today + chrono::Duration::days(1)
            ),
        );
    }
    text
}

/// Registers a player through GraphQL as the organizer with a birth date; returns the id.
async fn gql_player_born(
    app: &qiwang_blackbox::TestApp,
    org: &str,
    name: &str,
    birth: &str,
    seq: u32,
) -> String {
    let created = app
        .graphql(Some(org), REGISTER, input(name, birth, seq))
        .await;
    assert!(created["errors"].is_null(), "{created}");
    created["data"]["registerPlayer"]["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

fn data<'a>(response: &'a Value, field: &str) -> &'a Value {
    assert!(response["errors"].is_null(), "{field}: {response}");
    &response["data"][field]
}

/// Issue 6: registration's workflows through GraphQL alone — presets, championships and their
/// rules, bar lists, profiles, online entries, pairs and their seed, direct entries to the final,
/// host-city teams, fees and attendance, wildcard applications with an uploaded certificate photo.
#[tokio::test]
async fn r_reg_r_wc_registration_workflows_through_graphql_alone() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let gql = |q: &'static str, v: Value| {
            let app = &app;
            let org = org.clone();
            async move { app.graphql(Some(&org), q, v).await }
        };

        // Presets and a championship from an edited preset file.
        let presets = gql(
            "{ presets { name game season events { code } } }",
            json!({}),
        )
        .await;
        let names: Vec<&str> = data(&presets, "presets")
            .as_array()
            .expect("presets")
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        for name in [
            "go-2015",
            "xiangqi-2015",
            "chess-2015",
            "xiangqi-2022",
            "go-2025",
        ] {
            assert!(names.contains(&name), "{backend}: {presets}");
        }
        let toml = open_today("xiangqi-2022", &[("2022-09-01", "2022-09-30")]);
        let created = gql(
            "mutation($i: CreateChampionshipInput!) { createChampionship(input: $i) { id preset game } }",
            json!({ "i": { "presetToml": toml, "name": "2026 象棋棋王" } }),
        )
        .await;
        let xq = data(&created, "createChampionship")["id"]
            .as_str()
            .expect("id")
            .to_owned();
        let rules = gql(
            "query($id: ID!) { championship(id: $id) { name } championshipRules(id: $id) { preset presetToml stages { code kind periods { number opensOn closesOn } } } }",
            json!({ "id": xq }),
        )
        .await;
        assert_eq!(data(&rules, "championship")["name"], "2026 象棋棋王");
        assert_eq!(rules["data"]["championshipRules"]["preset"], "xiangqi-2022");
        let stages = &rules["data"]["championshipRules"]["stages"];
        assert_eq!(stages[0]["code"], "haixuan", "{backend}: {rules}");
        assert_eq!(stages[0]["kind"], "points");
        assert_eq!(stages[0]["periods"][0]["number"], 1);
        assert!(
            stages
                .as_array()
                .is_some_and(|s| s.iter().any(|x| x["kind"] == "final")),
            "{rules}"
        );

        // The bar list: organizers keep it; a player may not read it.
        let barred = resident_id("19800101", 91);
        let added = gql(
            "mutation($n: String!) { addBar(game: XIANGQI, idNumber: $n, reason: \"国家大师\") { idNumber reason addedBy } }",
            json!({ "n": barred }),
        )
        .await;
        assert_eq!(data(&added, "addBar")["addedBy"], "org-1");
        let bars = gql("{ bars(game: XIANGQI) { idNumber } }", json!({})).await;
        assert_eq!(data(&bars, "bars")[0]["idNumber"], barred.as_str());
        let player_token = app.token(Role::Player, "someone");
        let denied = app
            .graphql(
                Some(&player_token),
                "{ bars(game: XIANGQI) { idNumber } }",
                json!({}),
            )
            .await;
        assert_eq!(
            error_code(&denied),
            "PERMISSION_DENIED",
            "{backend}: {denied}"
        );
        let removed = gql(
            "mutation($n: String!) { removeBar(game: XIANGQI, idNumber: $n) }",
            json!({ "n": barred }),
        )
        .await;
        assert_eq!(data(&removed, "removeBar"), true);

        // Profiles and online entries; two men who reached the online stage register a pair.
        let a = gql_player_born(&app, &org, "双人甲", "19900101", 61).await;
        let b = gql_player_born(&app, &org, "双人乙", "19910101", 63).await;
        let updated = gql(
            "mutation($i: UpdatePlayerInput!) { updatePlayer(input: $i) { phone } }",
            json!({ "i": { "id": a, "phone": "13800138000" } }),
        )
        .await;
        assert_eq!(data(&updated, "updatePlayer")["phone"], "13800138000");
        for p in [&a, &b] {
            let entered = gql(
                "mutation($i: EnterEventInput!) { enterEvent(input: $i) { sequence } }",
                json!({ "i": { "championshipId": xq, "event": "men-individual", "playerId": p } }),
            )
            .await;
            data(&entered, "enterEvent");
        }
        // Both play one online game of the 海选 (the partner reports it over gRPC, as partners do).
        let opened = gql(
            "mutation($p: PeriodInput!) { openPeriod(period: $p) }",
            json!({ "p": { "championshipId": xq, "stage": "haixuan", "period": 1 } }),
        )
        .await;
        assert_eq!(data(&opened, "openPeriod"), true);
        for (p, account) in [(&a, "acc-a"), (&b, "acc-b")] {
            let linked = app
                .graphql(
                    Some(&app.token(Role::Player, p)),
                    "mutation($i: LinkAccountInput!) { linkAccount(input: $i) { id } }",
                    json!({ "i": { "playerId": p, "platform": "yizhan", "accountId": account } }),
                )
                .await;
            data(&linked, "linkAccount");
        }
        let at = |minutes: i64| prost_types::Timestamp {
            seconds: 1_654_048_800 + minutes * 60, // 2022-06-01 10:00 China time
            nanos: 0,
        };
        QualificationServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect")
            .report_game(with_token(
                &app.token(Role::Partner, "yizhan-bot"),
                q::GameReport {
                    championship_id: xq.clone(),
                    game_id: "gq-pair-1".into(),
                    first_account: "acc-a".into(),
                    second_account: "acc-b".into(),
                    result: q::Result::FirstWins as i32,
                    end_reason: q::EndReason::Resignation as i32,
                    first_move_ms: Some(3_000),
                    second_move_ms: Some(4_000),
                    started_at: Some(at(0)),
                    ended_at: Some(at(20)),
                    ..Default::default()
                },
            ))
            .await
            .expect("reported");
        let entries = gql(
            "query($c: ID!, $p: ID) { entries(championshipId: $c, playerId: $p) { event } }",
            json!({ "c": xq, "p": a }),
        )
        .await;
        assert_eq!(data(&entries, "entries")[0]["event"], "men-individual");
        let pair = gql(
            "mutation($i: RegisterPairInput!) { registerPair(input: $i) { id status relationCheck } }",
            json!({ "i": { "championshipId": xq, "event": "men-pairs", "firstPlayerId": a, "secondPlayerId": b } }),
        )
        .await;
        assert_eq!(
            data(&pair, "registerPair")["status"],
            "REGISTERED",
            "{backend}"
        );
        let pair_id = pair["data"]["registerPair"]["id"].clone();
        let seed = gql(
            "mutation($c: ID!) { publishPairsSeed(championshipId: $c, event: \"men-pairs\", seed: \"2026-lottery-0930\") { seed drawn } }",
            json!({ "c": xq }),
        )
        .await;
        assert_eq!(data(&seed, "publishPairsSeed")["drawn"], false);
        let listed = gql(
            "query($c: ID!) { pairs(championshipId: $c, event: \"men-pairs\") { id } pairsDraw(championshipId: $c, event: \"men-pairs\") { seed registered } }",
            json!({ "c": xq }),
        )
        .await;
        assert_eq!(data(&listed, "pairs")[0]["id"], pair_id);
        assert_eq!(listed["data"]["pairsDraw"]["seed"], "2026-lottery-0930");
        let withdrawn = gql(
            "mutation($p: ID!) { withdrawPair(pairId: $p, reason: \"家中有事\") { status } }",
            json!({ "p": pair_id }),
        )
        .await;
        assert_eq!(data(&withdrawn, "withdrawPair")["status"], "WITHDRAWN");

        // A youth entry to the final awaits approval (R-REG-8), then is approved.
        let youth = gql_player_born(&app, &org, "少年", "20100707", 65).await;
        let entry = gql(
            "mutation($i: EnterFinalEventInput!) { enterFinalEvent(input: $i) { id status } }",
            json!({ "i": { "championshipId": xq, "event": "youth", "playerId": youth, "unit": "杭州市棋类协会", "certificateRef": "CXA-7" } }),
        )
        .await;
        assert_eq!(
            data(&entry, "enterFinalEvent")["status"],
            "PENDING",
            "{backend}"
        );
        let decided = gql(
            "mutation($e: ID!) { decideFinalEntry(entryId: $e, approve: true) { status } }",
            json!({ "e": entry["data"]["enterFinalEvent"]["id"] }),
        )
        .await;
        assert_eq!(data(&decided, "decideFinalEntry")["status"], "APPROVED");
        let finals = gql(
            "query($c: ID!) { finalEntries(championshipId: $c, event: \"youth\") { playerId status } }",
            json!({ "c": xq }),
        )
        .await;
        assert_eq!(data(&finals, "finalEntries")[0]["playerId"], youth.as_str());

        // go-2025: a host-city team, its fees and attendance, and a wildcard with its photo.
        let go_toml = open_today("go-2025", &[("2025-06-01", "2025-10-08")]);
        let created = gql(
            "mutation($i: CreateChampionshipInput!) { createChampionship(input: $i) { id } }",
            json!({ "i": { "presetToml": go_toml } }),
        )
        .await;
        let go = data(&created, "createChampionship")["id"]
            .as_str()
            .expect("id")
            .to_owned();
        let mut roster = Vec::new();
        for (i, seq) in [71u32, 73, 75, 72, 74].iter().enumerate() {
            roster.push(gql_player_born(&app, &org, &format!("城市队{i}"), "19880808", *seq).await);
        }
        let team = gql(
            "mutation($c: ID!, $p: [ID!]!) { registerCityTeam(championshipId: $c, city: \"杭州市\", playerIds: $p) { menTeam womenTeam members { counted female } } }",
            json!({ "c": go, "p": roster }),
        )
        .await;
        assert_eq!(
            data(&team, "registerCityTeam")["menTeam"],
            true,
            "{backend}"
        );
        assert_eq!(team["data"]["registerCityTeam"]["womenTeam"], true);
        let teams = gql(
            "query($c: ID!) { cityTeams(championshipId: $c) { city } }",
            json!({ "c": go }),
        )
        .await;
        assert_eq!(data(&teams, "cityTeams")[0]["city"], "杭州市");
        let fee = gql(
            "query($c: ID!, $p: ID!) { fee(championshipId: $c, playerId: $p) { dueYuan status } }",
            json!({ "c": go, "p": roster[0] }),
        )
        .await;
        assert_eq!(data(&fee, "fee")["dueYuan"], 260, "{backend}");
        assert_eq!(fee["data"]["fee"]["status"], "DUE");
        let paid = gql(
            "mutation($c: ID!, $p: ID!) { recordFee(championshipId: $c, playerId: $p, settlement: PAID, paymentRef: \"WX-0001\") { status paidYuan } }",
            json!({ "c": go, "p": roster[0] }),
        )
        .await;
        assert_eq!(data(&paid, "recordFee")["status"], "PAID");
        let came = gql(
            "mutation($c: ID!, $p: ID!) { recordAttendance(championshipId: $c, playerId: $p, attendance: PLAYED) { attendance refundYuan } }",
            json!({ "c": go, "p": roster[0] }),
        )
        .await;
        assert_eq!(data(&came, "recordAttendance")["attendance"], "PLAYED");

        // The invited player applies with the photo in the same request (multipart).
        let invited = gql_player_born(&app, &org, "特邀", "19850505", 77).await;
        let invited_token = app.token(Role::Player, &invited);
        let submit = "mutation($i: SubmitWildcardInput!) { submitWildcard(input: $i) { id status certificatePhoto } }";
        let (status, applied) = app
            .graphql_upload(
                Some(&invited_token),
                submit,
                json!({ "i": { "championshipId": go, "event": "men-individual", "playerId": invited, "source": "organizer-invitation", "certificatePhoto": null } }),
                "variables.i.certificatePhoto",
                (png_bytes(100), "image/png"),
            )
            .await;
        assert_eq!(status, 200, "{backend}: {applied}");
        let wildcard = data(&applied, "submitWildcard").clone();
        assert_eq!(wildcard["status"], "SUBMITTED", "{backend}");
        let mine = app
            .graphql(
                Some(&invited_token),
                "query($c: ID!, $p: ID) { wildcards(championshipId: $c, playerId: $p) { id status } }",
                json!({ "c": go, "p": invited }),
            )
            .await;
        assert_eq!(data(&mine, "wildcards")[0]["id"], wildcard["id"]);
        // The photo: the applicant and organizers see it; another player does not.
        let photo =
            "query($id: ID!) { evidence(id: $id) { contentType size sha256 contentBase64 } }";
        let vars = json!({ "id": wildcard["certificatePhoto"] });
        for token in [&invited_token, &org] {
            let seen = app.graphql(Some(token), photo, vars.clone()).await;
            assert_eq!(data(&seen, "evidence")["contentType"], "image/png");
            assert_eq!(seen["data"]["evidence"]["size"], 129);
        }
        let other = app.token(Role::Player, &roster[1]);
        let peek = app.graphql(Some(&other), photo, vars.clone()).await;
        assert_eq!(error_code(&peek), "PERMISSION_DENIED", "{backend}: {peek}");
        let reviewed = gql(
            "mutation($w: ID!) { reviewWildcard(wildcardId: $w) { status } }",
            json!({ "w": wildcard["id"] }),
        )
        .await;
        assert_eq!(data(&reviewed, "reviewWildcard")["status"], "UNDER_REVIEW");
        let approved = gql(
            "mutation($w: ID!) { decideWildcard(wildcardId: $w, approve: true) { status decidedBy } }",
            json!({ "w": wildcard["id"] }),
        )
        .await;
        assert_eq!(data(&approved, "decideWildcard")["status"], "APPROVED");
        assert_eq!(approved["data"]["decideWildcard"]["decidedBy"], "org-1");
        app.stop().await;
    }
}

/// Issue 6 security: uploads that are not images, or too large, are refused and store nothing.
#[tokio::test]
async fn r_wc_1_uploads_that_are_not_images_or_too_large_are_refused() {
    let app = spawn_app(qiwang_blackbox::Backend::Sqlite).await;
    let org = app.token(Role::Organizer, "org-1");
    let owner = gql_player_born(&app, &org, "上传", "19850505", 79).await;
    let token = app.token(Role::Player, &owner);
    let upload = "mutation($p: ID!, $f: Upload!) { uploadEvidence(playerId: $p, file: $f) { id } }";
    let vars = json!({ "p": owner, "f": null });
    let cases: Vec<(&str, Vec<u8>, &str, u16, &str)> = vec![
        (
            "a PDF",
            b"%PDF-1.7 certificate".to_vec(),
            "application/pdf",
            200,
            "INVALID_ARGUMENT",
        ),
        (
            "HTML labelled as a PNG",
            b"<html><script>alert(1)</script></html>".to_vec(),
            "image/png",
            200,
            "INVALID_ARGUMENT",
        ),
        (
            "an SVG",
            b"<svg onload=\"alert(1)\"/>".to_vec(),
            "image/svg+xml",
            200,
            "INVALID_ARGUMENT",
        ),
        (
            "a PNG labelled as a JPEG",
            png_bytes(10),
            "image/jpeg",
            200,
            "INVALID_ARGUMENT",
        ),
        ("3 MiB", png_bytes(3 * 1024 * 1024), "image/png", 413, ""),
    ];
    for (what, bytes, content_type, status, code) in cases {
        let (got, body) = app
            .graphql_upload(
                Some(&token),
                upload,
                vars.clone(),
                "variables.f",
                (bytes, content_type),
            )
            .await;
        assert_eq!(got, status, "{what}: {body}");
        if !code.is_empty() {
            assert_eq!(error_code(&body), code, "{what}: {body}");
        }
    }
    // Someone else's upload on the owner's behalf: refused.
    let (_, body) = app
        .graphql_upload(
            Some(&app.token(Role::Player, "intruder")),
            upload,
            vars.clone(),
            "variables.f",
            (png_bytes(10), "image/png"),
        )
        .await;
    assert_eq!(error_code(&body), "PERMISSION_DENIED", "{body}");
    // The owner's own good upload goes through.
    let (status, body) = app
        .graphql_upload(
            Some(&token),
            upload,
            vars,
            "variables.f",
            (png_bytes(10), "image/png"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["errors"].is_null(), "{body}");
    app.stop().await;
}

/// POSTs a GraphQL document without a token, as a member of the public behind `forwarded_for`.
async fn anonymous(
    app: &qiwang_blackbox::TestApp,
    forwarded_for: &str,
    query: &str,
    variables: Value,
) -> Value {
    reqwest::Client::new()
        .post(&app.graphql_url)
        .header("x-forwarded-for", forwarded_for)
        .json(&json!({ "query": query, "variables": variables }))
        .send()
        .await
        .expect("gateway reachable")
        .json()
        .await
        .expect("JSON")
}

/// R-PUB-1/R-PUB-2 through GraphQL: anyone reads the published list (names, no personal data) and
/// files a report without signing in, follows it with the receipt, and cannot flood the notice.
#[tokio::test]
async fn r_pub_1_r_pub_2_anyone_reads_the_notice_and_reports_without_signing_in() {
    use qiwang_blackbox::chinese_player;
    use qiwang_proto::registration::v1 as pb;
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let champ = championship_from(&app, preset_with_window("go-2025", -1, 1)).await;
        let mut reg = app.registration().await;
        let mut ids = Vec::new();
        for i in 0..3u32 {
            let p = reg
                .register_player(with_token(
                    &org,
                    chinese_player(&format!("公示{i}"), "19900101", 931 + 2 * i),
                ))
                .await
                .expect("register")
                .into_inner();
            reg.link_account(with_token(
                &partner,
                pb::LinkAccountRequest {
                    player_id: p.id.clone(),
                    platform: "yizhan".into(),
                    account_id: format!("pub-{i}"),
                },
            ))
            .await
            .expect("link");
            reg.enter_event(with_token(
                &org,
                pb::EnterEventRequest {
                    championship_id: champ.clone(),
                    event: "men-individual".into(),
                    player_id: p.id.clone(),
                },
            ))
            .await
            .expect("enter");
            ids.push(p.id);
        }
        // go-2025 haixuan period 1 (top 38 to the final): three players, three games.
        let period = json!({ "championshipId": champ, "stage": "haixuan", "period": 1 });
        let gql = |q: &'static str, v: Value| {
            let app = &app;
            let org = org.clone();
            async move { app.graphql(Some(&org), q, v).await }
        };
        data(
            &gql(
                "mutation($p: PeriodInput!) { openPeriod(period: $p) }",
                json!({ "p": period }),
            )
            .await,
            "openPeriod",
        );
        let t0 = 1_746_842_400i64; // 2025-05-10 10:00 China time
        let games: Vec<q::GameReport> = [(0, 1), (1, 2), (0, 2)]
            .iter()
            .enumerate()
            .map(|(k, (w, l))| q::GameReport {
                championship_id: champ.clone(),
                game_id: format!("pub{k}"),
                first_account: format!("pub-{w}"),
                second_account: format!("pub-{l}"),
                result: q::Result::FirstWins as i32,
                end_reason: q::EndReason::Resignation as i32,
                first_move_ms: Some(3_000),
                second_move_ms: Some(4_000),
                started_at: Some(prost_types::Timestamp {
                    seconds: t0 + 1800 * k as i64,
                    nanos: 0,
                }),
                ended_at: Some(prost_types::Timestamp {
                    seconds: t0 + 1800 * k as i64 + 1200,
                    nanos: 0,
                }),
                ..Default::default()
            })
            .collect();
        let summary = QualificationServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect")
            .report_games(with_token(&partner, tokio_stream::iter(games)))
            .await
            .expect("report")
            .into_inner();
        assert_eq!(summary.stored, 3, "{backend}: {summary:?}");
        data(
            &gql(
                "mutation($p: PeriodInput!) { closePeriod(period: $p) { toStage } }",
                json!({ "p": period }),
            )
            .await,
            "closePeriod",
        );
        let composed = gql(
            "mutation($c: ID!) { composeFinalists(championshipId: $c) { finalists { playerId } } }",
            json!({ "c": champ }),
        )
        .await;
        assert_eq!(
            data(&composed, "composeFinalists")["finalists"]
                .as_array()
                .map(Vec::len),
            Some(3),
            "{backend}: {composed}"
        );
        let notice = "query($c: ID!) { publicNotice(championshipId: $c) { notice supplementaryRules finalists { playerId status statusReason finalsInformationDeadline profile { name regionName } } } }";
        let draft = anonymous(&app, "203.0.113.7", notice, json!({ "c": champ })).await;
        assert_eq!(
            error_code(&draft),
            "FAILED_PRECONDITION",
            "{backend}: {draft}"
        );
        assert_eq!(
            draft["errors"][0]["extensions"]["reason"],
            "NOTICE_NOT_PUBLISHED"
        );
        data(
            &gql(
                "mutation($c: ID!) { publishNotice(championshipId: $c, supplementaryRules: \"第一条：公示期七天。\") { notice } }",
                json!({ "c": champ }),
            )
            .await,
            "publishNotice",
        );

        // Anyone reads it: names and regions, one registration call for the whole list.
        let before = app
            .grpc_calls("/qiwang.registration.v1.RegistrationService/GetPublicProfiles")
            .await;
        let public = anonymous(&app, "203.0.113.7", notice, json!({ "c": champ })).await;
        let list = data(&public, "publicNotice");
        assert_eq!(list["notice"], "PUBLISHED", "{backend}: {public}");
        assert_eq!(
            list["supplementaryRules"], "第一条：公示期七天。",
            "{backend}: {public}"
        );
        let finalists = list["finalists"].as_array().expect("finalists");
        assert_eq!(finalists.len(), 3);
        for f in finalists {
            assert!(
                f["profile"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("公示"),
                "{public}"
            );
            assert_eq!(f["statusReason"], "", "no organizers' notes: {public}");
            assert_eq!(f["finalsInformationDeadline"], "", "{public}");
        }
        let after = app
            .grpc_calls("/qiwang.registration.v1.RegistrationService/GetPublicProfiles")
            .await;
        assert_eq!(
            after - before,
            1,
            "{backend}: one batched profile call per response"
        );
        // A token that was sent and refused is refused, not read as anonymous.
        let forged = app
            .graphql(Some("not-a-jwt"), notice, json!({ "c": champ }))
            .await;
        assert_eq!(
            error_code(&forged),
            "UNAUTHENTICATED",
            "{backend}: {forged}"
        );

        // Anyone reports, and follows the report with its receipt.
        let file = "mutation($c: ID!, $p: ID!, $t: String!) { fileNoticeReport(championshipId: $c, playerId: $p, text: $t) { reportId state receipt filedBy } }";
        let filed = anonymous(
            &app,
            "203.0.113.7",
            file,
            json!({ "c": champ, "p": ids[0], "t": "他的网络对局疑似代下" }),
        )
        .await;
        let report = data(&filed, "fileNoticeReport").clone();
        assert_eq!(report["state"], "OPEN", "{backend}: {filed}");
        let receipt = report["receipt"].as_str().unwrap_or_default().to_owned();
        assert!(receipt.len() >= 32, "{filed}");
        let status = "query($r: ID!, $k: String) { noticeReportStatus(reportId: $r, receipt: $k) { state decisionReason decidedBy filedBy } }";
        let seen = anonymous(
            &app,
            "198.51.100.1",
            status,
            json!({ "r": report["reportId"], "k": receipt }),
        )
        .await;
        assert_eq!(
            data(&seen, "noticeReportStatus")["state"],
            "OPEN",
            "{backend}: {seen}"
        );
        for wrong in [json!("rcpt_0000"), Value::Null] {
            let refused = anonymous(
                &app,
                "198.51.100.1",
                status,
                json!({ "r": report["reportId"], "k": wrong }),
            )
            .await;
            assert_eq!(
                error_code(&refused),
                "PERMISSION_DENIED",
                "{backend}: {refused}"
            );
        }
        let too_long = anonymous(
            &app,
            "203.0.113.8",
            file,
            json!({ "c": champ, "p": ids[1], "t": "长".repeat(2001) }),
        )
        .await;
        assert_eq!(
            error_code(&too_long),
            "INVALID_ARGUMENT",
            "{backend}: {too_long}"
        );

        // Flooding: the fifth report of the hour from one address is the last.
        for k in 1..5 {
            let ok = anonymous(
                &app,
                "203.0.113.7",
                file,
                json!({ "c": champ, "p": ids[k % 3], "t": format!("第{k}条") }),
            )
            .await;
            data(&ok, "fileNoticeReport");
        }
        let flood = anonymous(
            &app,
            "203.0.113.7",
            file,
            json!({ "c": champ, "p": ids[1], "t": "再来" }),
        )
        .await;
        assert_eq!(
            error_code(&flood),
            "RESOURCE_EXHAUSTED",
            "{backend}: {flood}"
        );
        let other = anonymous(
            &app,
            "203.0.113.9",
            file,
            json!({ "c": champ, "p": ids[1], "t": "另一位" }),
        )
        .await;
        data(&other, "fileNoticeReport");
        let all = gql(
            "query($c: ID!) { noticeReports(championshipId: $c) { reportId } }",
            json!({ "c": champ }),
        )
        .await;
        assert_eq!(
            data(&all, "noticeReports").as_array().map(Vec::len),
            Some(6),
            "{backend}: the refused reports left nothing behind"
        );

        // The committee dismisses the first (a referee investigates, an organizer decides); the
        // reporter sees the outcome, not who decided.
        data(
            &app.graphql(
                Some(&app.token(Role::Referee, "ref-1")),
                "mutation($r: ID!) { investigateNoticeReport(reportId: $r) { state } }",
                json!({ "r": report["reportId"] }),
            )
            .await,
            "investigateNoticeReport",
        );
        data(
            &gql(
                "mutation($r: ID!) { concludeNoticeReport(input: { reportId: $r, uphold: false, reason: \"经核查对局记录无异常\" }) { state } }",
                json!({ "r": report["reportId"] }),
            )
            .await,
            "concludeNoticeReport",
        );
        let seen = anonymous(
            &app,
            "198.51.100.1",
            status,
            json!({ "r": report["reportId"], "k": receipt }),
        )
        .await;
        let view = data(&seen, "noticeReportStatus");
        assert_eq!(view["state"], "DISMISSED", "{backend}: {seen}");
        assert_eq!(view["decisionReason"], "经核查对局记录无异常");
        assert_eq!(view["decidedBy"], "");
        assert_eq!(view["filedBy"], "");
        // A finalist completes their finals information themself (R-REG-6); the deadline then
        // withdraws nobody who did.
        let recorded = app
            .graphql(
                Some(&app.token(Role::Player, &ids[0])),
                "mutation($c: ID!, $p: ID!) { recordFinalsInformation(championshipId: $c, playerId: $p) { finalsInformationAt } }",
                json!({ "c": champ, "p": ids[0] }),
            )
            .await;
        assert!(
            data(&recorded, "recordFinalsInformation")["finalsInformationAt"].is_string(),
            "{backend}: {recorded}"
        );
        let other = app
            .graphql(
                Some(&app.token(Role::Player, &ids[0])),
                "mutation($c: ID!, $p: ID!) { recordFinalsInformation(championshipId: $c, playerId: $p) { finalsInformationAt } }",
                json!({ "c": champ, "p": ids[1] }),
            )
            .await;
        assert_eq!(
            error_code(&other),
            "PERMISSION_DENIED",
            "{backend}: {other}"
        );
        // Every step is in the qualification audit log, each link intact.
        let log = gql(
            "{ auditLog(service: QUALIFICATION, size: 500) { entries { action intact } } }",
            json!({}),
        )
        .await;
        let entries = data(&log, "auditLog")["entries"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            entries.iter().all(|e| e["intact"] == true),
            "{backend}: {log}"
        );
        let filed = entries
            .iter()
            .filter(|e| e["action"] == "notice.report_filed")
            .count();
        assert_eq!(filed, 6, "{backend}: {log}");
        app.stop().await;
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens a `graphql-transport-ws` subscription at `/graphql/ws`; the token goes in
/// `connection_init`.
async fn subscribe(
    app: &qiwang_blackbox::TestApp,
    token: Option<&str>,
    query: &str,
    variables: Value,
) -> Socket {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};
    let url = format!("{}/ws", app.graphql_url.replacen("http://", "ws://", 1));
    let mut request = url.into_client_request().expect("request");
    request.headers_mut().insert(
        "sec-websocket-protocol",
        "graphql-transport-ws".parse().expect("header"),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(request)
        .await
        .expect("websocket");
    let payload = match token {
        Some(t) => json!({ "authorization": format!("Bearer {t}") }),
        None => json!({}),
    };
    socket
        .send(Message::text(
            json!({ "type": "connection_init", "payload": payload }).to_string(),
        ))
        .await
        .expect("init");
    socket
        .send(Message::text(
            json!({ "id": "1", "type": "subscribe", "payload": { "query": query, "variables": variables } })
                .to_string(),
        ))
        .await
        .expect("subscribe");
    socket
}

/// The next payload (`data` or `errors`) of the subscription (`None` when the server ends it or is
/// silent for 10 s).
async fn next_event(socket: &mut Socket) -> Option<Value> {
    use futures_util::StreamExt;
    loop {
        let message = tokio::time::timeout(std::time::Duration::from_secs(10), socket.next())
            .await
            .ok()??
            .ok()?;
        let Ok(text) = message.into_text() else {
            continue;
        };
        let frame: Value = serde_json::from_str(text.as_str()).ok()?;
        match frame["type"].as_str() {
            Some("next") => return Some(frame["payload"].clone()),
            Some("connection_ack" | "ping" | "pong") => continue,
            _ => return None,
        }
    }
}

/// R-ADV-2, R-ADV-3 through GraphQL: an organizer seeds three players into go-2015's 入围
/// knockout, publishes the round's seed, draws it, and closes it after the partner reports the game
/// (an escape: the escaper is out, the bye advances); direct seeds and conflicts are readable.
#[tokio::test]
async fn r_adv_2_r_adv_3_organizers_run_a_knockout_round_through_graphql() {
    use qiwang_blackbox::chinese_player;
    use qiwang_proto::registration::v1 as pb;
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let champ = championship_from(&app, preset_with_window("go-2015", -1, 1)).await;
        let mut reg = app.registration().await;
        let mut ids = Vec::new();
        for i in 0..3u32 {
            let p = reg
                .register_player(with_token(
                    &org,
                    chinese_player(&format!("淘汰{i}"), "19900101", 951 + 2 * i),
                ))
                .await
                .expect("register")
                .into_inner();
            reg.link_account(with_token(
                &partner,
                pb::LinkAccountRequest {
                    player_id: p.id.clone(),
                    platform: "yizhan".into(),
                    account_id: format!("ko-{}", p.id),
                },
            ))
            .await
            .expect("link");
            ids.push(p.id);
        }
        let gql = |q: &'static str, v: Value| {
            let app = &app;
            let org = org.clone();
            async move { app.graphql(Some(&org), q, v).await }
        };
        for id in &ids {
            let seeded = gql(
                "mutation($i: DirectSeedInput!) { addDirectSeed(input: $i) { toStage decidedBy } }",
                json!({ "i": { "championshipId": champ, "toStage": "ruwei", "playerId": id, "sourceIndex": 0, "reason": "2015 季度赛" } }),
            )
            .await;
            assert_eq!(
                data(&seeded, "addDirectSeed")["decidedBy"],
                "org-1",
                "{backend}"
            );
        }
        let seeds = gql(
            "query($c: ID!) { directSeeds(championshipId: $c, toStage: \"ruwei\") { playerId } reportConflicts(championshipId: $c) { gameId } }",
            json!({ "c": champ }),
        )
        .await;
        assert_eq!(
            data(&seeds, "directSeeds").as_array().map(Vec::len),
            Some(3)
        );
        assert_eq!(seeds["data"]["reportConflicts"], json!([]));
        for p in 1..=4 {
            let period = json!({ "championshipId": champ, "stage": "jinji", "period": p });
            data(
                &gql(
                    "mutation($p: PeriodInput!) { openPeriod(period: $p) }",
                    json!({ "p": period }),
                )
                .await,
                "openPeriod",
            );
            data(
                &gql(
                    "mutation($p: PeriodInput!) { closePeriod(period: $p) { toStage } }",
                    json!({ "p": period }),
                )
                .await,
                "closePeriod",
            );
        }
        let round = json!({ "championshipId": champ, "stage": "ruwei", "round": 1 });
        let published = gql(
            "mutation($r: KnockoutRoundInput!) { publishKnockoutSeed(round: $r, seed: \"福彩3D 2015-10-01\") { seed drawnAt } }",
            json!({ "r": round }),
        )
        .await;
        assert_eq!(
            data(&published, "publishKnockoutSeed")["seed"],
            "福彩3D 2015-10-01",
            "{backend}"
        );
        let drawn = gql(
            "mutation($r: KnockoutRoundInput!) { drawKnockoutRound(round: $r) { pairs { firstMover secondMover } bye } }",
            json!({ "r": round }),
        )
        .await;
        let r1 = data(&drawn, "drawKnockoutRound").clone();
        let (a, b, bye) = (
            r1["pairs"][0]["firstMover"]
                .as_str()
                .expect("pair")
                .to_owned(),
            r1["pairs"][0]["secondMover"]
                .as_str()
                .expect("pair")
                .to_owned(),
            r1["bye"].as_str().expect("bye").to_owned(),
        );
        QualificationServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect")
            .report_knockout(with_token(
                &partner,
                q::KnockoutReport {
                    round: Some(q::KnockoutRoundRef {
                        championship_id: champ.clone(),
                        stage: "ruwei".into(),
                        round: 1,
                    }),
                    event: Some(q::knockout_report::Event::Game(q::KnockoutGame {
                        game_id: "ko-1".into(),
                        first_account: format!("ko-{a}"),
                        second_account: format!("ko-{b}"),
                        blitz_replay: false,
                        matched_at: Some(prost_types::Timestamp {
                            seconds: 1_443_837_600, // 2015-10-03 10:00 China time
                            nanos: 0,
                        }),
                        result: q::KnockoutResult::SecondEscaped as i32,
                    })),
                },
            ))
            .await
            .expect("the partner reports the game");
        let closed = gql(
            "mutation($r: KnockoutRoundInput!) { closeKnockoutRound(round: $r) { statuses { playerId reasonCode outcome } } }",
            json!({ "r": round }),
        )
        .await;
        let statuses = data(&closed, "closeKnockoutRound")["statuses"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let code_of = |p: &str| {
            statuses
                .iter()
                .find(|s| s["playerId"] == p)
                .map(|s| s["reasonCode"].as_str().unwrap_or_default().to_owned())
                .unwrap_or_default()
        };
        assert_eq!(code_of(&b), "ESCAPED", "{backend}: {closed}");
        assert_eq!(code_of(&a), "OPPONENT_ESCAPED", "{backend}: {closed}");
        assert_eq!(code_of(&bye), "BYE", "{backend}: {closed}");
        // A player may not run the draw.
        let denied = app
            .graphql(
                Some(&app.token(Role::Player, &ids[0])),
                "mutation($r: KnockoutRoundInput!) { drawKnockoutRound(round: $r) { bye } }",
                json!({ "r": { "championshipId": champ, "stage": "ruwei", "round": 2 } }),
            )
            .await;
        assert_eq!(
            error_code(&denied),
            "PERMISSION_DENIED",
            "{backend}: {denied}"
        );
        app.stop().await;
    }
}
