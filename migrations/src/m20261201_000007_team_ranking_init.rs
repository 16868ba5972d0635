//! The team-ranking service's one table: team standings an organizer froze (their protobuf
//! encoding), per championship and team event. Everything else is computed on read.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum TeamRankingFrozen {
    Table,
    ChampionshipId,
    TeamEvent,
    Standings,
    FrozenAt,
    FrozenBy,
    Reason,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use TeamRankingFrozen as F;
        manager
            .create_table(
                Table::create()
                    .table(F::Table)
                    .col(string_len(F::ChampionshipId, 40))
                    .col(string_len(F::TeamEvent, 64))
                    .col(blob(F::Standings))
                    .col(timestamp_with_time_zone(F::FrozenAt))
                    .col(string_len(F::FrozenBy, 128))
                    .col(text(F::Reason))
                    .primary_key(Index::create().col(F::ChampionshipId).col(F::TeamEvent))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(TeamRankingFrozen::Table).to_owned())
            .await
    }
}
