//! The rule catalogue (`docs/rules-catalogue.md`) stays honest: every id it lists is named by at
//! least one test somewhere in the repository (`fn r_reg_3_…`), and, where `../shared/RULES.md`
//! sits beside the checkout (on every developer machine and in CI), every id of RULES.md sections
//! 2-5 and 7-10 is in the catalogue.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `R-ADV-10` from a table row `| R-ADV-10 | …`.
fn catalogue_ids() -> Vec<String> {
    let text = std::fs::read_to_string(repo_root().join("docs/rules-catalogue.md"))
        .expect("docs/rules-catalogue.md");
    text.lines()
        .filter_map(|l| l.strip_prefix("| R-"))
        .filter_map(|rest| rest.split_whitespace().next().map(|id| format!("R-{id}")))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" && name != "qiwang-data" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `fn r_…` test name in the repository's Rust files.
fn test_names() -> String {
    let mut files = Vec::new();
    rust_files(&repo_root(), &mut files);
    let mut names = String::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for line in text.lines() {
            if let Some(pos) = line.find("fn r_") {
                names.push_str(&line[pos + 3..]);
                names.push('\n');
            }
        }
    }
    names
}

#[test]
fn every_catalogue_id_is_named_by_a_test() {
    let names = test_names();
    let missing: Vec<String> = catalogue_ids()
        .into_iter()
        .filter(|id| {
            // R-ADV-1 must not be satisfied by r_adv_10_…: require the trailing underscore.
            let prefix = format!("{}_", id.to_lowercase().replace('-', "_"));
            !names.lines().any(|n| n.starts_with(&prefix))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "catalogue ids named by no test: {missing:?}"
    );
}

#[test]
fn the_catalogue_lists_every_id_of_rules_sections_2_to_5_and_7_to_10() {
    let rules = repo_root().join("../shared/RULES.md");
    let catalogue: BTreeSet<String> = catalogue_ids().into_iter().collect();
    assert!(
        catalogue.len() >= 60,
        "catalogue looks truncated: {} ids",
        catalogue.len()
    );
    let Ok(text) = std::fs::read_to_string(&rules) else {
        // Outside a checkout with shared/ beside it, the catalogue is checked against itself only.
        return;
    };
    let mut section = 0u32;
    let mut missing = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("## ")
            && let Some(n) = rest.split('.').next().and_then(|n| n.trim().parse().ok())
        {
            section = n;
        }
        if !matches!(section, 2..=5 | 7..=10) {
            continue;
        }
        for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if word.starts_with("R-") && word.matches('-').count() == 2 && !catalogue.contains(word)
            {
                missing.push(word.to_owned());
            }
        }
    }
    missing.dedup();
    assert!(
        missing.is_empty(),
        "RULES.md ids missing from docs/rules-catalogue.md: {missing:?}"
    );
}
