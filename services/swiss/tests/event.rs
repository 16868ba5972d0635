//! A final event played through fact by fact: groups, late entries, withdrawals, byes,
//! forfeits, corrections, appeals and the go-2025 placement round (R-IND-1..5).

use std::collections::BTreeSet;

use qiwang_swiss::colour::{Game, Mover};
use qiwang_swiss::event::{
    Appeal, AppealStatus, AppealTerms, EventConfig, EventError, Fact, FinalEvent, GameResult,
    PLACEMENT,
};
use qiwang_swiss::points::{HalfPoints, PointSystem};
use qiwang_swiss::tiebreak::{Ranking, TieBreak, UnplayedRounds};
use qiwang_swiss::trf::{ByeKind, Sex};

fn config(groups: &[&str], placement: Option<u32>, rounds: u32) -> EventConfig {
    EventConfig {
        name: "Go final".into(),
        game: Game::Go,
        rounds,
        groups: groups.iter().map(|g| g.to_string()).collect(),
        placement_pairs: placement,
        points: PointSystem::FIDE,
        ranking: Ranking {
            order: vec![TieBreak::Buchholz, TieBreak::Sosos, TieBreak::Progressive],
            unplayed: UnplayedRounds::OpponentsOnly,
        },
        initial_colour: Mover::First,
        appeal: Some(AppealTerms {
            within_minutes: 20,
            fee_yuan: 2000,
        }),
    }
}

fn apply(event: &mut FinalEvent, fact: Result<Fact, EventError>) -> Fact {
    let fact = fact.expect("derived");
    event.apply(&fact).expect("applied");
    fact
}

fn join(event: &mut FinalEvent, i: u32, group: &str) {
    let sex = if i.is_multiple_of(4) {
        Sex::Female
    } else {
        Sex::Male
    };
    let fact = event.join(
        &format!("p{i}"),
        &format!("Player {i}"),
        Some(sex),
        Some(2400 - i as u16 * 7),
        "ZJ",
        group,
    );
    apply(event, fact);
}

/// A deterministic result for a board: mostly decisive, some draws, by a simple hash.
fn result_for(round: u32, board: u32, first: u32, second: u32) -> GameResult {
    match (round * 31 + board * 7 + first * 3 + second) % 7 {
        0 => GameResult::Draw,
        1..=3 => GameResult::FirstWins,
        _ => GameResult::SecondWins,
    }
}

fn pair(event: &mut FinalEvent, group: &str, at: i64) -> qiwang_swiss::event::PairedRound {
    let fact = event.pair_next(group, at);
    match apply(event, fact) {
        Fact::Paired(round) => round,
        other => panic!("a pairing fact, not {other:?}"),
    }
}

fn play_round(event: &mut FinalEvent, group: &str, at: i64) -> u32 {
    let round = pair(event, group, at);
    for b in &round.boards {
        let r = result_for(round.number, b.number, b.first, b.second);
        apply(
            event,
            Ok(Fact::ResultRecorded {
                group: group.into(),
                round: round.number,
                board: b.number,
                result: r,
                at: at + 3600,
            }),
        );
    }
    round.number
}

fn assert_swiss_invariants(event: &FinalEvent, group: &str) {
    let mut met = BTreeSet::new();
    let mut byes = BTreeSet::new();
    for round in event.rounds().iter().filter(|r| r.group == group) {
        let mut seen = BTreeSet::new();
        for b in &round.boards {
            assert!(
                seen.insert(b.first) && seen.insert(b.second),
                "paired twice"
            );
            let pair = (b.first.min(b.second), b.first.max(b.second));
            let played = b.result.codes().is_some_and(|(c, _)| c.is_game());
            assert!(!met.contains(&pair), "repeated pairing {pair:?}");
            if played {
                met.insert(pair);
            }
            for s in [b.first, b.second] {
                let e = event.entrant(s).expect("entrant");
                assert!(e.first_round <= round.number, "late entrant paired early");
                assert!(
                    e.withdrawn_after.is_none_or(|w| round.number <= w),
                    "withdrawn player paired"
                );
            }
        }
        if let Some(bye) = round.bye {
            assert!(seen.insert(bye));
            assert!(byes.insert(bye), "a second pairing bye for {bye}");
        }
    }
}

#[test]
fn r_ind_1_r_ind_3_two_groups_nine_rounds_with_late_entry_withdrawal_and_byes() {
    let mut event = FinalEvent::new(config(&["A", "B"], Some(4), 9)).expect("config");
    for i in 1..=24 {
        join(&mut event, i, if i % 2 == 1 { "A" } else { "B" });
    }
    let mut at = 1_800_000_000;
    for round in 1..=9 {
        if round == 3 {
            // A late entry into group A (it joins in round 3), and a withdrawal in group B.
            join(&mut event, 25, "A");
            assert_eq!(event.entrant(25).map(|e| e.first_round), Some(3));
            let w = event.withdraw(2).expect("withdraw");
            apply(&mut event, Ok(w));
        }
        if round == 4 {
            apply(
                &mut event,
                Ok(Fact::ByeRequested {
                    start_number: 3,
                    round: 4,
                    kind: ByeKind::Half,
                }),
            );
        }
        for group in ["A", "B"] {
            assert_eq!(play_round(&mut event, group, at), round);
        }
        at += 86_400;
    }
    for group in ["A", "B"] {
        assert_swiss_invariants(&event, group);
        assert_eq!(event.completed_rounds(group), 9);
    }
    // The half-point bye scored 1 half-point and kept player 3 off the boards of round 4.
    let r4 = event.round("A", 4).expect("round 4");
    assert!(r4.boards.iter().all(|b| b.first != 3 && b.second != 3));
    // A tenth group round is refused.
    assert!(matches!(
        event.pair_next("A", at),
        Err(EventError::Precondition(_))
    ));
    // Standings: every entrant of the group, points add up to the games' points.
    let a = event.standings("A").expect("standings");
    assert_eq!(a.rows.len(), 13);
    // The placement round pairs A1-B1 ... A4-B4.
    let placement = pair(&mut event, PLACEMENT, at);
    assert_eq!(placement.number, 10);
    assert_eq!(placement.boards.len(), 4);
    let b = event.standings("B").expect("standings");
    let b_top: Vec<u32> = b
        .rows
        .iter()
        .map(|r| r.start_number)
        .filter(|&s| s != 2)
        .take(4)
        .collect();
    for (i, board) in placement.boards.iter().enumerate() {
        let pair = [board.first, board.second];
        assert!(
            pair.contains(&a.rows[i].start_number),
            "A{} on board {}",
            i + 1,
            i + 1
        );
        assert!(pair.contains(&b_top[i]), "B{} on board {}", i + 1, i + 1);
    }
    for board in &placement.boards {
        apply(
            &mut event,
            Ok(Fact::ResultRecorded {
                group: PLACEMENT.into(),
                round: 10,
                board: board.number,
                result: GameResult::SecondWins,
                at,
            }),
        );
    }
    let places = event.placement_places().expect("places");
    assert_eq!(places.len(), 25);
    assert_eq!(places[0], (1, placement.boards[0].second));
    assert_eq!(places[1], (2, placement.boards[0].first));
    let all: BTreeSet<u32> = places.iter().map(|p| p.1).collect();
    assert_eq!(all.len(), 25, "every entrant has one place");
}

#[test]
fn r_ind_5_correction_recomputes_standings_and_keeps_later_pairings() {
    let mut event = FinalEvent::new(config(&[], None, 5)).expect("config");
    for i in 1..=8 {
        join(&mut event, i, "");
    }
    let mut at = 1_800_000_000;
    for _ in 0..3 {
        play_round(&mut event, "", at);
        at += 86_400;
    }
    let before = event.standings("").expect("standings");
    let round2 = event.round("", 2).expect("round 2").clone();
    let board = &round2.boards[0];
    let corrected = match board.result {
        GameResult::FirstWins => GameResult::SecondWins,
        _ => GameResult::FirstWins,
    };
    apply(
        &mut event,
        Ok(Fact::ResultRecorded {
            group: String::new(),
            round: 2,
            board: 1,
            result: corrected,
            at,
        }),
    );
    let after = event.standings("").expect("standings");
    assert_ne!(before, after);
    assert_eq!(event.round("", 3), before_round3(&event));
    let pts = |s: &qiwang_swiss::tiebreak::Standings, n: u32| s.row(n).map(|r| r.points);
    let winner = if corrected == GameResult::FirstWins {
        board.first
    } else {
        board.second
    };
    assert!(pts(&after, winner) > pts(&before, winner));

    fn before_round3(e: &FinalEvent) -> Option<&qiwang_swiss::event::PairedRound> {
        e.round("", 3)
    }
}

#[test]
fn r_ind_5_appeal_within_twenty_minutes_fee_refunded_when_upheld() {
    let mut event = FinalEvent::new(config(&[], None, 3)).expect("config");
    for i in 1..=4 {
        join(&mut event, i, "");
    }
    let at = 1_800_000_000;
    play_round(&mut event, "", at);
    let round = event.round("", 1).expect("round").clone();
    let ended = round.completed_at.expect("ended");
    let board = &round.boards[0];
    let appeal = |id: &str, by: u32, filed_at: i64| Appeal {
        id: id.into(),
        group: String::new(),
        round: 1,
        board: 1,
        appellant: by,
        filed_at,
        text: "the clock was stopped".into(),
        fee_yuan: 2000,
        status: AppealStatus::Pending,
        decision: String::new(),
        decided_at: None,
        refund_yuan: 0,
    };
    // 21 minutes after the round ended: too late.
    let late = event.apply(&Fact::AppealFiled(appeal(
        "x",
        board.first,
        ended + 21 * 60,
    )));
    assert!(matches!(late, Err(EventError::Precondition(_))), "{late:?}");
    // Someone who did not play on the board cannot appeal its ruling.
    let other = round.boards[1].first;
    assert!(
        event
            .apply(&Fact::AppealFiled(appeal("y", other, ended)))
            .is_err()
    );
    // Within 20 minutes: accepted; a second one on the same board is refused while it is open.
    apply(
        &mut event,
        Ok(Fact::AppealFiled(appeal(
            "a1",
            board.second,
            ended + 20 * 60,
        ))),
    );
    assert!(matches!(
        event.apply(&Fact::AppealFiled(appeal("a2", board.first, ended + 60))),
        Err(EventError::Conflict(_))
    ));
    apply(
        &mut event,
        Ok(Fact::AppealDecided {
            id: "a1".into(),
            upheld: true,
            decision: "the arbiter misapplied the clock rule".into(),
            corrected: Some(GameResult::Draw),
            at: ended + 40 * 60,
        }),
    );
    let a = &event.appeals()[0];
    assert_eq!(a.status, AppealStatus::Upheld);
    assert_eq!(a.refund_yuan, 2000);
    assert_eq!(
        event.round("", 1).map(|r| r.boards[0].result),
        Some(GameResult::Draw)
    );
    let s = event.standings("").expect("standings");
    assert_eq!(s.row(board.first).map(|r| r.points), Some(HalfPoints(1)));
}

#[test]
fn r_ind_3_a_round_with_pending_results_blocks_the_next_and_exports_name_the_players() {
    let mut event = FinalEvent::new(config(&[], None, 3)).expect("config");
    for i in 1..=5 {
        join(&mut event, i, "");
    }
    let r1 = pair(&mut event, "", 0);
    assert_eq!(r1.boards.len(), 2);
    assert!(r1.bye.is_some(), "five players: one pairing bye");
    assert!(matches!(
        event.pair_next("", 1),
        Err(EventError::Precondition(_))
    ));
    for b in &r1.boards {
        apply(
            &mut event,
            Ok(Fact::ResultRecorded {
                group: String::new(),
                round: 1,
                board: b.number,
                result: GameResult::FirstForfeits,
                at: 10,
            }),
        );
    }
    let trf = qiwang_swiss::trf::write(&event.to_trf("").expect("trf")).expect("write");
    assert!(trf.contains("XXR 3"), "{trf}");
    let parsed = qiwang_swiss::trf::parse(&trf).expect("our TRF reads back");
    assert_eq!(parsed.players().count(), 5);
    let csv = event.to_csv("", false).expect("csv");
    assert!(csv.starts_with("place,start_number,name,sex,federation,group,points,BH,SOSOS,PS"));
    assert_eq!(csv.lines().count(), 6);
    let h9 = event.to_h9("").expect("h9");
    assert!(
        h9.contains("+/w!") || h9.contains("+/b!"),
        "forfeit wins are marked: {h9}"
    );
    // The engine's pairing with forfeits: nobody has met, so round 2 may repeat round 1's boards.
    let r2 = pair(&mut event, "", 20);
    assert_eq!(r2.boards.len(), 2);
}

#[test]
fn r_dis_1_a_disqualified_entrant_leaves_the_final_ranking_and_is_not_paired_again() {
    let mut event = FinalEvent::new(config(&[], None, 3)).expect("event");
    for i in 1..=8 {
        join(&mut event, i, "");
    }
    play_round(&mut event, "", 1_000);
    let before = event.final_places().expect("places").0;
    let (_, third) = before[2];
    let dq = Fact::Disqualified {
        start_number: third,
    };
    event.apply(&dq).expect("disqualified");
    assert!(event.is_disqualified(third));
    assert!(
        matches!(event.apply(&dq), Err(EventError::Conflict(_))),
        "twice is a conflict"
    );
    assert!(
        matches!(
            event.apply(&Fact::Disqualified { start_number: 99 }),
            Err(EventError::NotFound(_))
        ),
        "an unknown entrant"
    );
    // Not paired in the rounds that follow.
    play_round(&mut event, "", 10_000);
    play_round(&mut event, "", 20_000);
    assert_swiss_invariants(&event, "");
    for round in event.rounds().iter().filter(|r| r.number > 1) {
        assert!(
            round
                .boards
                .iter()
                .all(|b| b.first != third && b.second != third)
                && round.bye != Some(third),
            "round {} paired the disqualified entrant",
            round.number
        );
    }
    // Left out of the final ranking; everyone below moves up, the places stay in competition form.
    let (after, complete) = event.final_places().expect("places");
    assert!(complete);
    assert_eq!(after.len(), 7);
    assert!(after.iter().all(|(_, s)| *s != third));
    let full = event.standings("").expect("standings");
    let kept: Vec<u32> = full
        .rows
        .iter()
        .map(|r| r.start_number)
        .filter(|s| *s != third)
        .collect();
    assert_eq!(after.iter().map(|(_, s)| *s).collect::<Vec<_>>(), kept);
    for (i, (place, _)) in after.iter().enumerate() {
        let ahead = after.iter().filter(|(p, _)| p < place).count() as u32;
        assert_eq!(*place, ahead + 1, "row {i}");
    }
}
