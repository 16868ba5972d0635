//! With `log.otlp_endpoint` set, spans leave the process over OTLP (HTTP/protobuf): a local
//! listener stands in for the collector and must receive the export request.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

#[test]
fn spans_are_exported_over_otlp_when_configured() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("addr").port();
    let mut log = qiwang_infra::Settings::default().log;
    log.otlp_endpoint = Some(format!("http://127.0.0.1:{port}/v1/traces"));
    let guard = qiwang_infra::telemetry::init(&log);
    tracing::info_span!("rpc", request_id = "otlp-test-1")
        .in_scope(|| tracing::info!("inside a span"));
    // Dropping the guard flushes the batch: the export request goes out now.
    let collector = std::thread::spawn(move || {
        listener.set_nonblocking(false).expect("blocking");
        let (mut stream, _) = listener.accept().expect("an export connection");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut buf = vec![0u8; 64 * 1024];
        let mut got = Vec::new();
        while !String::from_utf8_lossy(&got).contains("\r\n\r\n") {
            let n = stream.read(&mut buf).expect("read");
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
        String::from_utf8_lossy(&got).to_string()
    });
    drop(guard);
    let request = collector.join().expect("collector");
    assert!(request.starts_with("POST /v1/traces"), "{request}");
    assert!(
        request
            .to_ascii_lowercase()
            .contains("content-type: application/x-protobuf"),
        "{request}"
    );
}
