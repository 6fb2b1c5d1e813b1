use skyl::tool;

/// Gets the weather.
#[tool(name = "weather", name = "get_weather")]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = GetWeather;
}
