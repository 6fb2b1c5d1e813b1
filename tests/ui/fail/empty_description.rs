use skyl::tool;

/// Has docs, but the option replaces them with nothing.
#[tool(description = "  ")]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = GetWeather;
}
