use skyl::tool;

/// Lists files.
#[tool]
fn list_files() -> std::path::PathBuf {
    std::path::PathBuf::new()
}

fn main() {
    let _ = ListFiles;
}
