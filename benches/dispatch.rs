//! What `Toolbox::dispatch` costs over the floor: a hand-written `match` on the tool name,
//! `Args::deserialize(&Value)` and building the `ToolResult`, doing the same work in the same run.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml` and compare medians, not means: the
//! machines are shared and noisy. The benchmark names say what each row measures:
//!
//! - `floor`: the hand-written dispatcher, the best any dispatcher can do.
//! - `floor_clone_value`: the floor plus a clone of the arguments, the commonest hidden cost in
//!   dispatchers, to show what a 2x looks like on this machine.
//! - `skyl_blocking`: `Toolbox::dispatch_blocking`.
//! - `skyl_async`: `Toolbox::dispatch(..).await`, polled once by a no-op executor.
//! - `skyl_among`: `dispatch_blocking` in toolboxes of 1, 10 and 100 tools (flat is the goal).

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use serde::Deserialize;
use serde_json::{Value, json};
use skyl::{Tool, ToolCall, ToolDefinition, ToolFuture, ToolResult, Toolbox};

fn main() {
    divan::main();
}

/// The work of the tool itself, shared by every variant.
fn weather_report(city: &str, days: Option<u8>) -> String {
    let mut report = String::with_capacity(city.len() + 16);
    report.push_str(city);
    report.push_str(if days.unwrap_or(1) > 1 { ": sunny days" } else { ": 22C sunny" });
    report
}

/// Get the current weather for a city.
#[skyl::tool]
fn get_weather(
    /// The city.
    city: String,
    /// Days of forecast.
    days: Option<u8>,
) -> String {
    weather_report(&city, days)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WeatherArgs {
    city: String,
    days: Option<u8>,
}

/// The floor: what a developer would write by hand for a few tools.
fn hand_written(call: &ToolCall) -> ToolResult {
    match call.name.as_str() {
        "get_weather" => match WeatherArgs::deserialize(&call.arguments) {
            Ok(args) => ToolResult {
                call_id: call.id.clone(),
                content: weather_report(&args.city, args.days),
                is_error: false,
            },
            Err(error) => ToolResult::error(call.id.clone(), error.to_string()),
        },
        "get_time" | "search" | "convert" => ToolResult::success(call.id.clone(), "not benchmarked"),
        other => ToolResult::error(call.id.clone(), format!("unknown tool {other}")),
    }
}

fn hand_written_cloning(call: &ToolCall) -> ToolResult {
    match call.name.as_str() {
        "get_weather" => match serde_json::from_value::<WeatherArgs>(call.arguments.clone()) {
            Ok(args) => ToolResult::success(call.id.clone(), weather_report(&args.city, args.days)),
            Err(error) => ToolResult::error(call.id.clone(), error.to_string()),
        },
        other => ToolResult::error(call.id.clone(), format!("unknown tool {other}")),
    }
}

fn weather_call() -> ToolCall {
    ToolCall::new("call_0123456789", "get_weather", json!({"city": "Kampala", "days": 1}))
}

#[divan::bench]
fn floor(bencher: divan::Bencher<'_, '_>) {
    let call = weather_call();
    bencher.bench_local(|| hand_written(black_box(&call)));
}

#[divan::bench]
fn floor_clone_value(bencher: divan::Bencher<'_, '_>) {
    let call = weather_call();
    bencher.bench_local(|| hand_written_cloning(black_box(&call)));
}

#[divan::bench]
fn skyl_blocking(bencher: divan::Bencher<'_, '_>) {
    let toolbox = Toolbox::new().with(GetWeather);
    let call = weather_call();
    bencher.bench_local(|| toolbox.dispatch_blocking(black_box(&call)));
}

#[divan::bench]
fn skyl_async(bencher: divan::Bencher<'_, '_>) {
    let toolbox = Toolbox::new().with(GetWeather);
    let call = weather_call();
    bencher.bench_local(|| {
        let mut future = pin!(toolbox.dispatch(black_box(&call)));
        match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(result) => result,
            Poll::Pending => unreachable!("a synchronous tool finishes on the first poll"),
        }
    });
}

/// A stand-in tool, so that toolboxes of many tools can be built.
struct Filler(ToolDefinition);

impl Tool for Filler {
    fn definition(&self) -> &ToolDefinition {
        &self.0
    }

    fn call<'a>(&'a self, _: &'a Value, _: &'a ()) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(String::new()))
    }
}

#[divan::bench(args = [1, 10, 100])]
fn skyl_among(bencher: divan::Bencher<'_, '_>, tools: usize) {
    let mut toolbox = Toolbox::new().with(GetWeather);
    for n in 1..tools {
        toolbox = toolbox.with(Filler(ToolDefinition {
            name: format!("filler_tool_{n}"),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }));
    }
    let call = weather_call();
    bencher.bench_local(|| toolbox.dispatch_blocking(black_box(&call)));
}
