use skyl::tool;

/// Lists files.
#[tool]
fn list_files() -> Vec<String> {
    Vec::new()
}

fn main() {
    let _ = ListFiles;
}
