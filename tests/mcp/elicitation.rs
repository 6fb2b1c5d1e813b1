//! Approval meets elicitation, both ways. Serving: a tool that needs approval asks rmcp's real
//! client (`elicitation/create`) before it runs, and does not run unless the person accepts.
//! Mounting: a server written with rmcp that asks during a call pauses skyl's agent run; the
//! run serializes, and resumed with the person's reply it hands the reply to the server, whose
//! call then completes into the transcript.

use std::borrow::Cow;
use std::future::IntoFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use skyl::agent::{Agent, Reply, Run, Stop};
use skyl::agent::{Entry, Journal, JournalError};
use skyl::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ClientResult, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorCode, Implementation, InputRequest, InputRequests, InputRequiredResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    ServerRequest, Tool, ToolAnnotations,
};
use skyl::mcp::rmcp::service::{
    RequestContext, RoleClient, RoleServer, RunningService, ServiceError,
};
use skyl::mcp::rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceExt};
use skyl::mcp::{Remote, RemoteBuilder, Server};
use skyl::model::BoxFuture;
use skyl::testing::ScriptedModel;
use skyl::{
    Message, ToolCall, ToolResult, Toolbox,
    tool::{CallContext, CallObserver, Report},
};

use crate::common::{
    answered_at_once, asked_first, bounded, error, modern_client_of, object, resumed_over,
    run_over, text,
};

// Serving: a destructive tool asks first.

/// The paths `delete_file` deleted, across the tests (each test uses its own paths).
static DELETED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Deletes a file.
#[skyl::tool(destructive)]
fn delete_file(path: String) -> String {
    DELETED.lock().unwrap().push(path.clone());
    format!("deleted {path}")
}

/// Reads a file.
#[skyl::tool(read_only)]
fn read_file(path: String) -> String {
    format!("the contents of {path}")
}

fn deleted(path: &str) -> bool {
    DELETED
        .lock()
        .unwrap()
        .iter()
        .any(|deleted| deleted == path)
}

/// An rmcp client whose user answers every question with `answer`; it keeps each question, as
/// JSON.
#[derive(Clone)]
struct Person {
    answer: ElicitResult,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl Person {
    fn answering(answer: ElicitResult) -> Self {
        Person {
            answer,
            asked: Arc::default(),
        }
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("person", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        Ok(self.answer.clone())
    }
}

/// An rmcp client connected to a skyl server of `delete_file` and `read_file`.
async fn client_of_files<C: ClientHandler>(client: C) -> RunningService<RoleClient, C> {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let toolbox = Toolbox::new().with(DeleteFile).with(ReadFile);
    tokio::spawn(Server::new(toolbox).serve(server_end));
    bounded("the handshake", client.serve(client_end))
        .await
        .unwrap()
}

async fn call<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    name: &str,
    arguments: Value,
) -> Value {
    let params = CallToolRequestParams::new(name.to_owned()).with_arguments(object(arguments));
    let result = bounded(name, client.peer().call_tool(params)).await;
    serde_json::to_value(result.unwrap()).unwrap()
}

/// The question a skyl server asks before `delete_file` runs on `path`.
fn approval_question(path: &str) -> Value {
    json!({
        "mode": "form",
        "message": format!("Allow the tool delete_file to run with these arguments? {{\"path\":\"{path}\"}}"),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": "Let delete_file run with these arguments.",
                    "default": true
                }
            },
            "required": ["approve"]
        }
    })
}

#[tokio::test]
async fn a_destructive_tool_runs_once_the_person_accepts() {
    let person = Person::answering(
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})),
    );
    let client = client_of_files(person.clone()).await;
    assert_eq!(
        call(&client, "delete_file", json!({"path": "accepted.txt"})).await,
        text("deleted accepted.txt")
    );
    assert!(deleted("accepted.txt"));
    assert_eq!(
        *person.asked.lock().unwrap(),
        [approval_question("accepted.txt")]
    );
    // A read-only tool is not asked about.
    assert_eq!(
        call(&client, "read_file", json!({"path": "accepted.txt"})).await,
        text("the contents of accepted.txt")
    );
    assert_eq!(person.asked.lock().unwrap().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_destructive_tool_the_person_declines_does_not_run() {
    let person = Person::answering(ElicitResult::new(ElicitationAction::Decline));
    let client = client_of_files(person.clone()).await;
    assert_eq!(
        call(&client, "delete_file", json!({"path": "declined.txt"})).await,
        error(
            "ERROR: delete_file was not run: the user did not approve it when asked. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        )
    );
    assert!(!deleted("declined.txt"));
    assert_eq!(
        *person.asked.lock().unwrap(),
        [approval_question("declined.txt")]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn accepting_with_approve_false_or_dismissing_does_not_run_it() {
    let unticked = Person::answering(
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": false})),
    );
    let client = client_of_files(unticked).await;
    assert_eq!(
        call(&client, "delete_file", json!({"path": "unticked.txt"})).await,
        error(
            "ERROR: delete_file was not run: the user did not approve it when asked. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        )
    );
    client.cancel().await.unwrap();
    let dismissing = Person::answering(ElicitResult::new(ElicitationAction::Cancel));
    let client = client_of_files(dismissing).await;
    assert_eq!(
        call(&client, "delete_file", json!({"path": "unticked.txt"})).await,
        error(
            "ERROR: delete_file was not run: the user dismissed the request to approve it. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        )
    );
    assert!(!deleted("unticked.txt"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_that_cannot_ask_gets_a_refusal_and_the_tool_does_not_run() {
    // rmcp's client with no handler declares no elicitation capability.
    let client = client_of_files(()).await;
    assert_eq!(
        call(&client, "delete_file", json!({"path": "unasked.txt"})).await,
        error(
            "ERROR: delete_file was not run: it needs the user's approval, and this MCP client cannot ask for it (it does not support elicitation). Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        )
    );
    assert!(!deleted("unasked.txt"));
    assert_eq!(
        call(&client, "read_file", json!({"path": "unasked.txt"})).await,
        text("the contents of unasked.txt")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_approval_rule_is_the_servers_to_choose() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let toolbox = Toolbox::new().with(DeleteFile).with(ReadFile);
    // Reading asks; deleting does not.
    let server = Server::new(toolbox).with_approval(|call, _| call.name == "read_file");
    tokio::spawn(server.serve(server_end));
    let client = bounded("the handshake", ().serve(client_end))
        .await
        .unwrap();
    assert_eq!(
        call(&client, "delete_file", json!({"path": "ruled.txt"})).await,
        text("deleted ruled.txt")
    );
    assert_eq!(
        call(&client, "read_file", json!({"path": "ruled.txt"})).await,
        error(
            "ERROR: read_file was not run: it needs the user's approval, and this MCP client cannot ask for it (it does not support elicitation). Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        )
    );
    client.cancel().await.unwrap();
}

// Serving at 2026-07-28: the question goes out in an input-required result.

/// One round of a `delete_file` call of `path`: the answer and request state of the round
/// before, if any; the server's answer, as JSON, or its error.
async fn delete_round<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    path: &str,
    answer: Option<Value>,
    state: Option<&str>,
) -> Result<Value, ErrorData> {
    let mut params =
        CallToolRequestParams::new("delete_file").with_arguments(object(json!({"path": path})));
    if let Some(answer) = answer {
        params = params.with_input_responses([("approve".to_owned(), answer)].into());
    }
    params.request_state = state.map(str::to_owned);
    let response = bounded("a round", client.call_tool_once(params)).await;
    match response {
        Ok(CallToolResponse::InputRequired(asked)) => Ok(serde_json::to_value(asked).unwrap()),
        Ok(CallToolResponse::Complete(result)) => Ok(serde_json::to_value(result).unwrap()),
        Ok(other) => panic!("a task: {other:?}"),
        Err(ServiceError::McpError(error)) => Err(error),
        Err(other) => panic!("the call failed: {other}"),
    }
}

/// A result as a server of 2026-07-28 sends it: saying it is complete.
fn complete(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result
}

/// The files server, with the approval state key `key`.
fn files_server(key: [u8; 32]) -> Server {
    Server::new(Toolbox::new().with(DeleteFile).with(ReadFile)).with_state_key(key)
}

#[tokio::test]
async fn at_2026_07_28_approval_is_asked_in_an_input_required_result_with_a_signed_state() {
    let person = Person::answering(
        ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})),
    );
    let client = modern_client_of(files_server([1; 32]), person.clone()).await;
    let asked = delete_round(&client, "mrtr.txt", None, None).await.unwrap();
    let state = asked["requestState"]
        .as_str()
        .expect("a request state")
        .to_owned();
    let question = json!({
        "resultType": "input_required",
        "inputRequests": {
            "approve": {"method": "elicitation/create", "params": approval_question("mrtr.txt")}
        },
        "requestState": state
    });
    assert_eq!(asked, question);
    assert!(!deleted("mrtr.txt"));

    let accept = json!({"action": "accept", "content": {"approve": true}});
    let refused = |tool: &str| {
        format!(
            "the requestState sent with this call of {tool} is not one this server signed for it (it was changed, or given for another call, or signed with another key); {tool} did not run. Send the call again without requestState and inputResponses to be asked anew"
        )
    };
    // A changed state, and the state of another call, are refused, and nothing runs.
    for (path, sent) in [
        ("mrtr.txt", format!("{state}x")),
        ("other.txt", state.clone()),
    ] {
        let refusal = delete_round(&client, path, Some(accept.clone()), Some(&sent))
            .await
            .unwrap_err();
        assert_eq!(
            (refusal.code, refusal.message.as_ref()),
            (ErrorCode::INVALID_PARAMS, refused("delete_file").as_str())
        );
        assert!(!deleted(path));
    }
    // The state without the answer: asked again, with the same state.
    assert_eq!(
        delete_round(&client, "mrtr.txt", None, Some(&state))
            .await
            .unwrap(),
        question
    );
    // The state with a refusal: the tool does not run.
    let declined = json!({"action": "decline"});
    assert_eq!(
        delete_round(&client, "mrtr.txt", Some(declined), Some(&state))
            .await
            .unwrap(),
        complete(error(
            "ERROR: delete_file was not run: the user did not approve it when asked. Do not call it again with the same arguments; continue without it, or ask the user how to proceed."
        ))
    );
    assert!(!deleted("mrtr.txt"));
    // Another instance with the same key (behind the same URL) takes the state; one with
    // another key does not.
    let other_key = modern_client_of(files_server([2; 32]), person.clone()).await;
    let refusal = delete_round(&other_key, "mrtr.txt", Some(accept.clone()), Some(&state))
        .await
        .unwrap_err();
    assert_eq!(refusal.code, ErrorCode::INVALID_PARAMS);
    let same_key = modern_client_of(files_server([1; 32]), person.clone()).await;
    assert_eq!(
        delete_round(&same_key, "mrtr.txt", Some(accept), Some(&state))
            .await
            .unwrap(),
        complete(text("deleted mrtr.txt"))
    );
    assert!(deleted("mrtr.txt"));

    // rmcp's own client drives the rounds: it asks its person, and sends the answer back.
    let params = CallToolRequestParams::new("delete_file")
        .with_arguments(object(json!({"path": "driven.txt"})));
    let result = bounded("a driven call", client.call_tool(params))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(result).unwrap(),
        complete(text("deleted driven.txt"))
    );
    assert_eq!(
        *person.asked.lock().unwrap(),
        [approval_question("driven.txt")]
    );
    // A client of 2026-07-28 that cannot ask is told it lacks the capability (-32021), with
    // the words a model reads at 2025-11-25, and nothing runs.
    let unable = modern_client_of(files_server([1; 32]), ()).await;
    let missing = delete_round(&unable, "unasked-2026.txt", None, None)
        .await
        .unwrap_err();
    assert_eq!(
        serde_json::to_value(missing).unwrap(),
        json!({
            "code": -32021,
            "message": "ERROR: delete_file was not run: it needs the user's approval, and this MCP client cannot ask for it (it does not support elicitation). Do not call it again with the same arguments; continue without it, or ask the user how to proceed.",
            "data": {"requiredCapabilities": {"elicitation": {}}}
        })
    );
    assert!(!deleted("unasked-2026.txt"));
    for client in [client, other_key, same_key] {
        client.cancel().await.unwrap();
    }
    unable.cancel().await.unwrap();
}

/// Asks the person's name, then their favorite color (two rounds at 2026-07-28), and says both.
#[skyl::tool]
fn profile() -> Result<String, skyl::ToolFailure> {
    let form = |key: &str, message: &str| {
        let question: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]}
        }))
        .unwrap();
        InputRequest::Elicitation(ElicitRequest::new(question))
    };
    let Some(name) = skyl::mcp::answer("name") else {
        return Err(skyl::mcp::ask("name", form("name", "Your name?")));
    };
    let Some(color) = skyl::mcp::answer("color") else {
        return Err(skyl::mcp::ask(
            "color",
            form("color", "Your favorite color?"),
        ));
    };
    Ok(format!(
        "{} likes {}",
        name["content"]["name"], color["content"]["color"]
    ))
}

/// An rmcp client whose person answers each question with a value for its schema's one
/// property: the question's message, reversed.
#[derive(Clone, Default)]
struct Answering(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("answering", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = serde_json::to_value(&request).unwrap();
        let message = request["message"].as_str().unwrap().to_owned();
        let properties = request["requestedSchema"]["properties"]
            .as_object()
            .unwrap();
        let field = properties.keys().next().unwrap().clone();
        self.0.lock().unwrap().push(message.clone());
        let value: String = message.chars().rev().collect();
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({field: value})))
    }
}

#[tokio::test]
async fn at_2026_07_28_a_served_tool_asks_its_own_questions_round_after_round() {
    let asker = Answering::default();
    let server = Server::new(Toolbox::new().with(Profile)).with_state_key([5; 32]);
    let client = modern_client_of(server, asker.clone()).await;
    // The first round, by hand: the tool's question, with a state.
    let params = CallToolRequestParams::new("profile");
    let (first, state) = asked_first(client.peer(), params.clone()).await;
    assert_eq!(
        serde_json::to_value(&first).unwrap(),
        json!({
            "resultType": "input_required",
            "inputRequests": {"name": {"method": "elicitation/create", "params": {
                "mode": "form",
                "message": "Your name?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            }}},
            "requestState": state
        })
    );
    // rmcp's client drives every round: the second question comes with the first answer
    // kept in the signed state, and the tool sees both answers in the last.
    let result = bounded("the rounds", client.call_tool(params))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(result).unwrap(),
        complete(text("\"?eman ruoY\" likes \"?roloc etirovaf ruoY\""))
    );
    assert_eq!(
        *asker.0.lock().unwrap(),
        ["Your name?", "Your favorite color?"]
    );
    client.cancel().await.unwrap();

    // A client of 2026-07-28 that did not declare elicitation is told what it lacks (-32021),
    // and is not asked.
    let unable = modern_client_of(Server::new(Toolbox::new().with(Profile)), ()).await;
    let missing = bounded(
        "a call",
        unable.call_tool_once(CallToolRequestParams::new("profile")),
    )
    .await;
    let Err(ServiceError::McpError(missing)) = missing else {
        panic!("not refused: {missing:?}");
    };
    assert_eq!(
        serde_json::to_value(missing).unwrap(),
        json!({
            "code": -32021,
            "message": "the profile call needs a person's answer (`elicitation`), and this MCP client did not declare that capability, so it cannot be asked; declare {\"elicitation\": {}} in the client's capabilities (at 2026-07-28, in each request's `_meta` clientCapabilities) with a handler that answers, then call profile again",
            "data": {"requiredCapabilities": {"elicitation": {}}}
        })
    );
    unable.cancel().await.unwrap();

    // A client of 2025-11-25 that declared elicitation is asked each question during the one
    // call (`elicitation/create`), and the tool runs again with each answer.
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(Toolbox::new().with(Profile)).serve(server_end));
    let legacy_asker = Answering::default();
    let legacy = bounded("the handshake", legacy_asker.clone().serve(client_end))
        .await
        .unwrap();
    assert_eq!(
        answered_at_once(legacy.peer(), CallToolRequestParams::new("profile")).await,
        text("\"?eman ruoY\" likes \"?roloc etirovaf ruoY\"")
    );
    assert_eq!(
        *legacy_asker.0.lock().unwrap(),
        ["Your name?", "Your favorite color?"]
    );
    legacy.cancel().await.unwrap();

    // One that did not declare it is told what it lacks, and is not asked.
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(Toolbox::new().with(Profile)).serve(server_end));
    let unable = bounded("the handshake", ().serve(client_end))
        .await
        .unwrap();
    let missing = bounded(
        "a call",
        unable
            .peer()
            .call_tool_once(CallToolRequestParams::new("profile")),
    )
    .await;
    let Err(ServiceError::McpError(missing)) = missing else {
        panic!("not refused: {missing:?}");
    };
    assert_eq!(missing.code.0, -32021);
    unable.cancel().await.unwrap();
}

// Mounting: a server that asks during a call.

/// An MCP server written with rmcp alone, whose `book_room` (and `hold_room`) asks the person to
/// confirm and answers with what the person said. At 2026-07-28 it asks in an input-required
/// result (SEP-2322) and is called again with the answer and its request state; at 2025-11-25
/// (`legacy`, the only revision it speaks then) it asks during the call (`elicitation/create`).
/// It counts its calls (not the rounds that bring answers) and keeps every answer it received,
/// as JSON.
#[derive(Clone, Default)]
struct Rooms {
    legacy: bool,
    calls: Arc<AtomicUsize>,
    answers: Arc<Mutex<Vec<Value>>>,
}

impl Rooms {
    /// A server of 2025-11-25 and before.
    fn legacy() -> Self {
        Rooms {
            legacy: true,
            ..Rooms::default()
        }
    }
}

/// Runs the mounting test `$name` (an async fn taking the server) against a server of each
/// revision: `$name::at_2025_11_25` and `$name::at_2026_07_28`.
macro_rules! both_revisions {
    ($name:ident) => {
        mod $name {
            #[tokio::test]
            async fn at_2025_11_25() {
                super::$name(super::Rooms::legacy()).await;
            }

            #[tokio::test]
            async fn at_2026_07_28() {
                super::$name(super::Rooms::default()).await;
            }
        }
    };
}

/// The form `book_room` asks the person to fill in.
fn booking_form() -> Value {
    json!({
        "type": "object",
        "properties": {
            "confirm": {"type": "boolean", "description": "Book it", "default": true},
            "note": {"type": "string", "description": "A note for the front desk"}
        },
        "required": ["confirm"]
    })
}

impl ServerHandler for Rooms {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let input = json!({"type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]});
        // `hold_room` does what `book_room` does, and says that doing it twice is doing it once.
        let hold = Tool::new("hold_room", "Holds a room.", object(input.clone()))
            .with_annotations(ToolAnnotations::new().idempotent(true));
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("book_room", "Books a room.", object(input)),
            hold,
        ]))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.legacy {
            ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25).into()
        } else {
            ProtocolVersion::KNOWN_VERSIONS.into()
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.input_responses.is_none() {
            self.calls.fetch_add(1, Ordering::SeqCst);
        }
        let room = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("room"))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        let verb = if request.name == "hold_room" {
            "Hold"
        } else {
            "Book"
        };
        let params: ElicitRequestParams = serde_json::from_value(json!({
            "mode": "form",
            "message": format!("{verb} the {room} room?"),
            "requestedSchema": booking_form(),
        }))
        .unwrap();
        if !self.legacy {
            assert_eq!(
                context.protocol_version(),
                Some(ProtocolVersion::V_2026_07_28)
            );
            let state = format!("{verb} {room}");
            let Some(answers) = request.input_responses else {
                let asked = InputRequests::from([(
                    "confirm".to_owned(),
                    InputRequest::Elicitation(ElicitRequest::new(params)),
                )]);
                return Ok(InputRequiredResult::new(Some(asked), Some(state)).into());
            };
            // The client sent back the state as given, with the answer under the question's key.
            assert_eq!(request.request_state, Some(state));
            let answer = answers["confirm"].clone();
            self.answers.lock().unwrap().push(answer.clone());
            let said = format!("{room}: {answer}");
            return Ok(CallToolResult::success(vec![ContentBlock::text(said)]).into());
        }
        let asked = context
            .peer
            .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
            .await;
        let answer = match asked {
            Ok(ClientResult::ElicitResult(answer)) => serde_json::to_value(answer).unwrap(),
            other => json!({"failed": format!("{other:?}")}),
        };
        self.answers.lock().unwrap().push(answer.clone());
        let said = format!("{room}: {answer}");
        Ok(CallToolResult::success(vec![ContentBlock::text(said)]).into())
    }
}

/// Serves `rooms` in process, and mounts it with `builder`.
async fn mount(rooms: &Rooms, builder: RemoteBuilder) -> Remote {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let server = rooms.clone();
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    bounded("mounting", builder.connect(client_end))
        .await
        .unwrap()
}

/// A run of an agent over `remote`'s tools whose model calls `tool` (of `rooms`) for the blue
/// room, stopped for the server's question.
async fn paused_run(remote: &Remote, tool: &str) -> Run {
    let model =
        ScriptedModel::new().reply_calls([ToolCall::new("c1", tool, json!({"room": "blue"}))]);
    let agent = Agent::new(model, Toolbox::new().with_remote(remote), "m");
    let run = bounded(
        "the run",
        agent
            .run(vec![Message::user("Book the blue room")])
            .into_future(),
    )
    .await
    .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    let waiting: Vec<&str> = run
        .awaiting_approval()
        .map(|call| call.id.as_str())
        .collect();
    assert_eq!(waiting, ["c1"]);
    run
}

/// The results of the run's tool message (the transcript's third message).
fn results(run: &Run) -> Vec<ToolResult> {
    run.transcript()[2].tool_results().cloned().collect()
}

fn map(value: Value) -> Map<String, Value> {
    object(value)
}

both_revisions!(a_servers_question_pauses_the_run_until_the_person_replies);

async fn a_servers_question_pauses_the_run_until_the_person_replies(rooms: Rooms) {
    let remote = mount(&rooms, Remote::builder("rooms")).await;
    let run = paused_run(&remote, "rooms_book_room").await;
    let question = run.question("c1").expect("the call asked");
    assert_eq!(question.from(), "rooms");
    assert_eq!(question.message(), "Book the blue room?");
    assert_eq!(question.schema(), &booking_form());
    // The server still waits for its answer.
    assert!(rooms.answers.lock().unwrap().is_empty());

    // Stored and loaded, as a run waiting for a person is.
    let saved = serde_json::to_string(&run).unwrap();
    let mut run: Run = serde_json::from_str(&saved).unwrap();
    assert_eq!(
        run.reply("c2", Reply::Decline).unwrap_err().to_string(),
        "no call \"c2\" is waiting for approval in this run; decide about one of \"c1\" instead"
    );
    let reply = map(json!({"confirm": true, "note": "by the window"}));
    run.reply("c1", Reply::Accept(reply)).unwrap();
    let run = resumed_over(&remote, run).await;

    let answer = json!({"action": "accept", "content": {"confirm": true, "note": "by the window"}});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("blue: {answer}"))]
    );
    assert_eq!(*rooms.answers.lock().unwrap(), [answer]);
    assert_eq!(rooms.calls.load(Ordering::SeqCst), 1);
}

both_revisions!(approving_accepts_with_the_defaults_and_denying_declines);

async fn approving_accepts_with_the_defaults_and_denying_declines(rooms: Rooms) {
    let remote = mount(&rooms, Remote::builder("rooms")).await;

    let mut run = paused_run(&remote, "rooms_book_room").await;
    run.approve("c1").unwrap();
    let run = resumed_over(&remote, run).await;
    let accepted = json!({"action": "accept", "content": {"confirm": true}});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("blue: {accepted}"))]
    );

    let mut run = paused_run(&remote, "rooms_book_room").await;
    run.deny("c1", "not today").unwrap();
    let run = resumed_over(&remote, run).await;
    let declined = json!({"action": "decline"});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("blue: {declined}"))]
    );
    assert_eq!(*rooms.answers.lock().unwrap(), [accepted, declined]);
}

/// `run` answered its call of `book_room` as lost after it started, and `rooms` was called once
/// and got no answer: the call was not made again.
fn assert_lost_unanswered(rooms: &Rooms, run: &Run) {
    assert_eq!(
        results(run),
        [ToolResult::error(
            "c1",
            "ERROR: the outcome of this rooms_book_room call is unknown: rooms asked the user a question while the call ran, and the process holding the call stopped before the answer came, so the call was lost after it started. It was not run again, so that its effect is not repeated. Before calling rooms_book_room again, check whether it took effect (with a tool that reads the state it changes, or by asking the user); call it again only if it did not."
        )]
    );
    assert_eq!(rooms.calls.load(Ordering::SeqCst), 1);
    assert!(rooms.answers.lock().unwrap().is_empty());
}

// At 2025-11-25 the call waits in the process that asked; at 2026-07-28 it goes on anywhere
// (at_2026_07_28_a_run_resumed_after_a_restart_sends_the_answer_with_the_servers_state).
#[tokio::test]
async fn a_run_resumed_where_the_call_is_not_held_says_its_outcome_is_unknown() {
    let rooms = Rooms::legacy();
    let remote = mount(&rooms, Remote::builder("rooms")).await;
    let run = paused_run(&remote, "rooms_book_room").await;
    // The run as another process (or this one after a restart) loads it: the ticket of its
    // waiting call names a call that process does not hold.
    let mut saved = serde_json::to_value(&run).unwrap();
    let ticket = &mut saved["turn"]["slots"][0]["asking"]["ticket"];
    assert!(ticket.is_string(), "the saved run holds the call's ticket");
    *ticket = json!("another-process-1");
    let mut run: Run = serde_json::from_value(saved).unwrap();
    run.approve("c1").unwrap();
    // The server heard nothing more: its first call still waits, and none was made again.
    assert_lost_unanswered(&rooms, &resumed_over(&remote, run).await);
}

// At 2025-11-25 the call waits in the process that asked; at 2026-07-28 it goes on anywhere
// (at_2026_07_28_a_run_resumed_after_a_restart_sends_the_answer_with_the_servers_state).
#[tokio::test]
async fn a_call_parked_past_its_question_expiry_is_dropped_and_answered_as_after_a_restart() {
    let rooms = Rooms::legacy();
    let builder = Remote::builder("rooms").question_expiry(std::time::Duration::ZERO);
    let remote = mount(&rooms, builder).await;
    let mut run = paused_run(&remote, "rooms_book_room").await;
    // The person answers after the call's expiry: this process no longer holds it.
    run.approve("c1").unwrap();
    // The server never got the answer, and no call was made again.
    assert_lost_unanswered(&rooms, &resumed_over(&remote, run).await);
}

#[tokio::test]
async fn an_idempotent_call_not_held_here_runs_again_and_asks_again() {
    let rooms = Rooms::legacy();
    let remote = mount(&rooms, Remote::builder("rooms")).await;
    let run = paused_run(&remote, "rooms_hold_room").await;
    let mut saved = serde_json::to_value(&run).unwrap();
    saved["turn"]["slots"][0]["asking"]["ticket"] = json!("another-process-2");
    let mut run: Run = serde_json::from_value(saved).unwrap();
    run.approve("c1").unwrap();

    // Run again, the call asks again, and the run waits again.
    let agent = Agent::new(
        ScriptedModel::new(),
        Toolbox::new().with_remote(&remote),
        "m",
    );
    let mut run = bounded("the rerun", agent.resume(run).into_future())
        .await
        .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert_eq!(rooms.calls.load(Ordering::SeqCst), 2);
    assert_eq!(run.question("c1").unwrap().message(), "Hold the blue room?");
    run.reply("c1", Reply::Cancel).unwrap();
    let run = resumed_over(&remote, run).await;
    let cancelled = json!({"action": "cancel"});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("blue: {cancelled}"))]
    );
    // The first call's question was never answered; only the second call's was.
    assert_eq!(*rooms.answers.lock().unwrap(), [cancelled]);
}

#[tokio::test]
async fn at_2026_07_28_a_run_resumed_after_a_restart_sends_the_answer_with_the_servers_state() {
    let rooms = Rooms::default();
    let remote = mount(&rooms, Remote::builder("rooms")).await;
    let run = paused_run(&remote, "rooms_book_room").await;
    // The saved run keeps what the server's input-required result said, and nothing else is
    // needed to go on: the server keeps nothing between rounds.
    let mut saved = serde_json::to_value(&run).unwrap();
    let asking = &mut saved["turn"]["slots"][0]["asking"];
    assert_eq!(
        asking["continuation"],
        json!({
            "tool": "book_room",
            "arguments": {"room": "blue"},
            "requestState": "Book blue",
            "key": "confirm",
            "answers": {}
        })
    );
    // The process that asked is gone: its connection closed, its ticket unknown here.
    asking["ticket"] = json!("another-process-3");
    remote.close().await;
    let mut run: Run = serde_json::from_value(saved).unwrap();
    run.approve("c1").unwrap();
    let again = mount(&rooms, Remote::builder("rooms")).await;
    let run = resumed_over(&again, run).await;
    let accepted = json!({"action": "accept", "content": {"confirm": true}});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("blue: {accepted}"))]
    );
    // One call, its answer received once: nothing ran twice.
    assert_eq!(rooms.calls.load(Ordering::SeqCst), 1);
    assert_eq!(*rooms.answers.lock().unwrap(), [accepted]);
}

#[tokio::test]
async fn at_2026_07_28_a_skyl_servers_approval_pauses_a_skyl_agent_run_and_survives_a_restart() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let files = Toolbox::new().with(DeleteFile).with(ReadFile);
    tokio::spawn(Server::new(files).with_state_key([3; 32]).serve(server_end));
    let remote = bounded("mounting", Remote::builder("files").connect(client_end))
        .await
        .unwrap();
    let model = ScriptedModel::new().reply_calls([ToolCall::new(
        "c1",
        "files_delete_file",
        json!({"path": "paused.txt"}),
    )]);
    let agent = Agent::new(model, Toolbox::new().with_remote(&remote), "m");
    let run = bounded(
        "the run",
        agent
            .run(vec![Message::user("Delete paused.txt")])
            .into_future(),
    )
    .await
    .unwrap();
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    let question = run.question("c1").unwrap();
    assert_eq!(question.from(), "files");
    assert_eq!(
        (question.message(), question.schema()),
        (
            approval_question("paused.txt")["message"].as_str().unwrap(),
            &approval_question("paused.txt")["requestedSchema"]
        )
    );
    assert!(!deleted("paused.txt"));
    // The question came in an input-required result: the saved run holds the signed state.
    let mut saved = serde_json::to_value(&run).unwrap();
    let asking = &mut saved["turn"]["slots"][0]["asking"];
    let state = asking["continuation"]["requestState"].clone();
    assert!(state.is_string(), "{asking}");
    assert_eq!(
        asking["continuation"],
        json!({
            "tool": "delete_file",
            "arguments": {"path": "paused.txt"},
            "requestState": state,
            "key": "approve",
            "answers": {}
        })
    );
    // Resumed where the call is not held, with the person's approval: the tool runs, once.
    asking["ticket"] = json!("another-process-4");
    let mut run: Run = serde_json::from_value(saved).unwrap();
    run.approve("c1").unwrap();
    let run = resumed_over(&remote, run).await;
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", "deleted paused.txt")]
    );
    assert!(deleted("paused.txt"));
}

/// Keeps the log lines of the calls it observes.
#[derive(Default)]
struct Lines(Mutex<Vec<String>>);

impl CallObserver for Lines {
    fn report(&self, _call: &CallContext, report: Report) {
        if let Report::Log { message, .. } = report {
            self.0.lock().unwrap().push(message);
        }
    }
}

both_revisions!(outside_a_run_a_question_is_declined_with_a_log_line_or_answered_by_the_handler);

async fn outside_a_run_a_question_is_declined_with_a_log_line_or_answered_by_the_handler(
    rooms: Rooms,
) {
    let remote = mount(&rooms, Remote::builder("rooms")).await;
    let toolbox = Toolbox::new().with_remote(&remote);
    let lines = Arc::new(Lines::default());
    let call = ToolCall::new("d1", "rooms_book_room", json!({"room": "red"}));
    let result = bounded(
        "a dispatch",
        toolbox.dispatch_observed(&call, lines.clone()),
    )
    .await;
    let declined = json!({"action": "decline"});
    assert_eq!(
        result,
        ToolResult::success("d1", format!("red: {declined}"))
    );
    assert_eq!(
        *lines.0.lock().unwrap(),
        [
            "the MCP server \"rooms\" asked \"Book the red room?\", and it was declined: no person can answer during this call; run it in an agent run (the run pauses for the answer) or answer with RemoteBuilder::on_question"
        ]
    );

    // A handler answers on the spot, in a run too: the run does not pause.
    let answering = Rooms {
        legacy: rooms.legacy,
        ..Rooms::default()
    };
    let builder = Remote::builder("rooms").on_question(|question| {
        let mut answer = question.defaults();
        answer.insert("note".into(), json!(format!("re: {}", question.message())));
        Reply::Accept(answer)
    });
    let remote = mount(&answering, builder).await;
    let model = ScriptedModel::new()
        .reply_calls([ToolCall::new(
            "c1",
            "rooms_book_room",
            json!({"room": "green"}),
        )])
        .reply_text("Done.");
    let run = run_over(&remote, model, "Book green").await;
    assert_eq!(run.stop(), &Stop::Answered);
    let accepted = json!({"action": "accept", "content": {"confirm": true, "note": "re: Book the green room?"}});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("green: {accepted}"))]
    );
    assert_eq!(*answering.answers.lock().unwrap(), [accepted]);
}

/// A journal in memory, keeping each run's entries in order and refusing a key written twice.
#[derive(Default)]
struct Memory(Mutex<std::collections::HashMap<String, Vec<Entry>>>);

impl Journal for Memory {
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        let entries = self.0.lock().unwrap().get(run).cloned().unwrap_or_default();
        Box::pin(async move { Ok(entries) })
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        _durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        let mut runs = self.0.lock().unwrap();
        let kept = runs.entry(run.to_owned()).or_default();
        let taken = entries
            .iter()
            .find(|entry| kept.iter().any(|old| old.key == entry.key));
        let answer = match taken {
            Some(entry) => Err(JournalError::Conflict {
                run: run.to_owned(),
                key: entry.key.clone(),
            }),
            None => {
                kept.extend(entries);
                Ok(())
            }
        };
        Box::pin(async move { answer })
    }
}

/// Starts (or, from its journal, replays) the run "booking" of an agent over `remote`'s tools.
async fn journaled_booking(remote: &Remote, journal: &Memory, model: ScriptedModel) -> Run {
    let agent = Agent::new(model, Toolbox::new().with_remote(remote), "m");
    bounded(
        "the journaled run",
        agent
            .run(vec![Message::user("Book the blue room")])
            .journaled(journal, "booking")
            .into_future(),
    )
    .await
    .unwrap()
}

both_revisions!(a_journaled_run_waits_for_the_reply_and_records_the_calls_result);

async fn a_journaled_run_waits_for_the_reply_and_records_the_calls_result(rooms: Rooms) {
    let remote = mount(&rooms, Remote::builder("rooms")).await;
    let journal = Memory::default();
    let model = ScriptedModel::new().reply_calls([ToolCall::new(
        "c1",
        "rooms_book_room",
        json!({"room": "blue"}),
    )]);
    let run = journaled_booking(&remote, &journal, model).await;
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    assert!(run.question("c1").is_some());

    let mut run: Run = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
    run.approve("c1").unwrap();
    // The journal holds the call's intent and no result: the person's reply, not the rule for
    // calls whose outcome is unknown, decides what happens to it.
    let agent = Agent::new(
        ScriptedModel::new().reply_text("Done."),
        Toolbox::new().with_remote(&remote),
        "m",
    );
    let run = bounded(
        "the resumed journaled run",
        agent
            .resume(run)
            .journaled(&journal, "booking")
            .into_future(),
    )
    .await
    .unwrap();
    assert_eq!(run.stop(), &Stop::Answered);
    let accepted = json!({"action": "accept", "content": {"confirm": true}});
    assert_eq!(
        results(&run),
        [ToolResult::success("c1", format!("blue: {accepted}"))]
    );
    assert_eq!(*rooms.answers.lock().unwrap(), [accepted]);

    // Replayed from its journal, the finished run runs nothing again.
    let replayed = journaled_booking(&remote, &journal, ScriptedModel::new()).await;
    assert_eq!(replayed.transcript(), run.transcript());
    assert_eq!(rooms.calls.load(Ordering::SeqCst), 1);
}
