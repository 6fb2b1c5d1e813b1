/// Reads a file.
#[skyl::tool(timeout = "5s")]
fn read_file(path: String) -> String {
    path
}

fn main() {
    let _ = ReadFile;
}
