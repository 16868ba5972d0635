//! The committed SDL (`gateway/schema.graphql`) and the code must not drift apart.
//! After a deliberate schema change: `QIWANG_BLESS=1 cargo test -p qiwang-gateway --test sdl`.

#[test]
fn committed_sdl_matches_the_code() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema.graphql");
    let current = qiwang_gateway::schema::sdl();
    if std::env::var_os("QIWANG_BLESS").is_some() {
        std::fs::write(path, &current).expect("write schema.graphql");
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == current,
        "gateway/schema.graphql is out of date with the code; if the change is intended, run\n  \
         QIWANG_BLESS=1 cargo test -p qiwang-gateway --test sdl\nand commit the file."
    );
}
