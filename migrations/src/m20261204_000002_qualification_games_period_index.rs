//! Drops `ix_qualification_games_period` (championship, stage, period): since the change sequence
//! came in, `ix_qualification_games_seq` (championship, stage, period, seq) begins with the same
//! columns and serves every query the shorter one served, so the shorter one only cost every
//! stored game one more index entry to write (a third of the table's index writes).

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationGames {
    Table,
    ChampionshipId,
    Stage,
    Period,
}

const NAME: &str = "ix_qualification_games_period";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name(NAME)
                    .table(QualificationGames::Table)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name(NAME)
                    .table(QualificationGames::Table)
                    .col(QualificationGames::ChampionshipId)
                    .col(QualificationGames::Stage)
                    .col(QualificationGames::Period)
                    .to_owned(),
            )
            .await
    }
}
