//! Tools built at run time keep the promises of `#[tool]` functions.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use skyl::{
    DynamicTool, Message, Part, Role, Tool, ToolCall, ToolDefinition, ToolFailure, ToolResult,
    Toolbox, tool::ToolAnnotations,
};

fn definition(name: &str, parameters: Value) -> ToolDefinition {
    ToolDefinition::new(name, format!("The {name} tool."), parameters)
}

fn book_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "room": {"type": "string", "enum": ["small", "large"]},
            "people": {"type": "integer", "minimum": 1, "maximum": 12},
            "note": {"type": "string"},
            "catering": {
                "type": "object",
                "properties": {"vegan": {"type": "boolean"}, "meals": {"type": "integer"}},
                "required": ["meals"],
                "additionalProperties": false
            }
        },
        "required": ["room", "people"],
        "additionalProperties": false
    })
}

fn dispatch(toolbox: &Toolbox, name: &str, arguments: Value) -> ToolResult {
    toolbox.dispatch_blocking(&ToolCall::new("call_1", name, arguments))
}

#[test]
fn arguments_that_do_not_fit_the_declared_schema_never_reach_the_closure() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&runs);
    let book = DynamicTool::from_fn(definition("book", book_schema()), move |_: Value| {
        counted.fetch_add(1, Ordering::SeqCst);
        "booked"
    });
    let toolbox = Toolbox::new().with(book);
    let cases = [
        (json!({"people": 2}), "missing field `room`"),
        (
            json!({"room": "huge", "people": 2}),
            "argument `room`: unknown variant `huge`, expected `small` or `large`",
        ),
        (
            json!({"room": "small", "people": 40}),
            "argument `people`: invalid value: integer `40`, expected at most 12",
        ),
        (
            json!({"room": "small", "people": "two"}),
            "argument `people`: invalid type: string \"two\", expected an integer",
        ),
        (
            json!({"room": "small", "people": 2, "catering": {"vegan": true}}),
            "argument `catering`: missing field `meals`",
        ),
        (
            json!({"room": "small", "people": 2, "catering": {"meals": 2, "wine": true}}),
            "argument `catering`: unknown field `wine`, expected `vegan` or `meals`",
        ),
        (
            json!({"room": "small", "people": 2, "rooom": 1}),
            "unknown field `rooom`, expected one of `room`, `people`, `note`, `catering`",
        ),
        (
            json!([1]),
            "the arguments must be a JSON object with one key per parameter, but they were an array: [1]",
        ),
    ];
    for (arguments, detail) in cases {
        let result = dispatch(&toolbox, "book", arguments);
        assert_eq!(
            (result.is_error, result.content),
            (
                true,
                format!(
                    "ERROR: book was called with invalid arguments: {detail}. Call book again with corrected arguments."
                )
            )
        );
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    let ok = dispatch(&toolbox, "book", json!({"room": "large", "people": 12}));
    assert_eq!((ok.is_error, ok.content.as_str()), (false, "booked"));
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

// Read through `Debug`, which dead-code analysis does not count.
#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Booking {
    room: String,
    people: u8,
    #[serde(default)]
    note: String,
    catering: Option<Catering>,
}

#[allow(dead_code)]
#[derive(Debug, Deserialize)]
struct Catering {
    #[serde(default)]
    vegan: bool,
    meals: u32,
}

#[test]
fn a_typed_closure_reads_its_type_after_the_schema_check() {
    let book = DynamicTool::from_fn(definition("book", book_schema()), |booking: Booking| {
        format!("{booking:?}")
    });
    let toolbox = Toolbox::new().with(book);
    let result = dispatch(
        &toolbox,
        "book",
        json!({"room": "small", "people": 3, "catering": {"meals": 3}}),
    );
    assert_eq!(
        result.content,
        "Booking { room: \"small\", people: 3, note: \"\", catering: Some(Catering { vegan: false, meals: 3 }) }"
    );
    // A schema looser than the type: the type's own error, with the argument named.
    let loose = DynamicTool::from_fn(
        definition(
            "count",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        ),
        |arguments: Counted| arguments.n,
    );
    let toolbox = Toolbox::new().with(loose);
    assert_eq!(
        dispatch(&toolbox, "count", json!({"n": 300})).content,
        "ERROR: count was called with invalid arguments: argument `n`: invalid value: integer `300`, expected u8. Call count again with corrected arguments."
    );
}

#[derive(Deserialize)]
struct Counted {
    n: u8,
}

#[test]
fn null_where_a_strict_schema_made_an_argument_nullable_means_not_given() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = Arc::clone(&seen);
    let book = DynamicTool::from_fn(
        definition("book", book_schema()),
        move |arguments: Value| {
            record.lock().unwrap().push(arguments);
            "booked"
        },
    );
    let typed = DynamicTool::from_fn(
        definition("book_typed", book_schema()),
        |booking: Booking| format!("{booking:?}"),
    );
    let toolbox = Toolbox::new().with(book).with(typed);
    let strict = json!({
        "room": "small",
        "people": 2,
        "note": null,
        "catering": {"vegan": null, "meals": 1}
    });
    assert_eq!(dispatch(&toolbox, "book", strict.clone()).content, "booked");
    assert_eq!(
        seen.lock().unwrap()[0],
        json!({"room": "small", "people": 2, "catering": {"meals": 1}})
    );
    assert_eq!(
        dispatch(&toolbox, "book_typed", strict).content,
        "Booking { room: \"small\", people: 2, note: \"\", catering: Some(Catering { vegan: false, meals: 1 }) }"
    );
    let required = dispatch(&toolbox, "book", json!({"room": null, "people": 2}));
    assert_eq!(
        required.content,
        "ERROR: book was called with invalid arguments: argument `room`: invalid type: null, expected a string. Call book again with corrected arguments."
    );
}

#[test]
fn an_err_a_failure_and_a_panic_become_results() {
    let toolbox = Toolbox::new()
        .with(DynamicTool::from_fn(
            definition("down", json!({"type": "object"})),
            |_: Value| Err::<String, _>("the service is down"),
        ))
        .with(DynamicTool::from_fn(
            definition("which", json!({"type": "object"})),
            |_: Value| Err::<String, _>(ToolFailure::ask_user("two cities match")),
        ))
        .with(DynamicTool::from_fn(
            definition("crash", json!({"type": "object"})),
            |_: Value| -> String { panic!("the index is out of range") },
        ))
        .with(DynamicTool::from_async_fn(
            definition("crash_later", json!({"type": "object"})),
            |_: Value| async { panic!("the connection dropped") as String },
        ));
    let contents: Vec<String> = ["down", "which", "crash", "crash_later", "down"]
        .into_iter()
        .map(|name| dispatch(&toolbox, name, json!({})).content)
        .collect();
    assert_eq!(
        contents,
        [
            "ERROR: down failed: the service is down. Do not retry; tell the user the result is unavailable.",
            "ERROR: which failed: two cities match. Ask the user how to proceed before calling which again.",
            "ERROR: crash failed: it crashed (the index is out of range). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
            "ERROR: crash_later failed: it crashed (the connection dropped). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
            "ERROR: down failed: the service is down. Do not retry; tell the user the result is unavailable.",
        ]
    );
}

/// A future that finishes once `arrived` counts two, that is once the other call of the turn has
/// been polled too; alone, it gives up after a bounded number of polls.
fn meet(arrived: Arc<AtomicUsize>) -> impl std::future::Future<Output = &'static str> {
    let mut polls = 0;
    std::future::poll_fn(move |cx| {
        if polls == 0 {
            arrived.fetch_add(1, Ordering::SeqCst);
        }
        polls += 1;
        if arrived.load(Ordering::SeqCst) == 2 {
            std::task::Poll::Ready("met")
        } else if polls > 1000 {
            std::task::Poll::Ready("alone")
        } else {
            cx.waker().wake_by_ref();
            std::task::Poll::Pending
        }
    })
}

#[test]
fn async_closures_of_one_turn_run_concurrently() {
    let arrived = Arc::new(AtomicUsize::new(0));
    let tool = DynamicTool::from_async_fn(
        definition("meet", json!({"type": "object"})),
        move |_: Value| meet(Arc::clone(&arrived)),
    );
    let toolbox = Toolbox::new().with(tool);
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::ToolCall(ToolCall::new("a", "meet", json!({}))),
            Part::ToolCall(ToolCall::new("b", "meet", json!({}))),
        ],
    };
    let contents: Vec<String> = toolbox
        .answer_blocking(&turn)
        .tool_results()
        .map(|result| result.content.clone())
        .collect();
    assert_eq!(contents, ["met", "met"]);
}

#[test]
fn an_async_closure_that_never_finishes_times_out() {
    let toolbox = Toolbox::new()
        .with(DynamicTool::from_async_fn(
            definition("wait", json!({"type": "object"})),
            |_: Value| std::future::pending::<String>(),
        ))
        .with_timeout(Duration::from_millis(20));
    assert_eq!(
        dispatch(&toolbox, "wait", json!({})).content,
        "ERROR: wait failed: it did not finish within 20ms and was stopped. Do not retry with the same arguments; tell the user it timed out."
    );
}

#[test]
fn the_definition_is_canonical_and_keeps_its_annotations() {
    let tool = DynamicTool::from_fn(
        ToolDefinition::new("delete_file", "Deletes a file.", json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "DeleteFile",
                "properties": {"path": {"type": "string"}, "retries": {"type": "integer", "format": "uint8"}}
            })).with_annotations(ToolAnnotations::new().with_destructive(true)),
        |_: Value| "deleted",
    );
    let definition = Tool::<()>::definition(&tool).clone();
    assert_eq!(
        definition.parameters,
        json!({
            "properties": {
                "path": {"type": "string"},
                "retries": {"type": "integer", "minimum": 0, "maximum": 255}
            },
            "type": "object",
            "required": []
        })
    );
    assert_eq!(definition.annotations.destructive, Some(true));
    assert_eq!(
        format!("{tool:?}"),
        format!("DynamicTool {{ definition: {definition:?}, .. }}")
    );
    let toolbox = Toolbox::new().with(tool);
    assert_eq!(toolbox.definitions(), [definition]);
}

#[test]
fn a_turn_mixing_typed_and_dynamic_tools_gets_one_result_per_call_in_order() {
    /// Adds one.
    #[skyl::tool]
    fn increment(n: i64) -> i64 {
        n + 1
    }
    let double = DynamicTool::from_async_fn(
        definition(
            "double",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
        ),
        |arguments: Value| async move { arguments["n"].as_i64().unwrap_or_default() * 2 },
    );
    let toolbox = Toolbox::new().with(Increment).with(double);
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::ToolCall(ToolCall::new("a", "double", json!({"n": 4}))),
            Part::ToolCall(ToolCall::new("b", "increment", json!({"n": 4}))),
            Part::ToolCall(ToolCall::new("c", "double", json!({"n": "4"}))),
        ],
    };
    let answer = toolbox.answer_blocking(&turn);
    let results: Vec<(&str, &str, bool)> = answer
        .tool_results()
        .map(|r| (r.call_id.as_str(), r.content.as_str(), r.is_error))
        .collect();
    assert_eq!(
        results,
        [
            ("a", "8", false),
            ("b", "5", false),
            (
                "c",
                "ERROR: double was called with invalid arguments: argument `n`: invalid type: string \"4\", expected an integer. Call double again with corrected arguments.",
                true
            ),
        ]
    );
}
