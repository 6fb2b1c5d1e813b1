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
//! printing the answer as it streams. `--provider` needs the HTTP transport, which this build
//! does not have yet: [`model`] is the one place that chooses the model.

use std::io::Write as _;
use std::process::ExitCode;

use serde_json::json;
use skyl::agent::{Agent, Event, Model, Step, hooks};
use skyl::provider::{Request, Response, StopReason, StreamEvent, Usage};
use skyl::testing::ScriptedModel;
use skyl::{Message, Part, Role, ToolCall, Toolbox};

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

/// What the command line asked for.
struct Options {
    provider: Option<String>,
    model: Option<String>,
    stream: bool,
    prompt: String,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        provider: None,
        model: None,
        stream: true,
        prompt: "What's the weather in Kampala and Gulu, in Fahrenheit?".into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--provider" => options.provider = Some(args.next().ok_or("--provider needs a name")?),
            "--model" => options.model = Some(args.next().ok_or("--model needs a name")?),
            "--no-stream" => options.stream = false,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            prompt => options.prompt = prompt.to_owned(),
        }
    }
    Ok(options)
}

/// The model to talk to, and its name: the only place that knows which provider it is.
fn model(options: &Options) -> Result<(Box<dyn Model>, String), String> {
    match &options.provider {
        None => Ok((
            Box::new(scripted_model()),
            options.model.clone().unwrap_or_else(|| "scripted".into()),
        )),
        Some(provider) => Err(format!(
            "--provider {provider}: this build has no HTTP transport yet; run without --provider to use the scripted model"
        )),
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
    Response {
        message: Message {
            role: Role::Assistant,
            parts,
        },
        stop_reason: if calls {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        },
        usage: Usage {
            input_tokens,
            output_tokens,
            ..Usage::default()
        },
        id: None,
        model: None,
    }
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
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("agent: {message}");
            return ExitCode::from(2);
        }
    };
    let (model, model_name) = match model(&options) {
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
    println!("user: {}", options.prompt);
    let messages = vec![Message::user(options.prompt.as_str())];

    let run = if options.stream {
        agent.run(messages).on_event(event_printer()).blocking()
    } else {
        agent
            .with_hooks(hooks::after_step(print_step))
            .run(messages)
            .blocking()
    };
    match run {
        Ok(run) => {
            let usage = run.usage();
            println!(
                "\nstopped: {} after {} steps ({} input and {} output tokens)",
                run.stop(),
                run.steps(),
                usage.input_tokens,
                usage.output_tokens
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("agent: {error}");
            ExitCode::FAILURE
        }
    }
}
