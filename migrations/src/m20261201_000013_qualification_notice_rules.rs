//! The qualification service's public notice: the supplementary rules published with the finalist
//! list (补充规定, R-PUB-1).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum QualificationNotices {
    Table,
    SupplementaryRules,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(QualificationNotices::Table)
                    .add_column(text_null(QualificationNotices::SupplementaryRules))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(QualificationNotices::Table)
                    .drop_column(QualificationNotices::SupplementaryRules)
                    .to_owned(),
            )
            .await
    }
}
