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
        if let Some(dir) = sqlite_parent_dir(url) {
            std::fs::create_dir_all(&dir)
                .map_err(|e| DbErr::Custom(format!("cannot create {dir}: {e}")))?;
        }
        opts.max_connections(8).map_sqlx_sqlite_opts(|o| {
            o.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true)
                .create_if_missing(true)
        });
    } else {
        opts.max_connections(16);
    }
    Database::connect(opts).await
}

/// The directory of a `sqlite://path/to/file.db?…` URL, if it names a file in a directory.
fn sqlite_parent_dir(url: &str) -> Option<String> {
    let path = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = path.split('?').next()?;
    if path.is_empty() || path == ":memory:" {
        return None;
    }
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
}
