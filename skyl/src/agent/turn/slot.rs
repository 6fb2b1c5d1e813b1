//! Where each call of a turn stands between passes, as a saved run keeps it: the [`Turn`], one
//! [`Slot`] a call, and every way a slot changes (a person approves, denies or replies; a call
//! asks, waits on its sub-agent, or is answered) and every question asked of it (how far it got,
//! whether it waits, what the deciding phase does with it).
//!
//! This is the one file that names a slot's states: a new way for a call to wait is a variant
//! here, with its answers to those questions, and a public method (in the file of the feature
//! that lets a person act on it, as `approval.rs` does) to decide about it.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::arguments::canonical::{canonical, fingerprint};
use crate::content::{Content, ResultContent};
use crate::message::{Message, Part, Role, ToolCall, ToolResult};

use crate::agent::asking::{Question, Reply};
use crate::agent::run::{Run, Spent};
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
    /// The turn of `answer`, whose `calls` calls nothing has decided about yet.
    pub(crate) fn new(answer: ResponseMeta, calls: usize) -> Self {
        Turn {
            answer,
            slots: vec![Slot::New; calls],
            content: Vec::new(),
            spent: Spent::default(),
        }
    }

    /// Gives the call at `position` its result, and keeps the content beside it for the tool
    /// message.
    pub(crate) fn answer(&mut self, position: usize, result: ToolResult, content: Vec<Content>) {
        if !content.is_empty() {
            self.content
                .push(ResultContent::new(result.call_id.as_str(), content));
        }
        self.slots[position] = Slot::Answered(result);
    }

    /// Whether a call of the turn waits for a person.
    pub(crate) fn is_waiting(&self) -> bool {
        self.slots.iter().any(Slot::is_waiting)
    }

    /// The turn, every call answered, taken apart: what the response said, what the calls'
    /// sub-agents used, and the tool message (each result, in call order, with the content
    /// beside it).
    pub(crate) fn into_tool_message(self) -> (ResponseMeta, Spent, Message) {
        let Turn {
            answer,
            slots,
            mut content,
            spent,
        } = self;
        let mut parts = Vec::with_capacity(slots.len() + content.len());
        for slot in slots {
            let Slot::Answered(result) = slot else {
                unreachable!("a complete turn has a result in every slot")
            };
            let beside = content
                .iter()
                .position(|beside| beside.call_id == result.call_id)
                .map(|at| content.swap_remove(at));
            parts.push(Part::ToolResult(result));
            parts.extend(beside.map(Part::ResultContent));
        }
        let message = Message {
            role: Role::Tool,
            parts,
        };
        (answer, spent, message)
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
    /// It runs a sub-agent ([`AgentTool`](crate::agent::AgentTool)) whose run waits for a
    /// person: the sub-agent's run as it stopped, with the decisions recorded on it since.
    /// Resumed, the call runs again and hands the sub-agent this run to resume.
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

/// What the deciding phase (`turn/decide.rs`) does with a call nothing settled, as its slot
/// says.
pub(crate) enum Verdict {
    /// Nothing decided it: the hooks decide.
    AskHooks,
    /// A person let it run: as long as this approval holds, when it is bound.
    Run(Option<Approval>),
    /// A person refused it, for this reason.
    Deny(String),
    /// It runs its sub-agent again, which goes on with this saved run.
    RunNested(Box<Run>),
    /// It has its result, or waits: its slot stays as it is.
    Stay(Slot),
}

impl Slot {
    /// The slot of a call that waits for a person's decision, of a tool whose definition's
    /// fingerprint is `definition`.
    pub(crate) fn paused(definition: String) -> Slot {
        Slot::Paused { definition }
    }

    /// The slot of a call that asked the person `question` while it ran (only MCP's
    /// elicitation asks).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn asking(question: Question) -> Slot {
        Slot::Asking(question)
    }

    /// The slot of a call whose sub-agent's `run` waits for a person.
    pub(crate) fn nested(run: Run) -> Slot {
        Slot::Nested(Box::new(run))
    }

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

    /// What deciding does with the call, as its slot says.
    pub(crate) fn verdict(self) -> Verdict {
        match self {
            Slot::New => Verdict::AskHooks,
            Slot::Approved => Verdict::Run(None),
            Slot::Granted(approval) => Verdict::Run(Some(approval)),
            Slot::Denied(reason) => Verdict::Deny(reason),
            Slot::Nested(saved) => Verdict::RunNested(saved),
            Slot::Answered(_)
            | Slot::Awaiting
            | Slot::Paused { .. }
            | Slot::Asking(_)
            | Slot::Replied { .. } => Verdict::Stay(self),
        }
    }

    /// Whether the call paused, and a person may decide about it (or did).
    pub(crate) fn is_paused(&self) -> bool {
        !matches!(self, Slot::New | Slot::Answered(_))
    }

    /// Whether the call waits for a person's decision (inside its sub-agent's run, too).
    pub(crate) fn is_waiting(&self) -> bool {
        match self {
            Slot::Nested(run) => run.awaiting_approval().next().is_some(),
            _ => matches!(self, Slot::Awaiting | Slot::Paused { .. } | Slot::Asking(_)),
        }
    }

    /// The result of the call, once it has one.
    pub(crate) fn result(&self) -> Option<&ToolResult> {
        match self {
            Slot::Answered(result) => Some(result),
            _ => None,
        }
    }

    /// The question the call asked, if it asked one.
    pub(crate) fn question(&self) -> Option<&Question> {
        match self {
            Slot::Asking(question) | Slot::Replied { question, .. } => Some(question),
            _ => None,
        }
    }

    /// The question the call asked and the person's reply to it, once they replied.
    pub(crate) fn reply(&self) -> Option<(&Question, &Reply)> {
        match self {
            Slot::Replied { question, reply } => Some((question, reply)),
            _ => None,
        }
    }

    /// The saved run of the call's sub-agent, while it waits for a person.
    pub(crate) fn sub_run(&self) -> Option<&Run> {
        match self {
            Slot::Nested(run) => Some(run),
            _ => None,
        }
    }

    /// [`sub_run`](Self::sub_run), to decide about the calls that wait in it.
    pub(crate) fn sub_run_mut(&mut self) -> Option<&mut Run> {
        match self {
            Slot::Nested(run) => Some(run),
            _ => None,
        }
    }

    /// The person answers the question the call asked with `reply`; `false` (and nothing
    /// changes) for a call that asked none.
    pub(crate) fn answer_question(&mut self, reply: impl FnOnce(&Question) -> Reply) -> bool {
        let Some(question) = self.question() else {
            return false;
        };
        *self = Slot::Replied {
            reply: reply(question),
            question: question.clone(),
        };
        true
    }

    /// A person lets the paused `call` (of the journaled run `run`, if it is journaled) run,
    /// until `expires` (seconds since the Unix epoch): the approval binds to the call, its
    /// arguments and the definition its tool had when it paused. A call that asked a question
    /// accepts it with the schema's defaults instead.
    pub(crate) fn approve(&mut self, call: &ToolCall, run: Option<String>, expires: Option<u64>) {
        if self.answer_question(|question| Reply::Accept(question.defaults())) {
            return;
        }
        let definition = match self {
            Slot::Paused { definition } => Some(definition.clone()),
            Slot::Granted(approval) => approval.definition.clone(),
            _ => None,
        };
        *self = Slot::Granted(Approval {
            call_id: call.id.clone(),
            run,
            tool: call.name.clone(),
            arguments: arguments_fingerprint(call),
            definition,
            expires,
        });
    }

    /// A person refuses the paused call, for `reason`; a call that asked a question declines
    /// it instead (its server hears no reason).
    pub(crate) fn deny(&mut self, reason: &str) {
        if !self.answer_question(|_| Reply::Decline) {
            *self = Slot::Denied(reason.to_owned());
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

/// The fingerprint of `call`'s arguments, in canonical form (every `null` kept: the run does not
/// hold the tool's schema).
pub(crate) fn arguments_fingerprint(call: &ToolCall) -> String {
    fingerprint(&canonical(&call.arguments, None))
}
