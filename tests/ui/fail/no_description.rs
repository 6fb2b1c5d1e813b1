use skyl::{Toolbox, tool};

#[tool]
fn get_weather(city: String) -> String {
    city
}

fn main() {
    // The placeholder keeps the rest of the crate compiling: no second error here.
    let _ = Toolbox::new().with(GetWeather);
    let _ = get_weather(String::new());
}
