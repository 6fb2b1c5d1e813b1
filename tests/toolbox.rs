//! The Toolbox's promise: every call gets exactly one result, whatever the call or the tool does.
//!
//! These tools are written by hand against the `Tool` trait so that the dispatcher is tested on its
//! own; `macro_tool.rs` tests tools made by `#[tool]`.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use crate::support::YieldTimes;
use serde_json::{Value, json};
use skyl::{
    Message, Part, Role, Tool, ToolCall, ToolDefinition, ToolFailure, ToolResult, Toolbox,
    tool::{FromRef, ToolFuture, ToolOutcome},
};

/// A tool made from a closure, for tests.
struct FnTool<F> {
    definition: ToolDefinition,
    run: F,
}

fn tool<S, F>(name: &str, run: F) -> FnTool<F>
where
    F: for<'a> Fn(&'a Value, &'a S) -> ToolFuture<'a> + Send + Sync + 'static,
{
    FnTool {
        definition: ToolDefinition::new(
            name,
            format!("The {name} tool."),
            json!({"type": "object", "properties": {}, "required": []}),
        ),
        run,
    }
}

impl<S, F> Tool<S> for FnTool<F>
where
    F: for<'a> Fn(&'a Value, &'a S) -> ToolFuture<'a> + Send + Sync + 'static,
{
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: &'a Value, state: &'a S) -> ToolFuture<'a> {
        (self.run)(arguments, state)
    }
}

fn ready(outcome: ToolOutcome) -> ToolFuture<'static> {
    ToolFuture::ready(outcome)
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

fn assistant(calls: Vec<ToolCall>) -> Message {
    Message {
        role: Role::Assistant,
        parts: calls.into_iter().map(Part::ToolCall).collect(),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CityArgs {
    city: String,
}

fn weather<S>() -> impl Tool<S> {
    tool("get_weather", |arguments: &Value, _: &S| {
        ready(
            skyl::__private::parse_arguments::<CityArgs>(arguments, || &Value::Null)
                .map(|args| format!("22C and sunny in {}", args.city)),
        )
    })
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(weather())
        .with(tool("search", |_: &Value, _: &()| {
            ready(Ok("found".into()))
        }))
        .with(tool("fail", |_: &Value, _: &()| {
            ready(Err(ToolFailure::from("the database is down")))
        }))
        .with(tool("panic", |_: &Value, _: &()| {
            panic!("index out of bounds: the len is 0")
        }))
        .with(tool("async_panic", |_: &Value, _: &()| {
            ToolFuture::new(async {
                YieldTimes(2).await;
                panic!("{}", String::from("lost the connection"))
            })
        }))
}

#[test]
fn a_success_copies_the_call_id_and_the_output() {
    let result =
        toolbox().dispatch_blocking(&call("call_1", "get_weather", json!({"city": "Kampala"})));
    assert_eq!(
        result,
        ToolResult {
            call_id: "call_1".into(),
            content: "22C and sunny in Kampala".into(),
            is_error: false
        }
    );
}

#[test]
fn an_unknown_tool_lists_the_tools_and_suggests_the_nearest() {
    let result = toolbox().dispatch_blocking(&call("c", "get_wether", json!({})));
    assert_eq!(
        result,
        ToolResult::error(
            "c",
            "ERROR: there is no tool named \"get_wether\". Did you mean \"get_weather\"? The available tools are: async_panic, fail, get_weather, panic, search. Call one of them by its exact name."
        )
    );
}

#[test]
fn arguments_that_do_not_fit_say_which_field_and_what_to_do() {
    let toolbox = toolbox();
    let cases = [
        (
            json!({"city": 42}),
            "ERROR: get_weather was called with invalid arguments: argument `city`: invalid type: integer `42`, expected a string. Call get_weather again with corrected arguments.",
        ),
        (
            json!({}),
            "ERROR: get_weather was called with invalid arguments: missing field `city`. Call get_weather again with corrected arguments.",
        ),
        (
            json!("{\"city\": "),
            "ERROR: get_weather was called with invalid arguments: the arguments are not valid JSON (EOF while parsing a value at line 1 column 9); send them as a JSON object. Call get_weather again with corrected arguments.",
        ),
        (
            json!([1]),
            "ERROR: get_weather was called with invalid arguments: the arguments must be a JSON object with one key per parameter, but they were an array: [1]. Call get_weather again with corrected arguments.",
        ),
    ];
    for (arguments, expected) in cases {
        assert_eq!(
            toolbox.dispatch_blocking(&call("c", "get_weather", arguments)),
            ToolResult::error("c", expected)
        );
    }
}

#[test]
fn a_tools_err_is_reported_with_do_not_retry() {
    assert_eq!(
        toolbox().dispatch_blocking(&call("c", "fail", json!({}))),
        ToolResult::error(
            "c",
            "ERROR: fail failed: the database is down. Do not retry; tell the user the result is unavailable."
        )
    );
}

#[test]
fn a_tool_failure_chooses_the_guidance() {
    let toolbox = Toolbox::new()
        .with(tool("retry", |_: &Value, _: &()| {
            ready(Err(ToolFailure::retry_with_other_arguments("no such city")))
        }))
        .with(tool("ask", |_: &Value, _: &()| {
            ready(Err(ToolFailure::ask_user("two cities match")))
        }))
        .with(tool("own", |_: &Value, _: &()| {
            ready(Err(ToolFailure::do_not_retry("rate limited")
                .with_next_step("Wait a minute, then call it once more.")))
        }));
    let content = |name: &str| {
        toolbox
            .dispatch_blocking(&call("c", name, json!({})))
            .content
    };
    assert_eq!(
        content("retry"),
        "ERROR: retry failed: no such city. Call retry again with different arguments."
    );
    assert_eq!(
        content("ask"),
        "ERROR: ask failed: two cities match. Ask the user how to proceed before calling ask again."
    );
    assert_eq!(
        content("own"),
        "ERROR: own failed: rate limited. Wait a minute, then call it once more."
    );
}

/// Calls the tool `name`, which panics: the call's result is `expected`, and the toolbox goes on
/// answering calls.
fn a_panic_becomes_a_result(name: &str, expected: &str) {
    let toolbox = toolbox();
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", name, json!({}))),
        ToolResult::error("c1", expected)
    );
    assert_eq!(
        toolbox
            .dispatch_blocking(&call("c2", "search", json!({})))
            .content,
        "found"
    );
}

#[test]
fn a_panic_in_a_sync_tool_becomes_a_result_and_the_toolbox_stays_usable() {
    a_panic_becomes_a_result(
        "panic",
        "ERROR: panic failed: it crashed (index out of bounds: the len is 0). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
    );
}

#[test]
fn a_panic_while_polling_an_async_tool_becomes_a_result() {
    a_panic_becomes_a_result(
        "async_panic",
        "ERROR: async_panic failed: it crashed (lost the connection). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
    );
}

#[test]
fn a_panic_with_a_payload_that_is_not_text_is_still_reported() {
    let toolbox = Toolbox::new().with(tool("odd", |_: &Value, _: &()| {
        std::panic::panic_any(42_u8)
    }));
    assert_eq!(
        toolbox
            .dispatch_blocking(&call("c", "odd", json!({})))
            .content,
        "ERROR: odd failed: it crashed. This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable."
    );
}

#[test]
fn answer_returns_one_result_per_call_in_call_order() {
    // The slow tool finishes last but its result stays first.
    let toolbox = toolbox().with(tool("slow", |_: &Value, _: &()| {
        ToolFuture::new(async {
            YieldTimes(5).await;
            Ok("slow done".to_owned())
        })
    }));
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::Text("Let me check.".into()),
            Part::ToolCall(call("a", "slow", json!({}))),
            Part::ToolCall(call("b", "get_weather", json!({"city": "Gulu"}))),
            Part::ToolCall(call("c", "nope", json!({}))),
            Part::ToolCall(call("d", "async_panic", json!({}))),
            Part::ToolCall(call("e", "fail", json!({}))),
        ],
    };
    let answer = toolbox.answer_blocking(&turn);
    assert_eq!(answer.role, Role::Tool);
    let summary: Vec<(&str, bool, &str)> = answer
        .tool_results()
        .map(|r| {
            (
                r.call_id.as_str(),
                r.is_error,
                &r.content[..12.min(r.content.len())],
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("a", false, "slow done"),
            ("b", false, "22C and sunn"),
            ("c", true, "ERROR: there"),
            ("d", true, "ERROR: async"),
            ("e", true, "ERROR: fail "),
        ]
    );
    assert_eq!(answer.parts.len(), 5, "only results, no text");
    let mut transcript = vec![Message::user("?"), turn, answer];
    skyl::transcript::validate_complete(&transcript).expect("the answer completes the transcript");
    transcript.push(Message::assistant("done"));
    skyl::transcript::validate_complete(&transcript).expect("and the conversation goes on");
}

#[test]
fn a_message_without_calls_gets_an_empty_tool_message() {
    assert_eq!(
        toolbox().answer_blocking(&Message::assistant("hi")),
        Message {
            role: Role::Tool,
            parts: vec![]
        }
    );
}

/// Two parties that each wait until both have arrived: run one after the other, they never finish.
#[derive(Default)]
struct Rendezvous {
    arrived: AtomicUsize,
    waiting: Mutex<Vec<Waker>>,
}

impl Rendezvous {
    fn meet(&self) -> impl Future<Output = ()> + Send + '_ {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        std::future::poll_fn(move |cx| {
            if self.arrived.load(Ordering::SeqCst) >= 2 {
                self.waiting.lock().unwrap().drain(..).for_each(Waker::wake);
                Poll::Ready(())
            } else {
                self.waiting.lock().unwrap().push(cx.waker().clone());
                Poll::Pending
            }
        })
    }
}

#[test]
fn answer_runs_calls_concurrently() {
    fn ping<'a>(_: &'a Value, meeting: &'a Arc<Rendezvous>) -> ToolFuture<'a> {
        ToolFuture::new(async move {
            meeting.meet().await;
            Ok("met".to_owned())
        })
    }
    let toolbox = Toolbox::with_state(Arc::new(Rendezvous::default()))
        .with(tool("ping", ping))
        .with(tool("pong", ping));
    let answer = toolbox.answer_blocking(&assistant(vec![
        call("1", "ping", json!({})),
        call("2", "pong", json!({})),
    ]));
    let contents: Vec<&str> = answer.tool_results().map(|r| r.content.as_str()).collect();
    assert_eq!(contents, ["met", "met"]);
}

struct Db {
    rows: Vec<&'static str>,
}
struct ApiKey(&'static str);
struct App {
    db: Db,
    key: ApiKey,
}

impl FromRef<App> for Db {
    fn from_ref(app: &App) -> &Db {
        &app.db
    }
}

impl FromRef<App> for ApiKey {
    fn from_ref(app: &App) -> &ApiKey {
        &app.key
    }
}

#[test]
fn tools_take_their_part_of_the_state() {
    let toolbox = Toolbox::with_state(App {
        db: Db {
            rows: vec!["a", "b"],
        },
        key: ApiKey("k-123"),
    })
    .with(tool("count", |_: &Value, app: &App| {
        ready(Ok(Db::from_ref(app).rows.len().to_string()))
    }))
    .with(tool("key", |_: &Value, app: &App| {
        ready(Ok(ApiKey::from_ref(app).0.to_owned()))
    }));
    assert_eq!(
        toolbox
            .dispatch_blocking(&call("1", "count", json!({})))
            .content,
        "2"
    );
    assert_eq!(
        toolbox
            .dispatch_blocking(&call("2", "key", json!({})))
            .content,
        "k-123"
    );
    assert_eq!(toolbox.state().db.rows, ["a", "b"]);
}

#[test]
fn dispatch_works_under_an_executor() {
    let toolbox = toolbox();
    let call = call("c", "async_panic", json!({}));
    let result = poll_to_end(toolbox.dispatch(&call));
    assert!(result.is_error);
    let result =
        poll_to_end(toolbox.answer(&assistant(vec![ToolCall::new("x", "search", json!({}))])));
    assert_eq!(result.tool_results().next().unwrap().content, "found");
}

#[test]
fn a_dispatch_calls_the_tool_on_its_first_poll_and_ends_once() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let toolbox = Toolbox::new().with(tool("slow", move |_: &Value, _: &()| {
        counted.fetch_add(1, Ordering::SeqCst);
        ToolFuture::new(async {
            YieldTimes(2).await;
            Ok("done".to_owned())
        })
    }));
    let call = call("c7", "slow", json!({}));
    let mut dispatch = toolbox.dispatch(&call);
    assert_eq!(
        format!("{dispatch:?}"),
        r#"Dispatch { state: "not started: slow (c7)" }"#
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "built, not yet polled");

    let mut cx = Context::from_waker(Waker::noop());
    let mut dispatch = Pin::new(&mut dispatch);
    assert!(dispatch.as_mut().poll(&mut cx).is_pending());
    assert!(dispatch.as_mut().poll(&mut cx).is_pending());
    assert_eq!(
        format!("{dispatch:?}"),
        r#"Dispatch { state: "running: slow (c7)" }"#
    );
    assert_eq!(
        dispatch.as_mut().poll(&mut cx),
        Poll::Ready(ToolResult::success("c7", "done"))
    );
    assert_eq!(calls.load(Ordering::SeqCst), 1, "one call for three polls");
    assert_eq!(format!("{dispatch:?}"), r#"Dispatch { state: "done" }"#);

    let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = dispatch.as_mut().poll(&mut cx);
    }))
    .expect_err("a dispatch polled after its result panics, as futures do");
    assert_eq!(
        again.downcast_ref::<&str>(),
        Some(&"skyl::Dispatch polled again after it returned its result")
    );
}

/// The simplest executor: poll with a waker that does nothing until the future is ready.
fn poll_to_end<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
    }
}

#[test]
fn a_call_that_runs_too_long_times_out() {
    let toolbox = Toolbox::new()
        .with(tool("hang", |_: &Value, _: &()| {
            ToolFuture::new(std::future::pending())
        }))
        .with_timeout(Duration::from_millis(20));
    assert_eq!(
        toolbox.dispatch_blocking(&call("c", "hang", json!({}))),
        ToolResult::error(
            "c",
            "ERROR: hang failed: it did not finish within 20ms and was stopped. Do not retry with the same arguments; tell the user it timed out."
        )
    );
}

#[test]
fn definitions_and_names_keep_the_order_tools_were_added() {
    let toolbox = toolbox();
    let names: Vec<String> = toolbox
        .definitions()
        .iter()
        .map(|d| d.name.clone())
        .collect();
    assert_eq!(
        names,
        ["get_weather", "search", "fail", "panic", "async_panic"]
    );
    assert_eq!(toolbox.names().collect::<Vec<_>>(), names);
    assert_eq!(
        (toolbox.len(), toolbox.is_empty(), Toolbox::new().is_empty()),
        (5, false, true)
    );
    assert_eq!(
        format!("{:?}", Toolbox::new().with(weather())),
        "Toolbox { tools: [\"get_weather\"], .. }"
    );
}

#[test]
#[should_panic(
    expected = "Toolbox::with: a tool named \"search\" is already in this toolbox; give one of them another name (with #[tool(name = \"...\")] or in its definition), or swap it with Toolbox::replace"
)]
fn adding_two_tools_of_one_name_panics() {
    let _ = toolbox().with(tool("search", |_: &Value, _: &()| ready(Ok(String::new()))));
}

#[test]
fn toolboxes_and_their_futures_can_cross_threads() {
    fn send_and_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let toolbox = Toolbox::with_state(App {
        db: Db { rows: vec![] },
        key: ApiKey("k"),
    });
    send_and_sync(&toolbox);
    let call = call("c", "x", json!({}));
    send(&toolbox.dispatch(&call));
    send(&toolbox.answer(&Message::assistant("hi")));
    let shared = Arc::new(toolbox);
    let worker = Arc::clone(&shared);
    let result =
        std::thread::spawn(move || worker.dispatch_blocking(&ToolCall::new("c", "x", json!({}))))
            .join()
            .unwrap();
    assert!(result.is_error);
}

/// A value whose destructor panics.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("a destructor panicked");
    }
}

/// A hand-written future that finishes at once and panics when it is dropped.
struct ReadyThenBomb(Bomb);

impl Future for ReadyThenBomb {
    type Output = ToolOutcome;

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<ToolOutcome> {
        Poll::Ready(Ok("done".into()))
    }
}

/// A tool whose future waits forever, holding a [`Bomb`].
fn never_finishes_and_panics_when_dropped<'a>(_: &'a Value, _: &'a ()) -> ToolFuture<'a> {
    let bomb = Bomb;
    ToolFuture::new(async move {
        std::future::pending::<()>().await;
        drop(bomb);
        Ok(String::new())
    })
}

const CRASHED: &str = "ERROR: bomb failed: it crashed. This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.";

#[test]
fn a_panic_payload_whose_destructor_panics_is_still_one_result() {
    let toolbox = Toolbox::new()
        .with(tool("bomb", |_: &Value, _: &()| {
            std::panic::panic_any(Bomb)
        }))
        .with(tool("async_bomb", |_: &Value, _: &()| {
            ToolFuture::new(async { std::panic::panic_any(Bomb) })
        }));
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "bomb", json!({}))),
        ToolResult::error("c1", CRASHED)
    );
    let answer = toolbox.answer_blocking(&assistant(vec![
        call("c2", "async_bomb", json!({})),
        call("c3", "bomb", json!({})),
    ]));
    let results: Vec<_> = answer.tool_results().collect();
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|result| result.is_error));
}

#[test]
fn a_tool_future_that_panics_when_dropped_does_not_cost_other_calls_their_results() {
    let toolbox = Toolbox::new()
        .with(tool("bomb", |_: &Value, _: &()| {
            ToolFuture::new(ReadyThenBomb(Bomb))
        }))
        .with(weather());
    let answer = toolbox.answer_blocking(&assistant(vec![
        call("c1", "bomb", json!({})),
        call("c2", "get_weather", json!({"city": "Kampala"})),
    ]));
    let results: Vec<_> = answer.tool_results().collect();
    assert_eq!(
        results
            .iter()
            .map(|r| r.call_id.as_str())
            .collect::<Vec<_>>(),
        ["c1", "c2"]
    );
    assert_eq!(results[0].content, "done");
    assert!(!results[1].is_error);
    assert_eq!(
        toolbox
            .dispatch_blocking(&call("c3", "bomb", json!({})))
            .content,
        "done"
    );
}

#[test]
fn dropping_a_dispatch_before_it_finishes_drops_the_tool_future_quietly() {
    let toolbox = Toolbox::new().with(tool("hold", never_finishes_and_panics_when_dropped));
    let call = call("c", "hold", json!({}));
    let mut dispatch = std::pin::pin!(toolbox.dispatch(&call));
    let mut cx = Context::from_waker(Waker::noop());
    assert!(dispatch.as_mut().poll(&mut cx).is_pending());
    // Dropping the dispatch drops the future, whose `Bomb` panics; the caller does not see it.
}

#[test]
fn a_timed_out_future_that_panics_when_dropped_still_times_out() {
    let toolbox = Toolbox::new()
        .with(tool("hang", never_finishes_and_panics_when_dropped))
        .with_timeout(Duration::from_millis(1));
    let result = toolbox.dispatch_blocking(&call("c", "hang", json!({})));
    assert_eq!(
        result,
        ToolResult::error(
            "c",
            "ERROR: hang failed: it did not finish within 1ms and was stopped. Do not retry with the same arguments; tell the user it timed out."
        )
    );
}

#[test]
fn two_calls_with_one_id_each_get_a_result_in_order() {
    // A model that repeats an id has already broken the transcript (see
    // `transcript::validate_complete`); the toolbox still answers every call it was given.
    let answer = toolbox().answer_blocking(&assistant(vec![
        call("same", "get_weather", json!({"city": "Kampala"})),
        call("same", "nope", json!({})),
    ]));
    let results: Vec<_> = answer.tool_results().collect();
    assert_eq!(results.len(), 2);
    assert!(!results[0].is_error && results[1].is_error);
    assert!(results.iter().all(|result| result.call_id == "same"));
}

#[test]
fn deeply_nested_arguments_sent_as_text_are_refused_not_overflowed() {
    // Some models double-encode the arguments object as a string. The toolbox's depth limit
    // counts the brackets in it and refuses the call unread...
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let call = call("c", "get_weather", Value::String(deep));
    assert_eq!(
        toolbox().dispatch_blocking(&call),
        ToolResult::error(
            "c",
            "ERROR: get_weather was not run: its arguments are nested more than 64 levels deep, the most this application accepts. Call get_weather again with flatter arguments."
        )
    );
    // ...and without limits skyl parses it with serde_json's recursion limit, so a hostile
    // nesting is still an error result, not a stack overflow.
    let result = toolbox()
        .with_limits(skyl::Limits::none())
        .dispatch_blocking(&call);
    assert_eq!(
        result,
        ToolResult::error(
            "c",
            "ERROR: get_weather was called with invalid arguments: the arguments are not valid JSON (recursion limit exceeded at line 1 column 128); send them as a JSON object. Call get_weather again with corrected arguments."
        )
    );
}
