//! The loop itself: send → read the answer → answer every call → append → check the stop
//! conditions → repeat.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::ops::ControlFlow;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::content::{Content, ResultContent};
use crate::executor::block_on;
use crate::message::{Message, Part, Role, ToolCall, ToolResult};
use crate::prose;
use crate::provider::CacheWatch;
use crate::tool::{CallObserver, RichOutcome, ToolOutcome};
use crate::toolbox::{RichResult, Timed};

use super::approval::{Slot, Turn, arguments_fingerprint, unix_now};
use super::asking::{self, Desk, Question, Reply};
use super::breaker::Failures;
use super::budget::Bound;
use super::event::{Reporting, Reports};
use super::journal::{
    DurableRunError, Entry, Journal, JournalError, Journaling, Record, Recording, make_effect_key,
};
use super::replay::Changed;
use super::request::Sent;
use super::run::add_usage;
use super::step::ResponseMeta;
use super::telemetry::{Span, ToolSpans, tool_changed};
use super::typed::{Expected, TypedRun};
use super::{
    Agent, AnsweredBy, BoxFuture, Cost, Decision, Event, Hooks, ModelError, Run, RunError, Step,
    Stop,
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

/// A run that keeps a journal: [`RunBuilder::journaled`] returns it. `.await` it, or call
/// [`blocking`](Self::blocking).
#[must_use = "a run does nothing until it is awaited or `blocking` is called"]
pub struct JournaledRun<'a, S, H> {
    builder: RunBuilder<'a, S, H>,
    journal: &'a dyn Journal,
    id: String,
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

    /// Keeps the run's journal in `journal`, under `id`: the run becomes durable (see
    /// [`journal`](super::journal) for the rules).
    ///
    /// Started the first time, the run begins from its messages and records as it goes. Started
    /// again with the same id (after a crash, in another process), it replays the journal: the
    /// model is asked nothing it already answered, every recorded result is reused, and a call
    /// that was started and never finished runs again if its tool is read-only or idempotent, and
    /// is answered as outcome-unknown otherwise. The messages given then are not used: the
    /// journal has them. A finished run comes back as it finished, running nothing.
    ///
    /// To resume a run that paused for approval, record the decisions on it and pass it to
    /// [`Agent::resume`](super::Agent::resume), then `.journaled` with the same id. A saved run
    /// keeps its id ([`Run::id`]): resumed under another, it fails with
    /// [`DurableRunError::AnotherRun`] before anything runs, and resumed without its journal,
    /// its approvals do not hold (the calls wait again), since its journal records what it
    /// already did.
    ///
    /// Hooks see a replay as little as they can: `before_request` is not called for a recorded
    /// answer, nor `before_tool_call` and `after_tool_call` for a recorded result; `after_step`
    /// is called again for each replayed step, so that the stop conditions and the breaker count
    /// the same steps as before.
    pub fn journaled(
        self,
        journal: &'a dyn Journal,
        id: impl Into<String>,
    ) -> JournaledRun<'a, S, H> {
        JournaledRun {
            builder: self,
            journal,
            id: id.into(),
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
        block_on(self.start(None, unjournaled, None))
    }

    /// The run's future: with `journal` when there is one, its errors made `E` by `error`, its
    /// final answer checked against `expected` when there is one. Every way to run a run starts
    /// here.
    fn start<E: 'a>(
        self,
        journal: Option<(&'a dyn Journal, String)>,
        error: fn(DurableRunError) -> E,
        expected: Option<&'a Expected>,
    ) -> impl Future<Output = Result<Run, E>> + Send + 'a {
        drive(
            self.agent,
            self.run,
            self.resume,
            self.events,
            journal,
            error,
            expected,
        )
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks> IntoFuture for RunBuilder<'a, S, H> {
    type Output = Result<Run, RunError>;
    type IntoFuture = BoxFuture<'a, Result<Run, RunError>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.start(None, unjournaled, None))
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks> RunBuilder<'a, S, H> {
    /// Makes the run's final answer a typed value: each request asks the provider for JSON of
    /// `T`'s schema (its structured output), and the final answer is read into `T`. An answer
    /// that does not read is sent back to the model with what was wrong, a bounded number of
    /// times (see [`TypedRun`]).
    ///
    /// ```
    /// use skyl::agent::Agent;
    /// use skyl::testing::ScriptedModel;
    /// use skyl::{Message, Toolbox};
    ///
    /// /// A city and its country.
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Place {
    ///     city: String,
    ///     country: String,
    /// }
    ///
    /// let model = ScriptedModel::new().reply_text(r#"{"city": "Gulu", "country": "Uganda"}"#);
    /// let agent = Agent::new(model, Toolbox::new(), "m");
    /// let answer = agent
    ///     .run(vec![Message::user("Where is Gulu?")])
    ///     .answer_as::<Place>()
    ///     .blocking()?;
    /// assert_eq!(answer.value.country, "Uganda");
    /// # Ok::<(), skyl::agent::AnswerError>(())
    /// ```
    pub fn answer_as<T: DeserializeOwned + JsonSchema>(self) -> TypedRun<'a, S, H, T> {
        TypedRun::new(self)
    }
}

/// Runs `builder`, its final answer checked against `expected`.
pub(super) fn drive_expecting<'a, S: Send + Sync + 'static, H: Hooks>(
    builder: RunBuilder<'a, S, H>,
    expected: &'a Expected,
) -> impl Future<Output = Result<Run, RunError>> + Send + 'a {
    builder.start(None, unjournaled, Some(expected))
}

/// Runs `builder` journaled in `journal` under `id`, its final answer checked against
/// `expected`: a sub-agent's run.
pub(super) fn drive_journaled_expecting<'a, S: Send + Sync + 'static, H: Hooks>(
    builder: RunBuilder<'a, S, H>,
    journal: &'a dyn Journal,
    id: String,
    expected: &'a Expected,
) -> impl Future<Output = Result<Run, DurableRunError>> + Send + 'a {
    builder.start(Some((journal, id)), durable, Some(expected))
}

/// A journaled run's error, as it is.
fn durable(error: DurableRunError) -> DurableRunError {
    error
}

/// A run without a journal fails only with the model's error.
fn unjournaled(error: DurableRunError) -> RunError {
    match error {
        DurableRunError::Model(error) => error,
        other => unreachable!("a run without a journal failed as a journaled one: {other}"),
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks> JournaledRun<'a, S, H> {
    /// [`RunBuilder::on_event`], for a journaled run; calls answered from the journal are
    /// reported as [`Event::ToolAnswered`] by [`AnsweredBy::Journal`], and those answered as
    /// outcome-unknown by [`AnsweredBy::OutcomeUnknown`].
    pub fn on_event(mut self, events: impl FnMut(Event) + Send + 'a) -> Self {
        self.builder = self.builder.on_event(events);
        self
    }

    /// Runs on this thread until the run stops; see [`RunBuilder::blocking`].
    pub fn blocking(self) -> Result<Run, DurableRunError> {
        block_on(
            self.builder
                .start(Some((self.journal, self.id)), durable, None),
        )
    }
}

impl<'a, S: Send + Sync + 'static, H: Hooks> IntoFuture for JournaledRun<'a, S, H> {
    type Output = Result<Run, DurableRunError>;
    type IntoFuture = BoxFuture<'a, Result<Run, DurableRunError>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(
            self.builder
                .start(Some((self.journal, self.id)), durable, None),
        )
    }
}

impl<S, H> fmt::Debug for JournaledRun<'_, S, H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JournaledRun")
            .field("id", &self.id)
            .field("builder", &self.builder)
            .finish_non_exhaustive()
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
fn drive<'a, S: Send + Sync + 'static, H: Hooks, E: 'a>(
    agent: &'a Agent<S, H>,
    mut run: Run,
    resume: bool,
    events: Option<Box<dyn FnMut(Event) + Send + 'a>>,
    journal: Option<(&'a dyn Journal, String)>,
    error: fn(DurableRunError) -> E,
    answer: Option<&'a Expected>,
) -> impl Future<Output = Result<Run, E>> + Send + 'a {
    async move {
        let span = Span::agent(agent.name.as_deref(), &agent.model_name);
        let mut driver = Driver {
            agent,
            events,
            journal: None,
            answer,
            last_request: None,
            unreported: Bound::default(),
            cache: CacheWatch::new(),
        };
        let held = journal.as_ref().map(|(journal, id)| (*journal, id.clone()));
        let outcome = span.instrument(driver.go(&mut run, resume, journal)).await;
        // The run stopped, however: another worker may take it up at once. A hold not given
        // back lapses on its own.
        if let Some((journal, id)) = held {
            let _ = journal.release(&id).await;
        }
        let result = match outcome {
            Ok(stop) => {
                run.stop = stop;
                Ok(run)
            }
            Err(Halt::Model(failure, step)) => {
                span.record_model_error(&failure);
                Err(RunError::new(failure, run, step))
            }
            Err(Halt::Journal(failure)) => {
                span.record_end(run.steps, &run.usage, &run.stop);
                return Err(error(DurableRunError::Journal(failure)));
            }
            Err(Halt::Durable(failure)) => {
                span.record_end(run.steps, &run.usage, &run.stop);
                return Err(error(failure));
            }
        };
        let run = match &result {
            Ok(run) => run,
            Err(failure) => failure.run(),
        };
        span.record_end(run.steps, &run.usage, &run.stop);
        result.map_err(|failure| error(DurableRunError::Model(failure)))
    }
}

/// Why the loop stopped short of a [`Stop`].
pub(super) enum Halt {
    /// The model request of this step failed.
    Model(ModelError, u32),
    Journal(JournalError),
    /// The journaled run cannot go on as it was started.
    Durable(DurableRunError),
}

impl From<JournalError> for Halt {
    fn from(error: JournalError) -> Self {
        Halt::Journal(error)
    }
}

/// One run's loop, and what it keeps between steps. The request of a step is beside it, in
/// `request.rs`.
pub(super) struct Driver<'a, S, H> {
    pub(super) agent: &'a Agent<S, H>,
    pub(super) events: Option<Box<dyn FnMut(Event) + Send + 'a>>,
    /// Boxed: a run without a journal keeps its future small.
    pub(super) journal: Option<Box<Journaling<'a>>>,
    /// What a typed run's final answer must be.
    pub(super) answer: Option<&'a Expected>,
    /// The size of the run's last request sent and the input tokens its answer reported, which
    /// bound the next request's input for a budget.
    pub(super) last_request: Option<(u64, u64)>,
    /// What a budget counts for the answers of this run whose usage was not reported: the most
    /// their requests could use.
    pub(super) unreported: Bound,
    /// The start of the last request, to tell when the next one breaks the provider's cache.
    pub(super) cache: CacheWatch,
}

impl<'a, S: Send + Sync + 'static, H: Hooks> Driver<'a, S, H> {
    /// Reads the journal of run `id` and readies `run` to replay it; returns whether the loop
    /// resumes `run` as it is.
    async fn open(
        &mut self,
        journal: &'a dyn Journal,
        id: String,
        run: &mut Run,
        resume: bool,
    ) -> Result<bool, Halt> {
        let (journaling, resume) = Journaling::open(self.agent, journal, id, run, resume)
            .await
            .map_err(|error| match error {
                DurableRunError::Journal(error) => Halt::Journal(error),
                error => Halt::Durable(error),
            })?;
        let toolbox = &self.agent.toolbox;
        let changed = journaling.replay.changed_tools(|name| {
            toolbox
                .definition(name)
                .map(|_| self.agent.definition_fingerprint(name))
        });
        for Changed { name, gone } in changed {
            tool_changed(&journaling.id, &name, gone);
            self.event(|| Event::ToolChanged { name, gone });
        }
        self.journal = Some(Box::new(journaling));
        Ok(resume)
    }

    /// Runs the loop on `run` until it stops, and says why; or fails with the model's error and
    /// the step whose request failed, or with the journal's.
    async fn go(
        &mut self,
        run: &mut Run,
        resume: bool,
        journal: Option<(&'a dyn Journal, String)>,
    ) -> Result<Stop, Halt> {
        let mut resume = resume;
        if let Some((journal, id)) = journal {
            resume = self.open(journal, id, run, resume).await?;
        }
        if resume {
            match run.stop {
                Stop::AwaitingApproval => {
                    if let Some(stop) = self.answer_turn(run).await? {
                        return Ok(stop);
                    }
                }
                Stop::Failed { .. } => {}
                _ => return Ok(run.stop.clone()),
            }
        }
        // How many final answers were sent back; counted again on a replay, which sends back
        // the same answers.
        let mut corrections = 0;
        loop {
            if run.steps >= self.agent.max_steps {
                return Ok(Stop::StepLimit {
                    steps: self.agent.max_steps,
                });
            }
            let step = run.steps.saturating_add(1);
            let (message, answer) = match self.next_answer(run, step).await? {
                ControlFlow::Continue(answered) => answered,
                ControlFlow::Break(stop) => return Ok(stop),
            };
            run.steps = step;
            add_usage(&mut run.usage, &answer.usage);
            if let Some(price) = self.agent.price() {
                let cost = price.cost(&answer.usage);
                run.cost = Some(run.cost.unwrap_or(Cost::ZERO).saturating_add(cost));
            }
            let calls = message.tool_calls().count();
            run.transcript.push(message);
            if calls == 0 {
                if !self.send_back(run, step, &answer, corrections).await {
                    return Ok(Stop::Answered);
                }
                corrections += 1;
                continue;
            }
            run.turn = Some(Turn {
                answer,
                slots: vec![Slot::New; calls],
                content: Vec::new(),
            });
            if let Some(stop) = self.answer_turn(run).await? {
                return Ok(stop);
            }
        }
    }

    /// The answer of step `step`: the journal's, or the model's to the request sent now (and
    /// journaled); or why the run stops without one.
    async fn next_answer(
        &mut self,
        run: &Run,
        step: u32,
    ) -> Result<ControlFlow<Stop, (Message, ResponseMeta)>, Halt> {
        if let Some(replayed) = self.replayed_answer(step) {
            self.count_replayed(run, &replayed.1);
            return Ok(ControlFlow::Continue(replayed));
        }
        let response = match self.request(run, step).await {
            Ok(Sent::Answer(response)) => response,
            Ok(Sent::Stopped(stop)) => return Ok(ControlFlow::Break(stop)),
            Err(error) => return Err(Halt::Model(error, step)),
        };
        let (message, answer) = ResponseMeta::split(response);
        let Some(journaling) = &mut self.journal else {
            return Ok(ControlFlow::Continue((message, answer)));
        };
        let record = Record::Answer {
            step,
            message,
            answer,
        };
        journaling
            .append(std::slice::from_ref(&record), true)
            .await?;
        let Record::Answer {
            message, answer, ..
        } = record
        else {
            unreachable!("the record just made")
        };
        Ok(ControlFlow::Continue((message, answer)))
    }

    /// The answer of `step`, when the journal has it.
    fn replayed_answer(&self, step: u32) -> Option<(Message, ResponseMeta)> {
        let journaling = self.journal.as_ref()?;
        journaling.replay.answers.get(&step).cloned()
    }

    /// Shows the hooks step `step`, whose answer (`answer`, the last message of `run`) is final,
    /// and sends a typed run's answer that does not read back to the model with what was wrong,
    /// unless it was sent back `corrections` times already. Returns whether it was sent back.
    async fn send_back(
        &mut self,
        run: &mut Run,
        step: u32,
        answer: &ResponseMeta,
        corrections: u32,
    ) -> bool {
        let assistant = run.transcript.len() - 1;
        let correction = self
            .answer
            .filter(|expected| corrections < expected.corrections)
            .and_then(|expected| {
                let text = run.transcript[assistant].text_content();
                let reason = (expected.check)(&text).err()?;
                Some(prose::answer_unreadable(
                    &expected.schema.name,
                    &expected.schema.schema,
                    &reason,
                ))
            });
        let priced = (self.agent.price(), run.cost);
        let step = Step::new(step, &run.transcript, assistant, answer, &run.usage, priced);
        self.agent.hooks.after_step(&step).await;
        let Some(correction) = correction else {
            return false;
        };
        run.transcript.push(Message::user(correction));
        true
    }

    /// Hands `event` to the run's callback, if it has one; made only then.
    pub(super) fn event(&mut self, event: impl FnOnce() -> Event) {
        if let Some(events) = &mut self.events {
            events(event());
        }
    }

    /// What the journal or the saved run's decisions settle about the call at `position` of
    /// step `step`, before any hook is asked: its result, or a decision.
    fn settled(&self, step: u32, position: usize, call: &ToolCall) -> Option<Settled> {
        let journaling = self.journal.as_ref()?;
        if let Some((result, content)) = journaling.replay.results.get(&(step, position)) {
            return Some(Settled::Replayed(result.clone(), content.clone()));
        }
        // A call that asked the person a question was started, and its intent may be recorded: it
        // waits for, or goes on with, the reply rather than being answered as unknown.
        if let Some((decided_step, slots)) = &journaling.decisions
            && *decided_step == step
            && let Some(slot @ (Slot::Asking(_) | Slot::Replied { .. } | Slot::Nested(_))) =
                slots.get(position)
        {
            return Some(match slot {
                Slot::Replied { question, reply } => {
                    self.replied((step, position), call, question, reply)
                }
                _ => Settled::Decided(slot.clone()),
            });
        }
        if journaling.replay.intents.contains_key(&(step, position)) {
            return Some(if self.reruns(step, position, call) {
                Settled::Rerun
            } else {
                Settled::Unknown(ToolResult::error(
                    call.id.as_str(),
                    prose::outcome_unknown(&call.name),
                ))
            });
        }
        let (decided_step, slots) = journaling.decisions.as_ref()?;
        if *decided_step != step {
            return None;
        }
        match slots.get(position)? {
            slot @ (Slot::Approved | Slot::Granted(_) | Slot::Denied(_)) => {
                Some(Settled::Decided(slot.clone()))
            }
            _ => None,
        }
    }

    /// What becomes of a call that asked the person `question`, now that they gave `reply`: it
    /// goes on with the reply when this process holds it, or when its question carries what
    /// continues it here (a 2026-07-28 server's request state); otherwise it is lost, and runs
    /// again if that repeats nothing, or is answered as outcome-unknown.
    fn replied(
        &self,
        (step, position): (u32, usize),
        call: &ToolCall,
        question: &Question,
        reply: &Reply,
    ) -> Settled {
        if let Some(rest) = asking::resume(question, reply.clone()) {
            return Settled::Resumed(rest);
        }
        // The question's server keeps nothing between rounds (MCP 2026-07-28): the call's tool
        // goes on with it here, from what the saved run kept.
        if let Some(continuation) = question.continuation()
            && let Some(tool) = self.agent.toolbox.tool(&call.name)
            && let Ok(reply) = serde_json::to_value(reply)
            && let Some(rest) = tool.resume_elsewhere(continuation, reply, call.id.as_str())
        {
            return Settled::Resumed(rest);
        }
        if self.reruns(step, position, call) {
            return Settled::Rerun;
        }
        Settled::Unknown(ToolResult::error(
            call.id.as_str(),
            prose::question_lost(&call.name, question.from()),
        ))
    }

    /// Whether `call` (at `position` of step `step`), started and lost before it finished, runs
    /// again: its tool is read-only or idempotent, as the build that recorded its intent
    /// promised (a rebuild cannot change a cut-off call's fate), or as the toolbox says when
    /// no intent was recorded.
    fn reruns(&self, step: u32, position: usize, call: &ToolCall) -> bool {
        if let Some(intent) = self
            .journal
            .as_ref()
            .and_then(|journaling| journaling.replay.intents.get(&(step, position)))
        {
            return intent.idempotent || intent.handed;
        }
        self.agent
            .toolbox
            .definition(&call.name)
            .is_some_and(|definition| definition.annotations.is_idempotent())
    }

    /// Answers the calls of the run's last turn: the hooks decide about each new call, the calls
    /// let through run concurrently, and once every call has its result the tool message is
    /// appended and the stop conditions are checked. Returns why the run stops, if it does.
    ///
    /// In a journaled run, a call the journal settles is not asked about again; the results of
    /// calls decided here are recorded before any call runs, each call that can have effects
    /// records its intent durably just before it starts, and each result of a call that runs is
    /// recorded as soon as it is known.
    async fn answer_turn(&mut self, run: &mut Run) -> Result<Option<Stop>, Halt> {
        let agent = self.agent;
        let step = run.steps;
        let (Some(turn), Some(message)) = (run.turn.as_mut(), run.transcript.last()) else {
            return Ok(None);
        };
        let calls: Vec<&ToolCall> = message.tool_calls().collect();

        // Decide, in call order. `answered` collects the calls that get their result in this
        // pass, with how long each ran, for `after_tool_call`; `records` the results decided
        // here, for the journal.
        let mut to_run: Vec<usize> = Vec::new();
        let mut answered: Vec<(usize, Duration)> = Vec::new();
        let mut records: Vec<Record> = Vec::new();
        // The calls that asked the person a question and have the reply, to go on with it.
        let mut replied = Vec::new();
        // The sub-agents' calls that go on with their saved runs, and the decisions made on them.
        let mut handed = Vec::new();
        for (position, call) in calls.iter().enumerate() {
            let mut slot = turn.slots[position].clone();
            let settled = match &slot {
                Slot::New | Slot::Awaiting | Slot::Paused { .. } => {
                    self.settled(step, position, call)
                }
                // The reply is delivered here, before any call is awaited: a server may be
                // waiting on one call's answer to finish another.
                Slot::Replied { question, reply } => {
                    Some(self.replied((step, position), call, question, reply))
                }
                _ => None,
            };
            let unknown = match settled {
                Some(Settled::Replayed(result, content)) => {
                    self.event(|| Event::ToolAnswered {
                        name: call.name.clone(),
                        result: result.clone(),
                        by: AnsweredBy::Journal,
                    });
                    if !content.is_empty() {
                        turn.content
                            .push(ResultContent::new(result.call_id.as_str(), content));
                    }
                    turn.slots[position] = Slot::Answered(result);
                    continue;
                }
                Some(Settled::Rerun) => {
                    to_run.push(position);
                    continue;
                }
                Some(Settled::Unknown(result)) => Some(result),
                Some(Settled::Resumed(rest)) => {
                    replied.push((position, rest));
                    continue;
                }
                Some(Settled::Decided(decision)) => {
                    slot = decision;
                    None
                }
                None => None,
            };
            let (result, by) = if let Some(result) = unknown {
                (result, AnsweredBy::OutcomeUnknown)
            } else {
                match slot {
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
                                turn.slots[position] = agent.paused(call);
                                self.event(|| Event::ToolPaused {
                                    call: (*call).clone(),
                                });
                                continue;
                            }
                        }
                    }
                    Slot::Approved => {
                        to_run.push(position);
                        continue;
                    }
                    Slot::Granted(approval) => {
                        let definition = agent.definition_fingerprint(&call.name);
                        let arguments = arguments_fingerprint(call);
                        let id = self
                            .journal
                            .as_ref()
                            .map(|journaling| journaling.id.as_str());
                        if approval.holds(call, id, &arguments, &definition, unix_now()) {
                            to_run.push(position);
                        } else {
                            // Moved, changed or expired: ask again.
                            turn.slots[position] = agent.paused(call);
                            self.event(|| Event::ToolPaused {
                                call: (*call).clone(),
                            });
                        }
                        continue;
                    }
                    Slot::Denied(reason) => (denied(call, &reason), AnsweredBy::Person),
                    Slot::Nested(saved) => {
                        to_run.push(position);
                        handed.push((position, *saved));
                        continue;
                    }
                    Slot::Answered(_)
                    | Slot::Awaiting
                    | Slot::Paused { .. }
                    | Slot::Asking(_)
                    | Slot::Replied { .. } => {
                        turn.slots[position] = slot;
                        continue;
                    }
                }
            };
            self.event(|| Event::ToolAnswered {
                name: call.name.clone(),
                result: result.clone(),
                by,
            });
            records.push(Record::Result {
                step,
                call: position,
                result: result.clone(),
                content: Vec::new(),
            });
            turn.slots[position] = Slot::Answered(result);
            answered.push((position, Duration::ZERO));
        }

        // The calls a question paused go on with the person's reply, delivered above.
        let desk = Arc::new(Desk::default());
        for (position, saved) in handed {
            desk.hand(&calls[position].id, saved);
        }
        for (position, rest) in replied {
            let call = calls[position];
            let started = std::time::Instant::now();
            let outcome = desk.serve(rest).await;
            if let Some(asked) = desk.take(&call.id) {
                turn.slots[position] = asked;
                self.event(|| Event::ToolPaused {
                    call: (*call).clone(),
                });
                continue;
            }
            let took = started.elapsed();
            let answered_call = agent.toolbox.finished(call, outcome);
            self.event(|| Event::ToolFinished {
                name: call.name.clone(),
                result: answered_call.result.clone(),
                duration: took,
                content: Arc::from(answered_call.content.as_slice()),
            });
            records.push(Record::Result {
                step,
                call: position,
                result: answered_call.result.clone(),
                content: answered_call.content.clone(),
            });
            if !answered_call.content.is_empty() {
                turn.content.push(ResultContent::new(
                    answered_call.result.call_id.as_str(),
                    answered_call.content,
                ));
            }
            turn.slots[position] = Slot::Answered(answered_call.result);
            answered.push((position, took));
        }

        // The results decided here (and the run's first record) are written before any call
        // runs; before each call starts, the results known by then are written, and its intent,
        // durably, when it can have effects.
        let mut effect_keys = Vec::new();
        let mut intents: Vec<Option<Entry>> = Vec::new();
        if let Some(journaling) = &mut self.journal {
            journaling.append(&records, false).await?;
            for &position in &to_run {
                let call = calls[position];
                effect_keys.push(make_effect_key(&journaling.id, step, &call.id));
                // A call run again to pick up the work it handed on has its intent already.
                let effects = agent
                    .toolbox
                    .definition(&call.name)
                    .is_some_and(|definition| !definition.annotations.is_idempotent())
                    && !journaling.replay.intents.contains_key(&(step, position));
                intents.push(effects.then(|| {
                    Record::Intent {
                        step,
                        call: position,
                        call_id: call.id.clone(),
                        tool: call.name.clone(),
                        // What this build promises, which decides the call's fate if it is cut off.
                        idempotent: Some(false),
                        definition: Some(agent.definition_fingerprint(&call.name)),
                    }
                    .entry()
                }));
            }
        }

        if !to_run.is_empty() {
            let running: Vec<&ToolCall> = to_run.iter().map(|&position| calls[position]).collect();
            let mut spans = ToolSpans::start(&running);
            for (k, call) in running.iter().enumerate() {
                if let Some(span) = spans.call_span(k) {
                    desk.mark_span(&call.id, span);
                }
            }
            let mut durations = vec![Duration::ZERO; running.len()];
            let events = &mut self.events;
            if let Some(events) = events {
                for call in &running {
                    events(Event::ToolStarted {
                        call: (*call).clone(),
                    });
                }
            }
            // With an event callback, what the calls report and their results go through one
            // queue, emptied into the callback each time the turn is polled: the tools report
            // from any thread, and a call's reports come before its result.
            let reports = events.is_some().then(|| Arc::new(Reports::default()));
            if let Some(reports) = &reports {
                let reports = Arc::clone(reports);
                desk.forward(Arc::new(move |event| reports.push(event)));
            }
            // In a journaled run, each result is queued as soon as it is known and written before
            // the next call starts, or sooner (see `Recording`).
            let recording = self
                .journal
                .as_deref()
                .map(|journaling| Recording::new(journaling.journal, &journaling.id));
            let watch = Timed(|k: usize, answered: &RichResult, took| {
                let result = &answered.result;
                durations[k] = took;
                spans.finish(k, result);
                // A call that asked a question has no result yet, only its placeholder.
                if desk.asked(&running[k].id) {
                    return;
                }
                if let Some(recording) = &recording {
                    let record = Record::Result {
                        step,
                        call: to_run[k],
                        result: result.clone(),
                        content: answered.content.clone(),
                    };
                    recording.push(record.entry());
                }
                if let Some(reports) = &reports {
                    reports.push(Event::ToolFinished {
                        name: running[k].name.clone(),
                        result: result.clone(),
                        duration: took,
                        content: Arc::from(answered.content.as_slice()),
                    });
                }
            });
            let observer = reports
                .clone()
                .map(|reports| reports as Arc<dyn CallObserver>);
            let results = {
                // Boxed: the turn's calls in flight are the largest part of the run's state, and
                // the run's future is smaller without them (one allocation per turn with calls).
                let gates = match &recording {
                    Some(recording) => intents
                        .into_iter()
                        .map(|intent| Some(recording.gate(intent)))
                        .collect(),
                    None => Vec::new(),
                };
                let turn_run =
                    agent
                        .toolbox
                        .run_turn(&running, &effect_keys, gates, observer, watch);
                let mut turn_run = std::pin::pin!(Reporting {
                    work: desk.serve(Box::pin(turn_run)),
                    reports: reports.as_deref(),
                    events: events.as_deref_mut(),
                });
                match &recording {
                    Some(recording) => recording.record_while(turn_run.as_mut()).await?,
                    None => turn_run.await,
                }
            };
            if let Some(error) = recording.as_ref().and_then(Recording::refused) {
                return Err(Halt::Journal(error));
            }
            if let Some(error) = desk.halted() {
                return Err(Halt::Journal(error));
            }
            for ((position, answered_call), took) in to_run.iter().zip(results).zip(durations) {
                if let Some(asked) = desk.take(&calls[*position].id) {
                    turn.slots[*position] = asked;
                    if let Some(events) = &mut self.events {
                        events(Event::ToolPaused {
                            call: calls[*position].clone(),
                        });
                    }
                    continue;
                }
                if !answered_call.content.is_empty() {
                    turn.content.push(ResultContent::new(
                        answered_call.result.call_id.as_str(),
                        answered_call.content,
                    ));
                }
                turn.slots[*position] = Slot::Answered(answered_call.result);
                answered.push((*position, took));
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
        if turn.slots.iter().any(|slot| slot.is_waiting()) {
            return Ok(Some(Stop::AwaitingApproval));
        }

        // Every call has its result: the turn is complete.
        let Some(Turn {
            answer,
            slots,
            mut content,
        }) = run.turn.take()
        else {
            return Ok(None);
        };
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
        run.transcript.push(Message {
            role: Role::Tool,
            parts,
        });
        let assistant = run.transcript.len() - 2;
        let priced = (agent.price(), run.cost);
        let step = Step::new(
            run.steps,
            &run.transcript,
            assistant,
            &answer,
            &run.usage,
            priced,
        );
        agent.hooks.after_step(&step).await;
        Ok(agent.check_stops(&mut run.failures, &step))
    }
}

/// What the journal, or the decisions of a saved run, settle about a call.
enum Settled {
    /// Its recorded result, and the content beside it.
    Replayed(ToolResult, Vec<Content>),
    /// It was started and never finished, and its tool is read-only or idempotent: it runs again.
    Rerun,
    /// It was started and never finished, and running it again could repeat its effect.
    Unknown(ToolResult),
    /// A person's decision about it, from the saved run.
    Decided(Slot),
    /// It asked the person a question, and goes on with their reply: the rest of the call.
    Resumed(BoxFuture<'static, RichOutcome>),
}

impl<S: Send + Sync + 'static, H: Hooks> Agent<S, H> {
    /// The slot of a call that waits for a person's decision.
    fn paused(&self, call: &ToolCall) -> Slot {
        Slot::Paused {
            definition: self.definition_fingerprint(&call.name),
        }
    }

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
