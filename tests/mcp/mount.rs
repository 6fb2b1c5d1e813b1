//! skyl mounting MCP servers: one written with rmcp alone (`rmcp_server`, a child process), and
//! skyl's own served in process and over HTTP. Every call is dispatched through a Toolbox, so
//! what is checked is what a model would read.

use std::time::Duration;

use serde_json::{Value, json};
use std::future::IntoFuture;

use skyl::agent::{Agent, Stop};
use skyl::mcp::{ConnectError, Remote, Server};
use skyl::testing::ScriptedModel;
use skyl::{
    Content, Message, Part, Role, ToolCall, ToolResult, Toolbox,
    content::{Image, Resource, ResourceLink, ResultContent},
};
use tokio::process::Command;

use crate::common::bounded;
use crate::weather_tools;

/// Says hello.
#[skyl::tool]
fn hello() -> &'static str {
    "hello"
}

fn rmcp_server() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rmcp_server"));
    command.stderr(std::process::Stdio::null());
    command
}

/// Answers one call through `toolbox`, as a model's turn would be answered.
async fn dispatch<S: Send + Sync + 'static>(
    toolbox: &Toolbox<S>,
    name: &str,
    arguments: Value,
) -> ToolResult {
    bounded(
        name,
        toolbox.dispatch(&ToolCall::new("call_1", name, arguments)),
    )
    .await
}

fn ok(content: &str) -> ToolResult {
    ToolResult::success("call_1", content)
}

fn failed(content: &str) -> ToolResult {
    ToolResult::error("call_1", content)
}

#[tokio::test]
async fn an_rmcp_servers_tools_sit_beside_local_ones() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with(Hello).with_remote(&files);

    let empty = json!({"type": "object", "properties": {}, "required": []});
    assert_eq!(
        serde_json::to_value(toolbox.definitions()).unwrap(),
        json!([
            {
                "name": "hello",
                "description": "Says hello.",
                "parameters": {"type": "object", "additionalProperties": false, "properties": {}, "required": []}
            },
            {
                "name": "files_echo_text",
                "description": "Repeats the text.",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                "annotations": {"title": "Echo", "readOnlyHint": true}
            },
            {"name": "files_media", "description": "Returns one block of every kind.", "parameters": empty},
            {"name": "files_fail", "description": "Fails the way a tool reports failure.", "parameters": empty},
            {
                "name": "files_refuse",
                "description": "Answers with a JSON-RPC error.",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": []}
            },
            {"name": "files_hang", "description": "Never answers.", "parameters": empty},
            {"name": "files_crash", "description": "Exits in the middle of the call.", "parameters": empty},
            {"name": "files_swap", "description": "Replaces echo.text with late.tool.", "parameters": empty},
            {"name": "files_count", "description": "Counts, as FastMCP answers an int.", "parameters": empty},
            {"name": "files_list", "description": "Lists, as FastMCP answers a list.", "parameters": empty}
        ])
    );

    let cases = [
        (
            "a call forwarded under the server's own name",
            "files_echo_text",
            json!({"text": "hi"}),
            ok("echo: hi"),
        ),
        (
            "every kind of content block, said as text by dispatch (which carries no content)",
            "files_media",
            json!({}),
            ok("one of each\n\
                [an image (image/png, 8 bytes)]\n\
                [resource file:///notes.txt]\nline one\n\
                [the resource file:///data.bin (application/octet-stream, 4 bytes)]\n\
                [a resource link file:///big.csv: big.csv]\n\
                {\"blocks\":5}"),
        ),
        (
            "FastMCP's int: its text and its structured content say it once",
            "files_count",
            json!({}),
            ok("3"),
        ),
        (
            "FastMCP's list: a text block per item, said once",
            "files_list",
            json!({}),
            ok("1\ntwo"),
        ),
        (
            "isError: true",
            "files_fail",
            json!({}),
            failed(
                "ERROR: files_fail failed: the disk is full. If the message says the arguments were wrong, call files_fail again with corrected ones; otherwise do not retry, and tell the user.",
            ),
        ),
        (
            "a JSON-RPC error",
            "files_refuse",
            json!({"n": -1}),
            failed(
                "ERROR: files_refuse failed: the MCP server \"files\" refused the call (n must be positive; JSON-RPC error -32602). Call files_refuse again with corrected arguments.",
            ),
        ),
        // Arguments are read as a local tool reads them: `null` is none, JSON text holding an
        // object is that object, and what is not an object is refused in the same words.
        (
            "arguments as JSON text",
            "files_echo_text",
            json!(r#"{"text": "three"}"#),
            ok("echo: three"),
        ),
        (
            "null arguments",
            "files_fail",
            Value::Null,
            failed(
                "ERROR: files_fail failed: the disk is full. If the message says the arguments were wrong, call files_fail again with corrected ones; otherwise do not retry, and tell the user.",
            ),
        ),
        (
            "arguments MCP cannot carry",
            "files_echo_text",
            json!(["hi"]),
            failed(
                "ERROR: files_echo_text was called with invalid arguments: the arguments must be a JSON object with one key per parameter, but they were an array: [\"hi\"]. Call files_echo_text again with corrected arguments.",
            ),
        ),
        (
            "the same arguments to a local tool",
            "hello",
            json!(["hi"]),
            failed(
                "ERROR: hello was called with invalid arguments: the arguments must be a JSON object with one key per parameter, but they were an array: [\"hi\"]. Call hello again with corrected arguments.",
            ),
        ),
        ("a local tool beside them", "hello", json!({}), ok("hello")),
    ];
    for (what, name, arguments, expected) in cases {
        assert_eq!(
            dispatch(&toolbox, name, arguments).await,
            expected,
            "{what}"
        );
    }

    // One turn calling local and remote tools answers each, in call order.
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::ToolCall(ToolCall::new(
                "a",
                "files_echo_text",
                json!({"text": "one"}),
            )),
            Part::ToolCall(ToolCall::new("b", "hello", json!({}))),
            Part::ToolCall(ToolCall::new(
                "c",
                "files_echo_text",
                json!({"text": "two"}),
            )),
        ],
    };
    let answer = bounded("a turn", toolbox.answer(&turn)).await;
    assert_eq!(
        answer.tool_results().cloned().collect::<Vec<_>>(),
        [
            ToolResult::success("a", "echo: one"),
            ToolResult::success("b", "hello"),
            ToolResult::success("c", "echo: two"),
        ]
    );

    // A turn keeps a server's content beside the result: the image and the resources as skyl's
    // content, the structured content as JSON, and the FastMCP-style result once.
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::ToolCall(ToolCall::new("m", "files_media", json!({}))),
            Part::ToolCall(ToolCall::new("n", "files_count", json!({}))),
        ],
    };
    assert_eq!(
        bounded("a turn with content", toolbox.answer(&turn)).await,
        Message {
            role: Role::Tool,
            parts: vec![
                Part::ToolResult(ToolResult::success("m", "one of each")),
                Part::ResultContent(ResultContent::new(
                    "m",
                    vec![
                        Image::from_base64("image/png", "iVBORw0KGgo=").into(),
                        Resource::text("file:///notes.txt", "line one")
                            .with_media_type("text/plain")
                            .into(),
                        Resource::blob(
                            "file:///data.bin",
                            "application/octet-stream",
                            [0u8, 1, 2, 3]
                        )
                        .into(),
                        ResourceLink::new("file:///big.csv", "big.csv").into(),
                        Content::json(json!({"blocks": 5})),
                    ]
                )),
                Part::ToolResult(ToolResult::success("n", "3")),
            ],
        }
    );

    // After close, a call says the connection was closed (not that the server must be restarted).
    files.close().await;
    assert_eq!(
        dispatch(&toolbox, "files_echo_text", json!({"text": "four"})).await,
        failed(
            "ERROR: files_echo_text failed: the connection to the MCP server \"files\" was closed. Do not call its tools again; they are no longer available in this session."
        )
    );
}

#[tokio::test]
async fn a_server_whose_tools_cannot_all_be_mounted_is_mounted_in_part_or_refused() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let names: Vec<String> = files
        .tools()
        .iter()
        .map(|tool| skyl::Tool::<()>::definition(tool).name.clone())
        .collect();
    // A local tool already has the name of one of the server's tools.
    let taken = names[1].clone();
    let local = || {
        let definition = skyl::ToolDefinition::new(
            taken.clone(),
            "A local tool of the same name.",
            json!({"type": "object"}),
        );
        Toolbox::new().with(skyl::DynamicTool::from_fn(definition, |_: Value| "local"))
    };

    let mut toolbox = local();
    let refused = toolbox.add_remote(&files);
    assert_eq!(
        refused.iter().map(ToString::to_string).collect::<Vec<_>>(),
        [skyl::tool::RegistrationError::DuplicateName {
            name: taken.clone()
        }
        .to_string()]
    );
    // The others are mounted, after the local tool, in the server's order.
    let mut expected = vec![taken.clone()];
    expected.extend(names.iter().filter(|name| **name != taken).cloned());
    assert_eq!(toolbox.names().collect::<Vec<_>>(), expected);

    assert!(matches!(
        local().try_with_remote(&files),
        Err(skyl::tool::RegistrationError::DuplicateName { name }) if name == taken
    ));
    files.close().await;
}

#[tokio::test]
async fn a_server_that_hangs_is_cut_off_by_the_call_timeout() {
    let files = bounded(
        "mounting",
        Remote::builder("files")
            .call_timeout(Duration::from_millis(300))
            .spawn(rmcp_server()),
    )
    .await
    .unwrap();
    let toolbox = Toolbox::new().with_remote(&files);
    assert_eq!(
        dispatch(&toolbox, "files_hang", json!({})).await,
        failed(
            "ERROR: files_hang failed: the MCP server \"files\" did not answer within 300ms. Do not retry with the same arguments; tell the user that the \"files\" server is not responding."
        )
    );
    // The server was told to give up, and still answers.
    assert_eq!(
        dispatch(&toolbox, "files_echo_text", json!({"text": "still here"})).await,
        ok("echo: still here")
    );
}

#[tokio::test]
async fn a_server_that_crashes_mid_call_gives_results_naming_it() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_remote(&files);
    let gone = failed(
        "ERROR: files_crash failed: the MCP server \"files\" exited with status 7 before answering. Do not call its tools again; tell the user that the \"files\" server stopped and needs to be restarted.",
    );
    assert_eq!(dispatch(&toolbox, "files_crash", json!({})).await, gone);
    assert_eq!(
        dispatch(&toolbox, "files_echo_text", json!({"text": "anyone?"})).await,
        failed(
            "ERROR: files_echo_text failed: the MCP server \"files\" exited with status 7 before answering. Do not call its tools again; tell the user that the \"files\" server stopped and needs to be restarted.",
        )
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_server_killed_mid_call_gives_a_result_naming_it() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_remote(&files);
    let pid = files.process_id().unwrap();
    let call = ToolCall::new("call_1", "files_hang", json!({}));
    let pending = toolbox.dispatch(&call);
    let kill = async {
        // Give the call time to reach the server; the result is the same if it has not.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let killed = tokio::process::Command::new("sh")
            .args(["-c", &format!("kill -9 {pid}")])
            .status()
            .await
            .unwrap();
        assert!(killed.success());
    };
    let (result, ()) = bounded("the call to a killed server", async {
        tokio::join!(pending, kill)
    })
    .await;
    assert_eq!(
        result,
        failed(
            "ERROR: files_hang failed: the MCP server \"files\" was killed by signal 9 before answering. Do not call its tools again; tell the user that the \"files\" server stopped and needs to be restarted."
        )
    );
}

#[tokio::test]
async fn a_changed_tool_list_refreshes_the_mounted_set() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let before = Toolbox::new().with_remote(&files);
    assert_eq!(
        dispatch(&before, "files_swap", json!({})).await,
        ok("swapped")
    );
    bounded("the refresh", files.changed()).await;

    let names: Vec<String> = files
        .tools()
        .iter()
        .map(|tool| skyl::Tool::<()>::definition(tool).name.clone())
        .collect();
    assert_eq!(
        names,
        [
            "files_late_tool",
            "files_media",
            "files_fail",
            "files_refuse",
            "files_hang",
            "files_crash",
            "files_swap",
            "files_count",
            "files_list"
        ]
    );
    // The toolbox built before keeps its tools; the one the server dropped says so.
    assert_eq!(
        dispatch(&before, "files_echo_text", json!({"text": "hi"})).await,
        failed(
            "ERROR: files_echo_text failed: the MCP server \"files\" no longer offers this tool. Do not call it again; use the tools you are offered now."
        )
    );
    let after = Toolbox::new().with_remote(&files);
    assert_eq!(
        dispatch(&after, "files_late_tool", json!({})).await,
        ok("late and present")
    );
}

#[tokio::test]
async fn skyl_mounts_skyl_in_process() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(weather_tools::toolbox()).serve(server_end));
    let weather = bounded(
        "mounting",
        Remote::builder("weather").prefix("").connect(client_end),
    )
    .await
    .unwrap();
    let toolbox = Toolbox::new().with_remote(&weather);
    assert_eq!(
        toolbox.names().collect::<Vec<_>>(),
        ["get_weather", "search_news", "convert_currency"]
    );
    assert_eq!(
        dispatch(&toolbox, "get_weather", json!({"city": "Gulu"})).await,
        ok("27C and cloudy in Gulu")
    );
    // The serving toolbox's prose arrives framed once, as the model would read it locally.
    assert_eq!(
        dispatch(&toolbox, "get_weather", json!({"city": 42})).await,
        failed(
            "ERROR: get_weather was called with invalid arguments: argument `city`: invalid type: integer `42`, expected a string. Call get_weather again with corrected arguments."
        )
    );
}

#[tokio::test]
async fn skyl_serves_and_mounts_over_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving = tokio::spawn(Server::new(weather_tools::toolbox()).serve_http(listener));
    let weather = bounded(
        "mounting over HTTP",
        Remote::builder("weather").connect_http(&format!("http://{address}/mcp")),
    )
    .await
    .unwrap();
    let toolbox = Toolbox::new().with_remote(&weather);
    assert_eq!(
        dispatch(&toolbox, "weather_get_weather", json!({"city": "Kampala"})).await,
        ok("22C and sunny in Kampala")
    );
    assert_eq!(
        dispatch(&toolbox, "weather_get_weather", json!({"city": 42})).await,
        failed(
            "ERROR: weather_get_weather was called with invalid arguments: argument `city`: invalid type: integer `42`, expected a string. Call weather_get_weather again with corrected arguments."
        )
    );
    assert_eq!(
        dispatch(
            &toolbox,
            "weather_search_news",
            json!({"query": "rust", "limit": 1})
        )
        .await,
        ok(r#"[{"title":"rust: story 1","source":"The Daily Example"}]"#)
    );
    assert_eq!(
        dispatch(
            &toolbox,
            "weather_convert_currency",
            json!({"amount": 1, "from": "USD", "to": "XAU"})
        )
        .await,
        failed(
            "ERROR: weather_convert_currency failed: no exchange rate is known for XAU. Do not retry; tell the user the result is unavailable."
        )
    );
    serving.abort();
}

#[tokio::test]
async fn servers_that_cannot_be_mounted_say_why() {
    let missing = Remote::spawn("ghost", Command::new("/nonexistent/skyl-no-such-server"))
        .await
        .unwrap_err();
    assert!(matches!(missing, ConnectError::Spawn { .. }));
    assert_eq!(
        missing.to_string(),
        "could not start the MCP server \"ghost\" (`/nonexistent/skyl-no-such-server`); check that the command is installed and on the PATH"
    );
    assert_eq!(
        std::error::Error::source(&missing).map(ToString::to_string),
        Some("No such file or directory (os error 2)".to_owned())
    );

    let mut quits = Command::new("sh");
    quits.args(["-c", "exit 3"]);
    let quit = bounded("a server that quits", Remote::spawn("quitter", quits))
        .await
        .unwrap_err();
    assert_eq!(
        quit.to_string(),
        "the MCP server \"quitter\" exited with status 3 before completing the handshake; run its command by hand to see why"
    );

    // A URL where nothing listens, and one where something that is not MCP answers.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = format!("http://{}/mcp", closed.local_addr().unwrap());
    drop(closed);
    let refused = bounded(
        "a URL nobody serves",
        Remote::builder("web").connect_http(&nowhere),
    )
    .await
    .unwrap_err();
    let chain = |error: &ConnectError| {
        let mut text = error.to_string();
        let mut cause = std::error::Error::source(error);
        while let Some(inner) = cause {
            text.push_str(" <- ");
            text.push_str(&inner.to_string());
            cause = inner.source();
        }
        text
    };
    // What failed for a URL, with the HTTP client's cause, and no stdio advice or rmcp type names.
    assert_eq!(
        chain(&refused),
        format!(
            "could not connect to the MCP server \"web\" at {nowhere}; check that the server is running and that the URL is its streamable HTTP endpoint (often ending in /mcp) <- Client error: error sending request for url ({nowhere})"
        )
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let not_mcp = format!("http://{}/mcp", listener.local_addr().unwrap());
    let answering = tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut request = [0_u8; 4096];
            let _ = stream.read(&mut request).await;
            let _ = stream
                .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found")
                .await;
        }
    });
    let missing = bounded(
        "a URL without MCP",
        Remote::builder("web").connect_http(&not_mcp),
    )
    .await
    .unwrap_err();
    assert_eq!(
        chain(&missing),
        format!(
            "could not connect to the MCP server \"web\" at {not_mcp}; check that the server is running and that the URL is its streamable HTTP endpoint (often ending in /mcp) <- unexpected server response: HTTP 404 Not Found: not found"
        )
    );
    answering.abort();

    let mut silent = Command::new("sh");
    silent.args(["-c", "sleep 60"]);
    let timed_out = bounded(
        "a server that says nothing",
        Remote::builder("mute")
            .connect_timeout(Duration::from_millis(300))
            .spawn(silent),
    )
    .await
    .unwrap_err();
    assert_eq!(
        timed_out.to_string(),
        "the MCP server \"mute\" did not answer within 300ms; check that it is an MCP server and is not waiting for something (a login, a prompt on its terminal), or raise RemoteBuilder::connect_timeout"
    );
}

/// The tool results of a run's transcript, in order.
fn results_of(transcript: &[Message]) -> Vec<ToolResult> {
    transcript
        .iter()
        .flat_map(|message| &message.parts)
        .filter_map(|part| match part {
            Part::ToolResult(result) => Some(result.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn an_agent_run_calls_mounted_and_local_tools_alike() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let model = ScriptedModel::new()
        .reply_calls([
            ToolCall::new("c1", "hello", json!({})),
            ToolCall::new("c2", "files_echo_text", json!({"text": "from the agent"})),
            ToolCall::new("c3", "files_fail", json!({})),
        ])
        .reply_text("Done.");
    let agent = Agent::new(
        model,
        Toolbox::new().with(Hello).with_remote(&files),
        "scripted",
    );

    let run = bounded(
        "the run",
        agent.run(vec![Message::user("Go.")]).into_future(),
    )
    .await
    .unwrap();

    assert_eq!(
        (run.stop(), run.steps(), run.text()),
        (&Stop::Answered, 2, "Done.".into())
    );
    assert_eq!(
        results_of(run.transcript()),
        [
            ToolResult::success("c1", "hello"),
            ToolResult::success("c2", "echo: from the agent"),
            ToolResult::error(
                "c3",
                "ERROR: files_fail failed: the disk is full. If the message says the arguments were wrong, call files_fail again with corrected ones; otherwise do not retry, and tell the user.",
            ),
        ]
    );
}

#[cfg(unix)]
#[tokio::test]
async fn an_agent_run_goes_on_when_a_mounted_server_is_killed_mid_run() {
    let files = bounded("mounting", Remote::spawn("files", rmcp_server()))
        .await
        .unwrap();
    let pid = files.process_id().unwrap();
    // Step 1 waits on a call the server never answers, and the server is killed meanwhile; in
    // step 2 the model tries the server again, then gives up in step 3.
    let model = ScriptedModel::new()
        .reply_calls([
            ToolCall::new("c1", "files_hang", json!({})),
            ToolCall::new("c2", "hello", json!({})),
        ])
        .reply_calls([ToolCall::new(
            "c3",
            "files_echo_text",
            json!({"text": "still there?"}),
        )])
        .reply_text("The files server stopped; please restart it.");
    let agent = Agent::new(
        model,
        Toolbox::new().with(Hello).with_remote(&files),
        "scripted",
    );
    let kill = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let killed = Command::new("sh")
            .args(["-c", &format!("kill -9 {pid}")])
            .status()
            .await
            .unwrap();
        assert!(killed.success());
    };

    let (run, ()) = bounded("the run with a killed server", async {
        tokio::join!(agent.run(vec![Message::user("Go.")]).into_future(), kill)
    })
    .await;
    let run = run.unwrap();

    let gone = |call_id: &str, tool: &str| {
        ToolResult::error(
            call_id,
            format!(
                "ERROR: {tool} failed: the MCP server \"files\" was killed by signal 9 before answering. Do not call its tools again; tell the user that the \"files\" server stopped and needs to be restarted."
            ),
        )
    };
    assert_eq!((run.stop(), run.steps()), (&Stop::Answered, 3));
    assert_eq!(
        results_of(run.transcript()),
        [
            gone("c1", "files_hang"),
            ToolResult::success("c2", "hello"),
            gone("c3", "files_echo_text"),
        ]
    );
}
