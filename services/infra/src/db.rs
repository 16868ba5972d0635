//! Database connections. SQLite (the embedded default) is opened in WAL mode with `synchronous=FULL`,
//! so an acknowledged write survives a crash or power loss; PostgreSQL is used as configured.

use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};
use std::time::Duration;

/// Opens a pool on `url` (`sqlite://…` or `postgres://…`). For SQLite the parent directory of the
/// file is created if missing.
pub async fn connect(url: &str) -> Result<DatabaseConnection, DbErr> {
    let mut opts = ConnectOptions::new(url.to_owned());
    opts.sqlx_logging(false)
        .connect_timeout(Duration::from_secs(10))
        .acquire_timeout(Duration::from_secs(10));
    if url.starts_with("sqlite:") {
        create_sqlite_dir(url)?;
        opts.max_connections(8).map_sqlx_sqlite_opts(|o| {
            o.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10))
                // 64 MiB of page cache per connection (SQLite's default is 2 MiB): a period of
                // millions of games keeps its tables' upper B-tree levels in memory.
                .pragma("cache_size", "-65536")
                .foreign_keys(true)
                .create_if_missing(true)
        });
    } else {
        // Plan every execution with its values: sqlx keeps statements prepared per connection, and
        // a generic plan chosen while a table was small can stay as it grows to millions of rows
        // (seen: importing 200,000 players had not finished after ten minutes; two with this).
        opts.max_connections(16)
            .map_sqlx_postgres_opts(|o| o.options([("plan_cache_mode", "force_custom_plan")]));
    }
    Database::connect(opts).await
}

/// A SQLite database served by this process alone, for as long as the claim is held: an advisory
/// lock on `<file>.lock` keeps any other process from serving the same file, so what a service
/// keeps in memory about its own writes (a change counter) is what the database holds. Scale-out
/// is PostgreSQL; two processes on one SQLite file are refused, not silently diverging.
#[derive(Debug)]
pub struct SqliteClaim {
    /// `None` for an in-memory database, which no other process can open anyway.
    _lock: Option<std::fs::File>,
}

/// Claims the SQLite database at `url` for this process (`Ok(None)` for PostgreSQL). Fails when
/// another process, or another suite in this process, serves it.
pub fn claim_sqlite(url: &str) -> Result<Option<SqliteClaim>, DbErr> {
    if !url.starts_with("sqlite:") {
        return Ok(None);
    }
    let Some(path) = sqlite_path(url) else {
        return Ok(Some(SqliteClaim { _lock: None }));
    };
    let lock_path = format!("{path}.lock");
    create_sqlite_dir(url)?;
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| DbErr::Custom(format!("cannot open {lock_path}: {e}")))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(SqliteClaim { _lock: Some(file) })),
        Err(std::fs::TryLockError::WouldBlock) => Err(DbErr::Custom(format!(
            "{path} is served by another process (its lock {lock_path} is held): one process serves a SQLite database; run replicas on PostgreSQL"
        ))),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(DbErr::Custom(format!("cannot lock {lock_path}: {e}")))
        }
    }
}

/// The file of a `sqlite://path/to/file.db?…` URL; `None` for an in-memory database.
fn sqlite_path(url: &str) -> Option<&str> {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = path.split('?').next()?;
    (!path.is_empty() && path != ":memory:").then_some(path)
}

/// Creates the directory of a SQLite URL's file if it is missing.
fn create_sqlite_dir(url: &str) -> Result<(), DbErr> {
    match sqlite_parent_dir(url) {
        Some(dir) => std::fs::create_dir_all(&dir)
            .map_err(|e| DbErr::Custom(format!("cannot create {dir}: {e}"))),
        None => Ok(()),
    }
}

/// The directory of a `sqlite://path/to/file.db?…` URL, if it names a file in a directory.
fn sqlite_parent_dir(url: &str) -> Option<String> {
    let path = sqlite_path(url)?;
    let parent = std::path::Path::new(path).parent()?;
    let parent = parent.to_str()?;
    (!parent.is_empty()).then(|| parent.to_owned())
}

/// Whether a database error is a unique-constraint violation (a duplicate), on either backend.
pub fn is_unique_violation(e: &DbErr) -> bool {
    matches!(
        e.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_parent_directory() {
        assert_eq!(
            sqlite_parent_dir("sqlite://qiwang-data/qiwang.db?mode=rwc").as_deref(),
            Some("qiwang-data")
        );
        assert_eq!(sqlite_parent_dir("sqlite::memory:"), None);
        assert_eq!(sqlite_parent_dir("sqlite://file.db"), None);
    }

    #[test]
    fn one_process_serves_a_sqlite_file_at_a_time() {
        let dir = std::env::temp_dir().join(format!("qiwang-claim-{}", std::process::id()));
        let url = format!("sqlite://{}/q.db?mode=rwc", dir.display());
        let first = claim_sqlite(&url).expect("claim").expect("a SQLite claim");
        // A second claim (another suite, here or in another process) is refused while it is held.
        let refused = claim_sqlite(&url).expect_err("held");
        assert!(
            refused.to_string().contains("served by another process"),
            "{refused}"
        );
        drop(first);
        assert!(claim_sqlite(&url).expect("claim again").is_some());
        assert!(
            claim_sqlite("postgres://localhost/q")
                .expect("pg")
                .is_none()
        );
        assert!(claim_sqlite("sqlite::memory:").expect("memory").is_some());
        let _ = std::fs::remove_dir_all(dir);
    }
}
