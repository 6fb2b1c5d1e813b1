/// Lists the files.
#[skyl::tool(output_schema)]
fn list_files() -> String {
    String::new()
}

fn main() {
    let _ = ListFiles;
}
