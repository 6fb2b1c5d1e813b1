//! What a run gives back: the transcript, why it stopped, its steps and tokens; and the error a
//! failed model request ends it with, which keeps all of that.

use std::error::Error;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::message::{Message, Role};
use crate::model::Cost;
use crate::provider::Usage;
use crate::transcript;

use crate::agent::breaker::Failures;
use crate::agent::stop::Stop;
use crate::agent::turn::slot::Turn;
use crate::model::ModelError;

/// A run of an [`Agent`](super::Agent): the whole transcript, why it stopped, how many steps it
/// took and the tokens it used.
///
/// A run that stopped for approval ([`Stop::AwaitingApproval`]) also holds the results of the
/// calls that already ran, and the decisions made so far. A `Run` serializes whole (with serde),
/// so a paused run can wait in a database and be resumed by another process, with another
/// [`Agent`](super::Agent) built the same way; deserializing checks that it can be resumed.
///
/// ```
/// # use skyl::agent::Agent;
/// # use skyl::testing::ScriptedModel;
/// # use skyl::{Message, Toolbox};
/// # let agent = Agent::new(ScriptedModel::new().reply_text("Hello!"), Toolbox::new(), "m");
/// let run = agent.run(vec![Message::user("Hi")]).blocking()?;
/// assert_eq!(run.text(), "Hello!");
/// assert_eq!(run.steps(), 1);
/// assert_eq!(run.transcript().len(), 2);
///
/// let saved = serde_json::to_string(&run).unwrap();
/// let loaded: skyl::agent::Run = serde_json::from_str(&saved).unwrap();
/// assert_eq!(loaded, run);
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Stored")]
pub struct Run {
    pub(crate) transcript: Vec<Message>,
    pub(crate) stop: Stop,
    pub(crate) steps: u32,
    pub(crate) usage: Usage,
    /// What the run's requests cost, when the agent has a price for its model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cost: Option<Cost>,
    /// What the runs of its sub-agents used, at any depth, in its turns that ended.
    #[serde(default, skip_serializing_if = "Spent::is_nothing")]
    pub(crate) sub_agents: Spent,
    /// The assistant turn still being answered, while calls wait for approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) turn: Option<Turn>,
    #[serde(default, skip_serializing_if = "Failures::is_empty")]
    pub(crate) failures: Failures,
    /// The run's id, in a journaled run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    /// The format the run is saved in: [`RUN_FORMAT`].
    pub(crate) format: u32,
}

/// The format of a saved [`Run`] this code writes, and the latest it reads:
///
/// - none: saved before runs carried a format version; loads as it was.
/// - 1: the format version added.
/// - 2: approvals bound to what they approve (a paused call's definition; an approval's tool,
///   arguments, definition, run id and expiry). Version 1 runs hold the same fields, which a
///   build of version 1 may not read: the version was bumped after them, so that a build that
///   reads up to 1 says a run of this build is of a newer format instead of failing to read it.
///
/// A run of a later format is refused when loaded, naming its version and this one. Its JSON
/// shape is pinned by `tests/fixtures/stored/run.v{RUN_FORMAT}.json`: a change of that shape is
/// a new version, with a golden file of its own.
pub(crate) const RUN_FORMAT: u32 = 2;

impl Run {
    /// A run that has not made a request yet.
    pub(crate) fn start(transcript: Vec<Message>) -> Self {
        Run {
            transcript,
            stop: Stop::Answered,
            steps: 0,
            usage: Usage::default(),
            cost: None,
            sub_agents: Spent::default(),
            turn: None,
            failures: Failures::default(),
            id: None,
            format: RUN_FORMAT,
        }
    }

    /// The run's id, when it is journaled ([`RunBuilder::journaled`](super::RunBuilder::journaled)).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The transcript: the messages the run started from, then every answer of the model and
    /// every result of a tool, in order.
    ///
    /// Every call has exactly one result in it, except the calls of the last turn of a run
    /// waiting for approval.
    pub fn transcript(&self) -> &[Message] {
        &self.transcript
    }

    /// The transcript, to continue the conversation in a new run (push the user's next message
    /// and pass it to [`Agent::run`](super::Agent::run)).
    pub fn into_transcript(self) -> Vec<Message> {
        self.transcript
    }

    /// Why the run stopped.
    pub fn stop(&self) -> &Stop {
        &self.stop
    }

    /// How many model requests the run made (a resumed run counts on from where it paused).
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// The tokens all of the run's requests used, summed.
    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// What all of the run's requests cost, summed step by step at the agent's prices
    /// ([`Agent::with_prices`](super::Agent::with_prices)) for the model that gave each answer;
    /// zero for a priced run that sent nothing (its budget stopped it before its first request),
    /// and `None` when the agent has no price for a model that may answer it. Like
    /// [`usage`](Self::usage), it misses what answers with an [unreported](Usage::unreported)
    /// usage cost.
    pub fn cost(&self) -> Option<Cost> {
        self.cost
    }

    /// The tokens the run and the runs of its sub-agents ([`AgentTool`](super::AgentTool), at
    /// any depth) used, summed; [`usage`](Self::usage) is the run's own. A sub-agent's run that
    /// waits for a person counts what it used so far.
    pub fn tree_usage(&self) -> Usage {
        self.tree().usage
    }

    /// What the run and the runs of its sub-agents (at any depth) cost, each answer at the
    /// prices of the agent that asked for it; [`cost`](Self::cost) is the run's own. `None` when
    /// no run of the tree has a price.
    pub fn tree_cost(&self) -> Option<Cost> {
        self.tree().cost
    }

    /// What the run and its sub-agents used.
    pub(crate) fn tree(&self) -> Spent {
        let mut spent = Spent {
            usage: self.usage.clone(),
            cost: self.cost,
        };
        spent.add(&self.sub_agents);
        if let Some(turn) = &self.turn {
            spent.add(&turn.spent);
            for run in turn.slots.iter().filter_map(|slot| slot.sub_run()) {
                spent.add(&run.tree());
            }
        }
        spent
    }

    /// The text of the model's last answer (empty when it held only tool calls).
    pub fn text(&self) -> String {
        self.transcript
            .iter()
            .rev()
            .find(|message| message.role == Role::Assistant)
            .map(Message::text_content)
            .unwrap_or_default()
    }
}

/// Tokens used and what they cost: what the runs of a run's sub-agents spent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Spent {
    pub(crate) usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cost: Option<Cost>,
}

impl Spent {
    /// Whether nothing was spent, nor priced.
    pub(crate) fn is_nothing(&self) -> bool {
        *self == Spent::default()
    }

    /// Adds `other` to this.
    pub(crate) fn add(&mut self, other: &Spent) {
        add_usage(&mut self.usage, &other.usage);
        self.cost = match (self.cost, other.cost) {
            (None, None) => None,
            (a, b) => Some(
                a.unwrap_or(Cost::ZERO)
                    .saturating_add(b.unwrap_or(Cost::ZERO)),
            ),
        };
    }
}

/// Adds one request's tokens to a run's.
pub(crate) fn add_usage(total: &mut Usage, step: &Usage) {
    fn add(total: Option<u64>, step: Option<u64>) -> Option<u64> {
        match (total, step) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
        }
    }
    total.input_tokens = total.input_tokens.saturating_add(step.input_tokens);
    total.output_tokens = total.output_tokens.saturating_add(step.output_tokens);
    total.cached_input_tokens = add(total.cached_input_tokens, step.cached_input_tokens);
    total.cache_write_tokens = add(total.cache_write_tokens, step.cache_write_tokens);
    total.reasoning_tokens = add(total.reasoning_tokens, step.reasoning_tokens);
    total.unreported |= step.unreported;
}

/// A run as stored, checked before it becomes a [`Run`] that can be resumed.
#[derive(Deserialize)]
struct Stored {
    transcript: Vec<Message>,
    stop: Stop,
    steps: u32,
    usage: Usage,
    #[serde(default)]
    cost: Option<Cost>,
    #[serde(default)]
    sub_agents: Spent,
    #[serde(default)]
    turn: Option<Turn>,
    #[serde(default)]
    failures: Failures,
    #[serde(default)]
    id: Option<String>,
    /// Absent in a run saved before runs carried a format version.
    #[serde(default)]
    format: Option<u32>,
}

impl TryFrom<Stored> for Run {
    type Error = String;

    fn try_from(stored: Stored) -> Result<Self, String> {
        let named = match &stored.id {
            Some(id) => format!("run \"{id}\""),
            None => "this run".to_owned(),
        };
        let cannot = |why: String| format!("{named} cannot be resumed: {why}");
        if let Some(format) = stored.format
            && format > RUN_FORMAT
        {
            return Err(cannot(format!(
                "it was saved in format version {format}, and this skyl reads up to version {RUN_FORMAT}; load it with the newer skyl that saved it"
            )));
        }
        match &stored.turn {
            Some(turn) => {
                transcript::validate(&stored.transcript)
                    .map_err(|error| cannot(error.to_string()))?;
                let calls = stored
                    .transcript
                    .last()
                    .filter(|message| message.role == Role::Assistant)
                    .map_or(0, |message| message.tool_calls().count());
                if calls == 0 || calls != turn.slots.len() {
                    return Err(cannot(format!(
                        "it waits on {} tool calls, but the transcript's last message is not an assistant turn with as many calls; store and load the run whole",
                        turn.slots.len()
                    )));
                }
                if stored.stop != Stop::AwaitingApproval {
                    return Err(cannot(format!(
                        "its calls wait for approval, but it says it stopped because {}",
                        stored.stop
                    )));
                }
            }
            None => {
                transcript::validate_complete(&stored.transcript)
                    .map_err(|error| cannot(error.to_string()))?;
                if stored.stop == Stop::AwaitingApproval {
                    return Err(cannot(
                        "it says calls wait for approval, but it holds no calls waiting; store and load the run whole".into(),
                    ));
                }
            }
        }
        Ok(Run {
            transcript: stored.transcript,
            stop: stored.stop,
            steps: stored.steps,
            usage: stored.usage,
            cost: stored.cost,
            sub_agents: stored.sub_agents,
            turn: stored.turn,
            failures: stored.failures,
            id: stored.id,
            format: RUN_FORMAT,
        })
    }
}

/// A run that ended because a model request failed.
///
/// Nothing is lost: the error holds the run as it was before the failed request, every result
/// of every tool that ran included. Send the request again with
/// [`Agent::resume`](super::Agent::resume)`(error.into_run())`, once the cause is fixed or the
/// provider is reachable again ([`ModelError::is_retryable`] says whether that can help as it is).
///
/// ```
/// use skyl::agent::{Agent, Stop};
/// use skyl::model::ModelError;
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, Toolbox};
///
/// let model = ScriptedModel::new()
///     .fail(ModelError::provider(529, "Overloaded").with_provider(skyl::provider::Provider::Anthropic))
///     .reply_text("Hello!");
/// let agent = Agent::new(model, Toolbox::new(), "claude-sonnet-4-5");
///
/// let error = agent.run(vec![Message::user("Hi")]).blocking().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "the model request of step 1 failed; the run so far is kept in this error: resume it with \
///      Agent::resume(error.into_run())"
/// );
/// // Why, is the cause's to say.
/// assert_eq!(
///     std::error::Error::source(&error).unwrap().to_string(),
///     "Anthropic answered HTTP 529: Overloaded"
/// );
/// assert!(error.model_error().is_retryable());
/// assert!(matches!(error.run().stop(), Stop::Failed { .. }));
///
/// let run = agent.resume(error.into_run()).blocking().unwrap();
/// assert_eq!(run.text(), "Hello!");
/// ```
#[derive(Debug)]
pub struct RunError(Box<Failed>);

#[derive(Debug)]
struct Failed {
    error: ModelError,
    run: Run,
    step: u32,
}

impl RunError {
    /// `run` stopped at `step` because of `error`.
    pub(crate) fn new(error: ModelError, mut run: Run, step: u32) -> Self {
        run.stop = Stop::Failed {
            error: error.to_string(),
        };
        RunError(Box::new(Failed { error, run, step }))
    }

    /// Why the model request failed.
    pub fn model_error(&self) -> &ModelError {
        &self.0.error
    }

    /// The step whose request failed, counted from 1 over the whole run.
    pub fn step(&self) -> u32 {
        self.0.step
    }

    /// The transcript built before the failure, every tool result included.
    pub fn transcript(&self) -> &[Message] {
        &self.0.run.transcript
    }

    /// The run as it was before the failed request; it stopped with [`Stop::Failed`].
    pub fn run(&self) -> &Run {
        &self.0.run
    }

    /// The run, to resume with [`Agent::resume`](super::Agent::resume) or to store.
    pub fn into_run(self) -> Run {
        self.0.run
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Why it failed is the model error's to say (`source()`).
        write!(
            f,
            "the model request of step {} failed; the run so far is kept in this error: resume it with Agent::resume(error.into_run())",
            self.0.step,
        )
    }
}

impl Error for RunError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&self.0.error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_adds_up_and_keeps_unreported_counts_unreported() {
        let mut total = Usage::default();
        add_usage(
            &mut total,
            &Usage {
                input_tokens: 10,
                output_tokens: 2,
                cached_input_tokens: Some(4),
                cache_write_tokens: Some(6),
                reasoning_tokens: None,
                unreported: false,
            },
        );
        add_usage(
            &mut total,
            &Usage {
                input_tokens: u64::MAX,
                output_tokens: 3,
                cached_input_tokens: None,
                cache_write_tokens: Some(1),
                reasoning_tokens: None,
                unreported: true,
            },
        );
        assert_eq!(
            total,
            Usage {
                input_tokens: u64::MAX,
                output_tokens: 5,
                cached_input_tokens: Some(4),
                cache_write_tokens: Some(7),
                reasoning_tokens: None,
                // One answer's usage is unknown, so the total misses it.
                unreported: true,
            }
        );
    }
}
