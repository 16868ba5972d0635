//! Helpers for building `tonic::Status` values with field-level details, used by every service's
//! one `From<Error> for Status` mapping.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// `INVALID_ARGUMENT` with a `BadRequest` field violation (readable by any gRPC client that
/// understands `google.rpc.BadRequest`) and a message that also names the field.
pub fn invalid_field(field: &str, description: impl Into<String>) -> Status {
    let description = description.into();
    Status::with_error_details(
        Code::InvalidArgument,
        format!("{field}: {description}"),
        ErrorDetails::with_bad_request_violation(field, description),
    )
}

/// `FAILED_PRECONDITION` with a `PreconditionFailure` violation: the request is well-formed but the
/// state of the world refuses it (window closed, player barred, …).
pub fn precondition(kind: &str, subject: &str, description: impl Into<String>) -> Status {
    let description = description.into();
    Status::with_error_details(
        Code::FailedPrecondition,
        description.clone(),
        ErrorDetails::with_precondition_failure_violation(kind, subject, description),
    )
}

/// An internal error: logged in full, reported without internals.
pub fn internal(context: &str, error: &dyn std::fmt::Display) -> Status {
    tracing::error!(%error, context, "internal error");
    Status::internal(format!("internal error while {context}"))
}

/// The canonical upper-case name of a gRPC code.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}
