/// The notes of one day.
#[skyl::resource(uri_template = "notes://{month}/{day}")]
fn day(day: u8) -> String {
    format!("day {day}")
}

fn main() {
    // The struct is still made, so this line adds no error of its own.
    let _ = skyl::mcp::Server::new(skyl::Toolbox::new()).with_resource(Day);
}
