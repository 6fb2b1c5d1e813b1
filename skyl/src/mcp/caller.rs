//! The MCP client a served tool was called by, for a tool that needs to ask it something.

use rmcp::Peer;
use rmcp::service::RoleServer;

tokio::task_local! {
    static CALLER: Peer<RoleServer>;
}

/// The MCP client whose `tools/call` is being answered, while a tool dispatched by
/// [`Server`](super::Server) runs; `None` anywhere else (a tool called by an agent loop, a test,
/// a plain [`Toolbox::dispatch`](crate::Toolbox::dispatch)).
///
/// A tool uses it to ask the client for something mid-call: the person's input
/// (`elicitation/create`), a completion from the client's model (`sampling/createMessage`). The
/// client says in its capabilities which it supports (`peer_info()`); a tool that needs one the
/// client lacks should fail with prose saying so rather than wait.
///
/// ```
/// /// Asks the person for their name.
/// #[skyl::tool]
/// async fn ask_name() -> Result<String, skyl::ToolFailure> {
///     let Some(client) = skyl::mcp::caller() else {
///         return Err(skyl::ToolFailure::do_not_retry("this tool needs an MCP client to ask"));
///     };
///     let can_ask = client
///         .peer_info()
///         .is_some_and(|info| info.capabilities.elicitation.is_some());
///     Ok(format!("the client can ask the person: {can_ask}"))
/// }
/// # let _ = AskName;
/// ```
pub fn caller() -> Option<Peer<RoleServer>> {
    CALLER.try_with(Clone::clone).ok()
}

/// Runs `future` (a dispatch) with `peer` as its [`caller`].
pub(crate) async fn answering<F: Future>(peer: Peer<RoleServer>, future: F) -> F::Output {
    CALLER.scope(peer, future).await
}
