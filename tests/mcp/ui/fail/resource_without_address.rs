/// The logo.
#[skyl::resource(mime_type = "image/png")]
fn logo() -> Vec<u8> {
    Vec::new()
}

fn main() {}
