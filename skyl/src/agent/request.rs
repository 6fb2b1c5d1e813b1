//! A step's request: built from the run, changed by the hooks, checked against the budget, sent
//! (streamed when someone listens), and what its answer says about the next one's size.

use std::borrow::Cow;

use crate::message::Message;
use crate::model::Cost;
use crate::provider::{Request, Response, ToolChoice, Usage};
use crate::tool::ToolDefinition;

use crate::model::{Model, ModelError};

use crate::agent::budget::{Last, Measured, Pricing};
use crate::agent::driver::Driver;
use crate::agent::event::Event;
use crate::agent::hooks::points::Hooks;
use crate::agent::ledger::Ledger;
use crate::agent::run::Run;
use crate::agent::step::ResponseMeta;
use crate::agent::stop::Stop;
use crate::agent::telemetry::Span;

/// What became of a step's request.
pub(super) enum Sent {
    /// It was sent, and this is the answer.
    Answer(Response),
    /// It was not sent: it could have taken the run over its budget.
    Stopped(Stop),
}

/// When a request would have no tools and `transcript` has calls: a definition of each tool the
/// calls name, in the order first called, which takes any object and says that it cannot be
/// called now.
fn history_tools(tools: &[ToolDefinition], transcript: &[Message]) -> Option<Vec<ToolDefinition>> {
    if !tools.is_empty() {
        return None;
    }
    let mut history: Vec<ToolDefinition> = Vec::new();
    for call in transcript.iter().flat_map(Message::tool_calls) {
        if !history.iter().any(|tool| tool.name == call.name) {
            history.push(ToolDefinition {
                name: call.name.clone(),
                description: crate::prose::run::history_tool(&call.name),
                parameters: serde_json::json!({"type": "object", "properties": {}}),
                ..Default::default()
            });
        }
    }
    (!history.is_empty()).then_some(history)
}

/// A step's request, over the run's driver: its agent, what a typed run expects, its budgets,
/// the last request sent, the watch on the provider's cache and its event callback.
pub(super) struct Requesting<'d, 'a, S, H> {
    pub(super) driver: &'d mut Driver<'a, S, H>,
}

impl<'a, S: Send + Sync + 'static, H: Hooks> Requesting<'_, 'a, S, H> {
    /// The request of the step after `run`'s last, before hooks change it.
    fn build<'r>(&self, run: &'r Run) -> Request<'r>
    where
        'a: 'r,
    {
        let agent = self.driver.agent;
        let definitions = agent.toolbox.definitions();
        let (tools, deferred_tools) = match &agent.tool_search {
            Some(search) if search.is_native() => (
                Cow::Borrowed(definitions),
                Cow::Owned(search.deferred(definitions)),
            ),
            Some(search) => (
                Cow::Owned(search.offered(definitions, &run.transcript)),
                Cow::Borrowed(&[][..]),
            ),
            None => (Cow::Borrowed(definitions), Cow::Borrowed(&[][..])),
        };
        // An agent without tools, whose transcript has calls (of the agent it took over from):
        // Anthropic refuses calls in a request without tools ("Requests which include
        // `tool_use` or `tool_result` blocks must define tools"), so the tools the history
        // called are declared, and refused to the model.
        let (tools, tool_choice) = match history_tools(&tools, &run.transcript) {
            Some(history) => (Cow::Owned(history), ToolChoice::None),
            None => (tools, ToolChoice::Auto),
        };
        // A typed run asks for its schema as far down as its server made it step
        // (`output_fallback.rs`).
        let fallback = self.driver.fallback;
        let system = agent.system.as_deref();
        Request {
            model: Cow::Borrowed(&agent.model_name),
            system: match self.driver.answer {
                Some(expected) => fallback.system(system, &expected.schema),
                None => system.map(Cow::Borrowed),
            },
            messages: Cow::Borrowed(&run.transcript),
            tools,
            tool_choice,
            output: self
                .driver
                .answer
                .and_then(|expected| fallback.output(&expected.schema)),
            max_tokens: agent.max_tokens,
            extra: agent.extra.clone(),
            deferred_tools,
            caching: agent.caching.clone(),
        }
    }

    /// Counts `answer`, replayed from the journal for the step after `run`'s last, as it was
    /// counted when its request was sent, so that a budget bounds the next request the same way
    /// on a replay (hooks aside, which a replay does not call).
    pub(super) fn count_replayed(&mut self, run: &Run, answer: &ResponseMeta) {
        if self.driver.ledgers.is_empty() {
            return;
        }
        let mut request = self.build(run);
        let measured = Measured::of(
            self.driver.agent.model.as_ref(),
            &request,
            self.driver.last_request.as_ref(),
        );
        let pricing = self.pricing(&request);
        let cost = self.cost_of(answer.requested_model.as_deref(), &answer.usage);
        let counted = (&answer.usage, cost);
        Ledger::count(
            &self.driver.ledgers,
            &mut request,
            &measured,
            &pricing,
            counted,
        );
        self.count(&answer.usage, answer.requested_model.as_deref(), measured);
    }

    /// What `usage` cost at the price of the model named `model` (the agent's when `None`);
    /// nothing without a price.
    fn cost_of(&self, model: Option<&str>, usage: &Usage) -> Cost {
        let agent = self.driver.agent;
        agent
            .prices
            .get(model.unwrap_or(&agent.model_name))
            .map_or(Cost::ZERO, |price| price.cost(usage))
    }

    /// The prices of the models that may answer `request`.
    fn pricing(&self, request: &Request<'_>) -> Pricing<'a> {
        let agent = self.driver.agent;
        Pricing::of(&agent.prices, &agent.model.model_names(request))
    }

    /// Whether the agent has a price for a model that may answer the next request of `run`: a
    /// run that has one costs zero before its first answer, rather than nothing known.
    pub(super) fn priced(&self, run: &Run) -> bool {
        self.pricing(&self.build(run)).any()
    }

    /// Keeps the request `measured`, whose answer under the model name `model` (the agent's
    /// when `None`) reported `usage`, to bound the next request from; an unreported count says
    /// nothing about the request, and the next is bounded by its size alone.
    fn count(&mut self, usage: &Usage, model: Option<&str>, measured: Measured) {
        if usage.unreported {
            self.driver.last_request = None;
            return;
        }
        let model = model.unwrap_or(&self.driver.agent.model_name).to_owned();
        self.driver.last_request = Some(Last::answered(measured, usage.input_tokens, model));
    }

    /// Sends the request of step `step` and reads the answer; or, when the request could take
    /// the run over its budget, sends nothing and says why the run stops.
    ///
    /// A typed run whose server refuses how the answer's schema is asked for sends the request
    /// again asking with less (`output_fallback.rs`), says so ([`Event::OutputFallback`]), and
    /// asks so for the rest of the run.
    pub(super) async fn request(&mut self, run: &Run, step: u32) -> Result<Sent, ModelError> {
        let mut first = true;
        loop {
            let error = match self.send(run, step, first).await {
                Err(error) => error,
                sent => return sent,
            };
            let next = self
                .driver
                .answer
                .and_then(|_| self.driver.fallback.after(&error));
            let Some(next) = next else {
                return Err(error);
            };
            self.driver.fallback = next;
            self.driver.event(|| Event::OutputFallback {
                step,
                mode: next.mode(),
                reason: error.to_string(),
            });
            first = false;
        }
    }

    /// [`request`](Self::request) once; `first` when it is the step's first, which is reported
    /// as the step's start.
    async fn send(&mut self, run: &Run, step: u32, first: bool) -> Result<Sent, ModelError> {
        let agent = self.driver.agent;
        let mut request = self.build(run);
        agent.hooks.before_request(step, &mut request).await;
        // After the hooks, so that what they add or reorder is sent in the same order too.
        let found: Vec<String> = match &agent.tool_search {
            Some(search) if !search.is_native() => search
                .found(agent.toolbox.definitions(), &run.transcript)
                .into_iter()
                .map(|tool| tool.name.clone())
                .collect(),
            _ => Vec::new(),
        };
        crate::provider::wire_order(&mut request.tools, &found);
        let mut sent = None;
        if !self.driver.ledgers.is_empty() {
            let measured = Measured::of(
                agent.model.as_ref(),
                &request,
                self.driver.last_request.as_ref(),
            );
            let pricing = self.pricing(&request);
            match Ledger::admit(&self.driver.ledgers, &mut request, &measured, &pricing) {
                Ok(reserved) => sent = Some((measured, reserved)),
                Err(stop) => return Ok(Sent::Stopped(stop)),
            }
        }
        let span = Span::chat(&request.model);
        // After the hooks: what they changed is what the provider sees. Only when someone
        // listens: the watch reads the whole transcript at every step.
        let causes = if self.driver.events.is_some() || cfg!(feature = "tracing") {
            self.driver.cache.observe(&request)
        } else {
            Vec::new()
        };
        if !causes.is_empty() {
            span.record_cache_break(&causes);
        }
        let result = match &mut self.driver.events {
            Some(events) => {
                if first {
                    events(Event::StepStarted { step });
                }
                if !causes.is_empty() {
                    events(Event::CacheBroken { step, causes });
                }
                let mut sink = |event| events(Event::Model(event));
                span.instrument(agent.model.stream(&request, &mut sink))
                    .await
            }
            None => span.instrument(agent.model.complete(&request)).await,
        };
        match &result {
            Ok(response) => span.record_response(response),
            Err(error) => span.record_model_error(error),
        }
        let response = match result {
            Ok(response) => response,
            Err(error) => {
                if let Some((_, reserved)) = sent {
                    Ledger::settle(reserved, None);
                }
                return Err(error);
            }
        };
        if let Some((measured, reserved)) = sent {
            let model = response.requested_model.as_deref();
            let cost = self.cost_of(model, &response.usage);
            Ledger::settle(reserved, Some((&response.usage, cost)));
            self.count(&response.usage, model, measured);
        }
        Ok(Sent::Answer(response))
    }
}
