//! Qualification service tables: periods, reported games, conflicting reports, resets,
//! cancellations, the frozen advancement lists, and the audit log.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationPeriods {
    Table,
    ChampionshipId,
    Stage,
    Period,
    Open,
    Closed,
    ChangedAt,
}

#[derive(DeriveIden)]
enum QualificationGames {
    Table,
    ChampionshipId,
    Platform,
    GameId,
    Stage,
    Period,
    FirstPlayer,
    SecondPlayer,
    StartedAt,
    EndedAt,
    Report,
    ContentHash,
    ReportedAt,
}

#[derive(DeriveIden)]
enum QualificationConflicts {
    Table,
    Id,
    ChampionshipId,
    Platform,
    GameId,
    StoredHash,
    ConflictingHash,
    Report,
    ReportedAt,
}

#[derive(DeriveIden)]
enum QualificationResets {
    Table,
    Id,
    ChampionshipId,
    Stage,
    Period,
    PlayerId,
    At,
    RequestedBy,
}

#[derive(DeriveIden)]
enum QualificationCancellations {
    Table,
    ChampionshipId,
    PlayerId,
    Reason,
    DecidedBy,
    DecidedAt,
}

#[derive(DeriveIden)]
enum QualificationAdvancement {
    Table,
    ChampionshipId,
    Stage,
    Period,
    PlayerId,
    Rank,
    Advanced,
    Points,
    Wins,
    CountedGames,
    Reason,
    ReasonCode,
    ToStage,
    Places,
    DecidedAt,
}

#[derive(DeriveIden)]
enum QualificationAudit {
    Table,
    Id,
    At,
    Actor,
    Role,
    Action,
    Subject,
    Detail,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationAdvancement as A;
        use QualificationAudit as L;
        use QualificationCancellations as X;
        use QualificationConflicts as C;
        use QualificationGames as G;
        use QualificationPeriods as P;
        use QualificationResets as R;

        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .col(string_len(P::ChampionshipId, 40))
                    .col(string_len(P::Stage, 32))
                    .col(integer(P::Period))
                    .col(boolean(P::Open))
                    .col(boolean(P::Closed))
                    .col(timestamp_with_time_zone(P::ChangedAt))
                    .primary_key(
                        Index::create()
                            .col(P::ChampionshipId)
                            .col(P::Stage)
                            .col(P::Period),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(G::Table)
                    .col(string_len(G::ChampionshipId, 40))
                    .col(string_len(G::Platform, 64))
                    .col(string_len(G::GameId, 128))
                    .col(string_len(G::Stage, 32))
                    .col(integer(G::Period))
                    .col(string_len(G::FirstPlayer, 128))
                    .col(string_len(G::SecondPlayer, 128))
                    .col(timestamp_with_time_zone(G::StartedAt))
                    .col(timestamp_with_time_zone(G::EndedAt))
                    .col(blob(G::Report))
                    .col(string_len(G::ContentHash, 64))
                    .col(timestamp_with_time_zone(G::ReportedAt))
                    .primary_key(
                        Index::create()
                            .col(G::ChampionshipId)
                            .col(G::Platform)
                            .col(G::GameId),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_qualification_games_period")
                    .table(G::Table)
                    .col(G::ChampionshipId)
                    .col(G::Stage)
                    .col(G::Period)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(C::Table)
                    .col(big_integer(C::Id).primary_key().auto_increment())
                    .col(string_len(C::ChampionshipId, 40))
                    .col(string_len(C::Platform, 64))
                    .col(string_len(C::GameId, 128))
                    .col(string_len(C::StoredHash, 64))
                    .col(string_len(C::ConflictingHash, 64))
                    .col(blob(C::Report))
                    .col(timestamp_with_time_zone(C::ReportedAt))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(R::Table)
                    .col(big_integer(R::Id).primary_key().auto_increment())
                    .col(string_len(R::ChampionshipId, 40))
                    .col(string_len(R::Stage, 32))
                    .col(integer(R::Period))
                    .col(string_len(R::PlayerId, 128))
                    .col(timestamp_with_time_zone(R::At))
                    .col(string_len(R::RequestedBy, 128))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(X::Table)
                    .col(string_len(X::ChampionshipId, 40))
                    .col(string_len(X::PlayerId, 128))
                    .col(string_len(X::Reason, 500))
                    .col(string_len(X::DecidedBy, 128))
                    .col(timestamp_with_time_zone(X::DecidedAt))
                    .primary_key(Index::create().col(X::ChampionshipId).col(X::PlayerId))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(A::Table)
                    .col(string_len(A::ChampionshipId, 40))
                    .col(string_len(A::Stage, 32))
                    .col(integer(A::Period))
                    .col(string_len(A::PlayerId, 128))
                    .col(integer(A::Rank))
                    .col(boolean(A::Advanced))
                    .col(big_integer(A::Points))
                    .col(integer(A::Wins))
                    .col(integer(A::CountedGames))
                    .col(text(A::Reason))
                    .col(string_len(A::ReasonCode, 32))
                    .col(string_len(A::ToStage, 32))
                    .col(integer(A::Places))
                    .col(timestamp_with_time_zone(A::DecidedAt))
                    .primary_key(
                        Index::create()
                            .col(A::ChampionshipId)
                            .col(A::Stage)
                            .col(A::Period)
                            .col(A::PlayerId),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(L::Table)
                    .col(big_integer(L::Id).primary_key().auto_increment())
                    .col(timestamp_with_time_zone(L::At))
                    .col(string_len(L::Actor, 128))
                    .col(string_len(L::Role, 16))
                    .col(string_len(L::Action, 64))
                    .col(string_len(L::Subject, 200))
                    .col(text(L::Detail))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            QualificationAudit::Table.into_iden(),
            QualificationAdvancement::Table.into_iden(),
            QualificationCancellations::Table.into_iden(),
            QualificationResets::Table.into_iden(),
            QualificationConflicts::Table.into_iden(),
            QualificationGames::Table.into_iden(),
            QualificationPeriods::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
