//! The team-ranking service (团体排名): team standings of every team event (R-TEAM-1..5).
//!
//! Nothing derived is stored: every read asks the pairing service for the final's rankings and
//! the registration service for each player's team (registered city teams and entering units, or
//! the region and country they publish), and computes the standings with `qiwang_core::team`. So a
//! correction or a disqualification upstream shows the next time the standings are read. An
//! organizer freezes the final standings (`team_ranking_frozen`); a frozen event still computes the
//! live standings and says when they differ, so nobody is silently left with stale results.
//!
//! Architecture invariant: this crate reads and writes only the `team_ranking_…` tables; rankings
//! and players come over gRPC with the caller's token. No rule lives here.

pub mod entity;
pub mod error;
pub mod service;

pub use service::TeamRankingApi;
