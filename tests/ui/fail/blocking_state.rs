struct Root(std::path::PathBuf);

/// Reads a file.
#[skyl::tool(blocking)]
fn read_file(path: String, #[state] root: &Root) -> String {
    format!("{}/{path}", root.0.display())
}

fn main() {
    let _ = ReadFile;
}
