/// Says its call id.
#[skyl::tool]
fn whoami(#[context] call_id: String) -> String {
    call_id
}

fn main() {
    let _ = Whoami;
}
