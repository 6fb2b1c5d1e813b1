//! An agent loop with two tools, printing each step as it happens.
//!
//! `cargo run --example agent` runs offline: a scripted model plays the provider, calling the
//! tools and then answering from their results. Options:
//!
//! ```text
//! cargo run --example agent -- [--provider NAME] [--model MODEL] [--no-stream] ["prompt"]
//! ```
//!
//! `--no-stream` asks for whole answers and prints each step once it is done, instead of
//! printing the answer as it streams. `--provider anthropic|openai|openai-responses|gemini` runs
//! the same agent against a real provider over HTTP, with the key the provider's SDK reads
//! (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`; `OPENAI_BASE_URL` points `openai` at
//! any OpenAI-compatible server, such as Ollama on this machine). [`model`] is the one place that
//! chooses the model: the loop is the same whichever it is.

#[path = "support/errors.rs"]
mod errors;

#[path = "support/http_model.rs"]
mod http_model;

use std::future::IntoFuture as _;
use std::io::Write as _;
use std::process::ExitCode;

use serde_json::json;
use skyl::agent::{Agent, Event, Step, hooks};
use skyl::model::Model;
use skyl::provider::{Request, Response, StopReason, StreamEvent, Usage};
use skyl::testing::ScriptedModel;
use skyl::{Message, Part, Role, ToolCall, Toolbox};

use http_model::{Args, http_model};

/// Get the current weather for a city.
#[skyl::tool]
fn get_weather(
    /// The city, for example "Kampala".
    city: String,
) -> Result<String, String> {
    match city.as_str() {
        "Kampala" => Ok("24C, sunny".into()),
        "Gulu" => Ok("29C, dry and windy".into()),
        other => Err(format!("no weather station reports for {other}")),
    }
}

/// Convert a temperature from Celsius to Fahrenheit.
#[skyl::tool]
fn celsius_to_fahrenheit(
    /// Degrees Celsius.
    celsius: f64,
) -> f64 {
    celsius * 9.0 / 5.0 + 32.0
}

/// The question asked when the command line gives none.
const DEFAULT_PROMPT: &str = "What's the weather in Kampala and Gulu, in Fahrenheit?";

/// The model to talk to, and its name: the only place that knows which provider it is.
fn model(args: &Args) -> Result<(Box<dyn Model>, String), String> {
    match (args.provider, args.model_name()) {
        (Some(provider), Some(name)) => Ok((http_model(provider)?, name)),
        _ => Ok((Box::new(scripted_model()), "scripted".into())),
    }
}

/// A model that plays a provider offline: it calls the weather tool for both cities, converts
/// the temperatures it got back, and answers from the results in the transcript.
fn scripted_model() -> ScriptedModel {
    ScriptedModel::new()
        .reply(response(
            vec![
                Part::Text("Let me check both cities.".into()),
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
            (310, 52),
        ))
        .reply_with(|request| {
            let calls = latest_results(request)
                .iter()
                .enumerate()
                .map(|(n, result)| {
                    let celsius: f64 = result
                        .split('C')
                        .next()
                        .and_then(|degrees| degrees.parse().ok())
                        .unwrap_or(0.0);
                    Part::ToolCall(ToolCall::new(
                        format!("call_{}", n + 3),
                        "celsius_to_fahrenheit",
                        json!({ "celsius": celsius }),
                    ))
                })
                .collect();
            Ok(response(calls, (402, 40)))
        })
        .reply_with(|request| {
            let fahrenheit = latest_results(request);
            let text = format!(
                "Kampala is sunny at {}F, and Gulu is dry and windy at {}F.",
                fahrenheit[0], fahrenheit[1]
            );
            Ok(response(vec![Part::Text(text)], (470, 21)))
        })
}

/// The contents of the results of the last step, as the request carries them.
fn latest_results(request: &Request<'_>) -> Vec<String> {
    request
        .messages
        .last()
        .map(|message| message.tool_results().map(|r| r.content.clone()).collect())
        .unwrap_or_default()
}

fn response(parts: Vec<Part>, (input_tokens, output_tokens): (u64, u64)) -> Response {
    let calls = parts.iter().any(|part| matches!(part, Part::ToolCall(_)));
    let stop_reason = if calls {
        StopReason::ToolUse
    } else {
        StopReason::EndTurn
    };
    let message = Message {
        role: Role::Assistant,
        parts,
    };
    Response::new(message, stop_reason).with_usage(Usage::new(input_tokens, output_tokens))
}

/// Prints what streams in: each step, the model's text as it arrives, and each tool call.
fn event_printer() -> impl FnMut(Event) + Send {
    let mut mid_line = false;
    move |event| match event {
        Event::StepStarted { step } => println!("\n── step {step}"),
        Event::Model(StreamEvent::TextDelta(text)) => {
            print!("{text}");
            let _ = std::io::stdout().flush();
            mid_line = true;
        }
        Event::Model(StreamEvent::Done { .. }) if mid_line => {
            println!();
            mid_line = false;
        }
        Event::ToolStarted { call } => println!("  → {}({})", call.name, call.arguments),
        Event::ToolFinished {
            name,
            result,
            duration,
            ..
        } => println!(
            "  ← {name}: {}{} ({}µs)",
            if result.is_error { "error: " } else { "" },
            result.content,
            duration.as_micros()
        ),
        _ => {}
    }
}

/// Prints a step once it is done, for `--no-stream`.
fn print_step(step: &Step<'_>) {
    println!("\n── step {}", step.number());
    let text = step.message().text_content();
    if !text.is_empty() {
        println!("{text}");
    }
    let results = step.results().into_iter().flat_map(Message::tool_results);
    for (call, result) in step.tool_calls().zip(results) {
        println!("  → {}({})", call.name, call.arguments);
        println!("  ← {}: {}", call.name, result.content);
    }
}

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("agent: {message}");
            return ExitCode::from(2);
        }
    };
    let (model, model_name) = match model(&args) {
        Ok(model) => model,
        Err(message) => {
            eprintln!("agent: {message}");
            return ExitCode::from(2);
        }
    };

    let toolbox = Toolbox::new().with(GetWeather).with(CelsiusToFahrenheit);
    let agent = Agent::new(model, toolbox, model_name)
        .with_system("You are a terse weather assistant. Use the tools; never guess.")
        .with_max_steps(6);
    let prompt = args.prompt.as_deref().unwrap_or(DEFAULT_PROMPT);
    println!("user: {prompt}");
    let messages = vec![Message::user(prompt)];

    // A run is a future: the scripted model would need no executor (`.blocking()`), but the
    // HTTP transport runs on Tokio, as reqwest does, so one runtime serves both.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("agent: cannot start Tokio: {}", errors::chain(&error));
            return ExitCode::FAILURE;
        }
    };
    let run = if args.stream {
        runtime.block_on(agent.run(messages).on_event(event_printer()).into_future())
    } else {
        let agent = agent.with_hooks(hooks::after_step(print_step));
        runtime.block_on(agent.run(messages).into_future())
    };
    match run {
        Ok(run) => {
            let usage = run.usage();
            // A server that reports no usage (many local ones, streaming) has counted nothing.
            let tokens = if usage.unreported {
                "the server did not report every step's tokens".to_owned()
            } else {
                format!(
                    "{} input and {} output tokens",
                    usage.input_tokens, usage.output_tokens
                )
            };
            println!(
                "\nstopped: {} after {} steps ({tokens})",
                run.stop(),
                run.steps(),
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("agent: {}", errors::chain(&error));
            ExitCode::FAILURE
        }
    }
}
