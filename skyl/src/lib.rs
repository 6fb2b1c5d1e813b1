//! # skyl: typed tools for language models
//!
//! skyl turns ordinary Rust functions into tools a language model can call, and guarantees that
//! every call the model makes gets exactly one [`ToolResult`] whose content tells the model what
//! happened and what to do next.
//!
//! The pieces, in the order data flows through them:
//!
//! - [`message`]: the provider-neutral transcript: [`Message`], [`Part`], [`ToolCall`],
//!   [`ToolResult`].
//! - [`transcript`]: the ordering rules every provider enforces, checked before a request is sent.
//! - [`tool`](mod@tool): what a tool is ([`Tool`], [`ToolDefinition`]) and what it may return
//!   ([`IntoToolOutput`], [`ToolFailure`]).
//! - [`schema`]: the lean JSON schema the model sees.
#![warn(missing_docs)]

pub mod message;
mod prose;
pub mod schema;
pub mod tool;
pub mod transcript;

mod arguments;
mod executor;
mod macro_support;
mod toolbox;

pub use message::{
    InvalidToolResult, Message, Part, ProviderData, Role, ToolCall, ToolResult, tool_error_message,
    tool_result_message,
};
pub use tool::{
    FailureKind, FromRef, Guidance, IntoToolOutput, Json, Tool, ToolDefinition, ToolFailure,
    ToolFuture, ToolOutcome,
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
        Defer, ToolParameterDeserialize, ToolParameterSchema, assert_deserialize,
        assert_json_schema, tool_output,
    };
    pub use crate::schema::canonical_schema_for;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}
