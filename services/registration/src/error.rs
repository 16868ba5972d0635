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
    #[error("{message}")]
    Precondition {
        kind: &'static str,
        subject: String,
        message: String,
    },
    #[error("pair refused: {0}")]
    Pair(#[from] qiwang_core::pairs::PairRefusal),
    /// A call to another service failed; its status is passed on.
    #[error("{context}: {status}")]
    Upstream {
        context: &'static str,
        status: Status,
    },
    #[error("entry refused: {0}")]
    Entry(#[from] EntryRefusal),
    #[error("preset: {0}")]
    Preset(PresetErrors),
    #[error("stored preset of championship {0} no longer loads: {1}")]
    StoredPreset(String, PresetErrors),
    #[error("database error: {0}")]
    Db(#[from] DbErr),
    /// Work handed to the bulk lane ended without an answer (it panicked).
    #[error("bulk work failed: {0}")]
    Task(#[from] tokio::task::JoinError),
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
            E::Db(_) | E::StoredPreset(..) | E::Upstream { .. } | E::Task(_) => {}
            _ => tracing::warn!(error = %e, "request refused"),
        }
        match e {
            E::InvalidField { field, reason } => status::invalid_field(field, reason),
            E::NotFound(what) => Status::not_found(format!("{what} not found")),
            E::AlreadyExists(what) => Status::already_exists(what),
            E::PermissionDenied(why) => Status::permission_denied(why),
            E::Preset(errors) => status::invalid_field("preset_toml", errors.to_string()),
            E::Entry(refusal) => entry_status(refusal),
            E::Precondition {
                kind,
                subject,
                message,
            } => status::precondition(kind, &subject, message),
            E::Pair(refusal) => pair_status(refusal),
            E::Upstream { context, status } => {
                tracing::warn!(context, %status, "upstream call failed");
                Status::new(status.code(), format!("{context}: {}", status.message()))
            }
            E::StoredPreset(id, errors) => {
                status::internal(&format!("loading championship {id}"), &errors)
            }
            E::Db(db) => status::internal("accessing the registration database", &db),
            E::Task(e) => status::internal("looking up many players or accounts", &e),
        }
    }
}

fn entry_status(refusal: EntryRefusal) -> Status {
    let message = refusal.to_string();
    match refusal {
        EntryRefusal::UnknownEvent(_) => status::invalid_field("event", message),
        EntryRefusal::AlreadyEntered => Status::already_exists(message),
        EntryRefusal::NotDirectEntry(_) => {
            status::precondition("NOT_DIRECT_ENTRY", "event", message)
        }
        EntryRefusal::CertificateRequired => {
            status::precondition("CERTIFICATE_REQUIRED", "player", message)
        }
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

fn pair_status(refusal: qiwang_core::pairs::PairRefusal) -> Status {
    use qiwang_core::pairs::PairRefusal as R;
    let message = refusal.to_string();
    match refusal {
        R::NotYetOpen(_) => status::precondition("PAIRS_NOT_OPEN", "event", message),
        R::Closed(_) => status::precondition("PAIRS_CLOSED", "event", message),
        R::SamePlayer => status::invalid_field("second_player_id", message),
        R::WrongSex(_) | R::NotMixed => status::precondition("SEX_NOT_ADMITTED", "pair", message),
        R::NotReached(_) | R::NobodyPlayedOnline => {
            status::precondition("NOT_REACHED", "pair", message)
        }
        R::NoRelation => status::invalid_field("relation", message),
        R::ImplausibleRelation(_) => status::precondition("IMPLAUSIBLE_RELATION", "pair", message),
        R::Age(_) => status::precondition("OUTSIDE_AGE_BOUNDS", "pair", message),
        R::AlreadyPaired(_) => Status::already_exists(message),
    }
}

pub fn precondition(
    kind: &'static str,
    subject: impl Into<String>,
    message: impl Into<String>,
) -> RegistrationError {
    RegistrationError::Precondition {
        kind,
        subject: subject.into(),
        message: message.into(),
    }
}
