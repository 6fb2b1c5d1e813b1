//! Provider adapters: a transcript in, a request body out; a response body in, a message out.
//!
//! skyl's four built-in adapters implement [`Adapter`], one per wire format (and [`AzureOpenAi`]
//! puts the two OpenAI ones on Azure); a provider of your own is written the same way, outside
//! skyl (see [Adding a provider](#adding-a-provider)):
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
//! as [`ProviderData`](crate::transcript::ProviderData) tagged with the adapter's [`Provider`], attached to
//! the part it belongs to (a call's in [`ToolCall::provider_data`](crate::ToolCall::provider_data),
//! a text's in [`Part::ProviderText`](crate::Part::ProviderText)) or, when it stands alone in the
//! answer, as a [`Part::Provider`](crate::Part::Provider). Each adapter reads only its own and
//! skips the others', so a transcript can move between providers.
//!
//! ```
//! use serde_json::json;
//! use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, Request};
//! use skyl::{Message, Part, Role, ToolCall, ToolDefinition, transcript::tool_result_message};
//!
//! let request = Request::new("some-model", vec![
//!         Message::user("Weather in Kampala?"),
//!         Message {
//!             role: Role::Assistant,
//!             parts: vec![Part::ToolCall(ToolCall::new("call_1", "get_weather", json!({"city": "Kampala"})))],
//!         },
//!         tool_result_message("call_1", "22C and sunny"),
//!     ]).with_system("You are terse.").with_tools(vec![ToolDefinition::new("get_weather", "Current weather in a city.", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}))]);
//!
//! // Pick the provider at run time.
//! let adapters: Vec<Box<dyn Adapter>> = vec![Box::new(Anthropic), Box::new(OpenAiChat::default()), Box::new(Gemini::default())];
//! for adapter in &adapters {
//!     let body = adapter.encode(&request).expect("a valid transcript");
//!     assert!(body.is_object(), "{}", adapter.provider());
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
//!
//! # How a request and a response travel through this module
//!
//! Every adapter runs the same two drivers; what differs between providers is only the steps the
//! drivers call, and each adapter's folder implements them (`encode.rs`, `decode.rs`,
//! `stream.rs`, and `api.rs` for HTTP, laid out as `providers/skyl-ollama` is). A request's walk through [`Adapter::encode`] enters each file once, in this
//! order:
//!
//! | file | what happens there |
//! |---|---|
//! | `mod.rs` | [`Adapter::encode`] hands the request to the driver |
//! | `encode.rs` | the driver: the checks, then the adapter's steps, then [`Request::extra`] merged in |
//! | `check.rs` | the transcript ([`transcript::validate_complete`](crate::transcript::validate_complete)), each tool's name against the provider's rule (`names.rs`) and its schema's root, the tool choice |
//! | `anthropic/encode.rs`, `openai/chat/encode.rs`, `openai/responses/encode.rs` or `gemini/encode.rs` | the adapter's steps, in order: the head of the body (model, system prompt), the transcript in the provider's shape, each tool's declaration, the tools and the tool choice, the tail (token limit) |
//! | `openai/mod.rs` | for the two OpenAI adapters, what they share: results without an error flag, strict schemas |
//! | `caching.rs` | what the steps share for prompt caching: the tools in name order, schemas with sorted keys, where Anthropic's breakpoints go ([`Caching`](crate::provider::caching::Caching)) |
//! | `call_ids.rs`, [`dialect`] | what the steps need: Anthropic's call ids, each schema lowered to the provider's dialect (the lowering itself lives with the rest of the schema machinery, in `schema/dialect.rs`) |
//!
//! A response's walk through [`Adapter::decode`] is the mirror image: `mod.rs` hands the body to
//! the driver in `decode.rs`, which reads it through `read.rs` (a reader that works out its JSON
//! path only when something fails) and calls the adapter's steps (its folder's `decode.rs`) in order: the provider's error
//! body, the answer's parts and why it stopped (ids minted through `call_ids.rs` where the
//! provider gave none), the usage; the driver then builds the [`Response`].
//!
//! Two decisions hold across the adapters:
//!
//! - A call's arguments have one meaning wherever they are read. Decoding keeps a JSON object, or
//!   the model's text as a string when it is not a JSON object (so dispatching the call tells the
//!   model what was wrong); encoding and dispatch read any other shape a hand-built call may hold
//!   through the same rules (`null` and empty text are no arguments, text holding an object is
//!   that object), which the message layer states once (`message/call_arguments.rs`).
//! - Provider data travels inside the part it belongs to, never beside it: an encoder never has
//!   to guess which part a piece of data was for, and editing a transcript cannot move data onto
//!   the wrong part.
//!
//! # Adding a provider
//!
//! The set of providers is open: a provider is a type in a crate of its own, and nothing in skyl
//! changes for it. It implements up to six traits, each small because the drivers do what every
//! provider shares: [`Encoder`](crate::provider::author::Encoder), [`Decoder`](crate::provider::author::Decoder) and [`Adapter`] always, [`Streaming`](crate::provider::stream::Streaming) (made from
//! its [`StreamSteps`](crate::provider::stream::StreamSteps)) to stream, and [`Api`](crate::provider::author::Api) to be reached over HTTP:
//!
//! | trait | what the provider writes | what skyl does around it |
//! |---|---|---|
//! | [`Encoder`](crate::provider::author::Encoder) | its [`Provider`] identity (a constant from a [`ProviderInfo`]), its [`NameRule`](crate::provider::author::NameRule) for tool names, the body's steps: head, transcript, one tool's declaration (its schema lowered with [`dialect`] if the provider needs it), tools and choice, tail | [`encode_with`](crate::provider::author::encode_with): the transcript, names, schema roots and tool choice checked first, [`Request::extra`] merged last |
//! | [`Decoder`](crate::provider::author::Decoder) | its error body, the answer's parts and stop reason (through a [`Node`](crate::provider::author::Node), into an [`Answer`](crate::provider::author::Answer)), the usage | [`decode_with`](crate::provider::author::decode_with): the JSON path of a value of the wrong shape, ids minted for calls sent without ([`Answer::mint_id`](crate::provider::author::Answer::mint_id)), a tool use for an answer with calls |
//! | [`Adapter`] | nothing by hand: the line [`adapter!`]`(YourType)` implements it from the two above | `provider()` from [`Encoder::PROVIDER`](crate::provider::author::Encoder::PROVIDER), `encode` and `decode` by [`encode_with`](crate::provider::author::encode_with) and [`decode_with`](crate::provider::author::decode_with) |
//! | [`Streaming`](crate::provider::stream::Streaming) | a [`StreamDecoder::new`](crate::provider::stream::StreamDecoder::new) of its [`StreamSteps`](crate::provider::stream::StreamSteps): how one event grows the answer ([`StreamOut`](crate::provider::stream::StreamOut)), and the body the answer would have had unstreamed | the count of events, errors that say which event, calls told in order and finished only when whole, the final [`Response`] from the provider's own `decode` |
//! | [`Api`](crate::provider::author::Api) (for the HTTP transport) | the URL, the auth headers, the environment variables, and where it differs from the defaults: how a stream is asked for and framed ([`Framing`](crate::provider::author::Framing): server-sent events or JSON lines), its error body, which error types are transient | `HttpModel`: retries, timeouts, redaction, the stream read as it arrives |
//!
//! The `skyl-ollama` package in skyl's repository is the worked example: Ollama's own chat API
//! (`/api/chat`: calls without ids, arguments as objects, results naming their tool, a stream of
//! one JSON object a line), in five files of about a hundred lines each (`lib.rs`, `encode.rs`,
//! `decode.rs`, `stream.rs`, `api.rs`), using skyl's public API only. Its tests run an
//! [`Agent`](crate::agent::Agent) on it over HTTP, whole and streamed.
//!
//! What stays inside skyl: the built-in adapters' shared helpers (Anthropic's call-id cleaning,
//! the OpenAI transcript walk, the schema checks of `check.rs`), which are rules of those
//! providers rather than tools for others; a provider of your own calls the public
//! [`transcript`](crate::transcript) and [`dialect`] functions for the same ends.
//!
//! ## A result's content
//!
//! A tool may answer with more than its prose: images, PDFs, audio, resources and JSON ride
//! beside its [`ToolResult`](crate::ToolResult) as a
//! [`Part::ResultContent`](crate::Part::ResultContent) in the same tool message
//! ([`Message::result_content`](crate::Message::result_content) finds it by the call's id).
//! An encoder that sends only the prose drops them in silence. Lower them with a
//! [`ResultLowering`](crate::provider::author::ResultLowering), the one the built-in adapters are written on: say once, as a constant,
//! which images, documents and audio the provider takes, and it gives each part as a medium to
//! put on the wire or a line of text, with the same sentences the built-ins write for a part a
//! provider cannot take ("… which was not sent: Ollama takes no documents. …"). A blob
//! resource of a PDF, image or audio type (how MCP servers send a PDF) comes as the medium it
//! is.
//!
//! ```
//! use serde_json::{Value, json};
//! use skyl::provider::{Provider, ProviderInfo, author::{MediaRule, ResultLowering}};
//! use skyl::{Content, Message, Part, Role, ToolResult, content::{Document, Image, ResultContent, Source}};
//!
//! const PROVIDER: Provider = Provider::new(&ProviderInfo::new("example", "Example"));
//! /// A tool message takes PNG images as base64; nothing else.
//! const LOWERING: ResultLowering = ResultLowering::new(PROVIDER)
//!     .images(MediaRule::only(&["image/png"], "takes only PNG images")
//!         .bytes_only("takes images only as bytes, not at a URL"))
//!     .documents(MediaRule::none("takes no documents"));
//!
//! /// Each result of a tool message as `{"role": "tool", "content", "images"}`.
//! fn tool_messages(message: &Message) -> Vec<Value> {
//!     message.tool_results().map(|result| {
//!         let Some(content) = message.result_content(&result.call_id) else {
//!             return json!({"role": "tool", "content": result.content});
//!         };
//!         let (text, media) = LOWERING.split(result.content.clone(), result, content);
//!         let images: Vec<&str> = media.iter().filter_map(|part| match part.as_ref() {
//!             Content::Image(image) => match &image.source {
//!                 Source::Base64(data) => Some(data.as_str()),
//!                 _ => None,
//!             },
//!             _ => None,
//!         }).collect();
//!         json!({"role": "tool", "content": text, "images": images})
//!     }).collect()
//! }
//!
//! let answer = Message {
//!     role: Role::Tool,
//!     parts: vec![
//!         Part::ToolResult(ToolResult::success("c1", "The chart and the report.")),
//!         Part::ResultContent(ResultContent::new("c1", vec![
//!             Image::png(b"\x89PNG\r\n\x1a\n").into(),
//!             Document::pdf(b"%PDF-1.7").into(),
//!         ])),
//!     ],
//! };
//! assert_eq!(tool_messages(&answer), [json!({
//!     "role": "tool",
//!     "content": "The chart and the report.\n[The tool also returned a document (application/pdf, 8 bytes), which was not sent: Example takes no documents. If it matters, tell the user it could not be shown.]",
//!     "images": ["iVBORw0KGgo="]
//! })]);
//! ```
//!
//! `skyl-ollama`'s `encode.rs` does this for Ollama's `images`.

use serde_json::Value;

mod anthropic;
mod api;
pub mod author;
pub mod caching;
mod call_ids;
mod check;
mod decode;
pub mod dialect;
mod encode;
mod error;
mod gemini;
mod lowering;
mod names;
mod openai;
mod output;
pub mod partial;
mod read;
mod request;
mod response;
pub mod stream;

// What a user of the adapters names; provider authors' steps are in `author`, and streaming,
// partial arguments and caching in their own modules.
pub use crate::message::{Provider, ProviderInfo};
pub use anthropic::Anthropic;
pub use error::{DecodeError, EncodeError};
pub use gemini::Gemini;
pub use openai::azure::AzureOpenAi;
pub use openai::chat::OpenAiChat;
pub use openai::responses::OpenAiResponses;
pub use output::{ANSWER_FIELD, OutputMode, OutputSchema};
pub use request::{Request, ToolChoice};
pub use response::{Response, StopReason, Usage};

pub(crate) use caching::{digest, wire_order};
#[cfg(feature = "mcp")]
pub(crate) use lowering::is_json_of;
pub(crate) use names::PORTABLE as PORTABLE_NAMES;

/// One wire format: builds request bodies and reads response bodies.
///
/// Implemented by the built-in adapters, and by a provider of your own (see [Adding a
/// provider](self#adding-a-provider)): usually as [`encode_with`](crate::provider::author::encode_with) and [`decode_with`](crate::provider::author::decode_with) over its
/// [`Encoder`](crate::provider::author::Encoder) and [`Decoder`](crate::provider::author::Decoder) steps.
///
/// Object-safe, so an application can choose its provider from configuration:
///
/// ```
/// use skyl::provider::{Adapter, Anthropic, OpenAiResponses, Provider};
///
/// fn adapter_for(name: &str) -> Box<dyn Adapter> {
///     match name {
///         "anthropic" => Box::new(Anthropic),
///         _ => Box::new(OpenAiResponses::default()),
///     }
/// }
/// assert_eq!(adapter_for("anthropic").provider(), Provider::Anthropic);
/// ```
pub trait Adapter: Send + Sync {
    /// The provider whose wire format this is. [`ProviderData`](crate::transcript::ProviderData) this adapter
    /// produces carries it, and this adapter reads only provider data that does.
    fn provider(&self) -> Provider;

    /// The JSON body of a request for `request`, or why the provider would refuse it.
    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError>;

    /// The assistant's answer in a response body, or why the body cannot be read (including an
    /// error the provider returned instead of an answer).
    fn decode(&self, body: &Value) -> Result<Response, DecodeError>;
}

/// Makes a type that has [`Encoder`](crate::provider::author::Encoder) and [`Decoder`](crate::provider::author::Decoder) steps an [`Adapter`]: its provider is
/// [`Encoder::PROVIDER`](crate::provider::author::Encoder::PROVIDER), and it encodes and decodes by [`encode_with`](crate::provider::author::encode_with) and [`decode_with`](crate::provider::author::decode_with) over
/// its steps. A provider of your own writes its steps and this line, and no impl of its own:
///
/// ```text
/// skyl::provider::author::adapter!(Ollama);
/// ```
///
/// The built-in adapters are made by it (`adapter!(Anthropic, OpenAiChat, OpenAiResponses,
/// Gemini)`), and so is `skyl-ollama`'s, the worked example of [Adding a
/// provider](self#adding-a-provider).
#[doc(hidden)]
#[macro_export]
macro_rules! __provider_adapter {
    ($($adapter:ty),* $(,)?) => {$(
        impl $crate::provider::Adapter for $adapter {
            fn provider(&self) -> $crate::provider::Provider {
                <$adapter as $crate::provider::author::Encoder>::PROVIDER
            }

            fn encode(
                &self,
                request: &$crate::provider::Request<'_>,
            ) -> ::core::result::Result<$crate::__private::serde_json::Value, $crate::provider::EncodeError> {
                $crate::provider::author::encode_with(self, request)
            }

            fn decode(
                &self,
                body: &$crate::__private::serde_json::Value,
            ) -> ::core::result::Result<$crate::provider::Response, $crate::provider::DecodeError> {
                $crate::provider::author::decode_with(self, body)
            }
        }
    )*};
}

use crate::__provider_adapter as adapter;

adapter!(Anthropic, OpenAiChat, OpenAiResponses, Gemini);

/// A boxed adapter is one, so that an adapter chosen at run time goes wherever one is taken.
impl<A: Adapter + ?Sized> Adapter for Box<A> {
    fn provider(&self) -> Provider {
        (**self).provider()
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        (**self).encode(request)
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        (**self).decode(body)
    }
}

/// Each API's rule for tool names, named for people; OpenAI's rule covers both OpenAI adapters.
/// The adapters check their own at encode; [`PORTABLE_NAMES`] is all of them at once, the rule a
/// [`Toolbox`](crate::Toolbox) and a mounted MCP server's names follow, which its tests prove.
#[cfg(test)]
pub(crate) const TOOL_NAME_RULES: [(&str, &crate::tool::names::NameRule); 3] = [
    ("Anthropic", &names::WORD_64),
    ("OpenAI", &names::WORD_64),
    ("Gemini", &gemini::NAMES),
];
