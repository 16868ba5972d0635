//! The qualification service's notice reports from the public (R-PUB-2): the hash of the receipt
//! an anonymous reporter follows the report with, and an index for the per-reporter rate limit.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationNoticeReports {
    Table,
    ChampionshipId,
    FiledBy,
    FiledAt,
    ReceiptHash,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationNoticeReports as R;
        manager
            .alter_table(
                Table::alter()
                    .table(R::Table)
                    .add_column(string_len_null(R::ReceiptHash, 64))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("qualification_notice_reports_by_reporter")
                    .table(R::Table)
                    .col(R::ChampionshipId)
                    .col(R::FiledBy)
                    .col(R::FiledAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use QualificationNoticeReports as R;
        manager
            .drop_index(
                Index::drop()
                    .name("qualification_notice_reports_by_reporter")
                    .table(R::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(R::Table)
                    .drop_column(R::ReceiptHash)
                    .to_owned(),
            )
            .await
    }
}
