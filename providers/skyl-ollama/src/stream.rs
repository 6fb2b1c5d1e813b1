//! A streamed answer: one JSON object a line, each with the next piece of the message
//! (`message.content`, `message.thinking`, whole `message.tool_calls`), the last with
//! `"done": true`, the reason and the counts.
//!
//! The steps keep what the lines said and, at the end, give the body Ollama would have sent
//! unstreamed; [`Ollama`]'s own decode reads it, so the answer is the same either way.

use serde::Deserialize;
use serde_json::{Map, Value, json};
use skyl::provider::{
    Adapter, DecodeError, Response,
    stream::{StreamDecoder, StreamFault, StreamOut, StreamSteps, Streaming, parse},
};

use crate::{Ollama, PROVIDER};

impl Streaming for Ollama {
    fn stream_decoder(&self) -> StreamDecoder {
        StreamDecoder::new(PROVIDER, Steps::default())
    }
}

/// One line of the stream, the fields the steps read.
#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    message: Option<Piece>,
    #[serde(default)]
    done: bool,
    #[serde(default)]
    done_reason: Option<String>,
    #[serde(default)]
    prompt_eval_count: Option<u64>,
    #[serde(default)]
    eval_count: Option<u64>,
}

/// The piece of the message one line carries.
#[derive(Deserialize)]
struct Piece {
    #[serde(default)]
    content: String,
    #[serde(default)]
    thinking: String,
    #[serde(default)]
    tool_calls: Vec<Value>,
}

/// What the lines have said so far.
#[derive(Default)]
struct Steps {
    model: Option<String>,
    content: String,
    thinking: String,
    calls: Vec<Value>,
    done: Option<Line>,
}

impl StreamSteps for Steps {
    fn read(
        &mut self,
        _event: &str,
        data: &str,
        out: &mut StreamOut<'_>,
    ) -> Result<bool, StreamFault> {
        let line: Line = parse(data)?;
        if let Some(message) = line.error {
            return Err(StreamFault::Provider {
                kind: None,
                message,
            });
        }
        if self.done.is_some() {
            return Err(StreamFault::order(
                "a line".to_owned(),
                "a line after the last",
            ));
        }
        if line.model.is_some() {
            self.model.clone_from(&line.model);
        }
        if let Some(piece) = &line.message {
            out.reasoning(&piece.thinking);
            self.thinking.push_str(&piece.thinking);
            out.text(&piece.content);
            self.content.push_str(&piece.content);
            // A call comes whole in one line, without an id: the final answer mints it, and
            // the decoder tells the call then.
            for call in &piece.tool_calls {
                out.new_call();
                self.calls.push(call.clone());
            }
        }
        if line.done {
            self.done = Some(line);
        }
        Ok(self.done.is_some())
    }

    fn body(&mut self) -> Result<Value, StreamFault> {
        let done = self.done.take().unwrap_or(Line {
            error: None,
            model: None,
            message: None,
            done: true,
            done_reason: None,
            prompt_eval_count: None,
            eval_count: None,
        });
        let mut message = Map::new();
        message.insert("role".into(), "assistant".into());
        message.insert("content".into(), std::mem::take(&mut self.content).into());
        if !self.thinking.is_empty() {
            message.insert("thinking".into(), std::mem::take(&mut self.thinking).into());
        }
        if !self.calls.is_empty() {
            message.insert(
                "tool_calls".into(),
                Value::Array(std::mem::take(&mut self.calls)),
            );
        }
        Ok(json!({
            "model": self.model.take(),
            "message": message,
            "done": true,
            "done_reason": done.done_reason,
            "prompt_eval_count": done.prompt_eval_count,
            "eval_count": done.eval_count,
        }))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        Ollama.decode(body)
    }

    fn end(&self) -> &'static str {
        "a last line with \"done\": true"
    }
}
