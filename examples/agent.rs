//! An agent loop with two tools and a sub-agent, printing each step as it happens.
//!
//! `cargo run --example agent` runs offline: a scripted model plays the provider, calling the
//! tools, then asking a packing sub-agent (an agent of its own, with its own tool, model and step
//! limit, called as a tool with a typed input and a typed answer), and answering from the
//! results. The sub-agent's steps print indented under the call that runs it. Options:
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
use skyl::agent::{Agent, AgentTool, Event, Step, hooks};
use skyl::model::Model;
use skyl::provider::{Request, Response, StopReason, Usage, stream::StreamEvent};
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

/// What to pack for a forecast.
#[skyl::tool]
fn pack_for(
    /// One city's forecast, for example "Gulu: 84F, dry and windy".
    forecast: String,
) -> String {
    if forecast.contains("windy") {
        "a windbreaker and lip balm".into()
    } else {
        "sunscreen and a hat".into()
    }
}

/// The forecasts the packing sub-agent is asked about.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Trip {
    /// One line per city: its name, temperature and conditions.
    forecasts: Vec<String>,
}

/// The packing sub-agent's answer.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct PackingList {
    /// What to bring.
    items: Vec<String>,
}

/// The packing sub-agent, as a tool of the weather agent: its own model, tool and step limit.
fn packing_tool(model: Box<dyn Model>, model_name: String) -> AgentTool<Trip, PackingList> {
    let packer = Agent::new(model, Toolbox::new().with(PackFor), model_name)
        .with_name("packer")
        .with_system("You make packing lists. Use pack_for for each forecast; never guess.")
        .with_max_steps(3);
    packer
        .as_tool(
            "packing_list",
            "Makes a packing list for the forecasts of a trip.",
        )
        .with_prompt(|trip: &Trip| format!("Forecasts:\n{}", trip.forecasts.join("\n")))
}

/// The question asked when the command line gives none.
const DEFAULT_PROMPT: &str = "What's the weather in Kampala and Gulu, in Fahrenheit?";

/// The models to talk to (the weather agent's, the packing sub-agent's), and their name: the
/// only place that knows which provider it is.
#[allow(clippy::type_complexity)]
fn models(args: &Args) -> Result<((Box<dyn Model>, Box<dyn Model>), String), String> {
    match (args.provider, args.model_name()) {
        (Some(provider), Some(name)) => Ok(((http_model(provider)?, http_model(provider)?), name)),
        _ => Ok((
            (Box::new(scripted_model()), Box::new(scripted_packer())),
            "scripted".into(),
        )),
    }
}

/// A model that plays a provider offline: it calls the weather tool for both cities, converts
/// the temperatures it got back, asks the packing sub-agent, and answers from the results in
/// the transcript.
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
            let forecasts = json!([
                format!("Kampala: {}F, sunny", fahrenheit[0]),
                format!("Gulu: {}F, dry and windy", fahrenheit[1]),
            ]);
            let call = ToolCall::new("call_5", "packing_list", json!({ "forecasts": forecasts }));
            Ok(response(vec![Part::ToolCall(call)], (470, 30)))
        })
        .reply_with(|request| {
            let results = &request.messages;
            let fahrenheit: Vec<String> = results[results.len() - 3]
                .tool_results()
                .map(|result| result.content.clone())
                .collect();
            let list: serde_json::Value =
                serde_json::from_str(&latest_results(request)[0]).unwrap_or_default();
            let items: Vec<&str> = list["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|item| item.as_str())
                .collect();
            let text = format!(
                "Kampala is sunny at {}F, and Gulu is dry and windy at {}F. Pack {}.",
                fahrenheit[0],
                fahrenheit[1],
                items.join(", ")
            );
            Ok(response(vec![Part::Text(text)], (520, 28)))
        })
}

/// The packing sub-agent's model offline: it asks pack_for about each forecast, then answers
/// with the list, as JSON of its answer type.
fn scripted_packer() -> ScriptedModel {
    ScriptedModel::new()
        .reply_with(|request| {
            let forecasts = request.messages[0].text_content();
            let calls = forecasts
                .lines()
                .skip(1)
                .enumerate()
                .map(|(n, forecast)| {
                    Part::ToolCall(ToolCall::new(
                        format!("pack_{}", n + 1),
                        "pack_for",
                        json!({ "forecast": forecast }),
                    ))
                })
                .collect();
            Ok(response(calls, (120, 30)))
        })
        .reply_with(|request| {
            let items = latest_results(request);
            let answer = json!({ "items": items }).to_string();
            Ok(response(vec![Part::Text(answer)], (180, 20)))
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

/// Prints what streams in: each step, the model's text as it arrives, and each tool call; the
/// sub-agent's, indented under the call that runs it.
fn event_printer() -> impl FnMut(Event) + Send {
    let mut mid_line = false;
    move |event| {
        let indent = "    ".repeat(event.path().len());
        match event.innermost() {
            Event::StepStarted { step } => match event.path().last() {
                Some(call) => println!("{indent}── {call}: step {step}"),
                None => println!("\n── step {step}"),
            },
            Event::Model(StreamEvent::TextDelta(text)) => {
                if !mid_line {
                    print!("{indent}");
                }
                print!("{text}");
                let _ = std::io::stdout().flush();
                mid_line = true;
            }
            Event::Model(StreamEvent::Done { .. }) if mid_line => {
                println!();
                mid_line = false;
            }
            Event::ToolStarted { call } => {
                println!("{indent}  → {}({})", call.name, call.arguments)
            }
            // A compatible server without `json_schema` (llama-cpp-python's) refused the typed
            // answer's schema: the run asks with less from here on.
            Event::OutputFallback { mode, .. } => println!(
                "{indent}  [the server refused the answer's schema; asking {}]",
                if mode.is_some() {
                    "in JSON mode, the schema in the prompt"
                } else {
                    "without structured output, the schema in the prompt"
                }
            ),
            Event::ToolFinished {
                name,
                result,
                duration,
                ..
            } => println!(
                "{indent}  ← {name}: {}{} ({}µs)",
                if result.is_error { "error: " } else { "" },
                result.content,
                duration.as_micros()
            ),
            _ => {}
        }
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
    let ((model, packer_model), model_name) = match models(&args) {
        Ok(model) => model,
        Err(message) => {
            eprintln!("agent: {message}");
            return ExitCode::from(2);
        }
    };

    let toolbox = Toolbox::new()
        .with(GetWeather)
        .with(CelsiusToFahrenheit)
        .with(packing_tool(packer_model, model_name.clone()));
    let agent = Agent::new(model, toolbox, model_name)
        .with_system(
            "You are a terse weather assistant. Use the tools; never guess. Once you have the \
             temperatures in Fahrenheit, ask packing_list what to bring.",
        )
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
