/// Gets the weather.
#[skyl::tools]
fn get_weather() -> String {
    String::new()
}

fn main() {
    let _ = get_weather();
}
