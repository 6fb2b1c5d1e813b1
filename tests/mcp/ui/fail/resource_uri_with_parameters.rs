/// The logo.
#[skyl::resource(uri = "assets://logo")]
fn logo(size: u32) -> Vec<u8> {
    vec![0; size as usize]
}

fn main() {}
