//! Human in the loop: the calls of a turn that wait for a person's decision, and how the decision
//! is recorded on the [`Run`] before it is resumed. These are the public methods the feature adds
//! to `Run`; what each decision does to a call's slot is the slot's own (`turn/slot.rs`).

use std::error::Error;
use std::fmt;
use std::time::SystemTime;

use crate::message::ToolCall;

use crate::agent::question::{Question, Reply};
use crate::agent::run::Run;
use crate::agent::turn::slot::{Slot, unix_seconds};

/// Deciding about the calls a paused run waits on.
///
/// A run stops with [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval) when a hook (or the
/// agent's approval rule for destructive tools) paused one of its calls. The other calls of that
/// step have run already and their results are kept in the run. Record a decision for each call
/// waiting, then pass the run to [`Agent::resume`](super::Agent::resume): approved calls run,
/// denied ones give the model an error result with your reason, and the run goes on. A call still
/// undecided when the run is resumed keeps it paused.
///
/// A call can also pause while it runs, to ask the person a [`Question`] (a mounted MCP server's
/// elicitation request): [`question`](Run::question) gives it, [`reply`](Run::reply) answers it,
/// [`approve`](Run::approve) accepts it with its schema's defaults and [`deny`](Run::deny)
/// declines it. Resumed, the run hands the reply to the call, which goes on where it stopped. The
/// call waits in the process that ran it: resumed in another process, or after this one
/// restarted, the run finds it gone, and runs it again if its tool is idempotent (or read-only),
/// and otherwise answers it with an error saying its outcome is unknown.
///
/// ```
/// use serde_json::json;
/// use skyl::agent::{hooks, Agent, Decision, Run, Stop};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// /// Deletes a file.
/// #[skyl::tool]
/// fn delete_file(path: String) -> String {
///     format!("deleted {path}")
/// }
///
/// // The same agent, in this process and in the next one; each has its own model connection.
/// let build_agent = |model: ScriptedModel| {
///     Agent::new(model, Toolbox::new().with(DeleteFile), "some-model")
///         .with_hooks(hooks::before_tool_call(|_, _| Decision::Pause))
/// };
///
/// let model = ScriptedModel::new()
///     .reply_calls([ToolCall::new("c1", "delete_file", json!({"path": "notes.txt"}))]);
/// let run = build_agent(model).run(vec![Message::user("Delete notes.txt")]).blocking()?;
/// assert_eq!(run.stop(), &Stop::AwaitingApproval);
/// let waiting: Vec<&str> = run.awaiting_approval().map(|call| call.id.as_str()).collect();
/// assert_eq!(waiting, ["c1"]);
/// let saved = serde_json::to_string(&run).unwrap();
///
/// // Later, perhaps in another process:
/// let mut run: Run = serde_json::from_str(&saved).unwrap();
/// run.approve("c1").unwrap();
/// let agent = build_agent(ScriptedModel::new().reply_text("Deleted."));
/// let run = agent.resume(run).blocking()?;
/// assert_eq!(run.stop(), &Stop::Answered);
/// assert_eq!(run.transcript()[2].tool_results().next().unwrap().content, "deleted notes.txt");
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
impl Run {
    /// The calls waiting for a decision, in call order: empty unless the run stopped with
    /// [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval). A call leaves this list once
    /// it is approved or denied.
    pub fn awaiting_approval(&self) -> impl Iterator<Item = &ToolCall> + '_ {
        self.paused_calls()
            .filter(|(_, slot)| slot.is_waiting())
            .map(|(call, _)| call)
    }

    /// Lets the paused call `call_id` run when the run is resumed.
    ///
    /// The approval is bound to the call: its id, its tool, its arguments, the tool's
    /// definition when it paused, and the run's id when the run is journaled. Resumed with a tool
    /// defined otherwise, or a journaled run resumed without its journal, the run asks again
    /// instead of running the call (a journaled run resumed under another id is refused); and
    /// the call running uses the approval up (in a journaled run, two workers resuming the same
    /// saved run run it at most once). A decision can be changed until the run is resumed.
    ///
    /// A call that asked a [`Question`] gets the answer [`Reply::Accept`] with the schema's
    /// [`defaults`](Question::defaults).
    ///
    /// A call of a sub-agent ([`AgentTool`](super::AgentTool)) that waits is approved whole:
    /// every call waiting inside it, at any depth, is approved. To decide one of them, use
    /// [`approve_at`](Self::approve_at) with its path ([`Run::waiting`] lists them).
    pub fn approve(&mut self, call_id: &str) -> Result<(), NotAwaiting> {
        self.grant(call_id, None)
    }

    /// [`approve`](Self::approve), until `expiry`: resumed later, the run asks again instead of
    /// running the call.
    pub fn approve_until(&mut self, call_id: &str, expiry: SystemTime) -> Result<(), NotAwaiting> {
        self.grant(call_id, Some(unix_seconds(expiry)))
    }

    fn grant(&mut self, call_id: &str, expires: Option<u64>) -> Result<(), NotAwaiting> {
        let run = self.id.clone();
        let mut found = false;
        if let (Some(turn), Some(message)) = (self.turn.as_mut(), self.transcript.last()) {
            for (call, slot) in message.tool_calls().zip(&mut turn.slots) {
                if call.id != call_id || !slot.is_paused() {
                    continue;
                }
                match slot.sub_run_mut() {
                    Some(inner) => inner.grant_all(expires),
                    None => slot.approve(call, run.clone(), expires),
                }
                found = true;
            }
        }
        if found {
            return Ok(());
        }
        Err(self.not_awaiting(call_id))
    }

    /// Refuses the paused call `call_id`: when the run is resumed, the model gets an error result
    /// saying the tool was not run, because of `reason`.
    ///
    /// A call that asked a [`Question`] gets the answer [`Reply::Decline`] instead (its server
    /// hears no reason), and goes on as its server decides.
    pub fn deny(&mut self, call_id: &str, reason: impl Into<String>) -> Result<(), NotAwaiting> {
        let reason = reason.into();
        self.decide(call_id, |slot| slot.deny(&reason))
    }

    /// The question the paused call `call_id` asked while it ran, if it asked one (a call paused
    /// before it ran asked none).
    pub fn question(&self, call_id: &str) -> Option<&Question> {
        self.paused_calls()
            .find(|(call, _)| call.id == call_id)
            .and_then(|(_, slot)| slot.question())
    }

    /// Answers the question the paused call `call_id` asked: when the run is resumed, the call
    /// gets `reply` and goes on. Fails for a call that is not paused or asked no question.
    pub fn reply(&mut self, call_id: &str, reply: Reply) -> Result<(), NotAwaiting> {
        if self.question(call_id).is_none() {
            return Err(self.not_awaiting(call_id));
        }
        self.decide(call_id, |slot| {
            slot.answer_question(|_| reply.clone());
        })
    }

    /// Approves every paused call, as [`approve`](Self::approve) does (the calls waiting inside
    /// a sub-agent's call included).
    pub fn approve_all(&mut self) {
        self.grant_all(None);
    }

    fn grant_all(&mut self, expires: Option<u64>) {
        let ids: Vec<String> = self
            .paused_calls()
            .map(|(call, _)| call.id.clone())
            .collect();
        for id in ids {
            // Every id is of a paused call.
            let _ = self.grant(&id, expires);
        }
    }

    /// Denies every paused call, for `reason`.
    pub fn deny_all(&mut self, reason: impl Into<String>) {
        let reason = reason.into();
        self.decide_all(&|slot| slot.deny(&reason));
    }

    /// Each call of the turn being answered that paused, with its slot.
    pub(super) fn paused_calls(&self) -> impl Iterator<Item = (&ToolCall, &Slot)> + '_ {
        let slots = self.turn.as_ref().map_or(&[][..], |turn| &turn.slots);
        self.transcript
            .last()
            .into_iter()
            .flat_map(|message| message.tool_calls())
            .zip(slots)
            .filter(|(_, slot)| slot.is_paused())
    }

    fn decide(&mut self, call_id: &str, decision: impl Fn(&mut Slot)) -> Result<(), NotAwaiting> {
        let mut found = false;
        if let (Some(turn), Some(message)) = (self.turn.as_mut(), self.transcript.last()) {
            for (call, slot) in message.tool_calls().zip(&mut turn.slots) {
                if call.id != call_id || !slot.is_paused() {
                    continue;
                }
                match slot.sub_run_mut() {
                    // What waits inside the sub-agent's call is decided, the same way.
                    Some(inner) => inner.decide_all(&decision),
                    None => decision(slot),
                }
                found = true;
            }
        }
        if found {
            return Ok(());
        }
        Err(self.not_awaiting(call_id))
    }

    pub(super) fn not_awaiting(&self, call_id: &str) -> NotAwaiting {
        NotAwaiting {
            call_id: call_id.to_owned(),
            paused: self
                .paused_calls()
                .map(|(call, _)| call.id.clone())
                .collect(),
        }
    }

    fn decide_all(&mut self, decision: &dyn Fn(&mut Slot)) {
        if let Some(turn) = self.turn.as_mut() {
            for slot in turn.slots.iter_mut().filter(|slot| slot.is_paused()) {
                match slot.sub_run_mut() {
                    Some(inner) => inner.decide_all(decision),
                    None => decision(slot),
                }
            }
        }
    }
}

/// [`Run::approve`] or [`Run::deny`] named a call that is not paused in this run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotAwaiting {
    call_id: String,
    paused: Vec<String>,
}

impl NotAwaiting {
    /// The id that was given.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }
}

impl fmt::Display for NotAwaiting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no call \"{}\" is waiting for approval in this run; ",
            self.call_id
        )?;
        if self.paused.is_empty() {
            return f.write_str("none is, so resume or store the run as it is");
        }
        let ids: Vec<String> = self.paused.iter().map(|id| format!("\"{id}\"")).collect();
        write!(f, "decide about one of {} instead", ids.join(", "))
    }
}

impl Error for NotAwaiting {}
