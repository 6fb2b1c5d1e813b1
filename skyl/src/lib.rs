//! # skyl: typed tools for language models
//!
//! skyl turns ordinary Rust functions into tools a language model can call, and guarantees that
//! every call the model makes gets exactly one [`ToolResult`] whose content tells the model what
//! happened and what to do next.
//!
//! ## A tool is a function
//!
//! ```
//! use skyl::{ToolCall, Toolbox};
//!
//! /// Get the current weather for a city.
//! #[skyl::tool]
//! fn get_weather(
//!     /// The city, for example "Kampala".
//!     city: &str,
//!     /// How many days of forecast; today only when omitted.
//!     days: Option<u8>,
//! ) -> String {
//!     format!("22C and sunny in {city} for {} day(s)", days.unwrap_or(1))
//! }
//!
//! // The function is still a function...
//! assert_eq!(get_weather("Gulu", None), "22C and sunny in Gulu for 1 day(s)");
//!
//! // ...and `GetWeather` is the tool: a definition for the model and a typed dispatcher.
//! let toolbox = Toolbox::new().with(GetWeather);
//! let definition = &toolbox.definitions()[0];
//! assert_eq!(definition.description, "Get the current weather for a city.");
//! assert_eq!(
//!     definition.parameters,
//!     serde_json::json!({
//!         "type": "object",
//!         "properties": {
//!             "city": {"type": "string", "description": "The city, for example \"Kampala\"."},
//!             "days": {
//!                 "type": ["integer", "null"],
//!                 "minimum": 0,
//!                 "maximum": 255,
//!                 "description": "How many days of forecast; today only when omitted."
//!             }
//!         },
//!         "required": ["city"],
//!         "additionalProperties": false
//!     })
//! );
//!
//! let call = ToolCall::new("call_1", "get_weather", serde_json::json!({"city": "Kampala"}));
//! assert_eq!(toolbox.dispatch_blocking(&call).content, "22C and sunny in Kampala for 1 day(s)");
//! ```
//!
//! The doc comment is the tool's description and each parameter's `///` is that argument's
//! description: a tool without a description does not compile, because a model cannot use an
//! undocumented tool well. See [`tool`](macro@tool) for everything the attribute accepts.
//!
//! ## Every call gets exactly one result
//!
//! [`Toolbox::dispatch`] answers one call and [`Toolbox::answer`] a whole assistant turn (its calls
//! run concurrently; the results keep call order). Neither can fail. Whatever goes wrong becomes a
//! result with `is_error: true` and prose that names the tool, the cause and the next step:
//!
//! | what happened | the model reads |
//! |---|---|
//! | no tool of that name | the tools there are, and the nearest name |
//! | arguments that do not fit | which argument, what was expected, "call it again with corrected arguments" |
//! | the tool returned `Err(e)` | `e`, and "do not retry; tell the user" |
//! | the tool returned a [`ToolFailure`] | its message, and the guidance it chose |
//! | the tool panicked | that it crashed, and not to retry |
//! | the call ran past `Toolbox::with_timeout` (feature `timeout`) | that it timed out |
//!
//! The prose matters because the `is_error` flag is lossy: only Anthropic receives it as a
//! flag. The OpenAI adapters turn it into an `"error: "` prefix, and Gemini drops it.
//!
//! ## State
//!
//! A parameter marked `#[state]` is not an argument the model sees but a reference into the
//! toolbox's state, borrowed through [`FromRef`]; tools that need different parts of the state share
//! one [`Toolbox::with_state`].
//!
//! ## Transcripts
//!
//! [`transcript::validate_complete`] checks the ordering rules every provider enforces (each result
//! right after the turn that made its call, one result per call) so that a broken transcript is an
//! error naming the message and the call, not an HTTP 400 after the tools already ran.
//!
//! ## Providers
//!
//! [`provider`] holds one [`Adapter`](provider::Adapter) per provider API (Anthropic Messages,
//! OpenAI Chat Completions, OpenAI Responses, Gemini `generateContent`). An adapter encodes a
//! [`provider::Request`] into the body that provider expects, with the tool results placed, ordered
//! and flagged as it requires, and decodes its response into an assistant [`Message`]. What
//! each provider loses of a result is listed in [`provider`].
//!
//! ## Streaming
//!
//! Providers stream an answer as server-sent events. [`provider::SseParser`] splits the bytes of a
//! response body into events, whatever the chunk boundaries, and the adapter's
//! [`provider::StreamDecoder`] (from [`provider::Streaming::stream_decoder`]) turns each event
//! into [`provider::StreamEvent`]s: the text as it is written, each tool call as it starts, grows
//! and completes, then the usage and the end. It finishes into exactly the
//! [`provider::Response`] that `decode` gives for the same answer unstreamed. Neither does I/O,
//! so they serve any HTTP client:
//!
//! ```
//! use skyl::provider::{OpenAiChat, SseParser, StreamEvent, Streaming};
//!
//! let body = concat!(
//!     "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
//!     "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
//!     "data: [DONE]\n\n",
//! );
//! let mut parser = SseParser::new();
//! let mut decoder = OpenAiChat::default().stream_decoder();
//! let mut text = String::new();
//! let mut on_event = |event: StreamEvent| {
//!     if let StreamEvent::TextDelta(piece) = event {
//!         text.push_str(&piece);
//!     }
//! };
//! // Feed the body in whatever pieces the network delivers.
//! for piece in body.as_bytes().chunks(17) {
//!     parser
//!         .try_feed(piece, |event| decoder.push(&event.event, &event.data, &mut on_event))
//!         .unwrap();
//! }
//! let response = decoder.finish(&mut on_event).unwrap();
//! assert_eq!(text, "Hello");
//! assert_eq!(response.message.text_content(), "Hello");
//! ```
//!
//! A stream that ends before the provider said the answer was complete, data that is not JSON,
//! and an error the provider sends mid-stream are each a [`provider::DecodeError`] that names the
//! event; a tool call is reported finished only once it is complete.
//!
//! ## Talking to providers over HTTP
//!
//! With the `http` feature, `skyl::http::HttpModel` is an [`agent::Model`] for each adapter: it
//! sends a [`provider::Request`] to Anthropic, OpenAI (Chat Completions or Responses), Gemini, or
//! any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, Groq) and reads
//! the answer whole or streamed. `HttpModel::from_env` reads the variables the official SDKs
//! read (`ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`/`OPENAI_BASE_URL`,
//! `GOOGLE_API_KEY` or `GEMINI_API_KEY`/`GOOGLE_GEMINI_BASE_URL`); `HttpModel::builder` takes
//! everything by hand, including a base URL for a server on your own machine.
//!
//! ```no_run
//! # #[cfg(feature = "http")]
//! async fn ask() -> Result<(), Box<dyn std::error::Error>> {
//!     use skyl::Message;
//!     use skyl::agent::Model;
//!     use skyl::http::HttpModel;
//!     use skyl::provider::{OpenAiChat, Request, StreamEvent};
//!
//!     // Ollama on this machine, through its OpenAI-compatible API: no key needed.
//!     let model = HttpModel::builder(OpenAiChat::default())
//!         .base_url("http://localhost:11434/v1")
//!         .build()?;
//!     let request = Request {
//!         model: "llama3.2".into(),
//!         messages: vec![Message::user("Why is the sky blue?")].into(),
//!         ..Default::default()
//!     };
//!     let answer = model
//!         .stream(&request, &mut |event| {
//!             if let StreamEvent::TextDelta(text) = event {
//!                 print!("{text}");
//!             }
//!         })
//!         .await?;
//!     println!("\n{} tokens", answer.usage.output_tokens);
//!     Ok(())
//! }
//! ```
//!
//! Failures are [`agent::ModelError`]s that keep what the provider said: the HTTP status, its
//! error type and message verbatim, the request id, and how many retries were spent. Rate limits,
//! overload (Anthropic's 529 too) and broken connections are retried with backoff, honouring
//! `retry-after`; a connect timeout, a total timeout and an idle timeout between stream events
//! bound every request, and dropping the future cancels it. The API key appears in no `Debug` or
//! `Display`. The transport runs on Tokio, as reqwest does.
//!
//! ## Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `timeout` | no | `Toolbox::with_timeout`, with an executor-agnostic timer thread |
//! | `http` | no | `skyl::http::HttpModel`: a `Model` over HTTP for the four adapters, streamed or not (reqwest with rustls on ring, Tokio timers) |
#![warn(missing_docs)]

pub mod agent;
#[cfg(feature = "http")]
pub mod http;
pub mod message;
pub mod provider;
pub mod schema;
pub mod tool;
pub mod transcript;

mod arguments;
mod executor;
mod macro_support;
mod name_index;
mod prose;
mod toolbox;

pub use message::{
    InvalidToolResult, Message, Part, ProviderData, Role, ToolCall, ToolResult, tool_error_message,
    tool_result_message,
};
pub use tool::{
    FailureKind, FromRef, Guidance, IntoToolOutput, Json, Tool, ToolAnnotations, ToolDefinition,
    ToolFailure, ToolFuture, ToolOutcome,
};
pub use toolbox::Toolbox;
pub use transcript::TranscriptError;

#[doc = include_str!("tool_attribute.md")]
#[doc(inline)]
pub use skyl_macros::tool;

/// Paths the `#[tool]` macro expands to. Not public API: no semver guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::arguments::parse_arguments;
    pub use crate::macro_support::{
        Defer, ToolParameterDeserialize, ToolParameterSchema, arguments_schema, assert_deserialize,
        assert_json_schema, tool_output,
    };
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
