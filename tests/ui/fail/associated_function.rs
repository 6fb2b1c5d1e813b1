// An attribute macro cannot see that it is inside an `impl` block, so the struct it adds there is
// rejected by the compiler; this pins what the user reads.
use skyl::tool;

struct Weather;

impl Weather {
    /// Gets the weather.
    #[tool]
    fn get_weather(city: String) -> String {
        city
    }
}

fn main() {
    let _ = Weather;
}
