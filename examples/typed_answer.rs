//! A tool that reports its progress, and an agent run whose final answer is a typed value.
//!
//! Run it with `cargo run --example typed_answer`. It needs no network and no API key: a
//! scripted model plays the provider. With a real one, the answer's schema goes on the
//! provider's structured-output field (`response_format`, `text.format`, `generationConfig`,
//! `output_config`), so that the model answers with JSON of that schema.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use skyl::agent::{Agent, Event};
use skyl::testing::ScriptedModel;
use skyl::{
    Message, Role, ToolCall, Toolbox,
    tool::{CallContext, LogLevel, Progress, Report},
};

/// Scans a document's pages for a word, reporting each page as it goes.
#[skyl::tool(blocking, read_only)]
fn scan_pages(
    /// The word to look for.
    word: String,
    #[context] call: CallContext,
) -> String {
    let pages = [
        "The harbour opens at dawn.",
        "Boats leave at noon.",
        "The harbour closes at dusk.",
    ];
    let mut found = Vec::new();
    for (number, page) in pages.iter().enumerate() {
        if call.is_cancelled() {
            return format!("stopped after {number} pages; found on pages {found:?}");
        }
        call.progress(
            Progress::new(number as f64 + 1.0)
                .with_total(pages.len() as f64)
                .with_message(format!("page {}", number + 1)),
        );
        if page.contains(&word) {
            found.push(number + 1);
        }
    }
    call.log(
        LogLevel::Info,
        format!("{word} is on {} page(s)", found.len()),
    );
    format!("\"{word}\" is on pages {found:?}")
}

/// What the user asked for: the pages that mention a word.
#[derive(Debug, Deserialize, JsonSchema)]
struct Finding {
    /// The word.
    word: String,
    /// The pages, counted from 1.
    pages: Vec<u32>,
}

fn main() {
    // The model calls the tool, then answers once in prose (which does not read as a Finding:
    // skyl sends it back with what was wrong), then with the JSON.
    let model = ScriptedModel::new()
        .reply_calls([ToolCall::new(
            "call_1",
            "scan_pages",
            json!({"word": "harbour"}),
        )])
        .reply_text("The harbour is on pages 1 and 3.")
        .reply_text(r#"{"word": "harbour", "pages": [1, 3]}"#);
    let agent = Agent::new(model, Toolbox::new().with(ScanPages), "scripted");
    let answer = agent
        .run(vec![Message::user(
            "On which pages is the harbour mentioned?",
        )])
        .on_event(|event| match event {
            Event::ToolReport {
                name,
                report: Report::Progress(progress),
                ..
            } => println!(
                "{name}: {}/{} {}",
                progress.progress,
                progress.total.unwrap_or_default(),
                progress.message.unwrap_or_default()
            ),
            Event::ToolReport {
                name,
                report: Report::Log { message, .. },
                ..
            } => println!("{name} says: {message}"),
            _ => {}
        })
        .answer_as::<Finding>()
        .blocking()
        .expect("the scripted run answers");
    // The prose answer went back to the model with what was wrong; the transcript keeps it.
    for message in answer.run.transcript() {
        let text = message.text_content();
        if message.role == Role::User && text.starts_with("ERROR:") {
            println!(
                "sent back: {}",
                text.split(". Answer again").next().unwrap_or(&text)
            );
        }
    }
    println!(
        "answer: \"{}\" is on pages {:?}, in {} steps",
        answer.value.word,
        answer.value.pages,
        answer.run.steps()
    );
    assert_eq!(answer.value.pages, [1, 3]);
}
