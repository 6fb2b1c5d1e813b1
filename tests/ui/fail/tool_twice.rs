use skyl::tool;

/// Gets the weather.
#[tool]
#[skyl::tool(name = "weather")]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = GetWeather;
}
