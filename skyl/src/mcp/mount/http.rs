//! Mounting over streamable HTTP (feature `mcp-http`): a client for a server's URL, with a
//! bearer token or OAuth. rmcp speaks the protocol; reqwest carries it.

use rmcp::service::ClientInitializeError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::{Remote, RemoteBuilder};
use crate::mcp::error::{Cause, ConnectError};

impl RemoteBuilder {
    /// The access token [`connect_http`](Self::connect_http) sends with every request
    /// (`Authorization: Bearer ...`), for a server that requires one (see
    /// [`Authorization`](crate::mcp::Authorization)); without the `Bearer ` prefix.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Connects to an MCP server's streamable HTTP endpoint, such as
    /// `http://127.0.0.1:8000/mcp`.
    ///
    /// With the `http` feature on, `https://` URLs work with the transport's TLS (rustls on
    /// aws-lc-rs, the system's roots). With `mcp-http` alone skyl enables reqwest without TLS; for an
    /// `https://` URL then, turn on `http` or one of reqwest's TLS features in your own
    /// `Cargo.toml`.
    pub async fn connect_http(self, url: &str) -> Result<Remote, ConnectError> {
        let again = self.clone();
        match self.connect_http_once(url).await {
            // Some servers of 2025 answer every method they do not know, `server/discover`
            // included, with an empty result; over HTTP a new connection costs little, and the
            // older handshake is tried on one.
            Err(ConnectError::Http { source, .. })
                if !again.legacy_only
                    && source
                        .downcast_ref::<ClientInitializeError>()
                        .is_some_and(|error| {
                            matches!(error, ClientInitializeError::ExpectedInitResult(_))
                        }) =>
            {
                let mut again = again;
                again.legacy_only = true;
                again.connect_http_once(url).await
            }
            other => other,
        }
    }

    async fn connect_http_once(self, url: &str) -> Result<Remote, ConnectError> {
        let server = self.name.clone();
        let failed = |source| ConnectError::Http {
            server: server.clone(),
            url: url.to_owned(),
            source,
        };
        let client = http_client(url).map_err(failed)?;
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        if let Some(token) = &self.bearer_token {
            config = config.auth_header(token.clone());
        }
        #[cfg(feature = "mcp-oauth")]
        if let Some(oauth) = self.oauth.clone() {
            use super::oauth::{Authorized, OAuthHttp, Session};
            let http = OAuthHttp::new(|| http_client_builder(url)).map_err(failed)?;
            let session = std::sync::Arc::new(Session::new(url, oauth, http));
            let client = Authorized::new(client, std::sync::Arc::clone(&session));
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let started = self.start(transport, None).await;
            return match session.take_failure() {
                Some(failure) if started.is_err() => Err(ConnectError::Authorization {
                    server,
                    url: url.to_owned(),
                    source: Box::new(failure),
                }),
                _ => http_failure(started, failed),
            };
        }
        let transport = StreamableHttpClientTransport::with_client(client, config);
        http_failure(self.start(transport, None).await, failed)
    }
}

/// A handshake that failed over HTTP is the URL's failure, with the HTTP client's own error.
fn http_failure(
    started: Result<Remote, ConnectError>,
    failed: impl Fn(Cause) -> ConnectError,
) -> Result<Remote, ConnectError> {
    match started {
        Err(ConnectError::Handshake { source, .. }) => Err(failed(transport_cause(source))),
        other => other,
    }
}

/// The HTTP client's own error inside rmcp's handshake error, whose words name rmcp's internal
/// types (its transport worker's generic type), which tell a user nothing.
fn transport_cause(error: Cause) -> Cause {
    match error.downcast::<ClientInitializeError>() {
        Ok(error) => match *error {
            ClientInitializeError::TransportError { error, .. } => error.error,
            // The server did not speak 2026-07-28, nor the older handshake tried after it: the
            // second failure says what is wrong with the URL.
            ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
                transport_cause(fallback)
            }
            other => Box::new(other),
        },
        Err(other) => other,
    }
}

/// The client for a server's URL. rmcp's own default (`reqwest::Client::new`) panics when the
/// `http` feature has turned on reqwest's rustls without a process-wide crypto provider, so the
/// client is built here, on the transport's TLS when there is one.
fn http_client(url: &str) -> Result<reqwest::Client, Cause> {
    Ok(http_client_builder(url)?.build()?)
}

fn http_client_builder(url: &str) -> Result<reqwest::ClientBuilder, Cause> {
    #[cfg(feature = "http")]
    let builder = crate::tls::client_builder(url.starts_with("https://"))?;
    #[cfg(not(feature = "http"))]
    let builder = {
        let _ = url;
        reqwest::Client::builder()
    };
    Ok(builder)
}
