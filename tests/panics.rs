//! Panics in every place a tool can put them, alone and among other calls of the same turn: each
//! call still gets exactly one result, the panicking call's names its tool, and the other calls
//! keep theirs, whether the turn runs all at once or a few calls at a time.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::support::YieldTimes;
use serde_json::{Value, json};
use skyl::{
    Limits, Message, Part, Role, Tool, ToolCall, ToolDefinition, ToolResult, Toolbox,
    tool::{ToolFuture, ToolOutcome},
};

/// A tool made from a closure, so that each test says exactly what its tool does.
struct FnTool<F> {
    definition: ToolDefinition,
    run: F,
}

fn tool<F>(name: &str, run: F) -> FnTool<F>
where
    F: for<'a> Fn(&'a Value) -> ToolFuture<'a> + Send + Sync + 'static,
{
    FnTool {
        definition: ToolDefinition::new(
            name,
            format!("The {name} tool."),
            json!({"type": "object"}),
        ),
        run,
    }
}

impl<F> Tool<()> for FnTool<F>
where
    F: for<'a> Fn(&'a Value) -> ToolFuture<'a> + Send + Sync + 'static,
{
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: &'a Value, _: &'a ()) -> ToolFuture<'a> {
        (self.run)(arguments)
    }
}

/// A value whose destructor panics.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("a destructor panicked");
    }
}

/// A future that finishes at once and panics when it is dropped.
struct ReadyThenBomb(#[allow(dead_code)] Bomb);

impl Future for ReadyThenBomb {
    type Output = ToolOutcome;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<ToolOutcome> {
        Poll::Ready(Ok("done".into()))
    }
}

/// A panic payload that is neither `&str` nor `String`.
#[derive(Debug)]
struct Code(#[allow(dead_code)] u16);

fn crashed(tool: &str, cause: Option<&str>) -> String {
    match cause {
        Some(cause) => format!(
            "ERROR: {tool} failed: it crashed ({cause}). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable."
        ),
        None => format!(
            "ERROR: {tool} failed: it crashed. This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable."
        ),
    }
}

/// Every kind of panic, and calls that succeed among them.
fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(tool("slow", |_| {
            ToolFuture::new(async {
                YieldTimes(4).await;
                Ok("slow done".to_owned())
            })
        }))
        .with(tool("quick", |_| {
            ToolFuture::ready(Ok("quick done".into()))
        }))
        .with(tool("sync_odd_payload", |_| {
            std::panic::panic_any(Code(500))
        }))
        .with(tool("async_odd_payload", |_| {
            ToolFuture::new(async {
                YieldTimes(2).await;
                std::panic::panic_any(Code(503))
            })
        }))
        .with(tool("async_text_payload", |_| {
            ToolFuture::new(async {
                YieldTimes(1).await;
                panic!("lost the connection")
            })
        }))
        // A guard dropped on the way out of a synchronous tool that returned normally.
        .with(tool("sync_drop", |_| {
            let _guard = Bomb;
            ToolFuture::ready(Ok("never seen".into()))
        }))
        // A guard held across an `.await`, dropped when the body ends.
        .with(tool("async_drop", |_| {
            ToolFuture::new(async {
                let guard = Bomb;
                YieldTimes(2).await;
                drop(guard);
                Ok("never seen".to_owned())
            })
        }))
        // A future whose own destructor panics after it gave its output.
        .with(tool("future_drop", |_| {
            ToolFuture::new(ReadyThenBomb(Bomb))
        }))
}

fn call(id: &str, name: &str) -> ToolCall {
    ToolCall::new(id, name, json!({}))
}

fn every_kind() -> Message {
    let names = [
        "slow",
        "sync_odd_payload",
        "async_odd_payload",
        "quick",
        "async_text_payload",
        "sync_drop",
        "async_drop",
        "future_drop",
    ];
    Message {
        role: Role::Assistant,
        parts: names
            .iter()
            .enumerate()
            .map(|(n, name)| Part::ToolCall(call(&format!("c{n}"), name)))
            .collect(),
    }
}

fn every_kind_answered() -> Vec<ToolResult> {
    vec![
        ToolResult::success("c0", "slow done"),
        ToolResult::error("c1", crashed("sync_odd_payload", None)),
        ToolResult::error("c2", crashed("async_odd_payload", None)),
        ToolResult::success("c3", "quick done"),
        ToolResult::error(
            "c4",
            crashed("async_text_payload", Some("lost the connection")),
        ),
        ToolResult::error("c5", crashed("sync_drop", Some("a destructor panicked"))),
        ToolResult::error("c6", crashed("async_drop", Some("a destructor panicked"))),
        // Its output was complete before its destructor ran: the output stands.
        ToolResult::success("c7", "done"),
    ]
}

#[test]
fn each_kind_of_panic_alone_is_one_result_naming_the_tool() {
    let toolbox = toolbox();
    let expected = every_kind_answered();
    for (part, expected) in every_kind().parts.iter().zip(expected) {
        let Part::ToolCall(call) = part else {
            unreachable!()
        };
        assert_eq!(toolbox.dispatch_blocking(call), expected, "{}", call.name);
    }
}

#[test]
fn panics_among_concurrent_calls_cost_the_others_nothing() {
    let answer = toolbox().answer_blocking(&every_kind());
    assert_eq!(answer.role, Role::Tool);
    assert_eq!(
        answer.tool_results().cloned().collect::<Vec<_>>(),
        every_kind_answered()
    );
}

#[test]
fn panics_among_calls_run_a_few_at_a_time_cost_the_others_nothing() {
    for at_once in [1, 2, 3] {
        let toolbox = toolbox().with_limits(Limits::default().with_max_concurrent_calls(at_once));
        let answer = toolbox.answer_blocking(&every_kind());
        assert_eq!(
            answer.tool_results().cloned().collect::<Vec<_>>(),
            every_kind_answered(),
            "{at_once} at a time"
        );
    }
}

#[test]
fn the_toolbox_stays_usable_after_a_turn_full_of_panics() {
    let toolbox = toolbox();
    for _ in 0..3 {
        let answer = toolbox.answer_blocking(&every_kind());
        assert_eq!(answer.parts.len(), 8);
    }
    assert_eq!(
        toolbox.dispatch_blocking(&call("last", "quick")),
        ToolResult::success("last", "quick done")
    );
}
