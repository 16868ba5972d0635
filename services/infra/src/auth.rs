//! JWT authentication, shared by every service and the gateway.
//!
//! Development (the embedded default): HS256 with a secret generated once into the data directory;
//! `qiwang token` mints tokens with it. Production: only public keys (RS256 or EdDSA, several at once
//! for rotation); issuer, audience and expiry are always checked, and minting is refused.

use base64::Engine;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use crate::config::{AuthMode, AuthSettings, KeyAlgorithm};

/// Who a caller is, by the token's `role` claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// 组委会: runs the championship.
    Organizer,
    /// 裁判: enters and rules on results.
    Referee,
    /// 棋手: `sub` is the player id.
    Player,
    /// A partner game platform: the `platform` claim names it.
    Partner,
    /// A federation pulling certificates.
    Federation,
    /// 公众: anyone, without an account or a token (the public notice, R-PUB-1/2). Never a token's
    /// role: the interceptor of a service that admits the public gives it to calls without a token,
    /// and only handlers that ask for [`caller_or_public`] ever see it.
    Public,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Organizer,
        Role::Referee,
        Role::Player,
        Role::Partner,
        Role::Federation,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Organizer => "organizer",
            Role::Referee => "referee",
            Role::Player => "player",
            Role::Partner => "partner",
            Role::Federation => "federation",
            Role::Public => "public",
        }
    }
    /// Organizers and referees may see personal data (R-REG-3).
    pub fn sees_personal_data(self) -> bool {
        matches!(self, Role::Organizer | Role::Referee)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                format!("unknown role {s:?} (organizer, referee, player, partner, federation)")
            })
    }
}

/// The claims qiwang reads from a token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub role: Role,
    /// Partner tokens: the platform the partner speaks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    pub iss: String,
    pub aud: String,
    pub iat: u64,
    pub exp: u64,
}

/// The authenticated caller of a request, put into request extensions by the interceptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub subject: String,
    pub role: Role,
    pub platform: Option<String>,
    /// The raw bearer token, so the gateway can pass it on to the services.
    pub token: String,
    /// The request's id (`x-request-id`), passed on with every call made on the caller's behalf.
    pub request_id: Option<String>,
}

impl Caller {
    /// Metadata for a call made on this caller's behalf: their token and the request id.
    pub fn forward<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Ok(value) = format!("Bearer {}", self.token).parse() {
            request.metadata_mut().insert("authorization", value);
        }
        if let Some(id) = self.request_id.as_deref().and_then(|id| id.parse().ok()) {
            request
                .metadata_mut()
                .insert(crate::metrics::REQUEST_ID, id);
        }
        request
    }
}

impl Caller {
    pub fn is(&self, role: Role) -> bool {
        self.role == role
    }
    /// Whether the caller is this player.
    pub fn is_player(&self, player_id: &str) -> bool {
        self.role == Role::Player && self.subject == player_id
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("missing bearer token (authorization: Bearer <JWT>)")]
    Missing,
    #[error("malformed authorization header")]
    Malformed,
    #[error("token expired")]
    Expired,
    #[error("invalid token: {0}")]
    Invalid(String),
    #[error("partner token has no platform claim")]
    PartnerWithoutPlatform,
    #[error("this deployment verifies with public keys only and cannot mint tokens")]
    CannotMint,
    #[error("auth key error: {0}")]
    Key(String),
}

impl From<AuthError> for tonic::Status {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::CannotMint | AuthError::Key(_) => tonic::Status::internal(e.to_string()),
            _ => tonic::Status::unauthenticated(e.to_string()),
        }
    }
}

/// Verifies tokens. Cheap to clone.
#[derive(Clone)]
pub struct Verifier {
    inner: Arc<VerifierInner>,
}

struct VerifierInner {
    keys: Vec<DecodingKey>,
    validation: Validation,
    /// Development only: the key to mint with.
    minting_key: Option<EncodingKey>,
    issuer: String,
    audience: String,
    ttl_secs: u64,
}

/// The development secret's file name inside the data directory.
pub const DEV_SECRET_FILE: &str = "dev-jwt-secret";

impl Verifier {
    /// Builds the verifier from settings. Development mode reads (or, the first time, generates) the
    /// HS256 secret in `data_dir`.
    pub fn from_settings(auth: &AuthSettings, data_dir: &Path) -> Result<Verifier, AuthError> {
        match auth.mode {
            AuthMode::Development => {
                let secret = load_or_create_dev_secret(data_dir)?;
                Self::development(&secret, auth)
            }
            AuthMode::Production => {
                let alg = match auth.algorithm {
                    KeyAlgorithm::RS256 => Algorithm::RS256,
                    KeyAlgorithm::EdDSA => Algorithm::EdDSA,
                };
                let mut keys = Vec::new();
                for path in &auth.public_keys {
                    let pem = std::fs::read(path)
                        .map_err(|e| AuthError::Key(format!("{}: {e}", path.display())))?;
                    let key = match alg {
                        Algorithm::RS256 => DecodingKey::from_rsa_pem(&pem),
                        _ => DecodingKey::from_ed_pem(&pem),
                    }
                    .map_err(|e| AuthError::Key(format!("{}: {e}", path.display())))?;
                    keys.push(key);
                }
                if keys.is_empty() {
                    return Err(AuthError::Key("no public keys configured".into()));
                }
                Ok(Verifier {
                    inner: Arc::new(VerifierInner {
                        keys,
                        validation: validation(alg, auth),
                        minting_key: None,
                        issuer: auth.issuer.clone(),
                        audience: auth.audience.clone(),
                        ttl_secs: auth.dev_token_ttl_secs,
                    }),
                })
            }
        }
    }

    /// A development verifier over an HS256 secret.
    pub fn development(secret: &[u8], auth: &AuthSettings) -> Result<Verifier, AuthError> {
        let key_error = |e: jsonwebtoken::errors::Error| AuthError::Key(e.to_string());
        Ok(Verifier {
            inner: Arc::new(VerifierInner {
                keys: vec![DecodingKey::from_secret(secret).map_err(key_error)?],
                validation: validation(Algorithm::HS256, auth),
                minting_key: Some(EncodingKey::from_secret(secret).map_err(key_error)?),
                issuer: auth.issuer.clone(),
                audience: auth.audience.clone(),
                ttl_secs: auth.dev_token_ttl_secs,
            }),
        })
    }

    /// Checks a bearer token: signature, algorithm, issuer, audience, expiry, and the role's claims.
    pub fn verify(&self, token: &str) -> Result<Caller, AuthError> {
        let mut last = AuthError::Invalid("no key".into());
        for key in &self.inner.keys {
            match jsonwebtoken::decode::<Claims>(token, key, &self.inner.validation) {
                Ok(data) => {
                    let c = data.claims;
                    if c.role == Role::Partner && c.platform.as_deref().is_none_or(str::is_empty) {
                        return Err(AuthError::PartnerWithoutPlatform);
                    }
                    if c.role == Role::Public {
                        return Err(AuthError::Invalid(
                            "\"public\" is not a role a token can carry".into(),
                        ));
                    }
                    return Ok(Caller {
                        subject: c.sub,
                        role: c.role,
                        platform: c.platform,
                        token: token.to_owned(),
                        request_id: None,
                    });
                }
                Err(e) => {
                    last = match e.kind() {
                        jsonwebtoken::errors::ErrorKind::ExpiredSignature => AuthError::Expired,
                        _ => AuthError::Invalid(e.to_string()),
                    };
                    // An expired token is expired under every key; stop there.
                    if matches!(last, AuthError::Expired) {
                        break;
                    }
                }
            }
        }
        Err(last)
    }

    /// Parses an `authorization` header value and verifies it.
    pub fn verify_header(&self, header: Option<&str>) -> Result<Caller, AuthError> {
        let header = header.ok_or(AuthError::Missing)?;
        let token = header
            .strip_prefix("Bearer ")
            .or_else(|| header.strip_prefix("bearer "))
            .ok_or(AuthError::Malformed)?
            .trim();
        if token.is_empty() {
            return Err(AuthError::Missing);
        }
        self.verify(token)
    }

    /// Mints a token (development mode only).
    pub fn mint(
        &self,
        role: Role,
        subject: &str,
        platform: Option<&str>,
        ttl_secs: Option<u64>,
    ) -> Result<String, AuthError> {
        let key = self
            .inner
            .minting_key
            .as_ref()
            .ok_or(AuthError::CannotMint)?;
        if role == Role::Partner && platform.is_none_or(str::is_empty) {
            return Err(AuthError::PartnerWithoutPlatform);
        }
        let now = jsonwebtoken::get_current_timestamp();
        let claims = Claims {
            sub: subject.to_owned(),
            role,
            platform: platform.map(str::to_owned),
            iss: self.inner.issuer.clone(),
            aud: self.inner.audience.clone(),
            iat: now,
            exp: now + ttl_secs.unwrap_or(self.inner.ttl_secs),
        };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, key)
            .map_err(|e| AuthError::Key(e.to_string()))
    }

    /// Whether this verifier can mint (development mode).
    pub fn can_mint(&self) -> bool {
        self.inner.minting_key.is_some()
    }
}

fn validation(alg: Algorithm, auth: &AuthSettings) -> Validation {
    let mut v = Validation::new(alg);
    v.set_issuer(&[&auth.issuer]);
    v.set_audience(&[&auth.audience]);
    v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    v.leeway = 30;
    v
}

/// Reads the development secret, creating a random 32-byte one (mode 0600) the first time.
pub fn load_or_create_dev_secret(data_dir: &Path) -> Result<Vec<u8>, AuthError> {
    let path = data_dir.join(DEV_SECRET_FILE);
    let engine = base64::engine::general_purpose::STANDARD;
    if let Ok(text) = std::fs::read_to_string(&path) {
        return engine
            .decode(text.trim())
            .map_err(|e| AuthError::Key(format!("{}: {e}", path.display())));
    }
    std::fs::create_dir_all(data_dir)
        .map_err(|e| AuthError::Key(format!("{}: {e}", data_dir.display())))?;
    let secret: [u8; 32] = rand::random();
    write_private(&path, engine.encode(secret).as_bytes())
        .map_err(|e| AuthError::Key(format!("{}: {e}", path.display())))?;
    Ok(secret.to_vec())
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

/// A tonic interceptor: verifies the bearer token and puts the [`Caller`] into request extensions.
/// Health and reflection are served without it.
#[derive(Clone)]
pub struct AuthInterceptor {
    verifier: Verifier,
    admit_public: bool,
}

impl AuthInterceptor {
    pub fn new(verifier: Verifier) -> Self {
        AuthInterceptor {
            verifier,
            admit_public: false,
        }
    }

    /// Also lets calls without any `authorization` header through, as the public (a bad token is
    /// still refused). Their handlers see no caller ([`caller`] refuses them exactly as before)
    /// unless they ask for [`caller_or_public`].
    pub fn admitting_public(verifier: Verifier) -> Self {
        AuthInterceptor {
            verifier,
            admit_public: true,
        }
    }
}

/// Metadata naming the member of the public behind an anonymous call: set by the gateway from the
/// client's address, so that rate limits apply per person, not per gateway.
pub const PUBLIC_CLIENT: &str = "x-qiwang-public-client";

/// The caller of an anonymous call let through by [`AuthInterceptor::admitting_public`].
#[derive(Debug, Clone)]
struct PublicCall {
    client: String,
}

impl tonic::service::Interceptor for AuthInterceptor {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        let header = request
            .metadata()
            .get("authorization")
            .map(|v| v.to_str().map_err(|_| AuthError::Malformed));
        let header = match header {
            Some(Ok(h)) => Some(h),
            Some(Err(e)) => {
                tracing::warn!(error = %e, "refused call");
                return Err(e.into());
            }
            None if self.admit_public => {
                let client = request
                    .metadata()
                    .get(PUBLIC_CLIENT)
                    .and_then(|v| v.to_str().ok())
                    .map(|v| v.chars().take(64).collect::<String>())
                    .filter(|v| !v.is_empty())
                    .or_else(|| request.remote_addr().map(|a| a.ip().to_string()))
                    .unwrap_or_else(|| "unknown".into());
                request.extensions_mut().insert(PublicCall { client });
                return Ok(request);
            }
            None => None,
        };
        match self.verifier.verify_header(header) {
            Ok(mut caller) => {
                caller.request_id = request
                    .metadata()
                    .get(crate::metrics::REQUEST_ID)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                request.extensions_mut().insert(caller);
                Ok(request)
            }
            Err(e) => {
                tracing::warn!(error = %e, "refused call");
                Err(e.into())
            }
        }
    }
}

/// The caller of a request that passed [`AuthInterceptor`]; an anonymous call is refused as
/// unauthenticated.
pub fn caller<T>(request: &tonic::Request<T>) -> Result<Caller, tonic::Status> {
    if let Some(c) = request.extensions().get::<Caller>() {
        return Ok(c.clone());
    }
    if request.extensions().get::<PublicCall>().is_some() {
        tracing::warn!(error = %AuthError::Missing, "refused call");
        return Err(AuthError::Missing.into());
    }
    Err(tonic::Status::unauthenticated("no authenticated caller"))
}

/// The caller, or for an anonymous call the public: role [`Role::Public`], subject
/// `public:<client address>`. Only for what anyone may do (read the published notice, report).
pub fn caller_or_public<T>(request: &tonic::Request<T>) -> Result<Caller, tonic::Status> {
    match request.extensions().get::<PublicCall>() {
        Some(p) => Ok(Caller {
            subject: format!("public:{}", p.client),
            role: Role::Public,
            platform: None,
            token: String::new(),
            request_id: request
                .metadata()
                .get(crate::metrics::REQUEST_ID)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
        }),
        None => caller(request),
    }
}

/// Refuses the call unless the caller has one of `roles`.
pub fn require(caller: &Caller, roles: &[Role]) -> Result<(), tonic::Status> {
    if roles.contains(&caller.role) {
        Ok(())
    } else {
        let allowed: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
        tracing::warn!(role = %caller.role, ?allowed, "permission denied");
        Err(tonic::Status::permission_denied(format!(
            "role {} may not do this (allowed: {})",
            caller.role,
            allowed.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn dev(secret: &[u8]) -> Verifier {
        Verifier::development(secret, &Settings::default().auth).expect("key")
    }

    #[test]
    fn minted_tokens_verify_and_carry_the_role() {
        let v = dev(b"0123456789abcdef0123456789abcdef");
        let t = v
            .mint(Role::Partner, "yizhan-bot", Some("yizhan"), None)
            .expect("mint");
        let c = v
            .verify_header(Some(&format!("Bearer {t}")))
            .expect("valid");
        assert_eq!(
            (c.role, c.subject.as_str(), c.platform.as_deref()),
            (Role::Partner, "yizhan-bot", Some("yizhan"))
        );
    }

    #[test]
    fn r_pub_2_public_is_never_a_token_role_and_anonymous_calls_reach_only_public_handlers() {
        let v = dev(b"0123456789abcdef0123456789abcdef");
        let t = v.mint(Role::Public, "anyone", None, None).expect("mint");
        assert!(matches!(v.verify(&t), Err(AuthError::Invalid(_))));
        assert!("public".parse::<Role>().is_err());

        let mut open = AuthInterceptor::admitting_public(v.clone());
        let mut request = tonic::Request::new(());
        request
            .metadata_mut()
            .insert(PUBLIC_CLIENT, "203.0.113.7".parse().expect("ascii"));
        let request = tonic::service::Interceptor::call(&mut open, request).expect("admitted");
        let refused = caller(&request).expect_err("not for ordinary handlers");
        assert_eq!(refused.code(), tonic::Code::Unauthenticated);
        let public = caller_or_public(&request).expect("public handlers");
        assert_eq!(
            (public.role, public.subject.as_str()),
            (Role::Public, "public:203.0.113.7")
        );

        let mut closed = AuthInterceptor::new(v);
        let refused = tonic::service::Interceptor::call(&mut closed, tonic::Request::new(()))
            .expect_err("no token");
        assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    }

    #[test]
    fn other_keys_expiry_and_malformed_headers_are_refused() {
        let v = dev(b"0123456789abcdef0123456789abcdef");
        let other = dev(b"another-secret-another-secret-xx");
        let foreign = other.mint(Role::Organizer, "o", None, None).expect("mint");
        assert!(matches!(v.verify(&foreign), Err(AuthError::Invalid(_))));
        // Expiry has a 30 s leeway, so forge a token that expired ten minutes ago.
        let now = jsonwebtoken::get_current_timestamp();
        let claims = Claims {
            sub: "o".into(),
            role: Role::Organizer,
            platform: None,
            iss: "qiwang".into(),
            aud: "qiwang".into(),
            iat: now - 3600,
            exp: now - 600,
        };
        let old = jsonwebtoken::encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(b"0123456789abcdef0123456789abcdef").expect("key"),
        )
        .expect("encode");
        assert!(matches!(v.verify(&old), Err(AuthError::Expired)));
        assert!(matches!(v.verify_header(None), Err(AuthError::Missing)));
        assert!(matches!(
            v.verify_header(Some("Basic abc")),
            Err(AuthError::Malformed)
        ));
    }

    #[test]
    fn wrong_audience_is_refused() {
        let v = dev(b"0123456789abcdef0123456789abcdef");
        let mut auth = Settings::default().auth;
        auth.audience = "elsewhere".into();
        let elsewhere =
            Verifier::development(b"0123456789abcdef0123456789abcdef", &auth).expect("key");
        let t = elsewhere
            .mint(Role::Organizer, "o", None, None)
            .expect("mint");
        assert!(matches!(v.verify(&t), Err(AuthError::Invalid(_))));
    }

    #[test]
    fn production_verifies_eddsa_with_public_keys_and_refuses_to_mint() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
        let mut auth = Settings::default().auth;
        auth.mode = AuthMode::Production;
        auth.algorithm = KeyAlgorithm::EdDSA;
        auth.public_keys = vec![dir.join("test-ed25519-public.pem")];
        let v = Verifier::from_settings(&auth, &dir).expect("verifier");
        assert!(!v.can_mint());
        assert!(matches!(
            v.mint(Role::Organizer, "o", None, None),
            Err(AuthError::CannotMint)
        ));
        let private = std::fs::read(dir.join("test-ed25519-private.pem")).expect("key file");
        let now = jsonwebtoken::get_current_timestamp();
        let claims = |iss: &str| Claims {
            sub: "fed-1".into(),
            role: Role::Federation,
            platform: None,
            iss: iss.into(),
            aud: "qiwang".into(),
            iat: now,
            exp: now + 600,
        };
        let sign = |c: &Claims| {
            jsonwebtoken::encode(
                &Header::new(Algorithm::EdDSA),
                c,
                &EncodingKey::from_ed_pem(&private).expect("pem"),
            )
            .expect("encode")
        };
        let caller = v.verify(&sign(&claims("qiwang"))).expect("valid");
        assert_eq!(caller.role, Role::Federation);
        assert!(matches!(
            v.verify(&sign(&claims("someone-else"))),
            Err(AuthError::Invalid(_))
        ));
        // A development (HS256) token is refused by a production verifier.
        let hs = dev(b"0123456789abcdef0123456789abcdef")
            .mint(Role::Organizer, "o", None, None)
            .expect("mint");
        assert!(v.verify(&hs).is_err());
    }

    #[test]
    fn partner_tokens_need_a_platform() {
        let v = dev(b"0123456789abcdef0123456789abcdef");
        assert!(matches!(
            v.mint(Role::Partner, "p", None, None),
            Err(AuthError::PartnerWithoutPlatform)
        ));
    }

    #[test]
    fn the_dev_secret_is_created_once() {
        let dir = std::env::temp_dir().join(format!("qiwang-auth-{}", uuid::Uuid::new_v4()));
        let first = load_or_create_dev_secret(&dir).expect("create");
        let second = load_or_create_dev_secret(&dir).expect("read");
        assert_eq!(first, second);
        assert_eq!(first.len(), 32);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
