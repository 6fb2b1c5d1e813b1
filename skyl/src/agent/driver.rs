//! The loop itself: send → read the answer → answer every call → append → check the stop
//! conditions → repeat.

use std::fmt;
use std::future::{Future, IntoFuture};
use std::ops::ControlFlow;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::executor::block_on;
use crate::message::Message;
use crate::prose;
use crate::provider::caching::CacheWatch;

use crate::model::{BoxFuture, Cost, ModelError};

use crate::agent::agent::Agent;
use crate::agent::budget::{Bound, Last};
use crate::agent::event::Event;
use crate::agent::hooks::points::Hooks;
use crate::agent::journal::Record;
use crate::agent::journal::error::{DurableRunError, JournalError};
use crate::agent::journal::journaling::Journaling;
use crate::agent::journal::seam::Journal;
use crate::agent::ledger::Ledger;
use crate::agent::output_fallback::Fallback;
use crate::agent::replay::Changed;
use crate::agent::request::{Requesting, Sent};
use crate::agent::run::{Run, RunError, add_usage};
use crate::agent::step::{ResponseMeta, Step};
use crate::agent::stop::Stop;
use crate::agent::telemetry::{Span, tool_changed};
use crate::agent::turn::answer_turn;
use crate::agent::turn::slot::Turn;
use crate::agent::typed::{Expected, TypedRun};

/// A run about to start (or resume): `.await` it, or call [`blocking`](Self::blocking).
///
/// [`Agent::run`] and [`Agent::resume`] return it, so that options of this one run can be added
/// before it starts:
///
/// ```
/// use skyl::agent::{Agent, Event};
/// use skyl::provider::stream::StreamEvent;
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
    /// The ledgers of the budgets above the run: of the runs whose sub-agent it is.
    ledgers: Vec<Arc<Ledger>>,
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
            ledgers: Vec::new(),
        }
    }

    /// Runs under the budgets of `ledgers` too (those of the runs whose sub-agent it is), each
    /// of its requests checked against what they have left.
    pub(crate) fn under(mut self, ledgers: Vec<Arc<Ledger>>) -> Self {
        self.ledgers = ledgers;
        self
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
    /// streams ([`Model::stream`](crate::model::Model::stream) is used instead of `complete`), and each
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
        drive(self, journal, error, expected)
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
    ///
    /// [`AnsweredBy::Journal`]: super::AnsweredBy::Journal
    /// [`AnsweredBy::OutcomeUnknown`]: super::AnsweredBy::OutcomeUnknown
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

/// The run's future, of the run `builder` starts. Its run is moved in once and changed in place:
/// the future is boxed once per run, and a future small enough for the allocator's fast path is
/// measurably cheaper.
// An `async fn` would hold `run` twice (the argument, and the local it moves into:
// rust-lang/rust#62958), a future 60% larger.
#[allow(clippy::manual_async_fn)]
fn drive<'a, S: Send + Sync + 'static, H: Hooks, E: 'a>(
    builder: RunBuilder<'a, S, H>,
    journal: Option<(&'a dyn Journal, String)>,
    error: fn(DurableRunError) -> E,
    answer: Option<&'a Expected>,
) -> impl Future<Output = Result<Run, E>> + Send + 'a {
    // Taken apart out here, so that the future holds each part once.
    let RunBuilder {
        agent,
        mut run,
        resume,
        events,
        ledgers,
    } = builder;
    async move {
        let span = Span::agent(agent.name.as_deref(), &agent.model_name);
        let mut driver = Driver {
            agent,
            events,
            journal: None,
            answer,
            last_request: None,
            ledgers,
            cache: CacheWatch::new(),
            fallback: Fallback::default(),
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
    /// The journaled run cannot go on: its journal failed, or it cannot go on as it was
    /// started.
    Durable(DurableRunError),
}

impl From<JournalError> for Halt {
    fn from(error: JournalError) -> Self {
        Halt::Durable(DurableRunError::Journal(error))
    }
}

/// One run's loop, and what it keeps between steps. Its phases are types of their own, each
/// over the driver: a step's request (`Requesting`, `request.rs`), and the answering of a
/// turn's calls (`turn.rs`, whose phases are in `turn/`).
pub(super) struct Driver<'a, S, H> {
    pub(super) agent: &'a Agent<S, H>,
    pub(super) events: Option<Box<dyn FnMut(Event) + Send + 'a>>,
    /// Boxed: a run without a journal keeps its future small.
    pub(super) journal: Option<Box<Journaling<'a>>>,
    /// What a typed run's final answer must be.
    pub(super) answer: Option<&'a Expected>,
    /// The run's last request sent and the input tokens its answer reported, which bound the
    /// next request's input for a budget when it continues it.
    pub(super) last_request: Option<Last>,
    /// The ledgers of the budgets the run's requests are checked against: those above it (of
    /// the runs whose sub-agent it is), then its own.
    pub(super) ledgers: Vec<Arc<Ledger>>,
    /// The start of the last request, to tell when the next one breaks the provider's cache.
    pub(super) cache: CacheWatch,
    /// How a typed run asks for its answer's schema: less once its server refused more.
    pub(super) fallback: Fallback,
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
            .map_err(Halt::Durable)?;
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
        if let Some(budget) = &self.agent.budget {
            // What the run and its sub-agents used already (a resumed run's), which its budget
            // bounds with what comes.
            let tree = run.tree();
            let used = Bound {
                input: tree.usage.input_tokens,
                output: tree.usage.output_tokens,
                cost: tree.cost.unwrap_or(Cost::ZERO),
            };
            self.ledgers.push(Ledger::new(budget.clone(), used));
        }
        if resume {
            match run.stop {
                Stop::AwaitingApproval => {
                    if let Some(stop) = answer_turn(self, run).await? {
                        return Ok(stop);
                    }
                }
                Stop::Failed { .. } => {}
                _ => return Ok(run.stop.clone()),
            }
        }
        if run.cost.is_none() && (Requesting { driver: self }).priced(run) {
            run.cost = Some(Cost::ZERO);
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
            if let Some(price) = self.agent.price_of(&answer) {
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
            run.turn = Some(Turn::new(answer, calls));
            if let Some(stop) = answer_turn(self, run).await? {
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
            Requesting { driver: self }.count_replayed(run, &replayed.1);
            return Ok(ControlFlow::Continue(replayed));
        }
        let response = match (Requesting { driver: self }).request(run, step).await {
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
        let priced = (self.agent.price_of(answer), run.cost);
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
}
