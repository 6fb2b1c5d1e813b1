//! The return types a tool may have.

use skyl::{Json, ToolFailure, tool, tool::IntoToolOutput};

/// Reads a file.
#[tool]
fn read(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// Counts.
#[tool]
fn count() -> Result<u32, ToolFailure> {
    Ok(1)
}

/// Lists.
#[tool]
fn list() -> Json<Vec<u8>> {
    Json(vec![1])
}

/// Anything that converts.
#[tool]
fn opaque() -> impl IntoToolOutput {
    "text"
}

/// Borrows from its argument.
#[tool]
fn echo(text: &str) -> &str {
    text
}

/**
 * Documented with a block comment.
 *
 * Second paragraph.
 */
#[tool]
async fn later() -> serde_json::Value {
    serde_json::json!({"ok": true})
}

fn main() {
    let _ = (Read, Count, List, Opaque, Echo, Later);
}
