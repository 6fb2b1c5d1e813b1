//! A Responses API response read into an answer: its error body, the output items and status,
//! the usage.

use serde_json::{Map, Value};

use super::{OpenAiResponses, PROVIDER};
use crate::message::call_arguments;
use crate::message::{Part, ProviderData, ToolCall};
use crate::provider::decode::{Answer, Decoder};
use crate::provider::encode::object;
use crate::provider::openai;
use crate::provider::openai::UsageKeys;
use crate::provider::read::Node;
use crate::provider::{DecodeError, Provider, StopReason, Usage};

impl Decoder for OpenAiResponses {
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
        let mut refused = false;
        for item in root.get("output").array()? {
            match item.get("type").str()? {
                "message" => {
                    // The item's id, for its texts to go back in it (see `assistant_items`).
                    let marker = match item.get("id").opt_str()? {
                        None => None,
                        Some(id) => {
                            let mut marker = Map::with_capacity(3);
                            marker.insert("type".into(), "message".into());
                            marker.insert("id".into(), id.into());
                            if let Some(status) = item.get("status").opt_str()? {
                                marker.insert("status".into(), status.into());
                            }
                            Some(ProviderData::new(PROVIDER, Value::Object(marker)))
                        }
                    };
                    let mut texts = 0;
                    for content in item.get("content").opt_array()? {
                        let text = match content.get("type").opt_str()? {
                            Some("refusal") => {
                                refused = true;
                                content.get("refusal").str()?
                            }
                            _ => match content.get("text").opt_str()? {
                                Some(text) => text,
                                None => continue,
                            },
                        };
                        texts += 1;
                        answer.push(match &marker {
                            Some(marker) => Part::ProviderText {
                                text: text.to_owned(),
                                provider_data: marker.clone(),
                            },
                            None => Part::Text(text.to_owned()),
                        });
                    }
                    if let (Some(marker), 0) = (marker, texts) {
                        answer.push(Part::Provider(marker));
                    }
                }
                "function_call" => {
                    let arguments = match item.get("arguments").opt_str()? {
                        Some(text) => call_arguments::from_text(text),
                        None => Value::Object(Map::new()),
                    };
                    let mut call = ToolCall::new(
                        item.get("call_id").str()?,
                        item.get("name").str()?,
                        arguments,
                    );
                    if let Some(id) = item.get("id").opt_str()? {
                        call.provider_data =
                            Some(ProviderData::new(PROVIDER, object([("id", id.into())])));
                    }
                    answer.push(Part::ToolCall(call));
                }
                // reasoning and any other item: sent back as it came.
                _ => answer.push(Part::Provider(ProviderData::new(
                    PROVIDER,
                    Value::Object(item.object()?.clone()),
                ))),
            }
        }
        Ok(if root.get("status").opt_str()? == Some("incomplete") {
            match root.get("incomplete_details").get("reason").opt_str()? {
                Some("max_output_tokens") => StopReason::MaxTokens,
                Some("content_filter") => StopReason::ContentFilter,
                Some(other) => StopReason::Other(other.to_owned()),
                None => StopReason::Other("incomplete".to_owned()),
            }
        } else if refused {
            StopReason::Refusal
        } else {
            // With calls, a tool use, in `decode::decode`.
            StopReason::EndTurn
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        openai::usage(
            root.get("usage"),
            &UsageKeys {
                input: "input_tokens",
                output: "output_tokens",
                input_details: "input_tokens_details",
                output_details: "output_tokens_details",
            },
        )
    }
}
