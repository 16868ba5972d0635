//! The qualification service's change sequence: every write that changes a period's standings
//! (a batch of games, a reset, a cheating verdict) takes the next value of one counter, inside its
//! transaction, and stamps its rows with it. The counter row is locked until commit, so values
//! become visible in order: a replica that has applied everything up to the value it reads knows
//! exactly what is new (`seq >` that value), and live leaderboards stay exact across replicas.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationGames {
    Table,
    ChampionshipId,
    Stage,
    Period,
    Seq,
}

#[derive(DeriveIden)]
enum QualificationResets {
    Table,
    Seq,
}

#[derive(DeriveIden)]
enum QualificationCancellations {
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
        for (table, column) in [
            (
                QualificationGames::Table.into_iden(),
                QualificationGames::Seq.into_iden(),
            ),
            (
                QualificationResets::Table.into_iden(),
                QualificationResets::Seq.into_iden(),
            ),
            (
                QualificationCancellations::Table.into_iden(),
                QualificationCancellations::Seq.into_iden(),
            ),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(table)
                        .add_column(big_integer(column).default(0))
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("ix_qualification_games_seq")
                    .table(QualificationGames::Table)
                    .col(QualificationGames::ChampionshipId)
                    .col(QualificationGames::Stage)
                    .col(QualificationGames::Period)
                    .col(QualificationGames::Seq)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(QualificationCounters::Table)
                    .col(string_len(QualificationCounters::Name, 32).primary_key())
                    .col(big_integer(QualificationCounters::Value))
                    .to_owned(),
            )
            .await?;
        manager
            .exec_stmt(
                Query::insert()
                    .into_table(QualificationCounters::Table)
                    .columns([QualificationCounters::Name, QualificationCounters::Value])
                    .values_panic(["changes".into(), 0i64.into()])
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(QualificationCounters::Table).to_owned())
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("ix_qualification_games_seq")
                    .table(QualificationGames::Table)
                    .to_owned(),
            )
            .await?;
        for (table, column) in [
            (
                QualificationGames::Table.into_iden(),
                QualificationGames::Seq.into_iden(),
            ),
            (
                QualificationResets::Table.into_iden(),
                QualificationResets::Seq.into_iden(),
            ),
            (
                QualificationCancellations::Table.into_iden(),
                QualificationCancellations::Seq.into_iden(),
            ),
        ] {
            manager
                .alter_table(Table::alter().table(table).drop_column(column).to_owned())
                .await?;
        }
        Ok(())
    }
}
