//! What an adapter encodes: a [`Request`].

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::OutputSchema;
use super::caching::Caching;
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
/// let request = Request::new("claude-sonnet-4-5", transcript.as_slice())
///     .with_tools(toolbox.definitions())
///     .with_max_tokens(1024);
/// assert_eq!(request.tools[0].name, "hello");
///
/// // An owned request, for when nothing outlives it:
/// let owned: Request<'static> = Request::new("gpt-5", vec![Message::user("Hi")]);
/// assert!(owned.tools.is_empty());
/// ```
///
/// Non-exhaustive: requests gain fields as providers gain features (deferred tools and caching
/// came so), so a request is built with [`new`](Self::new) and the `with_*` methods (or
/// [`Default`]), and its fields are set or read by name.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
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

impl<'a> Request<'a> {
    /// A request for `model` to answer the transcript `messages`, with no tools, no system prompt
    /// and every other setting at its default.
    pub fn new(model: impl Into<Cow<'a, str>>, messages: impl Into<Cow<'a, [Message]>>) -> Self {
        Request {
            model: model.into(),
            messages: messages.into(),
            ..Request::default()
        }
    }

    /// With the system prompt `system` ([`system`](Self::system)).
    pub fn with_system(mut self, system: impl Into<Cow<'a, str>>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// With the tools `tools`, sent in this order ([`tools`](Self::tools)).
    pub fn with_tools(mut self, tools: impl Into<Cow<'a, [ToolDefinition]>>) -> Self {
        self.tools = tools.into();
        self
    }

    /// With the tool choice `choice` ([`tool_choice`](Self::tool_choice)).
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = choice;
        self
    }

    /// With the shape the answer must take ([`output`](Self::output)).
    pub fn with_output(mut self, output: impl Into<Cow<'a, OutputSchema>>) -> Self {
        self.output = Some(output.into());
        self
    }

    /// With at most `max_tokens` tokens to generate ([`max_tokens`](Self::max_tokens)).
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// With the provider-specific fields `extra` ([`extra`](Self::extra)), replacing any set
    /// before.
    pub fn with_extra(mut self, extra: Map<String, Value>) -> Self {
        self.extra = extra;
        self
    }

    /// With the tools the provider's tool search keeps back ([`deferred_tools`](Self::deferred_tools)).
    pub fn with_deferred_tools(mut self, names: impl Into<Cow<'a, [String]>>) -> Self {
        self.deferred_tools = names.into();
        self
    }

    /// With the cache placement `caching` ([`caching`](Self::caching)).
    pub fn with_caching(mut self, caching: Caching) -> Self {
        self.caching = caching;
        self
    }
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
