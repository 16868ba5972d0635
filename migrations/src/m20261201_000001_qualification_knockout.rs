//! Qualification service tables for direct seeds, knockout stages, the finalist list and its public
//! notice, and repechages (R-ADV-2/3/5/6/12, R-FIN-1, R-PUB-1..3, R-REG-6).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationSeeds {
    Table,
    ChampionshipId,
    ToStage,
    PlayerId,
    SourceIndex,
    Source,
    Reason,
    DecidedBy,
    DecidedAt,
}

#[derive(DeriveIden)]
enum QualificationKnockoutRounds {
    Table,
    ChampionshipId,
    Stage,
    Round,
    Seed,
    SeedPublishedAt,
    Entrants,
    Pairs,
    Bye,
    DrawnAt,
    ClosedAt,
    Advancing,
}

#[derive(DeriveIden)]
enum QualificationKnockoutEvents {
    Table,
    ChampionshipId,
    Platform,
    EventId,
    Stage,
    Round,
    Kind,
    FirstPlayer,
    SecondPlayer,
    Blitz,
    At,
    Result,
    ReportedAt,
}

#[derive(DeriveIden)]
enum QualificationFinalists {
    Table,
    ChampionshipId,
    PlayerId,
    Origin,
    Stage,
    Period,
    Status,
    StatusReason,
    Replaces,
    QualifiedAt,
    FinalsInformationAt,
    ChangedAt,
}

#[derive(DeriveIden)]
enum QualificationNotices {
    Table,
    ChampionshipId,
    State,
    PublishedBy,
    PublishedAt,
    ClosedBy,
    ClosedAt,
}

#[derive(DeriveIden)]
enum QualificationNoticeReports {
    Table,
    Id,
    ChampionshipId,
    PlayerId,
    Text,
    State,
    FiledBy,
    FiledAt,
    DecidedBy,
    DecidedAt,
    DecisionReason,
    Replacement,
}

#[derive(DeriveIden)]
enum QualificationRepechages {
    Table,
    ChampionshipId,
    Stage,
    FeedingStage,
    Quota,
    Qualifiers,
    Places,
    DecidedBy,
    DecidedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationKnockoutEvents as E;
        use QualificationKnockoutRounds as K;
        use QualificationSeeds as S;

        manager
            .create_table(
                Table::create()
                    .table(S::Table)
                    .col(string_len(S::ChampionshipId, 40))
                    .col(string_len(S::ToStage, 32))
                    .col(string_len(S::PlayerId, 128))
                    .col(integer(S::SourceIndex))
                    .col(text(S::Source))
                    .col(text(S::Reason))
                    .col(string_len(S::DecidedBy, 128))
                    .col(timestamp_with_time_zone(S::DecidedAt))
                    .primary_key(
                        Index::create()
                            .col(S::ChampionshipId)
                            .col(S::ToStage)
                            .col(S::PlayerId),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(K::Table)
                    .col(string_len(K::ChampionshipId, 40))
                    .col(string_len(K::Stage, 32))
                    .col(integer(K::Round))
                    .col(text_null(K::Seed))
                    .col(timestamp_with_time_zone_null(K::SeedPublishedAt))
                    .col(text_null(K::Entrants))
                    .col(text_null(K::Pairs))
                    .col(string_len_null(K::Bye, 128))
                    .col(timestamp_with_time_zone_null(K::DrawnAt))
                    .col(timestamp_with_time_zone_null(K::ClosedAt))
                    .col(text_null(K::Advancing))
                    .primary_key(
                        Index::create()
                            .col(K::ChampionshipId)
                            .col(K::Stage)
                            .col(K::Round),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(E::Table)
                    .col(string_len(E::ChampionshipId, 40))
                    .col(string_len(E::Platform, 64))
                    .col(string_len(E::EventId, 200))
                    .col(string_len(E::Stage, 32))
                    .col(integer(E::Round))
                    .col(string_len(E::Kind, 8))
                    .col(string_len(E::FirstPlayer, 128))
                    .col(string_len(E::SecondPlayer, 128))
                    .col(boolean(E::Blitz))
                    .col(timestamp_with_time_zone(E::At))
                    .col(integer(E::Result))
                    .col(timestamp_with_time_zone(E::ReportedAt))
                    .primary_key(
                        Index::create()
                            .col(E::ChampionshipId)
                            .col(E::Platform)
                            .col(E::EventId),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_qualification_knockout_events_round")
                    .table(E::Table)
                    .col(E::ChampionshipId)
                    .col(E::Stage)
                    .col(E::Round)
                    .to_owned(),
            )
            .await?;

        use QualificationFinalists as F;
        use QualificationNoticeReports as R;
        use QualificationNotices as N;
        manager
            .create_table(
                Table::create()
                    .table(F::Table)
                    .col(string_len(F::ChampionshipId, 40))
                    .col(string_len(F::PlayerId, 128))
                    .col(string_len(F::Origin, 16))
                    .col(string_len(F::Stage, 32))
                    .col(integer(F::Period))
                    .col(string_len(F::Status, 16))
                    .col(text(F::StatusReason))
                    .col(string_len(F::Replaces, 128))
                    .col(timestamp_with_time_zone(F::QualifiedAt))
                    .col(timestamp_with_time_zone_null(F::FinalsInformationAt))
                    .col(timestamp_with_time_zone(F::ChangedAt))
                    .primary_key(Index::create().col(F::ChampionshipId).col(F::PlayerId))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(N::Table)
                    .col(string_len(N::ChampionshipId, 40).primary_key())
                    .col(string_len(N::State, 16))
                    .col(string_len_null(N::PublishedBy, 128))
                    .col(timestamp_with_time_zone_null(N::PublishedAt))
                    .col(string_len_null(N::ClosedBy, 128))
                    .col(timestamp_with_time_zone_null(N::ClosedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(R::Table)
                    .col(string_len(R::Id, 40).primary_key())
                    .col(string_len(R::ChampionshipId, 40))
                    .col(string_len(R::PlayerId, 128))
                    .col(text(R::Text))
                    .col(string_len(R::State, 24))
                    .col(string_len(R::FiledBy, 128))
                    .col(timestamp_with_time_zone(R::FiledAt))
                    .col(string_len_null(R::DecidedBy, 128))
                    .col(timestamp_with_time_zone_null(R::DecidedAt))
                    .col(text_null(R::DecisionReason))
                    .col(string_len_null(R::Replacement, 128))
                    .to_owned(),
            )
            .await?;
        use QualificationRepechages as P;
        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .col(string_len(P::ChampionshipId, 40))
                    .col(string_len(P::Stage, 32))
                    .col(string_len(P::FeedingStage, 32))
                    .col(integer(P::Quota))
                    .col(integer(P::Qualifiers))
                    .col(integer(P::Places))
                    .col(string_len(P::DecidedBy, 128))
                    .col(timestamp_with_time_zone(P::DecidedAt))
                    .primary_key(Index::create().col(P::ChampionshipId).col(P::Stage))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            QualificationRepechages::Table.into_iden(),
            QualificationNoticeReports::Table.into_iden(),
            QualificationNotices::Table.into_iden(),
            QualificationFinalists::Table.into_iden(),
            QualificationKnockoutEvents::Table.into_iden(),
            QualificationKnockoutRounds::Table.into_iden(),
            QualificationSeeds::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
