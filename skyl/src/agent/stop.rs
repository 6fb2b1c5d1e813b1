//! When a run stops: the conditions an agent checks after each step, and the reason a run gives.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::agent::budget::{BudgetLimit, Refusal};
use crate::agent::step::Step;
use crate::model::Cost;
use crate::prose;

/// Why a run stopped.
///
/// Non-exhaustive: match it with a wildcard arm.
///
/// ```
/// use skyl::agent::Stop;
///
/// assert_eq!(
///     Stop::Breaker { tool: "search".into(), failures: 3 }.to_string(),
///     "the model called search with the same arguments 3 times and it failed each time"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Stop {
    /// The model answered without calling a tool: the usual end of a run.
    Answered,
    /// The run made as many model requests as
    /// [`Agent::with_max_steps`](super::Agent::with_max_steps) allows; the last step's calls have
    /// their results.
    StepLimit {
        /// The limit.
        steps: u32,
    },
    /// The model called a tool that ends the run ([`StopWhen::tool_called`]); its result is the
    /// last message of the transcript.
    ToolCalled {
        /// The tool's name.
        name: String,
    },
    /// The run used its token budget ([`StopWhen::token_budget`]).
    TokenBudget {
        /// The budget.
        budget: u64,
        /// The input and output tokens the run used.
        used: u64,
    },
    /// The next request could have passed a limit of the run's
    /// [`Budget`](super::Budget), so it was not sent: what the run used and the most the request
    /// could use passed `max`. The transcript ends where it did before the request.
    Budget {
        /// The limit.
        limit: BudgetLimit,
        /// The limit's value: tokens, or for [`BudgetLimit::Cost`] [`Cost::nanos`].
        max: u64,
        /// What the run used of it before the request (an answer whose usage the provider did
        /// not report counts as the most its request could use): with sub-agents, what the
        /// budget's whole tree used, and holds for its requests in flight.
        used: u64,
        /// The most the request could have used of it.
        next: u64,
    },
    /// The run has a cost limit ([`Budget::cost`](super::Budget::cost)) and no price for its
    /// model ([`Agent::with_prices`](super::Agent::with_prices)), so no request was sent.
    Unpriced {
        /// The model's name, as requests carry it.
        model: String,
    },
    /// A caller's condition ([`StopWhen::predicate`]) held after a step.
    Condition {
        /// The condition's label.
        label: String,
    },
    /// The model repeated a failing call (same tool, same arguments) as many times as the
    /// breaker allows ([`Agent::with_breaker`](super::Agent::with_breaker)).
    Breaker {
        /// The tool it kept calling.
        tool: String,
        /// How many times that call failed.
        failures: u32,
    },
    /// Tool calls wait for a person's decision: see [`Run::awaiting_approval`](super::Run::awaiting_approval).
    AwaitingApproval,
    /// A model request failed; only the run in a [`RunError`](super::RunError) stops this way.
    /// [`Agent::resume`](super::Agent::resume) sends the request again.
    Failed {
        /// What failed, as the error said it.
        error: String,
    },
}

impl From<Refusal> for Stop {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Over {
                limit,
                max,
                used,
                next,
            } => Stop::Budget {
                limit,
                max,
                used,
                next,
            },
            Refusal::Unpriced { model } => Stop::Unpriced { model },
        }
    }
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Answered => f.write_str("the model answered without calling a tool"),
            Stop::StepLimit { steps } => write!(f, "the run reached its limit of {steps} steps"),
            Stop::ToolCalled { name } => write!(f, "the model called {name}, which ends the run"),
            Stop::TokenBudget { budget, used } => {
                write!(f, "the run used {used} tokens of its budget of {budget}")
            }
            Stop::Budget {
                limit,
                max,
                used,
                next,
            } => f.write_str(&match limit {
                BudgetLimit::InputTokens => prose::input_budget(*max, *used, *next),
                BudgetLimit::OutputTokens => prose::output_budget(*max, *used, *next),
                BudgetLimit::Cost => prose::cost_budget(
                    Cost::from_nanos(*max),
                    Cost::from_nanos(*used),
                    Cost::from_nanos(*next),
                ),
            }),
            Stop::Unpriced { model } => f.write_str(&prose::unpriced(model)),
            Stop::Condition { label } => write!(f, "the stop condition \"{label}\" held"),
            Stop::Breaker { tool, failures } => write!(
                f,
                "the model called {tool} with the same arguments {failures} times and it failed each time"
            ),
            Stop::AwaitingApproval => f.write_str("tool calls are waiting for approval"),
            Stop::Failed { error } => write!(f, "a model request failed: {error}"),
        }
    }
}

/// A condition that ends a run after a step, besides the model answering without a tool call and
/// the step limit, which every agent has.
///
/// Add any number with [`Agent::with_stop`](super::Agent::with_stop); the run stops after the
/// first step that meets one, once that step's calls have their results. They are checked in the
/// order they were added, after the breaker.
///
/// ```
/// use skyl::agent::StopWhen;
///
/// let conditions = [
///     StopWhen::tool_called("final_answer"),
///     StopWhen::token_budget(50_000),
///     StopWhen::predicate("an error result", |step| {
///         step.results().is_some_and(|results| results.tool_results().any(|r| r.is_error))
///     }),
/// ];
/// # let _ = conditions;
/// ```
#[derive(Clone)]
pub struct StopWhen(Condition);

#[derive(Clone)]
enum Condition {
    ToolCalled(String),
    TokenBudget(u64),
    Predicate {
        label: String,
        test: Arc<dyn Fn(&Step<'_>) -> bool + Send + Sync>,
    },
}

impl StopWhen {
    /// Stop once the model has called the tool `name`: a "final answer" tool, whose arguments are
    /// the run's result. The call runs (a hook may still deny or answer it) and its result ends
    /// the transcript.
    pub fn tool_called(name: impl Into<String>) -> Self {
        StopWhen(Condition::ToolCalled(name.into()))
    }

    /// Stop once the run's input and output tokens add up to `tokens` or more.
    ///
    /// It is checked after each step, so the step that crosses the budget completes. Input
    /// tokens count on every request, the history included, as providers bill them.
    /// For a limit that no request can pass, checked before each request, use a
    /// [`Budget`](super::Budget).
    pub fn token_budget(tokens: u64) -> Self {
        StopWhen(Condition::TokenBudget(tokens))
    }

    /// Stop when `test` holds for a step. `label` names the condition in [`Stop::Condition`].
    pub fn predicate(
        label: impl Into<String>,
        test: impl Fn(&Step<'_>) -> bool + Send + Sync + 'static,
    ) -> Self {
        StopWhen(Condition::Predicate {
            label: label.into(),
            test: Arc::new(test),
        })
    }

    /// Why the run stops after `step`, if this condition holds.
    pub(crate) fn check(&self, step: &Step<'_>) -> Option<Stop> {
        match &self.0 {
            Condition::ToolCalled(name) => step
                .tool_calls()
                .any(|call| call.name == *name)
                .then(|| Stop::ToolCalled { name: name.clone() }),
            Condition::TokenBudget(budget) => {
                let usage = step.run_usage();
                let used = usage.input_tokens.saturating_add(usage.output_tokens);
                (used >= *budget).then_some(Stop::TokenBudget {
                    budget: *budget,
                    used,
                })
            }
            Condition::Predicate { label, test } => test(step).then(|| Stop::Condition {
                label: label.clone(),
            }),
        }
    }
}

impl fmt::Debug for StopWhen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Condition::ToolCalled(name) => f.debug_tuple("ToolCalled").field(name).finish(),
            Condition::TokenBudget(tokens) => f.debug_tuple("TokenBudget").field(tokens).finish(),
            Condition::Predicate { label, .. } => f.debug_tuple("Predicate").field(label).finish(),
        }
    }
}
