//! `qiwang bench pairing`: how long the Dutch engine (issue 9) takes to pair one round, and how
//! much memory it needs, for fields of 50, 200, 1000 and 3000 players.
//!
//! Each size is a TRF fixture of `services/swiss/benches/data/` (random tournaments, the round to
//! pair being the one after the file's last), paired in a child process of this binary so that
//! the peak memory (`VmHWM` of `/proc/self/status`) is that size's alone. With
//! `--compare PATH` the same files are paired by bbpPairings (`PATH --dutch FILE -p OUT`) too, its
//! peak memory read from `/proc/PID/status` while it runs, and the two pairings are compared.
//! Figures only: nothing here passes or fails.

use anyhow::{Context, bail};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What to run.
#[derive(Debug, Clone, clap::Args)]
pub struct PairingBench {
    /// Numbers of players: the fixtures `pairing-N.trf` to pair.
    #[arg(long, value_delimiter = ',', default_values_t = [50u32, 200, 1000, 3000])]
    pub sizes: Vec<u32>,
    /// The folder of the fixtures (default: `services/swiss/benches/data` of this source tree).
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// A bbpPairings executable to run on the same files, side by side.
    #[arg(long)]
    pub compare: Option<PathBuf>,
    /// Internal: pair this file in this process and report (the child of a run).
    #[arg(long, hide = true)]
    pub child: Option<PathBuf>,
}

/// One pairing's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figures {
    pub players: usize,
    pub round: u32,
    pub boards: usize,
    pub time_ms: u128,
    pub peak_kb: u64,
}

fn default_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../swiss/benches/data")
}

/// Runs the benchmark (or, with `--child`, one pairing of it); prints to standard output.
pub fn run(bench: &PairingBench) -> anyhow::Result<()> {
    if let Some(file) = &bench.child {
        print!("{}", child(file)?);
        return Ok(());
    }
    let data = bench.data.clone().unwrap_or_else(default_data);
    let exe = std::env::current_exe().context("locating this executable")?;
    let mut table = String::from("players  rounds_done  boards    time_ms  peak_MB");
    if bench.compare.is_some() {
        table.push_str("  bbp_time_ms  bbp_peak_MB  same_pairing");
    }
    println!("{table}");
    for &size in &bench.sizes {
        let file = data.join(format!("pairing-{size}.trf"));
        if !file.is_file() {
            bail!("no fixture {}", file.display());
        }
        let out = Command::new(&exe)
            .args(["bench", "pairing", "--child"])
            .arg(&file)
            .stderr(Stdio::inherit())
            .output()
            .with_context(|| format!("running {}", exe.display()))?;
        if !out.status.success() {
            bail!("pairing {} failed", file.display());
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (head, ours) = text.split_once('\n').unwrap_or((text.as_str(), ""));
        let f = parse_figures(head).with_context(|| format!("child reported {head:?}"))?;
        let mut line = format!(
            "{:>7}  {:>11}  {:>6}  {:>9}  {:>7.1}",
            f.players,
            f.round.saturating_sub(1),
            f.boards,
            f.time_ms,
            f.peak_kb as f64 / 1024.0
        );
        if let Some(bbp) = &bench.compare {
            let (ms, kb, theirs) = run_bbp(bbp, &file)?;
            let same = if theirs == ours { "yes" } else { "NO" };
            let _ = write!(
                line,
                "  {:>11}  {:>11.1}  {same:>12}",
                ms,
                kb as f64 / 1024.0
            );
        }
        println!("{line}");
    }
    Ok(())
}

/// Pairs one file: a figures line, then the pairing in bbpPairings' format.
fn child(file: &Path) -> anyhow::Result<String> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let trf = qiwang_swiss::trf::parse(&text).with_context(|| format!("{}", file.display()))?;
    let start = Instant::now();
    let round = qiwang_swiss::dutch::trf_round(&trf)?;
    let pairing = qiwang_swiss::dutch::pair(&round.tournament, &round.options)?;
    let time_ms = start.elapsed().as_millis();
    let figures = Figures {
        players: trf.players().count(),
        round: round.round,
        boards: pairing.boards.len(),
        time_ms,
        peak_kb: peak_kb(&std::fs::read_to_string("/proc/self/status").unwrap_or_default()),
    };
    Ok(format!(
        "{}\n{}",
        format_figures(&figures),
        qiwang_swiss::cli::format_pairing(&pairing)
    ))
}

fn format_figures(f: &Figures) -> String {
    format!(
        "players={} round={} boards={} time_ms={} peak_kb={}",
        f.players, f.round, f.boards, f.time_ms, f.peak_kb
    )
}

fn parse_figures(line: &str) -> Option<Figures> {
    let mut f = Figures {
        players: 0,
        round: 0,
        boards: 0,
        time_ms: 0,
        peak_kb: 0,
    };
    for field in line.split_whitespace() {
        let (key, value) = field.split_once('=')?;
        match key {
            "players" => f.players = value.parse().ok()?,
            "round" => f.round = value.parse().ok()?,
            "boards" => f.boards = value.parse().ok()?,
            "time_ms" => f.time_ms = value.parse().ok()?,
            "peak_kb" => f.peak_kb = value.parse().ok()?,
            _ => return None,
        }
    }
    Some(f)
}

/// The peak resident set (`VmHWM`, in kB) of a `/proc/PID/status` text; 0 when absent.
pub fn peak_kb(status: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs bbpPairings on `file`: its wall time (ms), peak memory (kB, the last `VmHWM` seen while
/// it ran) and its pairing.
fn run_bbp(bbp: &Path, file: &Path) -> anyhow::Result<(u128, u64, String)> {
    let out = std::env::temp_dir().join(format!("qiwang-bench-bbp-{}.txt", std::process::id()));
    let start = Instant::now();
    let mut child = Command::new(bbp)
        .arg("--dutch")
        .arg(file)
        .arg("-p")
        .arg(&out)
        .stdout(Stdio::null())
        .spawn()
        .with_context(|| format!("running {}", bbp.display()))?;
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let status = loop {
        if let Ok(s) = std::fs::read_to_string(&status_path) {
            peak = peak.max(peak_kb(&s));
        }
        if let Some(status) = child.try_wait()? {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let ms = start.elapsed().as_millis();
    if !status.success() {
        bail!("{} failed on {}", bbp.display(), file.display());
    }
    let pairing = std::fs::read_to_string(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    Ok((ms, peak, pairing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_peak_from_proc_status() {
        let status = "Name:\tqiwang\nVmPeak:\t  20000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(peak_kb(status), 1234);
        assert_eq!(peak_kb("Name:\tx\n"), 0);
    }

    #[test]
    fn figures_round_trip() {
        let f = Figures {
            players: 200,
            round: 9,
            boards: 100,
            time_ms: 42,
            peak_kb: 5120,
        };
        assert_eq!(parse_figures(&format_figures(&f)), Some(f));
        assert_eq!(parse_figures("players=x"), None);
    }

    #[test]
    fn pairs_a_fixture_in_process() {
        let file = default_data().join("pairing-50.trf");
        let text = child(&file).expect("the 50-player fixture pairs");
        let (head, pairing) = text.split_once('\n').expect("two parts");
        let f = parse_figures(head).expect("figures");
        assert_eq!(f.players, 50);
        assert_eq!(f.boards, 25);
        assert!(pairing.starts_with("25\n"));
    }
}
