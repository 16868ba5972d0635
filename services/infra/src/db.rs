//! Database connections. SQLite (the embedded default) is opened in WAL mode with `synchronous=FULL`,
//! so an acknowledged write survives a crash or power loss; PostgreSQL is used as configured.

use sea_orm::sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous};
use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};
use std::time::Duration;

/// The name of each SQLite connection's thread, before its number.
///
/// sqlx runs each SQLite connection on a thread of its own, where the statements execute: on the
/// embedded database, storing games is this process's CPU. Those threads run at the bulk lane's
/// priority (`lane::lower_threads_named`, after each new connection), since what keeps them busy is
/// ingest at full speed, while the reads a partner waits on (a leaderboard page, an own row) are
/// answered from memory on the request threads (on the ingest bench, 2,000,000 games, they used
/// about 58 s of CPU at the default priority, beside the request threads' 47 s). A request that
/// does wait for the database waits no longer than before on an idle machine (niceness takes
/// nothing from an idle machine); on a saturated one it shares with the bulk lane.
const SQLITE_THREAD: &str = "qiwang-sqlite-";
/// SQLite's memory-mapping ceiling on this platform (`SQLITE_MAX_MMAP_SIZE`, 0x7fff0000): a larger
/// `mmap_size` would be lowered to it.
const MMAP_SIZE: &str = "2147418112";

/// After a new SQLite connection: its thread, and any other of ours still at a higher priority,
/// lowered (see [`SQLITE_THREAD`]).
fn lower_sqlite_threads(
    _: &mut sea_orm::sqlx::SqliteConnection,
    _: sea_orm::sqlx::pool::PoolConnectionMetadata,
) -> std::pin::Pin<Box<dyn Future<Output = Result<(), sea_orm::sqlx::Error>> + Send + '_>> {
    crate::lane::lower_threads_named(SQLITE_THREAD);
    Box::pin(async { Ok(()) })
}

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
                // Read the file through a memory mapping rather than copying each page into the
                // connection's cache: a connection's cache is emptied whenever another connection
                // has written since its last transaction, which during ingest is every transaction.
                .pragma("mmap_size", MMAP_SIZE)
                .foreign_keys(true)
                .create_if_missing(true)
                .thread_name(|id| format!("{SQLITE_THREAD}{id}"))
        });
        opts.map_sqlx_sqlite_pool_opts(|pool| pool.after_connect(lower_sqlite_threads));
    } else {
        // Plan every execution with its values: sqlx keeps statements prepared per connection, and
        // a generic plan chosen while a table was small can stay as it grows to millions of rows
        // (seen: importing 200,000 players had not finished after ten minutes; two with this).
        opts.max_connections(16)
            .map_sqlx_postgres_opts(|o| o.options([("plan_cache_mode", "force_custom_plan")]));
        if let Some(server) = tcp_server(url) {
            opts.map_sqlx_postgres_pool_opts(move |pool| {
                let server = server.clone();
                pool.after_connect(move |_, _| {
                    no_delay::to(&server);
                    Box::pin(async { Ok(()) })
                })
            });
        }
    }
    Database::connect(opts).await
}

/// A database for one large write (a frozen national list, tens of megabytes) whose commit returns
/// once the write is durable, without also copying it into the database file: follow the commit
/// with [`checkpoint_soon`].
///
/// On SQLite in WAL mode, the commit that takes the log past its automatic checkpoint's 1,000 pages
/// copies the log into the database file and syncs that file before it returns. For a 30 MB list on
/// a database of 2 GB that copy took most of the commit (measured with the sqlite3 library on a copy
/// of the ingest bench's database: 0.09–0.15 s with the checkpoint, 0.03 s without, the checkpoint
/// alone 0.12 s). So the write gets a pool of one connection on the same file with automatic
/// checkpoints off; its log is as durable at commit as any other's (`synchronous=FULL`). Elsewhere
/// (PostgreSQL, which checkpoints in the background; an in-memory SQLite database, which has no
/// log), `db` itself.
pub async fn for_large_write(db: &DatabaseConnection) -> Result<DatabaseConnection, DbErr> {
    use sea_orm::{ConnectionTrait, DbBackend, SqlxSqliteConnector};
    if db.get_database_backend() != DbBackend::Sqlite {
        return Ok(db.clone());
    }
    let mode = db
        .query_one_raw(sea_orm::Statement::from_string(
            DbBackend::Sqlite,
            "PRAGMA journal_mode",
        ))
        .await?
        .map(|row| row.try_get_by_index::<String>(0))
        .transpose()?;
    if !mode.is_some_and(|m| m.eq_ignore_ascii_case("wal")) {
        return Ok(db.clone());
    }
    let options = (*db.get_sqlite_connection_pool().connect_options())
        .clone()
        .pragma("wal_autocheckpoint", "0");
    let pool = sea_orm::sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .after_connect(lower_sqlite_threads)
        .connect_with(options)
        .await
        .map_err(|e| DbErr::Conn(sea_orm::RuntimeErr::Internal(e.to_string())))?;
    Ok(SqlxSqliteConnector::from_sqlx_sqlite_pool(pool))
}

/// Copies a SQLite database's write-ahead log into its file on the bulk lane, without waiting for
/// it and without blocking readers or writers (a passive checkpoint); nothing on PostgreSQL.
pub fn checkpoint_soon(db: &DatabaseConnection) {
    use sea_orm::{ConnectionTrait, DbBackend};
    if db.get_database_backend() != DbBackend::Sqlite {
        return;
    }
    let db = db.clone();
    crate::lane::spawn_bulk(async move {
        if let Err(error) = db
            .execute_unprepared("PRAGMA wal_checkpoint(PASSIVE)")
            .await
        {
            tracing::warn!(%error, "a checkpoint of the write-ahead log failed: the next commit's does it");
        }
    });
}

/// The PostgreSQL server's TCP addresses (`None` for a Unix socket or a URL it cannot read).
fn tcp_server(url: &str) -> Option<no_delay::Server> {
    use sea_orm::sqlx::postgres::PgConnectOptions;
    let options: PgConnectOptions = url.parse().ok()?;
    let host = options.get_host();
    if options.get_socket().is_some() || host.starts_with('/') {
        return None;
    }
    let port = options.get_port();
    let addresses = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
        .map(|a| a.map(|a| a.ip()).collect())
        .unwrap_or_default();
    Some(no_delay::Server { port, addresses })
}

/// TCP_NODELAY on this process's connections to the PostgreSQL server.
///
/// sqlx 0.9.0 no longer disables Nagle's algorithm on its sockets (launchbadge/sqlx#4335; the fix,
/// #4336, is merged but not released), so the tail of any statement larger than a TCP segment
/// waits for the server's delayed ACK, about 40 ms on Linux, with both CPUs idle. Measured on the
/// ingest bench (200,000 players, 1,000,000 games, PostgreSQL 15 on the same machine): over TCP the
/// import took 107.6 s and ingest ran at 15,256 games/s; over a Unix socket, which has no Nagle,
/// 19.8 s and 22,430 games/s. sqlx gives no access to its socket, so after each new connection
/// this finds the process's TCP sockets whose peer is the server (from `/proc/self/fd`, each
/// borrowed as a duplicate through `pidfd_getfd`: nothing unsafe, and a descriptor closed or
/// reused meanwhile is just skipped) and sets the option on them; setting it twice is harmless.
/// Best effort: where the kernel (< 5.6) or a seccomp profile refuses `pidfd_getfd`, it says so
/// once and connections work as before. Remove when sqlx sets the option itself.
mod no_delay {
    use std::net::IpAddr;

    /// Where the PostgreSQL server listens.
    #[derive(Clone, Debug)]
    pub(super) struct Server {
        pub port: u16,
        /// Its addresses as resolved at start-up; empty when resolution failed (then any peer on
        /// `port` is taken for it).
        pub addresses: Vec<IpAddr>,
    }

    #[cfg(target_os = "linux")]
    pub(super) fn to(server: &Server) {
        use rustix::process::{PidfdFlags, PidfdGetfdFlags, getpid, pidfd_getfd, pidfd_open};
        use std::sync::atomic::{AtomicBool, Ordering};
        static REFUSED: AtomicBool = AtomicBool::new(false);
        let refused = |e: &dyn std::fmt::Display| {
            if !REFUSED.swap(true, Ordering::Relaxed) {
                tracing::warn!(error = %e, "cannot set TCP_NODELAY on the PostgreSQL connections");
            }
        };
        let pidfd = match pidfd_open(getpid(), PidfdFlags::empty()) {
            Ok(fd) => fd,
            Err(e) => return refused(&e),
        };
        let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
            return;
        };
        for entry in entries.flatten() {
            let Some(fd) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if !std::fs::read_link(entry.path())
                .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"))
            {
                continue;
            }
            let socket = match pidfd_getfd(&pidfd, fd, PidfdGetfdFlags::empty()) {
                Ok(socket) => socket,
                // Closed since it was listed.
                Err(rustix::io::Errno::BADF) => continue,
                Err(e) => return refused(&e),
            };
            let Ok(Some(peer)) = rustix::net::getpeername(&socket) else {
                continue;
            };
            let Ok(peer) = std::net::SocketAddr::try_from(peer) else {
                continue;
            };
            if peer.port() == server.port
                && (server.addresses.is_empty() || server.addresses.contains(&peer.ip()))
                && let Err(e) = rustix::net::sockopt::set_tcp_nodelay(&socket, true)
            {
                refused(&e);
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn to(_: &Server) {}
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
    fn the_postgres_server_is_read_from_the_url() {
        let server = tcp_server("postgres://postgres@127.0.0.1:6543/qiwang").expect("tcp");
        assert_eq!(server.port, 6543);
        assert_eq!(
            server.addresses,
            vec![std::net::IpAddr::from([127, 0, 0, 1])]
        );
        // A Unix socket has no Nagle to turn off.
        assert!(
            tcp_server("postgres://postgres@localhost/qiwang?host=/var/run/postgresql").is_none()
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn no_delay_is_set_on_the_sockets_to_the_server_only() {
        use std::net::{TcpListener, TcpStream};
        let server = TcpListener::bind("127.0.0.1:0").expect("bind");
        let other = TcpListener::bind("127.0.0.1:0").expect("bind");
        let to_server = TcpStream::connect(server.local_addr().expect("addr")).expect("connect");
        let to_other = TcpStream::connect(other.local_addr().expect("addr")).expect("connect");
        assert!(!to_server.nodelay().expect("nodelay"));
        no_delay::to(&no_delay::Server {
            port: server.local_addr().expect("addr").port(),
            addresses: vec![std::net::IpAddr::from([127, 0, 0, 1])],
        });
        assert!(to_server.nodelay().expect("nodelay"));
        assert!(!to_other.nodelay().expect("nodelay"));
    }

    #[test]
    fn sqlite_parent_directory() {
        assert_eq!(
            sqlite_parent_dir("sqlite://qiwang-data/qiwang.db?mode=rwc").as_deref(),
            Some("qiwang-data")
        );
        assert_eq!(sqlite_parent_dir("sqlite::memory:"), None);
        assert_eq!(sqlite_parent_dir("sqlite://file.db"), None);
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn sqlite_connections_run_on_threads_of_the_bulk_lanes_priority() {
        use sea_orm::ConnectionTrait;
        let db = connect("sqlite::memory:").await.expect("connect");
        db.execute_unprepared("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
            .await
            .expect("statements run");
        let mut seen = 0;
        for task in std::fs::read_dir("/proc/self/task")
            .expect("tasks")
            .flatten()
        {
            let Ok(name) = std::fs::read_to_string(task.path().join("comm")) else {
                continue;
            };
            if !name.starts_with(SQLITE_THREAD) {
                continue;
            }
            let tid = task
                .file_name()
                .to_str()
                .and_then(|n| n.parse().ok())
                .and_then(rustix::process::Pid::from_raw)
                .expect("a thread id");
            let niceness = rustix::process::getpriority_process(Some(tid)).expect("niceness");
            assert!(niceness >= crate::lane::NICENESS, "{name}: {niceness}");
            seen += 1;
        }
        assert!(seen >= 1, "no SQLite connection thread was found");
    }

    /// The integer that `sql` (a query or a pragma) answers.
    async fn scalar(db: &DatabaseConnection, sql: &str) -> i64 {
        use sea_orm::ConnectionTrait;
        db.query_one_raw(sea_orm::Statement::from_string(
            sea_orm::DbBackend::Sqlite,
            sql,
        ))
        .await
        .expect("query")
        .expect("a row")
        .try_get_by_index::<i64>(0)
        .expect("an integer")
    }

    #[tokio::test]
    async fn a_sqlite_file_is_read_through_a_memory_mapping_on_every_connection() {
        let dir = std::env::temp_dir().join(format!("qiwang-mmap-{}", std::process::id()));
        let url = format!("sqlite://{}/q.db?mode=rwc", dir.display());
        let db = connect(&url).await.expect("connect");
        // Two reads at once, which the pool may serve on two connections: whichever answers,
        // it was opened with the pragma.
        let (a, b) = tokio::join!(
            scalar(&db, "PRAGMA mmap_size"),
            scalar(&db, "PRAGMA mmap_size")
        );
        let _ = std::fs::remove_dir_all(&dir);
        let expected: i64 = MMAP_SIZE.parse().expect("a number");
        assert_eq!((a, b), (expected, expected));
    }

    #[tokio::test]
    async fn a_large_write_on_a_sqlite_file_leaves_its_checkpoint_for_after_the_commit() {
        use sea_orm::{ConnectionTrait, TransactionTrait};
        let dir = std::env::temp_dir().join(format!("qiwang-large-{}", std::process::id()));
        let url = format!("sqlite://{}/q.db?mode=rwc", dir.display());
        let db = connect(&url).await.expect("connect");
        db.execute_unprepared("CREATE TABLE t (x TEXT)")
            .await
            .expect("table");
        let writer = for_large_write(&db).await.expect("writer");
        // The writer's commits do not checkpoint; the pool's other connections still do.
        assert_eq!(scalar(&writer, "PRAGMA wal_autocheckpoint").await, 0);
        assert_eq!(scalar(&db, "PRAGMA wal_autocheckpoint").await, 1000);
        let txn = writer.begin().await.expect("begin");
        // 16 MB: far past the automatic checkpoint's 1,000 pages.
        txn.execute_unprepared(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) \
             INSERT INTO t SELECT hex(randomblob(4096)) FROM n",
        )
        .await
        .expect("insert");
        txn.commit().await.expect("commit");
        // Committed and seen by the pool, and only in the log: no checkpoint copied it to the file.
        assert_eq!(scalar(&db, "SELECT count(*) FROM t").await, 2000);
        let file_before = std::fs::metadata(dir.join("q.db")).expect("file").len();
        assert!(
            file_before < 1 << 20,
            "checkpointed in the commit: {file_before} bytes"
        );
        checkpoint_soon(&db);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while std::fs::metadata(dir.join("q.db")).expect("file").len() <= file_before {
            assert!(std::time::Instant::now() < deadline, "no checkpoint ran");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop((writer, db));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[tokio::test]
    async fn a_large_write_on_an_in_memory_database_uses_the_database_itself() {
        use sea_orm::ConnectionTrait;
        let db = connect("sqlite::memory:").await.expect("connect");
        db.execute_unprepared("CREATE TABLE t (x INTEGER)")
            .await
            .expect("table");
        let writer = for_large_write(&db).await.expect("writer");
        writer
            .execute_unprepared("INSERT INTO t VALUES (1)")
            .await
            .expect("insert");
        assert_eq!(scalar(&db, "SELECT count(*) FROM t").await, 1);
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
