//! Tasks of MCP 2025-11-25 (the `task` parameter of `tools/call`, `tasks/get`, `tasks/result`,
//! `tasks/cancel`), served from the journal of the tasks extension's.
//!
//! rmcp models only the tasks extension (SEP-2663): it drops a `tools/call`'s `task` parameter
//! (the call would run as a plain one while the client waits for a task), does not know
//! `tasks/result`, and answers `tasks/get` in the extension's shape. So the transports rename
//! those requests ([`wire::rename`]: stdio's reader, and the HTTP server before rmcp reads the body) to
//! methods of skyl's own, which rmcp hands to `on_custom_request`, answered here in 2025-11-25's
//! shapes. A task created so has an id beginning with [`wire::ID_PREFIX`], by which its `tasks/get`,
//! `tasks/result` and `tasks/cancel` are told from the extension's; the extension's requests go
//! to rmcp unchanged.
//!
//! `wire.rs` holds what the transports and the extension's tasks use of it (the renaming, the
//! capability, a task's shape); this file answers the renamed requests about tasks, over the
//! server's [`Tasks`]; the `tools/call` that creates one is the server's (`mod.rs`), as the
//! extension's is.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CustomResult, ErrorCode, TaskPayload, Tool as McpTool};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::mcp::serve::caller;
use crate::mcp::serve::legacy_tasks::wire::{ID_PREFIX, related, shape};
use crate::mcp::serve::tasks::{Runner, Tasks};
use crate::prose::mcp as prose;

pub(in crate::mcp) mod wire;

/// How many tasks one page of `tasks/list` holds.
const PAGE: usize = 50;

/// The tasks of a server that serves them, as 2025-11-25's requests about them reach them.
pub(in crate::mcp) struct LegacyTasks<'a> {
    /// The server's tasks.
    pub(in crate::mcp) tasks: &'a Arc<Tasks>,
    /// How a task's call runs (again, for one cut off).
    pub(in crate::mcp) runner: Runner,
    /// How long a cancelled task's run is waited for before `tasks/cancel` answers: the time a
    /// task gets at shutdown.
    pub(in crate::mcp) grace: Duration,
}

impl LegacyTasks<'_> {
    /// `tasks/list`: the tasks created in 2025-11-25's form, oldest first, in pages of
    /// [`PAGE`] (`nextCursor` says where the next one begins).
    pub(in crate::mcp) async fn list(
        &self,
        params: Option<&Value>,
    ) -> Result<CustomResult, ErrorData> {
        let tasks = self.tasks;
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
        let (listed, next) = tasks
            .list(ID_PREFIX, after, PAGE, Arc::clone(&self.runner))
            .await?;
        let mut answer =
            json!({"tasks": listed.iter().map(|task| shape(&task.task)).collect::<Vec<_>>()});
        if let Some(next) = next {
            answer["nextCursor"] = Value::from(next.to_string());
        }
        Ok(CustomResult(answer))
    }

    /// `tasks/get`: the task, in 2025-11-25's shape.
    pub(in crate::mcp) async fn get(&self, id: &str) -> Result<CustomResult, ErrorData> {
        let tasks = self.tasks;
        let task = tasks.get(id, Arc::clone(&self.runner)).await?;
        Ok(CustomResult(shape(&task.task)))
    }

    /// `tasks/cancel`: cancels the task, and answers with it once cancelled; a task that ended
    /// is -32602.
    pub(in crate::mcp) async fn cancel(&self, id: &str) -> Result<CustomResult, ErrorData> {
        let tasks = self.tasks;
        let task = tasks.get(id, Arc::clone(&self.runner)).await?;
        if task.status().is_terminal() {
            let ended = prose::task_ended(id, &shape(&task.task)["status"].to_string());
            return Err(ErrorData::invalid_params(ended, None));
        }
        tasks.cancel(id).await?;
        // 2025-11-25 answers with the task cancelled: a run here ends once its tool has run out
        // its cancel grace, and is waited for (at most the time a task gets at shutdown).
        let deadline = tokio::time::Instant::now() + self.grace;
        loop {
            let task = tasks.get(id, Arc::clone(&self.runner)).await?;
            if task.status().is_terminal() || tokio::time::Instant::now() >= deadline {
                return Ok(CustomResult(shape(&task.task)));
            }
            let interval = Duration::from_millis(task.task.poll_interval_ms.unwrap_or(500));
            tokio::time::sleep(interval.min(Duration::from_millis(50))).await;
        }
    }

    /// `tasks/result`: once the task ends, its call's result (or the error it failed with),
    /// with the task named in `_meta`; until then the request waits, polling the journal.
    pub(in crate::mcp) async fn result(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let tasks = self.tasks;
        loop {
            let task = tasks.get(id, Arc::clone(&self.runner)).await?;
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
                    match caller::asked_during_call(context, asked).await {
                        Ok(answers) => {
                            let peer = Some(context.peer.clone());
                            tasks
                                .update(id, answers, Arc::clone(&self.runner), peer)
                                .await?;
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
}

/// The error for a request about a task (`tasks/get`, `tasks/result`, `tasks/cancel`) to a
/// server that serves none: no such task.
pub(in crate::mcp) fn no_tasks() -> ErrorData {
    ErrorData::invalid_params(prose::task_unknown("?"), None)
}

/// The error for `tasks/list` to a server that serves no tasks: a server without a journal has
/// no tasks to list, as one without the method.
pub(in crate::mcp) fn no_list() -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        "tasks/list: this server serves no tasks",
        None,
    )
}

/// `tools/list` before 2026-07-28: the tools `listed` as rmcp lists them to a peer of that
/// revision, each saying whether it runs as a task (`execution.taskSupport`, 2025-11-25), as
/// `task_support` says of it: `optional` once a journal serves tasks, `required` for a tool
/// [`with_tasks_required_for`](crate::mcp::Server::with_tasks_required_for) requires it of, and
/// nothing (MCP's default, `forbidden`) without a journal.
pub(in crate::mcp) fn tools_listed(
    listed: Vec<McpTool>,
    task_support: impl Fn(&str) -> Option<&'static str>,
) -> CustomResult {
    let mut result = rmcp::model::ServerResult::ListToolsResult(
        rmcp::model::ListToolsResult::with_all_items(listed),
    );
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    let mut listed = serde_json::to_value(result).unwrap_or_default();
    if let Some(tools) = listed.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in tools {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
            if let Some(support) = task_support(name) {
                tool["execution"] = json!({"taskSupport": support});
            }
        }
    }
    CustomResult(listed)
}
