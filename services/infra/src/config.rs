//! Layered configuration: built-in defaults → optional TOML file → `QIWANG_…` environment variables.
//!
//! Nested keys use a double underscore: `QIWANG_GRPC__LISTEN=0.0.0.0:50051` sets `grpc.listen`.
//! `DATABASE_URL` (no prefix) selects the database: `postgres://…` or `sqlite://…`. Unknown keys are
//! errors, so a misspelt variable stops start-up instead of being silently ignored. Variables named
//! `QIWANG_TEST_*` and `QIWANG_CONFIG` are not settings and are skipped.

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// A value that must not appear in logs (database URLs carry passwords).
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Where the embedded default keeps its SQLite file and development JWT secret.
    pub data_dir: PathBuf,
    /// `sqlite://…` or `postgres://…`; default: `sqlite://<data_dir>/qiwang.db`.
    pub database_url: Option<Secret>,
    pub grpc: GrpcSettings,
    pub gateway: GatewaySettings,
    pub services: ServiceEndpoints,
    pub auth: AuthSettings,
    pub log: LogSettings,
    pub metrics: MetricsSettings,
    pub qualification: QualificationSettings,
    /// Development and tests only: the services' clock runs this many seconds ahead of the
    /// machine's (a fixture that reaches a later date, like faketime). Refused in production auth
    /// mode. Used where a rule closes a window by date (pairs registration, R-REG-10).
    pub clock_offset_seconds: i64,
}

/// The online qualifier's live leaderboards.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QualificationSettings {
    /// How often each live board that moved is checkpointed, seconds (and always at a graceful
    /// shutdown): a restart after a crash applies at most this long's games to the checkpoint.
    pub checkpoint_every_secs: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsSettings {
    /// Where `/metrics` (Prometheus text format) is served.
    pub listen: SocketAddr,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrpcSettings {
    pub listen: SocketAddr,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewaySettings {
    pub listen: SocketAddr,
    /// Maximum query depth (async-graphql `limit_depth`).
    pub max_depth: usize,
    /// Maximum query complexity (async-graphql `limit_complexity`).
    pub max_complexity: usize,
    /// Largest accepted request body, bytes.
    pub max_body_bytes: usize,
    /// Largest accepted multipart request (a GraphQL upload), bytes: the evidence limit (2 MiB)
    /// plus room for the form's other parts.
    pub max_upload_bytes: usize,
    /// Timeout for each call to a service, milliseconds.
    pub service_timeout_ms: u64,
}

/// Where each service is reached (by the gateway and by services that call each other).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceEndpoints {
    pub registration: String,
    pub qualification: String,
    /// The pairing service (the final's Swiss events).
    pub pairing: String,
    /// The team-ranking service (the awards service reads team standings there).
    pub team_ranking: String,
    /// The awards service (the gateway reads award books there).
    pub awards: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AuthMode {
    /// HS256 with a secret generated once into the data directory; `qiwang token` can mint.
    Development,
    /// Public keys only (RS256 or EdDSA); minting is refused.
    Production,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyAlgorithm {
    RS256,
    EdDSA,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    pub mode: AuthMode,
    pub issuer: String,
    pub audience: String,
    /// Production: the algorithm of the public keys.
    pub algorithm: KeyAlgorithm,
    /// Production: PEM public key files. Several keys are accepted at once, for rotation.
    pub public_keys: Vec<PathBuf>,
    /// Default lifetime of minted development tokens, seconds.
    pub dev_token_ttl_secs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Json,
    Pretty,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    pub format: LogFormat,
    /// An `EnvFilter` directive; `RUST_LOG` overrides it.
    pub filter: String,
    /// Export spans over OTLP (HTTP/protobuf) to this URL, e.g. `http://otel-collector:4318/v1/traces`.
    pub otlp_endpoint: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data_dir: PathBuf::from("qiwang-data"),
            database_url: None,
            grpc: GrpcSettings {
                listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            },
            gateway: GatewaySettings {
                listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
                max_depth: 12,
                max_complexity: 500,
                max_body_bytes: 256 * 1024,
                max_upload_bytes: 2 * 1024 * 1024 + 64 * 1024,
                service_timeout_ms: 5_000,
            },
            services: ServiceEndpoints {
                registration: "http://127.0.0.1:50051".into(),
                qualification: "http://127.0.0.1:50051".into(),
                pairing: "http://127.0.0.1:50051".into(),
                team_ranking: "http://127.0.0.1:50051".into(),
                awards: "http://127.0.0.1:50051".into(),
            },
            auth: AuthSettings {
                mode: AuthMode::Development,
                issuer: "qiwang".into(),
                audience: "qiwang".into(),
                algorithm: KeyAlgorithm::EdDSA,
                public_keys: Vec::new(),
                dev_token_ttl_secs: 24 * 3600,
            },
            metrics: MetricsSettings {
                listen: SocketAddr::from(([127, 0, 0, 1], 9464)),
            },
            qualification: QualificationSettings {
                checkpoint_every_secs: 60,
            },
            clock_offset_seconds: 0,
            log: LogSettings {
                format: LogFormat::Pretty,
                filter: "info,sqlx=warn,sea_orm=warn,h2=warn,tower=warn,hyper=warn".into(),
                otlp_endpoint: None,
            },
        }
    }
}

/// Configuration could not be loaded; the message names the bad key.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(String);

impl Settings {
    /// Loads settings: defaults, then `file` (or `$QIWANG_CONFIG`) if given, then the environment.
    pub fn load(file: Option<&Path>) -> Result<Settings, ConfigError> {
        let mut figment = Figment::from(Serialized::defaults(Settings::default()));
        let file = file
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("QIWANG_CONFIG").map(PathBuf::from));
        if let Some(path) = file {
            if !path.is_file() {
                return Err(ConfigError(format!(
                    "config file {} does not exist",
                    path.display()
                )));
            }
            figment = figment.merge(Toml::file_exact(path));
        }
        let figment = figment
            .merge(
                Env::prefixed("QIWANG_")
                    .filter(|k| {
                        let k = k.as_str().to_ascii_lowercase();
                        !k.starts_with("test_") && k != "config"
                    })
                    .split("__"),
            )
            .merge(Env::raw().only(&["DATABASE_URL"]));
        let settings: Settings = figment.extract().map_err(|e| {
            let messages: Vec<String> = e.into_iter().map(|e| describe(&e)).collect();
            ConfigError(messages.join("; "))
        })?;
        settings.check()?;
        Ok(settings)
    }

    /// Cross-field checks that serde cannot express.
    fn check(&self) -> Result<(), ConfigError> {
        if let Some(url) = &self.database_url {
            let u = url.expose();
            if !(u.starts_with("sqlite:")
                || u.starts_with("postgres://")
                || u.starts_with("postgresql://"))
            {
                return Err(ConfigError(
                    "key `database_url` (DATABASE_URL): must start with sqlite: or postgres://"
                        .into(),
                ));
            }
        }
        if self.auth.mode == AuthMode::Production && self.auth.public_keys.is_empty() {
            return Err(ConfigError(
                "key `auth.public_keys` (QIWANG_AUTH__PUBLIC_KEYS): production mode needs at least one public key".into(),
            ));
        }
        if self.gateway.max_depth == 0 || self.gateway.max_complexity == 0 {
            return Err(ConfigError(
                "key `gateway.max_depth`/`gateway.max_complexity`: must be > 0".into(),
            ));
        }
        Ok(())
    }

    /// The database URL in force: the configured one, or the embedded SQLite file.
    pub fn database_url(&self) -> String {
        match &self.database_url {
            Some(url) => url.expose().to_owned(),
            None => format!(
                "sqlite://{}?mode=rwc",
                self.data_dir.join("qiwang.db").display()
            ),
        }
    }

    /// Whether the database is the embedded SQLite default (migrations run on start only then).
    pub fn is_embedded_database(&self) -> bool {
        self.database_url().starts_with("sqlite:")
    }
}

fn describe(e: &figment::Error) -> String {
    let key = if e.path.is_empty() {
        String::from("(top level)")
    } else {
        e.path.join(".")
    };
    let env = format!("QIWANG_{}", e.path.join("__").to_uppercase());
    format!("key `{key}` ({env}): {}", e.kind)
}

#[cfg(test)]
// figment's `Jail::expect_with` fixes the closure's return type to `figment::Result`.
#[allow(clippy::result_large_err)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_embedded_suite() {
        let s = Settings::default();
        assert_eq!(s.grpc.listen.to_string(), "127.0.0.1:50051");
        assert_eq!(s.gateway.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(s.database_url(), "sqlite://qiwang-data/qiwang.db?mode=rwc");
        assert!(s.is_embedded_database());
    }

    #[test]
    fn a_bad_value_in_a_file_names_the_key() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("q.toml", "[grpc]\nlisten = \"not an address\"\n")?;
            let err = Settings::load(Some(Path::new("q.toml"))).expect_err("invalid");
            assert!(err.to_string().contains("grpc.listen"), "{err}");
            Ok(())
        });
    }

    #[test]
    fn environment_overrides_file_and_unknown_keys_fail() {
        figment::Jail::expect_with(|jail| {
            jail.create_file("q.toml", "[gateway]\nlisten = \"127.0.0.1:9000\"\n")?;
            jail.set_env("QIWANG_GATEWAY__LISTEN", "127.0.0.1:9100");
            jail.set_env("QIWANG_TEST_DATABASE_URL", "postgres://ignored");
            jail.set_env("DATABASE_URL", "postgres://u@h/db");
            let s = Settings::load(Some(Path::new("q.toml"))).expect("valid");
            assert_eq!(s.gateway.listen.to_string(), "127.0.0.1:9100");
            assert_eq!(s.database_url(), "postgres://u@h/db");
            jail.set_env("QIWANG_GRPC__LISTN", "x");
            let err = Settings::load(None).expect_err("unknown key");
            assert!(err.to_string().contains("listn"), "{err}");
            Ok(())
        });
    }

    #[test]
    fn production_needs_public_keys_and_urls_need_a_known_scheme() {
        figment::Jail::expect_with(|jail| {
            jail.set_env("QIWANG_AUTH__MODE", "production");
            let err = Settings::load(None).expect_err("no keys");
            assert!(err.to_string().contains("auth.public_keys"), "{err}");
            jail.set_env("QIWANG_AUTH__MODE", "development");
            jail.set_env("DATABASE_URL", "mysql://x");
            let err = Settings::load(None).expect_err("scheme");
            assert!(err.to_string().contains("DATABASE_URL"), "{err}");
            Ok(())
        });
    }
}
