//! The weather example's tools, served as an MCP server on stdio.
//!
//! An MCP client (Claude Desktop, Cursor, the MCP inspector) starts it and speaks JSON-RPC on its
//! stdin and stdout; the README shows each one's configuration. Try it with the inspector:
//!
//! ```text
//! npx @modelcontextprotocol/inspector cargo run --quiet --example mcp_server
//! ```
//!
//! It serves until the client closes stdin, so `cargo run --example mcp_server </dev/null` starts
//! and ends at once. Only JSON-RPC goes to stdout: a tool's panic is reported to the client as a
//! failed result and printed to stderr by the panic hook.

#[path = "support/errors.rs"]
mod errors;

mod weather_tools;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_server: {}", errors::chain(&error));
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), skyl::mcp::ServeError> {
    skyl::mcp::Server::new(weather_tools::toolbox())
        .with_name("skyl-weather", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Weather readings, news headlines and currency conversion, for a demo: the data is made up.",
        )
        .serve_stdio()
        .await
}
