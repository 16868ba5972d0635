//! A command line compatible with bbpPairings and JaVaFo, without IO: the caller passes a file
//! reader and writes what [`run`] returns.
//!
//! - `--dutch in.trf -p [out.txt]`: pairs the next round. Output: the number of pairs, then one
//!   `first second` line per board (first mover first), then `N 0` for the pairing-allocated bye.
//! - `--dutch in.trf -c`: re-pairs every round of the file from the rounds before it and lists the
//!   rounds where the file differs.
//!
//! Exit codes as bbpPairings: 0 ok, 1 no valid pairing, 3 bad input, 5 file error.

use std::io;

use crate::dutch::{self, Pairing, PairingError};
use crate::trf;

/// What a run produced: the exit code, standard output and error, and files to write.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// (path, content) pairs to write, in order.
    pub files: Vec<(String, String)>,
}

pub const OK: i32 = 0;
pub const NO_VALID_PAIRING: i32 = 1;
pub const BAD_INPUT: i32 = 3;
pub const FILE_ERROR: i32 = 5;

const USAGE: &str = "usage: --dutch input.trf (-p [output.txt] | -c)";

fn fail(code: i32, message: String) -> Outcome {
    Outcome {
        code,
        stderr: message + "\n",
        ..Outcome::default()
    }
}

/// Runs one command. `args` excludes the program name; `read` reads a file's text.
pub fn run(args: &[String], read: &dyn Fn(&str) -> io::Result<String>) -> Outcome {
    let mut dutch_flag = false;
    let mut input: Option<&str> = None;
    let mut mode: Option<char> = None;
    let mut output: Option<&str> = None;
    let mut it = args.iter().map(String::as_str).peekable();
    while let Some(a) = it.next() {
        match a {
            "--dutch" => dutch_flag = true,
            "-p" => {
                mode = Some('p');
                if let Some(next) = it.peek()
                    && !next.starts_with('-')
                {
                    output = Some(next);
                    it.next();
                }
            }
            "-c" => mode = Some('c'),
            "-r" => {}
            other if !other.starts_with('-') && input.is_none() => input = Some(other),
            other => return fail(BAD_INPUT, format!("unexpected argument {other:?}; {USAGE}")),
        }
    }
    let (true, Some(input), Some(mode)) = (dutch_flag, input, mode) else {
        return fail(BAD_INPUT, USAGE.to_string());
    };
    let text = match read(input) {
        Ok(t) => t,
        Err(e) => return fail(FILE_ERROR, format!("cannot read {input}: {e}")),
    };
    let file = match trf::parse(&text) {
        Ok(f) => f,
        Err(e) => return fail(BAD_INPUT, format!("{input}: {e}")),
    };
    match mode {
        'p' => match dutch::pair_trf(&file) {
            Ok(p) => {
                let body = format_pairing(&p);
                match output {
                    Some(path) => Outcome {
                        files: vec![(path.to_string(), body)],
                        ..Outcome::default()
                    },
                    None => Outcome {
                        stdout: body,
                        ..Outcome::default()
                    },
                }
            }
            Err(PairingError::NoValidPairing) => {
                fail(NO_VALID_PAIRING, "no valid pairing exists".to_string())
            }
            Err(e) => fail(BAD_INPUT, e.to_string()),
        },
        _ => check(&file),
    }
}

/// The bbpPairings/JaVaFo output: number of pairs, then boards, then `N 0` for the bye.
pub fn format_pairing(p: &Pairing) -> String {
    let mut out = format!("{}\n", p.boards.len() + usize::from(p.bye.is_some()));
    for b in &p.boards {
        out.push_str(&format!("{} {}\n", b.first, b.second));
    }
    if let Some(b) = p.bye {
        out.push_str(&format!("{b} 0\n"));
    }
    out
}

/// The pairing a file records for `round` (1-based).
pub fn recorded_pairing(file: &trf::Trf, round: usize) -> Pairing {
    let mut p = Pairing::default();
    let mut players: Vec<&trf::Player> = file.players().collect();
    players.sort_by_key(|p| p.start_number);
    for pl in players {
        let Some(e) = pl.rounds.get(round - 1) else {
            continue;
        };
        match (e.opponent, e.colour) {
            (Some(o), Some(crate::colour::Mover::First)) => p.boards.push(dutch::Board {
                first: pl.start_number,
                second: o,
            }),
            (None, _) if e.result == crate::points::ResultCode::PairingAllocatedBye => {
                p.bye = Some(pl.start_number)
            }
            _ => {}
        }
    }
    p
}

fn same_pairs(a: &Pairing, b: &Pairing) -> bool {
    let key = |p: &Pairing| {
        let mut v: Vec<(u32, u32)> = p.boards.iter().map(|b| (b.first, b.second)).collect();
        v.sort_unstable();
        (v, p.bye)
    };
    key(a) == key(b)
}

fn check(file: &trf::Trf) -> Outcome {
    let rounds = file.recorded_rounds();
    let mut report = String::new();
    let mut discrepancies = 0;
    for r in 1..=rounds {
        let recorded = recorded_pairing(file, r);
        let ours = dutch::trf_round_at(file, r as u32).and_then(|mut t| {
            // Without XXR/142 the file's own length is the tournament's.
            t.options.total_rounds = t.options.total_rounds.or(Some(rounds as u32));
            dutch::pair(&t.tournament, &t.options)
        });
        match ours {
            Ok(p) if same_pairs(&p, &recorded) => {}
            Ok(p) => {
                discrepancies += 1;
                report.push_str(&format!(
                    "Round {r}: the file's pairing differs from the engine's.\n  file:\n{}  engine:\n{}",
                    indent(&format_pairing(&recorded)),
                    indent(&format_pairing(&p))
                ));
            }
            Err(e) => {
                discrepancies += 1;
                report.push_str(&format!("Round {r}: {e}\n"));
            }
        }
    }
    if discrepancies == 0 {
        report.push_str("No discrepancies found.\n");
    }
    Outcome {
        stdout: report,
        ..Outcome::default()
    }
}

fn indent(s: &str) -> String {
    s.lines().map(|l| format!("    {l}\n")).collect()
}
