use skyl::tool::CallContext;

/// Reports twice.
#[skyl::tool]
fn report(#[context] first: CallContext, #[context] second: CallContext) -> String {
    format!("{} {}", first.call_id(), second.call_id())
}

fn main() {
    let _ = Report;
}
