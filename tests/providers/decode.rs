//! Response bodies modelled on recorded traffic, decoded, answered, and the next request encoded:
//! each step compared whole with its snapshot in `tests/golden/decode/`.

use serde_json::{Value, json};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Provider, Request, StopReason,
};
use skyl::{Message, Part, Role, ToolResult};

use super::rich::tools;
use super::support::{assert_golden, fixture};

/// Decodes `tests/fixtures/<provider>/<name>.json`, answers every call (the first one fails,
/// the others succeed), encodes the next request with the same adapter, and compares both with
/// the snapshot `decode/<provider>_<name>`. Returns the decoded response.
fn round_trip(adapter: &dyn Adapter, name: &str) -> skyl::provider::Response {
    let body = fixture(adapter.provider().as_str(), name);
    let response = adapter.decode(&body).unwrap();
    let mut messages = vec![Message::user("Weather in Kampala?")];
    messages.push(response.message.clone());
    let results: Vec<Part> = response
        .message
        .tool_calls()
        .enumerate()
        .map(|(n, call)| {
            Part::ToolResult(if n == 0 {
                ToolResult::error(
                    &call.id,
                    format!("ERROR: {} failed: timeout. Do not retry.", call.name),
                )
            } else {
                ToolResult::success(&call.id, format!("{} ok", call.arguments))
            })
        })
        .collect();
    if !results.is_empty() {
        messages.push(Message {
            role: Role::Tool,
            parts: results,
        });
    } else {
        messages.push(Message::user("Thanks."));
    }
    let next = adapter
        .encode(&Request::new("some-model", messages).with_tools(tools()))
        .unwrap();
    assert_golden(
        &format!("decode/{}_{name}", adapter.provider().as_str()),
        &json!({"response": response, "next_request": next}),
    );
    response
}

/// The ids of the calls in `response`'s message, in order.
fn call_ids(response: &skyl::provider::Response) -> Vec<&str> {
    response
        .message
        .tool_calls()
        .map(|c| c.id.as_str())
        .collect()
}

#[test]
fn anthropic_parallel_calls() {
    let response = round_trip(&Anthropic, "parallel_calls");
    assert_eq!(response.stop_reason, StopReason::ToolUse);
    assert_eq!(response.usage.input_tokens, 623);
}

#[test]
fn anthropic_thinking_blocks_go_back_in_place() {
    round_trip(&Anthropic, "thinking");
}

#[test]
fn anthropic_end_turn() {
    let response = round_trip(&Anthropic, "end_turn");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
}

#[test]
fn openai_chat_null_content_and_malformed_arguments() {
    let response = round_trip(&OpenAiChat::default(), "parallel_calls");
    let calls: Vec<&Value> = response
        .message
        .tool_calls()
        .map(|c| &c.arguments)
        .collect();
    assert_eq!(
        calls,
        [&json!({"city": "Kampala"}), &json!("{\"city\": \"Gulu\"")]
    );
}

#[test]
fn openai_chat_calls_without_ids_get_minted_ones() {
    let response = round_trip(
        &OpenAiChat::default().with_server("gemini"),
        "compatible_without_ids",
    );
    let ids = call_ids(&response);
    assert_eq!(
        ids,
        [
            "call_3SE-aKjdCcCEz7IPxpqjCA_0",
            "call_3SE-aKjdCcCEz7IPxpqjCA_1"
        ]
    );
}

#[test]
fn openai_chat_empty_content_array() {
    round_trip(&OpenAiChat::default(), "content_array");
}

#[test]
fn openai_responses_reasoning_items_and_fc_ids_go_back() {
    let response = round_trip(&OpenAiResponses::default(), "reasoning_call");
    assert_eq!(response.usage.reasoning_tokens, Some(128));
}

#[test]
fn openai_responses_message_between_reasoning_and_call_keeps_its_id() {
    let response = round_trip(&OpenAiResponses::default(), "reasoning_message_call");
    let next = OpenAiResponses::default()
        .encode(&Request::new(
            "gpt-5",
            vec![
                Message::user("Weather in Kampala?"),
                response.message.clone(),
                skyl::transcript::tool_result_message("call_Qm3Zr8TfA1bXc5yK7pLd2nWe", "22C"),
            ],
        ))
        .unwrap();
    // The reasoning item, then the message it was followed by (with its id), then the call.
    assert_eq!(
        next["input"],
        json!([
            {"role": "user", "content": "Weather in Kampala?"},
            {"type": "reasoning", "id": "rs_0a8c5e0b7f2d4c11006925f3a2d4e6f8091a2b3c4d5e6f7081", "summary": []},
            {
                "type": "message",
                "id": "msg_0a8c5e0b7f2d4c11006925f3a4f5e6d7c8b9a0b1c2d3e4f5a6",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "I'll check the station in Kampala.", "annotations": []}]
            },
            {
                "type": "function_call",
                "call_id": "call_Qm3Zr8TfA1bXc5yK7pLd2nWe",
                "name": "get_weather",
                "arguments": "{\"city\":\"Kampala\"}",
                "id": "fc_0a8c5e0b7f2d4c11006925f3a5a6b7c8d9e0f1a2b3c4d5e6f7"
            },
            {"type": "function_call_output", "call_id": "call_Qm3Zr8TfA1bXc5yK7pLd2nWe", "output": "22C"}
        ])
    );
}

#[test]
fn openai_responses_message_without_reasoning_is_sent_as_plain_text() {
    // With no reasoning item before it, a message id would be a 400 ("provided without its
    // required 'reasoning' item"), so only the text goes back.
    let response = round_trip(&OpenAiResponses::default(), "text_and_calls");
    let mut messages = vec![Message::user("Weather?"), response.message.clone()];
    messages.push(Message {
        role: Role::Tool,
        parts: response
            .message
            .tool_calls()
            .map(|call| Part::ToolResult(ToolResult::success(&call.id, "ok")))
            .collect(),
    });
    let next = OpenAiResponses::default()
        .encode(&Request::new("gpt-4o", messages))
        .unwrap();
    assert_eq!(
        next["input"][1],
        json!({"role": "assistant", "content": "Checking both."})
    );
}

#[test]
fn openai_responses_text_and_parallel_calls() {
    round_trip(&OpenAiResponses::default(), "text_and_calls");
}

#[test]
fn openai_responses_incomplete() {
    let response = round_trip(&OpenAiResponses::default(), "incomplete");
    assert_eq!(response.stop_reason, StopReason::MaxTokens);
}

#[test]
fn gemini_calls_without_ids_and_a_thought_signature() {
    let response = round_trip(&Gemini::default(), "parallel_without_ids");
    let ids = call_ids(&response);
    assert_eq!(
        ids,
        [
            "gemini_wOd8abGuO5rgz7IP5tLEGA_0",
            "gemini_wOd8abGuO5rgz7IP5tLEGA_1",
            "gemini_wOd8abGuO5rgz7IP5tLEGA_2"
        ]
    );
}

#[test]
fn gemini_without_a_response_id_mints_from_the_body() {
    round_trip(&Gemini::default(), "no_response_id");
}

#[test]
fn gemini_thoughts_signed_text_and_model_ids() {
    round_trip(&Gemini::default(), "text_thought_and_ids");
}

#[test]
fn gemini_vertex_sends_no_ids() {
    let vertex = Gemini::default().with_call_ids(false);
    let response = vertex
        .decode(&fixture("gemini", "text_thought_and_ids"))
        .unwrap();
    let call = response.message.tool_calls().next().unwrap().clone();
    let next = vertex
        .encode(&Request::new(
            "m",
            vec![
                Message::user("Weather in Kampala?"),
                response.message,
                skyl::transcript::tool_result_message(&call.id, "22C"),
            ],
        ))
        .unwrap();
    assert!(!next.to_string().contains("call_openai_xyz"), "{next}");
}

#[test]
fn gemini_safety_stop_is_an_empty_message() {
    let response = Gemini::default()
        .decode(&fixture("gemini", "safety_stop"))
        .unwrap();
    assert_eq!(response.message.parts, []);
    assert_eq!(response.stop_reason, StopReason::ContentFilter);
}

#[test]
fn provider_data_of_other_providers_is_skipped() {
    let gemini = Gemini::default()
        .decode(&fixture("gemini", "text_thought_and_ids"))
        .unwrap();
    let mut messages = vec![Message::user("Weather in Kampala?"), gemini.message];
    let call_id = messages[1].tool_calls().next().unwrap().id.clone();
    messages.push(skyl::transcript::tool_result_message(call_id, "22C"));
    let body = Anthropic.encode(&Request::new("m", messages)).unwrap();
    assert_eq!(
        body["messages"],
        json!([
            // The newest two user turns carry the default sliding cache breakpoints.
            {"role": "user", "content": [{"type": "text", "text": "Weather in Kampala?", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "call_openai_xyz", "name": "get_weather", "input": {"city": "Kampala"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_openai_xyz", "content": "22C", "is_error": false, "cache_control": {"type": "ephemeral"}}
            ]}
        ])
    );
}

#[test]
fn gemini_opens_with_a_user_turn_when_the_first_user_message_was_empty() {
    // As in recorded traffic: instructions only, an empty user turn, then the model's calls.
    let response = Gemini::default()
        .decode(&fixture("gemini", "parallel_without_ids"))
        .unwrap();
    let calls: Vec<_> = response.message.tool_calls().cloned().collect();
    let mut messages = vec![Message::user(""), response.message];
    messages.push(Message {
        role: Role::Tool,
        parts: calls
            .iter()
            .map(|call| Part::ToolResult(ToolResult::success(&call.id, "cars")))
            .collect(),
    });
    let body = Gemini::default()
        .encode(&Request::new("m", messages).with_system("Tell three jokes."))
        .unwrap();
    assert_eq!(
        body["contents"][0],
        json!({"role": "user", "parts": [{"text": ""}]})
    );
    assert_eq!(body["contents"][1]["role"], "model");
    assert_eq!(body["contents"].as_array().unwrap().len(), 3);
}

/// `get_weather` for the toolbox test: fails for Gulu.
struct Weather(skyl::ToolDefinition);

impl skyl::Tool for Weather {
    fn definition(&self) -> &skyl::ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, arguments: &'a Value, _state: &'a ()) -> skyl::tool::ToolFuture<'a> {
        skyl::tool::ToolFuture::ready(match arguments["city"].as_str() {
            Some("Gulu") => Err(skyl::ToolFailure::invalid_arguments("no station in Gulu")),
            Some(city) => Ok(format!("22C and sunny in {city}")),
            None => Err(skyl::ToolFailure::invalid_arguments("city is missing")),
        })
    }
}

#[test]
fn the_whole_loop_with_a_toolbox() {
    let toolbox = skyl::Toolbox::new().with(Weather(tools().remove(0)));
    for adapter in [
        &Anthropic as &dyn Adapter,
        &OpenAiChat::default(),
        &OpenAiResponses::default(),
        &Gemini::default(),
    ] {
        let body = match adapter.provider() {
            Provider::Anthropic => fixture("anthropic", "parallel_calls"),
            Provider::OpenAiChat => fixture("openai_chat", "compatible_without_ids"),
            Provider::OpenAiResponses => fixture("openai_responses", "text_and_calls"),
            _ => fixture("gemini", "parallel_without_ids"),
        };
        let response = adapter.decode(&body).unwrap();
        let answer = toolbox.answer_blocking(&response.message);
        let results: Vec<(String, bool)> = answer
            .tool_results()
            .map(|r| (r.call_id.clone(), r.is_error))
            .collect();
        let calls: Vec<String> = response
            .message
            .tool_calls()
            .map(|c| c.id.clone())
            .collect();
        assert_eq!(
            results.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(),
            calls,
            "{}: one result per call, in call order",
            adapter.provider().as_str()
        );
        let messages = vec![Message::user("Weather?"), response.message, answer];
        let next = adapter
            .encode(&Request::new("m", messages).with_tools(tools()))
            .unwrap_or_else(|error| panic!("{error}"));
        // Every call here has a failing sibling (Gulu, or a tool the toolbox lacks), so each
        // snapshot shows that provider's success and failure side by side.
        assert!(results.iter().any(|(_, failed)| *failed));
        assert_golden(&format!("loop/{}", adapter.provider().as_str()), &next);
    }
}

/// An answer with calls stopped so that they run, whatever a server calls an ordinary end
/// (`"stop"`, `"end_turn"`, `"STOP"`, `""`) or when it gives no reason: one rule, for every
/// adapter, in the shared decode step.
#[test]
fn an_answer_with_calls_is_a_tool_use_whatever_ends_it_ordinarily() {
    // The adapter, a fixture with calls, where its stop reason is, and the ordinary ends to try.
    type Case<'a> = (&'a dyn Adapter, &'a str, &'a str, &'a [Option<&'a str>]);
    let cases: [Case<'_>; 3] = [
        (
            &Anthropic,
            "parallel_calls",
            "/stop_reason",
            &[Some("end_turn"), None],
        ),
        (
            &Gemini::default(),
            "parallel_without_ids",
            "/candidates/0/finishReason",
            &[Some("STOP"), None],
        ),
        (
            &OpenAiChat::default(),
            "parallel_calls",
            "/choices/0/finish_reason",
            &[Some("stop"), Some(""), None],
        ),
    ];
    for (adapter, name, pointer, reasons) in cases {
        for &reason in reasons {
            let mut body = fixture(adapter.provider().as_str(), name);
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let parent = body.pointer_mut(parent).unwrap().as_object_mut().unwrap();
            match reason {
                Some(reason) => parent.insert(key.to_owned(), json!(reason)),
                None => parent.remove(key),
            };
            let response = adapter.decode(&body).unwrap();
            assert!(response.message.tool_calls().count() > 0, "{name}");
            assert_eq!(
                response.stop_reason,
                StopReason::ToolUse,
                "{} {name} with {reason:?}",
                adapter.provider().as_str()
            );
        }
    }
}
