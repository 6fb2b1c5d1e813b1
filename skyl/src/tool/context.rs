//! What a tool can see of its own call: its id, its effect key, where its progress and log lines
//! go, and whether it has been cancelled.
//!
//! The toolbox describes each call to the tool by an [`Invocation`], a borrowed view that costs
//! nothing to build. A tool that wants more than the ids asks it for a [`CallContext`], an owned
//! handle made on first request (one allocation), which it may keep, clone and move to another
//! thread. The toolbox keeps a clone of a context it made, to cancel it when the call times out
//! or is dropped unfinished; a call whose tool never asked pays for nothing.

use std::cell::OnceCell;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// One call of a tool, as the toolbox describes it to [`Tool::invoke`](super::Tool::invoke): the
/// call's id and effect key, and the [`CallContext`] on request.
///
/// ```
/// use skyl::tool::Invocation;
///
/// let invocation = Invocation::new("search", "call_1");
/// assert_eq!(invocation.call_id(), "call_1");
/// assert_eq!(invocation.effect_key(), None);
/// let context = invocation.context();
/// assert_eq!(context.call_id(), "call_1");
/// assert!(!context.is_cancelled());
/// ```
pub struct Invocation<'a> {
    tool: &'a str,
    call_id: &'a str,
    effect_key: Option<&'a str>,
    observer: Option<&'a Arc<dyn CallObserver>>,
    context: OnceCell<CallContext>,
}

impl<'a> Invocation<'a> {
    /// A call of `tool` with the id `call_id`, outside any run: no effect key, no observer.
    ///
    /// The toolbox builds its own; build one to call [`Tool::invoke`](super::Tool::invoke)
    /// directly, as a hand-written tool's [`call`](super::Tool::call) does, or in a test.
    pub fn new(tool: &'a str, call_id: &'a str) -> Self {
        Invocation::observed(tool, call_id, None, None)
    }

    #[inline]
    pub(crate) fn observed(
        tool: &'a str,
        call_id: &'a str,
        effect_key: Option<&'a str>,
        observer: Option<&'a Arc<dyn CallObserver>>,
    ) -> Self {
        Invocation {
            tool,
            call_id,
            effect_key,
            observer,
            context: OnceCell::new(),
        }
    }

    /// The name of the tool being called.
    pub fn tool(&self) -> &'a str {
        self.tool
    }

    /// The id of the call, as the model gave it (or as the adapter minted it).
    pub fn call_id(&self) -> &'a str {
        self.call_id
    }

    /// The call's effect key in a journaled run (see [`CallContext::effect_key`]).
    pub fn effect_key(&self) -> Option<&'a str> {
        self.effect_key
    }

    /// The call's context: made on the first request, the same handle after it.
    pub fn context(&self) -> CallContext {
        self.context
            .get_or_init(|| CallContext {
                shared: Arc::new(Shared {
                    tool: self.tool.to_owned(),
                    call_id: self.call_id.to_owned(),
                    effect_key: self.effect_key.map(str::to_owned),
                    observer: self.observer.cloned(),
                    cancelled: AtomicBool::new(false),
                    wakers: Mutex::new(Vec::new()),
                }),
            })
            .clone()
    }

    /// The context, if the tool asked for one: the toolbox keeps it, to cancel the call.
    #[inline]
    pub(crate) fn into_context(self) -> Option<CallContext> {
        self.context.into_inner()
    }
}

impl fmt::Debug for Invocation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Invocation")
            .field("tool", &self.tool)
            .field("call_id", &self.call_id)
            .field("effect_key", &self.effect_key)
            .finish_non_exhaustive()
    }
}

/// What a tool can see of its own call and say while it runs: a cheap handle, cloned freely and
/// sent to other threads.
///
/// A `#[tool]` function receives it as a parameter marked `#[context]`, which is not part of
/// the arguments' schema:
///
/// ```
/// use skyl::{ToolCall, Toolbox, tool::{CallContext, Progress}};
///
/// /// Counts to a number, slowly.
/// #[skyl::tool]
/// async fn count(
///     /// Where to stop.
///     to: u32,
///     #[context] call: CallContext,
/// ) -> String {
///     for n in 1..=to {
///         if call.is_cancelled() {
///             return format!("stopped at {n}");
///         }
///         call.progress(Progress::new(f64::from(n)).with_total(f64::from(to)));
///     }
///     format!("counted to {to} in call {}", call.call_id())
/// }
///
/// let toolbox = Toolbox::new().with(Count);
/// let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "count", serde_json::json!({"to": 3})));
/// assert_eq!(result.content, "counted to 3 in call c1");
/// ```
///
/// Where progress and log lines go depends on who runs the call: an agent run with an event
/// callback reports them as [`Event::ToolReport`](crate::agent::Event::ToolReport); a toolbox
/// served over MCP sends them to the client as `notifications/progress` (when the client's
/// request carried a progress token) and `notifications/message`; with the `tracing` feature a
/// log line is also a `tracing` event. Anywhere else they are dropped.
#[derive(Clone)]
pub struct CallContext {
    shared: Arc<Shared>,
}

struct Shared {
    tool: String,
    call_id: String,
    effect_key: Option<String>,
    observer: Option<Arc<dyn CallObserver>>,
    cancelled: AtomicBool,
    /// The tasks awaiting [`CallContext::cancelled`].
    wakers: Mutex<Vec<Waker>>,
}

impl CallContext {
    /// A context for a call of `tool` with the id `call_id`, outside any toolbox: for testing a
    /// tool that takes one, or calling it as a function.
    pub fn new(tool: impl Into<String>, call_id: impl Into<String>) -> Self {
        let (tool, call_id) = (tool.into(), call_id.into());
        Invocation::new(&tool, &call_id).context()
    }

    /// The name of the tool being called.
    pub fn tool(&self) -> &str {
        &self.shared.tool
    }

    /// The id of the call, as the model gave it (or as the adapter minted it).
    pub fn call_id(&self) -> &str {
        &self.shared.call_id
    }

    /// The call's effect key, in a journaled run: the same for every execution of this call
    /// across crashes and resumes, and different for every other call. Pass it on as an
    /// idempotency key (a payment provider's `Idempotency-Key` header, a unique column) so that
    /// a call run again after a crash takes effect once. `None` outside a journaled run.
    ///
    /// It is the value [`skyl::agent::effect_key`](crate::agent::effect_key) returns inside the
    /// call, and unlike that one it can be read on any thread, a `#[tool(blocking)]` tool's
    /// included.
    pub fn effect_key(&self) -> Option<&str> {
        self.shared.effect_key.as_deref()
    }

    /// Reports how far the call has got. Reports should grow; `total`, when known, says where
    /// they end.
    pub fn progress(&self, progress: Progress) {
        self.report(Report::Progress(progress));
    }

    /// Writes a log line about the call, for the people watching the run (the model does not
    /// read it).
    pub fn log(&self, level: LogLevel, message: impl Into<String>) {
        let message = message.into();
        #[cfg(feature = "tracing")]
        self.trace(level, &message);
        self.report(Report::Log { level, message });
    }

    fn report(&self, report: Report) {
        if let Some(observer) = &self.shared.observer {
            observer.report(self, report);
        }
    }

    #[cfg(feature = "tracing")]
    fn trace(&self, level: LogLevel, message: &str) {
        let (tool, call_id) = (self.tool(), self.call_id());
        // A tracing event's level is fixed where it is written, so each level has its own.
        macro_rules! event {
            ($level:ident) => {
                tracing::$level!(
                    gen_ai.tool.name = tool,
                    gen_ai.tool.call.id = call_id,
                    "{message}"
                )
            };
        }
        match level {
            LogLevel::Debug => event!(debug),
            LogLevel::Info => event!(info),
            LogLevel::Warning => event!(warn),
            LogLevel::Error => event!(error),
        }
    }

    /// Whether the call has been cancelled: it ran past its timeout, the MCP client cancelled
    /// it, or the run or dispatch that held it was dropped. Nobody reads its result any more;
    /// a tool that checks this can stop early and undo what it started.
    pub fn is_cancelled(&self) -> bool {
        self.shared.cancelled.load(Ordering::Acquire)
    }

    /// A future that finishes when the call is cancelled ([`is_cancelled`](Self::is_cancelled)).
    /// It needs no particular executor: race it against the work with any `select`.
    ///
    /// The toolbox goes on polling a cancelled call's future for a grace
    /// ([`Toolbox::with_cancel_grace`](crate::Toolbox::with_cancel_grace), one second by
    /// default), so the branch that wins on cancellation runs: undo what was started there. A
    /// call dropped unfinished (a dropped run) can only be polled on the spot, which runs cleanup
    /// that does not wait; the toolbox's method says what each case gives.
    ///
    /// ```
    /// use skyl::tool::CallContext;
    ///
    /// /// Waits for a job, or for the call to be cancelled.
    /// async fn wait<F: std::future::Future<Output = String>>(job: F, call: CallContext) -> String {
    ///     // Any executor's select works; this one polls the job first.
    ///     let mut job = std::pin::pin!(job);
    ///     let mut cancelled = std::pin::pin!(call.cancelled());
    ///     std::future::poll_fn(|cx| {
    ///         if let std::task::Poll::Ready(done) = job.as_mut().poll(cx) {
    ///             return std::task::Poll::Ready(done);
    ///         }
    ///         cancelled.as_mut().poll(cx).map(|()| "cancelled".to_owned())
    ///     })
    ///     .await
    /// }
    /// # let _ = wait::<std::future::Ready<String>>;
    /// ```
    pub fn cancelled(&self) -> Cancelled<'_> {
        Cancelled {
            context: self,
            slot: None,
        }
    }

    /// Cancels the call: [`is_cancelled`](Self::is_cancelled) says so from now on and every
    /// [`cancelled`](Self::cancelled) future finishes. The toolbox does this itself; call it to
    /// test how a tool behaves when cancelled.
    pub fn cancel(&self) {
        if self.shared.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let wakers = std::mem::take(
            &mut *self
                .shared
                .wakers
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        // Woken outside the lock: a waker may poll the future at once.
        for waker in wakers {
            waker.wake();
        }
    }
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallContext")
            .field("tool", &self.tool())
            .field("call_id", &self.call_id())
            .field("effect_key", &self.effect_key())
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

/// The future [`CallContext::cancelled`] returns: it finishes when the call is cancelled.
#[must_use = "a future does nothing unless polled or awaited"]
pub struct Cancelled<'a> {
    context: &'a CallContext,
    /// Where this future's waker sits in the context's list, once it has been polled.
    slot: Option<usize>,
}

impl Future for Cancelled<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let shared = &self.context.shared;
        if shared.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let mut wakers = shared.wakers.lock().unwrap_or_else(PoisonError::into_inner);
        // Checked again under the lock: `cancel` sets the flag before it takes the wakers, so a
        // waker pushed after this check is taken and woken.
        if shared.cancelled.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        match self.slot {
            Some(slot) if slot < wakers.len() => wakers[slot].clone_from(cx.waker()),
            _ => {
                wakers.push(cx.waker().clone());
                let slot = wakers.len() - 1;
                drop(wakers);
                self.slot = Some(slot);
            }
        }
        Poll::Pending
    }
}

impl fmt::Debug for Cancelled<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancelled")
            .field("call_id", &self.context.call_id())
            .finish_non_exhaustive()
    }
}

/// Takes what a `#[context]` parameter of a `#[tool]` function receives from the call, the way
/// axum's `FromRequestParts` takes a handler's parameter from a request.
///
/// [`CallContext`] implements it; implement it for a type of your own to hand tools only what
/// they need (an idempotency key, say).
#[diagnostic::on_unimplemented(
    message = "a `#[context]` parameter cannot be `{Self}`",
    label = "`{Self}` cannot be taken from the call",
    note = "write `#[context] name: skyl::tool::CallContext`, or implement `skyl::tool::FromInvocation` for `{Self}`"
)]
pub trait FromInvocation: Sized {
    /// Takes the value from the call.
    fn from_invocation(invocation: &Invocation<'_>) -> Self;
}

impl FromInvocation for CallContext {
    fn from_invocation(invocation: &Invocation<'_>) -> Self {
        invocation.context()
    }
}

/// Where the progress and log lines of a call go: the agent loop's events, an MCP client.
///
/// Reports come from the tool's thread, whichever that is, and in the order the tool made them.
/// [`Toolbox::dispatch_observed`](crate::Toolbox::dispatch_observed) runs a call with one.
pub trait CallObserver: Send + Sync + 'static {
    /// Hears one report of the call `call`.
    fn report(&self, call: &CallContext, report: Report);
}

/// What a tool said while it ran.
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Report {
    /// How far the call has got ([`CallContext::progress`]).
    Progress(Progress),
    /// A log line ([`CallContext::log`]).
    Log {
        /// How much it matters.
        level: LogLevel,
        /// The line.
        message: String,
    },
}

/// How far a call has got: `progress` of `total` (when known), and what it is doing.
///
/// ```
/// use skyl::tool::Progress;
///
/// let progress = Progress::new(3.0).with_total(10.0).with_message("page 3 of 10");
/// assert_eq!((progress.progress, progress.total), (3.0, Some(10.0)));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// The progress so far, which should grow with every report.
    pub progress: f64,
    /// Where the progress ends, when known.
    pub total: Option<f64>,
    /// What the call is doing, for a person to read.
    pub message: Option<String>,
}

impl Progress {
    /// Progress so far, with no total and no message.
    pub fn new(progress: f64) -> Self {
        Progress {
            progress,
            total: None,
            message: None,
        }
    }

    /// Says where the progress ends.
    #[must_use]
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// Says what the call is doing.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// How much a log line matters, from the least.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for whoever debugs the tool.
    Debug,
    /// What the tool is doing.
    Info,
    /// Something unexpected that the tool worked around.
    Warning,
    /// Something failed.
    Error,
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::executor::block_on;

    #[derive(Default)]
    struct Heard(Mutex<Vec<(String, Report)>>);

    impl CallObserver for Heard {
        fn report(&self, call: &CallContext, report: Report) {
            self.0
                .lock()
                .unwrap()
                .push((call.call_id().to_owned(), report));
        }
    }

    #[test]
    fn the_context_is_made_once_and_shared() {
        let invocation = Invocation::observed("t", "c1", Some("run/1/c1"), None);
        let first = invocation.context();
        let second = invocation.context();
        assert!(Arc::ptr_eq(&first.shared, &second.shared));
        assert_eq!(first.effect_key(), Some("run/1/c1"));
        let kept = invocation.into_context().expect("asked for");
        kept.cancel();
        assert!(first.is_cancelled());
    }

    #[test]
    fn an_invocation_never_asked_makes_no_context() {
        assert!(Invocation::new("t", "c1").into_context().is_none());
    }

    #[test]
    fn reports_reach_the_observer_in_order() {
        let heard: Arc<Heard> = Arc::default();
        let observer: Arc<dyn CallObserver> = heard.clone();
        let invocation = Invocation::observed("t", "c7", None, Some(&observer));
        let context = invocation.context();
        context.progress(Progress::new(1.0).with_total(2.0));
        context.log(LogLevel::Info, "halfway");
        context.progress(Progress::new(2.0).with_total(2.0));
        assert_eq!(
            *heard.0.lock().unwrap(),
            [
                (
                    "c7".to_owned(),
                    Report::Progress(Progress::new(1.0).with_total(2.0))
                ),
                (
                    "c7".to_owned(),
                    Report::Log {
                        level: LogLevel::Info,
                        message: "halfway".into()
                    }
                ),
                (
                    "c7".to_owned(),
                    Report::Progress(Progress::new(2.0).with_total(2.0))
                ),
            ]
        );
    }

    #[test]
    fn cancelled_finishes_once_cancelled_from_another_thread() {
        let context = CallContext::new("t", "c1");
        let other = context.clone();
        let cancelling = std::thread::spawn(move || other.cancel());
        block_on(context.cancelled());
        cancelling.join().unwrap();
        assert!(context.is_cancelled());
        // Already cancelled: ready at once.
        block_on(context.cancelled());
    }
}
