//! sea-orm entities for the qualification service's own tables (`qualification_…`).

pub mod period {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_periods")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub period: i32,
        pub open: bool,
        pub closed: bool,
        pub changed_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod game {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_games")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub platform: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub game_id: String,
        pub stage: String,
        pub period: i32,
        pub first_player: String,
        pub second_player: String,
        pub started_at: DateTimeUtc,
        pub ended_at: DateTimeUtc,
        /// The report as received (protobuf encoding): the facts the rules are applied to.
        pub report: Vec<u8>,
        /// SHA-256 of `report`: same hash = the same report again (counted once).
        pub content_hash: String,
        pub reported_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod conflict {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_conflicts")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub championship_id: String,
        pub platform: String,
        pub game_id: String,
        pub stored_hash: String,
        pub conflicting_hash: String,
        pub report: Vec<u8>,
        pub reported_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod reset {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_resets")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub championship_id: String,
        pub stage: String,
        pub period: i32,
        pub player_id: String,
        pub at: DateTimeUtc,
        pub requested_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod cancellation {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_cancellations")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub reason: String,
        pub decided_by: String,
        pub decided_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod advancement {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_advancement")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub period: i32,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub rank: i32,
        pub advanced: bool,
        pub points: i64,
        pub wins: i32,
        pub counted_games: i32,
        pub reason: String,
        pub reason_code: String,
        pub to_stage: String,
        pub places: i32,
        pub decided_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod audit {
    use sea_orm::entity::prelude::*;

    /// One organizer decision (R-DIS-3): who, when, what, about whom, and the details.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_audit")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub at: DateTimeUtc,
        pub actor: String,
        pub role: String,
        pub action: String,
        pub subject: String,
        pub detail: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
