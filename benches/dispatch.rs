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
//! - `skyl_method`: `dispatch_blocking` to the same tool written as a `#[tools]` method.
//! - `skyl_among`: `dispatch_blocking` in toolboxes of 1, 10 and 100 tools (flat is the goal).

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use serde_json::json;
use skyl::{ToolCall, ToolDefinition, ToolResult, Toolbox};

mod filler;
mod workload;
use filler::Filler;
use workload::{GetWeather, Stations, WeatherArgs, hand_written, weather_call, weather_report};

fn main() {
    // The same number of iterations per sample for every row, so that the rows compare; each
    // result is dropped inside the measured closure, as a real dispatcher's caller would.
    divan::Divan::from_args()
        .sample_count(1000)
        .sample_size(100)
        .main();
}

/// The floor plus a clone of the arguments.
fn hand_written_cloning(call: &ToolCall) -> ToolResult {
    match call.name.as_str() {
        "get_weather" => match serde_json::from_value::<WeatherArgs>(call.arguments.clone()) {
            Ok(args) => ToolResult::success(call.id.clone(), weather_report(&args.city, args.days)),
            Err(error) => ToolResult::error(call.id.clone(), error.to_string()),
        },
        other => ToolResult::error(call.id.clone(), format!("unknown tool {other}")),
    }
}

#[divan::bench]
fn floor(bencher: divan::Bencher<'_, '_>) {
    let call = weather_call();
    bencher.bench_local(|| drop(hand_written(black_box(&call))));
}

#[divan::bench]
fn floor_clone_value(bencher: divan::Bencher<'_, '_>) {
    let call = weather_call();
    bencher.bench_local(|| drop(hand_written_cloning(black_box(&call))));
}

#[divan::bench]
fn skyl_blocking(bencher: divan::Bencher<'_, '_>) {
    let toolbox = Toolbox::new().with(GetWeather);
    let call = weather_call();
    bencher.bench_local(|| drop(toolbox.dispatch_blocking(black_box(&call))));
}

#[divan::bench]
fn skyl_async(bencher: divan::Bencher<'_, '_>) {
    let toolbox = Toolbox::new().with(GetWeather);
    let call = weather_call();
    bencher.bench_local(|| {
        let mut future = pin!(toolbox.dispatch(black_box(&call)));
        match future
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
        {
            Poll::Ready(result) => drop(result),
            Poll::Pending => unreachable!("a synchronous tool finishes on the first poll"),
        }
    });
}

#[divan::bench]
fn skyl_method(bencher: divan::Bencher<'_, '_>) {
    let toolbox = Toolbox::new().with_set(Stations);
    let call = weather_call();
    bencher.bench_local(|| drop(toolbox.dispatch_blocking(black_box(&call))));
}

#[divan::bench(args = [1, 10, 100])]
fn skyl_among(bencher: divan::Bencher<'_, '_>, tools: usize) {
    let mut toolbox = Toolbox::new().with(GetWeather);
    for n in 1..tools {
        toolbox = toolbox.with(Filler(ToolDefinition::new(
            format!("filler_tool_{n}"),
            "Does nothing.",
            json!({"type": "object"}),
        )));
    }
    let call = weather_call();
    bencher.bench_local(|| drop(toolbox.dispatch_blocking(black_box(&call))));
}
