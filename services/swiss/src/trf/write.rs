//! Writing the [`Trf`] model as text in the canonical layout (see the module documentation).

use super::{Acceleration, ByeRecord, Player, ProhibitedPairings, Record, Trf, WriteError};
use crate::points::HalfPoints;

/// Writes a TRF file. Fails, without panicking, when a value does not fit its columns (a name
/// longer than 33 characters, a starting rank above 9999, …) or a record could not be read back
/// as the same record (a line break inside a field, an empty id list).
pub fn write(trf: &Trf) -> Result<String, WriteError> {
    let mut out = String::new();
    if trf.byte_order_mark {
        out.push('\u{feff}');
    }
    let ending = trf.line_ending.as_str();
    for (index, record) in trf.records.iter().enumerate() {
        if index > 0 {
            out.push_str(ending);
        }
        out.push_str(&record_line(record, index + 1)?);
    }
    if trf.final_line_ending && !trf.records.is_empty() {
        out.push_str(ending);
    }
    Ok(out)
}

fn record_line(record: &Record, index: usize) -> Result<String, WriteError> {
    Ok(match record {
        Record::Blank => String::new(),
        Record::Comment(text) => {
            no_break(text, index, "comment")?;
            format!("###{text}")
        }
        Record::Tournament { tag, value } => {
            no_break(value, index, "value")?;
            let valid_tag = tag.chars().count() == 3
                && tag.chars().all(|c| c.is_ascii_digit())
                && tag.ends_with('2')
                && !matches!(tag.as_str(), "142" | "152" | "162");
            if !valid_tag {
                return Err(WriteError::Inconsistent {
                    record: index,
                    what: "tournament tag must be a free ??2 tag",
                });
            }
            if value.is_empty() {
                tag.clone()
            } else {
                format!("{tag} {value}")
            }
        }
        Record::Player(player) => player_line(player, index)?,
        Record::NumberOfRounds(n) => format!("142 {n}"),
        Record::InitialColour(mover) => format!("152 {}", mover.trf_letter().to_ascii_uppercase()),
        Record::Scoring(pairs) => {
            if pairs.is_empty() {
                return Err(WriteError::Inconsistent {
                    record: index,
                    what: "162 needs at least one code",
                });
            }
            let mut line = String::from("162 ");
            for (k, (symbol, points)) in pairs.iter().enumerate() {
                line.push_str(if k == 0 { " " } else { "    " });
                line.push(symbol.to_char());
                line.push_str(&points_field(*points, 4, index, "scoring points")?);
            }
            line
        }
        Record::Bye(bye) => bye_line(bye, index)?,
        Record::Acceleration(acc) => acceleration_line(acc, index)?,
        Record::ProhibitedPairings(p) => prohibited_line(p, index)?,
        Record::ExtRounds(n) => format!("XXR {n}"),
        Record::ExtConfiguration(tokens) => {
            let mut line = String::from("XXC");
            for token in tokens {
                line.push(' ');
                line.push_str(token.as_str());
            }
            line
        }
        Record::ExtForbidden(ids) => {
            if ids.len() < 2 {
                return Err(WriteError::Inconsistent {
                    record: index,
                    what: "XXP needs at least two players",
                });
            }
            let mut line = String::from("XXP");
            for &id in ids {
                check_id(id, index, "player")?;
                line.push_str(&format!(" {id}"));
            }
            line
        }
        Record::ExtPoints { kind, points } => {
            format!(
                "{} {}",
                kind.tag(),
                points_field(*points, 4, index, "points")?
            )
        }
        Record::Other(text) => {
            no_break(text, index, "line")?;
            text.clone()
        }
    })
}

fn player_line(p: &Player, index: usize) -> Result<String, WriteError> {
    check_id(p.start_number, index, "starting rank")?;
    let sex = match p.sex {
        None => ' ',
        Some(super::Sex::Male) => 'm',
        Some(super::Sex::Female) => 'w',
    };
    let rating = match p.rating {
        None => String::new(),
        Some(r) if r <= 9999 => r.to_string(),
        Some(r) => {
            return Err(WriteError::OutOfRange {
                record: index,
                field: "rating",
                value: u64::from(r),
            });
        }
    };
    let fide_id = match p.fide_id {
        None => String::new(),
        Some(id) if id <= 99_999_999_999 => id.to_string(),
        Some(id) => {
            return Err(WriteError::OutOfRange {
                record: index,
                field: "FIDE id",
                value: id,
            });
        }
    };
    let points = match p.points {
        None => String::new(),
        Some(points) => points.to_string(),
    };
    let rank = match p.rank {
        None => String::new(),
        Some(r) if (1..=9999).contains(&r) => r.to_string(),
        Some(r) => {
            return Err(WriteError::OutOfRange {
                record: index,
                field: "rank",
                value: u64::from(r),
            });
        }
    };
    let mut line = format!(
        "001 {:>4} {}{} {} {} {} {} {} {} {}",
        p.start_number,
        sex,
        fit_right(&p.title, 3, index, "title")?,
        fit_left(&p.name, 33, index, "name")?,
        fit_right(&rating, 4, index, "rating")?,
        fit_left(&p.federation, 3, index, "federation")?,
        fit_right(&fide_id, 11, index, "FIDE id")?,
        fit_left(&p.birth_date, 10, index, "birth date")?,
        fit_right(&points, 4, index, "points")?,
        fit_right(&rank, 4, index, "rank")?,
    );
    for entry in &p.rounds {
        let opponent = match entry.opponent {
            None => "0000".to_string(),
            Some(id) => {
                check_id(id, index, "opponent")?;
                format!("{id:>4}")
            }
        };
        let colour = entry.colour.map_or('-', |m| m.trf_letter());
        line.push_str(&format!("  {opponent} {colour} {}", entry.result.to_char()));
    }
    Ok(line.trim_end().to_string())
}

fn bye_line(bye: &ByeRecord, index: usize) -> Result<String, WriteError> {
    if bye.players.is_empty() {
        return Err(WriteError::Inconsistent {
            record: index,
            what: "240 needs at least one player",
        });
    }
    let mut line = format!(
        "240 {} {}",
        bye.kind.to_char(),
        round_field(bye.round, index)?
    );
    for &id in &bye.players {
        check_id(id, index, "player")?;
        line.push_str(&format!(" {id:>4}"));
    }
    Ok(line)
}

fn acceleration_line(acc: &Acceleration, index: usize) -> Result<String, WriteError> {
    let match_points = match acc.match_points {
        None => "    ".to_string(),
        Some(points) => zero_padded_points(points, index, "match points")?,
    };
    check_id(acc.first_player, index, "first player")?;
    check_id(acc.last_player, index, "last player")?;
    Ok(format!(
        "250 {} {} {} {} {:04} {:04}",
        match_points,
        zero_padded_points(acc.game_points, index, "game points")?,
        round_field(acc.first_round, index)?,
        round_field(acc.last_round, index)?,
        acc.first_player,
        acc.last_player,
    )
    .trim_end()
    .to_string())
}

fn prohibited_line(p: &ProhibitedPairings, index: usize) -> Result<String, WriteError> {
    if p.players.len() < 2 {
        return Err(WriteError::Inconsistent {
            record: index,
            what: "260 needs at least two players",
        });
    }
    let mut line = format!(
        "260 {} {}",
        round_field(p.first_round, index)?,
        round_field(p.last_round, index)?
    );
    for &id in &p.players {
        check_id(id, index, "player")?;
        line.push_str(&format!(" {id:>4}"));
    }
    Ok(line)
}

fn check_id(id: u32, index: usize, field: &'static str) -> Result<(), WriteError> {
    if (1..=9999).contains(&id) {
        Ok(())
    } else {
        Err(WriteError::OutOfRange {
            record: index,
            field,
            value: u64::from(id),
        })
    }
}

fn round_field(round: u32, index: usize) -> Result<String, WriteError> {
    if (1..=999).contains(&round) {
        Ok(format!("{round:03}"))
    } else {
        Err(WriteError::OutOfRange {
            record: index,
            field: "round",
            value: u64::from(round),
        })
    }
}

fn points_field(
    points: HalfPoints,
    width: usize,
    index: usize,
    field: &'static str,
) -> Result<String, WriteError> {
    fit_right(&points.to_string(), width, index, field)
}

fn zero_padded_points(
    points: HalfPoints,
    index: usize,
    field: &'static str,
) -> Result<String, WriteError> {
    let text = format!("{:0>4}", points.to_string());
    fit_right(&text, 4, index, field)
}

fn no_break(text: &str, index: usize, field: &'static str) -> Result<(), WriteError> {
    if text.contains(['\n', '\r']) {
        Err(WriteError::LineBreak {
            record: index,
            field,
        })
    } else {
        Ok(())
    }
}

/// Left-aligned in `width` columns; the text must fit, carry no line break and no edge blanks
/// (they would not be read back).
fn fit_left(
    text: &str,
    width: usize,
    index: usize,
    field: &'static str,
) -> Result<String, WriteError> {
    check_fits(text, width, index, field)?;
    Ok(format!("{text:<width$}"))
}

/// Right-aligned in `width` columns.
fn fit_right(
    text: &str,
    width: usize,
    index: usize,
    field: &'static str,
) -> Result<String, WriteError> {
    check_fits(text, width, index, field)?;
    Ok(format!("{text:>width$}"))
}

fn check_fits(
    text: &str,
    width: usize,
    index: usize,
    field: &'static str,
) -> Result<(), WriteError> {
    no_break(text, index, field)?;
    if text.chars().count() > width || text.trim() != text {
        return Err(WriteError::TooWide {
            record: index,
            field,
            text: text.to_string(),
            width,
        });
    }
    Ok(())
}
