//! Checkpoints of the live leaderboards (`qualification_checkpoints`): each period's board as a
//! replica last wrote it, with the change sequence value it covers, so a restarted process loads
//! it and applies only what was stored after (the tail) instead of recomputing the period from
//! every stored game.
//!
//! A checkpoint is `qiwang_core::live::LivePeriod::checkpoint` (postcard), cut into parts of a few
//! MiB (a national period's board is ~100-200 MB), one row per part; every part of one checkpoint
//! carries the same `seq` and `format`, and a checkpoint is replaced whole in one transaction. It
//! is derived data: deleting the rows only makes the next start recompute. `taken_at` lets
//! replicas that serve the same period skip a checkpoint another one has just written. On
//! PostgreSQL the parts are stored out of line without TOAST compression (compact already; pglz
//! would cost seconds).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationCheckpoints {
    Table,
    ChampionshipId,
    Stage,
    Period,
    Part,
    Seq,
    TakenAt,
    Format,
    Body,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationCheckpoints as C;
        manager
            .create_table(
                Table::create()
                    .table(C::Table)
                    .col(string_len(C::ChampionshipId, 40))
                    .col(string_len(C::Stage, 32))
                    .col(integer(C::Period))
                    .col(integer(C::Part))
                    .col(big_integer(C::Seq))
                    .col(timestamp_with_time_zone(C::TakenAt))
                    .col(string(C::Format))
                    .col(blob(C::Body))
                    .primary_key(
                        Index::create()
                            .col(C::ChampionshipId)
                            .col(C::Stage)
                            .col(C::Period)
                            .col(C::Part),
                    )
                    .to_owned(),
            )
            .await?;
        if manager.get_database_backend() == DbBackend::Postgres {
            manager
                .get_connection()
                .execute_unprepared(
                    "ALTER TABLE qualification_checkpoints ALTER COLUMN body SET STORAGE EXTERNAL",
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(
                Table::drop()
                    .table(QualificationCheckpoints::Table)
                    .to_owned(),
            )
            .await
    }
}
