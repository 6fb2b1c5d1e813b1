//! skyl's side of the official MCP conformance suite's client scenarios: it mounts the suite's
//! server with `skyl::mcp::Remote` and does what the scenario named by the
//! `MCP_CONFORMANCE_SCENARIO` environment variable asks.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call cargo run --example mcp_conformance_client -- URL
//! ```
//!
//! `tests/conformance/run` has the suite start it once per scenario (the suite appends the URL of
//! the server it started); the scenarios skyl does not pass yet are listed, each with its reason,
//! in `tests/conformance/baseline.yml`. Exits with status 1, saying why on stderr, when the
//! scenario could not be done.

use serde_json::json;
use skyl::mcp::Remote;
use skyl::{ToolCall, Toolbox};

/// What each scenario calls once connected: a tool of the suite's server and its arguments.
fn calls(scenario: &str) -> Vec<(&'static str, serde_json::Value)> {
    match scenario {
        "tools_call" => vec![("add_numbers", json!({"a": 5, "b": 3}))],
        "sse-retry" => vec![("test_reconnection", json!({}))],
        "elicitation-sep1034-client-defaults" => {
            vec![("test_client_elicitation_defaults", json!({}))]
        }
        // `initialize` and the `auth/` scenarios: connecting and listing the tools is the test.
        _ => Vec::new(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: mcp_conformance_client URL (with MCP_CONFORMANCE_SCENARIO set)")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    // An empty prefix: the tools keep the suite's names, which `calls` uses.
    let remote = Remote::builder("conformance")
        .prefix("")
        .connect_http(&url)
        .await?;
    let toolbox = Toolbox::new().with_remote(&remote);
    let mut failed = false;
    for (n, (tool, arguments)) in calls(&scenario).into_iter().enumerate() {
        let result = toolbox
            .dispatch(&ToolCall::new(format!("call-{n}"), tool, arguments))
            .await;
        eprintln!("{tool}: {}", result.content);
        failed |= result.is_error;
    }
    remote.close().await;
    if failed {
        return Err(format!("a call of the scenario {scenario} failed").into());
    }
    Ok(())
}
