use skyl::tool::CallContext;

/// Says its call id.
#[skyl::tool]
fn whoami(#[context(progress)] call: CallContext) -> String {
    call.call_id().to_owned()
}

fn main() {
    let _ = Whoami;
}
