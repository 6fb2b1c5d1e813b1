//! What an adapter encodes: a [`Request`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Caching, OutputSchema};
use crate::message::Message;
use crate::tool::ToolDefinition;

/// Everything an adapter needs to build one request body.
///
/// A request borrows what it can: the transcript and the tool definitions usually live
/// elsewhere (in an agent's run, in a [`Toolbox`](crate::Toolbox)), so encoding the same
/// transcript for two providers, or at every step of a loop, copies neither. Each field is a
/// [`Cow`], so a request can also own what it holds (`vec![...].into()`), and a hook may replace a
/// borrowed field with an owned one (trimmed history, a subset of the tools).
///
/// ```
/// use skyl::provider::Request;
/// use skyl::{Message, Toolbox};
///
/// /// Says hello.
/// #[skyl::tool]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let toolbox = Toolbox::new().with(Hello);
/// let transcript = vec![Message::user("Hello")];
/// let request = Request {
///     model: "claude-sonnet-4-5".into(),
///     messages: transcript.as_slice().into(),
///     tools: toolbox.definitions().into(),
///     ..Default::default()
/// };
/// assert_eq!(request.tools[0].name, "hello");
///
/// // An owned request, for when nothing outlives it:
/// let owned: Request<'static> = Request {
///     model: "gpt-5".into(),
///     messages: vec![Message::user("Hi")].into(),
///     ..Default::default()
/// };
/// assert!(owned.tools.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request<'a> {
    /// The model to ask.
    pub model: Cow<'a, str>,
    /// The system prompt. Adapters put it where their provider wants it and before any
    /// [`Role::System`](crate::Role::System) messages of the transcript (see each adapter's docs).
    pub system: Option<Cow<'a, str>>,
    /// The transcript. It must be complete: every call answered
    /// ([`transcript::validate_complete`](crate::transcript::validate_complete)).
    pub messages: Cow<'a, [Message]>,
    /// The tools the model may call, sent in this order. Send them on every request whose
    /// transcript holds calls, in the same order from request to request: the provider's prompt
    /// cache reads the request's start (see [`Caching`]). An agent sends its tools sorted by
    /// name.
    pub tools: Cow<'a, [ToolDefinition]>,
    /// Whether and which tool the model must call.
    pub tool_choice: ToolChoice,
    /// The shape the model's answer must take, when it is to be JSON of a schema: each adapter
    /// puts it on its provider's structured-output field (see [`OutputSchema`]).
    pub output: Option<Cow<'a, OutputSchema>>,
    /// The most tokens to generate. [`Anthropic`](super::Anthropic) requires a value and sends
    /// [`Anthropic::DEFAULT_MAX_TOKENS`](super::Anthropic::DEFAULT_MAX_TOKENS) when this is `None`; the others leave it to the provider.
    pub max_tokens: Option<u32>,
    /// Provider-specific fields merged into the top level of the body last (`temperature`,
    /// `parallel_tool_calls`, `store`, ...). A key already in the body is replaced, except that
    /// two JSON objects are merged key by key (so `generationConfig` can be extended on Gemini).
    pub extra: Map<String, Value>,
    /// The names of tools of [`tools`](Self::tools) that the provider's own tool search keeps
    /// from the model until it searches for them (Anthropic's tool search tool, OpenAI
    /// Responses' `tool_search`): their declarations say `"defer_loading": true`, and the
    /// search tool is declared after the tools. Empty (the default) defers nothing.
    ///
    /// The tool list stays the same from request to request, so finding a tool keeps the
    /// provider's prompt cache. The adapters of providers without a tool search (OpenAI Chat,
    /// Gemini) refuse a request that defers tools ([`EncodeError::ToolSearch`](super::EncodeError::ToolSearch));
    /// an agent's [`ToolSearch`](crate::agent::ToolSearch) searches in skyl for them.
    pub deferred_tools: Cow<'a, [String]>,
    /// Where the provider is asked to cache the request's start: by default Anthropic's
    /// breakpoints on the tools, the system prompt and the newest turns (see [`Caching`]).
    pub caching: Caching,
}

impl Request<'_> {
    /// A request that owns everything it holds, so it can outlive what it borrowed (to move it to
    /// another task, or keep it after the transcript changes).
    pub fn into_owned(self) -> Request<'static> {
        Request {
            model: Cow::Owned(self.model.into_owned()),
            system: self.system.map(|system| Cow::Owned(system.into_owned())),
            messages: Cow::Owned(self.messages.into_owned()),
            tools: Cow::Owned(self.tools.into_owned()),
            tool_choice: self.tool_choice,
            output: self.output.map(|output| Cow::Owned(output.into_owned())),
            max_tokens: self.max_tokens,
            extra: self.extra,
            deferred_tools: Cow::Owned(self.deferred_tools.into_owned()),
            caching: self.caching,
        }
    }
}

/// Whether and which tool the model must call.
///
/// Non-exhaustive: providers keep adding choices (OpenAI's `allowed_tools`, Gemini's
/// `VALIDATED`), and skyl may follow.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must not call a tool.
    None,
    /// The model must call at least one tool.
    Required,
    /// The model must call this tool.
    Tool(String),
}
