//! The toolbox's limits: what a model or a tool can make it do. Outputs are cut with a note (JSON
//! where a value ends), arguments past their size or depth are refused unread, and `answer` runs
//! at most so many calls at a time, still answering each in call order. The agent loop, which
//! dispatches through the toolbox, keeps them too.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::support::YieldTimes;
use serde_json::{Value, json};
use skyl::agent::Agent;
use skyl::testing::ScriptedModel;
use skyl::{
    DynamicTool, Json, Limits, Message, Part, Role, ToolCall, ToolDefinition, ToolResult, Toolbox,
    tool::ToolAnnotations,
};

// ---------------------------------------------------------------------------------------------
// Tools

/// Says `text` back.
#[skyl::tool]
fn echo(
    /// What to say.
    text: String,
) -> String {
    text
}

#[derive(serde::Serialize)]
struct Page {
    rows: Vec<Row>,
    total: u32,
}

#[derive(serde::Serialize)]
struct Row {
    id: u32,
    name: String,
}

/// Lists `count` rows.
#[skyl::tool]
fn list_rows(
    /// How many rows.
    count: u32,
) -> Json<Page> {
    Json(Page {
        rows: (1..=count)
            .map(|id| Row {
                id,
                name: format!("row {id}"),
            })
            .collect(),
        total: count,
    })
}

/// Says `text` back as pretty-printed JSON.
#[skyl::tool]
fn pretty(
    /// What to say.
    text: String,
) -> String {
    serde_json::to_string_pretty(&json!({"text": text})).unwrap()
}

/// Fails with `message`.
#[skyl::tool]
fn fail(
    /// Why.
    message: String,
) -> Result<String, String> {
    Err(message)
}

/// Crashes with `message`.
#[skyl::tool]
fn crash(
    /// Why.
    message: String,
) -> String {
    panic!("{message}")
}

/// Counts its runs.
#[skyl::tool]
fn count(
    #[state] runs: &AtomicUsize,
    /// Anything.
    value: Value,
) -> usize {
    // The value is read only to show that the arguments reached the tool.
    let _ = value;
    runs.fetch_add(1, Ordering::SeqCst) + 1
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

fn turn(calls: Vec<ToolCall>) -> Message {
    Message {
        role: Role::Assistant,
        parts: calls.into_iter().map(Part::ToolCall).collect(),
    }
}

fn results(message: &Message) -> Vec<ToolResult> {
    message.tool_results().cloned().collect()
}

fn output_limited(bytes: usize) -> Toolbox {
    Toolbox::new()
        .with(Echo)
        .with(ListRows)
        .with(Pretty)
        .with(Fail)
        .with(Crash)
        .with_limits(Limits::default().with_max_output_bytes(bytes))
}

// ---------------------------------------------------------------------------------------------
// Outputs

#[test]
fn the_defaults_are_documented() {
    let limits = Limits::default();
    assert_eq!(
        (
            limits.max_output_bytes(),
            limits.max_argument_bytes(),
            limits.max_argument_depth(),
            limits.max_concurrent_calls()
        ),
        (102_400, 1_048_576, 64, None)
    );
    assert_eq!(Toolbox::new().limits(), &limits);
}

#[test]
fn text_past_the_limit_is_cut_on_a_character_boundary_with_a_note() {
    let result = output_limited(5).dispatch_blocking(&call("c1", "echo", json!({"text": "ééééé"})));
    assert_eq!(
        result,
        ToolResult::success(
            "c1",
            "éé\n\n[The output of echo was cut: only its first 4 of 10 bytes are shown. If you need the rest, call echo again with arguments that select less.]"
        )
    );
    // At the limit, nothing changes.
    let whole = output_limited(10).dispatch_blocking(&call("c2", "echo", json!({"text": "ééééé"})));
    assert_eq!(whole, ToolResult::success("c2", "ééééé"));
}

#[test]
fn a_cut_never_leaves_a_result_empty() {
    let result = output_limited(0).dispatch_blocking(&call("c1", "echo", json!({"text": "hello"})));
    assert_eq!(
        result,
        ToolResult::success(
            "c1",
            "[The output of echo was cut: only its first 0 of 5 bytes are shown. If you need the rest, call echo again with arguments that select less.]"
        )
    );
}

#[test]
fn json_is_cut_where_a_value_ends_and_stays_json() {
    let result =
        output_limited(60).dispatch_blocking(&call("c1", "list_rows", json!({"count": 5})));
    let (kept, note) = result
        .content
        .split_once("\n\n")
        .expect("JSON, then the note");
    assert_eq!(
        serde_json::from_str::<Value>(kept).expect("the kept part is JSON"),
        json!({"rows": [{"id": 1, "name": "row 1"}, {"id": 2, "name": "row 2"}]})
    );
    assert_eq!(
        note,
        "[The output of list_rows was cut from 140 to 58 bytes where a value ends, so it is still valid JSON; left out at the end: 3 array items and 1 object member. If you need the rest, call list_rows again with arguments that select less.]"
    );
    assert!(!result.is_error);
}

#[test]
fn a_long_string_inside_json_is_cut_inside() {
    let toolbox = output_limited(24).with(DynamicTool::from_fn(
        ToolDefinition::new("read_log", "Reads the log.", json!({"type": "object"})),
        |_: Value| json!({"log": "line one\nline two\nline three"}),
    ));
    let result = toolbox.dispatch_blocking(&call("c1", "read_log", json!({})));
    assert_eq!(
        result.content,
        "{\"log\":\"line one\\nline\"}\n\n[The output of read_log was cut from 40 to 24 bytes where a value ends, so it is still valid JSON; left out at the end: the end of 1 string. If you need the rest, call read_log again with arguments that select less.]"
    );
}

#[test]
fn json_that_fits_once_compact_loses_only_its_layout() {
    let text = "a".repeat(20);
    let pretty = serde_json::to_string_pretty(&json!({"text": text})).unwrap();
    let compact = json!({"text": text}).to_string();
    assert!(pretty.len() > 32 && compact.len() <= 32);
    let result = output_limited(32).dispatch_blocking(&call("c1", "pretty", json!({"text": text})));
    assert_eq!(result, ToolResult::success("c1", compact));
}

#[test]
fn a_long_failure_is_cut_inside_its_sentence_so_the_next_step_stays() {
    let message = "x".repeat(50);
    let result =
        output_limited(20).dispatch_blocking(&call("c1", "fail", json!({"message": message})));
    assert_eq!(
        result,
        ToolResult::error(
            "c1",
            "ERROR: fail failed: xxxxxxxxxxxxxxxxxxxx... (cut to its first 20 of 50 bytes). Do not retry; tell the user the result is unavailable."
        )
    );
}

#[test]
fn a_long_panic_message_is_cut_inside_its_sentence() {
    let message = "y".repeat(50);
    let result =
        output_limited(20).dispatch_blocking(&call("c1", "crash", json!({"message": message})));
    assert_eq!(
        result,
        ToolResult::error(
            "c1",
            "ERROR: crash failed: it crashed (yyyyyyyyyyyyyyyyyyyy... (cut to its first 20 of 50 bytes)). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable."
        )
    );
}

#[test]
fn a_huge_unknown_name_is_not_repeated_in_full() {
    let name = "x".repeat(1000);
    let result = output_limited(100).dispatch_blocking(&call("c1", &name, json!({})));
    assert_eq!(
        result,
        ToolResult::error(
            "c1",
            format!(
                "ERROR: there is no tool named \"{}... (cut to its first 256 of 1000 bytes)\". The available tools are: crash, echo, fail, list_rows, pretty. Call one of them by its exact name.",
                "x".repeat(256)
            )
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Arguments

fn counting(limits: Limits) -> Toolbox<AtomicUsize> {
    Toolbox::with_state(AtomicUsize::new(0))
        .with(Count)
        .with_limits(limits)
}

#[test]
fn arguments_larger_than_the_limit_are_refused_unread() {
    let arguments = json!({"value": "abc"});
    let size = arguments.to_string().len();
    let at_limit = counting(Limits::default().with_max_argument_bytes(size));
    assert_eq!(
        at_limit.dispatch_blocking(&call("c1", "count", arguments.clone())),
        ToolResult::success("c1", "1")
    );
    let below = counting(Limits::default().with_max_argument_bytes(size - 1));
    assert_eq!(
        below.dispatch_blocking(&call("c2", "count", arguments)),
        ToolResult::error(
            "c2",
            format!(
                "ERROR: count was not run: its arguments are larger than {} bytes, the most this application accepts. Call count again with smaller arguments; split a large input over several calls.",
                size - 1
            )
        )
    );
    assert_eq!(
        below.state().load(Ordering::SeqCst),
        0,
        "the tool never ran"
    );
}

#[test]
fn the_default_refuses_a_megabyte_of_arguments() {
    let toolbox = counting(Limits::default());
    let huge = json!({"value": "z".repeat(1024 * 1024)});
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "count", huge)),
        ToolResult::error(
            "c1",
            "ERROR: count was not run: its arguments are larger than 1048576 bytes, the most this application accepts. Call count again with smaller arguments; split a large input over several calls."
        )
    );
    assert_eq!(toolbox.state().load(Ordering::SeqCst), 0);
}

#[test]
fn arguments_nested_deeper_than_the_limit_are_refused_unread() {
    let arguments = json!({"value": [[1]]});
    let at_limit = counting(Limits::default().with_max_argument_depth(3));
    assert_eq!(
        at_limit.dispatch_blocking(&call("c1", "count", arguments.clone())),
        ToolResult::success("c1", "1")
    );
    let below = counting(Limits::default().with_max_argument_depth(2));
    let refusal = ToolResult::error(
        "c2",
        "ERROR: count was not run: its arguments are nested more than 2 levels deep, the most this application accepts. Call count again with flatter arguments.",
    );
    assert_eq!(
        below.dispatch_blocking(&call("c2", "count", arguments)),
        refusal
    );
    // The same arguments sent as a string of JSON.
    assert_eq!(
        below.dispatch_blocking(&call("c2", "count", json!("{\"value\": [[1]]}"))),
        refusal
    );
    assert_eq!(below.state().load(Ordering::SeqCst), 0);
}

#[test]
fn answer_refuses_oversized_calls_before_it_compares_them_as_repeats() {
    let send = DynamicTool::from_fn(
        ToolDefinition::new(
            "send",
            "Sends a message.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        )
        .with_annotations(ToolAnnotations::new().with_idempotent(false)),
        |_: Value| "sent",
    );
    let toolbox = Toolbox::new()
        .with(send)
        .with_limits(Limits::default().with_max_argument_bytes(16));
    let big = json!({"text": "a long message"});
    let answer = toolbox.answer_blocking(&turn(vec![
        call("c1", "send", big.clone()),
        call("c2", "send", big),
        call("c3", "send", json!({"text": "hi"})),
    ]));
    let refusal = |id: &str| {
        ToolResult::error(
            id,
            "ERROR: send was not run: its arguments are larger than 16 bytes, the most this application accepts. Call send again with smaller arguments; split a large input over several calls.",
        )
    };
    assert_eq!(
        results(&answer),
        [
            refusal("c1"),
            refusal("c2"),
            ToolResult::success("c3", "sent")
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Concurrency

/// What the calls of a turn did, in the order they did it, and how many ran at once at most.
#[derive(Default)]
struct Gauge {
    running: AtomicUsize,
    most: AtomicUsize,
    log: Mutex<Vec<String>>,
}

impl Gauge {
    fn note(&self, line: String) {
        self.log.lock().unwrap().push(line);
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

/// Holds a place for a few polls.
#[skyl::tool]
async fn hold(
    #[state] gauge: &Gauge,
    /// A name for the call.
    label: String,
) -> String {
    let now = gauge.running.fetch_add(1, Ordering::SeqCst) + 1;
    gauge.most.fetch_max(now, Ordering::SeqCst);
    gauge.note(format!("enter {label}"));
    YieldTimes(3).await;
    gauge.note(format!("leave {label}"));
    gauge.running.fetch_sub(1, Ordering::SeqCst);
    label
}

/// Writes a line at once.
#[skyl::tool]
fn jot(
    #[state] gauge: &Gauge,
    /// A name for the call.
    label: String,
) -> String {
    gauge.note(format!("jot {label}"));
    label
}

fn gauged(limits: Limits) -> Toolbox<Gauge> {
    Toolbox::with_state(Gauge::default())
        .with(Hold)
        .with(Jot)
        .with_limits(limits)
}

fn three_holds() -> Message {
    turn(vec![
        call("a", "hold", json!({"label": "a"})),
        call("b", "hold", json!({"label": "b"})),
        call("c", "hold", json!({"label": "c"})),
    ])
}

fn in_order(ids: &[&str]) -> Vec<ToolResult> {
    ids.iter().map(|id| ToolResult::success(*id, *id)).collect()
}

#[test]
fn unbounded_answer_runs_every_call_at_once() {
    let toolbox = gauged(Limits::default());
    let answer = toolbox.answer_blocking(&three_holds());
    assert_eq!(results(&answer), in_order(&["a", "b", "c"]));
    assert_eq!(toolbox.state().most.load(Ordering::SeqCst), 3);
    assert_eq!(
        toolbox.state().log(),
        [
            "enter a", "enter b", "enter c", "leave a", "leave b", "leave c"
        ]
    );
}

#[test]
fn a_concurrency_limit_holds_calls_back_in_call_order() {
    let toolbox = gauged(Limits::default().with_max_concurrent_calls(2));
    let answer = toolbox.answer_blocking(&three_holds());
    assert_eq!(results(&answer), in_order(&["a", "b", "c"]));
    assert_eq!(toolbox.state().most.load(Ordering::SeqCst), 2);
    assert_eq!(
        toolbox.state().log(),
        [
            "enter a", "enter b", "leave a", "leave b", "enter c", "leave c"
        ]
    );
}

#[test]
fn one_at_a_time_runs_a_turn_in_sequence_synchronous_calls_included() {
    let toolbox = gauged(Limits::default().with_max_concurrent_calls(1));
    let answer = toolbox.answer_blocking(&turn(vec![
        call("a", "hold", json!({"label": "a"})),
        call("b", "jot", json!({"label": "b"})),
        call("c", "hold", json!({"label": "c"})),
        call("d", "nope", json!({})),
    ]));
    let mut expected = in_order(&["a", "b", "c"]);
    expected.push(ToolResult::error(
        "d",
        "ERROR: there is no tool named \"nope\". The available tools are: hold, jot. Call one of them by its exact name.",
    ));
    assert_eq!(results(&answer), expected);
    assert_eq!(
        toolbox.state().log(),
        ["enter a", "leave a", "jot b", "enter c", "leave c"]
    );
}

#[test]
#[should_panic(expected = "Limits::with_max_concurrent_calls: 0 would never run a call")]
fn a_concurrency_limit_of_zero_is_refused() {
    let _ = Limits::default().with_max_concurrent_calls(0);
}

// ---------------------------------------------------------------------------------------------
// The agent loop dispatches through the toolbox, and keeps its limits.

#[test]
fn an_agent_step_keeps_the_toolboxs_limits() {
    let toolbox = Toolbox::with_state(Gauge::default())
        .with(Hold)
        .with(Jot)
        .with_limits(
            Limits::default()
                .with_max_concurrent_calls(1)
                .with_max_output_bytes(3),
        );
    let model = ScriptedModel::new()
        .reply_calls([
            call("a", "hold", json!({"label": "first"})),
            call("b", "hold", json!({"label": "two"})),
        ])
        .reply_text("Done.");
    let agent = Agent::new(model, toolbox, "any-model");
    let run = agent.run(vec![Message::user("Go")]).blocking().unwrap();
    assert_eq!(
        run.transcript()[2],
        Message {
            role: Role::Tool,
            parts: vec![
                Part::ToolResult(ToolResult::success(
                    "a",
                    "fir\n\n[The output of hold was cut: only its first 3 of 5 bytes are shown. If you need the rest, call hold again with arguments that select less.]"
                )),
                Part::ToolResult(ToolResult::success("b", "two")),
            ]
        }
    );
    assert_eq!(
        agent.toolbox().state().log(),
        ["enter first", "leave first", "enter two", "leave two"]
    );
}

// ---------------------------------------------------------------------------------------------
// The argument bounds, against a plain reading of what they say

/// What the size bound measures: the arguments as compact JSON, each string counted unescaped.
fn measured_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => number.to_string().len(),
        Value::String(text) => text.len() + 2,
        Value::Array(items) => {
            2 + items.len().saturating_sub(1) + items.iter().map(measured_size).sum::<usize>()
        }
        Value::Object(members) => {
            2 + members.len().saturating_sub(1)
                + members
                    .iter()
                    .map(|(key, item)| key.len() + 3 + measured_size(item))
                    .sum::<usize>()
        }
    }
}

/// How deep the arguments nest arrays and objects (`{}` is one level).
fn measured_depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(measured_depth).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(measured_depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn any_value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..5).prop_map(|members| {
                Value::Object(members.into_iter().collect::<serde_json::Map<_, _>>())
            }),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(512))]

    /// Flat arguments are measured in place and nested ones by a walk: both refuse a call
    /// exactly when its arguments are past a bound, at every bound around their own size and
    /// depth.
    #[test]
    fn a_call_is_refused_exactly_when_its_arguments_are_past_a_bound(
        value in any_value(),
        members in proptest::collection::vec(("[a-z\"]{0,4}", any_value()), 0..5),
        wrapped in proptest::bool::ANY,
        size_delta in -3_isize..=3,
        depth_delta in -2_isize..=1,
    ) {
        // Either the tool's own shape, which it runs on, or any object of several members.
        let arguments = if wrapped {
            json!({"value": value})
        } else {
            Value::Object(members.into_iter().collect())
        };
        let size = measured_size(&arguments);
        let depth = measured_depth(&arguments);
        let max_bytes = size.saturating_add_signed(size_delta);
        let max_depth = depth.saturating_add_signed(depth_delta);
        let toolbox = counting(
            Limits::default()
                .with_max_argument_bytes(max_bytes)
                .with_max_argument_depth(max_depth),
        );
        let result = toolbox.dispatch_blocking(&call("c1", "count", arguments));
        let refused = result.is_error && result.content.starts_with("ERROR: count was not run:");
        proptest::prop_assert_eq!(
            refused,
            size > max_bytes || depth > max_depth,
            "size {} of at most {}, depth {} of at most {}: {}",
            size, max_bytes, depth, max_depth, result.content
        );
        let runs = toolbox.state().load(Ordering::SeqCst);
        if refused {
            proptest::prop_assert_eq!(runs, 0);
        } else if wrapped {
            proptest::prop_assert_eq!(runs, 1);
        }
    }
}
