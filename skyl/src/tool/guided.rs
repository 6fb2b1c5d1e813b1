//! Guidance that travels through `?` inside `anyhow::Error`, `Box<dyn Error>` or any error that
//! shows its causes.
//!
//! [`ToolFailure`] is not an error type (it must not be: that is what lets every `Display` type
//! convert into it), so a function that returns `anyhow::Result` cannot carry one. A
//! [`GuidedError`] is an ordinary `std::error::Error` that such functions carry like any other.
//! When the toolbox turns the tool's error into a `ToolFailure`, it writes the error out as text
//! (`{:#}`, which prints an `anyhow` chain whole); a `GuidedError` written out on the way gives
//! its guidance to that conversion. No downcast is needed, so it works through any wrapper that
//! prints its causes, without skyl depending on `anyhow`. The outermost guided error of a chain
//! wins.
//!
//! A wrapper that does not print its causes (a `Box<dyn Error>` holding your own error whose
//! `Display` leaves out its `source`) hides a guided error inside it; put the guidance on the
//! outer error instead.

use std::borrow::Cow;
use std::cell::RefCell;
use std::error::Error;
use std::fmt::{self, Display};

use super::Guidance;

/// An error that says what the model should do next, for tools that return `anyhow::Result`,
/// `Result<T, Box<dyn Error>>` or another error type of their own.
///
/// Make one with [`Guide`] on a `Result`, or directly:
///
/// ```
/// use std::path::Path;
/// use skyl::tool::{Guide, GuidedError, IntoToolOutput};
///
/// fn read_in_workspace(path: &str) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
///     if Path::new(path).is_absolute() {
///         return Err(GuidedError::retry_with_other_arguments(format!(
///             "{path} is outside the workspace; give a path relative to it"
///         ))
///         .into());
///     }
///     let text = std::fs::read_to_string(path).ask_user()?;
///     Ok(text)
/// }
///
/// let failure = read_in_workspace("/etc/passwd").into_tool_output().unwrap_err();
/// assert_eq!(failure.guidance(), skyl::tool::Guidance::RetryWithOtherArguments);
/// assert_eq!(failure.message(), "/etc/passwd is outside the workspace; give a path relative to it");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuidedError {
    message: String,
    guidance: Guidance,
    next_step: Option<Cow<'static, str>>,
}

impl GuidedError {
    /// An error with `guidance`.
    pub fn new(message: impl Into<String>, guidance: Guidance) -> Self {
        GuidedError {
            message: message.into(),
            guidance,
            next_step: None,
        }
    }

    /// Calling again will not help: tell the user (what any other error says).
    pub fn do_not_retry(message: impl Into<String>) -> Self {
        GuidedError::new(message, Guidance::DoNotRetry)
    }

    /// The arguments were the problem: the model should call again with others.
    pub fn retry_with_other_arguments(message: impl Into<String>) -> Self {
        GuidedError::new(message, Guidance::RetryWithOtherArguments)
    }

    /// Only the user can unblock this: the model should ask them.
    pub fn ask_user(message: impl Into<String>) -> Self {
        GuidedError::new(message, Guidance::AskUser)
    }

    /// Replaces the guidance sentence with your own, as
    /// [`ToolFailure::with_next_step`](super::ToolFailure::with_next_step) does.
    pub fn with_next_step(mut self, sentence: impl Into<Cow<'static, str>>) -> Self {
        self.next_step = Some(sentence.into());
        self
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// What the model should do next.
    pub fn guidance(&self) -> Guidance {
        self.guidance
    }

    /// The guidance sentence set with [`with_next_step`](Self::with_next_step).
    pub fn next_step(&self) -> Option<&str> {
        self.next_step.as_deref()
    }
}

impl Display for GuidedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        offer(self.guidance, self.next_step.as_ref());
        f.write_str(&self.message)
    }
}

impl Error for GuidedError {}

/// Gives a `Result`'s error a guidance, keeping `?`: the error becomes a [`GuidedError`], which
/// converts into `anyhow::Error`, `Box<dyn Error + Send + Sync>` and
/// [`ToolFailure`](super::ToolFailure) alike.
///
/// ```
/// use skyl::tool::{Guidance, Guide, IntoToolOutput};
///
/// /// Looks up an order.
/// fn order(id: &str) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
///     let number: u64 = id.parse().retry_with_other_arguments()?;
///     Ok(format!("order {number}: shipped"))
/// }
///
/// let failure = order("twelve").into_tool_output().unwrap_err();
/// assert_eq!(failure.message(), "invalid digit found in string");
/// assert_eq!(failure.guidance(), Guidance::RetryWithOtherArguments);
/// ```
pub trait Guide<T> {
    /// On error: the arguments were the problem; the model should call again with others.
    fn retry_with_other_arguments(self) -> Result<T, GuidedError>;

    /// On error: only the user can unblock this; the model should ask them.
    fn ask_user(self) -> Result<T, GuidedError>;

    /// On error: calling again will not help; the model should tell the user.
    fn do_not_retry(self) -> Result<T, GuidedError>;
}

impl<T, E: Display> Guide<T> for Result<T, E> {
    fn retry_with_other_arguments(self) -> Result<T, GuidedError> {
        self.map_err(|error| GuidedError::retry_with_other_arguments(format!("{error:#}")))
    }

    fn ask_user(self) -> Result<T, GuidedError> {
        self.map_err(|error| GuidedError::ask_user(format!("{error:#}")))
    }

    fn do_not_retry(self) -> Result<T, GuidedError> {
        self.map_err(|error| GuidedError::do_not_retry(format!("{error:#}")))
    }
}

/// What a guided error offered while an error was being written out.
pub(super) type Offered = (Guidance, Option<Cow<'static, str>>);

thread_local! {
    /// `Some` while [`written_with_guidance`] writes an error out on this thread; then holds the
    /// first guidance offered.
    static LISTENING: RefCell<Option<Option<Offered>>> = const { RefCell::new(None) };
}

/// Writes `error` out as `{:#}`, and returns the text with the guidance of the first
/// [`GuidedError`] written out on the way.
pub(super) fn written_with_guidance(error: &dyn Display) -> (String, Option<Offered>) {
    /// Puts back what an outer call was listening for, even if writing panics.
    struct Restore(Option<Option<Offered>>);

    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            let _ = LISTENING.try_with(|listening| *listening.borrow_mut() = outer);
        }
    }

    let outer = LISTENING
        .try_with(|listening| listening.borrow_mut().replace(None))
        .ok()
        .flatten();
    let restore = Restore(outer);
    let text = format!("{error:#}");
    let offered = LISTENING
        .try_with(|listening| listening.borrow_mut().take().flatten())
        .ok()
        .flatten();
    drop(restore);
    (text, offered)
}

fn offer(guidance: Guidance, next_step: Option<&Cow<'static, str>>) {
    let _ = LISTENING.try_with(|listening| {
        if let Some(slot @ None) = &mut *listening.borrow_mut() {
            *slot = Some((guidance, next_step.cloned()));
        }
    });
}
