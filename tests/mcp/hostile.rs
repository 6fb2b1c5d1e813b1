//! Hostile input on stdio, sent line by line to the `mcp_server` example: each line that is not a
//! message gets the answer JSON-RPC 2.0 says (or, for a notification, none), and the server goes
//! on answering calls afterwards.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::common::{bounded, start};

/// A raw JSON-RPC conversation with the `mcp_server` example, past the handshake.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<crate::common::Recorder<ChildStdout>>,
}

impl Raw {
    async fn start() -> Raw {
        let (child, stdout, stdin, _seen) = start(env!("CARGO_BIN_EXE_mcp_server"));
        let mut raw = Raw {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        };
        let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"}
        }});
        let answer = raw.exchange(initialize.to_string().as_bytes()).await;
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "skyl-weather",
            "{answer}"
        );
        raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        raw
    }

    /// Writes `line` and its newline.
    async fn send(&mut self, line: &[u8]) {
        bounded("writing a line", async {
            self.stdin.write_all(line).await.unwrap();
            self.stdin.write_all(b"\n").await.unwrap();
            self.stdin.flush().await.unwrap();
        })
        .await;
    }

    /// Reads the server's next line, as JSON.
    async fn next(&mut self) -> Value {
        let mut line = String::new();
        let read = bounded("the server's answer", self.stdout.read_line(&mut line))
            .await
            .unwrap();
        assert!(read > 0, "the server closed stdout");
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
    }

    /// Sends `line` and returns the server's next line.
    async fn exchange(&mut self, line: &[u8]) -> Value {
        self.send(line).await;
        self.next().await
    }

    /// Checks that the server still answers: a ping, and a call of a tool.
    async fn still_answers(&mut self, id: i64) {
        let ping = json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        assert_eq!(
            self.exchange(ping.to_string().as_bytes()).await,
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        );
        let call = json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/call", "params": {
            "name": "get_weather", "arguments": {"city": "Kampala"}
        }});
        assert_eq!(
            self.exchange(call.to_string().as_bytes()).await,
            json!({"jsonrpc": "2.0", "id": id + 1, "result": {
                "content": [{"type": "text", "text": "22C and sunny in Kampala"}],
                "isError": false
            }})
        );
    }

    /// Closes stdin and checks that the server exits successfully.
    async fn end(mut self) {
        drop(self.stdin);
        let status = bounded("the server's exit", self.child.wait())
            .await
            .unwrap();
        assert!(status.success(), "{status}");
    }
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[tokio::test]
async fn lines_that_are_not_messages_get_json_rpc_answers_and_the_server_goes_on() {
    let mut server = Raw::start().await;
    let deep_array = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_request = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":{}"x"{}}}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let cases: [(&str, &[u8], Value); 11] = [
        (
            "text that is not JSON",
            b"hello, server",
            error(
                Value::Null,
                -32700,
                "Parse error: the message is not JSON (expected value at line 1 column 1)",
            ),
        ),
        (
            "JSON cut short",
            br#"{"jsonrpc":"2.0","id":1,"method":"#,
            error(
                Value::Null,
                -32700,
                "Parse error: the message is not JSON (EOF while parsing a value at line 1 column 33)",
            ),
        ),
        (
            "an array nested 100,000 deep",
            deep_array.as_bytes(),
            error(
                Value::Null,
                -32700,
                "Parse error: the message nests arrays and objects deeper than 128 levels",
            ),
        ),
        (
            "a request whose arguments nest 100,000 deep",
            deep_request.as_bytes(),
            error(
                Value::Null,
                -32700,
                "Parse error: the message nests arrays and objects deeper than 128 levels",
            ),
        ),
        (
            "JSON that is not an object",
            b"42",
            error(
                Value::Null,
                -32600,
                "Invalid Request: a message is a JSON object",
            ),
        ),
        (
            "an empty batch",
            b"[]",
            error(
                Value::Null,
                -32600,
                "Invalid Request: an empty array is not a message",
            ),
        ),
        (
            "a batch",
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            error(
                Value::Null,
                -32600,
                "Invalid Request: MCP has no batches (since 2025-06-18); send one message a line",
            ),
        ),
        (
            "another JSON-RPC version",
            br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
            error(
                json!(3),
                -32600,
                "Invalid Request: `jsonrpc` must be \"2.0\"",
            ),
        ),
        (
            "neither a request nor a response",
            br#"{"jsonrpc":"2.0","id":"four"}"#,
            error(
                json!("four"),
                -32600,
                "Invalid Request: a message has a `method` (a request or a notification), or a `result` or an `error` (a response)",
            ),
        ),
        (
            "a method that is not a string",
            br#"{"jsonrpc":"2.0","id":5,"method":7}"#,
            error(
                json!(5),
                -32600,
                "Invalid Request: `method` must be a string",
            ),
        ),
        (
            "an id that is neither a string nor a number",
            br#"{"jsonrpc":"2.0","id":{"n":6},"method":"ping"}"#,
            error(
                Value::Null,
                -32600,
                "Invalid Request: `id` must be a string or an integer",
            ),
        ),
    ];
    for (what, line, answer) in cases {
        assert_eq!(server.exchange(line).await, answer, "{what}");
    }
    server.still_answers(100).await;
    server.end().await;
}

#[tokio::test]
async fn params_that_do_not_fit_their_method_are_invalid_params_not_an_unknown_method() {
    let mut server = Raw::start().await;
    let cases = [
        (
            "arguments that are an array",
            json!({"name": "get_weather", "arguments": ["Kampala"]}),
            "ERROR: get_weather was called with invalid arguments: `arguments` must be a JSON object with one key per parameter, but it was an array: [\"Kampala\"]. Call get_weather again with its arguments as an object.",
        ),
        (
            "arguments that are JSON text",
            json!({"name": "get_weather", "arguments": "{\"city\": \"Kampala\"}"}),
            "ERROR: get_weather was called with invalid arguments: `arguments` must be a JSON object with one key per parameter, but it was a string: \"{\\\"city\\\": \\\"Kampala\\\"}\". Call get_weather again with its arguments as an object.",
        ),
        (
            "an unknown tool with arguments that are an array",
            json!({"name": "get_wether", "arguments": []}),
            "ERROR: there is no tool named \"get_wether\". Did you mean \"get_weather\"? The available tools are: convert_currency, get_weather, search_news. Call one of them by its exact name.",
        ),
        (
            "a name that is not a string",
            json!({"name": 7}),
            "Invalid params for `tools/call`: at `name`: invalid type: integer `7`, expected a string",
        ),
    ];
    for (id, (what, params, message)) in cases.into_iter().enumerate() {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        assert_eq!(
            server.exchange(request.to_string().as_bytes()).await,
            error(json!(id), -32602, message),
            "{what}"
        );
    }
    let listing = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": [1]});
    assert_eq!(
        server.exchange(listing.to_string().as_bytes()).await,
        error(
            json!(10),
            -32602,
            "Invalid params for `tools/list`: they must be an object, but they were an array: [1]"
        ),
    );
    let level = json!({"jsonrpc": "2.0", "id": 11, "method": "logging/setLevel", "params": {"level": "loud"}});
    assert_eq!(
        server.exchange(level.to_string().as_bytes()).await,
        error(
            json!(11),
            -32602,
            "Invalid params for `logging/setLevel`: at `level`: unknown variant `loud`, expected one of `debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`, `emergency`"
        ),
    );
    // A method MCP does not have is still one the server does not know.
    let unknown = json!({"jsonrpc": "2.0", "id": 12, "method": "tools/juggle"});
    assert_eq!(
        server.exchange(unknown.to_string().as_bytes()).await,
        error(json!(12), -32601, "tools/juggle"),
    );
    server.still_answers(100).await;
    server.end().await;
}

#[tokio::test]
async fn a_call_asking_for_a_task_of_2025_11_25_is_refused_before_it_runs() {
    let mut server = Raw::start().await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "get_weather", "arguments": {"city": "Kampala"}, "task": {"ttl": 60000}
    }});
    assert_eq!(
        server.exchange(call.to_string().as_bytes()).await,
        error(json!(3), -32601, &task_parameter_refused("get_weather"))
    );
    server.still_answers(4).await;
    server.end().await;
}

/// The prose of the -32601 answering a call of `tool` that asks for a task of 2025-11-25.
fn task_parameter_refused(tool: &str) -> String {
    format!(
        "Method not found: this server does not run a tools/call as a task of MCP 2025-11-25 (the `task` parameter; its tools list no `execution.taskSupport`, which means forbidden), so {tool} did not run; call it again without `task` to have its result in the response, or declare the `io.modelcontextprotocol/tasks` extension in the client's capabilities, for which a server that serves tasks answers the call with one"
    )
}

/// How many times `charge_card` ran.
static CHARGED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Charges a card.
#[skyl::tool]
fn charge_card(amount: u32) -> String {
    CHARGED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    format!("charged {amount}")
}

#[tokio::test]
async fn over_http_a_call_asking_for_a_task_of_2025_11_25_is_refused_and_does_not_run() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let toolbox = skyl::Toolbox::new().with(ChargeCard);
    let serving = tokio::spawn(skyl::mcp::Server::new(toolbox).serve_http(listener));
    let call = json!({"jsonrpc": "2.0", "id": "c1", "method": "tools/call", "params": {
        "name": "charge_card", "arguments": {"amount": 30}, "task": {"ttl": 60000}
    }});
    let headers = "mcp-protocol-version: 2025-11-25\r\n";
    let (status, answer) = bounded(
        "a POST",
        http_post(address, headers, call.to_string().into_bytes()),
    )
    .await;
    assert_eq!(
        (status.as_str(), answer),
        (
            "HTTP/1.1 200 OK",
            error(json!("c1"), -32601, &task_parameter_refused("charge_card"))
        )
    );
    assert_eq!(CHARGED.load(std::sync::atomic::Ordering::SeqCst), 0);
    serving.abort();
}

#[tokio::test]
async fn notifications_are_never_answered_even_unreadable_ones() {
    let mut server = Raw::start().await;
    server
        .send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}"#)
        .await;
    server
        .send(br#"{"jsonrpc":"2.0","method":"$/lsp/notification"}"#)
        .await;
    server.send(b"").await;
    // The next line is the ping's answer: nothing came before it.
    server.still_answers(100).await;
    server.end().await;
}

#[tokio::test]
async fn a_message_over_16_mib_is_answered_and_skipped_with_its_id_when_it_shows_one() {
    let mut server = Raw::start().await;
    let city = "x".repeat(20_000_000);
    let call = format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":"{city}"}}}},"id":12}}"#
    );
    assert_eq!(
        server.exchange(call.as_bytes()).await,
        error(
            json!(12),
            -32600,
            &format!(
                "Invalid Request: the message is {} bytes, over this server's limit of 16777216 bytes; it was not read",
                call.len()
            )
        )
    );
    let garbage = vec![b'{'; 20_000_000];
    assert_eq!(
        server.exchange(&garbage).await,
        error(
            Value::Null,
            -32600,
            "Invalid Request: the message is 20000000 bytes, over this server's limit of 16777216 bytes; it was not read"
        )
    );
    // Exactly at the limit is still read: a ping padded with spaces to 16 MiB.
    let ping = br#"{"jsonrpc":"2.0","id":13,"method":"ping"}"#;
    let mut padded = ping.to_vec();
    padded.resize(16 * 1024 * 1024, b' ');
    assert_eq!(
        server.exchange(&padded).await,
        json!({"jsonrpc": "2.0", "id": 13, "result": {}})
    );
    server.still_answers(100).await;
    server.end().await;
}

/// POSTs `body` to `address`, with `headers` (each line ending in CRLF) beside the usual ones,
/// and returns the status line and the body of the answer; the body is written beside the
/// reading, and a server that answers before reading it all may close the connection under the
/// writer.
async fn http_post(address: std::net::SocketAddr, headers: &str, body: Vec<u8>) -> (String, Value) {
    use tokio::io::AsyncReadExt;
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let (mut reading, mut writing) = stream.into_split();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{headers}content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let writer = tokio::spawn(async move {
        let _ = writing.write_all(head.as_bytes()).await;
        let _ = writing.write_all(&body).await;
        writing
    });
    let mut response = Vec::new();
    let _ = reading.read_to_end(&mut response).await;
    drop(writer.await);
    let response = String::from_utf8(response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.lines().next().unwrap_or_default().to_owned();
    let body = serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.to_owned()));
    (status, body)
}

#[tokio::test]
async fn over_http_a_body_that_is_not_a_message_is_a_400_with_json_rpcs_answer() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving =
        tokio::spawn(skyl::mcp::Server::new(crate::weather_tools::toolbox()).serve_http(listener));
    let cases = [
        (
            b"hello, server".to_vec(),
            "HTTP/1.1 400 Bad Request",
            error(
                Value::Null,
                -32700,
                "Parse error: the message is not JSON (expected value at line 1 column 1)",
            ),
        ),
        (
            "[".repeat(100_000).into_bytes(),
            "HTTP/1.1 400 Bad Request",
            error(
                Value::Null,
                -32700,
                "Parse error: the message nests arrays and objects deeper than 128 levels",
            ),
        ),
        (
            b"42".to_vec(),
            "HTTP/1.1 400 Bad Request",
            error(
                Value::Null,
                -32600,
                "Invalid Request: a message is a JSON object",
            ),
        ),
        (
            br#"{"jsonrpc":"2.0","id":3}"#.to_vec(),
            "HTTP/1.1 400 Bad Request",
            error(
                json!(3),
                -32600,
                "Invalid Request: a message has a `method` (a request or a notification), or a `result` or an `error` (a response)",
            ),
        ),
        (
            vec![b' '; 5 * 1024 * 1024],
            "HTTP/1.1 413 Payload Too Large",
            error(
                Value::Null,
                -32600,
                "Invalid Request: the message is over this server's limit of 4194304 bytes; it was not read",
            ),
        ),
    ];
    for (body, status, answer) in cases {
        let shown = String::from_utf8_lossy(&body[..body.len().min(30)]).into_owned();
        let (got_status, got) = bounded("a POST", http_post(address, "", body)).await;
        assert_eq!((got_status.as_str(), got), (status, answer), "{shown}");
    }
    serving.abort();
}

#[tokio::test]
async fn over_http_a_method_a_clients_revision_removed_is_a_404_not_found() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving =
        tokio::spawn(skyl::mcp::Server::new(crate::weather_tools::toolbox()).serve_http(listener));
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let at_2026 =
        |method: &str| format!("mcp-protocol-version: 2026-07-28\r\nmcp-method: {method}\r\n");
    let cases = [
        (
            at_2026("initialize"),
            json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"_meta": meta}}),
            "HTTP/1.1 404 Not Found",
            error(
                json!(7),
                -32601,
                "Method not found: `initialize` is not a method of MCP 2026-07-28, the revision this request names; a client of that revision discovers a server with `server/discover` and sends its protocol version, capabilities and name in each request's `_meta`",
            ),
        ),
        (
            at_2026("logging/setLevel"),
            json!({"jsonrpc": "2.0", "id": "level", "method": "logging/setLevel", "params": {"level": "debug", "_meta": meta}}),
            "HTTP/1.1 404 Not Found",
            error(
                json!("level"),
                -32601,
                "Method not found: `logging/setLevel` is not a method of MCP 2026-07-28, the revision this request names; a client of that revision asks for log messages with `io.modelcontextprotocol/logLevel` in each request's `_meta`",
            ),
        ),
        // Headers that do not name the method are refused first, as for any request.
        (
            "mcp-protocol-version: 2026-07-28\r\n".to_owned(),
            json!({"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {"_meta": meta}}),
            "HTTP/1.1 400 Bad Request",
            error(json!(9), -32020, "missing required Mcp-Method header"),
        ),
        // A revision rmcp does not know is rmcp's to refuse, as such.
        (
            "mcp-protocol-version: 2099-01-01\r\nmcp-method: initialize\r\n".to_owned(),
            json!({"jsonrpc": "2.0", "id": 10, "method": "initialize", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2099-01-01",
                "io.modelcontextprotocol/clientCapabilities": {}
            }}}),
            "HTTP/1.1 400 Bad Request",
            json!({
                "jsonrpc": "2.0", "id": 10,
                "error": {
                    "code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {
                        "requested": "2099-01-01",
                        "supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]
                    }
                }
            }),
        ),
        // rmcp's own answer to the other removed methods, the same status and code.
        (
            at_2026("ping"),
            json!({"jsonrpc": "2.0", "id": 8, "method": "ping", "params": {"_meta": meta}}),
            "HTTP/1.1 404 Not Found",
            error(json!(8), -32601, "ping"),
        ),
    ];
    for (headers, body, status, answer) in cases {
        let method = body["method"].clone();
        let (got_status, got) = bounded(
            "a POST",
            http_post(address, &headers, body.to_string().into_bytes()),
        )
        .await;
        assert_eq!((got_status.as_str(), got), (status, answer), "{method}");
    }
    // At 2025-11-25, `initialize` is the handshake still.
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "older", "version": "1"}}
    });
    let (status, _) = bounded(
        "an initialize at 2025-11-25",
        http_post(address, "", initialize.to_string().into_bytes()),
    )
    .await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    serving.abort();
}
