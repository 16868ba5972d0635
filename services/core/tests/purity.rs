//! Architecture invariant: the rules core does no IO. It must not depend, directly or through
//! another crate, on an async runtime, a gRPC or HTTP stack, a database layer or GraphQL. This walks
//! the dependency graph of `qiwang-core` in the workspace's `Cargo.lock`.

use std::collections::{BTreeMap, BTreeSet};

const FORBIDDEN: &[&str] = &[
    "tokio",
    "tonic",
    "sea-orm",
    "sqlx",
    "axum",
    "hyper",
    "async-graphql",
    "reqwest",
    "mio",
];

/// package name -> names of its dependencies, from Cargo.lock's `[[package]]` tables.
fn lock_graph() -> BTreeMap<String, Vec<String>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    let text = std::fs::read_to_string(path).expect("Cargo.lock");
    let lock: toml::Value = toml::from_str(&text).expect("Cargo.lock is TOML");
    let mut graph = BTreeMap::new();
    for pkg in lock
        .get("package")
        .and_then(|p| p.as_array())
        .expect("packages")
    {
        let name = pkg
            .get("name")
            .and_then(|n| n.as_str())
            .expect("name")
            .to_owned();
        let deps = pkg
            .get("dependencies")
            .and_then(|d| d.as_array())
            .map(|d| {
                // Entries are "name" or "name version" when several versions are locked.
                d.iter()
                    .filter_map(|v| v.as_str())
                    .filter_map(|s| s.split(' ').next())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        graph
            .entry(name)
            .or_insert_with(Vec::new)
            .extend::<Vec<String>>(deps);
    }
    graph
}

#[test]
fn the_core_depends_on_no_io_crate() {
    let graph = lock_graph();
    let mut seen = BTreeSet::new();
    let mut stack = vec!["qiwang-core".to_owned()];
    while let Some(name) = stack.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        for dep in graph.get(&name).into_iter().flatten() {
            stack.push(dep.clone());
        }
    }
    assert!(
        seen.contains("chrono") && seen.contains("toml"),
        "the walk found the core's real dependencies: {seen:?}"
    );
    let bad: Vec<&&str> = FORBIDDEN.iter().filter(|f| seen.contains(**f)).collect();
    assert!(
        bad.is_empty(),
        "qiwang-core reaches IO crates {bad:?} through {seen:?}"
    );
    // No other qiwang crate either: the core is the bottom of the graph.
    let local: Vec<&String> = seen
        .iter()
        .filter(|n| n.starts_with("qiwang") && *n != "qiwang-core")
        .collect();
    assert!(local.is_empty(), "qiwang-core depends on {local:?}");
}
