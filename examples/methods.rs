//! Tools that are methods: a workspace of files whose tools share one instance, registered twice
//! under two prefixes, with per-tool settings (a blocking tool with its own timeout, annotations
//! for the host) and one turn whose calls run side by side.
//!
//! Run it with `cargo run --example methods`. It needs no network and no API key.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde_json::json;
use skyl::{Message, Part, Role, ToolCall, ToolFailure, Toolbox};

/// Files in memory, standing in for a directory on disk.
struct Workspace {
    files: RwLock<BTreeMap<String, String>>,
    /// How long reading a file takes, standing in for a slow disk.
    read_delay: Duration,
}

impl Workspace {
    fn new(files: &[(&str, &str)], read_delay: Duration) -> Self {
        Workspace {
            files: RwLock::new(
                files
                    .iter()
                    .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
                    .collect(),
            ),
            read_delay,
        }
    }
}

#[skyl::tools]
impl Workspace {
    /// List the files in the workspace, with their sizes in bytes.
    #[tool(read_only, open_world = false)]
    fn list_files(&self) -> BTreeMap<String, usize> {
        let files = self.files.read().expect("no writer panicked");
        files
            .iter()
            .map(|(path, text)| (path.clone(), text.len()))
            .collect()
    }

    /// Read a file of the workspace.
    ///
    /// Reading is slow, so the calls of one turn read side by side.
    #[tool(blocking, timeout = "2s", read_only, open_world = false)]
    fn read_file(
        &self,
        /// The file's path, as `list_files` gives it.
        path: &str,
    ) -> Result<String, ToolFailure> {
        // A blocking call, as `std::fs::read_to_string` would be.
        std::thread::sleep(self.read_delay);
        let files = self.files.read().expect("no writer panicked");
        files.get(path).cloned().ok_or_else(|| {
            ToolFailure::retry_with_other_arguments(format!(
                "there is no file {path:?}; call list_files to see the paths"
            ))
        })
    }

    /// Write a file, replacing what it held.
    #[tool(title = "Write a file", destructive, idempotent, open_world = false)]
    fn write_file(
        &self,
        /// The file's path.
        path: String,
        /// The whole new content of the file.
        text: String,
    ) -> String {
        let bytes = text.len();
        let mut files = self.files.write().expect("no writer panicked");
        files.insert(path.clone(), text);
        format!("wrote {bytes} bytes to {path}")
    }
}

fn main() {
    let project = Arc::new(Workspace::new(
        &[
            ("README.md", "# skyl\nTyped tools for language models."),
            ("src/lib.rs", "pub fn answer() -> u8 { 42 }"),
        ],
        Duration::from_millis(100),
    ));
    let scratch = Workspace::new(&[("notes.txt", "buy milk")], Duration::from_millis(100));
    let toolbox = Toolbox::new()
        .with_set(Arc::clone(&project))
        .with_set_prefixed("scratch_", scratch);

    println!("== The tools, and what a host reads about them\n");
    for definition in toolbox.definitions() {
        println!(
            "{:<20} {}",
            definition.name,
            serde_json::to_string(&definition.annotations).expect("annotations serialize")
        );
    }

    let call = |id: &str, name: &str, arguments| Part::ToolCall(ToolCall::new(id, name, arguments));
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            call("call_1", "list_files", json!({})),
            call("call_2", "read_file", json!({"path": "README.md"})),
            call("call_3", "read_file", json!({"path": "src/lib.rs"})),
            call("call_4", "scratch_read_file", json!({"path": "notes.txt"})),
            call("call_5", "read_file", json!({"path": "notes.txt"})),
            call(
                "call_6",
                "scratch_write_file",
                json!({"path": "todo.txt", "text": "ship it"}),
            ),
        ],
    };

    println!("\n== One turn: four reads of 100 ms each, run side by side\n");
    let started = Instant::now();
    let answer = toolbox.answer_blocking(&turn);
    let took = started.elapsed();
    for (call, result) in turn.tool_calls().zip(answer.tool_results()) {
        let status = if result.is_error { "error" } else { "ok" };
        println!(
            "{} {}({})\n  -> [{status}] {}\n",
            result.call_id, call.name, call.arguments, result.content
        );
    }
    println!("The turn took {} ms.", took.as_millis());
    println!(
        "The project still has {} files; the application kept its handle on it.",
        project.files.read().expect("no writer panicked").len()
    );
}
