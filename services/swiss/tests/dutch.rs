//! The Dutch pairing engine (issue 9, R-IND-3): worked examples, the bbpPairings-compatible
//! command line, and property tests over tournaments played out with random results.

use std::collections::{BTreeSet, HashMap};

use proptest::prelude::*;
use qiwang_swiss::cli;
use qiwang_swiss::colour::Mover;
use qiwang_swiss::dutch::{self, Board, Options, Pairing, PairingError};
use qiwang_swiss::points::{HalfPoints, PointSystem, ResultCode};
use qiwang_swiss::tournament::Tournament;
use qiwang_swiss::trf::{self, Player, RoundEntry};

fn player(start_number: u32, rating: u16) -> Player {
    Player {
        start_number,
        sex: None,
        title: String::new(),
        name: format!("Player {start_number}"),
        rating: Some(rating),
        federation: String::new(),
        fide_id: None,
        birth_date: String::new(),
        points: None,
        rank: None,
        rounds: Vec::new(),
    }
}

fn field(n: u32) -> Vec<Player> {
    (1..=n).map(|i| player(i, 2500 - i as u16 * 10)).collect()
}

fn tournament(players: &[Player]) -> Tournament {
    let refs: Vec<&Player> = players.iter().collect();
    Tournament::from_players(&refs, PointSystem::FIDE).expect("consistent tournament")
}

fn boards(p: &Pairing) -> Vec<(u32, u32)> {
    p.boards.iter().map(|b| (b.first, b.second)).collect()
}

/// Records a round's pairing with results given by `result(first, second)` (from the first
/// mover's side), and requested byes / absences for the players in `away`.
fn record(
    players: &mut [Player],
    pairing: &Pairing,
    away: &[(u32, ResultCode)],
    result: &mut dyn FnMut(u32, u32) -> ResultCode,
) {
    let mut entries: HashMap<u32, RoundEntry> = HashMap::new();
    for b in &pairing.boards {
        let r = result(b.first, b.second);
        let other = match r {
            ResultCode::Win => ResultCode::Loss,
            ResultCode::Loss => ResultCode::Win,
            ResultCode::ForfeitWin => ResultCode::ForfeitLoss,
            ResultCode::ForfeitLoss => ResultCode::ForfeitWin,
            x => x,
        };
        entries.insert(
            b.first,
            RoundEntry {
                opponent: Some(b.second),
                colour: Some(Mover::First),
                result: r,
            },
        );
        entries.insert(
            b.second,
            RoundEntry {
                opponent: Some(b.first),
                colour: Some(Mover::Second),
                result: other,
            },
        );
    }
    if let Some(bye) = pairing.bye {
        entries.insert(
            bye,
            RoundEntry {
                opponent: None,
                colour: None,
                result: ResultCode::PairingAllocatedBye,
            },
        );
    }
    for &(p, code) in away {
        entries.insert(
            p,
            RoundEntry {
                opponent: None,
                colour: None,
                result: code,
            },
        );
    }
    for p in players.iter_mut() {
        let e = entries.remove(&p.start_number).unwrap_or(RoundEntry {
            opponent: None,
            colour: None,
            result: ResultCode::ZeroPointBye,
        });
        p.rounds.push(e);
    }
}

#[test]
fn r_ind_3_round_one_pairs_top_half_against_bottom_half_alternating_colours() {
    let players = field(8);
    let t = tournament(&players);
    let p = dutch::pair(&t, &Options::default()).expect("pairing");
    assert_eq!(boards(&p), vec![(1, 5), (6, 2), (3, 7), (8, 4)]);
    assert_eq!(p.bye, None);
    let black1 = Options {
        initial_colour: Mover::Second,
        ..Options::default()
    };
    let p = dutch::pair(&t, &black1).expect("pairing");
    assert_eq!(boards(&p), vec![(5, 1), (2, 6), (7, 3), (4, 8)]);
}

#[test]
fn r_ind_3_odd_field_gives_the_pairing_allocated_bye_to_the_lowest() {
    let players = field(5);
    let p = dutch::pair(&tournament(&players), &Options::default()).expect("pairing");
    assert_eq!(p.bye, Some(5));
    assert_eq!(boards(&p), vec![(1, 3), (4, 2)]);
}

#[test]
fn r_ind_3_requested_byes_and_absences_are_not_paired() {
    let players = field(6);
    let options = Options {
        not_paired: vec![1, 4],
        ..Options::default()
    };
    let p = dutch::pair(&tournament(&players), &options).expect("pairing");
    let paired: BTreeSet<u32> = p.boards.iter().flat_map(|b| [b.first, b.second]).collect();
    assert_eq!(paired, BTreeSet::from([2, 3, 5, 6]));
    assert_eq!(p.bye, None);
}

#[test]
fn r_ind_3_accelerated_round_pairs_the_top_group_among_itself() {
    // Baku-style acceleration (C.04.5.1): a fictitious point for the top half in round 1.
    let players = field(8);
    let options = Options {
        acceleration: (1..=4).map(|p| (p, 1, HalfPoints(2))).collect(),
        ..Options::default()
    };
    let p = dutch::pair(&tournament(&players), &options).expect("pairing");
    assert_eq!(boards(&p), vec![(1, 3), (4, 2), (5, 7), (8, 6)]);
}

#[test]
fn r_ind_3_no_valid_pairing_is_a_result_not_a_panic() {
    // Two players who have met: C1 leaves nothing to pair.
    let mut players = field(2);
    let first = dutch::pair(&tournament(&players), &Options::default()).expect("round 1");
    record(&mut players, &first, &[], &mut |_, _| ResultCode::Draw);
    assert_eq!(
        dutch::pair(&tournament(&players), &Options::default()),
        Err(PairingError::NoValidPairing)
    );
    // Forbidden pairs (XXP) too.
    let players = field(2);
    let options = Options {
        forbidden: vec![(2, 1)],
        ..Options::default()
    };
    assert_eq!(
        dutch::pair(&tournament(&players), &options),
        Err(PairingError::NoValidPairing)
    );
}

#[test]
fn r_ind_3_a_forfeited_game_does_not_count_as_having_met() {
    let mut players = field(2);
    let first = dutch::pair(&tournament(&players), &Options::default()).expect("round 1");
    record(&mut players, &first, &[], &mut |_, _| {
        ResultCode::ForfeitWin
    });
    let second = dutch::pair(&tournament(&players), &Options::default()).expect("round 2");
    assert_eq!(second.boards.len(), 1);
}

#[test]
fn r_ind_3_no_second_pairing_allocated_bye() {
    let mut players = field(3);
    let mut byes = BTreeSet::new();
    for _ in 0..2 {
        let p = dutch::pair(&tournament(&players), &Options::default()).expect("pairing");
        let bye = p.bye.expect("odd field");
        assert!(byes.insert(bye), "player {bye} got a second bye");
        record(&mut players, &p, &[], &mut |_, _| ResultCode::Draw);
    }
}

// A 12-player, 5-round tournament generated and paired by bbpPairings 6 (`-g`, seed 1); every
// round re-paired from the rounds before it must come out the same.
const BBP_12: &str = include_str!("data/dutch-bbp-12.trf");
// 31 players, 7 rounds, with draws, forfeits, half-point byes and retirements (seed 11).
const BBP_31: &str = include_str!("data/dutch-bbp-31.trf");

#[test]
fn r_ind_3_reproduces_bbppairings_round_by_round() {
    for (name, text) in [("12", BBP_12), ("31", BBP_31)] {
        let out = cli::run(&["--dutch".into(), "in.trf".into(), "-c".into()], &|_| {
            Ok(text.to_string())
        });
        assert_eq!(out.code, cli::OK, "{name}: {}", out.stderr);
        assert_eq!(out.stdout, "No discrepancies found.\n", "{name}");
    }
}

#[test]
fn cli_pairs_the_next_round_in_bbppairings_format() {
    let text = "012 Test\nXXR 3\nXXC white1\n\
001    1      A                                 2400                             0.0    1\n\
001    2      B                                 2300                             0.0    2\n\
001    3      C                                 2200                             0.0    3\n";
    let out = cli::run(&["--dutch".into(), "t.trf".into(), "-p".into()], &|_| {
        Ok(text.to_string())
    });
    assert_eq!(out.code, cli::OK, "{}", out.stderr);
    assert_eq!(out.stdout, "2\n1 2\n3 0\n");
    let out = cli::run(
        &[
            "--dutch".into(),
            "t.trf".into(),
            "-p".into(),
            "out.txt".into(),
        ],
        &|_| Ok(text.to_string()),
    );
    assert_eq!(
        out.files,
        vec![("out.txt".to_string(), "2\n1 2\n3 0\n".to_string())]
    );
}

#[test]
fn cli_exit_codes() {
    let missing = cli::run(&["--dutch".into(), "nope.trf".into(), "-p".into()], &|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such file",
        ))
    });
    assert_eq!(missing.code, cli::FILE_ERROR);
    let bad = cli::run(&["--dutch".into(), "bad.trf".into(), "-p".into()], &|_| {
        Ok("001 xx\n".to_string())
    });
    assert_eq!(bad.code, cli::BAD_INPUT);
    assert_eq!(
        cli::run(&["-p".into()], &|_| Ok(String::new())).code,
        cli::BAD_INPUT
    );
    // Two players who already met.
    let met = "XXR 2\n\
001    1      A                                 2400                             0.5    1     2 w =\n\
001    2      B                                 2300                             0.5    2     1 b =\n";
    let out = cli::run(&["--dutch".into(), "t.trf".into(), "-p".into()], &|_| {
        Ok(met.to_string())
    });
    assert_eq!(out.code, cli::NO_VALID_PAIRING);
}

#[test]
fn trf_round_reads_byes_already_entered_for_the_round() {
    let text = "XXR 3\nXXC white1\n\
001    1      A                                 2400                             0.0    1  0000 - H\n\
001    2      B                                 2300                             0.0    2\n\
001    3      C                                 2200                             0.0    3\n";
    let file = trf::parse(text).expect("parse");
    let round = dutch::trf_round(&file).expect("round");
    assert_eq!(round.round, 1);
    assert_eq!(round.options.not_paired, vec![1]);
    let p = dutch::pair(&round.tournament, &round.options).expect("pairing");
    assert_eq!(
        p.boards,
        vec![Board {
            first: 2,
            second: 3
        }]
    );
}

/// Plays a whole tournament with our own pairings and random results, checking every round.
fn play_out(
    n: u32,
    rounds: usize,
    seed: u64,
    absent_rate: u64,
    forbid: bool,
) -> Result<(), TestCaseError> {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut players = field(n);
    let forbidden = if forbid && n >= 4 {
        vec![(1, 2), (3, 4)]
    } else {
        Vec::new()
    };
    let mut met: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut had_bye: BTreeSet<u32> = BTreeSet::new();
    for _ in 0..rounds {
        let mut away: Vec<(u32, ResultCode)> = Vec::new();
        for p in 1..=n {
            if next() % 100 < absent_rate {
                let code = [
                    ResultCode::HalfPointBye,
                    ResultCode::ZeroPointBye,
                    ResultCode::FullPointBye,
                ][(next() % 3) as usize];
                away.push((p, code));
            }
        }
        let options = Options {
            forbidden: forbidden.clone(),
            not_paired: away.iter().map(|a| a.0).collect(),
            ..Options::default()
        };
        let t = tournament(&players);
        let pairing = match dutch::pair(&t, &options) {
            Ok(p) => p,
            Err(PairingError::NoValidPairing) => return Ok(()),
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        // Nobody paired twice, every present player paired or given the bye.
        let mut seen = BTreeSet::new();
        for b in &pairing.boards {
            prop_assert!(
                seen.insert(b.first) && seen.insert(b.second),
                "paired twice"
            );
            let key = (b.first.min(b.second), b.first.max(b.second));
            prop_assert!(!met.contains(&key), "repeated pairing {key:?}");
            prop_assert!(!forbidden.contains(&key), "forbidden pair {key:?}");
        }
        if let Some(bye) = pairing.bye {
            prop_assert!(seen.insert(bye), "bye recipient also paired");
            prop_assert!(
                had_bye.insert(bye),
                "second pairing-allocated bye for {bye}"
            );
        }
        let present = n as usize - away.len();
        prop_assert_eq!(seen.len(), present);
        prop_assert!(pairing.bye.is_some() == (present % 2 == 1));
        let mut result = |_: u32, _: u32| match next() % 10 {
            0..=3 => ResultCode::Win,
            4..=6 => ResultCode::Draw,
            7..=8 => ResultCode::Loss,
            _ => ResultCode::ForfeitWin,
        };
        record(&mut players, &pairing, &away, &mut result);
        for p in &players {
            if let Some(e) = p.rounds.last()
                && e.result.is_game()
                && let Some(o) = e.opponent
            {
                met.insert((p.start_number.min(o), p.start_number.max(o)));
            }
            if let Some(e) = p.rounds.last()
                && matches!(e.result, ResultCode::FullPointBye | ResultCode::ForfeitWin)
            {
                had_bye.insert(p.start_number);
            }
        }
        // Absolute colour criteria (no topscorers without a declared last round): colour
        // difference within ±2, never three games in a row with the same colour.
        for p in &players {
            let colours: Vec<Mover> = p
                .rounds
                .iter()
                .filter(|e| e.result.is_game())
                .filter_map(|e| e.colour)
                .collect();
            let diff: i32 = colours
                .iter()
                .map(|c| if *c == Mover::First { 1 } else { -1 })
                .sum();
            prop_assert!(
                diff.abs() <= 2,
                "player {} colour difference {diff}",
                p.start_number
            );
            prop_assert!(
                !colours.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]),
                "player {} has three same colours in a row",
                p.start_number
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn r_ind_3_played_out_tournaments_keep_the_absolute_criteria(
        n in 2u32..=22,
        rounds in 1usize..=8,
        seed in any::<u64>(),
        absent_rate in 0u64..=15,
        forbid in any::<bool>(),
    ) {
        play_out(n, rounds, seed, absent_rate, forbid)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// The command line never panics, whatever a (mutated) tournament file says: every outcome
    /// is an exit code.
    #[test]
    fn cli_never_panics_on_mutated_files(
        edits in proptest::collection::vec((0usize..4000, prop_oneof![
            Just(' '), Just('0'), Just('1'), Just('9'), Just('='), Just('+'), Just('-'),
            Just('w'), Just('b'), Just('U'), Just('H'), Just('Z'), Just('F'), Just('\n'),
        ]), 1..6),
        round in 1usize..8,
    ) {
        let mut text: Vec<char> = BBP_31.chars().collect();
        for (at, c) in edits {
            if !text.is_empty() {
                let i = at % text.len();
                text[i] = c;
            }
        }
        let text: String = text.into_iter().collect();
        for mode in ["-p", "-c"] {
            let out = cli::run(
                &["--dutch".into(), "in.trf".into(), mode.into()],
                &|_| Ok(text.clone()),
            );
            prop_assert!([cli::OK, cli::NO_VALID_PAIRING, cli::BAD_INPUT].contains(&out.code));
        }
        if let Ok(file) = trf::parse(&text) {
            let _ = dutch::trf_round_at(&file, round as u32)
                .and_then(|t| dutch::pair(&t.tournament, &t.options));
        }
    }
}
