//! The agent loop, with no I/O of its own: a [`Model`](crate::model::Model) answers, the
//! [`Toolbox`](crate::Toolbox) answers every call the model makes, and an [`Agent`] repeats that
//! until a stop condition holds.
//!
//! - [`Model`](crate::model::Model) is the one seam to a provider: the HTTP transport, a
//!   [`ScriptedModel`](crate::testing::ScriptedModel) in tests, or your own client.
//! - [`Agent`] holds the model, the tools and the rules; [`Agent::run`] returns a [`Run`]: the
//!   transcript, why it stopped ([`Stop`]), its steps and the tokens used.
//! - [`StopWhen`] adds stop conditions to the defaults (the model answered without a tool call;
//!   the step limit).
//! - [`Hooks`] step into each request and each call: change the request, run, deny, answer or
//!   pause a call ([`Decision`]), observe results and steps.
//! - A paused run waits for approval ([`Run::approve`], [`Run::deny`]) and serializes, so it can
//!   be resumed elsewhere with [`Agent::resume`]. A call that asks the person a [`Question`]
//!   while it runs (a mounted MCP server's elicitation) pauses the run the same way, until
//!   [`Run::reply`].
//! - [`Event`]s report progress while a run goes on ([`RunBuilder::on_event`]).
//! - An agent can be a tool of another ([`AgentTool`]): its run journaled inside the caller's,
//!   a call that waits deep inside pausing the top run ([`Run::waiting`], [`Run::approve_at`]),
//!   its events nested ([`Event::Nested`]). A [`Handoff`] passes the conversation to another
//!   agent ([`Agent::take_over`]).
//!
//! Whatever happens, every call the model makes gets exactly one result, and the transcript a
//! run hands back (or keeps in its [`RunError`]) is one every provider adapter accepts.

// The file that holds `Agent` is named for it, as `run.rs` holds `Run`.
#[allow(clippy::module_inception)]
mod agent;
mod approval;
pub(crate) mod asking;
mod breaker;
mod budget;
mod driver;
mod event;
mod handoff;
pub mod hooks;
pub mod journal;
mod ledger;
mod nested;
mod output_fallback;
mod question;
mod replay;
mod request;
mod run;
mod step;
mod stop;
mod telemetry;
mod tool_search;
mod turn;
mod typed;

pub use agent::Agent;
pub use approval::NotAwaiting;
pub use budget::{Budget, BudgetLimit};
pub use driver::{JournaledRun, RunBuilder};
pub use event::{AnsweredBy, Event};
pub use handoff::{Handoff, TakeOverError};
pub use question::{Question, Reply};
// Defined beside the closures of `hooks`; these are their one public path.
pub use hooks::points::{Decision, Hooks};
pub use journal::error::{DurableRunError, JournalError};
pub use journal::seam::{Entry, Journal};
// What a call reads of its own key lives with the tool's view of its call; the run sets it.
pub use crate::tool::effect::effect_key;
pub use nested::{AgentTool, Waiting};
pub use run::{Run, RunError};
pub use step::Step;
pub use stop::{Stop, StopWhen};
pub use tool_search::ToolSearch;
pub use typed::{AnswerError, DEFAULT_CORRECTIONS, TypedAnswer, TypedRun};

/// Locks `mutex`, a poisoned one too: the agent's shared records (reports, questions, journal
/// groups) stay whole whichever call panicked while holding them.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
