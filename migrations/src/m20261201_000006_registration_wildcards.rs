//! The registration service's wildcard applications (外卡, R-WC-1, R-WC-2): one per player per
//! event, with who decided each step and when.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RegistrationWildcards {
    Table,
    Id,
    ChampionshipId,
    Event,
    PlayerId,
    Source,
    CertificatePhoto,
    Status,
    Reason,
    SubmittedAt,
    SubmittedBy,
    DecidedAt,
    DecidedBy,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use RegistrationWildcards as W;
        manager
            .create_table(
                Table::create()
                    .table(W::Table)
                    .col(string_len(W::Id, 40).primary_key())
                    .col(string_len(W::ChampionshipId, 40))
                    .col(string_len(W::Event, 64))
                    .col(string_len(W::PlayerId, 128))
                    .col(string_len(W::Source, 64))
                    .col(text(W::CertificatePhoto))
                    .col(string_len(W::Status, 16))
                    .col(text(W::Reason))
                    .col(timestamp_with_time_zone(W::SubmittedAt))
                    .col(string_len(W::SubmittedBy, 128))
                    .col(timestamp_with_time_zone(W::DecidedAt))
                    .col(string_len(W::DecidedBy, 128))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("registration_wildcards_one_per_event")
                    .table(W::Table)
                    .col(W::ChampionshipId)
                    .col(W::Event)
                    .col(W::PlayerId)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RegistrationWildcards::Table).to_owned())
            .await
    }
}
