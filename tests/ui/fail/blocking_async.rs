/// Reads a file.
#[skyl::tool(blocking)]
async fn read_file(path: String) -> String {
    path
}

fn main() {
    let _ = ReadFile;
}
