/// Waits for a reply.
#[skyl::tool(cancel_grace = "2s")]
async fn wait_for_reply(to: String) -> String {
    to
}

/// Reads a file.
#[skyl::tool(cancel_grace = "1s")]
fn read_file(path: String, #[context] _call: skyl::tool::CallContext) -> String {
    path
}

fn main() {
    let _ = (WaitForReply, ReadFile);
}
