use skyl::tool;

/// Gets the weather.
#[tool("weather")]
fn get_weather(city: String) -> String {
    city
}

fn main() {
    let _ = GetWeather;
}
