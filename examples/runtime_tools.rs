//! Tools read from a configuration file at run time: registered with errors instead of panics,
//! checked against their declared schemas, answered in OpenAI strict mode, and protected from a
//! duplicated booking.
//!
//! Run it with `cargo run --example runtime_tools`. It needs no network and no API key: the
//! assistant turn is written by hand, as a strict-mode model would send it.

#[path = "support/errors.rs"]
mod errors;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Value, json};
use skyl::provider::dialect;
use skyl::{
    DynamicTool, Message, Part, Role, ToolCall, ToolDefinition, Toolbox, tool::GuidedError,
};

/// What an operator writes: each tool's definition, and a reply template for the simple ones.
const CONFIG: &str = r#"[
    {
        "name": "greet",
        "description": "Greets a visitor at the front desk.",
        "parameters": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The visitor's name."},
                "language": {"type": "string", "enum": ["en", "fr", "sw"], "description": "English unless given."}
            },
            "required": ["name"]
        },
        "reply": {"en": "Hello, {name}!", "fr": "Bonjour, {name} !", "sw": "Habari, {name}!"}
    },
    {
        "name": "open door",
        "description": "Opens a door.",
        "parameters": {"type": "object", "properties": {}}
    },
    {
        "name": "book_room",
        "description": "Books a meeting room for today. Each call makes a booking.",
        "parameters": {
            "type": "object",
            "properties": {
                "room": {"type": "string", "enum": ["north", "south"]},
                "hours": {"type": "integer", "minimum": 1, "maximum": 8},
                "note": {"type": "string", "description": "Shown on the door."}
            },
            "required": ["room", "hours"],
            "additionalProperties": false
        },
        "annotations": {"idempotentHint": false}
    }
]"#;

#[derive(Deserialize)]
struct Entry {
    #[serde(flatten)]
    definition: ToolDefinition,
    #[serde(default)]
    reply: HashMap<String, String>,
}

/// The arguments of `book_room`, read once they have passed the declared schema.
#[derive(Deserialize)]
struct Booking {
    room: String,
    hours: u8,
    #[serde(default)]
    note: String,
}

fn greeting(replies: HashMap<String, String>) -> impl Fn(Value) -> String + Send + Sync {
    move |arguments: Value| {
        let language = arguments["language"].as_str().unwrap_or("en");
        let name = arguments["name"].as_str().unwrap_or_default();
        replies
            .get(language)
            .map(|template| template.replace("{name}", name))
            .unwrap_or_default()
    }
}

fn booking(taken: Arc<Mutex<Vec<String>>>) -> impl Fn(Booking) -> Result<String, GuidedError> {
    move |booking: Booking| {
        let mut taken = taken.lock().expect("not poisoned");
        if taken.contains(&booking.room) {
            return Err(GuidedError::ask_user(format!(
                "the {} room is already booked today",
                booking.room
            )));
        }
        taken.push(booking.room.clone());
        Ok(format!(
            "booked the {} room for {} hour(s){}",
            booking.room,
            booking.hours,
            if booking.note.is_empty() {
                String::new()
            } else {
                format!(" (\"{}\")", booking.note)
            }
        ))
    }
}

fn main() {
    let entries: Vec<Entry> = serde_json::from_str(CONFIG).expect("the configuration is JSON");
    let taken = Arc::new(Mutex::new(vec!["south".to_owned()]));

    println!("== Registering the configured tools\n");
    let mut toolbox = Toolbox::new();
    for Entry { definition, reply } in entries {
        let name = definition.name.clone();
        let tool = match name.as_str() {
            "book_room" => DynamicTool::from_fn(definition, booking(Arc::clone(&taken))),
            _ => DynamicTool::from_fn(definition, greeting(reply)),
        };
        match toolbox.add(tool) {
            Ok(()) => println!("{name}: registered"),
            Err(error) => println!("{name}: skipped: {}", errors::chain(&error)),
        }
    }

    println!("\n== book_room's schema as OpenAI strict mode sends it\n");
    let strict = dialect::openai_strict(
        &toolbox.definitions_of(["book_room"]).expect("registered")[0].parameters,
    )
    .expect("the schema can be strict");
    println!("{}", serde_json::to_string_pretty(&strict).expect("JSON"));

    let call = |id: &str, name: &str, arguments| Part::ToolCall(ToolCall::new(id, name, arguments));
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            // Strict mode sends null for what the model leaves out.
            call("call_1", "greet", json!({"name": "Ada", "language": null})),
            call("call_2", "greet", json!({"name": "Ada", "language": "de"})),
            call(
                "call_3",
                "book_room",
                json!({"room": "north", "hours": 2, "note": null}),
            ),
            // The same booking again in the same turn: not run twice.
            call(
                "call_4",
                "book_room",
                json!({"hours": 2, "room": "north", "note": null}),
            ),
            call(
                "call_5",
                "book_room",
                json!({"room": "south", "hours": 1, "note": "standup"}),
            ),
            call(
                "call_6",
                "book_room",
                json!({"room": "north", "hours": 12, "note": null}),
            ),
        ],
    };

    println!("\n== One assistant turn and the results\n");
    let answer = toolbox.answer_blocking(&turn);
    for (call, result) in turn.tool_calls().zip(answer.tool_results()) {
        let status = if result.is_error { "error" } else { "ok" };
        println!(
            "{} {}({})\n  -> [{status}] {}\n",
            result.call_id, call.name, call.arguments, result.content
        );
    }
}
