//! The pairing service's one error type, and its one mapping to `tonic::Status`.

use qiwang_infra::status;
use qiwang_swiss::event::EventError;
use sea_orm::DbErr;
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum PairingError {
    #[error("{field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    #[error("{0} not found")]
    NotFound(String),
    #[error("{0}")]
    PermissionDenied(String),
    /// The event's rules refuse the change (checked by `qiwang_swiss::event`).
    #[error("{0}")]
    Event(#[from] EventError),
    /// Another writer changed the event first, every time we retried.
    #[error("event {0} changed concurrently; retry")]
    Contended(String),
    #[error("{context}: {status}")]
    Upstream {
        context: &'static str,
        status: Status,
    },
    /// A stored change no longer decodes or replays: the log is damaged.
    #[error("event {0}: stored change {1} does not replay: {2}")]
    Corrupt(String, i64, String),
    #[error("database error: {0}")]
    Db(#[from] DbErr),
}

pub type Result<T> = std::result::Result<T, PairingError>;

pub fn invalid(field: &'static str, reason: impl Into<String>) -> PairingError {
    PairingError::InvalidField {
        field,
        reason: reason.into(),
    }
}

impl From<PairingError> for Status {
    fn from(e: PairingError) -> Status {
        use PairingError as E;
        match &e {
            E::Db(_) | E::Corrupt(..) | E::Upstream { .. } => {}
            _ => tracing::warn!(error = %e, "request refused"),
        }
        match e {
            E::InvalidField { field, reason } => status::invalid_field(field, reason),
            E::NotFound(what) => Status::not_found(format!("{what} not found")),
            E::PermissionDenied(why) => Status::permission_denied(why),
            E::Event(event) => event_status(event),
            E::Contended(_) => Status::aborted(e.to_string()),
            E::Upstream { context, status } => {
                tracing::warn!(context, %status, "upstream call failed");
                Status::new(status.code(), format!("{context}: {}", status.message()))
            }
            E::Corrupt(..) => status::internal("replaying the event's log", &e),
            E::Db(db) => status::internal("accessing the pairing database", &db),
        }
    }
}

fn event_status(e: EventError) -> Status {
    let message = e.to_string();
    match e {
        EventError::Invalid { field, reason } => status::invalid_field(field, reason),
        EventError::NotFound(what) => Status::not_found(format!("{what} not found")),
        EventError::Conflict(_) => Status::already_exists(message),
        EventError::Precondition(_) => status::precondition("EVENT_STATE", "event", message),
        EventError::NoValidPairing { .. } => {
            status::precondition("NO_VALID_PAIRING", "round", message)
        }
        EventError::Tournament(_) => status::precondition("INCONSISTENT_RESULTS", "event", message),
    }
}
