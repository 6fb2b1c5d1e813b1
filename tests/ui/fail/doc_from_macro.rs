use skyl::tool;

#[doc = concat!("Gets ", "the weather.")]
#[tool]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = GetWeather;
}
