//! The team-ranking service's override log: every change to frozen standings, with the standings
//! it replaced (their protobuf encoding), who, when and why (R-DIS-3).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum TeamRankingOverrides {
    Table,
    Id,
    ChampionshipId,
    TeamEvent,
    Previous,
    OverriddenAt,
    OverriddenBy,
    Reason,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use TeamRankingOverrides as O;
        manager
            .create_table(
                Table::create()
                    .table(O::Table)
                    .col(big_integer(O::Id).primary_key().auto_increment())
                    .col(string_len(O::ChampionshipId, 40))
                    .col(string_len(O::TeamEvent, 64))
                    .col(blob(O::Previous))
                    .col(timestamp_with_time_zone(O::OverriddenAt))
                    .col(string_len(O::OverriddenBy, 128))
                    .col(text(O::Reason))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(TeamRankingOverrides::Table).to_owned())
            .await
    }
}
