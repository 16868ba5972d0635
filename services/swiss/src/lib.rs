//! The Swiss system of the finals of qiwang (棋王), issue 9: the FIDE Dutch pairing engine and
//! the data it stands on.
//!
//! - [`dutch`]: the FIDE (Dutch) system, C.04.3 as applied from 1 February 2026 (the "2025
//!   rules"): absolute criteria C1-C3, completion C4, the bye criterion C5 and quality criteria
//!   C6-C21 as digits of exact matching weights, bracket by bracket; colour allocation (Art. 5);
//!   requested byes, absences, forbidden pairs, configurable points. Reproduces bbpPairings 6.
//! - [`cli`]: the bbpPairings/JaVaFo command line (`--dutch in.trf -p [out]`, `-c`) without IO.
//! - [`trf`]: FIDE Tournament Report Files (TRF-16 and TRF-2026, with the JaVaFo/bbpPairings
//!   extensions `XXR`, `XXC`, `XXP`, `BBW`/`BBD`/`BBL`/`BBZ`/`BBF`/`BBU`) read into a plain,
//!   order-preserving model and written back byte for byte where the layout is canonical.
//! - [`points`]: integer point systems (half-points: FIDE 1/½/0 = 2/1/0; Go and Xiangqi finals
//!   score 2/1/0 natively) and the TRF result codes.
//! - [`tournament`]: the checked, per-round view of a tournament (who met whom, with which colour,
//!   which byes and forfeits) that tie-breaks and the engine read.
//! - [`tiebreak`]: FIDE C.07 tie-breaks with its unplayed-round rules, the Chinese orders
//!   (对手分, 胜局, 犯规, 后走局数, 后手胜局, 累进分), ordered rankings with shared places, and the
//!   women's ranking drawn from an open event (R-IND-2).
//! - [`event`]: a final event kept fact by fact (entrants, groups, late entries, withdrawals,
//!   byes, rounds and results, corrections, appeals), paired with [`dutch`], ranked with
//!   [`tiebreak`], exported as TRF, CSV and EGD h9.
//! - [`colour`]: colour names per game (Chess White/Black, Go Black/White, Xiangqi Red/Black).
//!
//! Architecture invariant: nothing here does IO or is async; files come in as `&str` and go out
//! as `String`, and every malformed input is a typed error (with line and column for TRF), never a
//! panic.

pub mod cli;
pub mod colour;
pub mod dutch;
pub mod event;
pub mod points;
pub mod tiebreak;
pub mod tournament;
pub mod trf;
