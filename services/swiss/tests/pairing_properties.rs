//! Property tests of the Dutch engine through whole events (R-IND-3, FIDE C.04.3 C1-C3): over
//! random fields, results, forfeits, withdrawals and requested byes, every round it pairs has
//! nobody twice, no repeated game, at most one pairing-allocated bye, never a second one for the
//! same player (nor for one who already scored a win without playing), and no absolute colour
//! conflict: colour difference within ±2 and never three games in a row with the same colour.
//! (The event is declared longer than the rounds played, so there are no topscorers, who alone may
//! break the colour limits in the last round.) "No valid pairing" may end an event early: it is a
//! result, never a panic.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use qiwang_swiss::colour::{Game, Mover};
use qiwang_swiss::event::{EventConfig, EventError, Fact, FinalEvent, GameResult};
use qiwang_swiss::points::{PointSystem, ResultCode};
use qiwang_swiss::tiebreak::{Ranking, UnplayedRounds};
use qiwang_swiss::trf::ByeKind;

#[derive(Debug, Clone)]
struct Script {
    players: u32,
    ratings: Vec<u16>,
    rounds: u32,
    /// Per board slot: 0-5 decisive/draw, 6 first forfeits, 7 second forfeits.
    results: Vec<u8>,
    /// (round, player index) withdrawals and half-point byes.
    withdrawals: Vec<(u32, u32)>,
    byes: Vec<(u32, u32)>,
}

fn script() -> impl Strategy<Value = Script> {
    (4u32..=22, 3u32..=7).prop_flat_map(|(players, rounds)| {
        (
            proptest::collection::vec(1000u16..2800, players as usize),
            proptest::collection::vec(0u8..8, (players * rounds) as usize),
            proptest::collection::vec((2..=rounds, 0..players), 0..3),
            proptest::collection::vec((1..=rounds, 0..players), 0..4),
        )
            .prop_map(move |(ratings, results, withdrawals, byes)| Script {
                players,
                ratings,
                rounds,
                results,
                withdrawals,
                byes,
            })
    })
}

fn result(code: u8) -> GameResult {
    match code {
        0 | 1 => GameResult::FirstWins,
        2 | 3 => GameResult::SecondWins,
        4 | 5 => GameResult::Draw,
        6 => GameResult::FirstForfeits,
        _ => GameResult::SecondForfeits,
    }
}

fn run(s: &Script) -> FinalEvent {
    let mut event = FinalEvent::new(EventConfig {
        name: "property".into(),
        game: Game::Xiangqi,
        rounds: 30,
        groups: Vec::new(),
        placement_pairs: None,
        points: PointSystem::FIDE,
        ranking: Ranking {
            order: Vec::new(),
            unplayed: UnplayedRounds::FideC07,
        },
        initial_colour: Mover::First,
        appeal: None,
    })
    .expect("config");
    let mut order: Vec<u32> = (0..s.players).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(s.ratings[i as usize]));
    for i in order {
        let fact = event
            .join(
                &format!("p{i}"),
                &format!("P{i}"),
                None,
                Some(s.ratings[i as usize]),
                "",
                "",
            )
            .expect("join");
        event.apply(&fact).expect("join applies");
    }
    let mut slot = 0;
    for round in 1..=s.rounds {
        for &(r, p) in &s.withdrawals {
            if r == round {
                let n = p + 1;
                if event
                    .entrant(n)
                    .is_some_and(|e| e.withdrawn_after.is_none())
                {
                    let fact = event.withdraw(n).expect("withdraw");
                    event.apply(&fact).expect("withdrawal applies");
                }
            }
        }
        for &(r, p) in &s.byes {
            if r == round {
                // Refused (already withdrawn, already has one): a refusal, never a panic.
                let _ = event.apply(&Fact::ByeRequested {
                    start_number: p + 1,
                    round,
                    kind: ByeKind::Half,
                });
            }
        }
        let fact = match event.pair_next("", i64::from(round)) {
            Ok(f) => f,
            Err(EventError::NoValidPairing { .. }) => break,
            Err(e) => panic!("round {round}: {e}"),
        };
        event.apply(&fact).expect("pairing applies");
        let boards = event.round("", round).expect("paired").boards.clone();
        for b in boards {
            let code = s.results[slot % s.results.len()];
            slot += 1;
            event
                .apply(&Fact::ResultRecorded {
                    group: String::new(),
                    round,
                    board: b.number,
                    result: result(code),
                    at: 0,
                })
                .expect("result applies");
        }
    }
    event
}

/// C3: the colour difference never goes beyond ±2.
const LIMIT: i32 = 2;

fn check(event: &FinalEvent) -> Result<(), TestCaseError> {
    let mut met = BTreeSet::new();
    let mut pab = BTreeSet::new();
    let mut unplayed_win: BTreeSet<u32> = BTreeSet::new();
    let mut colours: BTreeMap<u32, Vec<Mover>> = BTreeMap::new();
    for round in event.rounds() {
        let mut seen = BTreeSet::new();
        for b in &round.boards {
            prop_assert!(
                seen.insert(b.first),
                "{} twice in round {}",
                b.first,
                round.number
            );
            prop_assert!(
                seen.insert(b.second),
                "{} twice in round {}",
                b.second,
                round.number
            );
            let key = (b.first.min(b.second), b.first.max(b.second));
            prop_assert!(
                !met.contains(&key),
                "round {}: {key:?} met before",
                round.number
            );
            let (f, s) = b.result.codes().expect("complete");
            if f.is_game() {
                met.insert(key);
                colours.entry(b.first).or_default().push(Mover::First);
                colours.entry(b.second).or_default().push(Mover::Second);
            }
            for (who, code) in [(b.first, f), (b.second, s)] {
                if code == ResultCode::ForfeitWin {
                    unplayed_win.insert(who);
                }
                let e = event.entrant(who).expect("entrant");
                prop_assert!(e.withdrawn_after.is_none_or(|w| round.number <= w));
                prop_assert!(
                    event
                        .requested_byes()
                        .all(|(n, r, _)| !(n == who && r == round.number)),
                    "{who} paired in a round with a requested bye"
                );
            }
        }
        if let Some(bye) = round.bye {
            prop_assert!(seen.insert(bye));
            prop_assert!(pab.insert(bye), "{bye} gets a second pairing bye");
            prop_assert!(
                !unplayed_win.contains(&bye),
                "{bye} scored a win without playing and still got the bye"
            );
            unplayed_win.insert(bye);
        }
    }
    for (player, seq) in &colours {
        let mut diff = 0i32;
        for m in seq {
            diff += if *m == Mover::First { 1 } else { -1 };
            prop_assert!(
                diff.abs() <= LIMIT,
                "{player}: colour difference {diff} in {seq:?}"
            );
        }
        prop_assert!(
            seq.windows(3).all(|w| !(w[0] == w[1] && w[1] == w[2])),
            "{player}: three in a row in {seq:?}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn r_ind_3_dutch_pairings_meet_the_absolute_criteria(s in script()) {
        let event = run(&s);
        check(&event)?;
    }
}
