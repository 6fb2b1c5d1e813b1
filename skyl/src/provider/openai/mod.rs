//! The two OpenAI wire formats, Chat Completions ([`chat`]) and Responses ([`responses`]), and
//! the rules they share: tool names, strict mode, results without an error flag, the error body
//! and the usage block.

use serde_json::{Map, Value};

use super::read::Node;
use super::{DecodeError, EncodeError, Provider, Request, Usage, caching, dialect, lowering};
use crate::content::ResultContent;
use crate::message::{Message, Part, Role, ToolResult};
use crate::tool::ToolDefinition;

/// The methods of [`Api`](crate::provider::author::Api) both OpenAI formats share, written inside each
/// one's `impl Api`: OpenAI's address, its SDK's environment variables, bearer auth and which
/// error types pass later.
macro_rules! openai_api {
    () => {
        fn default_base_url(&self) -> Option<&'static str> {
            Some($crate::provider::openai::BASE_URL)
        }

        fn key_variables(&self) -> &'static [&'static str] {
            &[$crate::provider::openai::KEY_VARIABLE]
        }

        fn base_url_variable(&self) -> Option<&'static str> {
            Some($crate::provider::openai::BASE_URL_VARIABLE)
        }

        fn header_variables(&self) -> &'static [(&'static str, &'static str)] {
            $crate::provider::openai::HEADER_VARIABLES
        }

        fn auth_headers(&self, key: Option<&str>) -> Vec<(&'static str, String)> {
            $crate::provider::api::bearer(key)
        }

        fn is_transient(&self, error_type: &str) -> bool {
            $crate::provider::openai::is_transient(error_type)
        }
    };
}

pub(crate) mod azure;
pub(crate) mod chat;
pub(crate) mod responses;

/// Where OpenAI's API lives.
const BASE_URL: &str = "https://api.openai.com/v1";
/// The variable the official SDKs read the key from.
const KEY_VARIABLE: &str = "OPENAI_API_KEY";
/// The variable the official SDKs read the base URL from.
const BASE_URL_VARIABLE: &str = "OPENAI_BASE_URL";
/// The headers the official SDKs read from the environment besides the key: the organization
/// and the project.
const HEADER_VARIABLES: &[(&str, &str)] = &[
    ("OPENAI_ORG_ID", "openai-organization"),
    ("OPENAI_PROJECT_ID", "openai-project"),
];

/// OpenAI's error types that say the same request may pass later: `server_error` and
/// `rate_limit_exceeded`.
fn is_transient(error_type: &str) -> bool {
    matches!(error_type, "server_error" | "rate_limit_exceeded")
}

/// A result's content on a wire with no error flag: `"error: "` prefixed when the result is an
/// error with content; an error with empty content stays empty and the flag is lost (the
/// documented, lossy behaviour: never leave a failure's content empty).
/// The transcript walk both OpenAI formats share; each gives its own items for text, for an
/// assistant turn and for a tool result. System and user text keep their role; text found among
/// tool results (which neither format can carry there) goes out as a user message once the tool
/// results end, and so do the media parts a result item hands back (`pending`: OpenAI Chat's
/// tool messages carry text only), after that text, in a list of parts `media_message` writes.
fn transcript<'m>(
    messages: &'m [Message],
    items: &mut Vec<Value>,
    text_item: fn(&str, Vec<&'m str>) -> Value,
    media_message: fn(Vec<&'m str>, Vec<Value>) -> Value,
    mut assistant: impl FnMut(&'m Message, &mut Vec<Value>),
    result_item: impl Fn(&ToolResult, Option<&ResultContent>, &mut Vec<Value>) -> Value,
) {
    let mut pending: Vec<&str> = Vec::new();
    let mut media: Vec<Value> = Vec::new();
    let flush = |items: &mut Vec<Value>, pending: &mut Vec<&'m str>, media: &mut Vec<Value>| {
        if !media.is_empty() {
            items.push(media_message(
                std::mem::take(pending),
                std::mem::take(media),
            ));
        } else if !pending.is_empty() {
            items.push(text_item("user", std::mem::take(pending)));
        }
    };
    for message in messages {
        if message.role != Role::Tool {
            flush(items, &mut pending, &mut media);
        }
        match message.role {
            Role::System | Role::User => {
                let texts: Vec<&str> = message
                    .parts
                    .iter()
                    .filter_map(Part::text)
                    .filter(|text| !text.is_empty())
                    .collect();
                if !texts.is_empty() {
                    let role = if message.role == Role::System {
                        "system"
                    } else {
                        "user"
                    };
                    items.push(text_item(role, texts));
                }
            }
            Role::Assistant => assistant(message, items),
            Role::Tool => {
                for part in &message.parts {
                    if let Part::ToolResult(result) = part {
                        let content = lowering::content_of(message, result);
                        items.push(result_item(result, content, &mut media));
                    } else if let Some(text) = part.text().filter(|t| !t.is_empty()) {
                        pending.push(text);
                    }
                }
            }
        }
    }
    flush(items, &mut pending, &mut media);
}

fn result_content(result: &ToolResult) -> Value {
    Value::String(result_text(result))
}

fn result_text(result: &ToolResult) -> String {
    if result.is_error && !result.content.is_empty() {
        format!("error: {}", result.content)
    } else {
        result.content.clone()
    }
}

/// A tool's parameters: the canonical schema, or in strict mode its lowering to OpenAI's strict
/// dialect (an error naming the tool when it has none).
fn parameters(
    provider: Provider,
    strict: bool,
    tool: &ToolDefinition,
) -> Result<Value, EncodeError> {
    if !strict {
        return Ok(caching::canonical_schema(&tool.parameters));
    }
    dialect::openai_strict(&tool.parameters)
        .map(|schema| caching::canonical_schema(&schema))
        .map_err(|error| EncodeError::schema(provider, tool, error))
}

/// `prompt_cache_key` and `prompt_cache_retention`, when the request's [`Caching`] has them: both
/// APIs take them at the top level. Nothing is sent by default, since OpenAI caches every long
/// enough prompt by itself.
///
/// [`Caching`]: super::Caching
fn cache_options(request: &Request<'_>, body: &mut Map<String, Value>) {
    if let Some(key) = &request.caching.key {
        body.insert("prompt_cache_key".into(), key.as_str().into());
    }
    if let Some(retention) = request.caching.retention {
        body.insert("prompt_cache_retention".into(), retention.as_str().into());
    }
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
/// reasoning tokens. A body without one (a compatible server's stream without its usage chunk)
/// has its usage unreported.
fn usage(usage: Node<'_>, keys: &UsageKeys) -> Result<Usage, DecodeError> {
    if usage.value().is_none() {
        return Ok(Usage {
            unreported: true,
            ..Usage::default()
        });
    }
    Ok(Usage {
        input_tokens: usage.get(keys.input).count()?,
        output_tokens: usage.get(keys.output).count()?,
        cached_input_tokens: usage
            .get(keys.input_details)
            .get("cached_tokens")
            .opt_u64()?,
        cache_write_tokens: None,
        reasoning_tokens: usage
            .get(keys.output_details)
            .get("reasoning_tokens")
            .opt_u64()?,
        unreported: false,
    })
}
