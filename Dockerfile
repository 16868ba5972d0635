# syntax=docker/dockerfile:1
# The one qiwang binary in a small, non-root runtime image.
#   docker build -t qiwang:dev .
#   docker run --rm qiwang:dev presets list

FROM rust:1.95-slim-bookworm AS builder
WORKDIR /src
# protobuf is compiled by protox in build.rs: no protoc, no system libraries (rustls, no OpenSSL).
COPY . .
# The cache mounts keep crates and build output between builds; the binary is copied out in the
# same step because the target directory is not part of the image.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p qiwang \
    && install -D -m 0755 target/release/qiwang /out/qiwang

FROM gcr.io/distroless/cc-debian12:nonroot
# distroless "nonroot": uid/gid 65532, no shell, glibc and libgcc only.
COPY --from=builder /out/qiwang /usr/local/bin/qiwang
USER 65532:65532
# Defaults for a container; Kubernetes sets them through the qiwang-config ConfigMap.
ENV QIWANG_GRPC__LISTEN=0.0.0.0:50051 \
    QIWANG_GATEWAY__LISTEN=0.0.0.0:8080 \
    QIWANG_METRICS__LISTEN=0.0.0.0:9464 \
    QIWANG_LOG__FORMAT=json \
    QIWANG_DATA_DIR=/tmp/qiwang-data
EXPOSE 50051 8080 9464
ENTRYPOINT ["qiwang"]
CMD ["--help"]
