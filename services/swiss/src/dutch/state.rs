//! What the Dutch system needs to know about each player before a round: score, opponents,
//! colour history and preference, floats, byes — all derived from the [`Tournament`].

use crate::colour::Mover;
use crate::points::{HalfPoints, ResultCode};
use crate::tournament::{Entrant, Tournament};

/// How strongly a player wants a colour (C.04.3 Art. 1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// No games played yet: no preference.
    None,
    /// Colour difference 0: alternate from the last game (Art. 1.6.4).
    Mild,
    /// Colour difference ±1 (Art. 1.6.3).
    Strong,
    /// Colour difference beyond ±1, or the same colour in the last two games played (Art. 1.6.2).
    Absolute,
}

/// A float a player received in one round (C.04.3 Art. 1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Float {
    None,
    Down,
    Up,
}

/// One player's state before the round to pair.
#[derive(Debug, Clone)]
pub struct PlayerState {
    pub tpn: u32,
    pub score: HalfPoints,
    /// Opponents met over the board (unplayed games do not count, C.04.1).
    pub met: Vec<u32>,
    /// Colour of every game played, oldest first, with its round index.
    pub colours: Vec<(usize, Mover)>,
    /// Colour difference (first-mover games minus second-mover games).
    pub difference: i32,
    pub preference: Option<Mover>,
    pub strength: Strength,
    /// C.04.3 C2: already had a pairing-allocated bye, or scored a win's points without playing.
    pub bye_ineligible: bool,
    /// Rounds without a game played.
    pub unplayed: u32,
    /// Float of the previous round and of the round before it.
    pub float_1: Float,
    pub float_2: Float,
    /// Topscorer (Art. 1.7): only when pairing the final round.
    pub topscorer: bool,
    /// The pairing number Art. 5.2.5 reads: the starting rank counted among the players that
    /// have taken part in a pairing so far (players absent from the start are not counted until
    /// they enter), as bbpPairings counts it.
    pub pairing_number: u32,
}

impl PlayerState {
    /// The colour difference after playing `colour` next.
    pub fn difference_after(&self, colour: Mover) -> i32 {
        self.difference + if colour == Mover::First { 1 } else { -1 }
    }

    /// Whether `colour` would be the third same colour in a row of games played.
    pub fn third_in_row(&self, colour: Mover) -> bool {
        let n = self.colours.len();
        n >= 2 && self.colours[n - 1].1 == colour && self.colours[n - 2].1 == colour
    }
}

/// Builds every player's state for the round after `tournament.rounds()`. `acceleration(tpn,
/// r)` gives the fictitious points a player had for pairing round `r` (0-based); floats of past
/// rounds compare those accelerated scores.
pub fn states(
    tournament: &Tournament,
    final_round: bool,
    acceleration: &dyn Fn(u32, usize) -> HalfPoints,
) -> Vec<PlayerState> {
    let points = tournament.point_system();
    let rounds = tournament.rounds();
    let entrants = tournament.entrants();
    // Scores before each round, per player index.
    let mut before: Vec<Vec<HalfPoints>> = Vec::with_capacity(entrants.len());
    for e in entrants {
        let mut acc = 0u32;
        let mut v = Vec::with_capacity(rounds + 1);
        for r in 0..rounds {
            v.push(HalfPoints(
                acc.saturating_add(acceleration(e.start_number, r).0),
            ));
            acc = acc.saturating_add(e.rounds[r].points.0);
        }
        v.push(HalfPoints(acc));
        before.push(v);
    }
    let score_before = |tpn: u32, r: usize| -> HalfPoints {
        entrants
            .iter()
            .position(|e| e.start_number == tpn)
            .and_then(|i| before[i].get(r).copied())
            .unwrap_or(HalfPoints::ZERO)
    };
    let max_score = points.win.0.saturating_mul(rounds as u32);
    entrants
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let score = before[i][rounds];
            let float_of =
                |r: usize| -> Float { float_in(e, r, &before[i], &score_before, points.loss) };
            let mut st = state_of(e, score, points.win);
            if rounds >= 1 {
                st.float_1 = float_of(rounds - 1);
            }
            if rounds >= 2 {
                st.float_2 = float_of(rounds - 2);
            }
            st.topscorer = final_round && u64::from(score.0) * 2 > u64::from(max_score);
            st
        })
        .collect()
}

fn float_in(
    e: &Entrant,
    r: usize,
    mine: &[HalfPoints],
    score_before: &dyn Fn(u32, usize) -> HalfPoints,
    loss: HalfPoints,
) -> Float {
    let round = e.rounds[r];
    if round.is_played() {
        if let Some(opp) = round.opponent {
            let theirs = score_before(opp, r);
            let me = mine[r];
            if me > theirs {
                return Float::Down;
            }
            if me < theirs {
                return Float::Up;
            }
        }
        return Float::None;
    }
    // Art. 1.4.3: a pairing-allocated bye, or scoring more than a loss without playing.
    if round.code == ResultCode::PairingAllocatedBye || round.points > loss {
        return Float::Down;
    }
    Float::None
}

fn state_of(e: &Entrant, score: HalfPoints, win: HalfPoints) -> PlayerState {
    let mut met = Vec::new();
    let mut colours = Vec::new();
    let mut bye_ineligible = false;
    let mut unplayed = 0;
    for (r, round) in e.rounds.iter().enumerate() {
        if round.is_played() {
            if let Some(o) = round.opponent {
                met.push(o);
            }
            if let Some(m) = round.mover {
                colours.push((r, m));
            }
        } else {
            unplayed += 1;
            if round.code == ResultCode::PairingAllocatedBye || round.points >= win {
                bye_ineligible = true;
            }
        }
    }
    let difference: i32 = colours
        .iter()
        .map(|(_, m)| if *m == Mover::First { 1 } else { -1 })
        .sum();
    let n = colours.len();
    let last = colours.last().map(|c| c.1);
    let last_two_same = n >= 2 && colours[n - 1].1 == colours[n - 2].1;
    let (preference, strength) = if n == 0 {
        (None, Strength::None)
    } else if difference < -1 {
        (Some(Mover::First), Strength::Absolute)
    } else if difference > 1 {
        (Some(Mover::Second), Strength::Absolute)
    } else if last_two_same {
        (last.map(Mover::other), Strength::Absolute)
    } else if difference == 1 {
        (Some(Mover::Second), Strength::Strong)
    } else if difference == -1 {
        (Some(Mover::First), Strength::Strong)
    } else {
        (last.map(Mover::other), Strength::Mild)
    };
    PlayerState {
        tpn: e.start_number,
        score,
        met,
        colours,
        difference,
        preference,
        strength,
        bye_ineligible,
        unplayed,
        float_1: Float::None,
        float_2: Float::None,
        topscorer: false,
        pairing_number: e.start_number,
    }
}
