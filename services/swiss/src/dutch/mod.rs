//! The FIDE (Dutch) system: Handbook C.04.3 as approved on 28/10/2025 and applied from
//! 1 February 2026 (the "2025 rules"), with the Basic Rules for Swiss Systems (C.04.1) and the
//! General Handling Rules (C.04.2).
//!
//! [`pair`] pairs the round after the tournament's last recorded round; [`pair_trf`] reads the
//! round to pair, byes, forbidden pairs, initial colour and point system from a TRF file the way
//! JaVaFo and bbpPairings do.
//!
//! ## Design
//!
//! Brackets are paired from the top (Art. 3). For each bracket one maximum-weight matching is
//! solved over *all* players still to pair (plus a bye vertex when their number is odd): every
//! criterion is one digit of the edge weight, from the highest to the lowest,
//!
//! | digit | criterion |
//! |---|---|
//! | cardinality | C4 (completion: everybody below can still be paired) |
//! | bye score | C5 (the bye goes to the lowest possible score) |
//! | pairs in the bracket | C6 (fewest downfloaters) |
//! | paired players per score | C7 (lowest downfloater scores, in descending order) |
//! | pairs and paired scores of the next bracket | C8 |
//! | the bye receiver's unplayed games | C9 (last bracket only) |
//! | colour | C10-C13 |
//! | floats | C14-C17 (counts), C18-C21 (score differences, largest first) |
//!
//! so the optimum is the best pairing of the current bracket that keeps the round completable
//! (C4). Among equally good pairings, the order of Art. 4 (transpositions before exchanges) is
//! followed greedily: each player from the top of S1 takes the first opponent of S2 with which
//! the optimum is still reachable (one matching per check). C1 and C3 are hard: incompatible
//! pairs have no edge; C2 (no second bye) removes the bye edge.
//!
//! Weights are exact integers of 128, 256, 384 or 512 bits (the narrowest that holds the
//! bracket's digits, tiers that do not fit into 512 bits being dropped lowest first).
//!
//! ## One matching per round, re-solved where it stands
//!
//! The matching is a maximum-weight *perfect* matching (every player is paired, one with the bye
//! vertex when their number is odd), Edmonds' blossom algorithm in its primal-dual form, and one
//! instance of it (`dynamic.rs`) lives for the whole round: its graph (who may meet whom, who may
//! get the bye) is built once; only the weights and the set of players still to pair change.
//!
//! - Since every matching it considers is complete, the cardinality digit is the same for all
//!   of them and is left out: the edges of a player below the next bracket weigh zero, and a
//!   bracket's weights are a dense matrix over the bracket and the next one plus one weight per
//!   bye edge. Moving to the next bracket (or renumbering a remainder) changes only those.
//! - A weight change keeps the dual solution feasible and the matched edges tight: blossoms
//!   around a changed vertex are dissolved (their dual spread onto their vertices), the changed
//!   vertices get the smallest duals that keep their edges feasible and keep their partner only
//!   when that edge is still tight. The solve then re-augments just the vertices this freed.
//! - A check of Art. 4's order (does some optimum pair x with y?) first asks the optimal duals:
//!   a pair already matched is accepted at once, a pair with a reduced cost beyond the hint's
//!   slack is rejected at once. Otherwise x and y are taken out (their blossoms dissolved, their
//!   partners freed), the rest re-solved from there and compared with the optimum; a failed
//!   check restores the saved state.
//! - Without a lower bound on the duals (perfect matching), free vertices may have different
//!   duals; they are made even before every stage (weights are multiples of four), so every
//!   dual change stays an integer. After an augmentation a stage goes on with the trees that did
//!   not take part, as long as tight edges let them grow.
//! - The width grows with the brackets that need it (never narrows within a round); duals that
//!   come near the width's limit trigger a fresh solve.
//!
//! So a round costs one maximum matching on a fixed graph plus a few re-augmentations per
//! bracket and per check, not one matching from scratch per check.
//!
//! ## Conventions shared with bbpPairings
//!
//! - Unplayed games (forfeits, byes) do not count as having met (C1) and carry no colour.
//! - A player scoring a win's points without playing (forfeit win, full-point bye) or who had the
//!   pairing-allocated bye cannot get it again (C2).
//! - Art. 5.2.5 reads the pairing number among the players that have taken part so far; with no
//!   declared initial colour it is inferred from the first round with colours.
//! - Boards are ordered by the higher score of the pair, then the sum, then the rank of the
//!   higher-ranked player (real scores, without acceleration).
//!
//! ## Not covered
//!
//! The `XXC rank` option (pairing numbers from the rank column), JaVaFo's `XXA` acceleration
//! records (the TRF-2026 `250` record is read), team events.

mod dynamic;
mod engine;
mod state;
mod wide;

use std::collections::HashSet;

use crate::colour::Mover;
use crate::points::{HalfPoints, ResultCode};
use crate::tournament::{Tournament, TournamentError};
use crate::trf::{ByeKind, Player, Record, Trf};

pub use state::Strength;

/// What the round needs besides the results so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The tournament's number of rounds; topscorers (Art. 1.7) exist only when pairing the last.
    pub total_rounds: Option<u32>,
    /// The side of the top-ranked (odd TPN) player in round 1 (Art. 5.2.5; TRF `XXC white1`).
    pub initial_colour: Mover,
    /// Pairs that may not meet this round (TRF `XXP`, `260`), as starting ranks.
    pub forbidden: Vec<(u32, u32)>,
    /// Players not paired this round: requested byes (half, zero or full point), absences,
    /// withdrawals.
    pub not_paired: Vec<u32>,
    /// Accelerated pairing (C.04.5, e.g. Baku acceleration C.04.5.1): fictitious points
    /// `(starting rank, round, points)` added to a player's score when pairing that round (TRF
    /// `250`). Past rounds matter too: their floats compare the accelerated scores.
    pub acceleration: Vec<(u32, u32, HalfPoints)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            total_rounds: None,
            initial_colour: Mover::First,
            forbidden: Vec::new(),
            not_paired: Vec::new(),
            acceleration: Vec::new(),
        }
    }
}

/// One board: `first` has the first move (White in Chess).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    pub first: u32,
    pub second: u32,
}

/// The pairing of one round: boards in order, and at most one pairing-allocated bye.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pairing {
    pub boards: Vec<Board>,
    pub bye: Option<u32>,
}

/// Why a round could not be paired.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    #[error("no valid pairing exists (absolute criteria C1-C3 cannot all be met)")]
    NoValidPairing,
    #[error("inconsistent tournament: {0}")]
    Tournament(#[from] TournamentError),
    #[error("player {0} is listed as not paired but has no player record")]
    UnknownPlayer(u32),
}

/// Pairs the round after `tournament.rounds()`.
pub fn pair(tournament: &Tournament, options: &Options) -> Result<Pairing, PairingError> {
    for &p in &options.not_paired {
        if tournament.entrant(p).is_none() {
            return Err(PairingError::UnknownPlayer(p));
        }
    }
    let round = tournament.rounds() as u32 + 1;
    let final_round = options.total_rounds.is_some_and(|t| t == round);
    let excluded: HashSet<u32> = options.not_paired.iter().copied().collect();
    let acc = |tpn: u32, r: u32| -> HalfPoints {
        HalfPoints(
            options
                .acceleration
                .iter()
                .filter(|a| a.0 == tpn && a.1 == r)
                .fold(0u32, |s, a| s.saturating_add(a.2.0)),
        )
    };
    let past = |tpn: u32, r: usize| acc(tpn, r as u32 + 1);
    let mut players: Vec<state::PlayerState> = state::states(tournament, final_round, &past);
    // Pairing numbers count the players taking part so far (paired in an earlier round, or now).
    let mut number = 0;
    for (p, e) in players.iter_mut().zip(tournament.entrants()) {
        let took_part = !excluded.contains(&p.tpn)
            || e.rounds
                .iter()
                .any(|r| r.opponent.is_some() || r.code == ResultCode::PairingAllocatedBye);
        if took_part {
            number += 1;
        }
        p.pairing_number = number;
    }
    players.retain(|p| !excluded.contains(&p.tpn));
    for p in players.iter_mut() {
        p.score = HalfPoints(p.score.0.saturating_add(acc(p.tpn, round).0));
    }
    let forbidden: HashSet<(u32, u32)> = options
        .forbidden
        .iter()
        .map(|&(a, b)| (a.min(b), a.max(b)))
        .collect();
    let engine = engine::Engine::new(players, forbidden, options.initial_colour);
    let raw = engine
        .run()
        .map_err(|engine::EngineError::NoValidPairing| PairingError::NoValidPairing)?;
    // Colours (Art. 5) and board order (C.04.2: higher score of the pair, then the sum, then
    // the rank of the higher ranked player).
    let mut boards: Vec<(usize, usize, Mover)> = raw
        .pairs
        .iter()
        .map(|&(a, b)| (a, b, engine.colour_of_higher(a, b)))
        .collect();
    // Board order reads the real scores (acceleration only moves players between brackets).
    let score = |i: usize| {
        let p = &engine.players[i];
        HalfPoints(p.score.0.saturating_sub(acc(p.tpn, round).0))
    };
    boards.sort_by(|x, y| {
        let kx = (
            score(x.0).max(score(x.1)),
            HalfPoints(score(x.0).0.saturating_add(score(x.1).0)),
        );
        let ky = (
            score(y.0).max(score(y.1)),
            HalfPoints(score(y.0).0.saturating_add(score(y.1).0)),
        );
        // The higher ranked player of each board, by real score then TPN.
        let top = |a: usize, b: usize| {
            let ka = (std::cmp::Reverse(score(a)), engine.players[a].tpn);
            let kb = (std::cmp::Reverse(score(b)), engine.players[b].tpn);
            ka.min(kb)
        };
        ky.cmp(&kx).then(top(x.0, x.1).cmp(&top(y.0, y.1)))
    });
    Ok(Pairing {
        boards: boards
            .into_iter()
            .map(|(a, b, c)| {
                let (ta, tb) = (engine.players[a].tpn, engine.players[b].tpn);
                if c == Mover::First {
                    Board {
                        first: ta,
                        second: tb,
                    }
                } else {
                    Board {
                        first: tb,
                        second: ta,
                    }
                }
            })
            .collect(),
        bye: raw.bye.map(|i| engine.players[i].tpn),
    })
}

/// The round a TRF file asks to pair and what it needs: the rounds before it, and the options.
#[derive(Debug, Clone)]
pub struct TrfRound {
    /// The round to pair (1-based).
    pub round: u32,
    pub tournament: Tournament,
    pub options: Options,
}

/// Reads the round to pair from a TRF: the round after the last one in which any game or
/// pairing-allocated bye is recorded. Entries already present for that round without an
/// opponent (`H`, `F`, `Z`, blank, `-`/`+` without opponent) and `240` byes of that round mean
/// "not paired"; `XXP`/`260` give forbidden pairs, `XXC`/`152` the initial colour (else inferred
/// from round 1), `XXR`/`142` the number of rounds, `BB?`/`162` the points.
pub fn trf_round(trf: &Trf) -> Result<TrfRound, PairingError> {
    let players: Vec<&Player> = trf.players().collect();
    let paired_rounds = players
        .iter()
        .flat_map(|p| {
            p.rounds.iter().enumerate().filter_map(|(r, e)| {
                (e.opponent.is_some() || e.result == ResultCode::PairingAllocatedBye)
                    .then_some(r + 1)
            })
        })
        .max()
        .unwrap_or(0);
    trf_round_at(trf, paired_rounds as u32 + 1)
}

/// Like [`trf_round`], for a given round: the file's results from this round on are ignored,
/// except the byes and absences already entered for `round` itself.
pub fn trf_round_at(trf: &Trf, round: u32) -> Result<TrfRound, PairingError> {
    let before = round.saturating_sub(1) as usize;
    let mut not_paired: Vec<u32> = Vec::new();
    let truncated: Vec<Player> = trf
        .players()
        .map(|p| {
            if let Some(e) = p.rounds.get(before)
                && e.opponent.is_none()
                && e.result != ResultCode::PairingAllocatedBye
            {
                not_paired.push(p.start_number);
            }
            let mut q = p.clone();
            q.rounds.truncate(before);
            q
        })
        .collect();
    for (p, kind) in trf.requested_byes(round) {
        let _: ByeKind = kind;
        if !not_paired.contains(&p) {
            not_paired.push(p);
        }
    }
    let refs: Vec<&Player> = truncated.iter().collect();
    let tournament = Tournament::from_players(&refs, trf.point_system())?;
    let initial_colour = trf.initial_colour().unwrap_or_else(|| infer_initial(trf));
    let forbidden = trf.forbidden_pairs(round).into_iter().collect::<Vec<_>>();
    let mut acceleration: Vec<(u32, u32, HalfPoints)> = Vec::new();
    for record in &trf.records {
        if let Record::Acceleration(a) = record {
            for r in a.first_round..=a.last_round.min(round) {
                for p in trf.players() {
                    if (a.first_player..=a.last_player).contains(&p.start_number) {
                        acceleration.push((p.start_number, r, a.game_points));
                    }
                }
            }
        }
    }
    Ok(TrfRound {
        round,
        tournament,
        options: Options {
            total_rounds: trf.declared_rounds(),
            initial_colour,
            forbidden,
            not_paired,
            acceleration,
        },
    })
}

/// bbpPairings' convention when no initial colour is declared: in the first round with colours,
/// the colour of the highest-ranked player paired in it (game or pairing-allocated bye), reversed
/// when that player is at an even position among the players paired in that round.
fn infer_initial(trf: &Trf) -> Mover {
    let mut players: Vec<&Player> = trf.players().collect();
    players.sort_by_key(|p| p.start_number);
    let rounds = trf.recorded_rounds();
    for r in 0..rounds {
        let paired = players.iter().filter(|p| {
            p.rounds.get(r).is_some_and(|e| {
                e.opponent.is_some() || e.result == ResultCode::PairingAllocatedBye
            })
        });
        for (i, p) in paired.enumerate() {
            if let Some(c) = p.rounds.get(r).and_then(|e| e.colour) {
                return if i % 2 == 0 { c } else { c.other() };
            }
        }
    }
    Mover::First
}

/// Pairs the next round of a TRF file.
pub fn pair_trf(trf: &Trf) -> Result<Pairing, PairingError> {
    let r = trf_round(trf)?;
    pair(&r.tournament, &r.options)
}
