//! A final event (决赛) as plain data, kept fact by fact: entrants (with late entries and
//! withdrawals), groups, requested byes, the rounds paired so far with their results, and appeals
//! against referees' rulings (R-IND-5). The pairing service stores the [`Fact`]s in order and
//! replays them; every rule of the final's workflow is checked here, when a fact is derived or
//! applied, so a stored log always replays.
//!
//! ## Readings (where R-IND-1..5 and FIDE C.04.2 leave room)
//!
//! - **Pairing order.** Pairing numbers follow the initial ranking: rating (none counts as 0)
//!   descending, then starting number. Starting numbers are given at creation in that order, and a
//!   late entrant (插入) takes the next starting number but its pairing number by rating (C.04.2 D).
//! - **Late entries and withdrawals.** A late entrant is absent, with no points, in the rounds
//!   before it joined; a withdrawn player is absent from the round after its withdrawal on. Neither
//!   is paired while absent.
//! - **Groups.** Each group (go-2025 open: A and B) is a Swiss of its own; results never cross
//!   groups. The cross-group placement round ([`PLACEMENT`], A1–B1 … A16–B16) is paired once every
//!   group has completed its rounds: the player with fewer first-mover games takes the first move
//!   (Go: Black); when equal, group A's player moves first on odd boards and group B's on even ones.
//! - **Placement ranking.** Board *i* decides places 2i−1 and 2i (winner first, a draw shares 2i−1).
//!   Players below the placement pairs keep their group places, interleaved: A(N+1), B(N+1), …
//! - **Corrections.** A result can be corrected after later rounds were paired; standings recompute,
//!   pairings already published stay (C.04.2 C.3 reading).
//! - **Appeals.** Only where the preset has an appeal rule; against a board with a recorded result;
//!   filed by one of its two players (or an organizer for them), before the round ends or within the
//!   rule's minutes after it ended; the round ends when its last pending result is recorded. The fee
//!   is charged when filing and refunded in full when the appeal is upheld. One open appeal per board.

use std::collections::{BTreeMap, BTreeSet};

use crate::colour::{Game, Mover};
use crate::dutch::{self, Options, PairingError};
use crate::points::{HalfPoints, PointSystem, ResultCode};
use crate::tiebreak::{self, Ranking, Standings};
use crate::tournament::{Tournament, TournamentError};
use crate::trf::{ByeKind, Player, Record, RoundEntry, Sex, Trf, XxcToken};

/// Rounds "by entries" (轮次视报名情况而定), reading: enough rounds for one clear winner, the
/// smallest `r` with `2^r >= entrants` (at least 1). Organizers may set another number before
/// round 1.
pub fn rounds_for_clear_winner(entrants: usize) -> u32 {
    let mut r = 1;
    while (1usize << r) < entrants && r < 32 {
        r += 1;
    }
    r
}

/// The group code of the cross-group placement round.
pub const PLACEMENT: &str = "placement";

/// A written appeal's terms (R-IND-5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppealTerms {
    pub within_minutes: u32,
    pub fee_yuan: i64,
}

/// How the final is played: from the preset, with the organizers' choices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventConfig {
    pub name: String,
    pub game: Game,
    /// Swiss rounds of each group.
    pub rounds: u32,
    /// Group codes; empty = one field (group code `""`).
    pub groups: Vec<String>,
    /// Cross-group placement pairs after the group rounds (go-2025: 16).
    pub placement_pairs: Option<u32>,
    pub points: PointSystem,
    pub ranking: Ranking,
    /// The side of the top-ranked player in round 1.
    pub initial_colour: Mover,
    pub appeal: Option<AppealTerms>,
}

impl EventConfig {
    /// The groups players can be in (`[""]` for one field).
    pub fn group_codes(&self) -> Vec<String> {
        if self.groups.is_empty() {
            vec![String::new()]
        } else {
            self.groups.clone()
        }
    }
}

/// One player of the final.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventEntrant {
    pub start_number: u32,
    /// The registration service's player id.
    pub player_id: String,
    pub name: String,
    pub sex: Option<Sex>,
    pub rating: Option<u16>,
    /// Province or federation, as exports show it.
    pub federation: String,
    pub group: String,
    /// The first round the player can be paired in (1, or later for a late entry).
    pub first_round: u32,
    /// Not paired after this round (withdrawn).
    pub withdrawn_after: Option<u32>,
}

/// A board's result, by move order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GameResult {
    Pending,
    FirstWins,
    Draw,
    SecondWins,
    /// The first mover did not play: the second mover wins by forfeit.
    FirstForfeits,
    /// The second mover did not play: the first mover wins by forfeit.
    SecondForfeits,
    /// Neither played: both lose by forfeit.
    DoubleForfeit,
}

impl GameResult {
    /// The result codes of (first mover, second mover); `None` while pending.
    pub fn codes(self) -> Option<(ResultCode, ResultCode)> {
        use ResultCode as R;
        Some(match self {
            GameResult::Pending => return None,
            GameResult::FirstWins => (R::Win, R::Loss),
            GameResult::Draw => (R::Draw, R::Draw),
            GameResult::SecondWins => (R::Loss, R::Win),
            GameResult::FirstForfeits => (R::ForfeitLoss, R::ForfeitWin),
            GameResult::SecondForfeits => (R::ForfeitWin, R::ForfeitLoss),
            GameResult::DoubleForfeit => (R::ForfeitLoss, R::ForfeitLoss),
        })
    }
}

/// One board of a paired round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairedBoard {
    pub number: u32,
    /// Starting numbers.
    pub first: u32,
    pub second: u32,
    pub result: GameResult,
}

/// A paired round of one group (or the placement round).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairedRound {
    pub group: String,
    pub number: u32,
    pub boards: Vec<PairedBoard>,
    /// The pairing-allocated bye.
    pub bye: Option<u32>,
    /// Unix seconds (UTC).
    pub paired_at: i64,
    /// When the last pending result was recorded (the round's end for appeals).
    pub completed_at: Option<i64>,
}

impl PairedRound {
    pub fn is_complete(&self) -> bool {
        self.boards.iter().all(|b| b.result != GameResult::Pending)
    }
    fn board(&self, number: u32) -> Option<&PairedBoard> {
        self.boards.iter().find(|b| b.number == number)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppealStatus {
    Pending,
    Upheld,
    Dismissed,
}

/// A written appeal against a referee's ruling (R-IND-5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appeal {
    pub id: String,
    pub group: String,
    pub round: u32,
    pub board: u32,
    /// The appellant's starting number.
    pub appellant: u32,
    pub filed_at: i64,
    pub text: String,
    pub fee_yuan: i64,
    pub status: AppealStatus,
    pub decision: String,
    pub decided_at: Option<i64>,
    pub refund_yuan: i64,
}

/// One stored change of an event. Derived by the `FinalEvent` methods that check it, applied by
/// [`FinalEvent::apply`] (which checks it again, so a log replays only if it is valid).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fact {
    Joined(EventEntrant),
    Withdrawn {
        start_number: u32,
        after_round: u32,
    },
    ByeRequested {
        start_number: u32,
        round: u32,
        kind: ByeKind,
    },
    Paired(PairedRound),
    ResultRecorded {
        group: String,
        round: u32,
        board: u32,
        result: GameResult,
        at: i64,
    },
    AppealFiled(Appeal),
    AppealDecided {
        id: String,
        upheld: bool,
        decision: String,
        /// The result the appeal committee set, when upheld.
        corrected: Option<GameResult>,
        at: i64,
    },
    /// 取消比赛成绩 (R-DIS-1): the entrant's results are cancelled. They leave the final ranking
    /// (everyone below moves up) and are not paired again; their games stay on the record, so
    /// their opponents keep their points. Reading: cancelling a player's results does not rewrite
    /// the games their opponents played.
    Disqualified {
        start_number: u32,
    },
}

/// Why a change is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    #[error("{field}: {reason}")]
    Invalid { field: &'static str, reason: String },
    #[error("{0} not found")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Precondition(String),
    #[error("no valid pairing exists for group {group:?} round {round}")]
    NoValidPairing { group: String, round: u32 },
    #[error("inconsistent results: {0}")]
    Tournament(#[from] TournamentError),
}

fn invalid(field: &'static str, reason: impl Into<String>) -> EventError {
    EventError::Invalid {
        field,
        reason: reason.into(),
    }
}

/// A final event's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinalEvent {
    pub config: EventConfig,
    entrants: Vec<EventEntrant>,
    /// Requested byes: (start number, round) → kind.
    byes: BTreeMap<(u32, u32), ByeKind>,
    rounds: Vec<PairedRound>,
    appeals: Vec<Appeal>,
    /// Start numbers whose results are cancelled (R-DIS-1).
    disqualified: BTreeSet<u32>,
}

impl FinalEvent {
    pub fn new(config: EventConfig) -> Result<FinalEvent, EventError> {
        if config.name.trim().is_empty() {
            return Err(invalid("name", "is required"));
        }
        if config.rounds == 0 || config.rounds > 99 {
            return Err(invalid("rounds", "must be 1 to 99"));
        }
        let codes: BTreeSet<&String> = config.groups.iter().collect();
        if codes.len() != config.groups.len() || config.groups.iter().any(|g| g.is_empty()) {
            return Err(invalid(
                "groups",
                "group codes must be distinct and non-empty",
            ));
        }
        if config.placement_pairs.is_some() && config.groups.len() != 2 {
            return Err(invalid("placement_pairs", "needs exactly two groups"));
        }
        Ok(FinalEvent {
            config,
            entrants: Vec::new(),
            byes: BTreeMap::new(),
            rounds: Vec::new(),
            appeals: Vec::new(),
            disqualified: BTreeSet::new(),
        })
    }

    pub fn entrants(&self) -> &[EventEntrant] {
        &self.entrants
    }

    pub fn entrant(&self, start_number: u32) -> Option<&EventEntrant> {
        self.entrants
            .iter()
            .find(|e| e.start_number == start_number)
    }

    pub fn entrant_by_player(&self, player_id: &str) -> Option<&EventEntrant> {
        self.entrants.iter().find(|e| e.player_id == player_id)
    }

    pub fn rounds(&self) -> &[PairedRound] {
        &self.rounds
    }

    pub fn round(&self, group: &str, number: u32) -> Option<&PairedRound> {
        self.rounds
            .iter()
            .find(|r| r.group == group && r.number == number)
    }

    pub fn appeals(&self) -> &[Appeal] {
        &self.appeals
    }

    pub fn requested_byes(&self) -> impl Iterator<Item = (u32, u32, ByeKind)> + '_ {
        self.byes.iter().map(|(&(s, r), &k)| (s, r, k))
    }

    /// Rounds paired so far in a group.
    pub fn paired_rounds(&self, group: &str) -> u32 {
        self.rounds
            .iter()
            .filter(|r| r.group == group)
            .map(|r| r.number)
            .max()
            .unwrap_or(0)
    }

    fn check_group(&self, group: &str) -> Result<(), EventError> {
        if self.config.group_codes().iter().any(|g| g == group) {
            Ok(())
        } else {
            Err(invalid(
                "group",
                format!(
                    "{group:?} is not a group of this event ({})",
                    self.config.group_codes().join(", ")
                ),
            ))
        }
    }

    /// The entrant a new player (initial or late) becomes: next starting number, first round
    /// after the group's paired rounds.
    pub fn join(
        &self,
        player_id: &str,
        name: &str,
        sex: Option<Sex>,
        rating: Option<u16>,
        federation: &str,
        group: &str,
    ) -> Result<Fact, EventError> {
        let start_number = self.entrants.len() as u32 + 1;
        Ok(Fact::Joined(EventEntrant {
            start_number,
            player_id: player_id.to_owned(),
            name: name.to_owned(),
            sex,
            rating,
            federation: federation.to_owned(),
            group: group.to_owned(),
            first_round: self.paired_rounds(group) + 1,
            withdrawn_after: None,
        }))
    }

    /// Withdrawal from the next round to be paired on.
    pub fn withdraw(&self, start_number: u32) -> Result<Fact, EventError> {
        let e = self
            .entrant(start_number)
            .ok_or_else(|| EventError::NotFound(format!("entrant {start_number}")))?;
        Ok(Fact::Withdrawn {
            start_number,
            after_round: self.paired_rounds(&e.group),
        })
    }

    /// Whether the entrant's results are cancelled (R-DIS-1).
    pub fn is_disqualified(&self, start_number: u32) -> bool {
        self.disqualified.contains(&start_number)
    }

    /// The entrants whose results are cancelled, by start number.
    pub fn disqualified(&self) -> impl Iterator<Item = u32> + '_ {
        self.disqualified.iter().copied()
    }

    /// Checks and applies one fact.
    pub fn apply(&mut self, fact: &Fact) -> Result<(), EventError> {
        match fact {
            Fact::Disqualified { start_number } => {
                let paired = self
                    .group_of(*start_number)
                    .map(|g| self.paired_rounds(&g))?;
                if self.disqualified.contains(start_number) {
                    return Err(EventError::Conflict(format!(
                        "entrant {start_number} is already disqualified"
                    )));
                }
                let e = self.entrant_mut(*start_number)?;
                // Not paired again: a disqualification is also a withdrawal from the next round.
                if e.withdrawn_after.is_none() {
                    e.withdrawn_after = Some(paired);
                }
                self.disqualified.insert(*start_number);
                Ok(())
            }
            Fact::Joined(e) => self.apply_join(e),
            Fact::Withdrawn {
                start_number,
                after_round,
            } => {
                let paired = self
                    .group_of(*start_number)
                    .map(|g| self.paired_rounds(&g))?;
                let e = self.entrant_mut(*start_number)?;
                if e.withdrawn_after.is_some() {
                    return Err(EventError::Conflict(format!(
                        "entrant {start_number} has already withdrawn"
                    )));
                }
                if *after_round < paired {
                    return Err(invalid(
                        "after_round",
                        format!("round {} is already paired", after_round + 1),
                    ));
                }
                e.withdrawn_after = Some(*after_round);
                Ok(())
            }
            Fact::ByeRequested {
                start_number,
                round,
                kind,
            } => {
                let e = self
                    .entrant(*start_number)
                    .ok_or_else(|| EventError::NotFound(format!("entrant {start_number}")))?;
                if *round <= self.paired_rounds(&e.group) {
                    return Err(invalid("round", format!("round {round} is already paired")));
                }
                if *round > self.config.rounds {
                    return Err(invalid(
                        "round",
                        format!("the event has {} rounds", self.config.rounds),
                    ));
                }
                if !self.available(e, *round) {
                    return Err(EventError::Precondition(format!(
                        "entrant {start_number} does not play round {round}"
                    )));
                }
                if self.byes.contains_key(&(*start_number, *round)) {
                    return Err(EventError::Conflict(format!(
                        "entrant {start_number} already has a bye in round {round}"
                    )));
                }
                self.byes.insert((*start_number, *round), *kind);
                Ok(())
            }
            Fact::Paired(round) => {
                let expected = self.next_round_of(&round.group)?;
                if round.number != expected {
                    return Err(EventError::Conflict(format!(
                        "group {:?} pairs round {expected} next, not {}",
                        round.group, round.number
                    )));
                }
                let mut seen = BTreeSet::new();
                for s in round
                    .boards
                    .iter()
                    .flat_map(|b| [b.first, b.second])
                    .chain(round.bye)
                {
                    if self.entrant(s).is_none() || !seen.insert(s) {
                        return Err(invalid("boards", format!("entrant {s} unknown or twice")));
                    }
                }
                self.rounds.push(round.clone());
                Ok(())
            }
            Fact::ResultRecorded {
                group,
                round,
                board,
                result,
                at,
            } => self.set_result(group, *round, *board, *result, *at),
            Fact::AppealFiled(appeal) => {
                self.check_appeal(appeal)?;
                self.appeals.push(appeal.clone());
                Ok(())
            }
            Fact::AppealDecided {
                id,
                upheld,
                decision,
                corrected,
                at,
            } => {
                let index = self
                    .appeals
                    .iter()
                    .position(|a| &a.id == id)
                    .ok_or_else(|| EventError::NotFound(format!("appeal {id}")))?;
                if self.appeals[index].status != AppealStatus::Pending {
                    return Err(EventError::Conflict(format!(
                        "appeal {id} is already decided"
                    )));
                }
                if decision.trim().is_empty() {
                    return Err(invalid("decision", "is required"));
                }
                if corrected.is_some() && !upheld {
                    return Err(invalid(
                        "corrected_result",
                        "only an upheld appeal changes the result",
                    ));
                }
                if let Some(result) = corrected {
                    let a = self.appeals[index].clone();
                    self.set_result(&a.group, a.round, a.board, *result, *at)?;
                }
                let a = &mut self.appeals[index];
                a.status = if *upheld {
                    AppealStatus::Upheld
                } else {
                    AppealStatus::Dismissed
                };
                a.decision = decision.clone();
                a.decided_at = Some(*at);
                a.refund_yuan = if *upheld { a.fee_yuan } else { 0 };
                Ok(())
            }
        }
    }

    fn apply_join(&mut self, e: &EventEntrant) -> Result<(), EventError> {
        if e.player_id.trim().is_empty() {
            return Err(invalid("player_id", "is required"));
        }
        if e.name.trim().is_empty() {
            return Err(invalid("name", "is required"));
        }
        self.check_group(&e.group)?;
        if self.entrant_by_player(&e.player_id).is_some() {
            return Err(EventError::Conflict(format!(
                "player {} is already an entrant",
                e.player_id
            )));
        }
        if e.start_number != self.entrants.len() as u32 + 1 {
            return Err(invalid("start_number", "must be the next starting number"));
        }
        if e.first_round != self.paired_rounds(&e.group) + 1 {
            return Err(invalid(
                "first_round",
                "a player joins in the group's next round",
            ));
        }
        if e.first_round > self.config.rounds {
            return Err(EventError::Precondition(format!(
                "group {:?} has paired all its rounds",
                e.group
            )));
        }
        if self.placement_paired() {
            return Err(EventError::Precondition(
                "the placement round is paired".into(),
            ));
        }
        self.entrants.push(e.clone());
        Ok(())
    }

    fn group_of(&self, start_number: u32) -> Result<String, EventError> {
        self.entrant(start_number)
            .map(|e| e.group.clone())
            .ok_or_else(|| EventError::NotFound(format!("entrant {start_number}")))
    }

    fn entrant_mut(&mut self, start_number: u32) -> Result<&mut EventEntrant, EventError> {
        self.entrants
            .iter_mut()
            .find(|e| e.start_number == start_number)
            .ok_or_else(|| EventError::NotFound(format!("entrant {start_number}")))
    }

    fn placement_paired(&self) -> bool {
        self.rounds.iter().any(|r| r.group == PLACEMENT)
    }

    fn available(&self, e: &EventEntrant, round: u32) -> bool {
        e.first_round <= round && e.withdrawn_after.is_none_or(|w| round <= w)
    }

    /// The round a group pairs next (checks that the previous one is complete).
    fn next_round_of(&self, group: &str) -> Result<u32, EventError> {
        if group == PLACEMENT {
            if self.config.placement_pairs.is_none() {
                return Err(invalid("group", "this event has no placement round"));
            }
            if self.placement_paired() {
                return Err(EventError::Precondition(
                    "the placement round is already paired".into(),
                ));
            }
            for g in self.config.group_codes() {
                if self.completed_rounds(&g) < self.config.rounds {
                    return Err(EventError::Precondition(format!(
                        "group {g} has not completed its {} rounds",
                        self.config.rounds
                    )));
                }
            }
            return Ok(self.config.rounds + 1);
        }
        self.check_group(group)?;
        let paired = self.paired_rounds(group);
        if paired >= self.config.rounds {
            return Err(EventError::Precondition(format!(
                "group {group:?} has paired all its {} rounds",
                self.config.rounds
            )));
        }
        if let Some(last) = self.round(group, paired)
            && !last.is_complete()
        {
            return Err(EventError::Precondition(format!(
                "round {paired} of group {group:?} still has pending results"
            )));
        }
        Ok(paired + 1)
    }

    /// Rounds of a group whose results are all in (counted from round 1).
    pub fn completed_rounds(&self, group: &str) -> u32 {
        let mut n = 0;
        while let Some(r) = self.round(group, n + 1) {
            if !r.is_complete() {
                break;
            }
            n += 1;
        }
        n
    }

    fn set_result(
        &mut self,
        group: &str,
        round: u32,
        board: u32,
        result: GameResult,
        at: i64,
    ) -> Result<(), EventError> {
        if result == GameResult::Pending {
            return Err(invalid("result", "a recorded result cannot be pending"));
        }
        let r = self
            .rounds
            .iter_mut()
            .find(|r| r.group == group && r.number == round)
            .ok_or_else(|| EventError::NotFound(format!("round {round} of group {group:?}")))?;
        let b = r
            .boards
            .iter_mut()
            .find(|b| b.number == board)
            .ok_or_else(|| EventError::NotFound(format!("board {board} of round {round}")))?;
        b.result = result;
        if r.completed_at.is_none() && r.is_complete() {
            r.completed_at = Some(at);
        }
        Ok(())
    }

    fn check_appeal(&self, a: &Appeal) -> Result<(), EventError> {
        let Some(terms) = self.config.appeal else {
            return Err(EventError::Precondition(
                "the rules of this event provide no written appeal".into(),
            ));
        };
        if a.text.trim().is_empty() {
            return Err(invalid("text", "the appeal must be in writing"));
        }
        if self.appeals.iter().any(|x| x.id == a.id) {
            return Err(EventError::Conflict(format!("appeal {} exists", a.id)));
        }
        let round = self.round(&a.group, a.round).ok_or_else(|| {
            EventError::NotFound(format!("round {} of group {:?}", a.round, a.group))
        })?;
        let board = round.board(a.board).ok_or_else(|| {
            EventError::NotFound(format!("board {} of round {}", a.board, a.round))
        })?;
        if board.first != a.appellant && board.second != a.appellant {
            return Err(EventError::Precondition(format!(
                "entrant {} did not play on board {}",
                a.appellant, a.board
            )));
        }
        if board.result == GameResult::Pending {
            return Err(EventError::Precondition(
                "the board has no ruling to appeal yet".into(),
            ));
        }
        if let Some(ended) = round.completed_at {
            let deadline = ended + i64::from(terms.within_minutes) * 60;
            if a.filed_at > deadline {
                return Err(EventError::Precondition(format!(
                    "appeals close {} minutes after the round ends",
                    terms.within_minutes
                )));
            }
        }
        if a.fee_yuan != terms.fee_yuan {
            return Err(invalid(
                "fee_yuan",
                format!("the fee is {} yuan", terms.fee_yuan),
            ));
        }
        if self.appeals.iter().any(|x| {
            x.status == AppealStatus::Pending
                && x.group == a.group
                && x.round == a.round
                && x.board == a.board
        }) {
            return Err(EventError::Conflict(
                "an appeal on this board is already pending".into(),
            ));
        }
        Ok(())
    }

    /// The group's players in pairing order (rating descending, then starting number).
    fn pairing_order(&self, group: &str) -> Vec<&EventEntrant> {
        let mut v: Vec<&EventEntrant> = self.entrants.iter().filter(|e| e.group == group).collect();
        v.sort_by_key(|e| (std::cmp::Reverse(e.rating.unwrap_or(0)), e.start_number));
        v
    }

    /// The group's rounds `1..=through` as TRF player records numbered in pairing order, with
    /// the map from those numbers back to starting numbers.
    fn records(&self, group: &str, through: u32) -> Result<(Vec<Player>, Vec<u32>), EventError> {
        let order = self.pairing_order(group);
        let back: Vec<u32> = order.iter().map(|e| e.start_number).collect();
        let number: BTreeMap<u32, u32> = back
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i as u32 + 1))
            .collect();
        let mut players = Vec::with_capacity(order.len());
        for e in &order {
            let mut rounds = Vec::with_capacity(through as usize);
            for r in 1..=through {
                let entry = self.round_entry(group, r, e.start_number, &number)?;
                rounds.push(entry);
            }
            players.push(Player {
                start_number: number[&e.start_number],
                sex: e.sex,
                title: String::new(),
                name: e.name.clone(),
                rating: e.rating,
                federation: e.federation.chars().take(3).collect(),
                fide_id: None,
                birth_date: String::new(),
                points: None,
                rank: None,
                rounds,
            });
        }
        Ok((players, back))
    }

    fn round_entry(
        &self,
        group: &str,
        round: u32,
        start: u32,
        number: &BTreeMap<u32, u32>,
    ) -> Result<RoundEntry, EventError> {
        let blank = RoundEntry {
            opponent: None,
            colour: None,
            result: ResultCode::Blank,
        };
        let Some(r) = self.round(group, round) else {
            return Ok(blank);
        };
        if r.bye == Some(start) {
            return Ok(RoundEntry {
                result: ResultCode::PairingAllocatedBye,
                ..blank
            });
        }
        for b in &r.boards {
            let (me_first, other) = if b.first == start {
                (true, b.second)
            } else if b.second == start {
                (false, b.first)
            } else {
                continue;
            };
            let Some((first, second)) = b.result.codes() else {
                return Err(EventError::Precondition(format!(
                    "round {round} board {} has no result yet",
                    b.number
                )));
            };
            return Ok(RoundEntry {
                opponent: number.get(&other).copied(),
                colour: Some(if me_first {
                    Mover::First
                } else {
                    Mover::Second
                }),
                result: if me_first { first } else { second },
            });
        }
        Ok(match self.byes.get(&(start, round)) {
            Some(ByeKind::Full) => RoundEntry {
                result: ResultCode::FullPointBye,
                ..blank
            },
            Some(ByeKind::Half) => RoundEntry {
                result: ResultCode::HalfPointBye,
                ..blank
            },
            Some(ByeKind::Zero) => RoundEntry {
                result: ResultCode::ZeroPointBye,
                ..blank
            },
            None => blank,
        })
    }

    /// The group's tournament through `through` rounds, in pairing-order numbers.
    fn tournament(&self, group: &str, through: u32) -> Result<(Tournament, Vec<u32>), EventError> {
        let (players, back) = self.records(group, through)?;
        let refs: Vec<&Player> = players.iter().collect();
        Ok((Tournament::from_players(&refs, self.config.points)?, back))
    }

    /// Pairs the group's next round (FIDE Dutch), or the placement round ([`PLACEMENT`]).
    pub fn pair_next(&self, group: &str, at: i64) -> Result<Fact, EventError> {
        let number = self.next_round_of(group)?;
        if group == PLACEMENT {
            return self.pair_placement(number, at);
        }
        let (tournament, back) = self.tournament(group, number - 1)?;
        let not_paired: Vec<u32> = back
            .iter()
            .enumerate()
            .filter(|&(_, s)| {
                self.entrant(*s).is_none_or(|e| {
                    !self.available(e, number) || self.byes.contains_key(&(*s, number))
                })
            })
            .map(|(i, _)| i as u32 + 1)
            .collect();
        let options = Options {
            total_rounds: Some(self.config.rounds),
            initial_colour: self.config.initial_colour,
            not_paired,
            ..Options::default()
        };
        let pairing = match dutch::pair(&tournament, &options) {
            Ok(p) => p,
            Err(PairingError::NoValidPairing) => {
                return Err(EventError::NoValidPairing {
                    group: group.to_owned(),
                    round: number,
                });
            }
            Err(PairingError::Tournament(e)) => return Err(e.into()),
            Err(PairingError::UnknownPlayer(p)) => {
                return Err(EventError::NotFound(format!("pairing number {p}")));
            }
        };
        let start = |n: u32| back[(n - 1) as usize];
        Ok(Fact::Paired(PairedRound {
            group: group.to_owned(),
            number,
            boards: pairing
                .boards
                .iter()
                .enumerate()
                .map(|(i, b)| PairedBoard {
                    number: i as u32 + 1,
                    first: start(b.first),
                    second: start(b.second),
                    result: GameResult::Pending,
                })
                .collect(),
            bye: pairing.bye.map(start),
            paired_at: at,
            completed_at: None,
        }))
    }

    fn pair_placement(&self, number: u32, at: i64) -> Result<Fact, EventError> {
        let groups = self.config.group_codes();
        let pairs = self.config.placement_pairs.unwrap_or(0) as usize;
        let tables: Vec<Vec<u32>> = groups
            .iter()
            .map(|g| {
                self.standings(g).map(|s| {
                    s.rows
                        .iter()
                        .map(|r| r.start_number)
                        .filter(|&s| self.entrant(s).is_some_and(|e| e.withdrawn_after.is_none()))
                        .take(pairs)
                        .collect()
                })
            })
            .collect::<Result<_, _>>()?;
        let firsts = |s: u32| -> usize {
            self.rounds
                .iter()
                .flat_map(|r| r.boards.iter())
                .filter(|b| b.first == s && b.result.codes().is_some_and(|(c, _)| c.is_game()))
                .count()
        };
        let mut boards = Vec::new();
        for i in 0..pairs {
            let (Some(&a), Some(&b)) = (tables[0].get(i), tables[1].get(i)) else {
                break;
            };
            let board = boards.len() as u32 + 1;
            let a_first = match firsts(a).cmp(&firsts(b)) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Equal => board % 2 == 1,
            };
            let (first, second) = if a_first { (a, b) } else { (b, a) };
            boards.push(PairedBoard {
                number: board,
                first,
                second,
                result: GameResult::Pending,
            });
        }
        Ok(Fact::Paired(PairedRound {
            group: PLACEMENT.to_owned(),
            number,
            boards,
            bye: None,
            paired_at: at,
            completed_at: None,
        }))
    }

    /// A group's standings over its completed rounds, in starting numbers (R-IND-4).
    pub fn standings(&self, group: &str) -> Result<Standings, EventError> {
        self.standings_through(group, self.completed_rounds(group))
    }

    /// A group's standings after round `through` (at most its completed rounds).
    pub fn standings_through(&self, group: &str, through: u32) -> Result<Standings, EventError> {
        self.check_group(group)?;
        let through = through.min(self.completed_rounds(group));
        let (tournament, back) = self.tournament(group, through)?;
        let mut s = tiebreak::rank(&tournament, &self.config.ranking, &BTreeMap::new());
        for row in &mut s.rows {
            row.start_number = back[(row.start_number - 1) as usize];
        }
        Ok(s)
    }

    /// The women's ranking of a group (R-IND-2): the open ranking's women, places renumbered.
    pub fn women_standings(&self, group: &str) -> Result<Standings, EventError> {
        Ok(self
            .standings(group)?
            .only(|start| self.entrant(start).and_then(|e| e.sex) == Some(Sex::Female)))
    }

    /// The final places of an event with a placement round, once it is complete: (place, start).
    pub fn placement_places(&self) -> Result<Vec<(u32, u32)>, EventError> {
        let round = self
            .round(PLACEMENT, self.config.rounds + 1)
            .ok_or_else(|| EventError::Precondition("the placement round is not paired".into()))?;
        if !round.is_complete() {
            return Err(EventError::Precondition(
                "the placement round has pending results".into(),
            ));
        }
        let mut places = Vec::new();
        let mut placed = BTreeSet::new();
        for (i, b) in round.boards.iter().enumerate() {
            let top = 2 * i as u32 + 1;
            let (first_place, second_place) = match b.result {
                GameResult::FirstWins | GameResult::SecondForfeits => (top, top + 1),
                GameResult::SecondWins | GameResult::FirstForfeits => (top + 1, top),
                _ => (top, top),
            };
            places.push((first_place, b.first));
            places.push((second_place, b.second));
            placed.insert(b.first);
            placed.insert(b.second);
        }
        places.sort_unstable();
        let tables: Vec<Vec<u32>> = self
            .config
            .group_codes()
            .iter()
            .map(|g| {
                self.standings(g).map(|s| {
                    s.rows
                        .iter()
                        .map(|r| r.start_number)
                        .filter(|s| !placed.contains(s))
                        .collect()
                })
            })
            .collect::<Result<_, _>>()?;
        let longest = tables.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for t in &tables {
                if let Some(&s) = t.get(i) {
                    places.push((places.len() as u32 + 1, s));
                }
            }
        }
        Ok(places)
    }

    /// The event's places over all groups, and whether they are final: the placement round's places
    /// when it is complete; otherwise (and for several groups without a placement round) the
    /// groups' places interleaved (A1, B1, A2, B2, …); one field: its standings, ties shared.
    ///
    /// Entrants whose results are cancelled (R-DIS-1) are left out and the places renumbered: each
    /// place becomes 1 + the number of kept entrants strictly ahead, so a shared place stays shared.
    pub fn final_places(&self) -> Result<(Vec<(u32, u32)>, bool), EventError> {
        let (places, complete) = self.final_places_of_all()?;
        if self.disqualified.is_empty() {
            return Ok((places, complete));
        }
        let kept: Vec<(u32, u32)> = places
            .into_iter()
            .filter(|(_, s)| !self.disqualified.contains(s))
            .collect();
        let renumbered = kept
            .iter()
            .map(|&(place, s)| {
                let ahead = kept.iter().filter(|(p, _)| *p < place).count() as u32;
                (ahead + 1, s)
            })
            .collect();
        Ok((renumbered, complete))
    }

    fn final_places_of_all(&self) -> Result<(Vec<(u32, u32)>, bool), EventError> {
        let groups = self.config.group_codes();
        let groups_done = groups
            .iter()
            .all(|g| self.completed_rounds(g) >= self.config.rounds);
        if self.config.placement_pairs.is_some()
            && self
                .round(PLACEMENT, self.config.rounds + 1)
                .is_some_and(PairedRound::is_complete)
        {
            return Ok((self.placement_places()?, true));
        }
        if let [only] = groups.as_slice() {
            let s = self.standings(only)?;
            return Ok((
                s.rows.iter().map(|r| (r.place, r.start_number)).collect(),
                groups_done,
            ));
        }
        let tables: Vec<Vec<u32>> = groups
            .iter()
            .map(|g| {
                self.standings(g)
                    .map(|s| s.rows.iter().map(|r| r.start_number).collect())
            })
            .collect::<Result<_, _>>()?;
        let mut places = Vec::new();
        let longest = tables.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..longest {
            for t in &tables {
                if let Some(&s) = t.get(i) {
                    places.push((places.len() as u32 + 1, s));
                }
            }
        }
        Ok((places, groups_done && self.config.placement_pairs.is_none()))
    }

    /// The group as a TRF-2026 file (numbers in pairing order, so that other Dutch programs
    /// reproduce the pairings): name, rounds, initial colour, points, player records with points
    /// and places, and the byes requested for the next round.
    pub fn to_trf(&self, group: &str) -> Result<Trf, EventError> {
        self.check_group(group)?;
        let through = self.completed_rounds(group);
        let (mut players, back) = self.records(group, through)?;
        let standings = self.standings(group)?;
        let mut records = vec![
            Record::Tournament {
                tag: "012".into(),
                value: if group.is_empty() {
                    self.config.name.clone()
                } else {
                    format!("{} {group}", self.config.name)
                },
            },
            Record::ExtRounds(self.config.rounds),
            Record::ExtConfiguration(vec![match self.config.initial_colour {
                Mover::First => XxcToken::White1,
                Mover::Second => XxcToken::Black1,
            }]),
        ];
        let p = self.config.points;
        for (kind, points) in [
            (crate::trf::BbKind::Win, p.win),
            (crate::trf::BbKind::Draw, p.draw),
            (crate::trf::BbKind::Loss, p.loss),
            (crate::trf::BbKind::ZeroPointBye, p.zero_point_bye),
            (crate::trf::BbKind::ForfeitLoss, p.forfeit_loss),
            (
                crate::trf::BbKind::PairingAllocatedBye,
                p.pairing_allocated_bye,
            ),
        ] {
            records.push(Record::ExtPoints { kind, points });
        }
        for (i, player) in players.iter_mut().enumerate() {
            if let Some(row) = standings.row(back[i]) {
                player.points = Some(row.points);
                player.rank = Some(row.place);
            }
        }
        records.extend(players.into_iter().map(Record::Player));
        let next = through + 1;
        for kind in [ByeKind::Half, ByeKind::Full, ByeKind::Zero] {
            let ids: Vec<u32> = back
                .iter()
                .enumerate()
                .filter(|(_, s)| self.byes.get(&(**s, next)) == Some(&kind))
                .map(|(i, _)| i as u32 + 1)
                .collect();
            if !ids.is_empty() && next <= self.config.rounds {
                records.push(Record::Bye(crate::trf::ByeRecord {
                    kind,
                    round: next,
                    players: ids,
                }));
            }
        }
        Ok(Trf {
            records,
            final_line_ending: true,
            ..Trf::default()
        })
    }

    /// The group's standings as CSV (UTF-8, comma-separated, quoted where needed): place,
    /// starting number, name, sex, federation, group, points, then one column per tie-break.
    pub fn to_csv(&self, group: &str, women: bool) -> Result<String, EventError> {
        let s = if women {
            self.women_standings(group)?
        } else {
            self.standings(group)?
        };
        let mut out = String::from("place,start_number,name,sex,federation,group,points");
        for tb in &s.order {
            out.push(',');
            out.push_str(&tb.code());
        }
        out.push('\n');
        for row in &s.rows {
            let Some(e) = self.entrant(row.start_number) else {
                continue;
            };
            let sex = match e.sex {
                Some(Sex::Male) => "m",
                Some(Sex::Female) => "w",
                None => "",
            };
            out.push_str(&format!(
                "{},{},{},{},{},{},{}",
                row.place,
                e.start_number,
                csv_field(&e.name),
                sex,
                csv_field(&e.federation),
                csv_field(&e.group),
                self.points_text(row.points)
            ));
            for (tb, v) in s.order.iter().zip(&row.values) {
                out.push(',');
                out.push_str(&tiebreak::format_value(*tb, *v));
            }
            out.push('\n');
        }
        Ok(out)
    }

    /// Points as the game writes them: Chess in FIDE points (`6.5`), Go and Xiangqi finals in
    /// their native 2/1/0 units (`13`).
    pub fn points_text(&self, p: HalfPoints) -> String {
        match self.config.game {
            Game::Chess => p.to_string(),
            Game::Go | Game::Xiangqi => p.0.to_string(),
        }
    }

    /// The group as an EGD h9 results file (Go finals): header keys, then one line per player in
    /// place order: place, name, rank (blank), federation, club (group), then per round
    /// `opponent place` + `+`/`-`/`=` + `/b` or `/w` (Go colours: the first mover is Black),
    /// `0+`/`0=`/`0-` for byes and absences; forfeits are followed by `!`.
    pub fn to_h9(&self, group: &str) -> Result<String, EventError> {
        let s = self.standings(group)?;
        let through = self.completed_rounds(group);
        let place_of: BTreeMap<u32, usize> = s
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.start_number, i + 1))
            .collect();
        let mut out = String::new();
        out.push_str(&format!("; EV[{}]\n", self.config.name));
        if !group.is_empty() {
            out.push_str(&format!("; GR[{group}]\n"));
        }
        out.push_str(&format!("; RO[{through}]\n"));
        out.push_str("; Pl Name Rk Co Club Pts");
        for r in 1..=through {
            out.push_str(&format!(" R{r}"));
        }
        out.push('\n');
        for (i, row) in s.rows.iter().enumerate() {
            let Some(e) = self.entrant(row.start_number) else {
                continue;
            };
            let name = e.name.replace(' ', "_");
            out.push_str(&format!(
                "{:>3} {name} - {} {} {}",
                i + 1,
                if e.federation.is_empty() {
                    "-"
                } else {
                    &e.federation
                },
                if group.is_empty() { "-" } else { group },
                self.points_text(row.points)
            ));
            for r in 1..=through {
                out.push(' ');
                out.push_str(&self.h9_cell(group, r, e.start_number, &place_of));
            }
            out.push('\n');
        }
        Ok(out)
    }

    fn h9_cell(
        &self,
        group: &str,
        round: u32,
        start: u32,
        place_of: &BTreeMap<u32, usize>,
    ) -> String {
        let Some(r) = self.round(group, round) else {
            return "0-".into();
        };
        if r.bye == Some(start) {
            return "0+".into();
        }
        for b in &r.boards {
            let (me_first, other) = if b.first == start {
                (true, b.second)
            } else if b.second == start {
                (false, b.first)
            } else {
                continue;
            };
            let Some((f, sc)) = b.result.codes() else {
                return "0-".into();
            };
            let code = if me_first { f } else { sc };
            let sign = match code {
                ResultCode::Win | ResultCode::ForfeitWin | ResultCode::UnratedWin => '+',
                ResultCode::Draw | ResultCode::UnratedDraw => '=',
                _ => '-',
            };
            let colour = if me_first { 'b' } else { 'w' };
            let forfeit = if code.is_forfeit() { "!" } else { "" };
            let opp = place_of.get(&other).copied().unwrap_or(0);
            return format!("{opp}{sign}/{colour}{forfeit}");
        }
        match self.byes.get(&(start, round)) {
            Some(ByeKind::Full) => "0+".into(),
            Some(ByeKind::Half) => "0=".into(),
            _ => "0-".into(),
        }
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::rounds_for_clear_winner;

    #[test]
    fn r_ind_1_rounds_by_entries_give_one_clear_winner() {
        assert_eq!(rounds_for_clear_winner(1), 1);
        assert_eq!(rounds_for_clear_winner(2), 1);
        assert_eq!(rounds_for_clear_winner(3), 2);
        assert_eq!(rounds_for_clear_winner(32), 5);
        assert_eq!(rounds_for_clear_winner(33), 6);
    }
}
