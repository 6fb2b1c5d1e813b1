//! The two OpenAI wire formats, Chat Completions ([`chat`]) and Responses ([`responses`]), and
//! the rules they share: tool names, strict mode, results without an error flag, the error body
//! and the usage block.

use serde_json::Value;

use super::read::Node;
use super::{DecodeError, EncodeError, Provider, Usage, dialect};
use crate::message::ToolResult;
use crate::tool::ToolDefinition;

pub(crate) mod chat;
pub(crate) mod responses;

/// A result's content on a wire with no error flag: `"error: "` prefixed when the result is an
/// error with content; an error with empty content stays empty and the flag is lost (the
/// documented, lossy behaviour: never leave a failure's content empty).
fn result_content(result: &ToolResult) -> Value {
    Value::String(if result.is_error && !result.content.is_empty() {
        format!("error: {}", result.content)
    } else {
        result.content.clone()
    })
}

/// A tool's parameters: the canonical schema, or in strict mode its lowering to OpenAI's strict
/// dialect (an error naming the tool when it has none).
fn parameters(
    provider: Provider,
    strict: bool,
    tool: &ToolDefinition,
) -> Result<Value, EncodeError> {
    if !strict {
        return Ok(tool.parameters.clone());
    }
    dialect::openai_strict(&tool.parameters)
        .map_err(|error| EncodeError::schema(provider, tool, error))
}

/// The `{"error": {"message", "type" | "code"}}` body OpenAI and compatible servers send (some
/// send `{"error": "message"}`).
fn error(provider: Provider, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
    let error = root.get("error");
    let Some(value) = error.value() else {
        return Ok(None);
    };
    if let Value::String(message) = value {
        return Ok(Some(DecodeError::Provider {
            provider,
            kind: None,
            message: message.clone(),
        }));
    }
    error.object()?;
    let kind = match (error.get("type").value(), error.get("code").value()) {
        (Some(Value::String(kind)), _) | (_, Some(Value::String(kind))) => Some(kind.clone()),
        (_, Some(code @ Value::Number(_))) => Some(code.to_string()),
        _ => None,
    };
    Ok(Some(DecodeError::Provider {
        provider,
        kind,
        message: error.get("message").opt_str()?.unwrap_or("").to_owned(),
    }))
}

/// The names in OpenAI's usage block: Chat Completions says `prompt`/`completion` where
/// Responses says `input`/`output`.
struct UsageKeys {
    input: &'static str,
    output: &'static str,
    input_details: &'static str,
    output_details: &'static str,
}

/// OpenAI's usage block: the input and output tokens, and in their details the cached and
/// reasoning tokens.
fn usage(usage: Node<'_>, keys: &UsageKeys) -> Result<Usage, DecodeError> {
    Ok(Usage {
        input_tokens: usage.get(keys.input).count()?,
        output_tokens: usage.get(keys.output).count()?,
        cached_input_tokens: usage
            .get(keys.input_details)
            .get("cached_tokens")
            .opt_u64()?,
        reasoning_tokens: usage
            .get(keys.output_details)
            .get("reasoning_tokens")
            .opt_u64()?,
    })
}
