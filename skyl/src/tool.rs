//! What a tool is: a definition the model reads and a call the toolbox runs.
//!
//! Most tools come from [`#[tool]`](macro@crate::tool) on a function, which implements [`Tool`] for you.
//! Implement it by hand when the tool is built at run time (from a config file, an MCP server).

use std::borrow::Cow;
use std::fmt::{self, Display};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a model is told about a tool: its name, what it does, and the JSON schema of its arguments.
///
/// `parameters` is skyl's canonical schema (see [`schema`](crate::schema)); adapters lower it to
/// each provider's dialect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// The JSON schema of the arguments object.
    pub parameters: Value,
}

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

/// What a tool call produces: its output text, or why it failed.
pub type ToolOutcome = Result<String, ToolFailure>;

/// The future a [`Tool::call`] returns.
///
/// A synchronous tool returns [`ToolFuture::ready`], which costs no allocation; the toolbox
/// takes its value without polling. An asynchronous tool boxes its future with [`ToolFuture::new`].
#[must_use = "a ToolFuture does nothing unless polled or awaited"]
pub struct ToolFuture<'a> {
    inner: Inner<'a>,
}

enum Inner<'a> {
    Ready(Option<ToolOutcome>),
    Pending(Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'a>>),
}

impl<'a> ToolFuture<'a> {
    /// A call that has already finished.
    #[inline]
    pub fn ready(outcome: ToolOutcome) -> Self {
        ToolFuture {
            inner: Inner::Ready(Some(outcome)),
        }
    }

    /// A call that finishes when `future` does.
    pub fn new(future: impl Future<Output = ToolOutcome> + Send + 'a) -> Self {
        ToolFuture {
            inner: Inner::Pending(Box::pin(future)),
        }
    }

    /// The outcome, when the call finished without needing to be polled.
    #[inline]
    pub fn into_ready(self) -> Result<ToolOutcome, Self> {
        match self.inner {
            Inner::Ready(Some(outcome)) => Ok(outcome),
            inner => Err(ToolFuture { inner }),
        }
    }
}

impl Future for ToolFuture<'_> {
    type Output = ToolOutcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutcome> {
        match &mut self.inner {
            Inner::Ready(outcome) => Poll::Ready(
                outcome
                    .take()
                    .expect("ToolFuture polled after it completed"),
            ),
            Inner::Pending(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.inner {
            Inner::Ready(_) => "ToolFuture::Ready",
            Inner::Pending(_) => "ToolFuture::Pending",
        })
    }
}

/// Takes a part of the toolbox state by reference, the way axum's `FromRef` takes it by value.
///
/// A `#[state]` parameter `&T` of a tool asks the toolbox state `S` for `T: FromRef<S>`. Every
/// type is `FromRef` of itself; implement it for the pieces of your application state:
///
/// ```
/// use skyl::FromRef;
///
/// struct Db;
/// struct App { db: Db, api_key: String }
///
/// impl FromRef<App> for Db {
///     fn from_ref(app: &App) -> &Db {
///         &app.db
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool's `#[state]` asks for `{Self}`, which the toolbox state `{S}` cannot provide",
    label = "`{Self}` cannot be borrowed from `{S}`",
    note = "implement `skyl::FromRef<{S}> for {Self}` returning a reference to it, or build the toolbox with `Toolbox::with_state` and a `{Self}`"
)]
pub trait FromRef<S> {
    /// Borrows `Self` out of the state.
    fn from_ref(state: &S) -> &Self;
}

impl<T> FromRef<T> for T {
    fn from_ref(state: &T) -> &T {
        state
    }
}

/// What the model should do after a tool failed. The toolbox turns it into the closing sentence
/// of the result's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Guidance {
    /// Calling again will not help: tell the user. The default for a tool's `Err`.
    DoNotRetry,
    /// The arguments were the problem: call again with different ones.
    RetryWithOtherArguments,
    /// Only the user can unblock this: ask them.
    AskUser,
}

/// Why a tool call failed, and what the model should do about it.
///
/// Any `Display` error converts into one (with [`Guidance::DoNotRetry`]), so `?` works in a tool
/// that returns `Result<T, ToolFailure>`; build one explicitly to choose the guidance:
///
/// ```
/// use skyl::{Guidance, ToolFailure};
///
/// fn find_city(name: &str) -> Result<String, ToolFailure> {
///     if name.is_empty() {
///         return Err(ToolFailure::retry_with_other_arguments("the city name is empty"));
///     }
///     Err(ToolFailure::ask_user(format!("there are three cities called {name}"))
///         .with_next_step("Ask the user which country they mean."))
/// }
///
/// let failure = find_city("Springfield").unwrap_err();
/// assert_eq!(failure.guidance(), Guidance::AskUser);
/// assert_eq!(failure.next_step(), Some("Ask the user which country they mean."));
/// ```
///
/// `ToolFailure` deliberately does not implement `Display`: that is what lets every `Display`
/// type convert into it.
///
/// It is one pointer wide, so that a successful [`ToolOutcome`] stays small on the hot path: only
/// a failure pays for the allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolFailure(Box<Failure>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct Failure {
    kind: FailureKind,
    message: String,
    guidance: Guidance,
    next_step: Option<Cow<'static, str>>,
}

/// Whether the tool ran and failed, or was never run because its arguments were wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// The tool ran and reported a failure.
    Failed,
    /// The arguments did not fit the tool's schema, so it did not run.
    InvalidArguments,
}

impl ToolFailure {
    fn of(kind: FailureKind, message: impl Into<String>, guidance: Guidance) -> Self {
        ToolFailure(Box::new(Failure {
            kind,
            message: message.into(),
            guidance,
            next_step: None,
        }))
    }

    /// The tool failed and calling it again will not help.
    pub fn do_not_retry(message: impl Into<String>) -> Self {
        Self::of(FailureKind::Failed, message, Guidance::DoNotRetry)
    }

    /// The tool failed because of the arguments; the model should try others.
    pub fn retry_with_other_arguments(message: impl Into<String>) -> Self {
        Self::of(
            FailureKind::Failed,
            message,
            Guidance::RetryWithOtherArguments,
        )
    }

    /// The tool needs something only the user can give.
    pub fn ask_user(message: impl Into<String>) -> Self {
        Self::of(FailureKind::Failed, message, Guidance::AskUser)
    }

    /// The arguments do not fit the schema. `detail` says which argument and why.
    pub fn invalid_arguments(detail: impl Into<String>) -> Self {
        Self::of(
            FailureKind::InvalidArguments,
            detail,
            Guidance::RetryWithOtherArguments,
        )
    }

    /// Replaces the guidance sentence with your own wording, such as
    /// `"Wait a minute, then call it once more."`.
    pub fn with_next_step(mut self, sentence: impl Into<Cow<'static, str>>) -> Self {
        self.0.next_step = Some(sentence.into());
        self
    }

    /// What went wrong, without the tool's name or the guidance.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// What the model should do next.
    pub fn guidance(&self) -> Guidance {
        self.0.guidance
    }

    /// Whether the tool ran.
    pub fn kind(&self) -> FailureKind {
        self.0.kind
    }

    /// The tool's own guidance sentence, if it set one with [`with_next_step`](Self::with_next_step).
    pub fn next_step(&self) -> Option<&str> {
        self.0.next_step.as_deref()
    }
}

impl<E: Display> From<E> for ToolFailure {
    /// Uses the alternate form `{:#}`, which error types such as `anyhow::Error` use to include
    /// their causes.
    fn from(error: E) -> Self {
        ToolFailure::do_not_retry(format!("{error:#}"))
    }
}

/// A value a tool can return: it becomes the text of the [`ToolResult`](crate::ToolResult).
///
/// Implemented for text (`String`, `&str`, `Cow<str>`), `()` (empty output), numbers, `bool`,
/// `serde_json::Value`, [`Json<T>`] for any `Serialize` type, and `Result<T, E>` whose error
/// converts into a [`ToolFailure`] (every `Display` type does).
///
/// Implement it to choose the text a model reads for your own type:
///
/// ```
/// use skyl::{IntoToolOutput, ToolOutcome};
///
/// struct Forecast { celsius: i32, sky: &'static str }
///
/// impl IntoToolOutput for Forecast {
///     fn into_tool_output(self) -> ToolOutcome {
///         Ok(format!("{}C and {}", self.celsius, self.sky))
///     }
/// }
///
/// /// Gets today's forecast.
/// #[skyl::tool]
/// fn get_forecast() -> Forecast {
///     Forecast { celsius: 22, sky: "sunny" }
/// }
///
/// assert_eq!(get_forecast().into_tool_output().unwrap(), "22C and sunny");
/// # let _ = GetForecast;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "a #[tool] must return a type that implements `skyl::IntoToolOutput`",
    note = "return text (`String`, `&'static str`), `()`, a number, `serde_json::Value`, `skyl::Json<T>` for a `T: Serialize`, or `Result<T, E>` of one of these with `E: Display`"
)]
pub trait IntoToolOutput {
    /// The text given to the model, or the failure.
    fn into_tool_output(self) -> ToolOutcome;
}

impl IntoToolOutput for String {
    #[inline]
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self)
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.to_owned())
    }
}

impl IntoToolOutput for Cow<'_, str> {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.into_owned())
    }
}

impl IntoToolOutput for () {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(String::new())
    }
}

impl IntoToolOutput for Value {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.to_string())
    }
}

macro_rules! display_output {
    ($($ty:ty)*) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> ToolOutcome {
                Ok(self.to_string())
            }
        }
    )*};
}

display_output!(bool char i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64);

impl<T: IntoToolOutput, E: Into<ToolFailure>> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self) -> ToolOutcome {
        self.map_err(Into::into)?.into_tool_output()
    }
}

/// Returns any `Serialize` value from a tool as compact JSON text.
///
/// ```
/// use skyl::{IntoToolOutput, Json};
///
/// #[derive(serde::Serialize)]
/// struct Forecast { celsius: i32, sky: &'static str }
///
/// let text = Json(Forecast { celsius: 22, sky: "sunny" }).into_tool_output().unwrap();
/// assert_eq!(text, r#"{"celsius":22,"sky":"sunny"}"#);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> ToolOutcome {
        serde_json::to_string(&self.0).map_err(|error| {
            ToolFailure::do_not_retry(format!("its output could not be written as JSON: {error}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outputs_become_text() {
        assert_eq!("hi".into_tool_output(), Ok("hi".to_owned()));
        assert_eq!(String::from("hi").into_tool_output(), Ok("hi".to_owned()));
        assert_eq!(Cow::Borrowed("hi").into_tool_output(), Ok("hi".to_owned()));
        assert_eq!(().into_tool_output(), Ok(String::new()));
        assert_eq!(42_i64.into_tool_output(), Ok("42".to_owned()));
        assert_eq!(1.5_f64.into_tool_output(), Ok("1.5".to_owned()));
        assert_eq!(true.into_tool_output(), Ok("true".to_owned()));
        assert_eq!(
            json!({"a": [1, 2]}).into_tool_output(),
            Ok(r#"{"a":[1,2]}"#.to_owned())
        );
        assert_eq!(
            Json(vec!["x", "y"]).into_tool_output(),
            Ok(r#"["x","y"]"#.to_owned())
        );
    }

    #[test]
    fn an_err_becomes_a_failure_that_does_not_retry() {
        let outcome = Err::<String, _>("disk full").into_tool_output();
        assert_eq!(outcome, Err(ToolFailure::do_not_retry("disk full")));
        let ok = Ok::<_, std::io::Error>(7_u8).into_tool_output();
        assert_eq!(ok, Ok("7".to_owned()));
    }

    #[test]
    fn a_tool_failure_keeps_its_guidance_through_result() {
        let failure =
            ToolFailure::ask_user("which Springfield?").with_next_step("Ask which state.");
        let outcome = Err::<(), _>(failure.clone()).into_tool_output();
        assert_eq!(outcome, Err(failure));
    }

    #[test]
    fn failures_report_their_parts() {
        let f = ToolFailure::retry_with_other_arguments("no such city");
        assert_eq!(
            (f.message(), f.guidance(), f.kind(), f.next_step()),
            (
                "no such city",
                Guidance::RetryWithOtherArguments,
                FailureKind::Failed,
                None
            )
        );
        let a = ToolFailure::invalid_arguments("missing field `city`");
        assert_eq!(
            (a.kind(), a.guidance()),
            (
                FailureKind::InvalidArguments,
                Guidance::RetryWithOtherArguments
            )
        );
        assert_eq!(
            ToolFailure::do_not_retry("x").guidance(),
            Guidance::DoNotRetry
        );
    }

    #[test]
    fn a_ready_future_is_taken_without_polling() {
        let ready = ToolFuture::ready(Ok("done".into()));
        assert_eq!(ready.into_ready().unwrap(), Ok("done".to_owned()));
        let pending = ToolFuture::new(async { Ok("later".to_owned()) });
        assert!(pending.into_ready().is_err());
    }
}
