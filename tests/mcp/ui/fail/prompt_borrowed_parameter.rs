/// Greets someone.
#[skyl::prompt]
fn greet(name: &str) -> String {
    format!("Greet {name}.")
}

fn main() {}
