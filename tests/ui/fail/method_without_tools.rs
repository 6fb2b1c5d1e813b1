use skyl::tool;

struct Weather;

impl Weather {
    /// Gets the weather.
    #[tool]
    fn get(&self, city: String) -> String {
        city
    }
}

fn main() {
    let _ = Weather.get(String::new());
}
