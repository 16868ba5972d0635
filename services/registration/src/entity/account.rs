use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "registration_accounts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub platform: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    pub player_id: String,
    pub linked_by: String,
    pub linked_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
