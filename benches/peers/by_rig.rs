//! rig: the tool written against rig-agent's `Tool` trait, dispatched by `ToolSet::execute`.
//!
//! `execute` takes the arguments as a JSON string; rig's agent loop serializes the model's
//! arguments to one before the call, and so does this row.

use std::convert::Infallible;

use rig_agent::tool::{Tool, ToolContext, ToolResult, ToolSet};
use serde::Deserialize;
use serde_json::{Value, json};
use skyl::ToolCall;

use super::forecast::{DESCRIPTION, FILLER_DESCRIPTION, forecast_text};
use super::{Dispatcher, run};

#[derive(Deserialize)]
pub struct ForecastArgs {
    city: String,
    days: Option<u8>,
    #[serde(default)]
    metric: bool,
}

struct Forecast;

impl Tool for Forecast {
    const NAME: &'static str = "forecast";
    type Args = ForecastArgs;
    type Output = String;
    type Error = Infallible;

    fn description(&self) -> String {
        DESCRIPTION.into()
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, in English."},
                "days": {"type": "integer", "description": "How many days ahead, 1 to 7."},
                "metric": {"type": "boolean", "description": "Metric units when true."},
            },
            "required": ["city"],
        })
    }

    async fn call(&self, _: &mut ToolContext, args: ForecastArgs) -> Result<String, Infallible> {
        Ok(forecast_text(&args.city, args.days, args.metric))
    }
}

#[derive(Deserialize)]
pub struct NoArgs {}

macro_rules! fillers {
    ($($filler:ident)*) => {
        $(
            #[allow(non_camel_case_types)]
            struct $filler;

            impl Tool for $filler {
                const NAME: &'static str = stringify!($filler);
                type Args = NoArgs;
                type Output = String;
                type Error = Infallible;

                fn description(&self) -> String {
                    FILLER_DESCRIPTION.into()
                }

                fn parameters(&self) -> Value {
                    json!({"type": "object", "properties": {}})
                }

                async fn call(&self, _: &mut ToolContext, _: NoArgs) -> Result<String, Infallible> {
                    Ok(String::new())
                }
            }
        )*

        fn add_fillers(set: &mut ToolSet) {
            $(set.add_tool($filler);)*
        }
    };
}
with_fillers!(fillers);

pub struct ByRig(ToolSet);

impl Dispatcher for ByRig {
    type Answer = ToolResult;

    fn with_tools(tools: usize) -> Self {
        let mut set = ToolSet::default();
        set.add_tool(Forecast);
        if tools > 1 {
            add_fillers(&mut set);
        }
        ByRig(set)
    }

    fn registered(&self) -> usize {
        self.0.get_tool_definitions().len()
    }

    fn dispatch(&self, call: &ToolCall) -> ToolResult {
        let mut context = ToolContext::new();
        run(self
            .0
            .execute(&call.name, call.arguments.to_string(), &mut context))
    }

    fn text(answer: &ToolResult) -> (&str, bool) {
        (answer.output().as_text().unwrap_or(""), answer.is_error())
    }
}
