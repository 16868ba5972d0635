use sea_orm::entity::prelude::*;

/// One organizer/referee decision (R-DIS-3): who, when, what, about whom, and the details.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "registration_audit")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub at: DateTimeUtc,
    pub actor: String,
    pub role: String,
    pub action: String,
    pub subject: String,
    pub detail: String,
    /// The previous entry's hash (`qiwang_infra::audit`).
    pub prev_hash: String,
    pub hash: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
