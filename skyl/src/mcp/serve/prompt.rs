//! Prompts a server offers: what one is ([`ServedPrompt`]), its definition, its messages, and
//! prompts made at run time ([`DynamicPrompt`]). `#[skyl::prompt]` makes one of a function.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::content::Content;
use crate::mcp::serve::failure::Failure;

/// A prompt as `prompts/list` shows it: its name, what it is for, and its arguments.
///
/// Non-exhaustive: MCP adds fields to its definitions, so one is built with its constructors and
/// `with_*` methods (or [`Default`]) and its fields are set by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptDefinition {
    /// The name a client gets it by.
    pub name: String,
    /// A name for people, when it differs from `name`.
    pub title: Option<String>,
    /// What the prompt is for.
    pub description: Option<String>,
    /// Its arguments, in order.
    pub arguments: Vec<PromptArgument>,
}

impl PromptDefinition {
    /// A prompt named `name`, for what `description` says, without arguments.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptDefinition {
            name: name.into(),
            title: None,
            description: Some(description.into()),
            arguments: Vec::new(),
        }
    }

    /// The definition with one more argument.
    pub fn with_argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }

    /// The definition with a title for people.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// One argument of a prompt. MCP sends its value as text.
///
/// Non-exhaustive: MCP adds fields to its definitions, so one is built with its constructors and
/// `with_*` methods (or [`Default`]) and its fields are set by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptArgument {
    /// Its name.
    pub name: String,
    /// What it is.
    pub description: Option<String>,
    /// Whether a `prompts/get` must give it.
    pub required: bool,
}

impl PromptArgument {
    /// An argument `prompts/get` must give.
    pub fn required(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptArgument {
            name: name.into(),
            description: Some(description.into()),
            required: true,
        }
    }

    /// An argument `prompts/get` may leave out.
    pub fn optional(name: impl Into<String>, description: impl Into<String>) -> Self {
        PromptArgument {
            required: false,
            ..PromptArgument::required(name, description)
        }
    }
}

/// One message of a prompt: a user's or an assistant's, holding text, an image, audio or a
/// resource (any [`Content`]; a document is sent as a blob resource, JSON as text).
#[derive(Clone, Debug, PartialEq)]
pub struct PromptMessage {
    pub(in crate::mcp) assistant: bool,
    pub(in crate::mcp) content: Content,
}

impl PromptMessage {
    /// A message of the user's.
    ///
    /// ```
    /// use skyl::mcp::PromptMessage;
    /// use skyl::content::{Image, Resource};
    ///
    /// let messages = vec![
    ///     PromptMessage::user("Describe this chart."),
    ///     PromptMessage::user(Image::png(b"\x89PNG\r\n\x1a\n")),
    ///     PromptMessage::user(Resource::text("file:///notes.md", "# Notes")),
    /// ];
    /// # let _ = messages;
    /// ```
    pub fn user(content: impl Into<Content>) -> Self {
        PromptMessage {
            assistant: false,
            content: content.into(),
        }
    }

    /// A message of the assistant's.
    pub fn assistant(content: impl Into<Content>) -> Self {
        PromptMessage {
            assistant: true,
            content: content.into(),
        }
    }

    /// Whether the assistant says it (else the user).
    pub fn is_assistant(&self) -> bool {
        self.assistant
    }

    /// What it holds.
    pub fn content(&self) -> &Content {
        &self.content
    }
}

/// What a prompt function may return: text (one user message), a message, messages, or a
/// `Result` of one of them whose error is the prompt's failure.
#[diagnostic::on_unimplemented(
    message = "a prompt cannot return `{Self}`",
    label = "not a prompt's messages",
    note = "return text (`String`), a `skyl::mcp::PromptMessage`, a `Vec<PromptMessage>`, or a `Result` of one of them whose error implements `Display`"
)]
pub trait IntoPromptMessages {
    /// The messages, or why there are none.
    fn into_prompt_messages(self) -> Result<Vec<PromptMessage>, Failure>;
}

impl IntoPromptMessages for String {
    fn into_prompt_messages(self) -> Result<Vec<PromptMessage>, Failure> {
        Ok(vec![PromptMessage::user(self)])
    }
}

impl IntoPromptMessages for &str {
    fn into_prompt_messages(self) -> Result<Vec<PromptMessage>, Failure> {
        Ok(vec![PromptMessage::user(self)])
    }
}

impl IntoPromptMessages for PromptMessage {
    fn into_prompt_messages(self) -> Result<Vec<PromptMessage>, Failure> {
        Ok(vec![self])
    }
}

impl IntoPromptMessages for Vec<PromptMessage> {
    fn into_prompt_messages(self) -> Result<Vec<PromptMessage>, Failure> {
        Ok(self)
    }
}

impl<T: IntoPromptMessages, E: fmt::Display + 'static> IntoPromptMessages for Result<T, E> {
    fn into_prompt_messages(self) -> Result<Vec<PromptMessage>, Failure> {
        self.map_err(failure)?.into_prompt_messages()
    }
}

/// `error` as a failure: itself when it is one, else its `Display` as the cause.
pub(in crate::mcp) fn failure<E: fmt::Display + 'static>(error: E) -> Failure {
    match (&error as &dyn std::any::Any).downcast_ref::<Failure>() {
        Some(failure) => failure.clone(),
        None => Failure::new(error),
    }
}

/// The arguments of a `prompts/get`, as the client gave them (MCP gives text).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptArguments {
    values: Map<String, Value>,
}

impl PromptArguments {
    /// The arguments of `values`.
    pub fn new(values: Map<String, Value>) -> Self {
        PromptArguments { values }
    }

    /// The argument `name`, read as `T` (text as JSON would hold it as a string, else as the
    /// JSON it says: `"3"` is a number). Missing, it is `T`'s value of nothing (`None` for an
    /// `Option`), or a failure naming it when `T` has none.
    pub fn get<T: DeserializeOwned>(&self, name: &str) -> Result<T, Failure> {
        crate::mcp::reading::argument(&self.values, name)
    }

    /// Every argument given, as JSON.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.values
    }
}

/// The future of a prompt's messages.
pub type PromptFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vec<PromptMessage>, Failure>> + Send + 'a>>;

/// A prompt a [`Server`](crate::mcp::Server) offers ([`Server::with_prompt`](crate::mcp::Server::with_prompt)):
/// a function with `#[skyl::prompt]`, a [`DynamicPrompt`], or a type of your own.
///
/// The server keeps the promise tools have: every `prompts/get` gets one answer. A required
/// argument the request leaves out, an argument that does not read, the prompt's failure and a
/// panic of its function (while it is called or polled) become the protocol's errors, with a
/// message naming the prompt, the cause and what to do next.
pub trait ServedPrompt: Send + Sync + 'static {
    /// What `prompts/list` shows.
    fn definition(&self) -> &PromptDefinition;

    /// The prompt's messages for `arguments`.
    fn get(&self, arguments: PromptArguments) -> PromptFuture<'_>;

    /// The values the argument `argument` may take that begin with `typed`, for
    /// `completion/complete`; none unless the prompt says.
    fn complete(&self, argument: &str, typed: &str) -> Vec<String> {
        let _ = (argument, typed);
        Vec::new()
    }
}

/// What a [`DynamicPrompt`] runs.
type Get = dyn Fn(PromptArguments) -> PromptFuture<'static> + Send + Sync;
/// What completes one of its arguments.
pub(in crate::mcp) type Completer = Arc<dyn Fn(&str) -> Vec<String> + Send + Sync>;

/// A prompt made at run time from a [`PromptDefinition`] and a closure: prompts read from files,
/// or generated from a list.
///
/// The closure takes the [`PromptArguments`] and returns what a `#[prompt]` function may return
/// ([`IntoPromptMessages`]); the arguments the definition requires are checked before it runs.
///
/// ```
/// use skyl::mcp::{DynamicPrompt, PromptArgument, PromptDefinition, PromptMessage, Server};
///
/// let review = DynamicPrompt::from_fn(
///     PromptDefinition::new("review", "Reviews a piece of code.")
///         .with_argument(PromptArgument::required("code", "The code to review.")),
///     |arguments| -> Result<PromptMessage, skyl::mcp::Failure> {
///         let code: String = arguments.get("code")?;
///         Ok(PromptMessage::user(format!("Review this code:\n{code}")))
///     },
/// )
/// .with_completion("code", |typed| vec![format!("{typed}()")]);
/// let server = Server::new(skyl::Toolbox::new()).with_prompt(review);
/// # let _ = server;
/// ```
pub struct DynamicPrompt {
    definition: PromptDefinition,
    get: Box<Get>,
    completers: HashMap<String, Completer>,
}

impl DynamicPrompt {
    /// A prompt whose messages `get` gives, on the thread that polls it.
    pub fn from_fn<R, F>(definition: PromptDefinition, get: F) -> Self
    where
        R: IntoPromptMessages,
        F: Fn(PromptArguments) -> R + Send + Sync + 'static,
    {
        DynamicPrompt {
            definition,
            get: Box::new(move |arguments| {
                let messages = get(arguments).into_prompt_messages();
                Box::pin(std::future::ready(messages))
            }),
            completers: HashMap::new(),
        }
    }

    /// A prompt whose messages the future `get` returns gives.
    pub fn from_async_fn<R, Fut, F>(definition: PromptDefinition, get: F) -> Self
    where
        R: IntoPromptMessages,
        Fut: Future<Output = R> + Send + 'static,
        F: Fn(PromptArguments) -> Fut + Send + Sync + 'static,
    {
        DynamicPrompt {
            definition,
            get: Box::new(move |arguments| {
                let future = get(arguments);
                Box::pin(async move { future.await.into_prompt_messages() })
            }),
            completers: HashMap::new(),
        }
    }

    /// The prompt with `complete` giving the values the argument `argument` may take that begin
    /// with what the client typed.
    pub fn with_completion(
        mut self,
        argument: impl Into<String>,
        complete: impl Fn(&str) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.completers.insert(argument.into(), Arc::new(complete));
        self
    }
}

impl ServedPrompt for DynamicPrompt {
    fn definition(&self) -> &PromptDefinition {
        &self.definition
    }

    fn get(&self, arguments: PromptArguments) -> PromptFuture<'_> {
        (self.get)(arguments)
    }

    fn complete(&self, argument: &str, typed: &str) -> Vec<String> {
        self.completers
            .get(argument)
            .map(|complete| complete(typed))
            .unwrap_or_default()
    }
}

impl fmt::Debug for DynamicPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicPrompt")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}
