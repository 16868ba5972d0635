//! Entries into the final's offline groups, city-team rosters and the offline service fee.

pub mod final_entry {
    use sea_orm::entity::prelude::*;

    /// A direct entry into an event of the final (youth, seniors), awaiting or past approval.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_final_entries")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub event: String,
        pub player_id: String,
        /// The entering unit (报名单位), as stamped on the form.
        pub unit: String,
        pub holds_certificate: bool,
        pub certificate_ref: String,
        /// PENDING, APPROVED, REJECTED.
        pub status: String,
        pub reason: String,
        pub entered_at: DateTimeUtc,
        pub entered_by: String,
        pub decided_at: Option<DateTimeUtc>,
        pub decided_by: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod city_team {
    use sea_orm::entity::prelude::*;

    /// A city's roster (R-REG-9).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_city_teams")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub city: String,
        pub men_team: bool,
        pub women_team: bool,
        pub registered_at: DateTimeUtc,
        pub registered_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod team_member {
    use sea_orm::entity::prelude::*;

    /// A player on a city's roster: at most one team per player (the primary key).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_city_team_members")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub team_id: String,
        pub sex: String,
        /// Counts for the team (false: plays as an individual).
        pub counted: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod fee {
    use sea_orm::entity::prelude::*;

    /// A player's offline service fee (R-REG-7), integer yuan.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_fees")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub due_yuan: i64,
        pub paid_yuan: i64,
        /// DUE, PAID, WAIVED.
        pub status: String,
        pub payment_ref: String,
        /// "", PLAYED, NO_SHOW, EXCUSED.
        pub attendance: String,
        pub refund_yuan: i64,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod wildcard {
    use sea_orm::entity::prelude::*;

    /// A wildcard application (R-WC-1, R-WC-2); `decided_*` is the last step's who and when.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "registration_wildcards")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub event: String,
        pub player_id: String,
        pub source: String,
        pub certificate_photo: String,
        /// SUBMITTED, UNDER_REVIEW, APPROVED, REJECTED.
        pub status: String,
        pub reason: String,
        pub submitted_at: DateTimeUtc,
        pub submitted_by: String,
        pub decided_at: DateTimeUtc,
        pub decided_by: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
