//! The floor: what a developer would write by hand, a `match` on the name and the arguments
//! deserialized from the borrowed `Value`.

use serde::Deserialize;
use skyl::{ToolCall, ToolResult};

use super::Dispatcher;
use super::forecast::forecast_text;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForecastArgs {
    city: String,
    days: Option<u8>,
    #[serde(default)]
    metric: bool,
}

fn forecast(call: &ToolCall) -> ToolResult {
    match ForecastArgs::deserialize(&call.arguments) {
        Ok(args) => ToolResult {
            call_id: call.id.clone(),
            content: forecast_text(&args.city, args.days, args.metric),
            is_error: false,
        },
        Err(error) => ToolResult::error(call.id.clone(), error.to_string()),
    }
}

fn unknown(call: &ToolCall) -> ToolResult {
    ToolResult::error(call.id.clone(), format!("unknown tool {}", call.name))
}

fn one_tool(call: &ToolCall) -> ToolResult {
    match call.name.as_str() {
        "forecast" => forecast(call),
        _ => unknown(call),
    }
}

macro_rules! many_tools {
    ($($filler:ident)*) => {
        /// The names `many_tools` knows, `forecast` and the stand-ins.
        const MANY_TOOLS: &[&str] = &["forecast", $(stringify!($filler)),*];

        fn many_tools(call: &ToolCall) -> ToolResult {
            match call.name.as_str() {
                "forecast" => forecast(call),
                $(stringify!($filler) => ToolResult::success(call.id.clone(), ""),)*
                _ => unknown(call),
            }
        }
    };
}
with_fillers!(many_tools);

/// A hand-written dispatcher of 1 or 101 tools.
pub enum ByHand {
    One,
    Many,
}

impl Dispatcher for ByHand {
    type Answer = ToolResult;

    fn with_tools(tools: usize) -> Self {
        if tools == 1 {
            ByHand::One
        } else {
            ByHand::Many
        }
    }

    fn registered(&self) -> usize {
        match self {
            ByHand::One => 1,
            ByHand::Many => MANY_TOOLS.len(),
        }
    }

    fn dispatch(&self, call: &ToolCall) -> ToolResult {
        match self {
            ByHand::One => one_tool(call),
            ByHand::Many => many_tools(call),
        }
    }

    fn text(answer: &ToolResult) -> (&str, bool) {
        (&answer.content, answer.is_error)
    }
}
