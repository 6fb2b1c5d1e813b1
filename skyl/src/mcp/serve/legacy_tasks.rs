//! Tasks of MCP 2025-11-25 (the `task` parameter of `tools/call`, `tasks/get`, `tasks/result`,
//! `tasks/cancel`), served from the journal of the tasks extension's.
//!
//! rmcp models only the tasks extension (SEP-2663): it drops a `tools/call`'s `task` parameter
//! (the call would run as a plain one while the client waits for a task), does not know
//! `tasks/result`, and answers `tasks/get` in the extension's shape. So the transports rename
//! those requests ([`rename`]: stdio's reader, and the HTTP server before rmcp reads the body) to
//! methods of skyl's own, which rmcp hands to `on_custom_request`, answered here in 2025-11-25's
//! shapes. A task created so has an id beginning with [`ID_PREFIX`], by which its `tasks/get`,
//! `tasks/result` and `tasks/cancel` are told from the extension's; the extension's requests go
//! to rmcp unchanged.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CustomRequest, CustomResult, ErrorCode, InputRequests, InputResponses,
    Task, TaskPayload,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use super::{Server, approved};
#[cfg(feature = "mcp-http")]
use crate::mcp::serve::jsonrpc;
use crate::message::ToolCall;
use crate::prose::mcp as prose;

/// How the id of a task created by a `tools/call` of 2025-11-25 begins.
const ID_PREFIX: &str = "mcp2025-";

/// The methods the transports rename the requests of 2025-11-25's tasks to.
const CALL: &str = "skyl/2025-11-25/tools/call";
const GET: &str = "skyl/2025-11-25/tasks/get";
const RESULT: &str = "skyl/2025-11-25/tasks/result";
const CANCEL: &str = "skyl/2025-11-25/tasks/cancel";
const LIST_TOOLS: &str = "skyl/2025-11-25/tools/list";
const LIST: &str = "skyl/2025-11-25/tasks/list";

/// How many tasks one page of `tasks/list` holds.
const PAGE: usize = 50;

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
/// extension, as [`Server::with_task_journal`] has it do): tasks listed, cancelled, and made by
/// `tools/call`, the only request skyl runs as a task. rmcp's `ServerCapabilities` has no such
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

impl<S: Send + Sync + 'static> Server<S> {
    /// The answer to `request` if it is one [`rename`] renamed; `None` for any other.
    pub(super) async fn legacy_task_request(
        &self,
        request: &CustomRequest,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        let params = request.params.as_ref();
        let task_id = || {
            params
                .and_then(|params| params.get("taskId"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Some(match request.method.as_str() {
            CALL => self.legacy_call(params, context).await,
            GET => self.legacy_get(&task_id()).await,
            RESULT => self.legacy_result(&task_id(), context).await,
            CANCEL => self.legacy_cancel(&task_id()).await,
            LIST_TOOLS => Ok(self.legacy_tools_listed()),
            LIST => self.legacy_list(params).await,
            _ => return None,
        })
    }

    /// A `tools/call` with a `task` parameter: the call made a task, answered with 2025-11-25's
    /// `CreateTaskResult` (`{"task": ...}`), or refused before anything runs.
    async fn legacy_call(
        &self,
        params: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let request: CallToolRequestParams =
            serde_json::from_value(params.cloned().unwrap_or_default()).map_err(|error| {
                ErrorData::invalid_params(format!("Invalid params for `tools/call`: {error}"), None)
            })?;
        let Some(tasks) = &self.tasks else {
            let refused = prose::task_parameter_refused(&request.name);
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, refused, None));
        };
        let (Some(&structured), Some(definition)) = (
            self.tools.structured.get(request.name.as_ref()),
            self.tools.toolbox.definition(&request.name),
        ) else {
            let prose = crate::prose::unknown_tool(&request.name, self.tools.toolbox.names());
            return Err(ErrorData::new(ErrorCode::INVALID_PARAMS, prose, None));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(context.id.to_string(), request.name, arguments);
        // Approved first, during the call, as a plain call of this revision is.
        if (self.tools.needs_approval)(&call, definition)
            && let Err(refused) = approved(&call, context).await
        {
            return Err(ErrorData::new(ErrorCode::INVALID_REQUEST, refused, None));
        }
        let answers = match self
            .before_task(&call, context, InputResponses::new(), false)
            .await?
        {
            Ok(answers) => answers,
            Err(answered) => {
                let result = match answered {
                    rmcp::model::CallToolResponse::Complete(result) => {
                        serde_json::to_value(result).unwrap_or_default()
                    }
                    _ => Value::Null,
                };
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                return Err(ErrorData::new(
                    ErrorCode::INVALID_REQUEST,
                    text.to_owned(),
                    None,
                ));
            }
        };
        let task = self
            .create_task(
                tasks, &call, definition, structured, answers, context, ID_PREFIX,
            )
            .await?;
        Ok(CustomResult(json!({"task": shape(&task)})))
    }

    /// `tasks/list`: the tasks created in 2025-11-25's form, oldest first, in pages of
    /// [`PAGE`] (`nextCursor` says where the next one begins).
    async fn legacy_list(&self, params: Option<&Value>) -> Result<CustomResult, ErrorData> {
        // A server without a journal has no tasks to list, as one without the method.
        let Some(tasks) = &self.tasks else {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "tasks/list: this server serves no tasks",
                None,
            ));
        };
        let cursor = params.and_then(|params| params.get("cursor"));
        let after = match cursor {
            None | Some(Value::Null) => 0,
            Some(cursor) => cursor
                .as_str()
                .and_then(|cursor| cursor.parse().ok())
                .ok_or_else(|| {
                    ErrorData::invalid_params(prose::task_cursor_refused(&cursor.to_string()), None)
                })?,
        };
        let (listed, next) = tasks.list(ID_PREFIX, after, PAGE, self.runner()).await?;
        let mut answer =
            json!({"tasks": listed.iter().map(|task| shape(&task.task)).collect::<Vec<_>>()});
        if let Some(next) = next {
            answer["nextCursor"] = Value::from(next.to_string());
        }
        Ok(CustomResult(answer))
    }

    /// `tasks/get`: the task, in 2025-11-25's shape.
    async fn legacy_get(&self, id: &str) -> Result<CustomResult, ErrorData> {
        let tasks = self.served_tasks()?;
        let task = tasks.get(id, self.runner()).await?;
        Ok(CustomResult(shape(&task.task)))
    }

    /// `tasks/cancel`: cancels the task, and answers with it once cancelled; a task that ended
    /// is -32602.
    async fn legacy_cancel(&self, id: &str) -> Result<CustomResult, ErrorData> {
        let tasks = self.served_tasks()?;
        let task = tasks.get(id, self.runner()).await?;
        if task.status().is_terminal() {
            let ended = prose::task_ended(id, &shape(&task.task)["status"].to_string());
            return Err(ErrorData::invalid_params(ended, None));
        }
        tasks.cancel(id).await?;
        // 2025-11-25 answers with the task cancelled: a run here ends once its tool has run out
        // its cancel grace, and is waited for (at most the time a task gets at shutdown).
        let deadline = tokio::time::Instant::now() + self.shutdown_grace;
        loop {
            let task = tasks.get(id, self.runner()).await?;
            if task.status().is_terminal() || tokio::time::Instant::now() >= deadline {
                return Ok(CustomResult(shape(&task.task)));
            }
            let interval = Duration::from_millis(task.task.poll_interval_ms.unwrap_or(500));
            tokio::time::sleep(interval.min(Duration::from_millis(50))).await;
        }
    }

    /// `tasks/result`: once the task ends, its call's result (or the error it failed with),
    /// with the task named in `_meta`; until then the request waits, polling the journal.
    async fn legacy_result(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let tasks = self.served_tasks()?;
        loop {
            let task = tasks.get(id, self.runner()).await?;
            let status = shape(&task.task)["status"].to_string();
            match task.payload {
                TaskPayload::Completed { mut result } => {
                    // A result of 2025-11-25 has no `resultType`.
                    result.remove("resultType");
                    let related = json!({"io.modelcontextprotocol/related-task": {"taskId": id}});
                    result.insert("_meta".to_owned(), related);
                    return Ok(CustomResult(Value::Object(result)));
                }
                TaskPayload::Failed { error } => {
                    return Err(serde_json::from_value(Value::Object(error)).unwrap_or_else(
                        |_| ErrorData::new(ErrorCode::INTERNAL_ERROR, status, None),
                    ));
                }
                TaskPayload::Working => {}
                // 2025-11-25 asks what a task waits for during `tasks/result`: each question
                // goes to the client as the server's own request, tied to the task, and the
                // answers reach the task as `tasks/update` would bring them.
                TaskPayload::InputRequired { input_requests } => {
                    let asked = related(input_requests, id);
                    match super::asked_during_call(context, asked).await {
                        Ok(answers) => {
                            let peer = Some(context.peer.clone());
                            tasks.update(id, answers, self.runner(), peer).await?;
                        }
                        Err(cause) => {
                            let failed = prose::task_question_failed(id, &cause);
                            return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, failed, None));
                        }
                    }
                    continue;
                }
                _ => {
                    let message = task.task.status_message.unwrap_or(status);
                    let ended = prose::task_without_result(id, &message);
                    return Err(ErrorData::new(ErrorCode::INVALID_REQUEST, ended, None));
                }
            }
            let interval = Duration::from_millis(task.task.poll_interval_ms.unwrap_or(500));
            tokio::select! {
                () = context.ct.cancelled() => {
                    return Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "the client cancelled the request", None));
                }
                () = tokio::time::sleep(interval) => {}
            }
        }
    }

    /// `tools/list` before 2026-07-28: the tools as rmcp lists them to a peer of that revision,
    /// each saying whether it runs as a task (`execution.taskSupport`, 2025-11-25): `optional`
    /// once a journal serves tasks, `required` for a tool
    /// [`with_tasks_required_for`](Server::with_tasks_required_for) requires it of, and nothing
    /// (MCP's default, `forbidden`) without a journal.
    fn legacy_tools_listed(&self) -> CustomResult {
        let mut result = rmcp::model::ServerResult::ListToolsResult(
            rmcp::model::ListToolsResult::with_all_items(self.tools.listed.clone()),
        );
        result.strip_result_type_for_legacy_peer();
        result.strip_non_object_output_for_legacy_peer();
        let mut listed = serde_json::to_value(result).unwrap_or_default();
        if let Some(tools) = listed.get_mut("tools").and_then(Value::as_array_mut) {
            for tool in tools {
                let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
                if let Some(support) = self.task_support(name) {
                    tool["execution"] = json!({"taskSupport": support});
                }
            }
        }
        CustomResult(listed)
    }

    fn served_tasks(&self) -> Result<&Arc<super::Tasks>, ErrorData> {
        self.tasks
            .as_ref()
            .ok_or_else(|| ErrorData::invalid_params(prose::task_unknown("?"), None))
    }
}

/// The questions `asked` of task `id`, each saying in its `_meta` which task it is for
/// (`io.modelcontextprotocol/related-task`), as 2025-11-25 asks of a request about a task.
fn related(asked: InputRequests, id: &str) -> InputRequests {
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
