//! The rules core of qiwang (棋王): domain types and rules as plain functions over plain data.
//!
//! Architecture invariant: nothing here does IO, is async, or knows about gRPC, GraphQL or SQL.
//! Inputs come in as values (including the current time), outputs go out as values or typed errors.
//! Service crates translate between their protocols and these types.

pub mod advancement;
pub mod dan;
pub mod entry;
pub mod evidence;
pub mod finals;
pub mod grade;
pub mod identity;
pub mod knockout;
pub mod live;
pub mod lottery;
pub mod nationality;
pub mod pairs;
pub mod preset;
pub mod prize;
pub mod region;
pub mod scoring;
pub mod stage;
pub mod standings;
pub mod team;
pub mod time;
pub mod time_control;
pub mod workday;
pub mod workflow;
