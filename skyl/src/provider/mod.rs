//! Provider adapters: a transcript in, a request body out; a response body in, a message out.
//!
//! Four adapters implement [`Adapter`], one per wire format:
//!
//! | adapter | API | tool result on the wire | [`ToolResult::is_error`](crate::ToolResult::is_error) |
//! |---|---|---|---|
//! | [`Anthropic`] | Messages | `tool_result` block in a `user` message | intact, a real `is_error` boolean |
//! | [`OpenAiChat`] | Chat Completions and every OpenAI-compatible server | `role: "tool"` message | lossy: `"error: "` prefixed to the content, dropped when the content is empty |
//! | [`OpenAiResponses`] | Responses | `function_call_output` item | lossy, as `OpenAiChat` |
//! | [`Gemini`] | `generateContent` | `functionResponse` part in a `user` turn | dropped (opt in to `response.error` with [`Gemini::with_error_key`]) |
//!
//! An adapter does no I/O: [`Adapter::encode`] builds the JSON body to POST and
//! [`Adapter::decode`] reads the JSON body that came back. Before building a body, every adapter
//! checks the transcript ([`transcript::validate_complete`](crate::transcript::validate_complete)),
//! the tool names and the tool schemas, and returns an [`EncodeError`] instead of a body the
//! provider would answer with a 400.
//!
//! A decoded assistant message keeps what its provider needs back on the next request (Gemini
//! `thoughtSignature`s, Anthropic thinking blocks, OpenAI Responses reasoning items and `fc_` ids)
//! as [`ProviderData`](crate::ProviderData) tagged with the adapter's [`Adapter::name`]; each
//! adapter reads only its own and skips the others', so a transcript can move between providers.
//!
//! ```
//! use serde_json::json;
//! use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, Request};
//! use skyl::{Message, Part, Role, ToolCall, ToolDefinition, tool_result_message};
//!
//! let request = Request {
//!     model: "some-model".into(),
//!     system: Some("You are terse.".into()),
//!     messages: vec![
//!         Message::user("Weather in Kampala?"),
//!         Message {
//!             role: Role::Assistant,
//!             parts: vec![Part::ToolCall(ToolCall::new("call_1", "get_weather", json!({"city": "Kampala"})))],
//!         },
//!         tool_result_message("call_1", "22C and sunny"),
//!     ].into(),
//!     tools: vec![ToolDefinition {
//!         name: "get_weather".into(),
//!         description: "Current weather in a city.".into(),
//!         parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
//!         ..Default::default()
//!     }].into(),
//!     ..Default::default()
//! };
//!
//! // Pick the provider at run time.
//! let adapters: Vec<Box<dyn Adapter>> = vec![Box::new(Anthropic::default()), Box::new(OpenAiChat::default()), Box::new(Gemini::default())];
//! for adapter in &adapters {
//!     let body = adapter.encode(&request).expect("a valid transcript");
//!     assert!(body.is_object(), "{}", adapter.name());
//! }
//!
//! // Decoding an answer gives the assistant message to append to the transcript.
//! let response = OpenAiChat::default().decode(&json!({
//!     "choices": [{"finish_reason": "stop", "message": {"role": "assistant", "content": "22C and sunny."}}],
//!     "usage": {"prompt_tokens": 40, "completion_tokens": 6}
//! })).unwrap();
//! assert_eq!(response.message, Message::assistant("22C and sunny."));
//! assert_eq!(response.usage.output_tokens, 6);
//! ```

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::message::Message;
use crate::tool::ToolDefinition;

mod anthropic;
mod common;
pub mod dialect;
mod error;
mod gemini;
mod ids;
mod openai_chat;
mod openai_responses;
mod read;
mod stream;

pub use anthropic::Anthropic;
pub use error::{DecodeError, EncodeError};
pub use gemini::Gemini;
pub use openai_chat::OpenAiChat;
pub use openai_responses::OpenAiResponses;
pub use stream::{SseEvent, SseParser, StreamDecoder, StreamEvent, Streaming};

/// One wire format: builds request bodies and reads response bodies.
///
/// Object-safe, so an application can choose its provider from configuration:
///
/// ```
/// use skyl::provider::{Adapter, Anthropic, OpenAiResponses};
///
/// fn adapter_for(name: &str) -> Box<dyn Adapter> {
///     match name {
///         "anthropic" => Box::new(Anthropic::default()),
///         _ => Box::new(OpenAiResponses::default()),
///     }
/// }
/// assert_eq!(adapter_for("anthropic").name(), "anthropic");
/// ```
pub trait Adapter: Send + Sync {
    /// The adapter's id: `"anthropic"`, `"openai_chat"`, `"openai_responses"` or `"gemini"`.
    /// [`ProviderData`](crate::ProviderData) this adapter produces carries it, and this adapter
    /// reads only provider data that does.
    fn name(&self) -> &'static str;

    /// The JSON body of a request for `request`, or why the provider would refuse it.
    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError>;

    /// The assistant's answer in a response body, or why the body cannot be read (including an
    /// error the provider returned instead of an answer).
    fn decode(&self, body: &Value) -> Result<Response, DecodeError>;
}

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
    /// The tools the model may call. Send them on every request whose transcript holds calls.
    pub tools: Cow<'a, [ToolDefinition]>,
    /// Whether and which tool the model must call.
    pub tool_choice: ToolChoice,
    /// The most tokens to generate. [`Anthropic`] requires a value and sends
    /// [`Anthropic::DEFAULT_MAX_TOKENS`] when this is `None`; the others leave it to the provider.
    pub max_tokens: Option<u32>,
    /// Provider-specific fields merged into the top level of the body last (`temperature`,
    /// `parallel_tool_calls`, `store`, ...). A key already in the body is replaced, except that
    /// two JSON objects are merged key by key (so `generationConfig` can be extended on Gemini).
    pub extra: Map<String, Value>,
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
            max_tokens: self.max_tokens,
            extra: self.extra,
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

/// An answer decoded from a response body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The assistant's turn: text, tool calls, and the provider data to send back with it.
    /// Append it to the transcript as it is.
    pub message: Message,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Tokens used.
    pub usage: Usage,
    /// The provider's id for the response, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model that answered, as the provider names it, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Why the model stopped, normalised across providers.
///
/// Non-exhaustive: a reason skyl does not name yet arrives as [`Other`](Self::Other), and may get
/// its own variant later; match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It called tools and waits for their results.
    ToolUse,
    /// It hit the token limit; the answer (or a tool call) may be cut off.
    MaxTokens,
    /// It produced one of the request's stop sequences.
    StopSequence,
    /// The provider's content filter stopped it.
    ContentFilter,
    /// The model refused to answer.
    Refusal,
    /// Another reason, as the provider spelled it (for example Anthropic `pause_turn` or Gemini
    /// `MALFORMED_FUNCTION_CALL`); empty when the provider gave none.
    Other(String),
}

/// Tokens a request used. Counts the provider did not report are zero or `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read, including cached ones.
    pub input_tokens: u64,
    /// Tokens generated, excluding reasoning tokens where the provider counts them apart (Gemini).
    pub output_tokens: u64,
    /// Input tokens served from the provider's cache, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    /// Reasoning ("thinking") tokens, when reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_tokens: Option<u64>,
}
