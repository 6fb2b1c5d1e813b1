//! The [`Tool`] trait: what every tool gives a toolbox, however it was made.

use std::time::Duration;

use serde_json::Value;

use super::{Invocation, RichOutcome, ToolDefinition, ToolFuture};

/// A tool a [`Toolbox`](crate::Toolbox) can dispatch calls to.
///
/// `S` is the toolbox's state. A tool that needs none implements `Tool<S>` for every `S`, so it
/// fits in any toolbox; one that needs part of the state asks for it with [`FromRef`](crate::tool::FromRef).
///
/// A hand-written tool:
///
/// ```
/// use serde_json::{json, Value};
/// use skyl::{Tool, ToolDefinition, ToolFailure, tool::ToolFuture};
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
/// let echo = Echo(ToolDefinition::new("echo", "Repeats the text.", json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})));
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

    /// Runs the tool on a model's arguments, seeing its own call: the toolbox calls this, and by
    /// default it is [`call`](Self::call).
    ///
    /// Implement it (and [`call`](Self::call) as a call of it with [`Invocation::new`]) for a
    /// tool that reads its call id or effect key, reports progress, logs, or stops when
    /// cancelled; a `#[tool]` function does this when it has a `#[context]` parameter. Take the
    /// [`CallContext`](crate::tool::CallContext) with [`Invocation::context`] before the future starts: the future cannot
    /// borrow the invocation.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use skyl::tool::Invocation;
    /// use skyl::{Tool, ToolCall, ToolDefinition, Toolbox, tool::{Progress, ToolFuture}};
    ///
    /// struct Slow(ToolDefinition);
    ///
    /// impl<S> Tool<S> for Slow {
    ///     fn definition(&self) -> &ToolDefinition {
    ///         &self.0
    ///     }
    ///
    ///     fn call<'a>(&'a self, arguments: &'a Value, state: &'a S) -> ToolFuture<'a> {
    ///         self.invoke(arguments, state, &Invocation::new(&self.0.name, ""))
    ///     }
    ///
    ///     fn invoke<'a>(&'a self, _: &'a Value, _: &'a S, call: &Invocation<'_>) -> ToolFuture<'a> {
    ///         let context = call.context();
    ///         ToolFuture::new(async move {
    ///             context.progress(Progress::new(1.0).with_total(1.0));
    ///             Ok(format!("done with {}", context.call_id()))
    ///         })
    ///     }
    /// }
    ///
    /// let slow = Slow(ToolDefinition::new("slow", "Is slow.", json!({"type": "object", "properties": {}})));
    /// let toolbox = Toolbox::new().with(slow);
    /// let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "slow", json!({})));
    /// assert_eq!(result.content, "done with c1");
    /// ```
    #[inline]
    fn invoke<'a>(
        &'a self,
        arguments: &'a Value,
        state: &'a S,
        invocation: &Invocation<'_>,
    ) -> ToolFuture<'a> {
        let _ = invocation;
        self.call(arguments, state)
    }

    /// How long a call may run before the toolbox stops it, overriding
    /// [`Toolbox::with_timeout`](crate::Toolbox) for this tool; `None` (the default) keeps the
    /// toolbox's.
    ///
    /// Only a call that is still running after [`call`](Self::call) returned can be stopped (an
    /// asynchronous tool, or one that runs on another thread as `#[tool(blocking)]` does), and
    /// only with the `timeout` feature; without it the toolbox never stops a call.
    /// `#[tool(timeout = "5s")]` implements this method.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// How long a cancelled call of this tool is still polled so that it can clean up,
    /// overriding [`Toolbox::with_cancel_grace`](crate::Toolbox::with_cancel_grace) (one second
    /// by default) for this tool; `None` (the default) keeps the toolbox's.
    ///
    /// It matters to a tool that takes its [`CallContext`](crate::tool::CallContext) and races
    /// [`CallContext::cancelled`](crate::tool::CallContext::cancelled) against its work: see the toolbox's method for what happens
    /// when. `#[tool(cancel_grace = "2s")]` implements this method.
    fn cancel_grace(&self) -> Option<Duration> {
        None
    }

    /// Not API (skyl's mounted MCP tools implement it): goes on with a call of this tool whose
    /// question was asked in another process (or before a restart), from the `continuation` the
    /// question kept and the person's `reply` (a serialized `skyl::agent::Reply`); `None` when
    /// this tool cannot.
    #[doc(hidden)]
    fn resume_elsewhere(
        &self,
        continuation: &Value,
        reply: Value,
        call_id: &str,
    ) -> Option<std::pin::Pin<Box<dyn Future<Output = RichOutcome> + Send + 'static>>> {
        let _ = (continuation, reply, call_id);
        None
    }
}
