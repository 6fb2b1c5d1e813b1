//! One step of a run, as hooks and stop conditions see it.

use serde::{Deserialize, Serialize};

use crate::message::{Message, Role, ToolCall};
use crate::model::{Cost, Price};
use crate::provider::{Response, StopReason, Usage};

/// One step of a run, just finished: the model's answer and, when it called tools, their results.
///
/// [`Hooks::after_step`](super::Hooks::after_step) and
/// [`StopWhen::predicate`](super::StopWhen::predicate) receive it. It borrows the run's
/// transcript, which ends with this step.
#[derive(Clone, Copy, Debug)]
pub struct Step<'a> {
    number: u32,
    transcript: &'a [Message],
    assistant: usize,
    answer: &'a ResponseMeta,
    run_usage: &'a Usage,
    price: Option<&'a Price>,
    run_cost: Option<Cost>,
}

impl<'a> Step<'a> {
    pub(crate) fn new(
        number: u32,
        transcript: &'a [Message],
        assistant: usize,
        answer: &'a ResponseMeta,
        run_usage: &'a Usage,
        (price, run_cost): (Option<&'a Price>, Option<Cost>),
    ) -> Self {
        Step {
            number,
            transcript,
            assistant,
            answer,
            run_usage,
            price,
            run_cost,
        }
    }

    /// The step's number, counted from 1 over the whole run (a resumed run goes on counting).
    pub fn number(&self) -> u32 {
        self.number
    }

    /// The model's answer: the assistant message, as appended to the transcript.
    pub fn message(&self) -> &'a Message {
        &self.transcript[self.assistant]
    }

    /// The tool calls the model made in this step, in order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &'a ToolCall> + 'a {
        self.message().tool_calls()
    }

    /// The [`Role::Tool`] message answering the step's calls; `None` when the model called no tool.
    pub fn results(&self) -> Option<&'a Message> {
        self.transcript
            .get(self.assistant + 1)
            .filter(|message| message.role == Role::Tool)
    }

    /// Why the model stopped its answer.
    pub fn stop_reason(&self) -> &'a StopReason {
        &self.answer.stop_reason
    }

    /// The tokens this step's request used.
    pub fn usage(&self) -> &'a Usage {
        &self.answer.usage
    }

    /// The tokens the whole run has used so far, this step included.
    pub fn run_usage(&self) -> &'a Usage {
        self.run_usage
    }

    /// What this step's request cost, at the agent's prices
    /// ([`Agent::with_prices`](super::Agent::with_prices)) for the model that answered it (a
    /// [`Failover`](crate::model::Failover) member's, [`Response::requested_model`]); `None`
    /// without a price for that model.
    pub fn cost(&self) -> Option<Cost> {
        self.price.map(|price| price.cost(&self.answer.usage))
    }

    /// What the run's requests cost so far, this step's included; `None` without a price.
    pub fn run_cost(&self) -> Option<Cost> {
        self.run_cost
    }

    /// The provider's id for the answer, when it gave one.
    pub fn response_id(&self) -> Option<&'a str> {
        self.answer.id.as_deref()
    }

    /// The model that answered, as the provider names it, when it said.
    pub fn response_model(&self) -> Option<&'a str> {
        self.answer.model.as_deref()
    }

    /// Which of several models answered: the name of the [`Member`](crate::model::Member) of a
    /// [`Failover`](crate::model::Failover) that gave this step's answer; `None` for a single
    /// model.
    pub fn answered_by(&self) -> Option<&'a str> {
        self.answer.answered_by.as_deref()
    }

    /// The run's whole transcript, ending with this step.
    pub fn transcript(&self) -> &'a [Message] {
        self.transcript
    }
}

/// What a [`Response`] says besides its message (which goes into the transcript).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ResponseMeta {
    pub(crate) stop_reason: StopReason,
    pub(crate) usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) answered_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) requested_model: Option<String>,
}

impl ResponseMeta {
    /// Splits a response into its message and the rest.
    pub(crate) fn split(response: Response) -> (Message, ResponseMeta) {
        let Response {
            message,
            stop_reason,
            usage,
            id,
            model,
            answered_by,
            requested_model,
        } = response;
        (
            message,
            ResponseMeta {
                stop_reason,
                usage,
                id,
                model,
                answered_by,
                requested_model,
            },
        )
    }
}
