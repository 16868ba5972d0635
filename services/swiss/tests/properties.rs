//! Property tests: TRF write→read round-trips for generated files and tournaments; parsing never
//! panics; rankings do not depend on input order; Buchholz ≥ Buchholz Cut-1 ≥ 0.

use std::collections::BTreeMap;

use proptest::prelude::*;
use qiwang_swiss::colour::Mover;
use qiwang_swiss::points::{HalfPoints, PointSystem, ResultCode};
use qiwang_swiss::tiebreak::{self, Ranking, TieBreak, UnplayedRounds, rank};
use qiwang_swiss::tournament::Tournament;
use qiwang_swiss::trf::{
    self, Acceleration, BbKind, ByeKind, ByeRecord, LineEnding, Player, ProhibitedPairings, Record,
    RoundEntry, ScoreSymbol, Sex, Trf, XxcToken,
};

fn half_points() -> impl Strategy<Value = HalfPoints> {
    (0u32..=199).prop_map(HalfPoints)
}

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z0-9,.'() -]{0,33}".prop_map(|s| s.trim().to_string())
}

fn player(start_number: u32, n: u32, rounds: usize) -> impl Strategy<Value = Player> {
    let entry = (
        0..=n,
        proptest::option::of(prop_oneof![Just(Mover::First), Just(Mover::Second)]),
        0usize..13,
    )
        .prop_map(move |(o, colour, code)| {
            let opponent = if o == 0 || o == start_number {
                None
            } else {
                Some(o)
            };
            let result = ResultCode::ALL[code];
            // Keep codes coherent with the opponent (as the reader requires).
            let result = match (opponent, result.is_game(), result.is_bye()) {
                (None, true, _) => ResultCode::ZeroPointBye,
                (Some(_), _, true) if result != ResultCode::Blank => ResultCode::Draw,
                _ => result,
            };
            RoundEntry {
                opponent,
                colour,
                result,
            }
        });
    (
        proptest::option::of(prop_oneof![Just(Sex::Male), Just(Sex::Female)]),
        "[A-Z]{0,3}",
        name(),
        proptest::option::of(0u16..=9999),
        "[A-Z]{0,3}",
        proptest::option::of(0u64..=99_999_999_999),
        "[0-9/]{0,10}",
        proptest::option::of(half_points()),
        proptest::option::of(1u32..=9999),
        proptest::collection::vec(entry, 0..=rounds),
    )
        .prop_map(
            move |(
                sex,
                title,
                name,
                rating,
                federation,
                fide_id,
                birth_date,
                points,
                rank,
                rounds,
            )| Player {
                start_number,
                sex,
                title,
                name,
                rating,
                federation,
                fide_id,
                birth_date,
                points,
                rank,
                rounds,
            },
        )
}

fn other_record(n: u32) -> impl Strategy<Value = Record> {
    let id = 1..=n.max(1);
    prop_oneof![
        Just(Record::Blank),
        "[ -~]{0,30}".prop_map(Record::Comment),
        (
            prop_oneof![Just("012"), Just("022"), Just("102"), Just("132")],
            "[ -~]{0,40}"
        )
            .prop_map(|(tag, value)| Record::Tournament {
                tag: tag.to_string(),
                value
            }),
        (1u32..=99).prop_map(Record::NumberOfRounds),
        prop_oneof![Just(Mover::First), Just(Mover::Second)].prop_map(Record::InitialColour),
        proptest::collection::vec(
            (
                prop_oneof![
                    Just(ScoreSymbol::W),
                    Just(ScoreSymbol::D),
                    Just(ScoreSymbol::P),
                    Just(ScoreSymbol::X)
                ],
                half_points()
            ),
            1..5
        )
        .prop_map(Record::Scoring),
        (
            prop_oneof![
                Just(ByeKind::Full),
                Just(ByeKind::Half),
                Just(ByeKind::Zero)
            ],
            1u32..=999,
            proptest::collection::vec(id.clone(), 1..4)
        )
            .prop_map(|(kind, round, players)| Record::Bye(ByeRecord {
                kind,
                round,
                players
            })),
        (
            proptest::option::of(half_points()),
            half_points(),
            1u32..=999,
            1u32..=999,
            id.clone(),
            id.clone()
        )
            .prop_map(
                |(
                    match_points,
                    game_points,
                    first_round,
                    last_round,
                    first_player,
                    last_player,
                )| {
                    Record::Acceleration(Acceleration {
                        match_points,
                        game_points,
                        first_round,
                        last_round,
                        first_player,
                        last_player,
                    })
                }
            ),
        (
            1u32..=999,
            1u32..=999,
            proptest::collection::vec(id.clone(), 2..5)
        )
            .prop_map(
                |(first_round, last_round, players)| Record::ProhibitedPairings(
                    ProhibitedPairings {
                        first_round,
                        last_round,
                        players
                    }
                )
            ),
        (1u32..=99).prop_map(Record::ExtRounds),
        proptest::collection::vec(
            prop_oneof![
                Just(XxcToken::White1),
                Just(XxcToken::Black1),
                Just(XxcToken::Rank)
            ],
            0..3
        )
        .prop_map(Record::ExtConfiguration),
        proptest::collection::vec(id, 2..5).prop_map(Record::ExtForbidden),
        (0usize..6, half_points()).prop_map(|(k, points)| Record::ExtPoints {
            kind: BbKind::ALL[k],
            points
        }),
        "[ -~]{0,30}".prop_map(|s| Record::Other(format!("DAT {s}"))),
    ]
}

fn trf_file() -> impl Strategy<Value = Trf> {
    (1u32..=12, 0usize..=6).prop_flat_map(|(n, rounds)| {
        let players: Vec<_> = (1..=n).map(|sn| player(sn, n, rounds)).collect();
        (
            players,
            proptest::collection::vec(other_record(n), 0..8),
            prop_oneof![
                Just(LineEnding::Lf),
                Just(LineEnding::CrLf),
                Just(LineEnding::Cr)
            ],
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(
                |(players, others, line_ending, final_line_ending, byte_order_mark)| {
                    let mut records: Vec<Record> = others;
                    let at = records.len() / 2;
                    for (i, p) in players.into_iter().enumerate() {
                        records.insert((at + i).min(records.len()), Record::Player(p));
                    }
                    // A trailing blank line is only visible with a final line ending.
                    let final_line_ending =
                        final_line_ending || matches!(records.last(), Some(Record::Blank));
                    // Without any line break the ending cannot be seen; it reads as LF.
                    let line_ending = if records.len() <= 1 && !final_line_ending {
                        LineEnding::Lf
                    } else {
                        line_ending
                    };
                    Trf {
                        records,
                        line_ending,
                        final_line_ending,
                        byte_order_mark,
                    }
                },
            )
    })
}

/// A consistent tournament: each round, players in a shuffled order; some absent or on a
/// requested bye; the rest paired in twos, an odd one out gets the pairing-allocated bye.
fn tournament_players() -> impl Strategy<Value = Vec<Player>> {
    (2u32..=10, 1usize..=6).prop_flat_map(|(n, rounds)| {
        (
            Just(n),
            proptest::collection::vec(proptest::collection::vec(any::<u32>(), n as usize), rounds),
            proptest::collection::vec(proptest::collection::vec(0u8..16, n as usize), rounds),
            proptest::collection::vec(proptest::option::of(1000u16..2800), n as usize),
            proptest::collection::vec(any::<bool>(), n as usize),
        )
            .prop_map(|(n, orders, outcomes, ratings, women)| {
                let mut players: Vec<Player> = (1..=n)
                    .map(|sn| Player {
                        start_number: sn,
                        sex: Some(if women[(sn - 1) as usize] {
                            Sex::Female
                        } else {
                            Sex::Male
                        }),
                        title: String::new(),
                        name: format!("P{sn}"),
                        rating: ratings[(sn - 1) as usize],
                        federation: "CHN".into(),
                        fide_id: None,
                        birth_date: String::new(),
                        points: None,
                        rank: None,
                        rounds: Vec::new(),
                    })
                    .collect();
                for (keys, outs) in orders.iter().zip(&outcomes) {
                    let mut order: Vec<usize> = (0..n as usize).collect();
                    order.sort_by_key(|&i| (keys[i], i));
                    let mut entries = vec![None; n as usize];
                    let mut present = Vec::new();
                    for &i in &order {
                        match outs[i] {
                            0 => {
                                entries[i] = Some(RoundEntry {
                                    opponent: None,
                                    colour: None,
                                    result: ResultCode::ZeroPointBye,
                                })
                            }
                            1 => {
                                entries[i] = Some(RoundEntry {
                                    opponent: None,
                                    colour: None,
                                    result: ResultCode::HalfPointBye,
                                })
                            }
                            _ => present.push(i),
                        }
                    }
                    for pair in present.chunks(2) {
                        match *pair {
                            [a, b] => {
                                let (ra, rb) = match outs[a] % 6 {
                                    0 | 1 => (ResultCode::Win, ResultCode::Loss),
                                    2 => (ResultCode::Loss, ResultCode::Win),
                                    3 => (ResultCode::Draw, ResultCode::Draw),
                                    4 => (ResultCode::ForfeitWin, ResultCode::ForfeitLoss),
                                    _ => (ResultCode::ForfeitLoss, ResultCode::ForfeitLoss),
                                };
                                entries[a] = Some(RoundEntry {
                                    opponent: Some(b as u32 + 1),
                                    colour: Some(Mover::First),
                                    result: ra,
                                });
                                entries[b] = Some(RoundEntry {
                                    opponent: Some(a as u32 + 1),
                                    colour: Some(Mover::Second),
                                    result: rb,
                                });
                            }
                            [a] => {
                                entries[a] = Some(RoundEntry {
                                    opponent: None,
                                    colour: None,
                                    result: ResultCode::PairingAllocatedBye,
                                });
                            }
                            _ => {}
                        }
                    }
                    for (p, e) in players.iter_mut().zip(entries) {
                        p.rounds.push(e.unwrap_or(RoundEntry {
                            opponent: None,
                            colour: None,
                            result: ResultCode::Blank,
                        }));
                    }
                }
                players
            })
    })
}

fn all_tie_breaks() -> Vec<TieBreak> {
    vec![
        TieBreak::BuchholzCut(1),
        TieBreak::Buchholz,
        TieBreak::BuchholzMedian(1),
        TieBreak::Sosos,
        TieBreak::SonnebornBerger,
        TieBreak::DirectEncounter,
        TieBreak::Progressive,
        TieBreak::Wins,
        TieBreak::GamesWon,
        TieBreak::SecondMoverGames,
        TieBreak::SecondMoverWins,
        TieBreak::Aro,
        TieBreak::Tpr,
        TieBreak::Fouls,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn trf_write_then_read_round_trips(file in trf_file()) {
        let written = trf::write(&file);
        prop_assert!(written.is_ok(), "{:?}", written);
        let text = written.unwrap_or_default();
        let read = trf::parse(&text);
        prop_assert_eq!(read.as_ref(), Ok(&file), "{}", text);
        // Canonical: writing again gives the same bytes.
        let again = read.ok().and_then(|t| trf::write(&t).ok());
        prop_assert_eq!(again, Some(text));
    }

    #[test]
    fn trf_parse_never_panics(text in "(001|XXR|XXC|XXP|BBW|142|152|162|240|250|260|012|###)?[ -~\u{4e00}\n\r]{0,200}") {
        let _ = trf::parse(&text);
    }

    #[test]
    fn trf_generated_tournaments_round_trip(players in tournament_players()) {
        let file = Trf {
            records: players.into_iter().map(Record::Player).collect(),
            final_line_ending: true,
            ..Trf::default()
        };
        let text = trf::write(&file).unwrap_or_default();
        prop_assert_eq!(trf::parse(&text), Ok(file));
    }

    #[test]
    fn c07_ranking_is_independent_of_input_order(players in tournament_players(), rotate in 0usize..10) {
        let order = Ranking { order: all_tie_breaks(), unplayed: UnplayedRounds::FideC07 };
        let fouls: BTreeMap<u32, u32> = players.iter().map(|p| (p.start_number, p.start_number % 3)).collect();
        let forward: Vec<&Player> = players.iter().collect();
        let mut shuffled: Vec<&Player> = players.iter().rev().collect();
        let k = rotate % shuffled.len().max(1);
        shuffled.rotate_left(k);
        let a = Tournament::from_players(&forward, PointSystem::FIDE);
        let b = Tournament::from_players(&shuffled, PointSystem::FIDE);
        prop_assert!(a.is_ok(), "{:?}", a);
        if let (Ok(a), Ok(b)) = (a, b) {
            for unplayed in [UnplayedRounds::FideC07, UnplayedRounds::OpponentsOnly] {
                let ranking = Ranking { unplayed, ..order.clone() };
                prop_assert_eq!(rank(&a, &ranking, &fouls), rank(&b, &ranking, &fouls));
            }
            // Places are shared exactly by equal rows, and never skip ahead.
            let s = rank(&a, &order, &fouls);
            for (i, row) in s.rows.iter().enumerate() {
                prop_assert!(row.place as usize <= i + 1);
                if i > 0 && row.place as usize != i + 1 {
                    prop_assert_eq!(row.place, s.rows[i - 1].place);
                }
            }
            let women = s.women(&a);
            for (i, row) in women.rows.iter().enumerate() {
                prop_assert!(row.place as usize <= i + 1);
            }
        }
    }

    #[test]
    fn c07_buchholz_at_least_cut_1_at_least_zero(players in tournament_players()) {
        let refs: Vec<&Player> = players.iter().collect();
        let t = Tournament::from_players(&refs, PointSystem::FIDE);
        prop_assert!(t.is_ok(), "{:?}", t);
        if let Ok(t) = t {
            let none = BTreeMap::new();
            for unplayed in [UnplayedRounds::FideC07, UnplayedRounds::OpponentsOnly] {
                for p in 1..=players.len() as u32 {
                    let v = |tb| tiebreak::value(&t, unplayed, tb, p, &none).unwrap_or(-1);
                    let (bh, cut1, median1) = (v(TieBreak::Buchholz), v(TieBreak::BuchholzCut(1)), v(TieBreak::BuchholzMedian(1)));
                    prop_assert!(bh >= cut1 && cut1 >= median1 && median1 >= 0, "{} {} {} {}", p, bh, cut1, median1);
                }
            }
        }
    }
}
