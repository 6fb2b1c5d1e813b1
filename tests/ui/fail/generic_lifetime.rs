use skyl::tool;

/// Echoes.
#[tool]
fn echo<'a>(text: &'a str) -> &'a str {
    text
}

fn main() {
    let _ = Echo;
}
