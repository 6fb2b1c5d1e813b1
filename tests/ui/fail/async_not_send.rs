use std::rc::Rc;

use skyl::tool;

async fn yield_now() {}

/// Counts.
#[tool]
async fn count() -> usize {
    let shared = Rc::new(1);
    yield_now().await;
    *shared
}

fn main() {
    let _ = Count;
}
