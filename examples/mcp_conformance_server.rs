//! The tools the official MCP conformance suite's server scenarios call, written with skyl's
//! `#[tool]` and served by `skyl::mcp::Server` over streamable HTTP.
//!
//! ```text
//! cargo run --example mcp_conformance_server -- 127.0.0.1:PORT
//! ```
//!
//! serves `http://127.0.0.1:PORT/mcp` until the process is killed (port 0: a free port, which the
//! first line on stderr names). `tests/conformance/run` starts
//! it and runs `@modelcontextprotocol/conformance server` against it; the scenarios skyl does not
//! pass yet are listed, each with its reason, in `tests/conformance/baseline.yml`.
//!
//! The tools that ask the client something mid-call (sampling, elicitation) reach it through
//! `skyl::mcp::caller()`. The calls of the tasks extension's fixtures (`slow_compute`,
//! `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input`) are served as tasks,
//! kept in a journal in memory.

// rmcp marks sampling deprecated (SEP-2577 removes it from a later protocol version); the suite
// still tests it on the versions skyl speaks.
#![allow(deprecated)]

#[path = "support/errors.rs"]
mod errors;

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use skyl::mcp::rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, ElicitRequest,
    ElicitRequestParams, InputRequest, ServerRequest,
};
use skyl::mcp::rmcp::{Peer, RoleServer};
use skyl::mcp::{
    DynamicPrompt, DynamicResource, Failure, PromptArgument, PromptDefinition, PromptMessage,
    ResourceDefinition,
};
use skyl::{
    DynamicTool, ToolDefinition, ToolFailure, Toolbox,
    content::{Audio, Image, Resource},
    tool::{CallContext, LogLevel, Progress},
};

/// A 1x1 red pixel, the suite's suggestion for an image.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// The same pixel's bytes, for the binary resource.
const RED_PIXEL_PNG_BYTES: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\xda\x63\xfc\xcf\xc0\xf0\x1f\x00\x05\x05\x02\x00\x5f\xc8\xf1\xd2\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

/// Returns an image: one red pixel, as a PNG.
#[skyl::tool]
fn test_image_content() -> Image {
    Image::from_base64("image/png", RED_PIXEL_PNG)
}

/// Returns an audio clip: a tenth of a second of silence, as a WAV file.
#[skyl::tool]
fn test_audio_content() -> Audio {
    Audio::wav(silent_wav(800))
}

/// Returns an embedded text resource.
#[skyl::tool]
fn test_embedded_resource() -> Resource {
    Resource::text(
        "test://embedded-resource",
        "This is an embedded resource content.",
    )
    .with_media_type("text/plain")
}

/// Returns text, an image and an embedded resource in one result.
#[skyl::tool]
fn test_multiple_content_types() -> (&'static str, Image, Resource) {
    (
        "Multiple content types test:",
        Image::from_base64("image/png", RED_PIXEL_PNG),
        Resource::text(
            "test://mixed-content-resource",
            r#"{"test":"data","value":123}"#,
        )
        .with_media_type("application/json"),
    )
}

/// A mono 8-bit PCM WAV file of `samples` silent samples at 8 kHz.
fn silent_wav(samples: u32) -> Vec<u8> {
    let mut wav = Vec::with_capacity(44 + samples as usize);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // the fmt chunk's size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // one channel
    wav.extend_from_slice(&8000u32.to_le_bytes()); // samples a second
    wav.extend_from_slice(&8000u32.to_le_bytes()); // bytes a second
    wav.extend_from_slice(&1u16.to_le_bytes()); // bytes a sample
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits a sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&samples.to_le_bytes());
    wav.resize(44 + samples as usize, 128); // 8-bit PCM's silence is the middle value
    wav
}

/// Returns a plain text result.
#[skyl::tool]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Always fails, to show how a tool's error reaches the client.
#[skyl::tool]
fn test_error_handling() -> Result<String, ToolFailure> {
    Err(ToolFailure::do_not_retry(
        "this tool intentionally returns an error for testing",
    ))
}

/// Sends three log messages while it works (MCP logging, through the call's context).
#[skyl::tool]
async fn test_tool_with_logging(#[context] call: CallContext) -> &'static str {
    call.log(LogLevel::Info, "Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    call.log(LogLevel::Info, "Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    call.log(LogLevel::Info, "Tool execution completed");
    "Tool with logging executed successfully"
}

/// Reports its progress, 0, 50 and 100 of 100 (MCP progress, through the call's context).
#[skyl::tool]
async fn test_tool_with_progress(#[context] call: CallContext) -> &'static str {
    for (n, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if n > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        call.progress(Progress::new(done).with_total(100.0));
    }
    "Tool with progress executed successfully"
}

/// Asks the client's model to answer a prompt (MCP sampling) and returns the answer.
#[skyl::tool]
async fn test_sampling(
    /// The prompt to send to the client's model.
    prompt: String,
) -> Result<String, ToolFailure> {
    let client = client_that_can("sampling", |info| info.sampling.is_some())?;
    let params: CreateMessageRequestParams = serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": 100
    }))
    .map_err(|error| ToolFailure::do_not_retry(error.to_string()))?;
    let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
    match client.send_request(request).await {
        Ok(ClientResult::CreateMessageResult(answer)) => {
            let text = answer
                .message
                .content
                .first()
                .and_then(|content| content.as_text())
                .map(|text| text.text.clone())
                .unwrap_or_default();
            Ok(format!("LLM response: {text}"))
        }
        Ok(_) => Err(ToolFailure::do_not_retry(
            "the client answered sampling with something else",
        )),
        Err(error) => Err(ToolFailure::do_not_retry(format!(
            "the client's sampling failed: {error}"
        ))),
    }
}

/// Asks the person for their username and email (MCP elicitation).
#[skyl::tool]
async fn test_elicitation(
    /// The message to show the person.
    message: String,
) -> Result<String, ToolFailure> {
    let answer = elicit(json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        }
    }))
    .await?;
    Ok(format!("User response: {answer}"))
}

/// Asks the person for one field of each primitive type, each with a default (SEP-1034).
#[skyl::tool]
async fn test_elicitation_sep1034_defaults() -> Result<String, ToolFailure> {
    let answer = elicit(json!({
        "message": "Please review and update the form fields with defaults",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active"
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            }
        }
    }))
    .await?;
    Ok(format!("Elicitation completed: {answer}"))
}

/// Asks the person to choose, in each of the five ways an enum can be asked (SEP-1330).
#[skyl::tool]
async fn test_elicitation_sep1330_enums() -> Result<String, ToolFailure> {
    let answer = elicit(json!({
        "message": "Please select options from the enum fields",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"]
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]
                    }
                }
            }
        }
    }))
    .await?;
    Ok(format!("Elicitation completed: {answer}"))
}

/// The client of the call being answered, when it declared the capability the tool needs.
fn client_that_can(
    what: &str,
    declared: impl Fn(&skyl::mcp::rmcp::model::ClientCapabilities) -> bool,
) -> Result<Peer<RoleServer>, ToolFailure> {
    let client = skyl::mcp::caller()
        .ok_or_else(|| ToolFailure::do_not_retry("this tool runs only when called over MCP"))?;
    let can = client
        .peer_info()
        .is_some_and(|info| declared(&info.capabilities));
    if can {
        Ok(client)
    } else {
        Err(ToolFailure::do_not_retry(format!(
            "the MCP client does not support {what}"
        )))
    }
}

/// Sends `elicitation/create` with `params`, and says what the person did as
/// `action=..., content=...`.
async fn elicit(params: Value) -> Result<String, ToolFailure> {
    let client = client_that_can("elicitation", |info| info.elicitation.is_some())?;
    let mut params = params;
    params["mode"] = json!("form");
    let params: ElicitRequestParams = serde_json::from_value(params)
        .map_err(|error| ToolFailure::do_not_retry(error.to_string()))?;
    match client
        .send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params)))
        .await
    {
        Ok(ClientResult::ElicitResult(answer)) => {
            let action = serde_json::to_value(&answer.action).unwrap_or_default();
            let action = action.as_str().unwrap_or("unknown");
            let content = answer.content.unwrap_or(Value::Null);
            Ok(format!("action={action}, content={content}"))
        }
        Ok(_) => Err(ToolFailure::do_not_retry(
            "the client answered elicitation with something else",
        )),
        Err(error) => Err(ToolFailure::do_not_retry(format!(
            "the client's elicitation failed: {error}"
        ))),
    }
}

/// Runs once the person approves it (`Server::with_approval`): a client of 2026-07-28 is asked in
/// an input-required result whose request state the server signs, and a state sent back changed
/// is refused (SEP-2322).
#[skyl::tool]
fn test_input_required_result_tampered_state() -> &'static str {
    "approved, and ran"
}

/// Runs once the person approves it: at 2026-07-28 the response to the call is an input-required
/// result, never a request of the server's on the call's stream (SEP-2575).
#[skyl::tool]
fn test_streaming_elicitation() -> &'static str {
    "approved, and ran"
}

/// Writes a log line at each level; at 2026-07-28 the client gets those at or above the level its
/// request asks for in `_meta`, and none when it asks for none (SEP-2575).
#[skyl::tool]
fn test_logging_tool(#[context] call: CallContext) -> &'static str {
    for level in [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Warning,
        LogLevel::Error,
    ] {
        call.log(level, format!("a line at {level:?}"));
    }
    "logged"
}

/// A question of an input-required result, from its JSON (`method` and `params`).
fn question(request: Value) -> Result<InputRequest, ToolFailure> {
    serde_json::from_value(request).map_err(|error| ToolFailure::do_not_retry(error.to_string()))
}

/// Asks the client the questions `asked` (key, JSON) it has not answered yet, all at once; the
/// answers when it has answered them all.
fn answers_to(asked: Vec<(&str, Value)>) -> Result<Vec<Value>, ToolFailure> {
    let answers: Vec<Option<Value>> = asked
        .iter()
        .map(|(key, _)| skyl::mcp::answer(key))
        .collect();
    if answers.iter().all(Option::is_some) {
        return Ok(answers.into_iter().flatten().collect());
    }
    let mut failure = None;
    for ((key, request), answer) in asked.into_iter().zip(answers) {
        if answer.is_none() {
            failure = Some(skyl::mcp::ask(key, question(request)?));
        }
    }
    Err(failure.expect("a question not answered"))
}

/// A form question with `message`, for one string property `field` (or `schema`'s).
fn form(message: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object", "properties": properties, "required": required}
        }
    })
}

/// A sampling question asking the client's model `text`.
fn sampling(text: &str, max_tokens: u32) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens
        }
    })
}

/// The client's roots.
fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

/// Asks the person's name in an input-required result (SEP-2322), and greets them.
#[skyl::tool]
fn test_input_required_result_elicitation() -> Result<String, ToolFailure> {
    // An answer without a name is asked again.
    if let Some(answer) = skyl::mcp::answer("user_name")
        && let Some(name) = answer["content"]["name"].as_str()
    {
        return Ok(format!("Hello, {name}!"));
    }
    let name = form(
        "What is your name?",
        json!({"name": {"type": "string"}}),
        &["name"],
    );
    Err(skyl::mcp::ask("user_name", question(name)?))
}

/// Asks the client's model a question in an input-required result, and says its answer.
#[skyl::tool]
fn test_input_required_result_sampling() -> Result<String, ToolFailure> {
    let answers = answers_to(vec![(
        "capital_question",
        sampling("What is the capital of France?", 100),
    )])?;
    Ok(format!(
        "The model said: {}",
        answers[0]["content"]["text"].as_str().unwrap_or("")
    ))
}

/// Asks the client's roots in an input-required result, and lists them.
#[skyl::tool]
fn test_input_required_result_list_roots() -> Result<String, ToolFailure> {
    let answers = answers_to(vec![("client_roots", roots())])?;
    Ok(format!("The client's roots: {}", answers[0]["roots"]))
}

/// Asks a confirmation with a request state, which the server signs and checks.
#[skyl::tool]
fn test_input_required_result_request_state() -> Result<String, ToolFailure> {
    let confirm = form(
        "Please confirm",
        json!({"ok": {"type": "boolean"}}),
        &["ok"],
    );
    let answers = answers_to(vec![("confirm", confirm)])?;
    Ok(format!("state-ok: {}", answers[0]))
}

/// Asks a name, a greeting from the client's model and the client's roots at once.
#[skyl::tool]
fn test_input_required_result_multiple_inputs() -> Result<String, ToolFailure> {
    let name = form(
        "What is your name?",
        json!({"name": {"type": "string"}}),
        &["name"],
    );
    let answers = answers_to(vec![
        ("user_name", name),
        ("greeting", sampling("Generate a greeting", 50)),
        ("client_roots", roots()),
    ])?;
    Ok(format!("All answered: {}", Value::Array(answers)))
}

/// Asks a name, then, with it, a favorite color: two rounds.
#[skyl::tool]
fn test_input_required_result_multi_round() -> Result<String, ToolFailure> {
    let name = form(
        "Step 1: What is your name?",
        json!({"name": {"type": "string"}}),
        &["name"],
    );
    let name = answers_to(vec![("step1", name)])?;
    let color = form(
        "Step 2: What is your favorite color?",
        json!({"color": {"type": "string"}}),
        &["color"],
    );
    let color = answers_to(vec![("step2", color)])?;
    Ok(format!("Both rounds done: {} and {}", name[0], color[0]))
}

/// Asks only what the client said it can answer: the person if it declared elicitation, its
/// model if it declared sampling.
#[skyl::tool]
fn test_input_required_result_capabilities() -> Result<String, ToolFailure> {
    let capabilities = skyl::mcp::client_capabilities().unwrap_or_default();
    let mut asked = Vec::new();
    if capabilities.elicitation.is_some() {
        asked.push((
            "user_name",
            form(
                "What is your name?",
                json!({"name": {"type": "string"}}),
                &["name"],
            ),
        ));
    }
    if capabilities.sampling.is_some() {
        asked.push(("greeting", sampling("Generate a greeting", 50)));
    }
    if asked.is_empty() {
        return Ok("The client can answer no question.".into());
    }
    let answers = answers_to(asked)?;
    Ok(format!("Answered: {}", Value::Array(answers)))
}

/// Asks the client's model, whether or not the client said it has one: a client that did not
/// declare sampling gets the error saying which capability is missing (-32021, SEP-2575).
#[skyl::tool]
fn test_missing_capability() -> Result<String, ToolFailure> {
    let answers = answers_to(vec![("greeting", sampling("Generate a greeting", 50))])?;
    Ok(format!("The model said: {}", answers[0]["content"]["text"]))
}

/// A tool whose input schema uses JSON Schema 2020-12's keywords, composition, conditions and
/// an anchor among them, which must reach the client as written (SEP-1613, SEP-2106).
fn json_schema_2020_12_tool() -> DynamicTool {
    let definition = ToolDefinition::new(
        "json_schema_2020_12_tool",
        "Tool with JSON Schema 2020-12 features",
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        }),
    );
    DynamicTool::from_fn(definition, |arguments: Value| {
        format!("received {arguments}")
    })
}

/// A tool whose `region` argument the client also sends as the `Mcp-Param-Region` header
/// (SEP-2243), which the server checks against the body before the call runs.
fn test_header_region() -> DynamicTool {
    let definition = ToolDefinition::new(
        "test_header_region",
        "Says which region it was called for.",
        json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"}
            },
            "required": ["region"]
        }),
    );
    DynamicTool::from_fn(definition, |arguments: Value| {
        format!("called for {}", arguments["region"])
    })
}

// The tasks extension's fixtures (SEP-2663). The server takes a call of the last three as a
// task, for a client that declares the extension; `greet` is answered at once.
// `test_tool_with_task` asks the person's name before its task is created.

/// Greets someone by name.
#[skyl::tool]
fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then says it is done (a task, for a client that takes them).
#[skyl::tool]
async fn slow_compute(
    /// How long to work, in seconds.
    seconds: f64,
    /// A name for the work, repeated in the answer.
    label: Option<String>,
) -> String {
    tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 600.0))).await;
    format!(
        "computed {} after {seconds} s",
        label.as_deref().unwrap_or("it")
    )
}

/// Fails after a second of work, as a tool reports failure.
#[skyl::tool]
async fn failing_job() -> Result<String, ToolFailure> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolFailure::do_not_retry("the job failed, on purpose"))
}

/// Panics, which skyl answers as the tool's failure.
#[skyl::tool]
async fn protocol_error_job() -> String {
    panic!("protocol_error_job panics, on purpose")
}

/// Deletes a file once the person confirms: its task waits for the answer (`tasks/update`).
#[skyl::tool]
fn confirm_delete(
    /// The file to delete.
    filename: String,
) -> Result<String, ToolFailure> {
    let confirm = form(
        &format!("Delete {filename}?"),
        json!({"confirm": {"type": "boolean"}}),
        &["confirm"],
    );
    let [answer] = <[Value; 1]>::try_from(answers_to(vec![("confirm", confirm)])?)
        .expect("one question, one answer");
    Ok(format!("deleted {filename}: {answer}"))
}

/// Asks two questions at once; its task waits until both are answered.
#[skyl::tool]
fn multi_input() -> Result<String, ToolFailure> {
    let name = form("Your name?", json!({"name": {"type": "string"}}), &["name"]);
    let confirm = form(
        "Go ahead?",
        json!({"confirm": {"type": "boolean"}}),
        &["confirm"],
    );
    let answers = answers_to(vec![("name", name), ("confirm", confirm)])?;
    Ok(format!("answered: {}", Value::from(answers)))
}

/// Greets the person by the name they gave in the input-required round before its task was
/// created (`Server::with_questions_before_task`); it runs only as a task.
#[skyl::tool]
fn test_tool_with_task() -> String {
    let name = skyl::mcp::answer("user_name").unwrap_or_default();
    format!(
        "Hello, {}!",
        name["content"]["name"].as_str().unwrap_or("nobody")
    )
}

/// What a call asks before its task is created: `test_tool_with_task` the person's name.
fn before_task(
    call: &skyl::ToolCall,
    answers: &skyl::mcp::rmcp::model::InputResponses,
) -> skyl::mcp::rmcp::model::InputRequests {
    let mut asked = skyl::mcp::rmcp::model::InputRequests::new();
    if call.name == "test_tool_with_task" && !answers.contains_key("user_name") {
        let name = form(
            "What is your name?",
            json!({"name": {"type": "string"}}),
            &["name"],
        );
        if let Ok(name) = question(name) {
            asked.insert("user_name".to_owned(), name);
        }
    }
    asked
}

/// The tools whose calls the server takes as tasks.
const TASK_TOOLS: [&str; 5] = [
    "slow_compute",
    "failing_job",
    "protocol_error_job",
    "confirm_delete",
    "multi_input",
];

/// The prompts the suite's prompt scenarios get.
fn prompts() -> Vec<DynamicPrompt> {
    vec![
        DynamicPrompt::from_fn(
            PromptDefinition::new("test_simple_prompt", "A simple prompt without arguments."),
            |_| "This is a simple prompt for testing.",
        ),
        DynamicPrompt::from_fn(
            PromptDefinition::new("test_prompt_with_arguments", "A prompt with two arguments.")
                .with_argument(PromptArgument::required("arg1", "First test argument"))
                .with_argument(PromptArgument::required("arg2", "Second test argument")),
            |arguments| -> Result<String, Failure> {
                let (arg1, arg2): (String, String) =
                    (arguments.get("arg1")?, arguments.get("arg2")?);
                Ok(format!(
                    "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                ))
            },
        )
        .with_completion("arg1", |typed| {
            ["paris", "park", "party"]
                .iter()
                .filter(|value| value.starts_with(typed))
                .map(|value| (*value).to_owned())
                .collect()
        }),
        DynamicPrompt::from_fn(
            PromptDefinition::new(
                "test_prompt_with_embedded_resource",
                "A prompt embedding a resource.",
            )
            .with_argument(PromptArgument::required(
                "resourceUri",
                "URI of the resource to embed",
            )),
            |arguments| -> Result<Vec<PromptMessage>, Failure> {
                let uri: String = arguments.get("resourceUri")?;
                Ok(vec![
                    PromptMessage::user(
                        Resource::text(uri, "Embedded resource content for testing.")
                            .with_media_type("text/plain"),
                    ),
                    PromptMessage::user("Please process the embedded resource above."),
                ])
            },
        ),
        DynamicPrompt::from_fn(
            PromptDefinition::new("test_prompt_with_image", "A prompt with an image."),
            |_| {
                vec![
                    PromptMessage::user(test_image_content()),
                    PromptMessage::user("Please analyze the image above."),
                ]
            },
        ),
        // Asks for the context in an input-required result (2026-07-28), then uses it.
        DynamicPrompt::from_fn(
            PromptDefinition::new(
                "test_input_required_result_prompt",
                "A prompt that asks for its context.",
            ),
            |_| -> Result<String, Failure> {
                if let Some(answer) = skyl::mcp::answer("user_context")
                    && let Some(context) = answer["content"]["context"].as_str()
                {
                    return Ok(format!("Use this context: {context}"));
                }
                let asked = form(
                    "What context should the prompt use?",
                    json!({"context": {"type": "string"}}),
                    &["context"],
                );
                Err(skyl::mcp::ask("user_context", question(asked)?).into())
            },
        ),
    ]
}

/// The resources the suite's resource scenarios read.
fn resources() -> Vec<DynamicResource> {
    vec![
        DynamicResource::from_fn(
            ResourceDefinition::new("test://static-text", "static-text")
                .with_description("A static text resource.")
                .with_mime_type("text/plain"),
            |_| "This is the content of the static text resource.",
        ),
        DynamicResource::from_fn(
            ResourceDefinition::new("test://static-binary", "static-binary")
                .with_description("A static binary resource.")
                .with_mime_type("image/png"),
            |_| RED_PIXEL_PNG_BYTES.to_vec(),
        ),
        DynamicResource::from_fn(
            ResourceDefinition::new("test://watched-resource", "watched-resource")
                .with_description("A resource clients subscribe to.")
                .with_mime_type("text/plain"),
            |_| "Watched resource content.",
        ),
        DynamicResource::from_fn(
            ResourceDefinition::new("test://template/{id}/data", "template-data")
                .with_description("A resource template with a parameter.")
                .with_mime_type("application/json"),
            |read| -> Result<String, Failure> {
                let id: String = read.variable("id")?;
                Ok(
                    json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                        .to_string(),
                )
            },
        ),
    ]
}

fn toolbox() -> Toolbox {
    Toolbox::new()
        .with(TestSimpleText)
        .with(TestImageContent)
        .with(TestAudioContent)
        .with(TestEmbeddedResource)
        .with(TestMultipleContentTypes)
        .with(TestErrorHandling)
        .with(TestToolWithLogging)
        .with(TestToolWithProgress)
        .with(TestSampling)
        .with(TestElicitation)
        .with(TestElicitationSep1034Defaults)
        .with(TestElicitationSep1330Enums)
        .with(json_schema_2020_12_tool())
        .with(TestInputRequiredResultTamperedState)
        .with(TestStreamingElicitation)
        .with(TestLoggingTool)
        .with(TestInputRequiredResultElicitation)
        .with(TestInputRequiredResultSampling)
        .with(TestInputRequiredResultListRoots)
        .with(TestInputRequiredResultRequestState)
        .with(TestInputRequiredResultMultipleInputs)
        .with(TestInputRequiredResultMultiRound)
        .with(TestInputRequiredResultCapabilities)
        .with(TestMissingCapability)
        .with(test_header_region())
        .with(Greet)
        .with(SlowCompute)
        .with(FailingJob)
        .with(ProtocolErrorJob)
        .with(ConfirmDelete)
        .with(MultiInput)
        .with(TestToolWithTask)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp_conformance_server: {}", errors::chain(&*error));
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let address: SocketAddr = std::env::args()
        .nth(1)
        .ok_or("usage: mcp_conformance_server 127.0.0.1:PORT")?
        .parse()?;
    let listener = tokio::net::TcpListener::bind(address).await?;
    // The address actually bound: port 0 asks the system for a free one.
    eprintln!("serving MCP at http://{}/mcp", listener.local_addr()?);
    let mut server = skyl::mcp::Server::new(toolbox());
    for prompt in prompts() {
        server = server.with_prompt(prompt);
    }
    for resource in resources() {
        server = server.with_resource(resource);
    }
    server
        .with_name("skyl-conformance", env!("CARGO_PKG_VERSION"))
        .with_approval(|call, _| {
            [
                "test_input_required_result_tampered_state",
                "test_streaming_elicitation",
            ]
            .contains(&call.name.as_str())
        })
        // Tasks are kept in a journal of this process's memory: the suite runs each scenario
        // against a fresh task list, and nothing needs to outlive the process.
        .with_task_journal(skyl::durable::SqliteJournal::open(":memory:")?)
        .with_tasks_for(|call, _| TASK_TOOLS.contains(&call.name.as_str()))
        // The suite's required-task fixture: a client without the tasks extension gets -32021.
        .with_tasks_required_for(|call, _| {
            ["failing_job", "test_tool_with_task"].contains(&call.name.as_str())
        })
        .with_questions_before_task(before_task)
        .serve_http(listener)
        .await?;
    Ok(())
}
