use skyl::tool;

/// Gets the weather.
#[tool(descripton = "Gets the current weather.")]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = GetWeather;
}
