//! skyl: the tool written with `#[skyl::tool]` (`skyl_tool.rs`), dispatched by a `Toolbox`.

use serde_json::json;
use skyl::{ToolCall, ToolDefinition, ToolResult, Toolbox};

use super::filler::Filler;
use super::forecast::FILLER_DESCRIPTION;
use super::skyl_tool::Forecast;
use super::{Dispatcher, run};

macro_rules! fillers {
    ($($filler:ident)*) => {
        fn with_fillers(toolbox: Toolbox) -> Toolbox {
            toolbox $(.with(Filler(ToolDefinition::new(
                stringify!($filler),
                FILLER_DESCRIPTION,
                json!({"type": "object", "properties": {}}),
            ))))*
        }
    };
}
with_fillers!(fillers);

fn toolbox(tools: usize) -> Toolbox {
    let toolbox = Toolbox::new().with(Forecast);
    if tools == 1 {
        toolbox
    } else {
        with_fillers(toolbox)
    }
}

/// `Toolbox::dispatch(..).await`, the path every caller can take.
pub struct BySkyl(Toolbox);

impl Dispatcher for BySkyl {
    type Answer = ToolResult;

    fn with_tools(tools: usize) -> Self {
        BySkyl(toolbox(tools))
    }

    fn registered(&self) -> usize {
        self.0.len()
    }

    fn dispatch(&self, call: &ToolCall) -> ToolResult {
        run(self.0.dispatch(call))
    }

    fn text(answer: &ToolResult) -> (&str, bool) {
        (&answer.content, answer.is_error)
    }
}

/// `Toolbox::dispatch_blocking`, for code without an executor.
pub struct BySkylBlocking(Toolbox);

impl Dispatcher for BySkylBlocking {
    type Answer = ToolResult;

    fn with_tools(tools: usize) -> Self {
        BySkylBlocking(toolbox(tools))
    }

    fn registered(&self) -> usize {
        self.0.len()
    }

    fn dispatch(&self, call: &ToolCall) -> ToolResult {
        self.0.dispatch_blocking(call)
    }

    fn text(answer: &ToolResult) -> (&str, bool) {
        (&answer.content, answer.is_error)
    }
}
