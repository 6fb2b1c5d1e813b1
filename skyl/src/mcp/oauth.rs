//! OAuth 2.1 for the servers a [`Remote`](super::Remote) mounts over HTTP (feature `mcp-oauth`),
//! as MCP's authorization section asks of a client: the server's 401 names its protected-resource
//! metadata, which names the authorization server; skyl registers there (or uses a client it is
//! given), gets a token (a person's authorization with PKCE, or the client's own credentials),
//! and asks again with more scopes when the server answers 403 `insufficient_scope`.
//!
//! The protocol is rmcp's OAuth client: discovery with the 2025-03-26 fallbacks, dynamic client
//! registration, client ID metadata documents, scope selection, PKCE, refresh. skyl wraps it
//! around the transport's HTTP client, so that a 401 or 403 on any request (the handshake, a
//! listing, a call) leads to authorization and then to the request again.

use std::collections::HashMap;
use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, PoisonError};

use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, OAuthHttpClient, OAuthHttpClientFuture,
    OAuthHttpRedirectPolicy, OAuthHttpRequest, WWWAuthenticateParams,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use tokio::sync::Mutex;

use super::error::Cause;
use super::mount::RemoteBuilder;

/// How many times one request may lead to authorization before skyl gives up, unless
/// [`OAuth::max_authorizations`] says otherwise.
const DEFAULT_MAX_AUTHORIZATIONS: u32 = 3;

/// The largest answer skyl reads from an authorization server (metadata, registration, token).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The client name skyl registers under, unless [`OAuth::client_name`] says otherwise.
const DEFAULT_CLIENT_NAME: &str = "skyl";

/// How [`connect_http`](RemoteBuilder::connect_http) gets access tokens for an MCP server that
/// requires OAuth 2.1 (set with [`RemoteBuilder::oauth`]).
///
/// Nothing happens until the server answers 401: then skyl reads the server's protected-resource
/// metadata (or, for a server of the 2025-03-26 revision, the authorization server's metadata at
/// the server's origin, or its default endpoints), gets a client identity, gets a token and sends
/// the request again with it. The client identity is, in this order: the one given with
/// [`client_id`](Self::client_id); the [client ID metadata
/// document](Self::client_metadata_url), when the authorization server accepts those; or one
/// registered on the spot (dynamic client registration), named [`client_name`](Self::client_name).
///
/// The scopes asked for are those [`scopes`](Self::scopes) gives, or else the ones the server's
/// challenge names, or else the metadata's `scopes_supported`, or else none (the `scope`
/// parameter is left out), plus `offline_access` when the authorization server offers it (for a
/// refresh token). A 403 with `error="insufficient_scope"` asks for the scopes it names on top
/// of those held (step-up authorization), unless the token holds them already.
///
/// A token is kept in memory for the connection, and refreshed when it expires.
///
/// ```no_run
/// use skyl::mcp::{OAuth, Remote};
///
/// # async fn run() -> Result<(), skyl::mcp::ConnectError> {
/// // Show the person the authorization page, and hand back where it sent their browser: here
/// // the app's own handler for http://127.0.0.1:8765/callback would receive it.
/// let oauth = OAuth::authorization_code("http://127.0.0.1:8765/callback", |url: String| async move {
///     println!("Authorize skyl at {url}");
///     let redirect: String = wait_for_the_callback().await;
///     Ok::<_, std::io::Error>(redirect)
/// })
/// .client_metadata_url("https://app.example.com/oauth/client.json");
/// let tools = Remote::builder("tools")
///     .oauth(oauth)
///     .connect_http("https://tools.example.com/mcp")
///     .await?;
/// # let _ = tools;
/// # Ok(())
/// # }
/// # async fn wait_for_the_callback() -> String { String::new() }
/// ```
#[derive(Clone)]
pub struct OAuth {
    flow: Flow,
    client_id: Option<String>,
    client_secret: Option<String>,
    client_metadata_url: Option<String>,
    client_name: String,
    scopes: Vec<String>,
    max_authorizations: u32,
}

#[derive(Clone)]
enum Flow {
    /// A person authorizes in a browser; `authorize` shows them the page.
    AuthorizationCode {
        redirect_uri: String,
        authorize: Arc<dyn Authorize>,
    },
    /// The client authorizes itself with its id and secret (the `client_credentials` grant).
    ClientCredentials,
}

/// The person's part of the authorization-code flow: show them the authorization server's page,
/// and hand back the URL it redirected their browser to.
///
/// A closure `Fn(String) -> impl Future<Output = Result<String, E>>` is one. The app shows the
/// URL (opens a browser), receives the redirect at the redirect URI it gave
/// [`OAuth::authorization_code`] (a local listener, a custom URL scheme) and returns it: the
/// whole URL, or its path and query (`/callback?code=...&state=...`). skyl reads `code`,
/// `state` and `iss` from it and checks them.
pub trait Authorize: Send + Sync + 'static {
    /// Has the person authorize at `url`; resolves to the URL the authorization server
    /// redirected to, or to why the person could not authorize.
    fn authorize(&self, url: String) -> AuthorizeFuture;
}

/// What [`Authorize::authorize`] returns.
pub type AuthorizeFuture = Pin<Box<dyn Future<Output = Result<String, Cause>> + Send>>;

impl<F, Fut, E> Authorize for F
where
    F: Fn(String) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, E>> + Send + 'static,
    E: Into<Cause>,
{
    fn authorize(&self, url: String) -> AuthorizeFuture {
        let answer = self(url);
        Box::pin(async move { answer.await.map_err(Into::into) })
    }
}

impl OAuth {
    /// A person authorizes: skyl builds the authorization URL (with PKCE and the resource
    /// indicator), `authorize` shows it to them and returns where the authorization server sent
    /// their browser, and skyl exchanges the code for a token. `redirect_uri` is the URI the app
    /// receives that redirect at, as registered with the authorization server.
    pub fn authorization_code(redirect_uri: impl Into<String>, authorize: impl Authorize) -> Self {
        OAuth::with_flow(Flow::AuthorizationCode {
            redirect_uri: redirect_uri.into(),
            authorize: Arc::new(authorize),
        })
    }

    /// A machine client authorizes itself (OAuth's `client_credentials` grant, MCP's SEP-1046)
    /// with the id and secret the authorization server issued it, sent as HTTP Basic when the
    /// server accepts only that and in the request body otherwise.
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        let mut oauth = OAuth::with_flow(Flow::ClientCredentials);
        oauth.client_id = Some(client_id.into());
        oauth.client_secret = Some(client_secret.into());
        oauth
    }

    fn with_flow(flow: Flow) -> Self {
        OAuth {
            flow,
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            client_name: DEFAULT_CLIENT_NAME.to_owned(),
            scopes: Vec::new(),
            max_authorizations: DEFAULT_MAX_AUTHORIZATIONS,
        }
    }

    /// A client registered with the authorization server beforehand: skyl uses its id instead
    /// of registering one.
    pub fn client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The secret of the client given with [`client_id`](Self::client_id), for a confidential
    /// client.
    pub fn client_secret(mut self, client_secret: impl Into<String>) -> Self {
        self.client_secret = Some(client_secret.into());
        self
    }

    /// The HTTPS URL of the app's client ID metadata document, used as its client id by an
    /// authorization server that says it accepts those (`client_id_metadata_document_supported`)
    /// when no [`client_id`](Self::client_id) is given.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The name skyl registers the client under when it registers one (`skyl` unless set).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The scopes to ask for, instead of the ones the server names.
    pub fn scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How many times one request may lead to authorization (3 unless set) before it fails: a
    /// server that keeps refusing does not send the person through authorization forever.
    pub fn max_authorizations(mut self, limit: u32) -> Self {
        self.max_authorizations = limit;
        self
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let flow = match &self.flow {
            Flow::AuthorizationCode { redirect_uri, .. } => {
                format!("authorization_code ({redirect_uri})")
            }
            Flow::ClientCredentials => "client_credentials".to_owned(),
        };
        f.debug_struct("OAuth")
            .field("flow", &flow)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_name", &self.client_name)
            .field("scopes", &self.scopes)
            .field("max_authorizations", &self.max_authorizations)
            .finish()
    }
}

impl RemoteBuilder {
    /// Gets access tokens with OAuth 2.1 for a server that requires them (see [`OAuth`]), when
    /// [`connect_http`](Self::connect_http) connects; instead of a fixed
    /// [`bearer_token`](Self::bearer_token).
    ///
    /// A failed authorization is a [`ConnectError::Authorization`](super::ConnectError) whose
    /// cause says which step failed.
    pub fn oauth(mut self, oauth: OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }
}

/// Why getting a token failed, at which step; [`ConnectError::Authorization`]'s cause.
///
/// [`ConnectError::Authorization`]: super::ConnectError::Authorization
#[derive(Debug)]
pub(super) struct Failure {
    url: String,
    step: Step,
    source: Option<Cause>,
}

#[derive(Debug)]
enum Step {
    Discovery,
    Registration,
    Start,
    Person,
    Redirect(String),
    Token,
    TokenRefused,
    ScopeHeld(String),
    NoScope,
    TooMany(u32),
}

impl Failure {
    fn new(url: &str, step: Step, source: Option<Cause>) -> Self {
        Failure {
            url: url.to_owned(),
            step,
            source,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = &self.url;
        match &self.step {
            Step::Discovery => write!(
                f,
                "could not find the authorization server of {url}; check that the server follows MCP's authorization (a protected-resource metadata document), or give its token with RemoteBuilder::bearer_token"
            ),
            Step::Registration => write!(
                f,
                "the authorization server of {url} did not register skyl as a client; register a client there and give its id with OAuth::client_id"
            ),
            Step::Start => write!(
                f,
                "could not start authorizing with the authorization server of {url}; check its metadata document"
            ),
            Step::Person => write!(
                f,
                "the authorization for {url} was not completed; authorize again"
            ),
            Step::Redirect(redirect) => write!(
                f,
                "the redirect after authorizing for {url} ({redirect}) carries no code and state; have Authorize return the URL the browser was sent back to"
            ),
            Step::Token => write!(
                f,
                "the authorization server of {url} did not issue an access token; check the client's id and secret and the scopes asked for"
            ),
            Step::TokenRefused => write!(
                f,
                "{url} refused the access token its authorization server had just issued; check that the server accepts tokens from that authorization server for the resource {url}"
            ),
            Step::ScopeHeld(scopes) => write!(
                f,
                "{url} refused the access token for lacking the scopes {scopes}, which it holds already; check what the account may do on that server"
            ),
            Step::NoScope => write!(
                f,
                "{url} refused the access token (403) without naming a scope to ask for; check what the account may do on that server"
            ),
            Step::TooMany(limit) => write!(
                f,
                "{url} still refused access after {limit} authorizations for one request; check what the account may do on that server, or raise OAuth::max_authorizations"
            ),
        }
    }
}

impl Error for Failure {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.source.as_deref().map(|source| source as _)
    }
}

/// One connection's authorization: the OAuth options, rmcp's state once authorized, and the
/// failure that stopped the last request, for [`ConnectError`](super::ConnectError).
pub(super) struct Session {
    url: String,
    oauth: OAuth,
    http: OAuthHttp,
    state: Mutex<State>,
    failure: std::sync::Mutex<Option<Failure>>,
}

#[derive(Default)]
struct State {
    /// rmcp's authorization state (metadata, client, tokens), once authorized.
    manager: Option<AuthorizationManager>,
    /// Counts the tokens obtained, so that requests refused together authorize once.
    generation: u64,
}

/// A refusal by the server: its status and its `WWW-Authenticate` challenge.
enum Refusal {
    Unauthorized(String),
    Forbidden(String),
}

impl Session {
    pub(super) fn new(url: &str, oauth: OAuth, http: OAuthHttp) -> Self {
        Session {
            url: url.to_owned(),
            oauth,
            http,
            state: Mutex::new(State::default()),
            failure: std::sync::Mutex::new(None),
        }
    }

    /// The failure that stopped the last refused request, if any.
    pub(super) fn take_failure(&self) -> Option<Failure> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Keeps `failure` for [`take_failure`](Self::take_failure), and gives the transport an
    /// error saying it.
    fn fail(&self, failure: Failure) -> StreamableHttpError<reqwest::Error> {
        let error = StreamableHttpError::Auth(AuthError::AuthorizationFailed(failure.to_string()));
        *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(failure);
        error
    }

    /// The current token (refreshed when it has expired) and its generation; no token before the
    /// first authorization, or when it expired and could not be refreshed (the server's 401 then
    /// leads to authorization).
    async fn token(&self) -> (Option<String>, u64) {
        let state = self.state.lock().await;
        let token = match &state.manager {
            Some(manager) => manager.get_access_token().await.ok(),
            None => None,
        };
        (token, state.generation)
    }

    /// Gets a new token after `refusal` of a request sent with the token of `generation`.
    async fn authorize(&self, generation: u64, refusal: Refusal) -> Result<(), Failure> {
        let mut state = self.state.lock().await;
        if state.generation != generation {
            // Another request was refused at the same time and has authorized already.
            return Ok(());
        }
        let manager = match (refusal, state.manager.take()) {
            (Refusal::Forbidden(challenge), Some(manager)) => {
                let stepped = match self.more_scopes(&challenge, &manager).await {
                    Ok(required) => self.step_up(manager, &required).await,
                    Err(failure) => Err((manager, failure)),
                };
                match stepped {
                    Ok(manager) => manager,
                    Err((manager, failure)) => {
                        // The token still serves the requests that do not need more.
                        state.manager = Some(manager);
                        return Err(failure);
                    }
                }
            }
            (Refusal::Unauthorized(challenge) | Refusal::Forbidden(challenge), manager) => {
                // A token that expired is refreshed before sending the person through again.
                if let Some(manager) = manager
                    && manager.refresh_token().await.is_ok()
                {
                    manager
                } else {
                    self.first(&challenge).await?
                }
            }
        };
        state.manager = Some(manager);
        state.generation += 1;
        Ok(())
    }

    /// The scopes a 403's `challenge` asks for, when the token lacks some of them: asking again
    /// for scopes it holds would only repeat the refusal.
    async fn more_scopes(
        &self,
        challenge: &str,
        manager: &AuthorizationManager,
    ) -> Result<String, Failure> {
        let endpoint =
            reqwest::Url::parse(&self.url).map_err(|error| self.failure(Step::Discovery, error))?;
        let params = WWWAuthenticateParams::parse(challenge, &endpoint);
        let Some(required) = params.scope.filter(|scope| !scope.trim().is_empty()) else {
            return Err(self.refused(Step::NoScope));
        };
        let held = manager.get_current_scopes().await;
        if required
            .split_whitespace()
            .all(|scope| held.iter().any(|have| have == scope))
        {
            return Err(self.refused(Step::ScopeHeld(required)));
        }
        Ok(required)
    }

    /// The first authorization, from the server's challenge.
    async fn first(&self, challenge: &str) -> Result<AuthorizationManager, Failure> {
        let mut manager = AuthorizationManager::new_with_oauth_http_client(
            &self.url,
            Arc::new(self.http.clone()),
        )
        .await
        .map_err(|error| self.failure(Step::Discovery, error))?;
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(|error| self.failure(Step::Discovery, error))?;
        manager.set_metadata(resolution.metadata);
        match &self.oauth.flow {
            Flow::ClientCredentials => {
                let scopes = match self.oauth.scopes.is_empty() {
                    true => manager.select_initial_scopes(&[]).await,
                    false => self.oauth.scopes.clone(),
                };
                self.client_credentials(&mut manager, scopes).await?;
                Ok(manager)
            }
            Flow::AuthorizationCode {
                redirect_uri,
                authorize,
            } => {
                let oauth = &self.oauth;
                let mut request = AuthorizationRequest::new(redirect_uri)
                    .with_client_name(&oauth.client_name)
                    .with_initial_scope_selection();
                if !oauth.scopes.is_empty() {
                    request = request.with_scopes(&oauth.scopes);
                }
                if let Some(client_id) = &oauth.client_id {
                    request = request.with_preregistered_client(client_id);
                    if let Some(secret) = &oauth.client_secret {
                        request = request.with_client_secret(secret);
                    }
                }
                if let Some(url) = &oauth.client_metadata_url {
                    request = request.with_client_metadata_url(url);
                }
                let session =
                    AuthorizationSession::new(manager, request)
                        .await
                        .map_err(|(_, error)| {
                            let step = match error {
                                AuthError::RegistrationFailed(_) => Step::Registration,
                                _ => Step::Start,
                            };
                            self.failure(step, error)
                        })?;
                let manager = session.auth_manager;
                self.person(&manager, &session.auth_url, redirect_uri, authorize)
                    .await?;
                Ok(manager)
            }
        }
    }

    /// Asks for `required` on top of the scopes held. On failure the manager is handed back.
    async fn step_up(
        &self,
        mut manager: AuthorizationManager,
        required: &str,
    ) -> Result<AuthorizationManager, (AuthorizationManager, Failure)> {
        match &self.oauth.flow {
            Flow::ClientCredentials => {
                let mut scopes = manager.get_current_scopes().await;
                for scope in required.split_whitespace() {
                    if !scopes.iter().any(|held| held == scope) {
                        scopes.push(scope.to_owned());
                    }
                }
                match self.client_credentials(&mut manager, scopes).await {
                    Ok(()) => Ok(manager),
                    Err(failure) => Err((manager, failure)),
                }
            }
            Flow::AuthorizationCode {
                redirect_uri,
                authorize,
            } => {
                let url = match manager.request_scope_upgrade(required).await {
                    Ok(url) => url,
                    Err(error) => {
                        let failure = self.failure(Step::Start, error);
                        return Err((manager, failure));
                    }
                };
                match self.person(&manager, &url, redirect_uri, authorize).await {
                    Ok(()) => Ok(manager),
                    Err(failure) => Err((manager, failure)),
                }
            }
        }
    }

    /// Has the person authorize at `url`, then exchanges the code the redirect carries.
    async fn person(
        &self,
        manager: &AuthorizationManager,
        url: &str,
        redirect_uri: &str,
        authorize: &Arc<dyn Authorize>,
    ) -> Result<(), Failure> {
        let redirect = authorize
            .authorize(url.to_owned())
            .await
            .map_err(|error| self.failure(Step::Person, error))?;
        let callback = absolute(&redirect, redirect_uri)
            .and_then(|redirect| AuthorizationCallback::from_redirect_url(&redirect).ok())
            .ok_or_else(|| self.refused(Step::Redirect(redirect.clone())))?;
        manager
            .exchange_code_for_token_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(|error| self.failure(Step::Token, error))?;
        Ok(())
    }

    /// The `client_credentials` grant for `scopes`, for this server as the resource.
    async fn client_credentials(
        &self,
        manager: &mut AuthorizationManager,
        scopes: Vec<String>,
    ) -> Result<(), Failure> {
        let (Some(client_id), Some(client_secret)) =
            (&self.oauth.client_id, &self.oauth.client_secret)
        else {
            unreachable!("OAuth::client_credentials sets both");
        };
        let config = ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: client_secret.clone(),
            scopes,
            resource: Some(self.url.clone()),
        };
        manager
            .validate_client_credentials_metadata(&config)
            .and_then(|()| manager.configure_client_credentials(&config))
            .map_err(|error| self.failure(Step::Start, error))?;
        manager
            .exchange_client_credentials(&config)
            .await
            .map_err(|error| self.failure(Step::Token, error))?;
        Ok(())
    }

    /// A failure at `step`, for the reason `source`.
    fn failure(&self, step: Step, source: impl Into<Cause>) -> Failure {
        Failure::new(&self.url, step, Some(source.into()))
    }

    /// A failure at `step` that is its own reason.
    fn refused(&self, step: Step) -> Failure {
        Failure::new(&self.url, step, None)
    }
}

/// The reason skyl's OAuth gave for not sending a request, among `error`'s causes (the
/// transport carries it as rmcp's `AuthorizationFailed`, see [`Session::fail`]).
pub(super) fn refusal(error: &(dyn Error + 'static)) -> Option<String> {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if let Some(AuthError::AuthorizationFailed(reason)) = error.downcast_ref::<AuthError>() {
            return Some(reason.clone());
        }
        cause = error.source();
    }
    None
}

/// `redirect` as an absolute URL: itself, or a path and query on the redirect URI's origin.
fn absolute(redirect: &str, redirect_uri: &str) -> Option<String> {
    let redirect = redirect.trim();
    match reqwest::Url::parse(redirect) {
        Ok(url) => Some(url.into()),
        Err(_) => reqwest::Url::parse(redirect_uri)
            .ok()?
            .join(redirect)
            .ok()
            .map(Into::into),
    }
}

/// The transport's HTTP client with OAuth around it: each request carries the current token, and
/// one the server refuses (401, or 403 for a scope) leads to authorization and is sent again.
#[derive(Clone)]
pub(super) struct Authorized {
    http: reqwest::Client,
    session: Arc<Session>,
}

type Answer<T> = Result<T, StreamableHttpError<reqwest::Error>>;

type SseStream =
    Pin<Box<dyn futures_core::Stream<Item = Result<sse_stream::Sse, SseError>> + Send>>;

impl Authorized {
    pub(super) fn new(http: reqwest::Client, session: Arc<Session>) -> Self {
        Authorized { http, session }
    }

    async fn send<T, F, Fut>(&self, request: F) -> Answer<T>
    where
        F: Fn(Option<String>) -> Fut,
        Fut: Future<Output = Answer<T>>,
    {
        let session = &self.session;
        let limit = session.oauth.max_authorizations;
        let mut authorizations = 0;
        loop {
            let (token, generation) = session.token().await;
            let refusal = match request(token.clone()).await {
                Err(StreamableHttpError::AuthRequired(refused)) => {
                    if token.is_some() && authorizations > 0 {
                        return Err(session.fail(session.refused(Step::TokenRefused)));
                    }
                    Refusal::Unauthorized(refused.www_authenticate_header)
                }
                Err(StreamableHttpError::InsufficientScope(refused)) => {
                    Refusal::Forbidden(refused.www_authenticate_header)
                }
                answer => return answer,
            };
            if authorizations == limit {
                return Err(session.fail(session.refused(Step::TooMany(limit))));
            }
            authorizations += 1;
            session
                .authorize(generation, refusal)
                .await
                .map_err(|failure| session.fail(failure))?;
        }
    }
}

// The transport sends through `post_message_with_response_limits` and
// `get_stream_with_max_sse_event_size`; the others are the trait's required methods. Each passes
// the limits on to the transport's own client, which enforces them.
impl StreamableHttpClient for Authorized {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Answer<StreamableHttpPostResponse> {
        self.send(|token| {
            self.http.post_message(
                Arc::clone(&uri),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Answer<StreamableHttpPostResponse> {
        self.send(|token| {
            self.http.post_message_with_response_limits(
                Arc::clone(&uri),
                message.clone(),
                session_id.clone(),
                token,
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Answer<()> {
        self.send(|token| {
            self.http.delete_session(
                Arc::clone(&uri),
                Arc::clone(&session_id),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Answer<SseStream> {
        self.send(|token| {
            self.http.get_stream(
                Arc::clone(&uri),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Answer<SseStream> {
        self.send(|token| {
            self.http.get_stream_with_max_sse_event_size(
                Arc::clone(&uri),
                session_id.clone(),
                last_event_id.clone(),
                token,
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}

/// The HTTP client of rmcp's OAuth exchanges (metadata, registration, tokens), built as the
/// transport's is: rmcp's own builds a reqwest client that panics when the `http` feature has
/// turned on rustls without a process-wide crypto provider.
#[derive(Clone)]
pub(super) struct OAuthHttp {
    follow: reqwest::Client,
    stop: reqwest::Client,
}

impl OAuthHttp {
    pub(super) fn new(
        builder: impl Fn() -> Result<reqwest::ClientBuilder, Cause>,
    ) -> Result<Self, Cause> {
        Ok(OAuthHttp {
            follow: builder()?.build()?,
            stop: builder()?
                .redirect(reqwest::redirect::Policy::none())
                .build()?,
        })
    }
}

impl OAuthHttpClient for OAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        let client = match request.redirect_policy {
            OAuthHttpRedirectPolicy::Stop => &self.stop,
            _ => &self.follow,
        };
        let timeout = request.timeout;
        let (head, body) = request.request.into_parts();
        let mut outgoing = client
            .request(head.method, head.uri.to_string())
            .headers(head.headers)
            .body(body);
        if let Some(timeout) = timeout {
            outgoing = outgoing.timeout(timeout);
        }
        Box::pin(async move {
            let mut response = outgoing.send().await?;
            let mut answer = http::Response::builder().status(response.status());
            for (name, value) in response.headers() {
                answer = answer.header(name, value);
            }
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Err(format!(
                        "the answer of {} is longer than {MAX_ANSWER_BYTES} bytes",
                        response.url()
                    )
                    .into());
                }
                body.extend_from_slice(&chunk);
            }
            Ok(answer.body(body)?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{OAuth, absolute};

    #[test]
    fn the_debug_form_leaves_the_client_secret_out() {
        let oauth = OAuth::client_credentials("machine", "s3cret").scopes(["tools"]);
        assert_eq!(
            format!("{oauth:?}"),
            "OAuth { flow: \"client_credentials\", client_id: Some(\"machine\"), client_secret: Some(\"<redacted>\"), client_metadata_url: None, client_name: \"skyl\", scopes: [\"tools\"], max_authorizations: 3 }"
        );
    }

    #[test]
    fn a_redirect_given_as_path_and_query_is_read_on_the_redirect_uris_origin() {
        let at = "http://127.0.0.1:8765/callback";
        assert_eq!(
            absolute("/callback?code=c&state=s", at).as_deref(),
            Some("http://127.0.0.1:8765/callback?code=c&state=s")
        );
        assert_eq!(
            absolute("?code=c&state=s", at).as_deref(),
            Some("http://127.0.0.1:8765/callback?code=c&state=s")
        );
        assert_eq!(
            absolute("myapp://done?code=c&state=s", at).as_deref(),
            Some("myapp://done?code=c&state=s")
        );
    }
}
