//! The MCP client a served tool was called by, for a tool that needs to ask it something.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::Peer;
use rmcp::model::ServerRequest;
use rmcp::model::{
    ClientCapabilities, InputRequest, InputRequests, InputResponses, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::prose::mcp as prose;
use crate::tool::ToolFailure;

tokio::task_local! {
    static CALLER: Peer<RoleServer>;
}

/// The MCP client whose `tools/call` is being answered, while a tool dispatched by
/// [`Server`](crate::mcp::Server) runs; `None` anywhere else (a tool called by an agent loop, a test,
/// a plain [`Toolbox::dispatch`](crate::Toolbox::dispatch)).
///
/// A tool uses it to ask the client for something mid-call: the person's input
/// (`elicitation/create`), a completion from the client's model (`sampling/createMessage`). The
/// client says in its capabilities which it supports (`peer_info()`); a tool that needs one the
/// client lacks should fail with prose saying so rather than wait. That is MCP 2025-11-25: a
/// client of 2026-07-28 takes no request of the server's during a call (rmcp refuses to send
/// one), and a tool asks it with [`ask`] instead.
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

/// What a served call at MCP 2026-07-28 asks its client, and the answers it has (SEP-2322).
pub(crate) struct Inputs {
    /// The answers the client sent with this call, with those of its earlier rounds.
    answers: InputResponses,
    /// What the client's request says it can do.
    capabilities: Option<ClientCapabilities>,
    /// Whether the client speaks 2026-07-28, where a tool can ask in an input-required result.
    can_ask: bool,
    /// The questions the tool asked in this round.
    asked: Mutex<InputRequests>,
}

impl Inputs {
    pub(crate) fn new(
        answers: InputResponses,
        capabilities: Option<ClientCapabilities>,
        can_ask: bool,
    ) -> Self {
        Inputs {
            answers,
            capabilities,
            can_ask,
            asked: Mutex::default(),
        }
    }

    /// The questions asked in this round, taken.
    pub(crate) fn take_asked(&self) -> InputRequests {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

tokio::task_local! {
    static INPUTS: Arc<Inputs>;
}

/// The client's answer to the question a served tool asked under `key` with [`ask`], once the
/// client called again with it (MCP 2026-07-28's input-required results, SEP-2322); `None`
/// until then, and outside a call [`Server`](crate::mcp::Server) answers at 2026-07-28.
///
/// The answer is the client's result as JSON: an elicitation's `{"action": ..., "content":
/// ...}`, a sampling result, a roots list. The client sends it; read it as the client's word.
pub fn answer(key: &str) -> Option<Value> {
    INPUTS
        .try_with(|inputs| inputs.answers.get(key).cloned())
        .ok()
        .flatten()
}

/// The capabilities the client of the call being answered declared, while a tool dispatched by
/// [`Server`](crate::mcp::Server) runs (at 2026-07-28, those its request carries); `None` elsewhere.
pub fn client_capabilities() -> Option<ClientCapabilities> {
    if let Ok(capabilities) = INPUTS.try_with(|inputs| inputs.capabilities.clone()) {
        return capabilities;
    }
    caller()?.peer_info().map(|info| info.capabilities.clone())
}

/// Asks the client of the call being answered `request` (an elicitation, a sampling request, a
/// roots list) under `key`, and gives the failure for the tool to return. At MCP 2026-07-28 the
/// server then answers the call with an input-required result holding every question the tool
/// asked, with a request state it signs, and the tool runs again when the client calls again
/// with the answers, which [`answer`] gives. With a client of an earlier revision the server
/// asks each question itself during the call (`elicitation/create`, `sampling/createMessage`,
/// `roots/list`) and runs the tool again with the answers: one call either way. The tool runs
/// from its start each round, so asking must be all it does before it has its answers.
///
/// A client that did not declare the capability a question needs gets the error -32021 naming
/// it, and is not asked. Outside a call a [`Server`](crate::mcp::Server) answers, the failure says
/// the tool cannot ask.
///
/// ```
/// use serde_json::json;
/// use skyl::mcp::rmcp::model::{ElicitRequest, InputRequest};
///
/// /// Greets the person, by the name they give.
/// #[skyl::tool]
/// fn greet() -> Result<String, skyl::ToolFailure> {
///     if let Some(answer) = skyl::mcp::answer("name") {
///         return Ok(format!("Hello, {}!", answer["content"]["name"].as_str().unwrap_or("you")));
///     }
///     let question = serde_json::from_value(json!({
///         "mode": "form",
///         "message": "What is your name?",
///         "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
///     }))
///     .map_err(|error| skyl::ToolFailure::do_not_retry(error.to_string()))?;
///     Err(skyl::mcp::ask("name", InputRequest::Elicitation(ElicitRequest::new(question))))
/// }
/// # let _ = Greet;
/// ```
pub fn ask(key: impl Into<String>, request: InputRequest) -> ToolFailure {
    let asked = INPUTS.try_with(|inputs| {
        if inputs.can_ask {
            let mut asked = inputs.asked.lock().unwrap_or_else(PoisonError::into_inner);
            asked.insert(key.into(), request);
        }
        inputs.can_ask
    });
    if asked == Ok(true) {
        ToolFailure::do_not_retry(prose::input_asked())
    } else {
        ToolFailure::do_not_retry(prose::input_unavailable())
    }
}

/// Runs `future` (a dispatch at 2026-07-28) with `inputs` as what [`answer`] and [`ask`] use.
pub(crate) async fn with_inputs<F: Future>(inputs: Arc<Inputs>, future: F) -> F::Output {
    INPUTS.scope(inputs, future).await
}

/// Whether the client speaks 2026-07-28 or later, where a question goes in an input-required
/// result instead of a request of the server's during the call.
pub(in crate::mcp) fn speaks_input_required(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
}

/// Asks the client the questions `asked` as requests of the server's own during the call (MCP
/// before 2026-07-28), one after the other; their answers, as JSON, under their keys, or the
/// cause of the first that failed.
pub(in crate::mcp) async fn asked_during_call(
    context: &RequestContext<RoleServer>,
    asked: InputRequests,
) -> Result<InputResponses, String> {
    let mut answers = InputResponses::new();
    for (key, question) in asked {
        let request = match question {
            InputRequest::Elicitation(request) => ServerRequest::ElicitRequest(request),
            InputRequest::CreateMessage(request) => ServerRequest::CreateMessageRequest(request),
            InputRequest::ListRoots(request) => ServerRequest::ListRootsRequest(request),
            _ => {
                return Err(format!(
                    "the question \"{key}\" is of a kind rmcp cannot send"
                ));
            }
        };
        let answer = context
            .peer
            .send_request(request)
            .await
            .map_err(|error| error.to_string())?;
        let answer = serde_json::to_value(answer).map_err(|error| error.to_string())?;
        answers.insert(key, answer);
    }
    Ok(answers)
}
