//! A Messages API response read into an answer: its error body, its content blocks and stop
//! reason, its usage.

use serde_json::Value;

use super::{Anthropic, PROVIDER};
use crate::message::{Part, ProviderData, ToolCall};
use crate::provider::decode::{Answer, Decoder, error_object};
use crate::provider::read::Node;
use crate::provider::{DecodeError, Provider, StopReason, Usage};

impl Decoder for Anthropic {
    const PROVIDER: Provider = PROVIDER;
    const ID: &'static str = "id";
    const MODEL: &'static str = "model";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        let is_error =
            matches!(root.get("type").value(), Some(Value::String(kind)) if kind == "error");
        let error = root.get("error");
        if !is_error && error.value().is_none() {
            return Ok(None);
        }
        Ok(Some(error_object(PROVIDER, error, "type")?))
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        for block in root.get("content").array()? {
            answer.push(match block.get("type").str()? {
                "text" => Part::Text(block.get("text").str()?.to_owned()),
                "tool_use" => {
                    let input = block
                        .get("input")
                        .opt_object()?
                        .cloned()
                        .unwrap_or_default();
                    Part::ToolCall(ToolCall::new(
                        block.get("id").str()?,
                        block.get("name").str()?,
                        Value::Object(input),
                    ))
                }
                // thinking, redacted_thinking, server tool blocks: sent back as they came.
                _ => Part::Provider(ProviderData::new(
                    PROVIDER,
                    Value::Object(block.object()?.clone()),
                )),
            });
        }
        Ok(match root.get("stop_reason").opt_str()? {
            Some("end_turn") => StopReason::EndTurn,
            Some("tool_use") => StopReason::ToolUse,
            Some("max_tokens") => StopReason::MaxTokens,
            Some("stop_sequence") => StopReason::StopSequence,
            Some("refusal") => StopReason::Refusal,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        let usage = root.get("usage");
        let cache_read = usage.get("cache_read_input_tokens").opt_u64()?;
        let cache_write = usage.get("cache_creation_input_tokens").opt_u64()?;
        Ok(Usage {
            // Saturating: a buggy or hostile body must not overflow (a panic in debug).
            input_tokens: usage
                .get("input_tokens")
                .count()?
                .saturating_add(cache_read.unwrap_or(0))
                .saturating_add(cache_write.unwrap_or(0)),
            output_tokens: usage.get("output_tokens").count()?,
            cached_input_tokens: cache_read,
            cache_write_tokens: cache_write,
            reasoning_tokens: None,
            unreported: usage.value().is_none(),
        })
    }
}
