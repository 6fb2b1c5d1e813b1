//! A mounted server's call answered with an MCP Task: awaited as one call, by polling, and
//! picked up by its id when the same call runs again in another process.
//!
//! The task id is recorded, as soon as the server answers with it, in the journal the
//! application gives ([`RemoteBuilder::task_journal`](crate::mcp::RemoteBuilder::task_journal)), under
//! the call's [effect key](crate::tool::CallContext::effect_key): a journaled agent run resumed after
//! a crash runs the same call with the same key, and the call polls the task the server already
//! has instead of calling the tool again.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, ElicitRequestParams, ErrorData, GetTaskParams, InputRequest,
    TaskPayload,
};
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde::{Deserialize, Serialize};

use crate::agent::{Entry, Journal};
use crate::prose::mcp as prose;
use crate::tool::{CallContext, RichOutcome};

/// The version of the record this build writes (and the newest it reads).
const FORMAT: u32 = 1;

/// The shortest and longest wait between two polls, whatever the server asks.
const POLL_LEAST: Duration = Duration::from_millis(10);
const POLL_MOST: Duration = Duration::from_secs(5);

/// How often to poll a server that does not say.
const POLL_DEFAULT: Duration = Duration::from_millis(500);

/// The record of a task a call created.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recorded {
    format: u32,
    server: String,
    tool: String,
    task_id: String,
}

/// The journal run holding the task of the call with `effect_key`: the run's handle, so that a
/// resumed run knows to run the call again to pick the task up.
fn run_of(effect_key: &str) -> String {
    crate::agent::journal::handle_run(effect_key)
}

/// The task a call with `effect_key` created earlier, if the journal has it.
pub(in crate::mcp) async fn recorded(journal: &dyn Journal, effect_key: &str) -> Option<String> {
    let entries = journal.load(&run_of(effect_key)).await.ok()?;
    entries
        .iter()
        .filter(|entry| entry.key == "task")
        .filter_map(|entry| serde_json::from_str::<Recorded>(&entry.body).ok())
        .find(|recorded| recorded.format <= FORMAT)
        .map(|recorded| recorded.task_id)
}

/// Records that the call with `effect_key` created `task_id`, durably. A record that cannot
/// be written costs only the pickup: a resumed run then treats the call as any cut-off call.
pub(in crate::mcp) async fn record(
    journal: &dyn Journal,
    effect_key: &str,
    server: &str,
    tool: &str,
    task_id: &str,
) {
    let body = Recorded {
        format: FORMAT,
        server: server.to_owned(),
        tool: tool.to_owned(),
        task_id: task_id.to_owned(),
    };
    let entry = Entry {
        key: "task".to_owned(),
        body: serde_json::to_string(&body).expect("the record is plain JSON"),
    };
    let _ = journal.append(&run_of(effect_key), vec![entry], true).await;
}

/// How a polled task ended, for the call's outcome.
pub(in crate::mcp) enum Ended {
    /// The server's answer, as a `tools/call` would have given it.
    Answer(Result<CallToolResult, ServiceError>),
    /// Settled by skyl: cancelled, waiting for input skyl cannot give, or out of time.
    Failed(RichOutcome),
    /// The task waits for the answer to the question `key` (the first it waits on): asked as
    /// a question during the call would be, and sent with `tasks/update`.
    Asked {
        key: String,
        request: ElicitRequestParams,
    },
}

/// Polls task `task_id` until it ends, at most until `deadline` (the end of the task timeout
/// `limit`); the call's cancellation cancels it.
pub(in crate::mcp) async fn await_task(
    peer: &Peer<RoleClient>,
    server: &str,
    task_id: &str,
    interval: Option<u64>,
    (deadline, limit): (std::time::Instant, Duration),
    context: &CallContext,
) -> Ended {
    let interval = interval
        .map_or(POLL_DEFAULT, Duration::from_millis)
        .clamp(POLL_LEAST, POLL_MOST);
    let polling = async {
        loop {
            let task = match peer.get_task(GetTaskParams::new(task_id)).await {
                Ok(task) => task.task,
                Err(error) => return Ended::Answer(Err(error)),
            };
            match task.payload {
                TaskPayload::Completed { result } => {
                    let read = serde_json::from_value::<CallToolResult>(result.into());
                    return Ended::Answer(read.map_err(|_| ServiceError::UnexpectedResponse));
                }
                TaskPayload::Failed { error } => {
                    let read = serde_json::from_value::<ErrorData>(error.into());
                    return Ended::Answer(match read {
                        Ok(error) => Err(ServiceError::McpError(error)),
                        Err(_) => Err(ServiceError::UnexpectedResponse),
                    });
                }
                TaskPayload::Cancelled => {
                    return Ended::Failed(Err(prose::task_cancelled_by_server(
                        server,
                        task.task.status_message.as_deref(),
                    )));
                }
                TaskPayload::InputRequired { input_requests } => {
                    // Sampling and roots were not declared: a server must not ask for them.
                    if let Some((key, InputRequest::Elicitation(request))) =
                        input_requests.into_iter().next()
                    {
                        return Ended::Asked {
                            key,
                            request: request.params,
                        };
                    }
                    let _ = peer.cancel_task(CancelTaskParams::new(task_id)).await;
                    return Ended::Failed(Err(prose::task_needs_input(server)));
                }
                _ => {}
            }
            let wait = task
                .task
                .poll_interval_ms
                .map_or(interval, Duration::from_millis)
                .clamp(POLL_LEAST, POLL_MOST);
            tokio::time::sleep(wait).await;
        }
    };
    tokio::select! {
        ended = polling => ended,
        () = context.cancelled() => {
            let _ = peer.cancel_task(CancelTaskParams::new(task_id)).await;
            Ended::Failed(Err(prose::server_timed_out(server, limit)))
        }
        () = tokio::time::sleep_until(deadline.into()) => {
            let _ = peer.cancel_task(CancelTaskParams::new(task_id)).await;
            Ended::Failed(Err(prose::server_timed_out(server, limit)))
        }
    }
}

/// A shared journal, as the mount keeps it.
pub(in crate::mcp) type TaskJournal = Arc<dyn Journal>;
