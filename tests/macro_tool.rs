//! What `#[tool]` generates: the definition a model sees, and calls through `Tool::call`.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use crate::support::block_on;
use serde_json::{Value, json};
use skyl::{
    Json, Tool, ToolFailure, tool,
    tool::{FailureKind, FromRef, Guidance, ToolOutcome},
};

fn call<S, T: Tool<S>>(tool: &T, arguments: Value, state: &S) -> ToolOutcome {
    block_on(tool.call(&arguments, state))
}

fn definition<S, T: Tool<S>>(tool: &T) -> Value {
    serde_json::to_value(tool.definition()).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Definitions

/// Gets the current weather
/// in a city.
///
/// Use it for today only;
/// it has no forecast.
#[tool]
fn get_weather(
    /// The city, e.g. "Kampala".
    city: &str,
    /// Degrees in Celsius (default) or Fahrenheit.
    ///
    /// Say "F" for Fahrenheit.
    unit: Option<String>,
) -> String {
    format!("22 {} in {city}", unit.as_deref().unwrap_or("C"))
}

#[test]
fn docs_paragraphs_parameter_docs_and_option() {
    assert_eq!(
        definition::<(), _>(&GetWeather),
        json!({
            "name": "get_weather",
            "description": "Gets the current weather in a city.\n\nUse it for today only; it has no forecast.",
            "parameters": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "city": {"type": "string", "description": "The city, e.g. \"Kampala\"."},
                    "unit": {
                        "type": ["string", "null"],
                        "description": "Degrees in Celsius (default) or Fahrenheit.\n\nSay \"F\" for Fahrenheit."
                    }
                },
                "required": ["city"]
            }
        })
    );
}

/// How to sort.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Newest first.
    Newest,
    /// Oldest first.
    Oldest,
}

/// A place on earth.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Place {
    /// Latitude in degrees.
    pub lat: f64,
    /// Longitude in degrees.
    pub lon: f64,
}

/// Searches the notes.
///
/// Use it before answering questions about the user's notes. Results come
/// back newest first unless `order` says otherwise.
///
/// ```text
/// search_notes(tags = ["rust"])
/// ```
#[doc = "A line written as an attribute."]
#[tool]
fn search_notes(
    /// Words to look for.
    tags: Vec<String>,
    /// A weight per word.
    weights: std::collections::HashMap<String, f64>,
    /// Sort order.
    order: Order,
    /// Near where.
    near: Place,
    /// Other places, if any.
    others: Option<Vec<Place>>,
    /// Page size.
    #[serde(default)]
    limit: u32,
    #[serde(rename = "q")] query: String,
    /// Sort order, if any.
    then_by: Option<Order>,
) -> String {
    let _ = (tags, weights, order, near, others, limit, query, then_by);
    String::new()
}

#[test]
fn the_schema_of_typical_parameter_types_is_whole_and_lean() {
    assert_eq!(
        definition::<(), _>(&SearchNotes),
        json!({
            "name": "search_notes",
            "description": "Searches the notes.\n\nUse it before answering questions about the user's notes. Results come back newest first unless `order` says otherwise.\n\n```text\nsearch_notes(tags = [\"rust\"])\n```\nA line written as an attribute.",
            "parameters": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}, "description": "Words to look for."},
                    "weights": {
                        "type": "object",
                        "additionalProperties": {"type": "number"},
                        "description": "A weight per word."
                    },
                    "order": {"$ref": "#/$defs/Order", "description": "Sort order."},
                    "near": {"$ref": "#/$defs/Place", "description": "Near where."},
                    "others": {
                        "type": ["array", "null"],
                        "items": {"$ref": "#/$defs/Place"},
                        "description": "Other places, if any."
                    },
                    "limit": {
                        "type": "integer",
                        "default": 0,
                        "minimum": 0,
                        "description": "Page size.",
                        "maximum": 4294967295_u64
                    },
                    "q": {"type": "string"},
                    "then_by": {
                        "anyOf": [{"$ref": "#/$defs/Order"}, {"type": "null"}],
                        "description": "Sort order, if any."
                    }
                },
                "required": ["tags", "weights", "order", "near", "q"],
                "$defs": {
                    "Order": {
                        "oneOf": [
                            {"type": "string", "const": "newest", "description": "Newest first."},
                            {"type": "string", "const": "oldest", "description": "Oldest first."}
                        ],
                        "description": "How to sort."
                    },
                    "Place": {
                        "type": "object",
                        "properties": {
                            "lat": {"type": "number", "description": "Latitude in degrees."},
                            "lon": {"type": "number", "description": "Longitude in degrees."}
                        },
                        "required": ["lat", "lon"],
                        "description": "A place on earth."
                    }
                }
            }
        })
    );
    let arguments = json!({
        "tags": ["a"], "weights": {"a": 1.5}, "order": "oldest", "near": {"lat": 0.0, "lon": 0.0},
        "q": "x"
    });
    assert_eq!(call(&SearchNotes, arguments, &()), Ok(String::new()));
}

#[test]
fn the_function_stays_callable() {
    assert_eq!(get_weather("Oslo", None), "22 C in Oslo");
}

/// Lists files.
#[tool(
    name = "ls",
    description = "Lists the files in a folder, newest first."
)]
pub fn list_files(
    /// The folder.
    #[serde(rename = "dir", alias = "folder")]
    directory: String,
    /// How many to list.
    #[serde(default = "ten")]
    limit: u32,
    /// Include hidden files.
    #[serde(default)]
    all: bool,
) -> Json<Vec<String>> {
    let _ = all;
    Json(vec![format!("{directory}:{limit}")])
}

fn ten() -> u32 {
    10
}

#[test]
fn name_and_description_options_and_serde_attributes() {
    assert_eq!(
        definition::<(), _>(&ListFiles),
        json!({
            "name": "ls",
            "description": "Lists the files in a folder, newest first.",
            "parameters": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "dir": {"type": "string", "description": "The folder."},
                    "limit": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": 4294967295_u64,
                        "default": 10,
                        "description": "How many to list."
                    },
                    "all": {"type": "boolean", "default": false, "description": "Include hidden files."}
                },
                "required": ["dir"]
            }
        })
    );
}

/// Says what time it is.
#[tool]
fn now() -> &'static str {
    "noon"
}

#[test]
fn no_parameters() {
    assert_eq!(
        definition::<(), _>(&Now),
        json!({
            "name": "now",
            "description": "Says what time it is.",
            "parameters": {"type": "object", "additionalProperties": false, "properties": {}, "required": []}
        })
    );
    assert_eq!(call(&Now, Value::Null, &()), Ok("noon".to_owned()));
    assert_eq!(call(&Now, json!({}), &()), Ok("noon".to_owned()));
    let failure = call(&Now, json!({"x": 1}), &()).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::InvalidArguments);
}

// ---------------------------------------------------------------------------------------------
// State

struct Db {
    rows: Vec<&'static str>,
}

struct Config {
    greeting: String,
}

struct App {
    db: Db,
    config: Config,
}

impl FromRef<App> for Db {
    fn from_ref(app: &App) -> &Db {
        &app.db
    }
}

impl FromRef<App> for Config {
    fn from_ref(app: &App) -> &Config {
        &app.config
    }
}

/// Finds a row.
#[tool]
fn find_row(
    /// Row number, from 0.
    index: usize,
    #[state] db: &Db,
) -> Result<String, ToolFailure> {
    db.rows
        .get(index)
        .map(|row| (*row).to_owned())
        .ok_or_else(|| ToolFailure::retry_with_other_arguments(format!("there is no row {index}")))
}

/// Greets someone.
#[tool]
async fn greet(
    /// Who to greet.
    name: &str,
    /// The application settings, not an argument.
    #[state]
    config: &Config,
) -> String {
    format!("{}, {name}!", config.greeting)
}

fn app() -> App {
    App {
        db: Db {
            rows: vec!["zero", "one"],
        },
        config: Config {
            greeting: "Hello".into(),
        },
    }
}

#[test]
fn state_parameters_are_not_in_the_schema() {
    assert_eq!(
        definition::<App, _>(&FindRow)["parameters"],
        json!({
            "type": "object",
                "additionalProperties": false,
            "properties": {"index": {"type": "integer", "minimum": 0, "description": "Row number, from 0."}},
            "required": ["index"]
        })
    );
    assert_eq!(
        definition::<App, _>(&Greet)["parameters"],
        json!({
            "type": "object",
                "additionalProperties": false,
            "properties": {"name": {"type": "string", "description": "Who to greet."}},
            "required": ["name"]
        })
    );
}

#[test]
fn state_comes_from_one_app_state_through_from_ref() {
    let app = app();
    assert_eq!(call(&FindRow, json!({"index": 1}), &app), Ok("one".into()));
    assert_eq!(
        call(&Greet, json!({"name": "Ada"}), &app),
        Ok("Hello, Ada!".into())
    );
    // Each tool also works with exactly the state it needs.
    assert_eq!(
        call(&Greet, json!({"name": "Ada"}), &app.config),
        Ok("Hello, Ada!".into())
    );
}

#[test]
fn tools_with_different_state_needs_share_one_registry() {
    let tools: Vec<Box<dyn Tool<App>>> = vec![
        Box::new(FindRow),
        Box::new(Greet),
        Box::new(Now),
        Box::new(GetWeather),
    ];
    let app = app();
    let names: Vec<&str> = tools.iter().map(|t| t.definition().name.as_str()).collect();
    assert_eq!(names, ["find_row", "greet", "now", "get_weather"]);
    let outputs: Vec<ToolOutcome> = tools
        .iter()
        .map(|t| block_on(t.call(&json!({"index": 0, "name": "Bo", "city": "Rome"}), &app)))
        .collect();
    // Unknown fields are rejected, so only the tool whose arguments fit answers.
    assert!(outputs[0].is_err() && outputs[1].is_err() && outputs[2].is_err());
    assert!(outputs[3].is_err());
    assert_eq!(
        block_on(tools[3].call(&json!({"city": "Rome"}), &app)),
        Ok("22 C in Rome".into())
    );
}

#[test]
fn the_tools_own_failure_keeps_its_guidance() {
    let failure = call(&FindRow, json!({"index": 9}), &app()).unwrap_err();
    assert_eq!(
        failure,
        ToolFailure::retry_with_other_arguments("there is no row 9")
    );
}

// ---------------------------------------------------------------------------------------------
// Calls

#[test]
fn a_sync_tool_answers_on_the_first_poll() {
    let arguments = json!({"city": "Kampala", "unit": "F"});
    let mut future = pin!(Tool::<()>::call(&GetWeather, &arguments, &()));
    assert_eq!(
        future
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop())),
        Poll::Ready(Ok("22 F in Kampala".to_owned()))
    );
}

#[test]
fn an_async_tool_is_polled() {
    let app = app();
    let arguments = json!({"name": "Ada"});
    let future = Tool::<App>::call(&Greet, &arguments, &app);
    assert_eq!(block_on(future), Ok("Hello, Ada!".to_owned()));
}

#[test]
fn serde_rename_alias_and_defaults_apply_to_the_arguments() {
    assert_eq!(
        call(&ListFiles, json!({"dir": "/tmp"}), &()),
        Ok(r#"["/tmp:10"]"#.into())
    );
    assert_eq!(
        call(
            &ListFiles,
            json!({"folder": "/a", "limit": 2, "all": true}),
            &()
        ),
        Ok(r#"["/a:2"]"#.into())
    );
}

#[test]
fn bad_arguments_name_the_field() {
    let failure = call(&GetWeather, json!({"city": 42}), &()).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::InvalidArguments);
    assert_eq!(failure.guidance(), Guidance::RetryWithOtherArguments);
    assert_eq!(
        failure.message(),
        "argument `city`: invalid type: integer `42`, expected a string"
    );
    let missing = call(&GetWeather, json!({}), &()).unwrap_err();
    assert_eq!(missing.message(), "missing field `city`");
    let unknown = call(&GetWeather, json!({"city": "Rome", "cty": 1}), &()).unwrap_err();
    assert_eq!(
        unknown.message(),
        "unknown field `cty`, expected `city` or `unit`"
    );
    let renamed = call(&ListFiles, json!({"directory": "/"}), &()).unwrap_err();
    assert_eq!(
        renamed.message(),
        "unknown field `directory`, expected one of `dir`, `folder`, `limit`, `all`"
    );
}

#[test]
fn a_bad_argument_is_named_by_the_key_it_was_sent_under() {
    let message = |arguments| {
        call(&ListFiles, arguments, &())
            .unwrap_err()
            .message()
            .to_owned()
    };
    assert_eq!(
        message(json!({"folder": 7})),
        "argument `folder`: invalid type: integer `7`, expected a string"
    );
    assert_eq!(
        message(json!({"dir": "/", "limit": -1})),
        "argument `limit`: invalid value: integer `-1`, expected u32"
    );
    assert_eq!(
        message(json!({"dir": "/", "folder": "/"})),
        "duplicate field `dir`"
    );
    // serde reads the keys in order and stops at the first it refuses.
    assert_eq!(
        message(json!({"all": "yes", "dir": 7})),
        "argument `all`: invalid type: string \"yes\", expected a boolean"
    );
    assert_eq!(
        message(json!({"aaa": 1, "dir": 7})),
        "unknown field `aaa`, expected one of `dir`, `folder`, `limit`, `all`"
    );
}

#[test]
fn an_optional_argument_may_be_missing_or_null() {
    assert_eq!(
        call(&GetWeather, json!({"city": "Rome"}), &()),
        Ok("22 C in Rome".into())
    );
    assert_eq!(
        call(&GetWeather, json!({"city": "Rome", "unit": null}), &()),
        Ok("22 C in Rome".into())
    );
}

// ---------------------------------------------------------------------------------------------
// Parameter types of the user's own

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Converts a temperature.
#[tool]
fn convert(
    /// The temperature.
    degrees: f64,
    /// The unit to convert to.
    to: Unit,
) -> f64 {
    match to {
        Unit::Celsius => (degrees - 32.0) * 5.0 / 9.0,
        Unit::Fahrenheit => degrees * 9.0 / 5.0 + 32.0,
    }
}

#[test]
fn a_user_type_parameter() {
    assert_eq!(
        definition::<(), _>(&Convert)["parameters"],
        json!({
            "type": "object",
                "additionalProperties": false,
            "properties": {
                "degrees": {"type": "number", "description": "The temperature."},
                "to": {"$ref": "#/$defs/Unit", "description": "The unit to convert to."}
            },
            "required": ["degrees", "to"],
            "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}
        })
    );
    assert_eq!(
        call(&Convert, json!({"degrees": 100, "to": "fahrenheit"}), &()),
        Ok("212".into())
    );
    let failure = call(&Convert, json!({"degrees": 1, "to": "kelvin"}), &()).unwrap_err();
    assert_eq!(
        failure.message(),
        "argument `to`: unknown variant `kelvin`, expected `celsius` or `fahrenheit`"
    );
}

#[test]
fn the_definition_is_built_once() {
    let first: *const _ = Tool::<()>::definition(&GetWeather);
    let second: *const _ = Tool::<App>::definition(&GetWeather);
    assert_eq!(first, second);
}

// ---------------------------------------------------------------------------------------------
// Odd but valid functions

#[test]
fn a_tool_declared_inside_a_function_with_raw_and_mut_parameters() {
    /// Describes a thing.
    ///
    /// Kinds:
    /// - `fruit`
    /// - `tool`,
    ///   or anything else
    #[tool]
    #[allow(clippy::needless_pass_by_value)]
    fn describe(
        /// The kind of thing.
        r#type: String,
        mut count: u8,
    ) -> String {
        count = count.saturating_add(1);
        format!("{count} {type}")
    }

    assert_eq!(
        definition::<(), _>(&Describe),
        json!({
            "name": "describe",
            "description": "Describes a thing.\n\nKinds:\n- `fruit`\n- `tool`, or anything else",
            "parameters": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "type": {"type": "string", "description": "The kind of thing."},
                    "count": {"type": "integer", "minimum": 0, "maximum": 255}
                },
                "required": ["type", "count"]
            }
        })
    );
    assert_eq!(
        call(&Describe, json!({"type": "pear", "count": 1}), &()),
        Ok("2 pear".into())
    );
}

/// Fails with a `Display` error.
#[tool]
async fn always_fails() -> Result<String, std::fmt::Error> {
    Err(std::fmt::Error)
}

#[test]
fn an_async_tools_error_does_not_retry() {
    let failure = call(&AlwaysFails, json!({}), &()).unwrap_err();
    assert_eq!(failure.kind(), FailureKind::Failed);
    assert_eq!(failure.guidance(), Guidance::DoNotRetry);
    assert_eq!(
        failure.message(),
        "an error occurred when formatting an argument"
    );
}

#[test]
fn tools_go_through_the_toolbox() {
    let toolbox = skyl::Toolbox::with_state(app())
        .with(FindRow)
        .with(Greet)
        .with(GetWeather);
    let result =
        toolbox.dispatch_blocking(&skyl::ToolCall::new("c1", "greet", json!({"name": "Bo"})));
    assert_eq!(
        (result.content.as_str(), result.is_error),
        ("Hello, Bo!", false)
    );
    let result = toolbox.dispatch_blocking(&skyl::ToolCall::new(
        "c2",
        "get_weather",
        json!({"town": "Rome"}),
    ));
    assert_eq!(
        result,
        skyl::ToolResult::error(
            "c2",
            "ERROR: get_weather was called with invalid arguments: unknown field `town`, expected `city` or `unit`. Call get_weather again with corrected arguments."
        )
    );
}

/// Not `Deserialize` nor `JsonSchema`: only `Default`, which `#[serde(skip)]` needs.
#[derive(Default)]
struct Counter(u32);

/// Counts up from a skipped parameter.
#[tool]
fn count_up(
    /// How far.
    by: u32,
    #[serde(skip)] start: Counter,
) -> u32 {
    start.0 + by
}

#[test]
fn a_skipped_parameter_is_not_in_the_schema_and_needs_only_default() {
    assert_eq!(
        definition::<(), _>(&CountUp)["parameters"],
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"by": {"type": "integer", "minimum": 0, "maximum": 4294967295_u64, "description": "How far."}},
            "required": ["by"]
        })
    );
    assert_eq!(call(&CountUp, json!({"by": 2}), &()), Ok("2".to_owned()));
    let failure = call(&CountUp, json!({"by": 2, "start": 5}), &()).unwrap_err();
    assert_eq!(failure.message(), "unknown field `start`, expected `by`");
}

/// Where to look.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Area {
    /// The city.
    city: String,
}

/// Finds shops.
#[tool]
fn find_shops(
    #[serde(flatten)] area: Area,
    /// What to buy.
    item: String,
) -> String {
    format!("{} in {}", item, area.city)
}

#[test]
fn a_flattened_parameter_lists_its_fields_and_unknown_arguments_are_still_refused() {
    assert_eq!(
        definition::<(), _>(&FindShops)["parameters"],
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "city": {"type": "string", "description": "The city."},
                "item": {"type": "string", "description": "What to buy."}
            },
            "required": ["city", "item"]
        })
    );
    assert_eq!(
        call(&FindShops, json!({"city": "Gulu", "item": "tea"}), &()),
        Ok("tea in Gulu".to_owned())
    );
    let failure = call(
        &FindShops,
        json!({"city": "Gulu", "item": "tea", "x": 1}),
        &(),
    )
    .unwrap_err();
    assert_eq!(failure.message(), "unknown field `x`");
}

/// Counts the rows twice: two `#[state]` parameters may ask for the same part of the state.
#[tool]
fn count_twice(#[state] first: &Db, #[state] second: &Db) -> usize {
    first.rows.len() + second.rows.len()
}

#[test]
fn two_state_parameters_of_one_type_borrow_the_same_part() {
    assert_eq!(call(&CountTwice, json!({}), &app()), Ok("4".to_owned()));
    assert_eq!(
        definition::<App, _>(&CountTwice)["parameters"],
        json!({"type": "object", "additionalProperties": false, "properties": {}, "required": []})
    );
}

// ---------------------------------------------------------------------------------------------
// Return types without a wrapper

#[derive(serde::Serialize)]
struct Shop {
    name: &'static str,
    open: bool,
}

/// Lists the shops.
#[tool]
fn list_shops() -> Vec<Shop> {
    vec![
        Shop {
            name: "Bakery",
            open: true,
        },
        Shop {
            name: "Florist",
            open: false,
        },
    ]
}

/// Finds a shop's opening hours, if it has any.
#[tool]
fn opening_hours(name: String) -> Option<String> {
    (name == "Bakery").then(|| "7 to 14".to_owned())
}

/// Counts the shops by street.
#[tool]
fn shops_by_street() -> std::collections::BTreeMap<String, u32> {
    [("High Street".to_owned(), 2), ("Mill Lane".to_owned(), 1)].into()
}

/// Reads the shop list from disk, the way application code with `anyhow` does.
#[tool]
fn read_shop_list(path: String) -> anyhow::Result<Vec<String>> {
    use anyhow::Context as _;
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {path}"))?;
    Ok(text.lines().map(str::to_owned).collect())
}

#[test]
fn collections_options_and_anyhow_results_need_no_wrapper() {
    assert_eq!(
        call(&ListShops, json!({}), &()),
        Ok(r#"[{"name":"Bakery","open":true},{"name":"Florist","open":false}]"#.to_owned())
    );
    assert_eq!(
        call(&OpeningHours, json!({"name": "Bakery"}), &()),
        Ok("7 to 14".to_owned()),
        "text in an option stays text"
    );
    assert_eq!(
        call(&OpeningHours, json!({"name": "Florist"}), &()),
        Ok("null".to_owned())
    );
    assert_eq!(
        call(&ShopsByStreet, json!({}), &()),
        Ok(r#"{"High Street":2,"Mill Lane":1}"#.to_owned())
    );
    assert_eq!(
        call(&ReadShopList, json!({"path": "/no/such/skyl/shops"}), &()),
        Err(ToolFailure::do_not_retry(
            "cannot read /no/such/skyl/shops: No such file or directory (os error 2)"
        )),
        "anyhow's causes are kept"
    );
}

// ---------------------------------------------------------------------------------------------
// Types `#[tool]` knows by name (no deferred bounds are written for them)

/// Takes one parameter of every type the macro knows by name.
#[tool]
#[allow(clippy::too_many_arguments)]
fn every_known_type(
    a: String,
    b: bool,
    c: char,
    d: u8,
    e: u16,
    f: u32,
    g: u64,
    h: u128,
    i: usize,
    j: i8,
    k: i16,
    l: i32,
    m: i64,
    n: i128,
    o: isize,
    p: f32,
    q: f64,
    r: Option<Vec<Option<i64>>>,
    s: Box<f32>,
    t: std::string::String,
    u: ::std::option::Option<bool>,
    v: std::vec::Vec<u32>,
) -> String {
    format!(
        "{a} {b} {c} {d} {e} {f} {g} {h} {i} {j} {k} {l} {m} {n} {o} {p} {q} {r:?} {s} {t} {u:?} {v:?}"
    )
}

#[test]
fn parameters_of_every_known_type_are_read_and_described() {
    let definition = definition::<(), _>(&EveryKnownType);
    let properties = definition["parameters"]["properties"].as_object().unwrap();
    let names: Vec<&str> = properties.keys().map(String::as_str).collect();
    assert_eq!(names.join(""), "abcdefghijklmnopqrstuv");
    let arguments = json!({
        "a": "x", "b": true, "c": "y", "d": 1, "e": 2, "f": 3, "g": 4, "h": 5, "i": 6,
        "j": -1, "k": -2, "l": -3, "m": -4, "n": -5, "o": -6, "p": 0.5, "q": 1.5,
        "r": [1, null], "s": 2.5, "t": "z", "u": false, "v": [7, 8]
    });
    let outcome = call(&EveryKnownType, arguments, &());
    assert_eq!(
        outcome.unwrap(),
        "x true y 1 2 3 4 5 6 -1 -2 -3 -4 -5 -6 0.5 1.5 Some([Some(1), None]) 2.5 z Some(false) [7, 8]"
    );
}

#[test]
fn the_tool_struct_is_clone_copy_debug_and_default() {
    fn copy<T: Copy>(value: &T) -> T {
        *value
    }
    fn default<T: Default>() -> T {
        T::default()
    }
    let tool: EveryKnownType = default();
    #[allow(clippy::clone_on_copy)]
    let cloned = tool.clone();
    assert_eq!(
        format!("{:?} {:?}", copy(&cloned), tool),
        "EveryKnownType EveryKnownType"
    );
}
