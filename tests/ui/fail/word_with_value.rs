/// Lists the files.
#[skyl::tool(blocking = true)]
fn list_files() -> String {
    String::new()
}

fn main() {
    let _ = ListFiles;
}
