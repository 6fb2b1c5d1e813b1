//! Anthropic Messages streams: `message_start`, then per content block `content_block_start`,
//! its deltas and `content_block_stop`, then `message_delta` (stop reason, final usage) and
//! `message_stop`. `ping` may come anywhere, and `error` ends the stream with the API's error.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::provider::stream::decoder::{
    Fault, Out, Steps, StreamDecoder, Streaming, decoded_call, parse, provider_error,
};
use crate::provider::{Adapter, Anthropic, DecodeError, Response};

impl Streaming for Anthropic {
    fn stream_decoder(&self) -> StreamDecoder {
        StreamDecoder::new(
            self.provider(),
            AnthropicSteps {
                adapter: *self,
                message: Map::new(),
                blocks: Vec::new(),
            },
        )
    }
}

struct AnthropicSteps {
    adapter: Anthropic,
    /// The message of `message_start`, with what `message_delta` changed.
    message: Map<String, Value>,
    blocks: Vec<Block>,
}

/// A content block as it grows.
struct Block {
    index: u64,
    /// The block of `content_block_start`.
    value: Map<String, Value>,
    /// The slot of a `tool_use` block's call.
    call: Option<usize>,
    text: String,
    thinking: String,
    signature: String,
    /// The `partial_json` pieces of the block's `input`, joined.
    json: String,
    open: bool,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    content_block: Option<Map<String, Value>>,
    message: Option<Map<String, Value>>,
    error: Option<Value>,
}

/// `message_delta`, read again whole: its delta's fields (stop reason, stop sequence, container)
/// all go into the message. It comes once a stream.
#[derive(Deserialize)]
struct MessageDelta {
    delta: Option<Map<String, Value>>,
    usage: Option<Map<String, Value>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    signature: Option<Cow<'a, str>>,
    #[serde(borrow)]
    partial_json: Option<Cow<'a, str>>,
    citation: Option<Value>,
}

impl Steps for AnthropicSteps {
    fn read(&mut self, event: &str, data: &str, out: &mut Out<'_>) -> Result<bool, Fault> {
        let parsed: Event<'_> = parse(data)?;
        let kind = parsed.kind.as_deref().unwrap_or(event);
        match kind {
            "message_start" => {
                self.message = parsed.message.unwrap_or_default();
                // The blocks come as events; a message that opens with some would repeat them.
                self.message.remove("content");
            }
            "content_block_start" => {
                self.start_block(parsed.index, parsed.content_block, out)?;
            }
            "content_block_delta" => {
                let index = required_index(parsed.index)?;
                let Some(delta) = parsed.delta else {
                    return Err(missing("delta", "an object"));
                };
                let block = self.open_block(index, "a content_block_delta")?;
                match delta.kind.as_deref() {
                    Some("text_delta") => {
                        let text = delta.text.unwrap_or_default();
                        block.text.push_str(&text);
                        out.text(&text);
                    }
                    Some("thinking_delta") => {
                        let thinking = delta.thinking.unwrap_or_default();
                        block.thinking.push_str(&thinking);
                        out.reasoning(&thinking);
                    }
                    Some("signature_delta") => {
                        block
                            .signature
                            .push_str(&delta.signature.unwrap_or_default());
                    }
                    Some("input_json_delta") => {
                        let piece = delta.partial_json.unwrap_or_default();
                        block.json.push_str(&piece);
                        if let Some(slot) = block.call {
                            out.arguments(slot, &piece);
                        }
                    }
                    Some("citations_delta") => {
                        if let Some(citation) = delta.citation {
                            match block
                                .value
                                .entry("citations")
                                .or_insert_with(|| Value::Array(Vec::new()))
                            {
                                Value::Array(citations) => citations.push(citation),
                                other => *other = Value::Array(vec![citation]),
                            }
                        }
                    }
                    // Kinds of delta added later: the block keeps what its start said.
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = required_index(parsed.index)?;
                let adapter = self.adapter;
                let block = self.open_block(index, "a content_block_stop")?;
                block.close()?;
                if let Some(slot) = block.call {
                    let body = json!({"content": [Value::Object(block.value.clone())]});
                    out.finish_call(slot, decoded_call(&adapter, &body)?)?;
                }
            }
            "message_delta" => {
                let MessageDelta { delta, usage } = parse(data)?;
                if let Some(delta) = delta {
                    self.message.extend(delta);
                }
                if let Some(usage) = usage {
                    // message_delta's counts are cumulative: they replace message_start's.
                    match self
                        .message
                        .entry("usage")
                        .or_insert_with(|| Value::Object(Map::new()))
                    {
                        Value::Object(counts) => counts.extend(usage),
                        other => *other = Value::Object(usage),
                    }
                }
            }
            "message_stop" => return Ok(true),
            "error" => {
                let error = parsed.error.unwrap_or(Value::Null);
                return Err(provider_error(
                    &self.adapter,
                    &json!({"type": "error", "error": error}),
                ));
            }
            // ping, and event kinds added later.
            _ => {}
        }
        Ok(false)
    }

    fn body(&mut self) -> Result<Value, Fault> {
        let mut blocks = std::mem::take(&mut self.blocks);
        blocks.sort_by_key(|block| block.index);
        let mut content = Vec::with_capacity(blocks.len());
        for mut block in blocks {
            if block.open {
                block.close()?;
            }
            content.push(Value::Object(block.value));
        }
        let mut message = std::mem::take(&mut self.message);
        message.insert("content".into(), Value::Array(content));
        Ok(Value::Object(message))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        self.adapter.decode(body)
    }

    fn end(&self) -> &'static str {
        "a message_stop event"
    }
}

impl AnthropicSteps {
    fn start_block(
        &mut self,
        index: Option<u64>,
        value: Option<Map<String, Value>>,
        out: &mut Out<'_>,
    ) -> Result<(), Fault> {
        let index = required_index(index)?;
        if self.blocks.iter().any(|block| block.index == index) {
            return Err(Fault::order(
                format!("block {index}"),
                "a second content_block_start for it",
            ));
        }
        let Some(value) = value else {
            return Err(missing("content_block", "an object"));
        };
        let mut block = Block {
            index,
            value,
            call: None,
            text: String::new(),
            thinking: String::new(),
            signature: String::new(),
            json: String::new(),
            open: true,
        };
        match block.value.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let id = block_str(&block.value, "id")?;
                let name = block_str(&block.value, "name")?;
                let slot = out.new_call();
                out.start_call(slot, id, name);
                // The input arrives as input_json_delta pieces after an empty `{}`; a block that
                // opens with its whole input tells it as the call's one piece.
                if let Some(Value::Object(input)) = block.value.get("input")
                    && !input.is_empty()
                {
                    out.arguments(slot, &Value::Object(input.clone()).to_string());
                }
                block.call = Some(slot);
            }
            // A block may open with some of its text; it is part of what the stream tells.
            Some("text") => {
                out.text(
                    block
                        .value
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                );
            }
            Some("thinking") => out.reasoning(
                block
                    .value
                    .get("thinking")
                    .and_then(Value::as_str)
                    .unwrap_or(""),
            ),
            _ => {}
        }
        self.blocks.push(block);
        Ok(())
    }

    /// The open block `index`, usually the last one started.
    fn open_block(&mut self, index: u64, event: &'static str) -> Result<&mut Block, Fault> {
        match self
            .blocks
            .iter_mut()
            .rev()
            .find(|block| block.index == index)
        {
            Some(block) if block.open => Ok(block),
            Some(_) => Err(Fault::order(
                format!("block {index}"),
                match event {
                    "a content_block_stop" => "a second content_block_stop for it",
                    _ => "a delta after its content_block_stop",
                },
            )),
            None => Err(Fault::order(
                format!("block {index}"),
                "an event for a block that never started",
            )),
        }
    }
}

impl Block {
    /// Puts what the deltas said into the block, as the unstreamed answer has it.
    fn close(&mut self) -> Result<(), Fault> {
        self.open = false;
        grow(&mut self.value, "text", &mut self.text);
        grow(&mut self.value, "thinking", &mut self.thinking);
        grow(&mut self.value, "signature", &mut self.signature);
        if !self.json.trim().is_empty() {
            let input: Value = serde_json::from_str(&self.json).map_err(|error| Fault::Shape {
                place: format!("the input of block {} ({error})", self.index),
                expected: "the JSON of its input_json_delta pieces",
                found: "malformed JSON",
            })?;
            self.value.insert("input".into(), input);
            self.json.clear();
        }
        Ok(())
    }
}

/// Appends `grown` to the string `key` of `block` (or sets it), when the deltas said anything.
fn grow(block: &mut Map<String, Value>, key: &str, grown: &mut String) {
    if grown.is_empty() {
        return;
    }
    let grown = std::mem::take(grown);
    match block.get_mut(key) {
        Some(Value::String(text)) if !text.is_empty() => text.push_str(&grown),
        _ => {
            block.insert(key.to_owned(), Value::String(grown));
        }
    }
}

fn required_index(index: Option<u64>) -> Result<u64, Fault> {
    index.ok_or_else(|| missing("index", "a block index"))
}

fn missing(place: &str, expected: &'static str) -> Fault {
    Fault::Shape {
        place: place.to_owned(),
        expected,
        found: "nothing",
    }
}

fn block_str<'a>(block: &'a Map<String, Value>, key: &str) -> Result<&'a str, Fault> {
    block
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| missing(&format!("content_block.{key}"), "a string"))
}
