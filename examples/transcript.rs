//! A transcript, and what skyl's transcript check says about a broken copy of it.
//!
//! Run it with `cargo run --example transcript`.

#[path = "support/errors.rs"]
mod errors;

use serde_json::json;
use skyl::{
    Message, Part, Role, ToolCall, transcript,
    transcript::{tool_error_message, tool_result_message},
};

fn main() {
    let mut messages = vec![
        Message::system("You are terse."),
        Message::user("Weather in Kampala and Gulu?"),
        Message {
            role: Role::Assistant,
            parts: vec![
                Part::Text("Checking both.".into()),
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
            ],
        },
        tool_result_message("call_1", "22C and sunny"),
        tool_error_message(
            "call_2",
            "ERROR: get_weather failed: upstream timeout. Do not retry; tell the user the data is unavailable.",
        ),
        Message::assistant("Kampala: 22C and sunny. Gulu's weather is unavailable right now."),
    ];

    println!("A transcript, as skyl saves it:\n");
    for (index, message) in messages.iter().enumerate() {
        println!(
            "{index}: {}",
            serde_json::to_string(message).expect("messages serialize")
        );
    }
    report(&messages);

    // Break it the way applications most often do: the result for call_2 goes missing, and a
    // stray result for a call nobody made takes its place.
    messages[4] = tool_result_message("call_9", "done");
    println!("\nThe same transcript with call_2's result replaced by one for call_9:");
    report(&messages);
}

fn report(messages: &[Message]) {
    match transcript::validate_complete(messages) {
        Ok(()) => println!("\ntranscript check: ok, every call has exactly one result in place"),
        Err(error) => println!("\ntranscript check: {}", errors::chain(&error)),
    }
}
