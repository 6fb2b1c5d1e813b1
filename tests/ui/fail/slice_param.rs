use skyl::tool;

/// Joins the words.
#[tool]
fn join(words: &[String]) -> String {
    words.join(" ")
}

fn main() {
    let _ = Join;
}
