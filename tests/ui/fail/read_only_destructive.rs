/// Lists the files.
#[skyl::tool(read_only, destructive)]
fn list_files() -> String {
    String::new()
}

fn main() {
    let _ = ListFiles;
}
