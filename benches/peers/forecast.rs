//! The workload every dispatcher runs: one call of `forecast`, and the tool's own work.

use serde_json::json;
use skyl::ToolCall;

/// The work of the tool itself, shared by every dispatcher.
pub fn forecast_text(city: &str, days: Option<u8>, metric: bool) -> String {
    let mut text = String::with_capacity(city.len() + 20);
    text.push_str(city);
    text.push_str(match (days.unwrap_or(1) > 1, metric) {
        (true, true) => ": sunny days, 24C",
        (true, false) => ": sunny days, 75F",
        (false, true) => ": 22C and sunny",
        (false, false) => ": 72F and sunny",
    });
    text
}

/// The call as a provider's response decodes to it.
pub fn call() -> ToolCall {
    ToolCall::new(
        "call_0123456789",
        "forecast",
        json!({"city": "Kampala", "days": 3, "metric": true}),
    )
}

/// What every dispatcher must answer [`call`] with.
pub const EXPECTED: &str = "Kampala: sunny days, 24C";

/// The tool's description, the same for every dispatcher.
pub const DESCRIPTION: &str = "Looks up the weather forecast for a city.";

/// The description of every stand-in tool.
pub const FILLER_DESCRIPTION: &str = "A stand-in tool that is never called.";
