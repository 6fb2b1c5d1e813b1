//! rmcp's client driving skyl's server: the weather tools in process over a duplex pipe and as the
//! `mcp_server` example over stdio (the same checks on both), then what only an in-process
//! server lets a test observe: structured output, hints, and a cancelled call's future dropped.

use std::sync::Arc;

use serde_json::{Value, json};
use skyl::mcp::Remote;
use skyl::mcp::Server;
use skyl::mcp::rmcp::ServiceExt;
use skyl::mcp::rmcp::model::CallToolRequestParams;
use skyl::{
    Content, Message, Part, Role, Tool, ToolCall, ToolDefinition, ToolResult, Toolbox,
    content::{Audio, Image, Resource, ResourceLink, ResultContent},
    tool::{ToolAnnotations, ToolFuture, ToolOutput},
};
use tokio::sync::Notify;

use crate::common::{
    Client, bounded, call, call_then_cancel, error, object, start, structured, text,
};
use crate::weather_tools;

/// The weather tools as `tools/list` shows them.
fn weather_listing() -> Value {
    json!({"tools": [
        {
            "name": "get_weather",
            "description": "Get the current weather at a city's weather station.\n\nUse it for questions about the weather now, not for forecasts.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "city": {"type": "string", "description": "The city, for example \"Kampala\"."},
                    "unit": {
                        "anyOf": [{"$ref": "#/$defs/Unit"}, {"type": "null"}],
                        "description": "The unit of the temperature; Celsius when omitted."
                    }
                },
                "required": ["city"],
                "$defs": {"Unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Units for a temperature."}}
            }
        },
        {
            "name": "search_news",
            "description": "Search recent news headlines.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "query": {"type": "string", "description": "Words to search for."},
                    "limit": {"type": ["integer", "null"], "description": "How many headlines to return, at most 10.", "minimum": 0, "maximum": 255}
                },
                "required": ["query"]
            }
        },
        {
            "name": "convert_currency",
            "description": "Convert an amount of money between two currencies, by ISO 4217 code.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "amount": {"type": "number", "description": "The amount to convert."},
                    "from": {"type": "string", "description": "The currency of the amount, such as \"USD\"."},
                    "to": {"type": "string", "description": "The currency to convert to, such as \"UGX\"."}
                },
                "required": ["amount", "from", "to"]
            }
        }
    ]})
}

/// Everything an MCP client can see of the weather server, checked whole.
async fn exercise_weather(client: &Client) {
    let listing = bounded("tools/list", client.peer().list_tools(None))
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(listing).unwrap(), weather_listing());

    let calls = [
        (
            "a good call",
            "get_weather",
            json!({"city": "Kampala", "unit": "fahrenheit"}),
            text("71F and sunny in Kampala"),
        ),
        (
            "arguments that do not fit",
            "get_weather",
            json!({"city": 42}),
            error(
                "ERROR: get_weather was called with invalid arguments: argument `city`: invalid type: integer `42`, expected a string. Call get_weather again with corrected arguments.",
            ),
        ),
        (
            "the tool's Err, with its guidance",
            "get_weather",
            json!({"city": "Atlantis"}),
            error(
                "ERROR: get_weather failed: there is no station in Atlantis. Call get_weather again with different arguments.",
            ),
        ),
        (
            "the tool's Err",
            "convert_currency",
            json!({"amount": 10, "from": "USD", "to": "XAU"}),
            error(
                "ERROR: convert_currency failed: no exchange rate is known for XAU. Do not retry; tell the user the result is unavailable.",
            ),
        ),
        (
            "a panic",
            "convert_currency",
            json!({"amount": 10, "from": "US", "to": "UGX"}),
            error(
                "ERROR: convert_currency failed: it crashed (currency codes have three letters, got \"US\"). This is a bug in the tool, not in the call. Do not retry; tell the user the result is unavailable.",
            ),
        ),
        (
            "a timeout",
            "search_news",
            json!({"query": "everything"}),
            error(
                "ERROR: search_news failed: it did not finish within 200ms and was stopped. Do not retry with the same arguments; tell the user it timed out.",
            ),
        ),
        (
            "an unknown tool, the one protocol error",
            "get_wether",
            json!({"city": "Gulu"}),
            json!({"error": {
                "code": -32602,
                "message": "ERROR: there is no tool named \"get_wether\". Did you mean \"get_weather\"? The available tools are: convert_currency, get_weather, search_news. Call one of them by its exact name."
            }}),
        ),
    ];
    for (what, name, arguments, expected) in calls {
        assert_eq!(call(client, name, arguments).await, expected, "{what}");
    }

    // Twenty calls in flight at once, each answered with its own result.
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..20 {
        let peer = client.peer().clone();
        calls.spawn(async move {
            let params = CallToolRequestParams::new("search_news")
                .with_arguments(object(json!({"query": format!("q{i}"), "limit": 1})));
            (i, peer.call_tool(params).await)
        });
    }
    let mut answered = Vec::new();
    while let Some(joined) = bounded("20 concurrent calls", calls.join_next()).await {
        let (i, result) = joined.unwrap();
        assert_eq!(
            serde_json::to_value(result.unwrap()).unwrap(),
            text(&format!(
                r#"[{{"title":"q{i}: story 1","source":"The Daily Example"}}]"#
            ))
        );
        answered.push(i);
    }
    answered.sort_unstable();
    assert_eq!(answered, (0..20).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_weather_tools_served_in_process() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = Server::new(weather_tools::toolbox());
    let serving = tokio::spawn(server.serve(server_end));
    let client = bounded("the handshake", ().serve(client_end))
        .await
        .unwrap();
    exercise_weather(&client).await;
    // The client leaving ends the server cleanly.
    client.cancel().await.unwrap();
    bounded("the server's end", serving).await.unwrap().unwrap();
}

#[tokio::test]
async fn the_mcp_server_example_over_stdio() {
    let (mut child, stdout, stdin, seen) = start(env!("CARGO_BIN_EXE_mcp_server"));
    let client = bounded("the handshake", ().serve((stdout, stdin)))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(client.peer_info().unwrap()).unwrap(),
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"logging": {}, "tools": {"listChanged": false}},
            "serverInfo": {"name": "skyl-weather", "version": "0.1.0"},
            "instructions": "Weather readings, news headlines and currency conversion, for a demo: the data is made up."
        })
    );
    exercise_weather(&client).await;
    // The server declares `logging`, so it accepts a level (the conformance suite's
    // logging-set-level).
    let level = serde_json::from_value(json!({"level": "debug"})).unwrap();
    #[allow(deprecated)] // by rmcp for protocol 2026-07-28 (SEP-2577); skyl speaks 2025-11-25
    bounded("logging/setLevel", client.peer().set_level(level))
        .await
        .unwrap();

    // Closing stdin ends the server, which exits successfully.
    client.cancel().await.unwrap();
    let status = bounded("the server's exit", child.wait()).await.unwrap();
    assert!(status.success(), "{status}");

    // Nothing but JSON-RPC was written to stdout (a panic's message went to stderr).
    let seen = String::from_utf8(seen.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = seen.lines().collect();
    assert!(lines.len() > 20, "{seen}");
    for line in lines {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|error| panic!("not JSON ({error}) on stdout: {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
}

// -------------------------------------------------------------------------------------------
// What an in-process server shows: a tool with an output schema and hints, and a cancellation.

/// A hand-written tool whose definition has a title, hints and an output schema: its output is
/// JSON text, which the server also sends as `structuredContent`.
struct Forecast(ToolDefinition);

impl<S> Tool<S> for Forecast {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, arguments: &'a Value, _state: &'a S) -> ToolFuture<'a> {
        let city = arguments["city"].as_str().unwrap_or("nowhere");
        ToolFuture::ready(Ok(json!({"city": city, "celsius": 22}).to_string()))
    }
}

fn forecast() -> Forecast {
    Forecast(ToolDefinition::new("forecast", "Today's forecast for a city.", json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})).with_annotations(ToolAnnotations::new().with_title("Forecast").with_read_only(true).with_open_world(false)).with_output_schema(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
            "required": ["city", "celsius"]
        })))
}

/// Signals when a call starts, and when its future is dropped.
#[derive(Default)]
struct Probe {
    started: Notify,
    dropped: Notify,
}

struct SignalOnDrop<'a>(&'a Notify);

impl Drop for SignalOnDrop<'_> {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

/// Waits for an answer that never comes.
#[skyl::tool]
async fn wait_forever(#[state] probe: &Probe) -> String {
    let _dropped = SignalOnDrop(&probe.dropped);
    probe.started.notify_one();
    std::future::pending().await
}

async fn probe_client() -> (Client, Arc<Toolbox<Probe>>) {
    let toolbox = Arc::new(
        Toolbox::with_state(Probe::default())
            .with(forecast())
            .with(WaitForever),
    );
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(Arc::clone(&toolbox)).serve(server_end));
    let client = bounded("the handshake", ().serve(client_end))
        .await
        .unwrap();
    (client, toolbox)
}

#[tokio::test]
async fn hints_and_output_schemas_are_listed_and_json_output_is_structured() {
    let (client, _toolbox) = probe_client().await;
    let listing = bounded("tools/list", client.peer().list_tools(None))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(listing).unwrap(),
        json!({"tools": [
            {
                "name": "forecast",
                "title": "Forecast",
                "description": "Today's forecast for a city.",
                "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                "outputSchema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
                    "required": ["city", "celsius"]
                },
                "annotations": {"title": "Forecast", "readOnlyHint": true, "openWorldHint": false}
            },
            {
                "name": "wait_forever",
                "description": "Waits for an answer that never comes.",
                "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "additionalProperties": false, "properties": {}, "required": []}
            }
        ]})
    );
    assert_eq!(
        call(&client, "forecast", json!({"city": "Gulu"})).await,
        structured(json!({"city": "Gulu", "celsius": 22}))
    );
}

#[tokio::test]
async fn a_cancelled_call_drops_the_tools_future_and_the_server_goes_on() {
    let (client, toolbox) = probe_client().await;
    let probe = toolbox.state();
    call_then_cancel(&client, "wait_forever", probe.started.notified()).await;
    bounded("the tool's future to be dropped", probe.dropped.notified()).await;
    assert_eq!(
        call(&client, "forecast", json!({"city": "Kampala"})).await["structuredContent"],
        json!({"city": "Kampala", "celsius": 22})
    );
}

/// A reading at a station.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Reading {
    /// The station's city.
    city: String,
    /// Degrees Celsius.
    celsius: i32,
}

/// Reads the station of a city.
#[skyl::tool(output_schema, read_only)]
fn read_station(
    /// The city.
    city: String,
) -> skyl::Json<Reading> {
    skyl::Json(Reading { city, celsius: 21 })
}

#[tokio::test]
async fn a_tool_returning_json_with_output_schema_lists_it_and_answers_structured() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(Toolbox::new().with(ReadStation)).serve(server_end));
    let client = bounded("the handshake", ().serve(client_end))
        .await
        .unwrap();
    let listing = bounded("tools/list", client.peer().list_tools(None))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(listing).unwrap(),
        json!({"tools": [{
            "name": "read_station",
            "description": "Reads the station of a city.",
            "inputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {"city": {"type": "string", "description": "The city."}},
                "required": ["city"]
            },
            "outputSchema": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "description": "A reading at a station.",
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The station's city."},
                    "celsius": {
                        "type": "integer",
                        "description": "Degrees Celsius.",
                        "minimum": -2147483648,
                        "maximum": 2147483647
                    }
                },
                "required": ["city", "celsius"]
            },
            "annotations": {"readOnlyHint": true}
        }]})
    );
    assert_eq!(
        call(&client, "read_station", json!({"city": "Gulu"})).await,
        structured(json!({"city": "Gulu", "celsius": 21}))
    );
}

// -------------------------------------------------------------------------------------------
// Content beyond text, served: each part as its MCP block, structured JSON as
// `structuredContent`, and the content read back by skyl's own client in a mounted toolbox.

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Draws the chart of a city.
#[skyl::tool]
fn chart(city: String) -> (String, Image) {
    (format!("The chart of {city}."), Image::png(PNG))
}

/// Records a short clip.
#[skyl::tool]
fn record() -> Audio {
    Audio::wav(b"RIFF\x24\0\0\0WAVEfmt ")
}

/// Finds the notes about a city.
#[skyl::tool]
fn notes(city: String) -> ToolOutput {
    ToolOutput::from(format!("Two notes about {city}."))
        .with(ResourceLink::new("file:///notes/a.md", "a.md").with_description("the first"))
        .with(Resource::text("file:///notes/b.md", "Dry season.").with_media_type("text/markdown"))
        .with(Content::json(json!({"count": 2})))
}

fn content_toolbox() -> Toolbox {
    Toolbox::new().with(Chart).with(Record).with(Notes)
}

#[tokio::test]
async fn images_audio_resources_and_structured_content_are_served_as_their_blocks() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(content_toolbox()).serve(server_end));
    let client = bounded("the handshake", ().serve(client_end))
        .await
        .unwrap();
    assert_eq!(
        call(&client, "chart", json!({"city": "Gulu"})).await,
        json!({
            "content": [
                {"type": "text", "text": "The chart of Gulu."},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            ],
            "isError": false
        })
    );
    assert_eq!(
        call(&client, "record", json!({})).await,
        json!({
            "content": [{"type": "audio", "data": "UklGRiQAAABXQVZFZm10IA==", "mimeType": "audio/wav"}],
            "isError": false
        })
    );
    assert_eq!(
        call(&client, "notes", json!({"city": "Gulu"})).await,
        json!({
            "content": [
                {"type": "text", "text": "Two notes about Gulu."},
                {"type": "resource_link", "uri": "file:///notes/a.md", "name": "a.md", "description": "the first"},
                {"type": "resource", "resource": {"uri": "file:///notes/b.md", "mimeType": "text/markdown", "text": "Dry season."}},
                {"type": "text", "text": "{\"count\":2}"}
            ],
            "structuredContent": {"count": 2},
            "isError": false
        })
    );
}

#[tokio::test]
async fn a_served_toolbox_mounted_again_keeps_its_content() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(content_toolbox()).serve(server_end));
    let remote = bounded("mounting", Remote::builder("far").connect(client_end))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_remote(&remote);
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::ToolCall(ToolCall::new("c1", "far_chart", json!({"city": "Gulu"}))),
            Part::ToolCall(ToolCall::new("c2", "far_notes", json!({"city": "Gulu"}))),
        ],
    };
    assert_eq!(
        bounded("a turn", toolbox.answer(&turn)).await,
        Message {
            role: Role::Tool,
            parts: vec![
                Part::ToolResult(ToolResult::success("c1", "The chart of Gulu.")),
                Part::ResultContent(ResultContent::new("c1", vec![Image::png(PNG).into()])),
                Part::ToolResult(ToolResult::success("c2", "Two notes about Gulu.")),
                Part::ResultContent(ResultContent::new(
                    "c2",
                    vec![
                        ResourceLink::new("file:///notes/a.md", "a.md")
                            .with_description("the first")
                            .into(),
                        Resource::text("file:///notes/b.md", "Dry season.")
                            .with_media_type("text/markdown")
                            .into(),
                        // MCP's text copy of the structured content, which says it once.
                        Content::text("{\"count\":2}"),
                    ]
                )),
            ],
        }
    );
    remote.close().await;
}

// -------------------------------------------------------------------------------------------
// Over HTTP, as a client of another SDK sends it.

/// Sends one HTTP/1.1 request to `address` and returns the response's head (status line and
/// headers), read up to the blank line that ends it.
async fn http_head(address: std::net::SocketAddr, request: String) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await.unwrap() == 0 {
            break;
        }
        head.push(byte[0]);
    }
    String::from_utf8(head).unwrap()
}

#[tokio::test]
async fn ending_an_http_session_is_answered_200_as_the_official_sdks_answer() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving = tokio::spawn(Server::new(weather_tools::toolbox()).serve_http(listener));

    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "python-like", "version": "1"}}
    })
    .to_string();
    let head = bounded(
        "initialize",
        http_head(
            address,
            format!(
                "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{initialize}",
                initialize.len()
            ),
        ),
    )
    .await;
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    let session = head
        .lines()
        .find_map(|line| line.strip_prefix("mcp-session-id: "))
        .unwrap_or_else(|| panic!("no session id in {head}"));

    let ended = bounded(
        "DELETE",
        http_head(
            address,
            format!(
                "DELETE /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nmcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            ),
        ),
    )
    .await;
    assert!(ended.starts_with("HTTP/1.1 200 OK\r\n"), "{ended}");
    serving.abort();
}

#[tokio::test]
async fn over_http_only_the_hosts_the_server_names_are_answered() {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "far", "version": "1"}}
    })
    .to_string();
    let request = |host: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{initialize}",
            initialize.len()
        )
    };
    for (server, host, status) in [
        // Unless named, only the loopback names: a page cannot reach the server through a name
        // of its own that resolves to it.
        (
            Server::new(weather_tools::toolbox()),
            "tools.example.test",
            "HTTP/1.1 403 Forbidden",
        ),
        (
            Server::new(weather_tools::toolbox()),
            "localhost",
            "HTTP/1.1 200 OK",
        ),
        (
            Server::new(weather_tools::toolbox()).with_allowed_hosts(["tools.example.test"]),
            "tools.example.test",
            "HTTP/1.1 200 OK",
        ),
        (
            Server::new(weather_tools::toolbox()).with_allowed_hosts(["tools.example.test"]),
            "localhost",
            "HTTP/1.1 403 Forbidden",
        ),
    ] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let serving = tokio::spawn(server.serve_http(listener));
        let head = bounded("initialize", http_head(address, request(host))).await;
        assert_eq!(head.lines().next(), Some(status), "{host}");
        serving.abort();
    }
}
