//! A `generateContent` response read into an answer: its error body, the first candidate's parts
//! and finish reason, its usage.

use serde_json::{Map, Value};

use super::{Gemini, PROVIDER, minted_mark};
use crate::message::{Part, ProviderData, ToolCall};
use crate::provider::decode::{Answer, Decoder, error_object};
use crate::provider::encode::object;
use crate::provider::read::Node;
use crate::provider::{DecodeError, Provider, StopReason, Usage};

impl Decoder for Gemini {
    const PROVIDER: Provider = PROVIDER;
    const ID: &'static str = "responseId";
    const MODEL: &'static str = "modelVersion";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        let error = root.get("error");
        if error.value().is_none() {
            return Ok(None);
        }
        error.object()?;
        Ok(Some(error_object(PROVIDER, error, "status")?))
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        // Not an object at all: say so, rather than call it a blocked prompt.
        root.object()?;
        let Some(candidate) = root.get("candidates").opt_array()?.next() else {
            return Err(DecodeError::Blocked {
                provider: PROVIDER,
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
        content.opt_object()?;
        for part in content.get("parts").opt_array()? {
            part.object()?;
            let signature = part.get("thoughtSignature").opt_str()?;
            let function_call = part.get("functionCall");
            let text = part.get("text").opt_str()?;
            let is_thought = part.get("thought").value() == Some(&Value::Bool(true));
            if function_call.value().is_some() {
                function_call.object()?;
                let id = function_call
                    .get("id")
                    .opt_str()?
                    .filter(|id| !id.is_empty());
                let data = match (signature, id) {
                    // How Gemini usually calls: no id, no signature; the mark alone.
                    (None, None) => minted_mark(),
                    (signature, id) => {
                        let mut data = Map::new();
                        if let Some(signature) = signature {
                            data.insert("thoughtSignature".into(), signature.into());
                        }
                        if id.is_none() {
                            data.insert("minted_id".into(), true.into());
                        }
                        data
                    }
                };
                let id = match id {
                    Some(id) => id.to_owned(),
                    None => answer.mint_id("gemini"),
                };
                let args = function_call.get("args").opt_object()?;
                let mut call = ToolCall::new(
                    id,
                    function_call.get("name").str()?,
                    Value::Object(args.cloned().unwrap_or_default()),
                );
                if !data.is_empty() {
                    call.provider_data = Some(ProviderData::new(PROVIDER, Value::Object(data)));
                }
                answer.push(Part::ToolCall(call));
            } else if let (Some(text), false) = (text.filter(|t| !t.is_empty()), is_thought) {
                answer.push(match signature {
                    Some(signature) => Part::ProviderText {
                        text: text.to_owned(),
                        provider_data: ProviderData::new(
                            PROVIDER,
                            object([("thoughtSignature", signature.into())]),
                        ),
                    },
                    None => Part::Text(text.to_owned()),
                });
            } else if is_thought || signature.is_some() || text.is_none() {
                // Thoughts, signed empty text, and parts skyl does not read: sent back verbatim.
                answer.push(Part::Provider(ProviderData::new(
                    PROVIDER,
                    object([("part", Value::Object(part.object()?.clone()))]),
                )));
            }
        }
        Ok(match candidate.get("finishReason").opt_str()? {
            Some("STOP") => StopReason::EndTurn,
            Some("MAX_TOKENS") => StopReason::MaxTokens,
            Some(
                "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII"
                | "IMAGE_SAFETY",
            ) => StopReason::ContentFilter,
            Some(other) => StopReason::Other(other.to_owned()),
            None => StopReason::Other(String::new()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        let usage = root.get("usageMetadata");
        let thoughts = usage.get("thoughtsTokenCount").opt_u64()?;
        Ok(Usage {
            input_tokens: usage.get("promptTokenCount").count()?,
            // Gemini counts thoughts apart from the answer and bills them as output, as the
            // other providers count reasoning inside their output.
            output_tokens: usage
                .get("candidatesTokenCount")
                .count()?
                .saturating_add(thoughts.unwrap_or(0)),
            cached_input_tokens: usage.get("cachedContentTokenCount").opt_u64()?,
            cache_write_tokens: None,
            reasoning_tokens: thoughts,
            unreported: usage.value().is_none(),
        })
    }
}
