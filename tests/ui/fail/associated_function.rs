// An attribute macro cannot see that it is inside an `impl` block, so the items it adds there are
// rejected by the compiler; this pins what the user reads. (Under `#[skyl::tools]`, the same
// function is a tool of the set; with `&self`, `#[tool]` says to add `#[skyl::tools]`.)
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
