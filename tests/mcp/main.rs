//! skyl and MCP, with real peers: rmcp's client driving skyl's server (in process over a duplex
//! pipe, as a child process over stdio, over HTTP), and skyl mounting servers (one written with
//! rmcp alone, and skyl's own).

mod authorization;
mod common;
#[path = "../support/content_rows.rs"]
mod content_rows;
mod elicitation;
mod fuzz_inputs;
mod headers;
mod hostile;
mod mount;
mod mount_refusals;
mod mounted_media;
mod oauth;
mod prompts_asking;
mod prompts_resources;
// The suite's temporary directory (its journal helpers serve the suite's tests, not these).
mod schema_kept;
#[allow(dead_code)]
#[path = "../support/scratch.rs"]
mod scratch;
mod serve;
mod served_context;
mod stateless;
mod tasks;
mod tools_only;

/// The weather example's tools: the same source the `mcp_server` example serves.
#[path = "../../examples/weather_tools.rs"]
mod weather_tools;
