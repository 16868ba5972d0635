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

/// The audit log's chain (`qiwang_infra::audit`): `qiwang audit check` verifies it.
pub const AUDIT_CHAIN: qiwang_infra::audit::ChainedTable = qiwang_infra::audit::ChainedTable {
    name: "registration_audit",
    id_column: "id",
    time_column: "at",
    text_columns: &["actor", "role", "action", "subject", "detail"],
};
