//! What `Adapter::decode` costs over the floor: `T::deserialize(&body)` into typed structs, then
//! the same `Response` built from them, for an answer with text and five tool calls.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench decode`. Each adapter has two
//! rows: `floor` (typed structs written by hand for these bodies: no error paths, no fallbacks)
//! and `skyl` (the adapter). Before anything is timed, both responses are checked equal. The
//! allocation columns come from divan's counting allocator.
//!
//! Compare the medians of one run: the machine is shared and noisy. The goal is `skyl` within
//! 1.5x of `floor` for every adapter.
//!
//! `gemini_without_ids` is Gemini's answer as Gemini usually gives it: calls without ids, for
//! which the decoder mints ids and marks them minted (so they are not sent back); its floor
//! mints the same ids and builds the same marks.

use std::hint::black_box;

use serde::Deserialize;
use serde_json::{Value, json};
use skyl::provider::{Adapter, Provider, Response, StopReason, Usage};
use skyl::{Message, Part, Role, ToolCall, transcript::ProviderData};

mod adapters;
mod layer_calls;

use adapters::adapter;

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

const PROVIDERS: [&str; 5] = [
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "gemini_without_ids",
];

fn main() {
    for provider in PROVIDERS {
        let body = body(provider);
        let skyl = adapter(provider).decode(&body).expect("a well-formed body");
        assert_eq!(floor(provider, &body), skyl, "{provider}");
        assert_eq!(skyl.message.tool_calls().count(), 5, "{provider}");
    }
    let (bodies, adapters) = (PROVIDERS.map(body), PROVIDERS.map(adapter));
    if layer_calls::run_counted(
        &PROVIDERS,
        |at| drop(black_box(floor(PROVIDERS[at], black_box(&bodies[at])))),
        |at| {
            drop(black_box(
                adapters[at].decode(black_box(&bodies[at])).unwrap(),
            ))
        },
    ) {
        return;
    }
    divan::Divan::from_args()
        .sample_count(1000)
        .sample_size(20)
        .main();
}

fn floor(provider: &str, body: &Value) -> Response {
    match provider {
        "anthropic" => anthropic_wire::decode(body),
        "openai_chat" => openai_chat_wire::decode(body),
        "openai_responses" => openai_responses_wire::decode(body),
        _ => gemini_wire::decode(body),
    }
}

/// One group per adapter, the floor and skyl side by side, so that both rows of a group run
/// under the same load.
macro_rules! rows {
    ($($provider:ident),*) => {$(
        mod $provider {
            use super::*;

            #[divan::bench]
            fn floor(bencher: divan::Bencher<'_, '_>) {
                let body = body(stringify!($provider));
                bencher.bench_local(|| super::floor(stringify!($provider), black_box(&body)));
            }

            #[divan::bench]
            fn skyl(bencher: divan::Bencher<'_, '_>) {
                let body = body(stringify!($provider));
                let adapter = adapter(stringify!($provider));
                bencher.bench_local(|| adapter.decode(black_box(&body)).unwrap());
            }
        }
    )*};
}

rows!(
    anthropic,
    openai_chat,
    openai_responses,
    gemini,
    gemini_without_ids
);

// ---------------------------------------------------------------------------------------------
// The workload: text, then five calls, each with arguments of a few fields.
// ---------------------------------------------------------------------------------------------

const CITIES: [&str; 5] = ["Kampala", "Gulu", "Jinja", "Mbarara", "Entebbe"];

fn arguments(n: usize) -> Value {
    json!({"city": CITIES[n], "units": "celsius", "days": n + 1})
}

fn body(provider: &str) -> Value {
    let text = "Checking the five cities.";
    match provider {
        "anthropic" => {
            let mut content = vec![json!({"type": "text", "text": text})];
            content.extend((0..5).map(|n| {
                json!({"type": "tool_use", "id": format!("toolu_01A09q90qw90lq917835lq9{n}"), "name": "get_weather", "input": arguments(n)})
            }));
            json!({
                "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5-20250929", "content": content,
                "stop_reason": "tool_use", "stop_sequence": null,
                "usage": {"input_tokens": 623, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 214, "service_tier": "standard"}
            })
        }
        "openai_chat" => {
            let calls: Vec<Value> = (0..5)
                .map(|n| {
                    json!({"id": format!("call_3SEaKjdCcCEz7IPxpqjCA{n}"), "type": "function",
                           "function": {"name": "get_weather", "arguments": arguments(n).to_string()}})
                })
                .collect();
            json!({
                "id": "chatcmpl-CF0123456789", "object": "chat.completion", "created": 1758000000,
                "model": "gpt-4.1-2025-04-14",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": null, "message": {
                    "role": "assistant", "content": text, "refusal": null, "annotations": [],
                    "tool_calls": calls
                }}],
                "usage": {"prompt_tokens": 623, "completion_tokens": 214, "total_tokens": 837,
                          "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                          "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}},
                "service_tier": "default", "system_fingerprint": null
            })
        }
        "openai_responses" => {
            let mut output = vec![json!({
                "type": "message", "id": "msg_0a8c5e0b7f2d4c11", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]
            })];
            output.extend((0..5).map(|n| {
                json!({"type": "function_call", "id": format!("fc_0a8c5e0b7f2d4c1100{n}"), "status": "completed",
                       "call_id": format!("call_Qm3Zr8TfA1bXc5yK7pLd2nW{n}"), "name": "get_weather",
                       "arguments": arguments(n).to_string()})
            }));
            json!({
                "id": "resp_0a8c5e0b7f2d4c11", "object": "response", "created_at": 1758000000,
                "status": "completed", "model": "gpt-5-2025-08-07", "output": output,
                "usage": {"input_tokens": 623, "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens": 214, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": 837}
            })
        }
        _ => {
            let mut parts = vec![json!({"text": text})];
            parts.extend((0..5).map(|n| {
                let mut call = json!({"name": "get_weather", "args": arguments(n)});
                if provider == "gemini" {
                    call["id"] = format!("f{n}x9c2kq").into();
                }
                json!({"functionCall": call})
            }));
            json!({
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 623, "candidatesTokenCount": 214, "totalTokenCount": 837},
                "modelVersion": "gemini-2.5-flash", "responseId": "wOd8abGuO5rgz7IP5tLEGA"
            })
        }
    }
}

fn response(
    parts: Vec<Part>,
    stop_reason: StopReason,
    usage: Usage,
    id: &str,
    model: &str,
) -> Response {
    let message = Message {
        role: Role::Assistant,
        parts,
    };
    Response::new(message, stop_reason)
        .with_usage(usage)
        .with_id(id)
        .with_model(model)
}

// ---------------------------------------------------------------------------------------------
// The floors: typed structs that borrow their strings from the body, one module per wire format.
// ---------------------------------------------------------------------------------------------

/// The OpenAI formats' cached input tokens (`*_tokens_details`).
#[derive(Deserialize)]
struct Cached {
    cached_tokens: u64,
}

/// The OpenAI formats' reasoning tokens (`*_tokens_details`).
#[derive(Deserialize)]
struct Reasoning {
    reasoning_tokens: u64,
}

/// The usage of a body of either OpenAI format, under Chat's names or Responses'.
#[derive(Deserialize)]
struct OpenAiUsage {
    #[serde(alias = "prompt_tokens")]
    input_tokens: u64,
    #[serde(alias = "completion_tokens")]
    output_tokens: u64,
    #[serde(alias = "prompt_tokens_details")]
    input_tokens_details: Cached,
    #[serde(alias = "completion_tokens_details")]
    output_tokens_details: Reasoning,
}

impl From<OpenAiUsage> for Usage {
    fn from(usage: OpenAiUsage) -> Usage {
        Usage::new(usage.input_tokens, usage.output_tokens)
            .with_cached_input_tokens(usage.input_tokens_details.cached_tokens)
            .with_reasoning_tokens(usage.output_tokens_details.reasoning_tokens)
    }
}

mod anthropic_wire {
    use super::*;

    #[derive(Deserialize)]
    struct Body<'a> {
        id: &'a str,
        model: &'a str,
        content: Vec<Block<'a>>,
        usage: WireUsage,
    }

    /// Flat rather than an internally tagged enum, which would buffer each block first.
    #[derive(Deserialize)]
    struct Block<'a> {
        r#type: &'a str,
        text: Option<&'a str>,
        id: Option<&'a str>,
        name: Option<&'a str>,
        input: Option<Value>,
    }

    #[derive(Deserialize)]
    struct WireUsage {
        input_tokens: u64,
        cache_creation_input_tokens: u64,
        cache_read_input_tokens: u64,
        output_tokens: u64,
    }

    pub fn decode(body: &Value) -> Response {
        let body = Body::deserialize(body).unwrap();
        let parts = body
            .content
            .into_iter()
            .map(|block| match block.r#type {
                "text" => Part::Text(block.text.unwrap().to_owned()),
                _ => ToolCall::new(block.id.unwrap(), block.name.unwrap(), block.input.unwrap())
                    .into(),
            })
            .collect();
        let usage = Usage::new(
            body.usage.input_tokens
                + body.usage.cache_read_input_tokens
                + body.usage.cache_creation_input_tokens,
            body.usage.output_tokens,
        )
        .with_cached_input_tokens(body.usage.cache_read_input_tokens)
        .with_cache_write_tokens(body.usage.cache_creation_input_tokens);
        response(parts, StopReason::ToolUse, usage, body.id, body.model)
    }
}

mod openai_chat_wire {
    use super::*;

    #[derive(Deserialize)]
    struct Body<'a> {
        id: &'a str,
        model: &'a str,
        #[serde(borrow)]
        choices: Vec<Choice<'a>>,
        usage: OpenAiUsage,
    }

    #[derive(Deserialize)]
    struct Choice<'a> {
        #[serde(borrow)]
        message: WireMessage<'a>,
    }

    #[derive(Deserialize)]
    struct WireMessage<'a> {
        content: &'a str,
        #[serde(borrow)]
        tool_calls: Vec<Call<'a>>,
    }

    #[derive(Deserialize)]
    struct Call<'a> {
        id: &'a str,
        #[serde(borrow)]
        function: Function<'a>,
    }

    #[derive(Deserialize)]
    struct Function<'a> {
        name: &'a str,
        arguments: &'a str,
    }

    pub fn decode(body: &Value) -> Response {
        let body = Body::deserialize(body).unwrap();
        let message = body.choices.into_iter().next().unwrap().message;
        let mut parts = vec![Part::Text(message.content.to_owned())];
        parts.extend(message.tool_calls.into_iter().map(|call| {
            let arguments = serde_json::from_str(call.function.arguments).unwrap();
            Part::from(ToolCall::new(call.id, call.function.name, arguments))
        }));
        let usage = Usage::from(body.usage);
        response(parts, StopReason::ToolUse, usage, body.id, body.model)
    }
}

mod openai_responses_wire {
    use super::*;

    #[derive(Deserialize)]
    struct Body<'a> {
        id: &'a str,
        model: &'a str,
        #[serde(borrow)]
        output: Vec<Item<'a>>,
        usage: OpenAiUsage,
    }

    /// Flat rather than an internally tagged enum, which would buffer each item first.
    #[derive(Deserialize)]
    struct Item<'a> {
        r#type: &'a str,
        id: &'a str,
        status: Option<&'a str>,
        #[serde(borrow)]
        content: Option<Vec<Text<'a>>>,
        call_id: Option<&'a str>,
        name: Option<&'a str>,
        arguments: Option<&'a str>,
    }

    #[derive(Deserialize)]
    struct Text<'a> {
        text: &'a str,
    }

    pub fn decode(body: &Value) -> Response {
        let body = Body::deserialize(body).unwrap();
        let mut parts = Vec::new();
        for item in body.output {
            let id = item.id;
            match item.r#type {
                "message" => {
                    let (status, content) = (item.status.unwrap(), item.content.unwrap());
                    let data = ProviderData::new(
                        Provider::OpenAiResponses,
                        json!({"type": "message", "id": id, "status": status}),
                    );
                    parts.extend(content.into_iter().map(|text| Part::ProviderText {
                        text: text.text.to_owned(),
                        provider_data: data.clone(),
                    }));
                }
                _ => {
                    let arguments = serde_json::from_str(item.arguments.unwrap()).unwrap();
                    let mut call =
                        ToolCall::new(item.call_id.unwrap(), item.name.unwrap(), arguments);
                    call.provider_data = Some(ProviderData::new(
                        Provider::OpenAiResponses,
                        json!({"id": id}),
                    ));
                    parts.push(call.into());
                }
            }
        }
        let usage = Usage::from(body.usage);
        response(parts, StopReason::ToolUse, usage, body.id, body.model)
    }
}

mod gemini_wire {
    use super::*;

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Body<'a> {
        #[serde(borrow)]
        candidates: Vec<Candidate<'a>>,
        usage_metadata: WireUsage,
        model_version: &'a str,
        response_id: &'a str,
    }

    #[derive(Deserialize)]
    struct Candidate<'a> {
        #[serde(borrow)]
        content: Content<'a>,
    }

    #[derive(Deserialize)]
    struct Content<'a> {
        #[serde(borrow)]
        parts: Vec<WirePart<'a>>,
    }

    /// Flat rather than an untagged enum, which would buffer each part first.
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct WirePart<'a> {
        text: Option<&'a str>,
        #[serde(borrow)]
        function_call: Option<FunctionCall<'a>>,
    }

    #[derive(Deserialize)]
    struct FunctionCall<'a> {
        id: Option<&'a str>,
        name: &'a str,
        args: Value,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct WireUsage {
        prompt_token_count: u64,
        candidates_token_count: u64,
    }

    pub fn decode(body: &Value) -> Response {
        let body = Body::deserialize(body).unwrap();
        let candidate = body.candidates.into_iter().next().unwrap();
        let mut calls = 0;
        let parts = candidate
            .content
            .parts
            .into_iter()
            .map(|part| match (part.text, part.function_call) {
                (Some(text), _) => Part::Text(text.to_owned()),
                (None, Some(call)) => {
                    calls += 1;
                    match call.id {
                        Some(id) => ToolCall::new(id, call.name, call.args).into(),
                        // A minted id, and the mark that keeps it from being sent back.
                        None => {
                            let id = format!("gemini_{}_{}", body.response_id, calls - 1);
                            let mut call = ToolCall::new(id, call.name, call.args);
                            let mut mark = serde_json::Map::new();
                            mark.insert("minted_id".into(), true.into());
                            call.provider_data =
                                Some(ProviderData::new(Provider::Gemini, Value::Object(mark)));
                            call.into()
                        }
                    }
                }
                (None, None) => unreachable!("every part has text or a call"),
            })
            .collect();
        let usage = Usage::new(
            body.usage_metadata.prompt_token_count,
            body.usage_metadata.candidates_token_count,
        );
        response(
            parts,
            StopReason::ToolUse,
            usage,
            body.response_id,
            body.model_version,
        )
    }
}
