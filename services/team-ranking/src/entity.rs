//! The team-ranking service's table (`team_ranking_frozen`).

pub mod frozen {
    use sea_orm::entity::prelude::*;

    /// Standings an organizer froze: `standings` is a `qiwang.teamranking.v1.TeamStandings`.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "team_ranking_frozen")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub team_event: String,
        pub standings: Vec<u8>,
        pub frozen_at: DateTimeUtc,
        pub frozen_by: String,
        pub reason: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod overrides {
    use sea_orm::entity::prelude::*;

    /// One override of frozen standings: `previous` is the `TeamStandings` it replaced.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "team_ranking_overrides")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub championship_id: String,
        pub team_event: String,
        pub previous: Vec<u8>,
        pub overridden_at: DateTimeUtc,
        pub overridden_by: String,
        pub reason: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
