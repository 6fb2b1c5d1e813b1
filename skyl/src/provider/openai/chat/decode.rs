//! A Chat Completions response read into an answer: its error body, the first choice's message
//! and finish reason, the fields a compatible server sends back, the usage.

use serde_json::{Map, Value};

use super::{CALL_FIELDS, MESSAGE_FIELDS, OpenAiChat, PROVIDER};
use crate::message::call_arguments;
use crate::message::{Part, ToolCall};
use crate::provider::decode::{Answer, Decoder};
use crate::provider::openai;
use crate::provider::openai::UsageKeys;
use crate::provider::read::Node;
use crate::provider::{DecodeError, Provider, StopReason, Usage};

impl Decoder for OpenAiChat {
    const PROVIDER: Provider = PROVIDER;
    const ID: &'static str = "id";
    const MODEL: &'static str = "model";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        openai::error(PROVIDER, root)
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        let choices = root.get("choices");
        let Some(choice) = choices.array()?.next() else {
            return Err(choices.error("a non-empty array"));
        };
        let message = choice.get("message");
        message.object()?;
        let returned = returned_by(message, &MESSAGE_FIELDS);
        if !returned.is_empty() {
            answer.push(Part::Provider(self.keep(returned)));
        }
        let content = message.get("content");
        match content.value() {
            None => {}
            Some(Value::String(text)) if text.is_empty() => {}
            Some(Value::String(text)) => answer.push(Part::Text(text.clone())),
            Some(Value::Array(_)) => {
                for item in content.array()? {
                    if let Some(text) = item.get("text").opt_str()? {
                        answer.push(Part::Text(text.to_owned()));
                    }
                }
            }
            Some(_) => return Err(content.error("a string, an array or null")),
        }
        // Snowflake Cortex sends `"refusal": ""` on every answer, calls included.
        let refusal = message
            .get("refusal")
            .opt_str()?
            .filter(|refusal| !refusal.is_empty());
        if let Some(refusal) = refusal {
            answer.push(Part::Text(refusal.to_owned()));
        }
        for call in message.get("tool_calls").opt_array()? {
            let id = match call.get("id").opt_str()? {
                Some(id) if !id.is_empty() => id.to_owned(),
                _ => answer.mint_id("call"),
            };
            let function = call.get("function");
            let arguments = function.get("arguments");
            let arguments = match arguments.value() {
                None => Value::Object(Map::new()),
                Some(Value::String(text)) => call_arguments::from_text(text),
                // Some compatible servers send the object itself.
                Some(Value::Object(object)) => Value::Object(object.clone()),
                Some(_) => return Err(arguments.error("a string")),
            };
            let mut tool_call = ToolCall::new(id, function.get("name").str()?, arguments);
            let returned = returned_by(call, &CALL_FIELDS);
            if !returned.is_empty() {
                tool_call.provider_data = Some(self.keep(returned));
            }
            answer.push(Part::ToolCall(tool_call));
        }
        Ok(match choice.get("finish_reason").opt_str()? {
            _ if refusal.is_some() => StopReason::Refusal,
            // With calls, "stop", "" and nothing all become a tool use, in `decode::decode`.
            Some("stop") => StopReason::EndTurn,
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::ContentFilter,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        openai::usage(
            root.get("usage"),
            &UsageKeys {
                input: "prompt_tokens",
                output: "completion_tokens",
                input_details: "prompt_tokens_details",
                output_details: "completion_tokens_details",
            },
        )
    }
}

/// The fields of `names` that `node` (a message or a call) holds and that are worth keeping.
fn returned_by(node: Node<'_>, names: &[&str]) -> Map<String, Value> {
    names
        .iter()
        .filter_map(|&key| {
            let value = node.get(key).value().filter(|value| kept(value))?;
            Some((key.to_owned(), value.clone()))
        })
        .collect()
}

/// Whether a field a server returned for itself is worth keeping: anything but `null` and an
/// empty array or object. An empty string is kept, as DeepSeek wants its `reasoning_content` back
/// on every turn with calls, even when it is empty.
fn kept(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        _ => true,
    }
}
