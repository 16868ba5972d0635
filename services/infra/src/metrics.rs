//! Prometheus metrics in the text exposition format (version 0.0.4): request counts and latency
//! histograms per RPC and code, plus named counters and gauges the services bump (ingest rate,
//! leaderboard lag). One `Metrics` per process, shared by every component; served on
//! `metrics.listen` at `/metrics`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// Latency bucket upper bounds, seconds.
pub const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

#[derive(Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

impl Histogram {
    fn observe(&mut self, secs: f64) {
        for (i, bound) in BUCKETS.iter().enumerate() {
            if secs <= *bound {
                self.counts[i] += 1;
            }
        }
        self.count += 1;
        self.sum += secs;
    }
}

#[derive(Default)]
struct Registry {
    /// (protocol, method, code) -> latency histogram (its count is the request counter).
    requests: BTreeMap<(&'static str, String, String), Histogram>,
    counters: BTreeMap<(&'static str, String), u64>,
    gauges: BTreeMap<&'static str, f64>,
}

/// The process's metrics. Cheap to clone.
#[derive(Clone, Default)]
pub struct Metrics {
    inner: Arc<Mutex<Registry>>,
}

fn escape(label: &str) -> String {
    label
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    pub fn new() -> Self {
        Self::default()
    }

    fn with<R>(&self, f: impl FnOnce(&mut Registry) -> R) -> R {
        // A panic while holding the lock cannot leave the registry inconsistent in a way that
        // matters for counters; keep serving.
        let mut guard = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }

    /// Records one finished request.
    pub fn observe_request(
        &self,
        protocol: &'static str,
        method: &str,
        code: &str,
        elapsed: Duration,
    ) {
        self.with(|r| {
            r.requests
                .entry((protocol, method.to_owned(), code.to_owned()))
                .or_default()
                .observe(elapsed.as_secs_f64())
        });
    }

    /// Adds `by` to counter `name` (a `_total` name) with one `kind` label.
    pub fn count(&self, name: &'static str, kind: &str, by: u64) {
        self.with(|r| *r.counters.entry((name, kind.to_owned())).or_default() += by);
    }

    /// Sets gauge `name`.
    pub fn gauge(&self, name: &'static str, value: f64) {
        self.with(|r| {
            r.gauges.insert(name, value);
        });
    }

    /// The text exposition.
    pub fn render(&self) -> String {
        self.with(|r| {
            let mut out = String::new();
            let _ = writeln!(
                out,
                "# HELP qiwang_requests_total Requests served, by protocol, method and code."
            );
            let _ = writeln!(out, "# TYPE qiwang_requests_total counter");
            for ((proto, method, code), h) in &r.requests {
                let _ = writeln!(
                    out,
                    "qiwang_requests_total{{protocol=\"{proto}\",method=\"{}\",code=\"{}\"}} {}",
                    escape(method),
                    escape(code),
                    h.count
                );
            }
            let _ = writeln!(
                out,
                "# HELP qiwang_request_duration_seconds Request latency."
            );
            let _ = writeln!(out, "# TYPE qiwang_request_duration_seconds histogram");
            for ((proto, method, code), h) in &r.requests {
                let labels = format!(
                    "protocol=\"{proto}\",method=\"{}\",code=\"{}\"",
                    escape(method),
                    escape(code)
                );
                for (bound, n) in BUCKETS.iter().zip(h.counts) {
                    let _ = writeln!(
                        out,
                        "qiwang_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {n}"
                    );
                }
                let _ = writeln!(
                    out,
                    "qiwang_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                    h.count
                );
                let _ = writeln!(
                    out,
                    "qiwang_request_duration_seconds_sum{{{labels}}} {}",
                    h.sum
                );
                let _ = writeln!(
                    out,
                    "qiwang_request_duration_seconds_count{{{labels}}} {}",
                    h.count
                );
            }
            let mut last = "";
            for ((name, kind), v) in &r.counters {
                if *name != last {
                    let _ = writeln!(out, "# TYPE {name} counter");
                    last = name;
                }
                let _ = writeln!(out, "{name}{{kind=\"{}\"}} {v}", escape(kind));
            }
            for (name, v) in &r.gauges {
                let _ = writeln!(out, "# TYPE {name} gauge");
                let _ = writeln!(out, "{name} {v}");
            }
            out
        })
    }
}

/// The gRPC code name of a `grpc-status` header value.
fn grpc_code_name(value: &str) -> &'static str {
    value
        .parse::<i32>()
        .map(|n| crate::status::code_name(tonic::Code::from_i32(n)))
        .unwrap_or("UNKNOWN")
}

/// A tower layer recording every gRPC call: method (the HTTP/2 path) and code (the `grpc-status`
/// of a trailers-only error response; a response that streams its status in trailers counts as OK
/// at the time its headers were sent).
#[derive(Clone)]
pub struct GrpcMetricsLayer {
    metrics: Metrics,
}

impl GrpcMetricsLayer {
    pub fn new(metrics: Metrics) -> Self {
        GrpcMetricsLayer { metrics }
    }
}

impl<S> tower::Layer<S> for GrpcMetricsLayer {
    type Service = GrpcMetricsService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        GrpcMetricsService {
            inner,
            metrics: self.metrics.clone(),
        }
    }
}

#[derive(Clone)]
pub struct GrpcMetricsService<S> {
    inner: S,
    metrics: Metrics,
}

impl<S, B, RB> tower::Service<http::Request<B>> for GrpcMetricsService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<RB>> + Send,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    RB: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let method = request.uri().path().to_owned();
        let started = Instant::now();
        let metrics = self.metrics.clone();
        let future = self.inner.call(request);
        Box::pin(async move {
            let response = future.await;
            let code = match &response {
                Ok(r) => r
                    .headers()
                    .get("grpc-status")
                    .and_then(|v| v.to_str().ok())
                    .map(grpc_code_name)
                    .unwrap_or("OK"),
                Err(_) => "TRANSPORT_ERROR",
            };
            metrics.observe_request("grpc", &method, code, started.elapsed());
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_counts_histograms_counters_and_gauges() {
        let m = Metrics::new();
        m.observe_request(
            "grpc",
            "/qiwang.registration.v1.RegistrationService/GetPlayer",
            "OK",
            Duration::from_millis(3),
        );
        m.observe_request(
            "grpc",
            "/qiwang.registration.v1.RegistrationService/GetPlayer",
            "OK",
            Duration::from_millis(30),
        );
        m.count("qiwang_games_ingested_total", "accepted", 5);
        m.gauge("qiwang_leaderboard_lag_seconds", 0.25);
        let text = m.render();
        assert!(text.contains("qiwang_requests_total{protocol=\"grpc\",method=\"/qiwang.registration.v1.RegistrationService/GetPlayer\",code=\"OK\"} 2"), "{text}");
        assert!(text.contains("le=\"0.005\"} 1"), "{text}");
        assert!(text.contains("le=\"+Inf\"} 2"), "{text}");
        assert!(
            text.contains("qiwang_games_ingested_total{kind=\"accepted\"} 5"),
            "{text}"
        );
        assert!(
            text.contains("qiwang_leaderboard_lag_seconds 0.25"),
            "{text}"
        );
    }

    #[test]
    fn grpc_codes_are_named() {
        assert_eq!(grpc_code_name("3"), "INVALID_ARGUMENT");
        assert_eq!(grpc_code_name("16"), "UNAUTHENTICATED");
        assert_eq!(grpc_code_name("x"), "UNKNOWN");
    }
}

/// The request-id header that ties a request's logs together across hops (gateway → service →
/// service).
pub const REQUEST_ID: &str = "x-request-id";

/// A tower layer for every gRPC server: takes the caller's `x-request-id` (or makes one), records
/// it on the request's tracing span, and echoes it on the response, so a client can quote it.
#[derive(Clone, Default)]
pub struct RequestIdLayer;

impl<S> tower::Layer<S> for RequestIdLayer {
    type Service = RequestIdService<S>;
    fn layer(&self, inner: S) -> Self::Service {
        RequestIdService { inner }
    }
}

#[derive(Clone)]
pub struct RequestIdService<S> {
    inner: S,
}

/// A request id from a header value, if it is a sane one (printable ASCII, at most 128 bytes);
/// otherwise a fresh one.
pub fn request_id_or_new(value: Option<&http::HeaderValue>) -> String {
    value
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string())
}

impl<S, B, RB> tower::Service<http::Request<B>> for RequestIdService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<RB>> + Send,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    RB: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        use tracing::Instrument;
        let id = request_id_or_new(request.headers().get(REQUEST_ID));
        if let Ok(value) = http::HeaderValue::from_str(&id) {
            request.headers_mut().insert(REQUEST_ID, value);
        }
        let span = tracing::info_span!("rpc", request_id = %id, path = %request.uri().path());
        let future = {
            let _entered = span.enter();
            self.inner.call(request)
        };
        Box::pin(
            async move {
                let mut response = future.await?;
                if let Ok(value) = http::HeaderValue::from_str(&id) {
                    response.headers_mut().insert(REQUEST_ID, value);
                }
                Ok(response)
            }
            .instrument(span),
        )
    }
}
