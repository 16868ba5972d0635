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
        /// The period's change sequence value its group took (see the period sequences migration).
        pub seq: i64,
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
        /// The period's change sequence value the reset took.
        pub seq: i64,
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
        /// The highest of the values the verdict took of its championship's periods (a record:
        /// boards apply every verdict of their championship whenever they catch up).
        pub seq: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A frozen advancement list's header (晋级名单, see `service::frozen`): one per closed period, and
/// one per knockout stage (period 0) once its last round is closed.
pub mod frozen_list {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_frozen_lists")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub period: i32,
        pub to_stage: String,
        pub decided_at: DateTimeUtc,
        pub row_count: i32,
        pub advanced_count: i32,
        pub chunk_count: i32,
        /// The list's distinct reasons, a JSON array of `[code, sentence]`.
        pub reasons: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A run of a frozen list's rows, in list order, as columnar JSON (`service::frozen`).
pub mod frozen_chunk {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_frozen_chunks")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub period: i32,
        #[sea_orm(primary_key, auto_increment = false)]
        pub chunk: i32,
        pub body: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// One part of a live leaderboard's checkpoint (see the `qualification_checkpoints` migration).
pub mod checkpoint {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_checkpoints")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub period: i32,
        #[sea_orm(primary_key, auto_increment = false)]
        pub part: i32,
        /// Every item with a change sequence value up to this one is in the checkpoint.
        pub seq: i64,
        pub taken_at: DateTimeUtc,
        /// The build and encoding that wrote it; another is ignored.
        pub format: String,
        pub body: Vec<u8>,
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
        /// The previous entry's hash (`qiwang_infra::audit`).
        pub prev_hash: String,
        pub hash: String,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod seed {
    use sea_orm::entity::prelude::*;

    /// A player placed straight into a stage (直接晋级, R-ADV-2, R-ADV-5, R-FIN-1).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_seeds")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub to_stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        pub source_index: i32,
        pub source: String,
        pub reason: String,
        pub decided_by: String,
        pub decided_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod knockout_round {
    use sea_orm::entity::prelude::*;

    /// One round of a knockout stage: its published seed, its draw, and when it closed.
    /// Lists are stored one player id per line (ids never contain a newline); a pair is
    /// `first<TAB>second`.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_knockout_rounds")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub round: i32,
        pub seed: Option<String>,
        pub seed_published_at: Option<DateTimeUtc>,
        pub entrants: Option<String>,
        pub pairs: Option<String>,
        pub bye: Option<String>,
        pub drawn_at: Option<DateTimeUtc>,
        pub closed_at: Option<DateTimeUtc>,
        /// The players who advanced, once closed.
        pub advancing: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod knockout_event {
    use sea_orm::entity::prelude::*;

    /// What a platform reported of a knockout round: a room entry (`kind` = "room", `first_player`
    /// only) or a game (`kind` = "game"; `result` 0 while it is played).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_knockout_events")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub platform: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub event_id: String,
        pub stage: String,
        pub round: i32,
        pub kind: String,
        pub first_player: String,
        pub second_player: String,
        pub blitz: bool,
        pub at: DateTimeUtc,
        pub result: i32,
        pub reported_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod finalist {
    use sea_orm::entity::prelude::*;

    /// A place on the finalist list (R-FIN-1) and what became of it (R-PUB-2, R-REG-6).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_finalists")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub player_id: String,
        /// QUALIFIER, SEED or REPLACEMENT.
        pub origin: String,
        pub stage: String,
        pub period: i32,
        /// LISTED, DISQUALIFIED or WITHDRAWN.
        pub status: String,
        pub status_reason: String,
        pub replaces: String,
        pub qualified_at: DateTimeUtc,
        pub finals_information_at: Option<DateTimeUtc>,
        pub changed_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod notice {
    use sea_orm::entity::prelude::*;

    /// The finalist list's public notice (公示, R-PUB-3): DRAFT, PUBLISHED or CLOSED.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_notices")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        pub state: String,
        pub published_by: Option<String>,
        pub published_at: Option<DateTimeUtc>,
        pub closed_by: Option<String>,
        pub closed_at: Option<DateTimeUtc>,
        /// Published with the list (补充规定, R-PUB-1).
        pub supplementary_rules: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod notice_report {
    use sea_orm::entity::prelude::*;

    /// A report against a listed player (举报, R-PUB-2): OPEN, UNDER_INVESTIGATION, UPHELD or DISMISSED.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_notice_reports")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: String,
        pub championship_id: String,
        pub player_id: String,
        pub text: String,
        pub state: String,
        pub filed_by: String,
        pub filed_at: DateTimeUtc,
        pub decided_by: Option<String>,
        pub decided_at: Option<DateTimeUtc>,
        pub decision_reason: Option<String>,
        pub replacement: Option<String>,
        /// Hex SHA-256 of the receipt given to the reporter (follows the report without a token).
        pub receipt_hash: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod repechage {
    use sea_orm::entity::prelude::*;

    /// A repechage held to fill a short final quota (复活赛, R-ADV-12): its places are the shortfall
    /// when it was defined.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qualification_repechages")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub championship_id: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub stage: String,
        pub feeding_stage: String,
        pub quota: i32,
        pub qualifiers: i32,
        pub places: i32,
        pub decided_by: String,
        pub decided_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
