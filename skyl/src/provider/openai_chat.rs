//! OpenAI Chat Completions (`POST /v1/chat/completions`), also spoken by most OpenAI-compatible
//! servers (vLLM, Ollama's `/v1`, Groq, OpenRouter, Gemini's compatibility endpoint, ...).

use serde_json::{Map, Value, json};

use super::common::{self, NameRule};
use super::read::Node;
use super::{
    Adapter, DecodeError, EncodeError, Request, Response, StopReason, ToolChoice, Usage, dialect,
    ids,
};
use crate::message::{Message, Part, ProviderData, Role, ToolCall};

const NAME: &str = "openai_chat";

/// Tool names: `^[a-zA-Z0-9_-]{1,64}$` (WIRE.md §3.1, `FunctionObject.name`: "Must be a-z, A-Z,
/// 0-9, or contain underscores and dashes, with a maximum length of 64").
pub(crate) const NAMES: NameRule = NameRule {
    text: "1 to 64 characters from a-z, A-Z, 0-9, `_` and `-`",
    first: common::word_char,
    allowed: common::word_char,
    max: 64,
};

/// OpenAI Chat Completions and the OpenAI-compatible servers.
///
/// Encoding:
///
/// - [`Request::system`] is the first message, `role: "system"`; [`Role::System`] messages of
///   the transcript stay in place as `system` messages.
/// - A call is an entry of the assistant message's `tool_calls`, its arguments a JSON string; a
///   [`ToolResult`](crate::ToolResult) is a `role: "tool"` message right after it. There is no
///   error flag on this wire and skyl never sends an `is_error` key (Fireworks and Groq reject
///   unknown keys): a failed result's content is prefixed with `"error: "`, and a failure with
///   empty content is sent as `""`, its flag lost. Write failures as sentences.
/// - Text in a tool message is sent as a `user` message after the tool messages.
/// - With [`with_strict(true)`](Self::with_strict) tools carry `"strict": true` and their schema
///   is lowered with [`dialect::openai_strict`]; a schema that cannot be strict is an
///   [`EncodeError::Schema`].
/// - [`Request::max_tokens`] is sent as `max_completion_tokens` (OpenAI's current name; reasoning
///   models reject `max_tokens`). For an older server that wants `max_tokens`, put it in
///   [`Request::extra`].
///
/// Decoding keeps an `arguments` string that is not valid JSON as a string (dispatching the call
/// then tells the model), mints ids for calls a server sent without one (`call_<key>_<n>`, the key
/// being the response `id` or a hash of the body), and keeps Gemini's `extra_content` (its thought
/// signatures) to send back.
///
/// ```
/// use skyl::provider::{Adapter, OpenAiChat};
///
/// let strict = OpenAiChat::default().with_strict(true);
/// assert_eq!(strict.name(), "openai_chat");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenAiChat {
    strict: bool,
}

impl OpenAiChat {
    /// Turns OpenAI strict mode on or off for every tool (off by default, as on the API).
    pub fn with_strict(self, strict: bool) -> Self {
        OpenAiChat { strict }
    }
}

impl Adapter for OpenAiChat {
    fn name(&self) -> &'static str {
        NAME
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        common::check_request(NAME, request, &NAMES)?;
        let mut messages = Vec::new();
        if let Some(system) = request.system.as_ref().filter(|s| !s.is_empty()) {
            messages.push(json!({"role": "system", "content": system}));
        }
        // Text found in tool messages, sent as a user message once the tool messages end.
        let mut pending: Vec<Value> = Vec::new();
        for message in request.messages.iter() {
            if message.role != Role::Tool && !pending.is_empty() {
                messages.push(
                    json!({"role": "user", "content": text_value(std::mem::take(&mut pending))}),
                );
            }
            match message.role {
                Role::System | Role::User => {
                    let texts = texts(message);
                    if !texts.is_empty() {
                        messages.push(
                            json!({"role": message.role.to_string(), "content": text_value(texts)}),
                        );
                    }
                }
                Role::Assistant => {
                    if let Some(assistant) = assistant_message(message) {
                        messages.push(assistant);
                    }
                }
                Role::Tool => {
                    for part in &message.parts {
                        match part {
                            Part::ToolResult(result) => messages.push(json!({
                                "role": "tool",
                                "tool_call_id": result.call_id,
                                "content": common::openai_content(result),
                            })),
                            Part::Text(text) if !text.is_empty() => {
                                pending.push(text_part(text));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        if !pending.is_empty() {
            messages.push(json!({"role": "user", "content": text_value(pending)}));
        }
        if messages.is_empty() {
            return Err(EncodeError::NoMessages { provider: NAME });
        }

        let mut body = Map::new();
        body.insert("model".into(), json!(request.model));
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            let mut tools = Vec::new();
            for tool in request.tools.iter() {
                let mut function = json!({"name": tool.name, "description": tool.description});
                if self.strict {
                    function["parameters"] = strict_parameters(NAME, tool)?;
                    function["strict"] = json!(true);
                } else {
                    function["parameters"] = tool.parameters.clone();
                }
                tools.push(json!({"type": "function", "function": function}));
            }
            body.insert("tools".into(), Value::Array(tools));
            body.insert(
                "tool_choice".into(),
                match &request.tool_choice {
                    ToolChoice::Auto => json!("auto"),
                    ToolChoice::None => json!("none"),
                    ToolChoice::Required => json!("required"),
                    ToolChoice::Tool(name) => {
                        json!({"type": "function", "function": {"name": name}})
                    }
                },
            );
        }
        if let Some(max) = request.max_tokens {
            body.insert("max_completion_tokens".into(), json!(max));
        }
        common::merge_extra(&mut body, &request.extra);
        Ok(Value::Object(body))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        let root = Node::root(NAME, body);
        if let Some(error) = provider_error(NAME, &root)? {
            return Err(error);
        }
        let choices = root.get("choices").array()?;
        let Some(choice) = choices.first() else {
            return Err(root.get("choices").error("a non-empty array"));
        };
        let message = choice.get("message");
        message.object()?;
        let mut parts = Vec::new();
        if let Some(extra) = message.get("extra_content").value() {
            parts.push(Part::Provider(ProviderData::new(
                NAME,
                json!({"extra_content": extra}),
            )));
        }
        let content = message.get("content");
        match content.value() {
            None => {}
            Some(Value::String(text)) if text.is_empty() => {}
            Some(Value::String(text)) => parts.push(Part::Text(text.clone())),
            Some(Value::Array(_)) => {
                for item in content.array()? {
                    if let Some(text) = item.get("text").opt_str()? {
                        parts.push(Part::Text(text.to_owned()));
                    }
                }
            }
            Some(_) => return Err(content.error("a string, an array or null")),
        }
        let refusal = message.get("refusal").opt_str()?;
        if let Some(refusal) = refusal {
            parts.push(Part::Text(refusal.to_owned()));
        }
        // The key hashes the whole body when the response has no usable id: only work it out for
        // a call that needs an id minted.
        let response_id = root.get("id").opt_str()?;
        let mut key = None;
        for (index, call) in message.get("tool_calls").opt_array()?.iter().enumerate() {
            let id = match call.get("id").opt_str()? {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => ids::mint(
                    "call",
                    key.get_or_insert_with(|| ids::response_key(response_id, body)),
                    index,
                ),
            };
            let function = call.get("function");
            let arguments = function.get("arguments");
            let arguments = match arguments.value() {
                None => json!({}),
                Some(Value::String(text)) => common::parse_arguments_text(text),
                Some(Value::Object(_)) => arguments.value().cloned().unwrap_or_default(),
                Some(_) => return Err(arguments.error("a string")),
            };
            let mut tool_call = ToolCall::new(id, function.get("name").str()?, arguments);
            if let Some(extra) = call.get("extra_content").value() {
                tool_call.provider_data =
                    Some(ProviderData::new(NAME, json!({"extra_content": extra})));
            }
            parts.push(Part::ToolCall(tool_call));
        }
        let stop_reason = match choice.get("finish_reason").opt_str()? {
            _ if refusal.is_some() => StopReason::Refusal,
            Some("stop") => StopReason::EndTurn,
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::ContentFilter,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        };
        Ok(Response {
            message: Message {
                role: Role::Assistant,
                parts,
            },
            stop_reason,
            usage: usage_counts(&root.get("usage"), "prompt", "completion")?,
            id: root.get("id").opt_str()?.map(str::to_owned),
            model: root.get("model").opt_str()?.map(str::to_owned),
        })
    }
}

/// The `{"error": {"message", "type" | "code"}}` body OpenAI and compatible servers send.
/// OpenAI's usage block: `{in}_tokens`, `{out}_tokens`, and their `_details` with cached and
/// reasoning tokens. Chat Completions says `prompt`/`completion` where Responses says
/// `input`/`output`.
pub(crate) fn usage_counts(
    usage: &Node<'_>,
    input: &str,
    output: &str,
) -> Result<Usage, DecodeError> {
    Ok(Usage {
        input_tokens: usage.get(&format!("{input}_tokens")).count()?,
        output_tokens: usage.get(&format!("{output}_tokens")).count()?,
        cached_input_tokens: usage
            .get(&format!("{input}_tokens_details"))
            .get("cached_tokens")
            .opt_u64()?,
        reasoning_tokens: usage
            .get(&format!("{output}_tokens_details"))
            .get("reasoning_tokens")
            .opt_u64()?,
    })
}

pub(crate) fn provider_error(
    provider: &'static str,
    root: &Node<'_>,
) -> Result<Option<DecodeError>, DecodeError> {
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

/// A tool's parameters in strict mode, or the error naming the tool.
pub(crate) fn strict_parameters(
    provider: &'static str,
    tool: &crate::tool::ToolDefinition,
) -> Result<Value, EncodeError> {
    dialect::openai_strict(&tool.parameters)
        .map_err(|error| EncodeError::schema(provider, tool, error))
}

fn text_part(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

/// The non-empty text parts of a message as `{"type": "text"}` parts.
fn texts(message: &Message) -> Vec<Value> {
    message
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) if !text.is_empty() => Some(text_part(text)),
            _ => None,
        })
        .collect()
}

/// One text as a plain string, several as an array of text parts.
fn text_value(mut parts: Vec<Value>) -> Value {
    if parts.len() == 1 {
        parts.remove(0)["text"].take()
    } else {
        Value::Array(parts)
    }
}

fn assistant_message(message: &Message) -> Option<Value> {
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    let texts = texts(message);
    let has_text = !texts.is_empty();
    if has_text {
        out.insert("content".into(), text_value(texts));
    }
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|call| {
            let mut entry = json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": common::arguments_text(&call.arguments)},
            });
            if let Some(Value::Object(data)) = common::own_data(NAME, call.provider_data.as_ref())
            {
                for (key, value) in data {
                    entry[key] = value.clone();
                }
            }
            entry
        })
        .collect();
    let has_calls = !calls.is_empty();
    if has_calls {
        out.insert("tool_calls".into(), Value::Array(calls));
    }
    for part in &message.parts {
        if let Some(Value::Object(data)) = common::own(NAME, part) {
            for (key, value) in data {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    (has_text || has_calls).then_some(Value::Object(out))
}
