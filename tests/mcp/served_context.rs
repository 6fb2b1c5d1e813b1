//! What a served tool says through its `CallContext` reaches rmcp's real client: progress as
//! `notifications/progress` with the request's token (rmcp's client gives every request one), log lines as `notifications/message` at
//! the level the client set, all before the result; and a client's cancellation cancels the
//! call's context, which a tool still running on another thread sees, and an async tool racing
//! `CallContext::cancelled` cleans up in its grace.

#![allow(deprecated)] // MCP logging: deprecated in rmcp, spoken by clients today.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use skyl::mcp::Server;
use skyl::mcp::rmcp::model::{
    CallToolRequestParams, LoggingLevel, LoggingMessageNotificationParam, NumberOrString,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestMetaObject,
    SetLevelRequestParams,
};
use skyl::mcp::rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, RoleClient,
};
use skyl::mcp::rmcp::{ClientHandler, ServiceExt};
use skyl::{
    Toolbox,
    tool::{CallContext, LogLevel, Progress},
};
use tokio::sync::Notify;

use crate::common::{bounded, call_then_cancel, object};

/// Converts a document, page by page.
#[skyl::tool]
async fn convert(
    /// How many pages.
    pages: u32,
    #[context] call: CallContext,
) -> String {
    call.log(LogLevel::Debug, "opening the document");
    for page in 1..=pages {
        call.progress(
            Progress::new(f64::from(page))
                .with_total(f64::from(pages))
                .with_message(format!("page {page}")),
        );
    }
    call.log(LogLevel::Warning, "page 2 was blank");
    format!("converted {pages} pages")
}

/// Whether the cancellable tool saw its call cancelled, and when it started.
#[derive(Default)]
struct Probe {
    started: Notify,
    saw_cancel: AtomicBool,
    stopped: Notify,
}

/// A probe the blocking tool can reach from its thread.
static PROBE: std::sync::LazyLock<Probe> = std::sync::LazyLock::new(Probe::default);

/// Works until it is cancelled (for at most a minute).
#[skyl::tool(blocking)]
fn work_until_cancelled(#[context] call: CallContext) -> &'static str {
    PROBE.started.notify_one();
    for _ in 0..6000 {
        if call.is_cancelled() {
            PROBE.saw_cancel.store(true, Ordering::SeqCst);
            PROBE.stopped.notify_one();
            return "cancelled";
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    PROBE.stopped.notify_one();
    "never cancelled"
}

/// Signals when the racing tool started, and when its cleanup ran.
static RACE: std::sync::LazyLock<(Notify, Notify)> =
    std::sync::LazyLock::new(|| (Notify::new(), Notify::new()));

/// Holds a seat until the call is cancelled, then gives it back, which takes a moment.
#[skyl::tool]
async fn hold_a_seat(#[context] call: CallContext) -> &'static str {
    RACE.0.notify_one();
    call.cancelled().await;
    // Cleanup that waits for something outside the tool: the runtime's timer.
    tokio::time::sleep(Duration::from_millis(5)).await;
    RACE.1.notify_one();
    "seat given back"
}

/// An rmcp client that keeps the notifications it receives, as JSON.
#[derive(Clone, Default)]
struct Heard(Arc<Mutex<Vec<Value>>>);

impl ClientHandler for Heard {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let notice = json!({"method": "notifications/progress", "params": params});
        self.0.lock().unwrap().push(notice);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let notice = json!({"method": "notifications/message", "params": params});
        self.0.lock().unwrap().push(notice);
    }
}

async fn client() -> (
    skyl::mcp::rmcp::service::RunningService<RoleClient, Heard>,
    Heard,
) {
    let toolbox = Toolbox::new()
        .with(Convert)
        .with(WorkUntilCancelled)
        .with(HoldASeat);
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(toolbox).serve(server_end));
    let heard = Heard::default();
    let client = bounded("the handshake", heard.clone().serve(client_end))
        .await
        .unwrap();
    (client, heard)
}

fn convert_request(progress_token: Option<&str>) -> CallToolRequestParams {
    let mut params =
        CallToolRequestParams::new("convert").with_arguments(object(json!({"pages": 3})));
    if let Some(token) = progress_token {
        let mut meta = RequestMetaObject::new();
        meta.set_progress_token(ProgressToken(NumberOrString::String(token.into())));
        params.meta = Some(meta);
    }
    params
}

#[tokio::test]
async fn progress_and_log_lines_reach_the_client_before_the_result() {
    let (client, heard) = client().await;
    let result = bounded(
        "convert",
        client.peer().call_tool(convert_request(Some("p-1"))),
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::to_value(result).unwrap(),
        json!({"content": [{"type": "text", "text": "converted 3 pages"}], "isError": false})
    );
    // rmcp's client puts a token of its own on every request, in place of the one given: the
    // notices carry the token the request went out with.
    let heard_notices = heard.0.lock().unwrap().clone();
    let token = heard_notices[1]["params"]["progressToken"].clone();
    assert!(!token.is_null(), "{heard_notices:?}");
    let progress = |n: u32| {
        json!({"method": "notifications/progress", "params": {
            "progressToken": token, "progress": f64::from(n), "total": 3.0, "message": format!("page {n}")
        }})
    };
    assert_eq!(
        *heard.0.lock().unwrap(),
        [
            json!({"method": "notifications/message", "params": {
                "level": "debug", "logger": "convert", "data": "opening the document"
            }}),
            progress(1),
            progress(2),
            progress(3),
            json!({"method": "notifications/message", "params": {
                "level": "warning", "logger": "convert", "data": "page 2 was blank"
            }}),
        ]
    );
}

#[tokio::test]
async fn log_lines_below_the_level_the_client_set_are_not_sent() {
    let (client, heard) = client().await;
    bounded(
        "logging/setLevel",
        client
            .peer()
            .set_level(SetLevelRequestParams::new(LoggingLevel::Info)),
    )
    .await
    .unwrap();
    bounded("convert", client.peer().call_tool(convert_request(None)))
        .await
        .unwrap();
    let logged: Vec<Value> = heard
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|notice| notice["method"] == "notifications/message")
        .cloned()
        .collect();
    assert_eq!(
        logged,
        [json!({"method": "notifications/message", "params": {
            "level": "warning", "logger": "convert", "data": "page 2 was blank"
        }})]
    );
}

#[tokio::test]
async fn at_2026_07_28_log_lines_go_only_to_a_request_that_asks_for_them() {
    let toolbox = Toolbox::new().with(Convert);
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(toolbox).serve(server_end));
    let heard = Heard::default();
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = bounded(
        "the discovery",
        heard.clone().serve_with_lifecycle(client_end, lifecycle),
    )
    .await
    .unwrap();
    let logged = || -> Vec<Value> {
        let heard = heard.0.lock().unwrap();
        let lines = heard
            .iter()
            .filter(|notice| notice["method"] == "notifications/message");
        lines.cloned().collect()
    };
    // No `logLevel` in the request's `_meta`: no log line (SEP-2575).
    bounded("convert", client.peer().call_tool(convert_request(None)))
        .await
        .unwrap();
    assert_eq!(logged(), Vec::<Value>::new());
    // `logLevel` info: the lines at info and above.
    let mut request = convert_request(None);
    let mut meta = RequestMetaObject::new();
    meta.set_log_level(LoggingLevel::Info);
    request.meta = Some(meta);
    bounded("convert", client.peer().call_tool(request))
        .await
        .unwrap();
    assert_eq!(
        logged(),
        [json!({"method": "notifications/message", "params": {
            "level": "warning", "logger": "convert", "data": "page 2 was blank"
        }})]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_cancelling_a_call_cancels_the_tools_context() {
    let (client, _heard) = client().await;
    call_then_cancel(&client, "work_until_cancelled", PROBE.started.notified()).await;
    bounded("the tool to stop", PROBE.stopped.notified()).await;
    assert!(PROBE.saw_cancel.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_client_cancelling_a_call_lets_an_async_tool_racing_its_cancellation_clean_up() {
    let (client, _heard) = client().await;
    call_then_cancel(&client, "hold_a_seat", RACE.0.notified()).await;
    bounded("the tool's cleanup", RACE.1.notified()).await;
}
