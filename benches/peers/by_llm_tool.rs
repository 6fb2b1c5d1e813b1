//! llm-tool: the tool written with `#[llm_tool]`, dispatched by a `ToolRegistry`.
//!
//! `dispatch` takes the arguments as an owned `Value`. The registry's default output policy
//! (neutralizing control tokens in what the tool returns) stays on: it is what a user gets.

use llm_tool::{RustTool, ToolContext, ToolError, ToolOutput, ToolRegistry, llm_tool};
use skyl::ToolCall;

use super::forecast::{FILLER_DESCRIPTION, forecast_text};
use super::{Dispatcher, run};

/// Looks up the weather forecast for a city.
#[llm_tool]
fn forecast(
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

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct NoParams {}

macro_rules! fillers {
    ($($filler:ident)*) => {
        $(
            #[allow(non_camel_case_types)]
            struct $filler;

            impl RustTool for $filler {
                type Params = NoParams;
                const NAME: &'static str = stringify!($filler);
                const DESCRIPTION: &'static str = FILLER_DESCRIPTION;

                async fn call(&self, _: NoParams, _: &ToolContext) -> Result<ToolOutput, ToolError> {
                    Ok(String::new().into())
                }
            }
        )*

        fn with_fillers(registry: ToolRegistry) -> ToolRegistry {
            registry $(.with_tool($filler))*
        }
    };
}
with_fillers!(fillers);

pub struct ByLlmTool {
    registry: ToolRegistry,
    context: ToolContext,
}

impl Dispatcher for ByLlmTool {
    type Answer = Result<ToolOutput, ToolError>;

    fn with_tools(tools: usize) -> Self {
        let registry = ToolRegistry::new().with_tool(Forecast);
        ByLlmTool {
            registry: if tools == 1 {
                registry
            } else {
                with_fillers(registry)
            },
            context: ToolContext::new(),
        }
    }

    fn registered(&self) -> usize {
        self.registry.len()
    }

    fn dispatch(&self, call: &ToolCall) -> Self::Answer {
        run(self
            .registry
            .dispatch(&call.name, call.arguments.clone(), &self.context))
    }

    fn text(answer: &Self::Answer) -> (&str, bool) {
        match answer {
            Ok(output) => (output.content(), false),
            Err(error) => (&error.message, true),
        }
    }
}
