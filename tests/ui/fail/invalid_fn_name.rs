use skyl::tool;

/// Gets the weather.
#[tool]
fn météo() -> String {
    String::new()
}

fn main() {
    let _ = Météo;
}
