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

/// `UNAVAILABLE` with a `RetryInfo` detail: the request may succeed as it is after `retry_after`
/// (a leaderboard being rebuilt, a server shutting down). The message names the delay too, for
/// clients that read no details.
pub fn unavailable_retry(description: &str, retry_after: std::time::Duration) -> Status {
    Status::with_error_details(
        Code::Unavailable,
        format!("{description}; retry in {} ms", retry_after.as_millis()),
        ErrorDetails::with_retry_info(Some(retry_after)),
    )
}

/// How long the client said it will wait (its `grpc-timeout` header), if it said.
pub fn client_timeout(metadata: &tonic::metadata::MetadataMap) -> Option<std::time::Duration> {
    use std::time::Duration;
    let value = metadata.get("grpc-timeout")?.to_str().ok()?;
    // At most 8 digits and a unit (gRPC over HTTP/2).
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok().filter(|_| digits.len() <= 8)?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_client_timeout_is_read_from_grpc_timeout_and_nonsense_is_none() {
        let with = |v: &str| {
            let mut m = tonic::metadata::MetadataMap::new();
            m.insert("grpc-timeout", v.parse().expect("ascii"));
            client_timeout(&m)
        };
        assert_eq!(with("1S"), Some(Duration::from_secs(1)));
        assert_eq!(with("250m"), Some(Duration::from_millis(250)));
        assert_eq!(with("2M"), Some(Duration::from_secs(120)));
        assert_eq!(with("7u"), Some(Duration::from_micros(7)));
        for bad in ["", "S", "1x", "123456789S", "-1S", "1.5S"] {
            assert_eq!(with(bad), None, "{bad:?}");
        }
        assert_eq!(client_timeout(&tonic::metadata::MetadataMap::new()), None);
    }

    #[test]
    fn unavailable_retry_carries_the_delay_in_its_details_and_message() {
        let status = unavailable_retry("the board is being built", Duration::from_millis(500));
        assert_eq!(status.code(), Code::Unavailable);
        assert!(status.message().ends_with("retry in 500 ms"), "{status:?}");
        let details = status.get_error_details();
        let retry = details.retry_info().expect("RetryInfo");
        assert_eq!(retry.retry_delay, Some(Duration::from_millis(500)));
    }
}
