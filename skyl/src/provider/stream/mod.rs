//! Streamed answers: what a model says while it is still answering.
//!
//! A provider that streams sends its answer as a sequence of server-sent events. [`StreamEvent`]
//! is what skyl makes of them, the same for every provider: text as it is written, each tool call
//! as it starts, grows and completes, token counts, and the end. The complete answer is still a
//! [`Response`](super::Response), equal to the one [`Adapter::decode`](super::Adapter::decode)
//! gives for the same answer unstreamed.
//!
//! Two pieces, neither doing I/O: an [`SseParser`] (or, for a provider that streams one JSON
//! document a line, a [`JsonLinesParser`]) turns the bytes of a response body into events, and a
//! [`StreamDecoder`] (from [`Streaming::stream_decoder`]) turns events into
//! [`StreamEvent`]s and, at the end, the [`Response`](super::Response). `decoder` holds the shape
//! every provider shares; each provider's folder holds, in its `stream.rs`, only how its events
//! grow an answer.

pub(super) mod decoder;
mod event;
mod lines;
mod sse;

pub use decoder::{
    Fault as StreamFault, Out as StreamOut, Steps as StreamSteps, StreamDecoder, Streaming,
    decoded_call, parse, provider_error,
};
pub use event::StreamEvent;
pub use lines::JsonLinesParser;
pub use sse::{EventTooLarge, FeedError, SseEvent, SseParser};
