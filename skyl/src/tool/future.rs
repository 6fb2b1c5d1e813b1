//! The future a tool call returns, ready without an allocation for a synchronous tool.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::ToolFailure;

/// What a tool call produces: its output text, or why it failed.
pub type ToolOutcome = Result<String, ToolFailure>;

/// The future a [`Tool::call`](super::Tool::call) returns.
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
    pub(crate) fn into_ready(self) -> Result<ToolOutcome, Self> {
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
