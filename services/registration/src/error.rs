//! The registration service's one error type, and its one mapping to `tonic::Status`.

use qiwang_core::entry::EntryRefusal;
use qiwang_core::preset::PresetErrors;
use qiwang_infra::status;
use sea_orm::DbErr;
use tonic::Status;

#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    #[error("{field}: {reason}")]
    InvalidField { field: &'static str, reason: String },
    #[error("{0} not found")]
    NotFound(String),
    #[error("{0}")]
    AlreadyExists(String),
    #[error("{0}")]
    PermissionDenied(String),
    #[error("entry refused: {0}")]
    Entry(#[from] EntryRefusal),
    #[error("preset: {0}")]
    Preset(PresetErrors),
    #[error("stored preset of championship {0} no longer loads: {1}")]
    StoredPreset(String, PresetErrors),
    #[error("database error: {0}")]
    Db(#[from] DbErr),
}

pub type Result<T> = std::result::Result<T, RegistrationError>;

pub fn invalid(field: &'static str, reason: impl Into<String>) -> RegistrationError {
    RegistrationError::InvalidField {
        field,
        reason: reason.into(),
    }
}

impl From<RegistrationError> for Status {
    fn from(e: RegistrationError) -> Status {
        use RegistrationError as E;
        match &e {
            E::Db(_) | E::StoredPreset(..) => {}
            _ => tracing::warn!(error = %e, "request refused"),
        }
        match e {
            E::InvalidField { field, reason } => status::invalid_field(field, reason),
            E::NotFound(what) => Status::not_found(format!("{what} not found")),
            E::AlreadyExists(what) => Status::already_exists(what),
            E::PermissionDenied(why) => Status::permission_denied(why),
            E::Preset(errors) => status::invalid_field("preset_toml", errors.to_string()),
            E::Entry(refusal) => entry_status(refusal),
            E::StoredPreset(id, errors) => {
                status::internal(&format!("loading championship {id}"), &errors)
            }
            E::Db(db) => status::internal("accessing the registration database", &db),
        }
    }
}

fn entry_status(refusal: EntryRefusal) -> Status {
    let message = refusal.to_string();
    match refusal {
        EntryRefusal::UnknownEvent(_) => status::invalid_field("event", message),
        EntryRefusal::AlreadyEntered => Status::already_exists(message),
        EntryRefusal::NotOnlineQualifier(_) => {
            status::precondition("NOT_ONLINE_QUALIFIER", "event", message)
        }
        EntryRefusal::NotYetOpen { .. } => {
            status::precondition("REGISTRATION_NOT_OPEN", "championship", message)
        }
        EntryRefusal::Closed { .. } => {
            status::precondition("REGISTRATION_CLOSED", "championship", message)
        }
        EntryRefusal::Barred => status::precondition("BARRED", "player", message),
        EntryRefusal::SexNotAdmitted => status::precondition("SEX_NOT_ADMITTED", "player", message),
        EntryRefusal::OutsideAgeWindow => {
            status::precondition("OUTSIDE_AGE_WINDOW", "player", message)
        }
    }
}
