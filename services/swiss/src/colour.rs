//! Colour names per game (R-IND-3). The engine and the TRF speak of the *first mover* and the
//! *second mover*; outputs name them as the game does:
//!
//! | game | first mover | second mover |
//! |---|---|---|
//! | Chess 国际象棋 | White 白 | Black 黑 |
//! | Go 围棋 | Black 黑 | White 白 |
//! | Xiangqi 象棋 | Red 红 | Black 黑 |
//!
//! In a TRF file the colour letter `w` always means the first mover and `b` the second mover, so a
//! Go or Xiangqi final exchanges files with chess pairing programs unchanged (reading chosen here:
//! the TRF letters are the chess names of the move order).

/// One of the three games of the championship.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Game {
    Chess,
    Go,
    Xiangqi,
}

/// A side by move order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mover {
    /// Moves first: White in Chess, Black in Go, Red in Xiangqi. TRF letter `w`.
    First,
    /// Moves second: Black in Chess, White in Go, Black in Xiangqi. TRF letter `b`.
    Second,
}

impl Mover {
    /// The other side.
    pub fn other(self) -> Mover {
        match self {
            Mover::First => Mover::Second,
            Mover::Second => Mover::First,
        }
    }

    /// The TRF colour letter (`w` for the first mover, `b` for the second).
    pub fn trf_letter(self) -> char {
        match self {
            Mover::First => 'w',
            Mover::Second => 'b',
        }
    }

    /// Reads a TRF colour letter (`w`/`b`, either case); anything else is not a colour.
    pub fn from_trf_letter(c: char) -> Option<Mover> {
        match c {
            'w' | 'W' => Some(Mover::First),
            'b' | 'B' => Some(Mover::Second),
            _ => None,
        }
    }
}

/// The names a game gives its two sides; used wherever a colour is shown (pairing lists,
/// standings, exports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColourNames {
    game: Game,
}

impl ColourNames {
    /// The colour names of `game`.
    pub fn of(game: Game) -> ColourNames {
        ColourNames { game }
    }

    /// The game these names belong to.
    pub fn game(self) -> Game {
        self.game
    }

    /// The English name of a side ("White", "Black", "Red").
    pub fn english(self, mover: Mover) -> &'static str {
        match (self.game, mover) {
            (Game::Chess, Mover::First) => "White",
            (Game::Chess, Mover::Second) => "Black",
            (Game::Go, Mover::First) => "Black",
            (Game::Go, Mover::Second) => "White",
            (Game::Xiangqi, Mover::First) => "Red",
            (Game::Xiangqi, Mover::Second) => "Black",
        }
    }

    /// The Chinese name of a side (白, 黑, 红).
    pub fn chinese(self, mover: Mover) -> &'static str {
        match (self.game, mover) {
            (Game::Chess, Mover::First) | (Game::Go, Mover::Second) => "白",
            (Game::Chess, Mover::Second) | (Game::Go, Mover::First) => "黑",
            (Game::Xiangqi, Mover::First) => "红",
            (Game::Xiangqi, Mover::Second) => "黑",
        }
    }

    /// The side an English colour name denotes in this game (case-insensitive), if any.
    pub fn mover_of(self, name: &str) -> Option<Mover> {
        [Mover::First, Mover::Second]
            .into_iter()
            .find(|&m| self.english(m).eq_ignore_ascii_case(name.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_ind_3_colour_names_per_game() {
        let chess = ColourNames::of(Game::Chess);
        let go = ColourNames::of(Game::Go);
        let xq = ColourNames::of(Game::Xiangqi);
        assert_eq!(
            (chess.english(Mover::First), chess.english(Mover::Second)),
            ("White", "Black")
        );
        assert_eq!(
            (go.english(Mover::First), go.english(Mover::Second)),
            ("Black", "White")
        );
        assert_eq!(
            (xq.english(Mover::First), xq.english(Mover::Second)),
            ("Red", "Black")
        );
        assert_eq!(
            (go.chinese(Mover::First), go.chinese(Mover::Second)),
            ("黑", "白")
        );
        assert_eq!(
            (xq.chinese(Mover::First), xq.chinese(Mover::Second)),
            ("红", "黑")
        );
        assert_eq!(chess.chinese(Mover::First), "白");
    }

    #[test]
    fn r_ind_3_colour_names_map_back_to_movers() {
        assert_eq!(
            ColourNames::of(Game::Go).mover_of("black"),
            Some(Mover::First)
        );
        assert_eq!(
            ColourNames::of(Game::Xiangqi).mover_of("Red"),
            Some(Mover::First)
        );
        assert_eq!(ColourNames::of(Game::Xiangqi).mover_of("White"), None);
        assert_eq!(
            ColourNames::of(Game::Chess).mover_of("Black"),
            Some(Mover::Second)
        );
    }

    #[test]
    fn trf_colour_letters_are_move_order() {
        assert_eq!(Mover::from_trf_letter('w'), Some(Mover::First));
        assert_eq!(Mover::from_trf_letter('B'), Some(Mover::Second));
        assert_eq!(Mover::from_trf_letter('-'), None);
        assert_eq!(Mover::First.trf_letter(), 'w');
        assert_eq!(Mover::Second.other(), Mover::First);
    }
}
