//! Methods as tools: `#[tools]` on an `impl` block, `ToolSet`, and `Toolbox::with_set`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skyl::{
    Json, Tool, ToolCall, ToolResult, Toolbox,
    tool::{FromRef, ToolSet, ToolVisitor},
    tools,
};

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, arguments)
}

/// A notebook: its tools share the notes.
#[derive(Default)]
struct Notebook {
    notes: Mutex<Vec<String>>,
}

impl Notebook {
    fn with(notes: &[&str]) -> Self {
        Notebook {
            notes: Mutex::new(notes.iter().map(|note| (*note).to_owned()).collect()),
        }
    }
}

#[tools]
impl Notebook {
    /// Writes a note
    /// in the notebook.
    ///
    /// Returns how many notes there are.
    #[tool]
    fn write_note(
        &self,
        /// The text of the note.
        text: &str,
    ) -> usize {
        let mut notes = self.notes.lock().unwrap();
        notes.push(text.to_owned());
        notes.len()
    }

    /// Finds the notes that contain a word.
    #[tool(name = "find")]
    async fn find_notes(
        &self,
        /// The word to look for.
        word: String,
        /// At most this many notes.
        limit: Option<usize>,
    ) -> Vec<String> {
        let notes = self.notes.lock().unwrap();
        notes
            .iter()
            .filter(|note| note.contains(&word))
            .take(limit.unwrap_or(usize::MAX))
            .cloned()
            .collect()
    }

    /// Says which notebook format this is.
    #[tool]
    fn notebook_format() -> &'static str {
        "plain text"
    }

    /// Tears a page out.
    #[tool]
    fn tear_page(&self) -> String {
        panic!("the page is glued in")
    }

    /// A method that is not a tool.
    fn count(&self) -> usize {
        self.notes.lock().unwrap().len()
    }
}

#[test]
fn every_tool_method_is_a_tool_of_the_set_in_the_order_written() {
    let toolbox = Toolbox::new().with_set(Notebook::default());
    assert_eq!(
        serde_json::to_value(toolbox.definitions()).unwrap(),
        json!([
            {
                "name": "write_note",
                "description": "Writes a note in the notebook.\n\nReturns how many notes there are.",
                "parameters": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"text": {"type": "string", "description": "The text of the note."}},
                    "required": ["text"]
                }
            },
            {
                "name": "find",
                "description": "Finds the notes that contain a word.",
                "parameters": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                        "word": {"type": "string", "description": "The word to look for."},
                        "limit": {
                            "type": ["integer", "null"],
                            "minimum": 0,
                            "description": "At most this many notes."
                        }
                    },
                    "required": ["word"]
                }
            },
            {
                "name": "notebook_format",
                "description": "Says which notebook format this is.",
                "parameters": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {},
                    "required": []
                }
            },
            {
                "name": "tear_page",
                "description": "Tears a page out.",
                "parameters": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {},
                    "required": []
                }
            }
        ])
    );
}

#[test]
fn every_call_reaches_the_same_instance_sync_and_async() {
    let notebook = Arc::new(Notebook::with(&["buy milk"]));
    let toolbox = Toolbox::new().with_set(Arc::clone(&notebook));
    let written =
        toolbox.dispatch_blocking(&call("c1", "write_note", json!({"text": "milk the cow"})));
    assert_eq!(written, ToolResult::success("c1", "2"));
    let found = toolbox.dispatch_blocking(&call("c2", "find", json!({"word": "milk"})));
    assert_eq!(
        found,
        ToolResult::success("c2", r#"["buy milk","milk the cow"]"#)
    );
    assert_eq!(
        notebook.count(),
        2,
        "the application's handle sees the tools' writes"
    );
}

#[test]
fn an_associated_function_without_self_is_a_tool_of_the_set() {
    let toolbox = Toolbox::new().with_set(Notebook::default());
    assert_eq!(
        toolbox.dispatch_blocking(&call("c", "notebook_format", json!({}))),
        ToolResult::success("c", "plain text")
    );
    // And it is still an associated function.
    assert_eq!(Notebook::notebook_format(), "plain text");
}

#[test]
fn a_method_tools_arguments_are_checked_and_its_panics_caught_as_a_functions() {
    let toolbox = Toolbox::new().with_set(Notebook::default());
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "write_note", json!({"txt": "hello"}))),
        ToolResult::error(
            "c1",
            "ERROR: write_note was called with invalid arguments: unknown field `txt`, expected `text`. Call write_note again with corrected arguments."
        )
    );
    assert_eq!(
        toolbox.dispatch_blocking(&call("c2", "tear_page", json!({}))),
        ToolResult::error(
            "c2",
            "ERROR: tear_page failed: it crashed (the page is glued in). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable."
        )
    );
    assert_eq!(
        toolbox.dispatch_blocking(&call("c3", "notebook_format", json!({}))),
        ToolResult::success("c3", "plain text"),
        "the toolbox is still usable"
    );
}

#[test]
fn two_instances_with_a_prefix_keep_their_own_notes() {
    let toolbox = Toolbox::new()
        .with_set(Notebook::with(&["work: ship it"]))
        .with_set_prefixed("home_", Notebook::with(&["home: water the plants"]));
    assert_eq!(
        toolbox.names().collect::<Vec<_>>(),
        [
            "write_note",
            "find",
            "notebook_format",
            "tear_page",
            "home_write_note",
            "home_find",
            "home_notebook_format",
            "home_tear_page"
        ]
    );
    let home = &toolbox.definitions()[5];
    assert_eq!(
        (home.name.as_str(), home.description.as_str()),
        ("home_find", "Finds the notes that contain a word.")
    );
    let work = toolbox.dispatch_blocking(&call("c1", "find", json!({"word": ":"})));
    let home = toolbox.dispatch_blocking(&call("c2", "home_find", json!({"word": ":"})));
    assert_eq!(
        (work.content.as_str(), home.content.as_str()),
        (r#"["work: ship it"]"#, r#"["home: water the plants"]"#)
    );
}

#[test]
#[should_panic(
    expected = "Toolbox::with_set: a tool named \"write_note\" is already in this toolbox; give one of them another name (with #[tool(name = \"...\")] or in its definition), or swap it with Toolbox::replace; a second instance of one type needs its own prefix, with Toolbox::with_set_prefixed"
)]
fn a_second_instance_without_a_prefix_is_refused() {
    let _ = Toolbox::new()
        .with_set(Notebook::default())
        .with_set(Notebook::default());
}

#[test]
fn a_set_that_cannot_join_adds_none_of_its_tools() {
    // `find` is taken, so the second notebook's `write_note`, added before it, is taken out again.
    let mut toolbox = Toolbox::new().with(skyl::DynamicTool::from_fn(
        skyl::ToolDefinition::new("find", "Finds something else.", json!({"type": "object"})),
        |_: Value| "found",
    ));
    let error = toolbox.add_set("", Notebook::default()).unwrap_err();
    assert_eq!(
        error,
        skyl::tool::RegistrationError::DuplicateName {
            name: "find".into()
        }
    );
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["find"]);

    let error = Toolbox::new()
        .with_set(Notebook::default())
        .try_with_set(Notebook::default())
        .err()
        .unwrap();
    assert_eq!(
        error,
        skyl::tool::RegistrationError::DuplicateName {
            name: "write_note".into()
        }
    );
    let toolbox = Toolbox::new().try_with_set(Notebook::with(&["a"])).unwrap();
    let result = toolbox.dispatch_blocking(&call("c1", "write_note", json!({"text": "b"})));
    assert_eq!(result.content, "2");
}

// ---------------------------------------------------------------------------------------------
// State, settings and a hand-written visitor

struct Clock {
    now: &'static str,
}

struct App {
    clock: Clock,
}

impl FromRef<App> for Clock {
    fn from_ref(app: &App) -> &Clock {
        &app.clock
    }
}

/// A log that stamps each entry with the toolbox's clock.
#[derive(Default)]
struct Log {
    entries: AtomicUsize,
}

#[tools]
impl Log {
    /// Adds an entry to the log.
    #[tool(title = "Add to the log", idempotent = false, open_world = false)]
    fn log(
        &self,
        /// What happened.
        event: String,
        #[state] clock: &Clock,
    ) -> String {
        let n = self.entries.fetch_add(1, Ordering::Relaxed) + 1;
        format!("#{n} at {}: {event}", clock.now)
    }

    /// Reads the number of entries.
    #[tool(read_only, output_schema)]
    fn entries(&self) -> Json<Entries> {
        Json(Entries {
            count: self.entries.load(Ordering::Relaxed),
        })
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Entries {
    count: usize,
}

#[test]
fn method_tools_take_state_and_settings_as_functions_do() {
    let toolbox = Toolbox::with_state(App {
        clock: Clock { now: "noon" },
    })
    .with_set(Log::default());
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "log", json!({"event": "lunch"}))),
        ToolResult::success("c1", "#1 at noon: lunch")
    );
    assert_eq!(
        toolbox.dispatch_blocking(&call("c2", "entries", json!({}))),
        ToolResult::success("c2", r#"{"count":1}"#)
    );
    assert_eq!(
        serde_json::to_value(toolbox.definitions()).unwrap(),
        json!([
            {
                "name": "log",
                "description": "Adds an entry to the log.",
                "parameters": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {"event": {"type": "string", "description": "What happened."}},
                    "required": ["event"]
                },
                "annotations": {"title": "Add to the log", "idempotentHint": false, "openWorldHint": false}
            },
            {
                "name": "entries",
                "description": "Reads the number of entries.",
                "parameters": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {},
                    "required": []
                },
                "annotations": {"readOnlyHint": true},
                "outputSchema": {
                    "type": "object",
                    "properties": {"count": {"type": "integer", "minimum": 0}},
                    "required": ["count"]
                }
            }
        ])
    );
}

/// Collects the names of a set's tools.
struct Names(Vec<String>);

impl<S> ToolVisitor<S> for Names {
    fn visit<T: Tool<S>>(&mut self, tool: T) {
        self.0.push(tool.definition().name.clone());
    }
}

#[test]
fn a_set_hands_its_tools_to_any_visitor_and_an_arc_is_a_set() {
    let mut names = Names(Vec::new());
    ToolSet::<App>::visit_tools(Arc::new(Log::default()), &mut names);
    let shared = Arc::new(Notebook::default());
    ToolSet::<()>::visit_tools(Arc::new(Arc::clone(&shared)), &mut names);
    assert_eq!(
        names.0,
        [
            "log",
            "entries",
            "write_note",
            "find",
            "notebook_format",
            "tear_page"
        ]
    );
}

/// A set with a tool compiled out.
struct Gauges;

#[tools]
impl Gauges {
    /// Reads the pressure.
    #[tool]
    fn pressure(&self) -> u32 {
        1013
    }

    /// Reads the radiation, on builds that have the sensor.
    #[tool]
    #[cfg(any())]
    fn radiation(&self) -> u32 {
        0
    }
}

#[test]
fn a_method_compiled_out_is_not_a_tool() {
    let toolbox = Toolbox::new().with_set(Gauges);
    assert_eq!(toolbox.names().collect::<Vec<_>>(), ["pressure"]);
}

/// A point that is its own tool set; its tools say `Self`.
#[derive(Clone, Copy, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[tools]
impl Point {
    /// Moves the point by an offset.
    #[tool(output_schema)]
    fn moved(
        &self,
        /// How far to move.
        by: Self,
    ) -> Json<Self> {
        Json(Point {
            x: self.x + by.x,
            y: self.y + by.y,
        })
    }
}

#[test]
fn self_in_a_tool_methods_signature_is_the_blocks_type() {
    let toolbox = Toolbox::new().with_set(Point { x: 1, y: 2 });
    assert_eq!(
        toolbox.dispatch_blocking(&call("c", "moved", json!({"by": {"x": 10, "y": 20}}))),
        ToolResult::success("c", r#"{"x":11,"y":22}"#)
    );
    let coordinates = json!({
        "x": {"type": "integer", "minimum": -2147483648_i64, "maximum": 2147483647},
        "y": {"type": "integer", "minimum": -2147483648_i64, "maximum": 2147483647}
    });
    let definition = &toolbox.definitions()[0];
    assert_eq!(
        definition.output_schema,
        Some(json!({
            "description": "A point that is its own tool set; its tools say `Self`.",
            "type": "object",
            "properties": coordinates,
            "required": ["x", "y"]
        }))
    );
    assert_eq!(
        definition.parameters,
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {"by": {"$ref": "#/$defs/Point", "description": "How far to move."}},
            "required": ["by"],
            "$defs": {
                "Point": {
                    "type": "object",
                    "properties": coordinates,
                    "required": ["x", "y"],
                    "description": "A point that is its own tool set; its tools say `Self`."
                }
            }
        })
    );
}

// ---------------------------------------------------------------------------------------------
// An impl block whose bodies cannot be told apart by tokens alone

/// A grid of cells.
struct Grid;

#[tools]
impl Grid {
    /// The brace group in this signature looks like a body to a scan of the block's tokens, so
    /// `#[tools]` parses this block whole.
    #[allow(unused_braces)]
    fn corners(&self) -> [u8; { 2 + 2 }] {
        [1, 2, 3, 4]
    }

    /// Counts the grid's corners.
    #[tool]
    fn count_corners(&self) -> usize {
        self.corners().len()
    }
}

#[test]
fn a_block_with_a_brace_group_in_a_signature_still_makes_its_tools() {
    let toolbox = Toolbox::new().with_set(Grid);
    assert_eq!(
        toolbox.dispatch_blocking(&call("c1", "count_corners", json!({}))),
        ToolResult::success("c1", "4")
    );
}
