//! OpenAI-compatible servers as they really answer (`tests/fixtures/openai_compatible/`): each
//! answer decoded and compared whole, then the transcript continued with a result for each call
//! and encoded whole, for the server the answer came from and for OpenAI itself. What a server
//! returned for itself (`reasoning_content`, `extra_content`, ...) goes back to that server only.

use serde_json::{Value, json};
use skyl::provider::{
    Adapter, OpenAiChat, Request,
    stream::{SseParser, Streaming},
};
use skyl::{Message, Part, Role, ToolResult};

use super::support::fixture;
use crate::support::calling;

fn openai() -> OpenAiChat {
    OpenAiChat::default()
}

fn server(name: &'static str) -> OpenAiChat {
    OpenAiChat::default().with_server(name)
}

/// `tests/fixtures/openai_compatible/<name>.json` decoded by `adapter`, as JSON.
fn decoded(adapter: &OpenAiChat, name: &str) -> (Message, Value) {
    let response = adapter
        .decode(&fixture("openai_compatible", name))
        .unwrap_or_else(|error| panic!("{name}: {error}"));
    let json = serde_json::to_value(&response).unwrap();
    (response.message, json)
}

/// The question, `answer`, and the tool message answering each of its calls with
/// `<city>: 22C`.
fn continued(answer: &Message) -> Vec<Message> {
    let results = answer
        .tool_calls()
        .map(|call| {
            let city = call.arguments["city"].as_str().unwrap_or("?");
            Part::ToolResult(ToolResult::success(&call.id, format!("{city}: 22C")))
        })
        .collect();
    vec![
        Message::user("Weather in Kampala?"),
        answer.clone(),
        Message {
            role: Role::Tool,
            parts: results,
        },
    ]
}

/// The body `adapter` sends for `messages`.
fn encoded(adapter: &OpenAiChat, messages: Vec<Message>) -> Value {
    adapter
        .encode(&Request::new("m", messages))
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The request continuing a one-call answer about Kampala, with `assistant` as the answer's
/// message on the wire.
fn kampala_request(assistant: Value) -> Value {
    let call_id = assistant["tool_calls"][0]["id"].clone();
    json!({
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather in Kampala?"},
            assistant,
            {"role": "tool", "tool_call_id": call_id, "content": "Kampala: 22C"}
        ]
    })
}

#[test]
fn snowflake_tool_call_with_empty_refusal_and_finish_reason_is_a_tool_use() {
    let (message, response) = decoded(&openai(), "snowflake_tool_call");
    // No refusal, no empty text part, no empty id: the loop runs the tool.
    assert_eq!(
        response,
        json!({
            "message": {"role": "assistant", "parts": [
                {"tool_call": {
                    "id": "toolu_01XFDUDYJgAACzvnptvVoYEL",
                    "name": "get_weather",
                    "arguments": {"city": "Kampala"}
                }}
            ]},
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 412, "output_tokens": 57},
            "model": "claude-sonnet-4-5"
        })
    );
    assert_eq!(
        encoded(&openai(), continued(&message)),
        kampala_request(json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [{
                "id": "toolu_01XFDUDYJgAACzvnptvVoYEL",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}
            }]
        }))
    );
}

#[test]
fn snowflake_text_with_empty_refusal_is_the_answer() {
    let (_, response) = decoded(&openai(), "snowflake_text");
    assert_eq!(
        response,
        json!({
            "message": {"role": "assistant", "parts": [{"text": "It is 22C and sunny in Kampala."}]},
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 501, "output_tokens": 14},
            "model": "claude-sonnet-4-5"
        })
    );
}

#[test]
fn a_missing_finish_reason_with_calls_is_a_tool_use_and_without_calls_is_not() {
    let mut body = fixture("openai_compatible", "snowflake_tool_call");
    body["choices"][0]
        .as_object_mut()
        .unwrap()
        .remove("finish_reason");
    let response = openai().decode(&body).unwrap();
    assert_eq!(response.stop_reason, skyl::provider::StopReason::ToolUse);

    let mut body = fixture("openai_compatible", "snowflake_text");
    body["choices"][0]["finish_reason"] = json!("");
    let response = openai().decode(&body).unwrap();
    assert_eq!(
        response.stop_reason,
        skyl::provider::StopReason::Other(String::new())
    );
}

/// OpenAI answers a call forced by `tool_choice` with `"finish_reason": "stop"` (and so do Ollama,
/// SGLang and other servers for any call): the calls, not the reason, say why the model stopped,
/// whole or streamed.
#[test]
fn calls_that_finish_with_stop_are_a_tool_use() {
    let expected = json!({
        "message": {"role": "assistant", "parts": [
            {"tool_call": {
                "id": "call_Vz0Sie91Ap56nH0ThKGrZXT7",
                "name": "get_weather",
                "arguments": {"city": "Mexico City"}
            }}
        ]},
        "stop_reason": "tool_use",
        "usage": {
            "input_tokens": 423,
            "output_tokens": 15,
            "cached_input_tokens": 0,
            "reasoning_tokens": 0
        },
        "id": "chatcmpl-C1KMJC4uUHgeJ4A0e8jM8wufrmdxX",
        "model": "gpt-4o-2024-08-06"
    });

    let mut body = fixture("stream/openai_chat", "one_call");
    body["choices"][0]["finish_reason"] = json!("stop");
    let response = openai().decode(&body).unwrap();
    assert_eq!(serde_json::to_value(&response).unwrap(), expected);

    let stream = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/stream/openai_chat/one_call.sse"),
    )
    .unwrap();
    let stopped = stream.replace(
        r#""finish_reason":"tool_calls""#,
        r#""finish_reason":"stop""#,
    );
    assert_ne!(stopped, stream, "the fixture finishes with tool_calls");
    let response = streamed_text(&openai(), &stopped);
    assert_eq!(serde_json::to_value(&response).unwrap(), expected);

    // Without calls, "stop" is the end of the turn, as before.
    let (_, text) = decoded(&openai(), "snowflake_text");
    assert_eq!(text["stop_reason"], json!("end_turn"));
}

#[test]
fn a_refusal_with_text_is_still_a_refusal() {
    let mut body = fixture("openai_compatible", "snowflake_text");
    body["choices"][0]["message"]["content"] = Value::Null;
    body["choices"][0]["message"]["refusal"] = json!("I can't help with that.");
    let response = openai().decode(&body).unwrap();
    assert_eq!(response.stop_reason, skyl::provider::StopReason::Refusal);
    assert_eq!(
        response.message.parts,
        [Part::Text("I can't help with that.".into())]
    );
}

const DEEPSEEK_REASONING: &str = "The user asks for the weather in Kampala. I have a get_weather tool that takes a city, so I should call it with \"Kampala\".";

fn deepseek_call() -> Value {
    json!({
        "id": "call_00_Rk8v2QmX4tLp9wZc1bN6yHd3",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}
    })
}

#[test]
fn deepseek_reasoning_content_goes_back_to_deepseek() {
    let (message, response) = decoded(&server("deepseek"), "deepseek_thinking_tool_call");
    assert_eq!(
        response,
        json!({
            "message": {"role": "assistant", "parts": [
                {"provider": {"provider": "openai_chat", "data": {
                    "server": "deepseek",
                    "fields": {"reasoning_content": DEEPSEEK_REASONING}
                }}},
                {"tool_call": {
                    "id": "call_00_Rk8v2QmX4tLp9wZc1bN6yHd3",
                    "name": "get_weather",
                    "arguments": {"city": "Kampala"}
                }}
            ]},
            "stop_reason": "tool_use",
            "usage": {
                "input_tokens": 318,
                "output_tokens": 64,
                "cached_input_tokens": 256,
                "reasoning_tokens": 41
            },
            "id": "5d1c0f3e-8a52-4b6e-9d7a-2f4e6c8b1a90",
            "model": "deepseek-reasoner"
        })
    );
    assert_eq!(
        encoded(&server("deepseek"), continued(&message)),
        kampala_request(json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [deepseek_call()],
            "reasoning_content": DEEPSEEK_REASONING
        }))
    );
}

#[test]
fn deepseek_reasoning_content_never_goes_to_openai_or_another_server() {
    let (message, _) = decoded(&server("deepseek"), "deepseek_thinking_tool_call");
    let without = kampala_request(
        json!({"role": "assistant", "content": "", "tool_calls": [deepseek_call()]}),
    );
    assert_eq!(encoded(&openai(), continued(&message)), without);
    assert_eq!(encoded(&server("vllm"), continued(&message)), without);
}

#[test]
fn deepseek_empty_reasoning_content_still_goes_back() {
    // DeepSeek wants the field back on every turn with calls, even when it is empty.
    let mut body = fixture("openai_compatible", "deepseek_thinking_tool_call");
    body["choices"][0]["message"]["reasoning_content"] = json!("");
    let deepseek = server("deepseek");
    let message = deepseek.decode(&body).unwrap().message;
    assert_eq!(
        encoded(&deepseek, continued(&message)),
        kampala_request(json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [deepseek_call()],
            "reasoning_content": ""
        }))
    );
}

#[test]
fn an_answer_decoded_for_openai_sends_nothing_back_even_to_a_named_server() {
    // Fields decoded with no server named have no owner to go back to.
    let (message, response) = decoded(&openai(), "deepseek_thinking_tool_call");
    assert_eq!(
        response["message"]["parts"][0],
        json!({"provider": {"provider": "openai_chat", "data": {
            "fields": {"reasoning_content": DEEPSEEK_REASONING}
        }}})
    );
    assert_eq!(
        encoded(&server("deepseek"), continued(&message)),
        kampala_request(
            json!({"role": "assistant", "content": "", "tool_calls": [deepseek_call()]})
        )
    );
}

const SIGNATURE: &str = "CiQBcsjafJm0gWzN4xUe2rT8vQk1LpYh7dA3oS5iB9nM2cX6wE0=";

fn gemini_calls(signed: bool) -> Value {
    let mut first = json!({
        "id": "function-call-10443928815362719851",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}
    });
    if signed {
        first["extra_content"] = json!({"google": {"thought_signature": SIGNATURE}});
    }
    json!([
        first,
        {
            "id": "function-call-10443928815362719852",
            "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Gulu\"}"}
        }
    ])
}

fn gemini_request(signed: bool) -> Value {
    json!({
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather in Kampala?"},
            {"role": "assistant", "content": "", "tool_calls": gemini_calls(signed)},
            {"role": "tool", "tool_call_id": "function-call-10443928815362719851", "content": "Kampala: 22C"},
            {"role": "tool", "tool_call_id": "function-call-10443928815362719852", "content": "Gulu: 22C"}
        ]
    })
}

#[test]
fn gemini_thought_signatures_go_back_to_gemini_only() {
    let (message, response) = decoded(&server("gemini"), "gemini_signed_calls");
    assert_eq!(
        response["message"]["parts"],
        json!([
            {"tool_call": {
                "id": "function-call-10443928815362719851",
                "name": "get_weather",
                "arguments": {"city": "Kampala"},
                "provider_data": {"provider": "openai_chat", "data": {
                    "server": "gemini",
                    "fields": {"extra_content": {"google": {"thought_signature": SIGNATURE}}}
                }}
            }},
            {"tool_call": {
                "id": "function-call-10443928815362719852",
                "name": "get_weather",
                "arguments": {"city": "Gulu"}
            }}
        ])
    );
    assert_eq!(
        encoded(&server("gemini"), continued(&message)),
        gemini_request(true)
    );
    assert_eq!(
        encoded(&openai(), continued(&message)),
        gemini_request(false)
    );
    assert_eq!(
        encoded(&server("deepseek"), continued(&message)),
        gemini_request(false)
    );
}

#[test]
fn mistral_nine_character_ids_survive_the_round_trip() {
    let (message, response) = decoded(&openai(), "mistral_tool_calls");
    assert_eq!(
        response,
        json!({
            "message": {"role": "assistant", "parts": [
                {"tool_call": {"id": "D9fsP3mZk", "name": "get_weather", "arguments": {"city": "Kampala"}}},
                {"tool_call": {"id": "q7Rt2XbWn", "name": "get_weather", "arguments": {"city": "Gulu"}}}
            ]},
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 133, "output_tokens": 48},
            "id": "9f3c1b2a7e4d4c6f8a0b1c2d3e4f5a6b",
            "model": "mistral-large-latest"
        })
    );
    assert_eq!(
        encoded(&server("mistral"), continued(&message)),
        json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": "Weather in Kampala?"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "D9fsP3mZk", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}},
                    {"id": "q7Rt2XbWn", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Gulu\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "D9fsP3mZk", "content": "Kampala: 22C"},
                {"role": "tool", "tool_call_id": "q7Rt2XbWn", "content": "Gulu: 22C"}
            ]
        })
    );
}

#[test]
fn groq_reasoning_is_kept_but_not_sent_to_an_unnamed_server() {
    // Groq refuses `reasoning` in a request, so it is talked to unnamed, as OpenAI is.
    let (message, response) = decoded(&openai(), "groq_reasoning_tool_call");
    assert_eq!(
        response,
        json!({
            "message": {"role": "assistant", "parts": [
                {"provider": {"provider": "openai_chat", "data": {"fields": {
                    "reasoning": "The user wants the weather in Kampala. Use get_weather with city Kampala."
                }}}},
                {"tool_call": {"id": "kx2r8w1qd", "name": "get_weather", "arguments": {"city": "Kampala"}}}
            ]},
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 160, "output_tokens": 38, "reasoning_tokens": 17},
            "id": "chatcmpl-7b0f5c3e-2d41-4e8a-9c6b-1f2a3b4c5d6e",
            "model": "openai/gpt-oss-120b"
        })
    );
    assert_eq!(
        encoded(&openai(), continued(&message)),
        kampala_request(json!({"role": "assistant", "content": "", "tool_calls": [{
            "id": "kx2r8w1qd",
            "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}
        }]}))
    );
}

fn openrouter_assistant(with_reasoning: bool) -> Value {
    let fixture = fixture("openai_compatible", "openrouter_reasoning_tool_call");
    let returned = &fixture["choices"][0]["message"];
    let mut assistant = json!({
        "role": "assistant",
        "content": "I'll check the weather station in Kampala.",
        "tool_calls": [{
            "id": "toolu_vrtx_01Jq8Wm3Rt5Yk2Lp9Xn4Bv7C",
            "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}
        }]
    });
    if with_reasoning {
        assistant["reasoning"] = returned["reasoning"].clone();
        assistant["reasoning_details"] = returned["reasoning_details"].clone();
    }
    assistant
}

#[test]
fn openrouter_reasoning_details_go_back_to_openrouter_only() {
    let (message, _) = decoded(&server("openrouter"), "openrouter_reasoning_tool_call");
    assert_eq!(
        encoded(&server("openrouter"), continued(&message)),
        kampala_request(openrouter_assistant(true))
    );
    assert_eq!(
        encoded(&openai(), continued(&message)),
        kampala_request(openrouter_assistant(false))
    );
}

/// The response `adapter`'s stream decoder makes of the stream fixture `name`.
fn streamed(adapter: &OpenAiChat, name: &str) -> skyl::provider::Response {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/stream/openai_chat")
        .join(format!("{name}.sse"));
    streamed_text(adapter, &std::fs::read_to_string(&path).unwrap())
}

/// The response `adapter`'s stream decoder makes of the server-sent events in `stream`.
fn streamed_text(adapter: &OpenAiChat, stream: &str) -> skyl::provider::Response {
    let mut events = Vec::new();
    SseParser::new()
        .feed(stream.as_bytes(), |event| {
            events.push((event.event.clone(), event.data.clone()))
        })
        .unwrap();
    let mut decoder = adapter.stream_decoder();
    for (name, data) in &events {
        decoder.push(name, data, &mut |_| {}).unwrap();
    }
    decoder.finish(&mut |_| {}).unwrap()
}

#[test]
fn deepseek_streamed_reasoning_goes_back_to_deepseek() {
    let deepseek = server("deepseek");
    let response = streamed(&deepseek, "deepseek_reasoning_then_call");
    let reasoning = "The user asks for the weather in Kampala. I should call get_weather.";
    assert_eq!(
        encoded(&deepseek, continued(&response.message)),
        kampala_request(json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [deepseek_call()],
            "reasoning_content": reasoning
        }))
    );
    assert_eq!(
        encoded(&openai(), continued(&response.message)),
        kampala_request(
            json!({"role": "assistant", "content": "", "tool_calls": [deepseek_call()]})
        )
    );
}

#[test]
fn mistral_streamed_ids_survive() {
    let response = streamed(&openai(), "mistral_whole_calls");
    let ids: Vec<&str> = response
        .message
        .tool_calls()
        .map(|call| call.id.as_str())
        .collect();
    assert_eq!(ids, ["D9fsP3mZk", "q7Rt2XbWn"]);
    assert_eq!(response.stop_reason, skyl::provider::StopReason::ToolUse);
}

#[test]
fn openrouter_streamed_reasoning_details_are_joined_and_go_back() {
    let openrouter = server("openrouter");
    let response = streamed(&openrouter, "openrouter_reasoning_then_call");
    assert_eq!(
        encoded(&openrouter, continued(&response.message)),
        kampala_request(openrouter_assistant(true))
    );
}

/// llama-cpp-python's server answers an assistant turn without `content`, or with `null`, with a
/// 500; every server takes `""`, which every OpenAI Chat adapter sends. The token limit goes out
/// under the name each kind of server reads.
#[test]
fn a_turn_of_calls_only_has_empty_content_and_the_limit_has_each_servers_name() {
    let answer = calling("call_1", "get_weather", json!({"city": "Kampala"}));
    let body = |adapter: OpenAiChat| {
        adapter
            .encode(&Request::new("m", continued(&answer)).with_max_tokens(5))
            .unwrap()
    };
    let expected = |limit: &str| {
        let mut request = kampala_request(json!({
            "role": "assistant",
            "content": "",
            "tool_calls": [{
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Kampala\"}"}
            }]
        }));
        request[limit] = json!(5);
        request
    };
    assert_eq!(body(openai()), expected("max_completion_tokens"));
    assert_eq!(body(openai().with_compatible(true)), expected("max_tokens"));
    assert_eq!(body(server("vllm")), expected("max_tokens"));
}

/// A stream recorded from llama-cpp-python 0.3.36's server (`chatml-function-calling`,
/// SmolLM2-135M-Instruct), answering after a tool result: no usage chunk, so the usage is
/// unreported rather than zero. (The same server answered the same request with the assistant
/// turn's `content` left out by ending its 200 without a single event; `scripts/local-server.sh`
/// reproduces it.)
#[test]
fn llama_cpp_python_stream_without_usage_has_its_usage_unreported() {
    let stream = include_str!("../fixtures/stream/openai_chat/llama_cpp_python_answer.sse");
    let response = streamed_text(&openai().with_compatible(true), stream);
    assert_eq!(
        serde_json::to_value(&response).unwrap(),
        json!({
            "message": {"role": "assistant", "parts": [{"text": "python\n```"}]},
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 0, "output_tokens": 0, "unreported": true},
            "id": "chatcmpl-ac1ce94c-4a93-4451-8869-979061c98ac8",
            "model": "smollm2"
        })
    );
}
