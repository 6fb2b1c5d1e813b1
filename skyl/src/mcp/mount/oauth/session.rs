//! One connection's authorization: the token its requests carry, getting one with rmcp's OAuth
//! client when the server refuses (discovery, registration, a person's authorization or the
//! client's credentials, more scopes), and why that failed when it did.

use std::error::Error;
use std::fmt;
use std::sync::{Arc, PoisonError};

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, WWWAuthenticateParams,
};
use rmcp::transport::streamable_http_client::StreamableHttpError;
use tokio::sync::Mutex;

use crate::mcp::error::Cause;
use crate::mcp::mount::oauth::exchanges::OAuthHttp;
use crate::mcp::mount::oauth::{Authorize, Flow, OAuth};

/// Why getting a token failed, at which step; [`ConnectError::Authorization`]'s cause.
///
/// [`ConnectError::Authorization`]: super::ConnectError::Authorization
#[derive(Debug)]
pub(in crate::mcp) struct Failure {
    url: String,
    step: Step,
    source: Option<Cause>,
}

#[derive(Debug)]
pub(super) enum Step {
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
pub(in crate::mcp) struct Session {
    url: String,
    pub(super) oauth: OAuth,
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
pub(super) enum Refusal {
    Unauthorized(String),
    Forbidden(String),
}

impl Session {
    pub(in crate::mcp) fn new(url: &str, oauth: OAuth, http: OAuthHttp) -> Self {
        Session {
            url: url.to_owned(),
            oauth,
            http,
            state: Mutex::new(State::default()),
            failure: std::sync::Mutex::new(None),
        }
    }

    /// The failure that stopped the last refused request, if any.
    pub(in crate::mcp) fn take_failure(&self) -> Option<Failure> {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    /// Keeps `failure` for [`take_failure`](Self::take_failure), and gives the transport an
    /// error saying it.
    pub(super) fn fail(&self, failure: Failure) -> StreamableHttpError<reqwest::Error> {
        let error = StreamableHttpError::Auth(AuthError::AuthorizationFailed(failure.to_string()));
        *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(failure);
        error
    }

    /// The current token (refreshed when it has expired) and its generation; no token before the
    /// first authorization, or when it expired and could not be refreshed (the server's 401 then
    /// leads to authorization).
    pub(super) async fn token(&self) -> (Option<String>, u64) {
        let state = self.state.lock().await;
        let token = match &state.manager {
            Some(manager) => manager.get_access_token().await.ok(),
            None => None,
        };
        (token, state.generation)
    }

    /// Gets a new token after `refusal` of a request sent with the token of `generation`.
    pub(super) async fn authorize(&self, generation: u64, refusal: Refusal) -> Result<(), Failure> {
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
    pub(super) fn refused(&self, step: Step) -> Failure {
        Failure::new(&self.url, step, None)
    }
}

/// The reason skyl's OAuth gave for not sending a request, among `error`'s causes (the
/// transport carries it as rmcp's `AuthorizationFailed`, see [`Session::fail`]).
pub(in crate::mcp) fn refusal(error: &(dyn Error + 'static)) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
