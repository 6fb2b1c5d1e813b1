//! A cancelled call's grace: an async tool racing `CallContext::cancelled` cleans up when its
//! call times out (even cleanup that waits), and on the spot when its dispatch or its run is
//! dropped; a tool that ignores its cancellation, or wakes itself forever, is dropped after the
//! grace; a tool's own `cancel_grace` replaces the toolbox's. (MCP's cancellation is in
//! `tests/mcp/served_context.rs`.)

use std::future::{Future, IntoFuture};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::json;
use skyl::agent::Agent;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox, tool::CallContext};

/// The whole result of a call of `tool` stopped at `limit`.
fn timed_out(tool: &str, limit: &str) -> String {
    format!(
        "ERROR: {tool} failed: it did not finish within {limit} and was stopped. Do not retry with the same arguments; tell the user it timed out."
    )
}

/// Ready once a thread of its own has slept for `delay` and woken it: cleanup that waits for
/// something outside the tool.
fn later(delay: Duration) -> impl Future<Output = ()> + Send {
    let state: Arc<Mutex<(bool, Option<Waker>)>> = Arc::default();
    let mut started = false;
    std::future::poll_fn(move |cx| {
        let mut guard = state.lock().unwrap();
        if guard.0 {
            return Poll::Ready(());
        }
        guard.1 = Some(cx.waker().clone());
        if !started {
            started = true;
            let state = Arc::clone(&state);
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                let waker = {
                    let mut guard = state.lock().unwrap();
                    guard.0 = true;
                    guard.1.take()
                };
                if let Some(waker) = waker {
                    waker.wake();
                }
            });
        }
        Poll::Pending
    })
}

/// Runs `work` until it finishes or the call is cancelled, whichever comes first: the pattern
/// the docs of `CallContext::cancelled` show.
async fn unless_cancelled<F: Future>(work: F, call: &CallContext) -> Option<F::Output> {
    let mut work = std::pin::pin!(work);
    let mut cancelled = std::pin::pin!(call.cancelled());
    std::future::poll_fn(|cx| {
        if let Poll::Ready(done) = work.as_mut().poll(cx) {
            return Poll::Ready(Some(done));
        }
        cancelled.as_mut().poll(cx).map(|()| None)
    })
    .await
}

static WAITED_CLEANUP: AtomicBool = AtomicBool::new(false);

/// Books a room, and when cancelled, cancels the booking, which takes a moment.
#[skyl::tool(timeout = "20ms")]
async fn book_room(#[context] call: CallContext) -> String {
    match unless_cancelled(std::future::pending::<String>(), &call).await {
        Some(booked) => booked,
        None => {
            later(Duration::from_millis(10)).await;
            WAITED_CLEANUP.store(true, Ordering::SeqCst);
            "booking cancelled".to_owned()
        }
    }
}

#[test]
fn a_timed_out_tool_racing_its_cancellation_runs_its_cleanup_in_the_grace() {
    let toolbox = Toolbox::new().with(BookRoom);
    let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "book_room", json!({})));
    assert_eq!(
        (result.is_error, result.content),
        (true, timed_out("book_room", "20ms")),
        "the result is the timeout's, whatever the tool returned in its grace"
    );
    assert!(WAITED_CLEANUP.load(Ordering::SeqCst));
}

static UNGRACED_CLEANUP: AtomicBool = AtomicBool::new(false);

/// As `book_room`, with no grace of its own.
#[skyl::tool(timeout = "20ms", cancel_grace = "0s")]
async fn book_room_at_once(#[context] call: CallContext) -> String {
    call.cancelled().await;
    UNGRACED_CLEANUP.store(true, Ordering::SeqCst);
    "booking cancelled".to_owned()
}

static OWN_GRACE_CLEANUP: AtomicBool = AtomicBool::new(false);

/// As `book_room`, with a grace of its own.
#[skyl::tool(timeout = "20ms", cancel_grace = "30s")]
async fn book_room_slowly(#[context] call: CallContext) -> String {
    call.cancelled().await;
    later(Duration::from_millis(10)).await;
    OWN_GRACE_CLEANUP.store(true, Ordering::SeqCst);
    "booking cancelled".to_owned()
}

#[test]
fn a_tools_own_grace_replaces_the_toolboxs() {
    // The default grace would let `book_room_at_once` clean up; its own, zero, does not.
    let toolbox = Toolbox::new().with(BookRoomAtOnce);
    let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "book_room_at_once", json!({})));
    assert_eq!(result.content, timed_out("book_room_at_once", "20ms"));
    assert!(!UNGRACED_CLEANUP.load(Ordering::SeqCst));

    // A toolbox with no grace still gives `book_room_slowly` its own.
    let toolbox = Toolbox::new()
        .with(BookRoomSlowly)
        .with_cancel_grace(Duration::ZERO);
    let result = toolbox.dispatch_blocking(&ToolCall::new("c2", "book_room_slowly", json!({})));
    assert_eq!(result.content, timed_out("book_room_slowly", "20ms"));
    assert!(OWN_GRACE_CLEANUP.load(Ordering::SeqCst));
}

/// Sets its flag when dropped.
struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

static IGNORING_DROPPED: AtomicBool = AtomicBool::new(false);
static SPINNING_DROPPED: AtomicBool = AtomicBool::new(false);
static SPINNING_POLLS: AtomicUsize = AtomicUsize::new(0);

/// Takes its context and never looks at it.
#[skyl::tool]
async fn ignore_cancel(#[context] _call: CallContext) -> String {
    let _dropped = SetOnDrop(&IGNORING_DROPPED);
    std::future::pending().await
}

/// Wakes itself on every poll, forever.
#[skyl::tool]
async fn spin(#[context] _call: CallContext) -> String {
    let _dropped = SetOnDrop(&SPINNING_DROPPED);
    std::future::poll_fn(|cx| {
        SPINNING_POLLS.fetch_add(1, Ordering::SeqCst);
        cx.waker().wake_by_ref();
        Poll::Pending
    })
    .await
}

#[test]
fn a_tool_that_ignores_its_cancellation_is_dropped_after_the_grace() {
    let toolbox = Toolbox::new()
        .with(IgnoreCancel)
        .with(Spin)
        .with_timeout(Duration::from_millis(10))
        .with_cancel_grace(Duration::from_millis(30));
    for (tool, dropped) in [
        ("ignore_cancel", &IGNORING_DROPPED),
        ("spin", &SPINNING_DROPPED),
    ] {
        let result = toolbox.dispatch_blocking(&ToolCall::new("c1", tool, json!({})));
        assert_eq!(result.content, timed_out(tool, "10ms"), "{tool}");
        assert!(dropped.load(Ordering::SeqCst), "{tool}");
    }

    // Dropped unfinished, a tool that wakes itself forever gets a bounded number of polls.
    SPINNING_DROPPED.store(false, Ordering::SeqCst);
    let call = ToolCall::new("c2", "spin", json!({}));
    let mut dispatch = Box::pin(toolbox.dispatch(&call));
    assert!(poll_once(dispatch.as_mut()).is_pending());
    let before = SPINNING_POLLS.load(Ordering::SeqCst);
    drop(dispatch);
    assert!(SPINNING_DROPPED.load(Ordering::SeqCst));
    assert!(SPINNING_POLLS.load(Ordering::SeqCst) - before <= 64);
}

fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

static DISPATCH_CLEANUP: AtomicBool = AtomicBool::new(false);
static DISPATCH_WAITED_CLEANUP: AtomicBool = AtomicBool::new(false);

/// Holds a lock until the call is cancelled, then releases it; a lock held elsewhere takes a
/// moment to release.
#[skyl::tool]
async fn hold_lock(
    /// Whether releasing it waits.
    remote: bool,
    #[context] call: CallContext,
) -> String {
    call.cancelled().await;
    if remote {
        later(Duration::from_millis(500)).await;
        DISPATCH_WAITED_CLEANUP.store(true, Ordering::SeqCst);
    } else {
        DISPATCH_CLEANUP.store(true, Ordering::SeqCst);
    }
    "released".to_owned()
}

#[test]
fn a_dropped_dispatch_runs_the_cleanup_that_needs_no_waiting_on_the_spot() {
    let toolbox = Toolbox::new().with(HoldLock);
    for remote in [false, true] {
        let call = ToolCall::new("c1", "hold_lock", json!({"remote": remote}));
        let mut dispatch = Box::pin(toolbox.dispatch(&call));
        assert!(poll_once(dispatch.as_mut()).is_pending());
        drop(dispatch);
    }
    assert!(DISPATCH_CLEANUP.load(Ordering::SeqCst));
    // Nothing is left to wait for the rest, as the toolbox's docs say.
    assert!(!DISPATCH_WAITED_CLEANUP.load(Ordering::SeqCst));
}

static RUN_CLEANUP: AtomicBool = AtomicBool::new(false);

/// Watches a queue until the call is cancelled, then stops watching it.
#[skyl::tool]
async fn watch_queue(#[context] call: CallContext) -> String {
    match unless_cancelled(std::future::pending::<String>(), &call).await {
        Some(seen) => seen,
        None => {
            RUN_CLEANUP.store(true, Ordering::SeqCst);
            "stopped watching".to_owned()
        }
    }
}

#[test]
fn a_dropped_run_runs_its_calls_cleanup_on_the_spot() {
    let model = ScriptedModel::new().reply_calls([ToolCall::new("c1", "watch_queue", json!({}))]);
    let agent = Agent::new(model, Toolbox::new().with(WatchQueue), "m");
    let mut run = Box::pin(agent.run(vec![Message::user("Watch it.")]).into_future());
    assert!(poll_once(run.as_mut()).is_pending());
    assert!(!RUN_CLEANUP.load(Ordering::SeqCst));
    drop(run);
    assert!(RUN_CLEANUP.load(Ordering::SeqCst));
}
