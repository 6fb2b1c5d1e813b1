//! Human in the loop: the calls of a turn that wait for a person's decision, and how the decision
//! is recorded on the [`Run`] before it is resumed.

use std::error::Error;
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::arguments::canonical::{canonical, fingerprint};
use crate::content::{Content, ResultContent};
use crate::message::{ToolCall, ToolResult};

use crate::agent::asking::{Question, Reply};
use crate::agent::run::Run;
use crate::agent::run::Spent;
use crate::agent::step::ResponseMeta;

/// The assistant turn a run is answering: what the response said, and one slot per call, in call
/// order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Turn {
    pub(crate) answer: ResponseMeta,
    pub(crate) slots: Vec<Slot>,
    /// The content beside the results that have any (images, resources), kept until the turn's
    /// tool message is written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) content: Vec<ResultContent>,
    /// What the runs of the sub-agents of the calls answered so far used.
    #[serde(default, skip_serializing_if = "Spent::is_nothing")]
    pub(crate) spent: Spent,
}

impl Turn {
    /// Gives the call at `position` its result, and keeps the content beside it for the tool
    /// message.
    pub(crate) fn answer(&mut self, position: usize, result: ToolResult, content: Vec<Content>) {
        if !content.is_empty() {
            self.content
                .push(ResultContent::new(result.call_id.as_str(), content));
        }
        self.slots[position] = Slot::Answered(result);
    }
}

/// Where one call of the turn stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Slot {
    /// No hook has decided about it yet.
    New,
    /// It has its result.
    Answered(ToolResult),
    /// It waits for a person's decision (a run saved before approvals were bound to what they
    /// approve).
    Awaiting,
    /// It waits for a person's decision; `definition` is the fingerprint of the tool's definition
    /// when it paused.
    Paused { definition: String },
    /// A person let it run (a run saved before approvals were bound).
    Approved,
    /// A person let it run, as bound here.
    Granted(Approval),
    /// A person refused it, for this reason.
    Denied(String),
    /// It asked the person this question while it ran, and waits, parked, for the reply.
    Asking(Question),
    /// The person replied: the parked call gets the reply when the run is resumed.
    Replied { question: Question, reply: Reply },
    /// It runs a sub-agent ([`AgentTool`](super::AgentTool)) whose run waits for a person: the
    /// sub-agent's run as it stopped, with the decisions recorded on it since. Resumed, the call
    /// runs again and hands the sub-agent this run to resume.
    Nested(Box<Run>),
}

/// How far a call got, as its slot says, which tells what may settle it when its turn is
/// answered again (`turn/settle.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Nothing decided it yet: the journal, a saved decision or the hooks may.
    Undecided,
    /// It was started and waits inside (a question, a sub-agent's run), or goes on with a reply.
    Started,
    /// A person decided it before it started: run it, or not.
    Decided,
    /// It has its result.
    Answered,
}

impl Slot {
    /// How far the call got: the one place each way a call can stand says which it is, so
    /// that settling a call needs no list of slots.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Slot::New | Slot::Awaiting | Slot::Paused { .. } => Stage::Undecided,
            Slot::Asking(_) | Slot::Replied { .. } | Slot::Nested(_) => Stage::Started,
            Slot::Approved | Slot::Granted(_) | Slot::Denied(_) => Stage::Decided,
            Slot::Answered(_) => Stage::Answered,
        }
    }

    fn is_paused(&self) -> bool {
        matches!(
            self,
            Slot::Awaiting
                | Slot::Paused { .. }
                | Slot::Approved
                | Slot::Granted(_)
                | Slot::Denied(_)
                | Slot::Asking(_)
                | Slot::Replied { .. }
                | Slot::Nested(_)
        )
    }

    pub(crate) fn is_waiting(&self) -> bool {
        match self {
            Slot::Nested(run) => run.awaiting_approval().next().is_some(),
            _ => matches!(self, Slot::Awaiting | Slot::Paused { .. } | Slot::Asking(_)),
        }
    }

    /// The question the call asked, if it asked one.
    fn question(&self) -> Option<&Question> {
        match self {
            Slot::Asking(question) | Slot::Replied { question, .. } => Some(question),
            _ => None,
        }
    }

    /// `reply` to the question the call asked; `None` for a call that asked none.
    fn replied(&self, reply: impl FnOnce(&Question) -> Reply) -> Option<Slot> {
        let question = self.question()?;
        Some(Slot::Replied {
            reply: reply(question),
            question: question.clone(),
        })
    }

    /// The fingerprint of the definition the call paused with, when it was recorded.
    fn paused_definition(&self) -> Option<String> {
        match self {
            Slot::Paused { definition } => Some(definition.clone()),
            Slot::Granted(approval) => approval.definition.clone(),
            _ => None,
        }
    }
}

/// What an approval lets run: one call (its id, its tool, its arguments) of one run (its id, in a
/// journaled run), of a tool defined as it was when the call paused, until an expiry. A run
/// resumed without its journal or under another id, with another definition of the tool, or after
/// the expiry, asks again instead of running; the call running uses it up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Approval {
    pub(crate) call_id: String,
    /// The id of the journaled run it was given in: it holds only in that run's journal, where
    /// its use is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) run: Option<String>,
    pub(crate) tool: String,
    /// The fingerprint of the call's canonical arguments.
    pub(crate) arguments: String,
    /// The fingerprint of the tool's definition when the call paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) definition: Option<String>,
    /// Seconds since the Unix epoch after which the approval no longer holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) expires: Option<u64>,
}

impl Approval {
    /// Whether it still lets `call` of a tool whose definition is now `definition` run at `now`
    /// (seconds since the Unix epoch), in the journaled run `run` (`None`: a run without a
    /// journal).
    pub(crate) fn holds(
        &self,
        call: &ToolCall,
        run: Option<&str>,
        arguments: &str,
        definition: &str,
        now: u64,
    ) -> bool {
        self.call_id == call.id
            && self.run.as_deref().is_none_or(|bound| Some(bound) == run)
            && self.tool == call.name
            && self.arguments == arguments
            && self
                .definition
                .as_deref()
                .is_none_or(|bound| bound == definition)
            && self.expires.is_none_or(|expires| now < expires)
    }
}

/// Seconds since the Unix epoch.
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

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
        let expires = expiry
            .duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        self.grant(call_id, Some(expires))
    }

    fn grant(&mut self, call_id: &str, expires: Option<u64>) -> Result<(), NotAwaiting> {
        let mut found = false;
        if let (Some(turn), Some(message)) = (self.turn.as_mut(), self.transcript.last()) {
            for (call, slot) in message.tool_calls().zip(&mut turn.slots) {
                if call.id == call_id
                    && let Slot::Nested(inner) = slot
                {
                    inner.grant_all(expires);
                    found = true;
                } else if call.id == call_id
                    && let Some(replied) =
                        slot.replied(|question| Reply::Accept(question.defaults()))
                {
                    *slot = replied;
                    found = true;
                } else if call.id == call_id && slot.is_paused() {
                    *slot = Slot::Granted(Approval {
                        call_id: call.id.clone(),
                        run: self.id.clone(),
                        tool: call.name.clone(),
                        arguments: arguments_fingerprint(call),
                        definition: slot.paused_definition(),
                        expires,
                    });
                    found = true;
                }
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
        self.decide(call_id, |slot| {
            slot.replied(|_| Reply::Decline)
                .unwrap_or_else(|| Slot::Denied(reason.clone()))
        })
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
            slot.replied(|_| reply.clone())
                .unwrap_or_else(|| slot.clone())
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
        self.decide_all(&|slot| {
            slot.replied(|_| Reply::Decline)
                .unwrap_or_else(|| Slot::Denied(reason.clone()))
        });
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

    fn decide(
        &mut self,
        call_id: &str,
        decision: impl Fn(&Slot) -> Slot,
    ) -> Result<(), NotAwaiting> {
        let mut found = false;
        if let (Some(turn), Some(message)) = (self.turn.as_mut(), self.transcript.last()) {
            for (call, slot) in message.tool_calls().zip(&mut turn.slots) {
                if call.id == call_id
                    && let Slot::Nested(inner) = slot
                {
                    // What waits inside the sub-agent's call is decided, the same way.
                    inner.decide_all(&decision);
                    found = true;
                } else if call.id == call_id && slot.is_paused() {
                    *slot = decision(slot);
                    found = true;
                }
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

    fn decide_all(&mut self, decision: &dyn Fn(&Slot) -> Slot) {
        if let Some(turn) = self.turn.as_mut() {
            for slot in &mut turn.slots {
                if let Slot::Nested(inner) = slot {
                    inner.decide_all(decision);
                } else if slot.is_paused() {
                    *slot = decision(slot);
                }
            }
        }
    }
}

/// The fingerprint of `call`'s arguments, in canonical form (every `null` kept: the run does not
/// hold the tool's schema).
pub(crate) fn arguments_fingerprint(call: &ToolCall) -> String {
    fingerprint(&canonical(&call.arguments, None))
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
