//! The shape every streaming decoder shares, written once: count the events, turn a provider's
//! complaint into a [`DecodeError`] that says where, keep each tool call's events in order, and
//! finish into the [`Response`] the adapter's own `decode` gives.
//!
//! A provider supplies only its [`Steps`]: how one event grows the answer, and the body the answer
//! would have had unstreamed. The final [`Response`] is that adapter's
//! [`decode`](crate::provider::Adapter::decode) of that body, so a streamed answer and the same
//! answer unstreamed can never drift apart, whatever the adapters learn later.

use std::borrow::Cow;

use serde::de::{Deserialize, Deserializer, Visitor};
use serde_json::Value;

use crate::message::ToolCall;
use crate::provider::{Adapter, DecodeError, Provider, Response};

use super::StreamEvent;

/// An [`Adapter`] whose provider can stream its answers.
///
/// Implemented by the built-in adapters and by any provider of your own that streams (from its
/// [`StreamSteps`](crate::provider::stream::StreamSteps)). It is object-safe, so `Box<dyn Streaming>`
/// can encode, decode and stream.
///
/// ```
/// use skyl::provider::{Anthropic, stream::Streaming};
///
/// let mut decoder = Anthropic.stream_decoder();
/// let mut events = Vec::new();
/// decoder.push("message_start", r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}"#, &mut |e| events.push(e)).unwrap();
/// decoder.push("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#, &mut |e| events.push(e)).unwrap();
/// decoder.push("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#, &mut |e| events.push(e)).unwrap();
/// decoder.push("content_block_stop", r#"{"type":"content_block_stop","index":0}"#, &mut |e| events.push(e)).unwrap();
/// decoder.push("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}"#, &mut |e| events.push(e)).unwrap();
/// decoder.push("message_stop", r#"{"type":"message_stop"}"#, &mut |e| events.push(e)).unwrap();
/// let response = decoder.finish(&mut |e| events.push(e)).unwrap();
/// assert_eq!(response.message.text_content(), "Hi");
/// assert_eq!(response.usage.output_tokens, 2);
/// ```
pub trait Streaming: Adapter {
    /// A decoder for one streamed answer of this adapter's provider.
    fn stream_decoder(&self) -> StreamDecoder;
}

impl<A: Streaming + ?Sized> Streaming for Box<A> {
    fn stream_decoder(&self) -> StreamDecoder {
        (**self).stream_decoder()
    }
}

/// Reads one streamed answer, one server-sent event at a time, and tells what it learns as
/// [`StreamEvent`]s.
///
/// Feed it each event's name and data with [`push`](Self::push) (an [`SseParser`](super::SseParser)
/// gives them from the bytes of a response body), then call [`finish`](Self::finish) when the
/// stream ends: it returns the [`Response`] that [`Adapter::decode`] gives for the same answer
/// unstreamed, and sends the last events (the calls not yet finished, the usage, the end).
///
/// It does no I/O and never panics on what a provider sends. A stream that ends before the
/// provider said the answer was complete, an event whose data is not JSON or not of the
/// documented shape, and an error the provider sends mid-stream are each a [`DecodeError`] that
/// says which event. A tool call is reported finished ([`StreamEvent::ToolCallFinished`]) only once
/// it is complete, with the arguments and id it has in the final [`Response`].
///
/// After an error, the decoder gives the same error again for every later call.
pub struct StreamDecoder {
    provider: Provider,
    steps: Box<dyn Steps>,
    /// Events read so far.
    count: usize,
    /// The name of the last event read, for errors that say where.
    last: String,
    calls: Vec<Slot>,
    /// Calls announced with [`StreamEvent::ToolCallStarted`] so far.
    started: usize,
    complete: bool,
    failed: Option<DecodeError>,
}

impl std::fmt::Debug for StreamDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDecoder")
            .field("provider", &self.provider)
            .field("events", &self.count)
            .field("complete", &self.complete)
            .field("failed", &self.failed)
            .finish_non_exhaustive()
    }
}

impl StreamDecoder {
    /// A decoder for one streamed answer of `provider`, whose events `steps` read.
    ///
    /// What a provider's [`Streaming::stream_decoder`] returns: the shape every stream shares (the
    /// count of events, errors that say which event, calls told in order, the end) is this
    /// decoder's; `steps` says only how one event grows the answer.
    pub fn new(provider: Provider, steps: impl Steps + 'static) -> Self {
        StreamDecoder {
            provider,
            steps: Box::new(steps),
            count: 0,
            last: String::new(),
            calls: Vec::new(),
            started: 0,
            complete: false,
            failed: None,
        }
    }

    /// The provider whose stream this reads ([`Adapter::provider`]).
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Reads one event, `event` its name (`"message"` when it has none) and `data` its data, and
    /// passes what it tells to `sink`.
    pub fn push(
        &mut self,
        event: &str,
        data: &str,
        sink: &mut dyn FnMut(StreamEvent),
    ) -> Result<(), DecodeError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        self.count += 1;
        self.last.clear();
        self.last.push_str(event);
        // An `event: error` whose data is plain text (what a server that failed mid-stream often
        // sends) is the server's reason in its own words; JSON data is the provider's step's.
        if event == "error" && serde_json::from_str::<serde::de::IgnoredAny>(data).is_err() {
            let message = crate::text::shortened(data.trim(), MAX_ERROR_TEXT).into_owned();
            return Err(self.fail(Fault::Provider {
                kind: None,
                message,
            }));
        }
        let mut out = Out {
            sink,
            calls: &mut self.calls,
            started: &mut self.started,
        };
        match self.steps.read(event, data, &mut out) {
            Ok(complete) => {
                self.complete |= complete;
                Ok(())
            }
            Err(fault) => Err(self.fail(fault)),
        }
    }

    /// Whether the provider has said the answer is complete (Anthropic `message_stop`, OpenAI
    /// Chat `[DONE]`, OpenAI Responses `response.completed`, a Gemini chunk with a
    /// `finishReason`). Until then, [`finish`](Self::finish) is an error.
    pub fn is_complete(&self) -> bool {
        self.complete && self.failed.is_none()
    }

    /// Whether the answer is whole if the stream ends cleanly now: [`is_complete`](Self::is_complete),
    /// or a stream whose provider may end it without its closing event once the answer is told
    /// (an OpenAI-compatible server that ends the body after the chunk with the
    /// `finish_reason`, without `data: [DONE]`, as the official SDKs accept).
    pub fn can_end(&self) -> bool {
        self.failed.is_none() && (self.complete || self.steps.complete_at_end())
    }

    /// How many events have been read.
    pub fn events_read(&self) -> usize {
        self.count
    }

    /// Ends the stream: passes to `sink` every tool call not yet finished, then the usage and the
    /// end, and returns the whole answer.
    pub fn finish(mut self, sink: &mut dyn FnMut(StreamEvent)) -> Result<Response, DecodeError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        if !self.complete && !self.steps.complete_at_end() {
            let path = match self.count {
                0 => "the stream, before any event".to_owned(),
                n => format!("the stream, after event {n} ({})", self.last),
            };
            return Err(DecodeError::Shape {
                provider: self.provider,
                path,
                expected: self.steps.end(),
                found: "the end of the stream",
            });
        }
        let response = self
            .steps
            .body()
            .and_then(|body| self.steps.decode(&body).map_err(Fault::Decode))
            .map_err(|fault| self.fault_at_end(fault))?;
        // The calls told finished must be the answer's own: checked before anything more is told,
        // so that a finish that fails tells nothing.
        let finals: Vec<&ToolCall> = response.message.tool_calls().collect();
        if finals.len() != self.calls.len() {
            return Err(DecodeError::Shape {
                provider: self.provider,
                path: "the stream".to_owned(),
                expected: "as many tool calls as the stream started",
                found: "another number of calls in the complete answer",
            });
        }
        for (slot, call) in self.calls.iter().zip(&finals) {
            if !slot.started_as(call) {
                return Err(self.fault_at_end(renamed(call)));
            }
            if slot
                .finished
                .as_ref()
                .is_some_and(|finished| finished != *call)
            {
                return Err(DecodeError::Shape {
                    provider: self.provider,
                    path: format!("the stream, tool call \"{}\"", call.id),
                    expected: "the call reported finished",
                    found: "another call in the complete answer",
                });
            }
        }
        for (slot, call) in self.calls.iter().zip(finals) {
            match (slot.event_index, &slot.finished) {
                (Some(_), Some(_)) => {}
                (Some(index), None) => sink(StreamEvent::ToolCallFinished {
                    index,
                    call: call.clone(),
                }),
                // A call whose id the answer minted: told whole, now that the id is known.
                (None, _) => {
                    let index = self.started;
                    self.started += 1;
                    sink(StreamEvent::ToolCallStarted {
                        index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                    sink(StreamEvent::ToolCallDelta {
                        index,
                        arguments: call.arguments.to_string(),
                    });
                    sink(StreamEvent::ToolCallFinished {
                        index,
                        call: call.clone(),
                    });
                }
            }
        }
        sink(StreamEvent::Usage(response.usage.clone()));
        sink(StreamEvent::Done {
            stop_reason: response.stop_reason.clone(),
        });
        Ok(response)
    }

    fn fail(&mut self, fault: Fault) -> DecodeError {
        let at = format!("event {} of the stream ({})", self.count, self.last);
        let error = self.located(fault, &at);
        self.failed = Some(error.clone());
        error
    }

    fn fault_at_end(&self, fault: Fault) -> DecodeError {
        self.located(fault, "the answer the stream built")
    }

    /// The error for `fault`, its place prefixed with `at`.
    fn located(&self, fault: Fault, at: &str) -> DecodeError {
        match fault {
            Fault::Provider { kind, message } => DecodeError::Provider {
                provider: self.provider,
                kind,
                message,
            },
            Fault::Shape {
                place,
                expected,
                found,
            } => DecodeError::Shape {
                provider: self.provider,
                path: format!("{at}, {place}"),
                expected,
                found,
            },
            Fault::Decode(DecodeError::Shape {
                provider,
                path,
                expected,
                found,
            }) => DecodeError::Shape {
                provider,
                path: format!("{at}, {path}"),
                expected,
                found,
            },
            Fault::Decode(error) => error,
        }
    }
}

/// The longest piece of an error event's plain text kept in its error.
const MAX_ERROR_TEXT: usize = 2000;

/// What a provider's stream supplies to a [`StreamDecoder`]: how one event grows the answer, and
/// the body the answer would have had unstreamed, which the adapter's own
/// [`decode`](Adapter::decode) then reads (so a streamed answer and the same answer unstreamed
/// cannot drift apart).
///
/// Re-exported as `skyl::provider::stream::StreamSteps`.
pub trait Steps: Send + Sync {
    /// Reads one event, reporting what it learnt to `out`. Returns whether the provider said
    /// the answer is complete.
    fn read(&mut self, event: &str, data: &str, out: &mut Out<'_>) -> Result<bool, Fault>;

    /// The body the provider would have sent for the answer unstreamed.
    fn body(&mut self) -> Result<Value, Fault>;

    /// The adapter's [`Adapter::decode`].
    fn decode(&self, body: &Value) -> Result<Response, DecodeError>;

    /// What ends a complete stream, for the error when it ends without it.
    fn end(&self) -> &'static str;

    /// Whether the stream read so far is a whole answer even without [`end`](Self::end): the
    /// provider said how the answer ends, and a clean end of the body then loses nothing.
    fn complete_at_end(&self) -> bool {
        false
    }
}

/// Why a provider's step could not read an event. The driver adds which event it was.
///
/// Re-exported as `skyl::provider::stream::StreamFault`.
#[derive(Debug)]
#[non_exhaustive]
pub enum Fault {
    /// The provider reported an error in the stream.
    Provider {
        /// The provider's error type, when it gave one.
        kind: Option<String>,
        /// The provider's message, verbatim.
        message: String,
    },
    /// A value is not what the provider documents. `place` says where within the event.
    Shape {
        /// Where within the event (`its data`, `tool call 2`).
        place: String,
        /// What the provider documents there.
        expected: &'static str,
        /// What came instead.
        found: &'static str,
    },
    /// The adapter's decode refused what the stream built.
    Decode(DecodeError),
}

impl Fault {
    /// The data of an event is not JSON, or not of the shape the steps read.
    pub fn json(error: &serde_json::Error) -> Fault {
        use serde_json::error::Category;
        let (expected, found) = match error.classify() {
            Category::Eof => ("JSON", "JSON cut short"),
            Category::Syntax | Category::Io => ("JSON", "malformed JSON"),
            Category::Data => ("the documented shape", "a value of another type"),
        };
        Fault::Shape {
            place: format!("its data ({error})"),
            expected,
            found,
        }
    }

    /// An event came where the provider's documented order does not allow it (`found` says
    /// what it was); `place` names the block or item.
    pub fn order(place: String, found: &'static str) -> Fault {
        Fault::Shape {
            place,
            expected: "events in the documented order",
            found,
        }
    }
}

/// A JSON string, borrowed from the event's data when it has no escapes.
///
/// (A `Cow<str>` field borrows only under `#[serde(borrow)]` in a derive; this is for the
/// decoders' own visitors.)
pub(in crate::provider) struct Text<'a>(pub(in crate::provider) Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Visit<'a> {
            type Value = Text<'a>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E>(self, text: String) -> Result<Text<'a>, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(Visit(std::marker::PhantomData))
    }
}

/// Parses an event's data as `T`, a fault that says why when it cannot.
pub fn parse<'a, T: Deserialize<'a>>(data: &'a str) -> Result<T, Fault> {
    serde_json::from_str(data).map_err(|error| Fault::json(&error))
}

/// A tool call of the answer, in the order calls appear in the final answer.
#[derive(Debug, Default)]
struct Slot {
    /// The call's `index` in its [`StreamEvent`]s, once started.
    event_index: Option<usize>,
    /// The id and name the call was told started with.
    started: Option<(String, String)>,
    /// The call as reported finished.
    finished: Option<ToolCall>,
}

impl Slot {
    /// Whether `call` is the call this slot was told started as: a call told finished, or
    /// holding the final answer's place, must keep the id and name it started with, or a
    /// listener would be told of two calls as one.
    fn started_as(&self, call: &ToolCall) -> bool {
        self.started
            .as_ref()
            .is_none_or(|(id, name)| *id == call.id && *name == call.name)
    }
}

/// The fault for a call that ends under another id or name than it started with.
fn renamed(call: &ToolCall) -> Fault {
    Fault::Shape {
        place: format!("tool call \"{}\" ({})", call.id, call.name),
        expected: "the id and name the call started with",
        found: "another id or name",
    }
}

/// What a provider's step tells the driver about one event: text, reasoning, and each tool call
/// as it starts, grows and finishes. The driver turns it into [`StreamEvent`]s.
///
/// Re-exported as `skyl::provider::stream::StreamOut`.
pub struct Out<'a> {
    sink: &'a mut dyn FnMut(StreamEvent),
    calls: &'a mut Vec<Slot>,
    started: &'a mut usize,
}

impl Out<'_> {
    /// A piece of the answer's text.
    pub fn text(&mut self, text: &str) {
        if !text.is_empty() {
            (self.sink)(StreamEvent::TextDelta(text.to_owned()));
        }
    }

    /// A piece of the model's readable reasoning.
    pub fn reasoning(&mut self, text: &str) {
        if !text.is_empty() {
            (self.sink)(StreamEvent::ReasoningDelta(text.to_owned()));
        }
    }

    /// Makes room for the answer's next tool call, in the order of the final answer, and
    /// returns its slot. Nothing is told yet: a call whose id the final answer mints (Gemini, and
    /// OpenAI-compatible servers that send none) is told whole when the stream finishes.
    pub fn new_call(&mut self) -> usize {
        self.calls.push(Slot::default());
        self.calls.len() - 1
    }

    /// The call in `slot` began, with its final `id` and `name`.
    pub fn start_call(&mut self, slot: usize, id: &str, name: &str) {
        let Some(entry) = self.calls.get_mut(slot) else {
            return;
        };
        if entry.event_index.is_some() {
            return;
        }
        let index = *self.started;
        *self.started += 1;
        entry.event_index = Some(index);
        entry.started = Some((id.to_owned(), name.to_owned()));
        (self.sink)(StreamEvent::ToolCallStarted {
            index,
            id: id.to_owned(),
            name: name.to_owned(),
        });
    }

    /// Whether the call in `slot` has been started.
    pub fn is_started(&self, slot: usize) -> bool {
        self.calls
            .get(slot)
            .is_some_and(|entry| entry.event_index.is_some())
    }

    /// A piece of the arguments of the call in `slot`, told only once the call has started.
    pub fn arguments(&mut self, slot: usize, piece: &str) {
        if piece.is_empty() {
            return;
        }
        if let Some(index) = self.calls.get(slot).and_then(|entry| entry.event_index) {
            (self.sink)(StreamEvent::ToolCallDelta {
                index,
                arguments: piece.to_owned(),
            });
        }
    }

    /// The call in `slot` is complete: `call` is exactly as the final answer will hold it. A
    /// call that would finish under another id or name than it started with is an error.
    pub fn finish_call(&mut self, slot: usize, call: ToolCall) -> Result<(), Fault> {
        let Some(entry) = self.calls.get_mut(slot) else {
            return Ok(());
        };
        let Some(index) = entry.event_index else {
            return Ok(());
        };
        if entry.finished.is_some() {
            return Ok(());
        }
        if !entry.started_as(&call) {
            return Err(renamed(&call));
        }
        entry.finished = Some(call.clone());
        (self.sink)(StreamEvent::ToolCallFinished { index, call });
        Ok(())
    }
}

/// The first tool call in what `adapter` decodes from `body`: how a step learns what a complete
/// call will look like in the final answer, from the adapter itself.
pub fn decoded_call(adapter: &dyn Adapter, body: &Value) -> Result<ToolCall, Fault> {
    let response = adapter.decode(body).map_err(Fault::Decode)?;
    response
        .message
        .tool_calls()
        .next()
        .cloned()
        .ok_or(Fault::Shape {
            place: "the tool call".to_owned(),
            expected: "a tool call",
            found: "something the adapter does not read as one",
        })
}

/// The provider's own error object (`{"type", "message"}` and friends), read by `adapter` the way
/// it reads an error body.
pub fn provider_error(adapter: &dyn Adapter, body: &Value) -> Fault {
    match adapter.decode(body) {
        Err(DecodeError::Provider { kind, message, .. }) => Fault::Provider { kind, message },
        Err(error) => Fault::Decode(error),
        Ok(_) => Fault::Shape {
            place: "its error".to_owned(),
            expected: "an error object",
            found: "something else",
        },
    }
}
