//! Pairs events (R-PAIR-1..3): registered pairs, their members, and each event's draw.

pub mod registered {
    use sea_orm::entity::prelude::*;

    /// A registered pair, in registration order by `registered_at` then `id` (UUIDv7).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_pairs")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub event: String,
        pub first_player: String,
        pub second_player: String,
        /// "", "parent-child" or "grandparent-grandchild".
        pub relation: String,
        pub relation_document: String,
        /// NOT_NEEDED, PENDING, VERIFIED, REJECTED.
        pub relation_check: String,
        /// REGISTERED, WITHDRAWN, ADMITTED, NOT_ADMITTED, NOT_STARTED, REJECTED.
        pub status: String,
        pub status_reason: String,
        pub registered_at: DateTimeUtc,
        pub registered_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod member {
    use sea_orm::entity::prelude::*;

    /// One pair per player per event: the primary key refuses a second.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_pair_members")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub event: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub pair_id: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod draw {
    use sea_orm::entity::prelude::*;

    /// A pairs event's draw: the seed (published first, never changed), then the frozen candidate
    /// order and the outcome (JSON-free: newline-separated ids, see `service/pairs.rs`).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_pair_draws")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub event: String,
        pub seed: String,
        pub seed_published_at: DateTimeUtc,
        pub candidates: Option<String>,
        pub outcome: Option<String>,
        pub drawn_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
