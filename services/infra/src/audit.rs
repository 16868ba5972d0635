//! Tamper-evident audit logs (R-DIS-3; issue 6): every entry carries the hash of the one before it,
//! so an edited, removed or reordered entry breaks the chain at that point, and
//! `qiwang audit check` names the first broken link.
//!
//! An entry's hash is SHA-256 over the previous entry's hash and the entry's fields, each
//! length-prefixed (so no two different entries hash alike by moving text between fields); the
//! first entry's previous hash is [`GENESIS`]. Times are hashed as RFC 3339 with milliseconds
//! ([`chain_time`] truncates them so, so both databases give back exactly what was hashed).
//!
//! Appends are serialized per table ([`lock_chain`]: a transaction-scoped advisory lock on
//! PostgreSQL; SQLite serializes writers itself), and each table has a unique index on its
//! previous-hash column, so two writers can never fork the chain.
//!
//! The service crates own their tables; each describes its audit table as a [`ChainedTable`] and
//! this module only hashes, reads (for `qiwang.audit.v1` pages too) and checks. A table's text
//! columns are, in order, actor, role, action, subject, detail.

use chrono::{DateTime, SubsecRound, Utc};
use qiwang_core::lottery::{hex, sha256};
use sea_orm::{ConnectionTrait, DatabaseBackend, DbErr, Statement};

/// The previous hash of a chain's first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A time as it is stored and hashed in a chain (whole milliseconds).
pub fn chain_time(t: DateTime<Utc>) -> DateTime<Utc> {
    t.trunc_subsecs(3)
}

/// The hash of an entry with fields `fields` (in the table's column order) after `prev`.
pub fn entry_hash(prev: &str, at: DateTime<Utc>, fields: &[&str]) -> String {
    let mut bytes = Vec::with_capacity(256);
    let mut put = |s: &str| {
        bytes.extend_from_slice(&(s.len() as u64).to_be_bytes());
        bytes.extend_from_slice(s.as_bytes());
    };
    put("qiwang.audit.v1");
    put(prev);
    put(&chain_time(at).to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
    for f in fields {
        put(f);
    }
    hex(&sha256(&bytes))
}

/// Serializes appends to one chain until the transaction ends (PostgreSQL); a no-op on SQLite,
/// whose writers are serialized already.
pub async fn lock_chain<C: ConnectionTrait>(db: &C, table: &str) -> Result<(), DbErr> {
    if db.get_database_backend() == DatabaseBackend::Postgres {
        db.execute_raw(Statement::from_sql_and_values(
            DatabaseBackend::Postgres,
            "SELECT pg_advisory_xact_lock(hashtext($1))",
            [table.into()],
        ))
        .await?;
    }
    Ok(())
}

/// The hash of a chain's last entry (or [`GENESIS`]), read inside the appending transaction
/// after [`lock_chain`].
pub async fn last_hash<C: ConnectionTrait>(db: &C, table: &ChainedTable) -> Result<String, DbErr> {
    let sql = format!(
        "SELECT hash FROM {} ORDER BY {} DESC LIMIT 1",
        table.name, table.id_column
    );
    let row = db
        .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
        .await?;
    Ok(match row {
        Some(r) => r.try_get::<String>("", "hash")?,
        None => GENESIS.to_owned(),
    })
}

/// How an audit table is chained: its name, its id (append order), its time column and the text
/// columns the hash covers, in order. Every chained table has `prev_hash` and `hash` columns.
#[derive(Debug, Clone, Copy)]
pub struct ChainedTable {
    pub name: &'static str,
    pub id_column: &'static str,
    pub time_column: &'static str,
    pub text_columns: &'static [&'static str],
}

/// The first entry that does not follow from the one before it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table}: entry {id}: {why}")]
pub struct BrokenLink {
    pub table: &'static str,
    pub id: i64,
    pub why: String,
}

/// What a check found.
#[derive(Debug)]
pub enum ChainCheck {
    Intact { entries: u64 },
    Broken(BrokenLink),
}

/// Reads a whole chain in append order and checks every link.
pub async fn check_chain<C: ConnectionTrait>(
    db: &C,
    table: &ChainedTable,
) -> Result<ChainCheck, DbErr> {
    let columns = table.text_columns.join(", ");
    let sql = format!(
        "SELECT {id}, {time}, {columns}, prev_hash, hash FROM {name} ORDER BY {id}",
        id = table.id_column,
        time = table.time_column,
        name = table.name,
    );
    let rows = db
        .query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await?;
    let mut prev = GENESIS.to_owned();
    let mut entries = 0u64;
    for row in rows {
        let id: i64 = row.try_get("", table.id_column)?;
        let at: DateTime<Utc> = row.try_get("", table.time_column)?;
        let mut fields = Vec::with_capacity(table.text_columns.len());
        for c in table.text_columns {
            fields.push(row.try_get::<String>("", c)?);
        }
        let stored_prev: String = row.try_get("", "prev_hash")?;
        let stored: String = row.try_get("", "hash")?;
        let broken = |why: String| {
            Ok(ChainCheck::Broken(BrokenLink {
                table: table.name,
                id,
                why,
            }))
        };
        if stored_prev != prev {
            return broken(format!(
                "its previous hash {} is not the hash of the entry before it ({})",
                short(&stored_prev),
                short(&prev)
            ));
        }
        let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
        let computed = entry_hash(&prev, at, &refs);
        if computed != stored {
            return broken(format!(
                "its content does not match its hash (stored {}, computed {})",
                short(&stored),
                short(&computed)
            ));
        }
        prev = stored;
        entries += 1;
    }
    Ok(ChainCheck::Intact { entries })
}

/// One entry of a chain as read for display, with whether its link holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    pub id: i64,
    pub at: DateTime<Utc>,
    /// The table's text columns, in [`ChainedTable::text_columns`] order.
    pub fields: Vec<String>,
    pub prev_hash: String,
    pub hash: String,
    /// Its content matches its hash and its previous hash is the hash of the entry before it.
    pub intact: bool,
}

/// Up to `limit` entries after id `after` (0: from the start), oldest first, each with its link
/// checked against the entry before it.
pub async fn page<C: ConnectionTrait>(
    db: &C,
    table: &ChainedTable,
    after: i64,
    limit: u32,
) -> Result<Vec<AuditEntry>, DbErr> {
    let backend = db.get_database_backend();
    let before = format!(
        "SELECT hash FROM {name} WHERE {id} <= {after} ORDER BY {id} DESC LIMIT 1",
        name = table.name,
        id = table.id_column,
    );
    let mut prev = match db
        .query_one_raw(Statement::from_string(backend, before))
        .await?
    {
        Some(row) => row.try_get::<String>("", "hash")?,
        None => GENESIS.to_owned(),
    };
    let sql = format!(
        "SELECT {id}, {time}, {columns}, prev_hash, hash FROM {name} WHERE {id} > {after} ORDER BY {id} LIMIT {limit}",
        id = table.id_column,
        time = table.time_column,
        columns = table.text_columns.join(", "),
        name = table.name,
    );
    let mut out = Vec::new();
    for row in db
        .query_all_raw(Statement::from_string(backend, sql))
        .await?
    {
        let mut fields = Vec::with_capacity(table.text_columns.len());
        for c in table.text_columns {
            fields.push(row.try_get::<String>("", c)?);
        }
        let at: DateTime<Utc> = row.try_get("", table.time_column)?;
        let prev_hash: String = row.try_get("", "prev_hash")?;
        let hash: String = row.try_get("", "hash")?;
        let refs: Vec<&str> = fields.iter().map(String::as_str).collect();
        let intact = prev_hash == prev && entry_hash(&prev_hash, at, &refs) == hash;
        prev = hash.clone();
        out.push(AuditEntry {
            id: row.try_get("", table.id_column)?,
            at,
            fields,
            prev_hash,
            hash,
            intact,
        });
    }
    Ok(out)
}

/// A page of the log as the services serve it (`qiwang.audit.v1`; the caller checks the role).
pub async fn page_pb<C: ConnectionTrait>(
    db: &C,
    table: &ChainedTable,
    req: qiwang_proto::audit::v1::AuditPageRequest,
) -> Result<qiwang_proto::audit::v1::AuditPage, DbErr> {
    use qiwang_proto::audit::v1 as pb;
    let limit = match req.limit {
        0 => 100,
        n => n.min(500),
    };
    let entries = page(db, table, req.after.max(0), limit).await?;
    let next_after = if entries.len() == limit as usize {
        entries.last().map_or(0, |e| e.id)
    } else {
        0
    };
    Ok(pb::AuditPage {
        entries: entries
            .into_iter()
            .map(|e| {
                let at = prost_types::Timestamp {
                    seconds: e.at.timestamp(),
                    nanos: e.at.timestamp_subsec_nanos() as i32,
                };
                let mut f = e.fields.into_iter();
                let mut next = || f.next().unwrap_or_default();
                pb::AuditEntry {
                    seq: e.id,
                    at: Some(at),
                    actor: next(),
                    role: next(),
                    action: next(),
                    subject: next(),
                    detail: next(),
                    prev_hash: e.prev_hash,
                    hash: e.hash,
                    intact: e.intact,
                }
            })
            .collect(),
        next_after,
    })
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn r_dis_3_a_changed_field_or_link_changes_the_hash() {
        let at = Utc
            .with_ymd_and_hms(2026, 12, 1, 3, 4, 5)
            .single()
            .expect("time");
        let h = entry_hash(GENESIS, at, &["org-1", "organizer", "approve", "x"]);
        assert_eq!(h.len(), 64);
        assert_eq!(
            h,
            entry_hash(GENESIS, at, &["org-1", "organizer", "approve", "x"])
        );
        assert_ne!(
            h,
            entry_hash(GENESIS, at, &["org-1", "organizer", "approve", "y"])
        );
        assert_ne!(
            h,
            entry_hash(&h, at, &["org-1", "organizer", "approve", "x"])
        );
        // Moving text between fields is a different entry.
        assert_ne!(
            entry_hash(GENESIS, at, &["ab", "c"]),
            entry_hash(GENESIS, at, &["a", "bc"])
        );
        // Sub-millisecond digits are not part of the chain.
        let later = at + chrono::Duration::microseconds(300);
        assert_eq!(
            h,
            entry_hash(GENESIS, later, &["org-1", "organizer", "approve", "x"])
        );
    }
}
