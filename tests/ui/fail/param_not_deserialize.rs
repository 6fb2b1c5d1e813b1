use skyl::tool;

struct City {
    name: String,
}

/// Gets the weather.
#[tool]
fn get_weather(
    /// The city.
    city: City,
) -> String {
    city.name
}

fn main() {
    let _ = GetWeather;
}
