//! Logging and tracing: one subscriber for the whole process (after zero2prod's `telemetry.rs`).
//! Logs go to stdout (JSON in production); when `log.otlp_endpoint` is set, spans are also
//! exported over OTLP (HTTP/protobuf, e.g. `http://otel-collector:4318/v1/traces`).

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::config::{LogFormat, LogSettings};

/// Keeps the span exporter alive; dropping it flushes the spans not yet exported.
#[must_use = "dropping the guard flushes and stops span export"]
pub struct TelemetryGuard {
    provider: Option<SdkTracerProvider>,
}

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take()
            && let Err(e) = provider.shutdown()
        {
            eprintln!("flushing spans to OTLP failed: {e}");
        }
    }
}

/// Installs the global subscriber. `RUST_LOG` overrides the configured filter. Calling it twice
/// (as tests do) keeps the first subscriber.
pub fn init(log: &LogSettings) -> TelemetryGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&log.filter));
    let provider = log.otlp_endpoint.as_deref().and_then(|endpoint| {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_endpoint(endpoint)
            .build();
        match exporter {
            Ok(exporter) => Some(
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(
                        opentelemetry_sdk::Resource::builder()
                            .with_service_name("qiwang")
                            .build(),
                    )
                    .build(),
            ),
            Err(e) => {
                eprintln!("OTLP export to {endpoint} is off: {e}");
                None
            }
        }
    });
    let otel = provider
        .as_ref()
        .map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer("qiwang")));
    let registry = tracing_subscriber::registry().with(filter).with(otel);
    let _ = match log.format {
        LogFormat::Json => registry
            .with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .flatten_event(true)
                    .with_current_span(true)
                    .with_target(true),
            )
            .try_init(),
        LogFormat::Pretty => registry
            .with(tracing_subscriber::fmt::layer().compact().with_target(true))
            .try_init(),
    };
    TelemetryGuard { provider }
}
