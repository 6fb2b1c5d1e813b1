//! A server over HTTP that requires bearer tokens, as MCP's authorization section asks of a
//! resource server: no token, a bad token, a token without the scope, a good token.

use serde_json::{Value, json};
use skyl::mcp::{Authorization, Grant, Remote, Server};
use skyl::{ToolCall, Toolbox};

use crate::common::{bounded, http_exchange};
use crate::weather_tools;

/// The tokens the test's authorization server would have issued.
async fn verify(token: String) -> Option<Grant> {
    match token.as_str() {
        "good" => Some(Grant::new(["weather:read", "profile"])),
        "no-scope" => Some(Grant::new(["profile"])),
        _ => None,
    }
}

/// A POST of `initialize` with `authorization` as its `Authorization` header, if any.
fn initialize(authorization: Option<&str>) -> String {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    })
    .to_string();
    let authorization = authorization
        .map(|value| format!("authorization: {value}\r\n"))
        .unwrap_or_default();
    format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{authorization}content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The value of the header `name` in a response's head.
fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(": ")?;
        key.eq_ignore_ascii_case(name).then_some(value)
    })
}

/// Checks a refusal whole: its status line, its `WWW-Authenticate` challenge and its JSON body.
fn assert_refused(head: &str, body: &str, status: &str, challenge: &str, expected: Value) {
    assert!(
        head.starts_with(&format!("HTTP/1.1 {status}\r\n")),
        "{head}"
    );
    assert_eq!(header(head, "www-authenticate"), Some(challenge));
    assert_eq!(serde_json::from_str::<Value>(body).unwrap(), expected);
}

/// Checks an answer whole: 200 OK, and its JSON body.
fn assert_answered(head: &str, body: &str, expected: Value) {
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert_eq!(serde_json::from_str::<Value>(body).unwrap(), expected);
}

#[tokio::test]
async fn a_server_with_authorization_lets_in_only_good_tokens_with_the_scope() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let url = format!("http://{address}/mcp");
    let authorization = Authorization::bearer(&url, "https://auth.example.com", verify)
        .require_scopes(["weather:read"]);
    let serving = tokio::spawn(
        Server::new(weather_tools::toolbox())
            .with_authorization(authorization)
            .serve_http(listener),
    );
    let metadata = format!("http://{address}/.well-known/oauth-protected-resource/mcp");

    let refusals = [
        // No token: 401, and the challenge says where the metadata is and which scope to ask for.
        (
            "no token",
            None,
            "401 Unauthorized",
            format!("Bearer resource_metadata=\"{metadata}\", scope=\"weather:read\""),
            json!({"error": "invalid_request", "error_description": "this MCP server needs an access token (Authorization: Bearer)"}),
        ),
        // A token the verifier refuses: 401, invalid_token.
        (
            "a bad token",
            Some("Bearer forged"),
            "401 Unauthorized",
            format!(
                "Bearer resource_metadata=\"{metadata}\", scope=\"weather:read\", error=\"invalid_token\", error_description=\"the access token is not valid\""
            ),
            json!({"error": "invalid_token", "error_description": "the access token is not valid"}),
        ),
        // A valid token without the scope: 403, insufficient_scope.
        (
            "a token without the scope",
            Some("Bearer no-scope"),
            "403 Forbidden",
            format!(
                "Bearer resource_metadata=\"{metadata}\", scope=\"weather:read\", error=\"insufficient_scope\", error_description=\"the access token lacks a scope this server requires\""
            ),
            json!({"error": "insufficient_scope", "error_description": "the access token lacks a scope this server requires"}),
        ),
    ];
    for (what, token, status, challenge, expected) in refusals {
        let (head, body) = bounded(what, http_exchange(address, initialize(token))).await;
        assert_refused(&head, &body, status, &challenge, expected);
    }

    // The metadata document, at the address the challenge gave (and at the root form).
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let (head, body) = bounded(
            "the metadata document",
            http_exchange(
                address,
                format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n"),
            ),
        )
        .await;
        assert_answered(
            &head,
            &body,
            json!({
                "resource": url,
                "authorization_servers": ["https://auth.example.com"],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["weather:read"]
            }),
        );
    }

    // A good token: rmcp's client, through skyl's Remote, mounts the tools and calls one.
    let weather = bounded(
        "mounting with a good token",
        Remote::builder("weather")
            .bearer_token("good")
            .connect_http(&url),
    )
    .await
    .unwrap();
    let toolbox = Toolbox::new().with_remote(&weather);
    let result = bounded(
        "a call",
        toolbox.dispatch(&ToolCall::new(
            "c",
            "weather_get_weather",
            json!({"city": "Gulu"}),
        )),
    )
    .await;
    assert_eq!(result.content, "27C and cloudy in Gulu");
    weather.close().await;

    // Without one, mounting fails, saying so.
    let refused = bounded(
        "mounting without a token",
        Remote::builder("weather").connect_http(&url),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(refused, skyl::mcp::ConnectError::Http { .. }),
        "{refused}"
    );
    serving.abort();
}

/// A POST of `message` to a stateless server, with `token` as its bearer token.
fn post(message: &Value, token: &str) -> String {
    let body = message.to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nauthorization: Bearer {token}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The tokens of a server where converting money needs a scope of its own.
async fn verify_money(token: String) -> Option<Grant> {
    match token.as_str() {
        "reader" => Some(Grant::new(["weather:read"])),
        "banker" => Some(Grant::new(["weather:read", "money:convert"])),
        _ => None,
    }
}

#[tokio::test]
async fn a_tool_with_scopes_of_its_own_asks_for_them_when_a_token_lacks_them() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let url = format!("http://{address}/mcp");
    let authorization = Authorization::bearer(&url, "https://auth.example.com", verify_money)
        .require_scopes(["weather:read"])
        .require_tool_scopes("convert_currency", ["money:convert"]);
    let serving = tokio::spawn(
        Server::new(weather_tools::toolbox())
            .with_stateless_http()
            .with_authorization(authorization)
            .serve_http(listener),
    );
    let call = |tool: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let convert = call(
        "convert_currency",
        json!({"amount": 10, "from": "USD", "to": "UGX"}),
    );

    // A token without the tool's scope: 403, naming every scope the call needs (MCP's step-up).
    let (head, body) = bounded(
        "a call without the tool's scope",
        http_exchange(address, post(&convert, "reader")),
    )
    .await;
    let metadata = format!("http://{address}/.well-known/oauth-protected-resource/mcp");
    assert_refused(
        &head,
        &body,
        "403 Forbidden",
        &format!(
            "Bearer resource_metadata=\"{metadata}\", scope=\"weather:read money:convert\", error=\"insufficient_scope\", error_description=\"the access token lacks a scope the tool convert_currency requires\""
        ),
        json!({"error": "insufficient_scope", "error_description": "the access token lacks a scope the tool convert_currency requires"}),
    );

    // With it, the call is answered.
    let (head, body) = bounded(
        "a call with the tool's scope",
        http_exchange(address, post(&convert, "banker")),
    )
    .await;
    assert_answered(
        &head,
        &body,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "10 USD = 37000.00 UGX"}],
            "isError": false
        }}),
    );

    // A tool that needs no scope of its own is answered with the server's scope alone.
    let weather = call("get_weather", json!({"city": "Gulu"}));
    let (head, body) = bounded(
        "a call of a tool without scopes",
        http_exchange(address, post(&weather, "reader")),
    )
    .await;
    assert_answered(
        &head,
        &body,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "27C and cloudy in Gulu"}],
            "isError": false
        }}),
    );

    // tools/list shows every tool to every token: a client must see a tool to ask for its scope.
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    let (head, body) = bounded("tools/list", http_exchange(address, post(&list, "reader"))).await;
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    let listed: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["get_weather", "search_news", "convert_currency"]);

    // The metadata document lists the tool's scope as one a client may ask for.
    let (_, body) = bounded(
        "the metadata document",
        http_exchange(
            address,
            "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n".to_owned(),
        ),
    )
    .await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({
            "resource": url,
            "authorization_servers": ["https://auth.example.com"],
            "bearer_methods_supported": ["header"],
            "scopes_supported": ["weather:read", "money:convert"]
        })
    );
    serving.abort();
}

#[test]
#[should_panic(
    expected = "Server::http_service cannot check the authorization given with Server::with_authorization (serve_http checks it, in front of the service), so the tools would be served to anyone: serve with serve_http, or leave with_authorization out and put your router's own authorization in front of the service"
)]
fn a_tower_service_of_a_server_with_authorization_is_refused() {
    let authorization =
        Authorization::bearer("http://127.0.0.1:1/mcp", "https://auth.example.com", verify);
    let _service = Server::new(weather_tools::toolbox())
        .with_authorization(authorization)
        .http_service();
}
