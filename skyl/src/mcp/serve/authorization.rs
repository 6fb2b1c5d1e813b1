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
/// [`Server::with_authorization`](crate::mcp::Server::with_authorization).
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
/// - a `tools/call` of a tool that needs scopes of its own
///   ([`require_tool_scopes`](Self::require_tool_scopes)) by a token without them is answered the
///   same 403, naming the scopes that call needs, so that the client asks for them and calls
///   again (MCP's step-up authorization);
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
/// .require_scopes(["tools:call"])
/// .require_tool_scopes("delete_file", ["files:write"]);
/// # let _ = authorization;
/// ```
#[derive(Clone)]
pub struct Authorization {
    resource: String,
    authorization_servers: Vec<String>,
    required_scopes: Vec<String>,
    /// Each tool that needs scopes of its own, with them, in the order they were given.
    tool_scopes: Vec<(String, Vec<String>)>,
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
            tool_scopes: Vec::new(),
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

    /// The scopes a token must have, beside those every request needs, to call the tool named
    /// `tool` (as `tools/list` shows it); calling again for the same tool replaces its scopes.
    ///
    /// A `tools/call` of it by a token without them is answered 403 with an
    /// `insufficient_scope` challenge naming the scopes that call needs (every request's and the
    /// tool's), as MCP's authorization section says for step-up authorization: the client asks
    /// the authorization server for them and calls again. `tools/list` still lists the tool to
    /// every token, since a client that never saw it could never ask for its scope; the metadata
    /// document's `scopes_supported` lists the tools' scopes beside the required ones.
    pub fn require_tool_scopes(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let tool = tool.into();
        let scopes = scopes.into_iter().map(Into::into).collect();
        self.tool_scopes.retain(|(name, _)| *name != tool);
        self.tool_scopes.push((tool, scopes));
        self
    }

    /// Whether some tool needs scopes of its own, so that a `tools/call` must be looked into.
    pub(in crate::mcp) fn has_tool_scopes(&self) -> bool {
        !self.tool_scopes.is_empty()
    }

    /// The scopes a call of `tool` needs that `grant` lacks, with all the scopes the call needs
    /// (every request's, then the tool's), or `None` if it has them all.
    fn missing_for(&self, tool: &str, grant: &Grant) -> Option<Vec<String>> {
        let (_, own) = self.tool_scopes.iter().find(|(name, _)| name == tool)?;
        if own.iter().all(|scope| grant.scopes.contains(scope)) {
            return None;
        }
        let mut needed = self.required_scopes.clone();
        for scope in own {
            if !needed.contains(scope) {
                needed.push(scope.clone());
            }
        }
        Some(needed)
    }

    /// The refusal of a `tools/call` of `tool` with a token granting `grant`, if the tool needs
    /// a scope the token lacks.
    pub(in crate::mcp) fn check_tool(
        &self,
        tool: &str,
        grant: &Grant,
    ) -> Option<Response<BoxBody<Bytes, Infallible>>> {
        let needed = self.missing_for(tool, grant)?;
        Some(self.challenge(
            StatusCode::FORBIDDEN,
            &needed,
            Some((
                "insufficient_scope",
                // No quotes: RFC 6750 keeps `"` and `\` out of error_description. A tool's name
                // is letters, digits, `_` and `-`.
                &format!("the access token lacks a scope the tool {tool} requires"),
            )),
        ))
    }

    /// Every scope a client may be asked for: the required ones, then the tools'.
    fn scopes_supported(&self) -> Vec<&String> {
        let mut scopes: Vec<&String> = self.required_scopes.iter().collect();
        for scope in self.tool_scopes.iter().flat_map(|(_, scopes)| scopes) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        scopes
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

    /// The answer to a request for `path` carrying the `Authorization` header `header`: `Ok`
    /// with what the token grants lets the request through to MCP, `Err` is the answer instead
    /// (the metadata document, or a refusal).
    pub(in crate::mcp) async fn check(
        &self,
        path: &str,
        header: Option<&str>,
    ) -> Result<Grant, Response<BoxBody<Bytes, Infallible>>> {
        if self.is_metadata_path(path) {
            return Err(self.metadata());
        }
        let token = header.and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        let Some(token) = token.filter(|token| !token.is_empty()) else {
            return Err(self.challenge(StatusCode::UNAUTHORIZED, &self.required_scopes, None));
        };
        let Some(grant) = (self.verify)(token.to_owned()).await else {
            return Err(self.challenge(
                StatusCode::UNAUTHORIZED,
                &self.required_scopes,
                Some(("invalid_token", "the access token is not valid")),
            ));
        };
        let has_all = self
            .required_scopes
            .iter()
            .all(|scope| grant.scopes.contains(scope));
        if has_all {
            Ok(grant)
        } else {
            Err(self.challenge(
                StatusCode::FORBIDDEN,
                &self.required_scopes,
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
        let scopes = self.scopes_supported();
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        respond(
            StatusCode::OK,
            None,
            "application/json",
            document.to_string(),
        )
    }

    /// A refusal with its `WWW-Authenticate: Bearer` challenge (RFC 6750, section 3), naming
    /// the `scopes` the refused request needs.
    fn challenge(
        &self,
        status: StatusCode,
        scopes: &[String],
        error: Option<(&str, &str)>,
    ) -> Response<BoxBody<Bytes, Infallible>> {
        let mut challenge = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        if !scopes.is_empty() {
            challenge.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
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
            .field("tool_scopes", &self.tool_scopes)
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
