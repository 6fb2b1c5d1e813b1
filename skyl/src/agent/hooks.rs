//! Closures that implement one hook each, for an application that needs one or two hooks and
//! no type of its own. The trait they implement, [`Hooks`] (every point where an application
//! steps into a run), and the [`Decision`] about a tool call are imported from `skyl::agent`.
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

use crate::agent::step::Step;

// Private: its names' one public path is `skyl::agent` (tests/public_paths.rs holds that).
pub(super) mod points;

use points::{Decision, Hooks};

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
