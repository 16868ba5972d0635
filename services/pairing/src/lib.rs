//! The pairing service (编排): the final's Swiss events. Organizers create an event from the
//! championship's preset (fetched from the registration service) and a list of entrants;
//! referees pair rounds with the FIDE Dutch engine and record results; players appeal rulings;
//! everyone authenticated reads pairings, standings and exports.
//!
//! Storage is an append-only log per event (`pairing_changes`): each change is a
//! `qiwang.pairing.v1.Fact` with who, when and why. The state is the replay of the log through
//! `qiwang_swiss::event::FinalEvent`, which checks every rule; a write derives its facts from the
//! replayed state and appends them at the next sequence numbers, so two writers of one event
//! conflict on the primary key (the loser retries) on any number of replicas.
//!
//! Architecture invariant: this crate reads and writes only the `pairing_…` tables; players come
//! from the registration service over gRPC. No rule lives here.

mod convert;
pub mod entity;
pub mod error;
pub mod service;

pub use service::PairingApi;
