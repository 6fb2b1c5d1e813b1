// A type already named like the tool's struct: one error, at the function's name.
use skyl::tool;

#[derive(Clone, Debug, Default)]
struct Search {
    query: String,
}

/// Searches the notes.
#[tool]
fn search(query: String) -> String {
    query
}

fn main() {
    let _ = Search::default().query;
    let _ = search(String::new());
}
