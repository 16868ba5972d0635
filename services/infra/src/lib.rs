//! Shared infrastructure for qiwang's service crates and gateway: configuration, telemetry,
//! database connections, JWT verification and `tonic::Status` helpers.
//!
//! API boundary: no domain rules live here (they are in `qiwang-core`), and no service's tables.

pub mod audit;
pub mod auth;
pub mod config;
pub mod db;
pub mod lane;
pub mod metrics;
pub mod status;
pub mod telemetry;
pub mod text;

pub use auth::{Caller, Role, Verifier};
pub use config::Settings;
