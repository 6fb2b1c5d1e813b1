/// Reads a file.
#[skyl::tool(blocking, timeout = "5 seconds")]
fn read_file(path: String) -> String {
    path
}

fn main() {
    let _ = ReadFile;
}
