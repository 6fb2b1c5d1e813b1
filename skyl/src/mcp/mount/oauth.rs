//! OAuth 2.1 for the servers a [`Remote`](crate::mcp::Remote) mounts over HTTP (feature `mcp-oauth`),
//! as MCP's authorization section asks of a client: the server's 401 names its protected-resource
//! metadata, which names the authorization server; skyl registers there (or uses a client it is
//! given), gets a token (a person's authorization with PKCE, or the client's own credentials),
//! and asks again with more scopes when the server answers 403 `insufficient_scope`.
//!
//! The protocol is rmcp's OAuth client: discovery with the 2025-03-26 fallbacks, dynamic client
//! registration, client ID metadata documents, scope selection, PKCE, refresh. skyl wraps it
//! around the transport's HTTP client, so that a 401 or 403 on any request (the handshake, a
//! listing, a call) leads to authorization and then to the request again.
//!
//! This file holds what an application sets ([`OAuth`], [`Authorize`]); `session.rs` gets and
//! renews a connection's tokens with rmcp, and says why it could not; `clients.rs` wraps the
//! transport's HTTP client, and `exchanges.rs` is the one of the OAuth exchanges.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::mcp::error::Cause;

pub(in crate::mcp) mod clients;
pub(in crate::mcp) mod exchanges;
pub(in crate::mcp) mod session;

/// How many times one request may lead to authorization before skyl gives up, unless
/// [`OAuth::max_authorizations`] says otherwise.
const DEFAULT_MAX_AUTHORIZATIONS: u32 = 3;

/// The client name skyl registers under, unless [`OAuth::client_name`] says otherwise.
const DEFAULT_CLIENT_NAME: &str = "skyl";

/// How [`connect_http`](crate::mcp::RemoteBuilder::connect_http) gets access tokens for an MCP
/// server that requires OAuth 2.1 (set with
/// [`RemoteBuilder::oauth`](crate::mcp::RemoteBuilder::oauth)).
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

#[cfg(test)]
mod tests {
    use crate::mcp::mount::oauth::OAuth;

    #[test]
    fn the_debug_form_leaves_the_client_secret_out() {
        let oauth = OAuth::client_credentials("machine", "s3cret").scopes(["tools"]);
        assert_eq!(
            format!("{oauth:?}"),
            "OAuth { flow: \"client_credentials\", client_id: Some(\"machine\"), client_secret: Some(\"<redacted>\"), client_metadata_url: None, client_name: \"skyl\", scopes: [\"tools\"], max_authorizations: 3 }"
        );
    }
}
