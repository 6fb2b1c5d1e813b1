//! The MCP server's `tools/call` handling, driven as a client drives it: JSON-RPC lines over an
//! in-process pipe to [`skyl::mcp::Server`], one session for every input (the handshake is done
//! once). No network: a `tokio::io::duplex` pipe, read and written on this thread.

use serde_json::{Value, json};
use skyl::Toolbox;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::runtime::Runtime;

/// A client's end of a served toolbox, past the handshake.
pub struct Session {
    runtime: Runtime,
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    next_id: u64,
    names: Vec<String>,
}

impl Session {
    /// Serves `toolbox` on a pipe and does the MCP handshake.
    pub fn start(toolbox: Toolbox) -> Session {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let names = toolbox.names().map(str::to_owned).collect();
        let (client, server) = tokio::io::duplex(1 << 20);
        runtime.spawn(skyl::mcp::Server::new(toolbox).serve(server));
        let (reader, writer) = tokio::io::split(client);
        let mut session = Session {
            runtime,
            reader: BufReader::new(reader),
            writer,
            next_id: 1,
            names,
        };
        let initialize = session.request(
            "initialize",
            Some(json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "skyl-fuzz", "version": "0"}
            })),
        );
        assert!(initialize.get("result").is_some(), "{initialize}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        let writer = &mut self.writer;
        self.runtime
            .block_on(writer.write_all(line.as_bytes()))
            .expect("the server reads");
    }

    /// Sends a request and returns the server's answer to it: its response, skipping any
    /// notification in between.
    fn request(&mut self, method: &str, params: Option<Value>) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            request["params"] = params;
        }
        self.send(&request);
        loop {
            let mut line = String::new();
            let reader = &mut self.reader;
            let read = self
                .runtime
                .block_on(reader.read_line(&mut line))
                .expect("the server writes");
            assert!(read > 0, "the server closed the session on {request}");
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|error| panic!("not JSON ({error}) from the server: {line}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message.get("id").is_some() {
                assert_eq!(
                    message["id"],
                    json!(id),
                    "the answer to another request: {line}"
                );
                return message;
            }
        }
    }

    /// Calls `name` with `arguments` (left out when `None`) and checks the answer: exactly one,
    /// to this request; a result with text content for a known tool and object arguments, whose
    /// failure names the tool; a protocol error naming the tool for an unknown one.
    pub fn check_call(&mut self, name: &str, arguments: Option<Value>) {
        let mut params = json!({"name": name});
        if let Some(arguments) = &arguments {
            params["arguments"] = arguments.clone();
        }
        let answer = self.request("tools/call", Some(params));
        let known = self.names.iter().any(|known| known == name);
        let object = arguments.as_ref().is_none_or(Value::is_object);
        match (answer.get("result"), answer.get("error")) {
            (Some(result), None) => {
                assert!(
                    known && object,
                    "a result for a call that cannot run: {answer}"
                );
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                assert!(!text.is_empty(), "a result without text: {answer}");
                let failed = result["isError"].as_bool().expect("isError is a boolean");
                if failed {
                    assert!(text.starts_with("ERROR: "), "{answer}");
                    assert!(
                        text.contains(name),
                        "a failure that does not name the tool: {answer}"
                    );
                }
            }
            (None, Some(error)) => {
                let message = error["message"].as_str().unwrap_or_default();
                assert!(!message.is_empty(), "an error without a message: {answer}");
                if object {
                    assert!(!known, "a protocol error for a call that can run: {answer}");
                    assert!(
                        message.contains("there is no tool named"),
                        "an unknown tool's error does not say so: {answer}"
                    );
                }
            }
            _ => panic!("neither a result nor an error: {answer}"),
        }
        // The session is still up.
        let pong = self.request("ping", None);
        assert_eq!(pong["result"], json!({}), "{pong}");
    }
}
