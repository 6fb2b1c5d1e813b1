//! OpenAI Chat Completions streams (`"stream": true`), and every OpenAI-compatible server's:
//! `data:` chunks whose `choices[].delta` carry pieces of the message, then `data: [DONE]`.
//!
//! A tool call's `id` and `name` come in its first fragment and later fragments carry only its
//! `index` and a piece of `arguments`; parallel calls have different indexes. With
//! `stream_options.include_usage` the last chunk before `[DONE]` has `"choices": []` and the
//! usage. Compatible servers add their own: a `reasoning` or `reasoning_content` delta (Groq,
//! DeepSeek, vLLM, OpenRouter), told as reasoning and joined into the final message (where the
//! adapter keeps it to send back, see [`OpenAiChat::with_server`]), an `error` object inside an
//! ordinary chunk (OpenRouter) or an `event: error` (Groq), calls without ids (Gemini's OpenAI
//! endpoint), and OpenRouter's `reasoning_details`, whose pieces are joined by `index` into the
//! details an unstreamed answer has.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value, json};

use crate::provider::stream::decoder::{
    Fault, Out, Steps, StreamDecoder, Streaming, parse, provider_error,
};
use crate::provider::{Adapter, DecodeError, OpenAiChat, Response};

impl Streaming for OpenAiChat {
    fn stream_decoder(&self) -> StreamDecoder {
        StreamDecoder::new(
            self.provider(),
            ChatSteps {
                adapter: *self,
                id: None,
                model: None,
                content: None,
                refusal: None,
                reasoning: None,
                reasoning_content: None,
                reasoning_details: Vec::new(),
                message_extra: None,
                calls: Vec::new(),
                finish_reason: None,
                usage: None,
            },
        )
    }
}

struct ChatSteps {
    adapter: OpenAiChat,
    id: Option<String>,
    model: Option<String>,
    content: Option<String>,
    refusal: Option<String>,
    /// The joined `reasoning` deltas (Groq, vLLM, OpenRouter).
    reasoning: Option<String>,
    /// The joined `reasoning_content` deltas (DeepSeek), which DeepSeek wants back.
    reasoning_content: Option<String>,
    /// OpenRouter's `reasoning_details`, each joined from its pieces by `index`.
    reasoning_details: Vec<Map<String, Value>>,
    /// Gemini's OpenAI endpoint puts thought signatures in `extra_content`.
    message_extra: Option<Value>,
    calls: Vec<Call>,
    finish_reason: Option<String>,
    usage: Option<Value>,
}

struct Call {
    /// The `index` the provider gave the call's fragments.
    index: Option<u64>,
    slot: usize,
    id: Option<String>,
    name: Option<String>,
    arguments: String,
    extra: Option<Value>,
    /// The call came without an id: the final answer mints one, so it is told whole at the end.
    deferred: bool,
}

#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    choices: Option<Vec<Choice<'a>>>,
    usage: Option<Value>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    #[serde(borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow)]
    refusal: Option<Cow<'a, str>>,
    #[serde(borrow)]
    reasoning: Option<Cow<'a, str>>,
    #[serde(borrow)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_calls: Option<Vec<CallDelta<'a>>>,
    /// Read leniently: only OpenRouter documents it, as an array of objects.
    reasoning_details: Option<Value>,
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct CallDelta<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: Option<FunctionDelta<'a>>,
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct FunctionDelta<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Piece<'a>>,
}

/// A piece of a call's arguments: JSON text, as OpenAI sends it; a few servers send the whole
/// arguments as an object instead, taken here as its JSON text.
struct Piece<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Piece<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Piece<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string of JSON text, or an object")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Piece<'a>, E> {
                Ok(Piece(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Piece<'a>, E> {
                Ok(Piece(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E>(self, text: String) -> Result<Piece<'a>, E> {
                Ok(Piece(Cow::Owned(text)))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Piece<'a>, A::Error> {
                let object = Map::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Piece(Cow::Owned(Value::Object(object).to_string())))
            }
        }
        deserializer.deserialize_any(Visit(std::marker::PhantomData))
    }
}

impl Steps for ChatSteps {
    fn read(&mut self, event: &str, data: &str, out: &mut Out<'_>) -> Result<bool, Fault> {
        if data.trim() == "[DONE]" {
            return Ok(true);
        }
        let chunk: Chunk<'_> = parse(data)?;
        if let Some(error) = chunk.error.filter(|error| !error.is_null()) {
            return Err(provider_error(&self.adapter, &json!({ "error": error })));
        }
        if event == "error" {
            let error: Value = parse(data)?;
            return Err(provider_error(&self.adapter, &json!({ "error": error })));
        }
        if self.id.is_none() {
            self.id = chunk.id.map(Cow::into_owned);
        }
        if self.model.is_none() {
            self.model = chunk.model.map(Cow::into_owned);
        }
        if let Some(usage) = chunk.usage.filter(|usage| !usage.is_null()) {
            self.usage = Some(usage);
        }
        // The adapter reads the first choice; with `n` > 1, the others are another answer.
        let choice = chunk
            .choices
            .into_iter()
            .flatten()
            .find(|choice| choice.index.unwrap_or(0) == 0);
        let Some(choice) = choice else {
            return Ok(false);
        };
        if let Some(delta) = choice.delta {
            self.read_delta(delta, out)?;
        }
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason.into_owned());
        }
        Ok(false)
    }

    fn body(&mut self) -> Result<Value, Fault> {
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), json!(self.content.take()));
        if let Some(refusal) = self.refusal.take() {
            message.insert("refusal".into(), json!(refusal));
        }
        if let Some(reasoning) = self.reasoning.take() {
            message.insert("reasoning".into(), json!(reasoning));
        }
        if let Some(reasoning) = self.reasoning_content.take() {
            message.insert("reasoning_content".into(), json!(reasoning));
        }
        if !self.reasoning_details.is_empty() {
            let details = self.reasoning_details.drain(..).map(Value::Object);
            message.insert("reasoning_details".into(), details.collect());
        }
        if !self.calls.is_empty() {
            let calls = self.calls.drain(..).map(|call| {
                let mut function = Map::new();
                if let Some(name) = call.name {
                    function.insert("name".into(), json!(name));
                }
                function.insert("arguments".into(), json!(call.arguments));
                let mut entry = Map::new();
                if let Some(id) = call.id {
                    entry.insert("id".into(), json!(id));
                }
                entry.insert("type".into(), json!("function"));
                entry.insert("function".into(), Value::Object(function));
                if let Some(extra) = call.extra {
                    entry.insert("extra_content".into(), extra);
                }
                Value::Object(entry)
            });
            message.insert("tool_calls".into(), Value::Array(calls.collect()));
        }
        if let Some(extra) = self.message_extra.take() {
            message.insert("extra_content".into(), extra);
        }
        let mut body = Map::new();
        if let Some(id) = self.id.take() {
            body.insert("id".into(), json!(id));
        }
        body.insert("object".into(), json!("chat.completion"));
        if let Some(model) = self.model.take() {
            body.insert("model".into(), json!(model));
        }
        body.insert(
            "choices".into(),
            json!([{"index": 0, "message": message, "finish_reason": self.finish_reason.take()}]),
        );
        if let Some(usage) = self.usage.take() {
            body.insert("usage".into(), usage);
        }
        Ok(Value::Object(body))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        self.adapter.decode(body)
    }

    /// A compatible server may end the body right after the chunk with the `finish_reason`
    /// (and the usage chunk, when it sends one), without `[DONE]`; OpenAI's SDKs read that as a
    /// whole answer, and so does skyl. A body cut before any `finish_reason` is not one.
    fn complete_at_end(&self) -> bool {
        // Some servers send `"finish_reason": ""` on every chunk until the last.
        self.finish_reason
            .as_deref()
            .is_some_and(|reason| !reason.is_empty())
    }

    fn end(&self) -> &'static str {
        "data: [DONE]"
    }
}

impl ChatSteps {
    fn read_delta(&mut self, delta: Delta<'_>, out: &mut Out<'_>) -> Result<(), Fault> {
        if let Some(text) = delta.content {
            out.text(&text);
            self.content.get_or_insert_with(String::new).push_str(&text);
        }
        if let Some(refusal) = delta.refusal {
            out.text(&refusal);
            self.refusal
                .get_or_insert_with(String::new)
                .push_str(&refusal);
        }
        for (piece, joined) in [
            (delta.reasoning, &mut self.reasoning),
            (delta.reasoning_content, &mut self.reasoning_content),
        ] {
            if let Some(piece) = piece {
                out.reasoning(&piece);
                joined.get_or_insert_with(String::new).push_str(&piece);
            }
        }
        if let Some(Value::Array(details)) = delta.reasoning_details {
            for detail in details {
                if let Value::Object(detail) = detail {
                    self.read_reasoning_detail(detail);
                }
            }
        }
        if let Some(extra) = delta.extra_content {
            self.message_extra = Some(extra);
        }
        for fragment in delta.tool_calls.into_iter().flatten() {
            self.read_call(fragment, out)?;
        }
        Ok(())
    }

    /// Joins a piece of an OpenRouter reasoning detail into the detail of its `index` (a piece
    /// with no index continues the last detail): its `text`, `summary` and `data` appended, its
    /// other fields (`type`, `format`, `signature`, `id`) set by the last piece that has them.
    fn read_reasoning_detail(&mut self, piece: Map<String, Value>) {
        let index = piece.get("index").cloned();
        let position = match &index {
            Some(index) => self
                .reasoning_details
                .iter()
                .position(|detail| detail.get("index") == Some(index)),
            None => self.reasoning_details.len().checked_sub(1),
        };
        let Some(position) = position else {
            self.reasoning_details.push(piece);
            return;
        };
        let detail = &mut self.reasoning_details[position];
        for (key, value) in piece {
            match (detail.get_mut(&key), value) {
                (_, Value::Null) => {}
                (Some(Value::String(joined)), Value::String(more))
                    if matches!(key.as_str(), "text" | "summary" | "data") =>
                {
                    joined.push_str(&more);
                }
                (_, value) => {
                    detail.insert(key, value);
                }
            }
        }
    }

    fn read_call(&mut self, fragment: CallDelta<'_>, out: &mut Out<'_>) -> Result<(), Fault> {
        let id = fragment.id.filter(|id| !id.is_empty());
        let position = match fragment.index {
            Some(index) => self
                .calls
                .iter()
                .rposition(|call| call.index == Some(index)),
            // Without an index, a fragment with an id opens a call and one without continues
            // the last.
            None if id.is_some() => None,
            None => self.calls.len().checked_sub(1),
        };
        let position = match position {
            Some(position) => position,
            None => {
                self.calls.push(Call {
                    index: fragment.index,
                    slot: out.new_call(),
                    id: None,
                    name: None,
                    arguments: String::new(),
                    extra: None,
                    deferred: id.is_none(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if call.id.is_none() {
            call.id = id.map(Cow::into_owned);
        }
        let mut piece = Cow::Borrowed("");
        if let Some(function) = fragment.function {
            if let Some(name) = function.name.filter(|name| !name.is_empty()) {
                call.name.get_or_insert_with(|| name.into_owned());
            }
            if let Some(Piece(text)) = function.arguments {
                piece = text;
            }
        }
        if let Some(extra) = fragment.extra_content {
            call.extra = Some(extra);
        }
        call.arguments.push_str(&piece);
        if call.deferred {
            return Ok(());
        }
        if out.is_started(call.slot) {
            out.arguments(call.slot, &piece);
        } else if let (Some(id), Some(name)) = (&call.id, &call.name) {
            out.start_call(call.slot, id, name);
            out.arguments(call.slot, &call.arguments);
        }
        Ok(())
    }
}
