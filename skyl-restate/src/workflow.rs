//! The bodies of a workflow's handlers: the run, a person's decision about a paused call, and
//! what the run waits for.

use std::time::{Duration, UNIX_EPOCH};

use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skyl::Message;
use skyl::agent::{Agent, DurableRunError, Hooks, Run, Stop};

use crate::journal::RestateJournal;

/// The workflow state key listing the calls that wait for a decision (compatibility data).
pub const WAITING_STATE: &str = "skyl-waiting";

/// The prefix of the durable promise a paused call waits on (compatibility data): the whole
/// name is `skyl-approval/{pause}/{call id}`, `{pause}` counting the run's pauses from 1.
pub const APPROVAL_PROMISE: &str = "skyl-approval";

/// The reason a denied call's result gives when the person gave none.
const NO_REASON: &str = "the person who reviewed it gave no reason";

/// A person's decision about a paused call, posted to the workflow's decision handler.
///
/// ```json
/// {"call": "c6", "approve": true}
/// {"call": "c6", "approve": true, "expires": 1767225600, "arguments": {"meeting": "standup"}}
/// {"call": "c6", "approve": false, "reason": "not this week"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The call's id, as [`Status`] lists it.
    pub call: String,
    /// Whether the call may run.
    pub approve: bool,
    /// Why not, for a denial: the model reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Seconds since the Unix epoch after which an approval no longer holds: a run that gets to
    /// the call later asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// The arguments the person approved, when they were shown them: an approval of other
    /// arguments than the call's does not let it run, and the call asks again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// A call that waits for a person's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaitingCall {
    /// The call's id: the decision names it.
    pub call: String,
    /// The tool called.
    pub tool: String,
    /// The arguments the model wrote.
    pub arguments: Value,
    /// The durable promise the run waits on for this call.
    pub promise: String,
}

/// What a run waits for, as the status handler answers it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The calls waiting for a decision, in call order; empty while the run goes on or once it is
    /// finished.
    pub waiting: Vec<WaitingCall>,
}

/// The body of a workflow's `run` handler: runs `agent` on `messages` under the workflow's key,
/// journaled in Restate, until it stops; each call it pauses waits for a [`Decision`] on a durable
/// promise (see [`decide`]), and the run goes on.
///
/// A retried invocation (the service died, Restate moved the run to another process) replays the
/// journal: the model is asked nothing it answered, a recorded result is reused, and a call that
/// can have effects and was started but never finished is answered as outcome-unknown instead of
/// running again. `messages` are read the first time only: the journal has them after that.
///
/// A failed model request is a retryable error (Restate runs the handler again and the request
/// is sent again), unless the provider refused it for good; a journal that cannot be used is
/// retryable too, except a corrupt one.
pub async fn run_agent<S: Send + Sync + 'static, H: Hooks>(
    ctx: &WorkflowContext<'_>,
    agent: &Agent<S, H>,
    messages: Vec<Message>,
) -> Result<Run, HandlerError> {
    let journal = RestateJournal::new(ctx);
    let id = ctx.key().to_owned();
    let mut saved: Option<Run> = None;
    let mut pauses: u32 = 0;
    loop {
        let builder = match saved.take() {
            None => agent.run(messages.clone()),
            Some(run) => agent.resume(run),
        };
        let outcome = builder.journaled(&journal, id.as_str()).await;
        journal.close().await.map_err(retryable)?;
        let mut run = outcome.map_err(failed)?;
        if run.stop() != &Stop::AwaitingApproval {
            return Ok(run);
        }
        pauses += 1;
        let waiting: Vec<WaitingCall> = run
            .awaiting_approval()
            .map(|call| WaitingCall {
                call: call.id.clone(),
                tool: call.name.clone(),
                arguments: call.arguments.clone(),
                promise: format!("{APPROVAL_PROMISE}/{pauses}/{}", call.id),
            })
            .collect();
        ctx.set(WAITING_STATE, Json(waiting.clone()));
        for call in &waiting {
            let decision: Json<Decision> = {
                let ctx: &WorkflowContext<'_> = ctx;
                ctx.promise(call.promise.as_str()).await?
            };
            apply(&mut run, call, decision.into_inner());
        }
        ctx.clear(WAITING_STATE);
        saved = Some(run);
    }
}

/// Records `decision` on `run`'s paused call; an approval of other arguments than the call's
/// leaves it paused.
fn apply(run: &mut Run, call: &WaitingCall, decision: Decision) {
    let recorded = if decision.approve {
        if decision
            .arguments
            .as_ref()
            .is_some_and(|approved| approved != &call.arguments)
        {
            return;
        }
        match decision.expires {
            Some(expires) => {
                run.approve_until(&call.call, UNIX_EPOCH + Duration::from_secs(expires))
            }
            None => run.approve(&call.call),
        }
    } else {
        run.deny(&call.call, decision.reason.as_deref().unwrap_or(NO_REASON))
    };
    // The call was listed from this run: it is waiting.
    debug_assert!(recorded.is_ok(), "{recorded:?}");
}

/// The body of a workflow's decision handler: hands `decision` to the call of the run it names,
/// which waits on its durable promise. A call that is not waiting, or was decided already, is a
/// terminal error saying so (a decision counts once).
pub async fn decide(
    ctx: &SharedWorkflowContext<'_>,
    decision: Decision,
) -> Result<(), HandlerError> {
    let waiting = waiting(ctx).await?;
    let Some(call) = waiting.iter().find(|call| call.call == decision.call) else {
        let ids: Vec<&str> = waiting.iter().map(|call| call.call.as_str()).collect();
        return Err(TerminalError::new(format!(
            "run \"{}\" has no call \"{}\" waiting for a decision (waiting: {}); read the run's status for the calls it waits on",
            ctx.key(),
            decision.call,
            if ids.is_empty() { "none".to_owned() } else { ids.join(", ") }
        ))
        .into());
    };
    let decided: Option<Json<Decision>> = {
        let ctx: &SharedWorkflowContext<'_> = ctx;
        ctx.peek_promise(call.promise.as_str()).await?
    };
    if decided.is_some() {
        return Err(TerminalError::new(format!(
            "call \"{}\" of run \"{}\" was decided already; a decision counts once",
            decision.call,
            ctx.key()
        ))
        .into());
    }
    ctx.resolve_promise(&call.promise, Json(decision));
    Ok(())
}

/// The body of a workflow's status handler: the calls the run waits on.
pub async fn status(ctx: &SharedWorkflowContext<'_>) -> Result<Status, HandlerError> {
    Ok(Status {
        waiting: waiting(ctx).await?,
    })
}

async fn waiting(ctx: &SharedWorkflowContext<'_>) -> Result<Vec<WaitingCall>, HandlerError> {
    let listed: Option<Json<Vec<WaitingCall>>> = ctx.get(WAITING_STATE).await?;
    Ok(listed.map(Json::into_inner).unwrap_or_default())
}

fn retryable(error: skyl::agent::JournalError) -> HandlerError {
    failed(DurableRunError::Journal(error))
}

/// A run's error as Restate should treat it: retry what can get better, end the rest.
fn failed(error: DurableRunError) -> HandlerError {
    let terminal = match &error {
        DurableRunError::Model(failure) => !failure.model_error().is_retryable(),
        DurableRunError::Journal(skyl::agent::JournalError::Corrupt { .. }) => true,
        _ => false,
    };
    if terminal {
        TerminalError::new(chain(&error)).into()
    } else {
        HandlerError::from(error)
    }
}

/// An error and its causes, one sentence each.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_state_and_promise_names_and_a_decision_read_as_documented() {
        assert_eq!(WAITING_STATE, "skyl-waiting");
        assert_eq!(APPROVAL_PROMISE, "skyl-approval");
        let decision: Decision = serde_json::from_value(
            json!({"call": "c6", "approve": true, "expires": 1767225600, "arguments": {"meeting": "standup"}}),
        )
        .unwrap();
        assert_eq!(
            decision,
            Decision {
                call: "c6".into(),
                approve: true,
                reason: None,
                expires: Some(1_767_225_600),
                arguments: Some(json!({"meeting": "standup"})),
            }
        );
        assert_eq!(
            serde_json::to_value(Decision {
                call: "c6".into(),
                approve: false,
                reason: Some("not this week".into()),
                expires: None,
                arguments: None,
            })
            .unwrap(),
            json!({"call": "c6", "approve": false, "reason": "not this week"})
        );
    }
}
