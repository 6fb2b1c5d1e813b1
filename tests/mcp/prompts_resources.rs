//! Prompts and resources served beside tools, read by rmcp's client over a duplex pipe (as
//! stdio) and over streamable HTTP, at 2025-11-25 and at 2026-07-28: each answer compared whole,
//! the failures (an argument that does not read, a template's variable that does not read, a
//! panic in a read, an unknown URI) included.

use serde_json::{Value, json};
use skyl::mcp::rmcp::ServiceExt;
use skyl::mcp::rmcp::model::{
    ClientRequest, CompleteRequest, GetPromptRequest, GetPromptRequestParams, ListPromptsRequest,
    ListResourceTemplatesRequest, ListResourcesRequest, ProtocolVersion, ReadResourceRequest,
    ReadResourceRequestParams,
};
use skyl::mcp::rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError};
use skyl::mcp::rmcp::transport::IntoTransport;
use skyl::mcp::{
    DynamicPrompt, DynamicResource, Failure, PromptArgument, PromptDefinition, PromptMessage,
    ResourceDefinition, Server,
};
use skyl::{
    Toolbox,
    content::{Image, Resource},
};

use crate::common::{Client, bounded, object};

/// The bytes of a PNG: its signature and nothing more.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A server of two prompts and four resources (one a template, one that panics).
fn server() -> Server {
    let chart = DynamicPrompt::from_fn(
        PromptDefinition::new("describe_chart", "Asks for a chart's description.").with_argument(
            PromptArgument::required("weeks", "How many weeks it spans."),
        ),
        |arguments| -> Result<Vec<PromptMessage>, Failure> {
            let weeks: u32 = arguments.get("weeks")?;
            Ok(vec![
                PromptMessage::user(format!("Describe this chart of {weeks} weeks.")),
                PromptMessage::user(Image::png(PNG)),
                PromptMessage::assistant("It rises."),
            ])
        },
    );
    let quote = DynamicPrompt::from_fn(
        PromptDefinition::new("quote", "Quotes a note.")
            .with_argument(PromptArgument::optional("note", "The note's URI.")),
        |arguments| -> Result<PromptMessage, Failure> {
            let note: Option<String> = arguments.get("note")?;
            let note = note.unwrap_or_else(|| "notes://today".to_owned());
            Ok(PromptMessage::user(
                Resource::text(note, "Buy milk.").with_media_type("text/plain"),
            ))
        },
    );
    let logo = DynamicResource::from_fn(
        ResourceDefinition::new("assets://logo", "logo")
            .with_description("The logo.")
            .with_mime_type("image/png"),
        |_| PNG.to_vec(),
    );
    let today = DynamicResource::from_fn(
        ResourceDefinition::new("notes://today", "today").with_mime_type("text/plain"),
        |_| "Buy milk.",
    );
    let day = DynamicResource::from_fn(
        ResourceDefinition::new("notes://days/{day}", "day").with_mime_type("text/plain"),
        |read| -> Result<String, Failure> {
            let day: u8 = read.variable("day")?;
            Ok(format!("The notes of day {day}."))
        },
    )
    .with_completion("day", |typed| {
        ["1", "2", "12"]
            .iter()
            .filter(|d| d.starts_with(typed))
            .map(|d| d.to_string())
            .collect()
    });
    let broken = DynamicResource::from_fn(
        ResourceDefinition::new("notes://broken", "broken"),
        |_| -> String { panic!("the notes file is corrupt") },
    );
    let crash = DynamicPrompt::from_fn(
        PromptDefinition::new("crash", "Never gives its messages."),
        |_| -> String { panic!("the template file is missing") },
    );
    Server::new(Toolbox::new())
        .with_prompt(chart)
        .with_prompt(quote)
        .with_prompt(crash)
        .with_resource(logo)
        .with_resource(today)
        .with_resource(day)
        .with_resource(broken)
}

/// The result of `request`, or its JSON-RPC error as `{"error": ...}`.
async fn ask(client: &Client, request: ClientRequest) -> Value {
    match bounded("a request", client.peer().send_request(request)).await {
        Ok(result) => serde_json::to_value(result).unwrap(),
        Err(ServiceError::McpError(error)) => {
            json!({"error": serde_json::to_value(error).unwrap()})
        }
        Err(other) => panic!("the request failed outside MCP: {other}"),
    }
}

fn get(name: &str, arguments: Value) -> ClientRequest {
    let params = GetPromptRequestParams::new(name).with_arguments(object(arguments));
    ClientRequest::GetPromptRequest(GetPromptRequest::new(params))
}

fn list_prompts() -> ClientRequest {
    ClientRequest::ListPromptsRequest(ListPromptsRequest::default())
}

fn list_resources() -> ClientRequest {
    ClientRequest::ListResourcesRequest(ListResourcesRequest::default())
}

fn list_templates() -> ClientRequest {
    ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest::default())
}

fn read(uri: &str) -> ClientRequest {
    ClientRequest::ReadResourceRequest(ReadResourceRequest::new(ReadResourceRequestParams::new(
        uri,
    )))
}

/// Every request of the test and its whole answer; `modern` is a client at 2026-07-28.
async fn exercise(client: &Client, modern: bool) {
    // At 2026-07-28 a result says it is complete, and lists and reads carry caching hints.
    let complete = |mut value: Value, cached: bool| {
        if modern {
            value["resultType"] = json!("complete");
            if cached {
                value["ttlMs"] = json!(0);
                value["cacheScope"] = json!("private");
            }
        }
        value
    };
    let completion = serde_json::from_value(json!({
        "ref": {"type": "ref/resource", "uri": "notes://days/{day}"},
        "argument": {"name": "day", "value": "1"}
    }))
    .unwrap();
    // Each request, and its whole answer.
    let exchanges: Vec<(ClientRequest, Value)> = vec![
        (
            list_prompts(),
            complete(
                json!({"prompts": [
                    {"name": "describe_chart", "description": "Asks for a chart's description.",
                     "arguments": [{"name": "weeks", "description": "How many weeks it spans.", "required": true}]},
                    {"name": "quote", "description": "Quotes a note.",
                     "arguments": [{"name": "note", "description": "The note's URI.", "required": false}]},
                    {"name": "crash", "description": "Never gives its messages."}
                ]}),
                true,
            ),
        ),
        (
            get("describe_chart", json!({"weeks": "3"})),
            complete(
                json!({"description": "Asks for a chart's description.", "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Describe this chart of 3 weeks."}},
                    {"role": "user", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
                    {"role": "assistant", "content": {"type": "text", "text": "It rises."}}
                ]}),
                false,
            ),
        ),
        (
            get("quote", json!({})),
            complete(
                json!({"description": "Quotes a note.", "messages": [
                    {"role": "user", "content": {"type": "resource", "resource":
                        {"uri": "notes://today", "mimeType": "text/plain", "text": "Buy milk."}}}
                ]}),
                false,
            ),
        ),
        (
            get("describe_chart", json!({"weeks": "many"})),
            json!({"error": {"code": -32602, "message": "the argument \"weeks\" of the prompt \"describe_chart\" does not read: invalid type: string \"many\", expected u32; get it again with a value that does (completion/complete suggests values)"}}),
        ),
        (
            get("describe_chart", json!({})),
            json!({"error": {"code": -32602, "message": "the prompt \"describe_chart\" needs the argument \"weeks\", which the request does not give; get it again with a value for \"weeks\""}}),
        ),
        (
            get("quotes", json!({})),
            json!({"error": {"code": -32602, "message": "there is no prompt named \"quotes\". Did you mean \"quote\"? The prompts are: \"crash\", \"describe_chart\", \"quote\". Get one of them by its exact name (prompts/list lists them)."}}),
        ),
        (
            list_resources(),
            complete(
                json!({"resources": [
                    {"uri": "assets://logo", "name": "logo", "description": "The logo.", "mimeType": "image/png"},
                    {"uri": "notes://today", "name": "today", "mimeType": "text/plain"},
                    {"uri": "notes://broken", "name": "broken"}
                ]}),
                true,
            ),
        ),
        (
            list_templates(),
            complete(
                json!({"resourceTemplates": [
                    {"uriTemplate": "notes://days/{day}", "name": "day", "mimeType": "text/plain"}
                ]}),
                true,
            ),
        ),
        (
            read("assets://logo"),
            complete(
                json!({"contents": [{"uri": "assets://logo", "mimeType": "image/png", "blob": "iVBORw0KGgo="}]}),
                true,
            ),
        ),
        (
            read("notes://days/12"),
            complete(
                json!({"contents": [{"uri": "notes://days/12", "mimeType": "text/plain", "text": "The notes of day 12."}]}),
                true,
            ),
        ),
        (
            read("notes://days/twelfth"),
            json!({"error": {"code": -32602, "message": "the URI \"notes://days/twelfth\" fits the template \"notes://days/{day}\", but its variable \"day\" does not read: invalid type: string \"twelfth\", expected u8; read a URI whose \"day\" does (completion/complete suggests values)", "data": {"uri": "notes://days/twelfth"}}}),
        ),
        (
            read("notes://broken"),
            json!({"error": {"code": -32603, "message": "reading the resource \"notes://broken\" crashed (the notes file is corrupt); this is a bug in the server, not in the request: do not read it again, and tell the server's maintainers", "data": {"uri": "notes://broken"}}}),
        ),
        // Not found: -32002 before 2026-07-28, -32602 from it on (SEP-2164), with the URI.
        (
            read("notes://tomorrow"),
            json!({"error": {"code": if modern { -32602 } else { -32002 }, "message": "there is no resource at \"notes://tomorrow\"; this server's resources and templates are: \"assets://logo\", \"notes://broken\", \"notes://days/{day}\", \"notes://today\". Read one of them (resources/list and resources/templates/list list them)", "data": {"uri": "notes://tomorrow"}}}),
        ),
        (
            ClientRequest::CompleteRequest(CompleteRequest::new(completion)),
            complete(
                json!({"completion": {"values": ["1", "12"], "total": 2, "hasMore": false}}),
                false,
            ),
        ),
    ];
    for (request, answer) in exchanges {
        let asked = format!("{request:?}");
        assert_eq!(ask(client, request).await, answer, "{asked}");
    }
}

/// [`exercise`] through `client`, then the client closed.
async fn exercised(client: Client, modern: bool) {
    exercise(&client, modern).await;
    client.cancel().await.unwrap();
}

/// The server's capabilities as the handshake (or discovery) gives them.
fn capabilities(client: &Client) -> Value {
    serde_json::to_value(&client.peer_info().unwrap().capabilities).unwrap()
}

#[tokio::test]
async fn prompts_and_resources_over_a_pipe_at_2025_11_25() {
    let client = pipe_client(server(), false).await;
    assert_eq!(
        capabilities(&client),
        json!({
            "completions": {},
            "logging": {},
            "prompts": {"listChanged": false},
            "resources": {"subscribe": true, "listChanged": false},
            "tools": {"listChanged": false}
        })
    );
    exercised(client, false).await;
}

#[tokio::test]
async fn prompts_and_resources_over_a_pipe_at_2026_07_28() {
    exercised(pipe_client(server(), true).await, true).await;
}

/// The answer to `request` without its list of `items` (compared whole in `exercise`).
async fn without(client: &Client, request: ClientRequest, items: &str) -> Value {
    let mut answer = ask(client, request).await;
    answer.as_object_mut().unwrap().remove(items);
    answer
}

#[tokio::test]
async fn the_caching_hints_a_server_gives_are_on_every_list_and_read_at_2026_07_28_only() {
    use skyl::mcp::rmcp::model::{CacheScope, ListToolsRequest};
    for modern in [true, false] {
        let hinted =
            server().with_cache_hints(std::time::Duration::from_secs(60), CacheScope::Public);
        let client = pipe_client(hinted, modern).await;
        let hints = if modern {
            json!({"resultType": "complete", "ttlMs": 60000, "cacheScope": "public"})
        } else {
            json!({})
        };
        let lists = [
            (
                ClientRequest::ListToolsRequest(ListToolsRequest::default()),
                "tools",
            ),
            (list_prompts(), "prompts"),
            (list_resources(), "resources"),
            (list_templates(), "resourceTemplates"),
            (read("notes://today"), "contents"),
        ];
        for (request, items) in lists {
            assert_eq!(
                without(&client, request, items).await,
                hints,
                "{items}, modern: {modern}"
            );
        }
        client.cancel().await.unwrap();
    }
}

/// An rmcp client over streamable HTTP to `server`, at `version` (2026-07-28 by discovery).
async fn http_client(server: Server, modern: bool) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(server.serve_http(listener));
    // rmcp's client builds a reqwest client, which finds no TLS provider of its own when the
    // workspace's build turns on skyl's `http` feature (reqwest's `rustls-no-provider`); a test
    // process installs rustls's default one (installed already is fine).
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let transport = skyl::mcp::rmcp::transport::StreamableHttpClientTransport::from_uri(format!(
        "http://{address}/mcp"
    ));
    connected(transport, modern).await
}

/// An rmcp client over a duplex pipe (as stdio) to `server`, at `version` (2026-07-28 by
/// discovery).
async fn pipe_client(server: Server, modern: bool) -> Client {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(server_end));
    connected(client_end, modern).await
}

/// An rmcp client over `transport`: at 2025-11-25 by the handshake, or (`modern`) at 2026-07-28
/// by discovery.
async fn connected<T, E, A>(transport: T, modern: bool) -> Client
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    if modern {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        bounded(
            "the discovery",
            ().serve_with_lifecycle(transport, lifecycle),
        )
        .await
        .unwrap()
    } else {
        bounded("the handshake", ().serve(transport)).await.unwrap()
    }
}

#[tokio::test]
async fn prompts_and_resources_over_http_at_2025_11_25() {
    exercised(http_client(server(), false).await, false).await;
}

#[tokio::test]
async fn prompts_and_resources_over_http_at_2026_07_28() {
    exercised(http_client(server(), true).await, true).await;
}

// The same through `#[prompt]` and `#[resource]`.

/// How a review is worded.
#[derive(serde::Deserialize)]
#[serde(rename_all = "lowercase")]
enum Tone {
    Kind,
    Blunt,
}

/// Asks for a review of a piece of code.
#[skyl::prompt(title = "Code review")]
fn code_review(
    /// The code to review.
    code: String,
    /// How to say it; kind unless given.
    tone: Option<Tone>,
) -> Vec<PromptMessage> {
    let tone = match tone {
        Some(Tone::Blunt) => "bluntly",
        Some(Tone::Kind) | None => "kindly",
    };
    vec![
        PromptMessage::user(format!("Review this code, {tone}:")),
        PromptMessage::user(Resource::text("code://snippet", code).with_media_type("text/x-rust")),
    ]
}

/// Shows the logo.
#[skyl::prompt(name = "show_logo")]
async fn logo_prompt() -> Result<PromptMessage, String> {
    Ok(PromptMessage::user(Image::png(PNG)))
}

/// The notes of one day of the month.
#[skyl::resource(uri_template = "notes://days/{day}", mime_type = "text/plain")]
async fn day(day: u8) -> Result<String, String> {
    if day > 31 {
        return Err(format!("there is no day {day}"));
    }
    Ok(format!("The notes of day {day}."))
}

/// The notes of a tone.
#[skyl::resource(uri_template = "notes://tones/{tone}")]
fn tone_notes(tone: Tone) -> String {
    match tone {
        Tone::Kind => "Be kind.".to_owned(),
        Tone::Blunt => "Be blunt.".to_owned(),
    }
}

/// The logo.
#[skyl::resource(uri = "assets://logo", mime_type = "image/png")]
fn logo() -> Vec<u8> {
    PNG.to_vec()
}

#[tokio::test]
async fn prompts_and_resources_made_by_the_attributes() {
    let server = Server::new(Toolbox::new())
        .with_prompt(CodeReview)
        .with_prompt(LogoPrompt)
        .with_resource(Day)
        .with_resource(ToneNotes)
        .with_resource(Logo);
    let client = pipe_client(server, false).await;
    assert_eq!(
        ask(&client, list_prompts()).await,
        json!({"prompts": [
            {"name": "code_review", "title": "Code review", "description": "Asks for a review of a piece of code.",
             "arguments": [
                {"name": "code", "description": "The code to review.", "required": true},
                {"name": "tone", "description": "How to say it; kind unless given.", "required": false}
             ]},
            {"name": "show_logo", "description": "Shows the logo."}
        ]})
    );
    assert_eq!(
        ask(
            &client,
            get(
                "code_review",
                json!({"code": "fn main() {}", "tone": "blunt"})
            )
        )
        .await,
        json!({"description": "Asks for a review of a piece of code.", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Review this code, bluntly:"}},
            {"role": "user", "content": {"type": "resource", "resource":
                {"uri": "code://snippet", "mimeType": "text/x-rust", "text": "fn main() {}"}}}
        ]})
    );
    assert_eq!(
        ask(
            &client,
            get("code_review", json!({"code": "x", "tone": "rude"}))
        )
        .await,
        json!({"error": {"code": -32602, "message": "the argument \"tone\" of the prompt \"code_review\" does not read: unknown variant `rude`, expected `kind` or `blunt`; get it again with a value that does (completion/complete suggests values)"}})
    );
    assert_eq!(
        ask(&client, get("show_logo", json!({}))).await,
        json!({"description": "Shows the logo.", "messages": [
            {"role": "user", "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}}
        ]})
    );
    // An enum's variants complete its argument, and its template variable, with no code.
    for reference in [
        json!({"type": "ref/prompt", "name": "code_review"}),
        json!({"type": "ref/resource", "uri": "notes://tones/{tone}"}),
    ] {
        let completion = serde_json::from_value(json!({
            "ref": reference, "argument": {"name": "tone", "value": "B"}
        }))
        .unwrap();
        assert_eq!(
            ask(
                &client,
                ClientRequest::CompleteRequest(CompleteRequest::new(completion))
            )
            .await,
            json!({"completion": {"values": ["blunt"], "total": 1, "hasMore": false}})
        );
    }
    assert_eq!(
        ask(&client, list_templates()).await,
        json!({"resourceTemplates": [
            {"uriTemplate": "notes://days/{day}", "name": "day", "description": "The notes of one day of the month.", "mimeType": "text/plain"},
            {"uriTemplate": "notes://tones/{tone}", "name": "tone_notes", "description": "The notes of a tone."}
        ]})
    );
    assert_eq!(
        ask(&client, read("notes://days/7")).await,
        json!({"contents": [{"uri": "notes://days/7", "mimeType": "text/plain", "text": "The notes of day 7."}]})
    );
    assert_eq!(
        ask(&client, read("notes://days/40")).await,
        json!({"error": {"code": -32603, "message": "reading the resource \"notes://days/40\" failed: there is no day 40; this is the server's error, not the request's: try again later, or tell the server's maintainers", "data": {"uri": "notes://days/40"}}})
    );
    assert_eq!(
        ask(&client, read("notes://tones/kind")).await,
        json!({"contents": [{"uri": "notes://tones/kind", "mimeType": "text/plain", "text": "Be kind."}]})
    );
    assert_eq!(
        ask(&client, read("assets://logo")).await,
        json!({"contents": [{"uri": "assets://logo", "mimeType": "image/png", "blob": "iVBORw0KGgo="}]})
    );
    client.cancel().await.unwrap();
}

/// A notebook whose methods are a prompt and a resource template.
struct Notebook {
    owner: String,
}

#[skyl::served]
impl Notebook {
    /// Asks for a summary of the notebook.
    #[prompt]
    fn summarize(
        &self,
        /// How many lines.
        lines: u8,
    ) -> String {
        format!("Summarize the notes of {} in {lines} lines.", self.owner)
    }

    /// A page of the notebook.
    #[resource(uri_template = "notebook://pages/{page}", mime_type = "text/plain")]
    async fn page(&self, page: u32) -> String {
        format!("Page {page} of {}'s notebook.", self.owner)
    }
}

#[tokio::test]
async fn the_methods_of_a_served_block_hold_their_instance() {
    let notebook = Notebook {
        owner: "Ada".to_owned(),
    };
    let server = Server::new(Toolbox::new()).with_served(notebook);
    let client = pipe_client(server, false).await;
    assert_eq!(
        ask(&client, list_prompts()).await,
        json!({"prompts": [{"name": "summarize", "description": "Asks for a summary of the notebook.",
            "arguments": [{"name": "lines", "description": "How many lines.", "required": true}]}]})
    );
    assert_eq!(
        ask(&client, get("summarize", json!({"lines": "3"}))).await,
        json!({"description": "Asks for a summary of the notebook.", "messages": [
            {"role": "user", "content": {"type": "text", "text": "Summarize the notes of Ada in 3 lines."}}
        ]})
    );
    assert_eq!(
        ask(&client, read("notebook://pages/12")).await,
        json!({"contents": [{"uri": "notebook://pages/12", "mimeType": "text/plain", "text": "Page 12 of Ada's notebook."}]})
    );
    client.cancel().await.unwrap();
}
