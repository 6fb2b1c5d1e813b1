//! A model that answers from a script, for tests and offline examples.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;
use std::future::ready;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::message::{Message, ToolCall};
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
/// ```
/// use serde_json::json;
/// use skyl::agent::Agent;
/// use skyl::model::Response;
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
    requests: Vec<Request<'static>>,
}

type Reply = dyn FnMut(&Request<'_>) -> Result<Response, ModelError> + Send;

enum Entry {
    Response(Response),
    With(Box<Reply>),
    Fail(ModelError),
}

impl ScriptedModel {
    /// A model with an empty script.
    pub fn new() -> Self {
        ScriptedModel::default()
    }

    /// Answers the next request with `response`.
    pub fn reply(self, response: Response) -> Self {
        self.push(Entry::Response(response))
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

    /// Every request received so far, in order (also those it refused or failed).
    pub fn requests(&self) -> Vec<Request<'static>> {
        self.lock().requests.clone()
    }

    /// How many scripted answers are left.
    pub fn remaining(&self) -> usize {
        self.lock().entries.len()
    }

    fn push(self, entry: Entry) -> Self {
        self.lock().entries.push_back(entry);
        self
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        // A panic in a `reply_with` closure poisons the lock; the script itself is still whole.
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn answer(&self, request: &Request<'_>) -> Result<Response, ModelError> {
        let mut script = self.lock();
        script.requests.push(request.clone().into_owned());
        let number = script.requests.len();
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
        match script.entries.pop_front() {
            Some(Entry::Response(response)) => Ok(response),
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
            .field("requests", &script.requests.len())
            .finish()
    }
}
