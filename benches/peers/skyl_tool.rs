//! The tool as skyl writes it, `#[skyl::tool]` on a function: dispatched by a `Toolbox` in the
//! peers bench (`by_skyl.rs`) and served over MCP by the MCP server bench (`mcp_server.rs`, which
//! takes this file and `forecast.rs` by `#[path]`).

use super::forecast::forecast_text;

/// Looks up the weather forecast for a city.
#[skyl::tool]
pub fn forecast(
    /// The city, in English.
    city: String,
    /// How many days ahead, 1 to 7.
    days: Option<u8>,
    /// Metric units when true.
    #[serde(default)]
    metric: bool,
) -> String {
    forecast_text(&city, days, metric)
}
