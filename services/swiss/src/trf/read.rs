//! Reading TRF text into the [`Trf`] model. Every error names its line and column.

use std::collections::BTreeMap;

use super::{
    Acceleration, BbKind, ByeKind, ByeRecord, LineEnding, ParseError, ParseErrorKind, Player,
    ProhibitedPairings, Record, RoundEntry, ScoreSymbol, Sex, Trf, XxcToken,
};
use crate::colour::Mover;
use crate::points::{HalfPoints, ResultCode};

/// The highest starting rank the four-column fields hold.
const MAX_ID: u32 = 9999;

/// Reads a TRF file (TRF-16 or TRF-2026, with the `XX?`/`BB?` extensions).
///
/// Checks the syntax of every interpreted record (columns, numbers, codes), that starting ranks
/// are unique, that every opponent has a player record and is not the player, that over-the-board
/// results have an opponent and byes have none. Whether the two records of a game agree is
/// checked by [`crate::tournament::Tournament::from_trf`].
pub fn parse(text: &str) -> Result<Trf, ParseError> {
    let (text, byte_order_mark) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, true),
        None => (text, false),
    };
    let line_ending = detect_line_ending(text);
    let separator = match line_ending {
        LineEnding::Cr => '\r',
        LineEnding::Lf | LineEnding::CrLf => '\n',
    };
    let mut lines: Vec<&str> = text.split(separator).collect();
    let final_line_ending = text.ends_with(separator);
    if final_line_ending || text.is_empty() {
        lines.pop();
    }

    let mut records = Vec::with_capacity(lines.len());
    let mut seen: BTreeMap<u32, ()> = BTreeMap::new();
    // (line, column, player, opponent) of every opponent field, checked once all players are known.
    let mut opponents: Vec<(usize, usize, u32, u32)> = Vec::new();

    for (index, raw) in lines.iter().enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = Line::new(raw, index + 1);
        let record = line.record()?;
        if let Record::Player(player) = &record {
            if seen.insert(player.start_number, ()).is_some() {
                return Err(
                    line.error(5, ParseErrorKind::DuplicateStartNumber(player.start_number))
                );
            }
            for (r, entry) in player.rounds.iter().enumerate() {
                if let Some(opponent) = entry.opponent {
                    opponents.push((index + 1, 92 + 10 * r, player.start_number, opponent));
                }
            }
        }
        records.push(record);
    }

    for (line, column, player, opponent) in opponents {
        if opponent == player {
            return Err(ParseError {
                line,
                column,
                kind: ParseErrorKind::SelfOpponent,
            });
        }
        if !seen.contains_key(&opponent) {
            return Err(ParseError {
                line,
                column,
                kind: ParseErrorKind::UnknownOpponent(opponent),
            });
        }
    }

    Ok(Trf {
        records,
        line_ending,
        final_line_ending,
        byte_order_mark,
    })
}

/// The line ending of the first line break (LF when there is none).
fn detect_line_ending(text: &str) -> LineEnding {
    match text.find(['\n', '\r']) {
        None => LineEnding::Lf,
        Some(i) => {
            let rest = &text[i..];
            if rest.starts_with("\r\n") {
                LineEnding::CrLf
            } else if rest.starts_with('\r') {
                LineEnding::Cr
            } else {
                LineEnding::Lf
            }
        }
    }
}

/// One line as characters, with its number, and column helpers (columns are 1-based).
struct Line {
    chars: Vec<char>,
    number: usize,
}

impl Line {
    fn new(text: &str, number: usize) -> Line {
        Line {
            chars: text.chars().collect(),
            number,
        }
    }

    fn error(&self, column: usize, kind: ParseErrorKind) -> ParseError {
        ParseError {
            line: self.number,
            column,
            kind,
        }
    }

    fn len(&self) -> usize {
        self.chars.len()
    }

    /// The character at a column; a blank beyond the end.
    fn at(&self, column: usize) -> char {
        self.chars
            .get(column.wrapping_sub(1))
            .copied()
            .unwrap_or(' ')
    }

    /// Columns `from..=to` (clipped to the line).
    fn field(&self, from: usize, to: usize) -> String {
        (from..=to.min(self.len())).map(|c| self.at(c)).collect()
    }

    /// Everything from a column on.
    fn rest(&self, from: usize) -> String {
        self.chars.iter().skip(from.saturating_sub(1)).collect()
    }

    /// The first non-blank column of `from..=to`, or `from`.
    fn first_non_blank(&self, from: usize, to: usize) -> usize {
        (from..=to).find(|&c| self.at(c) != ' ').unwrap_or(from)
    }

    fn require_blank(&self, columns: &[usize]) -> Result<(), ParseError> {
        for &c in columns {
            let ch = self.at(c);
            if ch != ' ' {
                return Err(self.error(c, ParseErrorKind::NotBlank(ch)));
            }
        }
        Ok(())
    }

    /// An unsigned number in `from..=to`: `None` when blank.
    fn number(
        &self,
        from: usize,
        to: usize,
        field: &'static str,
    ) -> Result<Option<u64>, ParseError> {
        let text = self.field(from, to);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(None);
        }
        if !trimmed.chars().all(|c| c.is_ascii_digit()) {
            let column = self.first_non_blank(from, to);
            return Err(self.error(
                column,
                ParseErrorKind::BadField {
                    field,
                    text: trimmed.to_string(),
                },
            ));
        }
        trimmed.parse::<u64>().map(Some).map_err(|_| {
            self.error(
                self.first_non_blank(from, to),
                ParseErrorKind::BadField {
                    field,
                    text: trimmed.to_string(),
                },
            )
        })
    }

    /// A required number in `1..=max`.
    fn required_id(
        &self,
        from: usize,
        to: usize,
        field: &'static str,
        max: u32,
    ) -> Result<u32, ParseError> {
        match self.number(from, to, field)? {
            None => Err(self.error(from, ParseErrorKind::MissingField { field })),
            Some(n) if n >= 1 && n <= u64::from(max) => Ok(n as u32),
            Some(_) => {
                let text = self.field(from, to).trim().to_string();
                Err(self.error(
                    self.first_non_blank(from, to),
                    ParseErrorKind::BadField { field, text },
                ))
            }
        }
    }

    /// A decimal in half-points in `from..=to`: `None` when blank.
    fn points(
        &self,
        from: usize,
        to: usize,
        field: &'static str,
    ) -> Result<Option<HalfPoints>, ParseError> {
        let text = self.field(from, to);
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Ok(None);
        }
        HalfPoints::parse_decimal(trimmed).map(Some).ok_or_else(|| {
            self.error(
                self.first_non_blank(from, to),
                ParseErrorKind::BadField {
                    field,
                    text: trimmed.to_string(),
                },
            )
        })
    }

    /// Whitespace-separated tokens from a column on, with their columns.
    fn tokens(&self, from: usize) -> Vec<(usize, String)> {
        let mut tokens = Vec::new();
        let mut current: Option<(usize, String)> = None;
        for column in from..=self.len() {
            let ch = self.at(column);
            if ch.is_whitespace() {
                if let Some(token) = current.take() {
                    tokens.push(token);
                }
            } else {
                current
                    .get_or_insert_with(|| (column, String::new()))
                    .1
                    .push(ch);
            }
        }
        tokens.extend(current);
        tokens
    }

    fn is_blank(&self) -> bool {
        self.chars.iter().all(|c| c.is_whitespace())
    }

    fn record(&self) -> Result<Record, ParseError> {
        if self.is_blank() {
            return Ok(Record::Blank);
        }
        let tag = self.field(1, 3);
        if tag == "###" {
            return Ok(Record::Comment(self.rest(4)));
        }
        let tagged = self.len() == 3 || self.at(4) == ' ';
        if !tagged || tag.chars().count() != 3 {
            return Ok(Record::Other(self.rest(1)));
        }
        match tag.as_str() {
            "001" => self.player().map(Record::Player),
            "142" => self
                .single_number(5, "number of rounds")
                .map(Record::NumberOfRounds),
            "152" => self.initial_colour(),
            "162" => self.scoring(),
            "240" => self.bye(),
            "250" => self.acceleration(),
            "260" => self.prohibited(),
            "XXR" => self
                .single_number(4, "number of rounds")
                .map(Record::ExtRounds),
            "XXC" => self.xxc(),
            "XXP" => self.xxp(),
            "BBW" | "BBD" | "BBL" | "BBZ" | "BBF" | "BBU" => self.bb(&tag),
            _ if tag.ends_with('2') && tag.chars().all(|c| c.is_ascii_digit()) => {
                Ok(Record::Tournament {
                    tag,
                    value: self.rest(5),
                })
            }
            _ => Ok(Record::Other(self.rest(1))),
        }
    }

    fn player(&self) -> Result<Player, ParseError> {
        // Trailing blanks carry nothing (a blank result at the end reads the same).
        let len = self
            .chars
            .iter()
            .rposition(|c| !c.is_whitespace())
            .map_or(0, |i| i + 1);
        let line = Line {
            chars: self.chars[..len].to_vec(),
            number: self.number,
        };
        line.require_blank(&[4, 9, 14, 48, 53, 57, 69, 80, 85, 90, 91])?;
        let start_number = line.required_id(5, 8, "starting rank", MAX_ID)?;
        let sex = match line.at(10) {
            ' ' => None,
            'm' | 'M' => Some(Sex::Male),
            'w' | 'W' | 'f' | 'F' => Some(Sex::Female),
            other => {
                return Err(line.error(
                    10,
                    ParseErrorKind::BadField {
                        field: "sex",
                        text: other.to_string(),
                    },
                ));
            }
        };
        let title = line.field(11, 13).trim().to_string();
        let name = line.field(15, 47).trim().to_string();
        let rating = match line.number(49, 52, "rating")? {
            None => None,
            Some(r) => Some(u16::try_from(r).map_err(|_| {
                line.error(
                    49,
                    ParseErrorKind::BadField {
                        field: "rating",
                        text: r.to_string(),
                    },
                )
            })?),
        };
        let federation = line.field(54, 56).trim().to_string();
        let fide_id = line.number(58, 68, "FIDE id")?;
        let birth_date = line.field(70, 79).trim().to_string();
        let points = line.points(81, 84, "points")?;
        let rank = line.number(86, 89, "rank")?.map(|r| r as u32);

        let mut rounds = Vec::new();
        let mut start = 92;
        while line.len() >= start {
            line.require_blank(&[start + 4, start + 6, start + 8, start + 9])?;
            let opponent = match line.number(start, start + 3, "opponent")? {
                None | Some(0) => None,
                Some(n) if n <= u64::from(MAX_ID) => Some(n as u32),
                Some(n) => {
                    return Err(line.error(
                        line.first_non_blank(start, start + 3),
                        ParseErrorKind::BadField {
                            field: "opponent",
                            text: n.to_string(),
                        },
                    ));
                }
            };
            let colour = match line.at(start + 5) {
                ' ' | '-' => None,
                c => Some(Mover::from_trf_letter(c).ok_or_else(|| {
                    line.error(
                        start + 5,
                        ParseErrorKind::BadField {
                            field: "colour",
                            text: c.to_string(),
                        },
                    )
                })?),
            };
            let ch = line.at(start + 7);
            let result = ResultCode::from_char(ch).ok_or_else(|| {
                line.error(
                    start + 7,
                    ParseErrorKind::BadField {
                        field: "result",
                        text: ch.to_string(),
                    },
                )
            })?;
            if result.is_game() && opponent.is_none() {
                return Err(line.error(start + 7, ParseErrorKind::GameWithoutOpponent(ch)));
            }
            if result.is_bye() && result != ResultCode::Blank && opponent.is_some() {
                return Err(line.error(start + 7, ParseErrorKind::ByeWithOpponent(ch)));
            }
            rounds.push(RoundEntry {
                opponent,
                colour,
                result,
            });
            start += 10;
        }

        Ok(Player {
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
        })
    }

    /// A record holding exactly one number from `from` on.
    fn single_number(&self, from: usize, field: &'static str) -> Result<u32, ParseError> {
        let tokens = self.tokens(from);
        match tokens.as_slice() {
            [] => Err(self.error(from, ParseErrorKind::MissingField { field })),
            [(column, text)] => text
                .parse::<u32>()
                .ok()
                .filter(|_| text.chars().all(|c| c.is_ascii_digit()))
                .ok_or_else(|| {
                    self.error(
                        *column,
                        ParseErrorKind::BadField {
                            field,
                            text: text.clone(),
                        },
                    )
                }),
            [_, (column, text), ..] => {
                Err(self.error(*column, ParseErrorKind::NotBlank(first_char(text))))
            }
        }
    }

    fn initial_colour(&self) -> Result<Record, ParseError> {
        let field = "initial colour";
        let mover = match self.at(5) {
            'W' | 'w' => Mover::First,
            'B' | 'b' => Mover::Second,
            ' ' => return Err(self.error(5, ParseErrorKind::MissingField { field })),
            c => {
                return Err(self.error(
                    5,
                    ParseErrorKind::BadField {
                        field,
                        text: c.to_string(),
                    },
                ));
            }
        };
        if let Some((column, text)) = self.tokens(6).into_iter().next() {
            return Err(self.error(column, ParseErrorKind::NotBlank(first_char(&text))));
        }
        Ok(Record::InitialColour(mover))
    }

    fn scoring(&self) -> Result<Record, ParseError> {
        self.require_blank(&[5])?;
        let mut pairs = Vec::new();
        let mut code_column = 6;
        while self.len() >= code_column {
            let c = self.at(code_column);
            let symbol = ScoreSymbol::from_char(c).ok_or_else(|| {
                self.error(
                    code_column,
                    ParseErrorKind::BadField {
                        field: "scoring code",
                        text: c.to_string(),
                    },
                )
            })?;
            let points = self
                .points(code_column + 1, code_column + 4, "scoring points")?
                .ok_or_else(|| {
                    self.error(
                        code_column + 1,
                        ParseErrorKind::MissingField {
                            field: "scoring points",
                        },
                    )
                })?;
            self.require_blank(&[
                code_column + 5,
                code_column + 6,
                code_column + 7,
                code_column + 8,
            ])?;
            pairs.push((symbol, points));
            code_column += 9;
        }
        if pairs.is_empty() {
            return Err(self.error(
                6,
                ParseErrorKind::MissingField {
                    field: "scoring code",
                },
            ));
        }
        Ok(Record::Scoring(pairs))
    }

    /// Four-column ids from `first` on, one every five columns (a blank column before each).
    fn id_list(&self, first: usize, field: &'static str) -> Result<Vec<u32>, ParseError> {
        let mut ids = Vec::new();
        let mut start = first;
        while self.len() >= start {
            self.require_blank(&[start - 1])?;
            ids.push(self.required_id(start, start + 3, field, MAX_ID)?);
            start += 5;
        }
        Ok(ids)
    }

    fn bye(&self) -> Result<Record, ParseError> {
        let c = self.at(5);
        let kind = ByeKind::from_char(c).ok_or_else(|| {
            if c == ' ' {
                self.error(5, ParseErrorKind::MissingField { field: "bye type" })
            } else {
                self.error(
                    5,
                    ParseErrorKind::BadField {
                        field: "bye type",
                        text: c.to_string(),
                    },
                )
            }
        })?;
        self.require_blank(&[6])?;
        let round = self.required_id(7, 9, "round", 999)?;
        let players = self.id_list(11, "player")?;
        if players.is_empty() {
            return Err(self.error(11, ParseErrorKind::MissingField { field: "player" }));
        }
        Ok(Record::Bye(ByeRecord {
            kind,
            round,
            players,
        }))
    }

    fn acceleration(&self) -> Result<Record, ParseError> {
        self.require_blank(&[9, 14, 18, 22, 27])?;
        if let Some((column, text)) = self.tokens(32).into_iter().next() {
            return Err(self.error(column, ParseErrorKind::NotBlank(first_char(&text))));
        }
        let match_points = self.points(5, 8, "match points")?;
        let game_points = self.points(10, 13, "game points")?.ok_or_else(|| {
            self.error(
                10,
                ParseErrorKind::MissingField {
                    field: "game points",
                },
            )
        })?;
        Ok(Record::Acceleration(Acceleration {
            match_points,
            game_points,
            first_round: self.required_id(15, 17, "first round", 999)?,
            last_round: self.required_id(19, 21, "last round", 999)?,
            first_player: self.required_id(23, 26, "first player", MAX_ID)?,
            last_player: self.required_id(28, 31, "last player", MAX_ID)?,
        }))
    }

    fn prohibited(&self) -> Result<Record, ParseError> {
        self.require_blank(&[8])?;
        let first_round = self.required_id(5, 7, "first round", 999)?;
        let last_round = self.required_id(9, 11, "last round", 999)?;
        let players = self.id_list(13, "player")?;
        if players.len() < 2 {
            return Err(self.error(
                13 + 5 * players.len(),
                ParseErrorKind::MissingField { field: "player" },
            ));
        }
        Ok(Record::ProhibitedPairings(ProhibitedPairings {
            first_round,
            last_round,
            players,
        }))
    }

    fn xxc(&self) -> Result<Record, ParseError> {
        let tokens = self.tokens(4);
        let mut parsed = Vec::with_capacity(tokens.len());
        for (column, text) in tokens {
            parsed.push(XxcToken::parse(&text).ok_or_else(|| {
                self.error(
                    column,
                    ParseErrorKind::BadField {
                        field: "XXC option",
                        text: text.clone(),
                    },
                )
            })?);
        }
        Ok(Record::ExtConfiguration(parsed))
    }

    fn xxp(&self) -> Result<Record, ParseError> {
        let tokens = self.tokens(4);
        let mut ids = Vec::with_capacity(tokens.len());
        for (column, text) in &tokens {
            let id = text
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=MAX_ID).contains(n) && text.chars().all(|c| c.is_ascii_digit()))
                .ok_or_else(|| {
                    self.error(
                        *column,
                        ParseErrorKind::BadField {
                            field: "player",
                            text: text.clone(),
                        },
                    )
                })?;
            ids.push(id);
        }
        if ids.len() < 2 {
            return Err(self.error(
                self.len() + 1,
                ParseErrorKind::MissingField { field: "player" },
            ));
        }
        Ok(Record::ExtForbidden(ids))
    }

    fn bb(&self, tag: &str) -> Result<Record, ParseError> {
        let kind = BbKind::ALL
            .into_iter()
            .find(|k| k.tag() == tag)
            .ok_or_else(|| {
                self.error(
                    1,
                    ParseErrorKind::BadField {
                        field: "tag",
                        text: tag.to_string(),
                    },
                )
            })?;
        let field = "points";
        let tokens = self.tokens(4);
        match tokens.as_slice() {
            [] => Err(self.error(5, ParseErrorKind::MissingField { field })),
            [(column, text)] => HalfPoints::parse_decimal(text)
                .map(|points| Record::ExtPoints { kind, points })
                .ok_or_else(|| {
                    self.error(
                        *column,
                        ParseErrorKind::BadField {
                            field,
                            text: text.clone(),
                        },
                    )
                }),
            [_, (column, text), ..] => {
                Err(self.error(*column, ParseErrorKind::NotBlank(first_char(text))))
            }
        }
    }
}

fn first_char(text: &str) -> char {
    text.chars().next().unwrap_or(' ')
}
