//! What a tool is: a definition the model reads and a call the toolbox runs.
//!
//! Most tools come from [`#[tool]`](macro@crate::tool) on a function, which implements [`Tool`] for you.
//! A tool built at run time (from a config file, an MCP server) is a [`DynamicTool`]: a
//! definition and a closure. Implement [`Tool`] by hand when neither fits.

use serde_json::Value;

mod definition;
mod dynamic;
mod failure;
mod future;
mod guided;
mod output;
mod state;

pub use definition::{ToolAnnotations, ToolDefinition};
pub use dynamic::DynamicTool;
pub use failure::{FailureKind, Guidance, ToolFailure};
pub use future::{ToolFuture, ToolOutcome};
pub use guided::{Guide, GuidedError};
pub use output::{IntoToolOutput, Json};
pub use state::FromRef;

/// A tool a [`Toolbox`](crate::Toolbox) can dispatch calls to.
///
/// `S` is the toolbox's state. A tool that needs none implements `Tool<S>` for every `S`, so it
/// fits in any toolbox; one that needs part of the state asks for it with [`FromRef`].
///
/// A hand-written tool:
///
/// ```
/// use serde_json::{json, Value};
/// use skyl::{Tool, ToolDefinition, ToolFailure, ToolFuture};
///
/// struct Echo(ToolDefinition);
///
/// impl<S> Tool<S> for Echo {
///     fn definition(&self) -> &ToolDefinition {
///         &self.0
///     }
///
///     fn call<'a>(&'a self, arguments: &'a Value, _state: &'a S) -> ToolFuture<'a> {
///         ToolFuture::ready(match arguments.get("text").and_then(Value::as_str) {
///             Some(text) => Ok(text.to_owned()),
///             None => Err(ToolFailure::invalid_arguments("the argument \"text\" is missing or not a string")),
///         })
///     }
/// }
///
/// let echo = Echo(ToolDefinition {
///     name: "echo".into(),
///     description: "Repeats the text.".into(),
///     parameters: json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
///     ..Default::default()
/// });
/// # let _ = echo;
/// ```
pub trait Tool<S = ()>: Send + Sync + 'static {
    /// The definition the model sees. Build it once; the toolbox asks for it on every call.
    fn definition(&self) -> &ToolDefinition;

    /// Runs the tool on a model's arguments.
    ///
    /// Parse the arguments and do any synchronous work here; return [`ToolFuture::ready`] when the
    /// answer is known and [`ToolFuture::new`] for asynchronous work. The toolbox catches panics
    /// from this method and from the future it returns, whether it is being polled or dropped.
    fn call<'a>(&'a self, arguments: &'a Value, state: &'a S) -> ToolFuture<'a>;
}
