//! Entering the final's offline groups (R-REG-5, R-REG-8), city teams (R-REG-9) and the offline
//! service fee (R-REG-7) through gRPC. SQLite, and PostgreSQL when configured.

use chrono::{Duration, Utc};
use qiwang_blackbox::{
    TestApp, backends, chinese_player, png_bytes, preset_with_window, spawn_app, upload_photo,
    with_token,
};
use qiwang_infra::auth::Role;
use qiwang_proto::pairing::v1 as pp;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::qualification::v1 as q;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1 as pb;
use tonic::Code;
use tonic_types::StatusExt;

fn kind(status: &tonic::Status) -> String {
    status
        .get_details_precondition_failure()
        .and_then(|p| p.violations.first().map(|v| v.r#type.clone()))
        .unwrap_or_default()
}

async fn championship(app: &TestApp, org: &str, preset: String) -> String {
    app.registration()
        .await
        .create_championship(with_token(
            org,
            pb::CreateChampionshipRequest {
                preset_toml: preset,
                ..Default::default()
            },
        ))
        .await
        .expect("championship")
        .into_inner()
        .id
}

async fn player(app: &TestApp, org: &str, name: &str, birth: &str, seq: u32) -> String {
    app.registration()
        .await
        .register_player(with_token(org, chinese_player(name, birth, seq)))
        .await
        .expect("register")
        .into_inner()
        .id
}

#[tokio::test]
async fn r_reg_8_r_reg_5_youth_entries_by_birth_window_and_certificate_await_approval() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        // xiangqi-2022 youth: born on or after 2009-01-01, a CXA certificate, organizer approval.
        let champ = championship(&app, &org, preset_with_window("xiangqi-2022", -1, 1)).await;
        let too_old = player(&app, &org, "少年甲", "20081231", 11).await;
        let boundary = player(&app, &org, "少年乙", "20090101", 13).await;
        let no_cert = player(&app, &org, "少年丙", "20100707", 15).await;
        let mut reg = app.registration().await;
        let entry = |p: &str, cert: &str| pb::EnterFinalEventRequest {
            championship_id: champ.clone(),
            event: "youth".into(),
            player_id: p.into(),
            unit: "杭州市棋类协会".into(),
            certificate_ref: cert.into(),
        };
        let st = reg
            .enter_final_event(with_token(&org, entry(&too_old, "CXA-1")))
            .await
            .expect_err("born one day before the window");
        assert_eq!(kind(&st), "OUTSIDE_AGE_WINDOW", "{st:?}");
        let st = reg
            .enter_final_event(with_token(&org, entry(&no_cert, "")))
            .await
            .expect_err("no certificate");
        assert_eq!(kind(&st), "CERTIFICATE_REQUIRED", "{st:?}");
        let st = reg
            .enter_final_event(with_token(
                &org,
                pb::EnterFinalEventRequest {
                    event: "men-individual".into(),
                    ..entry(&boundary, "CXA-2")
                },
            ))
            .await
            .expect_err("the open event is entered online");
        assert_eq!(kind(&st), "NOT_DIRECT_ENTRY", "{st:?}");
        let st = reg
            .enter_final_event(with_token(
                &app.token(Role::Player, &boundary),
                entry(&no_cert, "CXA-3"),
            ))
            .await
            .expect_err("for someone else");
        assert_eq!(st.code(), Code::PermissionDenied);
        let pending = reg
            .enter_final_event(with_token(
                &app.token(Role::Player, &boundary),
                entry(&boundary, "CXA-2"),
            ))
            .await
            .expect("born on the first day of the window")
            .into_inner();
        assert_eq!(pending.status, pb::FinalEntryStatus::Pending as i32);
        let st = reg
            .enter_final_event(with_token(&org, entry(&boundary, "CXA-2")))
            .await
            .expect_err("once");
        assert_eq!(st.code(), Code::AlreadyExists);
        let st = reg
            .decide_final_entry(with_token(
                &org,
                pb::DecideFinalEntryRequest {
                    entry_id: pending.id.clone(),
                    approve: false,
                    reason: String::new(),
                },
            ))
            .await
            .expect_err("a rejection needs a reason");
        assert_eq!(st.code(), Code::InvalidArgument);
        let approved = reg
            .decide_final_entry(with_token(
                &org,
                pb::DecideFinalEntryRequest {
                    entry_id: pending.id.clone(),
                    approve: true,
                    reason: "form stamped by the unit".into(),
                },
            ))
            .await
            .expect("approve")
            .into_inner();
        assert_eq!(approved.status, pb::FinalEntryStatus::Approved as i32);
        let listed = reg
            .list_final_entries(with_token(
                &org,
                pb::PairsEventRef {
                    championship_id: champ.clone(),
                    event: "youth".into(),
                },
            ))
            .await
            .expect("list")
            .into_inner()
            .entries;
        assert_eq!(listed.len(), 1, "refused entries changed nothing");

        // The youth section of the final takes approved entries only.
        let mut pairing = PairingServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect");
        let section = |ids: &[&String]| {
            with_token(
                &org,
                pp::CreateEventRequest {
                    championship_id: champ.clone(),
                    event_code: "youth".into(),
                    entrants: ids
                        .iter()
                        .map(|id| pp::EntrantSpec {
                            player_id: (*id).clone(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                },
            )
        };
        let st = pairing
            .create_event(section(&[&boundary, &no_cert]))
            .await
            .expect_err("no approved entry");
        assert_eq!(st.code(), Code::InvalidArgument, "{st:?}");
        assert!(st.message().contains(&no_cert));
        let youth = pairing
            .create_event(section(&[&boundary]))
            .await
            .expect("youth section")
            .into_inner();
        assert_eq!(youth.entrants.len(), 1);
        app.stop().await;
    }
}

#[tokio::test]
async fn r_reg_9_a_city_team_with_four_men_the_fourth_plays_as_an_individual_and_r_reg_7_a_no_show_keeps_no_refund()
 {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let today = qiwang_core::time::china_date(Utc::now());
        let preset = preset_with_window("go-2025", -1, 1).replace(
            "opens_on = \"2025-06-01\"\ncloses_on = \"2025-10-08\"",
            &format!(
                "opens_on = \"{}\"\ncloses_on = \"{}\"",
                today - Duration::days(1),
                today + Duration::days(1)
            ),
        );
        let champ = championship(&app, &org, preset).await;
        let mut ids = Vec::new();
        for (i, seq) in [21u32, 23, 25, 27, 22, 24].iter().enumerate() {
            ids.push(player(&app, &org, &format!("城市{i}"), "19880808", *seq).await);
        }
        let mut reg = app.registration().await;
        let team = reg
            .register_city_team(with_token(
                &org,
                pb::RegisterCityTeamRequest {
                    championship_id: champ.clone(),
                    city: "杭州市".into(),
                    player_ids: ids.clone(),
                },
            ))
            .await
            .expect("team")
            .into_inner();
        assert!(team.men_team && team.women_team);
        let counted: Vec<bool> = team.members.iter().map(|m| m.counted).collect();
        assert_eq!(
            counted,
            [true, true, true, false, true, true],
            "the 4th man plays alone"
        );
        let st = reg
            .register_city_team(with_token(
                &org,
                pb::RegisterCityTeamRequest {
                    championship_id: champ.clone(),
                    city: "宁波市".into(),
                    player_ids: vec![ids[0].clone()],
                },
            ))
            .await
            .expect_err("one team per player");
        assert_eq!(st.code(), Code::AlreadyExists);

        // The fee: 260 yuan due (go-2025); paid; a no-show without cause keeps no refund, an
        // excused absence is refunded.
        let fee = |p: &str| pb::GetFeeRequest {
            championship_id: champ.clone(),
            player_id: p.into(),
        };
        let due = reg
            .get_fee(with_token(&app.token(Role::Player, &ids[0]), fee(&ids[0])))
            .await
            .expect("own fee")
            .into_inner();
        assert_eq!((due.due_yuan, due.status), (260, pb::FeeStatus::Due as i32));
        let st = reg
            .get_fee(with_token(&app.token(Role::Player, &ids[0]), fee(&ids[1])))
            .await
            .expect_err("someone else's fee");
        assert_eq!(st.code(), Code::PermissionDenied);
        for p in [&ids[0], &ids[1]] {
            let st = reg
                .record_fee(with_token(
                    &org,
                    pb::RecordFeeRequest {
                        championship_id: champ.clone(),
                        player_id: p.clone(),
                        status: pb::FeeStatus::Paid as i32,
                        payment_ref: String::new(),
                        reason: String::new(),
                    },
                ))
                .await
                .expect_err("a payment needs its reference");
            assert_eq!(st.code(), Code::InvalidArgument);
            let paid = reg
                .record_fee(with_token(
                    &org,
                    pb::RecordFeeRequest {
                        championship_id: champ.clone(),
                        player_id: p.clone(),
                        status: pb::FeeStatus::Paid as i32,
                        payment_ref: format!("WX-{p}"),
                        reason: String::new(),
                    },
                ))
                .await
                .expect("paid")
                .into_inner();
            assert_eq!(paid.paid_yuan, 260);
        }
        let no_show = reg
            .record_attendance(with_token(
                &org,
                pb::RecordAttendanceRequest {
                    championship_id: champ.clone(),
                    player_id: ids[0].clone(),
                    attendance: pb::Attendance::NoShow as i32,
                    reason: String::new(),
                },
            ))
            .await
            .expect("no-show")
            .into_inner();
        assert_eq!(
            (no_show.paid_yuan, no_show.refund_yuan),
            (260, 0),
            "the fee is kept"
        );
        let excused = reg
            .record_attendance(with_token(
                &org,
                pb::RecordAttendanceRequest {
                    championship_id: champ.clone(),
                    player_id: ids[1].clone(),
                    attendance: pb::Attendance::Excused as i32,
                    reason: "hospital certificate accepted".into(),
                },
            ))
            .await
            .expect("excused")
            .into_inner();
        assert_eq!(excused.refund_yuan, 260);
        let st = reg
            .record_fee(with_token(
                &org,
                pb::RecordFeeRequest {
                    championship_id: champ.clone(),
                    player_id: ids[0].clone(),
                    status: pb::FeeStatus::Waived as i32,
                    payment_ref: String::new(),
                    reason: "changed my mind".into(),
                },
            ))
            .await
            .expect_err("settled");
        assert_eq!(kind(&st), "FEE_SETTLED");
        app.stop().await;
    }
}

#[tokio::test]
async fn r_wc_1_r_wc_2_wildcards_are_reviewed_then_approved_or_rejected_and_join_the_finalist_list()
{
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let champ = championship(&app, &org, preset_with_window("go-2025", -1, 1)).await;
        let invited = player(&app, &org, "特邀甲", "19850505", 31).await;
        let other = player(&app, &org, "特邀乙", "19860606", 33).await;
        let mut reg = app.registration().await;
        let invited_photo = upload_photo(&app, &app.token(Role::Player, &invited), &invited).await;
        let other_photo = upload_photo(&app, &org, &other).await;
        let apply = |p: &str, source: &str, photo: &str| pb::SubmitWildcardRequest {
            championship_id: champ.clone(),
            event: "men-individual".into(),
            player_id: p.into(),
            source: source.into(),
            certificate_photo: photo.into(),
        };
        let st = reg
            .submit_wildcard(with_token(
                &org,
                apply(&invited, "friend-of-the-director", &invited_photo),
            ))
            .await
            .expect_err("not an eligible source");
        assert_eq!(st.code(), Code::InvalidArgument);
        let st = reg
            .submit_wildcard(with_token(
                &org,
                apply(&invited, "organizer-invitation", ""),
            ))
            .await
            .expect_err("no certificate photo");
        assert_eq!(st.code(), Code::InvalidArgument);
        // Another player's photo, or a name that was never uploaded, is no evidence.
        for photo in [other_photo.as_str(), "cert-2025.jpg"] {
            let st = reg
                .submit_wildcard(with_token(
                    &org,
                    apply(&invited, "organizer-invitation", photo),
                ))
                .await
                .expect_err("not this player's upload");
            assert_eq!(st.code(), Code::InvalidArgument, "{photo}: {st:?}");
        }
        let w = reg
            .submit_wildcard(with_token(
                &app.token(Role::Player, &invited),
                apply(&invited, "organizer-invitation", &invited_photo),
            ))
            .await
            .expect("apply")
            .into_inner();
        assert_eq!(w.status, pb::WildcardStatus::Submitted as i32);
        let decide = |id: &str, approve: bool, reason: &str| pb::DecideWildcardRequest {
            wildcard_id: id.into(),
            approve,
            reason: reason.into(),
        };
        let st = reg
            .decide_wildcard(with_token(&org, decide(&w.id, true, "")))
            .await
            .expect_err("reviewed first");
        assert_eq!(kind(&st), "WILDCARD_STATE", "{st:?}");
        let reviewed = reg
            .review_wildcard(with_token(
                &org,
                pb::WildcardRef {
                    wildcard_id: w.id.clone(),
                },
            ))
            .await
            .expect("review")
            .into_inner();
        assert_eq!(reviewed.status, pb::WildcardStatus::UnderReview as i32);
        assert_eq!(reviewed.decided_by, "org-1");
        let approved = reg
            .decide_wildcard(with_token(&org, decide(&w.id, true, "")))
            .await
            .expect("approve")
            .into_inner();
        assert_eq!(approved.status, pb::WildcardStatus::Approved as i32);
        let w2 = reg
            .submit_wildcard(with_token(
                &org,
                apply(&other, "organizer-invitation", &other_photo),
            ))
            .await
            .expect("apply")
            .into_inner();
        reg.review_wildcard(with_token(
            &org,
            pb::WildcardRef {
                wildcard_id: w2.id.clone(),
            },
        ))
        .await
        .expect("review");
        let st = reg
            .decide_wildcard(with_token(&org, decide(&w2.id, false, " ")))
            .await
            .expect_err("a rejection needs a reason");
        assert_eq!(st.code(), Code::InvalidArgument);
        let rejected = reg
            .decide_wildcard(with_token(
                &org,
                decide(&w2.id, false, "no national result"),
            ))
            .await
            .expect("reject")
            .into_inner();
        assert_eq!(rejected.status, pb::WildcardStatus::Rejected as i32);

        // The approved wildcard joins the finalist list; the rejected one does not.
        let list = QualificationServiceClient::connect(app.grpc_url.clone())
            .await
            .expect("connect")
            .compose_finalists(with_token(
                &org,
                q::ChampionshipRef {
                    championship_id: champ.clone(),
                },
            ))
            .await
            .expect("compose")
            .into_inner();
        let origins: Vec<(&str, &str)> = list
            .finalists
            .iter()
            .map(|f| (f.player_id.as_str(), f.origin.as_str()))
            .collect();
        assert_eq!(origins, [(invited.as_str(), "WILDCARD")]);
        app.stop().await;
    }
}

#[tokio::test]
async fn r_wc_1_certificate_photos_are_checked_and_shown_only_to_organizers_and_the_applicant() {
    for backend in backends() {
        let app = spawn_app(backend).await;
        let org = app.token(Role::Organizer, "org-1");
        let owner = player(&app, &org, "证书甲", "19850505", 51).await;
        let stranger = player(&app, &org, "证书乙", "19860606", 53).await;
        let owner_token = app.token(Role::Player, &owner);
        let stranger_token = app.token(Role::Player, &stranger);
        let mut reg = app.registration().await;
        let upload =
            |player: &str, content_type: &str, content: Vec<u8>| pb::UploadEvidenceRequest {
                player_id: player.into(),
                content_type: content_type.into(),
                content,
            };
        let refused = [
            (
                "not an image",
                upload(&owner, "image/png", b"%PDF-1.7 not a photo".to_vec()),
            ),
            (
                "script as an image",
                upload(&owner, "image/jpeg", b"<script>alert(1)</script>".to_vec()),
            ),
            (
                "svg",
                upload(&owner, "image/svg+xml", b"<svg onload=alert(1)/>".to_vec()),
            ),
            (
                "png declared as jpeg",
                upload(&owner, "image/jpeg", png_bytes(10)),
            ),
            ("empty", upload(&owner, "image/png", Vec::new())),
            (
                "over 2 MiB",
                upload(&owner, "image/png", png_bytes(2 * 1024 * 1024)),
            ),
        ];
        for (what, request) in refused {
            let st = reg
                .upload_evidence(with_token(&owner_token, request))
                .await
                .expect_err(what);
            assert_eq!(st.code(), Code::InvalidArgument, "{what}: {st:?}");
        }
        let st = reg
            .upload_evidence(with_token(
                &stranger_token,
                upload(&owner, "image/png", png_bytes(8)),
            ))
            .await
            .expect_err("for someone else");
        assert_eq!(st.code(), Code::PermissionDenied, "{st:?}");

        let id = upload_photo(&app, &owner_token, &owner).await;
        let read = |token: &str| {
            with_token(
                token,
                pb::EvidenceRef {
                    evidence_id: id.clone(),
                },
            )
        };
        for token in [&org, &owner_token] {
            let got = reg
                .get_evidence(read(token))
                .await
                .expect("read back")
                .into_inner();
            assert_eq!(got.content, png_bytes(64));
            let meta = got.evidence.expect("metadata");
            assert_eq!(
                (meta.content_type.as_str(), meta.size),
                ("image/png", 64 + 29)
            );
            assert_eq!(meta.sha256.len(), 64);
        }
        for token in [
            stranger_token.clone(),
            app.token(Role::Referee, "ref-1"),
            app.token(Role::Partner, "yizhan"),
        ] {
            let st = reg
                .get_evidence(read(&token))
                .await
                .expect_err("not theirs");
            assert_eq!(st.code(), Code::PermissionDenied, "{st:?}");
        }
        app.stop().await;
    }
}
