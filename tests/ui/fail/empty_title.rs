/// Lists the files.
#[skyl::tool(title = " ")]
fn list_files() -> String {
    String::new()
}

fn main() {
    let _ = ListFiles;
}
