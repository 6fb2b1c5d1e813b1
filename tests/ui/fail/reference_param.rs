use skyl::tool;

struct Db;

/// Looks up.
#[tool]
fn look_up(key: String, db: &Db) -> String {
    let _ = db;
    key
}

fn main() {
    let _ = LookUp;
}
