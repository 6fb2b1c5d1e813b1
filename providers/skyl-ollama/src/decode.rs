//! The response body's steps: `{"model", "message": {"content", "thinking", "tool_calls"},
//! "done_reason", "prompt_eval_count", "eval_count"}`, or `{"error": "..."}`.

use serde_json::{Map, Value};
use skyl::provider::{
    DecodeError, Provider, StopReason, Usage,
    author::{Answer, Decoder, Node},
};
use skyl::{Part, ToolCall, transcript::ProviderData};

use crate::encode::THINKING;
use crate::{Ollama, PROVIDER};

impl Decoder for Ollama {
    const PROVIDER: Provider = PROVIDER;
    // Ollama gives an answer no id.
    const ID: &'static str = "id";
    const MODEL: &'static str = "model";

    fn error(&self, root: Node<'_>) -> Result<Option<DecodeError>, DecodeError> {
        Ok(root
            .get("error")
            .opt_str()?
            .map(|message| DecodeError::Provider {
                provider: PROVIDER,
                kind: None,
                message: message.to_owned(),
            }))
    }

    fn answer<'a>(
        &self,
        root: Node<'a>,
        answer: &mut Answer<'a>,
    ) -> Result<StopReason, DecodeError> {
        let message = root.get("message");
        message.object()?;
        if let Some(thinking) = message.get(THINKING).opt_str()?.filter(|t| !t.is_empty()) {
            let mut data = Map::new();
            data.insert(THINKING.into(), thinking.into());
            answer.push(Part::Provider(ProviderData::new(
                PROVIDER,
                Value::Object(data),
            )));
        }
        if let Some(text) = message.get("content").opt_str()?.filter(|t| !t.is_empty()) {
            answer.push(Part::Text(text.to_owned()));
        }
        for call in message.get("tool_calls").opt_array()? {
            let function = call.get("function");
            let name = function.get("name").str()?;
            let arguments = match function.get("arguments").value() {
                Some(arguments @ Value::Object(_)) => arguments.clone(),
                None => Value::Object(Map::new()),
                Some(_) => return Err(function.get("arguments").error("an object")),
            };
            // Newer servers may give a call an id; none is the rule.
            let id = match call.get("id").opt_str()?.filter(|id| !id.is_empty()) {
                Some(id) => id.to_owned(),
                None => answer.mint_id("call"),
            };
            answer.push(Part::ToolCall(ToolCall::new(id, name, arguments)));
        }
        Ok(match root.get("done_reason").opt_str()? {
            Some("stop") => StopReason::EndTurn,
            Some("length") => StopReason::MaxTokens,
            other => StopReason::Other(other.unwrap_or_default().to_owned()),
        })
    }

    fn usage(&self, root: Node<'_>) -> Result<Usage, DecodeError> {
        Ok(Usage::new(
            root.get("prompt_eval_count").count()?,
            root.get("eval_count").count()?,
        ))
    }
}
