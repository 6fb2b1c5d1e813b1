use skyl::tool;

struct Db;

/// Looks up.
#[tool]
fn look_up(#[state] db: &'static Db) -> String {
    let _ = db;
    String::new()
}

fn main() {
    let _ = LookUp;
}
