use skyl::tool;

/// Gets the weather.
#[tool]
fn get_weather(city: String, _: u8) -> String {
    city
}

fn main() {
    let _ = GetWeather;
}
