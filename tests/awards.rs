//! The awards service through gRPC (R-PRZ-1..2, R-IND-2, R-TEAM-5, R-GRD-4, R-GRD-6, R-DIS-1):
//! a go-2025 final played to the end, its award book (open and women's prizes, city teams, a
//! shared place, the dan roll-down), approval, the federation feed, and a disqualification after
//! everything was frozen; a xiangqi-2022 final with only two women's teams; go-2015's online and
//! final certificates and its host-city team. SQLite, and PostgreSQL when configured.

use chrono::{Duration, TimeZone, Utc};
use qiwang_blackbox::{
    TestApp, backends, championship_from, chinese_player_in, preset_with_window, spawn_app,
    with_token,
};
use qiwang_infra::auth::Role;
use qiwang_proto::awards::v1 as aw;
use qiwang_proto::awards::v1::awards_service_client::AwardsServiceClient;
use qiwang_proto::pairing::v1 as pp;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::teamranking::v1 as tr;
use qiwang_proto::teamranking::v1::team_ranking_service_client::TeamRankingServiceClient;
use tonic::Code;
use tonic::transport::Channel;

/// go-2025 with its registration window and its city-team window (R-REG-9) open today.
fn go_2025_open_today() -> String {
    let today = qiwang_core::time::china_date(Utc::now());
    preset_with_window("go-2025", -1, 1).replace(
        "opens_on = \"2025-06-01\"\ncloses_on = \"2025-10-08\"",
        &format!(
            "opens_on = \"{}\"\ncloses_on = \"{}\"",
            today - Duration::days(1),
            today + Duration::days(1)
        ),
    )
}

async fn register(app: &TestApp, org: &str, players: &[(&str, u32)]) -> Vec<String> {
    let mut reg = app.registration().await;
    let mut ids = Vec::new();
    for (area, seq) in players {
        let p = reg
            .register_player(with_token(
                org,
                chinese_player_in(area, &format!("选手{seq}"), "19900909", *seq),
            ))
            .await
            .expect("register")
            .into_inner();
        ids.push(p.id);
    }
    ids
}

/// Plays every board of a round: the first mover wins, except `draws` (board numbers).
async fn play(
    pairing: &mut PairingServiceClient<Channel>,
    referee: &str,
    round: &pp::Round,
    draws: &[u32],
) {
    for b in &round.boards {
        let result = if draws.contains(&b.number) {
            pp::GameResult::Draw
        } else if (round.number + b.number).is_multiple_of(3) {
            pp::GameResult::SecondWins
        } else {
            pp::GameResult::FirstWins
        };
        pairing
            .record_result(with_token(
                referee,
                pp::RecordResultRequest {
                    event_id: round.event_id.clone(),
                    group: round.group.clone(),
                    round: round.number,
                    board: b.number,
                    result: result as i32,
                    reason: String::new(),
                },
            ))
            .await
            .expect("result");
    }
}

async fn pair(
    pairing: &mut PairingServiceClient<Channel>,
    referee: &str,
    event: &str,
    group: &str,
) -> pp::Round {
    pairing
        .pair_round(with_token(
            referee,
            pp::PairRoundRequest {
                event_id: event.to_owned(),
                group: group.to_owned(),
            },
        ))
        .await
        .expect("pair")
        .into_inner()
}

async fn pull(
    awards: &mut AwardsServiceClient<Channel>,
    token: &str,
    championship: &str,
    cursor: &str,
) -> Result<Vec<aw::CertificateChange>, tonic::Status> {
    let mut stream = awards
        .pull_certificates(with_token(
            token,
            aw::PullCertificatesRequest {
                championship_id: championship.to_owned(),
                cursor: cursor.to_owned(),
                limit: 0,
            },
        ))
        .await?
        .into_inner();
    let mut out = Vec::new();
    while let Some(c) = stream.message().await? {
        out.push(c);
    }
    Ok(out)
}

fn list<'a>(book: &'a aw::AwardBook, event: &str, ranking: &str) -> &'a aw::PrizeList {
    book.prize_lists
        .iter()
        .find(|l| l.event == event && l.ranking == ranking)
        .unwrap_or_else(|| panic!("no list {event}/{ranking}"))
}

fn award_of<'a>(l: &'a aw::PrizeList, awardee: &str) -> Option<&'a aw::Award> {
    l.awards.iter().find(|a| a.awardee == awardee)
}

#[tokio::test]
async fn r_prz_1_r_grd_4_r_dis_1_go_2025_final_awards_approved_fed_to_the_federation_and_overridden_after_a_disqualification()
 {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let referee = app.token(Role::Referee, "ref-1");
        let federation = app.token(Role::Federation, "cwa");
        let champ = championship_from(&app, go_2025_open_today()).await;
        // 24 finalists of 浙江 (odd numbers are men): 12 men, 12 women.
        let seqs: Vec<(&str, u32)> = (501..525).map(|s| ("330106", s)).collect();
        let ids = register(&app, &org, &seqs).await;
        let mut reg = app.registration().await;
        // 杭州市: 3 men + 2 women; 宁波市: 2 men, a short side (R-REG-9).
        for (city, members) in [
            ("杭州市", vec![&ids[0], &ids[2], &ids[4], &ids[1], &ids[3]]),
            ("宁波市", vec![&ids[6], &ids[8]]),
        ] {
            reg.register_city_team(with_token(
                &org,
                pb::RegisterCityTeamRequest {
                    championship_id: champ.clone(),
                    city: city.into(),
                    player_ids: members.into_iter().cloned().collect(),
                },
            ))
            .await
            .expect("roster");
        }

        // The open group's final: groups A and B, 9 rounds, then the placement round.
        let mut pairing = PairingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let event = pairing
            .create_event(with_token(
                &org,
                pp::CreateEventRequest {
                    championship_id: champ.clone(),
                    event_code: "men-individual".into(),
                    entrants: ids
                        .iter()
                        .enumerate()
                        .map(|(i, id)| pp::EntrantSpec {
                            player_id: id.clone(),
                            group: if i % 2 == 0 { "A" } else { "B" }.into(),
                            rating: 2600 - 10 * i as u32,
                            ..Default::default()
                        })
                        .collect(),
                    reason: "finalist list frozen".into(),
                    ..Default::default()
                },
            ))
            .await
            .expect("event")
            .into_inner();
        let mut awards = AwardsServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let book_ref = aw::ChampionshipRef {
            championship_id: champ.clone(),
        };
        for round in 1..=9 {
            for group in ["A", "B"] {
                let r = pair(&mut pairing, &referee, &event.id, group).await;
                assert_eq!(r.number, round);
                play(&mut pairing, &referee, &r, &[]).await;
            }
            if round == 1 {
                // Provisional: readable, not approvable.
                let provisional = awards
                    .get_award_book(with_token(&org, book_ref.clone()))
                    .await
                    .expect("provisional book")
                    .into_inner();
                assert!(!provisional.complete && !provisional.approved);
                let st = awards
                    .approve_awards(with_token(
                        &org,
                        aw::ApproveAwardsRequest {
                            championship_id: champ.clone(),
                            reason: "too early".into(),
                        },
                    ))
                    .await
                    .expect_err("rankings not final");
                assert_eq!(st.code(), Code::FailedPrecondition);
            }
        }
        // Board 5 of the placement round (places 9-10) is drawn: the two share places 9-10.
        let placement = pair(&mut pairing, &referee, &event.id, "placement").await;
        play(&mut pairing, &referee, &placement, &[5]).await;
        let ranking = pairing
            .get_final_ranking(with_token(
                &org,
                pp::GetStandingsRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                    women: false,
                },
            ))
            .await
            .expect("ranking")
            .into_inner();
        assert!(ranking.complete);
        let champion = ranking.entrants[0].player_id.clone();
        let second = ranking.entrants[1].player_id.clone();

        // R-GRD-4: the champion already holds 8 dan.
        let st = awards
            .record_dan_holding(with_token(
                &org,
                aw::RecordDanHoldingRequest {
                    championship_id: champ.clone(),
                    player_id: champion.clone(),
                    amateur_dan: 9,
                    professional: false,
                    reason: "CWA register".into(),
                },
            ))
            .await
            .expect_err("9 dan is no amateur dan");
        assert_eq!(st.code(), Code::InvalidArgument);
        awards
            .record_dan_holding(with_token(
                &org,
                aw::RecordDanHoldingRequest {
                    championship_id: champ.clone(),
                    player_id: champion.clone(),
                    amateur_dan: 8,
                    professional: false,
                    reason: "CWA register, checked by the referee".into(),
                },
            ))
            .await
            .expect("holding");

        let book = awards
            .get_award_book(with_token(
                &app.token(Role::Player, &ids[0]),
                book_ref.clone(),
            ))
            .await
            .expect("book")
            .into_inner();
        assert!(book.complete, "{:?}", book.problems);
        assert!(!book.approved);
        // Youth and senior groups were not held: named, not blocking.
        assert!(
            book.problems.iter().any(|p| p.contains("junior")),
            "{:?}",
            book.problems
        );

        // The open list: 24 places within the top 32; places 9-10 shared (R-PRZ-1).
        let open = list(&book, "men-individual", "open");
        assert_eq!(open.awards.len(), 24);
        assert_eq!(award_of(open, &champion).map(|a| a.yuan), Some(60000));
        let ninth: Vec<&aw::Award> = open.awards.iter().filter(|a| a.place == 9).collect();
        assert_eq!(ninth.len(), 2, "{open:#?}");
        assert!(ninth.iter().all(|a| a.shared_by == 2 && a.yuan == 1000));
        let shared = open
            .places
            .iter()
            .find(|p| p.first_place == 9)
            .expect("place 9");
        assert_eq!(
            (shared.last_place, shared.holders, shared.pool_yuan),
            (10, 2, 2000)
        );
        // The women's list: the best woman also holds an open prize (R-IND-2, cumulative).
        let women = list(&book, "women-individual", "women");
        assert_eq!(women.awards.len(), 6);
        let best_woman = women
            .awards
            .iter()
            .find(|a| a.place == 1)
            .expect("women's champion");
        assert_eq!(best_woman.yuan, 10000);
        let her_open = award_of(open, &best_woman.awardee).expect("also in the open top 32");
        let total = book
            .totals
            .iter()
            .find(|t| t.awardee == best_woman.awardee)
            .expect("total");
        assert_eq!(total.gross_yuan, her_open.yuan + 10000);
        assert_eq!(total.awards, 2);
        // City teams: 杭州市 is the only complete team of each kind: champion only (R-TEAM-5).
        for (team_event, yuan, members) in [("men-team", 10000, 3), ("women-team", 8000, 2)] {
            let l = list(&book, team_event, "team");
            assert_eq!(l.awards.len(), 1, "{l:#?}");
            let a = &l.awards[0];
            assert_eq!(
                (a.awardee.as_str(), a.awardee_kind.as_str(), a.place, a.yuan),
                ("registered:杭州市", "team", 1, yuan)
            );
            assert_eq!(a.player_ids.len(), members);
        }
        // Dan applications: S < 30, place 1 → 8 dan (to 4); the champion holds it, so it passes
        // to place 2; the champion keeps the professional option.
        let dan = book
            .dan_groups
            .iter()
            .find(|g| g.group == "open")
            .expect("open group");
        assert_eq!(dan.awards.len(), 1);
        assert_eq!(
            (
                dan.awards[0].player_id.as_str(),
                dan.awards[0].dan,
                dan.awards[0].rolled_down
            ),
            (second.as_str(), 8, true)
        );
        assert_eq!(dan.professional_option_player_id, champion);
        assert_eq!(book.certificates.len(), 2, "{:#?}", book.certificates);

        // Approval: organizers only, with a reason; once.
        let approve = |token: &str, reason: &str| {
            with_token(
                token,
                aw::ApproveAwardsRequest {
                    championship_id: champ.clone(),
                    reason: reason.into(),
                },
            )
        };
        let st = awards
            .approve_awards(approve(&referee, "final"))
            .await
            .expect_err("organizers approve");
        assert_eq!(st.code(), Code::PermissionDenied);
        let st = awards
            .approve_awards(approve(&org, " "))
            .await
            .expect_err("a reason");
        assert_eq!(st.code(), Code::InvalidArgument);
        // Team standings are frozen first.
        let mut teams = TeamRankingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        for team_event in ["men-team", "women-team"] {
            teams
                .freeze_team_standings(with_token(
                    &org,
                    tr::FreezeRequest {
                        championship_id: champ.clone(),
                        team_event: team_event.into(),
                        reason: "final standings".into(),
                    },
                ))
                .await
                .expect("freeze");
        }
        let approved = awards
            .approve_awards(approve(&org, "award list approved by the committee"))
            .await
            .expect("approve")
            .into_inner();
        assert!(approved.approved && approved.version == 1);
        let st = awards
            .approve_awards(approve(&org, "again"))
            .await
            .expect_err("approved once");
        assert_eq!(st.code(), Code::AlreadyExists);

        // The federation feed: every certificate once, the same for the same cursor.
        let st = pull(&mut awards, &app.token(Role::Player, &ids[0]), &champ, "")
            .await
            .expect_err("players do not pull the feed");
        assert_eq!(st.code(), Code::PermissionDenied);
        let st = pull(&mut awards, &federation, &champ, "bogus")
            .await
            .expect_err("a cursor of ours");
        assert_eq!(st.code(), Code::InvalidArgument);
        let first = pull(&mut awards, &federation, &champ, "")
            .await
            .expect("pull");
        assert_eq!(first.len(), 2);
        assert!(first.iter().all(|c| c.kind == aw::ChangeKind::Issued as i32
            && c.record_version == 1
            && c.book_version == 1));
        for c in &first {
            let who = c.player.as_ref().expect("identity");
            assert!(who.id_number_masked.contains('*'), "{who:?}");
            assert!(!who.name.is_empty());
        }
        assert_eq!(
            pull(&mut awards, &federation, &champ, "")
                .await
                .expect("again"),
            first
        );
        let cursor = first.last().expect("last").cursor.clone();
        assert!(
            pull(&mut awards, &federation, &champ, &cursor)
                .await
                .expect("nothing new")
                .is_empty()
        );
        let csv = awards
            .export_certificates(with_token(
                &federation,
                aw::ExportCertificatesRequest {
                    championship_id: champ.clone(),
                    format: aw::ExportFormat::Csv as i32,
                    ..Default::default()
                },
            ))
            .await
            .expect("csv")
            .into_inner();
        assert_eq!(csv.content.lines().count(), 3, "{}", csv.content);
        assert!(csv.content.contains("professional-option"));
        let h9 = awards
            .export_certificates(with_token(
                &federation,
                aw::ExportCertificatesRequest {
                    championship_id: champ.clone(),
                    format: aw::ExportFormat::H9 as i32,
                    group: "A".into(),
                },
            ))
            .await
            .expect("h9")
            .into_inner();
        assert!(!h9.content.is_empty());

        // A deduction (R-PRZ-2) after approval shows as a difference, not silently.
        awards
            .record_deduction(with_token(
                &org,
                aw::RecordDeductionRequest {
                    championship_id: champ.clone(),
                    event: "men-individual".into(),
                    ranking: "open".into(),
                    awardee: second.clone(),
                    yuan: 3000,
                    reason: "left before the closing ceremony".into(),
                },
            ))
            .await
            .expect("deduction");
        let after = awards
            .get_award_book(with_token(&org, book_ref.clone()))
            .await
            .expect("book")
            .into_inner();
        assert!(after.approved && after.live_differs);
        assert_eq!(
            after.prize_lists, approved.prize_lists,
            "the approved list stays"
        );

        // The champion is disqualified (R-DIS-1) after everything was frozen.
        pairing
            .disqualify_entrant(with_token(
                &org,
                pp::WithdrawEntrantRequest {
                    event_id: event.id.clone(),
                    player_id: champion.clone(),
                    reason: "verified cheating report".into(),
                },
            ))
            .await
            .expect("disqualify");
        // Team standings: frozen, flagged, then overridden and recomputed.
        let men = tr::TeamEventRef {
            championship_id: champ.clone(),
            team_event: "men-team".into(),
        };
        let frozen_men = teams
            .get_team_standings(with_token(&org, men.clone()))
            .await
            .expect("men's teams")
            .into_inner();
        assert!(frozen_men.frozen && frozen_men.live_differs);
        let overridden = teams
            .override_team_standings(with_token(
                &org,
                tr::FreezeRequest {
                    championship_id: champ.clone(),
                    team_event: "men-team".into(),
                    reason: "champion disqualified".into(),
                },
            ))
            .await
            .expect("override")
            .into_inner();
        assert_eq!(overridden.overrides, 1);
        assert_ne!(overridden.ranked, frozen_men.ranked, "recomputed");
        assert!(
            overridden
                .ranked
                .iter()
                .chain(std::iter::empty())
                .all(|t| t.counted.iter().all(|m| m.player_id != champion))
        );
        // The awards: an override needs a reason; it revokes the champion's certificate.
        let st = awards
            .override_awards(approve(&org, ""))
            .await
            .expect_err("a reason");
        assert_eq!(st.code(), Code::InvalidArgument);
        let v2 = awards
            .override_awards(approve(&org, "champion disqualified (R-DIS-1)"))
            .await
            .expect("override")
            .into_inner();
        assert_eq!(v2.version, 2);
        let open = list(&v2, "men-individual", "open");
        assert!(
            award_of(open, &champion).is_none(),
            "no prize after disqualification"
        );
        assert_eq!(
            award_of(open, &second).map(|a| (a.place, a.net_yuan)),
            Some((1, 57000))
        );
        let changes = pull(&mut awards, &federation, &champ, &cursor)
            .await
            .expect("changes");
        let revoked: Vec<&aw::CertificateChange> = changes
            .iter()
            .filter(|c| c.kind == aw::ChangeKind::Revoked as i32)
            .collect();
        assert!(
            revoked.iter().any(|c| c
                .certificate
                .as_ref()
                .is_some_and(|x| x.player_id == champion && x.kind == "professional-option")
                && c.record_version == 2),
            "{changes:#?}"
        );
        assert!(
            changes
                .iter()
                .all(|c| c.book_version == 2 && !c.reason.is_empty())
        );
        // The new champion (the old second, who already had the 8-dan award) now holds the option.
        assert!(changes.iter().any(|c| {
            c.kind == aw::ChangeKind::Issued as i32
                && c.certificate
                    .as_ref()
                    .is_some_and(|x| x.player_id == second && x.kind == "professional-option")
        }));

        // The audit: every decision with who and why.
        let decisions = awards
            .list_award_decisions(with_token(&org, book_ref.clone()))
            .await
            .expect("decisions")
            .into_inner()
            .decisions;
        let actions: Vec<&str> = decisions.iter().map(|d| d.action.as_str()).collect();
        assert_eq!(actions, ["dan-holding", "approve", "deduction", "override"]);
        assert!(
            decisions
                .iter()
                .all(|d| d.decided_by == "org-1" && !d.reason.is_empty())
        );

        // A restart loses nothing: the feed replays the same records.
        let all = pull(&mut awards, &federation, &champ, "")
            .await
            .expect("all");
        let app = app.restart().await;
        let mut awards = AwardsServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        assert_eq!(
            pull(&mut awards, &federation, &champ, "")
                .await
                .expect("after restart"),
            all
        );
        app.stop().await;
    }
}

#[tokio::test]
async fn r_team_5_xiangqi_2022_two_womens_teams_award_the_champion_only() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let referee = app.token(Role::Referee, "ref-1");
        let champ = championship_from(&app, preset_with_window("xiangqi-2022", -1, 1)).await;
        // 浙江 (33): 3 men, 2 women; 广东 (44): 1 man, 2 women.
        let players = [
            ("330106", 601),
            ("330106", 603),
            ("330106", 605),
            ("330106", 602),
            ("330106", 604),
            ("440106", 607),
            ("440106", 606),
            ("440106", 608),
        ];
        let ids = register(&app, &org, &players).await;
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
                    reason: "finalists".into(),
                    ..Default::default()
                },
            ))
            .await
            .expect("event")
            .into_inner();
        for _ in 0..3 {
            let r = pair(&mut pairing, &referee, &event.id, "").await;
            play(&mut pairing, &referee, &r, &[]).await;
        }
        let mut awards = AwardsServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let book = awards
            .get_award_book(with_token(
                &org,
                aw::ChampionshipRef {
                    championship_id: champ.clone(),
                },
            ))
            .await
            .expect("book")
            .into_inner();
        assert!(book.complete, "{:?}", book.problems);
        let women = list(&book, "women-team", "team");
        assert_eq!(
            women.awards.len(),
            1,
            "two teams: champion only: {women:#?}"
        );
        assert_eq!((women.awards[0].place, women.awards[0].yuan), (1, 8000));
        assert!(["region:33", "region:44"].contains(&women.awards[0].awardee.as_str()));
        // 广东 has one man: no men's team; 浙江's three men are the only team: champion only.
        let men = list(&book, "men-team", "team");
        assert_eq!(men.awards.len(), 1);
        assert_eq!(
            (men.awards[0].awardee.as_str(), men.awards[0].yuan),
            ("region:33", 12000)
        );
        // An incomplete team is listed with what it lacks (R-TEAM-1): 广东 has one man of three.
        let mut teams = TeamRankingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let standings = teams
            .get_team_standings(with_token(
                &org,
                tr::TeamEventRef {
                    championship_id: champ.clone(),
                    team_event: "men-team".into(),
                },
            ))
            .await
            .expect("standings")
            .into_inner();
        assert_eq!(
            standings
                .unranked
                .iter()
                .map(|t| (t.team.as_str(), t.missing))
                .collect::<Vec<_>>(),
            [("region:44", 2)]
        );
        // The pairs and youth events were not held: named, and the book is still complete.
        assert!(book.problems.iter().any(|p| p.contains("pairs")));
        app.stop().await;
    }
}

#[tokio::test]
async fn r_grd_1_r_team_2_go_2015_online_and_final_certificates_and_the_host_city_team() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let referee = app.token(Role::Referee, "ref-1");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let champ = championship_from(&app, preset_with_window("go-2015", -1, 1)).await;
        // Eight men of 浙江; the first three play for the host city 杭州 (R-TEAM-2).
        let seqs: Vec<(&str, u32)> = (0..8).map(|i| ("330106", 701 + 2 * i)).collect();
        let ids = register(&app, &org, &seqs).await;
        let mut reg = app.registration().await;
        let host = reg
            .register_city_team(with_token(
                &org,
                pb::RegisterCityTeamRequest {
                    championship_id: champ.clone(),
                    city: "杭州市".into(),
                    player_ids: ids[0..3].to_vec(),
                },
            ))
            .await
            .expect("the host city's roster")
            .into_inner();
        assert!(host.members.iter().all(|m| m.counted));
        let st = reg
            .register_city_team(with_token(
                &org,
                pb::RegisterCityTeamRequest {
                    championship_id: champ.clone(),
                    city: "宁波市".into(),
                    player_ids: ids[3..5].to_vec(),
                },
            ))
            .await
            .expect_err("go-2015 has no other city teams");
        assert_eq!(st.code(), Code::FailedPrecondition);

        // The 海选 (R-GRD-1): players 0, 1 and 2 beat player 3 two, three and four times.
        for (i, id) in ids[0..4].iter().enumerate() {
            reg.link_account(with_token(
                &partner,
                pb::LinkAccountRequest {
                    player_id: id.clone(),
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
                    player_id: id.clone(),
                },
            ))
            .await
            .expect("enter");
        }
        let mut qualification = QualificationServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        qualification
            .open_period(with_token(
                &org,
                q::PeriodRef {
                    championship_id: champ.clone(),
                    stage: "haixuan".into(),
                    period: 1,
                },
            ))
            .await
            .expect("open");
        // 10:00 China time on 2015-08-02, inside the period and its playing hours.
        let t0 = Utc
            .with_ymd_and_hms(2015, 8, 2, 2, 0, 0)
            .single()
            .expect("time");
        let mut games = Vec::new();
        for (winner, wins) in [(0, 2), (1, 3), (2, 4)] {
            for k in 0..wins {
                let start = t0 + Duration::minutes(30 * (games.len() as i64));
                games.push(q::GameReport {
                    championship_id: champ.clone(),
                    game_id: format!("g{winner}-{k}"),
                    first_account: format!("acc-{winner}"),
                    second_account: "acc-3".into(),
                    result: q::Result::FirstWins as i32,
                    end_reason: q::EndReason::Resignation as i32,
                    first_move_ms: Some(3_000),
                    second_move_ms: Some(4_000),
                    started_at: Some(prost_types::Timestamp {
                        seconds: start.timestamp(),
                        nanos: 0,
                    }),
                    ended_at: Some(prost_types::Timestamp {
                        seconds: (start + Duration::minutes(20)).timestamp(),
                        nanos: 0,
                    }),
                    ..Default::default()
                });
            }
        }
        let summary = qualification
            .report_games(with_token(&partner, tokio_stream::iter(games)))
            .await
            .expect("report")
            .into_inner();
        assert_eq!(summary.stored, 9, "{summary:?}");

        // The final: one field of 8, 3 rounds.
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
                    reason: "finalists".into(),
                    ..Default::default()
                },
            ))
            .await
            .expect("event")
            .into_inner();
        for _ in 0..3 {
            let r = pair(&mut pairing, &referee, &event.id, "").await;
            play(&mut pairing, &referee, &r, &[]).await;
        }
        let ranking = pairing
            .get_final_ranking(with_token(
                &org,
                pp::GetStandingsRequest {
                    event_id: event.id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .expect("ranking")
            .into_inner();

        let mut awards = AwardsServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let book = awards
            .get_award_book(with_token(
                &org,
                aw::ChampionshipRef {
                    championship_id: champ.clone(),
                },
            ))
            .await
            .expect("book")
            .into_inner();
        assert!(book.complete, "{:?}", book.problems);
        let grade_of = |player: &str, stage: &str| {
            book.certificates
                .iter()
                .find(|c| c.player_id == player && c.stage == stage)
                .map(|c| c.grade_zh.clone())
        };
        assert_eq!(grade_of(&ids[0], "haixuan").as_deref(), Some("9级"));
        assert_eq!(grade_of(&ids[1], "haixuan").as_deref(), Some("8级"));
        assert_eq!(grade_of(&ids[2], "haixuan").as_deref(), Some("7级"));
        assert_eq!(grade_of(&ids[3], "haixuan"), None, "no points, no grade");
        let haixuan = book
            .certificates
            .iter()
            .find(|c| c.stage == "haixuan")
            .expect("a 海选 certificate");
        assert_eq!(
            (haixuan.period, haixuan.result_date.as_str()),
            (1, "2015-08-14")
        );
        // The final (R-GRD-1): place 1 → 7段, places 2-9 → 6段.
        for e in &ranking.entrants {
            let want = if e.place == 1 { "7段" } else { "6段" };
            assert_eq!(
                grade_of(&e.player_id, "final").as_deref(),
                Some(want),
                "place {}",
                e.place
            );
        }
        // Teams (R-TEAM-2): the host city's three and 浙江's other five are two teams.
        let men = list(&book, "men-team", "team");
        assert_eq!(men.awards.len(), 1, "two teams: champion only: {men:#?}");
        let mut teams = TeamRankingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let standings = teams
            .get_team_standings(with_token(
                &org,
                tr::TeamEventRef {
                    championship_id: champ.clone(),
                    team_event: "men-team".into(),
                },
            ))
            .await
            .expect("standings")
            .into_inner();
        let mut names: Vec<&str> = standings.ranked.iter().map(|t| t.team.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["host-city", "region:33"]);
        let host_team = standings
            .ranked
            .iter()
            .find(|t| t.team == "host-city")
            .expect("host city");
        assert!(
            host_team
                .counted
                .iter()
                .all(|m| ids[0..3].contains(&m.player_id))
        );
        app.stop().await;
    }
}
