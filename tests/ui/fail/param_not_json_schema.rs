use skyl::tool;

#[derive(serde::Deserialize)]
struct City {
    name: String,
}

/// Gets the weather.
#[tool]
fn get_weather(days: u8, city: Option<City>) -> String {
    format!("{days}{}", city.map(|c| c.name).unwrap_or_default())
}

fn main() {
    let _ = GetWeather;
}
