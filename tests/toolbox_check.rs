//! `skyl::testing::check_toolbox` on toolboxes a user might write: it passes a good one, and
//! catches a tool that refuses values its schema allows, a tool that answers with nothing, and a
//! tool that panics on a value its schema allows, each in a report that names the tool, the
//! arguments and what went wrong.
//!
//! A result that answers another call is out of a tool's reach: a [`Tool`] returns its output
//! or its failure, and the toolbox writes the call id. The harness checks it all the same, as
//! the guarantee a toolbox gives.

use std::collections::HashMap;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skyl::testing::{Case, Dialect, ToolboxCheck, check_toolbox};
use skyl::{DynamicTool, Tool, ToolDefinition, ToolFailure, Toolbox, tool::ToolFuture};

// ---------------------------------------------------------------------------------------------
// A good toolbox: typed tools with defaults, options, nested structs, enums, maps, an
// asynchronous tool, and a tool built at run time from a hand-written schema.

/// An order of results.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Sort {
    #[default]
    Relevance,
    Newest,
}

/// Which results to keep.
#[derive(Debug, Deserialize, JsonSchema)]
struct Filter {
    /// Tags every result carries.
    tags: Vec<String>,
    /// At most this many.
    limit: Option<u8>,
}

/// Searches the archive.
#[skyl::tool]
fn search(
    /// What to look for.
    query: String,
    /// The order.
    #[serde(default)]
    sort: Sort,
    /// Which results to keep.
    filter: Option<Filter>,
    /// Page size.
    #[serde(default)]
    page: u16,
) -> String {
    let (tags, limit) = filter.map_or((0, None), |filter| (filter.tags.len(), filter.limit));
    format!("results for {query:?} {sort:?}, {tags} tags, limit {limit:?}, page {page}")
}

/// Converts an amount.
#[skyl::tool]
fn convert(amount: f64, rates: HashMap<String, f32>, precision: i32) -> Result<String, String> {
    if rates.is_empty() {
        return Err("no rates given".into());
    }
    let digits = precision.clamp(0, 6) as usize;
    Ok(format!("{amount:.digits$} {rates:?}"))
}

/// Waits a moment, then answers.
#[skyl::tool]
async fn ping(times: u8) -> String {
    format!("pong x{times}")
}

fn schedule() -> DynamicTool {
    DynamicTool::from_fn(
        ToolDefinition::new(
            "schedule",
            "Schedules a meeting.",
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 1, "maxLength": 40},
                    "length": {"type": "integer", "minimum": 15, "maximum": 240, "multipleOf": 15},
                    "room": {"enum": ["north", "south"]},
                    "people": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4}
                },
                "required": ["title", "people"],
                "additionalProperties": false
            }),
        ),
        |arguments: Value| format!("scheduled {}", arguments["title"]),
    )
}

fn good_toolbox() -> Toolbox {
    Toolbox::new()
        .with(Search)
        .with(Convert)
        .with(Ping)
        .with(schedule())
}

#[test]
fn a_good_toolbox_passes() {
    check_toolbox(&good_toolbox());
}

#[test]
fn the_report_counts_the_calls_and_says_what_was_not_checked() {
    let toolbox = good_toolbox();
    let report = ToolboxCheck::new(&toolbox).cases(10).seed(7).run();
    assert!(report.passed(), "{report}");
    // Four tools, each with at least the valid cases of three dialects and the edge cases.
    assert!(report.calls > 4 * 4 * 10, "{}", report.calls);
    // A map cannot be said in OpenAI's strict dialect; Gemini's OpenAPI subset has no
    // `multipleOf`, so some of its values for `schedule` are not required to be accepted.
    assert_eq!(report.notes.len(), 1, "{report}");
    assert!(
        report.notes[0].starts_with("convert: not checked in the OpenAI strict dialect"),
        "{report}"
    );
    assert!(report.not_required > 0);
    assert_eq!(
        report.to_string().lines().next(),
        Some(format!("the toolbox passed: {} calls", report.calls).as_str())
    );
}

#[test]
fn the_same_seed_gives_the_same_check() {
    let toolbox = good_toolbox();
    let first = ToolboxCheck::new(&toolbox).cases(5).seed(3).run();
    let again = ToolboxCheck::new(&toolbox).cases(5).seed(3).run();
    assert_eq!(
        (first.calls, first.not_required),
        (again.calls, again.not_required)
    );
}

// ---------------------------------------------------------------------------------------------
// What it catches

/// A hand-written tool whose schema says `count` is an integer, but whose code wants a string.
struct Miscounted(ToolDefinition);

impl<S> Tool<S> for Miscounted {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, arguments: &'a Value, _state: &'a S) -> ToolFuture<'a> {
        ToolFuture::ready(match arguments.get("count").and_then(Value::as_str) {
            Some(count) => Ok(format!("counted {count}")),
            None => Err(ToolFailure::invalid_arguments(
                "the argument `count` must be a string",
            )),
        })
    }
}

/// A tool whose schema asks for an integer `count`.
fn counting(name: &str) -> ToolDefinition {
    ToolDefinition::new(
        name,
        "Counts.",
        json!({
            "type": "object",
            "properties": {"count": {"type": "integer"}},
            "required": ["count"]
        }),
    )
}

fn miscounted() -> Miscounted {
    Miscounted(counting("miscounted"))
}

/// The same mistake in a tool built at run time: the closure reads a type the schema does not
/// describe.
fn mistyped() -> DynamicTool {
    #[derive(Deserialize)]
    struct Wanted {
        count: String,
    }
    DynamicTool::from_fn(counting("mistyped"), |wanted: Wanted| wanted.count)
}

#[test]
fn a_tool_that_refuses_what_its_schema_allows_is_caught_in_every_dialect() {
    let toolbox = Toolbox::new()
        .with(Search)
        .with(miscounted())
        .with(mistyped());
    let report = ToolboxCheck::new(&toolbox).cases(8).run();
    assert!(!report.passed());
    for tool in ["miscounted", "mistyped"] {
        let dialects: Vec<Case> = report
            .failures
            .iter()
            .filter(|failure| failure.tool == tool)
            .map(|failure| failure.case)
            .collect();
        for dialect in [
            Dialect::Canonical,
            Dialect::OpenAiStrict,
            Dialect::GeminiJsonSchema,
            Dialect::GeminiOpenApi,
        ] {
            assert!(dialects.contains(&Case::Valid(dialect)), "{tool} {dialect}");
        }
        assert!(dialects.contains(&Case::Edge), "{tool}");
        // Only valid arguments fail: the hostile ones are refused, as they should be.
        assert!(dialects.iter().all(|case| case.is_valid()), "{report}");
    }
    // The good tool beside them passes.
    assert!(
        report
            .failures
            .iter()
            .all(|failure| failure.tool != "search")
    );

    let failure = &report.failures[0];
    assert_eq!(failure.tool, "miscounted");
    assert_eq!(
        failure.problem,
        "the tool refused arguments its schema allows"
    );
    assert!(failure.arguments["count"].is_i64(), "{}", failure.arguments);
    assert_eq!(
        failure
            .result
            .as_ref()
            .map(|result| result.content.as_str()),
        Some(
            "ERROR: miscounted was called with invalid arguments: the argument `count` must be a string. Call miscounted again with corrected arguments."
        )
    );
    assert_eq!(
        failure.to_string(),
        format!(
            "miscounted (valid arguments, canonical schema): the tool refused arguments its schema allows\n  arguments: {}\n  result: error \"ERROR: miscounted was called with invalid arguments: the argument `count` must be a string. Call miscounted again with corrected arguments.\"",
            failure.arguments
        )
    );
}

#[test]
fn a_failed_check_panics_with_the_report() {
    let toolbox = Toolbox::new().with(miscounted());
    let check = std::panic::AssertUnwindSafe(|| check_toolbox(&toolbox));
    let panic = std::panic::catch_unwind(check).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    let first_lines: Vec<&str> = message.lines().take(3).collect();
    assert!(
        first_lines[0].starts_with("the toolbox failed ") && first_lines[0].ends_with(" calls:"),
        "{message}"
    );
    assert_eq!(first_lines[1], "");
    assert_eq!(
        first_lines[2],
        "miscounted (valid arguments, canonical schema): the tool refused arguments its schema allows"
    );
    assert!(message.contains("more failures"), "{message}");
}

/// A hand-written tool that answers with nothing.
struct Silent(ToolDefinition);

impl<S> Tool<S> for Silent {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, _arguments: &'a Value, _state: &'a S) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(String::new()))
    }
}

#[test]
fn a_result_without_content_is_caught() {
    let silent = Silent(ToolDefinition::new(
        "silent",
        "Does something quietly.",
        json!({"type": "object", "properties": {}}),
    ));
    // Without limits, so that the huge and deeply nested arguments reach the tool too.
    let toolbox = Toolbox::new()
        .with(silent)
        .with_limits(skyl::Limits::none());
    let report = ToolboxCheck::new(&toolbox).cases(3).run();
    assert!(!report.passed());
    // Every call reached the tool except those to unknown names.
    let unknown = 2;
    assert_eq!(report.failures.len(), report.calls - unknown, "{report}");
    assert!(report.failures.iter().all(|failure| failure.problem
        == "the result has no content: a model reads nothing, not even that the call ran; return a short confirmation"));
}

/// Draws the chart of a city's weeks.
#[skyl::tool]
fn chart(city: String, weeks: u8) -> (String, skyl::content::Image) {
    (
        format!("{weeks} weeks in {city}."),
        skyl::content::Image::png(b"\x89PNG\r\n\x1a\n"),
    )
}

/// Takes a screenshot of each of a few pages.
#[skyl::tool]
fn screenshots(pages: Vec<u8>) -> Vec<skyl::content::Image> {
    pages
        .iter()
        .map(|_| skyl::content::Image::png(b"\x89PNG\r\n\x1a\n"))
        .collect()
}

/// Takes one screenshot, with no words.
#[skyl::tool]
fn screenshot() -> skyl::content::Image {
    skyl::content::Image::png(b"\x89PNG\r\n\x1a\n")
}

#[test]
fn a_toolbox_whose_tools_answer_with_images_passes() {
    let toolbox = good_toolbox()
        .with(Chart)
        .with(Screenshots)
        .with(Screenshot);
    let report = ToolboxCheck::new(&toolbox).run();
    assert!(report.passed(), "{report}");
    check_toolbox(&toolbox);
}

/// Takes the first letter of a word, and crashes on an empty one, which its schema allows.
#[skyl::tool]
fn initial(word: String) -> String {
    format!("the word starts with {:?}", word.chars().next().unwrap())
}

#[test]
fn a_tool_that_panics_on_a_valid_value_is_caught() {
    let toolbox = Toolbox::new().with(Initial);
    let report = ToolboxCheck::new(&toolbox).cases(16).run();
    let panics: Vec<_> = report
        .failures
        .iter()
        .filter(|failure| failure.problem == "the tool panicked")
        .collect();
    assert!(!panics.is_empty(), "{report}");
    assert_eq!(panics.len(), report.failures.len(), "{report}");
    for failure in panics {
        // The empty word, as an object or (a hostile case skyl still reads) as JSON text.
        let arguments = match &failure.arguments {
            Value::String(text) => serde_json::from_str(text).unwrap(),
            object => object.clone(),
        };
        assert_eq!(arguments, json!({"word": ""}), "{failure}");
        assert!(failure.case.is_valid() || failure.case == Case::JsonText);
    }
}

/// Sleeps on Tokio's timer, which needs Tokio's runtime.
#[skyl::tool]
async fn nap(millis: u8) -> String {
    tokio::time::sleep(Duration::from_micros(u64::from(millis))).await;
    "rested".into()
}

#[tokio::test]
async fn run_async_checks_tools_that_need_the_callers_runtime() {
    let toolbox = Toolbox::new().with(Nap);
    let report = ToolboxCheck::new(&toolbox).cases(4).run_async().await;
    assert!(report.passed(), "{report}");
    assert!(report.calls > 20);
}

/// The mistake a new user made: a toolbox of real async tools checked with the one-liner, which
/// calls tools without a runtime. Every call of `nap` panics inside Tokio; the check must fail,
/// and say to await `run_async` inside the runtime.
#[test]
fn a_tool_that_needs_tokio_fails_the_blocking_check_and_is_told_to_run_async() {
    let toolbox = Toolbox::new().with(Nap).with(Ping);
    let report = ToolboxCheck::new(&toolbox).cases(4).run();
    assert!(!report.passed(), "{report}");
    let hint = "the tool needs a Tokio runtime and could not run, so the check could not see what it does. Check this toolbox inside the runtime instead: `ToolboxCheck::new(&toolbox).run_async().await` in a #[tokio::test] (check_toolbox and ToolboxCheck::run call tools without a runtime).";
    assert!(!report.failures.is_empty());
    for failure in &report.failures {
        assert_eq!(
            (failure.tool.as_str(), failure.problem.as_str()),
            ("nap", hint)
        );
    }
    // Every call that reached `nap` failed this way; the calls skyl refused never reached it.
    let valid = report
        .failures
        .iter()
        .filter(|failure| failure.case.is_valid())
        .count();
    assert!(valid > 16, "{report}");
    // `nap` was never exercised, and is listed so; `ping` beside it was.
    assert_eq!(report.untested.len(), 1, "{report}");
    let untested = &report.untested[0];
    assert_eq!(untested.tool, "nap");
    assert_eq!(
        untested.problem,
        format!(
            "none of its {valid} calls with valid arguments ran it to an answer of its own: {valid} could not run without the runtime it needs"
        )
    );
    assert_eq!(
        untested.next_step,
        "Check this toolbox inside the runtime instead: `ToolboxCheck::new(&toolbox).run_async().await` in a #[tokio::test] (check_toolbox and ToolboxCheck::run call tools without a runtime)."
    );
    // And the one-liner panics with it, instead of passing.
    let check = std::panic::AssertUnwindSafe(|| check_toolbox(&toolbox));
    let panic = std::panic::catch_unwind(check).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(message.contains(hint), "{message}");
    assert!(
        message.contains("nap (untested): none of its "),
        "{message}"
    );
}

/// A hand-written tool whose schema constrains a string by a `pattern`, which skyl does not
/// generate strings for, and which refuses every string that does not match.
fn ticket() -> DynamicTool {
    DynamicTool::from_fn(
        ToolDefinition::new(
            "ticket",
            "Looks a ticket up.",
            json!({
                "type": "object",
                "properties": {"id": {"type": "string", "pattern": "^T-[0-9]{4}$"}},
                "required": ["id"]
            }),
        ),
        |arguments: Value| -> Result<String, ToolFailure> {
            let id = arguments["id"].as_str().unwrap_or_default();
            let digits = id.strip_prefix("T-").unwrap_or_default();
            if digits.len() == 4 && digits.bytes().all(|b| b.is_ascii_digit()) {
                Ok(format!("ticket {id} is open"))
            } else {
                Err(ToolFailure::invalid_arguments(format!(
                    "`{id}` is not a ticket id like T-0042"
                )))
            }
        },
    )
}

#[test]
fn a_tool_no_valid_call_could_run_fails_the_check_unless_allowed() {
    let toolbox = Toolbox::new().with(ticket()).with(Ping);
    let report = ToolboxCheck::new(&toolbox).cases(4).run();
    // No single call failed: a refusal of a string for a `pattern` is excused...
    assert!(report.failures.is_empty(), "{report}");
    // ...but the tool never ran, which the check says instead of passing.
    assert!(!report.passed());
    assert_eq!(report.untested.len(), 1, "{report}");
    let untested = &report.untested[0];
    assert_eq!(untested.tool, "ticket");
    // Four cases in each of four dialects, and four at the schema's edges.
    assert_eq!(
        untested.problem,
        "none of its 20 calls with valid arguments ran it to an answer of its own: 20 refused as invalid arguments"
    );
    assert_eq!(
        untested.next_step,
        "Its schema has a `pattern`, and skyl does not generate strings for one: test ticket with arguments of your own, and let the check pass it with ToolboxCheck::allow_untested(\"ticket\")."
    );
    assert_eq!(
        report.to_string().lines().next(),
        Some(
            format!(
                "the toolbox failed: 1 of its tools could not be exercised ({} calls)",
                report.calls
            )
            .as_str()
        )
    );

    let allowed = ToolboxCheck::new(&toolbox)
        .cases(4)
        .allow_untested("ticket")
        .run();
    assert!(allowed.passed(), "{allowed}");
    assert_eq!(
        allowed.notes,
        [format!(
            "ticket: not exercised, as allowed: {}",
            untested.problem
        )]
    );
}

/// Never answers.
#[skyl::tool(timeout = "1ms")]
async fn stall(seconds: u8) -> String {
    std::future::pending::<()>().await;
    format!("waited {seconds}s")
}

#[test]
fn a_tool_that_runs_out_of_time_is_not_counted_as_checked() {
    let toolbox = Toolbox::new().with(Stall);
    let report = ToolboxCheck::new(&toolbox).cases(2).run();
    assert!(!report.passed());
    assert!(!report.failures.is_empty());
    for failure in &report.failures {
        assert_eq!(
            failure.problem,
            "the tool did not finish within its time limit, so the check could not see what it does with these arguments",
            "{failure}"
        );
    }
    assert_eq!(report.untested.len(), 1, "{report}");
    assert_eq!(
        report.untested[0].next_step,
        "Give stall a state that answers quickly in tests, or a longer timeout."
    );
}
