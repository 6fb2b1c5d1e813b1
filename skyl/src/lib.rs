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
//! ## MCP
//!
//! With the feature `mcp`, `skyl::mcp` carries tools across the Model Context Protocol both ways,
//! on the official Rust SDK (rmcp):
//!
//! - **Serve.** `skyl::mcp::Server::new(toolbox).serve_stdio().await` makes a toolbox, state and
//!   all, an MCP server that Claude Desktop, Cursor or the MCP inspector can launch. Every tool
//!   keeps its guarantee there: bad arguments, an `Err`, a panic and a timeout are results with
//!   `isError: true` and the same prose, so the model can correct itself; an unknown name is the
//!   JSON-RPC error `-32602` that MCP asks for, with the same prose as its message. A definition's
//!   annotations and output schema are listed, and JSON output is sent as `structuredContent` too.
//! - **Mount.** `skyl::mcp::Remote::spawn("files", command).await?` connects to a server, and
//!   `Toolbox::with_remote(&files)` adds its tools beside local ones, named so that every provider
//!   accepts them (`read.file` becomes `files_read_file`). A server that crashes, hangs or
//!   disconnects gives a failed result naming the server and what to do, never a hang or a panic.
//!
//! `cargo run --example mcp_server` serves the weather example's tools over stdio. The module's
//! documentation (built with the feature) has the details: content blocks, timeouts, a changing
//! tool list, HTTP.
//!
//! ## Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `timeout` | no | `Toolbox::with_timeout`, with an executor-agnostic timer thread |
//! | `mcp` | no | `skyl::mcp`: serve a toolbox as an MCP server, mount an MCP server's tools; stdio and child processes (rmcp, tokio) |
//! | `mcp-http` | no | `mcp` over streamable HTTP too: `Server::serve_http` on a local port, `RemoteBuilder::connect_http` (rmcp's HTTP transports, hyper, reqwest without TLS) |
#![warn(missing_docs)]

pub mod agent;
#[cfg(feature = "mcp")]
pub mod mcp;
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
