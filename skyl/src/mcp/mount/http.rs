//! Mounting over streamable HTTP (feature `mcp-http`): the client for a server's URL, with a
//! bearer token or OAuth, and what its failures become, for
//! [`RemoteBuilder::connect_http`](crate::mcp::RemoteBuilder::connect_http). rmcp speaks the
//! protocol; reqwest carries it.

#[cfg(feature = "mcp-oauth")]
use std::sync::Arc;

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::mcp::error::{Cause, ConnectError};
#[cfg(feature = "mcp-oauth")]
use crate::mcp::mount::oauth::OAuth;
#[cfg(feature = "mcp-oauth")]
use crate::mcp::mount::oauth::clients::Authorized;
#[cfg(feature = "mcp-oauth")]
use crate::mcp::mount::oauth::exchanges::OAuthHttp;
#[cfg(feature = "mcp-oauth")]
use crate::mcp::mount::oauth::session::Session;

/// Whether a handshake over HTTP failed as one with a server of 2025 that answers every method
/// it does not know, `server/discover` included, with an empty result: over HTTP a new
/// connection costs little, and the older handshake is tried on one.
pub(in crate::mcp) fn misread_discovery(error: &ConnectError) -> bool {
    let ConnectError::Http { source, .. } = error else {
        return false;
    };
    source
        .downcast_ref::<ClientInitializeError>()
        .is_some_and(|error| matches!(error, ClientInitializeError::ExpectedInitResult(_)))
}

/// The failure to reach `url`, the server `server`'s, with the HTTP client's error.
pub(in crate::mcp) fn failed(server: &str, url: &str, source: Cause) -> ConnectError {
    ConnectError::Http {
        server: server.to_owned(),
        url: url.to_owned(),
        source,
    }
}

/// The HTTP client for `url`, and the transport's settings: the URL, and the `bearer_token`
/// sent with every request when there is one.
pub(in crate::mcp) fn client_for(
    url: &str,
    bearer_token: Option<&str>,
) -> Result<(reqwest::Client, StreamableHttpClientTransportConfig), Cause> {
    let client = http_client(url)?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = bearer_token {
        config = config.auth_header(token.to_owned());
    }
    Ok((client, config))
}

/// `client` getting its tokens with `oauth` for `url`, and the session that keeps them (and
/// says why it could not get one).
#[cfg(feature = "mcp-oauth")]
pub(in crate::mcp) fn authorized(
    client: reqwest::Client,
    url: &str,
    oauth: OAuth,
) -> Result<(Authorized, Arc<Session>), Cause> {
    let http = OAuthHttp::new(|| http_client_builder(url))?;
    let session = Arc::new(Session::new(url, oauth, http));
    Ok((Authorized::new(client, Arc::clone(&session)), session))
}

/// What a connection over HTTP whose tokens `session` got came to: when it failed and the
/// session could not authorize, the authorization's failure; else as [`outcome`] says.
#[cfg(feature = "mcp-oauth")]
pub(in crate::mcp) fn authorized_outcome<T>(
    started: Result<T, ConnectError>,
    session: &Session,
    server: &str,
    url: &str,
) -> Result<T, ConnectError> {
    match session.take_failure() {
        Some(failure) if started.is_err() => Err(ConnectError::Authorization {
            server: server.to_owned(),
            url: url.to_owned(),
            source: Box::new(failure),
        }),
        _ => outcome(started, server, url),
    }
}

/// What a connection over HTTP to the server `server` at `url` came to: a handshake that failed
/// is the URL's failure, with the HTTP client's own error.
pub(in crate::mcp) fn outcome<T>(
    started: Result<T, ConnectError>,
    server: &str,
    url: &str,
) -> Result<T, ConnectError> {
    match started {
        Err(ConnectError::Handshake { source, .. }) => {
            Err(failed(server, url, transport_cause(source)))
        }
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
