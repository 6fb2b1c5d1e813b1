//! skyl's server answering calls as MCP Tasks, driven by rmcp's client: a task created, polled
//! and its result fetched; cancelled; unknown; a client that does not speak tasks; and a server
//! killed while its tasks run, started again on the same journal; a task whose tool asks the
//! person, waiting for the answer across a restart.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use skyl::agent::{Reply, Run, Stop};
use skyl::durable::SqliteJournal;
use skyl::mcp::Server;
use skyl::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    ElicitRequest, GetTaskParams, InputRequest, TaskStatusNotificationParams, UpdateTaskParams,
};
use skyl::mcp::rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use skyl::mcp::rmcp::{ClientHandler, ServiceExt};
use skyl::testing::ScriptedModel;
use skyl::{ToolCall, ToolResult, Toolbox, tool::CallContext};
use tokio::sync::Notify;

use crate::common::{
    answered_at_once, asked_first, bounded, modern_client_of, object, resumed_over, run_over,
};
use crate::scratch::TempDir;

/// Lets `render` finish, once per call.
static GATE: std::sync::LazyLock<Notify> = std::sync::LazyLock::new(Notify::new);

/// Renders a report once the test opens the gate.
#[skyl::tool]
async fn render(pages: u32) -> String {
    GATE.notified().await;
    format!("rendered {pages} pages")
}

/// Says when it starts, then works until its call is cancelled.
static STARTED: std::sync::LazyLock<Notify> = std::sync::LazyLock::new(Notify::new);

/// Works until cancelled.
#[skyl::tool]
async fn work_forever(#[context] call: CallContext) -> &'static str {
    STARTED.notify_one();
    call.cancelled().await;
    "stopped"
}

/// Counts.
#[skyl::tool]
fn count(to: u32) -> String {
    (1..=to)
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An rmcp client that declares the tasks extension (unless told not to) and keeps the task
/// notifications it receives, as JSON.
#[derive(Clone)]
struct TaskClient {
    tasks: bool,
    heard: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder()
                .enable_tasks()
                .enable_elicitation()
                .build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(
            capabilities,
            skyl::mcp::rmcp::model::Implementation::new("task-test", "0"),
        )
    }

    /// The person answers every question (asked during a call) with the name Alice.
    async fn create_elicitation(
        &self,
        _request: skyl::mcp::rmcp::model::ElicitRequestParams,
        _context: skyl::mcp::rmcp::service::RequestContext<RoleClient>,
    ) -> Result<skyl::mcp::rmcp::model::ElicitResult, skyl::mcp::rmcp::ErrorData> {
        let accept = skyl::mcp::rmcp::model::ElicitationAction::Accept;
        Ok(
            skyl::mcp::rmcp::model::ElicitResult::new(accept)
                .with_content(json!({"name": "Alice"})),
        )
    }

    async fn on_task_status(
        &self,
        params: TaskStatusNotificationParams,
        _context: NotificationContext<RoleClient>,
    ) {
        self.heard
            .lock()
            .unwrap()
            .push(serde_json::to_value(params).unwrap());
    }
}

type Client = RunningService<RoleClient, TaskClient>;

/// A journal's file in a fresh directory of its own, `skyl-tasks-<name>-<process id>`.
fn journal_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skyl-tasks-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("tasks.db")
}

async fn client(tasks: bool, name: &str) -> (Client, Arc<Mutex<Vec<Value>>>) {
    let journal = SqliteJournal::open(journal_path(name)).unwrap();
    let server = Server::new(Toolbox::new().with(Render).with(WorkForever).with(Count))
        .with_task_journal(journal)
        .with_task_poll_interval(Duration::from_millis(20));
    connect(server, tasks).await
}

/// An rmcp client of `server`, served in process, declaring the tasks extension if `tasks`.
async fn connect(server: Server, tasks: bool) -> (Client, Arc<Mutex<Vec<Value>>>) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(server_end));
    let heard = Arc::new(Mutex::new(Vec::new()));
    let handler = TaskClient {
        tasks,
        heard: Arc::clone(&heard),
    };
    let client = bounded("the handshake", handler.serve(client_end))
        .await
        .unwrap();
    (client, heard)
}

/// Calls `tool` and returns the task it was answered with, as JSON.
async fn create(client: &Client, tool: &str, arguments: Value) -> Value {
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(object(arguments));
    create_with(client, params).await
}

/// Sends the call `params` and returns the task it was answered with, as JSON.
async fn create_with(client: &Client, params: CallToolRequestParams) -> Value {
    let tool = params.name.clone();
    match bounded(&tool, client.peer().call_tool_once(params))
        .await
        .unwrap()
    {
        CallToolResponse::Task(task) => serde_json::to_value(task).unwrap(),
        other => panic!("{tool} was not answered with a task: {other:?}"),
    }
}

async fn get(client: &Client, id: &str) -> Result<Value, ServiceError> {
    bounded("tasks/get", client.peer().get_task(GetTaskParams::new(id)))
        .await
        .map(|task| serde_json::to_value(task).unwrap())
}

/// Polls `tasks/get` until the task is no longer working (at most 500 times).
async fn settled(client: &Client, id: &str) -> Value {
    for _ in 0..500 {
        let task = get(client, id).await.unwrap();
        if task["status"] != "working" {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} still works after 500 polls");
}

fn text_of(value: &Value, field: &str) -> String {
    value[field]
        .as_str()
        .unwrap_or_else(|| panic!("no {field} in {value}"))
        .to_owned()
}

#[tokio::test]
async fn a_call_becomes_a_task_that_is_polled_to_its_result() {
    let (client, heard) = client(true, "result").await;
    let created = create(&client, "render", json!({"pages": 3})).await;
    let id = text_of(&created, "taskId");
    let at = text_of(&created, "createdAt");
    // The task as created, and as `tasks/get` answers while it works.
    let working = |result_type: &str| {
        json!({
            "resultType": result_type,
            "taskId": id,
            "status": "working",
            "createdAt": at,
            "lastUpdatedAt": at,
            "ttlMs": null,
            "pollIntervalMs": 20
        })
    };
    assert_eq!(created, working("task"));
    assert_eq!(get(&client, &id).await.unwrap(), working("complete"));
    GATE.notify_one();
    let done = settled(&client, &id).await;
    let updated = text_of(&done, "lastUpdatedAt");
    let task = json!({
        "taskId": id,
        "status": "completed",
        "createdAt": at,
        "lastUpdatedAt": updated,
        "ttlMs": null,
        "pollIntervalMs": 20,
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "rendered 3 pages"}],
            "isError": false
        }
    });
    let mut expected = task.clone();
    expected["resultType"] = json!("complete");
    assert_eq!(done, expected);
    // The end of the task was sent to the client too, as `tasks/get` says it.
    for _ in 0..500 {
        if !heard.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(*heard.lock().unwrap(), vec![task]);
}

/// Squares a number.
#[skyl::tool]
fn square(n: u32) -> u32 {
    n * n
}

#[tokio::test]
async fn which_calls_become_tasks_and_their_poll_interval_hold_whatever_the_order_they_are_given_in()
 {
    let journal = SqliteJournal::open(journal_path("order")).unwrap();
    let server = Server::new(Toolbox::new().with(Square).with(Count))
        .with_tasks_for(|call, _| call.name == "square")
        .with_task_poll_interval(Duration::from_millis(30))
        .with_task_journal(journal);
    let (client, _heard) = connect(server, true).await;
    let params = CallToolRequestParams::new("count").with_arguments(object(json!({"to": 2})));
    assert_eq!(
        answered_at_once(client.peer(), params).await,
        json!({"content": [{"type": "text", "text": "1 2"}], "isError": false})
    );
    let created = create(&client, "square", json!({"n": 7})).await;
    assert_eq!(created["pollIntervalMs"], 30);
    let done = settled(&client, &text_of(&created, "taskId")).await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "49"}])
    );
}

/// Asks the client's model for a summary.
#[skyl::tool]
fn summarize() -> Result<String, skyl::ToolFailure> {
    if let Some(answer) = skyl::mcp::answer("summary") {
        return Ok(answer.to_string());
    }
    let question = serde_json::from_value(json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Summarize."}}],
            "maxTokens": 50
        }
    }))
    .unwrap();
    Err(skyl::mcp::ask("summary", question))
}

#[tokio::test]
async fn a_task_that_asks_what_its_client_cannot_answer_fails_naming_the_capability() {
    let journal = SqliteJournal::open(journal_path("capability")).unwrap();
    let server = Server::new(Toolbox::new().with(Summarize)).with_task_journal(journal);
    // The client declares the tasks extension and elicitation, not sampling.
    let (client, _heard) = connect(server, true).await;
    let created = create(&client, "summarize", json!({})).await;
    let done = settled(&client, &text_of(&created, "taskId")).await;
    let message = "the summarize call needs a completion from the client's model (`sampling`), and this MCP client did not declare that capability, so it cannot be asked; declare {\"sampling\": {}} in the client's capabilities (at 2026-07-28, in each request's `_meta` clientCapabilities) with a handler that answers, then call summarize again";
    assert_eq!(
        done,
        json!({
            "resultType": "complete",
            "taskId": created["taskId"],
            "status": "failed",
            "statusMessage": message,
            "createdAt": created["createdAt"],
            "lastUpdatedAt": done["lastUpdatedAt"],
            "ttlMs": null,
            "pollIntervalMs": 500,
            "error": {
                "code": -32021,
                "message": message,
                "data": {"requiredCapabilities": {"sampling": {}}}
            }
        })
    );
}

#[tokio::test]
async fn a_call_that_runs_only_as_a_task_is_refused_to_a_client_without_tasks_before_it_runs() {
    let server = |name: &str| {
        let journal = SqliteJournal::open(journal_path(name)).unwrap();
        Server::new(Toolbox::new().with(Square).with(Count))
            .with_tasks_for(|_, _| false)
            .with_tasks_required_for(|call, _| call.name == "square")
            .with_task_journal(journal)
    };
    let (plain, _heard) = connect(server("required-plain"), false).await;
    let params = CallToolRequestParams::new("square").with_arguments(object(json!({"n": 3})));
    let Err(ServiceError::McpError(refused)) =
        bounded("square", plain.peer().call_tool_once(params)).await
    else {
        panic!("square ran for a client without tasks");
    };
    assert_eq!(
        serde_json::to_value(refused).unwrap(),
        json!({
            "code": -32021,
            "message": "the square call runs only as a task, and this MCP client did not declare the `io.modelcontextprotocol/tasks` extension, so square did not run; declare {\"extensions\": {\"io.modelcontextprotocol/tasks\": {}}} in the client's capabilities, then call square again and poll the task it is answered with (`tasks/get`)",
            "data": {"requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}
        })
    );
    // Another tool is answered as ever.
    let params = CallToolRequestParams::new("count").with_arguments(object(json!({"to": 1})));
    let answered = bounded("count", plain.peer().call_tool_once(params))
        .await
        .unwrap();
    assert!(
        matches!(answered, CallToolResponse::Complete(_)),
        "{answered:?}"
    );
    // A client that takes tasks gets one, though `with_tasks_for` makes none.
    let (tasks, _heard) = connect(server("required-tasks"), true).await;
    let created = create(&tasks, "square", json!({"n": 3})).await;
    let done = settled(&tasks, &text_of(&created, "taskId")).await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "9"}])
    );
}

/// Greets the person by the name they gave before its task was created.
#[skyl::tool]
fn greet_later() -> String {
    let name = skyl::mcp::answer("name").unwrap_or_default();
    format!(
        "Hello, {}!",
        name["content"]["name"].as_str().unwrap_or("nobody")
    )
}

/// A server whose `greet_later` asks the person's name before its task is created.
fn greeting_server(name: &str) -> Server {
    let journal = SqliteJournal::open(journal_path(name)).unwrap();
    Server::new(Toolbox::new().with(GreetLater))
        .with_task_journal(journal)
        .with_questions_before_task(move |_, answers| {
            let mut questions = skyl::mcp::rmcp::model::InputRequests::new();
            if !answers.contains_key("name") {
                let asked = serde_json::from_value(name_question()).unwrap();
                questions.insert("name".into(), asked);
            }
            questions
        })
}

fn name_question() -> Value {
    json!({"method": "elicitation/create", "params": {
        "mode": "form",
        "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    }})
}

#[tokio::test]
async fn a_call_asks_before_its_task_is_created_and_the_task_has_the_answers() {
    // At 2026-07-28: an input-required round, then the task.
    let handler = TaskClient {
        tasks: true,
        heard: Arc::default(),
    };
    let client = modern_client_of(greeting_server("before-modern"), handler).await;
    let params = CallToolRequestParams::new("greet_later");
    let (first, state) = asked_first(client.peer(), params.clone()).await;
    assert_eq!(
        serde_json::to_value(&first).unwrap(),
        json!({"resultType": "input_required", "inputRequests": {"name": name_question()}, "requestState": state})
    );
    let answers = [(
        "name".to_owned(),
        json!({"action": "accept", "content": {"name": "Alice"}}),
    )]
    .into_iter()
    .collect();
    let second = params
        .with_input_responses(answers)
        .with_request_state(state);
    let created = create_with(&client, second).await;
    let done = settled(&client, &text_of(&created, "taskId")).await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Hello, Alice!"}])
    );

    // At 2025-11-25: asked during the call (`elicitation/create`), then the task.
    let (client, _heard) = connect(greeting_server("before-legacy"), true).await;
    let created = create(&client, "greet_later", json!({})).await;
    let done = settled(&client, &text_of(&created, "taskId")).await;
    assert_eq!(
        done["result"]["content"],
        json!([{"type": "text", "text": "Hello, Alice!"}])
    );
}

#[tokio::test]
async fn a_cancelled_task_cancels_its_call_and_says_so() {
    let (client, _heard) = client(true, "cancel").await;
    let created = create(&client, "work_forever", json!({})).await;
    let id = text_of(&created, "taskId");
    bounded("the tool to start", STARTED.notified()).await;
    bounded(
        "tasks/cancel",
        client.peer().cancel_task(CancelTaskParams::new(&id)),
    )
    .await
    .unwrap();
    let done = settled(&client, &id).await;
    assert_eq!(
        done,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "cancelled",
            "statusMessage": "ERROR: the work_forever call was cancelled by the client before it finished: it was stopped, and any effect it had already begun may or may not have taken place. Before calling work_forever again, check whether it took effect; call it again only if it did not and the user still wants it.",
            "createdAt": created["createdAt"],
            "lastUpdatedAt": done["lastUpdatedAt"],
            "ttlMs": null,
            "pollIntervalMs": 20
        })
    );
    // Cancelling a task that has ended changes nothing.
    bounded(
        "tasks/cancel again",
        client.peer().cancel_task(CancelTaskParams::new(&id)),
    )
    .await
    .unwrap();
    assert_eq!(get(&client, &id).await.unwrap(), done);
}

#[tokio::test]
async fn an_unknown_task_is_invalid_params() {
    let (client, _heard) = client(true, "unknown").await;
    let Err(ServiceError::McpError(error)) = get(&client, "no-such-task").await else {
        panic!("tasks/get of an unknown task succeeded");
    };
    assert_eq!(
        serde_json::to_value(error).unwrap(),
        json!({
            "code": -32602,
            "message": "there is no task \"no-such-task\" on this server: check the taskId the tools/call answered with; a task from another server, or one whose journal was removed, cannot be found"
        })
    );
}

#[tokio::test]
async fn a_client_without_the_tasks_extension_gets_the_result() {
    let (client, _heard) = client(false, "plain").await;
    let params = CallToolRequestParams::new("count").with_arguments(object(json!({"to": 3})));
    assert_eq!(
        answered_at_once(client.peer(), params).await,
        json!({"content": [{"type": "text", "text": "1 2 3"}], "isError": false})
    );
}

/// The `task_server` binary started on a journal, effects file and gate in `dir`, its stdin and
/// stdout piped.
fn spawn_task_server(dir: &std::path::Path) -> tokio::process::Child {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_task_server"));
    command
        .args([dir.join("tasks.db"), dir.join("effects"), dir.join("gate")])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    spawn_reading(command)
}

/// `command` started with its stdout piped, killed when dropped.
fn spawn_reading(mut command: tokio::process::Command) -> tokio::process::Child {
    command
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap()
}

/// The `task_server` binary on a journal, effects file and gate in `dir`, with a client that
/// speaks tasks.
async fn task_server(dir: &std::path::Path) -> (tokio::process::Child, Client) {
    let mut child = spawn_task_server(dir);
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let handler = TaskClient {
        tasks: true,
        heard: Arc::default(),
    };
    let client = bounded("the handshake", handler.serve((stdout, stdin)))
        .await
        .unwrap();
    (child, client)
}

/// `client` heard one task notification, which says what `tasks/get` answered (`got`).
async fn assert_heard_as_got(client: &Client, got: &Value) {
    let mut notified = got.clone();
    notified.as_object_mut().unwrap().remove("resultType");
    assert_eq!(heard_by(client).await, [notified]);
}

/// Sends `tasks/update` for the task `id` with `answer` to its question `confirm`.
async fn answer_confirm(client: &Client, id: &str, answer: Value) {
    let responses = [("confirm".to_owned(), answer)].into_iter().collect();
    bounded(
        "tasks/update",
        client
            .peer()
            .update_task(UpdateTaskParams::new(id.to_owned(), responses)),
    )
    .await
    .unwrap();
}

/// The task notifications `client` heard, once it heard one (waiting at most 5 seconds).
async fn heard_by(client: &Client) -> Vec<Value> {
    for _ in 0..500 {
        let heard = client.service().heard.lock().unwrap().clone();
        if !heard.is_empty() {
            return heard;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no task notification heard");
}

/// The effects file's lines, counted.
fn effects(dir: &std::path::Path) -> std::collections::BTreeMap<String, usize> {
    let text = std::fs::read_to_string(dir.join("effects")).unwrap_or_default();
    let mut counted = std::collections::BTreeMap::new();
    for line in text.lines() {
        *counted.entry(line.to_owned()).or_default() += 1;
    }
    counted
}

/// The effects in `dir` are `lines`, each happened once, and nothing else.
fn assert_each_effect_once(dir: &std::path::Path, lines: &[&str]) {
    let once: std::collections::BTreeMap<String, usize> =
        lines.iter().map(|line| (line.to_string(), 1)).collect();
    assert_eq!(effects(dir), once);
}

/// The whole answer to the request `rpc_id`, a 2025-11-25 `tasks/result` of the task `id`: its
/// call's text result, related to the task.
fn task_result_2025(rpc_id: u64, id: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": rpc_id, "result": {
        "content": [{"type": "text", "text": text}],
        "isError": false,
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}}
    }})
}

/// A completed task's whole `tasks/get` answer, given what it was created as.
fn completed(created: &Value, got: &Value, text: &str, is_error: bool) -> Value {
    json!({
        "resultType": "complete",
        "taskId": created["taskId"],
        "status": "completed",
        "createdAt": created["createdAt"],
        "lastUpdatedAt": got["lastUpdatedAt"],
        "ttlMs": null,
        "pollIntervalMs": 20,
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": text}],
            "isError": is_error
        }
    })
}

#[tokio::test]
async fn a_server_killed_while_its_tasks_run_answers_for_every_one_after_a_restart() {
    let dir = TempDir::new("tasks-crash");
    let (mut first, client) = task_server(&dir).await;
    // Two that finish before the kill, then two of each tool cut off by it.
    let calls = [
        ("charge", json!({"order": 1, "wait": false})),
        ("render", json!({"report": 2, "wait": false})),
        ("charge", json!({"order": 3, "wait": true})),
        ("render", json!({"report": 4, "wait": true})),
        ("charge", json!({"order": 5, "wait": true})),
        ("render", json!({"report": 6, "wait": true})),
    ];
    let mut created = Vec::new();
    for (tool, arguments) in calls {
        created.push(create(&client, tool, arguments).await);
    }
    for task in &created[..2] {
        settled(&client, task["taskId"].as_str().unwrap()).await;
    }
    let running = [
        "charge 3 start",
        "render 4 start",
        "charge 5 start",
        "render 6 start",
    ];
    for _ in 0..3000 {
        let seen = effects(&dir);
        if running.iter().all(|line| seen.contains_key(*line)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for task in &created[2..] {
        let id = task["taskId"].as_str().unwrap();
        assert_eq!(get(&client, id).await.unwrap()["status"], "working");
    }
    // SIGKILL, while four tasks run.
    bounded("the kill", first.kill()).await.unwrap();
    drop(client);
    std::fs::write(dir.join("gate"), "open").unwrap();

    let unknown = |tool: &str| {
        format!(
            "ERROR: the outcome of this {tool} call is unknown: it was started, and the process running it stopped before it finished, so it may or may not have taken effect. It was not run again, so that its effect is not repeated. Before calling {tool} again, check whether it took effect (with a tool that reads the state it changes, or by asking the user); call it again only if it did not."
        )
    };
    let expected = [
        ("charged order 1".to_owned(), false),
        ("rendered report 2".to_owned(), false),
        (unknown("charge"), true),
        ("rendered report 4".to_owned(), false),
        (unknown("charge"), true),
        ("rendered report 6".to_owned(), false),
    ];
    // Started again on the same journal, twice: the answers hold, and nothing runs again.
    let mut answers = Vec::new();
    for restart in 0..2 {
        let (mut server, client) = task_server(&dir).await;
        let mut these = Vec::new();
        for (task, (text, is_error)) in created.iter().zip(&expected) {
            let got = settled(&client, task["taskId"].as_str().unwrap()).await;
            assert_eq!(
                got,
                completed(task, &got, text, *is_error),
                "restart {restart}"
            );
            these.push(got);
        }
        if restart == 1 {
            assert_eq!(these, answers, "the second restart answers as the first");
        }
        answers = these;
        bounded("the kill", server.kill()).await.unwrap();
    }
    let counted = effects(&dir);
    let expected_effects: std::collections::BTreeMap<String, usize> = [
        ("charge 1 start", 1),
        ("charge 1 done", 1),
        ("render 2 start", 1),
        ("render 2 done", 1),
        // Cut off, never run again.
        ("charge 3 start", 1),
        ("charge 5 start", 1),
        // Cut off, run again once (idempotent), to its end.
        ("render 4 start", 2),
        ("render 4 done", 1),
        ("render 6 start", 2),
        ("render 6 done", 1),
    ]
    .into_iter()
    .map(|(line, n)| (line.to_owned(), n))
    .collect();
    assert_eq!(counted, expected_effects);
}

#[tokio::test]
async fn a_server_whose_client_closes_stdin_lets_its_tasks_end_into_the_journal_first() {
    let dir = TempDir::new("tasks-eof");
    let (mut first, client) = task_server(&dir).await;
    // One task runs its tool, which waits for the gate; the next is created just before the
    // client goes away.
    let running = create(&client, "charge", json!({"order": 1, "wait": true})).await;
    for _ in 0..3000 {
        if effects(&dir).contains_key("charge 1 start") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let last = create(&client, "charge", json!({"order": 2, "wait": false})).await;
    // The client closes the server's stdin while both are its tasks.
    bounded("closing the connection", client.cancel())
        .await
        .unwrap();
    std::fs::write(dir.join("gate"), "open").unwrap();
    let exit = bounded("the server's exit", first.wait()).await.unwrap();
    assert!(exit.success(), "{exit}");

    // Started again on the journal: each task has its result, and each tool ran once.
    let (mut second, client) = task_server(&dir).await;
    for (task, text) in [(&running, "charged order 1"), (&last, "charged order 2")] {
        let got = settled(&client, task["taskId"].as_str().unwrap()).await;
        assert_eq!(got, completed(task, &got, text, false));
    }
    bounded("the kill", second.kill()).await.unwrap();
    assert_each_effect_once(
        &dir,
        &[
            "charge 1 start",
            "charge 1 done",
            "charge 2 start",
            "charge 2 done",
        ],
    );
}

/// A conversation in raw JSON-RPC with the `task_server` binary on `dir`, at MCP 2025-11-25.
struct Raw2025 {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
}

impl Raw2025 {
    async fn start(dir: &std::path::Path) -> Raw2025 {
        Raw2025::declaring(dir, json!({})).await
    }

    /// Started with a client that declares `capabilities`.
    async fn declaring(dir: &std::path::Path, capabilities: Value) -> Raw2025 {
        use tokio::io::AsyncBufReadExt;
        let mut child = spawn_task_server(dir);
        let stdin = child.stdin.take().unwrap();
        let stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut raw = Raw2025 {
            child,
            stdin,
            stdout,
        };
        let initialized = raw
            .request(
                0,
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "raw-2025", "version": "0"}
                }),
            )
            .await;
        assert_eq!(initialized["result"]["protocolVersion"], "2025-11-25");
        raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        raw
    }

    async fn send(&mut self, message: Value) {
        use tokio::io::AsyncWriteExt;
        let line = format!("{message}\n");
        bounded("writing", self.stdin.write_all(line.as_bytes()))
            .await
            .unwrap();
    }

    /// The next message the server writes.
    async fn next(&mut self) -> Value {
        let line = bounded("a message", self.stdout.next_line())
            .await
            .unwrap()
            .expect("the server closed stdout");
        serde_json::from_str(&line).unwrap()
    }

    /// Sends request `id` and returns its response, passing over the notifications before it.
    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = bounded("the answer", self.stdout.next_line())
                .await
                .unwrap()
                .expect("the server closed stdout");
            let message: Value = serde_json::from_str(&line).unwrap();
            if message["id"] == id {
                return message;
            }
        }
    }
}

/// The result of `initialize` at `revision` (or of `server/discover` at 2026-07-28, which has
/// no `initialize`) from the `task_server` binary, over stdio.
async fn handshake_over_stdio(revision: &str) -> Value {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let dir = TempDir::new(&format!("tasks-handshake-{revision}"));
    let mut child = spawn_task_server(&dir);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let request = handshake_request(revision);
    let line = format!("{request}\n");
    bounded("writing", stdin.write_all(line.as_bytes()))
        .await
        .unwrap();
    let line = bounded("the answer", stdout.next_line())
        .await
        .unwrap()
        .unwrap();
    let _ = child.kill().await;
    serde_json::from_str::<Value>(&line).unwrap()["result"].take()
}

/// The request that opens a conversation at `revision`.
fn handshake_request(revision: &str) -> Value {
    let client = json!({"name": "raw", "version": "0"});
    if revision == "2026-07-28" {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": revision,
            "io.modelcontextprotocol/clientInfo": client,
            "io.modelcontextprotocol/clientCapabilities": {}
        });
        return json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}});
    }
    let params = json!({"protocolVersion": revision, "capabilities": {}, "clientInfo": client});
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
}

/// The result of `initialize` at `revision` from a server with a task journal, over HTTP (with
/// sessions: the answer is an SSE stream; without: a JSON body).
async fn initialize_over_http(revision: &str, stateless: bool) -> Value {
    let path = journal_path(&format!("initialize-http-{revision}-{stateless}"));
    let mut server = Server::new(Toolbox::new().with(Count))
        .with_task_journal(SqliteJournal::open(&path).unwrap());
    if stateless {
        server = server.with_stateless_http();
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let serving = tokio::spawn(server.serve_http(listener));
    let body = handshake_request(revision).to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let (_, body) = bounded("the answer", crate::common::http_exchange(address, request)).await;
    serving.abort();
    let _ = std::fs::remove_file(&path);
    // A JSON body, or the `data:` line of an SSE event (in a chunked body).
    let json = body
        .lines()
        .find_map(|line| {
            line.strip_prefix("data:")
                .map(str::trim)
                .filter(|data| !data.is_empty())
        })
        .or_else(|| body.lines().find(|line| line.starts_with('{')))
        .unwrap_or_else(|| panic!("no message in {body:?}"));
    serde_json::from_str::<Value>(json).unwrap()["result"].take()
}

/// The `initialize` result a server with a task journal gives at `revision`, `tasks` its
/// capabilities' `tasks` if any.
fn initialized(revision: &str, tasks: Option<Value>) -> Value {
    let mut capabilities = json!({
        "extensions": {"io.modelcontextprotocol/tasks": {}},
        "logging": {},
        "tools": {"listChanged": false}
    });
    if let Some(tasks) = tasks {
        capabilities["tasks"] = tasks;
    }
    json!({
        "protocolVersion": revision,
        "capabilities": capabilities,
        "serverInfo": {"name": "skyl", "version": env!("CARGO_PKG_VERSION")}
    })
}

#[tokio::test]
async fn a_server_with_tasks_declares_2025_11_25s_tasks_capability_at_that_revision_alone() {
    let tasks = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
    assert_eq!(
        handshake_over_stdio("2025-11-25").await,
        initialized("2025-11-25", Some(tasks.clone()))
    );
    assert_eq!(
        handshake_over_stdio("2025-06-18").await,
        initialized("2025-06-18", None)
    );
    for stateless in [false, true] {
        assert_eq!(
            initialize_over_http("2025-11-25", stateless).await,
            initialized("2025-11-25", Some(tasks.clone()))
        );
        assert_eq!(
            initialize_over_http("2025-06-18", stateless).await,
            initialized("2025-06-18", None)
        );
    }
    // At 2026-07-28 tasks are the extension's alone.
    assert_eq!(
        handshake_over_stdio("2026-07-28").await,
        json!({
            "resultType": "complete",
            "supportedVersions": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
            "capabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}},
                "logging": {},
                "tools": {"listChanged": false}
            },
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "skyl", "version": env!("CARGO_PKG_VERSION")}}
        })
    );
}

#[tokio::test]
async fn a_client_of_2025_11_25_gets_its_task_form_from_the_same_journal() {
    let dir = TempDir::new("tasks-form-2025");
    let mut raw = Raw2025::start(&dir).await;
    let call = json!({"name": "charge", "arguments": {"order": 11, "wait": false}, "task": {"ttl": 60000}});
    let created = raw.request(1, "tools/call", call).await;
    let task = &created["result"]["task"];
    let id = text_of(task, "taskId");
    assert!(id.starts_with("mcp2025-"), "{id}");
    let at = text_of(task, "createdAt");
    assert_eq!(
        created,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {
            "taskId": id,
            "status": "working",
            "createdAt": at,
            "lastUpdatedAt": at,
            "ttl": null,
            "pollInterval": 20
        }}})
    );
    // tasks/result waits for the end, and gives the call's result.
    let result = raw.request(2, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(result, task_result_2025(2, &id, "charged order 11"));
    let got = raw.request(3, "tasks/get", json!({"taskId": id})).await;
    let updated = text_of(&got["result"], "lastUpdatedAt");
    // The task as 2025-11-25 writes it, ended.
    let ended = json!({
        "taskId": id,
        "status": "completed",
        "createdAt": at,
        "lastUpdatedAt": updated,
        "ttl": null,
        "pollInterval": 20
    });
    assert_eq!(got, json!({"jsonrpc": "2.0", "id": 3, "result": ended}));
    // A task that ended cannot be cancelled.
    let cancelled = raw.request(4, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["error"]["code"], -32602, "{cancelled}");
    // Killed and started again on the journal, the task still answers, and ran once.
    bounded("the kill", raw.child.kill()).await.unwrap();
    let mut again = Raw2025::start(&dir).await;
    let got = again.request(5, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
    // tasks/list lists it, from the journal.
    let listed = again.request(6, "tasks/list", json!({})).await;
    assert_eq!(
        listed,
        json!({"jsonrpc": "2.0", "id": 6, "result": {"tasks": [ended]}})
    );
    let refused = again
        .request(7, "tasks/list", json!({"cursor": "page two"}))
        .await;
    assert_eq!(
        refused,
        json!({"jsonrpc": "2.0", "id": 7, "error": {
            "code": -32602,
            "message": "the cursor \"page two\" is not one this server gave: send the nextCursor of the page before, as it was, or no cursor for the first page"
        }})
    );
    bounded("the kill", again.child.kill()).await.unwrap();
    assert_each_effect_once(&dir, &["charge 11 start", "charge 11 done"]);
}

#[tokio::test]
async fn a_client_of_2025_11_25_lists_its_tasks_in_pages_of_fifty() {
    let dir = TempDir::new("tasks-pages-2025");
    let mut raw = Raw2025::start(&dir).await;
    let mut rpc = 0;
    let mut ids = Vec::new();
    for order in 1..=51 {
        rpc += 1;
        let call = json!({"name": "charge", "arguments": {"order": order, "wait": false}, "task": {"ttl": 60000}});
        let created = raw.request(rpc, "tools/call", call).await;
        ids.push(text_of(&created["result"]["task"], "taskId"));
    }
    // Each task as tasks/get gives it once it ended: what the list holds, oldest first.
    let mut ended = Vec::new();
    for id in &ids {
        rpc += 1;
        raw.request(rpc, "tasks/result", json!({"taskId": id}))
            .await;
        rpc += 1;
        ended.push(raw.request(rpc, "tasks/get", json!({"taskId": id})).await["result"].clone());
    }
    let first = raw.request(1000, "tasks/list", json!({})).await;
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    assert_eq!(
        first,
        json!({"jsonrpc": "2.0", "id": 1000, "result": {"tasks": ended[..50], "nextCursor": cursor}})
    );
    let second = raw
        .request(1001, "tasks/list", json!({"cursor": cursor}))
        .await;
    assert_eq!(
        second,
        json!({"jsonrpc": "2.0", "id": 1001, "result": {"tasks": ended[50..]}})
    );
    bounded("the kill", raw.child.kill()).await.unwrap();
}

#[tokio::test]
async fn a_client_of_2025_11_25_reads_each_tools_task_support_in_the_list() {
    let dir = TempDir::new("tasks-support-2025");
    let mut raw = Raw2025::start(&dir).await;
    let listed = raw.request(1, "tools/list", json!({})).await;
    bounded("the kill", raw.child.kill()).await.unwrap();
    let schema = |properties: Value, required: Value| {
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": false,
            "properties": properties,
            "required": required
        })
    };
    let order = || {
        schema(
            json!({"order": {"type": "integer", "minimum": 0, "maximum": 4294967295u32}, "wait": {"type": "boolean"}}),
            json!(["order", "wait"]),
        )
    };
    assert_eq!(
        listed,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {
                "name": "charge",
                "description": "Charges an order: not idempotent, charging twice charges twice.",
                "inputSchema": order(),
                "execution": {"taskSupport": "optional"}
            },
            {
                "name": "render",
                "description": "Renders a report: idempotent, rendering it again gives the same report.",
                "inputSchema": schema(
                    json!({"report": {"type": "integer", "minimum": 0, "maximum": 4294967295u32}, "wait": {"type": "boolean"}}),
                    json!(["report", "wait"]),
                ),
                "annotations": {"idempotentHint": true},
                "execution": {"taskSupport": "optional"}
            },
            {
                "name": "refund",
                "description": "Refunds an order once the person confirms: not idempotent either.",
                "inputSchema": order(),
                "execution": {"taskSupport": "optional"}
            },
            {
                "name": "archive",
                "description": "Archives a month's orders: runs only as a task.",
                "inputSchema": schema(
                    json!({"month": {"type": "integer", "minimum": 0, "maximum": 4294967295u32}}),
                    json!(["month"]),
                ),
                "annotations": {"idempotentHint": true},
                "execution": {"taskSupport": "required"}
            }
        ]}})
    );
}

#[tokio::test]
async fn a_task_of_2025_11_25_asks_its_client_during_tasks_result_across_a_restart_and_runs_once() {
    let dir = TempDir::new("tasks-asks-2025");
    let declared = json!({"elicitation": {"form": {}}, "tasks": {}});
    let mut raw = Raw2025::declaring(&dir, declared.clone()).await;
    let call = json!({"name": "refund", "arguments": {"order": 12, "wait": false}, "task": {"ttl": 60000}});
    let created = raw.request(1, "tools/call", call).await;
    let id = text_of(&created["result"]["task"], "taskId");
    // The tool asked: the task waits for input, and has had no effect.
    let mut waiting = Value::Null;
    for n in 0..500 {
        waiting = raw
            .request(10 + n, "tasks/get", json!({"taskId": id}))
            .await;
        if waiting["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    // Killed while it waits, and started again on the journal.
    bounded("the kill", raw.child.kill()).await.unwrap();
    let mut raw = Raw2025::declaring(&dir, declared).await;
    raw.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": id}}),
    )
    .await;
    // During tasks/result the server asks, as its own request, tied to the task.
    let asked = raw.next().await;
    let asked_id = asked["id"].clone();
    assert_eq!(
        asked,
        json!({"jsonrpc": "2.0", "id": asked_id, "method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Refund order 12?",
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}},
            // rmcp gives each request of the server's a progress token.
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": id}, "progressToken": 0}
        }})
    );
    raw.send(json!({"jsonrpc": "2.0", "id": asked_id, "result": {"action": "accept", "content": {"confirm": true}}}))
        .await;
    // The result, and the task's status told in 2025-11-25's notification (before or after it).
    let mut told = Vec::new();
    let result = loop {
        let message = raw.next().await;
        if message["id"] == 2 {
            break message;
        }
        told.push(message);
    };
    if told.is_empty() {
        told.push(raw.next().await);
    }
    let got = raw.request(3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(
        told,
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": got["result"]})
        ]
    );
    assert_eq!(got["result"]["status"], "completed", "{got}");
    assert_eq!(
        result,
        task_result_2025(2, &id, "refunded order 12: \"accept\"")
    );
    bounded("the kill", raw.child.kill()).await.unwrap();
    assert_each_effect_once(&dir, &["refund 12 start", "refund 12 done"]);
}

#[tokio::test]
async fn a_task_whose_tool_asks_waits_for_the_answer_across_a_restart_and_runs_once() {
    let dir = TempDir::new("tasks-asks");
    let (mut first, client) = task_server(&dir).await;
    let created = create(&client, "refund", json!({"order": 7, "wait": false})).await;
    let id = text_of(&created, "taskId");
    let waiting = settled(&client, &id).await;
    let question = json!({
        "confirm": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Refund order 7?",
                "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}
            }
        }
    });
    assert_eq!(
        waiting,
        json!({
            "resultType": "complete",
            "taskId": id,
            "status": "input_required",
            "createdAt": created["createdAt"],
            "lastUpdatedAt": waiting["lastUpdatedAt"],
            "ttlMs": null,
            "pollIntervalMs": 20,
            "inputRequests": question
        })
    );
    // The tool asked before its effect: nothing happened yet.
    assert_eq!(effects(&dir), Default::default());
    // The client that created the task heard that it waits, as `tasks/get` says it.
    assert_heard_as_got(&client, &waiting).await;

    // Killed while the task waits, started again on the same journal: it still waits.
    bounded("the kill", first.kill()).await.unwrap();
    drop(client);
    let (mut second, client) = task_server(&dir).await;
    assert_eq!(get(&client, &id).await.unwrap(), waiting);

    let answer = json!({"action": "accept", "content": {"confirm": true}});
    answer_confirm(&client, &id, answer).await;
    let done = settled(&client, &id).await;
    assert_eq!(
        done,
        completed(&created, &done, "refunded order 7: \"accept\"", false)
    );
    // The client that answered hears the end, as `tasks/get` says it.
    assert_heard_as_got(&client, &done).await;
    // An answer for a task that waits for none is acknowledged and let go: nothing changes.
    answer_confirm(&client, &id, json!({"action": "decline"})).await;
    assert_eq!(get(&client, &id).await.unwrap(), done);
    assert_each_effect_once(&dir, &["refund 7 start", "refund 7 done"]);
    bounded("the kill", second.kill()).await.unwrap();
}

/// How many times a slow tool started, and whether it may finish.
type Slow = (
    std::sync::atomic::AtomicUsize,
    std::sync::atomic::AtomicBool,
);

static SLOW_RENDER: std::sync::LazyLock<Slow> = std::sync::LazyLock::new(Default::default);
static SLOW_CHARGE: std::sync::LazyLock<Slow> = std::sync::LazyLock::new(Default::default);

/// Counts a start of a slow tool, then waits until the test lets it finish.
async fn slow(counter: &Slow) {
    use std::sync::atomic::Ordering;
    counter.0.fetch_add(1, Ordering::SeqCst);
    for _ in 0..30_000 {
        if counter.1.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Renders a report, once the test lets it (idempotent: a cut-off call may run again).
#[skyl::tool(idempotent)]
async fn slow_render(report: u32) -> String {
    slow(&SLOW_RENDER).await;
    format!("rendered report {report}")
}

/// Charges for a report, once the test lets it (not idempotent: a cut-off call must not run
/// again).
#[skyl::tool]
async fn slow_charge(report: u32) -> String {
    slow(&SLOW_CHARGE).await;
    format!("charged for report {report}")
}

/// Starts `task_agent` in `mode` for `tool`, its stdout and stderr piped.
async fn task_agent(
    url: &str,
    journal: &std::path::Path,
    mode: &str,
    tool: &str,
) -> tokio::process::Child {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_task_agent"));
    command
        .arg(url)
        .arg(journal)
        .args([mode, tool])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    spawn_reading(command)
}

/// A journaled run in a child process calls `tool`, mounted from a server in this process that
/// makes the call a task, and is killed once the task id is recorded; the run resumed in a
/// second process answers the call with the task's result, and the tool ran once.
async fn resumed_run_picks_up_the_task(tool: &str, counter: &Slow, result: &str) {
    use std::sync::atomic::Ordering;
    let dir = TempDir::new(&format!("tasks-{tool}"));
    let served = Toolbox::new().with(SlowRender).with(SlowCharge);
    let server = Server::new(served)
        .with_task_journal(SqliteJournal::open(dir.join("server.db")).unwrap())
        .with_task_poll_interval(Duration::from_millis(20));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let serving = tokio::spawn(server.serve_http(listener));
    let journal = dir.join("runs.db");

    // The first process: its call becomes a task, and it dies while the task runs.
    let mut first = task_agent(&url, &journal, "first", tool).await;
    let reader = SqliteJournal::open(&journal).unwrap();
    for _ in 0..3000 {
        if reader.has_run("handle/run-1/1/c1").unwrap() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    if !reader.has_run("handle/run-1/1/c1").unwrap() {
        first.kill().await.unwrap();
        let output = first.wait_with_output().await.unwrap();
        panic!(
            "the task id was not recorded; the first run said: {} {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    bounded("the kill", first.kill()).await.unwrap();
    // The task runs on: the server is this process.
    for _ in 0..3000 {
        if counter.0.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(counter.0.load(Ordering::SeqCst), 1);

    // The second process resumes the run: the call awaits the same task.
    counter.1.store(true, Ordering::SeqCst);
    let second = task_agent(&url, &journal, "resume", tool).await;
    let output = bounded("the resumed run", second.wait_with_output())
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "the resumed run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let transcript: Value = serde_json::from_slice(&output.stdout).unwrap();
    let name = format!("jobs_{tool}");
    assert_eq!(
        transcript,
        json!([
            {"role": "user", "parts": [{"text": "Render report 7."}]},
            {"role": "assistant", "parts": [{"tool_call": {"id": "c1", "name": name, "arguments": {"report": 7}}}]},
            {"role": "tool", "parts": [{"tool_result": {"call_id": "c1", "content": result, "is_error": false}}]},
            {"role": "assistant", "parts": [{"text": "The report is rendered."}]}
        ])
    );
    // The tool ran once: the resumed call did not call it again.
    assert_eq!(counter.0.load(Ordering::SeqCst), 1);
    serving.abort();
}

#[tokio::test]
async fn a_mounted_idempotent_task_is_picked_up_by_its_id_in_a_resumed_run() {
    resumed_run_picks_up_the_task("slow_render", &SLOW_RENDER, "rendered report 7").await;
}

#[tokio::test]
async fn a_mounted_task_with_effects_is_picked_up_by_its_id_in_a_resumed_run() {
    resumed_run_picks_up_the_task("slow_charge", &SLOW_CHARGE, "charged for report 7").await;
}

/// Waits until the test opens its gate.
static LONG_GATE: std::sync::LazyLock<Notify> = std::sync::LazyLock::new(Notify::new);

/// Takes as long as the test wants.
#[skyl::tool]
async fn take_long(pages: u32) -> String {
    STARTED_LONG.notify_one();
    LONG_GATE.notified().await;
    format!("took {pages} pages")
}

/// Says when `take_long` starts.
static STARTED_LONG: std::sync::LazyLock<Notify> = std::sync::LazyLock::new(Notify::new);

/// Says when `never_ends` is cancelled.
static NEVER_ENDS_CANCELLED: std::sync::LazyLock<Notify> = std::sync::LazyLock::new(Notify::new);

/// Never ends unless cancelled.
#[skyl::tool]
async fn never_ends(#[context] call: CallContext) -> &'static str {
    call.cancelled().await;
    NEVER_ENDS_CANCELLED.notify_one();
    "cancelled"
}

/// skyl's server with tasks, mounted in process with a call timeout and a task timeout of
/// `call_ms` and `task_ms` milliseconds.
async fn mounted(name: &str, call_ms: u64, task_ms: u64) -> Toolbox {
    let journal = SqliteJournal::open(journal_path(name)).unwrap();
    let server = Server::new(Toolbox::new().with(TakeLong).with(NeverEnds))
        .with_task_journal(journal)
        .with_task_poll_interval(Duration::from_millis(10));
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.serve(server_end));
    let remote = bounded(
        "mounting",
        skyl::mcp::Remote::builder("jobs")
            .call_timeout(Duration::from_millis(call_ms))
            .task_timeout(Duration::from_millis(task_ms))
            .connect(client_end),
    )
    .await
    .unwrap();
    Toolbox::new().with_remote(&remote)
}

#[tokio::test]
async fn a_mounted_call_answered_with_a_task_is_awaited_past_the_call_timeout() {
    let toolbox = mounted("awaited", 50, 60_000).await;
    let call = skyl::ToolCall::new("c1", "jobs_take_long", json!({"pages": 2}));
    let dispatch = toolbox.dispatch(&call);
    let open = async {
        STARTED_LONG.notified().await;
        // Past the call timeout: only the task's first answer had to come within it.
        tokio::time::sleep(Duration::from_millis(200)).await;
        LONG_GATE.notify_one();
    };
    let (result, ()) = bounded("the call", async { tokio::join!(dispatch, open) }).await;
    assert_eq!(result, skyl::ToolResult::success("c1", "took 2 pages"));
}

#[tokio::test]
async fn a_mounted_task_past_the_task_timeout_is_cancelled_on_the_server() {
    let toolbox = mounted("expired", 60_000, 100).await;
    let call = skyl::ToolCall::new("c1", "jobs_never_ends", json!({}));
    let result = bounded("the call", toolbox.dispatch(&call)).await;
    assert_eq!(
        result,
        skyl::ToolResult::error(
            "c1",
            "ERROR: jobs_never_ends failed: the MCP server \"jobs\" did not answer within 100ms. Do not retry with the same arguments; tell the user that the \"jobs\" server is not responding."
        )
    );
    // The server heard tasks/cancel and cancelled the tool's call.
    bounded("the server's cancellation", NEVER_ENDS_CANCELLED.notified()).await;
}

/// Asks the person to confirm, then books the room.
#[skyl::tool]
fn book(room: String) -> Result<String, skyl::ToolFailure> {
    let Some(answer) = skyl::mcp::answer("confirm") else {
        let params = serde_json::from_value(json!({
            "mode": "form",
            "message": format!("Book the {room} room?"),
            "requestedSchema": {"type": "object", "properties": {"confirm": {"type": "boolean"}}}
        }))
        .unwrap();
        let question = InputRequest::Elicitation(ElicitRequest::new(params));
        return Err(skyl::mcp::ask("confirm", question));
    };
    Ok(format!("{room}: {answer}"))
}

/// Asks one question after another, each once the last is answered, and never finishes.
#[skyl::tool]
fn interrogate() -> Result<String, skyl::ToolFailure> {
    let asked = (0..)
        .take_while(|n| skyl::mcp::answer(&format!("q{n}")).is_some())
        .count();
    let params = serde_json::from_value(json!({
        "mode": "form",
        "message": format!("Question {asked}?"),
        "requestedSchema": {"type": "object", "properties": {}}
    }))
    .unwrap();
    let question = InputRequest::Elicitation(ElicitRequest::new(params));
    Err(skyl::mcp::ask(format!("q{asked}"), question))
}

fn rooms_server(name: &str) -> Server {
    let journal = SqliteJournal::open(journal_path(name)).unwrap();
    Server::new(Toolbox::new().with(Book).with(Interrogate))
        .with_task_journal(journal)
        .with_task_poll_interval(Duration::from_millis(10))
}

/// `server` mounted over a connection of its own, as another process would mount it, holding a
/// call parked for the person for `expiry`.
async fn mount_rooms(server: &Server, expiry: Duration) -> skyl::mcp::Remote {
    mount_rooms_with(
        server,
        skyl::mcp::Remote::builder("rooms").question_expiry(expiry),
    )
    .await
}

async fn mount_rooms_with(server: &Server, builder: skyl::mcp::RemoteBuilder) -> skyl::mcp::Remote {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(server.clone().serve(server_end));
    bounded("mounting", builder.connect(client_end))
        .await
        .unwrap()
}

/// A run over `remote`'s tools whose model books the blue room, stopped for the question of
/// the server's task.
async fn run_waiting_for(remote: &skyl::mcp::Remote) -> Run {
    let model = ScriptedModel::new().reply_calls([ToolCall::new(
        "c1",
        "rooms_book",
        json!({"room": "blue"}),
    )]);
    let run = run_over(remote, model, "Book it").await;
    assert_eq!(run.stop(), &Stop::AwaitingApproval);
    let question = run.question("c1").expect("the call asked");
    assert_eq!(question.from(), "rooms");
    assert_eq!(question.message(), "Book the blue room?");
    assert_eq!(
        question.schema(),
        &json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}})
    );
    run
}

/// `run`, replied to and resumed over `remote`'s tools: the call's result.
async fn resumed_result(remote: &skyl::mcp::Remote, mut run: Run, reply: Reply) -> Vec<ToolResult> {
    run.reply("c1", reply).unwrap();
    let run = resumed_over(remote, run).await;
    run.transcript()[2].tool_results().cloned().collect()
}

#[tokio::test]
async fn a_mounted_task_that_asks_pauses_the_run_and_the_persons_reply_reaches_the_task() {
    let server = rooms_server("mounted-asks");

    // Replied to in the process that asked: the parked call sends the answer on.
    let remote = mount_rooms(&server, Duration::from_secs(600)).await;
    let run = run_waiting_for(&remote).await;
    let reply = Reply::Accept(object(json!({"confirm": true})));
    let accepted = json!({"action": "accept", "content": {"confirm": true}});
    assert_eq!(
        resumed_result(&remote, run, reply).await,
        [ToolResult::success("c1", format!("blue: {accepted}"))]
    );

    // Saved, and resumed over another connection once the process that asked no longer holds
    // the call (as after a restart): the question's continuation names the task, which gets
    // the answer.
    let expiring = mount_rooms(&server, Duration::ZERO).await;
    let run = run_waiting_for(&expiring).await;
    let saved: Run = serde_json::from_str(&serde_json::to_string(&run).unwrap()).unwrap();
    let elsewhere = mount_rooms(&server, Duration::from_secs(600)).await;
    assert_eq!(
        resumed_result(&elsewhere, saved, Reply::Decline).await,
        [ToolResult::success("c1", "blue: {\"action\":\"decline\"}")]
    );
}

#[tokio::test]
async fn a_mounted_tasks_question_outside_a_run_is_the_handlers_or_declined_and_bounded() {
    let server = rooms_server("mounted-handled");
    let call = ToolCall::new("c1", "rooms_book", json!({"room": "red"}));

    // The application's handler answers on the spot.
    let heard = Arc::new(Mutex::new(Vec::new()));
    let hearing = Arc::clone(&heard);
    let builder = skyl::mcp::Remote::builder("rooms").on_question(move |question| {
        hearing.lock().unwrap().push(question.message().to_owned());
        Reply::Accept(object(json!({"confirm": true})))
    });
    let handled = mount_rooms_with(&server, builder).await;
    let toolbox = Toolbox::new().with_remote(&handled);
    let accepted = json!({"action": "accept", "content": {"confirm": true}});
    assert_eq!(
        bounded("a handled call", toolbox.dispatch(&call)).await,
        ToolResult::success("c1", format!("red: {accepted}"))
    );

    // Nobody to ask: the server hears no.
    let unhandled = mount_rooms(&server, Duration::from_secs(600)).await;
    let toolbox = Toolbox::new().with_remote(&unhandled);
    assert_eq!(
        bounded("a declined call", toolbox.dispatch(&call)).await,
        ToolResult::success("c1", "red: {\"action\":\"decline\"}")
    );

    // A task that keeps asking is answered ten times, as many rounds as an input-required
    // call gets, then cancelled.
    let toolbox = Toolbox::new().with_remote(&handled);
    let call = ToolCall::new("c2", "rooms_interrogate", json!({}));
    assert_eq!(
        bounded("an endless interrogation", toolbox.dispatch(&call)).await,
        ToolResult::error(
            "c2",
            "ERROR: rooms_interrogate failed: the MCP server \"rooms\" kept asking questions in the task that ran the call, more than 10; the task was cancelled, and the call may or may not have taken effect. Do not retry; tell the user the result is unavailable."
        )
    );
    let asked: Vec<String> = std::iter::once("Book the red room?".to_owned())
        .chain((0..10).map(|n| format!("Question {n}?")))
        .collect();
    assert_eq!(*heard.lock().unwrap(), asked);
}
