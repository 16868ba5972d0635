//! Registration service tables: championships, players, linked accounts, bar list, entries, audit.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RegistrationChampionships {
    Table,
    Id,
    Name,
    Preset,
    PresetToml,
    Game,
    Season,
    CreatedBy,
    CreatedAt,
}

#[derive(DeriveIden)]
enum RegistrationPlayers {
    Table,
    Id,
    Name,
    Sex,
    BirthDate,
    IdKind,
    IdNumber,
    IdentityKey,
    Nationality,
    RegionCode,
    Phone,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum RegistrationAccounts {
    Table,
    Platform,
    AccountId,
    PlayerId,
    LinkedBy,
    LinkedAt,
}

#[derive(DeriveIden)]
enum RegistrationBars {
    Table,
    Game,
    IdentityKey,
    Reason,
    AddedBy,
    AddedAt,
}

#[derive(DeriveIden)]
enum RegistrationEntries {
    Table,
    Id,
    ChampionshipId,
    Event,
    PlayerId,
    Sequence,
    EnteredBy,
    EnteredAt,
}

#[derive(DeriveIden)]
enum RegistrationAudit {
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
        use RegistrationAccounts as A;
        use RegistrationAudit as L;
        use RegistrationBars as B;
        use RegistrationChampionships as C;
        use RegistrationEntries as E;
        use RegistrationPlayers as P;

        manager
            .create_table(
                Table::create()
                    .table(C::Table)
                    .col(string_len(C::Id, 40).primary_key())
                    .col(string_len(C::Name, 200))
                    .col(string_len(C::Preset, 64))
                    .col(text(C::PresetToml))
                    .col(string_len(C::Game, 16))
                    .col(integer(C::Season))
                    .col(string_len(C::CreatedBy, 128))
                    .col(timestamp_with_time_zone(C::CreatedAt))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(P::Table)
                    .col(string_len(P::Id, 128).primary_key())
                    .col(string_len(P::Name, 100))
                    .col(string_len(P::Sex, 8))
                    .col(date(P::BirthDate))
                    .col(string_len(P::IdKind, 16))
                    .col(string_len(P::IdNumber, 32))
                    .col(string_len_uniq(P::IdentityKey, 40))
                    .col(string_len(P::Nationality, 3))
                    .col(string_len_null(P::RegionCode, 2))
                    .col(string_len_null(P::Phone, 32))
                    .col(timestamp_with_time_zone(P::CreatedAt))
                    .col(timestamp_with_time_zone(P::UpdatedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_registration_players_name")
                    .table(P::Table)
                    .col(P::Name)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(A::Table)
                    .col(string_len(A::Platform, 64))
                    .col(string_len(A::AccountId, 128))
                    .col(string_len(A::PlayerId, 128))
                    .col(string_len(A::LinkedBy, 128))
                    .col(timestamp_with_time_zone(A::LinkedAt))
                    .primary_key(Index::create().col(A::Platform).col(A::AccountId))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_registration_accounts_player")
                            .from(A::Table, A::PlayerId)
                            .to(P::Table, P::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_registration_accounts_player")
                    .table(A::Table)
                    .col(A::PlayerId)
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(B::Table)
                    .col(string_len(B::Game, 16))
                    .col(string_len(B::IdentityKey, 40))
                    .col(string_len(B::Reason, 200))
                    .col(string_len(B::AddedBy, 128))
                    .col(timestamp_with_time_zone(B::AddedAt))
                    .primary_key(Index::create().col(B::Game).col(B::IdentityKey))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(E::Table)
                    .col(string_len(E::Id, 40).primary_key())
                    .col(string_len(E::ChampionshipId, 40))
                    .col(string_len(E::Event, 64))
                    .col(string_len(E::PlayerId, 128))
                    .col(integer(E::Sequence))
                    .col(string_len(E::EnteredBy, 128))
                    .col(timestamp_with_time_zone(E::EnteredAt))
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_registration_entries_championship")
                            .from(E::Table, E::ChampionshipId)
                            .to(C::Table, C::Id),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .name("fk_registration_entries_player")
                            .from(E::Table, E::PlayerId)
                            .to(P::Table, P::Id),
                    )
                    .to_owned(),
            )
            .await?;
        // Two concurrent entries cannot take the same sequence number.
        manager
            .create_index(
                Index::create()
                    .name("ux_registration_entries_sequence")
                    .table(E::Table)
                    .col(E::ChampionshipId)
                    .col(E::Event)
                    .col(E::PlayerId)
                    .col(E::Sequence)
                    .unique()
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
            RegistrationAudit::Table.into_iden(),
            RegistrationEntries::Table.into_iden(),
            RegistrationBars::Table.into_iden(),
            RegistrationAccounts::Table.into_iden(),
            RegistrationPlayers::Table.into_iden(),
            RegistrationChampionships::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
