//! What a tool is: a definition the model reads and a call the toolbox runs.
//!
//! Most tools come from [`#[tool]`](macro@crate::tool) on a function, which implements [`Tool`] for you,
//! or from [`#[tools]`](macro@crate::tools) on an `impl` block, which implements [`ToolSet`] for
//! the type whose methods are tools. A tool built at run time (from a config file, an MCP server)
//! is a [`DynamicTool`](crate::DynamicTool): a definition and a closure. Implement [`Tool`] by hand when neither fits.

mod context;
pub(crate) mod contract;
pub(crate) mod definition;
pub(crate) mod effect;
pub(crate) mod failure;
mod future;
mod guided;
pub(crate) mod invoked;
pub(crate) mod names;
pub(crate) mod output;
pub(crate) mod set;
mod state;

pub use crate::registration::{RegistrationError, UnknownTool};
pub use context::{
    CallContext, CallObserver, Cancelled, FromInvocation, Invocation, LogLevel, Progress, Report,
};
// The names of the common case are the crate root's (one public path per name); the rest of
// skyl reaches them here as well.
pub(crate) use contract::Tool;
pub use definition::ToolAnnotations;
pub(crate) use definition::ToolDefinition;
pub(crate) use failure::ToolFailure;
pub use failure::{FailureKind, Guidance};
pub(crate) use future::RichOutcome;
pub use future::{ToolFuture, ToolOutcome};
pub use guided::{Guide, GuidedError};
pub(crate) use output::Json;
pub use output::{IntoToolOutput, ToolOutput};
pub use set::{ToolSet, ToolVisitor};
pub use state::FromRef;
