// A type that derives the `JsonSchema` of another schemars (0.8 here, stood in for by a trait of
// the same name), used in a tool and added to a toolbox: one error, at the type, says schemars 1.
mod schemars08 {
    pub trait JsonSchema {}
}

#[derive(serde::Deserialize)]
struct City {
    name: String,
}

impl schemars08::JsonSchema for City {}

/// Gets the weather.
#[skyl::tool]
fn get_weather(days: u8, city: City) -> String {
    format!("{days}{}", city.name)
}

fn main() {
    let _ = skyl::Toolbox::new().with(GetWeather);
}
