// The compiler rejects `#[attr = ...]` on a macro itself, and still hands the string to
// `#[tool]`, whose error then says what to write.
use skyl::tool;

/// Gets the weather.
#[tool = "weather"]
fn get_weather(city: String) -> String {
    city
}

fn main() {
    let _ = GetWeather;
}
