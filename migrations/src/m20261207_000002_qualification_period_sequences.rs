//! A change sequence per period instead of one for the whole service: each write that changes a
//! period's standings (a group of games, a reset) takes the next value of its period's `seq` on
//! `qualification_periods` inside its transaction, and a cheating verdict takes one of every
//! period of its championship. The period's row stays locked until commit, so a period's values
//! become visible in order while other periods' writes go on beside them, on one replica or many
//! (the single `qualification_counters` row made every ingest transaction of every championship
//! wait for the one before).
//!
//! Every period's sequence starts at the old counter's value, above every value stored so far, so
//! rows, live boards and checkpoints stamped under the old counter keep their meaning. The old
//! counter is dropped (down recreates it at the highest period value).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::ConnectionTrait;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationPeriods {
    Table,
    Seq,
}

#[derive(DeriveIden)]
enum QualificationCounters {
    Table,
    Name,
    Value,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(QualificationPeriods::Table)
                    .add_column(big_integer(QualificationPeriods::Seq).default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE qualification_periods SET seq = COALESCE((SELECT value FROM \
                 qualification_counters WHERE name = 'changes'), 0)",
            )
            .await?;
        manager
            .drop_table(Table::drop().table(QualificationCounters::Table).to_owned())
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationCounters as C;
        manager
            .create_table(
                Table::create()
                    .table(C::Table)
                    .col(string_len(C::Name, 32).primary_key())
                    .col(big_integer(C::Value))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO qualification_counters (name, value) SELECT 'changes', \
                 COALESCE(MAX(seq), 0) FROM qualification_periods",
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(QualificationPeriods::Table)
                    .drop_column(QualificationPeriods::Seq)
                    .to_owned(),
            )
            .await
    }
}
