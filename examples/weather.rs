//! Three tools, their definitions, and one assistant turn whose calls hit every way a call can fail.
//!
//! Run it with `cargo run --example weather`. It needs no network and no API key: the assistant
//! turn is written by hand, as a model would send it. The tools are in `weather_tools.rs`, which
//! the `mcp_server` example serves over MCP.

#[path = "support/errors.rs"]
mod errors;

use serde_json::json;
use skyl::{Message, Part, Role, ToolCall};

mod weather_tools;

fn main() {
    // Caught panics still go through the panic hook, which prints them to stderr. Keep the demo tidy.
    std::panic::set_hook(Box::new(|_| {}));

    let toolbox = weather_tools::toolbox();

    println!("== What the model is told about the tools\n");
    for definition in toolbox.definitions() {
        println!(
            "{}\n",
            serde_json::to_string_pretty(&definition).expect("definitions serialize")
        );
    }

    let call = |id: &str, name: &str, arguments| Part::ToolCall(ToolCall::new(id, name, arguments));
    let turn = Message {
        role: Role::Assistant,
        parts: vec![
            Part::Text("Let me look that up.".into()),
            call(
                "call_1",
                "get_weather",
                json!({"city": "Kampala", "unit": "fahrenheit"}),
            ),
            call(
                "call_2",
                "search_news",
                json!({"query": "rust", "limit": 2}),
            ),
            call("call_3", "get_weather", json!({"city": "Atlantis"})),
            call("call_4", "get_weather", json!({"city": 42})),
            call("call_5", "get_weather", json!("{\"city\": \"Gul")),
            call("call_6", "get_wether", json!({"city": "Gulu"})),
            call(
                "call_7",
                "convert_currency",
                json!({"amount": 10, "from": "USD", "to": "XAU"}),
            ),
            call(
                "call_8",
                "convert_currency",
                json!({"amount": 10, "from": "US", "to": "UGX"}),
            ),
            call("call_9", "search_news", json!({"query": "everything"})),
        ],
    };

    println!("== One assistant turn, nine calls, and the tool message that answers them\n");
    let answer = toolbox.answer_blocking(&turn);
    for (call, result) in turn.tool_calls().zip(answer.tool_results()) {
        let status = if result.is_error { "error" } else { "ok" };
        println!(
            "{} {}({})\n  -> [{status}] {}\n",
            result.call_id, call.name, call.arguments, result.content
        );
    }

    let transcript = vec![
        Message::user("Weather in Kampala, some news, and 10 USD in gold?"),
        turn,
        answer,
    ];
    match skyl::transcript::validate_complete(&transcript) {
        Ok(()) => println!("== Transcript check: every call has exactly one result, in place."),
        Err(error) => println!("== Transcript check failed: {}", errors::chain(&error)),
    }
}
