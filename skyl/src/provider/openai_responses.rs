//! The OpenAI Responses API (`POST /v1/responses`).

use serde_json::{Map, Value, json};

use super::common;
use super::openai_chat::{NAMES, provider_error, strict_parameters, usage_counts};
use super::read::Node;
use super::{Adapter, DecodeError, EncodeError, Request, Response, StopReason, ToolChoice};
use crate::message::{Message, Part, ProviderData, Role, ToolCall};

const NAME: &str = "openai_responses";

/// The OpenAI Responses API.
///
/// Encoding:
///
/// - [`Request::system`] is the top-level `instructions`; [`Role::System`] messages of the
///   transcript stay in place as `role: "system"` input messages.
/// - A call is a `function_call` item (arguments as a JSON string) and a
///   [`ToolResult`](crate::ToolResult) a `function_call_output` item. The error flag is lossy
///   exactly as on [`OpenAiChat`](super::OpenAiChat): `"error: "` prefixed to the output, the flag
///   lost when the content is empty, and never an `is_error` key.
/// - A call decoded from this API keeps its `fc_` item id and is sent back with it, after the
///   `reasoning` items that came before it in the same answer, verbatim. Reasoning items of an
///   answer without calls are not sent back: the API needs them only with tool calls ("any
///   reasoning items returned in model responses with tool calls must also be passed back"), and
///   a reasoning item without the item that followed it is a 400.
/// - Tools are flat `{"type": "function", "name", ...}` and always carry `strict` explicitly
///   (the API would otherwise try to make them strict on its own): `false` by default, `true`
///   with [`with_strict(true)`](Self::with_strict), which lowers the schema with
///   [`dialect::openai_strict`](super::dialect::openai_strict).
/// - [`Request::max_tokens`] is `max_output_tokens`.
///
/// To receive encrypted reasoning with `store: false`, add `"include":
/// ["reasoning.encrypted_content"]` to [`Request::extra`].
///
/// ```
/// use skyl::provider::{Adapter, OpenAiResponses, Request};
///
/// let body = OpenAiResponses::default()
///     .encode(&Request { model: "gpt-5".into(), system: Some("Be terse.".into()), messages: vec![skyl::Message::user("Hi")].into(), ..Default::default() })
///     .unwrap();
/// assert_eq!(body["instructions"], "Be terse.");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenAiResponses {
    strict: bool,
}

impl OpenAiResponses {
    /// Turns OpenAI strict mode on or off for every tool (off by default; `strict` is always sent).
    pub fn with_strict(self, strict: bool) -> Self {
        OpenAiResponses { strict }
    }
}

impl Adapter for OpenAiResponses {
    fn name(&self) -> &'static str {
        NAME
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        common::check_request(NAME, request, &NAMES)?;
        let mut input = Vec::new();
        let mut pending: Vec<Value> = Vec::new();
        for message in request.messages.iter() {
            if message.role != Role::Tool && !pending.is_empty() {
                input.push(user_item(std::mem::take(&mut pending)));
            }
            match message.role {
                Role::System | Role::User => {
                    let texts = input_texts(message);
                    if !texts.is_empty() {
                        let role = message.role.to_string();
                        let mut item = user_item(texts);
                        item["role"] = json!(role);
                        input.push(item);
                    }
                }
                Role::Assistant => assistant_items(message, &mut input),
                Role::Tool => {
                    for part in &message.parts {
                        match part {
                            Part::ToolResult(result) => input.push(json!({
                                "type": "function_call_output",
                                "call_id": result.call_id,
                                "output": common::openai_content(result),
                            })),
                            Part::Text(text) if !text.is_empty() => {
                                pending.push(json!({"type": "input_text", "text": text}));
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        if !pending.is_empty() {
            input.push(user_item(pending));
        }
        if input.is_empty() {
            return Err(EncodeError::NoMessages { provider: NAME });
        }

        let mut body = Map::new();
        body.insert("model".into(), json!(request.model));
        if let Some(system) = request.system.as_ref().filter(|s| !s.is_empty()) {
            body.insert("instructions".into(), json!(system));
        }
        body.insert("input".into(), Value::Array(input));
        if !request.tools.is_empty() {
            let mut tools = Vec::new();
            for tool in request.tools.iter() {
                let parameters = if self.strict {
                    strict_parameters(NAME, tool)?
                } else {
                    tool.parameters.clone()
                };
                tools.push(json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": parameters,
                    "strict": self.strict,
                }));
            }
            body.insert("tools".into(), Value::Array(tools));
            body.insert(
                "tool_choice".into(),
                match &request.tool_choice {
                    ToolChoice::Auto => json!("auto"),
                    ToolChoice::None => json!("none"),
                    ToolChoice::Required => json!("required"),
                    ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
                },
            );
        }
        if let Some(max) = request.max_tokens {
            body.insert("max_output_tokens".into(), json!(max));
        }
        common::merge_extra(&mut body, &request.extra);
        Ok(Value::Object(body))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        let root = Node::root(NAME, body);
        if let Some(error) = provider_error(NAME, &root)? {
            return Err(error);
        }
        let mut parts = Vec::new();
        let mut refused = false;
        for item in root.get("output").array()? {
            match item.get("type").str()? {
                "message" => {
                    // The item's id goes back only beside the reasoning item it follows (see
                    // `assistant_items`); its text is ordinary text parts.
                    if let Some(id) = item.get("id").opt_str()? {
                        let mut marker = json!({"type": "message", "id": id});
                        if let Some(status) = item.get("status").opt_str()? {
                            marker["status"] = json!(status);
                        }
                        parts.push(Part::Provider(ProviderData::new(NAME, marker)));
                    }
                    for content in item.get("content").opt_array()? {
                        match content.get("type").opt_str()? {
                            Some("refusal") => {
                                refused = true;
                                parts.push(Part::Text(content.get("refusal").str()?.to_owned()));
                            }
                            _ => {
                                if let Some(text) = content.get("text").opt_str()? {
                                    parts.push(Part::Text(text.to_owned()));
                                }
                            }
                        }
                    }
                }
                "function_call" => {
                    let arguments = match item.get("arguments").opt_str()? {
                        Some(text) => common::parse_arguments_text(text),
                        None => json!({}),
                    };
                    let mut call = ToolCall::new(
                        item.get("call_id").str()?,
                        item.get("name").str()?,
                        arguments,
                    );
                    if let Some(id) = item.get("id").opt_str()? {
                        call.provider_data = Some(ProviderData::new(NAME, json!({"id": id})));
                    }
                    parts.push(Part::ToolCall(call));
                }
                // reasoning and any other item: sent back as it came.
                _ => parts.push(Part::Provider(ProviderData::new(
                    NAME,
                    item.value().cloned().unwrap_or(Value::Null),
                ))),
            }
        }
        let has_calls = parts.iter().any(|p| matches!(p, Part::ToolCall(_)));
        let stop_reason = if root.get("status").opt_str()? == Some("incomplete") {
            match root.get("incomplete_details").get("reason").opt_str()? {
                Some("max_output_tokens") => StopReason::MaxTokens,
                Some("content_filter") => StopReason::ContentFilter,
                Some(other) => StopReason::Other(other.to_owned()),
                None => StopReason::Other("incomplete".to_owned()),
            }
        } else if refused {
            StopReason::Refusal
        } else if has_calls {
            StopReason::ToolUse
        } else {
            StopReason::EndTurn
        };
        Ok(Response {
            message: Message {
                role: Role::Assistant,
                parts,
            },
            stop_reason,
            usage: usage_counts(&root.get("usage"), "input", "output")?,
            id: root.get("id").opt_str()?.map(str::to_owned),
            model: root.get("model").opt_str()?.map(str::to_owned),
        })
    }
}

fn input_texts(message: &Message) -> Vec<Value> {
    message
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) if !text.is_empty() => {
                Some(json!({"type": "input_text", "text": text}))
            }
            _ => None,
        })
        .collect()
}

/// A user input message: one text as a string, several as `input_text` parts.
fn user_item(mut texts: Vec<Value>) -> Value {
    let content = if texts.len() == 1 {
        texts.remove(0)["text"].take()
    } else {
        Value::Array(texts)
    };
    json!({"role": "user", "content": content})
}

/// The items of an assistant turn, in the order the model produced them.
///
/// A reasoning item must be followed by the item that followed it in the answer, with that item's
/// id (`Item 'rs_…' of type 'reasoning' was provided without its required following item`); a
/// message item with an id must be preceded by its reasoning item (`Item 'msg_…' of type
/// 'message' was provided without its required 'reasoning' item`). So a message item keeps its id
/// exactly when the reasoning item before it is sent back, and is plain assistant text otherwise.
fn assistant_items(message: &Message, input: &mut Vec<Value>) {
    let parts = &message.parts;
    let mut reasoning_sent = false;
    let mut position = 0;
    while position < parts.len() {
        let part = &parts[position];
        position += 1;
        match part {
            Part::Text(text) if !text.is_empty() => {
                input.push(json!({"role": "assistant", "content": text}));
            }
            Part::ToolCall(call) => {
                let mut item = json!({
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": common::arguments_text(&call.arguments),
                });
                if let Some(id) = common::own_data(NAME, call.provider_data.as_ref())
                    .and_then(|data| data.get("id"))
                {
                    item["id"] = id.clone();
                }
                input.push(item);
                reasoning_sent = false;
            }
            Part::Provider(_) => {
                let Some(data) = common::own(NAME, part) else {
                    continue;
                };
                match data.get("type").and_then(Value::as_str) {
                    Some("reasoning") => {
                        // Needed only with tool calls, and a 400 without its following item.
                        reasoning_sent = parts[position..]
                            .iter()
                            .any(|p| matches!(p, Part::ToolCall(_)));
                        if reasoning_sent {
                            input.push(data.clone());
                        }
                    }
                    Some("message") => {
                        let texts: Vec<&str> = parts[position..]
                            .iter()
                            .map_while(|p| match p {
                                Part::Text(text) => Some(text.as_str()),
                                _ => None,
                            })
                            .collect();
                        if reasoning_sent && texts.iter().any(|text| !text.is_empty()) {
                            let mut item = data.clone();
                            item["role"] = json!("assistant");
                            item["content"] = texts
                                .iter()
                                .filter(|text| !text.is_empty())
                                .map(|text| json!({"type": "output_text", "text": text, "annotations": []}))
                                .collect();
                            input.push(item);
                            position += texts.len();
                        }
                        reasoning_sent = false;
                    }
                    _ => input.push(data.clone()),
                }
            }
            _ => {}
        }
    }
}
