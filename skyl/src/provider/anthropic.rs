//! The Anthropic Messages API (`POST /v1/messages`).

use serde_json::{Map, Value, json};

use super::common::{self, NameRule};
use super::ids;
use super::read::Node;
use super::{Adapter, DecodeError, EncodeError, Request, Response, StopReason, ToolChoice, Usage};
use crate::message::{Message, Part, ProviderData, Role, ToolCall, ToolResult};

const NAME: &str = "anthropic";

/// Tool names: `^[a-zA-Z0-9_-]{1,64}$`, the stricter of the two documented limits (WIRE.md §1
/// and §2.2: the 400 `tools.7.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
/// current docs allow 128).
pub(super) const NAMES: NameRule = NameRule {
    text: "1 to 64 characters from a-z, A-Z, 0-9, `_` and `-`",
    first: common::word_char,
    allowed: common::word_char,
    max: 64,
};

/// The user turn put first when the transcript opens with the assistant (trimmed history, a
/// greeting): the API wants the first message from the user and rejects empty text.
const OPENING_TEXT: &str = "(continued)";

/// The Anthropic Messages API.
///
/// Encoding:
///
/// - [`Request::system`] and the text of every [`Role::System`] message, in that order, are
///   joined with a blank line into the top-level `system` (the Messages API has no system role;
///   a system message's position in the transcript is not kept).
/// - User and tool messages become `user` messages, assistant messages `assistant` ones;
///   consecutive messages of the same role are merged, so the results of one assistant turn all
///   arrive in one `user` message, and within a `user` message every `tool_result` block comes
///   before any text ("tool_result blocks must come FIRST in the content array").
/// - A [`ToolResult`] is a `tool_result` block with a real `is_error` boolean, sent as `true` or
///   `false` on every result, as in recorded traffic the API accepted. An empty content is left
///   out (the documented shape of an empty result) rather than sent as `""`.
/// - Empty text is dropped (the API rejects empty text blocks), and so is a message left empty.
///   Should the transcript then open with the assistant, a user message holding the text
///   `(continued)` is put first (the API answers "first message must use the \"user\" role").
/// - Call ids are made to match `^[a-zA-Z0-9_-]+$` (ids from other providers may not), the same
///   way on the call and on its result. Every call of the request gets an id no other call has
///   (Anthropic wants `tool_use` ids unique): an id that a cleaned id or an earlier turn already
///   took gets a `_2`, `_3`, ... suffix, on the call and on its result.
/// - Thinking and other blocks decoded from a response are sent back in place, verbatim.
/// - `max_tokens` is required by the API: [`Request::max_tokens`] or
///   [`DEFAULT_MAX_TOKENS`](Self::DEFAULT_MAX_TOKENS).
///
/// ```
/// use skyl::provider::{Adapter, Anthropic, Request};
///
/// let body = Anthropic::default()
///     .encode(&Request { model: "claude-sonnet-4-5".into(), messages: vec![skyl::Message::user("Hi")].into(), ..Default::default() })
///     .unwrap();
/// assert_eq!(body["max_tokens"], 4096);
/// assert_eq!(body["messages"][0]["content"][0]["text"], "Hi");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anthropic;

impl Anthropic {
    /// The `max_tokens` sent when [`Request::max_tokens`] is `None`: the API requires one. 4096 is
    /// what pydantic-ai sends in the recorded traffic, and within every current model's limit.
    pub const DEFAULT_MAX_TOKENS: u32 = 4096;
}

impl Adapter for Anthropic {
    fn name(&self) -> &'static str {
        NAME
    }

    fn encode(&self, request: &Request<'_>) -> Result<Value, EncodeError> {
        common::check_request(NAME, request, &NAMES)?;
        let mut ids = ids::AnthropicIds::default();
        let mut turns: Vec<(&str, Vec<Value>)> = Vec::new();
        for message in request.messages.iter() {
            let role = match message.role {
                Role::System => continue,
                Role::User | Role::Tool => "user",
                Role::Assistant => "assistant",
            };
            if role == "assistant" {
                ids.open_turn(message.tool_calls().map(|call| call.id.as_str()));
            }
            let blocks: Vec<Value> = message
                .parts
                .iter()
                .filter_map(|part| block(part, &ids))
                .collect();
            if blocks.is_empty() {
                continue;
            }
            match turns.last_mut() {
                Some((last, existing)) if *last == role => existing.extend(blocks),
                _ => turns.push((role, blocks)),
            }
        }
        if turns.is_empty() {
            return Err(EncodeError::NoMessages { provider: NAME });
        }
        // "messages: first message must use the \"user\" role"; text blocks must be non-empty.
        if turns[0].0 == "assistant" {
            turns.insert(
                0,
                ("user", vec![json!({"type": "text", "text": OPENING_TEXT})]),
            );
        }
        let messages: Vec<Value> = turns
            .into_iter()
            .map(|(role, blocks)| {
                let blocks = if role == "user" {
                    results_first(blocks)
                } else {
                    blocks
                };
                json!({"role": role, "content": blocks})
            })
            .collect();

        let mut body = Map::new();
        body.insert("model".into(), json!(request.model));
        body.insert(
            "max_tokens".into(),
            json!(request.max_tokens.unwrap_or(Self::DEFAULT_MAX_TOKENS)),
        );
        let system = common::system_texts(request);
        if !system.is_empty() {
            body.insert("system".into(), json!(system.join("\n\n")));
        }
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            let tools = request
                .tools
                .iter()
                .map(|tool| {
                    json!({
                        "name": tool.name,
                        "description": tool.description,
                        "input_schema": tool.parameters,
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
            body.insert(
                "tool_choice".into(),
                match &request.tool_choice {
                    ToolChoice::Auto => json!({"type": "auto"}),
                    ToolChoice::None => json!({"type": "none"}),
                    ToolChoice::Required => json!({"type": "any"}),
                    ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
                },
            );
        }
        common::merge_extra(&mut body, &request.extra);
        Ok(Value::Object(body))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        let root = Node::root(NAME, body);
        if root.get("type").value() == Some(&json!("error")) || root.get("error").value().is_some()
        {
            let error = root.get("error");
            return Err(DecodeError::Provider {
                provider: NAME,
                kind: error.get("type").opt_str()?.map(str::to_owned),
                message: error.get("message").opt_str()?.unwrap_or("").to_owned(),
            });
        }
        let mut parts = Vec::new();
        for block in root.get("content").array()? {
            match block.get("type").str()? {
                "text" => parts.push(Part::Text(block.get("text").str()?.to_owned())),
                "tool_use" => {
                    let input = block.get("input");
                    let input = match input.value() {
                        None => json!({}),
                        Some(_) => Value::Object(input.object()?.clone()),
                    };
                    parts.push(Part::ToolCall(ToolCall::new(
                        block.get("id").str()?,
                        block.get("name").str()?,
                        input,
                    )));
                }
                // thinking, redacted_thinking, server tool blocks: sent back as they came.
                _ => parts.push(Part::Provider(ProviderData::new(
                    NAME,
                    block.value().cloned().unwrap_or(Value::Null),
                ))),
            }
        }
        let has_calls = parts.iter().any(|p| matches!(p, Part::ToolCall(_)));
        let stop_reason = match root.get("stop_reason").opt_str()? {
            Some("end_turn") => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some("max_tokens") => StopReason::MaxTokens,
            Some("stop_sequence") => StopReason::StopSequence,
            Some("refusal") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_owned()),
            None if has_calls => StopReason::ToolUse,
            None => StopReason::Other(String::new()),
        };
        let usage = root.get("usage");
        let cache_read = usage.get("cache_read_input_tokens").opt_u64()?;
        let cache_write = usage.get("cache_creation_input_tokens").count()?;
        Ok(Response {
            message: Message {
                role: Role::Assistant,
                parts,
            },
            stop_reason,
            usage: Usage {
                // Saturating: a buggy or hostile body must not overflow (a panic in debug).
                input_tokens: usage
                    .get("input_tokens")
                    .count()?
                    .saturating_add(cache_read.unwrap_or(0))
                    .saturating_add(cache_write),
                output_tokens: usage.get("output_tokens").count()?,
                cached_input_tokens: cache_read,
                reasoning_tokens: None,
            },
            id: root.get("id").opt_str()?.map(str::to_owned),
            model: root.get("model").opt_str()?.map(str::to_owned),
        })
    }
}

/// The block for one part, or `None` for a part Anthropic does not get. `ids` maps the call ids
/// of the latest assistant turn to the ids sent.
fn block(part: &Part, ids: &ids::AnthropicIds) -> Option<Value> {
    match part {
        Part::Text(text) if text.is_empty() => None,
        Part::Text(text) => Some(json!({"type": "text", "text": text})),
        Part::ToolCall(call) => Some(json!({
            "type": "tool_use",
            "id": ids.get(&call.id),
            "name": call.name,
            "input": common::arguments_object(&call.arguments),
        })),
        Part::ToolResult(result) => Some(result_block(result, ids)),
        Part::Provider(_) => common::own(NAME, part).cloned(),
    }
}

fn result_block(result: &ToolResult, ids: &ids::AnthropicIds) -> Value {
    let mut block = json!({
        "type": "tool_result",
        "tool_use_id": ids.get(&result.call_id),
        "is_error": result.is_error,
    });
    if !result.content.is_empty() {
        block["content"] = json!(result.content);
    }
    block
}

/// The `tool_result` blocks first, everything else after, each in its order.
fn results_first(blocks: Vec<Value>) -> Vec<Value> {
    let (mut results, others): (Vec<Value>, Vec<Value>) = blocks
        .into_iter()
        .partition(|b| b.get("type") == Some(&json!("tool_result")));
    results.extend(others);
    results
}
