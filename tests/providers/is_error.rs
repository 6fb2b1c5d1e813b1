//! `ToolResult::is_error` on each wire, as the adapters document it: intact on Anthropic, an
//! `"error: "` prefix on the OpenAI formats (lost when the content is empty), dropped on Gemini
//! unless the error key is opted into.

use crate::support::calling;
use serde_json::{Value, json};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, caching::Caching,
};
use skyl::{Message, Part, Role, ToolResult};

fn request(result: ToolResult) -> Request<'static> {
    Request::new(
        "m",
        vec![
            Message::user("Weather?"),
            calling("c1", "get_weather", json!({"city": "Gulu"})),
            Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(result)],
            },
        ],
    )
    // The breakpoints are tests/providers/caching.rs's subject, not this test's.
    .with_caching(Caching::off())
}

/// The wire form of the result: the last message (or item) of the body.
fn last(adapter: &dyn Adapter, result: ToolResult) -> Value {
    let body = adapter.encode(&request(result)).unwrap();
    let list = ["messages", "input", "contents"]
        .iter()
        .find_map(|key| body.get(*key))
        .unwrap();
    list.as_array().unwrap().last().unwrap().clone()
}

const FAILURE: &str = "ERROR: get_weather failed: timeout. Do not retry.";

#[test]
fn anthropic_sends_a_real_boolean() {
    assert_eq!(
        last(&Anthropic, ToolResult::error("c1", FAILURE)),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": FAILURE, "is_error": true}
        ]})
    );
    assert_eq!(
        last(&Anthropic, ToolResult::success("c1", "22C")),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "22C", "is_error": false}
        ]})
    );
}

#[test]
fn anthropic_keeps_the_flag_and_omits_empty_content() {
    assert_eq!(
        last(&Anthropic, ToolResult::error("c1", "")),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "is_error": true}
        ]})
    );
}

#[test]
fn openai_chat_prefixes_failures() {
    assert_eq!(
        last(&OpenAiChat::default(), ToolResult::error("c1", FAILURE)),
        json!({"role": "tool", "tool_call_id": "c1", "content": format!("error: {FAILURE}")})
    );
    assert_eq!(
        last(&OpenAiChat::default(), ToolResult::success("c1", "22C")),
        json!({"role": "tool", "tool_call_id": "c1", "content": "22C"})
    );
}

#[test]
fn openai_chat_drops_the_flag_of_an_empty_failure() {
    assert_eq!(
        last(&OpenAiChat::default(), ToolResult::error("c1", "")),
        json!({"role": "tool", "tool_call_id": "c1", "content": ""})
    );
}

#[test]
fn openai_responses_prefixes_failures_and_drops_the_flag_of_an_empty_one() {
    assert_eq!(
        last(
            &OpenAiResponses::default(),
            ToolResult::error("c1", FAILURE)
        ),
        json!({"type": "function_call_output", "call_id": "c1", "output": format!("error: {FAILURE}")})
    );
    assert_eq!(
        last(&OpenAiResponses::default(), ToolResult::error("c1", "")),
        json!({"type": "function_call_output", "call_id": "c1", "output": ""})
    );
}

#[test]
fn openai_formats_never_send_an_is_error_key() {
    for adapter in [
        &OpenAiChat::default() as &dyn Adapter,
        &OpenAiResponses::default(),
    ] {
        for result in [
            ToolResult::error("c1", FAILURE),
            ToolResult::error("c1", ""),
        ] {
            let body = adapter.encode(&request(result)).unwrap().to_string();
            assert!(!body.contains("is_error"), "{body}");
        }
    }
}

#[test]
fn gemini_drops_the_flag_by_default() {
    assert_eq!(
        last(&Gemini::default(), ToolResult::error("c1", FAILURE)),
        json!({"role": "user", "parts": [{"functionResponse": {
            "id": "c1", "name": "get_weather", "response": {"output": FAILURE}
        }}]})
    );
}

#[test]
fn gemini_puts_failures_under_the_error_key_when_asked() {
    let gemini = Gemini::default().with_error_key(true);
    assert_eq!(
        last(&gemini, ToolResult::error("c1", FAILURE)),
        json!({"role": "user", "parts": [{"functionResponse": {
            "id": "c1", "name": "get_weather", "response": {"error": FAILURE}
        }}]})
    );
    assert_eq!(
        last(&gemini, ToolResult::success("c1", "22C")),
        json!({"role": "user", "parts": [{"functionResponse": {
            "id": "c1", "name": "get_weather", "response": {"output": "22C"}
        }}]})
    );
}
