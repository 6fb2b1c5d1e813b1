//! Steps every adapter shares: the checks before encoding, the lossy OpenAI error rendering, the
//! argument conversions and the passthrough merge.

use serde_json::{Map, Value};

use super::{EncodeError, Request, ToolChoice};
use crate::message::{Part, ProviderData, Role, ToolResult};
use crate::tool::ToolDefinition;
use crate::transcript;

/// The checks every adapter runs first: the transcript, the tool names, the tool choice.
pub(crate) fn check_request(
    provider: &'static str,
    request: &Request<'_>,
    name_rule: &NameRule,
) -> Result<(), EncodeError> {
    transcript::validate_complete(&request.messages)
        .map_err(|error| EncodeError::Transcript { provider, error })?;
    for tool in request.tools.iter() {
        name_rule.check(provider, &tool.name)?;
        check_object_root(provider, tool)?;
    }
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

/// Every provider takes a tool's arguments as one JSON object, so the root of its schema must say
/// `"type": "object"` (Anthropic: `input_schema.type` is required and must be `"object"`; OpenAI:
/// "schema must be a JSON Schema of 'type: \"object\"'"). Canonical schemas always do; a
/// hand-written [`ToolDefinition`](crate::ToolDefinition) may not (`{}`, `null`, a bare type).
fn check_object_root(provider: &'static str, tool: &ToolDefinition) -> Result<(), EncodeError> {
    if tool.parameters.get("type") == Some(&Value::String("object".into())) {
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

/// A provider's rule for tool names.
pub(crate) struct NameRule {
    /// The rule in words, for the error.
    pub(crate) text: &'static str,
    /// Characters allowed after the first.
    pub(crate) allowed: fn(char) -> bool,
    /// Characters allowed first.
    pub(crate) first: fn(char) -> bool,
    /// Longest name.
    pub(crate) max: usize,
}

impl NameRule {
    fn check(&self, provider: &'static str, name: &str) -> Result<(), EncodeError> {
        if self.accepts(name) {
            return Ok(());
        }
        Err(EncodeError::ToolName {
            provider,
            tool: name.to_owned(),
            rule: self.text,
            suggestion: self.suggestion(name),
        })
    }

    /// Whether the provider takes `name` as a tool name.
    pub(crate) fn accepts(&self, name: &str) -> bool {
        let mut chars = name.chars();
        match chars.next() {
            None => false,
            Some(first) => {
                (self.first)(first) && chars.all(self.allowed) && name.chars().count() <= self.max
            }
        }
    }

    /// `name` with every character the provider refuses made `_`, cut to its length.
    pub(crate) fn suggestion(&self, name: &str) -> String {
        let mut suggestion: String = name
            .chars()
            .map(|c| if (self.allowed)(c) { c } else { '_' })
            .take(self.max)
            .collect();
        if !suggestion.chars().next().is_some_and(self.first) {
            suggestion.insert(0, '_');
            suggestion.truncate(self.max);
        }
        suggestion
    }
}

/// `[a-zA-Z0-9_-]`: the characters OpenAI and Anthropic accept in tool names, and Anthropic in
/// call ids.
pub(crate) fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The texts that become the system prompt: [`Request::system`] first, then the text of every
/// [`Role::System`] message in transcript order. Empty texts are left out.
pub(crate) fn system_texts(request: &Request<'_>) -> Vec<String> {
    let from_messages = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.text_content());
    request
        .system
        .iter()
        .map(|system| system.to_string())
        .chain(from_messages)
        .filter(|text| !text.is_empty())
        .collect()
}

/// A result's content on the OpenAI wire, where there is no error flag: `"error: "` prefixed when
/// the result is an error with content; an error with empty content stays empty and the flag is
/// lost (the documented, lossy behaviour: never leave a failure's content empty).
pub(crate) fn openai_content(result: &ToolResult) -> String {
    if result.is_error && !result.content.is_empty() {
        format!("error: {}", result.content)
    } else {
        result.content.clone()
    }
}

/// Arguments as a JSON object, for providers that take an object (Anthropic `input`, Gemini
/// `args`). A string holding an object (a call decoded from OpenAI) is parsed; `null` is `{}`;
/// anything else (a string that is not JSON) is kept under `"arguments"`, since the provider
/// accepts only an object and the model was already told in the result that the JSON was invalid.
pub(crate) fn arguments_object(arguments: &Value) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => Value::Object(Map::new()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Object(_)) => parsed,
            _ => single("arguments", arguments.clone()),
        },
        other => single("arguments", other.clone()),
    }
}

/// Arguments as the JSON text OpenAI formats carry. A string is sent as it is (the raw text the
/// model wrote, even when it is not valid JSON); `null` is `"{}"`.
pub(crate) fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

/// An OpenAI `arguments` string as skyl keeps it: the parsed JSON, or the raw string when it is
/// not valid JSON (so dispatching the call tells the model). An empty string means no arguments.
pub(crate) fn parse_arguments_text(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

pub(crate) fn single(key: &str, value: Value) -> Value {
    let mut map = Map::new();
    map.insert(key.to_owned(), value);
    Value::Object(map)
}

/// The data of `part` when it is provider data of `provider`.
pub(crate) fn own<'a>(provider: &str, part: &'a Part) -> Option<&'a Value> {
    match part {
        Part::Provider(data) => own_data(provider, Some(data)),
        _ => None,
    }
}

/// The data when it belongs to `provider`.
pub(crate) fn own_data<'a>(provider: &str, data: Option<&'a ProviderData>) -> Option<&'a Value> {
    data.filter(|d| d.provider == provider).map(|d| &d.data)
}

/// Merges [`Request::extra`] into the body: a new key is added, an existing one replaced, and two
/// objects merged key by key.
pub(crate) fn merge_extra(body: &mut Map<String, Value>, extra: &Map<String, Value>) {
    for (key, value) in extra {
        match (body.get_mut(key), value) {
            (Some(Value::Object(existing)), Value::Object(added)) => {
                for (k, v) in added {
                    existing.insert(k.clone(), v.clone());
                }
            }
            _ => {
                body.insert(key.clone(), value.clone());
            }
        }
    }
}
