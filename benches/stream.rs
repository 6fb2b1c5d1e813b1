//! What the streaming decoders cost over the floor: `serde_json::from_str` of the same `data:`
//! payloads into a `Value`, which any stream reader does at the least. Each decoder reads one
//! recorded stream of its provider (from `tests/fixtures/stream/`), event by event, and finishes
//! into its `Response`; the goal is at least 0.8× the floor's throughput.
//!
//! Run with `cargo bench --manifest-path benches/Cargo.toml --bench stream`. Each row is per
//! provider; divan reports the bytes of `data:` per second, so the ratio is `decode`'s throughput
//! over `floor`'s, medians of the same run.
//!
//! - `floor`: `serde_json::from_str::<Value>` of every JSON payload (not `[DONE]`).
//! - `decode`: the provider's `StreamDecoder`, fed every event, then `finish`: the events told and
//!   the final `Response` built, with the adapter's `decode` of the body the stream built.
//! - `parse_and_decode`: the same from the raw bytes, through the `SseParser` first.

use std::hint::black_box;

use divan::counter::BytesCount;
use serde_json::Value;
use skyl::provider::{
    Anthropic, Gemini, OpenAiChat, OpenAiResponses, Response,
    stream::{SseParser, StreamEvent, Streaming},
};

mod layer_calls;

fn main() {
    let (streams, adapters) = (
        PROVIDERS.map(|provider| events(stream(provider))),
        PROVIDERS.map(adapter),
    );
    if layer_calls::run_counted(
        &PROVIDERS,
        |at| parse_payloads(&streams[at]),
        |at| drop(black_box(decode_events(&*adapters[at], &streams[at]))),
    ) {
        return;
    }
    divan::Divan::from_args().sample_count(200).main();
}

const PROVIDERS: [&str; 4] = ["anthropic", "openai_chat", "openai_responses", "gemini"];

/// One recorded stream per provider, with many small events, as streams are.
fn stream(provider: &str) -> &'static [u8] {
    match provider {
        "anthropic" => include_bytes!("../tests/fixtures/stream/anthropic/thinking.sse"),
        "openai_chat" => include_bytes!("../tests/fixtures/stream/openai_chat/long_arguments.sse"),
        "openai_responses" => {
            include_bytes!("../tests/fixtures/stream/openai_responses/reasoning_summary.sse")
        }
        "gemini" => include_bytes!("../tests/fixtures/stream/gemini/thoughts_then_text.sse"),
        other => panic!("no stream for {other}"),
    }
}

fn adapter(provider: &str) -> Box<dyn Streaming> {
    match provider {
        "anthropic" => Box::new(Anthropic),
        "openai_chat" => Box::new(OpenAiChat::default()),
        "openai_responses" => Box::new(OpenAiResponses::default()),
        _ => Box::new(Gemini::default()),
    }
}

fn events(bytes: &[u8]) -> Vec<(String, String)> {
    let mut events = Vec::new();
    SseParser::new()
        .feed(bytes, |event| {
            events.push((event.event.clone(), event.data.clone()))
        })
        .unwrap();
    events
}

fn data_bytes(events: &[(String, String)]) -> usize {
    events.iter().map(|(_, data)| data.len()).sum()
}

#[divan::bench(args = PROVIDERS)]
fn floor(bencher: divan::Bencher<'_, '_>, provider: &str) {
    let events = events(stream(provider));
    bencher
        .counter(BytesCount::new(data_bytes(&events)))
        .bench_local(|| parse_payloads(&events));
}

/// The floor's work: every JSON payload parsed.
fn parse_payloads(events: &[(String, String)]) {
    for (_, data) in events {
        if data != "[DONE]" {
            black_box(serde_json::from_str::<Value>(black_box(data)).unwrap());
        }
    }
}

#[divan::bench(args = PROVIDERS)]
fn decode(bencher: divan::Bencher<'_, '_>, provider: &str) {
    let events = events(stream(provider));
    let adapter = adapter(provider);
    bencher
        .counter(BytesCount::new(data_bytes(&events)))
        .bench_local(|| decode_events(&*adapter, &events));
}

/// The decoder's work: every event pushed, then the stream finished into its `Response`.
fn decode_events(adapter: &dyn Streaming, events: &[(String, String)]) -> Response {
    let mut decoder = adapter.stream_decoder();
    let mut sink = |event: StreamEvent| drop(black_box(event));
    for (name, data) in events {
        decoder.push(name, black_box(data), &mut sink).unwrap();
    }
    black_box(decoder.finish(&mut sink).unwrap())
}

#[divan::bench(args = PROVIDERS)]
fn parse_and_decode(bencher: divan::Bencher<'_, '_>, provider: &str) {
    let bytes = stream(provider);
    let adapter = adapter(provider);
    bencher
        .counter(BytesCount::new(data_bytes(&events(bytes))))
        .bench_local(|| {
            let mut decoder = adapter.stream_decoder();
            let mut sink = |event: StreamEvent| drop(black_box(event));
            SseParser::new()
                .try_feed(black_box(bytes), |event| {
                    decoder.push(&event.event, &event.data, &mut sink)
                })
                .unwrap();
            black_box(decoder.finish(&mut sink).unwrap())
        });
}
