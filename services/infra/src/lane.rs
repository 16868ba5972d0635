//! The bulk lane: threads of lower CPU priority for throughput work (ingesting reports by the
//! thousand), so that latency work (a leaderboard page, a player's own row) is not queued behind it.
//!
//! Tokio cannot prioritise one task over another, and the operating system schedules only threads:
//! a read that wakes while every worker is busy with ingest waits for a worker, and a worker that
//! does get the CPU shares it equally with the others. So bulk work runs on a runtime of its own,
//! whose threads have a niceness of [`NICENESS`]: when both kinds want the CPU, the scheduler gives
//! the request threads the larger share and preempts bulk work when one wakes; when nothing else
//! wants the CPU, bulk work has all of it (niceness takes nothing from an idle machine).
//!
//! The lane is one per process, built on first use and never dropped (it lives as long as the
//! process, like the threads of a connection pool).

use std::future::Future;
use std::sync::OnceLock;

/// The niceness of bulk threads (0 is the default; higher is lower priority, at most 19).
pub const NICENESS: i32 = 10;

static BULK: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();

/// Runs `work` on the bulk lane; on the caller's runtime when the lane could not be built.
pub fn spawn_bulk<F>(work: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let lane = BULK.get_or_init(|| {
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        match tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("qiwang-bulk")
            .on_thread_start(lower_priority)
            .enable_all()
            .build()
        {
            Ok(runtime) => Some(runtime),
            Err(error) => {
                tracing::warn!(%error, "the bulk lane could not be built: bulk work runs with requests");
                None
            }
        }
    });
    match lane {
        Some(runtime) => runtime.spawn(work),
        None => tokio::spawn(work),
    }
}

/// Lowers the calling thread's priority to [`NICENESS`], unless it is lower already (on Linux,
/// niceness is per thread, and a new thread inherits its creator's).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if rustix::process::getpriority_process(None).is_ok_and(|now| now < NICENESS)
        && let Err(error) = rustix::process::setpriority_process(None, NICENESS)
    {
        tracing::warn!(%error, "a bulk thread keeps its creator's priority");
    }
}

/// Lowers every thread of this process whose name starts with `prefix` to [`NICENESS`]: for
/// threads a library makes, on which no hook of ours runs (on Linux, a thread's priority can be set
/// by its id from any thread of the process). Threads at or below that priority already are left
/// alone. `prefix` is at most 15 bytes, what Linux keeps of a thread's name.
pub fn lower_threads_named(prefix: &str) {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Pid, getpriority_process, setpriority_process};
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return;
        };
        for task in tasks.flatten() {
            let Some(tid) = task
                .file_name()
                .to_str()
                .and_then(|n| n.parse().ok())
                .and_then(Pid::from_raw)
            else {
                continue;
            };
            // A thread that ended since it was listed has no name to read.
            if std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|c| c.starts_with(prefix))
                && getpriority_process(Some(tid)).is_ok_and(|now| now < NICENESS)
                && let Err(error) = setpriority_process(Some(tid), NICENESS)
            {
                tracing::warn!(%error, thread = prefix, "a thread keeps its creator's priority");
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = prefix;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bulk_work_runs_on_lower_priority_threads_and_returns_its_result() {
        let niceness = || {
            #[cfg(target_os = "linux")]
            return rustix::process::getpriority_process(None).ok();
            #[cfg(not(target_os = "linux"))]
            return Some(NICENESS);
        };
        let caller = niceness();
        let (name, bulk) = spawn_bulk(async move {
            let name = std::thread::current().name().map(str::to_owned);
            (name, niceness())
        })
        .await
        .expect("bulk work completes");
        assert_eq!(name.as_deref(), Some("qiwang-bulk"));
        assert_eq!(bulk, caller.map(|c| c.max(NICENESS)));
        // The caller's thread keeps its priority.
        assert_eq!(niceness(), caller);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn threads_are_lowered_by_name_and_no_other() {
        let niceness = || rustix::process::getpriority_process(None).expect("niceness");
        let spawn = |name: &str| {
            let (ready, wait) = std::sync::mpsc::channel();
            let (stop, stopped) = std::sync::mpsc::channel::<()>();
            let thread = std::thread::Builder::new()
                .name(name.to_owned())
                .spawn(move || {
                    ready.send(()).expect("ready");
                    let _ = stopped.recv();
                    niceness()
                })
                .expect("spawn");
            wait.recv().expect("started");
            (thread, stop)
        };
        let caller = niceness();
        let (named, stop_named) = spawn("lane-test-db-1");
        let (other, stop_other) = spawn("lane-test-other");
        lower_threads_named("lane-test-db-");
        drop((stop_named, stop_other));
        assert_eq!(named.join().expect("named"), caller.max(NICENESS));
        assert_eq!(other.join().expect("other"), caller);
        assert_eq!(niceness(), caller);
    }
}
