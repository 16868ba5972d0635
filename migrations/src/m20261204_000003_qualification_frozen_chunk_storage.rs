//! Stores frozen-list chunks uncompressed on PostgreSQL (`STORAGE EXTERNAL`: out of line, no TOAST
//! compression). A national list is about 30 MB of JSON chunks, and PostgreSQL's default TOAST
//! compression (pglz) ran at about 30 MB/s on them: most of the second a period's close spent
//! storing its list. Inserting 16 such chunks of 3.7 MB took 2.0 s under pglz, 0.33 s under lz4 and
//! 0.25 s uncompressed (psql, on the 2-core development machine); lz4 depends on how the server was
//! built, uncompressed storage does not. Rows stored before keep their form (PostgreSQL reads
//! both). SQLite has no such setting: there is nothing to do.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

async fn set_storage(manager: &SchemaManager<'_>, storage: &str) -> Result<(), DbErr> {
    if manager.get_database_backend() != DbBackend::Postgres {
        return Ok(());
    }
    manager
        .get_connection()
        .execute_unprepared(&format!(
            "ALTER TABLE qualification_frozen_chunks ALTER COLUMN body SET STORAGE {storage}"
        ))
        .await
        .map(|_| ())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        set_storage(manager, "EXTERNAL").await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // PostgreSQL's default for text.
        set_storage(manager, "EXTENDED").await
    }
}
