//! How much of each request of a 30-step agent run a provider can read from its prompt cache:
//! the bytes skyl encodes per step, and the share of them that starts with what the request
//! before cached (through its last breakpoint, as `CachePrefix` cuts a body in the order the
//! provider's cache reads it). A measure of bytes, not of time: the same on every run.
//!
//! Usage: `cargo run --release --manifest-path benches/Cargo.toml --bin cache`. It prints a
//! Markdown table for BENCHMARKS.md. Tokens are not counted (no tokenizer here); at a fixed
//! number of bytes per token the token share is the byte share.

use std::borrow::Cow;

use serde_json::json;
use skyl::agent::{Agent, hooks};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request,
    caching::{CachePrefix, Caching},
};
use skyl::testing::ScriptedModel;
use skyl::{DynamicTool, Message, ToolCall, ToolDefinition, Toolbox};

const STEPS: u32 = 30;

/// A system prompt of a realistic length (about 700 bytes).
const SYSTEM: &str = "You are a careful research assistant working in a repository. Read files before you change them, cite the lines you rely on, and prefer small, reviewable edits. When a tool fails, read its message: it names the cause and the next step. Do not guess paths: list a directory first. Keep answers short; put long output in files. Never run a command that deletes data without asking. When you are done, say what you changed and what you did not, and why. Use the search tool for anything you have not seen in this conversation. Answer in the language of the question. If the question is ambiguous, ask one question back instead of guessing.";

fn tool(name: &str, description: &str) -> DynamicTool {
    let definition = ToolDefinition::new(
        name,
        description,
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "A path relative to the repository root."},
                "pattern": {"type": "string", "description": "A glob or a regular expression, as the tool says."},
                "limit": {"type": "integer", "description": "At most this many results.", "minimum": 1}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
    );
    DynamicTool::from_fn(definition, |_: serde_json::Value| {
        // A result of a realistic length (about 600 bytes).
        Ok::<_, String>("src/lib.rs:12: pub fn encode(request: &Request) -> Result<Value, EncodeError> {\nsrc/lib.rs:13:     check(request)?;\n".repeat(5))
    })
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(tool(
            "read_file",
            "Reads a file, or the lines of it asked for.",
        ))
        .with(tool("list_dir", "Lists a directory."))
        .with(tool("search", "Searches the repository for a pattern."))
        .with(tool("write_file", "Writes a file, replacing it."))
        .with(tool("run_tests", "Runs the tests matching a pattern."))
        .with(tool(
            "git_diff",
            "Shows the uncommitted changes under a path.",
        ))
}

/// The requests of a 30-step run: each step calls a tool, the last answers. With `shuffle`, the
/// tools reach the request in another order at every step (a toolbox rebuilt from a map).
fn requests(caching: Caching, shuffle: bool) -> Vec<Request<'static>> {
    let mut model = ScriptedModel::new();
    let names = [
        "read_file",
        "list_dir",
        "search",
        "write_file",
        "run_tests",
        "git_diff",
    ];
    for step in 1..STEPS {
        let name = names[step as usize % names.len()];
        model = model.reply_calls([ToolCall::new(
            format!("call_{step}"),
            name,
            json!({"path": format!("src/module_{step}.rs"), "limit": 20}),
        )]);
    }
    model = model.reply_text("Done: the encoder checks the request first.");
    let reorder = hooks::before_request(move |step, request| {
        if shuffle {
            let mut tools = request.tools.to_vec();
            tools.rotate_left(step as usize % 6);
            request.tools = Cow::Owned(tools);
        }
    });
    let agent = Agent::new(model.clone(), toolbox(), "some-model")
        .with_system(SYSTEM)
        .with_max_steps(STEPS)
        .with_caching(caching)
        .with_hooks(reorder);
    agent
        .run(vec![Message::user(
            "Find where requests are checked before encoding, and explain it.",
        )])
        .blocking()
        .expect("the script answers every step");
    model.requests()
}

/// Per step: the encoded bytes and the bytes the step before cached that this one reuses.
fn measure(adapter: &dyn Adapter, requests: &[Request<'_>]) -> Vec<(usize, usize)> {
    let mut previous: Option<CachePrefix> = None;
    requests
        .iter()
        .map(|request| {
            let body = adapter.encode(request).expect("a valid request");
            let bytes = serde_json::to_vec(&body).unwrap().len();
            let prefix = CachePrefix::of(adapter.provider(), &body);
            let reused = previous.as_ref().map_or(0, |before| prefix.reused(before));
            previous = Some(prefix);
            (bytes, reused)
        })
        .collect()
}

fn main() {
    let default = requests(Caching::default(), true);
    let off = requests(Caching::off(), true);
    let columns: [(&str, Vec<(usize, usize)>); 5] = [
        ("Anthropic", measure(&Anthropic, &default)),
        ("Anthropic, `Caching::off()`", measure(&Anthropic, &off)),
        ("OpenAI Chat", measure(&OpenAiChat::default(), &default)),
        (
            "OpenAI Responses",
            measure(&OpenAiResponses::default(), &default),
        ),
        ("Gemini", measure(&Gemini::default(), &default)),
    ];
    print!("| step |");
    for (name, _) in &columns {
        print!(" {name}: bytes | cached |");
    }
    println!();
    print!("|---:|");
    for _ in &columns {
        print!("---:|---:|");
    }
    println!();
    let shown = [1usize, 2, 3, 5, 10, 15, 20, 25, 30];
    for step in shown {
        print!("| {step} |");
        for (_, rows) in &columns {
            let (bytes, reused) = rows[step - 1];
            print!(" {bytes} | {:.1}% |", 100.0 * reused as f64 / bytes as f64);
        }
        println!();
    }
    print!("| all 30 |");
    for (_, rows) in &columns {
        let bytes: usize = rows.iter().map(|row| row.0).sum();
        let reused: usize = rows.iter().map(|row| row.1).sum();
        print!(" {bytes} | {:.1}% |", 100.0 * reused as f64 / bytes as f64);
    }
    println!();
}
