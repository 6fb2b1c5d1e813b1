use skyl::{Toolbox, tool};

struct Db;
struct App;

/// Looks up.
#[tool]
fn look_up(key: String, #[state] db: &Db) -> String {
    let _ = db;
    key
}

fn main() {
    let _ = Toolbox::with_state(App).with(LookUp);
}
