//! Gemini streams (`:streamGenerateContent?alt=sse`): `data:` chunks, each shaped like a whole
//! `generateContent` response holding the next parts of the answer, with no end marker. The chunk
//! that carries a `finishReason` completes the answer; usage and ids repeat in every chunk.
//!
//! Text arrives in pieces, each a part of its own; unstreamed, the API returns the joined text as
//! one part, so consecutive text parts are joined (thoughts apart from text). A thought signature
//! closes the part it ends: Gemini 3 may send it on a last, empty text part. A `functionCall` part
//! always arrives whole, often without an `id`.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value, json};

use crate::provider::stream::decoder::{
    Fault, Out, Steps, StreamDecoder, Streaming, Text, decoded_call, parse, provider_error,
};
use crate::provider::{Adapter, DecodeError, Gemini, Response};

impl Streaming for Gemini {
    fn stream_decoder(&self) -> StreamDecoder {
        StreamDecoder::new(
            self.provider(),
            GeminiSteps {
                adapter: *self,
                candidate: false,
                parts: Vec::new(),
                finish_reason: None,
                usage: None,
                model: None,
                response_id: None,
                prompt_feedback: None,
            },
        )
    }
}

struct GeminiSteps {
    adapter: Gemini,
    /// A chunk had a candidate (a chunk without one is a blocked prompt).
    candidate: bool,
    parts: Vec<Part>,
    finish_reason: Option<String>,
    /// The latest chunk's counts: each chunk has the counts so far.
    usage: Option<Value>,
    model: Option<String>,
    response_id: Option<String>,
    prompt_feedback: Option<Value>,
}

enum Part {
    Text {
        text: String,
        thought: bool,
        signature: Option<String>,
    },
    /// A function call, or a part skyl does not read, kept as it came.
    Other(Map<String, Value>),
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk<'a> {
    #[serde(borrow)]
    candidates: Option<Vec<Candidate<'a>>>,
    usage_metadata: Option<Value>,
    #[serde(borrow)]
    model_version: Option<Cow<'a, str>>,
    #[serde(borrow)]
    response_id: Option<Cow<'a, str>>,
    prompt_feedback: Option<Value>,
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    content: Option<Content<'a>>,
    #[serde(borrow)]
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow)]
    parts: Option<Vec<ChunkPart<'a>>>,
}

/// A part of a chunk: the text that most chunks hold (maybe a thought, maybe signed), read
/// without building a map; anything else, kept whole.
enum ChunkPart<'a> {
    Text {
        text: Cow<'a, str>,
        thought: bool,
        signature: Option<Cow<'a, str>>,
    },
    Other(Map<String, Value>),
}

impl<'de: 'a, 'a> Deserialize<'de> for ChunkPart<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = ChunkPart<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a part object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ChunkPart<'a>, A::Error> {
                let (mut text, mut thought, mut signature) = (None, None, None);
                let mut rest = Map::new();
                while let Some(Text(key)) = map.next_key::<Text<'a>>()? {
                    match key.as_ref() {
                        "text" => text = Some(map.next_value::<Text<'a>>()?.0),
                        "thought" => thought = Some(map.next_value::<Value>()?),
                        "thoughtSignature" => signature = Some(map.next_value::<Text<'a>>()?.0),
                        _ => {
                            rest.insert(key.into_owned(), map.next_value()?);
                        }
                    }
                }
                match (text, thought) {
                    (Some(text), thought @ (None | Some(Value::Bool(_)))) if rest.is_empty() => {
                        Ok(ChunkPart::Text {
                            text,
                            thought: thought == Some(Value::Bool(true)),
                            signature,
                        })
                    }
                    (text, thought) => {
                        let text = text.map(|text| Value::String(text.into_owned()));
                        let signature = signature.map(|s| Value::String(s.into_owned()));
                        for (key, value) in [
                            ("text", text),
                            ("thought", thought),
                            ("thoughtSignature", signature),
                        ] {
                            if let Some(value) = value {
                                rest.insert(key.to_owned(), value);
                            }
                        }
                        Ok(ChunkPart::Other(rest))
                    }
                }
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

impl Steps for GeminiSteps {
    fn read(&mut self, _event: &str, data: &str, out: &mut Out<'_>) -> Result<bool, Fault> {
        let chunk: Chunk<'_> = parse(data)?;
        if let Some(error) = chunk.error.filter(|error| !error.is_null()) {
            return Err(provider_error(&self.adapter, &json!({ "error": error })));
        }
        if let Some(usage) = chunk.usage_metadata {
            self.usage = Some(usage);
        }
        if let Some(model) = chunk.model_version {
            self.model = Some(model.into_owned());
        }
        if let Some(id) = chunk.response_id {
            self.response_id = Some(id.into_owned());
        }
        let blocked = chunk
            .prompt_feedback
            .as_ref()
            .is_some_and(|feedback| feedback.get("blockReason").is_some());
        if let Some(feedback) = chunk.prompt_feedback {
            self.prompt_feedback = Some(feedback);
        }
        // The adapter reads the first candidate; others are other answers.
        let candidate = chunk
            .candidates
            .into_iter()
            .flatten()
            .find(|candidate| candidate.index.unwrap_or(0) == 0);
        let Some(candidate) = candidate else {
            return Ok(blocked && !self.candidate);
        };
        self.candidate = true;
        for part in candidate
            .content
            .and_then(|content| content.parts)
            .into_iter()
            .flatten()
        {
            self.read_part(part, out)?;
        }
        match candidate.finish_reason {
            Some(reason) => {
                self.finish_reason = Some(reason.into_owned());
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn body(&mut self) -> Result<Value, Fault> {
        let mut body = Map::new();
        if self.candidate {
            let parts: Vec<Value> = self.parts.drain(..).map(Part::into_value).collect();
            let mut candidate = Map::new();
            candidate.insert("content".into(), json!({"role": "model", "parts": parts}));
            if let Some(reason) = self.finish_reason.take() {
                candidate.insert("finishReason".into(), json!(reason));
            }
            candidate.insert("index".into(), json!(0));
            body.insert("candidates".into(), json!([candidate]));
        }
        if let Some(feedback) = self.prompt_feedback.take() {
            body.insert("promptFeedback".into(), feedback);
        }
        if let Some(usage) = self.usage.take() {
            body.insert("usageMetadata".into(), usage);
        }
        if let Some(model) = self.model.take() {
            body.insert("modelVersion".into(), json!(model));
        }
        if let Some(id) = self.response_id.take() {
            body.insert("responseId".into(), json!(id));
        }
        Ok(Value::Object(body))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        self.adapter.decode(body)
    }

    fn end(&self) -> &'static str {
        "a chunk with a finishReason"
    }
}

impl GeminiSteps {
    fn read_part(&mut self, part: ChunkPart<'_>, out: &mut Out<'_>) -> Result<(), Fault> {
        let (text, thought, signature) = match part {
            ChunkPart::Text {
                text,
                thought,
                signature,
            } => (text, thought, signature.map(Cow::into_owned)),
            ChunkPart::Other(part) => return self.read_other_part(part, out),
        };
        if thought {
            out.reasoning(&text);
        } else {
            out.text(&text);
        }
        if let Some(Part::Text {
            text: last_text,
            thought: last_thought,
            signature: last_signature @ None,
        }) = self.parts.last_mut()
            && *last_thought == thought
        {
            last_text.push_str(&text);
            *last_signature = signature;
            return Ok(());
        }
        if text.is_empty() && signature.is_none() {
            return Ok(());
        }
        self.parts.push(Part::Text {
            text: text.into_owned(),
            thought,
            signature,
        });
        Ok(())
    }

    fn read_other_part(
        &mut self,
        part: Map<String, Value>,
        out: &mut Out<'_>,
    ) -> Result<(), Fault> {
        if let Some(function_call) = part.get("functionCall") {
            let slot = out.new_call();
            let has_id = function_call
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| !id.is_empty());
            // Without an id, the final answer mints one from the whole response: the call is
            // told when the stream finishes.
            if has_id {
                let body = json!({"candidates": [{"content": {"parts": [&part]}}]});
                let call = decoded_call(&self.adapter, &body)?;
                out.start_call(slot, &call.id, &call.name);
                out.arguments(slot, &call.arguments.to_string());
                out.finish_call(slot, call)?;
            }
        }
        self.parts.push(Part::Other(part));
        Ok(())
    }
}

impl Part {
    fn into_value(self) -> Value {
        match self {
            Part::Text {
                text,
                thought,
                signature,
            } => {
                let mut part = Map::new();
                part.insert("text".into(), Value::String(text));
                if thought {
                    part.insert("thought".into(), Value::Bool(true));
                }
                if let Some(signature) = signature {
                    part.insert("thoughtSignature".into(), Value::String(signature));
                }
                Value::Object(part)
            }
            Part::Other(part) => Value::Object(part),
        }
    }
}
