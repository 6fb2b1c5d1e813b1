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
//! ## Agent loop
//!
//! [`agent::Agent`] runs the loop every tool-using application writes: send the transcript, read
//! the answer, answer every call, append, repeat. It does no I/O of its own: an
//! [`agent::Model`] talks to the provider (an HTTP transport, your own client, or
//! [`testing::ScriptedModel`] in tests and examples).
//!
//! ```
//! use serde_json::json;
//! use skyl::agent::{Agent, Stop, StopWhen};
//! use skyl::testing::ScriptedModel;
//! use skyl::{Message, ToolCall, Toolbox};
//!
//! /// Get the current weather for a city.
//! #[skyl::tool]
//! fn get_weather(
//!     /// The city.
//!     city: String,
//! ) -> String {
//!     format!("22C and sunny in {city}")
//! }
//!
//! let model = ScriptedModel::new()
//!     .reply_calls([ToolCall::new("c1", "get_weather", json!({"city": "Kampala"}))])
//!     .reply_text("22C and sunny in Kampala.");
//! let agent = Agent::new(model, Toolbox::new().with(GetWeather), "claude-sonnet-4-5")
//!     .with_system("You are terse.")
//!     .with_stop(StopWhen::token_budget(100_000));
//!
//! // `.await` it in async code; `blocking` runs it without an executor.
//! let run = agent.run(vec![Message::user("Weather in Kampala?")]).blocking()?;
//! assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 2));
//! assert_eq!(run.text(), "22C and sunny in Kampala.");
//! # Ok::<(), skyl::agent::RunError>(())
//! ```
//!
//! - **Stopping.** A run ends when the model answers without calling a tool, or at the step
//!   limit (10 requests unless [`with_max_steps`](agent::Agent::with_max_steps) says
//!   otherwise). [`StopWhen`](agent::StopWhen) adds a "final answer" tool, a token budget or a
//!   predicate of your own. A breaker ends a run in which the model made the same failing call
//!   three times. Every stop comes after the last step's calls have their results.
//! - **Hooks.** [`Hooks`](agent::Hooks) step in before each request (trim the history, offer
//!   fewer tools, force a tool choice), before each call (run it, deny it with a reason the model
//!   reads, answer it in the tool's place, or pause it for approval), after each call and after
//!   each step. A closure is enough for one hook ([`agent::hooks`]). Calls that are let through
//!   run concurrently; their results keep call order.
//! - **Approval.** A paused run stops with [`Stop::AwaitingApproval`](agent::Stop::AwaitingApproval).
//!   It serializes with serde; later, perhaps in another process, record each decision with
//!   [`Run::approve`](agent::Run::approve) or [`Run::deny`](agent::Run::deny) and pass it to
//!   [`Agent::resume`](agent::Agent::resume). [`with_approval_for_destructive`](agent::Agent::with_approval_for_destructive)
//!   pauses every call of a tool whose annotations say it may destroy data.
//! - **Failures.** A model request that fails ends the run with a [`RunError`](agent::RunError)
//!   that keeps the run so far, every tool result included: resume it once the provider is back.
//! - **Progress.** [`on_event`](agent::RunBuilder::on_event) streams the model's answer and each
//!   call's start and finish to a callback, for a CLI or a UI. With the `tracing` feature, each
//!   run, request and call is a span named as OpenTelemetry's GenAI conventions say.
//!
//! Whatever the hooks, the people approving and the model do, every call gets exactly one
//! result, and each request the agent sends holds a transcript that every adapter accepts.
//! `cargo run --example agent` shows a run step by step.
//!
//! ## Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `timeout` | no | `Toolbox::with_timeout`, with an executor-agnostic timer thread |
//! | `tracing` | no | spans for agent runs, model requests and tool calls (OpenTelemetry GenAI names), from the tracing crate |
#![warn(missing_docs)]

pub mod agent;
pub mod message;
pub mod provider;
pub mod schema;
pub mod testing;
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
