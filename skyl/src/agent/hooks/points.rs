//! The points where an application steps into a run: the [`Hooks`] trait, and the [`Decision`]
//! about each tool call. Their one public path is `skyl::agent` (the names the documentation
//! uses); this private module keeps them beside the closures of [`hooks`](super) without a
//! second path.

use std::future::{Future, ready};
use std::time::Duration;

use crate::agent::step::Step;
use crate::message::{ToolCall, ToolResult};
use crate::provider::Request;
use crate::tool::{ToolFailure, ToolOutcome};

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
/// proposed the decision `A` returned. The functions of [`hooks`](super) turn a closure into one
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
    /// ([`Agent::with_approval_for_destructive`](crate::agent::Agent::with_approval_for_destructive)),
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
    /// Ask a person: the run stops with [`Stop::AwaitingApproval`](crate::agent::Stop::AwaitingApproval)
    /// once the other calls of the step have their results. Decide with
    /// [`Run::approve`](crate::agent::Run::approve) or [`Run::deny`](crate::agent::Run::deny), then
    /// [`Agent::resume`](crate::agent::Agent::resume).
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
