//! TRF reading and writing: the realistic samples in `data/` (a 7-player, 5-round chess final
//! with a pairing-allocated bye, a half-point bye, a forfeit and a withdrawal), byte-exact
//! round-trips, and malformed input reported by line and column.

use qiwang_swiss::colour::Mover;
use qiwang_swiss::points::{HalfPoints, PointSystem, ResultCode};
use qiwang_swiss::trf::{
    self, Acceleration, BbKind, ByeKind, ByeRecord, LineEnding, ParseError, ParseErrorKind, Player,
    ProhibitedPairings, Record, RoundEntry, ScoreSymbol, Sex, Trf, TrfVersion, WriteError,
    XxcToken,
};

const SAMPLE_2026: &str = include_str!("data/final-2026.trf");
const SAMPLE_16: &str = include_str!("data/final-16.trf");

fn parse(text: &str) -> Trf {
    match trf::parse(text) {
        Ok(t) => t,
        Err(e) => panic!("sample does not parse: {e}"),
    }
}

fn error_at(text: &str) -> ParseError {
    match trf::parse(text) {
        Ok(t) => panic!("expected an error, got {t:?}"),
        Err(e) => e,
    }
}

/// A canonical 001 line of the sample (player 1) with a replacement at a 1-based column.
fn player_line_with(column: usize, replacement: &str) -> String {
    let line = SAMPLE_2026
        .lines()
        .find(|l| l.starts_with("001    1"))
        .unwrap_or_default();
    let mut chars: Vec<char> = line.chars().collect();
    for (i, c) in replacement.chars().enumerate() {
        let at = column - 1 + i;
        if at < chars.len() {
            chars[at] = c;
        } else {
            chars.resize(at, ' ');
            chars.push(c);
        }
    }
    chars.into_iter().collect()
}

/// The sample's other player lines, so opponents exist; `first` replaces player 1's line.
fn file_with_player_1(first: &str) -> String {
    let mut lines = vec![first.to_string()];
    lines.extend(
        SAMPLE_2026
            .lines()
            .filter(|l| l.starts_with("001") && !l.starts_with("001    1"))
            .map(String::from),
    );
    lines.join("\n") + "\n"
}

#[test]
fn trf_2026_sample_reads_into_the_model() {
    let t = parse(SAMPLE_2026);
    assert_eq!(t.version(), TrfVersion::Trf2026);
    assert_eq!(t.line_ending, LineEnding::Lf);
    assert!(t.final_line_ending);
    assert_eq!(t.players().count(), 7);
    assert_eq!(t.declared_rounds(), Some(5));
    assert_eq!(t.recorded_rounds(), 5);
    assert_eq!(t.initial_colour(), Some(Mover::First));
    assert_eq!(t.point_system(), PointSystem::FIDE);
    assert_eq!(t.requested_byes(3), vec![(3, ByeKind::Half)]);
    assert_eq!(t.forbidden_pairs(2), vec![(3, 7)]);
    assert_eq!(t.forbidden_pairs(6), vec![]);
    assert!(
        matches!(&t.records[0], Record::Comment(c) if c == " qiwang sample: chess final, TRF-2026")
    );
    assert!(t.records.contains(&Record::Tournament {
        tag: "022".into(),
        value: "Beijing".into()
    }));
    assert!(t.records.contains(&Record::Scoring(vec![
        (ScoreSymbol::W, HalfPoints(2)),
        (ScoreSymbol::D, HalfPoints(1)),
        (ScoreSymbol::L, HalfPoints(0)),
        (ScoreSymbol::A, HalfPoints(0)),
        (ScoreSymbol::P, HalfPoints(2)),
    ])));
    assert!(t.records.contains(&Record::Acceleration(Acceleration {
        match_points: Some(HalfPoints(0)),
        game_points: HalfPoints(2),
        first_round: 1,
        last_round: 2,
        first_player: 1,
        last_player: 3,
    })));
    assert!(
        t.records
            .contains(&Record::ProhibitedPairings(ProhibitedPairings {
                first_round: 1,
                last_round: 5,
                players: vec![3, 7],
            }))
    );

    let withdrawn = t.player(7).cloned();
    assert_eq!(
        withdrawn,
        Some(Player {
            start_number: 7,
            sex: Some(Sex::Male),
            title: "CM".into(),
            name: "Sun, Li".into(),
            rating: Some(2000),
            federation: "HKG".into(),
            fide_id: Some(8_607_890),
            birth_date: "1975".into(),
            points: Some(HalfPoints(5)),
            rank: Some(3),
            rounds: vec![
                RoundEntry {
                    opponent: None,
                    colour: None,
                    result: ResultCode::PairingAllocatedBye
                },
                RoundEntry {
                    opponent: Some(5),
                    colour: Some(Mover::First),
                    result: ResultCode::Win
                },
                RoundEntry {
                    opponent: Some(1),
                    colour: Some(Mover::Second),
                    result: ResultCode::Draw
                },
                RoundEntry {
                    opponent: None,
                    colour: None,
                    result: ResultCode::ZeroPointBye
                },
                RoundEntry {
                    opponent: None,
                    colour: None,
                    result: ResultCode::ZeroPointBye
                },
            ],
        })
    );
    let forfeiter = t.player(6).map(|p| (p.title.clone(), p.sex, p.rounds[1]));
    assert_eq!(
        forfeiter,
        Some((
            String::new(),
            Some(Sex::Female),
            RoundEntry {
                opponent: Some(2),
                colour: Some(Mover::Second),
                result: ResultCode::ForfeitLoss
            }
        ))
    );
}

#[test]
fn trf_16_sample_reads_extensions() {
    let t = parse(SAMPLE_16);
    assert_eq!(t.version(), TrfVersion::Trf16);
    assert_eq!(t.line_ending, LineEnding::CrLf);
    assert_eq!(t.declared_rounds(), Some(5));
    assert_eq!(t.initial_colour(), Some(Mover::First));
    assert!(
        t.records
            .contains(&Record::ExtConfiguration(vec![XxcToken::White1]))
    );
    assert!(t.records.contains(&Record::ExtForbidden(vec![3, 7])));
    assert!(t.records.contains(&Record::ExtPoints {
        kind: BbKind::PairingAllocatedBye,
        points: HalfPoints(2)
    }));
    assert_eq!(t.point_system(), PointSystem::FIDE);
    assert_eq!(t.forbidden_pairs(1), vec![(3, 7)]);
    // Same players as the TRF-2026 sample.
    let t26 = parse(SAMPLE_2026);
    assert_eq!(
        t.players().collect::<Vec<_>>(),
        t26.players().collect::<Vec<_>>()
    );
}

#[test]
fn trf_samples_write_back_byte_for_byte() {
    for sample in [SAMPLE_2026, SAMPLE_16] {
        let t = parse(sample);
        assert_eq!(trf::write(&t).as_deref(), Ok(sample));
    }
}

#[test]
fn trf_bb_records_set_the_point_system() {
    let t = parse("BBW  3.0\nBBD  1.0\nBBU  1.5\nBBF  0.5\n");
    let ps = t.point_system();
    assert_eq!(ps.win, HalfPoints(6));
    assert_eq!(ps.forfeit_win, HalfPoints(6));
    assert_eq!(ps.full_point_bye, HalfPoints(6));
    assert_eq!(ps.draw, HalfPoints(2));
    assert_eq!(ps.half_point_bye, HalfPoints(2));
    assert_eq!(ps.pairing_allocated_bye, HalfPoints(3));
    assert_eq!(ps.forfeit_loss, HalfPoints(1));
    // TRF-2026 162: P defaults to W.
    let t = parse("162  W 2.0    D 1.0\n");
    assert_eq!(t.point_system().pairing_allocated_bye, HalfPoints(4));
}

#[test]
fn trf_non_canonical_input_is_read_and_written_canonically() {
    // Blank opponent and colour, lower-case letters, an unknown record kept verbatim, CR endings.
    let text = format!(
        "{:<91}0000 w h     2 b l\r{:<91}   1 w w\rXXA    1  1.0\r",
        "001    1      A", "001    2      B"
    );
    let text = text.as_str();
    let t = parse(text);
    assert_eq!(t.line_ending, LineEnding::Cr);
    let p1 = t.player(1).map(|p| p.rounds.clone()).unwrap_or_default();
    assert_eq!(
        p1[0],
        RoundEntry {
            opponent: None,
            colour: Some(Mover::First),
            result: ResultCode::HalfPointBye
        }
    );
    assert_eq!(p1[1].result, ResultCode::UnratedLoss);
    assert!(matches!(&t.records[2], Record::Other(line) if line == "XXA    1  1.0"));
    let written = trf::write(&t).unwrap_or_default();
    assert!(written.contains("0000 w H     2 b L\r"));
    assert_eq!(trf::parse(&written), Ok(t));
}

#[test]
fn trf_empty_input_is_an_empty_file() {
    assert_eq!(trf::parse(""), Ok(Trf::default()));
    assert_eq!(trf::write(&Trf::default()).as_deref(), Ok(""));
}

#[test]
fn trf_malformed_rating_reports_line_and_column() {
    let e = error_at(&file_with_player_1(&player_line_with(49, "27x0")));
    assert_eq!((e.line, e.column), (1, 49));
    assert_eq!(
        e.kind,
        ParseErrorKind::BadField {
            field: "rating",
            text: "27x0".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "line 1, column 49: rating \"27x0\" is not valid"
    );
}

#[test]
fn trf_malformed_result_reports_its_column() {
    // Round 2 result is at column 92 + 10 + 7 = 109.
    let e = error_at(&file_with_player_1(&player_line_with(109, "?")));
    assert_eq!((e.line, e.column), (1, 109));
    assert_eq!(
        e.kind,
        ParseErrorKind::BadField {
            field: "result",
            text: "?".into()
        }
    );
}

#[test]
fn trf_malformed_colour_and_separator_report_their_columns() {
    let e = error_at(&file_with_player_1(&player_line_with(117, "x")));
    assert_eq!(
        (e.column, e.kind.clone()),
        (
            117,
            ParseErrorKind::BadField {
                field: "colour",
                text: "x".into()
            }
        )
    );
    let e = error_at(&file_with_player_1(&player_line_with(96, "*")));
    assert_eq!(
        (e.line, e.column, e.kind),
        (1, 96, ParseErrorKind::NotBlank('*'))
    );
}

#[test]
fn trf_malformed_points_and_start_number_report_their_columns() {
    let e = error_at(&file_with_player_1(&player_line_with(81, " 2.3")));
    assert_eq!(
        (e.column, e.kind),
        (
            82,
            ParseErrorKind::BadField {
                field: "points",
                text: "2.3".into()
            }
        )
    );
    let e = error_at(&file_with_player_1(&player_line_with(5, "   0")));
    assert_eq!(
        (e.column, e.kind),
        (
            8,
            ParseErrorKind::BadField {
                field: "starting rank",
                text: "0".into()
            }
        )
    );
    let e = error_at(&file_with_player_1(&player_line_with(5, "    ")));
    assert_eq!(
        (e.column, e.kind),
        (
            5,
            ParseErrorKind::MissingField {
                field: "starting rank"
            }
        )
    );
    let e = error_at(&file_with_player_1(&player_line_with(10, "x")));
    assert_eq!(
        (e.column, e.kind),
        (
            10,
            ParseErrorKind::BadField {
                field: "sex",
                text: "x".into()
            }
        )
    );
}

#[test]
fn trf_unknown_and_self_opponents_report_the_opponent_field() {
    let e = error_at(&file_with_player_1(&player_line_with(112, "   9")));
    assert_eq!(
        (e.line, e.column, e.kind),
        (1, 112, ParseErrorKind::UnknownOpponent(9))
    );
    let e = error_at(&file_with_player_1(&player_line_with(92, "   1")));
    assert_eq!(
        (e.line, e.column, e.kind),
        (1, 92, ParseErrorKind::SelfOpponent)
    );
}

#[test]
fn trf_duplicate_start_number_reports_the_second_record() {
    let line = player_line_with(1, "001");
    let text = format!("012 X\n{line}\n{}", file_with_player_1(&line));
    let e = error_at(&text);
    assert_eq!(
        (e.line, e.column, e.kind),
        (3, 5, ParseErrorKind::DuplicateStartNumber(1))
    );
}

#[test]
fn trf_results_must_match_the_presence_of_an_opponent() {
    let e = error_at(&file_with_player_1(&player_line_with(92, "0000 w 1")));
    assert_eq!(
        (e.column, e.kind),
        (99, ParseErrorKind::GameWithoutOpponent('1'))
    );
    let e = error_at(&file_with_player_1(&player_line_with(99, "U")));
    assert_eq!(
        (e.column, e.kind),
        (99, ParseErrorKind::ByeWithOpponent('U'))
    );
}

#[test]
fn trf_malformed_extension_records_report_line_and_column() {
    let cases: [(&str, usize, usize, ParseErrorKind); 10] = [
        (
            "012 X\nXXR five\n",
            2,
            5,
            ParseErrorKind::BadField {
                field: "number of rounds",
                text: "five".into(),
            },
        ),
        ("XXR 9 10\n", 1, 7, ParseErrorKind::NotBlank('1')),
        (
            "XXC white2\n",
            1,
            5,
            ParseErrorKind::BadField {
                field: "XXC option",
                text: "white2".into(),
            },
        ),
        (
            "XXP 3\n",
            1,
            6,
            ParseErrorKind::MissingField { field: "player" },
        ),
        (
            "BBW 1.25\n",
            1,
            5,
            ParseErrorKind::BadField {
                field: "points",
                text: "1.25".into(),
            },
        ),
        (
            "142 x\n",
            1,
            5,
            ParseErrorKind::BadField {
                field: "number of rounds",
                text: "x".into(),
            },
        ),
        (
            "152 R\n",
            1,
            5,
            ParseErrorKind::BadField {
                field: "initial colour",
                text: "R".into(),
            },
        ),
        (
            "162  Q 1.0\n",
            1,
            6,
            ParseErrorKind::BadField {
                field: "scoring code",
                text: "Q".into(),
            },
        ),
        (
            "240 H 003\n",
            1,
            11,
            ParseErrorKind::MissingField { field: "player" },
        ),
        (
            "260 001 00x    3    7\n",
            1,
            9,
            ParseErrorKind::BadField {
                field: "last round",
                text: "00x".into(),
            },
        ),
    ];
    for (text, line, column, kind) in cases {
        let e = error_at(text);
        assert_eq!((e.line, e.column, e.kind), (line, column, kind), "{text:?}");
    }
}

#[test]
fn trf_error_lines_count_crlf_and_comment_lines() {
    let text = "### c\r\n012 X\r\n\r\n240 Q 001    1\r\n";
    let e = error_at(text);
    assert_eq!((e.line, e.column), (4, 5));
}

#[test]
fn trf_writer_refuses_values_that_do_not_fit() {
    let mut t = parse(SAMPLE_2026);
    if let Some(Record::Player(p)) = t
        .records
        .iter_mut()
        .find(|r| matches!(r, Record::Player(_)))
    {
        p.name = "N".repeat(34);
    }
    assert!(matches!(
        trf::write(&t),
        Err(WriteError::TooWide {
            field: "name",
            width: 33,
            ..
        })
    ));
    let t = Trf {
        records: vec![Record::Bye(ByeRecord {
            kind: ByeKind::Full,
            round: 1000,
            players: vec![1],
        })],
        ..Trf::default()
    };
    assert!(matches!(
        trf::write(&t),
        Err(WriteError::OutOfRange {
            field: "round",
            value: 1000,
            ..
        })
    ));
    let t = Trf {
        records: vec![Record::Comment("a\nb".into())],
        ..Trf::default()
    };
    assert!(matches!(trf::write(&t), Err(WriteError::LineBreak { .. })));
}
