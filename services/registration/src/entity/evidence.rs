use sea_orm::entity::prelude::*;

/// An uploaded piece of evidence (证明材料): a checked JPEG or PNG image of one player's.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "registration_evidence")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub player_id: String,
    pub content_type: String,
    pub size: i64,
    pub sha256: String,
    pub content: Vec<u8>,
    pub uploaded_at: DateTimeUtc,
    pub uploaded_by: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
