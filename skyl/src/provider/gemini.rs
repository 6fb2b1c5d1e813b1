//! Gemini `generateContent` (`POST /v1beta/models/{model}:generateContent`), the Developer API
//! and Vertex AI.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::common::{self, NameRule};
use super::read::Node;
use super::{
    Adapter, DecodeError, EncodeError, Request, Response, StopReason, ToolChoice, Usage, dialect,
    ids,
};
use crate::message::{Message, Part, ProviderData, Role, ToolCall, ToolResult};

const NAME: &str = "gemini";

fn name_first(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')
}

/// Tool names: `^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$` (WIRE.md §5.1, `FunctionDeclaration.name`:
/// "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores,
/// dots, colons and dashes"; the API's own error says a maximum length of 64, the SDK 128).
pub(super) const NAMES: NameRule = NameRule {
    text: "a letter or `_` first, then a-z, A-Z, 0-9, `_`, `.`, `:` or `-`, at most 64 characters",
    first: name_first,
    allowed: name_char,
    max: 64,
};

/// Gemini `generateContent`.
///
/// Encoding:
///
/// - [`Request::system`] and the text of every [`Role::System`] message, in that order, become
///   the parts of `systemInstruction` (a system message's position is not kept). The model is
///   part of the URL, so [`Request::model`] is not in the body.
/// - Assistant messages are `model` contents; consecutive ones are merged into one (a function
///   call turn must follow a user turn or a function response turn). The results answering one assistant turn are one
///   `user` content of `functionResponse` parts, in the order of the calls, whatever order the
///   tool messages hold them in; each takes its `name` from its call. Text in those tool messages
///   follows the responses in the same content.
/// - A result is `response: {"output": content}`. The error flag is dropped by default, as skyl's
///   spec says; [`with_error_key(true)`](Self::with_error_key) sends a failure as
///   `response: {"error": content}`, the key Google documents for errors.
/// - Ids: a call's id is sent on the call and its response, except ids skyl minted for calls
///   Gemini sent without one (Gemini matches those by order and name); Vertex rejects ids, so
///   [`with_call_ids(false)`](Self::with_call_ids) sends none.
/// - `thoughtSignature`s come back on the part they came with; thought parts are sent back as
///   they came; empty text is dropped (Gemini rejects empty parts) and so is a content left
///   empty. Should the transcript then open with the model, an empty user turn is put first
///   (a function call turn must follow a user turn).
/// - Tool schemas go in `parametersJsonSchema` ([`dialect::gemini_json_schema`]);
///   [`with_legacy_parameters(true)`](Self::with_legacy_parameters) sends the OpenAPI subset in
///   `parameters` instead ([`dialect::gemini_openapi`]), where a recursive type is an
///   [`EncodeError::Schema`].
/// - [`Request::max_tokens`] is `generationConfig.maxOutputTokens`.
///
/// Decoding mints an id for every call without one: `gemini_<key>_<n>`, `n` the call's position
/// in the answer and `key` the response's `responseId` (or a hash of the body when there is
/// none), so ids never collide across the turns of a transcript. A response without candidates
/// (a blocked prompt) is a [`DecodeError::Blocked`]; a candidate without content (stopped by a
/// safety filter) is an empty message with its stop reason.
///
/// ```
/// use skyl::provider::{Adapter, Gemini};
///
/// let vertex = Gemini::default().with_call_ids(false).with_error_key(true);
/// assert_eq!(vertex.name(), "gemini");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemini {
    error_key: bool,
    call_ids: bool,
    legacy_parameters: bool,
}

impl Default for Gemini {
    fn default() -> Self {
        Gemini {
            error_key: false,
            call_ids: true,
            legacy_parameters: false,
        }
    }
}

impl Gemini {
    /// Sends a failed result as `response: {"error": content}` instead of `{"output": content}`
    /// (off by default: the flag is dropped).
    pub fn with_error_key(self, error_key: bool) -> Self {
        Gemini { error_key, ..self }
    }

    /// Sends call ids on `functionCall` and `functionResponse` (on by default; turn off for
    /// Vertex AI, which rejects them).
    pub fn with_call_ids(self, call_ids: bool) -> Self {
        Gemini { call_ids, ..self }
    }

    /// Sends tool schemas in the legacy `parameters` field (an OpenAPI 3.0 subset) instead of
    /// `parametersJsonSchema` (off by default).
    pub fn with_legacy_parameters(self, legacy_parameters: bool) -> Self {
        Gemini {
            legacy_parameters,
            ..self
        }
    }

    /// The id to send for `call`, if any.
    fn wire_id<'a>(&self, call: &'a ToolCall) -> Option<&'a str> {
        let minted = common::own_data(NAME, call.provider_data.as_ref())
            .and_then(|data| data.get("minted_id"))
            .is_some_and(|minted| minted == &Value::Bool(true));
        (self.call_ids && !minted).then_some(call.id.as_str())
    }

    fn model_parts(&self, message: &Message) -> Vec<Value> {
        let mut parts: Vec<Value> = Vec::new();
        for part in &message.parts {
            match part {
                Part::Text(text) if !text.is_empty() => parts.push(json!({"text": text})),
                Part::ToolCall(call) => {
                    let mut function_call = json!({
                        "name": call.name,
                        "args": common::arguments_object(&call.arguments),
                    });
                    if let Some(id) = self.wire_id(call) {
                        function_call["id"] = json!(id);
                    }
                    let mut wire = json!({"functionCall": function_call});
                    if let Some(signature) = common::own_data(NAME, call.provider_data.as_ref())
                        .and_then(|data| data.get("thoughtSignature"))
                    {
                        wire["thoughtSignature"] = signature.clone();
                    }
                    parts.push(wire);
                }
                Part::Provider(_) => {
                    let Some(data) = common::own(NAME, part) else {
                        continue;
                    };
                    if let Some(verbatim) = data.get("part") {
                        parts.push(verbatim.clone());
                    } else if let Some(signature) = data.get("thoughtSignature") {
                        // The signature of the text part just before it.
                        if let Some(last) = parts.last_mut().and_then(Value::as_object_mut)
                            && last.contains_key("text")
                            && !last.contains_key("thoughtSignature")
                        {
                            last.insert("thoughtSignature".into(), signature.clone());
                        }
                    }
                }
                _ => {}
            }
        }
        parts
    }

    fn response_part(&self, call: &ToolCall, result: &ToolResult) -> Value {
        let key = if self.error_key && result.is_error {
            "error"
        } else {
            "output"
        };
        let mut response = json!({
            "name": call.name,
            "response": common::single(key, json!(result.content)),
        });
        if let Some(id) = self.wire_id(call) {
            response["id"] = json!(id);
        }
        json!({"functionResponse": response})
    }
}

fn text_parts(message: &Message) -> impl Iterator<Item = Value> + '_ {
    message.parts.iter().filter_map(|part| match part {
        Part::Text(text) if !text.is_empty() => Some(json!({"text": text})),
        _ => None,
    })
}

impl Adapter for Gemini {
    fn name(&self) -> &'static str {
        NAME
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        common::check_request(NAME, request, &NAMES)?;
        let messages = &request.messages;
        let mut contents = Vec::new();
        let mut index = 0;
        while index < messages.len() {
            let message = &messages[index];
            index += 1;
            match message.role {
                Role::System => {}
                Role::User | Role::Tool => {
                    let parts: Vec<Value> = text_parts(message).collect();
                    if !parts.is_empty() {
                        contents.push(json!({"role": "user", "parts": parts}));
                    }
                }
                Role::Assistant => {
                    let parts = self.model_parts(message);
                    match contents.last_mut() {
                        // Two assistant messages in a row (text, then calls) are one model turn:
                        // "function call turn comes immediately after a user turn or after a
                        // function response turn".
                        Some(last) if last["role"] == "model" => {
                            if let Some(existing) = last["parts"].as_array_mut() {
                                existing.extend(parts);
                            }
                        }
                        _ if parts.is_empty() => {}
                        _ => contents.push(json!({"role": "model", "parts": parts})),
                    }
                    // The tool messages answering this turn: one user content, in call order.
                    let mut results: HashMap<&str, &ToolResult> = HashMap::new();
                    let mut texts = Vec::new();
                    while index < messages.len() && messages[index].role == Role::Tool {
                        for result in messages[index].tool_results() {
                            results.insert(&result.call_id, result);
                        }
                        texts.extend(text_parts(&messages[index]));
                        index += 1;
                    }
                    let mut parts: Vec<Value> = message
                        .tool_calls()
                        .filter_map(|call| {
                            results
                                .get(call.id.as_str())
                                .map(|result| self.response_part(call, result))
                        })
                        .collect();
                    parts.extend(texts);
                    if !parts.is_empty() {
                        contents.push(json!({"role": "user", "parts": parts}));
                    }
                }
            }
        }
        if contents.is_empty() {
            return Err(EncodeError::NoMessages { provider: NAME });
        }
        // A function call turn must follow a user turn: when the transcript opens with the model
        // (its first user message was empty), an empty user turn goes first, the one empty part
        // Gemini accepted in recorded traffic.
        if contents[0]["role"] == "model" {
            contents.insert(0, json!({"role": "user", "parts": [{"text": ""}]}));
        }

        let mut body = Map::new();
        let system = common::system_texts(request);
        if !system.is_empty() {
            let parts: Vec<Value> = system.iter().map(|text| json!({"text": text})).collect();
            body.insert("systemInstruction".into(), json!({"parts": parts}));
        }
        body.insert("contents".into(), Value::Array(contents));
        if !request.tools.is_empty() {
            let mut declarations = Vec::new();
            for tool in request.tools.iter() {
                let mut declaration = json!({"name": tool.name, "description": tool.description});
                if self.legacy_parameters {
                    declaration["parameters"] = dialect::gemini_openapi(&tool.parameters)
                        .map_err(|error| EncodeError::schema(NAME, tool, error))?;
                } else {
                    declaration["parametersJsonSchema"] =
                        dialect::gemini_json_schema(&tool.parameters);
                }
                declarations.push(declaration);
            }
            body.insert(
                "tools".into(),
                json!([{"functionDeclarations": declarations}]),
            );
            let config = match &request.tool_choice {
                ToolChoice::Auto => json!({"mode": "AUTO"}),
                ToolChoice::None => json!({"mode": "NONE"}),
                ToolChoice::Required => json!({"mode": "ANY"}),
                ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
            };
            body.insert(
                "toolConfig".into(),
                json!({"functionCallingConfig": config}),
            );
        }
        if let Some(max) = request.max_tokens {
            body.insert("generationConfig".into(), json!({"maxOutputTokens": max}));
        }
        common::merge_extra(&mut body, &request.extra);
        Ok(Value::Object(body))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        let root = Node::root(NAME, body);
        let error = root.get("error");
        if error.value().is_some() {
            error.object()?;
            return Err(DecodeError::Provider {
                provider: NAME,
                kind: error.get("status").opt_str()?.map(str::to_owned),
                message: error.get("message").opt_str()?.unwrap_or("").to_owned(),
            });
        }
        // Not an object at all: say so, rather than call it a blocked prompt.
        root.object()?;
        let candidates = root.get("candidates").opt_array()?;
        let Some(candidate) = candidates.first() else {
            return Err(DecodeError::Blocked {
                provider: NAME,
                reason: root
                    .get("promptFeedback")
                    .get("blockReason")
                    .opt_str()?
                    .map(str::to_owned),
            });
        };
        // A candidate may lack content (a safety stop), but what is there must have its shape.
        candidate.object()?;
        let content = candidate.get("content");
        if content.value().is_some() {
            content.object()?;
        }
        let response_id = root.get("responseId").opt_str()?;
        let mut key = None;
        let mut parts = Vec::new();
        let mut calls = 0;
        for part in content.get("parts").opt_array()? {
            part.object()?;
            let signature = part.get("thoughtSignature").opt_str()?;
            let function_call = part.get("functionCall");
            let text = part.get("text").opt_str()?;
            let is_thought = part.get("thought").value() == Some(&Value::Bool(true));
            if function_call.value().is_some() {
                function_call.object()?;
                let mut data = Map::new();
                if let Some(signature) = signature {
                    data.insert("thoughtSignature".into(), json!(signature));
                }
                let id = match function_call.get("id").opt_str()? {
                    Some(id) if !id.is_empty() => id.to_owned(),
                    _ => {
                        data.insert("minted_id".into(), Value::Bool(true));
                        ids::mint(
                            NAME,
                            key.get_or_insert_with(|| ids::response_key(response_id, body)),
                            calls,
                        )
                    }
                };
                calls += 1;
                let args = function_call.get("args");
                let args = match args.value() {
                    None => json!({}),
                    Some(_) => Value::Object(args.object()?.clone()),
                };
                let mut call = ToolCall::new(id, function_call.get("name").str()?, args);
                if !data.is_empty() {
                    call.provider_data = Some(ProviderData::new(NAME, Value::Object(data)));
                }
                parts.push(Part::ToolCall(call));
            } else if let (Some(text), false) = (text.filter(|t| !t.is_empty()), is_thought) {
                parts.push(Part::Text(text.to_owned()));
                if let Some(signature) = signature {
                    parts.push(Part::Provider(ProviderData::new(
                        NAME,
                        json!({"thoughtSignature": signature}),
                    )));
                }
            } else if is_thought || signature.is_some() || text.is_none() {
                // Thoughts, signed empty text, and parts skyl does not read: sent back verbatim.
                parts.push(Part::Provider(ProviderData::new(
                    NAME,
                    json!({"part": part.value()}),
                )));
            }
        }
        let stop_reason = match candidate.get("finishReason").opt_str()? {
            Some("STOP") | None if calls > 0 => StopReason::ToolUse,
            Some("STOP") => StopReason::EndTurn,
            Some("MAX_TOKENS") => StopReason::MaxTokens,
            Some(
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
                | "IMAGE_SAFETY",
            ) => StopReason::ContentFilter,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        };
        let usage = root.get("usageMetadata");
        Ok(Response {
            message: Message {
                role: Role::Assistant,
                parts,
            },
            stop_reason,
            usage: Usage {
                input_tokens: usage.get("promptTokenCount").count()?,
                output_tokens: usage.get("candidatesTokenCount").count()?,
                cached_input_tokens: usage.get("cachedContentTokenCount").opt_u64()?,
                reasoning_tokens: usage.get("thoughtsTokenCount").opt_u64()?,
            },
            id: response_id.map(str::to_owned),
            model: root.get("modelVersion").opt_str()?.map(str::to_owned),
        })
    }
}
