//! MCP 2026-07-28's custom headers (SEP-2243) through skyl: a tool whose input schema marks an
//! argument with `x-mcp-header` is listed with the mark, skyl's client sends the argument as an
//! `Mcp-Param-*` header too, and skyl's HTTP server refuses a call whose header does not match.

use serde_json::{Value, json};
use skyl::mcp::{Remote, Server};
use skyl::{DynamicTool, ToolCall, ToolDefinition, ToolResult, Toolbox};

use crate::common::{bounded, http_exchange};

/// Says which region it was called for; its `region` argument travels as `Mcp-Param-Region`.
fn region_tool() -> DynamicTool {
    let definition = ToolDefinition::new(
        "region_tool",
        "Says which region it was called for.",
        json!({
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["region"]
        }),
    );
    DynamicTool::from_fn(definition, |arguments: Value| {
        format!("called for {}", arguments["region"])
    })
}

#[tokio::test]
async fn a_header_marked_argument_goes_as_a_header_and_must_match_the_body() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving = tokio::spawn(
        Server::new(Toolbox::new().with(region_tool()))
            .with_stateless_http()
            .serve_http(listener),
    );
    let url = format!("http://{address}/mcp");

    // skyl's client, at 2026-07-28, sends the header the schema asks for: the server takes it.
    let remote = bounded("mounting", Remote::builder("regions").connect_http(&url))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_remote(&remote);
    let call = ToolCall::new("c1", "regions_region_tool", json!({"region": "us-west1"}));
    assert_eq!(
        bounded("a call", toolbox.dispatch(&call)).await,
        ToolResult::success("c1", "called for \"us-west1\"")
    );
    remote.close().await;

    // A call whose body names a region and whose headers do not: refused before the tool runs.
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "region_tool", "arguments": {"region": "us-west1"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: region_tool\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let (head, answer) =
        bounded("a call without its header", http_exchange(address, request)).await;
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        answer,
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "error": {"code": -32020, "message": "missing Mcp-Param-Region header for `region`"}
        })
    );
    serving.abort();
}
