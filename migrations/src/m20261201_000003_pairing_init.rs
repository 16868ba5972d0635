//! The pairing service's tables: one row per final event, and each event's append-only log of
//! changes (facts, as their protobuf encoding). The state of an event is the replay of its log;
//! the primary key (event, seq) makes two concurrent writers of one event conflict instead of
//! both succeeding, on every replica.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum PairingEvents {
    Table,
    Id,
    ChampionshipId,
    EventCode,
    Name,
    CreatedAt,
    CreatedBy,
}

#[derive(DeriveIden)]
enum PairingChanges {
    Table,
    EventId,
    Seq,
    At,
    Actor,
    Role,
    Reason,
    Fact,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PairingEvents::Table)
                    .col(string_len(PairingEvents::Id, 40).primary_key())
                    .col(string_len(PairingEvents::ChampionshipId, 40))
                    .col(string_len(PairingEvents::EventCode, 64))
                    .col(text(PairingEvents::Name))
                    .col(timestamp_with_time_zone(PairingEvents::CreatedAt))
                    .col(string_len(PairingEvents::CreatedBy, 128))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(PairingChanges::Table)
                    .col(string_len(PairingChanges::EventId, 40))
                    .col(big_integer(PairingChanges::Seq))
                    .col(timestamp_with_time_zone(PairingChanges::At))
                    .col(string_len(PairingChanges::Actor, 128))
                    .col(string_len(PairingChanges::Role, 16))
                    .col(text(PairingChanges::Reason))
                    .col(blob(PairingChanges::Fact))
                    .primary_key(
                        Index::create()
                            .col(PairingChanges::EventId)
                            .col(PairingChanges::Seq),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(PairingChanges::Table, PairingChanges::EventId)
                            .to(PairingEvents::Table, PairingEvents::Id),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PairingChanges::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(PairingEvents::Table).to_owned())
            .await
    }
}
