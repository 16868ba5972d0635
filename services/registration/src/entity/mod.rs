//! sea-orm entities for the registration service's own tables (`registration_…`).
//! They are storage rows, not domain types: `service.rs` converts to and from `qiwang-core`.

pub mod account;
pub mod audit;
pub mod bar;
pub mod championship;
pub mod entry;
pub mod evidence;
pub mod finals;
pub mod pair;
pub mod player;
