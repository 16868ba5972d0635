//! The awards service's tables: approved award books (one row per version), the federation feed
//! (append-only, one sequence per championship), deductions, verified dan holdings, and the audit
//! of every awards decision.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AwardsBooks {
    Table,
    ChampionshipId,
    Version,
    Book,
    DecidedAt,
    DecidedBy,
    Reason,
}

#[derive(DeriveIden)]
enum AwardsFeed {
    Table,
    ChampionshipId,
    Seq,
    CertificateKey,
    Change,
    PublishedAt,
}

#[derive(DeriveIden)]
enum AwardsDeductions {
    Table,
    Id,
    ChampionshipId,
    Event,
    Ranking,
    Awardee,
    Yuan,
    Reason,
    DecidedBy,
    DecidedAt,
}

#[derive(DeriveIden)]
enum AwardsDanHoldings {
    Table,
    ChampionshipId,
    PlayerId,
    AmateurDan,
    Professional,
    RecordedBy,
    RecordedAt,
}

#[derive(DeriveIden)]
enum AwardsDecisions {
    Table,
    Id,
    ChampionshipId,
    Action,
    DecidedBy,
    DecidedAt,
    Reason,
    Detail,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use AwardsBooks as B;
        manager
            .create_table(
                Table::create()
                    .table(B::Table)
                    .col(string_len(B::ChampionshipId, 40))
                    .col(integer(B::Version))
                    .col(blob(B::Book))
                    .col(timestamp_with_time_zone(B::DecidedAt))
                    .col(string_len(B::DecidedBy, 128))
                    .col(text(B::Reason))
                    .primary_key(Index::create().col(B::ChampionshipId).col(B::Version))
                    .to_owned(),
            )
            .await?;
        use AwardsFeed as F;
        manager
            .create_table(
                Table::create()
                    .table(F::Table)
                    .col(string_len(F::ChampionshipId, 40))
                    .col(big_integer(F::Seq))
                    .col(string_len(F::CertificateKey, 64))
                    .col(blob(F::Change))
                    .col(timestamp_with_time_zone(F::PublishedAt))
                    .primary_key(Index::create().col(F::ChampionshipId).col(F::Seq))
                    .to_owned(),
            )
            .await?;
        use AwardsDeductions as D;
        manager
            .create_table(
                Table::create()
                    .table(D::Table)
                    .col(string_len(D::Id, 40).primary_key())
                    .col(string_len(D::ChampionshipId, 40))
                    .col(string_len(D::Event, 64))
                    .col(string_len(D::Ranking, 64))
                    .col(string_len(D::Awardee, 128))
                    .col(big_integer(D::Yuan))
                    .col(text(D::Reason))
                    .col(string_len(D::DecidedBy, 128))
                    .col(timestamp_with_time_zone(D::DecidedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("awards_deductions_by_championship")
                    .table(D::Table)
                    .col(D::ChampionshipId)
                    .to_owned(),
            )
            .await?;
        use AwardsDanHoldings as H;
        manager
            .create_table(
                Table::create()
                    .table(H::Table)
                    .col(string_len(H::ChampionshipId, 40))
                    .col(string_len(H::PlayerId, 64))
                    .col(integer(H::AmateurDan))
                    .col(boolean(H::Professional))
                    .col(string_len(H::RecordedBy, 128))
                    .col(timestamp_with_time_zone(H::RecordedAt))
                    .primary_key(Index::create().col(H::ChampionshipId).col(H::PlayerId))
                    .to_owned(),
            )
            .await?;
        use AwardsDecisions as A;
        manager
            .create_table(
                Table::create()
                    .table(A::Table)
                    .col(big_integer(A::Id).primary_key().auto_increment())
                    .col(string_len(A::ChampionshipId, 40))
                    .col(string_len(A::Action, 32))
                    .col(string_len(A::DecidedBy, 128))
                    .col(timestamp_with_time_zone(A::DecidedAt))
                    .col(text(A::Reason))
                    .col(text(A::Detail))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("awards_decisions_by_championship")
                    .table(A::Table)
                    .col(A::ChampionshipId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in [
            AwardsDecisions::Table.into_iden(),
            AwardsDanHoldings::Table.into_iden(),
            AwardsDeductions::Table.into_iden(),
            AwardsFeed::Table.into_iden(),
            AwardsBooks::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(t).to_owned())
                .await?;
        }
        Ok(())
    }
}
