#[skyl::prompt]
struct Greet;

fn main() {}
