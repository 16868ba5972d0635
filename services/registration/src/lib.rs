//! The registration service (报名): championships from presets, players and their identity
//! (R-REG-3), linked platform accounts (R-REG-4), per-game bar lists (R-REG-2) and online-qualifier
//! entries (R-REG-1, R-REG-8).
//!
//! Architecture invariant: this crate reads and writes only the `registration_…` tables; other
//! services reach its data through its gRPC API. Rules are `qiwang-core` functions.

pub mod entity;
pub mod error;
pub mod service;

pub use service::RegistrationApi;
