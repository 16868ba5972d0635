//! The pairing service through gRPC: a go-2025 final (groups A and B, 9 rounds, then the
//! cross-group placement round) paired and played by referees, with a withdrawal, a forfeit, a
//! late entry, a correction and an appeal (R-IND-1..5). SQLite, and PostgreSQL when configured.

use std::collections::BTreeSet;

use qiwang_blackbox::{
    TestApp, backends, chinese_player, preset_with_window, spawn_app, with_token,
};
use qiwang_infra::auth::Role;
use qiwang_proto::pairing::v1 as p;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::registration::v1 as pb;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

struct Final {
    app: TestApp,
    org: String,
    referee: String,
    championship: String,
}

impl Final {
    async fn new(backend: qiwang_blackbox::Backend) -> Final {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let referee = app.token(Role::Referee, "ref-1");
        let championship = app
            .registration()
            .await
            .create_championship(with_token(
                &org,
                pb::CreateChampionshipRequest {
                    preset_toml: preset_with_window("go-2025", -1, 1),
                    ..Default::default()
                },
            ))
            .await
            .expect("championship")
            .into_inner()
            .id;
        Final {
            app,
            org,
            referee,
            championship,
        }
    }

    async fn register(&self, count: u32, first_seq: u32) -> Vec<String> {
        let mut reg = self.app.registration().await;
        let mut ids = Vec::new();
        for i in 0..count {
            let seq = first_seq + i;
            let player = reg
                .register_player(with_token(
                    &self.org,
                    chinese_player(&format!("棋手{seq}"), "19950505", seq),
                ))
                .await
                .expect("register")
                .into_inner();
            ids.push(player.id);
        }
        ids
    }

    async fn client(&self) -> PairingServiceClient<Channel> {
        PairingServiceClient::connect(self.app.grpc_url.clone())
            .await
            .expect("connect")
    }
}

fn field_of(status: &tonic::Status) -> String {
    status
        .get_details_bad_request()
        .and_then(|b| b.field_violations.first().map(|v| v.field.clone()))
        .unwrap_or_default()
}

/// A deterministic result: mostly decisive (Go has komi), by board and round.
fn result_for(round: u32, board: u32) -> p::GameResult {
    if (round + board).is_multiple_of(3) {
        p::GameResult::SecondWins
    } else {
        p::GameResult::FirstWins
    }
}

async fn play(client: &mut PairingServiceClient<Channel>, referee: &str, round: &p::Round) {
    for b in &round.boards {
        client
            .record_result(with_token(
                referee,
                p::RecordResultRequest {
                    event_id: round.event_id.clone(),
                    group: round.group.clone(),
                    round: round.number,
                    board: b.number,
                    result: result_for(round.number, b.number) as i32,
                    reason: String::new(),
                },
            ))
            .await
            .expect("result");
    }
}

#[tokio::test]
async fn r_ind_1_to_5_go_2025_final_two_groups_nine_rounds_placement_with_withdrawal_forfeit_late_entry_correction_and_appeal()
 {
    for backend in backends() {
        let f = Final::new(backend).await;
        let players = f.register(24, 201).await;
        let late = f.register(1, 301).await.remove(0);
        let stranger = f.register(1, 401).await.remove(0);
        let mut client = f.client().await;
        let entrants: Vec<p::EntrantSpec> = players
            .iter()
            .enumerate()
            .map(|(i, id)| p::EntrantSpec {
                player_id: id.clone(),
                group: if i % 2 == 0 { "A" } else { "B" }.into(),
                rating: 2600 - 10 * i as u32,
                ..Default::default()
            })
            .collect();
        let create = |token: &str, entrants: Vec<p::EntrantSpec>| {
            with_token(
                token,
                p::CreateEventRequest {
                    championship_id: f.championship.clone(),
                    event_code: "men-individual".into(),
                    entrants,
                    reason: "finalist list frozen".into(),
                    ..Default::default()
                },
            )
        };

        // Refusals change nothing: a referee may not create an event; an unknown player, an
        // unknown group and an unknown event code are field errors.
        let s = client
            .create_event(create(&f.referee, entrants.clone()))
            .await
            .expect_err("referee");
        assert_eq!(s.code(), Code::PermissionDenied);
        let mut bad = entrants.clone();
        bad[3].player_id = "pl_nobody".into();
        let s = client
            .create_event(create(&f.org, bad))
            .await
            .expect_err("unknown player");
        assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
        assert_eq!(field_of(&s), "entrants.player_id");
        let mut bad = entrants.clone();
        bad[0].group = "C".into();
        let s = client
            .create_event(create(&f.org, bad))
            .await
            .expect_err("unknown group");
        assert_eq!(field_of(&s), "group", "{s:?}");

        let event = client
            .create_event(create(&f.org, entrants.clone()))
            .await
            .expect("event")
            .into_inner();
        assert_eq!(event.rounds, 9);
        assert_eq!(event.groups, vec!["A", "B"]);
        assert_eq!(event.placement_pairs, 16);
        assert_eq!(
            (event.first_mover.as_str(), event.second_mover.as_str()),
            ("Black", "White")
        );
        assert_eq!((event.appeal_minutes, event.appeal_fee_yuan), (20, 2000));
        assert_eq!(event.entrants.len(), 24);
        assert_eq!(
            event.entrants[0].player_id, players[0],
            "start numbers by rating"
        );
        let id = event.id.clone();

        let withdrawn = players[5].clone(); // group B
        let mut rounds: Vec<p::Round> = Vec::new();
        for number in 1..=9u32 {
            if number == 3 {
                let s = client
                    .withdraw_entrant(with_token(
                        &f.referee,
                        p::WithdrawEntrantRequest {
                            event_id: id.clone(),
                            player_id: withdrawn.clone(),
                            reason: String::new(),
                        },
                    ))
                    .await
                    .expect_err("a withdrawal needs a reason");
                assert_eq!(field_of(&s), "reason");
                client
                    .withdraw_entrant(with_token(
                        &f.referee,
                        p::WithdrawEntrantRequest {
                            event_id: id.clone(),
                            player_id: withdrawn.clone(),
                            reason: "illness, certified by the doctor".into(),
                        },
                    ))
                    .await
                    .expect("withdraw");
                let e = client
                    .add_late_entrant(with_token(
                        &f.org,
                        p::AddLateEntrantRequest {
                            event_id: id.clone(),
                            entrant: Some(p::EntrantSpec {
                                player_id: late.clone(),
                                group: "A".into(),
                                rating: 2550,
                                ..Default::default()
                            }),
                            reason: "travel delay approved by the committee".into(),
                        },
                    ))
                    .await
                    .expect("late entry")
                    .into_inner();
                let l = e
                    .entrants
                    .iter()
                    .find(|x| x.player_id == late)
                    .expect("late");
                assert_eq!((l.first_round, l.start_number), (3, 25));
            }
            for group in ["A", "B"] {
                let round = client
                    .pair_round(with_token(
                        &f.referee,
                        p::PairRoundRequest {
                            event_id: id.clone(),
                            group: group.into(),
                        },
                    ))
                    .await
                    .expect("pair")
                    .into_inner();
                assert_eq!(round.number, number);
                // The next round cannot be paired while this one has pending results.
                let s = client
                    .pair_round(with_token(
                        &f.referee,
                        p::PairRoundRequest {
                            event_id: id.clone(),
                            group: group.into(),
                        },
                    ))
                    .await
                    .expect_err("pending");
                assert_eq!(s.code(), Code::FailedPrecondition);
                if number == 2 && group == "A" {
                    // A forfeit: board 1's second mover did not come.
                    client
                        .record_result(with_token(
                            &f.referee,
                            p::RecordResultRequest {
                                event_id: id.clone(),
                                group: "A".into(),
                                round: 2,
                                board: 1,
                                result: p::GameResult::SecondForfeits as i32,
                                reason: String::new(),
                            },
                        ))
                        .await
                        .expect("forfeit");
                    let mut rest = round.clone();
                    rest.boards.retain(|b| b.number != 1);
                    play(&mut client, &f.referee, &rest).await;
                } else {
                    play(&mut client, &f.referee, &round).await;
                }
                rounds.push(round);
            }

            if number == 3 {
                // A correction of round 1 after round 3 was paired: it needs a reason, then the
                // standings recompute and the pairings already published stay.
                let before = standings(&mut client, &f.org, &id, "A").await;
                let board = p::RecordResultRequest {
                    event_id: id.clone(),
                    group: "A".into(),
                    round: 1,
                    board: 2,
                    result: p::GameResult::Draw as i32,
                    reason: String::new(),
                };
                let s = client
                    .record_result(with_token(&f.referee, board.clone()))
                    .await
                    .expect_err("no reason");
                assert_eq!(field_of(&s), "reason");
                client
                    .record_result(with_token(
                        &f.referee,
                        p::RecordResultRequest {
                            reason: "score sheet signed by both players shows a draw".into(),
                            ..board
                        },
                    ))
                    .await
                    .expect("correction");
                let after = standings(&mut client, &f.org, &id, "A").await;
                assert_ne!(
                    before.rows, after.rows,
                    "the correction changes the standings"
                );
                let r3 = client
                    .get_round(with_token(
                        &f.org,
                        p::GetRoundRequest {
                            event_id: id.clone(),
                            group: "A".into(),
                            round: 3,
                        },
                    ))
                    .await
                    .expect("round 3")
                    .into_inner();
                assert_eq!(
                    r3.boards
                        .iter()
                        .map(|b| (b.first_start_number, b.second_start_number))
                        .collect::<Vec<_>>(),
                    rounds[4]
                        .boards
                        .iter()
                        .map(|b| (b.first_start_number, b.second_start_number))
                        .collect::<Vec<_>>(),
                    "round 3's pairing stays"
                );
            }

            if number == 4 {
                // R-IND-5: a written appeal within 20 minutes of the round's end, 2000 yuan.
                let board = &rounds[6].boards[0]; // group A, round 4, board 1
                let appellant = board.second_player_id.clone();
                let token = f.app.token(Role::Player, &appellant);
                let appeal = |player: &str| p::FileAppealRequest {
                    event_id: id.clone(),
                    group: "A".into(),
                    round: 4,
                    board: 1,
                    player_id: player.into(),
                    text: "我方认为对方超时在先，裁判判罚有误".into(),
                };
                let s = client
                    .file_appeal(with_token(&token, appeal(&board.first_player_id)))
                    .await
                    .expect_err("for someone else");
                assert_eq!(s.code(), Code::PermissionDenied);
                let s = client
                    .file_appeal(with_token(&f.org, appeal(&stranger)))
                    .await
                    .expect_err("not an entrant");
                assert_eq!(s.code(), Code::InvalidArgument);
                let other = &rounds[6].boards[1].first_player_id;
                let s = client
                    .file_appeal(with_token(
                        &f.org,
                        p::FileAppealRequest {
                            player_id: other.clone(),
                            ..appeal(other)
                        },
                    ))
                    .await
                    .expect_err("not on the board");
                assert_eq!(s.code(), Code::FailedPrecondition);
                let filed = client
                    .file_appeal(with_token(&token, appeal(&appellant)))
                    .await
                    .expect("appeal")
                    .into_inner();
                assert_eq!(filed.fee_yuan, 2000);
                assert_eq!(filed.status, p::AppealStatus::Pending as i32);
                let s = client
                    .decide_appeal(with_token(
                        &f.referee,
                        p::DecideAppealRequest {
                            event_id: id.clone(),
                            appeal_id: filed.id.clone(),
                            upheld: true,
                            decision: "x".into(),
                            ..Default::default()
                        },
                    ))
                    .await
                    .expect_err("referees do not judge appeals against their own rulings");
                assert_eq!(s.code(), Code::PermissionDenied);
                let decided = client
                    .decide_appeal(with_token(
                        &f.org,
                        p::DecideAppealRequest {
                            event_id: id.clone(),
                            appeal_id: filed.id.clone(),
                            upheld: true,
                            decision: "the clock log shows the first mover lost on time".into(),
                            corrected_result: p::GameResult::SecondWins as i32,
                        },
                    ))
                    .await
                    .expect("decide")
                    .into_inner();
                assert_eq!(decided.status, p::AppealStatus::Upheld as i32);
                assert_eq!(decided.refund_yuan, 2000);
                let r4 = client
                    .get_round(with_token(
                        &f.org,
                        p::GetRoundRequest {
                            event_id: id.clone(),
                            group: "A".into(),
                            round: 4,
                        },
                    ))
                    .await
                    .expect("round 4")
                    .into_inner();
                assert_eq!(r4.boards[0].result, p::GameResult::SecondWins as i32);
            }
        }

        // Swiss invariants, per group: nobody twice in a round, no repeated game, the withdrawn
        // player not paired after round 2, the late entrant not before round 3.
        for group in ["A", "B"] {
            let mut met = BTreeSet::new();
            for r in rounds.iter().filter(|r| r.group == group) {
                let mut seen = BTreeSet::new();
                for b in &r.boards {
                    assert!(seen.insert(b.first_player_id.clone()));
                    assert!(seen.insert(b.second_player_id.clone()));
                    let key = (
                        b.first_start_number.min(b.second_start_number),
                        b.first_start_number.max(b.second_start_number),
                    );
                    let forfeit = r.number == 2 && group == "A" && b.number == 1;
                    assert!(!met.contains(&key), "repeated game {key:?}");
                    if !forfeit {
                        met.insert(key);
                    }
                }
                if !r.bye_player_id.is_empty() {
                    assert!(seen.insert(r.bye_player_id.clone()));
                }
                if r.number >= 3 {
                    assert!(!seen.contains(&withdrawn), "withdrawn player paired");
                } else {
                    assert!(!seen.contains(&late), "late entrant paired early");
                }
            }
        }

        // The placement round: A1-B1, A2-B2, ... (A has 13 players, B 11 after the withdrawal).
        let a = standings(&mut client, &f.org, &id, "A").await;
        let b = standings(&mut client, &f.org, &id, "B").await;
        assert_eq!(a.after_round, 9);
        assert_eq!(a.tie_breaks, vec!["BH", "SOSOS", "PS"]);
        let placement = client
            .pair_round(with_token(
                &f.org,
                p::PairRoundRequest {
                    event_id: id.clone(),
                    group: "placement".into(),
                },
            ))
            .await
            .expect("placement round")
            .into_inner();
        assert_eq!(placement.number, 10);
        let b_playing: Vec<&p::StandingRow> =
            b.rows.iter().filter(|r| r.player_id != withdrawn).collect();
        assert_eq!(placement.boards.len(), 11);
        for (i, board) in placement.boards.iter().enumerate() {
            let pair = [
                board.first_player_id.clone(),
                board.second_player_id.clone(),
            ];
            assert!(
                pair.contains(&a.rows[i].player_id),
                "A{} on board {}",
                i + 1,
                i + 1
            );
            assert!(
                pair.contains(&b_playing[i].player_id),
                "B{} on board {}",
                i + 1,
                i + 1
            );
        }

        // Before the placement round's results the final ranking is provisional; after them,
        // board i decides places 2i-1 and 2i (R-IND-1, go-2025).
        let ranking = |women: bool| p::GetStandingsRequest {
            event_id: id.clone(),
            group: String::new(),
            women,
        };
        let provisional = client
            .get_final_ranking(with_token(&f.org, ranking(false)))
            .await
            .expect("ranking")
            .into_inner();
        assert!(!provisional.complete);
        play(&mut client, &f.referee, &placement).await;
        let ranked = client
            .get_final_ranking(with_token(&f.org, ranking(false)))
            .await
            .expect("ranking")
            .into_inner();
        assert!(ranked.complete);
        assert_eq!(ranked.entrants.len(), 25);
        let (first, second) = (&placement.boards[0], &placement.boards[1]);
        let winner = |b: &p::Board, round: u32| {
            if result_for(round, b.number) == p::GameResult::FirstWins {
                b.first_player_id.clone()
            } else {
                b.second_player_id.clone()
            }
        };
        assert_eq!(ranked.entrants[0].player_id, winner(first, 10));
        assert_eq!(ranked.entrants[2].player_id, winner(second, 10));
        let women_final = client
            .get_final_ranking(with_token(&f.org, ranking(true)))
            .await
            .expect("women")
            .into_inner();
        assert!(women_final.entrants.iter().all(|e| e.sex == "female"));
        assert_eq!(women_final.entrants[0].place, 1);
        let listed = client
            .list_events(with_token(
                &f.org,
                p::ListEventsRequest {
                    championship_id: f.championship.clone(),
                    event_code: "men-individual".into(),
                },
            ))
            .await
            .expect("events")
            .into_inner()
            .events;
        assert_eq!(
            listed.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
            [id.as_str()]
        );

        // Women's ranking of the open event (R-IND-2): only women, places renumbered.
        let women = client
            .get_standings(with_token(
                &f.org,
                p::GetStandingsRequest {
                    event_id: id.clone(),
                    group: "B".into(),
                    women: true,
                },
            ))
            .await
            .expect("women")
            .into_inner();
        assert!(!women.rows.is_empty());
        assert!(women.rows.iter().all(|r| r.sex == "female"));
        assert_eq!(women.rows[0].place, 1);

        // Exports: TRF (reads back, with the group's players), CSV and h9.
        let trf = export(&mut client, &f.org, &id, "A", p::ExportFormat::Trf).await;
        let parsed = qiwang_swiss::trf::parse(&trf).expect("our TRF reads back");
        assert_eq!(parsed.players().count(), 13);
        assert_eq!(parsed.declared_rounds(), Some(9));
        let csv = export(&mut client, &f.org, &id, "B", p::ExportFormat::Csv).await;
        assert_eq!(csv.lines().count(), 13, "header and 12 players: {csv}");
        let h9 = export(&mut client, &f.org, &id, "A", p::ExportFormat::H9).await;
        assert!(h9.contains("+/b!"), "the forfeit win is marked: {h9}");

        // The log: who, when, what, why.
        let changes = client
            .list_changes(with_token(
                &f.org,
                p::ListChangesRequest {
                    event_id: id.clone(),
                },
            ))
            .await
            .expect("changes")
            .into_inner()
            .changes;
        let correction = changes
            .iter()
            .find(|c| c.reason.starts_with("score sheet"))
            .expect("the correction is logged");
        assert_eq!(
            (correction.actor.as_str(), correction.role.as_str()),
            ("ref-1", "referee")
        );
        assert!(
            changes
                .iter()
                .any(|c| c.reason.contains("clock log") && c.actor == "org-1")
        );
        let s = client
            .list_changes(with_token(
                &f.app.token(Role::Player, &players[0]),
                p::ListChangesRequest {
                    event_id: id.clone(),
                },
            ))
            .await
            .expect_err("players do not read the log");
        assert_eq!(s.code(), Code::PermissionDenied);

        // Nothing is lost across a restart: the replayed event has the same standings.
        let app = f.app.restart().await;
        let mut client = PairingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let again = standings(&mut client, &f.org, &id, "A").await;
        assert_eq!(again.rows, a.rows);
        app.stop().await;
    }
}

async fn standings(
    client: &mut PairingServiceClient<Channel>,
    token: &str,
    id: &str,
    group: &str,
) -> p::Standings {
    client
        .get_standings(with_token(
            token,
            p::GetStandingsRequest {
                event_id: id.into(),
                group: group.into(),
                women: false,
            },
        ))
        .await
        .expect("standings")
        .into_inner()
}

async fn export(
    client: &mut PairingServiceClient<Channel>,
    token: &str,
    id: &str,
    group: &str,
    format: p::ExportFormat,
) -> String {
    client
        .export_event(with_token(
            token,
            p::ExportEventRequest {
                event_id: id.into(),
                group: group.into(),
                format: format as i32,
                women: false,
            },
        ))
        .await
        .expect("export")
        .into_inner()
        .content
}

/// Two referees entering results at once lose nothing (the loser of a race re-reads and retries);
/// entering the same result again is acknowledged and logged once; a chess-2015 event has no
/// written-appeal rule, so an appeal is refused (R-IND-5 is go-2025's).
#[tokio::test]
async fn r_ind_3_concurrent_referees_lose_no_result_and_a_repeat_counts_once() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let championship = app
            .registration()
            .await
            .create_championship(with_token(
                &org,
                pb::CreateChampionshipRequest {
                    preset_toml: preset_with_window("chess-2015", -1, 1),
                    ..Default::default()
                },
            ))
            .await
            .expect("championship")
            .into_inner()
            .id;
        let f = Final {
            app,
            org: org.clone(),
            referee: String::new(),
            championship,
        };
        let players = f.register(16, 501).await;
        let mut client = f.client().await;
        let event = client
            .create_event(with_token(
                &org,
                p::CreateEventRequest {
                    championship_id: f.championship.clone(),
                    event_code: "men-individual".into(),
                    entrants: players
                        .iter()
                        .map(|id| p::EntrantSpec {
                            player_id: id.clone(),
                            group: String::new(),
                            rating: 0,
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            ))
            .await
            .expect("event")
            .into_inner();
        assert_eq!(event.first_mover, "White");
        let round = client
            .pair_round(with_token(
                &org,
                p::PairRoundRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                },
            ))
            .await
            .expect("pair")
            .into_inner();
        assert_eq!(round.boards.len(), 8);
        let mut tasks = Vec::new();
        for (i, b) in round.boards.iter().enumerate() {
            let token = f.app.token(Role::Referee, &format!("ref-{}", i % 2));
            let mut c = f.client().await;
            let request = p::RecordResultRequest {
                event_id: event.id.clone(),
                group: String::new(),
                round: 1,
                board: b.number,
                result: p::GameResult::FirstWins as i32,
                reason: String::new(),
            };
            tasks.push(tokio::spawn(async move {
                c.record_result(with_token(&token, request)).await
            }));
        }
        for t in tasks {
            t.await.expect("task").expect("recorded");
        }
        let log = |c: &mut PairingServiceClient<Channel>| {
            let mut c = c.clone();
            let org = org.clone();
            let id = event.id.clone();
            async move {
                c.list_changes(with_token(&org, p::ListChangesRequest { event_id: id }))
                    .await
                    .expect("log")
                    .into_inner()
                    .changes
            }
        };
        let before = log(&mut client).await;
        // created + 16 entrants + the pairing + 8 results, in order without gaps.
        assert_eq!(before.len(), 1 + 16 + 1 + 8);
        assert!(
            before
                .iter()
                .enumerate()
                .all(|(i, c)| c.seq == i as u64 + 1)
        );
        client
            .record_result(with_token(
                &f.app.token(Role::Referee, "ref-0"),
                p::RecordResultRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                    round: 1,
                    board: 1,
                    result: p::GameResult::FirstWins as i32,
                    reason: String::new(),
                },
            ))
            .await
            .expect("the same result again is acknowledged");
        assert_eq!(
            log(&mut client).await.len(),
            before.len(),
            "and not logged twice"
        );
        let standings = standings(&mut client, &org, &event.id, "").await;
        assert_eq!(standings.after_round, 1);
        assert_eq!(
            standings.rows.iter().filter(|r| r.points == "1.0").count(),
            8
        );
        let s = client
            .file_appeal(with_token(
                &org,
                p::FileAppealRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                    round: 1,
                    board: 1,
                    player_id: round.boards[0].first_player_id.clone(),
                    text: "appeal".into(),
                },
            ))
            .await
            .expect_err("no appeal rule");
        assert_eq!(s.code(), Code::FailedPrecondition);
        let s = client
            .record_result(with_token(
                &f.app.token(Role::Player, &players[0]),
                p::RecordResultRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                    round: 1,
                    board: 2,
                    result: p::GameResult::Draw as i32,
                    reason: "I say so".into(),
                },
            ))
            .await
            .expect_err("players do not enter results");
        assert_eq!(s.code(), Code::PermissionDenied);
        f.app.stop().await;
    }
}
