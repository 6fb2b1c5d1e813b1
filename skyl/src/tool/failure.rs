//! Why a tool call failed, and what the model should do next.

use std::borrow::Cow;
use std::fmt::Display;

use super::guided::written_with_guidance;

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
/// that returns `Result<T, ToolFailure>`; build one explicitly to choose the guidance (in a tool
/// that returns `anyhow::Result` or `Box<dyn Error>`, use a [`GuidedError`](super::GuidedError)
/// or [`Guide`](super::Guide), which travel through `?`):
///
/// ```
/// use skyl::{ToolFailure, tool::Guidance};
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
/// It is one pointer wide, so that a successful [`ToolOutcome`](super::ToolOutcome) stays small on the hot path: only
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

    /// The failure with its message and its next step each cut to at most `max` bytes (and a
    /// mark saying so), for a toolbox's output limit.
    pub(crate) fn shortened(mut self, max: usize) -> Self {
        if let Cow::Owned(message) = crate::text::shortened(&self.0.message, max) {
            self.0.message = message;
        }
        if let Some(step) = &self.0.next_step
            && let Cow::Owned(step) = crate::text::shortened(step, max)
        {
            self.0.next_step = Some(Cow::Owned(step));
        }
        self
    }
}

impl<E: Display> From<E> for ToolFailure {
    /// Uses the alternate form `{:#}`, which error types such as `anyhow::Error` use to include
    /// their causes. The guidance is [`Guidance::DoNotRetry`], unless a
    /// [`GuidedError`](super::GuidedError) is among what the error writes out (itself, or a
    /// cause in an `anyhow` chain): then it is that error's.
    fn from(error: E) -> Self {
        let (message, offered) = written_with_guidance(&error);
        let (guidance, next_step) = offered.unwrap_or((Guidance::DoNotRetry, None));
        ToolFailure(Box::new(Failure {
            kind: FailureKind::Failed,
            message,
            guidance,
            next_step,
        }))
    }
}
