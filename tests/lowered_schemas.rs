//! Schema and parser agree in every dialect: every value that a lowered schema allows is
//! accepted by the dispatcher.
//!
//! For a set of tools with defaults, options, nested structs, enums, vectors and maps, each
//! tool's canonical schema is lowered to OpenAI's strict dialect and to both Gemini forms; values
//! generated from each schema (what a model constrained by that schema could send) are then
//! dispatched, and none may come back as an error. The tools only echo their arguments, so any
//! error is a disagreement between a schema and the parser.
//!
//! One kind of disagreement is out of reach: a constraint a dialect cannot express at all is
//! dropped by its lowering (Gemini's OpenAPI subset has no `multipleOf`, no exclusive bounds and
//! no `enum` of numbers), so that dialect allows values the tool must still refuse. The tools
//! here keep to constraints every dialect can say; for the others, the dispatcher's prose names
//! the constraint to the model.

// The argument types are read through `Debug` only, which dead-code analysis does not count.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::LazyLock;

use proptest::prelude::*;
use proptest::test_runner::Config;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use skyl::provider::dialect;
use skyl::testing::Instances;
use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox};

// ---------------------------------------------------------------------------------------------
// The tools

/// An order of results.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Sort {
    #[default]
    Relevance,
    Newest,
    Oldest,
}

/// Which results to keep.
#[derive(Debug, Default, Deserialize, JsonSchema)]
struct Filter {
    /// Only exact matches.
    #[serde(default)]
    exact: bool,
    /// Tags every result carries.
    tags: Vec<String>,
    /// At most this many.
    limit: Option<u8>,
    /// Their order.
    #[serde(default)]
    sort: Sort,
}

/// Where to read from.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Source {
    /// A file in the workspace.
    File {
        path: String,
        #[serde(default)]
        line: u32,
    },
    /// A web page.
    Url {
        url: String,
        #[serde(default = "yes")]
        follow_redirects: bool,
    },
    /// Standard input.
    Stdin,
}

fn yes() -> bool {
    true
}

/// A shape, externally tagged as serde does by default.
#[derive(Debug, Deserialize, JsonSchema)]
enum Shape {
    Circle { radius: f64 },
    Square(f32),
    Dot,
}

/// A record id: a number or a name.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Id {
    Number(u64),
    Name(String),
}

/// Display settings, all optional together.
#[derive(Debug, Default, Deserialize, JsonSchema)]
struct Settings {
    /// Characters per line.
    #[serde(default = "eighty")]
    width: u16,
    /// A separator character.
    separator: Option<char>,
    /// A brightness offset.
    #[serde(default)]
    offset: i8,
    /// Scale factor.
    #[serde(default)]
    scale: f64,
}

fn eighty() -> u16 {
    80
}

/// A nested object that accepts keys it does not declare, as serde's default does.
#[derive(Debug, Deserialize, JsonSchema)]
struct Open {
    /// A count.
    count: Option<u32>,
}

/// A nested object that refuses keys it does not declare.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Closed {
    /// A count.
    count: Option<u32>,
}

fn dot() -> String {
    ".".into()
}

/// Searches the archive.
#[skyl::tool]
fn search(
    /// What to look for.
    query: String,
    /// The order; by relevance when not given.
    #[serde(default)]
    sort: Sort,
    /// The folder to search; the workspace root when not given.
    #[serde(default = "dot")]
    path: String,
    /// At most this many results.
    limit: Option<u32>,
    /// Extra orders to try.
    #[serde(default)]
    orders: Vec<Sort>,
) -> String {
    format!("{query} {sort:?} {path} {limit:?} {orders:?}")
}

/// Filters files.
#[skyl::tool]
fn filter_files(
    /// The main filter.
    filter: Filter,
    /// A second filter.
    also: Option<Filter>,
    /// More filters.
    #[serde(default)]
    more: Vec<Filter>,
    /// Display settings.
    #[serde(default)]
    settings: Settings,
) -> String {
    format!("{filter:?} {also:?} {more:?} {settings:?}")
}

/// Reads a source.
#[skyl::tool]
fn read(
    /// What to read.
    source: Source,
    /// Sources to read next.
    #[serde(default)]
    next: Vec<Source>,
) -> String {
    format!("{source:?} {next:?}")
}

/// Draws shapes.
#[skyl::tool]
fn draw(
    /// The shape.
    shape: Shape,
    /// Record ids to tag it with.
    ids: Option<Vec<Id>>,
    /// Counts per label.
    #[serde(default)]
    counts: HashMap<String, u32>,
) -> String {
    format!("{shape:?} {ids:?} {counts:?}")
}

/// Keeps nested objects, open and closed.
#[skyl::tool]
fn nest(
    /// Accepts unknown keys.
    open: Open,
    /// Refuses unknown keys.
    closed: Closed,
    /// Optionally open.
    maybe: Option<Open>,
) -> String {
    format!("{open:?} {closed:?} {maybe:?}")
}

/// Says the time.
#[skyl::tool]
fn now() -> &'static str {
    "noon"
}

/// A tool built at run time, whose schema is written by hand as a configuration file or another
/// server would give it: the dispatcher checks it with skyl's validator rather than serde.
fn schedule() -> DynamicTool {
    let parameters = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 40},
            "day": {"type": "string", "format": "date"},
            "length": {"type": "integer", "minimum": 15, "maximum": 240, "default": 30},
            "room": {"enum": ["north", "south"]},
            "people": {
                "type": "array",
                "items": {"$ref": "#/$defs/Person"},
                "minItems": 1,
                "maxItems": 4
            },
            "repeat": {
                "oneOf": [
                    {"type": "object", "properties": {"every": {"const": "week"}, "weekday": {"type": "string"}}, "required": ["every"], "additionalProperties": false},
                    {"type": "object", "properties": {"every": {"const": "month"}, "date": {"type": "integer", "minimum": 1, "maximum": 28}}, "required": ["every", "date"], "additionalProperties": false}
                ]
            },
            "priority": {"type": ["number", "null"], "minimum": 0, "maximum": 1}
        },
        "required": ["title", "day", "people"],
        "additionalProperties": false,
        "$defs": {
            "Person": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "optional": {"type": "boolean"}},
                "required": ["name"],
                "additionalProperties": false
            }
        }
    });
    DynamicTool::from_fn(
        ToolDefinition::new("schedule", "Schedules a meeting.", parameters),
        |arguments: Value| arguments,
    )
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(Search)
        .with(FilterFiles)
        .with(Read)
        .with(Draw)
        .with(Nest)
        .with(Now)
        .with(schedule())
}

// ---------------------------------------------------------------------------------------------
// The schemas under test

struct Lowered {
    tool: String,
    dialect: &'static str,
    schema: Value,
}

static TOOLBOX: LazyLock<Toolbox> = LazyLock::new(toolbox);

/// Every tool's schema in every dialect that can express it.
static LOWERED: LazyLock<Vec<Lowered>> = LazyLock::new(|| {
    let mut all = Vec::new();
    for definition in TOOLBOX.definitions() {
        let canonical = &definition.parameters;
        let dialects: [(&'static str, Result<Value, dialect::LoweringError>); 4] = [
            ("canonical", Ok(canonical.clone())),
            ("openai_strict", dialect::openai_strict(canonical)),
            (
                "gemini_json_schema",
                Ok(dialect::gemini_json_schema(canonical)),
            ),
            ("gemini_openapi", dialect::gemini_openapi(canonical)),
        ];
        for (dialect, lowered) in dialects {
            match lowered {
                Ok(schema) => all.push(Lowered {
                    tool: definition.name.clone(),
                    dialect,
                    schema,
                }),
                // A map cannot be strict; the adapter refuses that tool, so no model sends it.
                Err(error) => assert_eq!(
                    (definition.name.as_str(), dialect),
                    ("draw", "openai_strict"),
                    "unexpected lowering error: {error}"
                ),
            }
        }
    }
    all
});

fn dispatch(tool: &str, arguments: Value) -> skyl::ToolResult {
    TOOLBOX.dispatch_blocking(&ToolCall::new("call", tool, arguments))
}

fn config() -> Config {
    Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_value_a_lowered_schema_allows_is_accepted(seed in any::<u64>()) {
        for lowered in LOWERED.iter() {
            for arguments in Instances::new(&lowered.schema, seed).take(4) {
                let result = dispatch(&lowered.tool, arguments.clone());
                prop_assert!(
                    !result.is_error,
                    "{} in {}: {arguments}\n{}",
                    lowered.tool,
                    lowered.dialect,
                    result.content
                );
            }
        }
    }

    #[test]
    fn unknown_keys_are_accepted_where_the_canonical_schema_leaves_an_object_open(seed in any::<u64>()) {
        for lowered in LOWERED.iter().filter(|l| l.dialect == "canonical") {
            for arguments in Instances::new(&lowered.schema, seed).unknown_properties(true).take(4) {
                let result = dispatch(&lowered.tool, arguments.clone());
                prop_assert!(!result.is_error, "{}: {arguments}\n{}", lowered.tool, result.content);
            }
        }
    }
}

#[test]
fn the_strict_instances_do_send_null_for_what_they_leave_out() {
    // Without this the property above could pass without ever meeting the strict-mode nulls.
    let nulls_for_defaults = LOWERED
        .iter()
        .filter(|l| l.dialect == "openai_strict")
        .flat_map(|l| Instances::new(&l.schema, 1).take(20))
        .filter(|arguments| {
            arguments.get("sort") == Some(&Value::Null)
                || arguments.get("settings") == Some(&Value::Null)
                || arguments.pointer("/filter/exact") == Some(&Value::Null)
        })
        .count();
    assert!(nulls_for_defaults > 5, "{nulls_for_defaults}");
}

#[test]
fn null_for_a_defaulted_argument_gives_its_default_at_every_depth() {
    let search = dispatch(
        "search",
        json!({"query": "q", "sort": null, "path": null, "limit": null, "orders": null}),
    );
    assert_eq!(
        (search.is_error, search.content.as_str()),
        (false, "q Relevance . None []")
    );
    let filter = dispatch(
        "filter_files",
        json!({
            "filter": {"exact": null, "tags": [], "limit": null, "sort": null},
            "also": null,
            "more": [{"exact": true, "tags": ["a"], "limit": 2, "sort": null}],
            "settings": {"width": null, "separator": null, "offset": null, "scale": null}
        }),
    );
    assert_eq!(
        filter.content,
        "Filter { exact: false, tags: [], limit: None, sort: Relevance } None \
         [Filter { exact: true, tags: [\"a\"], limit: Some(2), sort: Relevance }] \
         Settings { width: 80, separator: None, offset: 0, scale: 0.0 }"
    );
    let read = dispatch(
        "read",
        json!({"source": {"kind": "url", "url": "https://example.com", "follow_redirects": null}, "next": null}),
    );
    assert_eq!(
        read.content,
        "Url { url: \"https://example.com\", follow_redirects: true } []"
    );
}

#[test]
fn null_for_a_required_argument_is_still_an_error_naming_it() {
    let result = dispatch("search", json!({"query": null}));
    assert_eq!(
        (result.is_error, result.content.as_str()),
        (
            true,
            "ERROR: search was called with invalid arguments: argument `query`: invalid type: null, expected a string. Call search again with corrected arguments."
        )
    );
    let nested = dispatch("filter_files", json!({"filter": {"tags": null}}));
    assert_eq!(
        nested.content,
        "ERROR: filter_files was called with invalid arguments: argument `filter.tags`: invalid type: null, expected a sequence. Call filter_files again with corrected arguments."
    );
}

#[test]
fn unknown_keys_follow_the_nested_type_and_its_schema_says_so() {
    let open = dispatch(
        "nest",
        json!({"open": {"count": 1, "note": "x"}, "closed": {}}),
    );
    assert_eq!(
        (open.is_error, open.content.as_str()),
        (false, "Open { count: Some(1) } Closed { count: None } None")
    );
    let closed = dispatch(
        "nest",
        json!({"open": {}, "closed": {"count": 1, "note": "x"}}),
    );
    assert_eq!(
        closed.content,
        "ERROR: nest was called with invalid arguments: argument `closed.note`: unknown field `note`, expected `count`. Call nest again with corrected arguments."
    );
    let root = dispatch("nest", json!({"open": {}, "closed": {}, "note": "x"}));
    assert_eq!(
        root.content,
        "ERROR: nest was called with invalid arguments: unknown field `note`, expected one of `open`, `closed`, `maybe`. Call nest again with corrected arguments."
    );
    let schema = &TOOLBOX.definitions()[4].parameters;
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(
        schema["$defs"]["Closed"]["additionalProperties"],
        json!(false)
    );
    assert_eq!(schema["$defs"]["Open"].get("additionalProperties"), None);
}

#[test]
fn every_tool_is_checked_in_every_dialect_it_has() {
    let mut covered: Vec<(&str, &str)> = LOWERED
        .iter()
        .map(|l| (l.tool.as_str(), l.dialect))
        .collect();
    covered.sort_unstable();
    covered.dedup();
    // Seven tools in four dialects, less the map that strict mode cannot express.
    assert_eq!(covered.len(), 7 * 4 - 1);
}

#[test]
fn the_toolbox_check_passes_every_shape_of_tool() {
    // The same promise through the harness users run, with its edge and hostile cases too.
    skyl::testing::ToolboxCheck::new(&TOOLBOX)
        .cases(24)
        .run()
        .assert_passed();
}
