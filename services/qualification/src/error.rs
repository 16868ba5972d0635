//! The qualification service's one error type, and its one mapping to `tonic::Status`.

use qiwang_infra::status;
use sea_orm::DbErr;
use tonic::{Code, Status};

#[derive(Debug, thiserror::Error)]
pub enum QualificationError {
    #[error("{field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    #[error("{0} not found")]
    NotFound(String),
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    PermissionDenied(String),
    /// Too many requests of one kind from one source (report flooding).
    #[error("{0}")]
    RateLimited(String),
    #[error("{message}")]
    Precondition {
        kind: &'static str,
        subject: String,
        message: String,
    },
    /// A call to another service failed; its status is passed on.
    #[error("{context}: {status}")]
    Upstream {
        context: &'static str,
        status: Status,
    },
    #[error("stored preset of championship {0} no longer loads: {1}")]
    Preset(String, String),
    /// A period's live board is being built (after a restart, or far behind): the request is
    /// sound and may be retried after the delay.
    #[error("{what} is being prepared")]
    Warming {
        what: String,
        retry_after: std::time::Duration,
    },
    #[error("database error: {0}")]
    Db(#[from] DbErr),
    /// Work handed to the bulk lane ended without an answer (it panicked).
    #[error("bulk work failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}

pub type Result<T> = std::result::Result<T, QualificationError>;

pub fn invalid(field: &'static str, reason: impl Into<String>) -> QualificationError {
    QualificationError::InvalidField {
        field,
        reason: reason.into(),
    }
}

pub fn precondition(
    kind: &'static str,
    subject: impl Into<String>,
    message: impl Into<String>,
) -> QualificationError {
    QualificationError::Precondition {
        kind,
        subject: subject.into(),
        message: message.into(),
    }
}

impl QualificationError {
    /// The field a refusal is about, for batch outcomes.
    pub fn field(&self) -> &str {
        match self {
            QualificationError::InvalidField { field, .. } => field,
            _ => "",
        }
    }
}

impl From<QualificationError> for Status {
    fn from(e: QualificationError) -> Status {
        use QualificationError as E;
        match &e {
            E::Db(_) | E::Preset(..) | E::Upstream { .. } | E::Task(_) => {}
            _ => tracing::warn!(error = %e, "request refused"),
        }
        match e {
            E::InvalidField { field, reason } => status::invalid_field(field, reason),
            E::NotFound(what) => Status::not_found(format!("{what} not found")),
            E::AlreadyExists(what) => Status::already_exists(what),
            E::PermissionDenied(why) => Status::permission_denied(why),
            E::RateLimited(why) => Status::resource_exhausted(why),
            E::Precondition {
                kind,
                subject,
                message,
            } => status::precondition(kind, &subject, message),
            E::Upstream { context, status } => {
                tracing::warn!(%status, context, "upstream call failed");
                // Bad input found upstream (an unknown championship) keeps its code; the rest is ours.
                match status.code() {
                    Code::NotFound
                    | Code::InvalidArgument
                    | Code::PermissionDenied
                    | Code::Unauthenticated => {
                        Status::new(status.code(), format!("{context}: {}", status.message()))
                    }
                    _ => Status::unavailable(format!(
                        "{context}: the registration service is unavailable"
                    )),
                }
            }
            E::Warming { what, retry_after } => status::unavailable_retry(
                &format!("{what} is being prepared (built from the stored games)"),
                retry_after,
            ),
            E::Preset(id, errors) => {
                status::internal(&format!("loading championship {id}"), &errors)
            }
            E::Db(db) => status::internal("accessing the qualification database", &db),
            E::Task(e) => status::internal("ingesting a group of reports", &e),
        }
    }
}
