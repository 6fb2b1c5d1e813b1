//! Handoffs: an agent hands the conversation to another agent, which goes on with it under its
//! own instructions, tools and model (any provider).
//!
//! The first agent has a [`Handoff`] tool (`transfer_to_{name}`); its run stops when the model
//! calls it, with the call answered. The application then lets the other agent
//! [`take_over`](Agent::take_over) the run: a new run of that agent from the whole transcript.
//! The transcript is one every adapter accepts (every call answered), and what one provider
//! returned for itself only (an Anthropic thinking block, a Gemini thought signature) is sent
//! back to that provider only, so the new agent's provider reads the conversation as its own.
//!
//! The feature's entry points are methods of the types they act on, written here beside it:
//! [`Agent::with_handoff`], [`Agent::take_over`] and [`Run::handed_to`].

use std::error::Error;
use std::fmt;

use serde_json::{Value, json};

use crate::prose::run as prose;
use crate::tool::{Tool, ToolDefinition, ToolFuture};
use crate::transcript::{self, TranscriptError};

use crate::agent::agent::Agent;
use crate::agent::driver::RunBuilder;
use crate::agent::hooks::points::Hooks;
use crate::agent::run::Run;
use crate::agent::stop::{Stop, StopWhen};

/// The prefix of a handoff tool's name: `transfer_to_{agent}`.
const PREFIX: &str = "transfer_to_";

/// A tool that hands the conversation to another agent: calling it ends the run of the agent
/// that has it ([`Agent::with_handoff`]), and [`Run::handed_to`] names the agent to go on with.
///
/// ```
/// use serde_json::json;
/// use skyl::agent::{Agent, Handoff};
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// let triage = Agent::new(
///     ScriptedModel::new().reply_calls([ToolCall::new("c1", "transfer_to_billing", json!({}))]),
///     Toolbox::new(),
///     "claude-haiku-4-5",
/// )
/// .with_system("Send billing questions to billing.")
/// .with_handoff(Handoff::to("billing", "Questions about invoices and payments."));
/// let billing = Agent::new(
///     ScriptedModel::new().reply_text("Your invoice was paid on May 2."),
///     Toolbox::new(),
///     "gpt-5-mini",
/// )
/// .with_system("You answer billing questions.");
///
/// let run = triage.run(vec![Message::user("Was my invoice paid?")]).blocking()?;
/// assert_eq!(run.handed_to(), Some("billing"));
/// let run = billing.take_over(&run).unwrap().blocking()?;
/// assert_eq!(run.text(), "Your invoice was paid on May 2.");
/// assert_eq!(run.transcript().len(), 4);
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Handoff {
    definition: ToolDefinition,
    to: String,
}

impl Handoff {
    /// A handoff to the agent called `agent`, described to the model by `when` (what that agent
    /// is for). The tool is named `transfer_to_{agent}` and takes no arguments.
    pub fn to(agent: impl Into<String>, when: impl Into<String>) -> Self {
        let to = agent.into();
        let mut definition = ToolDefinition {
            name: format!("{PREFIX}{to}"),
            description: prose::handoff_description(&to, &when.into()),
            parameters: json!({"type": "object", "properties": {}}),
            ..Default::default()
        };
        definition.annotations.read_only = Some(true);
        Handoff { definition, to }
    }

    /// The agent it hands to.
    pub fn agent(&self) -> &str {
        &self.to
    }

    /// The tool's name: `transfer_to_{agent}`.
    pub fn tool_name(&self) -> &str {
        &self.definition.name
    }
}

impl<S> Tool<S> for Handoff {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, _: &'a Value, _: &'a S) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(prose::handed_off(&self.to)))
    }
}

impl<S: Send + Sync + 'static, H: Hooks> Agent<S, H> {
    /// Adds the tool of `handoff`, and ends each run once the model has called it (its call
    /// answered): [`Run::handed_to`] then names the agent to go on with.
    ///
    /// # Panics
    ///
    /// If the toolbox already has a tool of that name, as [`Toolbox::with`](crate::Toolbox::with)
    /// does.
    pub fn with_handoff(mut self, handoff: Handoff) -> Self {
        self.stop_when
            .push(StopWhen::tool_called(handoff.tool_name()));
        self.toolbox = self.toolbox.with(handoff);
        self
    }

    /// Goes on with the conversation of `run`, which another agent ran (on any provider): a new
    /// run of this agent, with its own instructions, tools and model, from `run`'s transcript.
    ///
    /// The transcript must be complete (every call answered): a run that waits for approval
    /// cannot be taken over before it is resumed. What the other agent's provider returned for
    /// itself alone stays in the transcript and is sent back to that provider only; the calls
    /// of tools this agent lacks stay as they are, as history. What each provider keeps:
    ///
    /// - Every provider gets the calls and results as calls and results, with ids made valid
    ///   for its rules. An agent without tools declares the tools the history called, each
    ///   taking any object and described as not callable now, with the tool choice `none`:
    ///   Anthropic refuses calls in a request without tools, and no model may call them.
    /// - Anthropic with extended thinking (`thinking` in the request's fields) gets the calls of
    ///   the final assistant message, and their results, as text, when that message does not
    ///   open with an Anthropic thinking block (written by another provider, or by Anthropic
    ///   without thinking): the API refuses such a message in the middle of its turn. Earlier
    ///   turns keep their calls.
    /// - Gemini 3 refuses a call of the current turn (since the user's last words) without the
    ///   thought signature only Gemini writes, and skyl does not lower those: to hand another
    ///   provider's calls over to Gemini 3, add the user's next message to the transcript
    ///   first, or use a Gemini model before 3.
    pub fn take_over(&self, run: &Run) -> Result<RunBuilder<'_, S, H>, TakeOverError> {
        if run.stop() == &Stop::AwaitingApproval {
            return Err(TakeOverError::Waiting);
        }
        transcript::validate_complete(run.transcript()).map_err(TakeOverError::Transcript)?;
        Ok(self.run(run.transcript().to_vec()))
    }
}

impl Run {
    /// The agent the run handed the conversation to: the agent of the [`Handoff`] whose tool
    /// the model called last, when that ended the run.
    pub fn handed_to(&self) -> Option<&str> {
        match self.stop() {
            Stop::ToolCalled { name } => name.strip_prefix(PREFIX),
            _ => None,
        }
    }
}

/// Why [`Agent::take_over`] refused a run.
#[derive(Debug)]
#[non_exhaustive]
pub enum TakeOverError {
    /// The run waits for approval: its last calls have no results yet.
    Waiting,
    /// The transcript breaks a rule every provider enforces.
    Transcript(TranscriptError),
}

impl fmt::Display for TakeOverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TakeOverError::Waiting => f.write_str(
                "the run waits for approval, so its last calls have no results; decide about them and resume it, then hand its conversation over",
            ),
            TakeOverError::Transcript(_) => f.write_str(
                "the run's transcript cannot be sent to a provider as it is; hand over the transcript of a run as skyl returned it",
            ),
        }
    }
}

impl Error for TakeOverError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            TakeOverError::Waiting => None,
            TakeOverError::Transcript(error) => Some(error),
        }
    }
}
