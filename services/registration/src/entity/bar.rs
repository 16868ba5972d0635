use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "registration_bars")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub game: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub identity_key: String,
    pub reason: String,
    pub added_by: String,
    pub added_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
