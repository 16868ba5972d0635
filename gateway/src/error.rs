//! The gateway's one error mapping: a service's `tonic::Status` becomes a GraphQL error whose
//! `extensions.code` is the gRPC code name (`INVALID_ARGUMENT`, `UNAVAILABLE`, …) and, for a bad
//! field, `extensions.field`.

use async_graphql::ErrorExtensions;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// Errors the gateway raises itself.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    #[error("sign in first: {0}")]
    Unauthenticated(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{field}: {reason}")]
    InvalidInput { field: &'static str, reason: String },
    #[error("{0}")]
    Service(Status),
}

impl GatewayError {
    pub fn code(&self) -> &'static str {
        match self {
            GatewayError::Unauthenticated(_) => "UNAUTHENTICATED",
            GatewayError::Forbidden(_) => "PERMISSION_DENIED",
            GatewayError::InvalidInput { .. } => "INVALID_ARGUMENT",
            GatewayError::Service(status) => code_name(status.code()),
        }
    }
}

impl From<Status> for GatewayError {
    fn from(status: Status) -> Self {
        GatewayError::Service(status)
    }
}

impl ErrorExtensions for GatewayError {
    fn extend(&self) -> async_graphql::Error {
        let message = match self {
            GatewayError::Service(status)
                if status.code() == Code::Unavailable
                    || status.code() == Code::DeadlineExceeded =>
            {
                format!(
                    "a service this field needs is unavailable: {}",
                    status.message()
                )
            }
            GatewayError::Service(status) => status.message().to_owned(),
            other => other.to_string(),
        };
        let code = self.code();
        match self {
            GatewayError::Service(status)
                if !matches!(
                    status.code(),
                    Code::InvalidArgument
                        | Code::NotFound
                        | Code::AlreadyExists
                        | Code::PermissionDenied
                        | Code::Unauthenticated
                        | Code::FailedPrecondition
                ) =>
            {
                tracing::warn!(code, message = %status.message(), "service call failed");
            }
            _ => tracing::info!(code, %message, "request refused"),
        }
        let field = match self {
            GatewayError::InvalidInput { field, .. } => Some((*field).to_owned()),
            GatewayError::Service(status) => status
                .get_details_bad_request()
                .and_then(|b| b.field_violations.first().map(|v| v.field.clone())),
            _ => None,
        };
        // The precondition kind (REGISTRATION_CLOSED, …): what `i18n` tells a person.
        let reason = match self {
            GatewayError::Service(status) => status
                .get_details_precondition_failure()
                .and_then(|p| p.violations.first().map(|v| v.r#type.clone())),
            _ => None,
        };
        async_graphql::Error::new(message).extend_with(|_, e| {
            e.set("code", code);
            if let Some(field) = &field {
                e.set("field", field.as_str());
            }
            if let Some(reason) = &reason {
                e.set("reason", reason.as_str());
            }
        })
    }
}

pub use qiwang_infra::status::code_name;

/// Shorthand used by resolvers.
pub type GqlResult<T> = async_graphql::Result<T>;

/// Converts any gateway error into a GraphQL error with its extensions.
pub fn gql(e: impl Into<GatewayError>) -> async_graphql::Error {
    e.into().extend()
}
