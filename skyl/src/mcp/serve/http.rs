//! Serving over streamable HTTP (feature `mcp-http`): a server on a local port, or a tower
//! service for a router of your own, for [`Server::serve_http`] and [`Server::http_service`]
//! (which are written with the server's other options, in `mod.rs`). rmcp speaks the protocol;
//! hyper only accepts the connections; what is here knows of the server only that it is rmcp's
//! `ServerHandler`.

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::ServerHandler;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ProtocolVersion};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize as _;
use tokio::net::TcpListener;

use crate::mcp::error::ServeError;
use crate::mcp::serve::authorization::Authorization;
use crate::mcp::serve::legacy_tasks::wire as legacy_tasks;
use crate::mcp::serve::{jsonrpc, stdio};

/// How a server answers over HTTP (set with [`Server::with_stateless_http`],
/// [`Server::with_authorization`] and [`Server::with_allowed_hosts`]).
#[derive(Clone, Debug, Default)]
pub(in crate::mcp) struct HttpOptions {
    stateless: bool,
    authorization: Option<Authorization>,
    /// `None`: rmcp's loopback names.
    allowed_hosts: Option<Vec<String>>,
}

impl HttpOptions {
    /// Without sessions ([`Server::with_stateless_http`]).
    pub(in crate::mcp) fn stateless(self) -> Self {
        HttpOptions {
            stateless: true,
            ..self
        }
    }

    /// With `hosts` as the names a request's `Host` may be ([`Server::with_allowed_hosts`]).
    pub(in crate::mcp) fn allowing(self, hosts: Vec<String>) -> Self {
        HttpOptions {
            allowed_hosts: Some(hosts),
            ..self
        }
    }

    /// With a bearer token required on every request ([`Server::with_authorization`]).
    pub(in crate::mcp) fn authorized_by(self, authorization: Authorization) -> Self {
        HttpOptions {
            authorization: Some(authorization),
            ..self
        }
    }

    /// Whether a bearer token is required ([`Server::with_authorization`]).
    pub(in crate::mcp) fn authorizes(&self) -> bool {
        self.authorization.is_some()
    }

    /// rmcp's streamable HTTP endpoint for `handler` (a clone of it for each session), with
    /// these options over `config`.
    pub(in crate::mcp) fn service<H: ServerHandler + Clone>(
        &self,
        handler: H,
        config: StreamableHttpServerConfig,
    ) -> StreamableHttpService<H, LocalSessionManager> {
        let config = if self.stateless {
            config
                .with_legacy_session_mode(false)
                .with_json_response(true)
        } else {
            config
        };
        let config = match &self.allowed_hosts {
            Some(hosts) => config.with_allowed_hosts(hosts.iter().cloned()),
            None => config,
        };
        StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }

    /// Serves `handler` on `listener` with these options ([`Server::serve_http`]); a server that
    /// `serves_tasks` takes 2025-11-25's task requests too.
    pub(in crate::mcp) async fn serve<H: ServerHandler + Clone>(
        &self,
        handler: H,
        serves_tasks: bool,
        listener: TcpListener,
    ) -> Result<(), ServeError> {
        let config = StreamableHttpServerConfig::default();
        let _stop_sessions = config.cancellation_token.clone().drop_guard();
        let max_body = config.max_request_body_bytes;
        let authorization = self.authorization.clone().map(Arc::new);
        let service = Arc::new(self.service(handler, config));
        loop {
            let (stream, _) = listener.accept().await?;
            let service = Arc::clone(&service);
            let authorization = authorization.clone();
            tokio::spawn(async move {
                let answer = hyper::service::service_fn(move |request| {
                    let service = Arc::clone(&service);
                    let authorization = authorization.clone();
                    async move {
                        Ok::<_, Infallible>(
                            answer(
                                &service,
                                authorization.as_deref(),
                                max_body,
                                serves_tasks,
                                request,
                            )
                            .await,
                        )
                    }
                });
                // A connection that fails (a client that went away) concerns only that client.
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .serve_connection(TokioIo::new(stream), answer)
                    .await;
            });
        }
    }
}

/// The answer to one HTTP request: the authorization's, or rmcp's with skyl's corrections.
async fn answer<H: ServerHandler + Clone>(
    service: &StreamableHttpService<H, LocalSessionManager>,
    authorization: Option<&Authorization>,
    max_body: usize,
    serves_tasks: bool,
    request: Request<Incoming>,
) -> Response<BoxBody<Bytes, Infallible>> {
    let mut grant = None;
    if let Some(authorization) = authorization {
        let header = request
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        match authorization.check(request.uri().path(), header).await {
            Ok(granted) => grant = Some(granted),
            Err(answer) => return answer,
        }
    }
    if request.method() == Method::DELETE {
        let mut response = service.handle(request).await;
        // rmcp answers a client that ends its session with 202 Accepted; the TypeScript and
        // Python SDKs' servers answer 200, and the Python SDK's client warns on anything but 200
        // or 204.
        if response.status() == StatusCode::ACCEPTED {
            *response.status_mut() = StatusCode::OK;
        }
        return response;
    }
    if request.method() != Method::POST {
        return service.handle(request).await;
    }
    // A message is read whole here, as rmcp would read it (and within its limit), so that a
    // tool's own scopes can be checked and a body rmcp refuses can be answered as JSON-RPC says.
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, max_body).collect().await {
        Ok(body) => body.to_bytes(),
        Err(_) => {
            let refusal = stdio::too_long_answer(max_body);
            return json_response(StatusCode::PAYLOAD_TOO_LARGE, &refusal);
        }
    };
    if let Some(refusal) = removed_method(&parts.headers, &body) {
        return json_response(StatusCode::NOT_FOUND, &refusal);
    }
    if let (Some(authorization), Some(grant)) = (authorization, &grant)
        && authorization.has_tool_scopes()
        && let Some(tool) = called_tool(&body)
        && let Some(refusal) = authorization.check_tool(&tool, grant)
    {
        return refusal;
    }
    // A request of 2025-11-25's tasks, which rmcp does not read (it would run a call asking
    // for a task as a plain call): served under a method of skyl's own, or, by a server
    // without tasks, refused before anything runs.
    let body = match legacy_tasks::renamed_body(&body) {
        Some(renamed) if serves_tasks => Bytes::from(renamed),
        _ => {
            if !serves_tasks && let Some(refusal) = legacy_tasks::refusal(&body) {
                return json_response(StatusCode::OK, &refusal);
            }
            body
        }
    };
    let initializing = serves_tasks && is_initialize(&body);
    let response = service
        .handle(Request::from_parts(parts, Full::new(body.clone())))
        .await;
    if initializing {
        return response.map(with_tasks_capability_in);
    }
    // rmcp answers a body it cannot read as a message 415 Unsupported Media Type, in plain text,
    // even when the media type was right; MCP asks for an HTTP error status and allows a
    // JSON-RPC error response without an id.
    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
        && let Some(refusal) = stdio::refusal(&body)
    {
        return json_response(StatusCode::BAD_REQUEST, &refusal);
    }
    response
}

/// The answer to a request for `initialize` or `logging/setLevel` at a revision without them
/// (2026-07-28 on, by its `MCP-Protocol-Version` header, its `Mcp-Method` header naming the
/// method): JSON-RPC's -32601, with the request's id, sent with 404 as the revision asks of a
/// method a server does not have.
///
/// rmcp answers the other removed methods so itself, but reads these two's params first, and
/// a client of the new revision sends them without the params they took (-32602 would tell it to
/// fix params the method no longer has).
fn removed_method(headers: &HeaderMap, body: &[u8]) -> Option<serde_json::Value> {
    let method = headers.get("mcp-method")?.to_str().ok()?;
    let instead = match method {
        "initialize" => {
            "a client of that revision discovers a server with `server/discover` and sends its \
             protocol version, capabilities and name in each request's `_meta`"
        }
        "logging/setLevel" => {
            "a client of that revision asks for log messages with \
             `io.modelcontextprotocol/logLevel` in each request's `_meta`"
        }
        _ => return None,
    };
    // A revision rmcp does not know is rmcp's to refuse as such.
    let revision = headers.get("mcp-protocol-version")?.to_str().ok()?;
    let revision = ProtocolVersion::deserialize(serde_json::Value::from(revision)).ok()?;
    if revision.has_initialize() || !ProtocolVersion::KNOWN_VERSIONS.contains(&revision) {
        return None;
    }
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<serde_json::Value>,
        method: String,
    }
    // A body whose method is not the header's is rmcp's to refuse first (-32020), as it
    // refuses any other.
    let head: Head = serde_json::from_slice(body).ok()?;
    if head.method != method {
        return None;
    }
    Some(jsonrpc::error_response(
        head.id.unwrap_or(serde_json::Value::Null),
        jsonrpc::METHOD_NOT_FOUND,
        &format!(
            "Method not found: `{method}` is not a method of MCP {revision}, the revision this \
             request names; {instead}"
        ),
    ))
}

/// The tool a `tools/call` calls, read as rmcp reads the message (so that no message reads as a
/// call of one tool here and of another there).
fn called_tool(body: &[u8]) -> Option<String> {
    let message = serde_json::from_slice::<ClientJsonRpcMessage>(body).ok()?;
    match message.into_request()?.0 {
        ClientRequest::CallToolRequest(call) => Some(call.params.name.into_owned()),
        _ => None,
    }
}

/// Whether `body` is an `initialize` request.
fn is_initialize(body: &[u8]) -> bool {
    serde_json::from_slice::<ClientJsonRpcMessage>(body)
        .ok()
        .and_then(ClientJsonRpcMessage::into_request)
        .is_some_and(|(request, _)| matches!(request, ClientRequest::InitializeRequest(_)))
}

/// `body`, the answer to `initialize`, with 2025-11-25's `tasks` capability added to its result.
fn with_tasks_capability_in(body: BoxBody<Bytes, Infallible>) -> BoxBody<Bytes, Infallible> {
    body.map_frame(|frame| frame.map_data(with_tasks_capability))
        .boxed()
}

/// `data`, a piece of the answer to `initialize` (the whole JSON body, or an event of its SSE
/// stream), with 2025-11-25's `tasks` capability added to the result it holds
/// ([`declare_capability`](legacy_tasks::declare_capability)).
fn with_tasks_capability(data: Bytes) -> Bytes {
    let declared = |json: &str| {
        let mut message = serde_json::from_str::<serde_json::Value>(json).ok()?;
        legacy_tasks::declare_capability(message.get_mut("result")?);
        Some(message.to_string())
    };
    let Ok(text) = std::str::from_utf8(&data) else {
        return data;
    };
    if let Some(json) = declared(text) {
        return Bytes::from(json);
    }
    // An SSE event: the message is its `data:` line.
    let mut event = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        match line
            .strip_prefix("data:")
            .and_then(|rest| declared(rest.trim()))
        {
            Some(json) => {
                event.push_str("data: ");
                event.push_str(&json);
                event.push('\n');
            }
            None => event.push_str(line),
        }
    }
    Bytes::from(event)
}

fn json_response(
    status: StatusCode,
    body: &serde_json::Value,
) -> Response<BoxBody<Bytes, Infallible>> {
    Response::builder()
        .status(status)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .expect("a status, a known header and a body make a valid response")
}
