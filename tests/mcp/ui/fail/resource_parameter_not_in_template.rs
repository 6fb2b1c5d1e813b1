/// The notes of one day.
#[skyl::resource(uri_template = "notes://days/{day}")]
fn day(day: u8, month: u8) -> String {
    format!("day {day} of {month}")
}

fn main() {}
