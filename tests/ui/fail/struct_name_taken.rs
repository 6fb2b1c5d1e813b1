use skyl::{tool, tool::{IntoToolOutput, ToolOutcome}};

struct Forecast {
    celsius: i32,
}

impl IntoToolOutput for Forecast {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(format!("{}C", self.celsius))
    }
}

/// Gets today's forecast.
#[tool]
fn forecast() -> Forecast {
    Forecast { celsius: 22 }
}

fn main() {
    let _ = forecast();
}
