//! The future a tool call returns, ready without an allocation for a synchronous tool.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::{ToolFailure, ToolOutput};

/// What a tool call produces: its output text, or why it failed.
pub type ToolOutcome = Result<String, ToolFailure>;

/// What a tool call produces when it may answer with more than text: its [`ToolOutput`], or why
/// it failed.
pub(crate) type RichOutcome = Result<ToolOutput, ToolFailure>;

/// The future a [`Tool::call`](super::Tool::call) returns.
///
/// A synchronous tool returns [`ToolFuture::ready`], which costs no allocation; the toolbox
/// takes its value without polling. An asynchronous tool boxes its future with [`ToolFuture::new`].
#[must_use = "a ToolFuture does nothing unless polled or awaited"]
pub struct ToolFuture<'a> {
    inner: Inner<'a>,
}

enum Inner<'a> {
    Ready(Option<RichOutcome>),
    Text(Pin<Box<dyn Future<Output = ToolOutcome> + Send + 'a>>),
    Rich(Pin<Box<dyn Future<Output = RichOutcome> + Send + 'a>>),
}

impl<'a> ToolFuture<'a> {
    /// A call that has already finished with text.
    #[inline]
    pub fn ready(outcome: ToolOutcome) -> Self {
        ToolFuture {
            inner: Inner::Ready(Some(outcome.map(ToolOutput::from))),
        }
    }

    /// A call that has already finished with a [`ToolOutput`]: text and content such as images.
    ///
    /// ```
    /// use skyl::{content::Image, tool::{ToolFuture, ToolOutput}};
    ///
    /// let future = ToolFuture::ready_output(Ok(ToolOutput::from("The chart.").with(Image::png(b"\x89PNG\r\n\x1a\n"))));
    /// # let _ = future;
    /// ```
    #[inline]
    pub fn ready_output(outcome: Result<ToolOutput, ToolFailure>) -> Self {
        ToolFuture {
            inner: Inner::Ready(Some(outcome)),
        }
    }

    /// A call that finishes with text when `future` does.
    pub fn new(future: impl Future<Output = ToolOutcome> + Send + 'a) -> Self {
        ToolFuture {
            inner: Inner::Text(Box::pin(future)),
        }
    }

    /// A call that finishes with a [`ToolOutput`] when `future` does.
    pub fn new_output(
        future: impl Future<Output = Result<ToolOutput, ToolFailure>> + Send + 'a,
    ) -> Self {
        ToolFuture {
            inner: Inner::Rich(Box::pin(future)),
        }
    }

    /// The outcome, when the call finished without needing to be polled.
    #[inline]
    pub(crate) fn into_ready(self) -> Result<RichOutcome, Self> {
        match self.inner {
            Inner::Ready(Some(outcome)) => Ok(outcome),
            inner => Err(ToolFuture { inner }),
        }
    }

    /// Polls the call for its whole output, content included.
    pub(crate) fn poll_output(&mut self, cx: &mut Context<'_>) -> Poll<RichOutcome> {
        match &mut self.inner {
            Inner::Ready(outcome) => Poll::Ready(
                outcome
                    .take()
                    .expect("ToolFuture polled after it completed"),
            ),
            Inner::Text(future) => future
                .as_mut()
                .poll(cx)
                .map(|outcome| outcome.map(ToolOutput::from)),
            Inner::Rich(future) => future.as_mut().poll(cx),
        }
    }
}

/// Awaited directly, a call gives the text a reader of text gets: its text, then a line for
/// each part of its content (the toolbox keeps the content itself).
impl Future for ToolFuture<'_> {
    type Output = ToolOutcome;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutcome> {
        self.poll_output(cx)
            .map(|outcome| outcome.map(ToolOutput::into_text))
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.inner {
            Inner::Ready(_) => "ToolFuture::Ready",
            Inner::Text(_) | Inner::Rich(_) => "ToolFuture::Pending",
        })
    }
}
