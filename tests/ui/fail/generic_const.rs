use skyl::tool;

/// Repeats.
#[tool]
fn repeat<const N: usize>(text: String) -> String {
    text.repeat(N)
}

fn main() {
    let _ = Repeat;
}
