//! Tools that share one instance: the `#[tool]` methods of a type.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::{Invocation, Tool, ToolDefinition, ToolFuture};

/// A group of tools that share one instance, registered together with
/// [`Toolbox::with_set`](crate::Toolbox::with_set).
///
/// [`#[tools]`](macro@crate::tools) on an `impl` block implements it for the block's type: each
/// `#[tool]` method becomes one tool, and the instance given to the toolbox is the `&self` of
/// every call. An `Arc<T>` is a set when `T` is, so an instance the application also keeps can be
/// shared rather than moved:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// /// A counter the application reads too.
/// #[derive(Default)]
/// struct Counter(AtomicU64);
///
/// #[skyl::tools]
/// impl Counter {
///     /// Adds one to the counter and returns its new value.
///     #[tool]
///     fn increment(&self) -> u64 {
///         self.0.fetch_add(1, Ordering::Relaxed) + 1
///     }
/// }
///
/// let counter = Arc::new(Counter::default());
/// let toolbox = skyl::Toolbox::new().with_set(Arc::clone(&counter));
/// let call = skyl::ToolCall::new("c1", "increment", serde_json::json!({}));
/// assert_eq!(toolbox.dispatch_blocking(&call).content, "1");
/// assert_eq!(counter.0.load(Ordering::Relaxed), 1);
/// ```
///
/// To implement it by hand, give each tool to the visitor; each may hold a clone of `self`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a set of tools for a toolbox whose state is `{S}`",
    label = "not a tool set for this toolbox",
    note = "mark the `impl` block that holds the `#[tool]` methods of `{Self}` with `#[skyl::tools]`",
    note = "a `#[state]` parameter of one of its tools must be provided by the toolbox state `{S}` (see `skyl::tool::FromRef`)"
)]
pub trait ToolSet<S = ()>: Send + Sync + Sized + 'static {
    /// Gives each tool of the set to `visitor`, in the order they are written.
    fn visit_tools(self: Arc<Self>, visitor: &mut impl ToolVisitor<S>);
}

/// Receives the tools of a [`ToolSet`], one at a time.
///
/// The toolbox is one; a visitor that counts or inspects the tools is another:
///
/// ```
/// use std::sync::Arc;
/// use skyl::{Tool, tool::{ToolSet, ToolVisitor}};
///
/// struct Names(Vec<String>);
///
/// impl ToolVisitor<()> for Names {
///     fn visit<T: Tool<()>>(&mut self, tool: T) {
///         self.0.push(tool.definition().name.clone());
///     }
/// }
///
/// struct Clock;
///
/// #[skyl::tools]
/// impl Clock {
///     /// Says what time it is.
///     #[tool]
///     fn now(&self) -> &'static str {
///         "noon"
///     }
/// }
///
/// let mut names = Names(Vec::new());
/// Arc::new(Clock).visit_tools(&mut names);
/// assert_eq!(names.0, ["now"]);
/// ```
pub trait ToolVisitor<S> {
    /// Takes one tool of the set.
    fn visit<T: Tool<S>>(&mut self, tool: T);
}

impl<S, T: ToolSet<S>> ToolSet<S> for Arc<T> {
    fn visit_tools(self: Arc<Self>, visitor: &mut impl ToolVisitor<S>) {
        Arc::clone(&*self).visit_tools(visitor);
    }
}

/// A tool under another name: the same tool, with its definition's name prefixed.
pub(crate) struct Prefixed<T> {
    tool: T,
    definition: ToolDefinition,
}

impl<T> Prefixed<T> {
    pub(crate) fn new<S>(prefix: &str, tool: T) -> Self
    where
        T: Tool<S>,
    {
        let mut definition = tool.definition().clone();
        definition.name.insert_str(0, prefix);
        Prefixed { tool, definition }
    }
}

impl<S, T: Tool<S>> Tool<S> for Prefixed<T> {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    #[inline]
    fn call<'a>(&'a self, arguments: &'a Value, state: &'a S) -> ToolFuture<'a> {
        self.tool.call(arguments, state)
    }

    #[inline]
    fn invoke<'a>(
        &'a self,
        arguments: &'a Value,
        state: &'a S,
        invocation: &Invocation<'_>,
    ) -> ToolFuture<'a> {
        self.tool.invoke(arguments, state, invocation)
    }

    fn timeout(&self) -> Option<Duration> {
        self.tool.timeout()
    }

    fn cancel_grace(&self) -> Option<Duration> {
        self.tool.cancel_grace()
    }

    fn resume_elsewhere(
        &self,
        continuation: &Value,
        reply: Value,
        call_id: &str,
    ) -> Option<std::pin::Pin<Box<dyn Future<Output = super::RichOutcome> + Send + 'static>>> {
        self.tool.resume_elsewhere(continuation, reply, call_id)
    }
}
