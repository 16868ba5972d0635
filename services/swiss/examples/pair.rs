//! The bbpPairings/JaVaFo-compatible command line over [`qiwang_swiss::cli::run`], with real files:
//! `cargo run -p qiwang-swiss --example pair -- --dutch in.trf -p [out.txt]` or `... -c`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = qiwang_swiss::cli::run(&args, &|path| std::fs::read_to_string(path));
    print!("{}", outcome.stdout);
    eprint!("{}", outcome.stderr);
    let mut code = outcome.code;
    for (path, content) in &outcome.files {
        if let Err(e) = std::fs::write(path, content) {
            eprintln!("cannot write {path}: {e}");
            code = qiwang_swiss::cli::FILE_ERROR;
        }
    }
    std::process::exit(code);
}
