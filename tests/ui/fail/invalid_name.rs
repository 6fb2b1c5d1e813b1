use skyl::{Toolbox, tool};

/// Gets the weather.
#[tool(name = "get weather")]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = Toolbox::new().with(GetWeather);
}
