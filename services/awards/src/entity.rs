//! The awards service's tables (`awards_…`).

/// Approved award books: version 1 is the approval, each override the next version.
pub mod books {
    use sea_orm::entity::prelude::*;

    /// `book` is a `qiwang.awards.v1.AwardBook`.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "awards_books")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub version: i32,
        pub book: Vec<u8>,
        pub decided_at: DateTimeUtc,
        pub decided_by: String,
        pub reason: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The federation feed: append-only, one gap-free sequence per championship.
pub mod feed {
    use sea_orm::entity::prelude::*;

    /// `change` is a `qiwang.awards.v1.CertificateChange` without its cursor.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "awards_feed")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub seq: i64,
        pub certificate_key: String,
        pub change: Vec<u8>,
        pub published_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Deductions against awards (R-PRZ-2).
pub mod deductions {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "awards_deductions")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub event: String,
        pub ranking: String,
        pub awardee: String,
        pub yuan: i64,
        pub reason: String,
        pub decided_by: String,
        pub decided_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Verified dan holdings of Go entrants (R-GRD-4).
pub mod dan_holdings {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "awards_dan_holdings")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub amateur_dan: i32,
        pub professional: bool,
        pub recorded_by: String,
        pub recorded_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Every awards decision (R-DIS-3): append-only.
pub mod decisions {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "awards_decisions")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub championship_id: String,
        pub action: String,
        pub decided_by: String,
        pub decided_at: DateTimeUtc,
        pub reason: String,
        pub detail: String,
        /// The previous entry's hash (`qiwang_infra::audit`).
        pub prev_hash: String,
        pub hash: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
