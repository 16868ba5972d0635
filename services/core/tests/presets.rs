//! The official presets as organizers rely on them: the stage chains, the final's formats, and an
//! online period computed end to end from a preset's own rules.

use chrono::{NaiveDate, TimeZone, Utc};
use qiwang_core::preset::{self, Preset};
use qiwang_core::scoring::{EndReason, GameFacts, PeriodDays, ReportedResult};
use qiwang_core::stage::{StageKind, TieBreak};
use qiwang_core::standings::{PeriodGame, compute_period};

fn official(name: &str) -> Preset {
    preset::official_by_name(name)
        .expect("known")
        .expect("valid")
}

fn d(y: i32, m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, day).expect("date")
}

#[test]
fn r_str_3_stage_chains_and_dates() {
    let chains = [
        (
            "go-2015",
            vec!["haixuan", "jinji", "ruwei", "fuhuo", "final"],
        ),
        (
            "xiangqi-2015",
            vec!["haixuan", "jinji", "ruwei", "fuhuo", "final"],
        ),
        ("chess-2015", vec!["haixuan", "ruwei", "fuhuo", "final"]),
        ("xiangqi-2022", vec!["haixuan", "ruwei", "final"]),
        ("go-2025", vec!["haixuan", "final"]),
    ];
    for (name, chain) in chains {
        let p = official(name);
        let codes: Vec<&str> = p.stages.iter().map(|s| s.code.as_str()).collect();
        assert_eq!(codes, chain, "{name}");
        assert_eq!(
            p.final_stage().map(|s| s.code.as_str()),
            Some("final"),
            "{name}"
        );
    }
    let go = official("go-2015");
    let hx = go.stage("haixuan").expect("haixuan");
    assert_eq!(hx.periods.len(), 4);
    assert_eq!(
        (hx.periods[0].opens_on, hx.periods[0].closes_on),
        (d(2015, 8, 1), d(2015, 8, 14))
    );
    assert_eq!(
        (hx.periods[3].opens_on, hx.periods[3].closes_on),
        (d(2015, 9, 12), d(2015, 9, 25))
    );
    let jj = go.stage("jinji").expect("jinji");
    assert_eq!(
        (jj.periods[3].opens_on, jj.periods[3].closes_on),
        (d(2015, 9, 26), d(2015, 10, 2))
    );
    assert_eq!(go.stage("ruwei").map(|s| s.kind), Some(StageKind::Knockout));
    assert_eq!(
        go.final_stage().and_then(|s| s.starts_on),
        Some(d(2015, 10, 30))
    );
    assert_eq!(
        official("xiangqi-2015")
            .final_stage()
            .and_then(|s| s.starts_on),
        Some(d(2015, 11, 6))
    );
    let xq = official("xiangqi-2022");
    assert_eq!(xq.stage("haixuan").map(|s| s.periods.len()), Some(8));
    let rw = xq.stage("ruwei").expect("ruwei");
    assert_eq!(
        (rw.periods[7].opens_on, rw.periods[7].closes_on),
        (d(2022, 9, 3), d(2022, 9, 11))
    );
    let go25 = official("go-2025");
    let hx = go25.stage("haixuan").expect("haixuan");
    assert_eq!(hx.periods.len(), 6);
    // "20 days each" holds for periods 1-5; the digest's dates for period 6 (08-14..09-03) span 21 days,
    // and the dates are what the preset keeps.
    assert!(
        hx.periods[..5]
            .iter()
            .all(|p| (p.closes_on - p.opens_on).num_days() == 19),
        "20 days each"
    );
    assert_eq!(
        (hx.periods[5].opens_on, hx.periods[5].closes_on),
        (d(2025, 8, 14), d(2025, 9, 3))
    );
    assert_eq!(
        go25.final_stage().and_then(|s| s.ends_on),
        Some(d(2025, 11, 11))
    );
}

#[test]
fn r_str_1_periods_are_numbered_and_each_period_is_computed_alone() {
    for (name, _) in preset::OFFICIAL {
        for stage in official(name).stages {
            let numbers: Vec<u32> = stage.periods.iter().map(|p| p.number).collect();
            let expected: Vec<u32> = (1..=stage.periods.len() as u32).collect();
            assert_eq!(numbers, expected, "{name} {}", stage.code);
        }
    }
    // A period is computed from its own games only: the same player's games in two periods give two
    // independent standings (results never carry over).
    let p = official("xiangqi-2022");
    let stage = p.stage("haixuan").expect("haixuan");
    let rules = stage.online.expect("online rules");
    let game = |id: &str, day: u32| PeriodGame {
        id: id.into(),
        first_player: "a".into(),
        second_player: "b".into(),
        facts: GameFacts::plain(
            Utc.with_ymd_and_hms(2022, 6, day, 4, 0, 0)
                .single()
                .expect("time"),
            Utc.with_ymd_and_hms(2022, 6, day, 4, 20, 0)
                .single()
                .expect("time"),
            ReportedResult::FirstWins,
            EndReason::Resignation,
        ),
    };
    let p1 = stage.period(1).expect("p1");
    let p2 = stage.period(2).expect("p2");
    let days = |p: &qiwang_core::stage::Period| PeriodDays {
        first_day: p.opens_on,
        last_day: p.closes_on,
    };
    let first = compute_period(&rules, days(p1), &[game("g1", 1), game("g2", 2)], &[], &[]);
    let second = compute_period(&rules, days(p2), &[game("g3", 12)], &[], &[]);
    let points = |l: &qiwang_core::standings::PeriodLedger, who: &str| {
        l.players.get(who).map(|p| p.standing().points)
    };
    assert_eq!(points(&first, "a"), Some(4));
    assert_eq!(points(&second, "a"), Some(2), "period 2 starts from zero");
}

#[test]
fn r_onl_1_qiwang_scores_whatever_the_platform_matched() {
    // Random matching is the platform's: the same two players may meet again and again, and every
    // reported game inside the period and the play hours counts.
    let p = official("go-2025");
    let stage = p.stage("haixuan").expect("haixuan");
    let rules = stage.online.expect("online rules");
    let period = stage.period(1).expect("p1");
    let games: Vec<PeriodGame> = (0..5u32)
        .map(|i| PeriodGame {
            id: format!("g{i}"),
            first_player: if i % 2 == 0 { "a".into() } else { "b".into() },
            second_player: if i % 2 == 0 { "b".into() } else { "a".into() },
            facts: GameFacts::plain(
                Utc.with_ymd_and_hms(2025, 5, 10, i, 0, 0)
                    .single()
                    .expect("time"),
                Utc.with_ymd_and_hms(2025, 5, 10, i, 40, 0)
                    .single()
                    .expect("time"),
                ReportedResult::FirstWins,
                EndReason::Resignation,
            ),
        })
        .collect();
    let ledger = compute_period(
        &rules,
        PeriodDays {
            first_day: period.opens_on,
            last_day: period.closes_on,
        },
        &games,
        &[],
        &[],
    );
    let a = ledger.players.get("a").expect("a").standing();
    let b = ledger.players.get("b").expect("b").standing();
    assert_eq!((a.wins, a.losses, b.wins, b.losses), (3, 2, 2, 3));
    assert_eq!((a.points, b.points), (2, -2));
}

#[test]
fn r_ind_1_the_final_is_swiss_with_go_2025_groups_and_placement_round() {
    let xq = official("xiangqi-2015")
        .final_stage()
        .and_then(|s| s.final_format.clone())
        .expect("final");
    assert_eq!(xq.rounds, Some(9));
    let ch = official("chess-2015")
        .final_stage()
        .and_then(|s| s.final_format.clone())
        .expect("final");
    assert_eq!(ch.rounds, Some(9));
    let go = official("go-2025")
        .final_stage()
        .and_then(|s| s.final_format.clone())
        .expect("final");
    assert_eq!(
        (go.rounds, go.groups.as_slice(), go.placement_pairs),
        (Some(9), &["A".to_owned(), "B".to_owned()][..], Some(16))
    );
    let go15 = official("go-2015")
        .final_stage()
        .and_then(|s| s.final_format.clone())
        .expect("final");
    assert_eq!(go15.rounds, None, "rounds by entries: the seed gives none");
    for (name, _) in preset::OFFICIAL {
        let f = official(name)
            .final_stage()
            .and_then(|s| s.final_format.clone())
            .expect("final");
        assert_eq!(
            (f.points.win, f.points.draw, f.points.loss),
            (2, 1, 0),
            "{name}"
        );
        assert!(f.separate_women_ranking, "{name}: R-IND-2");
    }
}

#[test]
fn r_ind_4_tie_break_order_per_game() {
    let order = |name: &str| {
        official(name)
            .final_stage()
            .and_then(|s| s.final_format.clone())
            .expect("final")
            .tie_breaks
    };
    use TieBreak::*;
    assert_eq!(order("go-2015"), [Buchholz, Sosos, Progressive]);
    assert_eq!(order("go-2025"), [Buchholz, Sosos, Progressive]);
    assert_eq!(
        order("xiangqi-2015"),
        [Buchholz, Wins, BlackWins, Progressive]
    );
    assert_eq!(
        order("xiangqi-2022"),
        [Buchholz, Wins, BlackWins, Progressive]
    );
    assert_eq!(
        order("chess-2015"),
        [
            BuchholzCut1,
            Buchholz,
            SonnebornBerger,
            DirectEncounter,
            Wins,
            BlackGames
        ]
    );
}

#[test]
fn r_ind_5_go_2025_appeals_within_20_minutes_for_2000_yuan() {
    let appeal = official("go-2025")
        .final_stage()
        .and_then(|s| s.final_format.clone())
        .and_then(|f| f.appeal)
        .expect("appeal");
    assert_eq!((appeal.within_minutes, appeal.fee_yuan), (20, 2000));
    assert!(
        official("go-2015")
            .final_stage()
            .and_then(|s| s.final_format.clone())
            .and_then(|f| f.appeal)
            .is_none()
    );
}

#[test]
fn a_broken_copy_of_a_preset_is_refused_with_precise_paths() {
    let (_, text) = preset::OFFICIAL
        .iter()
        .find(|(n, _)| *n == "xiangqi-2022")
        .expect("preset");
    let broken = text
        .replacen("top_n = 23", "top_n = 0", 1)
        .replacen(
            "tie_breaks = [\"buchholz\"",
            "tie_breaks = [\"coin-toss\"",
            1,
        )
        .replacen(
            "offline_service_fee_yuan = 0",
            "offline_service_fee_yuan = -5",
            1,
        )
        .replacen("to = \"ruwei\"", "to = \"semifinal\"", 1);
    let errors = preset::parse(&broken).expect_err("broken").to_string();
    for expected in [
        "stages[1].advance.top_n: must be > 0",
        "stages[2].final.tie_breaks[0]: \"coin-toss\" is not one of",
        "fees.offline_service_fee_yuan: must be >= 0",
        "stages[0].advance.to: \"semifinal\" is not a stage of this preset",
    ] {
        assert!(
            errors.contains(expected),
            "missing {expected:?} in:\n{errors}"
        );
    }
}

#[test]
fn r_onl_6_time_controls_are_recorded_where_the_seeds_state_them() {
    let tc = |name: &str, stage: &str| {
        let p = official(name);
        let s = p.stage(stage).expect("stage");
        s.online
            .and_then(|o| o.time_control)
            .or_else(|| s.knockout.as_ref().and_then(|k| k.time_control))
            .map(|t| (t.main_secs, t.byoyomi_secs, t.byoyomi_periods))
    };
    assert_eq!(
        tc("go-2015", "haixuan"),
        Some((1200, Some(20), Some(3))),
        "20 min + 3×20 s"
    );
    assert_eq!(tc("go-2015", "jinji"), Some((1200, Some(20), Some(3))));
    assert_eq!(
        tc("go-2015", "ruwei"),
        Some((1800, Some(20), Some(3))),
        "入围 30 min + 3×20 s"
    );
    assert_eq!(
        tc("xiangqi-2015", "haixuan"),
        Some((600, Some(20), None)),
        "10 min, then 20 s a move"
    );
    assert_eq!(tc("go-2025", "haixuan"), Some((1800, Some(20), Some(3))));
    assert_eq!(
        tc("chess-2015", "haixuan"),
        None,
        "not stated: configurable"
    );
}
