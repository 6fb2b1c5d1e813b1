//! The loop itself: send → read the answer → answer every call → append → check the stop
//! conditions → repeat.

use std::borrow::Cow;
use std::fmt;
use std::future::{Future, IntoFuture};
use std::time::Duration;

use crate::executor::block_on;
use crate::message::{Message, Part, Role, ToolCall, ToolResult};
use crate::prose;
use crate::provider::{Request, Response, ToolChoice};
use crate::tool::ToolOutcome;
use crate::toolbox::Timed;

use super::approval::{Slot, Turn};
use super::breaker::Failures;
use super::run::add_usage;
use super::step::Answer;
use super::telemetry::{Span, ToolSpans};
use super::{
    Agent, AnsweredBy, BoxFuture, Decision, Event, Hooks, ModelError, Run, RunError, Step, Stop,
};

/// A run about to start (or resume): `.await` it, or call [`blocking`](Self::blocking).
///
/// [`Agent::run`] and [`Agent::resume`] return it, so that options of this one run can be added
/// before it starts:
///
/// ```
/// use skyl::agent::{Agent, Event};
/// use skyl::provider::StreamEvent;
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, Toolbox};
///
/// let agent = Agent::new(ScriptedModel::new().reply_text("Hello!"), Toolbox::new(), "m");
/// let mut printed = String::new();
/// let run = agent
///     .run(vec![Message::user("Hi")])
///     .on_event(|event| {
///         if let Event::Model(StreamEvent::TextDelta(text)) = event {
///             printed.push_str(&text); // a CLI would print it
///         }
///     })
///     .blocking()?;
/// assert_eq!(printed, "Hello!");
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
#[must_use = "a run does nothing until it is awaited or `blocking` is called"]
pub struct RunBuilder<'a, S, H> {
    agent: &'a Agent<S, H>,
    run: Run,
    resume: bool,
    events: Option<Box<dyn FnMut(Event) + Send + 'a>>,
}

impl<'a, S: Send + Sync + 'static, H: Hooks> RunBuilder<'a, S, H> {
    pub(crate) fn new(agent: &'a Agent<S, H>, run: Run, resume: bool) -> Self {
        RunBuilder {
            agent,
            run,
            resume,
            events: None,
        }
    }

    /// Reports each [`Event`] of the run to `events` as it happens: the model's answer as it
    /// streams ([`Model::stream`](super::Model::stream) is used instead of `complete`), and each
    /// tool call as it starts and finishes.
    pub fn on_event(mut self, events: impl FnMut(Event) + Send + 'a) -> Self {
        self.events = Some(Box::new(events));
        self
    }

    /// Runs on this thread until the run stops, for code without an executor.
    ///
    /// Asynchronous tools and the model are polled here. One that needs a runtime's reactor (an
    /// HTTP client on tokio, tokio's timers) never finishes this way: `.await` the run inside
    /// that runtime instead.
    pub fn blocking(self) -> Result<Run, RunError> {
        block_on(drive(self.agent, self.run, self.resume, self.events))
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks> IntoFuture for RunBuilder<'a, S, H> {
    type Output = Result<Run, RunError>;
    type IntoFuture = BoxFuture<'a, Result<Run, RunError>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(drive(self.agent, self.run, self.resume, self.events))
    }
}

impl<S, H> fmt::Debug for RunBuilder<'_, S, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunBuilder")
            .field("run", &self.run)
            .field("resume", &self.resume)
            .field("events", &self.events.is_some())
            .finish_non_exhaustive()
    }
}

/// The run's future. `run` is moved in once and changed in place: the future is boxed once per
/// run, and a future small enough for the allocator's fast path is measurably cheaper.
// An `async fn` would hold `run` twice (the argument, and the local it moves into:
// rust-lang/rust#62958), a future 60% larger.
#[allow(clippy::manual_async_fn)]
fn drive<'a, S: Send + Sync + 'static, H: Hooks>(
    agent: &'a Agent<S, H>,
    mut run: Run,
    resume: bool,
    events: Option<Box<dyn FnMut(Event) + Send + 'a>>,
) -> impl Future<Output = Result<Run, RunError>> + Send + 'a {
    async move {
        let span = Span::agent(agent.name.as_deref(), &agent.model_name);
        let mut driver = Driver { agent, events };
        let outcome = span.instrument(driver.go(&mut run, resume)).await;
        let result = match outcome {
            Ok(stop) => {
                run.stop = stop;
                Ok(run)
            }
            Err((error, step)) => {
                span.record_model_error(&error);
                Err(RunError::new(error, run, step))
            }
        };
        let run = match &result {
            Ok(run) => run,
            Err(error) => error.run(),
        };
        span.record_end(run.steps, &run.usage, &run.stop);
        result
    }
}

struct Driver<'a, S, H> {
    agent: &'a Agent<S, H>,
    events: Option<Box<dyn FnMut(Event) + Send + 'a>>,
}

impl<S: Send + Sync + 'static, H: Hooks> Driver<'_, S, H> {
    /// Runs the loop on `run` until it stops, and says why; or fails with the model's error and
    /// the step whose request failed.
    async fn go(&mut self, run: &mut Run, resume: bool) -> Result<Stop, (ModelError, u32)> {
        if resume {
            match run.stop {
                Stop::AwaitingApproval => {
                    if let Some(stop) = self.answer_turn(run).await {
                        return Ok(stop);
                    }
                }
                Stop::Failed { .. } => {}
                _ => return Ok(run.stop.clone()),
            }
        }
        loop {
            if run.steps >= self.agent.max_steps {
                return Ok(Stop::StepLimit {
                    steps: self.agent.max_steps,
                });
            }
            let step = run.steps.saturating_add(1);
            let response = match self.request(&run.transcript, step).await {
                Ok(response) => response,
                Err(error) => return Err((error, step)),
            };
            run.steps = step;
            let (message, answer) = Answer::split(response);
            add_usage(&mut run.usage, &answer.usage);
            let calls = message.tool_calls().count();
            run.transcript.push(message);
            if calls == 0 {
                let assistant = run.transcript.len() - 1;
                let step = Step::new(step, &run.transcript, assistant, &answer, &run.usage);
                self.agent.hooks.after_step(&step).await;
                return Ok(Stop::Answered);
            }
            run.turn = Some(Turn {
                answer,
                slots: vec![Slot::New; calls],
            });
            if let Some(stop) = self.answer_turn(run).await {
                return Ok(stop);
            }
        }
    }

    /// Sends the request of step `step` and reads the answer.
    async fn request(&mut self, transcript: &[Message], step: u32) -> Result<Response, ModelError> {
        let agent = self.agent;
        let mut request = Request {
            model: Cow::Borrowed(&agent.model_name),
            system: agent.system.as_deref().map(Cow::Borrowed),
            messages: Cow::Borrowed(transcript),
            tools: Cow::Borrowed(agent.toolbox.definitions()),
            tool_choice: ToolChoice::Auto,
            max_tokens: agent.max_tokens,
            extra: agent.extra.clone(),
        };
        agent.hooks.before_request(step, &mut request).await;
        let span = Span::chat(&request.model);
        let result = match &mut self.events {
            Some(events) => {
                events(Event::StepStarted { step });
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
        result
    }

    /// Answers the calls of the run's last turn: the hooks decide about each new call, the calls
    /// let through run concurrently, and once every call has its result the tool message is
    /// appended and the stop conditions are checked. Returns why the run stops, if it does.
    async fn answer_turn(&mut self, run: &mut Run) -> Option<Stop> {
        let agent = self.agent;
        let (Some(turn), Some(message)) = (run.turn.as_mut(), run.transcript.last()) else {
            return None;
        };
        let calls: Vec<&ToolCall> = message.tool_calls().collect();

        // Decide, in call order. `answered` collects the calls that get their result in this
        // pass, with how long each ran, for `after_tool_call`.
        let mut to_run: Vec<usize> = Vec::new();
        let mut answered: Vec<(usize, Duration)> = Vec::new();
        for (position, (call, slot)) in calls.iter().zip(&mut turn.slots).enumerate() {
            let (result, by) = match slot {
                Slot::New => {
                    let proposed = agent.proposed(call);
                    match agent.hooks.before_tool_call(call, proposed).await {
                        Decision::Run => {
                            to_run.push(position);
                            continue;
                        }
                        Decision::Deny(reason) => (denied(call, &reason), AnsweredBy::Hook),
                        Decision::Answer(outcome) => {
                            (answered_with(call, outcome), AnsweredBy::Hook)
                        }
                        Decision::Pause => {
                            *slot = Slot::Awaiting;
                            if let Some(events) = &mut self.events {
                                events(Event::ToolPaused {
                                    call: (*call).clone(),
                                });
                            }
                            continue;
                        }
                    }
                }
                Slot::Approved => {
                    to_run.push(position);
                    continue;
                }
                Slot::Denied(reason) => (denied(call, reason), AnsweredBy::Person),
                Slot::Answered(_) | Slot::Awaiting => continue,
            };
            if let Some(events) = &mut self.events {
                events(Event::ToolAnswered {
                    name: call.name.clone(),
                    result: result.clone(),
                    by,
                });
            }
            *slot = Slot::Answered(result);
            answered.push((position, Duration::ZERO));
        }

        if !to_run.is_empty() {
            let running: Vec<&ToolCall> = to_run.iter().map(|&position| calls[position]).collect();
            let mut spans = ToolSpans::start(&running);
            let mut durations = vec![Duration::ZERO; running.len()];
            let events = &mut self.events;
            if let Some(events) = events {
                for call in &running {
                    events(Event::ToolStarted {
                        call: (*call).clone(),
                    });
                }
            }
            let watch = Timed(|k: usize, result: &ToolResult, took| {
                durations[k] = took;
                spans.finish(k, result);
                if let Some(events) = events {
                    events(Event::ToolFinished {
                        name: running[k].name.clone(),
                        result: result.clone(),
                        duration: took,
                    });
                }
            });
            let results = agent.toolbox.run_turn(&running, watch).await;
            for ((position, result), took) in to_run.into_iter().zip(results).zip(durations) {
                turn.slots[position] = Slot::Answered(result);
                answered.push((position, took));
            }
            answered.sort_unstable_by_key(|&(position, _)| position);
        }
        for (position, took) in answered {
            if let Slot::Answered(result) = &turn.slots[position] {
                agent
                    .hooks
                    .after_tool_call(calls[position], result, took)
                    .await;
            }
        }
        if turn.slots.iter().any(|slot| matches!(slot, Slot::Awaiting)) {
            return Some(Stop::AwaitingApproval);
        }

        // Every call has its result: the turn is complete.
        let Turn { answer, slots } = run.turn.take()?;
        let parts = slots
            .into_iter()
            .map(|slot| match slot {
                Slot::Answered(result) => Part::ToolResult(result),
                _ => unreachable!("a complete turn has a result in every slot"),
            })
            .collect();
        run.transcript.push(Message {
            role: Role::Tool,
            parts,
        });
        let assistant = run.transcript.len() - 2;
        let step = Step::new(run.steps, &run.transcript, assistant, &answer, &run.usage);
        agent.hooks.after_step(&step).await;
        agent.check_stops(&mut run.failures, &step)
    }
}

impl<S: Send + Sync + 'static, H: Hooks> Agent<S, H> {
    /// What happens to `call` unless a hook decides otherwise.
    fn proposed(&self, call: &ToolCall) -> Decision {
        let destructive = self.approve_destructive
            && self.toolbox.definitions().iter().any(|definition| {
                definition.name == call.name && definition.annotations.is_destructive()
            });
        if destructive {
            Decision::Pause
        } else {
            Decision::Run
        }
    }

    /// Whether the run stops after `step`, whose calls all have their results: the breaker
    /// first, then the conditions in the order they were added.
    fn check_stops(&self, failures: &mut Failures, step: &Step<'_>) -> Option<Stop> {
        let mut tripped = None;
        if let Some(results) = step.results() {
            for (call, result) in step.tool_calls().zip(results.tool_results()) {
                let schema = self
                    .toolbox
                    .definition(&call.name)
                    .map(|definition| &definition.parameters);
                let count = failures.record(call, result, schema);
                if tripped.is_none() && self.breaker > 0 && count >= self.breaker {
                    tripped = Some(Stop::Breaker {
                        tool: call.name.clone(),
                        failures: count,
                    });
                }
            }
        }
        tripped.or_else(|| {
            self.stop_when
                .iter()
                .find_map(|condition| condition.check(step))
        })
    }
}

/// The result of a call the application refused.
fn denied(call: &ToolCall, reason: &str) -> ToolResult {
    ToolResult::error(call.id.as_str(), prose::denied(&call.name, reason))
}

/// The result of a call a hook answered in the tool's place, worded as the tool's own would be.
fn answered_with(call: &ToolCall, outcome: ToolOutcome) -> ToolResult {
    match outcome {
        Ok(content) => ToolResult::success(call.id.as_str(), content),
        Err(failure) => ToolResult::error(call.id.as_str(), prose::failed(&call.name, &failure)),
    }
}
