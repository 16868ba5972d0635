//! The awards service's one error type, and its one mapping to `tonic::Status`.

use qiwang_infra::status;
use sea_orm::DbErr;
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum AwardsError {
    #[error("{field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{message}")]
    Precondition { kind: &'static str, message: String },
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{context}: {status}")]
    Upstream {
        context: &'static str,
        status: Status,
    },
    #[error("prize list: {0}")]
    Prize(#[from] qiwang_core::prize::PrizeError),
    #[error("stored awards do not decode: {0}")]
    Corrupt(String),
    #[error("database error: {0}")]
    Db(#[from] DbErr),
}

pub type Result<T> = std::result::Result<T, AwardsError>;

pub fn invalid(field: &'static str, reason: impl Into<String>) -> AwardsError {
    AwardsError::InvalidField {
        field,
        reason: reason.into(),
    }
}

pub fn precondition(kind: &'static str, message: impl Into<String>) -> AwardsError {
    AwardsError::Precondition {
        kind,
        message: message.into(),
    }
}

impl From<AwardsError> for Status {
    fn from(e: AwardsError) -> Status {
        use AwardsError as E;
        match &e {
            E::Db(_) | E::Corrupt(_) | E::Upstream { .. } => {}
            _ => tracing::warn!(error = %e, "request refused"),
        }
        match e {
            E::InvalidField { field, reason } => status::invalid_field(field, reason),
            E::PermissionDenied(why) => Status::permission_denied(why),
            E::Precondition { kind, message } => {
                status::precondition(kind, "championship_id", message)
            }
            E::AlreadyExists(what) => Status::already_exists(what),
            E::NotFound(what) => Status::not_found(what),
            E::Upstream { context, status } => {
                tracing::warn!(context, %status, "upstream call failed");
                Status::new(status.code(), format!("{context}: {}", status.message()))
            }
            E::Prize(p) => {
                status::precondition("INCONSISTENT_RANKING", "championship_id", p.to_string())
            }
            E::Corrupt(_) => status::internal("reading stored awards", &e),
            E::Db(db) => status::internal("accessing the awards database", &db),
        }
    }
}
