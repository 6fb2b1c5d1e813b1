/// Greets someone.
#[skyl::prompt(mime_type = "text/plain")]
fn greet(name: String) -> String {
    format!("Greet {name}.")
}

fn main() {}
