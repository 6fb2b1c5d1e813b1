use skyl::tool;

/// Echoes.
#[tool]
fn echo(text: impl Into<String>) -> String {
    text.into()
}

fn main() {
    let _ = Echo;
}
