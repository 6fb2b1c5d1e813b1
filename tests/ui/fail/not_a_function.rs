use skyl::tool;

/// Weather.
#[tool]
pub struct GetWeather {
    city: String,
}

fn main() {
    let _ = GetWeather { city: String::new() }.city;
}
