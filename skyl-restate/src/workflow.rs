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

/// The prefix of the durable promise that answers a decision (compatibility data): the whole name
/// is `skyl-verdict/{pause}/{call id}`, beside the decision's. The run resolves it once it took
/// the decision, or rejects it with the reason the decision does not count; the decision handler
/// answers with it.
pub const VERDICT_PROMISE: &str = "skyl-verdict";

/// The workflow state key a run sets when it starts (compatibility data): a key without it has
/// no run, which the status and decision handlers say.
pub const STARTED_STATE: &str = "skyl-started";

/// The workflow state key listing the calls of the run's last pause once their decisions are
/// taken (compatibility data): a decision posted later is told which decision stands.
pub const DECIDED_STATE: &str = "skyl-decided";

/// The name of the `ctx.run` recording the definitions of the waiting calls' tools when the run
/// paused (compatibility data): a decision taken by a rebuilt service whose tool is defined
/// otherwise does not count.
pub const PAUSED_RUN: &str = "skyl-paused";

/// The name of the `ctx.run` recording whether a decision counts (compatibility data): it reads
/// the clock and the tool's definition, which a replay must not read again.
pub const VERDICT_RUN: &str = "skyl-verdict";

/// The reason a denied call's result gives when the person gave none.
const NO_REASON: &str = "the person who reviewed it gave no reason";

/// A person's decision about a paused call, posted to the workflow's decision handler.
///
/// ```json
/// {"call": "c6", "approve": true}
/// {"call": "c6", "approve": true, "expires": 1767225600, "arguments": {"meeting": "standup"}}
/// {"call": "c6", "approve": false, "reason": "not this week"}
/// ```
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The call's id, as [`Status`] lists it.
    pub call: String,
    /// Whether the call may run.
    pub approve: bool,
    /// Why not, for a denial: the model reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Seconds since the Unix epoch after which an approval no longer holds: one that expired
    /// before the run took it is answered 422 and the call asks again, as it does when the run
    /// gets to the call later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// The arguments the person approved, when they were shown them: an approval of other
    /// arguments than the call's does not let it run; it is answered 422 and the call asks
    /// again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// A decision as its call's durable promise holds it: the decision, and the invocation of the
/// decision handler that posted it, which tells two equal decisions posted at once apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Posted {
    #[serde(flatten)]
    decision: Decision,
    #[serde(default)]
    decided_by: String,
}

/// Whether a decision counts, as the run judged it (the value of a [`VERDICT_RUN`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
enum Verdict {
    /// The run took it.
    Counts,
    /// The run did not take it: the call waits for another decision. `status` is the HTTP
    /// status the decision handler answers with.
    Refused { status: u16, message: String },
}

/// A call that waits for a person's decision.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
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
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// The calls waiting for a decision, in call order; empty while the run goes on or once it is
    /// finished.
    pub waiting: Vec<WaitingCall>,
}

/// The body of a workflow's `run` handler: runs `agent` on `messages` under the workflow's key,
/// journaled in Restate, until it stops; each call it pauses waits for a [`Decision`] on a durable
/// promise (see [`decide`]), and the run goes on. Decisions are taken as they come, whatever the
/// order of their calls; a call whose decision does not count waits for another one, on a new
/// promise, once the other calls of the pause are decided.
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
    ctx.set(STARTED_STATE, true);
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
        let paused_with: Vec<Value> = waiting
            .iter()
            .map(|call| definition(agent, &call.tool))
            .collect();
        let paused_with = ctx
            .run(|| async move { Ok(Json(paused_with)) })
            .name(PAUSED_RUN)
            .await?
            .into_inner();
        ctx.set(WAITING_STATE, Json(waiting.clone()));
        // The decisions are taken as they come, so that each decision handler hears at once
        // whether its decision counts, whatever the order of the calls.
        let mut decisions: DurableFuturesUnordered<_> = waiting
            .iter()
            .map(|call| {
                let ctx: &WorkflowContext<'_> = ctx;
                ctx.promise::<Json<Posted>>(call.promise.as_str())
            })
            .collect();
        while let Some((index, posted)) = decisions.next().await? {
            let call = &waiting[index];
            let decision = posted?.into_inner().decision;
            let (judged, paused, now_defined) = (
                decision.clone(),
                paused_with.get(index).cloned().unwrap_or_default(),
                definition(agent, &call.tool),
            );
            let (key, waiting_call) = (id.clone(), call.clone());
            let verdict = ctx
                .run(|| async move {
                    Ok(Json(judge(
                        &key,
                        &waiting_call,
                        &judged,
                        &paused,
                        &now_defined,
                        unix_now(),
                    )))
                })
                .name(VERDICT_RUN)
                .await?
                .into_inner();
            let answer = verdict_promise(&call.promise);
            match verdict {
                Verdict::Counts => {
                    apply(&mut run, call, decision);
                    ctx.resolve_promise(&answer, Json(Verdict::Counts));
                }
                // The call stays paused: resumed, the run pauses it again, on a new promise.
                Verdict::Refused { status, message } => {
                    ctx.reject_promise(&answer, TerminalError::new_with_code(status, message));
                }
            }
        }
        drop(decisions);
        ctx.set(DECIDED_STATE, Json(waiting));
        ctx.clear(WAITING_STATE);
        saved = Some(run);
    }
}

/// Whether `decision` about `call` counts: an approval of other arguments than the call's, one
/// that expired by `now` (seconds since the Unix epoch), or one for a tool defined otherwise than
/// when the call paused (`paused` then, `defined` now) does not, and the refusal says why. A
/// denial always counts.
fn judge(
    run: &str,
    call: &WaitingCall,
    decision: &Decision,
    paused: &Value,
    defined: &Value,
    now: u64,
) -> Verdict {
    if !decision.approve {
        return Verdict::Counts;
    }
    let refused = |status, why: String| Verdict::Refused {
        status,
        message: format!(
            "the approval of call \"{}\" ({}) of run \"{run}\" does not count: {why}; the call waits for another decision (read the run's status)",
            call.call, call.tool
        ),
    };
    if let Some(approved) = &decision.arguments
        && approved != &call.arguments
    {
        return refused(
            422,
            format!(
                "it approves the arguments {approved}, and the call's are {}",
                call.arguments
            ),
        );
    }
    if let Some(expires) = decision.expires
        && expires <= now
    {
        return refused(
            422,
            format!(
                "it expired at {expires} (seconds since the Unix epoch), before the call could run (now {now})"
            ),
        );
    }
    if paused != defined {
        return refused(
            409,
            format!(
                "the tool {} is defined otherwise than when the call paused (the service was rebuilt since)",
                call.tool
            ),
        );
    }
    Verdict::Counts
}

/// Records `decision`, which counts, on `run`'s paused call.
fn apply(run: &mut Run, call: &WaitingCall, decision: Decision) {
    let recorded = if decision.approve {
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

/// The definition of `agent`'s tool `name`, as JSON (`null` for a tool it does not have).
fn definition<S: Send + Sync + 'static, H: Hooks>(agent: &Agent<S, H>, name: &str) -> Value {
    agent
        .toolbox()
        .definitions()
        .iter()
        .find(|definition| definition.name == name)
        .and_then(|definition| serde_json::to_value(definition).ok())
        .unwrap_or_default()
}

/// The verdict promise beside the decision promise `promise`.
fn verdict_promise(promise: &str) -> String {
    let rest = promise.strip_prefix(APPROVAL_PROMISE).unwrap_or(promise);
    format!("{VERDICT_PROMISE}{rest}")
}

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The body of a workflow's decision handler: hands `decision` to the call of the run it names,
/// which waits on its durable promise, and returns once the run took it.
///
/// Exactly one decision about a call counts, however many are posted at once: the others are
/// terminal errors with status 409 saying which decision stands. A decision the run does not
/// take (an approval of other arguments than the call's, one that expired, or one for a tool a
/// rebuilt service defines otherwise) is a terminal error saying why (422, or 409 for the
/// rebuilt tool), and the call waits for another decision. A run that does not exist, or a call
/// it does not wait on, is a 404 saying so.
pub async fn decide(
    ctx: &SharedWorkflowContext<'_>,
    decision: Decision,
) -> Result<(), HandlerError> {
    started(ctx).await?;
    let waiting = waiting(ctx).await?;
    let Some(call) = waiting.iter().find(|call| call.call == decision.call) else {
        // Decided already, in the run's last pause?
        let decided: Option<Json<Vec<WaitingCall>>> = ctx.get(DECIDED_STATE).await?;
        let decided = decided.map(Json::into_inner).unwrap_or_default();
        if let Some(call) = decided.iter().find(|call| call.call == decision.call) {
            let standing: Option<Json<Posted>> = {
                let ctx: &SharedWorkflowContext<'_> = ctx;
                ctx.peek_promise(call.promise.as_str()).await?
            };
            if let Some(standing) = standing {
                return Err(decided_already(ctx.key(), &standing.into_inner().decision).into());
            }
        }
        let ids: Vec<&str> = waiting.iter().map(|call| call.call.as_str()).collect();
        return Err(TerminalError::new_with_code(
            404,
            format!(
                "run \"{}\" has no call \"{}\" waiting for a decision (waiting: {}); read the run's status for the calls it waits on",
                ctx.key(),
                decision.call,
                if ids.is_empty() { "none".to_owned() } else { ids.join(", ") }
            ),
        )
        .into());
    };
    let posted = Posted {
        decision,
        decided_by: ctx.invocation_id().to_owned(),
    };
    // A promise is resolved once: of decisions posted at once, the first Restate takes stands,
    // and the others read it back.
    ctx.resolve_promise(&call.promise, Json(posted.clone()));
    let standing: Option<Json<Posted>> = {
        let ctx: &SharedWorkflowContext<'_> = ctx;
        ctx.peek_promise(call.promise.as_str()).await?
    };
    match standing.map(Json::into_inner) {
        Some(standing) if standing.decided_by == posted.decided_by => {}
        Some(standing) => return Err(decided_already(ctx.key(), &standing.decision).into()),
        None => {
            return Err(TerminalError::new(format!(
                "Restate holds no decision for call \"{}\" of run \"{}\" right after this one was posted; post it again",
                posted.decision.call,
                ctx.key()
            ))
            .into());
        }
    }
    let _taken: Json<Verdict> = {
        let ctx: &SharedWorkflowContext<'_> = ctx;
        ctx.promise(verdict_promise(&call.promise).as_str()).await?
    };
    Ok(())
}

/// The 409 of a decision posted after another one about the same call, naming the one that
/// stands.
fn decided_already(run: &str, standing: &Decision) -> TerminalError {
    let what = if standing.approve {
        "approved".to_owned()
    } else {
        match &standing.reason {
            Some(reason) => format!("denied ({reason})"),
            None => "denied".to_owned(),
        }
    };
    TerminalError::new_with_code(
        409,
        format!(
            "call \"{}\" of run \"{run}\" was decided already: the decision that stands is {what} ({}); a decision counts once",
            standing.call,
            serde_json::to_string(standing).unwrap_or_default()
        ),
    )
}

/// Whether a run was started under the workflow's key; a 404 saying so if not.
async fn started(ctx: &SharedWorkflowContext<'_>) -> Result<(), HandlerError> {
    let started: Option<bool> = ctx.get(STARTED_STATE).await?;
    if started == Some(true) {
        return Ok(());
    }
    Err(TerminalError::new_with_code(
        404,
        format!(
            "no run has started under the key \"{}\": start it with the workflow's run handler (a run just submitted starts in a moment)",
            ctx.key()
        ),
    )
    .into())
}

/// The body of a workflow's status handler: the calls the run waits on.
///
/// A key no run was started under is a terminal error with status 404 saying so.
pub async fn status(ctx: &SharedWorkflowContext<'_>) -> Result<Status, HandlerError> {
    started(ctx).await?;
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
        // Resuming under another id fails the same way however often Restate retries it.
        DurableRunError::AnotherRun { .. } => true,
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
        assert_eq!(VERDICT_PROMISE, "skyl-verdict");
        assert_eq!(STARTED_STATE, "skyl-started");
        assert_eq!(DECIDED_STATE, "skyl-decided");
        assert_eq!(PAUSED_RUN, "skyl-paused");
        assert_eq!(VERDICT_RUN, "skyl-verdict");
        assert_eq!(verdict_promise("skyl-approval/2/c5"), "skyl-verdict/2/c5");
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

    #[test]
    fn a_posted_decision_and_a_verdict_are_held_as_documented() {
        let posted = Posted {
            decision: Decision {
                call: "c5".into(),
                approve: false,
                reason: Some("the standup stays".into()),
                expires: None,
                arguments: None,
            },
            decided_by: "inv_1".into(),
        };
        let document = json!({"call": "c5", "approve": false, "reason": "the standup stays", "decided_by": "inv_1"});
        assert_eq!(serde_json::to_value(&posted).unwrap(), document);
        assert_eq!(serde_json::from_value::<Posted>(document).unwrap(), posted);
        // A decision an earlier version held reads back, posted by no one known.
        assert_eq!(
            serde_json::from_value::<Posted>(json!({"call": "c5", "approve": true})).unwrap(),
            Posted {
                decision: approval(None, None),
                decided_by: String::new(),
            }
        );
        assert_eq!(
            serde_json::to_value(Verdict::Counts).unwrap(),
            json!({"verdict": "counts"})
        );
        let refused = Verdict::Refused {
            status: 422,
            message: "no".into(),
        };
        let document = json!({"verdict": "refused", "status": 422, "message": "no"});
        assert_eq!(serde_json::to_value(&refused).unwrap(), document);
        assert_eq!(
            serde_json::from_value::<Verdict>(document).unwrap(),
            refused
        );
    }

    fn c5() -> WaitingCall {
        WaitingCall {
            call: "c5".into(),
            tool: "cancel_meeting".into(),
            arguments: json!({"meeting": "standup"}),
            promise: "skyl-approval/1/c5".into(),
        }
    }

    fn approval(expires: Option<u64>, arguments: Option<Value>) -> Decision {
        Decision {
            call: "c5".into(),
            approve: true,
            reason: None,
            expires,
            arguments,
        }
    }

    #[test]
    fn an_approval_counts_for_the_call_as_it_paused_until_it_expires() {
        let defined = json!({"name": "cancel_meeting"});
        let judged = |decision: &Decision, now_defined: &Value, now| {
            judge("r1", &c5(), decision, &defined, now_defined, now)
        };
        assert_eq!(
            judged(&approval(None, None), &defined, 100),
            Verdict::Counts
        );
        assert_eq!(
            judged(
                &approval(Some(101), Some(json!({"meeting": "standup"}))),
                &defined,
                100
            ),
            Verdict::Counts
        );
        assert_eq!(
            judged(&approval(None, Some(json!({"meeting": "retro"}))), &defined, 100),
            Verdict::Refused {
                status: 422,
                message: r#"the approval of call "c5" (cancel_meeting) of run "r1" does not count: it approves the arguments {"meeting":"retro"}, and the call's are {"meeting":"standup"}; the call waits for another decision (read the run's status)"#.into(),
            }
        );
        assert_eq!(
            judged(&approval(Some(100), None), &defined, 100),
            Verdict::Refused {
                status: 422,
                message: r#"the approval of call "c5" (cancel_meeting) of run "r1" does not count: it expired at 100 (seconds since the Unix epoch), before the call could run (now 100); the call waits for another decision (read the run's status)"#.into(),
            }
        );
        assert_eq!(
            judged(&approval(None, None), &json!({"name": "cancel_meeting", "note": true}), 100),
            Verdict::Refused {
                status: 409,
                message: r#"the approval of call "c5" (cancel_meeting) of run "r1" does not count: the tool cancel_meeting is defined otherwise than when the call paused (the service was rebuilt since); the call waits for another decision (read the run's status)"#.into(),
            }
        );
        // A denial always counts: it lets nothing run.
        let denial = Decision {
            approve: false,
            ..approval(Some(1), Some(json!({"meeting": "retro"})))
        };
        assert_eq!(judged(&denial, &Value::Null, 100), Verdict::Counts);
    }

    #[test]
    fn a_late_decision_names_the_one_that_stands() {
        let refused = decided_already(
            "r1",
            &Decision {
                call: "c5".into(),
                approve: false,
                reason: Some("the standup stays".into()),
                expires: None,
                arguments: None,
            },
        );
        assert_eq!(refused.code(), 409);
        assert_eq!(
            refused.message(),
            r#"call "c5" of run "r1" was decided already: the decision that stands is denied (the standup stays) ({"call":"c5","approve":false,"reason":"the standup stays"}); a decision counts once"#
        );
        assert_eq!(
            decided_already("r1", &approval(None, None)).message(),
            r#"call "c5" of run "r1" was decided already: the decision that stands is approved ({"call":"c5","approve":true}); a decision counts once"#
        );
    }
}
