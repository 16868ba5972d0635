//! Registration over gRPC, as partners, organizers and players use it (R-REG-1..4, R-REG-8).
//! Every test runs on SQLite, and on PostgreSQL too when `QIWANG_TEST_DATABASE_URL` is set.

use qiwang_blackbox::{
    backends, championship_from, chinese_player, foreign_player, preset_with_window, resident_id,
    spawn_app, with_token,
};
use qiwang_infra::auth::Role;
use qiwang_proto::registration::v1 as pb;
use tonic::Code;
use tonic_types::StatusExt;

/// The field named by a `google.rpc.BadRequest` detail.
fn bad_field(status: &tonic::Status) -> String {
    status
        .get_details_bad_request()
        .and_then(|b| b.field_violations.first().map(|v| v.field.clone()))
        .unwrap_or_default()
}

async fn player_count(app: &qiwang_blackbox::TestApp) -> usize {
    let org = app.token(Role::Organizer, "org-1");
    let mut client = app.registration().await;
    let request = with_token(
        &org,
        pb::ListPlayersRequest {
            page_size: 500,
            ..Default::default()
        },
    );
    client
        .list_players(request)
        .await
        .expect("list")
        .into_inner()
        .players
        .len()
}

#[tokio::test]
async fn r_reg_3_register_and_read_back_a_player() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let created = client
            .register_player(with_token(&org, chinese_player("王小明", "19900101", 11)))
            .await
            .unwrap_or_else(|s| panic!("{backend}: {s:?}"))
            .into_inner();
        assert!(
            created.id.starts_with("pl_"),
            "{backend}: opaque id {}",
            created.id
        );
        assert_eq!(created.region_code, "33", "{backend}");
        assert_eq!(created.region_name, "浙江省", "{backend}");
        assert_eq!(created.nationality, "CHN", "{backend}");

        let read = client
            .get_player(with_token(
                &org,
                pb::GetPlayerRequest {
                    id: created.id.clone(),
                },
            ))
            .await
            .expect("read")
            .into_inner();
        assert_eq!(read.name, "王小明", "{backend}");
        assert_eq!(read.birth_date, "1990-01-01", "{backend}");
        assert_eq!(read.sex, pb::Sex::Male as i32, "{backend}");
        assert_eq!(read.id_number, resident_id("19900101", 11), "{backend}");
        assert!(!read.id_masked, "{backend}");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_3_a_player_registers_themself_and_is_one_player() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let me = app.token(Role::Player, "u-1001");
        let mut client = app.registration().await;
        let created = client
            .register_player(with_token(&me, chinese_player("赵六", "19850505", 22)))
            .await
            .expect("register")
            .into_inner();
        assert_eq!(
            created.id, "u-1001",
            "{backend}: the player's id is the token's subject"
        );
        let again = client
            .register_player(with_token(&me, chinese_player("赵六", "19850505", 24)))
            .await
            .expect_err("twice");
        assert_eq!(again.code(), Code::AlreadyExists, "{backend}: {again:?}");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_3_wrong_checksum_is_refused_with_the_field_and_stores_nothing() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let mut request = chinese_player("钱七", "19900101", 11);
        let good = resident_id("19900101", 11);
        let last = good.chars().last().expect("char");
        let wrong = if last == '0' { '1' } else { '0' };
        request.identity = Some(pb::Identity {
            kind: Some(pb::identity::Kind::Resident(pb::ResidentId {
                number: format!("{}{wrong}", &good[..17]),
            })),
        });
        let status = client
            .register_player(with_token(&org, request))
            .await
            .expect_err("bad checksum");
        assert_eq!(status.code(), Code::InvalidArgument, "{backend}");
        assert_eq!(bad_field(&status), "identity.resident.number", "{backend}");
        assert!(
            status.message().contains("check digit"),
            "{backend}: {}",
            status.message()
        );
        assert_eq!(player_count(&app).await, 0, "{backend}: nothing stored");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_3_stated_birth_date_must_match_the_id() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let mut request = chinese_player("孙八", "19900101", 11);
        request.birth_date = "1990-01-02".into();
        let status = client
            .register_player(with_token(&org, request))
            .await
            .expect_err("mismatch");
        assert_eq!(status.code(), Code::InvalidArgument, "{backend}");
        assert_eq!(bad_field(&status), "birth_date", "{backend}");
        let mut request = chinese_player("孙八", "19900101", 11);
        request.sex = pb::Sex::Female as i32;
        let status = client
            .register_player(with_token(&org, request))
            .await
            .expect_err("sex mismatch");
        assert_eq!(bad_field(&status), "sex", "{backend}");
        assert_eq!(player_count(&app).await, 0, "{backend}");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_3_one_person_one_player() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        client
            .register_player(with_token(&org, chinese_player("周九", "19800808", 33)))
            .await
            .expect("first");
        let status = client
            .register_player(with_token(&org, chinese_player("周九", "19800808", 33)))
            .await
            .expect_err("second");
        assert_eq!(status.code(), Code::AlreadyExists, "{backend}");
        // Foreigners: the same passport of the same country is the same person.
        let passport = |nat: &str| foreign_player("Kim Minsu", "1995-03-03", "M1234567", nat);
        let kor = client
            .register_player(with_token(&org, passport("KOR")))
            .await
            .expect("foreigner")
            .into_inner();
        assert_eq!(
            (
                kor.nationality.as_str(),
                kor.id_kind.as_str(),
                kor.region_code.as_str()
            ),
            ("KOR", "passport", "")
        );
        let status = client
            .register_player(with_token(&org, passport("kor")))
            .await
            .expect_err("same passport");
        assert_eq!(status.code(), Code::AlreadyExists, "{backend}");
        client
            .register_player(with_token(&org, passport("JPN")))
            .await
            .expect("another country's passport, same number");
        let status = client
            .register_player(with_token(&org, passport("XYZ")))
            .await
            .expect_err("bad nationality");
        assert_eq!(
            bad_field(&status),
            "identity.passport.nationality",
            "{backend}"
        );
        assert_eq!(player_count(&app).await, 3, "{backend}");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_4_accounts_link_once_and_follow_the_person() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let mut client = app.registration().await;
        let a = client
            .register_player(with_token(&org, chinese_player("甲", "19900101", 11)))
            .await
            .expect("a")
            .into_inner();
        let b = client
            .register_player(with_token(&org, chinese_player("乙", "19900101", 13)))
            .await
            .expect("b")
            .into_inner();
        let link = |player: &str, platform: &str, account: &str| pb::LinkAccountRequest {
            player_id: player.into(),
            platform: platform.into(),
            account_id: account.into(),
        };
        let linked = client
            .link_account(with_token(&partner, link(&a.id, "yizhan", "yz-42")))
            .await
            .expect("link")
            .into_inner();
        assert_eq!(linked.accounts.len(), 1, "{backend}");
        assert!(
            linked.id_masked,
            "{backend}: a partner sees personal data masked"
        );
        // The same link again is acknowledged (idempotent partner call), not duplicated.
        let again = client
            .link_account(with_token(&partner, link(&a.id, "yizhan", "yz-42")))
            .await
            .expect("again")
            .into_inner();
        assert_eq!(again.accounts.len(), 1, "{backend}");
        // The same account for another player is refused.
        let status = client
            .link_account(with_token(&partner, link(&b.id, "yizhan", "yz-42")))
            .await
            .expect_err("duplicate");
        assert_eq!(status.code(), Code::AlreadyExists, "{backend}");
        // A partner links only on its own platform.
        let status = client
            .link_account(with_token(&partner, link(&b.id, "qq", "123")))
            .await
            .expect_err("other platform");
        assert_eq!(status.code(), Code::PermissionDenied, "{backend}");
        // One person, several accounts.
        client
            .link_account(with_token(&org, link(&a.id, "wechat", "wx-a")))
            .await
            .expect("second account");
        let resolved = client
            .resolve_account(with_token(
                &partner,
                pb::ResolveAccountRequest {
                    platform: "yizhan".into(),
                    account_id: "yz-42".into(),
                },
            ))
            .await
            .expect("resolve")
            .into_inner();
        assert_eq!(
            (resolved.id.as_str(), resolved.accounts.len()),
            (a.id.as_str(), 2),
            "{backend}"
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_1_entry_only_within_the_window_and_repeatable() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let open = championship_from(&app, preset_with_window("xiangqi-2022", -1, 1)).await;
        let closed = championship_from(&app, preset_with_window("xiangqi-2022", -10, -1)).await;
        let future = championship_from(&app, preset_with_window("xiangqi-2022", 1, 10)).await;
        let me = app.token(Role::Player, "u-7");
        client
            .register_player(with_token(&me, chinese_player("吴十", "19920202", 15)))
            .await
            .expect("register");
        let enter = |championship: &str| pb::EnterEventRequest {
            championship_id: championship.into(),
            event: "men-individual".into(),
            player_id: "u-7".into(),
        };
        let first = client
            .enter_event(with_token(&me, enter(&open)))
            .await
            .expect("open window")
            .into_inner();
        assert_eq!(first.sequence, 1, "{backend}");
        let second = client
            .enter_event(with_token(&me, enter(&open)))
            .await
            .expect("repeat entry")
            .into_inner();
        assert_eq!(
            second.sequence, 2,
            "{backend}: R-REG-1 allows repeated entry"
        );
        for (championship, what) in [(&closed, "closed"), (&future, "not yet open")] {
            let status = client
                .enter_event(with_token(&me, enter(championship)))
                .await
                .expect_err(what);
            assert_eq!(
                status.code(),
                Code::FailedPrecondition,
                "{backend} {what}: {status:?}"
            );
            let detail = status.get_details_precondition_failure().expect("detail");
            let kind = &detail.violations[0].r#type;
            assert!(
                kind == "REGISTRATION_CLOSED" || kind == "REGISTRATION_NOT_OPEN",
                "{backend}: {kind}"
            );
        }
        // The official 2022 preset's window is long past.
        let past = client
            .create_championship(with_token(
                &org,
                pb::CreateChampionshipRequest {
                    preset: "xiangqi-2022".into(),
                    ..Default::default()
                },
            ))
            .await
            .expect("official preset")
            .into_inner();
        assert_eq!(
            (
                past.registration_opens_on.as_str(),
                past.registration_closes_on.as_str()
            ),
            ("2022-06-11", "2022-09-23")
        );
        let status = client
            .enter_event(with_token(&me, enter(&past.id)))
            .await
            .expect_err("2022 is over");
        assert_eq!(status.code(), Code::FailedPrecondition, "{backend}");
        let entries = client
            .list_entries(with_token(
                &me,
                pb::ListEntriesRequest {
                    championship_id: open.clone(),
                    player_id: String::new(),
                },
            ))
            .await
            .expect("entries")
            .into_inner()
            .entries;
        assert_eq!(
            entries.len(),
            2,
            "{backend}: refused entries changed nothing"
        );
        // Not an online-qualifier event, and an unknown event.
        let mut team = enter(&open);
        team.event = "men-team".into();
        assert_eq!(
            client
                .enter_event(with_token(&me, team))
                .await
                .expect_err("team")
                .code(),
            Code::FailedPrecondition
        );
        let mut unknown = enter(&open);
        unknown.event = "blitz".into();
        assert_eq!(
            client
                .enter_event(with_token(&me, unknown))
                .await
                .expect_err("unknown")
                .code(),
            Code::InvalidArgument
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_2_barred_players_cannot_enter_except_overseas_in_xiangqi_2015() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let go = championship_from(&app, preset_with_window("go-2015", -1, 1)).await;
        let xq = championship_from(&app, preset_with_window("xiangqi-2015", -1, 1)).await;
        let pro = client
            .register_player(with_token(&org, chinese_player("职业棋手", "19880808", 17)))
            .await
            .expect("pro")
            .into_inner();
        let overseas = client
            .register_player(with_token(
                &org,
                foreign_player("Tan Wei", "1980-01-01", "E7654321", "SGP"),
            ))
            .await
            .expect("overseas")
            .into_inner();
        let bar = |game: pb::Game, id_number: &str| pb::AddBarRequest {
            game: game as i32,
            id_number: id_number.into(),
            reason: "国家大师".into(),
        };
        client
            .add_bar(with_token(&org, bar(pb::Game::Go, &pro.id_number)))
            .await
            .expect("bar go pro");
        client
            .add_bar(with_token(&org, bar(pb::Game::Xiangqi, &pro.id_number)))
            .await
            .expect("bar xq");
        client
            .add_bar(with_token(&org, bar(pb::Game::Xiangqi, "SGP:E7654321")))
            .await
            .expect("bar overseas");
        let bars = client
            .list_bars(with_token(
                &org,
                pb::ListBarsRequest {
                    game: pb::Game::Xiangqi as i32,
                },
            ))
            .await
            .expect("list")
            .into_inner();
        assert_eq!(bars.bars.len(), 2, "{backend}");

        let enter = |championship: &str, player: &str| pb::EnterEventRequest {
            championship_id: championship.into(),
            event: "men-individual".into(),
            player_id: player.into(),
        };
        for championship in [&go, &xq] {
            let status = client
                .enter_event(with_token(&org, enter(championship, &pro.id)))
                .await
                .expect_err("barred");
            assert_eq!(status.code(), Code::FailedPrecondition, "{backend}");
            assert_eq!(
                status
                    .get_details_precondition_failure()
                    .expect("detail")
                    .violations[0]
                    .r#type,
                "BARRED"
            );
        }
        client
            .enter_event(with_token(&org, enter(&xq, &overseas.id)))
            .await
            .expect("overseas xiangqi-2015 players are not barred");
        // Removing the bar lets the player enter.
        let removed = client
            .remove_bar(with_token(
                &org,
                pb::RemoveBarRequest {
                    game: pb::Game::Go as i32,
                    id_number: pro.id_number.clone(),
                },
            ))
            .await
            .expect("remove")
            .into_inner();
        assert!(removed.removed, "{backend}");
        client
            .enter_event(with_token(&org, enter(&go, &pro.id)))
            .await
            .expect("no longer barred");
        // Only organizers keep the list.
        let referee = app.token(Role::Referee, "ref-1");
        let status = client
            .add_bar(with_token(&referee, bar(pb::Game::Go, &pro.id_number)))
            .await
            .expect_err("referee");
        assert_eq!(status.code(), Code::PermissionDenied, "{backend}");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_8_youth_event_checks_the_birth_window() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let go = championship_from(&app, preset_with_window("go-2025", -1, 1)).await;
        let child = client
            .register_player(with_token(&org, chinese_player("小棋手", "20110901", 19)))
            .await
            .expect("child")
            .into_inner();
        let older = client
            .register_player(with_token(&org, chinese_player("大棋手", "20110831", 21)))
            .await
            .expect("older")
            .into_inner();
        let enter = |player: &str| pb::EnterEventRequest {
            championship_id: go.clone(),
            event: "junior".into(),
            player_id: player.into(),
        };
        client
            .enter_event(with_token(&org, enter(&child.id)))
            .await
            .expect("born on the first day of the window");
        let status = client
            .enter_event(with_token(&org, enter(&older.id)))
            .await
            .expect_err("one day too old");
        assert_eq!(
            status
                .get_details_precondition_failure()
                .expect("detail")
                .violations[0]
                .r#type,
            "OUTSIDE_AGE_WINDOW",
            "{backend}"
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_3_personal_data_only_for_the_player_organizers_and_referees() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let mut client = app.registration().await;
        let alice = app.token(Role::Player, "alice");
        let bob = app.token(Role::Player, "bob");
        client
            .register_player(with_token(&alice, chinese_player("Alice", "19900101", 12)))
            .await
            .expect("alice");
        client
            .register_player(with_token(&bob, chinese_player("Bob", "19900101", 13)))
            .await
            .expect("bob");
        let read = |token: &str| with_token(token, pb::GetPlayerRequest { id: "alice".into() });
        let own = client
            .get_player(read(&alice))
            .await
            .expect("own")
            .into_inner();
        assert_eq!(
            (own.id_number.as_str(), own.phone.as_str(), own.id_masked),
            (resident_id("19900101", 12).as_str(), "13812345678", false)
        );
        let other = client
            .get_player(read(&bob))
            .await
            .expect("other")
            .into_inner();
        assert!(other.id_masked, "{backend}");
        assert_ne!(other.id_number, own.id_number, "{backend}");
        assert!(
            other.id_number.contains("**********"),
            "{backend}: {}",
            other.id_number
        );
        assert_eq!(other.phone, "138****5678", "{backend}");
        for role in [Role::Organizer, Role::Referee] {
            let full = client
                .get_player(read(&app.token(role, "staff")))
                .await
                .expect("staff")
                .into_inner();
            assert!(!full.id_masked, "{backend} {role}");
        }
        for role in [Role::Partner, Role::Federation] {
            let masked = client
                .get_player(read(&app.token(role, "outsider")))
                .await
                .expect("outsider")
                .into_inner();
            assert!(masked.id_masked, "{backend} {role}");
        }
        // A player may not update or enter someone else.
        let status = client
            .update_player(with_token(
                &bob,
                pb::UpdatePlayerRequest {
                    id: "alice".into(),
                    name: Some("X".into()),
                    phone: None,
                },
            ))
            .await
            .expect_err("not yours");
        assert_eq!(status.code(), Code::PermissionDenied, "{backend}");
        let updated = client
            .update_player(with_token(
                &alice,
                pb::UpdatePlayerRequest {
                    id: "alice".into(),
                    name: None,
                    phone: Some("13900000000".into()),
                },
            ))
            .await
            .expect("own update")
            .into_inner();
        assert_eq!(updated.phone, "13900000000", "{backend}");
        app.stop().await;
    }
}

#[tokio::test]
async fn championships_come_from_presets_and_bad_presets_are_refused() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut client = app.registration().await;
        let presets = client
            .list_presets(with_token(&org, pb::ListPresetsRequest {}))
            .await
            .expect("presets")
            .into_inner()
            .presets;
        let names: Vec<&str> = presets.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "go-2015",
                "xiangqi-2015",
                "chess-2015",
                "xiangqi-2022",
                "go-2025"
            ],
            "{backend}"
        );
        let create = |preset: &str, toml: &str| pb::CreateChampionshipRequest {
            preset: preset.into(),
            name: String::new(),
            preset_toml: toml.into(),
        };
        let go = client
            .create_championship(with_token(&org, create("go-2025", "")))
            .await
            .expect("go-2025")
            .into_inner();
        assert_eq!(
            (go.game, go.season, go.events.len()),
            (pb::Game::Go as i32, 2025, 7),
            "{backend}"
        );
        let status = client
            .create_championship(with_token(&org, create("go-2030", "")))
            .await
            .expect_err("unknown");
        assert_eq!(status.code(), Code::InvalidArgument, "{backend}");
        let broken =
            preset_with_window("go-2025", -1, 1).replace("sex = \"female\"", "sex = \"women\"");
        let status = client
            .create_championship(with_token(&org, create("", &broken)))
            .await
            .expect_err("broken");
        assert_eq!(status.code(), Code::InvalidArgument, "{backend}");
        assert!(
            status.message().contains("events[1].sex"),
            "{backend}: {}",
            status.message()
        );
        let player = app.token(Role::Player, "p");
        let status = client
            .create_championship(with_token(&player, create("go-2025", "")))
            .await
            .expect_err("player");
        assert_eq!(status.code(), Code::PermissionDenied, "{backend}");
        let all = client
            .list_championships(with_token(&player, pb::ListChampionshipsRequest {}))
            .await
            .expect("list")
            .into_inner();
        assert_eq!(all.championships.len(), 1, "{backend}");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_3_and_r_reg_1_bulk_import_checks_every_row_like_the_single_calls() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut reg = app.registration().await;
        let champ = championship_from(&app, preset_with_window("xiangqi-2022", -1, 1)).await;
        let row = |name: &str, seq: u32, account: &str| pb::ImportPlayerRequest {
            player: Some(chinese_player(name, "19900101", seq)),
            accounts: vec![pb::LinkedAccount {
                platform: "yizhan".into(),
                account_id: account.into(),
            }],
            championship_id: champ.clone(),
            events: vec!["men-individual".into()],
        };
        let mut bad_id = row("坏号", 7, "acc-bad");
        if let Some(p) = bad_id.player.as_mut() {
            p.identity = Some(pb::Identity {
                kind: Some(pb::identity::Kind::Resident(pb::ResidentId {
                    number: "110101199001010000".into(),
                })),
            });
        }
        let rows = vec![
            row("甲", 11, "acc-1"),
            row("乙", 13, "acc-2"),
            bad_id,
            // The same person twice in one import, and one account claimed twice.
            row("甲", 11, "acc-3"),
            row("丙", 15, "acc-2"),
        ];
        let st = reg
            .import_players(with_token(
                &app.token(Role::Partner, "bot"),
                tokio_stream::iter(rows.clone()),
            ))
            .await
            .expect_err("organizers import");
        assert_eq!(st.code(), Code::PermissionDenied, "{backend}");
        let summary = reg
            .import_players(with_token(&org, tokio_stream::iter(rows)))
            .await
            .expect("import")
            .into_inner();
        assert_eq!(
            (summary.imported, summary.refused),
            (2, 3),
            "{backend}: {summary:?}"
        );
        let refused: Vec<(u32, &str)> = summary
            .refusals
            .iter()
            .map(|r| (r.index, r.code.as_str()))
            .collect();
        assert_eq!(
            refused,
            vec![
                (2, "INVALID_ARGUMENT"),
                (3, "ALREADY_EXISTS"),
                (4, "ALREADY_EXISTS")
            ],
            "{backend}"
        );
        assert_eq!(
            summary.refusals[0].field, "identity.resident.number",
            "{backend}"
        );
        // What was imported is a player with an account and an entry, as the single calls make it.
        let found = reg
            .resolve_accounts(with_token(
                &org,
                pb::ResolveAccountsRequest {
                    platform: "yizhan".into(),
                    account_ids: vec!["acc-1".into(), "acc-2".into(), "acc-3".into()],
                },
            ))
            .await
            .expect("resolve")
            .into_inner()
            .player_ids;
        assert_eq!(found[0], summary.player_ids[0], "{backend}");
        assert_eq!(found[1], summary.player_ids[1], "{backend}");
        assert!(
            found[2].is_empty(),
            "{backend}: a refused row stores nothing"
        );
        let entered = reg
            .list_entered_players(with_token(
                &org,
                pb::ListEnteredPlayersRequest {
                    championship_id: champ.clone(),
                    player_ids: summary.player_ids.clone(),
                },
            ))
            .await
            .expect("entries")
            .into_inner()
            .player_ids;
        assert_eq!(entered.len(), 2, "{backend}");
        // Asked about many at once (more than 64: on the bulk lane), the same answers in place.
        let mut many: Vec<String> = (0..100).map(|i| format!("acc-none-{i}")).collect();
        many.insert(50, "acc-2".into());
        let found = reg
            .resolve_accounts(with_token(
                &org,
                pb::ResolveAccountsRequest {
                    platform: "yizhan".into(),
                    account_ids: many,
                },
            ))
            .await
            .expect("resolve many")
            .into_inner()
            .player_ids;
        assert_eq!(found.len(), 101, "{backend}");
        for (i, player) in found.iter().enumerate() {
            let expected = if i == 50 { &summary.player_ids[1] } else { "" };
            assert_eq!(player, expected, "{backend}: account {i}");
        }
        let mut many: Vec<String> = (0..100).map(|i| format!("no-player-{i}")).collect();
        many.push(summary.player_ids[0].clone());
        let entered = reg
            .list_entered_players(with_token(
                &org,
                pb::ListEnteredPlayersRequest {
                    championship_id: champ.clone(),
                    player_ids: many,
                },
            ))
            .await
            .expect("entries of many")
            .into_inner()
            .player_ids;
        assert_eq!(entered, [summary.player_ids[0].clone()], "{backend}");
        // Importing the same rows again refuses them all: one person, one player.
        let again = reg
            .import_players(with_token(
                &org,
                tokio_stream::iter(vec![row("甲", 11, "acc-9")]),
            ))
            .await
            .expect("import again")
            .into_inner();
        assert_eq!((again.imported, again.refused), (0, 1), "{backend}");
        // An imported player reads back field for field as it was sent, with a phone and a region
        // or without either (a foreigner who gave no phone).
        let foreigner = pb::ImportPlayerRequest {
            player: Some(foreign_player("Kim Minsu", "1995-03-03", "M1234567", "KOR")),
            accounts: vec![],
            championship_id: String::new(),
            events: vec![],
        };
        let kim = reg
            .import_players(with_token(&org, tokio_stream::iter(vec![foreigner])))
            .await
            .expect("import a foreigner")
            .into_inner();
        assert_eq!((kim.imported, kim.refused), (1, 0), "{backend}: {kim:?}");
        let read = |id: &str| pb::GetPlayerRequest { id: id.to_owned() };
        let kim = reg
            .get_player(with_token(&org, read(&kim.player_ids[0])))
            .await
            .expect("read the foreigner")
            .into_inner();
        assert_eq!(
            (
                kim.name.as_str(),
                kim.sex,
                kim.birth_date.as_str(),
                kim.id_kind.as_str(),
                kim.id_number.as_str(),
                kim.nationality.as_str(),
                kim.region_code.as_str(),
                kim.phone.as_str(),
            ),
            (
                "Kim Minsu",
                pb::Sex::Male as i32,
                "1995-03-03",
                "passport",
                "M1234567",
                "KOR",
                "",
                ""
            ),
            "{backend}"
        );
        let jia = reg
            .get_player(with_token(&org, read(&summary.player_ids[0])))
            .await
            .expect("read an imported player")
            .into_inner();
        assert_eq!(
            (
                jia.name.as_str(),
                jia.birth_date.as_str(),
                jia.id_number.as_str(),
                jia.region_code.as_str(),
                jia.phone.as_str(),
                jia.id_masked,
            ),
            (
                "甲",
                "1990-01-01",
                resident_id("19900101", 11).as_str(),
                "33",
                "13812345678",
                false
            ),
            "{backend}"
        );
        assert_eq!(
            jia.accounts,
            vec![pb::LinkedAccount {
                platform: "yizhan".into(),
                account_id: "acc-1".into()
            }],
            "{backend}"
        );
        app.stop().await;
    }
}

/// `StreamOnlineEntrants` (what a qualification replica preloads, R-REG-1): every account on the
/// platform whose player entered this championship's online qualifier, and nothing else: not
/// another platform's accounts of the same player, not another championship's entrants.
#[tokio::test]
async fn r_reg_1_online_entrants_stream_lists_the_entered_accounts_of_one_platform() {
    for backend in backends() {
        let app = spawn_app(backend.clone()).await;
        let org = app.token(Role::Organizer, "org-1");
        let mut reg = app.registration().await;
        let champ = championship_from(&app, preset_with_window("xiangqi-2022", -1, 1)).await;
        let other = championship_from(&app, preset_with_window("xiangqi-2022", -1, 1)).await;
        let row = |champ: &str, name: &str, seq: u32, accounts: &[(&str, &str)]| {
            pb::ImportPlayerRequest {
                player: Some(chinese_player(name, "19900101", seq)),
                accounts: accounts
                    .iter()
                    .map(|(platform, account)| pb::LinkedAccount {
                        platform: (*platform).into(),
                        account_id: (*account).into(),
                    })
                    .collect(),
                championship_id: champ.to_owned(),
                events: vec!["men-individual".into()],
            }
        };
        let rows = vec![
            row(
                &champ,
                "甲",
                11,
                &[("yizhan", "acc-1"), ("tiantian", "tt-1")],
            ),
            row(&champ, "乙", 13, &[("yizhan", "acc-2")]),
            row(&champ, "丙", 15, &[("tiantian", "tt-3")]),
            row(&other, "丁", 17, &[("yizhan", "acc-4")]),
        ];
        let summary = reg
            .import_players(with_token(&org, tokio_stream::iter(rows)))
            .await
            .expect("import")
            .into_inner();
        assert_eq!((summary.imported, summary.refused), (4, 0), "{backend}");
        let read = |token: String, championship: String, platform: &str| {
            let mut reg = reg.clone();
            let platform = platform.to_owned();
            async move {
                let mut pages = reg
                    .stream_online_entrants(with_token(
                        &token,
                        pb::StreamOnlineEntrantsRequest {
                            championship_id: championship,
                            platform,
                        },
                    ))
                    .await?
                    .into_inner();
                let mut pairs = Vec::new();
                while let Some(page) = pages.message().await? {
                    assert_eq!(page.account_ids.len(), page.player_ids.len());
                    pairs.extend(page.account_ids.into_iter().zip(page.player_ids));
                }
                pairs.sort();
                Ok::<_, tonic::Status>(pairs)
            }
        };
        let partner = app.token(Role::Partner, "bot");
        let pairs = read(partner.clone(), champ.clone(), "yizhan")
            .await
            .expect("own platform");
        assert_eq!(
            pairs,
            vec![
                ("acc-1".to_owned(), summary.player_ids[0].clone()),
                ("acc-2".to_owned(), summary.player_ids[1].clone()),
            ],
            "{backend}"
        );
        let pairs = read(org.clone(), champ.clone(), "tiantian")
            .await
            .expect("organizer, any platform");
        assert_eq!(
            pairs,
            vec![
                ("tt-1".to_owned(), summary.player_ids[0].clone()),
                ("tt-3".to_owned(), summary.player_ids[2].clone()),
            ],
            "{backend}"
        );
        let pairs = read(org.clone(), other.clone(), "yizhan")
            .await
            .expect("the other championship");
        assert_eq!(
            pairs,
            vec![("acc-4".to_owned(), summary.player_ids[3].clone())],
            "{backend}"
        );
        let refused = |result: Result<Vec<(String, String)>, tonic::Status>| match result {
            Ok(pairs) => panic!("{backend}: refused call answered {pairs:?}"),
            Err(status) => status.code(),
        };
        assert_eq!(
            refused(read(partner.clone(), champ.clone(), "tiantian").await),
            Code::PermissionDenied,
            "{backend}: a partner reads only its own platform"
        );
        assert_eq!(
            refused(read(app.token(Role::Player, "p-1"), champ.clone(), "yizhan").await),
            Code::PermissionDenied,
            "{backend}: players may not list accounts"
        );
        assert_eq!(
            refused(read(org.clone(), "no-such-championship".into(), "yizhan").await),
            Code::NotFound,
            "{backend}"
        );
        assert_eq!(
            refused(read(org.clone(), champ.clone(), "Bad Platform").await),
            Code::InvalidArgument,
            "{backend}"
        );
        app.stop().await;
    }
}
