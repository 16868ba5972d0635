use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "registration_players")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub name: String,
    /// "male" | "female"
    pub sex: String,
    pub birth_date: Date,
    /// "resident" | "passport"
    pub id_kind: String,
    pub id_number: String,
    /// Unique per person: the resident ID, or "NAT:PASSPORT".
    #[sea_orm(unique)]
    pub identity_key: String,
    pub nationality: String,
    pub region_code: Option<String>,
    pub phone: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
