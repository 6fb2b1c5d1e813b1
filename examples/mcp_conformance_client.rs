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
//!
//! The `auth/` scenarios put the suite's server behind OAuth: the client mounts it with
//! `skyl::mcp::OAuth`, with the credentials the suite passes in `MCP_CONFORMANCE_CONTEXT` (JSON)
//! where it gives some, and stands in for the person by following the suite's authorization page,
//! which approves at once and redirects.

#[path = "support/errors.rs"]
mod errors;

use serde_json::{Value, json};
use skyl::agent::Reply;
use skyl::mcp::{OAuth, Remote};
use skyl::{ToolCall, Toolbox};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The client ID metadata document the suite expects a client to use as its id
/// (`auth/basic-cimd`); the suite's authorization server never fetches it.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

/// Where the suite's authorization page redirects to; nothing listens there, the client reads
/// the redirect instead.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

/// What each scenario calls once connected: a tool of the suite's server and its arguments.
fn calls(scenario: &str) -> Vec<(&'static str, serde_json::Value)> {
    match scenario {
        "tools_call" => vec![("add_numbers", json!({"a": 5, "b": 3}))],
        "sse-retry" => vec![("test_reconnection", json!({}))],
        "elicitation-sep1034-client-defaults" => {
            vec![("test_client_elicitation_defaults", json!({}))]
        }
        // SEP-2322: two calls the server answers with an input-required result (with and
        // without a request state), an unrelated call, and a result that names no result type.
        "sep-2322-client-request-state" => vec![
            ("test_mrtr_echo_state", json!({})),
            ("test_mrtr_no_state", json!({})),
            ("test_mrtr_unrelated", json!({})),
            ("test_mrtr_no_result_type", json!({})),
        ],
        // SEP-2243: the tools whose x-mcp-header annotations are invalid are left out; the valid
        // one is kept.
        "http-invalid-tool-headers" => vec![("valid_tool", json!({}))],
        // Behind OAuth: the step-up scenario asks for more scope at the call.
        auth if auth.starts_with("auth/") => vec![("test-tool", json!({}))],
        // `initialize`: connecting and listing the tools is the test.
        _ => Vec::new(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_conformance_client: {}", errors::chain(&*error));
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args()
        .nth(1)
        .ok_or("usage: mcp_conformance_client URL (with MCP_CONFORMANCE_SCENARIO set)")?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    // An empty prefix: the tools keep the suite's names, which `calls` uses. Nobody is at hand to
    // answer the server's questions: each is accepted with its schema's defaults (SEP-1034), as
    // a person leaving the form as it is would.
    let mut builder = Remote::builder("conformance")
        .prefix("")
        .on_question(|question| Reply::Accept(question.defaults()));
    if scenario.starts_with("auth/") {
        builder = builder.oauth(oauth(&scenario)?);
    }
    let remote = builder.connect_http(&url).await?;
    let toolbox = Toolbox::new().with_remote(&remote);
    let mut failed = false;
    let mut calls: Vec<(String, Value)> = calls(&scenario)
        .into_iter()
        .map(|(tool, arguments)| (tool.to_owned(), arguments))
        .collect();
    // SEP-1613, SEP-2106: the input schema of the suite's tool as skyl received it (every
    // keyword kept; the definition a model sees holds its canonical form) goes back to the suite
    // to compare with what it sent.
    if scenario == "json-schema-2020-12-preservation" {
        let focal = remote
            .tools()
            .into_iter()
            .find(|tool| tool.remote_name() == "json_schema_2020_12_tool")
            .ok_or("the suite's server lists no json_schema_2020_12_tool")?;
        calls.push((
            "json_schema_echo".to_owned(),
            json!({"schema": focal.input_schema()}),
        ));
    }
    // The calls a scenario names in its context (`toolCalls`), after the fixed ones.
    if let Some(named) = context()?["toolCalls"].as_array() {
        for call in named {
            let tool = call["name"]
                .as_str()
                .ok_or("a toolCalls entry without a name")?;
            calls.push((tool.to_owned(), call["arguments"].clone()));
        }
    }
    for (n, (tool, arguments)) in calls.into_iter().enumerate() {
        let result = toolbox
            .dispatch(&ToolCall::new(format!("call-{n}"), &tool, arguments))
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

/// How the client authorizes in an `auth/` scenario: with the client credentials the suite gives
/// for a machine client, else as a person would (with the pre-registered client it gives, if any).
fn oauth(scenario: &str) -> Result<OAuth, Box<dyn std::error::Error>> {
    let context = context()?;
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    if scenario.starts_with("auth/client-credentials") {
        let (Some(id), Some(secret)) = (text("client_id"), text("client_secret")) else {
            return Err(
                format!("{scenario}: the suite gave no client_id and client_secret").into(),
            );
        };
        return Ok(OAuth::client_credentials(id, secret));
    }
    let mut oauth = OAuth::authorization_code(REDIRECT_URI, approve)
        .client_metadata_url(CLIENT_METADATA_URL)
        .client_name("skyl conformance client");
    if let Some(id) = text("client_id") {
        oauth = oauth.client_id(id);
    }
    if let Some(secret) = text("client_secret") {
        oauth = oauth.client_secret(secret);
    }
    Ok(oauth)
}

/// What the suite passes the scenario in `MCP_CONFORMANCE_CONTEXT` (JSON), or null.
fn context() -> Result<Value, Box<dyn std::error::Error>> {
    Ok(match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text)?,
        Err(_) => Value::Null,
    })
}

/// The person's part: the suite's authorization page approves at once and redirects, so a GET
/// of it that does not follow the redirect reads where the browser would have been sent.
async fn approve(url: String) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("the authorization page {url} is not on http://"))?;
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = tokio::net::TcpStream::connect(host.replace("localhost", "127.0.0.1")).await?;
    let request = format!("GET {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("location")
                .then(|| value.trim().to_owned())
        })
        .ok_or_else(|| format!("the authorization page {url} did not redirect: {head}").into())
}
