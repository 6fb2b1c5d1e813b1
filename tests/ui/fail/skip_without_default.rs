use skyl::tool;

struct Client;

/// Gets the weather.
#[tool]
fn get_weather(city: String, #[serde(skip)] client: Client) -> String {
    let _ = client;
    city
}

fn main() {
    let _ = GetWeather;
}
