//! Rules of the providers' wire formats that a request could break after skyl encodes it (each
//! provider's ordering and pairing rules for calls and results, as its documentation and its 400
//! errors state them), each checked on a whole request body.

use serde_json::{Value, json};
use skyl::provider::{Adapter, Anthropic, Gemini, Request, caching::Caching};
use skyl::{Message, Part, Role, ToolCall, transcript::tool_result_message};

fn calls(ids: &[&str]) -> Message {
    Message {
        role: Role::Assistant,
        parts: ids
            .iter()
            .map(|id| Part::ToolCall(ToolCall::new(*id, "f", json!({}))))
            .collect(),
    }
}

fn request(messages: Vec<Message>) -> Request<'static> {
    Request::new("m", messages)
        // The breakpoints are tests/providers/caching.rs's subject; this test's is the transcript.
        .with_caching(Caching::off())
}

fn anthropic_turn(role: &str, blocks: Vec<Value>) -> Value {
    json!({"role": role, "content": blocks})
}

fn tool_use(id: &str) -> Value {
    json!({"type": "tool_use", "id": id, "name": "f", "input": {}})
}

fn tool_result(id: &str, content: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "is_error": false, "content": content})
}

/// `call.1` is cleaned to `call_1_<hash>`; a transcript that also holds that very id (a valid
/// one, kept as it is) must not send two equal `tool_use` ids, and each result must still answer
/// its own call.
#[test]
fn anthropic_never_maps_two_call_ids_to_one() {
    let body = Anthropic
        .encode(&request(vec![
            Message::user("go"),
            calls(&["call.1", "call_1_5d7ef1bc"]),
            Message {
                role: Role::Tool,
                parts: vec![
                    Part::ToolResult(skyl::ToolResult::success("call_1_5d7ef1bc", "second")),
                    Part::ToolResult(skyl::ToolResult::success("call.1", "first")),
                ],
            },
        ]))
        .unwrap();
    let cleaned = body["messages"][1]["content"][0]["id"].as_str().unwrap();
    assert_eq!(cleaned, "call_1_5d7ef1bc", "the hash this test relies on");
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            anthropic_turn("assistant", vec![tool_use("call_1_5d7ef1bc"), tool_use("call_1_5d7ef1bc_2")]),
            anthropic_turn("user", vec![
                tool_result("call_1_5d7ef1bc_2", "second"),
                tool_result("call_1_5d7ef1bc", "first"),
            ]),
        ])
    );
}

/// Some OpenAI-compatible servers number calls per answer, so a transcript can reuse an id in a
/// later turn; Anthropic wants every `tool_use` id of a request unique.
#[test]
fn anthropic_makes_an_id_reused_across_turns_unique() {
    let body = Anthropic
        .encode(&request(vec![
            Message::user("go"),
            calls(&["call_0"]),
            tool_result_message("call_0", "one"),
            calls(&["call_0"]),
            tool_result_message("call_0", "two"),
        ]))
        .unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            anthropic_turn("assistant", vec![tool_use("call_0")]),
            anthropic_turn("user", vec![tool_result("call_0", "one")]),
            anthropic_turn("assistant", vec![tool_use("call_0_2")]),
            anthropic_turn("user", vec![tool_result("call_0_2", "two")]),
        ])
    );
}

/// "messages: first message must use the \"user\" role", and an empty text block is refused too:
/// a transcript that opens with the assistant (trimmed history, a greeting) gets a short user
/// turn first.
#[test]
fn anthropic_opens_with_a_user_message() {
    let body = Anthropic
        .encode(&request(vec![
            Message::user(""),
            Message::assistant("Hello! Ask me about the weather."),
            Message::user("Kampala?"),
        ]))
        .unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "(continued)"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Hello! Ask me about the weather."}]},
            {"role": "user", "content": [{"type": "text", "text": "Kampala?"}]},
        ])
    );
}

/// "Please ensure that function call turn comes immediately after a user turn or after a function
/// response turn": an assistant's text and its calls, kept as two messages, are one model turn.
#[test]
fn gemini_merges_consecutive_assistant_messages_into_one_model_turn() {
    let body = Gemini::default()
        .encode(&request(vec![
            Message::user("go"),
            Message::assistant("Checking."),
            calls(&["c1"]),
            tool_result_message("c1", "done"),
        ]))
        .unwrap();
    assert_eq!(
        body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [
                {"text": "Checking."},
                {"functionCall": {"name": "f", "args": {}, "id": "c1"}},
            ]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "f", "response": {"output": "done"}, "id": "c1"}},
            ]},
        ])
    );
}

/// Gemini reads a `$ref` key in `functionResponse.response` as a reference to a multimodal part
/// ("The referenced name '#/$defs/X' in function_response.response does not match to a
/// display_name"): tool output is never parsed into `response`, it stays a string under
/// `output`, so `response` is always an object with no `$ref` of the tool's.
#[test]
fn gemini_never_lifts_tool_output_into_the_response_object() {
    let output = r##"{"$ref": "#/$defs/X", "$defs": {"X": {}}}"##;
    let body = Gemini::default()
        .encode(&request(vec![
            Message::user("go"),
            calls(&["c1"]),
            tool_result_message("c1", output),
        ]))
        .unwrap();
    assert_eq!(
        body["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "f", "response": {"output": output}, "id": "c1"}},
        ]})
    );
}
