//! Requests for a method MCP has whose params do not fit it.
//!
//! rmcp reads a request into its enum of MCP's requests, and one whose params do not fit its
//! method falls through to the enum's `CustomRequest`, which rmcp's handler answers -32601
//! "method not found": untrue, the method exists. [`misfit`] answers -32602 invalid params, as
//! JSON-RPC says, with where the params went wrong; for a `tools/call` whose `arguments` is not
//! an object, in skyl's prose, since hosts show that message to the model.
//!
//! A protocol error rather than an `isError` result, because MCP makes a request that does not
//! satisfy `CallToolRequest`'s schema a protocol error (an `isError` result is for a call the
//! tool took and refused): the tool never ran, and the mistake is in how the client framed the
//! call.

use rmcp::model::{
    CallToolRequestMethod, CallToolRequestParams, CancelTaskMethod, CancelTaskParams,
    CompleteRequestMethod, CompleteRequestParams, ConstString, CustomRequest,
    DiscoverRequestMethod, DiscoverRequestParams, ErrorCode, ErrorData, GetPromptRequestMethod,
    GetPromptRequestParams, GetTaskMethod, GetTaskParams, InitializeRequestParams,
    InitializeResultMethod, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
    ListResourcesRequestMethod, ListToolsRequestMethod, PaginatedRequestParams,
    ReadResourceRequestMethod, ReadResourceRequestParams, SetLevelRequestMethod, UpdateTaskMethod,
    UpdateTaskParams,
};
// Logging is deprecated in rmcp (see `notify.rs`), yet clients speak it today.
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why `params` do not fit a method's, or `None` if they do.
type Check = fn(Option<&Value>) -> Option<String>;

/// The methods skyl's server answers, each with the check of its params. (Methods a server
/// does not answer, resources' and prompts', are here too: a misfit is a misfit.)
#[allow(deprecated)] // logging/setLevel, by rmcp for protocol 2026-07-28; skyl speaks 2025-11-25
fn known() -> [(&'static str, Check); 14] {
    [
        required::<InitializeResultMethod, InitializeRequestParams>(),
        optional::<DiscoverRequestMethod, DiscoverRequestParams>(),
        required::<CompleteRequestMethod, CompleteRequestParams>(),
        required::<SetLevelRequestMethod, SetLevelRequestParams>(),
        required::<GetPromptRequestMethod, GetPromptRequestParams>(),
        optional::<ListPromptsRequestMethod, PaginatedRequestParams>(),
        optional::<ListResourcesRequestMethod, PaginatedRequestParams>(),
        optional::<ListResourceTemplatesRequestMethod, PaginatedRequestParams>(),
        required::<ReadResourceRequestMethod, ReadResourceRequestParams>(),
        required::<CallToolRequestMethod, CallToolRequestParams>(),
        optional::<ListToolsRequestMethod, PaginatedRequestParams>(),
        required::<GetTaskMethod, GetTaskParams>(),
        required::<UpdateTaskMethod, UpdateTaskParams>(),
        required::<CancelTaskMethod, CancelTaskParams>(),
    ]
}

fn required<M: ConstString, P: DeserializeOwned>() -> (&'static str, Check) {
    (M::VALUE, fits::<P>)
}

fn optional<M: ConstString, P: DeserializeOwned>() -> (&'static str, Check) {
    (M::VALUE, fits::<Option<P>>)
}

/// Why `params` do not read as a `P`, with the place in them that went wrong.
fn fits<P: DeserializeOwned>(params: Option<&Value>) -> Option<String> {
    let params = params.cloned().unwrap_or(Value::Null);
    match serde_path_to_error::deserialize::<_, P>(params) {
        Ok(_) => None,
        Err(error) if error.path().to_string() == "." => Some(error.inner().to_string()),
        Err(error) => Some(format!("at `{}`: {}", error.path(), error.inner())),
    }
}

/// The error answering `request`, a request rmcp could not read as one of MCP's; `tools` are the
/// names of the server's tools.
pub(in crate::mcp) fn misfit<'a>(
    request: &CustomRequest,
    tools: impl IntoIterator<Item = &'a str>,
) -> ErrorData {
    let params = request.params.as_ref();
    if request.method == CallToolRequestMethod::VALUE
        && let Some(message) = misfit_call(params, tools)
    {
        return ErrorData::new(ErrorCode::INVALID_PARAMS, message, None);
    }
    let known = known();
    let Some((_, check)) = known.iter().find(|(method, _)| request.method == *method) else {
        // rmcp's own answer.
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method.clone(), None);
    };
    let why = check(params).unwrap_or_else(|| "they do not fit MCP's schema".to_owned());
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!("Invalid params for `{}`: {why}", request.method),
        None,
    )
}

/// What is wrong with a `tools/call` in skyl's prose: a tool the server does not have, or
/// `arguments` that are not an object.
fn misfit_call<'a>(
    params: Option<&Value>,
    tools: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let name = params?.get("name")?.as_str()?;
    let tools: Vec<&str> = tools.into_iter().collect();
    if !tools.contains(&name) {
        return Some(crate::prose::unknown_tool(name, tools));
    }
    match params?.get("arguments") {
        None | Some(Value::Object(_) | Value::Null) => None,
        Some(other) => Some(crate::prose::mcp::arguments_not_an_object(name, other)),
    }
}
