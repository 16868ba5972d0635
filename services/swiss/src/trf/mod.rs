//! FIDE Tournament Report Files: TRF-16 and TRF-2026 (FIDE Handbook C.04 Annex 2), with the
//! extensions pairing programs exchange (JaVaFo/bbpPairings `XXR`, `XXC`, `XXP`, `BBW`, `BBD`,
//! `BBL`, `BBZ`, `BBF`, `BBU`).
//!
//! [`parse`] reads a file into a [`Trf`]: a list of [`Record`]s in file order, so nothing is lost
//! and [`write`] gives the same bytes back for a file in the canonical layout (below). Records
//! this crate does not interpret (team sections, NRS records, `XXA`, `DAT`, …) are kept verbatim
//! as [`Record::Other`].
//!
//! ## The player record (`001`), columns counted from 1, in characters
//!
//! | columns | field |
//! |---|---|
//! | 1-3 | `001` |
//! | 5-8 | starting rank (1-9999) |
//! | 10 | sex: `m`, `w` (`f` is read as `w`) |
//! | 11-13 | title (`GM`, `IM`, `WGM`, …; right-aligned) |
//! | 15-47 | name (`Lastname, Firstname`) |
//! | 49-52 | FIDE rating |
//! | 54-56 | federation |
//! | 58-68 | FIDE id |
//! | 70-79 | birth date (`YYYY/MM/DD`, kept as text) |
//! | 81-84 | points (`11.5`) |
//! | 86-89 | rank (ties allowed) |
//! | 92-95, 97, 99 | round 1: opponent (`0000` or blank: none), colour (`w`/`b`/`-`/blank), result |
//! | +10 per round | the next rounds |
//!
//! ## Canonical layout (what [`write`] produces)
//!
//! Numbers right-aligned with spaces in their columns, texts left-aligned, titles right-aligned,
//! no opponent written `0000`, no colour `-`, result letters in upper case, trailing spaces of
//! `001` lines dropped; `XXR 9`, `XXC white1`, `XXP 3 7`, `BBW  1.0` (value in columns 5-8),
//! `142 9`, `152 W`, `162` as the positional list of TRF-2026 (code at 6, 15, 24, …, value in the
//! four columns after it), `240 H 003   26   47` and `260 001 002  125  180` (rounds zero-padded
//! to three digits, ids right-aligned in four columns after a space), `250` zero-padded as in
//! the TRF-2026 example. Line endings (LF, CRLF or CR), a byte-order mark and a final line break
//! are kept as read.
//!
//! ## TRF-16 and TRF-2026
//!
//! Both share the `001` layout and result codes; TRF-2026 adds comment lines (`###`), the
//! tournament records `142` (rounds), `152` (initial colour), `162` (scoring), `172`-`222`, and
//! the sections `240` (byes), `250` (acceleration), `260` (prohibited pairings), `299`, `300`,
//! `310`, `320`, `330`, `8xx`. [`Trf::version`] tells which a file needs.

mod read;
mod write;

pub use read::parse;
pub use write::write;

use crate::colour::Mover;
use crate::points::{HalfPoints, PointSystem, ResultCode};

/// A whole TRF file: its records in order, and how its lines were ended.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trf {
    /// The records, one per line, in file order.
    pub records: Vec<Record>,
    /// The line terminator used throughout.
    pub line_ending: LineEnding,
    /// Whether the last line was terminated.
    pub final_line_ending: bool,
    /// Whether the file began with a UTF-8 byte-order mark.
    pub byte_order_mark: bool,
}

/// How lines are terminated. FIDE asks for CR; files in the wild use LF or CRLF.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineEnding {
    #[default]
    Lf,
    CrLf,
    Cr,
}

impl LineEnding {
    /// The terminator's text.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
            LineEnding::Cr => "\r",
        }
    }
}

/// Which version of the format a file needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TrfVersion {
    /// Only records TRF-16 knows (plus the `XX?`/`BB?` extensions).
    Trf16,
    /// At least one record introduced by TRF-2026.
    Trf2026,
}

/// One line of a TRF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// An empty (or all-blank) line.
    Blank,
    /// A TRF-2026 comment line: the text after `###`.
    Comment(String),
    /// A tournament record `??2` not interpreted further (`012` name, `022` city, `032`
    /// federation, `042`/`052` dates, `062` players, `072` rated players, `082` teams, `092` type,
    /// `102` chief arbiter, `112` deputies, `122` time control, `132` round dates, `172`-`222`,
    /// `352`, `362`, …): its tag and the text from column 5 on, verbatim.
    Tournament { tag: String, value: String },
    /// A player record `001`.
    Player(Player),
    /// `142` (TRF-2026): number of rounds.
    NumberOfRounds(u32),
    /// `152` (TRF-2026): the colour of the first player in round 1 (`W`: first mover).
    InitialColour(Mover),
    /// `162` (TRF-2026): the scoring point system, as (code, points) pairs in file order.
    Scoring(Vec<(ScoreSymbol, HalfPoints)>),
    /// `240` (TRF-2026): requested or granted byes of one round.
    Bye(ByeRecord),
    /// `250` (TRF-2026): accelerated rounds (fictitious points).
    Acceleration(Acceleration),
    /// `260` (TRF-2026): players who may not meet between two rounds.
    ProhibitedPairings(ProhibitedPairings),
    /// `XXR` (JaVaFo/bbpPairings): total number of rounds.
    ExtRounds(u32),
    /// `XXC` (JaVaFo/bbpPairings): configuration tokens.
    ExtConfiguration(Vec<XxcToken>),
    /// `XXP` (JaVaFo): players any two of whom may not be paired.
    ExtForbidden(Vec<u32>),
    /// `BBW`/`BBD`/`BBL`/`BBZ`/`BBF`/`BBU` (bbpPairings): points for one kind of outcome.
    ExtPoints { kind: BbKind, points: HalfPoints },
    /// Any other line (team sections, NRS, `XXA`, `DAT`, …), verbatim.
    Other(String),
}

/// A player record (`001`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    /// Starting rank, 1-9999 (columns 5-8).
    pub start_number: u32,
    /// Sex (column 10); `None` when blank.
    pub sex: Option<Sex>,
    /// Title (columns 11-13), trimmed; empty when none.
    pub title: String,
    /// Name (columns 15-47), trimmed.
    pub name: String,
    /// FIDE rating (columns 49-52); `None` when blank.
    pub rating: Option<u16>,
    /// Federation (columns 54-56), trimmed.
    pub federation: String,
    /// FIDE id (columns 58-68); `None` when blank.
    pub fide_id: Option<u64>,
    /// Birth date (columns 70-79) as written (`YYYY/MM/DD`, or a year), trimmed.
    pub birth_date: String,
    /// Points (columns 81-84); `None` when blank.
    pub points: Option<HalfPoints>,
    /// Rank (columns 86-89); `None` when blank.
    pub rank: Option<u32>,
    /// One entry per round, from round 1.
    pub rounds: Vec<RoundEntry>,
}

/// Sex as TRF writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sex {
    /// `m`
    Male,
    /// `w` (TRF-2026; some programs write `f`, read as this)
    Female,
}

/// One round of a player record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundEntry {
    /// The scheduled opponent's starting rank; `None` for `0000` (bye, absent, not paired).
    pub opponent: Option<u32>,
    /// The scheduled colour; `None` for `-` (or blank).
    pub colour: Option<Mover>,
    /// The result code.
    pub result: ResultCode,
}

/// A result code of the TRF-2026 `162` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScoreSymbol {
    /// `W`: win over the board or by forfeit, full-point bye.
    W,
    /// `D`: draw over the board, half-point bye.
    D,
    /// `L`: loss over the board.
    L,
    /// `A`: absence (zero-point bye, forfeit loss).
    A,
    /// `P`: pairing-allocated bye.
    P,
    /// `X`: unknown result (e.g. adjourned).
    X,
}

impl ScoreSymbol {
    /// Reads the symbol (either case).
    pub fn from_char(c: char) -> Option<ScoreSymbol> {
        Some(match c.to_ascii_uppercase() {
            'W' => ScoreSymbol::W,
            'D' => ScoreSymbol::D,
            'L' => ScoreSymbol::L,
            'A' => ScoreSymbol::A,
            'P' => ScoreSymbol::P,
            'X' => ScoreSymbol::X,
            _ => return None,
        })
    }

    /// The symbol's letter.
    pub fn to_char(self) -> char {
        match self {
            ScoreSymbol::W => 'W',
            ScoreSymbol::D => 'D',
            ScoreSymbol::L => 'L',
            ScoreSymbol::A => 'A',
            ScoreSymbol::P => 'P',
            ScoreSymbol::X => 'X',
        }
    }
}

/// The kind of a `240` bye.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ByeKind {
    /// `F`: full-point bye.
    Full,
    /// `H`: half-point bye.
    Half,
    /// `Z`: zero-point bye.
    Zero,
}

impl ByeKind {
    /// The record's letter.
    pub fn to_char(self) -> char {
        match self {
            ByeKind::Full => 'F',
            ByeKind::Half => 'H',
            ByeKind::Zero => 'Z',
        }
    }

    /// Reads the letter (either case).
    pub fn from_char(c: char) -> Option<ByeKind> {
        Some(match c.to_ascii_uppercase() {
            'F' => ByeKind::Full,
            'H' => ByeKind::Half,
            'Z' => ByeKind::Zero,
            _ => return None,
        })
    }
}

/// A `240` record: byes of one round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByeRecord {
    pub kind: ByeKind,
    pub round: u32,
    /// Starting ranks of the players getting the bye (at least one).
    pub players: Vec<u32>,
}

/// A `250` record: fictitious points for a range of players in a range of rounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acceleration {
    /// Match points (team competitions only); `None` when blank.
    pub match_points: Option<HalfPoints>,
    /// Game points (individual competitions: the fictitious points).
    pub game_points: HalfPoints,
    pub first_round: u32,
    pub last_round: u32,
    pub first_player: u32,
    pub last_player: u32,
}

/// A `260` record: any two of `players` may not meet in rounds `first_round..=last_round`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProhibitedPairings {
    pub first_round: u32,
    pub last_round: u32,
    /// At least two starting ranks.
    pub players: Vec<u32>,
}

/// A token of an `XXC` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum XxcToken {
    /// `white1`: the top-ranked player has the first move in round 1.
    White1,
    /// `black1`: the top-ranked player has the second move in round 1.
    Black1,
    /// `rank`: the rank columns of the `001` records give the pairing order.
    Rank,
}

impl XxcToken {
    /// The token's text.
    pub fn as_str(self) -> &'static str {
        match self {
            XxcToken::White1 => "white1",
            XxcToken::Black1 => "black1",
            XxcToken::Rank => "rank",
        }
    }

    /// Reads a token (case-insensitive).
    pub fn parse(text: &str) -> Option<XxcToken> {
        [XxcToken::White1, XxcToken::Black1, XxcToken::Rank]
            .into_iter()
            .find(|t| t.as_str().eq_ignore_ascii_case(text))
    }
}

/// The outcome a `BB?` record sets the points of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BbKind {
    /// `BBW`: win (also forfeit win and full-point bye).
    Win,
    /// `BBD`: draw (also half-point bye).
    Draw,
    /// `BBL`: loss over the board.
    Loss,
    /// `BBZ`: zero-point bye (absence).
    ZeroPointBye,
    /// `BBF`: forfeit loss.
    ForfeitLoss,
    /// `BBU`: pairing-allocated bye.
    PairingAllocatedBye,
}

impl BbKind {
    /// Every kind.
    pub const ALL: [BbKind; 6] = [
        BbKind::Win,
        BbKind::Draw,
        BbKind::Loss,
        BbKind::ZeroPointBye,
        BbKind::ForfeitLoss,
        BbKind::PairingAllocatedBye,
    ];

    /// The record tag.
    pub fn tag(self) -> &'static str {
        match self {
            BbKind::Win => "BBW",
            BbKind::Draw => "BBD",
            BbKind::Loss => "BBL",
            BbKind::ZeroPointBye => "BBZ",
            BbKind::ForfeitLoss => "BBF",
            BbKind::PairingAllocatedBye => "BBU",
        }
    }
}

impl Trf {
    /// The player records, in file order.
    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.records.iter().filter_map(|r| match r {
            Record::Player(p) => Some(p),
            _ => None,
        })
    }

    /// The player with this starting rank.
    pub fn player(&self, start_number: u32) -> Option<&Player> {
        self.players().find(|p| p.start_number == start_number)
    }

    /// The number of rounds declared (`XXR`, else `142`), if any.
    pub fn declared_rounds(&self) -> Option<u32> {
        let xxr = self.records.iter().find_map(|r| match r {
            Record::ExtRounds(n) => Some(*n),
            _ => None,
        });
        xxr.or_else(|| {
            self.records.iter().find_map(|r| match r {
                Record::NumberOfRounds(n) => Some(*n),
                _ => None,
            })
        })
    }

    /// The most rounds any player record holds (rounds played or paired so far).
    pub fn recorded_rounds(&self) -> usize {
        self.players().map(|p| p.rounds.len()).max().unwrap_or(0)
    }

    /// The initial colour (`XXC white1`/`black1`, else `152`), if declared.
    pub fn initial_colour(&self) -> Option<Mover> {
        let xxc = self.records.iter().find_map(|r| match r {
            Record::ExtConfiguration(tokens) => tokens.iter().find_map(|t| match t {
                XxcToken::White1 => Some(Mover::First),
                XxcToken::Black1 => Some(Mover::Second),
                XxcToken::Rank => None,
            }),
            _ => None,
        });
        xxc.or_else(|| {
            self.records.iter().find_map(|r| match r {
                Record::InitialColour(m) => Some(*m),
                _ => None,
            })
        })
    }

    /// The point system: FIDE defaults, then the `162` record, then the `BB?` records (later
    /// records win). A `162 X` (unknown result) has no counterpart in [`PointSystem`] and is ignored.
    pub fn point_system(&self) -> PointSystem {
        let mut ps = PointSystem::FIDE;
        let mut pab_set = false;
        for record in &self.records {
            match record {
                Record::Scoring(pairs) => {
                    for &(symbol, points) in pairs {
                        match symbol {
                            ScoreSymbol::W => {
                                ps.win = points;
                                ps.forfeit_win = points;
                                ps.full_point_bye = points;
                                if !pab_set {
                                    ps.pairing_allocated_bye = points;
                                }
                            }
                            ScoreSymbol::D => {
                                ps.draw = points;
                                ps.half_point_bye = points;
                            }
                            ScoreSymbol::L => ps.loss = points,
                            ScoreSymbol::A => {
                                ps.zero_point_bye = points;
                                ps.forfeit_loss = points;
                            }
                            ScoreSymbol::P => {
                                ps.pairing_allocated_bye = points;
                                pab_set = true;
                            }
                            ScoreSymbol::X => {}
                        }
                    }
                }
                Record::ExtPoints { kind, points } => match kind {
                    BbKind::Win => {
                        ps.win = *points;
                        ps.forfeit_win = *points;
                        ps.full_point_bye = *points;
                    }
                    BbKind::Draw => {
                        ps.draw = *points;
                        ps.half_point_bye = *points;
                    }
                    BbKind::Loss => ps.loss = *points,
                    BbKind::ZeroPointBye => ps.zero_point_bye = *points,
                    BbKind::ForfeitLoss => ps.forfeit_loss = *points,
                    BbKind::PairingAllocatedBye => {
                        ps.pairing_allocated_bye = *points;
                        pab_set = true;
                    }
                },
                _ => {}
            }
        }
        ps
    }

    /// The pairs of players who may not meet in `round` (from `XXP` and `260`), each pair
    /// ordered low-high, sorted and without repeats.
    pub fn forbidden_pairs(&self, round: u32) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        let mut add_all = |ids: &[u32]| {
            for (i, &a) in ids.iter().enumerate() {
                for &b in &ids[i + 1..] {
                    if a != b {
                        pairs.push((a.min(b), a.max(b)));
                    }
                }
            }
        };
        for record in &self.records {
            match record {
                Record::ExtForbidden(ids) => add_all(ids),
                Record::ProhibitedPairings(p)
                    if (p.first_round..=p.last_round).contains(&round) =>
                {
                    add_all(&p.players)
                }
                _ => {}
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// The byes `240` records grant in `round`, as (starting rank, kind).
    pub fn requested_byes(&self, round: u32) -> Vec<(u32, ByeKind)> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Bye(b) if b.round == round => Some(b),
                _ => None,
            })
            .flat_map(|b| b.players.iter().map(move |&p| (p, b.kind)))
            .collect()
    }

    /// The version of the format this file needs.
    pub fn version(&self) -> TrfVersion {
        let needs_2026 = self.records.iter().any(|r| match r {
            Record::Comment(_)
            | Record::NumberOfRounds(_)
            | Record::InitialColour(_)
            | Record::Scoring(_)
            | Record::Bye(_)
            | Record::Acceleration(_)
            | Record::ProhibitedPairings(_) => true,
            Record::Tournament { tag, .. } => {
                matches!(
                    tag.as_str(),
                    "172" | "182" | "192" | "202" | "212" | "222" | "352" | "362"
                )
            }
            Record::Other(line) => ["299", "300", "310", "320", "330", "801", "802"]
                .iter()
                .any(|t| line.starts_with(t)),
            _ => false,
        });
        if needs_2026 {
            TrfVersion::Trf2026
        } else {
            TrfVersion::Trf16
        }
    }
}

/// Why a file could not be read: where, and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub kind: ParseErrorKind,
}

/// What was wrong at a [`ParseError`]'s position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseErrorKind {
    #[error("{field} {text:?} is not valid")]
    BadField { field: &'static str, text: String },
    #[error("{field} is missing")]
    MissingField { field: &'static str },
    #[error("unexpected character {0:?} in a column that must be blank")]
    NotBlank(char),
    #[error("starting rank {0} appears on more than one player record")]
    DuplicateStartNumber(u32),
    #[error("opponent {0} has no player record")]
    UnknownOpponent(u32),
    #[error("a player cannot be paired against themselves")]
    SelfOpponent,
    #[error("result {0:?} needs an opponent")]
    GameWithoutOpponent(char),
    #[error("result {0:?} is a bye and cannot have an opponent")]
    ByeWithOpponent(char),
}

/// Why a model could not be written as TRF (a value does not fit its columns).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("record {record}: {field} {text:?} does not fit in {width} columns")]
    TooWide {
        record: usize,
        field: &'static str,
        text: String,
        width: usize,
    },
    #[error("record {record}: {field} {value} is out of range")]
    OutOfRange {
        record: usize,
        field: &'static str,
        value: u64,
    },
    #[error("record {record}: {field} contains a line break")]
    LineBreak { record: usize, field: &'static str },
    #[error("record {record}: {what}")]
    Inconsistent { record: usize, what: &'static str },
}
