// Registering a tool whose parameter type cannot be a parameter adds no error at the
// registration: the missing traits are reported at the type alone, once each.
use skyl::{Toolbox, tool};

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
    let _ = Toolbox::new().with(GetWeather);
}
