//! What `Adapter::encode` costs over the floor: `serde_json::to_value` of typed wire structs that
//! borrow from the request and build the same body, for a 1,000-message transcript.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench encode`. Each adapter has two
//! rows: `floor` (the typed structs, written by hand for this transcript) and `skyl` (the
//! adapter). Before anything is timed, both bodies are checked equal. The allocation columns come
//! from divan's counting allocator: the floor allocates exactly what the body holds, so any
//! surplus on the `skyl` row is a copy the adapter made.
//!
//! Compare the medians of one run: the machine is shared and noisy. The goal is `skyl` within
//! 1.10x of `floor` for every adapter.

use std::hint::black_box;

use serde::Serialize;
use serde_json::{Value, json};
use skyl::provider::{Adapter, Request, caching::Caching};
use skyl::{Message, Part, Role, ToolCall, ToolDefinition, ToolResult};

mod adapters;
mod layer_calls;

use adapters::adapter;

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    let request = request();
    for provider in PROVIDERS {
        let skyl = adapter(provider)
            .encode(&request)
            .expect("the workload is a valid transcript");
        assert_eq!(floor(provider, &request), skyl, "{provider}");
    }
    let adapters = PROVIDERS.map(adapter);
    if layer_calls::run_counted(
        &PROVIDERS,
        |at| drop(black_box(floor(PROVIDERS[at], black_box(&request)))),
        |at| drop(black_box(adapters[at].encode(black_box(&request)).unwrap())),
    ) {
        return;
    }
    divan::Divan::from_args()
        .sample_count(200)
        .sample_size(5)
        .main();
}

// ---------------------------------------------------------------------------------------------
// The workload: 250 rounds of a question, an assistant turn with text and two calls, their
// results (one a failure), and an answer.
// ---------------------------------------------------------------------------------------------

const SYSTEM: &str = "You are a terse assistant. Answer in one sentence.";

fn transcript() -> Vec<Message> {
    let mut messages = Vec::with_capacity(1000);
    for round in 0..250 {
        let (weather, time) = (format!("call_{round}_w"), format!("call_{round}_t"));
        messages.push(Message::user(format!(
            "What is the weather in city number {round}, and what time is it there?"
        )));
        messages.push(Message {
            role: Role::Assistant,
            parts: vec![
                Part::Text("Checking both.".into()),
                ToolCall::new(
                    &weather,
                    "get_weather",
                    json!({"city": format!("City {round}"), "units": "celsius"}),
                )
                .into(),
                ToolCall::new(&time, "get_time", json!({"city": format!("City {round}")})).into(),
            ],
        });
        messages.push(Message {
            role: Role::Tool,
            parts: vec![
                ToolResult::success(weather, "22C and sunny").into(),
                ToolResult::error(
                    time,
                    "ERROR: get_time failed: upstream timeout. Do not retry; tell the user the time is unavailable.",
                )
                .into(),
            ],
        });
        messages.push(Message::assistant(format!(
            "City {round}: 22C and sunny; the time is unavailable."
        )));
    }
    messages
}

/// In name order, the order every adapter sends them in.
fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition::new(
            "get_time",
            "The local time in a city.",
            json!({
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city, in English."}},
                "required": ["city"],
                "additionalProperties": false
            }),
        ),
        ToolDefinition::new(
            "get_weather",
            "Current weather in a city.",
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city, in English."},
                    "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", null], "description": "Celsius when left out."}
                },
                "required": ["city"],
                "additionalProperties": false
            }),
        ),
    ]
}

fn request() -> Request<'static> {
    Request::new("some-model", transcript())
        .with_system(SYSTEM)
        .with_tools(tools())
        // What encoding costs, not caching (benches/cache.rs): the floor writes no breakpoints.
        .with_caching(Caching::off())
}

// ---------------------------------------------------------------------------------------------
// The rows.
// ---------------------------------------------------------------------------------------------

const PROVIDERS: [&str; 4] = ["anthropic", "openai_chat", "openai_responses", "gemini"];

fn floor(provider: &str, request: &Request<'_>) -> Value {
    match provider {
        "anthropic" => serde_json::to_value(anthropic_wire::body(request)),
        "openai_chat" => serde_json::to_value(openai_chat_wire::body(request)),
        "openai_responses" => serde_json::to_value(openai_responses_wire::body(request)),
        _ => serde_json::to_value(gemini_wire::body(request)),
    }
    .unwrap()
}

/// One group per adapter, the floor and skyl side by side, so that both rows of a group run
/// under the same load.
macro_rules! rows {
    ($($provider:ident),*) => {$(
        mod $provider {
            use super::*;

            #[divan::bench]
            fn floor(bencher: divan::Bencher<'_, '_>) {
                let request = request();
                bencher.bench_local(|| super::floor(stringify!($provider), black_box(&request)));
            }

            #[divan::bench]
            fn skyl(bencher: divan::Bencher<'_, '_>) {
                let request = request();
                let adapter = adapter(stringify!($provider));
                bencher.bench_local(|| adapter.encode(black_box(&request)).unwrap());
            }
        }
    )*};
}

rows!(anthropic, openai_chat, openai_responses, gemini);

// ---------------------------------------------------------------------------------------------
// The floors: typed wire structs borrowing from the request, one module per wire format. They
// know the workload's shape (no system messages, no empty texts, ids every provider accepts,
// results in call order), which is what makes them a floor.
// ---------------------------------------------------------------------------------------------

fn texts(message: &Message) -> impl Iterator<Item = &str> {
    message.parts.iter().filter_map(|part| match part {
        Part::Text(text) => Some(text.as_str()),
        _ => None,
    })
}

mod anthropic_wire {
    use super::*;

    #[derive(Serialize)]
    pub struct Body<'a> {
        model: &'a str,
        max_tokens: u32,
        system: &'a str,
        messages: Vec<WireMessage<'a>>,
        tools: Vec<Tool<'a>>,
        tool_choice: Choice,
    }

    #[derive(Serialize)]
    struct WireMessage<'a> {
        role: &'static str,
        content: Vec<Block<'a>>,
    }

    #[derive(Serialize)]
    #[serde(tag = "type", rename_all = "snake_case")]
    enum Block<'a> {
        Text {
            text: &'a str,
        },
        ToolUse {
            id: &'a str,
            name: &'a str,
            input: &'a Value,
        },
        ToolResult {
            tool_use_id: &'a str,
            is_error: bool,
            content: &'a str,
        },
    }

    #[derive(Serialize)]
    struct Tool<'a> {
        name: &'a str,
        description: &'a str,
        input_schema: &'a Value,
    }

    #[derive(Serialize)]
    struct Choice {
        r#type: &'static str,
    }

    pub fn body<'a>(request: &'a Request<'_>) -> Body<'a> {
        let messages = request
            .messages
            .iter()
            .map(|message| WireMessage {
                role: if message.role == Role::Assistant {
                    "assistant"
                } else {
                    "user"
                },
                content: message
                    .parts
                    .iter()
                    .map(|part| match part {
                        Part::Text(text) => Block::Text { text },
                        Part::ToolCall(call) => Block::ToolUse {
                            id: &call.id,
                            name: &call.name,
                            input: &call.arguments,
                        },
                        Part::ToolResult(result) => Block::ToolResult {
                            tool_use_id: &result.call_id,
                            is_error: result.is_error,
                            content: &result.content,
                        },
                        _ => unreachable!("the workload has no other parts"),
                    })
                    .collect(),
            })
            .collect();
        Body {
            model: &request.model,
            max_tokens: 4096,
            system: request.system.as_deref().unwrap(),
            messages,
            tools: request
                .tools
                .iter()
                .map(|tool| Tool {
                    name: &tool.name,
                    description: &tool.description,
                    input_schema: &tool.parameters,
                })
                .collect(),
            tool_choice: Choice { r#type: "auto" },
        }
    }
}

mod openai_chat_wire {
    use super::*;

    #[derive(Serialize)]
    pub struct Body<'a> {
        model: &'a str,
        messages: Vec<WireMessage<'a>>,
        tools: Vec<Tool<'a>>,
        tool_choice: &'static str,
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    enum WireMessage<'a> {
        Text {
            role: &'static str,
            content: &'a str,
        },
        Calls {
            role: &'static str,
            content: &'a str,
            tool_calls: Vec<Call<'a>>,
        },
        Result {
            role: &'static str,
            tool_call_id: &'a str,
            content: String,
        },
    }

    #[derive(Serialize)]
    struct Call<'a> {
        id: &'a str,
        r#type: &'static str,
        function: Function<'a>,
    }

    #[derive(Serialize)]
    struct Function<'a> {
        name: &'a str,
        arguments: String,
    }

    #[derive(Serialize)]
    struct Tool<'a> {
        r#type: &'static str,
        function: Declaration<'a>,
    }

    #[derive(Serialize)]
    struct Declaration<'a> {
        name: &'a str,
        description: &'a str,
        parameters: &'a Value,
    }

    pub fn body<'a>(request: &'a Request<'_>) -> Body<'a> {
        let mut messages = vec![WireMessage::Text {
            role: "system",
            content: request.system.as_deref().unwrap(),
        }];
        for message in request.messages.iter() {
            match message.role {
                Role::Tool => {
                    messages.extend(message.tool_results().map(|result| WireMessage::Result {
                        role: "tool",
                        tool_call_id: &result.call_id,
                        content: if result.is_error {
                            format!("error: {}", result.content)
                        } else {
                            result.content.clone()
                        },
                    }))
                }
                Role::Assistant if message.tool_calls().next().is_some() => {
                    messages.push(WireMessage::Calls {
                        role: "assistant",
                        content: texts(message).next().unwrap(),
                        tool_calls: message
                            .tool_calls()
                            .map(|call| Call {
                                id: &call.id,
                                r#type: "function",
                                function: Function {
                                    name: &call.name,
                                    arguments: call.arguments.to_string(),
                                },
                            })
                            .collect(),
                    });
                }
                role => messages.push(WireMessage::Text {
                    role: if role == Role::User {
                        "user"
                    } else {
                        "assistant"
                    },
                    content: texts(message).next().unwrap(),
                }),
            }
        }
        Body {
            model: &request.model,
            messages,
            tools: request
                .tools
                .iter()
                .map(|tool| Tool {
                    r#type: "function",
                    function: Declaration {
                        name: &tool.name,
                        description: &tool.description,
                        parameters: &tool.parameters,
                    },
                })
                .collect(),
            tool_choice: "auto",
        }
    }
}

mod openai_responses_wire {
    use super::*;

    #[derive(Serialize)]
    pub struct Body<'a> {
        model: &'a str,
        instructions: &'a str,
        input: Vec<Item<'a>>,
        tools: Vec<Tool<'a>>,
        tool_choice: &'static str,
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Item<'a> {
        Message {
            role: &'static str,
            content: &'a str,
        },
        Call {
            r#type: &'static str,
            call_id: &'a str,
            name: &'a str,
            arguments: String,
        },
        Output {
            r#type: &'static str,
            call_id: &'a str,
            output: String,
        },
    }

    #[derive(Serialize)]
    struct Tool<'a> {
        r#type: &'static str,
        name: &'a str,
        description: &'a str,
        parameters: &'a Value,
        strict: bool,
    }

    pub fn body<'a>(request: &'a Request<'_>) -> Body<'a> {
        let mut input = Vec::new();
        for message in request.messages.iter() {
            for part in &message.parts {
                input.push(match part {
                    Part::Text(text) => Item::Message {
                        role: if message.role == Role::User {
                            "user"
                        } else {
                            "assistant"
                        },
                        content: text,
                    },
                    Part::ToolCall(call) => Item::Call {
                        r#type: "function_call",
                        call_id: &call.id,
                        name: &call.name,
                        arguments: call.arguments.to_string(),
                    },
                    Part::ToolResult(result) => Item::Output {
                        r#type: "function_call_output",
                        call_id: &result.call_id,
                        output: if result.is_error {
                            format!("error: {}", result.content)
                        } else {
                            result.content.clone()
                        },
                    },
                    _ => unreachable!("the workload has no other parts"),
                });
            }
        }
        Body {
            model: &request.model,
            instructions: request.system.as_deref().unwrap(),
            input,
            tools: request
                .tools
                .iter()
                .map(|tool| Tool {
                    r#type: "function",
                    name: &tool.name,
                    description: &tool.description,
                    parameters: &tool.parameters,
                    strict: false,
                })
                .collect(),
            tool_choice: "auto",
        }
    }
}

mod gemini_wire {
    use super::*;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Body<'a> {
        system_instruction: Content<'a>,
        contents: Vec<Content<'a>>,
        tools: [Tools<'a>; 1],
        tool_config: ToolConfig,
    }

    #[derive(Serialize)]
    struct Content<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        role: Option<&'static str>,
        parts: Vec<WirePart<'a>>,
    }

    #[derive(Serialize)]
    #[serde(untagged, rename_all = "camelCase")]
    enum WirePart<'a> {
        Text {
            text: &'a str,
        },
        #[serde(rename_all = "camelCase")]
        Call {
            function_call: FunctionCall<'a>,
        },
        #[serde(rename_all = "camelCase")]
        Response {
            function_response: FunctionResponse<'a>,
        },
    }

    #[derive(Serialize)]
    struct FunctionCall<'a> {
        name: &'a str,
        args: &'a Value,
        id: &'a str,
    }

    #[derive(Serialize)]
    struct FunctionResponse<'a> {
        name: &'a str,
        response: Output<'a>,
        id: &'a str,
    }

    #[derive(Serialize)]
    struct Output<'a> {
        output: &'a str,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Tools<'a> {
        function_declarations: Vec<Declaration<'a>>,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Declaration<'a> {
        name: &'a str,
        description: &'a str,
        parameters_json_schema: &'a Value,
    }

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ToolConfig {
        function_calling_config: Mode,
    }

    #[derive(Serialize)]
    struct Mode {
        mode: &'static str,
    }

    pub fn body<'a>(request: &'a Request<'_>) -> Body<'a> {
        let mut contents = Vec::new();
        let mut calls: Vec<&ToolCall> = Vec::new();
        for message in request.messages.iter() {
            let parts = match message.role {
                Role::Tool => message
                    .tool_results()
                    .zip(&calls)
                    .map(|(result, call)| WirePart::Response {
                        function_response: FunctionResponse {
                            name: &call.name,
                            response: Output {
                                output: &result.content,
                            },
                            id: &result.call_id,
                        },
                    })
                    .collect(),
                _ => {
                    calls = message.tool_calls().collect();
                    message
                        .parts
                        .iter()
                        .map(|part| match part {
                            Part::Text(text) => WirePart::Text { text },
                            Part::ToolCall(call) => WirePart::Call {
                                function_call: FunctionCall {
                                    name: &call.name,
                                    args: &call.arguments,
                                    id: &call.id,
                                },
                            },
                            _ => unreachable!("the workload has no other parts"),
                        })
                        .collect()
                }
            };
            contents.push(Content {
                role: Some(if message.role == Role::Assistant {
                    "model"
                } else {
                    "user"
                }),
                parts,
            });
        }
        Body {
            system_instruction: Content {
                role: None,
                parts: vec![WirePart::Text {
                    text: request.system.as_deref().unwrap(),
                }],
            },
            contents,
            tools: [Tools {
                function_declarations: request
                    .tools
                    .iter()
                    .map(|tool| Declaration {
                        name: &tool.name,
                        description: &tool.description,
                        parameters_json_schema: &tool.parameters,
                    })
                    .collect(),
            }],
            tool_config: ToolConfig {
                function_calling_config: Mode { mode: "AUTO" },
            },
        }
    }
}
