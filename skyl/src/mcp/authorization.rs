//! Who may call a server over HTTP: bearer tokens, checked as MCP's authorization section asks
//! of a resource server (OAuth 2.0 Protected Resource Metadata, RFC 9728, and the bearer
//! challenges of RFC 6750).

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::{Response, StatusCode};
use serde_json::json;

/// The bearer tokens an HTTP server accepts, for
/// [`Server::with_authorization`](super::Server::with_authorization).
///
/// skyl is the resource server of MCP's authorization section: an authorization server you run
/// or use (Keycloak, Auth0, your identity provider) issues the tokens, and the verifier you give
/// here says whether a token is valid and what it grants: a JWT's signature and claims, or the
/// authorization server's introspection endpoint. Then:
///
/// - a request without a token is answered 401 with a `WWW-Authenticate: Bearer` challenge
///   naming the protected-resource metadata document, which a client (rmcp's, the TypeScript
///   SDK's, Claude's) reads to find the authorization server and start OAuth;
/// - a token the verifier refuses is answered 401 with `error="invalid_token"`;
/// - a valid token without every required scope is answered 403 with `error="insufficient_scope"`
///   and the scopes to ask for;
/// - the metadata document is served at `/.well-known/oauth-protected-resource` (and, for a
///   resource with a path such as `/mcp`, at `/.well-known/oauth-protected-resource/mcp`).
///
/// ```
/// use skyl::mcp::{Authorization, Grant};
///
/// let authorization = Authorization::bearer(
///     "https://tools.example.com/mcp",
///     "https://auth.example.com",
///     |token: String| async move {
///         // Check the token's signature and claims, or ask the authorization server.
///         (token == "let-me-in").then(|| Grant::new(["tools:call"]))
///     },
/// )
/// .require_scopes(["tools:call"]);
/// # let _ = authorization;
/// ```
#[derive(Clone)]
pub struct Authorization {
    resource: String,
    authorization_servers: Vec<String>,
    required_scopes: Vec<String>,
    verify: Arc<Verify>,
}

type Verify = dyn Fn(String) -> Pin<Box<dyn Future<Output = Option<Grant>> + Send>> + Send + Sync;

/// What a valid token grants: its scopes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Grant {
    /// The scopes the token was issued with.
    pub scopes: Vec<String>,
}

impl Grant {
    /// A grant of `scopes`.
    pub fn new(scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Grant {
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }
}

impl Authorization {
    /// Bearer tokens for the server whose URL is `resource` (its canonical URI, as clients
    /// connect to it, such as `https://tools.example.com/mcp`), issued by
    /// `authorization_server`, and checked by `verify`: `Some` with what a token grants, `None`
    /// for a token that is not valid (unknown, expired, for another resource).
    pub fn bearer<F, Fut>(
        resource: impl Into<String>,
        authorization_server: impl Into<String>,
        verify: F,
    ) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Option<Grant>> + Send + 'static,
    {
        Authorization {
            resource: resource.into(),
            authorization_servers: vec![authorization_server.into()],
            required_scopes: Vec::new(),
            verify: Arc::new(move |token| Box::pin(verify(token))),
        }
    }

    /// The scopes every request's token must have (none unless set). They are listed as
    /// `scopes_supported` in the metadata document and named in the challenges, so that a
    /// client asks for them.
    pub fn require_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The URL of the protected-resource metadata document: the `/.well-known/` path inserted
    /// between the resource's origin and its path (RFC 9728, section 3.1).
    fn metadata_url(&self) -> String {
        let (origin, path) = split_origin(&self.resource);
        format!("{origin}/.well-known/oauth-protected-resource{path}")
    }

    /// Whether `path` is one the metadata document is served at.
    fn is_metadata_path(&self, path: &str) -> bool {
        let (_, resource_path) = split_origin(&self.resource);
        path == "/.well-known/oauth-protected-resource"
            || path == format!("/.well-known/oauth-protected-resource{resource_path}")
    }

    /// The answer to a request for `path` carrying the `Authorization` header `header`: `None`
    /// lets the request through to MCP, `Some` is the answer instead (the metadata document, or
    /// a refusal).
    pub(super) async fn check(
        &self,
        path: &str,
        header: Option<&str>,
    ) -> Option<Response<BoxBody<Bytes, Infallible>>> {
        if self.is_metadata_path(path) {
            return Some(self.metadata());
        }
        let token = header.and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        let Some(token) = token.filter(|token| !token.is_empty()) else {
            return Some(self.challenge(StatusCode::UNAUTHORIZED, None));
        };
        let Some(grant) = (self.verify)(token.to_owned()).await else {
            return Some(self.challenge(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", "the access token is not valid")),
            ));
        };
        let has_all = self
            .required_scopes
            .iter()
            .all(|scope| grant.scopes.contains(scope));
        if has_all {
            None
        } else {
            Some(self.challenge(
                StatusCode::FORBIDDEN,
                Some((
                    "insufficient_scope",
                    "the access token lacks a scope this server requires",
                )),
            ))
        }
    }

    fn metadata(&self) -> Response<BoxBody<Bytes, Infallible>> {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.required_scopes.is_empty() {
            document["scopes_supported"] = json!(self.required_scopes);
        }
        respond(
            StatusCode::OK,
            None,
            "application/json",
            document.to_string(),
        )
    }

    /// A refusal with its `WWW-Authenticate: Bearer` challenge (RFC 6750, section 3).
    fn challenge(
        &self,
        status: StatusCode,
        error: Option<(&str, &str)>,
    ) -> Response<BoxBody<Bytes, Infallible>> {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        if !self.required_scopes.is_empty() {
            challenge.push_str(&format!(", scope=\"{}\"", self.required_scopes.join(" ")));
        }
        let body = match error {
            Some((code, description)) => {
                challenge.push_str(&format!(
                    ", error=\"{code}\", error_description=\"{description}\""
                ));
                json!({"error": code, "error_description": description})
            }
            None => json!({
                "error": "invalid_request",
                "error_description": "this MCP server needs an access token (Authorization: Bearer)"
            }),
        };
        respond(
            status,
            Some(challenge),
            "application/json",
            body.to_string(),
        )
    }
}

impl fmt::Debug for Authorization {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

/// `https://host:port` and the rest (`/mcp`, or empty) of a URL.
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |at| at + 3);
    match url[after_scheme..].find('/') {
        Some(at) => {
            let (origin, path) = url.split_at(after_scheme + at);
            (origin, path.trim_end_matches('/'))
        }
        None => (url, ""),
    }
}

fn respond(
    status: StatusCode,
    challenge: Option<String>,
    content_type: &str,
    body: String,
) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::builder()
        .status(status)
        .header("content-type", content_type);
    if let Some(challenge) = challenge {
        response = response.header("www-authenticate", challenge);
    }
    response
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("a status, two known headers and a body make a valid response")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_document_sits_before_the_resources_path() {
        let at = |resource: &str| {
            Authorization::bearer(resource, "https://auth.example.com", |_| async { None })
                .metadata_url()
        };
        assert_eq!(
            at("https://tools.example.com/mcp"),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            at("http://127.0.0.1:8000"),
            "http://127.0.0.1:8000/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            at("http://127.0.0.1:8000/"),
            "http://127.0.0.1:8000/.well-known/oauth-protected-resource"
        );
    }
}
