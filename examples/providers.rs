//! One transcript, four wires: the request body each provider adapter builds for it, and what
//! each one loses on the way.
//!
//! Run it with `cargo run --example providers` (offline: adapters build bodies, they send nothing).

#[path = "support/errors.rs"]
mod errors;

use serde_json::json;
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request};
use skyl::{
    Message, Part, Role, ToolCall, ToolDefinition, ToolResult, transcript::tool_result_message,
};

fn main() {
    let request = Request::new("your-model", vec![
            Message::user("Weather in Kampala, Gulu and Jinja?"),
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Text("Checking all three.".into()),
                    Part::ToolCall(ToolCall::new(
                        "call_1",
                        "get_weather",
                        json!({"city": "Kampala"}),
                    )),
                    Part::ToolCall(ToolCall::new(
                        "call_2",
                        "get_weather",
                        json!({"city": "Gulu"}),
                    )),
                    Part::ToolCall(ToolCall::new(
                        "call_3",
                        "get_weather",
                        json!({"city": "Jinja"}),
                    )),
                ],
            },
            tool_result_message("call_1", "22C and sunny"),
            Message {
                role: Role::Tool,
                parts: vec![
                    Part::ToolResult(ToolResult::error(
                        "call_2",
                        "ERROR: get_weather failed: upstream timeout. Do not retry; tell the user the data is unavailable.",
                    )),
                    // A failure with no content: the flag is all there is, and most wires lose it.
Part::ToolResult(ToolResult::error("call_3", "")),
                ],
            },
            Message::user("And tomorrow?"),
        ]).with_system("You are a terse weather assistant.").with_tools(vec![ToolDefinition::new("get_weather", "Current weather in a city.", json!({
                "type": "object",
                "properties": {"city": {"type": "string", "description": "The city, in English."}},
                "required": ["city"],
                "additionalProperties": false
            }))]);

    let adapters: [(Box<dyn Adapter>, &str); 4] = [
        (
            Box::new(Anthropic),
            "nothing: is_error is a real boolean; an empty failure is sent without content, its flag intact",
        ),
        (
            Box::new(OpenAiChat::default()),
            "no error flag: failures get an \"error: \" prefix, and the empty failure is sent as \"\" with its flag lost",
        ),
        (
            Box::new(OpenAiResponses::default()),
            "as OpenAI Chat: \"error: \" prefix, the empty failure's flag lost; the system prompt is `instructions`",
        ),
        (
            Box::new(Gemini::default()),
            "drops the flag entirely (every result is {\"output\": ...}; opt in to {\"error\": ...} with Gemini::with_error_key)",
        ),
    ];

    for (adapter, loses) in &adapters {
        println!("=== {} ===", adapter.provider());
        println!("what it loses: {loses}");
        match adapter.encode(&request) {
            Ok(body) => println!(
                "{}\n",
                serde_json::to_string_pretty(&body).expect("a body serializes")
            ),
            Err(error) => println!("refused: {}\n", errors::chain(&error)),
        }
    }

    // And what every adapter says instead of sending a transcript the provider would reject.
    let mut broken = request.clone();
    broken.messages.to_mut().remove(3);
    println!("=== the same transcript without the tool message answering call_2 and call_3 ===");
    for (adapter, _) in &adapters {
        if let Err(error) = adapter.encode(&broken) {
            println!("{}", errors::chain(&error));
        }
    }
}
