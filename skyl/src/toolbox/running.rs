//! One call running, from start to result: the tool invoked inside `catch_unwind`, its future
//! polled inside it too (with the call's effect key set), timed out, cancelled and given its
//! grace, or dropped unfinished; and its result finished: the text cut to the limits, each part of
//! content checked. The panic and drop helpers here are what [`Dispatch`](super::Dispatch) and
//! the batch of a turn reach for.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use super::{Limits, Toolbox, cut};
use crate::content::{Content, ResultContent};
use crate::message::{Part, ToolCall, ToolResult};
use crate::prose;
use crate::tool::effect::EffectKeyGuard;
use crate::tool::{CallContext, CallObserver, Invocation, RichOutcome, ToolFailure, ToolFuture};

impl<S: 'static> Toolbox<S> {
    /// The result of `call`, whose tool finished with `outcome` outside a dispatch (a call the
    /// agent resumed after it asked the person a question), under the toolbox's limits.
    pub(crate) fn finished(&self, call: &ToolCall, outcome: RichOutcome) -> RichResult {
        finish(&call.name, &call.id, outcome, &self.limits, |result| result)
    }

    /// Looks the tool up and runs its synchronous part; a call that finishes there never builds
    /// a future. `done` gets the result of a call that finished, `running` a call that has yet
    /// to.
    ///
    /// Each caller says what to make of the two, rather than take an enum of them, so that a
    /// result goes where its caller returns it without being moved out of one first.
    #[inline(always)]
    pub(super) fn start<'a, R>(
        &'a self,
        call: &'a ToolCall,
        effect_key: Option<&'a str>,
        observer: Option<&Arc<dyn CallObserver>>,
        done: impl FnOnce(RichResult) -> R,
        running: impl FnOnce(Running<'a>) -> R,
    ) -> R {
        let Some(position) = self.index.get(&call.name) else {
            return done(unknown(call, self.names()).into());
        };
        // The name the index found is the call's: the call's copy costs no load from the index.
        let name = call.name.as_str();
        if let Some(refusal) = self.limits.refuse(name, &call.id, &call.arguments) {
            return done(refusal.into());
        }
        let tool = &self.tools[position];
        let max_output = self.limits.max_output_bytes();
        let invocation = Invocation::observed(name, &call.id, effect_key, observer);
        let keyed = EffectKeyGuard::set(effect_key);
        let called = catch_unwind(AssertUnwindSafe(|| {
            tool.invoke(&call.arguments, &self.state, &invocation)
        }));
        drop(keyed);
        let context = invocation.into_context();
        let future = match called {
            Ok(future) => future,
            Err(payload) => {
                return done(panicked(name, &call.id, payload, max_output).into());
            }
        };
        let future = match future.into_ready() {
            Ok(outcome) => return finish(name, &call.id, outcome, &self.limits, done),
            Err(future) => future,
        };
        // Only a tool that took its context can see a cancellation, and use a grace; a call
        // that finished above has none to ask for.
        let grace = match context {
            Some(_) => tool.cancel_grace().unwrap_or(self.cancel_grace),
            None => Duration::ZERO,
        };
        running(Running {
            name,
            call_id: &call.id,
            effect_key,
            context,
            limits: &self.limits,
            future: Some(future),
            grace,
            cancelled: None,
            #[cfg(feature = "timeout")]
            deadline: tool
                .timeout()
                .or(self.timeout)
                .map(|limit| (futures_timer::Delay::new(limit), limit)),
        })
    }
}

/// An asynchronous call in flight, with what its result needs.
///
/// The tool's future is dropped as soon as the call has a result, inside [`catch_unwind`], so a
/// destructor that panics (a guard held across an `.await`, a hand-written future) cannot unwind
/// into [`Toolbox::answer`] and cost the other calls their results.
pub(super) struct Running<'a> {
    pub(super) name: &'a str,
    pub(super) call_id: &'a str,
    /// The call's effect key, in a journaled run: set for the tool while it is polled.
    effect_key: Option<&'a str>,
    /// The call's context, if the tool asked for one: cancelled when the call times out, is
    /// cancelled by its caller (an MCP client) or is dropped unfinished.
    context: Option<CallContext>,
    /// The toolbox's bounds on the result's content.
    limits: &'a Limits,
    /// `None` once the call has its result.
    future: Option<ToolFuture<'a>>,
    /// How long the future is still polled once the call is cancelled; zero for a tool that took
    /// no context, which cannot tell.
    grace: Duration,
    /// Once the call is cancelled: its result, given when the future ends or the grace does.
    cancelled: Option<Grace>,
    #[cfg(feature = "timeout")]
    deadline: Option<(futures_timer::Delay, Duration)>,
}

/// A cancelled call in its grace.
struct Grace {
    /// The call's result, whatever the tool returns now: nobody waits for the tool's own.
    result: ToolResult,
    /// When the grace is over; none when there is none.
    #[cfg(feature = "timeout")]
    until: Option<futures_timer::Delay>,
}

/// The most polls a cancelled call's future gets on the spot, where nothing can wait (a dropped
/// call, or no timer): enough for cleanup that wakes itself a few times, bounded for one that
/// wakes itself forever.
const SPOT_POLLS: usize = 64;

impl Future for Running<'_> {
    type Output = RichResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<RichResult> {
        let this = &mut *self;
        if this.cancelled.is_some() {
            return this.poll_grace(cx).map(RichResult::from);
        }
        let result = match this.poll_future(cx) {
            Ok(Poll::Ready(outcome)) => {
                finish(this.name, this.call_id, outcome, this.limits, |result| {
                    result
                })
            }
            Err(payload) => panicked(
                this.name,
                this.call_id,
                payload,
                this.limits.max_output_bytes(),
            )
            .into(),
            Ok(Poll::Pending) => match this.timed_out(cx) {
                Some(result) => {
                    this.cancel(result);
                    return this.poll_grace(cx).map(RichResult::from);
                }
                None => return Poll::Pending,
            },
        };
        drop_quietly(this.future.take());
        Poll::Ready(result)
    }
}

impl Running<'_> {
    /// Polls the tool's future once, with the call's effect key set; `Err` with the payload of a
    /// panic.
    fn poll_future(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Result<Poll<RichOutcome>, Box<dyn Any + Send>> {
        let future = self
            .future
            .as_mut()
            .expect("a tool call polled after it completed");
        let keyed = EffectKeyGuard::set(self.effect_key);
        let polled = catch_unwind(AssertUnwindSafe(|| future.poll_output(cx)));
        drop(keyed);
        polled
    }

    /// Cancels the call, whose result is now `result`: its context says so, and from here on the
    /// call ends when its future does or its grace is over, whichever comes first.
    pub(super) fn cancel(&mut self, result: ToolResult) {
        if let Some(context) = &self.context {
            context.cancel();
        }
        self.cancelled = Some(Grace {
            result,
            #[cfg(feature = "timeout")]
            until: (!self.grace.is_zero()).then(|| futures_timer::Delay::new(self.grace)),
        });
    }

    /// Polls a cancelled call through its grace: the tool's future runs on (racing
    /// [`CallContext::cancelled`], it cleans up) until it ends or the grace is over, then is
    /// dropped, and the call's result is the one it was cancelled with.
    fn poll_grace(&mut self, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let ended = self.grace.is_zero() || self.future.is_none() || self.grace_ended(cx);
        if !ended {
            return Poll::Pending;
        }
        drop_quietly(self.future.take());
        let grace = self
            .cancelled
            .take()
            .expect("a call in its grace was cancelled");
        Poll::Ready(grace.result)
    }

    /// Whether the future ended (its output, or a panic, goes unread) or the grace is over.
    #[cfg(feature = "timeout")]
    fn grace_ended(&mut self, cx: &mut Context<'_>) -> bool {
        match self.poll_future(cx) {
            Ok(Poll::Ready(_)) => true,
            Err(payload) => {
                drop_payload(payload);
                true
            }
            Ok(Poll::Pending) => {
                let grace = self
                    .cancelled
                    .as_mut()
                    .expect("a call in its grace was cancelled");
                grace
                    .until
                    .as_mut()
                    .is_none_or(|until| Pin::new(until).poll(cx).is_ready())
            }
        }
    }

    /// Without the `timeout` feature there is no timer to end a grace: the future gets the polls
    /// a dropped call's gets, on the spot.
    #[cfg(not(feature = "timeout"))]
    fn grace_ended(&mut self, _: &mut Context<'_>) -> bool {
        self.poll_on_the_spot();
        true
    }

    /// Polls a cancelled call's future here and now, as long as it wakes itself (at most
    /// [`SPOT_POLLS`] times): cleanup that needs no waiting runs; cleanup that waits for
    /// anything else does not, since nothing is left to wake.
    fn poll_on_the_spot(&mut self) {
        let woken = Arc::new(Woken(AtomicBool::new(false)));
        let waker = Waker::from(Arc::clone(&woken));
        let mut cx = Context::from_waker(&waker);
        for _ in 0..SPOT_POLLS {
            woken.0.store(false, Ordering::Relaxed);
            match self.poll_future(&mut cx) {
                Ok(Poll::Ready(_)) => return,
                Err(payload) => {
                    drop_payload(payload);
                    return;
                }
                Ok(Poll::Pending) if !woken.0.load(Ordering::Acquire) => return,
                Ok(Poll::Pending) => {}
            }
        }
    }

    /// The result of a call that ran past the toolbox's timeout.
    #[cfg(feature = "timeout")]
    fn timed_out(&mut self, cx: &mut Context<'_>) -> Option<ToolResult> {
        let (delay, limit) = self.deadline.as_mut()?;
        if Pin::new(delay).poll(cx).is_pending() {
            return None;
        }
        Some(ToolResult::error(
            self.call_id,
            prose::timed_out(self.name, *limit),
        ))
    }

    #[cfg(not(feature = "timeout"))]
    #[inline]
    fn timed_out(&mut self, _: &mut Context<'_>) -> Option<ToolResult> {
        None
    }
}

impl Drop for Running<'_> {
    /// A call dropped before it finished (its caller gave up on it) drops the tool's future here.
    ///
    /// Nothing can poll the future after this, so its grace is what can run on the spot: the
    /// context is cancelled and the future polled for as long as it wakes itself, which runs
    /// cleanup that does not wait; then it is dropped.
    fn drop(&mut self) {
        if let (Some(_), Some(context)) = (&self.future, &self.context) {
            context.cancel();
            if !self.grace.is_zero() {
                self.poll_on_the_spot();
            }
        }
        drop_quietly(self.future.take());
    }
}

/// A waker that notes it was woken.
struct Woken(AtomicBool);

impl Wake for Woken {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.store(true, Ordering::Release);
    }
}

/// Drops `value`, catching a panic in its destructor.
fn drop_quietly<T>(value: T) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(value))) {
        drop_payload(payload);
    }
}

/// Drops a panic payload; one whose destructor panics in turn is leaked, as the standard library
/// does, since nothing could catch the next payload either.
fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(inner) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(inner);
    }
}

#[cold]
fn unknown<'a>(call: &ToolCall, available: impl Iterator<Item = &'a str>) -> ToolResult {
    ToolResult::error(call.id.as_str(), prose::unknown_tool(&call.name, available))
}

/// A call's result and the content beside it: what the turn runner hands on.
pub(crate) struct RichResult {
    pub(crate) result: ToolResult,
    /// Empty for a result of text alone, as every failure is.
    pub(crate) content: Vec<Content>,
}

impl RichResult {
    /// The parts of a tool message for this call: its result, then its content if it has any.
    pub(crate) fn into_parts(self, parts: &mut Vec<Part>) {
        let call_id = (!self.content.is_empty()).then(|| self.result.call_id.clone());
        parts.push(Part::ToolResult(self.result));
        if let Some(call_id) = call_id {
            parts.push(Part::ResultContent(ResultContent::new(
                call_id,
                self.content,
            )));
        }
    }
}

impl RichResult {
    /// The result alone, for a caller that takes no content: a line for each part of the content
    /// after the prose, so that what the tool returned is still said.
    #[inline(always)]
    pub(crate) fn into_text_result(self) -> ToolResult {
        // Nearly every result is text alone: it is taken as it is, in the caller, without a call
        // or a loop over no parts.
        if self.content.is_empty() {
            return self.result;
        }
        self.with_content_lines()
    }

    /// [`into_text_result`](Self::into_text_result) for a result with content.
    #[cold]
    fn with_content_lines(self) -> ToolResult {
        let mut result = self.result;
        for part in &self.content {
            if !result.content.is_empty() {
                result.content.push('\n');
            }
            result.content.push_str(&crate::content::line(part));
        }
        result
    }
}

impl From<ToolResult> for RichResult {
    #[inline]
    fn from(result: ToolResult) -> Self {
        RichResult {
            result,
            content: Vec::new(),
        }
    }
}

/// The result of a call that ran, handed to `done`: its text cut to the output limit, each part
/// of its content checked and left out with a note when its bytes are not its media type or it
/// is over the media limit.
///
/// Each branch calls `done` itself, rather than return one result for the caller to hand on:
/// inlined, each call then sees where its result came from, and a caller that wants the text
/// alone takes a result of text alone without storing it as a `RichResult` and reading it back.
#[inline(always)]
fn finish<R>(
    name: &str,
    call_id: &str,
    outcome: RichOutcome,
    limits: &Limits,
    done: impl FnOnce(RichResult) -> R,
) -> R {
    let max_output = limits.max_output_bytes();
    match outcome {
        Ok(output) => {
            let mut content = output.text;
            if content.len() > max_output {
                content = cut::cut_output(name, content, max_output);
            }
            let result = ToolResult {
                call_id: call_id.to_owned(),
                content,
                is_error: false,
            };
            if output.content.is_empty() {
                return done(result.into());
            }
            done(with_content(name, result, output.content, limits))
        }
        Err(failure) => done(failed(name, call_id, failure, max_output).into()),
    }
}

/// The result of a call whose tool reported a failure.
#[cold]
fn failed(name: &str, call_id: &str, failure: ToolFailure, max_output: usize) -> ToolResult {
    ToolResult::error(call_id, prose::failed(name, &failure.shortened(max_output)))
}

#[cold]
fn with_content(
    name: &str,
    mut result: ToolResult,
    parts: Vec<Content>,
    limits: &Limits,
) -> RichResult {
    let max_media = limits.max_media_bytes();
    let mut content = Vec::with_capacity(parts.len());
    for part in parts {
        // A part that cannot be sent is left out with a note; the text and the other parts are
        // still the tool's answer.
        let note = match part.check_media() {
            Err(mismatch) => Some(prose::media_refused(name, &part, &mismatch)),
            Ok(()) if part.byte_len().is_some_and(|len| len > max_media) => {
                Some(prose::media_too_large(name, &part, max_media))
            }
            Ok(()) => None,
        };
        match note {
            Some(note) => {
                if !result.content.is_empty() {
                    result.content.push('\n');
                }
                result.content.push_str(&note);
            }
            None => content.push(part),
        }
    }
    RichResult { result, content }
}

#[cold]
fn panicked(
    name: &str,
    call_id: &str,
    payload: Box<dyn Any + Send>,
    max_output: usize,
) -> ToolResult {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .map(|message| crate::text::shortened(message, max_output));
    let result = ToolResult::error(call_id, prose::panicked(name, message.as_deref()));
    drop_payload(payload);
    result
}
