//! Approval meets elicitation. Serving: a tool that needs approval asks rmcp's real client
//! (`elicitation/create`) before it runs, and does not run unless the person accepts.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use skyl::Toolbox;
use skyl::mcp::Server;
use skyl::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use skyl::mcp::rmcp::service::{RequestContext, RoleClient, RunningService};
use skyl::mcp::rmcp::{ClientHandler, ErrorData, ServiceExt};

use crate::common::{bounded, error, object, text};

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
