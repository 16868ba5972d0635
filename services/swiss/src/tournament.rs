//! The checked, per-round view of a tournament that tie-breaks (and the pairing engine) read:
//! for every player and round, the opponent, the side, the result code and the points it brought.
//!
//! Built from a [`Trf`] (or its player records) and a [`PointSystem`]; the two records of every
//! game must agree (each names the other, opposite colours, complementary results), and a round
//! has at most one pairing-allocated bye. A player whose record stops before the last round (a
//! withdrawal written short) is absent, with zero points, in the rounds it lacks.

use std::collections::BTreeMap;

use crate::colour::Mover;
use crate::points::{HalfPoints, PointSystem, ResultCode};
use crate::trf::{Player, Sex, Trf};

/// A tournament's rounds so far, per player, in starting-rank order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tournament {
    entrants: Vec<Entrant>,
    index: BTreeMap<u32, usize>,
    rounds: usize,
    points: PointSystem,
}

/// One player of a [`Tournament`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    pub start_number: u32,
    pub name: String,
    pub sex: Option<Sex>,
    pub rating: Option<u16>,
    /// Exactly [`Tournament::rounds`] entries, from round 1.
    pub rounds: Vec<Round>,
}

/// One round of one player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    pub code: ResultCode,
    /// The scheduled opponent (games and forfeits with a known opponent).
    pub opponent: Option<u32>,
    /// The scheduled side.
    pub mover: Option<Mover>,
    /// The points this round brought under the tournament's point system.
    pub points: HalfPoints,
}

impl Round {
    /// A game was played over the board (`1 = 0`, and the unrated `W D L`, which were paired
    /// and sat at the board but lasted less than one move).
    pub fn is_played(&self) -> bool {
        self.code.is_game()
    }

    /// A played game that is rated (`1 = 0`): the games ARO and TPR use.
    pub fn is_rated_game(&self) -> bool {
        matches!(
            self.code,
            ResultCode::Win | ResultCode::Draw | ResultCode::Loss
        )
    }

    /// A played game won (`1`, `W`).
    pub fn is_game_won(&self) -> bool {
        matches!(self.code, ResultCode::Win | ResultCode::UnratedWin)
    }

    /// FIDE C.07's *voluntary unplayed round* (VUR), this crate's reading: a round the player
    /// chose not to play or lost by not playing — a requested bye (`H`, `F`, `Z`), an absence
    /// (blank, including every round after a withdrawal) or a forfeit loss (`-`). The
    /// pairing-allocated bye (`U`) and a forfeit win (`+`) are unplayed but involuntary.
    pub fn is_voluntary_unplayed(&self) -> bool {
        matches!(
            self.code,
            ResultCode::HalfPointBye
                | ResultCode::FullPointBye
                | ResultCode::ZeroPointBye
                | ResultCode::Blank
                | ResultCode::ForfeitLoss
        )
    }
}

/// Why a set of player records is not a consistent tournament.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TournamentError {
    #[error("starting rank {0} appears twice")]
    DuplicateStartNumber(u32),
    #[error("player {player}, round {round}: opponent {opponent} has no player record")]
    UnknownOpponent {
        player: u32,
        round: usize,
        opponent: u32,
    },
    #[error("player {player}, round {round}: opponent {opponent} does not name {player} back")]
    OneSidedPairing {
        player: u32,
        round: usize,
        opponent: u32,
    },
    #[error(
        "player {player}, round {round}: both sides of the game against {opponent} have the same colour"
    )]
    SameColour {
        player: u32,
        round: usize,
        opponent: u32,
    },
    #[error(
        "player {player}, round {round}: result {mine:?} against {opponent} does not match their {theirs:?}"
    )]
    ResultMismatch {
        player: u32,
        round: usize,
        opponent: u32,
        mine: char,
        theirs: char,
    },
    #[error("player {player}, round {round}: the game has no result yet")]
    PendingResult { player: u32, round: usize },
    #[error("round {round}: more than one pairing-allocated bye ({first} and {second})")]
    SeveralPairingByes {
        round: usize,
        first: u32,
        second: u32,
    },
}

impl Tournament {
    /// The tournament of a TRF file's player records, scored with `points` (for instance
    /// [`Trf::point_system`], or the preset's).
    pub fn from_trf(trf: &Trf, points: PointSystem) -> Result<Tournament, TournamentError> {
        let players: Vec<&Player> = trf.players().collect();
        Tournament::from_players(&players, points)
    }

    /// The tournament of these player records (in any order).
    pub fn from_players(
        players: &[&Player],
        points: PointSystem,
    ) -> Result<Tournament, TournamentError> {
        let rounds = players.iter().map(|p| p.rounds.len()).max().unwrap_or(0);
        let mut sorted: Vec<&Player> = players.to_vec();
        sorted.sort_by_key(|p| p.start_number);
        let mut index = BTreeMap::new();
        for (i, p) in sorted.iter().enumerate() {
            if index.insert(p.start_number, i).is_some() {
                return Err(TournamentError::DuplicateStartNumber(p.start_number));
            }
        }
        let entrants: Vec<Entrant> = sorted
            .iter()
            .map(|p| Entrant {
                start_number: p.start_number,
                name: p.name.clone(),
                sex: p.sex,
                rating: p.rating,
                rounds: (0..rounds)
                    .map(|r| {
                        let entry = p.rounds.get(r);
                        let code = entry.map_or(ResultCode::Blank, |e| e.result);
                        Round {
                            code,
                            opponent: entry.and_then(|e| e.opponent),
                            mover: entry.and_then(|e| e.colour),
                            points: points.points(code),
                        }
                    })
                    .collect(),
            })
            .collect();
        let tournament = Tournament {
            entrants,
            index,
            rounds,
            points,
        };
        tournament.check()?;
        Ok(tournament)
    }

    fn check(&self) -> Result<(), TournamentError> {
        for r in 0..self.rounds {
            let mut pab: Option<u32> = None;
            for e in &self.entrants {
                let mine = e.rounds[r];
                let player = e.start_number;
                let round = r + 1;
                if mine.code == ResultCode::PairingAllocatedBye {
                    if let Some(first) = pab {
                        return Err(TournamentError::SeveralPairingByes {
                            round,
                            first,
                            second: player,
                        });
                    }
                    pab = Some(player);
                }
                let Some(opponent) = mine.opponent else {
                    continue;
                };
                if mine.code == ResultCode::Blank {
                    return Err(TournamentError::PendingResult { player, round });
                }
                let theirs = self
                    .entrant(opponent)
                    .ok_or(TournamentError::UnknownOpponent {
                        player,
                        round,
                        opponent,
                    })?
                    .rounds[r];
                if theirs.opponent != Some(player) {
                    return Err(TournamentError::OneSidedPairing {
                        player,
                        round,
                        opponent,
                    });
                }
                if mine.mover.is_some() && mine.mover == theirs.mover {
                    return Err(TournamentError::SameColour {
                        player,
                        round,
                        opponent,
                    });
                }
                use ResultCode as C;
                let matching = matches!(
                    (mine.code, theirs.code),
                    (C::Win, C::Loss)
                        | (C::Loss, C::Win)
                        | (C::Draw, C::Draw)
                        | (C::UnratedWin, C::UnratedLoss)
                        | (C::UnratedLoss, C::UnratedWin)
                        | (C::UnratedDraw, C::UnratedDraw)
                        | (C::ForfeitWin, C::ForfeitLoss)
                        | (C::ForfeitLoss, C::ForfeitWin)
                        | (C::ForfeitLoss, C::ForfeitLoss)
                );
                if !matching {
                    return Err(TournamentError::ResultMismatch {
                        player,
                        round,
                        opponent,
                        mine: mine.code.to_char(),
                        theirs: theirs.code.to_char(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The players, in starting-rank order.
    pub fn entrants(&self) -> &[Entrant] {
        &self.entrants
    }

    /// The player with this starting rank.
    pub fn entrant(&self, start_number: u32) -> Option<&Entrant> {
        self.index
            .get(&start_number)
            .and_then(|&i| self.entrants.get(i))
    }

    /// The number of rounds recorded.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The point system the rounds were scored with.
    pub fn point_system(&self) -> &PointSystem {
        &self.points
    }

    /// A player's total score (0 for an unknown starting rank).
    pub fn score(&self, start_number: u32) -> HalfPoints {
        self.entrant(start_number).map_or(HalfPoints::ZERO, |e| {
            HalfPoints(
                e.rounds
                    .iter()
                    .fold(0u32, |s, r| s.saturating_add(r.points.0)),
            )
        })
    }
}
