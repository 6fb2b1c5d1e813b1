//! The checks a request passes before any body is built: what every provider would refuse with
//! a 400.

use serde_json::Value;

use super::names::NameRule;
use super::{EncodeError, Provider, Request, ToolChoice};
use crate::tool::ToolDefinition;
use crate::transcript;

/// Checks the transcript, each tool's name (against `names`) and schema root, and the tool
/// choice, in that order.
pub(crate) fn request(
    provider: Provider,
    names: &NameRule,
    request: &Request<'_>,
) -> Result<(), EncodeError> {
    transcript::validate_complete(&request.messages)
        .map_err(|error| EncodeError::Transcript { provider, error })?;
    for tool in request.tools.iter() {
        names.check(provider, &tool.name)?;
        object_root(provider, tool)?;
    }
    tool_choice(provider, request)
}

/// Every provider takes a tool's arguments as one JSON object, so the root of its schema must say
/// `"type": "object"` (Anthropic: `input_schema.type` is required and must be `"object"`; OpenAI:
/// "schema must be a JSON Schema of 'type: \"object\"'"). Canonical schemas always do; a
/// hand-written [`ToolDefinition`] may not (`{}`, `null`, a bare type).
fn object_root(provider: Provider, tool: &ToolDefinition) -> Result<(), EncodeError> {
    if matches!(tool.parameters.get("type"), Some(Value::String(kind)) if kind == "object") {
        return Ok(());
    }
    Err(EncodeError::Schema {
        provider,
        tool: tool.name.clone(),
        path: String::new(),
        problem: "the root of the parameters schema does not say `\"type\": \"object\"`, and the provider takes a tool's arguments only as an object".into(),
        fix: "pass the schema through skyl::schema::canonicalize (for a tool without arguments it gives {\"type\": \"object\", \"properties\": {}, \"required\": []}), or take the arguments as a struct with named fields".into(),
    })
}

/// A choice that names a tool must name one of the request's tools, and `Required` needs tools.
fn tool_choice(provider: Provider, request: &Request<'_>) -> Result<(), EncodeError> {
    let available = || request.tools.iter().map(|t| t.name.clone()).collect();
    match &request.tool_choice {
        ToolChoice::Tool(name) if !request.tools.iter().any(|t| &t.name == name) => {
            Err(EncodeError::ToolChoice {
                provider,
                tool: Some(name.clone()),
                available: available(),
            })
        }
        ToolChoice::Required if request.tools.is_empty() => Err(EncodeError::ToolChoice {
            provider,
            tool: None,
            available: Vec::new(),
        }),
        _ => Ok(()),
    }
}
