//! A tool's error chooses the model's next step without giving up `?`, whatever error type the
//! tool returns; and a panic about the caller's Tokio runtime is not called a bug in the tool.

use std::time::Duration;

use anyhow::Context as _;
use serde_json::json;
use skyl::{
    ToolCall, ToolFailure, Toolbox,
    tool::{Guide, GuidedError},
};

fn run(toolbox: &Toolbox, name: &str, arguments: serde_json::Value) -> String {
    let result = toolbox.dispatch_blocking(&ToolCall::new("c1", name, arguments));
    assert!(result.is_error, "{}", result.content);
    result.content
}

/// Reads a file in the workspace.
#[skyl::tool]
fn read_file(
    /// A path relative to the workspace.
    path: String,
) -> anyhow::Result<String> {
    if path.starts_with('/') {
        return Err(GuidedError::retry_with_other_arguments(format!(
            "{path} is outside the workspace"
        ))
        .with_next_step("Call read_file again with a path relative to the workspace."))
        .context("refused");
    }
    let text = std::fs::read_to_string(&path)
        .ask_user()
        .with_context(|| format!("reading {path}"))?;
    Ok(text)
}

/// Parses a number.
#[skyl::tool]
fn parse_number(text: String) -> Result<u64, Box<dyn std::error::Error + Send + Sync>> {
    Ok(text.trim().parse::<u64>().retry_with_other_arguments()?)
}

/// Parses a number, failing as anyhow always did.
#[skyl::tool]
fn parse_plain(text: String) -> anyhow::Result<u64> {
    Ok(text.parse::<u64>()?)
}

/// Parses a number into a ToolFailure.
#[skyl::tool]
fn parse_strict(text: String) -> Result<u64, ToolFailure> {
    Ok(text.parse::<u64>().ask_user()?)
}

/// Nests one guided error in another.
#[skyl::tool]
fn nested() -> anyhow::Result<()> {
    Err(anyhow::Error::new(GuidedError::ask_user("inner")))
        .context(GuidedError::retry_with_other_arguments("outer"))
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(ReadFile)
        .with(ParseNumber)
        .with(ParsePlain)
        .with(ParseStrict)
        .with(Nested)
}

#[test]
fn guidance_travels_through_anyhow_box_dyn_error_and_tool_failure() {
    let toolbox = toolbox();
    let contents = [
        run(&toolbox, "read_file", json!({"path": "/etc/passwd"})),
        run(&toolbox, "read_file", json!({"path": "no/such/file"})),
        run(&toolbox, "parse_number", json!({"text": "twelve"})),
        run(&toolbox, "parse_plain", json!({"text": "twelve"})),
        run(&toolbox, "parse_strict", json!({"text": "twelve"})),
        run(&toolbox, "nested", json!({})),
    ];
    assert_eq!(
        contents,
        [
            "ERROR: read_file failed: refused: /etc/passwd is outside the workspace. Call read_file again with a path relative to the workspace.",
            "ERROR: read_file failed: reading no/such/file: No such file or directory (os error 2). Ask the user how to proceed before calling read_file again.",
            "ERROR: parse_number failed: invalid digit found in string. Call parse_number again with different arguments.",
            "ERROR: parse_plain failed: invalid digit found in string. Do not retry; tell the user the result is unavailable.",
            "ERROR: parse_strict failed: invalid digit found in string. Ask the user how to proceed before calling parse_strict again.",
            "ERROR: nested failed: outer: inner. Call nested again with different arguments.",
        ]
    );
}

#[test]
fn a_guided_error_written_out_elsewhere_guides_nothing_else() {
    let guided = GuidedError::ask_user("elsewhere");
    assert_eq!(guided.to_string(), "elsewhere");
    let plain = ToolFailure::from("plain");
    assert_eq!(plain.guidance(), skyl::tool::Guidance::DoNotRetry);
    let from_guided = ToolFailure::from(guided);
    assert_eq!(
        (from_guided.message(), from_guided.guidance()),
        ("elsewhere", skyl::tool::Guidance::AskUser)
    );
    assert_eq!(
        ToolFailure::from("after").guidance(),
        skyl::tool::Guidance::DoNotRetry
    );
}

// ---------------------------------------------------------------------------------------------
// Tokio's panics about the caller's runtime

/// Reads the clock of the Tokio runtime it runs in.
#[skyl::tool]
fn runtime_clock() -> String {
    let handle = tokio::runtime::Handle::current();
    format!("{:?}", handle.runtime_flavor())
}

/// Waits a moment on Tokio's timer.
#[skyl::tool]
async fn wait_a_moment() -> &'static str {
    tokio::time::sleep(Duration::from_millis(1)).await;
    "waited"
}

/// Runs its own Tokio runtime.
#[skyl::tool]
fn own_runtime() -> &'static str {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async { "ran" })
}

fn tokio_toolbox() -> Toolbox {
    Toolbox::new()
        .with(RuntimeClock)
        .with(WaitAMoment)
        .with(OwnRuntime)
}

fn current_thread(enable_time: bool) -> tokio::runtime::Runtime {
    let mut builder = tokio::runtime::Builder::new_current_thread();
    if enable_time {
        builder.enable_time();
    }
    builder.build().expect("a runtime")
}

#[test]
fn a_tool_that_needs_a_runtime_called_without_one_blames_the_caller_not_the_tool() {
    let toolbox = tokio_toolbox();
    let outside = "was called outside one; the application must call it from inside a Tokio runtime (with .await), not with dispatch_blocking. This is a problem in how the application runs";
    assert_eq!(
        run(&toolbox, "runtime_clock", json!({})),
        format!(
            "ERROR: runtime_clock failed: it needs a Tokio runtime and {outside} runtime_clock, not in the tool or the call. Do not retry; tell the user the result is unavailable."
        )
    );
    assert_eq!(
        run(&toolbox, "wait_a_moment", json!({})),
        format!(
            "ERROR: wait_a_moment failed: it needs a Tokio runtime and {outside} wait_a_moment, not in the tool or the call. Do not retry; tell the user the result is unavailable."
        )
    );
    // Inside a runtime, as the message says, both work.
    let runtime = current_thread(true);
    let results = runtime.block_on(async {
        [
            toolbox
                .dispatch(&ToolCall::new("c1", "runtime_clock", json!({})))
                .await,
            toolbox
                .dispatch(&ToolCall::new("c2", "wait_a_moment", json!({})))
                .await,
        ]
    });
    assert_eq!(
        results.map(|r| (r.content, r.is_error)),
        [
            ("CurrentThread".to_owned(), false),
            ("waited".to_owned(), false)
        ]
    );
}

#[test]
fn a_runtime_inside_a_runtime_and_a_runtime_without_timers_are_named() {
    let toolbox = tokio_toolbox();
    let nested = current_thread(true).block_on(toolbox.dispatch(&ToolCall::new(
        "c1",
        "own_runtime",
        json!({}),
    )));
    assert_eq!(
        nested.content,
        "ERROR: own_runtime failed: it starts a Tokio runtime of its own and was called from inside one; the application must call it from a thread outside the runtime (for example in tokio::task::spawn_blocking). This is a problem in how the application runs own_runtime, not in the tool or the call. Do not retry; tell the user the result is unavailable."
    );
    assert_eq!(
        toolbox
            .dispatch_blocking(&ToolCall::new("c2", "own_runtime", json!({})))
            .content,
        "ran"
    );
    let untimed = current_thread(false).block_on(toolbox.dispatch(&ToolCall::new(
        "c3",
        "wait_a_moment",
        json!({}),
    )));
    assert_eq!(
        untimed.content,
        "ERROR: wait_a_moment failed: it needs Tokio's timers, and the application's runtime was built without them; the runtime must be built with enable_time or enable_all. This is a problem in how the application runs wait_a_moment, not in the tool or the call. Do not retry; tell the user the result is unavailable."
    );
}
