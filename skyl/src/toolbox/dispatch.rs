//! The future of [`Toolbox::dispatch`], written out rather than made by an `async fn`: a call that
//! finishes on its first poll, as most do, hands its result straight to the caller, and costs a
//! dozen instructions more than [`dispatch_blocking`](Toolbox::dispatch_blocking).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use super::running::Running;
use super::{RichResult, Toolbox};
use crate::message::{ToolCall, ToolResult};
use crate::tool::CallObserver;

/// One call on its way to its result: the future [`Toolbox::dispatch`] returns.
///
/// It does nothing until it is polled. It is [`Send`] when the toolbox's state is [`Sync`], and
/// dropping it before it is done drops the tool's future (a panic there is caught).
///
/// A named type, it can be kept in a struct or a collection as it is:
///
/// ```
/// use skyl::{Dispatch, ToolCall, ToolResult, Toolbox};
///
/// /// Awaits the calls one after the other, first to last.
/// async fn in_order(dispatches: Vec<Dispatch<'_>>) -> Vec<ToolResult> {
///     let mut results = Vec::with_capacity(dispatches.len());
///     for dispatch in dispatches {
///         results.push(dispatch.await);
///     }
///     results
/// }
///
/// async fn run(toolbox: &Toolbox, calls: &[ToolCall]) -> Vec<ToolResult> {
///     in_order(calls.iter().map(|call| toolbox.dispatch(call)).collect()).await
/// }
/// ```
#[must_use = "a dispatch runs nothing until it is awaited"]
pub struct Dispatch<'a, S = ()> {
    state: State<'a, S>,
}

enum State<'a, S> {
    /// Not polled yet: the tool has not been called.
    Start(&'a Toolbox<S>, &'a ToolCall, Option<Arc<dyn CallObserver>>),
    Running(Running<'a>),
    Done,
}

impl<'a, S> Dispatch<'a, S> {
    pub(super) fn new(
        toolbox: &'a Toolbox<S>,
        call: &'a ToolCall,
        observer: Option<Arc<dyn CallObserver>>,
    ) -> Self {
        Dispatch {
            state: State::Start(toolbox, call, observer),
        }
    }
}

impl<S: 'static> Future for Dispatch<'_, S> {
    type Output = ToolResult;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = self.get_mut();
        let result = match &mut this.state {
            State::Start(toolbox, call, observer) => {
                let (toolbox, call, observer) = (*toolbox, *call, observer.take());
                // Done before the call, so that a result made on the spot goes straight into the
                // returned `Poll`; only a call that has to wait puts itself back.
                this.state = State::Done;
                let state = &mut this.state;
                return toolbox.start(
                    call,
                    None,
                    observer.as_ref(),
                    |answered| Poll::Ready(answered.into_text_result()),
                    |mut running| {
                        let poll = Pin::new(&mut running).poll(cx);
                        if poll.is_pending() {
                            *state = State::Running(running);
                        }
                        poll.map(RichResult::into_text_result)
                    },
                );
            }
            State::Running(running) => ready!(Pin::new(running).poll(cx)).into_text_result(),
            State::Done => panic!("skyl::Dispatch polled again after it returned its result"),
        };
        this.state = State::Done;
        Poll::Ready(result)
    }
}

impl<S> fmt::Debug for Dispatch<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            State::Start(_, call, _) => format!("not started: {} ({})", call.name, call.id),
            State::Running(running) => format!("running: {} ({})", running.name, running.call_id),
            State::Done => "done".to_owned(),
        };
        f.debug_struct("Dispatch").field("state", &state).finish()
    }
}
