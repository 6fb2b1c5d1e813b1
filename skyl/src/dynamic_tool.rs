//! Tools built at run time: a definition that is data, and a closure.
//!
//! This file stands beside `macro_support.rs` (the code `#[tool]` generates) rather than in
//! `tool/`: like that code, it reads a call's arguments through `arguments`, which itself builds
//! on the `Tool` trait's failures, so that the imports run one way.

use std::fmt;
use std::future::Future;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::arguments::parse_declared;
use crate::schema;
use crate::tool::{CallContext, IntoToolOutput, Invocation, Tool, ToolDefinition, ToolFuture};

/// A tool made at run time from a [`ToolDefinition`] and a closure: tools read from a
/// configuration file, offered by another server, or generated from a list.
///
/// It keeps the promises of a `#[tool]` function. The arguments are checked against the declared
/// schema before the closure runs, and a call whose arguments do not fit gets the same prose
/// (which argument, what was expected, what to do); a `null` where a strict-mode schema made an
/// optional argument nullable means the argument was not given. The closure returns anything a
/// `#[tool]` function may return ([`IntoToolOutput`]); an `Err`, a panic and a timeout become
/// results like any other tool's.
///
/// The declared schema is the contract, read as JSON Schema reads it: a key it does not declare
/// is accepted unless the object says `"additionalProperties": false` (a `#[tool]` function's
/// arguments refuse unknown keys because their generated schema says so).
///
/// The closure takes the arguments as a `serde_json::Value`, or as any type that implements
/// `Deserialize`, which is read from the arguments once they have passed the schema. It may be
/// synchronous ([`from_fn`](Self::from_fn)) or return a future
/// ([`from_async_fn`](Self::from_async_fn)). Annotations and an output schema are part of the
/// definition. What the closure needs from the application, it captures (clone an `Arc` into it).
///
/// ```
/// use serde_json::{json, Value};
/// use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox, tool::ToolAnnotations};
///
/// // A definition can come from anywhere: here, JSON as a configuration file would hold it.
/// let definition: ToolDefinition = serde_json::from_value(json!({
///     "name": "lookup",
///     "description": "Looks a word up in the glossary.",
///     "parameters": {
///         "type": "object",
///         "properties": {"word": {"type": "string", "description": "The word."}},
///         "required": ["word"]
///     },
///     "annotations": {"readOnlyHint": true}
/// }))
/// .unwrap();
/// let glossary = [("skyl", "a shelter, in Old Norse")];
/// let lookup = DynamicTool::from_fn(definition, move |arguments: Value| {
///     let word = arguments["word"].as_str().unwrap_or_default();
///     match glossary.iter().find(|(w, _)| *w == word) {
///         Some((_, meaning)) => Ok(meaning.to_string()),
///         None => Err(format!("\"{word}\" is not in the glossary")),
///     }
/// });
///
/// let toolbox = Toolbox::new().try_with(lookup).unwrap();
/// let found = toolbox.dispatch_blocking(&ToolCall::new("c1", "lookup", json!({"word": "skyl"})));
/// assert_eq!(found.content, "a shelter, in Old Norse");
///
/// let wrong = toolbox.dispatch_blocking(&ToolCall::new("c2", "lookup", json!({"word": 7})));
/// assert_eq!(
///     wrong.content,
///     "ERROR: lookup was called with invalid arguments: argument `word`: invalid type: integer `7`, expected a string. Call lookup again with corrected arguments."
/// );
/// ```
pub struct DynamicTool {
    definition: ToolDefinition,
    run: Box<Run>,
}

/// The closure with its argument type erased: it reads the arguments against the schema it is
/// given, then runs.
type Run = dyn Fn(&Value, &Value, &Invocation<'_>) -> ToolFuture<'static> + Send + Sync;

impl DynamicTool {
    /// A tool that runs `run` on this thread.
    ///
    /// The definition's `parameters` are put in skyl's canonical form
    /// ([`schema::canonicalize`]) when they are a JSON object; anything else is left as it is for
    /// [`Toolbox::try_with`](crate::Toolbox::try_with) to refuse.
    ///
    /// ```
    /// use serde::Deserialize;
    /// use serde_json::json;
    /// use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// #[derive(Deserialize)]
    /// struct Add { a: i64, b: i64 }
    ///
    /// let add = DynamicTool::from_fn(
    ///     ToolDefinition::new("add", "Adds two integers.", json!({
    ///             "type": "object",
    ///             "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    ///             "required": ["a", "b"],
    ///         })),
    ///     |Add { a, b }| a.checked_add(b).ok_or("the sum does not fit in 64 bits"),
    /// );
    /// let toolbox = Toolbox::new().with(add);
    /// let sum = toolbox.dispatch_blocking(&ToolCall::new("c1", "add", json!({"a": 2, "b": 3})));
    /// assert_eq!(sum.content, "5");
    /// ```
    pub fn from_fn<A, R, F>(definition: ToolDefinition, run: F) -> Self
    where
        A: DeserializeOwned,
        R: IntoToolOutput,
        F: Fn(A) -> R + Send + Sync + 'static,
    {
        DynamicTool::erased(
            definition,
            Box::new(
                move |arguments: &Value, schema: &Value, _: &Invocation<'_>| match parse_declared::<A>(
                    arguments, schema,
                ) {
                    Ok(arguments) => ToolFuture::ready_output(run(arguments).into_output()),
                    Err(failure) => ToolFuture::ready(Err(failure)),
                },
            ),
        )
    }

    /// A tool whose closure returns a future; the toolbox awaits it, concurrently with the other
    /// calls of a turn, and stops it at the toolbox's timeout (feature `timeout`).
    ///
    /// The future must own what it uses (`'static`): move the arguments and clones of what the
    /// closure captured into an `async move` block.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use serde_json::{json, Value};
    /// use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let greeting = Arc::new(String::from("Hello"));
    /// let greet = DynamicTool::from_async_fn(
    ///     ToolDefinition::new("greet", "Greets someone.", json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]})),
    ///     move |arguments: Value| {
    ///         let greeting = Arc::clone(&greeting);
    ///         async move { format!("{greeting}, {}!", arguments["name"].as_str().unwrap_or("you")) }
    ///     },
    /// );
    /// let toolbox = Toolbox::new().with(greet);
    /// let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "greet", json!({"name": "Ada"})));
    /// assert_eq!(result.content, "Hello, Ada!");
    /// ```
    pub fn from_async_fn<A, Fut, F>(definition: ToolDefinition, run: F) -> Self
    where
        A: DeserializeOwned,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolOutput,
        F: Fn(A) -> Fut + Send + Sync + 'static,
    {
        DynamicTool::erased(
            definition,
            Box::new(
                move |arguments: &Value, schema: &Value, _: &Invocation<'_>| match parse_declared::<A>(
                    arguments, schema,
                ) {
                    Ok(arguments) => {
                        let future = run(arguments);
                        ToolFuture::new_output(async move { future.await.into_output() })
                    }
                    Err(failure) => ToolFuture::ready(Err(failure)),
                },
            ),
        )
    }

    /// [`from_fn`](Self::from_fn) for a closure that also takes the call's [`CallContext`]: its
    /// id, its effect key, a progress reporter, a logger and its cancellation.
    ///
    /// ```
    /// use serde_json::{json, Value};
    /// use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox, tool::CallContext};
    ///
    /// let charge = DynamicTool::from_fn_with_context(
    ///     ToolDefinition::new("charge", "Charges a card.", json!({"type": "object", "properties": {}})),
    ///     |_: Value, call: CallContext| format!("charged, idempotency key {:?}", call.effect_key()),
    /// );
    /// let toolbox = Toolbox::new().with(charge);
    /// let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "charge", json!({})));
    /// assert_eq!(result.content, "charged, idempotency key None");
    /// ```
    pub fn from_fn_with_context<A, R, F>(definition: ToolDefinition, run: F) -> Self
    where
        A: DeserializeOwned,
        R: IntoToolOutput,
        F: Fn(A, CallContext) -> R + Send + Sync + 'static,
    {
        DynamicTool::erased(
            definition,
            Box::new(
                move |arguments: &Value, schema: &Value, invocation: &Invocation<'_>| {
                    match parse_declared::<A>(arguments, schema) {
                        Ok(arguments) => ToolFuture::ready_output(
                            run(arguments, invocation.context()).into_output(),
                        ),
                        Err(failure) => ToolFuture::ready(Err(failure)),
                    }
                },
            ),
        )
    }

    /// [`from_async_fn`](Self::from_async_fn) for a closure that also takes the call's
    /// [`CallContext`]; its future can await [`CallContext::cancelled`].
    pub fn from_async_fn_with_context<A, Fut, F>(definition: ToolDefinition, run: F) -> Self
    where
        A: DeserializeOwned,
        Fut: Future + Send + 'static,
        Fut::Output: IntoToolOutput,
        F: Fn(A, CallContext) -> Fut + Send + Sync + 'static,
    {
        DynamicTool::erased(
            definition,
            Box::new(
                move |arguments: &Value, schema: &Value, invocation: &Invocation<'_>| {
                    match parse_declared::<A>(arguments, schema) {
                        Ok(arguments) => {
                            let future = run(arguments, invocation.context());
                            ToolFuture::new_output(async move { future.await.into_output() })
                        }
                        Err(failure) => ToolFuture::ready(Err(failure)),
                    }
                },
            ),
        )
    }

    fn erased(mut definition: ToolDefinition, run: Box<Run>) -> Self {
        if definition.parameters.is_object() {
            schema::canonicalize(&mut definition.parameters);
        }
        DynamicTool { definition, run }
    }
}

impl<S> Tool<S> for DynamicTool {
    crate::tool::invoked::invoked_tool!(S, |self, arguments, invocation| {
        (self.run)(arguments, &self.definition.parameters, invocation)
    });
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("definition", &self.definition)
            .finish_non_exhaustive()
    }
}
