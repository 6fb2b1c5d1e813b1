//! 2025-11-25's tasks on the wire: which requests the transports rename to methods of skyl's
//! own ([`rename`], read back by [`Renamed::of`]), the capability an `initialize` result
//! declares, and how a task is written.

use rmcp::model::{CustomRequest, InputRequests, Task};
use serde_json::{Map, Value, json};

#[cfg(feature = "mcp-http")]
use crate::mcp::serve::jsonrpc;
#[cfg(feature = "mcp-http")]
use crate::prose::mcp as prose;

/// How the id of a task created by a `tools/call` of 2025-11-25 begins.
pub(in crate::mcp) const ID_PREFIX: &str = "mcp2025-";

/// The methods the transports rename the requests of 2025-11-25's tasks to.
const CALL: &str = "skyl/2025-11-25/tools/call";
const GET: &str = "skyl/2025-11-25/tasks/get";
const RESULT: &str = "skyl/2025-11-25/tasks/result";
const CANCEL: &str = "skyl/2025-11-25/tasks/cancel";
const LIST_TOOLS: &str = "skyl/2025-11-25/tools/list";
const LIST: &str = "skyl/2025-11-25/tasks/list";

/// A request of 2025-11-25's tasks, under the method [`rename`] gave it.
pub(in crate::mcp) enum Renamed<'a> {
    /// A `tools/call` with a `task` parameter, and its params.
    Call(Option<&'a Value>),
    /// `tasks/get` of the task of this id.
    Get(String),
    /// `tasks/result` of the task of this id.
    Result(String),
    /// `tasks/cancel` of the task of this id.
    Cancel(String),
    /// `tools/list` before 2026-07-28.
    ListTools,
    /// `tasks/list`, and its params.
    List(Option<&'a Value>),
}

impl<'a> Renamed<'a> {
    /// What `request` asks, if [`rename`] renamed it; `None` for any other.
    pub(in crate::mcp) fn of(request: &'a CustomRequest) -> Option<Self> {
        let params = request.params.as_ref();
        let task_id = || {
            params
                .and_then(|params| params.get("taskId"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Some(match request.method.as_str() {
            CALL => Renamed::Call(params),
            GET => Renamed::Get(task_id()),
            RESULT => Renamed::Result(task_id()),
            CANCEL => Renamed::Cancel(task_id()),
            LIST_TOOLS => Renamed::ListTools,
            LIST => Renamed::List(params),
            _ => return None,
        })
    }
}

/// Renames `message` to skyl's own method if it is a request of 2025-11-25's tasks: a
/// `tools/call` with a `task` parameter (unless the request says it is of 2026-07-28 or later,
/// whose tasks extension ignores that parameter), or a `tasks/get`, `tasks/result` or
/// `tasks/cancel` of a task such a call created; or a `tools/list` before 2026-07-28, whose
/// tools say their task support (`execution`), a field rmcp's `Tool` does not have. Whether it
/// renamed it.
pub(in crate::mcp) fn rename(message: &mut Map<String, Value>) -> bool {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return false;
    };
    let params = message.get("params");
    let renamed = match method {
        "tools/call" if asks_task(params) => CALL,
        "tools/list" if before_2026(params) => LIST_TOOLS,
        "tasks/list" if before_2026(params) => LIST,
        "tasks/get" if created_here(params) => GET,
        "tasks/result" if created_here(params) => RESULT,
        "tasks/cancel" if created_here(params) => CANCEL,
        _ => return false,
    };
    message.insert("method".to_owned(), Value::from(renamed));
    true
}

/// [`rename`] on a whole message received over HTTP: the body to give rmcp instead, if renamed.
#[cfg(feature = "mcp-http")]
pub(in crate::mcp) fn renamed_body(body: &[u8]) -> Option<Vec<u8>> {
    let Ok(Value::Object(mut message)) = serde_json::from_slice(body) else {
        return None;
    };
    rename(&mut message)
        .then(|| serde_json::to_vec(&message).ok())
        .flatten()
}

/// The answer a server that serves no tasks gives `body`, a whole message received over HTTP,
/// if it is a `tools/call` asking for a task of 2025-11-25: JSON-RPC's -32601, as that revision
/// asks of a server whose tool does not support tasks, before anything runs (rmcp would run it
/// as a plain call, and need a session first).
#[cfg(feature = "mcp-http")]
pub(in crate::mcp) fn refusal(body: &[u8]) -> Option<Value> {
    let Ok(Value::Object(message)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    let params = message.get("params");
    if message.get("method").and_then(Value::as_str) != Some("tools/call") || !asks_task(params) {
        return None;
    }
    let tool = params
        .and_then(|params| params.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("the tool");
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
        .unwrap_or(Value::Null);
    let refused = prose::task_parameter_refused(tool);
    Some(jsonrpc::error_response(
        id,
        jsonrpc::METHOD_NOT_FOUND,
        &refused,
    ))
}

/// Whether a `tools/call`'s `params` ask for a task of 2025-11-25.
fn asks_task(params: Option<&Value>) -> bool {
    let Some(params) = params else {
        return false;
    };
    if params.get("task").is_none_or(Value::is_null) {
        return false;
    }
    before_2026(Some(params))
}

/// Whether a request with `params` is of a revision before 2026-07-28: one of 2026-07-28 or
/// later names its revision in `_meta`.
fn before_2026(params: Option<&Value>) -> bool {
    let revision = params
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str);
    revision.is_none_or(|revision| revision < "2026-07-28")
}

/// Whether `params` name a task a `tools/call` of 2025-11-25 created.
fn created_here(params: Option<&Value>) -> bool {
    params
        .and_then(|params| params.get("taskId"))
        .and_then(Value::as_str)
        .is_some_and(created_so)
}

/// Whether the task `id` was created by a `tools/call` of 2025-11-25.
pub(in crate::mcp) fn created_so(id: &str) -> bool {
    id.starts_with(ID_PREFIX)
}

/// Adds 2025-11-25's `tasks` server capability to `result`, an `initialize` result, when it
/// was negotiated at that revision by a server that serves tasks (one that declares the tasks
/// extension, as [`Server::with_task_journal`](crate::mcp::Server::with_task_journal) has it
/// do): tasks listed, cancelled, and made by `tools/call`, the only request skyl runs as a task. rmcp's `ServerCapabilities` has no such
/// field, so the transports add it to the result as written (stdio's writer, the HTTP server's
/// answer). At 2026-07-28 the extension alone declares tasks.
pub(in crate::mcp) fn declare_capability(result: &mut Value) {
    if result.get("protocolVersion").and_then(Value::as_str) != Some("2025-11-25") {
        return;
    }
    let Some(Value::Object(capabilities)) = result.get_mut("capabilities") else {
        return;
    };
    let serves_tasks = capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(rmcp::model::TASKS_EXTENSION_ID))
        .is_some();
    if serves_tasks {
        let tasks = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        capabilities.insert("tasks".to_owned(), tasks);
    }
}

/// The notification 2025-11-25 tells a task's new status with, its params the task
/// ([`shape`]).
pub(in crate::mcp) const STATUS_NOTIFICATION: &str = "notifications/tasks/status";

/// The questions `asked` of task `id`, each saying in its `_meta` which task it is for
/// (`io.modelcontextprotocol/related-task`), as 2025-11-25 asks of a request about a task.
pub(in crate::mcp) fn related(asked: InputRequests, id: &str) -> InputRequests {
    asked
        .into_iter()
        .map(|(key, question)| {
            let mut value = serde_json::to_value(&question).unwrap_or_default();
            if let Some(params) = value.get_mut("params").and_then(Value::as_object_mut) {
                let meta = params
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert(
                        "io.modelcontextprotocol/related-task".to_owned(),
                        json!({"taskId": id}),
                    );
                }
            }
            (key, serde_json::from_value(value).unwrap_or(question))
        })
        .collect()
}

/// `task` as 2025-11-25 writes a task: `ttl` and `pollInterval`, not the extension's `ttlMs`
/// and `pollIntervalMs`, and no result inlined.
pub(in crate::mcp) fn shape(task: &Task) -> Value {
    let mut shaped = json!({
        "taskId": task.task_id,
        "status": task.status,
        "createdAt": task.created_at,
        "lastUpdatedAt": task.last_updated_at,
        "ttl": task.ttl_ms,
    });
    if let Some(interval) = task.poll_interval_ms {
        shaped["pollInterval"] = Value::from(interval);
    }
    if let Some(message) = &task.status_message {
        shaped["statusMessage"] = Value::from(message.as_str());
    }
    shaped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(message) => message,
            _ => unreachable!(),
        }
    }

    #[test]
    fn only_the_requests_of_2025_11_25s_tasks_are_renamed() {
        let mut call = message(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "charge", "task": {"ttl": 60000}}}),
        );
        assert!(rename(&mut call));
        assert_eq!(call["method"], CALL);
        for (method, id) in [
            ("tasks/get", GET),
            ("tasks/result", RESULT),
            ("tasks/cancel", CANCEL),
        ] {
            let mut request = message(
                json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {"taskId": "mcp2025-ab"}}),
            );
            assert!(rename(&mut request), "{method}");
            assert_eq!(request["method"], id);
            // A task of the extension's is the extension's.
            let mut request = message(
                json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {"taskId": "ab"}}),
            );
            assert!(!rename(&mut request), "{method}");
        }
        let mut list = message(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}));
        assert!(rename(&mut list));
        assert_eq!(list["method"], LIST_TOOLS);
        let modern_list = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        }});
        assert!(!rename(&mut message(modern_list)));
        let plain = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "charge"}});
        assert!(!rename(&mut message(plain)));
        let modern = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "charge",
            "task": {"ttl": 60000},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        }});
        assert!(!rename(&mut message(modern)));
    }
}
