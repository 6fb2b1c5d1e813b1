use skyl::tool;

struct Counter(u64);

/// Counts.
#[tool]
fn count(#[state] counter: &mut Counter) -> u64 {
    counter.0 += 1;
    counter.0
}

fn main() {
    let _ = Count;
}
