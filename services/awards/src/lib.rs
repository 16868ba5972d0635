//! The awards service (奖励与等级申报): prize lists (R-PRZ-1..2, R-IND-2), grade and title
//! certificates of every stage (R-GRD-1..3, R-GRD-5, R-GRD-7), go-2025 dan applications (R-GRD-4),
//! the organizers' approval with audited overrides, and the federations' certificate feed (R-GRD-6).
//!
//! Nothing derived is stored until approval: [`book`] gathers the rankings over gRPC (pairing's
//! final rankings, team-ranking's standings, qualification's leaderboards and knockout rounds,
//! registration's preset, pairs and players) and asks `qiwang_core` (`prize`, `grade`, `dan`) for
//! the award book. Approval stores the book (`awards_books`, version 1) and appends every
//! certificate to the feed (`awards_feed`); an override stores the next version and appends only
//! what changed: new records, new versions of changed ones, and revocations of those that no longer
//! stand. So a federation that pulls from its last cursor sees every change exactly once, and the
//! same cursor always gives the same records.
//!
//! Architecture invariant: this crate reads and writes only the `awards_…` tables; everything else
//! comes over gRPC with the caller's token. No rule lives here.

pub mod book;
pub mod entity;
pub mod error;
pub mod service;

pub use service::{AwardsApi, Upstream};

/// The audit log's chain (`qiwang_infra::audit`): `qiwang audit check` verifies it.
pub const AUDIT_CHAIN: qiwang_infra::audit::ChainedTable = qiwang_infra::audit::ChainedTable {
    name: "awards_decisions",
    id_column: "id",
    time_column: "decided_at",
    text_columns: &[
        "championship_id",
        "action",
        "decided_by",
        "reason",
        "detail",
    ],
};
