//! Compiles `proto/` with protox (pure Rust) and tonic's prost generator: no system `protoc`.
//! Also writes the file descriptor set used by gRPC server reflection.

use std::path::PathBuf;

const PROTO_FILES: &[&str] = &[
    "qiwang/audit/v1/audit.proto",
    "qiwang/registration/v1/registration.proto",
    "qiwang/qualification/v1/qualification.proto",
    "qiwang/pairing/v1/pairing.proto",
    "qiwang/teamranking/v1/team_ranking.proto",
    "qiwang/awards/v1/awards.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    for file in PROTO_FILES {
        println!("cargo:rerun-if-changed={file}");
    }
    let mut compiler = protox::Compiler::new(["."])?;
    compiler.include_imports(true).include_source_info(true);
    compiler.open_files(PROTO_FILES)?;
    std::fs::write(
        out_dir.join("qiwang_descriptor.bin"),
        compiler.encode_file_descriptor_set(),
    )?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(compiler.file_descriptor_set())?;
    Ok(())
}
