//! The GraphQL gateway (async-graphql + axum) for the organizers' console, referees and players.
//!
//! Architecture invariant: the gateway has no database and no rules. It verifies the caller's JWT
//! (the same tokens the services accept), then calls the services over gRPC with that token; the
//! services decide. A service that is down fails only the fields that need it (`UNAVAILABLE`).

pub mod error;
pub mod free_text;
pub mod i18n;
pub mod schema;

use async_graphql::dataloader::DataLoader;
use async_graphql::http::GraphiQLSource;
use async_graphql_axum::{GraphQLProtocol, GraphQLRequest, GraphQLResponse, GraphQLWebSocket};
use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use http::HeaderMap;
use qiwang_infra::Verifier;
use qiwang_infra::auth::PUBLIC_CLIENT;
use qiwang_infra::metrics::{Metrics, REQUEST_ID, request_id_or_new};
use qiwang_proto::awards::v1::awards_service_client::AwardsServiceClient;
use qiwang_proto::pairing::v1::pairing_service_client::PairingServiceClient;
use qiwang_proto::qualification::v1::qualification_service_client::QualificationServiceClient;
use qiwang_proto::registration::v1::registration_service_client::RegistrationServiceClient;
use qiwang_proto::teamranking::v1::team_ranking_service_client::TeamRankingServiceClient;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};

pub use schema::{ClientAddress, QiwangSchema, Viewer};

/// gRPC clients for the services the gateway fronts.
#[derive(Clone)]
pub struct Services {
    pub registration: RegistrationServiceClient<Channel>,
    pub qualification: QualificationServiceClient<Channel>,
    pub pairing: PairingServiceClient<Channel>,
    pub team_ranking: TeamRankingServiceClient<Channel>,
    pub awards: AwardsServiceClient<Channel>,
}

/// Where each service is reached.
#[derive(Debug, Clone)]
pub struct ServiceUrls {
    pub registration: String,
    pub qualification: String,
    pub pairing: String,
    pub team_ranking: String,
    pub awards: String,
}

impl ServiceUrls {
    /// Every service at one address (the embedded default: one process).
    pub fn all_at(url: &str) -> ServiceUrls {
        ServiceUrls {
            registration: url.to_owned(),
            qualification: url.to_owned(),
            pairing: url.to_owned(),
            team_ranking: url.to_owned(),
            awards: url.to_owned(),
        }
    }
}

impl Services {
    /// Lazily-connecting clients: the gateway starts even while a service is down, each call has
    /// `timeout`, and a service that is down fails only the fields that need it.
    pub fn connect_lazy(
        urls: &ServiceUrls,
        timeout: Duration,
    ) -> Result<Services, tonic::transport::Error> {
        let channel = |url: &str| -> Result<Channel, tonic::transport::Error> {
            Ok(Endpoint::from_shared(url.to_owned())?
                .timeout(timeout)
                .connect_timeout(timeout)
                .connect_lazy())
        };
        Ok(Services {
            registration: RegistrationServiceClient::new(channel(&urls.registration)?),
            qualification: QualificationServiceClient::new(channel(&urls.qualification)?),
            pairing: PairingServiceClient::new(channel(&urls.pairing)?),
            team_ranking: TeamRankingServiceClient::new(channel(&urls.team_ranking)?),
            awards: AwardsServiceClient::new(channel(&urls.awards)?),
        })
    }
}

#[derive(Clone)]
struct AppState {
    schema: QiwangSchema,
    verifier: Verifier,
    services: Services,
}

/// Gateway settings the router needs.
pub struct GatewayConfig {
    pub max_depth: usize,
    pub max_complexity: usize,
    pub max_body_bytes: usize,
    /// The limit for multipart requests (uploads) instead.
    pub max_upload_bytes: usize,
}

/// The request body limits: JSON documents are small; only a multipart upload may be larger.
#[derive(Clone, Copy)]
struct BodyLimits {
    body: usize,
    upload: usize,
}

/// The axum router: `POST /graphql`, GraphiQL on `GET /graphql`, `GET /healthz`.
pub fn router(
    services: Services,
    verifier: Verifier,
    metrics: Metrics,
    config: &GatewayConfig,
) -> Router {
    let schema = schema::build(services.clone(), config.max_depth, config.max_complexity);
    Router::new()
        .route("/graphql", get(graphiql).post(graphql))
        .route("/graphql/ws", get(graphql_ws))
        .route("/healthz", get(|| async { "ok" }))
        // The GraphQL extractor streams the body, so the limit is enforced on the body itself
        // (413 Payload Too Large), not only through axum's extractor default.
        .layer(axum::middleware::from_fn_with_state(
            BodyLimits {
                body: config.max_body_bytes,
                upload: config.max_upload_bytes,
            },
            limit_body,
        ))
        .layer(DefaultBodyLimit::max(
            config.max_body_bytes.max(config.max_upload_bytes),
        ))
        .layer(axum::middleware::from_fn_with_state(
            metrics,
            record_request,
        ))
        .layer(axum::middleware::from_fn(request_id))
        .with_state(AppState {
            schema,
            verifier,
            services,
        })
}

/// Gives every HTTP request an `x-request-id` (the client's, or a new one), logs under it, passes it
/// to the services with every call made for the request, and echoes it on the response.
async fn request_id(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use tracing::Instrument;
    let id = request_id_or_new(request.headers().get(REQUEST_ID));
    let value = http::HeaderValue::from_str(&id).ok();
    if let Some(v) = &value {
        request.headers_mut().insert(REQUEST_ID, v.clone());
    }
    // The client's address, always set here (a client's own header of that name is replaced).
    let client = client_address(&request);
    match http::HeaderValue::from_str(&client) {
        Ok(v) => {
            request.headers_mut().insert(PUBLIC_CLIENT, v);
        }
        Err(_) => {
            request.headers_mut().remove(PUBLIC_CLIENT);
        }
    }
    let span = tracing::info_span!("http", request_id = %id, path = %request.uri().path());
    let started = std::time::Instant::now();
    let mut response = next.run(request).instrument(span.clone()).await;
    span.in_scope(|| {
        tracing::info!(
            status = response.status().as_u16(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "served"
        )
    });
    if let Some(v) = value {
        response.headers_mut().insert(REQUEST_ID, v);
    }
    response
}

/// Refuses a body over its limit with 413: at once when `Content-Length` says so, otherwise when
/// the streamed body passes the limit. Multipart (upload) requests get the upload limit.
async fn limit_body(
    State(limits): State<BodyLimits>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let multipart = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.trim_start().starts_with("multipart/form-data"));
    let limit = if multipart {
        limits.upload
    } else {
        limits.body
    };
    let declared = request
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        tracing::info!(?declared, limit, "request body too large");
        return http::StatusCode::PAYLOAD_TOO_LARGE.into_response();
    }
    let (parts, body) = request.into_parts();
    let body = axum::body::Body::new(http_body_util::Limited::new(body, limit));
    next.run(axum::extract::Request::from_parts(parts, body))
        .await
}

/// Who the client is for per-person limits: the address the nearest proxy (the ingress) put last
/// in `X-Forwarded-For`, else the peer's address. Reading: entries further left are whatever the
/// client sent and are not trusted; a gateway exposed without a proxy still has the per-championship
/// cap on anonymous reports against a client that forges the header.
fn client_address(request: &axum::extract::Request) -> String {
    let forwarded = request
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty() && v.len() <= 64);
    let peer = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip().to_string());
    forwarded.or(peer).unwrap_or_else(|| "unknown".into())
}

/// Records every HTTP request of the gateway (method = path, code = HTTP status).
async fn record_request(
    State(metrics): State<Metrics>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let path = request.uri().path().to_owned();
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    metrics.observe_request("http", &path, response.status().as_str(), started.elapsed());
    response
}

/// GraphQL over WebSocket (subscriptions). The token travels in `connection_init`'s payload
/// (`{"authorization": "Bearer …"}`): browsers cannot set headers on a WebSocket. Without one the
/// connection is the public's; a refused token closes the connection.
async fn graphql_ws(
    State(state): State<AppState>,
    headers: HeaderMap,
    protocol: GraphQLProtocol,
    upgrade: WebSocketUpgrade,
) -> axum::response::Response {
    let client = ClientAddress(
        headers
            .get(PUBLIC_CLIENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    );
    let lang = i18n::negotiate(
        headers
            .get(http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    );
    let schema = state.schema.clone();
    upgrade
        .protocols(async_graphql::http::ALL_WEBSOCKET_PROTOCOLS)
        .on_upgrade(move |stream| {
            GraphQLWebSocket::new(stream, schema, protocol)
                .on_connection_init(move |payload| async move {
                    let header = ["authorization", "Authorization"]
                        .iter()
                        .find_map(|k| payload.get(*k).and_then(|v| v.as_str()).map(str::to_owned));
                    let viewer = match header {
                        None => Viewer::Anonymous,
                        Some(h) => match state.verifier.verify_header(Some(&h)) {
                            Ok(caller) => Viewer::Caller(caller),
                            Err(e) => {
                                tracing::info!(error = %e, "websocket refused");
                                return Err(async_graphql::Error::new(e.to_string()));
                            }
                        },
                    };
                    let profiles = DataLoader::new(
                        schema::PublicProfileLoader::new(
                            state.services.clone(),
                            viewer.clone(),
                            client.clone(),
                        ),
                        tokio::spawn,
                    );
                    let mut data = async_graphql::Data::default();
                    data.insert(viewer);
                    data.insert(client);
                    data.insert(profiles);
                    data.insert(lang);
                    Ok(data)
                })
                .serve()
        })
}

async fn graphiql() -> impl IntoResponse {
    Html(
        GraphiQLSource::build()
            .endpoint("/graphql")
            .subscription_endpoint("/graphql/ws")
            .finish(),
    )
}

async fn graphql(
    State(state): State<AppState>,
    headers: HeaderMap,
    request: GraphQLRequest,
) -> GraphQLResponse {
    let request_id = headers
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let viewer = match headers.get(http::header::AUTHORIZATION) {
        None => Viewer::Anonymous,
        Some(value) => match value
            .to_str()
            .map(|h| state.verifier.verify_header(Some(h)))
        {
            Ok(Ok(mut caller)) => {
                caller.request_id = request_id;
                Viewer::Caller(caller)
            }
            Ok(Err(e)) => Viewer::Refused(e.to_string()),
            Err(_) => Viewer::Refused("malformed authorization header".into()),
        },
    };
    let lang = i18n::negotiate(
        headers
            .get(http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    );
    let client = ClientAddress(
        headers
            .get(PUBLIC_CLIENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
    );
    let profiles = DataLoader::new(
        schema::PublicProfileLoader::new(state.services.clone(), viewer.clone(), client.clone()),
        tokio::spawn,
    );
    let mut response = state
        .schema
        .execute(
            request
                .into_inner()
                .data(viewer)
                .data(client)
                .data(profiles),
        )
        .await;
    i18n::localize(&mut response, lang);
    response.into()
}
