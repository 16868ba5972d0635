//! The registration service's entries into the final's offline groups (youth, seniors: R-REG-5,
//! R-REG-8) with their approval, city-team rosters (R-REG-9; one team per player, by primary key),
//! and the offline service fee (R-REG-7).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RegistrationFinalEntries {
    Table,
    Id,
    ChampionshipId,
    Event,
    PlayerId,
    Unit,
    HoldsCertificate,
    CertificateRef,
    Status,
    Reason,
    EnteredAt,
    EnteredBy,
    DecidedAt,
    DecidedBy,
}

#[derive(DeriveIden)]
enum RegistrationCityTeams {
    Table,
    Id,
    ChampionshipId,
    City,
    MenTeam,
    WomenTeam,
    RegisteredAt,
    RegisteredBy,
}

#[derive(DeriveIden)]
enum RegistrationCityTeamMembers {
    Table,
    ChampionshipId,
    PlayerId,
    TeamId,
    Sex,
    Counted,
}

#[derive(DeriveIden)]
enum RegistrationFees {
    Table,
    ChampionshipId,
    PlayerId,
    DueYuan,
    PaidYuan,
    Status,
    PaymentRef,
    Attendance,
    RefundYuan,
    UpdatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use RegistrationFinalEntries as E;
        manager
            .create_table(
                Table::create()
                    .table(E::Table)
                    .col(string_len(E::Id, 40).primary_key())
                    .col(string_len(E::ChampionshipId, 40))
                    .col(string_len(E::Event, 64))
                    .col(string_len(E::PlayerId, 128))
                    .col(text(E::Unit))
                    .col(boolean(E::HoldsCertificate))
                    .col(text(E::CertificateRef))
                    .col(string_len(E::Status, 16))
                    .col(text(E::Reason))
                    .col(timestamp_with_time_zone(E::EnteredAt))
                    .col(string_len(E::EnteredBy, 128))
                    .col(timestamp_with_time_zone_null(E::DecidedAt))
                    .col(string_len_null(E::DecidedBy, 128))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("registration_final_entries_one_per_event")
                    .table(E::Table)
                    .col(E::ChampionshipId)
                    .col(E::Event)
                    .col(E::PlayerId)
                    .unique()
                    .to_owned(),
            )
            .await?;
        use RegistrationCityTeams as T;
        manager
            .create_table(
                Table::create()
                    .table(T::Table)
                    .col(string_len(T::Id, 40).primary_key())
                    .col(string_len(T::ChampionshipId, 40))
                    .col(string_len(T::City, 64))
                    .col(boolean(T::MenTeam))
                    .col(boolean(T::WomenTeam))
                    .col(timestamp_with_time_zone(T::RegisteredAt))
                    .col(string_len(T::RegisteredBy, 128))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("registration_city_teams_one_per_city")
                    .table(T::Table)
                    .col(T::ChampionshipId)
                    .col(T::City)
                    .unique()
                    .to_owned(),
            )
            .await?;
        use RegistrationCityTeamMembers as M;
        manager
            .create_table(
                Table::create()
                    .table(M::Table)
                    .col(string_len(M::ChampionshipId, 40))
                    .col(string_len(M::PlayerId, 128))
                    .col(string_len(M::TeamId, 40))
                    .col(string_len(M::Sex, 8))
                    .col(boolean(M::Counted))
                    .primary_key(Index::create().col(M::ChampionshipId).col(M::PlayerId))
                    .to_owned(),
            )
            .await?;
        use RegistrationFees as F;
        manager
            .create_table(
                Table::create()
                    .table(F::Table)
                    .col(string_len(F::ChampionshipId, 40))
                    .col(string_len(F::PlayerId, 128))
                    .col(big_integer(F::DueYuan))
                    .col(big_integer(F::PaidYuan))
                    .col(string_len(F::Status, 16))
                    .col(text(F::PaymentRef))
                    .col(string_len(F::Attendance, 24))
                    .col(big_integer(F::RefundYuan))
                    .col(timestamp_with_time_zone(F::UpdatedAt))
                    .primary_key(Index::create().col(F::ChampionshipId).col(F::PlayerId))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            RegistrationFees::Table.into_iden(),
            RegistrationCityTeamMembers::Table.into_iden(),
            RegistrationCityTeams::Table.into_iden(),
            RegistrationFinalEntries::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
