//! The workload both harnesses measure: one tool written with `#[skyl::tool]`, the same tool as a
//! method of a `#[skyl::tools]` impl, and the same tool behind a hand-written dispatcher (the
//! floor).

use serde::Deserialize;
use serde_json::json;
use skyl::{ToolCall, ToolResult};

/// The work of the tool itself, shared by every variant.
pub fn weather_report(city: &str, days: Option<u8>) -> String {
    let mut report = String::with_capacity(city.len() + 16);
    report.push_str(city);
    report.push_str(if days.unwrap_or(1) > 1 {
        ": sunny days"
    } else {
        ": 22C sunny"
    });
    report
}

/// Get the current weather for a city.
#[skyl::tool]
pub fn get_weather(
    /// The city.
    city: String,
    /// Days of forecast.
    days: Option<u8>,
) -> String {
    weather_report(&city, days)
}

/// The same tool as a method of a `#[tools]` impl, reached through the instance.
pub struct Stations;

#[skyl::tools]
impl Stations {
    /// Get the current weather for a city.
    #[tool]
    pub fn get_weather(
        &self,
        /// The city.
        city: String,
        /// Days of forecast.
        days: Option<u8>,
    ) -> String {
        weather_report(&city, days)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherArgs {
    pub city: String,
    pub days: Option<u8>,
}

/// The floor: what a developer would write by hand for a few tools.
pub fn hand_written(call: &ToolCall) -> ToolResult {
    match call.name.as_str() {
        "get_weather" => match WeatherArgs::deserialize(&call.arguments) {
            Ok(args) => ToolResult {
                call_id: call.id.clone(),
                content: weather_report(&args.city, args.days),
                is_error: false,
            },
            Err(error) => ToolResult::error(call.id.clone(), error.to_string()),
        },
        "get_time" | "search" | "convert" => {
            ToolResult::success(call.id.clone(), "not benchmarked")
        }
        other => ToolResult::error(call.id.clone(), format!("unknown tool {other}")),
    }
}

pub fn weather_call() -> ToolCall {
    ToolCall::new(
        "call_0123456789",
        "get_weather",
        json!({"city": "Kampala", "days": 1}),
    )
}
