//! A model that answers from a script, for tests and offline examples.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;
use std::future::ready;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::message::{Message, Role, ToolCall};
use crate::model::{BoxFuture, Model, ModelError, ModelErrorKind};
use crate::provider::{
    Adapter, Anthropic, EncodeError, Gemini, OpenAiChat, OpenAiResponses, OutputSchema, Request,
    Response,
};
use crate::transcript;

/// A [`Model`] that answers each request with the next entry of a script, and records every
/// request it receives.
///
/// Script it with [`reply_text`](Self::reply_text), [`reply_calls`](Self::reply_calls),
/// [`reply`](Self::reply) (a whole [`Response`]), [`reply_with`](Self::reply_with) (a closure over
/// the request) and [`fail`](Self::fail). Like a provider, it refuses a request whose transcript
/// leaves a call without its result ([`transcript::validate_complete`]), and one whose answer
/// schema ([`Request::output`], a typed run's) a built-in adapter would refuse (OpenAI's strict
/// mode takes no map, for one), with a [`ModelErrorKind::Encode`] error whose cause is the
/// refusal; and a request past the end of the script is a [`ModelErrorKind::Other`] error that
/// says so.
///
/// Clones share the script and the record: keep one to look at the requests after handing the
/// other to an [`Agent`](crate::agent::Agent).
///
/// A model made with [`new`](Self::new) answers by position: the n-th request gets the n-th
/// answer, whatever it asks. A run resumed from a journal or a saved run asks only for the steps
/// it has not done, so it would get the first answers again: script those with
/// [`by_step`](Self::by_step), whose answers are keyed to the step they answer.
///
/// ```
/// use serde_json::json;
/// use skyl::agent::Agent;
/// use skyl::provider::Response;
/// use skyl::testing::ScriptedModel;
/// use skyl::{Message, ToolCall, Toolbox};
///
/// /// Adds two numbers.
/// #[skyl::tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let model = ScriptedModel::new()
///     .reply_calls([ToolCall::new("c1", "add", json!({"a": 2, "b": 3}))])
///     .reply_with(|request| {
///         // Answer with the result the tool gave.
///         let result = request.messages.last().unwrap().tool_results().next().unwrap();
///         Ok(Response::text(format!("2 + 3 = {}", result.content)))
///     });
/// let agent = Agent::new(model.clone(), Toolbox::new().with(Add), "m");
///
/// let run = agent.run(vec![Message::user("2 + 3?")]).blocking()?;
/// assert_eq!(run.text(), "2 + 3 = 5");
/// let requests = model.requests();
/// assert_eq!(requests.len(), 2);
/// assert_eq!(requests[1].messages.len(), 3);
/// assert_eq!(requests[0].tools[0].name, "add");
/// # Ok::<(), skyl::agent::RunError>(())
/// ```
#[derive(Clone, Default)]
pub struct ScriptedModel {
    script: Arc<Mutex<Script>>,
}

#[derive(Default)]
struct Script {
    entries: VecDeque<Entry>,
    /// A script by step: the n-th for step n + 1. `None` for a script by position.
    steps: Option<Vec<Step>>,
    /// The highest step asked for, in a script by step.
    asked: usize,
    requests: Vec<Request<'static>>,
    /// How many requests came, recorded or not.
    received: usize,
    /// Whether requests are not recorded.
    unrecorded: bool,
}

/// The answer of one step of a script by step, and the failures it gives first, once each.
#[derive(Default)]
struct Step {
    failures: VecDeque<ModelError>,
    answer: Option<Entry>,
}

type Reply = dyn FnMut(&Request<'_>) -> Result<Response, ModelError> + Send;

enum Entry {
    Response(Box<Response>),
    With(Box<Reply>),
    Fail(ModelError),
}

impl ScriptedModel {
    /// A model with an empty script, answering by position: each request gets the next answer.
    pub fn new() -> Self {
        ScriptedModel::default()
    }

    /// A model with an empty script, answering by step: the first answer scripted is step 1's,
    /// the next step 2's, and so on, and a request gets the answer of the step it asks for,
    /// however many requests came before it. A request's step is one more than the assistant
    /// messages in its transcript (each answer of the model becomes one). So a run resumed after
    /// a crash or a pause, which asks only for the steps it has not done, gets their answers, as
    /// it would from a real model; a step asked for again gets the same answer (a
    /// [`reply_with`](Self::reply_with) closure is called again).
    ///
    /// A [`fail`](Self::fail) fails the first request for the step whose answer is scripted
    /// next, and that step's answer is given to the next request for it: a run resumed after a
    /// failed request gets the answer.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::agent::Agent;
    /// use skyl::model::ModelError;
    /// use skyl::testing::ScriptedModel;
    /// use skyl::{Message, ToolCall, Toolbox};
    ///
    /// /// Looks a word up.
    /// #[skyl::tool(read_only)]
    /// fn define(word: String) -> String {
    ///     format!("{word}: a greeting")
    /// }
    ///
    /// let model = ScriptedModel::by_step()
    ///     .reply_calls([ToolCall::new("c1", "define", json!({"word": "hello"}))])
    ///     .fail(ModelError::provider(529, "Overloaded"))
    ///     .reply_text("It is a greeting.");
    /// let agent = Agent::new(model.clone(), Toolbox::new().with(Define), "m");
    /// // Step 2's first request fails; the run so far is kept in the error.
    /// let error = agent.run(vec![Message::user("hello?")]).blocking().unwrap_err();
    /// // Resumed, the run asks for step 2 again, and gets its answer.
    /// let run = agent.resume(error.into_run()).blocking()?;
    /// assert_eq!(run.text(), "It is a greeting.");
    /// assert_eq!(model.requests().len(), 3);
    /// # Ok::<(), skyl::agent::RunError>(())
    /// ```
    pub fn by_step() -> Self {
        let model = ScriptedModel::default();
        model.lock().steps = Some(Vec::new());
        model
    }

    /// Answers the next request with `response`.
    pub fn reply(self, response: Response) -> Self {
        self.push(Entry::Response(Box::new(response)))
    }

    /// Answers the next request with an assistant message holding `text`
    /// ([`Response::text`]).
    pub fn reply_text(self, text: impl Into<String>) -> Self {
        self.reply(Response::text(text))
    }

    /// Answers the next request with an assistant message holding `calls`
    /// ([`Response::calls`]).
    pub fn reply_calls(self, calls: impl IntoIterator<Item = ToolCall>) -> Self {
        self.reply(Response::calls(calls))
    }

    /// Answers the next request with what `reply` makes of it.
    pub fn reply_with(
        self,
        reply: impl FnMut(&Request<'_>) -> Result<Response, ModelError> + Send + 'static,
    ) -> Self {
        self.push(Entry::With(Box::new(reply)))
    }

    /// Fails the next request with `error`.
    pub fn fail(self, error: ModelError) -> Self {
        self.push(Entry::Fail(error))
    }

    /// Keeps no record of the requests ([`requests`](Self::requests) stays empty): for a model
    /// that serves many runs, in a long-running example or a benchmark, whose record would grow
    /// without bound.
    pub fn unrecorded(self) -> Self {
        self.lock().unrecorded = true;
        self
    }

    /// Every request received so far, in order (also those it refused or failed).
    pub fn requests(&self) -> Vec<Request<'static>> {
        self.lock().requests.clone()
    }

    /// How many scripted answers are left: by position, those not given yet; by step, those of
    /// the steps after the highest one asked for.
    pub fn remaining(&self) -> usize {
        let script = self.lock();
        match &script.steps {
            Some(steps) => steps.len().saturating_sub(script.asked),
            None => script.entries.len(),
        }
    }

    fn push(self, entry: Entry) -> Self {
        let mut script = self.lock();
        match &mut script.steps {
            Some(steps) => {
                if steps.last().is_none_or(|step| step.answer.is_some()) {
                    steps.push(Step::default());
                }
                let step = steps.last_mut().expect("a step was just pushed");
                match entry {
                    Entry::Fail(error) => step.failures.push_back(error),
                    answer => step.answer = Some(answer),
                }
            }
            None => script.entries.push_back(entry),
        }
        drop(script);
        self
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        // A panic in a `reply_with` closure poisons the lock; the script itself is still whole.
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn answer(&self, request: &Request<'_>) -> Result<Response, ModelError> {
        let mut script = self.lock();
        if !script.unrecorded {
            script.requests.push(request.clone().into_owned());
        }
        script.received += 1;
        let number = script.received;
        if let Err(error) = transcript::validate_complete(&request.messages) {
            return Err(ModelError::new(
                ModelErrorKind::Encode,
                format!("request {number} would be refused by every provider"),
            )
            .with_source(error));
        }
        if let Some(refusal) = request.output.as_deref().and_then(answer_refusal) {
            return Err(ModelError::new(
                ModelErrorKind::Encode,
                format!(
                    "request {number} would be refused by {}: its answer's schema cannot be sent there",
                    refusal.provider()
                ),
            )
            .with_source(refusal));
        }
        if script.steps.is_some() {
            return self.answer_step(script, request);
        }
        match script.entries.pop_front() {
            Some(Entry::Response(response)) => Ok(*response),
            Some(Entry::With(mut reply)) => {
                drop(script);
                reply(request)
            }
            Some(Entry::Fail(error)) => Err(error),
            None => Err(ModelError::new(
                ModelErrorKind::Other,
                format!(
                    "the script has no answer left for request {number}; add one with ScriptedModel::reply_text, reply_calls, reply or reply_with"
                ),
            )),
        }
    }
}

impl ScriptedModel {
    /// The answer of the step `request` asks for, in a script by step.
    fn answer_step(
        &self,
        mut script: MutexGuard<'_, Script>,
        request: &Request<'_>,
    ) -> Result<Response, ModelError> {
        let step = request
            .messages
            .iter()
            .filter(|message| message.role == Role::Assistant)
            .count()
            + 1;
        script.asked = script.asked.max(step);
        let steps = script.steps.as_mut().expect("a script by step");
        let Some(scripted) = steps.get_mut(step - 1) else {
            return Err(ModelError::new(
                ModelErrorKind::Other,
                format!(
                    "the script has no answer for step {step}: it answers {} steps; add one with ScriptedModel::reply_text, reply_calls, reply or reply_with",
                    steps.len()
                ),
            ));
        };
        if let Some(error) = scripted.failures.pop_front() {
            return Err(error);
        }
        match &mut scripted.answer {
            Some(Entry::Response(response)) => Ok((**response).clone()),
            Some(Entry::With(_)) => {
                // Called without the lock, as by position: the closure may look at the model.
                let Some(Entry::With(mut reply)) = scripted.answer.take() else {
                    unreachable!("the answer was just matched")
                };
                drop(script);
                let answered = reply(request);
                let mut script = self.lock();
                if let Some(steps) = &mut script.steps {
                    steps[step - 1].answer = Some(Entry::With(reply));
                }
                answered
            }
            Some(Entry::Fail(_)) => unreachable!("failures are kept apart in a script by step"),
            None => Err(ModelError::new(
                ModelErrorKind::Other,
                format!(
                    "the script's step {step} has failures and no answer left; add one with ScriptedModel::reply_text, reply_calls, reply or reply_with"
                ),
            )),
        }
    }
}

/// What the first built-in adapter that refuses `output` says of it: each puts it on its
/// provider's structured-output field, by the rules it would send it by.
fn answer_refusal(output: &OutputSchema) -> Option<EncodeError> {
    let probe = Request {
        model: "scripted".into(),
        messages: vec![Message::user("?")].into(),
        output: Some(Cow::Borrowed(output)),
        ..Default::default()
    };
    let adapters: [&dyn Adapter; 4] = [
        &Anthropic,
        &OpenAiChat::default(),
        &OpenAiResponses::default(),
        &Gemini::default(),
    ];
    adapters
        .into_iter()
        .find_map(|adapter| adapter.encode(&probe).err())
}

impl Model for ScriptedModel {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(ready(self.answer(request)))
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let script = self.lock();
        f.debug_struct("ScriptedModel")
            .field("remaining", &script.entries.len())
            .field("requests", &script.received)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::block_on;
    use crate::message::{Message, Part, ToolResult};
    use serde_json::json;

    /// A request whose transcript holds `answered` steps: the user's message, then per step an
    /// assistant call and its result.
    fn request_at(answered: usize) -> Request<'static> {
        let mut messages = vec![Message::user("Go")];
        for step in 0..answered {
            let id = format!("c{step}");
            messages.push(Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(ToolCall::new(
                    id.as_str(),
                    "look",
                    json!({}),
                ))],
            });
            messages.push(Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(ToolResult::success(id, "ok"))],
            });
        }
        Request {
            messages: messages.into(),
            ..Request::default()
        }
    }

    fn ask(model: &ScriptedModel, answered: usize) -> Result<String, String> {
        block_on(model.complete(&request_at(answered)))
            .map(|response| response.message.text_content())
            .map_err(|error| error.to_string())
    }

    #[test]
    fn a_script_by_step_answers_the_step_asked_for_whatever_came_before() {
        let model = ScriptedModel::by_step()
            .reply_text("one")
            .reply_text("two")
            .reply_text("three");
        assert_eq!(model.remaining(), 3);
        // A run resumed at step 3 gets step 3's answer, not the first one.
        assert_eq!(ask(&model, 2), Ok("three".into()));
        assert_eq!(model.remaining(), 0);
        assert_eq!(ask(&model, 0), Ok("one".into()));
        // A step asked for again gets the same answer.
        assert_eq!(ask(&model, 1), Ok("two".into()));
        assert_eq!(ask(&model, 1), Ok("two".into()));
        assert_eq!(model.requests().len(), 4);
        // By position, the same resumed request would have had the first answer.
        let by_position = ScriptedModel::new().reply_text("one").reply_text("two");
        assert_eq!(ask(&by_position, 1), Ok("one".into()));
    }

    #[test]
    fn a_failure_by_step_fails_the_steps_first_request_only_and_a_missing_step_says_so() {
        let model = ScriptedModel::by_step()
            .reply_text("one")
            .fail(ModelError::new(ModelErrorKind::Other, "overloaded"))
            .reply_text("two");
        assert_eq!(ask(&model, 1), Err("the model failed: overloaded".into()));
        assert_eq!(ask(&model, 1), Ok("two".into()));
        assert_eq!(
            ask(&model, 2),
            Err("the model failed: the script has no answer for step 3: it answers 2 steps; add one with ScriptedModel::reply_text, reply_calls, reply or reply_with".into())
        );
    }

    #[test]
    fn an_unrecorded_model_answers_and_keeps_no_request() {
        let model = ScriptedModel::by_step().reply_text("one").unrecorded();
        assert_eq!(ask(&model, 0), Ok("one".into()));
        assert!(model.requests().is_empty());
        let recorded = ScriptedModel::by_step().reply_text("one");
        assert_eq!(ask(&recorded, 0), Ok("one".into()));
        assert_eq!(recorded.requests().len(), 1);
    }

    #[test]
    fn a_closure_by_step_is_called_for_each_request_of_its_step() {
        let model = ScriptedModel::by_step().reply_with(|request| {
            Ok(Response::text(format!(
                "{} messages",
                request.messages.len()
            )))
        });
        assert_eq!(ask(&model, 0), Ok("1 messages".into()));
        assert_eq!(ask(&model, 0), Ok("1 messages".into()));
    }
}
