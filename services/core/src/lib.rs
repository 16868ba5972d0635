//! The rules core of qiwang (棋王): domain types and rules as plain functions over plain data.
//!
//! Architecture invariant: nothing here does IO, is async, or knows about gRPC, GraphQL or SQL.
//! Inputs come in as values (including the current time), outputs go out as values or typed errors.
//! Service crates translate between their protocols and these types.

pub mod entry;
pub mod identity;
pub mod nationality;
pub mod preset;
pub mod region;
pub mod time;
