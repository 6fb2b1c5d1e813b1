//! Per-tool settings written in `#[tool(...)]`: `timeout`, `blocking`, the annotations a host reads,
//! and `output_schema`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, ThreadId};
use std::time::Duration;

use serde_json::{Value, json};
use skyl::{
    Json, Message, Part, Role, Tool, ToolCall, ToolResult, Toolbox, tool, tool::ToolAnnotations,
};

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

// ---------------------------------------------------------------------------------------------
// timeout

/// Waits for an answer that never comes.
#[tool(timeout = "30ms")]
async fn wait_briefly() -> String {
    std::future::pending().await
}

/// Waits for an answer that never comes, with the toolbox's patience.
#[tool]
async fn wait_for_the_toolbox() -> String {
    std::future::pending().await
}

#[test]
fn a_tools_timeout_replaces_the_toolboxs_and_the_others_keep_it() {
    let toolbox = Toolbox::new()
        .with(WaitBriefly)
        .with(WaitForTheToolbox)
        .with_timeout(Duration::from_millis(40));
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "wait_briefly", json!({}))),
        ToolResult::error(
            "c1",
            "ERROR: wait_briefly failed: it did not finish within 30ms and was stopped. Do not retry with the same arguments; tell the user it timed out."
        )
    );
    assert_eq!(
        toolbox.dispatch_blocking(&call("c2", "wait_for_the_toolbox", json!({}))),
        ToolResult::error(
            "c2",
            "ERROR: wait_for_the_toolbox failed: it did not finish within 40ms and was stopped. Do not retry with the same arguments; tell the user it timed out."
        )
    );
    assert_eq!(
        Tool::<()>::timeout(&WaitBriefly),
        Some(Duration::from_millis(30))
    );
    assert_eq!(Tool::<()>::timeout(&WaitForTheToolbox), None);
}

#[test]
fn a_tools_timeout_holds_in_a_toolbox_without_one() {
    let toolbox = Toolbox::new().with(WaitBriefly);
    assert!(
        toolbox
            .dispatch_blocking(&call("c", "wait_briefly", json!({})))
            .content
            .contains("did not finish within 30ms")
    );
}

// ---------------------------------------------------------------------------------------------
// blocking

/// Says which thread it ran on.
#[tool(blocking)]
fn which_thread() -> String {
    format!("{:?}", thread::current().id())
}

#[test]
fn a_blocking_tool_runs_off_the_callers_thread() {
    let toolbox = Toolbox::new().with(WhichThread);
    let result = toolbox.dispatch_blocking(&call("c", "which_thread", json!({})));
    assert!(!result.is_error);
    let here: ThreadId = thread::current().id();
    assert_ne!(result.content, format!("{here:?}"));
}

/// The blocking calls that have started, for `gather`.
static GATHERED: Mutex<usize> = Mutex::new(0);
static ARRIVED: Condvar = Condvar::new();

/// Waits (at most ten seconds) until `expected` calls are running at once.
#[tool(blocking)]
fn gather(
    /// How many calls to wait for.
    expected: usize,
) -> bool {
    let mut gathered = GATHERED.lock().unwrap();
    *gathered += 1;
    ARRIVED.notify_all();
    let (gathered, _) = ARRIVED
        .wait_timeout_while(gathered, Duration::from_secs(10), |gathered| {
            *gathered < expected
        })
        .unwrap();
    *gathered >= expected
}

#[test]
fn the_blocking_calls_of_one_turn_run_side_by_side() {
    // Each call waits for all ten: run one after another, the first would give up and say false.
    let toolbox = Toolbox::new().with(Gather);
    let turn = Message {
        role: Role::Assistant,
        parts: (0..10)
            .map(|n| Part::ToolCall(call(&format!("c{n}"), "gather", json!({"expected": 10}))))
            .collect(),
    };
    let answer = toolbox.answer_blocking(&turn);
    let results: Vec<_> = answer.tool_results().collect();
    assert_eq!(results.len(), 10);
    for (n, result) in results.iter().enumerate() {
        assert_eq!(**result, ToolResult::success(format!("c{n}"), "true"));
    }
}

/// Set when the test has its result, so that `stuck` can end.
static RELEASED: AtomicBool = AtomicBool::new(false);

/// Blocks until the test releases it (at most ten seconds).
#[tool(blocking, timeout = "50ms")]
fn stuck() -> &'static str {
    for _ in 0..1000 {
        if RELEASED.load(Ordering::Acquire) {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    "released"
}

#[test]
fn a_blocking_tools_timeout_answers_while_it_is_still_blocked() {
    let toolbox = Toolbox::new().with(Stuck);
    let result = toolbox.dispatch_blocking(&call("c", "stuck", json!({})));
    RELEASED.store(true, Ordering::Release);
    assert_eq!(
        result,
        ToolResult::error(
            "c",
            "ERROR: stuck failed: it did not finish within 50ms and was stopped. Do not retry with the same arguments; tell the user it timed out."
        )
    );
}

/// Reads a file that is not there.
#[tool(blocking)]
fn read_missing(path: &str) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// Fails loudly.
#[tool(blocking)]
fn crash(
    /// What to say.
    words: String,
) -> String {
    panic!("{words}")
}

#[test]
fn a_blocking_tools_err_and_panic_are_results() {
    let toolbox = Toolbox::new().with(ReadMissing).with(Crash);
    let missing = toolbox.dispatch_blocking(&call(
        "c1",
        "read_missing",
        json!({"path": "/no/such/skyl/file"}),
    ));
    assert_eq!(
        missing,
        ToolResult::error(
            "c1",
            "ERROR: read_missing failed: No such file or directory (os error 2). Do not retry; tell the user the result is unavailable."
        )
    );
    let crashed = toolbox.dispatch_blocking(&call("c2", "crash", json!({"words": "out of ink"})));
    assert_eq!(
        crashed,
        ToolResult::error(
            "c2",
            "ERROR: crash failed: it crashed (out of ink). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable."
        )
    );
    let invalid = toolbox.dispatch_blocking(&call("c3", "crash", json!({"words": 7})));
    assert_eq!(
        invalid,
        ToolResult::error(
            "c3",
            "ERROR: crash was called with invalid arguments: argument `words`: invalid type: integer `7`, expected a string. Call crash again with corrected arguments."
        ),
        "the arguments are checked before the tool is sent to another thread"
    );
}

/// A store whose blocking method reaches the instance from another thread.
struct Disk {
    files: Vec<(&'static str, &'static str)>,
    reads: Arc<Mutex<Vec<ThreadId>>>,
}

#[skyl::tools]
impl Disk {
    /// Reads a file from the disk.
    #[tool(blocking)]
    fn read(
        &self,
        /// The file's name.
        name: &str,
    ) -> Option<&'static str> {
        self.reads.lock().unwrap().push(thread::current().id());
        self.files
            .iter()
            .find(|(file, _)| *file == name)
            .map(|(_, text)| *text)
    }
}

#[test]
fn a_blocking_method_reads_its_instance_on_another_thread() {
    let reads = Arc::new(Mutex::new(Vec::new()));
    let toolbox = Toolbox::new().with_set(Disk {
        files: vec![("a.txt", "alpha")],
        reads: Arc::clone(&reads),
    });
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "read", json!({"name": "a.txt"}))),
        ToolResult::success("c1", "alpha")
    );
    assert_eq!(
        toolbox.dispatch_blocking(&call("c2", "read", json!({"name": "b.txt"}))),
        ToolResult::success("c2", "null")
    );
    let reads = reads.lock().unwrap();
    assert_eq!(reads.len(), 2);
    assert!(reads.iter().all(|id| *id != thread::current().id()));
}

// ---------------------------------------------------------------------------------------------
// annotations and output_schema

/// Deletes a file.
#[tool(title = "Delete a file", destructive, idempotent, open_world = false)]
fn delete_file(path: String) -> String {
    path
}

/// Lists the files.
#[tool(read_only, destructive = false)]
fn list_files() -> Vec<String> {
    Vec::new()
}

#[test]
fn annotations_are_carried_on_the_definition() {
    assert_eq!(
        Tool::<()>::definition(&DeleteFile).annotations,
        ToolAnnotations::new()
            .with_title("Delete a file")
            .with_destructive(true)
            .with_idempotent(true)
            .with_open_world(false)
    );
    assert_eq!(
        Tool::<()>::definition(&ListFiles).annotations,
        ToolAnnotations::new()
            .with_read_only(true)
            .with_destructive(false)
    );
    assert_eq!(
        Tool::<()>::definition(&WhichThread).annotations,
        ToolAnnotations::default()
    );
}

/// A forecast.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Forecast {
    /// Degrees Celsius.
    celsius: i8,
    sky: String,
}

/// Gets the forecast.
#[tool(output_schema)]
fn get_forecast() -> Result<Json<Forecast>, std::io::Error> {
    Ok(Json(Forecast {
        celsius: 22,
        sky: "sunny".into(),
    }))
}

#[test]
fn output_schema_states_the_schema_of_a_json_output() {
    assert_eq!(
        serde_json::to_value(Tool::<()>::definition(&GetForecast)).unwrap(),
        json!({
            "name": "get_forecast",
            "description": "Gets the forecast.",
            "parameters": {
                "type": "object",
                "additionalProperties": false,
                "properties": {},
                "required": []
            },
            "outputSchema": {
                "description": "A forecast.",
                "type": "object",
                "properties": {
                    "celsius": {
                        "description": "Degrees Celsius.",
                        "type": "integer",
                        "minimum": -128,
                        "maximum": 127
                    },
                    "sky": {"type": "string"}
                },
                "required": ["celsius", "sky"]
            }
        })
    );
    assert_eq!(Tool::<()>::definition(&ListFiles).output_schema, None);
}
