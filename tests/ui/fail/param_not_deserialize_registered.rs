// Registering a tool whose parameter type cannot be a parameter repeats the missing traits at
// the registration: the impl of `Tool` exists only for parameter types that qualify.
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
