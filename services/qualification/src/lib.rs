//! The qualification service (网络赛): partner platforms report finished online games; qiwang
//! scores them by the championship's preset, keeps the period leaderboards, and turns a closed
//! period into its advancement list (RULES.md sections 3-4).
//!
//! Architecture invariant: reads and writes only `qualification_…` tables. Players and accounts
//! come from the registration service over gRPC (`ResolveAccounts`, `GetChampionshipRules`), called
//! with the caller's own token. Rules are `qiwang-core` functions.

pub mod entity;
pub mod error;
pub mod facts;
pub mod service;

pub use service::QualificationApi;

/// The audit log's chain (`qiwang_infra::audit`): `qiwang audit check` verifies it.
pub const AUDIT_CHAIN: qiwang_infra::audit::ChainedTable = qiwang_infra::audit::ChainedTable {
    name: "qualification_audit",
    id_column: "id",
    time_column: "at",
    text_columns: &["actor", "role", "action", "subject", "detail"],
};
