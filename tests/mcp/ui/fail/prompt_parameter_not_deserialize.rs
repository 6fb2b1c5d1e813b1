struct Mood;

/// Greets someone.
#[skyl::prompt]
fn greet(mood: Mood) -> String {
    let _ = mood;
    "Greet them.".to_owned()
}

fn main() {}
