//! Schema migrations for every qiwang service.
//!
//! Architecture invariant: each service owns its tables, named with its prefix (`registration_…`),
//! and no service reads another's; one migration file touches one service's tables only.
//! `qiwang up` (embedded SQLite) applies them on start; PostgreSQL deployments run `qiwang migrate up`
//! (the Kubernetes migration Job) before the services start.

pub use sea_orm_migration::prelude::*;

mod m20261129_000001_registration_init;
mod m20261130_000001_qualification_init;
mod m20261201_000001_qualification_knockout;
mod m20261201_000002_qualification_sequence;
mod m20261201_000003_pairing_init;
mod m20261201_000004_registration_pairs;
mod m20261201_000005_registration_finals;
mod m20261201_000006_registration_wildcards;
mod m20261201_000007_team_ranking_init;
mod m20261201_000008_awards_init;
mod m20261201_000009_team_ranking_overrides;
mod m20261201_000010_audit_chains;
mod m20261201_000011_registration_evidence;
mod m20261201_000012_qualification_report_receipts;
mod m20261201_000013_qualification_notice_rules;
mod m20261204_000001_qualification_frozen_lists;
mod m20261204_000002_qualification_games_period_index;
mod m20261204_000003_qualification_frozen_chunk_storage;
mod m20261207_000001_qualification_checkpoints;
mod m20261207_000002_qualification_period_sequences;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261129_000001_registration_init::Migration),
            Box::new(m20261130_000001_qualification_init::Migration),
            Box::new(m20261201_000001_qualification_knockout::Migration),
            Box::new(m20261201_000002_qualification_sequence::Migration),
            Box::new(m20261201_000003_pairing_init::Migration),
            Box::new(m20261201_000004_registration_pairs::Migration),
            Box::new(m20261201_000005_registration_finals::Migration),
            Box::new(m20261201_000006_registration_wildcards::Migration),
            Box::new(m20261201_000007_team_ranking_init::Migration),
            Box::new(m20261201_000008_awards_init::Migration),
            Box::new(m20261201_000009_team_ranking_overrides::Migration),
            Box::new(m20261201_000010_audit_chains::Migration),
            Box::new(m20261201_000011_registration_evidence::Migration),
            Box::new(m20261201_000012_qualification_report_receipts::Migration),
            Box::new(m20261201_000013_qualification_notice_rules::Migration),
            Box::new(m20261204_000001_qualification_frozen_lists::Migration),
            Box::new(m20261204_000002_qualification_games_period_index::Migration),
            Box::new(m20261204_000003_qualification_frozen_chunk_storage::Migration),
            Box::new(m20261207_000001_qualification_checkpoints::Migration),
            Box::new(m20261207_000002_qualification_period_sequences::Migration),
        ]
    }

    fn migration_table_name() -> DynIden {
        "qiwang_migrations".into_iden()
    }
}
