use skyl::{Toolbox, tool};

/// Checks a second factor.
#[tool(name = "2fa_check")]
fn two_factor() -> String {
    String::new()
}

fn main() {
    let _ = Toolbox::new().with(TwoFactor);
}
