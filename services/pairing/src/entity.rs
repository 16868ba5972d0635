//! The pairing service's tables (`pairing_…`): events and their append-only logs of changes.

pub mod event {
    use sea_orm::entity::prelude::*;

    /// A final event (决赛项目): its identity; its state is the replay of its changes.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "pairing_events")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub event_code: String,
        pub name: String,
        pub created_at: DateTimeUtc,
        pub created_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod change {
    use sea_orm::entity::prelude::*;

    /// One change of an event (R-DIS-3: who, when, what, why): `fact` is a `pb::Fact` encoding.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "pairing_changes")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub event_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub seq: i64,
        pub at: DateTimeUtc,
        pub actor: String,
        pub role: String,
        pub reason: String,
        pub fact: Vec<u8>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
