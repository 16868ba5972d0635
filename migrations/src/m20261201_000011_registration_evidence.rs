//! The registration service's uploaded evidence (证明材料): the certificate photos of wildcard
//! applications (R-WC-1). Each upload is stored whole, with its checked type, size and SHA-256, and
//! belongs to one player; only organizers and that player may read it back.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RegistrationEvidence {
    Table,
    Id,
    PlayerId,
    ContentType,
    Size,
    Sha256,
    Content,
    UploadedAt,
    UploadedBy,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use RegistrationEvidence as E;
        manager
            .create_table(
                Table::create()
                    .table(E::Table)
                    .col(string_len(E::Id, 40).primary_key())
                    .col(string_len(E::PlayerId, 128))
                    .col(string_len(E::ContentType, 32))
                    .col(big_integer(E::Size))
                    .col(string_len(E::Sha256, 64))
                    .col(blob(E::Content))
                    .col(timestamp_with_time_zone(E::UploadedAt))
                    .col(string_len(E::UploadedBy, 128))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("registration_evidence_by_player")
                    .table(E::Table)
                    .col(E::PlayerId)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RegistrationEvidence::Table).to_owned())
            .await
    }
}
