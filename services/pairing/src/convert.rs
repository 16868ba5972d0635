//! Translation between the wire (`qiwang.pairing.v1`), the preset (`qiwang-core`) and the final
//! event's core (`qiwang_swiss::event`). No rule lives here.

use chrono::{DateTime, Utc};
use qiwang_core::preset::Game as PresetGame;
use qiwang_core::stage::{FinalFormat, TieBreak as PresetTieBreak};
use qiwang_proto::pairing::v1 as pb;
use qiwang_swiss::colour::{ColourNames, Game, Mover};
use qiwang_swiss::event::{
    Appeal, AppealStatus, AppealTerms, EventConfig, EventEntrant, Fact, FinalEvent, GameResult,
    PairedBoard, PairedRound,
};
use qiwang_swiss::points::{HalfPoints, PointSystem};
use qiwang_swiss::tiebreak::{Ranking, TieBreak, UnplayedRounds};
use qiwang_swiss::trf::{ByeKind, Sex};

use crate::error::{Result, invalid};

pub fn game_code(game: Game) -> &'static str {
    match game {
        Game::Go => "go",
        Game::Xiangqi => "xiangqi",
        Game::Chess => "chess",
    }
}

fn game_from_code(code: &str) -> Option<Game> {
    match code {
        "go" => Some(Game::Go),
        "xiangqi" => Some(Game::Xiangqi),
        "chess" => Some(Game::Chess),
        _ => None,
    }
}

pub fn game_of_preset(game: PresetGame) -> Game {
    match game {
        PresetGame::Go => Game::Go,
        PresetGame::Xiangqi => Game::Xiangqi,
        PresetGame::Chess => Game::Chess,
    }
}

/// The tie-break a preset code means for a game (R-IND-4). Chess reads FIDE C.07 (`wins` = WIN,
/// unplayed rounds by C.07's rules); Go and Xiangqi read the Chinese orders (`wins` = 胜局, games
/// won over the board; 对手分/SOS over real opponents only).
fn tie_break(game: Game, code: &str) -> Option<TieBreak> {
    Some(match PresetTieBreak::parse(code)? {
        PresetTieBreak::Buchholz => TieBreak::Buchholz,
        PresetTieBreak::BuchholzCut1 => TieBreak::BuchholzCut(1),
        PresetTieBreak::MedianBuchholz => TieBreak::BuchholzMedian(1),
        PresetTieBreak::Sosos => TieBreak::Sosos,
        PresetTieBreak::SonnebornBerger => TieBreak::SonnebornBerger,
        PresetTieBreak::Progressive => TieBreak::Progressive,
        PresetTieBreak::DirectEncounter => TieBreak::DirectEncounter,
        PresetTieBreak::Wins if game == Game::Chess => TieBreak::Wins,
        PresetTieBreak::Wins => TieBreak::GamesWon,
        PresetTieBreak::BlackGames => TieBreak::SecondMoverGames,
        PresetTieBreak::BlackWins => TieBreak::SecondMoverWins,
        PresetTieBreak::Fouls => TieBreak::Fouls,
        PresetTieBreak::Aro => TieBreak::Aro,
        PresetTieBreak::Tpr => TieBreak::Tpr,
    })
}

/// The stored configuration of a new event, from the preset's final format.
pub fn created(
    championship_id: &str,
    event_code: &str,
    name: &str,
    game: Game,
    format: &FinalFormat,
    rounds: u32,
    single_field: bool,
) -> pb::EventCreated {
    let (groups, placement) = if single_field {
        (Vec::new(), 0)
    } else {
        (format.groups.clone(), format.placement_pairs.unwrap_or(0))
    };
    pb::EventCreated {
        championship_id: championship_id.to_owned(),
        event_code: event_code.to_owned(),
        name: name.to_owned(),
        game: game_code(game).to_owned(),
        rounds,
        groups,
        placement_pairs: placement,
        win: format.points.win,
        draw: format.points.draw,
        loss: format.points.loss,
        tie_breaks: format
            .tie_breaks
            .iter()
            .map(|t| t.code().to_owned())
            .collect(),
        first_mover_top_seed: true,
        appeal_minutes: format.appeal.map_or(0, |a| a.within_minutes),
        appeal_fee_yuan: format.appeal.map_or(0, |a| a.fee_yuan),
        has_appeal: format.appeal.is_some(),
    }
}

/// The core configuration of a stored event.
pub fn config(c: &pb::EventCreated) -> Result<EventConfig> {
    let game = game_from_code(&c.game).ok_or_else(|| invalid("game", "unknown game"))?;
    let order = c
        .tie_breaks
        .iter()
        .map(|t| tie_break(game, t).ok_or_else(|| invalid("tie_breaks", format!("{t:?}"))))
        .collect::<Result<Vec<_>>>()?;
    let (win, draw, loss) = (HalfPoints(c.win), HalfPoints(c.draw), HalfPoints(c.loss));
    Ok(EventConfig {
        name: c.name.clone(),
        game,
        rounds: c.rounds,
        groups: c.groups.clone(),
        placement_pairs: (c.placement_pairs > 0).then_some(c.placement_pairs),
        points: PointSystem {
            win,
            draw,
            loss,
            forfeit_win: win,
            forfeit_loss: loss,
            full_point_bye: win,
            half_point_bye: draw,
            zero_point_bye: loss,
            pairing_allocated_bye: win,
        },
        ranking: Ranking {
            order,
            unplayed: if game == Game::Chess {
                UnplayedRounds::FideC07
            } else {
                UnplayedRounds::OpponentsOnly
            },
        },
        initial_colour: if c.first_mover_top_seed {
            Mover::First
        } else {
            Mover::Second
        },
        appeal: c.has_appeal.then_some(AppealTerms {
            within_minutes: c.appeal_minutes,
            fee_yuan: c.appeal_fee_yuan,
        }),
    })
}

pub fn sex_code(sex: Option<Sex>) -> &'static str {
    match sex {
        Some(Sex::Male) => "male",
        Some(Sex::Female) => "female",
        None => "",
    }
}

fn sex_from_code(code: &str) -> Option<Sex> {
    match code {
        "male" => Some(Sex::Male),
        "female" => Some(Sex::Female),
        _ => None,
    }
}

pub fn entrant_pb(e: &EventEntrant) -> pb::Entrant {
    pb::Entrant {
        start_number: e.start_number,
        player_id: e.player_id.clone(),
        name: e.name.clone(),
        sex: sex_code(e.sex).to_owned(),
        rating: e.rating.map_or(0, u32::from),
        federation: e.federation.clone(),
        group: e.group.clone(),
        first_round: e.first_round,
        withdrawn_after: e.withdrawn_after.unwrap_or(0),
        disqualified: false,
    }
}

fn entrant(e: &pb::Entrant) -> EventEntrant {
    EventEntrant {
        start_number: e.start_number,
        player_id: e.player_id.clone(),
        name: e.name.clone(),
        sex: sex_from_code(&e.sex),
        rating: u16::try_from(e.rating).ok().filter(|r| *r > 0),
        federation: e.federation.clone(),
        group: e.group.clone(),
        first_round: e.first_round,
        withdrawn_after: None,
    }
}

pub fn result_pb(r: GameResult) -> pb::GameResult {
    match r {
        GameResult::Pending => pb::GameResult::Pending,
        GameResult::FirstWins => pb::GameResult::FirstWins,
        GameResult::Draw => pb::GameResult::Draw,
        GameResult::SecondWins => pb::GameResult::SecondWins,
        GameResult::FirstForfeits => pb::GameResult::FirstForfeits,
        GameResult::SecondForfeits => pb::GameResult::SecondForfeits,
        GameResult::DoubleForfeit => pb::GameResult::DoubleForfeit,
    }
}

/// A recorded result from the wire (`Pending` and unspecified are not results).
pub fn result(value: i32, field: &'static str) -> Result<GameResult> {
    Ok(match pb::GameResult::try_from(value) {
        Ok(pb::GameResult::FirstWins) => GameResult::FirstWins,
        Ok(pb::GameResult::Draw) => GameResult::Draw,
        Ok(pb::GameResult::SecondWins) => GameResult::SecondWins,
        Ok(pb::GameResult::FirstForfeits) => GameResult::FirstForfeits,
        Ok(pb::GameResult::SecondForfeits) => GameResult::SecondForfeits,
        Ok(pb::GameResult::DoubleForfeit) => GameResult::DoubleForfeit,
        _ => {
            return Err(invalid(
                field,
                "must be a recorded result (FIRST_WINS, DRAW, SECOND_WINS, FIRST_FORFEITS, SECOND_FORFEITS or DOUBLE_FORFEIT)",
            ));
        }
    })
}

pub fn bye_kind(value: i32) -> Result<ByeKind> {
    match pb::ByeKind::try_from(value) {
        Ok(pb::ByeKind::Half) => Ok(ByeKind::Half),
        Ok(pb::ByeKind::Full) => Ok(ByeKind::Full),
        Ok(pb::ByeKind::Zero) => Ok(ByeKind::Zero),
        _ => Err(invalid(
            "kind",
            "must be BYE_KIND_HALF, BYE_KIND_FULL or BYE_KIND_ZERO",
        )),
    }
}

fn bye_kind_pb(k: ByeKind) -> pb::ByeKind {
    match k {
        ByeKind::Half => pb::ByeKind::Half,
        ByeKind::Full => pb::ByeKind::Full,
        ByeKind::Zero => pb::ByeKind::Zero,
    }
}

pub fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: t.timestamp(),
        nanos: i32::try_from(t.timestamp_subsec_nanos()).unwrap_or(0),
    }
}

pub fn unix_timestamp(seconds: i64) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds, nanos: 0 }
}

pub fn appeal_status_pb(s: AppealStatus) -> pb::AppealStatus {
    match s {
        AppealStatus::Pending => pb::AppealStatus::Pending,
        AppealStatus::Upheld => pb::AppealStatus::Upheld,
        AppealStatus::Dismissed => pb::AppealStatus::Dismissed,
    }
}

pub fn appeal_pb(event_id: &str, state: &FinalEvent, a: &Appeal) -> pb::Appeal {
    pb::Appeal {
        id: a.id.clone(),
        event_id: event_id.to_owned(),
        group: a.group.clone(),
        round: a.round,
        board: a.board,
        player_id: state
            .entrant(a.appellant)
            .map(|e| e.player_id.clone())
            .unwrap_or_default(),
        text: a.text.clone(),
        fee_yuan: a.fee_yuan,
        status: appeal_status_pb(a.status).into(),
        decision: a.decision.clone(),
        refund_yuan: a.refund_yuan,
        filed_at: Some(unix_timestamp(a.filed_at)),
        decided_at: a.decided_at.map(unix_timestamp),
    }
}

/// A core fact in its stored form (`Created` is stored by the caller, not here).
pub fn fact_pb(state: &FinalEvent, fact: &Fact) -> pb::Fact {
    use pb::fact::Kind;
    let kind = match fact {
        Fact::Joined(e) => Kind::Joined(entrant_pb(e)),
        Fact::Disqualified { start_number } => Kind::Disqualified(pb::Disqualified {
            start_number: *start_number,
        }),
        Fact::Withdrawn {
            start_number,
            after_round,
        } => Kind::Withdrawn(pb::Withdrawn {
            start_number: *start_number,
            after_round: *after_round,
        }),
        Fact::ByeRequested {
            start_number,
            round,
            kind,
        } => Kind::ByeRequested(pb::ByeRequested {
            start_number: *start_number,
            round: *round,
            kind: bye_kind_pb(*kind).into(),
        }),
        Fact::Paired(r) => Kind::Paired(pb::Round {
            group: r.group.clone(),
            number: r.number,
            boards: r
                .boards
                .iter()
                .map(|b| pb::Board {
                    number: b.number,
                    first_start_number: b.first,
                    second_start_number: b.second,
                    result: result_pb(b.result).into(),
                    ..pb::Board::default()
                })
                .collect(),
            bye_start_number: r.bye.unwrap_or(0),
            paired_at: Some(unix_timestamp(r.paired_at)),
            ..pb::Round::default()
        }),
        Fact::ResultRecorded {
            group,
            round,
            board,
            result,
            ..
        } => Kind::ResultRecorded(pb::ResultRecorded {
            group: group.clone(),
            round: *round,
            board: *board,
            result: result_pb(*result).into(),
        }),
        Fact::AppealFiled(a) => Kind::AppealFiled(appeal_pb("", state, a)),
        Fact::AppealDecided {
            id,
            upheld,
            decision,
            corrected,
            ..
        } => Kind::AppealDecided(pb::AppealDecided {
            appeal_id: id.clone(),
            upheld: *upheld,
            decision: decision.clone(),
            corrected_result: corrected
                .map_or(pb::GameResult::Unspecified, result_pb)
                .into(),
        }),
    };
    pb::Fact { kind: Some(kind) }
}

/// A stored fact as the core's, recorded at `at` (unix seconds), against the state it follows.
pub fn fact(state: &FinalEvent, f: &pb::Fact, at: i64) -> std::result::Result<Fact, String> {
    use pb::fact::Kind;
    Ok(match f.kind.as_ref().ok_or("empty fact")? {
        Kind::Created(_) => return Err("a second creation".into()),
        Kind::Joined(e) => Fact::Joined(entrant(e)),
        Kind::Disqualified(d) => Fact::Disqualified {
            start_number: d.start_number,
        },
        Kind::Withdrawn(w) => Fact::Withdrawn {
            start_number: w.start_number,
            after_round: w.after_round,
        },
        Kind::ByeRequested(b) => Fact::ByeRequested {
            start_number: b.start_number,
            round: b.round,
            kind: bye_kind(b.kind).map_err(|e| e.to_string())?,
        },
        Kind::Paired(r) => Fact::Paired(PairedRound {
            group: r.group.clone(),
            number: r.number,
            boards: r
                .boards
                .iter()
                .map(|b| PairedBoard {
                    number: b.number,
                    first: b.first_start_number,
                    second: b.second_start_number,
                    result: GameResult::Pending,
                })
                .collect(),
            bye: (r.bye_start_number > 0).then_some(r.bye_start_number),
            paired_at: r.paired_at.map_or(at, |t| t.seconds),
            completed_at: None,
        }),
        Kind::ResultRecorded(r) => Fact::ResultRecorded {
            group: r.group.clone(),
            round: r.round,
            board: r.board,
            result: result(r.result, "result").map_err(|e| e.to_string())?,
            at,
        },
        Kind::AppealFiled(a) => Fact::AppealFiled(Appeal {
            id: a.id.clone(),
            group: a.group.clone(),
            round: a.round,
            board: a.board,
            appellant: state
                .entrant_by_player(&a.player_id)
                .map(|e| e.start_number)
                .ok_or("appellant is no entrant")?,
            filed_at: a.filed_at.map_or(at, |t| t.seconds),
            text: a.text.clone(),
            fee_yuan: a.fee_yuan,
            status: AppealStatus::Pending,
            decision: String::new(),
            decided_at: None,
            refund_yuan: 0,
        }),
        Kind::AppealDecided(d) => Fact::AppealDecided {
            id: d.appeal_id.clone(),
            upheld: d.upheld,
            decision: d.decision.clone(),
            corrected: if d.corrected_result == pb::GameResult::Unspecified as i32 {
                None
            } else {
                Some(result(d.corrected_result, "corrected_result").map_err(|e| e.to_string())?)
            },
            at,
        },
    })
}

/// Colour names of the event's game.
pub fn colour_names(game: Game) -> (String, String) {
    let names = ColourNames::of(game);
    (
        names.english(Mover::First).to_owned(),
        names.english(Mover::Second).to_owned(),
    )
}
