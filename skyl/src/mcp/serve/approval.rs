//! A person's approval of a served call: asked with `elicitation/create` during the call before
//! MCP 2026-07-28, or in an input-required result from it on, and what the answer decides.

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, ClientResult, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult,
    InputResponses, ServerRequest,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::mcp::serve::request_state::RequestStates;
use crate::message::ToolCall;
use crate::prose::mcp as prose;
use crate::tool::ToolDefinition;

/// The key of the approval question in an input-required result.
const APPROVE: &str = "approve";

/// What happens to a call whose approval is asked in an input-required result.
pub(in crate::mcp) enum Round {
    /// The client is to ask the person, and send the call again with the answer.
    Ask(InputRequiredResult),
    /// The person answered: `Ok` to run the call, else the prose of the refusal.
    Decided(Result<(), String>),
}

/// Whether the tool's annotations say, in so many words, that it is destructive.
pub(in crate::mcp) fn says_destructive(definition: &ToolDefinition) -> bool {
    definition.annotations.destructive == Some(true) && !definition.annotations.is_read_only()
}

/// Asks the client's user to approve `call`; `Err` with the prose of the refusal when they do
/// not, or cannot be asked.
pub(in crate::mcp) async fn approved(
    call: &ToolCall,
    context: &RequestContext<RoleServer>,
) -> Result<(), String> {
    let can_ask = context
        .peer
        .peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_some());
    if !can_ask {
        return Err(prose::approval_unavailable(&call.name));
    }
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(approval_request(call)));
    let answer = match context.peer.send_request(request).await {
        Ok(ClientResult::ElicitResult(answer)) => answer,
        Ok(_) => {
            let error = "the client answered with something other than an elicitation result";
            return Err(prose::approval_failed(&call.name, error));
        }
        Err(error) => return Err(prose::approval_failed(&call.name, &error.to_string())),
    };
    decision(call, &answer)
}

/// The question that asks the client's user to approve `call`: a message naming the tool and
/// its arguments, and a boolean `approve`, true unless the person unticks it.
fn approval_request(call: &ToolCall) -> ElicitRequestParams {
    let requested_schema = ElicitationSchema::builder()
        .required_bool_property(APPROVE, |approve| {
            approve
                .title("Approve")
                .description(prose::approval_field(&call.name))
                .with_default(true)
        })
        .build_unchecked();
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: prose::approval_question(&call.name, &call.arguments),
        requested_schema,
    }
}

/// What the person's `answer` to the approval question decides: `Ok` to run `call`, else the
/// prose of the refusal.
fn decision(call: &ToolCall, answer: &ElicitResult) -> Result<(), String> {
    let refused = answer
        .content
        .as_ref()
        .and_then(|content| content.get(APPROVE))
        .is_some_and(|approve| approve == &Value::Bool(false));
    match answer.action {
        ElicitationAction::Accept if !refused => Ok(()),
        ElicitationAction::Accept | ElicitationAction::Decline => {
            Err(prose::approval_declined(&call.name))
        }
        _ => Err(prose::approval_dismissed(&call.name)),
    }
}

/// One round of asking for approval of `call` at 2026-07-28, where a server sends the
/// client no request of its own during a call: the question goes out in an input-required
/// result, with a request state signed for this call, and comes back with the person's
/// answer (`answers`) and that state.
pub(in crate::mcp) fn round(
    states: &RequestStates,
    call: &ToolCall,
    context: &RequestContext<RoleServer>,
    answers: &InputResponses,
) -> Result<Round, ErrorData> {
    let can_ask = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.elicitation.is_some());
    // "If processing a request requires a capability the client did not include in
    // clientCapabilities, the server MUST return a MissingRequiredClientCapabilityError"
    // (2026-07-28, SEP-2575): the tool does not run, and the client reads why.
    if !can_ask {
        let required = ClientCapabilities::builder().enable_elicitation().build();
        let mut error = ErrorData::missing_required_client_capability(required);
        error.message = prose::approval_unavailable(&call.name).into();
        return Err(error);
    }
    // Not answered yet (a client that sends the state back without the answer is asked
    // again, as SEP-2322 says).
    let Some(answer) = answers.get(APPROVE) else {
        let mut asked = InputRequests::new();
        let question = ElicitRequest::new(approval_request(call));
        asked.insert(APPROVE.to_owned(), InputRequest::Elicitation(question));
        let state = states.sealed(call, answers);
        return Ok(Round::Ask(InputRequiredResult::new(
            Some(asked),
            Some(state),
        )));
    };
    Ok(Round::Decided(
        match serde_json::from_value::<ElicitResult>(answer.clone()) {
            Ok(answer) => decision(call, &answer),
            Err(error) => Err(prose::approval_failed(&call.name, &error.to_string())),
        },
    ))
}
