//! A tool's view of its own call: the `#[context]` parameter (sync, async, blocking, methods),
//! `DynamicTool` closures with a context, progress and log lines reaching an agent's events in
//! order, cancellation on timeout and on a dropped dispatch, and the effect key of a journaled
//! run as the context gives it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::block_on;
use serde_json::{Value, json};
use skyl::agent::{Agent, Event};
use skyl::durable::SqliteJournal;
use skyl::testing::ScriptedModel;
use skyl::{
    DynamicTool, Message, ToolCall, ToolDefinition, Toolbox,
    tool::{CallContext, LogLevel, Progress, Report},
};

/// Says which call it is.
#[skyl::tool]
fn whoami(#[context] call: CallContext, greeting: String) -> String {
    format!("{greeting} from {} ({})", call.call_id(), call.tool())
}

/// Says which call it is, later.
#[skyl::tool]
async fn whoami_later(greeting: String, #[context] call: CallContext) -> String {
    format!("{greeting} from {}", call.call_id())
}

/// Says which call it is, from another thread.
#[skyl::tool(blocking)]
fn whoami_blocking(#[context] call: CallContext) -> String {
    format!("blocking {}", call.call_id())
}

/// A desk that answers questions.
struct Desk {
    name: &'static str,
}

#[skyl::tools]
impl Desk {
    /// Says which desk and call it is.
    #[tool]
    fn which_desk(&self, #[context] call: CallContext) -> String {
        format!("{} answers {}", self.name, call.call_id())
    }
}

#[test]
fn a_context_parameter_is_not_in_the_schema_and_gets_the_call() {
    let toolbox = Toolbox::new()
        .with(Whoami)
        .with(WhoamiLater)
        .with(WhoamiBlocking)
        .with_set(Desk { name: "front" });
    assert_eq!(
        toolbox.definitions()[0].parameters,
        json!({
            "type": "object",
            "properties": {"greeting": {"type": "string"}},
            "required": ["greeting"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        toolbox.definitions()[2].parameters,
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    let answer = |id: &str, name: &str, arguments: Value| {
        toolbox
            .dispatch_blocking(&ToolCall::new(id, name, arguments))
            .content
    };
    assert_eq!(
        answer("c1", "whoami", json!({"greeting": "hi"})),
        "hi from c1 (whoami)"
    );
    assert_eq!(
        answer("c2", "whoami_later", json!({"greeting": "hey"})),
        "hey from c2"
    );
    assert_eq!(answer("c3", "whoami_blocking", json!({})), "blocking c3");
    assert_eq!(answer("c4", "which_desk", json!({})), "front answers c4");
    // The function is still a function, given a context of its own.
    assert_eq!(
        whoami(CallContext::new("whoami", "t1"), "yo".into()),
        "yo from t1 (whoami)"
    );
}

#[test]
fn a_dynamic_tool_closure_gets_the_context() {
    let definition = ToolDefinition::new("echo_id", "Echoes its call id.", no_arguments());
    let sync =
        DynamicTool::from_fn_with_context(definition.clone(), |_: Value, call: CallContext| {
            call.call_id().to_owned()
        });
    let later = DynamicTool::from_async_fn_with_context(
        {
            let mut definition = definition;
            definition.name = "echo_id_later".into();
            definition
        },
        |_: Value, call: CallContext| async move { format!("later {}", call.call_id()) },
    );
    let toolbox = Toolbox::new().with(sync).with(later);
    let result = toolbox.dispatch_blocking(&ToolCall::new("d1", "echo_id", json!({})));
    assert_eq!(result.content, "d1");
    let result = toolbox.dispatch_blocking(&ToolCall::new("d2", "echo_id_later", json!({})));
    assert_eq!(result.content, "later d2");
}

/// Converts three files, reporting as it goes.
#[skyl::tool(blocking)]
fn convert(#[context] call: CallContext) -> &'static str {
    call.log(LogLevel::Info, "starting");
    for page in 1..=3 {
        call.progress(
            Progress::new(f64::from(page))
                .with_total(3.0)
                .with_message(format!("page {page}")),
        );
    }
    call.log(LogLevel::Warning, "page 2 was blank");
    "converted"
}

/// Counts, reporting each number.
#[skyl::tool]
async fn count(#[context] call: CallContext) -> &'static str {
    call.progress(Progress::new(1.0));
    call.progress(Progress::new(2.0));
    "counted"
}

#[test]
fn progress_and_log_lines_reach_the_agents_events_in_order() {
    let model = ScriptedModel::new()
        .reply_calls([
            ToolCall::new("c1", "convert", json!({})),
            ToolCall::new("c2", "count", json!({})),
        ])
        .reply_text("done");
    let agent = Agent::new(model, Toolbox::new().with(Convert).with(Count), "m");
    let mut events = Vec::new();
    let run = agent
        .run(vec![Message::user("convert and count")])
        .on_event(|event| events.push(event))
        .blocking()
        .unwrap();
    assert_eq!(run.text(), "done");

    let per_call = |id: &str| -> Vec<String> {
        events
            .iter()
            .filter_map(|event| match event {
                Event::ToolStarted { call } if call.id == id => Some("started".to_owned()),
                Event::ToolReport {
                    call_id,
                    name,
                    report,
                } if call_id == id => Some(match report {
                    Report::Progress(progress) => format!(
                        "{name} {}/{:?} {:?}",
                        progress.progress, progress.total, progress.message
                    ),
                    Report::Log { level, message } => format!("{name} {level:?}: {message}"),
                    other => panic!("unexpected report {other:?}"),
                }),
                Event::ToolFinished { result, .. } if result.call_id == id => {
                    Some(format!("finished: {}", result.content))
                }
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        per_call("c1"),
        [
            "started",
            "convert Info: starting",
            "convert 1/Some(3.0) Some(\"page 1\")",
            "convert 2/Some(3.0) Some(\"page 2\")",
            "convert 3/Some(3.0) Some(\"page 3\")",
            "convert Warning: page 2 was blank",
            "finished: converted",
        ]
    );
    assert_eq!(
        per_call("c2"),
        [
            "started",
            "count 1/None None",
            "count 2/None None",
            "finished: counted"
        ]
    );
}

/// What the cancellable tools saw, per test.
static SAW_TIMEOUT_CANCEL: AtomicBool = AtomicBool::new(false);
static SAW_ASYNC_TIMEOUT_CANCEL: AtomicBool = AtomicBool::new(false);

/// Waits until it is cancelled, checking every few milliseconds (for at most ten seconds).
#[skyl::tool(blocking, timeout = "50ms")]
fn wait_for_cancel(#[context] call: CallContext) -> &'static str {
    for _ in 0..1000 {
        if call.is_cancelled() {
            SAW_TIMEOUT_CANCEL.store(true, Ordering::SeqCst);
            return "cancelled";
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    "never cancelled"
}

#[test]
fn a_blocking_tool_sees_the_timeout_cancel_its_call() {
    let toolbox = Toolbox::new().with(WaitForCancel);
    let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "wait_for_cancel", json!({})));
    assert!(result.is_error);
    assert!(
        result
            .content
            .starts_with("ERROR: wait_for_cancel failed: it did not finish within 50ms"),
        "{}",
        result.content
    );
    // The worker thread notices on its own time: wait for it, boundedly.
    for _ in 0..1000 {
        if SAW_TIMEOUT_CANCEL.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("the blocking tool never saw its call cancelled");
}

#[test]
fn an_async_tool_awaiting_cancellation_ends_when_the_timeout_fires() {
    // The tool's future hands a clone of its context to a watcher thread, then awaits the
    // cancellation: the toolbox's timeout must cancel it for the watcher to finish.
    let watchers = Arc::new(Mutex::new(Vec::new()));
    let spawned = Arc::clone(&watchers);
    let tool = DynamicTool::from_async_fn_with_context(
        ToolDefinition::new("await_cancel", "Awaits its cancellation.", no_arguments()),
        move |_: Value, call: CallContext| {
            let watched = call.clone();
            spawned.lock().unwrap().push(std::thread::spawn(move || {
                block_on(watched.cancelled());
                SAW_ASYNC_TIMEOUT_CANCEL.store(true, Ordering::SeqCst);
            }));
            async move {
                call.cancelled().await;
                "cancelled"
            }
        },
    );
    let toolbox = Toolbox::new()
        .with_timeout(Duration::from_millis(50))
        .with(tool);
    let result = toolbox.dispatch_blocking(&ToolCall::new("c1", "await_cancel", json!({})));
    assert!(result.is_error);
    assert!(
        result
            .content
            .starts_with("ERROR: await_cancel failed: it did not finish within 50ms"),
        "{}",
        result.content
    );
    for watcher in watchers.lock().unwrap().drain(..) {
        watcher.join().unwrap();
    }
    assert!(SAW_ASYNC_TIMEOUT_CANCEL.load(Ordering::SeqCst));
}

#[test]
fn dropping_an_unfinished_dispatch_cancels_the_call() {
    let seen: Arc<Mutex<Option<CallContext>>> = Arc::default();
    let keep = Arc::clone(&seen);
    let tool = DynamicTool::from_async_fn_with_context(
        ToolDefinition::new("forever", "Never finishes.", no_arguments()),
        move |_: Value, call: CallContext| {
            *keep.lock().unwrap() = Some(call.clone());
            async move {
                call.cancelled().await;
                "cancelled"
            }
        },
    );
    let toolbox = Toolbox::new().with(tool);
    let call = ToolCall::new("c1", "forever", json!({}));
    let mut dispatch = Box::pin(toolbox.dispatch(&call));
    let waker = std::task::Waker::noop();
    assert!(
        dispatch
            .as_mut()
            .poll(&mut std::task::Context::from_waker(waker))
            .is_pending()
    );
    let context = seen.lock().unwrap().clone().expect("the tool ran");
    assert!(!context.is_cancelled());
    drop(dispatch);
    assert!(context.is_cancelled());
}

/// What an effect-key tool read: its call id, the key its context gives, the key
/// `skyl::agent::effect_key` gives.
type KeysRead = (String, Option<String>, Option<String>);

/// What the effect-key tools read.
static KEYS: Mutex<Vec<KeysRead>> = Mutex::new(Vec::new());

/// Charges a card (synchronously).
#[skyl::tool(idempotent = false)]
fn charge(#[context] call: CallContext) -> &'static str {
    KEYS.lock().unwrap().push((
        call.call_id().to_owned(),
        call.effect_key().map(str::to_owned),
        skyl::agent::effect_key(),
    ));
    "charged"
}

/// Charges a card on another thread.
#[skyl::tool(blocking, idempotent = false)]
fn charge_blocking(#[context] call: CallContext) -> &'static str {
    KEYS.lock().unwrap().push((
        call.call_id().to_owned(),
        call.effect_key().map(str::to_owned),
        skyl::agent::effect_key(),
    ));
    "charged"
}

#[test]
fn the_context_gives_the_effect_key_of_a_journaled_run_blocking_tools_included() {
    let dir = std::env::temp_dir().join(format!("skyl-call-context-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let journal = SqliteJournal::open(dir.join("journal.db")).unwrap();
    let model = ScriptedModel::new()
        .reply_calls([
            ToolCall::new("k1", "charge", json!({})),
            ToolCall::new("k2", "charge_blocking", json!({})),
        ])
        .reply_text("done");
    let agent = Agent::new(model, Toolbox::new().with(Charge).with(ChargeBlocking), "m");
    agent
        .run(vec![Message::user("charge twice")])
        .journaled(&journal, "run-7")
        .blocking()
        .unwrap();
    let mut keys = KEYS.lock().unwrap().clone();
    keys.sort();
    assert_eq!(
        keys,
        [
            (
                "k1".to_owned(),
                Some("run-7/1/k1".to_owned()),
                Some("run-7/1/k1".to_owned())
            ),
            (
                "k2".to_owned(),
                Some("run-7/1/k2".to_owned()),
                Some("run-7/1/k2".to_owned())
            ),
        ]
    );
    drop(journal);
    let _ = std::fs::remove_dir_all(&dir);
}

fn no_arguments() -> Value {
    json!({"type": "object", "properties": {}})
}
