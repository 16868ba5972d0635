//! Team standings through gRPC (R-TEAM-1, R-TEAM-4, R-TEAM-5): a go-2025 final section played by
//! referees, city rosters from registration, standings computed on read, frozen by an organizer,
//! and a later correction flagged instead of silently changing the frozen list. SQLite, and
//! PostgreSQL when configured.

use chrono::{Duration, Utc};
use qiwang_blackbox::{backends, chinese_player, preset_with_window, spawn_app, with_token};
use qiwang_infra::auth::Role;
use qiwang_proto::pairing::v1 as pp;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::teamranking::v1 as tr;
use qiwang_proto::teamranking::v1::team_ranking_service_client::TeamRankingServiceClient;
use tonic::Code;

#[tokio::test]
async fn r_team_1_r_team_4_city_teams_ranked_from_the_final_frozen_and_corrections_flagged() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let referee = app.token(Role::Referee, "ref-1");
        let today = qiwang_core::time::china_date(Utc::now());
        let preset = preset_with_window("go-2025", -1, 1).replace(
            "opens_on = \"2025-06-01\"\ncloses_on = \"2025-10-08\"",
            &format!(
                "opens_on = \"{}\"\ncloses_on = \"{}\"",
                today - Duration::days(1),
                today + Duration::days(1)
            ),
        );
        let mut reg = app.registration().await;
        let champ = reg
            .create_championship(with_token(
                &org,
                pb::CreateChampionshipRequest {
                    preset_toml: preset,
                    ..Default::default()
                },
            ))
            .await
            .expect("championship")
            .into_inner()
            .id;
        // 杭州市: 3 men + 2 women; 宁波市: 2 men (incomplete); one man of no city team.
        let mut ids = Vec::new();
        for (i, seq) in [41u32, 43, 45, 42, 44, 47, 49, 51].iter().enumerate() {
            let p = reg
                .register_player(with_token(
                    &org,
                    chinese_player(&format!("队员{i}"), "19900909", *seq),
                ))
                .await
                .expect("register")
                .into_inner();
            ids.push(p.id);
        }
        for (city, members) in [("杭州市", &ids[0..5]), ("宁波市", &ids[5..7])] {
            reg.register_city_team(with_token(
                &org,
                pb::RegisterCityTeamRequest {
                    championship_id: champ.clone(),
                    city: city.into(),
                    player_ids: members.to_vec(),
                },
            ))
            .await
            .expect("roster");
        }

        // The open section, one field of 8, 3 rounds, played by the referees.
        let mut pairing = PairingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let event = pairing
            .create_event(with_token(
                &org,
                pp::CreateEventRequest {
                    championship_id: champ.clone(),
                    event_code: "men-individual".into(),
                    rounds: 3,
                    single_field: true,
                    entrants: ids
                        .iter()
                        .enumerate()
                        .map(|(i, id)| pp::EntrantSpec {
                            player_id: id.clone(),
                            rating: 2000 - 10 * i as u32,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            ))
            .await
            .expect("event")
            .into_inner();
        let mut teams = TeamRankingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let men = tr::TeamEventRef {
            championship_id: champ.clone(),
            team_event: "men-team".into(),
        };
        let mut last_round = None;
        for round in 1..=3u32 {
            let r = pairing
                .pair_round(with_token(
                    &referee,
                    pp::PairRoundRequest {
                        event_id: event.id.clone(),
                        group: String::new(),
                    },
                ))
                .await
                .expect("pair")
                .into_inner();
            for b in &r.boards {
                pairing
                    .record_result(with_token(
                        &referee,
                        pp::RecordResultRequest {
                            event_id: event.id.clone(),
                            group: String::new(),
                            round,
                            board: b.number,
                            result: pp::GameResult::FirstWins as i32,
                            reason: String::new(),
                        },
                    ))
                    .await
                    .expect("result");
            }
            if round == 1 {
                // Provisional standings are readable during the final.
                let provisional = teams
                    .get_team_standings(with_token(&org, men.clone()))
                    .await
                    .expect("standings")
                    .into_inner();
                assert!(!provisional.complete);
                let st = teams
                    .freeze_team_standings(with_token(
                        &org,
                        tr::FreezeRequest {
                            championship_id: champ.clone(),
                            team_event: "men-team".into(),
                            reason: "too early".into(),
                        },
                    ))
                    .await
                    .expect_err("not final");
                assert_eq!(st.code(), Code::FailedPrecondition);
            }
            last_round = Some(r);
        }

        let standings = teams
            .get_team_standings(with_token(&app.token(Role::Player, &ids[0]), men.clone()))
            .await
            .expect("standings")
            .into_inner();
        assert!(standings.complete);
        assert_eq!(standings.ranked.len(), 1, "{standings:#?}");
        let hangzhou = &standings.ranked[0];
        assert_eq!(hangzhou.team, "registered:杭州市");
        assert_eq!(hangzhou.counted.len(), 3);
        assert_eq!(
            hangzhou.sum,
            hangzhou
                .counted
                .iter()
                .map(|m| u64::from(m.place))
                .sum::<u64>()
        );
        assert!(
            hangzhou
                .counted
                .iter()
                .all(|m| ids[0..3].contains(&m.player_id)),
            "only the city's men count"
        );
        // 宁波市's two men are a short side: they play as individuals (R-REG-9), no team.
        assert!(standings.unranked.is_empty(), "{standings:#?}");
        // The women's team counts the women's ranking: the women of the open field, renumbered
        // (R-IND-2, R-TEAM-1), since the women's individual event has no section of its own.
        let women = teams
            .get_team_standings(with_token(
                &org,
                tr::TeamEventRef {
                    championship_id: champ.clone(),
                    team_event: "women-team".into(),
                },
            ))
            .await
            .expect("women's teams")
            .into_inner();
        assert!(women.complete, "{women:#?}");
        assert_eq!(women.ranked.len(), 1, "{women:#?}");
        let mut counted: Vec<(String, u32)> = women.ranked[0]
            .counted
            .iter()
            .map(|m| (m.player_id.clone(), m.place))
            .collect();
        counted.sort_by_key(|(_, place)| *place);
        assert_eq!(counted.len(), 2);
        assert!(
            counted.iter().all(|(p, _)| ids[3..5].contains(p)),
            "{counted:?}"
        );
        assert_eq!(
            counted.iter().map(|(_, place)| *place).collect::<Vec<_>>(),
            [1, 2],
            "the only two women hold women's places 1 and 2"
        );
        assert!(
            hangzhou.awarded,
            "R-TEAM-5: the only ranked team is champion"
        );

        let st = teams
            .freeze_team_standings(with_token(
                &referee,
                tr::FreezeRequest {
                    championship_id: champ.clone(),
                    team_event: "men-team".into(),
                    reason: "final".into(),
                },
            ))
            .await
            .expect_err("organizers freeze");
        assert_eq!(st.code(), Code::PermissionDenied);
        let frozen = teams
            .freeze_team_standings(with_token(
                &org,
                tr::FreezeRequest {
                    championship_id: champ.clone(),
                    team_event: "men-team".into(),
                    reason: "final standings approved".into(),
                },
            ))
            .await
            .expect("freeze")
            .into_inner();
        assert!(frozen.frozen && !frozen.live_differs);

        // A later correction: the frozen list stays, and says it no longer matches the results.
        let round3 = last_round.expect("round 3");
        let board = round3
            .boards
            .iter()
            .find(|b| {
                ids[0..3].contains(&b.first_player_id) != ids[0..3].contains(&b.second_player_id)
            })
            .expect("a board between a counted 杭州 man and someone else");
        pairing
            .record_result(with_token(
                &referee,
                pp::RecordResultRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                    round: 3,
                    board: board.number,
                    result: pp::GameResult::SecondWins as i32,
                    reason: "score sheet shows the second mover won".into(),
                },
            ))
            .await
            .expect("correction");
        let after = teams
            .get_team_standings(with_token(&org, men.clone()))
            .await
            .expect("standings")
            .into_inner();
        assert!(after.frozen);
        assert_eq!(after.ranked, frozen.ranked, "the frozen list is kept");
        assert!(after.live_differs, "and flagged as differing: {after:?}");
        app.stop().await;
    }
}
