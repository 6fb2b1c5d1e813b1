//! Helpers for driving MCP peers: bounded waits, an rmcp client, and a recorder of a child's
//! stdout.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::{Value, json};
use skyl::mcp::rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, ClientRequest, InputRequiredResult,
    JsonObject,
};
use skyl::mcp::rmcp::service::{
    Peer, PeerRequestOptions, RoleClient, RunningService, Service, ServiceError,
};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, Command};

/// An rmcp client with no handler of its own.
pub(crate) type Client = RunningService<RoleClient, ()>;

/// How long any one step of a test may take before the test fails instead of hanging. Generous:
/// the machine may be busy compiling; no test asserts how fast anything is.
const STEP: Duration = Duration::from_secs(60);

/// Awaits `future`, failing the test if it takes longer than a minute.
pub(crate) async fn bounded<F: Future>(what: &str, future: F) -> F::Output {
    match tokio::time::timeout(STEP, future).await {
        Ok(output) => output,
        Err(_) => panic!("{what} did not finish within {STEP:?}"),
    }
}

/// The arguments object of a `tools/call`.
pub(crate) fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// Calls a tool and returns the whole result as JSON, or the JSON-RPC error as JSON.
pub(crate) async fn call(client: &Client, name: &str, arguments: Value) -> Value {
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(object(arguments));
    match bounded(name, client.peer().call_tool(params)).await {
        Ok(result) => serde_json::to_value(result).unwrap(),
        Err(ServiceError::McpError(error)) => {
            json!({"error": serde_json::to_value(error).unwrap()})
        }
        Err(other) => panic!("calling {name} failed outside MCP: {other}"),
    }
}

/// Calls `tool` without arguments as a call that can be cancelled, waits for `started` (the tool
/// says it runs), then cancels the call as a user who gave up.
pub(crate) async fn call_then_cancel<H: Service<RoleClient>>(
    client: &RunningService<RoleClient, H>,
    tool: &'static str,
    started: impl Future,
) {
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new(tool)));
    let handle = bounded(
        "sending the call",
        client
            .peer()
            .send_cancellable_request(request, PeerRequestOptions::no_options()),
    )
    .await
    .unwrap();
    bounded("the tool to start", started).await;
    bounded(
        "the cancellation",
        handle.cancel(Some("the user gave up".into())),
    )
    .await
    .unwrap();
}

/// A successful text result as MCP (before 2026-07-28, as rmcp's client negotiates) writes it.
pub(crate) fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

/// A successful structured result: `value` as its JSON text, and as the structured content.
pub(crate) fn structured(value: Value) -> Value {
    json!({
        "content": [{"type": "text", "text": value.to_string()}],
        "structuredContent": value,
        "isError": false
    })
}

/// A failed text result.
pub(crate) fn error(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// A child process of this package's binaries with piped stdin and stdout, whose stdout is
/// recorded as it is read. Its stderr (panic messages) is dropped.
pub(crate) fn start(
    program: &str,
) -> (
    Child,
    Recorder<tokio::process::ChildStdout>,
    tokio::process::ChildStdin,
    Arc<Mutex<Vec<u8>>>,
) {
    let mut child = Command::new(program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("could not start {program}: {error}"));
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorder = Recorder {
        inner: stdout,
        seen: Arc::clone(&seen),
    };
    (child, recorder, stdin, seen)
}

/// Reads from `inner` and keeps a copy of every byte read.
pub(crate) struct Recorder<R> {
    inner: R,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl<R: AsyncRead + Unpin> AsyncRead for Recorder<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = poll {
            let read = buf.filled()[before..].to_vec();
            self.seen.lock().unwrap().extend_from_slice(&read);
        }
        poll
    }
}

/// Sends one HTTP/1.1 request (which should say `connection: close`) to `address` and returns
/// the response's head (status line and headers) and its body, read to the end.
pub(crate) async fn http_exchange(
    address: std::net::SocketAddr,
    request: String,
) -> (String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (format!("{head}\r\n"), body.to_owned())
}

/// An rmcp client at 2026-07-28 (`server/discover`, no handshake) connected to `server`.
pub(crate) async fn modern_client_of<C: skyl::mcp::rmcp::ClientHandler>(
    server: skyl::mcp::Server,
    client: C,
) -> RunningService<RoleClient, C> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(server_end));
    let lifecycle = skyl::mcp::rmcp::service::ClientLifecycleMode::Discover {
        preferred_versions: vec![skyl::mcp::rmcp::model::ProtocolVersion::V_2026_07_28],
    };
    bounded(
        "the discovery",
        skyl::mcp::rmcp::service::ClientServiceExt::serve_with_lifecycle(
            client, client_end, lifecycle,
        ),
    )
    .await
    .unwrap()
}

/// The first round of a call at 2026-07-28 of a tool that asks before it answers: the server's
/// questions, and the request state to send back with the answers.
pub(crate) async fn asked_first(
    client: &Peer<RoleClient>,
    params: CallToolRequestParams,
) -> (InputRequiredResult, String) {
    let first = bounded("the first round", client.call_tool_once(params))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(first) = first else {
        panic!("not asked: {first:?}");
    };
    let state = first.request_state.clone().expect("a request state");
    (first, state)
}

/// A call answered at once (no task, no question), as JSON.
pub(crate) async fn answered_at_once(
    client: &Peer<RoleClient>,
    params: CallToolRequestParams,
) -> Value {
    let answered = bounded("the call", client.call_tool_once(params))
        .await
        .unwrap();
    let CallToolResponse::Complete(result) = answered else {
        panic!("not answered at once: {answered:?}");
    };
    serde_json::to_value(result).unwrap()
}

/// The run, to its end or its pause, of an agent over `remote`'s tools whose model is `model`,
/// on `prompt`.
pub(crate) async fn run_over(
    remote: &skyl::mcp::Remote,
    model: skyl::testing::ScriptedModel,
    prompt: &str,
) -> skyl::agent::Run {
    let agent = skyl::agent::Agent::new(model, skyl::Toolbox::new().with_remote(remote), "m");
    let run = agent.run(vec![skyl::Message::user(prompt)]);
    bounded("the run", std::future::IntoFuture::into_future(run))
        .await
        .unwrap()
}

/// `run` resumed by an agent over `remote`'s tools whose model then says "Done.": answered, its
/// transcript complete.
pub(crate) async fn resumed_over(
    remote: &skyl::mcp::Remote,
    run: skyl::agent::Run,
) -> skyl::agent::Run {
    let model = skyl::testing::ScriptedModel::new().reply_text("Done.");
    let agent = skyl::agent::Agent::new(model, skyl::Toolbox::new().with_remote(remote), "m");
    let run = bounded(
        "the resumed run",
        std::future::IntoFuture::into_future(agent.resume(run)),
    )
    .await
    .unwrap();
    assert_eq!(run.stop(), &skyl::agent::Stop::Answered);
    assert_eq!(run.text(), "Done.");
    skyl::transcript::validate_complete(run.transcript()).unwrap();
    run
}
