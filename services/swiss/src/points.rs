//! Points in integer half-points, TRF result codes, and the point system that values them.
//!
//! FIDE's 1/½/0 is kept as 2/1/0 half-points; Go and Xiangqi finals score 2/1/0 natively, which is
//! the same integers, so one arithmetic serves the three games and nothing is a float. A point
//! system is configurable per tournament (and read from TRF `BB?` and `162` records).

use std::fmt;

/// A score in half-points (FIDE ½ = 1). Written in TRF as a decimal with one digit (`3.5`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HalfPoints(pub u32);

impl HalfPoints {
    /// Zero points.
    pub const ZERO: HalfPoints = HalfPoints(0);

    /// The largest value read from text: 99999.5 (TRF fields hold four characters; `BB?` values
    /// are free-form but no point system needs more).
    pub const MAX_READ: HalfPoints = HalfPoints(199_999);

    /// Reads a TRF decimal (`3`, `3.0`, `3.5`, `.5`); other fractions than `.0`/`.5`, and values
    /// above [`HalfPoints::MAX_READ`], are refused.
    pub fn parse_decimal(text: &str) -> Option<HalfPoints> {
        let text = text.trim();
        let (whole, frac) = match text.split_once('.') {
            Some((w, f)) => (w, f),
            None => (text, ""),
        };
        if whole.is_empty() && frac.is_empty() {
            return None;
        }
        if !whole.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let whole: u32 = if whole.is_empty() {
            0
        } else {
            whole.parse().ok()?
        };
        let half = match frac.trim_end_matches('0') {
            "" => 0,
            "5" => 1,
            _ => return None,
        };
        whole
            .checked_mul(2)?
            .checked_add(half)
            .filter(|&h| h <= HalfPoints::MAX_READ.0)
            .map(HalfPoints)
    }
}

impl fmt::Display for HalfPoints {
    /// `7` half-points is `3.5`; always one decimal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = format!("{}.{}", self.0 / 2, if self.0 % 2 == 1 { 5 } else { 0 });
        f.pad(&text)
    }
}

/// A round's result code of a TRF `001` line (column 99 for round 1). Letters are read in either
/// case and written in upper case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResultCode {
    /// `1`: win over the board.
    Win,
    /// `=`: draw over the board (`½` is also read as a draw).
    Draw,
    /// `0`: loss over the board.
    Loss,
    /// `+`: forfeit win.
    ForfeitWin,
    /// `-`: forfeit loss.
    ForfeitLoss,
    /// `W`: win of a game that lasted less than one move (not rated).
    UnratedWin,
    /// `D`: draw of a game that lasted less than one move (not rated).
    UnratedDraw,
    /// `L`: loss of a game that lasted less than one move (not rated).
    UnratedLoss,
    /// `H`: half-point bye (requested).
    HalfPointBye,
    /// `F`: full-point bye (requested or granted).
    FullPointBye,
    /// `U`: pairing-allocated bye (at most one per round).
    PairingAllocatedBye,
    /// `Z`: zero-point bye (known absence).
    ZeroPointBye,
    /// A blank result column: equivalent to `Z`, kept apart so the file round-trips.
    Blank,
}

impl ResultCode {
    /// Every code, for generators and tables.
    pub const ALL: [ResultCode; 13] = [
        ResultCode::Win,
        ResultCode::Draw,
        ResultCode::Loss,
        ResultCode::ForfeitWin,
        ResultCode::ForfeitLoss,
        ResultCode::UnratedWin,
        ResultCode::UnratedDraw,
        ResultCode::UnratedLoss,
        ResultCode::HalfPointBye,
        ResultCode::FullPointBye,
        ResultCode::PairingAllocatedBye,
        ResultCode::ZeroPointBye,
        ResultCode::Blank,
    ];

    /// Reads a result character.
    pub fn from_char(c: char) -> Option<ResultCode> {
        Some(match c {
            '1' => ResultCode::Win,
            '=' | '½' => ResultCode::Draw,
            '0' => ResultCode::Loss,
            '+' => ResultCode::ForfeitWin,
            '-' => ResultCode::ForfeitLoss,
            'W' | 'w' => ResultCode::UnratedWin,
            'D' | 'd' => ResultCode::UnratedDraw,
            'L' | 'l' => ResultCode::UnratedLoss,
            'H' | 'h' => ResultCode::HalfPointBye,
            'F' | 'f' => ResultCode::FullPointBye,
            'U' | 'u' => ResultCode::PairingAllocatedBye,
            'Z' | 'z' => ResultCode::ZeroPointBye,
            ' ' => ResultCode::Blank,
            _ => return None,
        })
    }

    /// The canonical character.
    pub fn to_char(self) -> char {
        match self {
            ResultCode::Win => '1',
            ResultCode::Draw => '=',
            ResultCode::Loss => '0',
            ResultCode::ForfeitWin => '+',
            ResultCode::ForfeitLoss => '-',
            ResultCode::UnratedWin => 'W',
            ResultCode::UnratedDraw => 'D',
            ResultCode::UnratedLoss => 'L',
            ResultCode::HalfPointBye => 'H',
            ResultCode::FullPointBye => 'F',
            ResultCode::PairingAllocatedBye => 'U',
            ResultCode::ZeroPointBye => 'Z',
            ResultCode::Blank => ' ',
        }
    }

    /// Whether the code needs an opponent (a game was scheduled): results over the board, the
    /// unrated W/D/L, and forfeits. `+`/`-` may also stand without an opponent (0000).
    pub fn is_game(self) -> bool {
        matches!(
            self,
            ResultCode::Win
                | ResultCode::Draw
                | ResultCode::Loss
                | ResultCode::UnratedWin
                | ResultCode::UnratedDraw
                | ResultCode::UnratedLoss
        )
    }

    /// Whether the code is a forfeit (`+` or `-`).
    pub fn is_forfeit(self) -> bool {
        matches!(self, ResultCode::ForfeitWin | ResultCode::ForfeitLoss)
    }

    /// Whether the code is a bye of any kind or an absence (no opponent).
    pub fn is_bye(self) -> bool {
        matches!(
            self,
            ResultCode::HalfPointBye
                | ResultCode::FullPointBye
                | ResultCode::PairingAllocatedBye
                | ResultCode::ZeroPointBye
                | ResultCode::Blank
        )
    }
}

/// The points each kind of round outcome brings, in half-points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointSystem {
    /// Win over the board (and unrated `W`). TRF `BBW`, `162 W`.
    pub win: HalfPoints,
    /// Draw over the board (and unrated `D`). TRF `BBD`, `162 D`.
    pub draw: HalfPoints,
    /// Loss over the board (and unrated `L`). TRF `BBL`, `162 L`.
    pub loss: HalfPoints,
    /// Forfeit win: like a win (TRF-2026 `162 W` covers it).
    pub forfeit_win: HalfPoints,
    /// Forfeit loss. TRF `BBF`, `162 A`.
    pub forfeit_loss: HalfPoints,
    /// Full-point bye: like a win.
    pub full_point_bye: HalfPoints,
    /// Half-point bye: like a draw.
    pub half_point_bye: HalfPoints,
    /// Zero-point bye and absence. TRF `BBZ`, `162 A`.
    pub zero_point_bye: HalfPoints,
    /// Pairing-allocated bye. TRF `BBU`, `162 P`.
    pub pairing_allocated_bye: HalfPoints,
}

impl PointSystem {
    /// FIDE 1/½/0 (= 2/1/0 half-points), also the native 2/1/0 of Go and Xiangqi finals; a
    /// pairing-allocated bye is worth a win.
    pub const FIDE: PointSystem = PointSystem {
        win: HalfPoints(2),
        draw: HalfPoints(1),
        loss: HalfPoints(0),
        forfeit_win: HalfPoints(2),
        forfeit_loss: HalfPoints(0),
        full_point_bye: HalfPoints(2),
        half_point_bye: HalfPoints(1),
        zero_point_bye: HalfPoints(0),
        pairing_allocated_bye: HalfPoints(2),
    };

    /// The points a result code brings.
    pub fn points(&self, code: ResultCode) -> HalfPoints {
        match code {
            ResultCode::Win | ResultCode::UnratedWin => self.win,
            ResultCode::Draw | ResultCode::UnratedDraw => self.draw,
            ResultCode::Loss | ResultCode::UnratedLoss => self.loss,
            ResultCode::ForfeitWin => self.forfeit_win,
            ResultCode::ForfeitLoss => self.forfeit_loss,
            ResultCode::FullPointBye => self.full_point_bye,
            ResultCode::HalfPointBye => self.half_point_bye,
            ResultCode::ZeroPointBye | ResultCode::Blank => self.zero_point_bye,
            ResultCode::PairingAllocatedBye => self.pairing_allocated_bye,
        }
    }
}

impl Default for PointSystem {
    fn default() -> Self {
        PointSystem::FIDE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trf_decimal_points_are_half_points() {
        assert_eq!(HalfPoints::parse_decimal("3.5"), Some(HalfPoints(7)));
        assert_eq!(HalfPoints::parse_decimal(" 4.0"), Some(HalfPoints(8)));
        assert_eq!(HalfPoints::parse_decimal("4"), Some(HalfPoints(8)));
        assert_eq!(HalfPoints::parse_decimal(".5"), Some(HalfPoints(1)));
        assert_eq!(HalfPoints::parse_decimal("2.25"), None);
        assert_eq!(HalfPoints::parse_decimal("-1"), None);
        assert_eq!(HalfPoints::parse_decimal(""), None);
        assert_eq!(HalfPoints::parse_decimal("."), None);
        assert_eq!(
            HalfPoints::parse_decimal("99999.5"),
            Some(HalfPoints::MAX_READ)
        );
        assert_eq!(HalfPoints::parse_decimal("100000"), None);
        assert_eq!(HalfPoints::parse_decimal("99999999999999999999"), None);
        assert_eq!(format!("{:>4}", HalfPoints(7)), " 3.5");
        assert_eq!(HalfPoints(20).to_string(), "10.0");
    }

    #[test]
    fn trf_result_codes_round_trip_their_characters() {
        for code in ResultCode::ALL {
            assert_eq!(ResultCode::from_char(code.to_char()), Some(code));
        }
        assert_eq!(ResultCode::from_char('h'), Some(ResultCode::HalfPointBye));
        assert_eq!(ResultCode::from_char('x'), None);
    }

    #[test]
    fn trf_fide_point_system_values_every_code() {
        let p = PointSystem::FIDE;
        assert_eq!(p.points(ResultCode::Win), HalfPoints(2));
        assert_eq!(p.points(ResultCode::HalfPointBye), HalfPoints(1));
        assert_eq!(p.points(ResultCode::PairingAllocatedBye), HalfPoints(2));
        assert_eq!(p.points(ResultCode::Blank), HalfPoints(0));
        assert_eq!(p.points(ResultCode::ForfeitWin), HalfPoints(2));
    }
}
