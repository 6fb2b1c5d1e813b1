//! The points where an application steps into a run: [`Hooks`], the [`Decision`] about each tool
//! call, and closures that implement one hook each. `Hooks` and `Decision` are re-exported as
//! [`skyl::agent::Hooks`](crate::agent::Hooks) and [`skyl::agent::Decision`](crate::agent::Decision),
//! the names the rest of the documentation uses; the closures are only here.
//!
//! ```
//! use skyl::agent::{hooks, Decision, Hooks};
//!
//! // A closure, for one hook that needs no state of its own:
//! let no_deletes = hooks::before_tool_call(|call, proposed| {
//!     if call.name.starts_with("delete_") { Decision::deny("deleting is turned off") } else { proposed }
//! });
//! // Two sets of hooks run one after the other, the first one's decision proposed to the second:
//! let both = (no_deletes, hooks::after_step(|step| println!("step {} done", step.number())));
//! # fn takes(_: impl Hooks) {}
//! # takes(both);
//! ```

use std::fmt;
use std::future::{Future, ready};
use std::time::Duration;

use crate::message::{ToolCall, ToolResult};
use crate::provider::Request;
use crate::tool::{ToolFailure, ToolOutcome};

use super::Step;

/// Code that runs at fixed points of every step of a run, and may change what happens there.
///
/// Every method has a default that changes nothing, so implement only the ones you need. The
/// agent awaits each hook before it goes on, in this order for a step that calls tools:
///
/// 1. [`before_request`](Hooks::before_request), then the model request;
/// 2. [`before_tool_call`](Hooks::before_tool_call) for each call, in call order;
/// 3. the calls let through run, concurrently;
/// 4. [`after_tool_call`](Hooks::after_tool_call) for each call answered, in call order, once all
///    of them have their results;
/// 5. [`after_step`](Hooks::after_step).
///
/// A step whose answer calls no tool has steps 1 and 5 only. A call paused for approval gets its
/// `after_tool_call` when the run is resumed and it has a result; `after_step` then follows.
///
/// Hooks take `&self`, because one agent serves many runs at once: keep mutable state behind a
/// `Mutex` or an atomic. A tuple `(A, B)` of hooks runs `A`'s hook and then `B`'s, and `B` is
/// proposed the decision `A` returned. The functions of [`hooks`](self) turn a closure into one
/// hook.
///
/// ```
/// use std::time::Duration;
/// use skyl::agent::{Decision, Hooks, Step};
/// use skyl::provider::Request;
/// use skyl::{ToolCall, ToolResult};
///
/// struct Guard;
///
/// impl Hooks for Guard {
///     // From the fifth step on, offer only the read-only tools and keep answers short.
///     async fn before_request(&self, step: u32, request: &mut Request<'_>) {
///         if step >= 5 {
///             let read_only: Vec<_> = request
///                 .tools
///                 .iter()
///                 .filter(|tool| tool.annotations.is_read_only())
///                 .cloned()
///                 .collect();
///             request.tools = read_only.into();
///             request.max_tokens = Some(512);
///         }
///     }
///
///     async fn before_tool_call(&self, call: &ToolCall, proposed: Decision) -> Decision {
///         match call.name.as_str() {
///             "transfer_money" => Decision::Pause,
///             "get_time" => Decision::answer("12:00"),
///             _ => proposed,
///         }
///     }
///
///     async fn after_tool_call(&self, call: &ToolCall, result: &ToolResult, took: Duration) {
///         eprintln!("{} answered in {took:?} (error: {})", call.name, result.is_error);
///     }
///
///     async fn after_step(&self, step: &Step<'_>) {
///         eprintln!("step {}: {} tokens so far", step.number(), step.run_usage().input_tokens);
///     }
/// }
/// ```
///
/// A hook that trims the history must keep each tool result with the assistant turn that made
/// its call: the provider adapters refuse a request whose results lost their calls.
pub trait Hooks: Send + Sync {
    /// Before each model request: see or change the request of step `step` (counted from 1 over
    /// the whole run). Trim the history, offer a subset of the tools, set
    /// [`tool_choice`](Request::tool_choice) for this step, change `max_tokens` or `extra`.
    ///
    /// The request borrows the run's transcript and the toolbox's definitions; assign an owned
    /// value to a field to change it (`request.messages = trimmed.into()`). The transcript the
    /// run keeps is not changed.
    fn before_request(
        &self,
        step: u32,
        request: &mut Request<'_>,
    ) -> impl Future<Output = ()> + Send {
        let _ = (step, request);
        async {}
    }

    /// Before each tool call: decide what happens to it.
    ///
    /// `proposed` is what the agent would do without this hook: [`Decision::Pause`] for a
    /// destructive tool when the agent requires approval for those
    /// ([`Agent::with_approval_for_destructive`](super::Agent::with_approval_for_destructive)),
    /// otherwise [`Decision::Run`]. The default returns it unchanged.
    fn before_tool_call(
        &self,
        call: &ToolCall,
        proposed: Decision,
    ) -> impl Future<Output = Decision> + Send {
        let _ = call;
        ready(proposed)
    }

    /// After each tool call has its result: the call, the result, and how long the tool ran
    /// (zero for a call a hook or a person answered without running it).
    fn after_tool_call(
        &self,
        call: &ToolCall,
        result: &ToolResult,
        duration: Duration,
    ) -> impl Future<Output = ()> + Send {
        let _ = (call, result, duration);
        async {}
    }

    /// After each step: the model's answer and, when it called tools, their results.
    fn after_step(&self, step: &Step<'_>) -> impl Future<Output = ()> + Send {
        let _ = step;
        async {}
    }
}

/// No hooks: every call runs (or pauses, when the agent requires approval for it).
impl Hooks for () {}

macro_rules! tuple_hooks {
    ($($name:ident . $index:tt),+) => {
        /// Each member's hook in turn; each member is proposed the decision of the one before.
        impl<$($name: Hooks),+> Hooks for ($($name,)+) {
            async fn before_request(&self, step: u32, request: &mut Request<'_>) {
                $(self.$index.before_request(step, request).await;)+
            }

            async fn before_tool_call(&self, call: &ToolCall, proposed: Decision) -> Decision {
                let decision = proposed;
                $(let decision = self.$index.before_tool_call(call, decision).await;)+
                decision
            }

            async fn after_tool_call(&self, call: &ToolCall, result: &ToolResult, duration: Duration) {
                $(self.$index.after_tool_call(call, result, duration).await;)+
            }

            async fn after_step(&self, step: &Step<'_>) {
                $(self.$index.after_step(step).await;)+
            }
        }
    };
}

tuple_hooks!(A.0);
tuple_hooks!(A.0, B.1);
tuple_hooks!(A.0, B.1, C.2);
tuple_hooks!(A.0, B.1, C.2, D.3);

/// What happens to one tool call, as [`Hooks::before_tool_call`] decides.
///
/// Whatever the decision, the call gets exactly one result: the tool's, a refusal the model can
/// read, the result given here, or (after a pause) the one the approval leads to.
#[derive(Debug)]
#[non_exhaustive]
pub enum Decision {
    /// Run the tool. Calls that run are run concurrently, and their results keep call order.
    Run,
    /// Do not run it. The model gets an error result saying the tool was not run, with this
    /// reason, and that it should go on without it.
    Deny(String),
    /// Do not run it: answer with this outcome instead, as if the tool had returned it (a cached
    /// result, a stub, a failure with the guidance of your choice).
    Answer(ToolOutcome),
    /// Ask a person: the run stops with [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval)
    /// once the other calls of the step have their results. Decide with
    /// [`Run::approve`](super::Run::approve) or [`Run::deny`](super::Run::deny), then
    /// [`Agent::resume`](super::Agent::resume).
    Pause,
}

impl Decision {
    /// [`Decision::Deny`] with `reason`, which the model reads.
    pub fn deny(reason: impl Into<String>) -> Self {
        Decision::Deny(reason.into())
    }

    /// [`Decision::Answer`] with a successful result holding `content`.
    pub fn answer(content: impl Into<String>) -> Self {
        Decision::Answer(Ok(content.into()))
    }

    /// [`Decision::Answer`] with a failure, worded as the tool's own failures are.
    pub fn fail(failure: ToolFailure) -> Self {
        Decision::Answer(Err(failure))
    }
}

/// A [`Hooks`] whose [`before_request`](Hooks::before_request) is `f`.
///
/// ```
/// use skyl::agent::hooks;
/// use skyl::provider::ToolChoice;
///
/// // Make the first step call a tool.
/// let first_step_calls = hooks::before_request(|step, request| {
///     if step == 1 {
///         request.tool_choice = ToolChoice::Required;
///     }
/// });
/// # let _ = first_step_calls;
/// ```
pub fn before_request<F>(f: F) -> BeforeRequest<F>
where
    F: Fn(u32, &mut Request<'_>) + Send + Sync,
{
    BeforeRequest(f)
}

/// A [`Hooks`] whose [`before_tool_call`](Hooks::before_tool_call) is `f`.
///
/// ```
/// use skyl::agent::{hooks, Decision};
///
/// let ask_before_paying = hooks::before_tool_call(|call, proposed| match call.name.as_str() {
///     "pay" => Decision::Pause,
///     _ => proposed,
/// });
/// # let _ = ask_before_paying;
/// ```
pub fn before_tool_call<F>(f: F) -> BeforeToolCall<F>
where
    F: Fn(&ToolCall, Decision) -> Decision + Send + Sync,
{
    BeforeToolCall(f)
}

/// A [`Hooks`] whose [`after_tool_call`](Hooks::after_tool_call) is `f`.
pub fn after_tool_call<F>(f: F) -> AfterToolCall<F>
where
    F: Fn(&ToolCall, &ToolResult, Duration) + Send + Sync,
{
    AfterToolCall(f)
}

/// A [`Hooks`] whose [`after_step`](Hooks::after_step) is `f`.
pub fn after_step<F>(f: F) -> AfterStep<F>
where
    F: Fn(&Step<'_>) + Send + Sync,
{
    AfterStep(f)
}

/// The hooks [`before_request`] builds from a closure.
#[derive(Clone, Copy)]
pub struct BeforeRequest<F>(F);

/// The hooks [`before_tool_call`] builds from a closure.
#[derive(Clone, Copy)]
pub struct BeforeToolCall<F>(F);

/// The hooks [`after_tool_call`] builds from a closure.
#[derive(Clone, Copy)]
pub struct AfterToolCall<F>(F);

/// The hooks [`after_step`] builds from a closure.
#[derive(Clone, Copy)]
pub struct AfterStep<F>(F);

impl<F> Hooks for BeforeRequest<F>
where
    F: Fn(u32, &mut Request<'_>) + Send + Sync,
{
    fn before_request(
        &self,
        step: u32,
        request: &mut Request<'_>,
    ) -> impl Future<Output = ()> + Send {
        (self.0)(step, request);
        ready(())
    }
}

impl<F> Hooks for BeforeToolCall<F>
where
    F: Fn(&ToolCall, Decision) -> Decision + Send + Sync,
{
    fn before_tool_call(
        &self,
        call: &ToolCall,
        proposed: Decision,
    ) -> impl Future<Output = Decision> + Send {
        ready((self.0)(call, proposed))
    }
}

impl<F> Hooks for AfterToolCall<F>
where
    F: Fn(&ToolCall, &ToolResult, Duration) + Send + Sync,
{
    fn after_tool_call(
        &self,
        call: &ToolCall,
        result: &ToolResult,
        duration: Duration,
    ) -> impl Future<Output = ()> + Send {
        (self.0)(call, result, duration);
        ready(())
    }
}

impl<F> Hooks for AfterStep<F>
where
    F: Fn(&Step<'_>) + Send + Sync,
{
    fn after_step(&self, step: &Step<'_>) -> impl Future<Output = ()> + Send {
        (self.0)(step);
        ready(())
    }
}

macro_rules! opaque_debug {
    ($($name:ident),*) => {$(
        impl<F> fmt::Debug for $name<F> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "(..)"))
            }
        }
    )*};
}

opaque_debug!(BeforeRequest, BeforeToolCall, AfterToolCall, AfterStep);
