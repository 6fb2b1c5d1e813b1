use skyl::tool;

/// Adds a day.
#[tool]
fn next_day(day: u8) -> u8 {
    // A mistake in the body is the compiler's to report, once, where it is: `#[tool]` passes the
    // body through as written.
    day + one_day
}

fn main() {
    let _ = NextDay;
}
