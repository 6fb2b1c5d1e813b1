//! A tool marked as having effects a repeat would double runs once per turn for the same
//! arguments; every other tool runs every call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use skyl::{
    DynamicTool, Message, Part, Role, ToolCall, ToolDefinition, Toolbox, tool::ToolAnnotations,
};

/// A tool that counts its runs and answers with the run's number.
fn counting(name: &str, annotations: ToolAnnotations, runs: &Arc<AtomicUsize>) -> DynamicTool {
    let runs = Arc::clone(runs);
    DynamicTool::from_fn(
        ToolDefinition::new(name, format!("The {name} tool."), json!({
                "type": "object",
                "properties": {"to": {"type": "string"}, "cc": {"type": "string"}, "n": {"type": "number"}},
                "required": ["to"]
            })).with_annotations(annotations),
        move |arguments: Value| {
            let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
            format!("run {run} for {}", arguments["to"])
        },
    )
}

fn hints(
    destructive: Option<bool>,
    idempotent: Option<bool>,
    read_only: Option<bool>,
) -> ToolAnnotations {
    let mut annotations = ToolAnnotations::new();
    annotations.destructive = destructive;
    annotations.idempotent = idempotent;
    annotations.read_only = read_only;
    annotations
}

fn turn(calls: &[(&str, &str, Value)]) -> Message {
    Message {
        role: Role::Assistant,
        parts: calls
            .iter()
            .map(|(id, name, arguments)| {
                Part::ToolCall(ToolCall::new(*id, *name, arguments.clone()))
            })
            .collect(),
    }
}

fn contents(toolbox: &Toolbox, message: &Message) -> Vec<(String, bool)> {
    toolbox
        .answer_blocking(message)
        .tool_results()
        .map(|result| (result.content.clone(), result.is_error))
        .collect()
}

fn refusal(tool: &str, first: &str, returned: &str) -> (String, bool) {
    (
        format!(
            "ERROR: {tool} was not run: this call repeats the call `{first}` of the same turn with the same arguments, and running {tool} twice would repeat its effect. The call `{first}` returned: \"{returned}\". Call {tool} again in a later turn only if the user wants it done twice."
        ),
        true,
    )
}

#[test]
fn a_second_identical_call_to_a_tool_that_is_not_idempotent_is_refused_quoting_the_first() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolbox = Toolbox::new().with(counting(
        "send_email",
        hints(None, Some(false), None),
        &runs,
    ));
    let message = turn(&[
        ("c1", "send_email", json!({"to": "ada", "n": 1})),
        // The same arguments, however they are written.
        (
            "c2",
            "send_email",
            json!({"n": 1.0, "to": "ada", "cc": null}),
        ),
        ("c3", "send_email", json!("{\"to\": \"ada\", \"n\": 1}")),
        // Other arguments are another call.
        ("c4", "send_email", json!({"to": "bob", "n": 1})),
    ]);
    assert_eq!(
        contents(&toolbox, &message),
        [
            ("run 1 for \"ada\"".to_owned(), false),
            refusal("send_email", "c1", "run 1 for \"ada\""),
            refusal("send_email", "c1", "run 1 for \"ada\""),
            ("run 2 for \"bob\"".to_owned(), false),
        ]
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);

    // The next turn may call it again: the rule is per turn.
    let again = turn(&[("c5", "send_email", json!({"to": "ada", "n": 1}))]);
    assert_eq!(
        contents(&toolbox, &again),
        [("run 3 for \"ada\"".to_owned(), false)]
    );
    // And dispatch, which sees one call at a time, runs every call.
    let call = ToolCall::new("c6", "send_email", json!({"to": "ada", "n": 1}));
    assert_eq!(
        toolbox.dispatch_blocking(&call).content,
        "run 4 for \"ada\""
    );
    assert_eq!(
        toolbox.dispatch_blocking(&call).content,
        "run 5 for \"ada\""
    );
}

#[test]
fn which_annotations_refuse_repeats() {
    let cases = [
        ("unsaid", hints(None, None, None), false),
        ("not_idempotent", hints(None, Some(false), None), true),
        ("destructive", hints(Some(true), None, None), true),
        (
            "destructive_idempotent",
            hints(Some(true), Some(true), None),
            false,
        ),
        ("idempotent", hints(None, Some(true), None), false),
        (
            "read_only",
            hints(Some(true), Some(false), Some(true)),
            false,
        ),
    ];
    for (name, annotations, refused) in cases {
        let runs = Arc::new(AtomicUsize::new(0));
        let toolbox = Toolbox::new().with(counting(name, annotations, &runs));
        let message = turn(&[
            ("c1", name, json!({"to": "ada"})),
            ("c2", name, json!({"to": "ada"})),
        ]);
        let results = contents(&toolbox, &message);
        assert_eq!(results[1].1, refused, "{name}: {results:?}");
        assert_eq!(
            runs.load(Ordering::SeqCst),
            if refused { 1 } else { 2 },
            "{name}"
        );
    }
}

#[test]
fn the_refusal_quotes_an_asynchronous_first_result_and_a_failure() {
    let slow = DynamicTool::from_async_fn(
        ToolDefinition::new(
            "pay",
            "Pays an invoice.",
            json!({"type": "object", "properties": {"invoice": {"type": "integer"}}}),
        )
        .with_annotations(hints(None, Some(false), None)),
        |arguments: Value| async move {
            if arguments["invoice"] == 0 {
                Err("there is no invoice 0".to_owned())
            } else {
                Ok(format!("paid invoice {}", arguments["invoice"]))
            }
        },
    );
    let toolbox = Toolbox::new().with(slow);
    let message = turn(&[
        ("a", "pay", json!({"invoice": 7})),
        ("b", "pay", json!({"invoice": 0})),
        ("c", "pay", json!({"invoice": 7})),
        ("d", "pay", json!({"invoice": 0})),
    ]);
    let failure = "ERROR: pay failed: there is no invoice 0. Do not retry; tell the user the result is unavailable.";
    assert_eq!(
        contents(&toolbox, &message),
        [
            ("paid invoice 7".to_owned(), false),
            (failure.to_owned(), true),
            refusal("pay", "a", "paid invoice 7"),
            refusal("pay", "b", failure),
        ]
    );
}

#[test]
fn different_tools_with_the_same_arguments_both_run() {
    let runs = Arc::new(AtomicUsize::new(0));
    let toolbox = Toolbox::new()
        .with(counting(
            "send_email",
            hints(None, Some(false), None),
            &runs,
        ))
        .with(counting("send_sms", hints(None, Some(false), None), &runs));
    let message = turn(&[
        ("c1", "send_email", json!({"to": "ada"})),
        ("c2", "send_sms", json!({"to": "ada"})),
    ]);
    assert!(
        contents(&toolbox, &message)
            .iter()
            .all(|(_, is_error)| !is_error)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}
