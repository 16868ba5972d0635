//! Pairs events of the final through gRPC (R-PAIR-1..3, R-REG-10), on xiangqi-2022 whose pairs
//! admit players who played online: eligibility from the qualification service, one pair per
//! player, the age bounds of parent-child pairs, the seeded lottery reproducible by anyone, an
//! event with too few pairs that does not start, and a replacement from the lottery's reserve.
//! SQLite, and PostgreSQL when configured.

use chrono::{DateTime, Duration, TimeZone, Utc};
use qiwang_blackbox::{
    TestApp, backends, chinese_player, preset_with_window, spawn_app, with_token,
};
use qiwang_infra::auth::Role;
use qiwang_proto::pairing::v1 as pp;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

/// xiangqi-2022 with its registration and pairs windows open today (China time): how organizers
/// prepare a season's preset.
fn preset() -> String {
    let today = qiwang_core::time::china_date(Utc::now());
    preset_with_window("xiangqi-2022", -1, 1)
        .replace(
            "opens_on = \"2022-09-01\"",
            &format!("opens_on = \"{}\"", today - Duration::days(1)),
        )
        .replace(
            "closes_on = \"2022-09-30\"",
            &format!("closes_on = \"{}\"", today + Duration::days(1)),
        )
}

fn kind(status: &tonic::Status) -> String {
    status
        .get_details_precondition_failure()
        .and_then(|p| p.violations.first().map(|v| v.r#type.clone()))
        .unwrap_or_default()
}

struct Season {
    app: TestApp,
    org: String,
    partner: String,
    championship: String,
}

impl Season {
    async fn reg(&self) -> RegistrationServiceClient<Channel> {
        self.app.registration().await
    }

    /// Registers a player, links `acc-<name>` and enters the online qualifier.
    async fn player(&self, name: &str, birth: &str, seq: u32) -> String {
        let mut reg = self.reg().await;
        let p = reg
            .register_player(with_token(&self.org, chinese_player(name, birth, seq)))
            .await
            .expect("register")
            .into_inner();
        reg.link_account(with_token(
            &self.partner,
            pb::LinkAccountRequest {
                player_id: p.id.clone(),
                platform: "yizhan".into(),
                account_id: format!("acc-{name}"),
            },
        ))
        .await
        .expect("link");
        let event = if seq % 2 == 1 {
            "men-individual"
        } else {
            "women-individual"
        };
        reg.enter_event(with_token(
            &self.org,
            pb::EnterEventRequest {
                championship_id: self.championship.clone(),
                event: event.into(),
                player_id: p.id.clone(),
            },
        ))
        .await
        .expect("enter");
        p.id
    }

    /// A finished game of `a` (first mover) against `b` at `t`, 20 minutes long.
    fn report(
        &self,
        a: &str,
        b: &str,
        t: DateTime<Utc>,
        id: &str,
        result: q::Result,
    ) -> q::GameReport {
        q::GameReport {
            championship_id: self.championship.clone(),
            game_id: id.into(),
            first_account: format!("acc-{a}"),
            second_account: format!("acc-{b}"),
            result: result as i32,
            end_reason: if result == q::Result::Draw {
                q::EndReason::Normal
            } else {
                q::EndReason::Resignation
            } as i32,
            first_move_ms: Some(3_000),
            second_move_ms: Some(4_000),
            started_at: Some(prost_types::Timestamp {
                seconds: t.timestamp(),
                nanos: 0,
            }),
            ended_at: Some(prost_types::Timestamp {
                seconds: (t + Duration::minutes(20)).timestamp(),
                nanos: 0,
            }),
            ..Default::default()
        }
    }

    async fn send(&self, reports: Vec<q::GameReport>) {
        let summary = self
            .qualification()
            .await
            .report_games(with_token(&self.partner, tokio_stream::iter(reports)))
            .await
            .expect("stream")
            .into_inner();
        assert_eq!(summary.refused, 0, "{summary:?}");
    }

    /// One online game of the 海选 between each pair of names: both have played online.
    async fn play(&self, pairs: &[(String, String)]) {
        let mut t: DateTime<Utc> = Utc
            .with_ymd_and_hms(2022, 6, 1, 2, 0, 0)
            .single()
            .expect("time");
        let reports = pairs
            .iter()
            .map(|(a, b)| {
                t += Duration::minutes(1);
                self.report(a, b, t, &format!("g-{a}-{b}"), q::Result::FirstWins)
            })
            .collect();
        self.send(reports).await;
    }

    /// Three round robins of draws among four players, in the period that holds `y-m-d`:
    /// nine games and nine points each.
    async fn draws(&self, four: &[String], y: i32, m: u32, d: u32) {
        let mut t: DateTime<Utc> = Utc
            .with_ymd_and_hms(y, m, d, 2, 0, 0)
            .single()
            .expect("time");
        let mut reports = Vec::new();
        for k in 0..3 {
            for (a, b) in [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)] {
                t += Duration::minutes(1);
                let id = format!("d-{m}-{d}-{k}-{a}{b}");
                reports.push(self.report(&four[a], &four[b], t, &id, q::Result::Draw));
            }
        }
        self.send(reports).await;
    }

    async fn qualification(&self) -> QualificationServiceClient<Channel> {
        QualificationServiceClient::connect(self.app.grpc_url.clone())
            .await
            .expect("connect")
    }

    fn period(&self, stage: &str) -> q::PeriodRef {
        q::PeriodRef {
            championship_id: self.championship.clone(),
            stage: stage.into(),
            period: 1,
        }
    }

    async fn open(&self, stage: &str) {
        self.qualification()
            .await
            .open_period(with_token(&self.org, self.period(stage)))
            .await
            .expect("open");
    }

    async fn close(&self, stage: &str) {
        self.qualification()
            .await
            .close_period(with_token(&self.org, self.period(stage)))
            .await
            .expect("close");
    }

    fn pair(&self, event: &str, a: &str, b: &str) -> pb::RegisterPairRequest {
        pb::RegisterPairRequest {
            championship_id: self.championship.clone(),
            event: event.into(),
            first_player_id: a.into(),
            second_player_id: b.into(),
            ..Default::default()
        }
    }

    fn event(&self, event: &str) -> pb::PairsEventRef {
        pb::PairsEventRef {
            championship_id: self.championship.clone(),
            event: event.into(),
        }
    }
}

#[tokio::test]
async fn r_pair_1_to_3_forty_pairs_drawn_by_a_verifiable_lottery_seven_pairs_do_not_start() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let partner = app.token(Role::Partner, "yizhan-bot");
        let championship = app
            .registration()
            .await
            .create_championship(with_token(
                &org,
                pb::CreateChampionshipRequest {
                    preset_toml: preset(),
                    ..Default::default()
                },
            ))
            .await
            .expect("championship")
            .into_inner()
            .id;
        let s = Season {
            app,
            org: org.clone(),
            partner,
            championship,
        };
        QualificationServiceClient::connect(s.app.grpc_url.clone())
            .await
            .expect("connect")
            .open_period(with_token(
                &org,
                q::PeriodRef {
                    championship_id: s.championship.clone(),
                    stage: "haixuan".into(),
                    period: 1,
                },
            ))
            .await
            .expect("open");

        // 80 men and 7 women who played online; one man who never did.
        let mut men = Vec::new();
        let mut men_names = Vec::new();
        for i in 0..80u32 {
            let name = format!("m{i:02}");
            men.push(s.player(&name, "19900101", 101 + 2 * i).await);
            men_names.push(name);
        }
        let mut women = Vec::new();
        let mut women_names = Vec::new();
        for i in 0..8u32 {
            let name = format!("w{i:02}");
            women.push(s.player(&name, "19920202", 102 + 2 * i).await);
            women_names.push(name);
        }
        let idle = s.player("idle", "19910303", 301).await;
        let mut games: Vec<(String, String)> = men_names
            .chunks(2)
            .map(|c| (c[0].clone(), c[1].clone()))
            .collect();
        games.extend(women_names.chunks(2).map(|c| (c[0].clone(), c[1].clone())));
        let parent_65 = s.player("parent65", "19571125", 401).await;
        let parent_64 = s.player("parent64", "19571126", 403).await;
        let child = s.player("child", "20100505", 405).await;
        games.push(("child".to_string(), "m00".to_string()));
        // m76..m79 go on to the final: eight draws each in the 海选 (R-ADV-9: 7 points), then the
        // 入围 (top 23, R-ADV-10), then the finalist list.
        s.play(&games).await;
        let finalists: Vec<String> = (76..80).map(|i| format!("m{i:02}")).collect();
        s.draws(&finalists, 2022, 6, 2).await;
        s.close("haixuan").await;
        s.open("ruwei").await;
        s.draws(&finalists, 2022, 6, 12).await;
        s.close("ruwei").await;
        let list = QualificationServiceClient::connect(s.app.grpc_url.clone())
            .await
            .expect("connect")
            .compose_finalists(with_token(
                &org,
                q::ChampionshipRef {
                    championship_id: s.championship.clone(),
                },
            ))
            .await
            .expect("compose")
            .into_inner();
        assert_eq!(list.finalists.len(), 4, "{list:?}");

        let mut reg = s.reg().await;
        // Refusals: a player registering a pair they are not in; a partner who never played
        // online (NOT_REACHED); a player already paired in the event.
        let st = reg
            .register_pair(with_token(
                &s.app.token(Role::Player, &men[5]),
                s.pair("men-pairs", &men[0], &men[1]),
            ))
            .await
            .expect_err("not their pair");
        assert_eq!(st.code(), Code::PermissionDenied);
        let st = reg
            .register_pair(with_token(&org, s.pair("men-pairs", &men[0], &idle)))
            .await
            .expect_err("idle never played");
        assert_eq!(kind(&st), "NOT_REACHED", "{st:?}");
        let mut pairs = Vec::new();
        for c in men.chunks(2) {
            let p = reg
                .register_pair(with_token(
                    &s.app.token(Role::Player, &c[0]),
                    s.pair("men-pairs", &c[0], &c[1]),
                ))
                .await
                .expect("pair")
                .into_inner();
            assert_eq!(p.status, pb::PairStatus::Registered as i32);
            pairs.push(p.id);
        }
        let st = reg
            .register_pair(with_token(&org, s.pair("men-pairs", &men[0], &men[3])))
            .await
            .expect_err("one pair per player per event");
        assert_eq!(st.code(), Code::AlreadyExists);
        for i in 0..7 {
            reg.register_pair(with_token(&org, s.pair("mixed-pairs", &men[i], &women[i])))
                .await
                .expect("mixed pair");
        }
        let st = reg
            .register_pair(with_token(&org, s.pair("mixed-pairs", &men[10], &men[11])))
            .await
            .expect_err("two men are not a mixed pair");
        assert_eq!(kind(&st), "SEX_NOT_ADMITTED");

        // Parent-child (R-PAIR-2): a parent who turns 65 on the final's first day (2022-11-25)
        // is outside "4周岁以上，65周岁以下"; one day younger is inside.
        let family = |parent: &str| pb::RegisterPairRequest {
            relation: pb::PairRelation::ParentChild as i32,
            relation_document: "hukou-scan-0001.pdf".into(),
            ..s.pair("parent-child-pairs", parent, &child)
        };
        let st = reg
            .register_pair(with_token(&org, family(&parent_65)))
            .await
            .expect_err("65 on the final's first day");
        assert_eq!(kind(&st), "OUTSIDE_AGE_BOUNDS", "{st:?}");
        assert!(
            st.message().contains(&parent_65),
            "the reason names the player: {st:?}"
        );
        let st = reg
            .register_pair(with_token(
                &org,
                pb::RegisterPairRequest {
                    relation_document: String::new(),
                    ..family(&parent_64)
                },
            ))
            .await
            .expect_err("the document is required");
        assert_eq!(st.code(), Code::InvalidArgument);
        let family_pair = reg
            .register_pair(with_token(&org, family(&parent_64)))
            .await
            .expect("inside the bounds")
            .into_inner();
        assert_eq!(
            family_pair.relation_check,
            pb::RelationCheck::Pending as i32
        );

        // The seed is published before the draw and never changes; no draw while the window is open.
        let seed = "2022-10-01 福彩3D 开奖号 4 7 1";
        let published = reg
            .publish_pairs_seed(with_token(
                &org,
                pb::PublishPairsSeedRequest {
                    championship_id: s.championship.clone(),
                    event: "men-pairs".into(),
                    seed: seed.into(),
                },
            ))
            .await
            .expect("seed")
            .into_inner();
        assert_eq!(published.seed, seed);
        let st = reg
            .publish_pairs_seed(with_token(
                &org,
                pb::PublishPairsSeedRequest {
                    championship_id: s.championship.clone(),
                    event: "men-pairs".into(),
                    seed: "another".into(),
                },
            ))
            .await
            .expect_err("never changed");
        assert_eq!(st.code(), Code::AlreadyExists);
        let st = reg
            .draw_pairs(with_token(&org, s.event("men-pairs")))
            .await
            .expect_err("window open");
        assert_eq!(kind(&st), "PAIRS_WINDOW_OPEN");

        // Three days later the window has closed.
        let s = Season {
            app: s.app.restart_later(3 * 86_400).await,
            ..s
        };
        let mut reg = s.reg().await;
        let st = reg
            .register_pair(with_token(
                &org,
                s.pair("women-pairs", &women[0], &women[1]),
            ))
            .await
            .expect_err("window closed");
        assert_eq!(kind(&st), "PAIRS_CLOSED", "{st:?}");
        let draw = reg
            .draw_pairs(with_token(&org, s.event("men-pairs")))
            .await
            .expect("draw")
            .into_inner();
        assert!(draw.started);
        assert_eq!(draw.registered, 40);
        // The two finalist pairs registered last come first (R-PAIR-1); the lottery fills the rest.
        assert_eq!(draw.by_priority, pairs[38..], "finalist pairs first");
        assert_eq!(
            draw.candidates,
            pairs[..38],
            "candidates in registration order"
        );
        assert_eq!(draw.places, 30);
        assert_eq!(draw.by_lottery.len(), 30);
        assert_eq!(draw.reserve.len(), 8);
        // Anyone re-runs it from the seed and the ordered candidates with `qiwang lottery verify`
        // (`qiwang::lottery_verify` is the command's body).
        let (report, verified) = qiwang::lottery_verify(
            seed,
            &draw.candidates,
            Some(draw.places as usize),
            &draw.by_lottery,
        )
        .expect("verify");
        assert!(verified, "{report}");
        let rerun = qiwang_core::lottery::draw(seed, &draw.candidates, draw.candidates.len())
            .expect("draw");
        assert_eq!(rerun[..30], draw.by_lottery[..]);
        assert_eq!(rerun[30..], draw.reserve[..]);
        let listed = reg
            .list_pairs(with_token(
                &s.app.token(Role::Player, &men[0]),
                s.event("men-pairs"),
            ))
            .await
            .expect("list")
            .into_inner()
            .pairs;
        assert_eq!(
            listed
                .iter()
                .filter(|p| p.status == pb::PairStatus::Admitted as i32)
                .count(),
            32
        );
        // An admitted pair withdraws after the draw: the first reserve pair takes the place.
        reg.withdraw_pair(with_token(
            &org,
            pb::WithdrawPairRequest {
                pair_id: draw.by_lottery[0].clone(),
                reason: "one partner is ill".into(),
            },
        ))
        .await
        .expect("withdraw");
        let listed = reg
            .list_pairs(with_token(&org, s.event("men-pairs")))
            .await
            .expect("list")
            .into_inner()
            .pairs;
        let first_reserve = listed
            .iter()
            .find(|p| p.id == draw.reserve[0])
            .expect("reserve pair");
        assert_eq!(first_reserve.status, pb::PairStatus::Admitted as i32);
        assert!(first_reserve.status_reason.contains(&draw.by_lottery[0]));
        assert_eq!(
            listed
                .iter()
                .filter(|p| p.status == pb::PairStatus::Admitted as i32)
                .count(),
            32
        );
        let st = reg
            .draw_pairs(with_token(&org, s.event("men-pairs")))
            .await
            .expect_err("once");
        assert_eq!(kind(&st), "PAIRS_DRAWN");

        // The admitted pairs are the entrants of the final's men-pairs section (one pair, one
        // entrant); xiangqi-2022 sets rounds by entries: 32 pairs → 5 rounds for a clear winner.
        let admitted: Vec<String> = listed
            .iter()
            .filter(|p| p.status == pb::PairStatus::Admitted as i32)
            .map(|p| p.id.clone())
            .collect();
        let mut pairing = PairingServiceClient::connect(s.app.grpc_url.clone())
            .await
            .expect("connect");
        let section = |ids: &[String]| {
            with_token(
                &org,
                pp::CreateEventRequest {
                    championship_id: s.championship.clone(),
                    event_code: "men-pairs".into(),
                    entrants: ids
                        .iter()
                        .map(|id| pp::EntrantSpec {
                            pair_id: id.clone(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            )
        };
        let mut with_withdrawn = admitted.clone();
        with_withdrawn.push(draw.by_lottery[0].clone());
        let st = pairing
            .create_event(section(&with_withdrawn))
            .await
            .expect_err("a withdrawn pair is no entrant");
        assert_eq!(st.code(), Code::InvalidArgument, "{st:?}");
        let event = pairing
            .create_event(section(&admitted))
            .await
            .expect("section")
            .into_inner();
        assert_eq!((event.rounds, event.entrants.len()), (5, 32));
        assert!(
            event.entrants[0].name.contains(" / "),
            "{:?}",
            event.entrants[0]
        );
        let round = pairing
            .pair_round(with_token(
                &org,
                pp::PairRoundRequest {
                    event_id: event.id.clone(),
                    group: String::new(),
                },
            ))
            .await
            .expect("round 1")
            .into_inner();
        assert_eq!(round.boards.len(), 16);
        assert_eq!(round.boards[0].first_name.split(" / ").count(), 2);

        // Seven mixed pairs: the event does not start, and every pair is told why.
        reg.publish_pairs_seed(with_token(
            &org,
            pb::PublishPairsSeedRequest {
                championship_id: s.championship.clone(),
                event: "mixed-pairs".into(),
                seed: "mixed seed".into(),
            },
        ))
        .await
        .expect("seed");
        let mixed = reg
            .draw_pairs(with_token(&org, s.event("mixed-pairs")))
            .await
            .expect("draw")
            .into_inner();
        assert!(!mixed.started);
        assert_eq!((mixed.registered, mixed.minimum), (7, 8));
        let listed = reg
            .list_pairs(with_token(&org, s.event("mixed-pairs")))
            .await
            .expect("list")
            .into_inner()
            .pairs;
        assert!(
            listed
                .iter()
                .all(|p| p.status == pb::PairStatus::NotStarted as i32
                    && p.status_reason.contains("needs 8"))
        );

        // The parent-child draw waits for the relation check.
        reg.publish_pairs_seed(with_token(
            &org,
            pb::PublishPairsSeedRequest {
                championship_id: s.championship.clone(),
                event: "parent-child-pairs".into(),
                seed: "family seed".into(),
            },
        ))
        .await
        .expect("seed");
        let st = reg
            .draw_pairs(with_token(&org, s.event("parent-child-pairs")))
            .await
            .expect_err("relation pending");
        assert_eq!(kind(&st), "RELATION_PENDING");
        let st = reg
            .verify_pair_relation(with_token(
                &s.app.token(Role::Referee, "ref-1"),
                pb::VerifyPairRelationRequest {
                    pair_id: family_pair.id.clone(),
                    verified: true,
                    reason: "hukou shows mother and son".into(),
                },
            ))
            .await
            .expect_err("organizers verify");
        assert_eq!(st.code(), Code::PermissionDenied);
        let verified = reg
            .verify_pair_relation(with_token(
                &org,
                pb::VerifyPairRelationRequest {
                    pair_id: family_pair.id.clone(),
                    verified: true,
                    reason: "hukou shows mother and son".into(),
                },
            ))
            .await
            .expect("verify")
            .into_inner();
        assert_eq!(verified.relation_check, pb::RelationCheck::Verified as i32);
        let family_draw = reg
            .draw_pairs(with_token(&org, s.event("parent-child-pairs")))
            .await
            .expect("draw")
            .into_inner();
        assert!(!family_draw.started, "one pair does not make an event");
        s.app.stop().await;
    }
}
