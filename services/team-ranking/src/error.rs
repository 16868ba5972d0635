//! The team-ranking service's one error type, and its one mapping to `tonic::Status`.

use qiwang_infra::status;
use sea_orm::DbErr;
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum TeamRankingError {
    #[error("{field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{message}")]
    Precondition { kind: &'static str, message: String },
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{context}: {status}")]
    Upstream {
        context: &'static str,
        status: Status,
    },
    #[error("team standings: {0}")]
    Team(#[from] qiwang_core::team::TeamError),
    #[error("stored standings do not decode: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Db(#[from] DbErr),
}

pub type Result<T> = std::result::Result<T, TeamRankingError>;

pub fn invalid(field: &'static str, reason: impl Into<String>) -> TeamRankingError {
    TeamRankingError::InvalidField {
        field,
        reason: reason.into(),
    }
}

impl From<TeamRankingError> for Status {
    fn from(e: TeamRankingError) -> Status {
        use TeamRankingError as E;
        match &e {
            E::Db(_) | E::Corrupt(_) | E::Upstream { .. } => {}
            _ => tracing::warn!(error = %e, "request refused"),
        }
        match e {
            E::InvalidField { field, reason } => status::invalid_field(field, reason),
            E::PermissionDenied(why) => Status::permission_denied(why),
            E::Precondition { kind, message } => status::precondition(kind, "team_event", message),
            E::AlreadyExists(what) => Status::already_exists(what),
            E::Upstream { context, status } => {
                tracing::warn!(context, %status, "upstream call failed");
                Status::new(status.code(), format!("{context}: {}", status.message()))
            }
            E::Team(t) => status::precondition("INCONSISTENT_TEAMS", "team_event", t.to_string()),
            E::Corrupt(_) => status::internal("reading frozen standings", &e),
            E::Db(db) => status::internal("accessing the team-ranking database", &db),
        }
    }
}
