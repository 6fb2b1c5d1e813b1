//! What a run reports while it goes on, for a progress display.

use std::sync::Arc;
use std::time::Duration;

use crate::content::Content;
use crate::message::{ToolCall, ToolResult};
use crate::provider::{OutputMode, caching::CacheBreak, stream::StreamEvent};
use crate::tool::Report;

pub(in crate::agent) mod reports;

/// Something that happened in a run, reported as it happens to the callback given to
/// [`RunBuilder::on_event`](super::RunBuilder::on_event).
///
/// With a callback, the agent asks the model to stream ([`Model::stream`](crate::model::Model::stream)),
/// so text arrives piece by piece; a model that cannot stream sends its answer's events at once.
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A step begins: the model request is about to be sent.
    StepStarted {
        /// The step's number, counted from 1 over the whole run.
        step: u32,
    },
    /// The request of `step` (reported after its [`StepStarted`](Event::StepStarted)) starts
    /// otherwise than the request before it, before that request's last cache breakpoint
    /// ([`Caching`](crate::provider::caching::Caching)): the provider reads less from its cache, and
    /// bills the rest as new input. Reported whenever a hook or a change between steps broke
    /// the cached start; the chat span records the same in its `skyl.cache_break` field
    /// (feature `tracing`).
    CacheBroken {
        /// The step whose request it is.
        step: u32,
        /// What differs, in the order the start is read (the model, the tools, the system
        /// prompt, the first message edited).
        causes: Vec<CacheBreak>,
    },
    /// The server refused how a typed run ([`RunBuilder::answer_as`](super::RunBuilder::answer_as))
    /// asked for its answer's schema, in words that say it will refuse it again (a compatible
    /// server without `json_schema`: llama-cpp-python's answers it with a 500), so the request of
    /// `step` is sent again asking with less, and so is every request after it in the run. The
    /// steps down, each taken once a run: from the provider's structured output to JSON mode
    /// with the schema in the system prompt ([`OutputMode::JsonObject`]), then to no structured
    /// output at all, the schema in the system prompt and an answer that does not read sent back
    /// with what was wrong. The request sent again is built afresh (hooks'
    /// [`before_request`](super::Hooks::before_request) see it, a budget checks it) under the same
    /// step, whose [`StepStarted`](Event::StepStarted) is not told twice. A run started again
    /// (resumed, or replayed from its journal) starts from the top.
    OutputFallback {
        /// The step whose request was refused.
        step: u32,
        /// How the schema travels from now on: `Some(OutputMode::JsonObject)`, or `None` for not
        /// at all.
        mode: Option<OutputMode>,
        /// Why: the refusal, as the model's error says it.
        reason: String,
    },
    /// The model said something ([`StreamEvent::TextDelta`], a tool call taking shape, the usage,
    /// the end of the answer).
    Model(StreamEvent),
    /// A tool call starts running. Calls a hook denied or answered, or that wait for approval,
    /// do not start: [`ToolAnswered`](Event::ToolAnswered) and [`ToolPaused`](Event::ToolPaused)
    /// report them.
    ToolStarted {
        /// The call.
        call: ToolCall,
    },
    /// A tool call that started has its result. Calls running concurrently finish in any order.
    ToolFinished {
        /// The tool's name.
        name: String,
        /// The result the model will read.
        result: ToolResult,
        /// How long the call ran.
        duration: Duration,
        /// The content beside the result (images, documents, …: the
        /// [`ResultContent`](crate::content::ResultContent) of this call in the transcript), empty when
        /// the result is text only. Shared: cloning the event does not copy the bytes.
        content: Arc<[Content]>,
    },
    /// A running call reported progress or wrote a log line through its
    /// [`CallContext`](crate::tool::CallContext). Reports come between the call's
    /// [`ToolStarted`](Event::ToolStarted) and [`ToolFinished`](Event::ToolFinished), in the order
    /// the tool made them.
    ToolReport {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        name: String,
        /// What the tool said.
        report: Report,
    },
    /// A call got its result without running now: a hook or a person decided it, or a journal
    /// had it already. Every call of a run is reported once, by this or by
    /// [`ToolFinished`](Event::ToolFinished), whoever decided it.
    ToolAnswered {
        /// The tool's name.
        name: String,
        /// The result the model will read.
        result: ToolResult,
        /// Who gave the result.
        by: AnsweredBy,
    },
    /// A call waits for a person's decision (before it runs, or while it runs, to answer its
    /// [`Question`](super::Question)): the run stops with
    /// [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval) once the turn's other calls have
    /// their results.
    ToolPaused {
        /// The call.
        call: ToolCall,
    },
    /// The journal of the run being resumed was written by a build whose tool `name` this
    /// toolbox defines otherwise (its description, schema or annotations changed), or lacks
    /// (`gone`: renamed or removed). Reported once per tool as the run starts, and logged (a
    /// warning, feature `tracing`); the run goes on: its recorded results stand, a call of the
    /// tool cut off mid-run is decided by what the writing build promised (it runs again only if
    /// that build marked the tool read-only or idempotent), and a new call is answered by the
    /// toolbox as it is now.
    ToolChanged {
        /// The tool's name in the build that wrote the journal.
        name: String,
        /// Whether this toolbox has no tool of that name.
        gone: bool,
    },
    /// Something that happened in the run of a sub-agent ([`AgentTool`](super::AgentTool)),
    /// under the call of the run that runs it: a sub-sub-agent's events come nested twice, so
    /// [`path`](Event::path) gives where it happened.
    Nested {
        /// The id of the call that runs the sub-agent.
        call_id: String,
        /// The name of the tool that runs the sub-agent.
        name: String,
        /// What happened in the sub-agent's run.
        event: Box<Event>,
    },
}

impl Event {
    /// Where the event happened: the calls of sub-agents it is nested under, from the run's
    /// own call down, each as `"{call id} {tool}"`; empty for an event of the run itself.
    ///
    /// ```
    /// use skyl::agent::Event;
    ///
    /// let event = Event::Nested {
    ///     call_id: "c1".into(),
    ///     name: "research".into(),
    ///     event: Box::new(Event::StepStarted { step: 2 }),
    /// };
    /// assert_eq!(event.path(), ["c1 research"]);
    /// assert_eq!(event.innermost(), &Event::StepStarted { step: 2 });
    /// ```
    pub fn path(&self) -> Vec<String> {
        let mut path = Vec::new();
        let mut event = self;
        while let Event::Nested {
            call_id,
            name,
            event: inner,
        } = event
        {
            path.push(format!("{call_id} {name}"));
            event = inner;
        }
        path
    }

    /// The event itself, out of the sub-agents' calls it is nested under.
    pub fn innermost(&self) -> &Event {
        match self {
            Event::Nested { event, .. } => event.innermost(),
            event => event,
        }
    }
}

/// Who answered a call that did not run now ([`Event::ToolAnswered`]).
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnsweredBy {
    /// A hook's [`Decision::Deny`](super::Decision::Deny) or
    /// [`Decision::Answer`](super::Decision::Answer).
    Hook,
    /// A person, who denied the call ([`Run::deny`](super::Run::deny)).
    Person,
    /// The run's journal, which had the result: the call ran (or was decided) before the run
    /// was started again, and does not run now.
    Journal,
    /// The journal says the call was started and never finished, and its tool may have effects:
    /// it does not run again, and the model is told that it may or may not have taken effect.
    OutcomeUnknown,
}
