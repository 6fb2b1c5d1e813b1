//! OpenAI Responses streams: typed events. Each output item is announced by
//! `response.output_item.added` and complete at `response.output_item.done`; text, call arguments
//! and reasoning summaries grow in between (`response.output_text.delta`,
//! `response.function_call_arguments.delta`, `response.reasoning_summary_text.delta`). The stream
//! ends with `response.completed` (or `response.incomplete`), which carries the whole response as
//! the unstreamed API returns it, or with `response.failed` or an `error` event.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::provider::stream::decoder::{
    Fault, Out, Steps, StreamDecoder, Streaming, decoded_call, parse, provider_error,
};
use crate::provider::{Adapter, DecodeError, OpenAiResponses, Response};

impl Streaming for OpenAiResponses {
    fn stream_decoder(&self) -> StreamDecoder {
        StreamDecoder::new(
            self.provider(),
            ResponsesSteps {
                adapter: *self,
                items: Vec::new(),
                response: None,
            },
        )
    }
}

struct ResponsesSteps {
    adapter: OpenAiResponses,
    items: Vec<Item>,
    /// The response of `response.completed` or `response.incomplete`.
    response: Option<Map<String, Value>>,
}

struct Item {
    output_index: u64,
    /// The slot of a `function_call` item's call.
    call: Option<usize>,
    /// The item as `response.output_item.done` gave it.
    done: Option<Value>,
}

#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    output_index: Option<u64>,
    #[serde(borrow)]
    delta: Option<Cow<'a, str>>,
    item: Option<Map<String, Value>>,
    response: Option<Map<String, Value>>,
    code: Option<Value>,
    #[serde(borrow)]
    message: Option<Cow<'a, str>>,
}

impl ResponsesSteps {
    /// Starts the output item at `index`, and its call if it is one.
    fn add(
        &mut self,
        index: u64,
        item: &Map<String, Value>,
        out: &mut Out<'_>,
    ) -> Result<(), Fault> {
        let call = match item.get("type").and_then(Value::as_str) {
            Some("function_call") => Some(start_call(item, out)?),
            _ => None,
        };
        self.items.push(Item {
            output_index: index,
            call,
            done: None,
        });
        Ok(())
    }
}

impl Steps for ResponsesSteps {
    fn read(&mut self, event: &str, data: &str, out: &mut Out<'_>) -> Result<bool, Fault> {
        let parsed: Event<'_> = parse(data)?;
        let kind = parsed.kind.as_deref().unwrap_or(event);
        match kind {
            "response.output_text.delta" | "response.refusal.delta" => {
                out.text(parsed.delta.as_deref().unwrap_or(""));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                out.reasoning(parsed.delta.as_deref().unwrap_or(""));
            }
            "response.function_call_arguments.delta" => {
                let index = required_index(parsed.output_index)?;
                let item = self.open_item(index)?;
                if let Some(slot) = item.call {
                    out.arguments(slot, parsed.delta.as_deref().unwrap_or(""));
                }
            }
            "response.output_item.added" => {
                let index = required_index(parsed.output_index)?;
                if self.items.iter().any(|item| item.output_index == index) {
                    return Err(Fault::order(
                        format!("output item {index}"),
                        "a second output_item.added for it",
                    ));
                }
                let item = parsed.item.unwrap_or_default();
                self.add(index, &item, out)?;
            }
            "response.output_item.done" => {
                let index = required_index(parsed.output_index)?;
                let item = parsed.item.unwrap_or_default();
                let position = match self.items.iter().position(|i| i.output_index == index) {
                    Some(position) => position,
                    None => {
                        // A server that skips output_item.added: the item starts and ends here.
                        self.add(index, &item, out)?;
                        self.items.len() - 1
                    }
                };
                let entry = &mut self.items[position];
                if entry.done.is_some() {
                    return Err(Fault::order(
                        format!("output item {index}"),
                        "a second output_item.done for it",
                    ));
                }
                let item = Value::Object(item);
                if let Some(slot) = entry.call {
                    let call = decoded_call(&self.adapter, &json!({ "output": [&item] }))?;
                    out.finish_call(slot, call)?;
                }
                entry.done = Some(item);
            }
            "response.completed" | "response.incomplete" => {
                let Some(response) = parsed.response else {
                    return Err(Fault::Shape {
                        place: "response".to_owned(),
                        expected: "the whole response",
                        found: "nothing",
                    });
                };
                self.response = Some(response);
                return Ok(true);
            }
            "response.failed" => {
                let response = parsed.response.unwrap_or_default();
                let error = match response.get("error") {
                    Some(error @ Value::Object(_)) => error.clone(),
                    _ => {
                        json!({"code": "response.failed", "message": "the response failed and gave no reason"})
                    }
                };
                return Err(provider_error(&self.adapter, &json!({ "error": error })));
            }
            "error" => {
                return Err(Fault::Provider {
                    kind: parsed.code.and_then(|code| match code {
                        Value::String(code) => Some(code),
                        Value::Null => None,
                        other => Some(other.to_string()),
                    }),
                    message: parsed.message.map(Cow::into_owned).unwrap_or_default(),
                });
            }
            // created, in_progress, content_part.*, *.done, and kinds added later.
            _ => {}
        }
        Ok(false)
    }

    fn body(&mut self) -> Result<Value, Fault> {
        let mut response = self.response.take().unwrap_or_default();
        // A server that leaves `output` empty in its last event has said each item's final form
        // in output_item.done.
        let empty = response
            .get("output")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty);
        if empty && self.items.iter().any(|item| item.done.is_some()) {
            self.items.sort_by_key(|item| item.output_index);
            let output = self.items.iter_mut().filter_map(|item| item.done.take());
            response.insert("output".into(), Value::Array(output.collect()));
        }
        Ok(Value::Object(response))
    }

    fn decode(&self, body: &Value) -> Result<Response, DecodeError> {
        self.adapter.decode(body)
    }

    fn end(&self) -> &'static str {
        "a response.completed event"
    }
}

impl ResponsesSteps {
    /// The item `index`, added and not yet done.
    fn open_item(&mut self, index: u64) -> Result<&mut Item, Fault> {
        match self
            .items
            .iter_mut()
            .rev()
            .find(|item| item.output_index == index)
        {
            Some(item) if item.done.is_none() => Ok(item),
            Some(_) => Err(Fault::order(
                format!("output item {index}"),
                "a delta after its output_item.done",
            )),
            None => Err(Fault::order(
                format!("output item {index}"),
                "a delta for an item that was never added",
            )),
        }
    }
}

/// Announces the call of a `function_call` item and returns its slot.
fn start_call(item: &Map<String, Value>, out: &mut Out<'_>) -> Result<usize, Fault> {
    let text = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| Fault::Shape {
                place: format!("item.{key}"),
                expected: "a string",
                found: "something else",
            })
    };
    let (id, name) = (text("call_id")?, text("name")?);
    let slot = out.new_call();
    out.start_call(slot, id, name);
    out.arguments(
        slot,
        item.get("arguments").and_then(Value::as_str).unwrap_or(""),
    );
    Ok(slot)
}

fn required_index(index: Option<u64>) -> Result<u64, Fault> {
    index.ok_or_else(|| Fault::Shape {
        place: "output_index".to_owned(),
        expected: "an output index",
        found: "nothing",
    })
}
