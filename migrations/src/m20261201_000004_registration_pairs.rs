//! The registration service's pairs events (R-PAIR-1..3, R-REG-10): registered pairs, their
//! members (one pair per player per event, enforced by the primary key), and each event's draw
//! (the published seed, the frozen candidate order and the outcome).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RegistrationPairs {
    Table,
    Id,
    ChampionshipId,
    Event,
    FirstPlayer,
    SecondPlayer,
    Relation,
    RelationDocument,
    RelationCheck,
    Status,
    StatusReason,
    RegisteredAt,
    RegisteredBy,
}

#[derive(DeriveIden)]
enum RegistrationPairMembers {
    Table,
    ChampionshipId,
    Event,
    PlayerId,
    PairId,
}

#[derive(DeriveIden)]
enum RegistrationPairDraws {
    Table,
    ChampionshipId,
    Event,
    Seed,
    SeedPublishedAt,
    Candidates,
    Outcome,
    DrawnAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use RegistrationPairs as P;
        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .col(string_len(P::Id, 40).primary_key())
                    .col(string_len(P::ChampionshipId, 40))
                    .col(string_len(P::Event, 64))
                    .col(string_len(P::FirstPlayer, 128))
                    .col(string_len(P::SecondPlayer, 128))
                    .col(string_len(P::Relation, 32))
                    .col(text(P::RelationDocument))
                    .col(string_len(P::RelationCheck, 16))
                    .col(string_len(P::Status, 16))
                    .col(text(P::StatusReason))
                    .col(timestamp_with_time_zone(P::RegisteredAt))
                    .col(string_len(P::RegisteredBy, 128))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("registration_pairs_by_event")
                    .table(P::Table)
                    .col(P::ChampionshipId)
                    .col(P::Event)
                    .col(P::RegisteredAt)
                    .to_owned(),
            )
            .await?;
        use RegistrationPairMembers as M;
        manager
            .create_table(
                Table::create()
                    .table(M::Table)
                    .col(string_len(M::ChampionshipId, 40))
                    .col(string_len(M::Event, 64))
                    .col(string_len(M::PlayerId, 128))
                    .col(string_len(M::PairId, 40))
                    .primary_key(
                        Index::create()
                            .col(M::ChampionshipId)
                            .col(M::Event)
                            .col(M::PlayerId),
                    )
                    .to_owned(),
            )
            .await?;
        use RegistrationPairDraws as D;
        manager
            .create_table(
                Table::create()
                    .table(D::Table)
                    .col(string_len(D::ChampionshipId, 40))
                    .col(string_len(D::Event, 64))
                    .col(text(D::Seed))
                    .col(timestamp_with_time_zone(D::SeedPublishedAt))
                    .col(text_null(D::Candidates))
                    .col(text_null(D::Outcome))
                    .col(timestamp_with_time_zone_null(D::DrawnAt))
                    .primary_key(Index::create().col(D::ChampionshipId).col(D::Event))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            RegistrationPairDraws::Table.into_iden(),
            RegistrationPairMembers::Table.into_iden(),
            RegistrationPairs::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
