//! A tool call's arguments read while they stream: every recorded stream in
//! `tests/fixtures/stream/`, read with [`PartialCalls`], shows at each delta only what the whole
//! call says and ends with exactly what `serde_json` reads of the deltas joined; a `#[tool]`'s
//! typed arguments are known as soon as they are complete; and arguments that break mid-stream
//! say where, while the complete call still gets the usual tool error.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use skyl::provider::{
    Anthropic, OpenAiChat,
    partial::PartialCalls,
    stream::{SseParser, StreamEvent, Streaming},
};
use skyl::{ToolCall, Toolbox};

use crate::skyl_fuzz;
use crate::support::{STREAMING, streaming};

fn fixtures(provider: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/stream")
        .join(provider);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "sse"))
        .collect();
    paths.sort();
    paths
}

/// The events a decoder tells of a whole body, up to an error if the stream has one.
fn told(provider: &str, body: &[u8]) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    SseParser::new()
        .feed(body, |event| {
            events.push((event.event.clone(), event.data.clone()))
        })
        .expect("a recorded stream's events are within the parser's bound");
    let mut decoder = streaming(provider).stream_decoder();
    let mut told = Vec::new();
    for (name, data) in &events {
        if decoder
            .push(name, data, &mut |event| told.push(event))
            .is_err()
        {
            return told;
        }
    }
    let _ = decoder.finish(&mut |event| told.push(event));
    told
}

/// The deltas of call `index`, in order.
fn deltas(told: &[StreamEvent], index: usize) -> Vec<&str> {
    told.iter()
        .filter_map(|event| match event {
            StreamEvent::ToolCallDelta {
                index: of,
                arguments,
            } if *of == index => Some(arguments.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_recorded_call_shows_only_what_it_says_and_ends_as_its_deltas_joined() {
    let mut checked = 0;
    for provider in STREAMING {
        for path in fixtures(provider) {
            let told = told(provider, &std::fs::read(&path).unwrap());
            let mut calls = PartialCalls::new();
            for event in &told {
                let partial = calls.read(event);
                let StreamEvent::ToolCallFinished { index, call } = event else {
                    continue;
                };
                let partial = partial.unwrap();
                assert_eq!((partial.id(), partial.name()), (&*call.id, &*call.name));
                let deltas = deltas(&told, *index);
                let joined = deltas.concat();
                let whole: Value = if joined.is_empty() {
                    call.arguments.clone()
                } else {
                    serde_json::from_str(&joined).unwrap()
                };
                assert_eq!(partial.arguments().value(), Some(&whole), "{path:?}");
                // Every recorded call's arguments are an object, which the adapter kept as it is.
                assert_eq!(call.arguments, whole, "{path:?}");
                // At each of the recorded cuts, the view is part of the whole.
                let cuts: Vec<usize> = deltas
                    .iter()
                    .scan(0, |at, delta| {
                        *at += delta.len();
                        Some(*at)
                    })
                    .collect();
                skyl_fuzz::check_partial_arguments(joined.as_bytes(), &cuts);
                checked += 1;
            }
            skyl_fuzz::check_partial_calls(&told);
        }
    }
    assert!(checked >= 20, "only {checked} recorded calls");
}

/// Writes a file.
#[skyl::tool]
fn write_file(
    /// Where.
    path: std::path::PathBuf,
    /// What.
    content: String,
    /// Whether to replace a file already there.
    #[serde(default)]
    overwrite: bool,
) -> String {
    let verb = if overwrite { "replaced" } else { "wrote" };
    format!("{verb} {} bytes to {}", content.len(), path.display())
}

/// An Anthropic stream of one `write_file` call whose input arrives in `pieces`.
fn anthropic_call(pieces: &[&str]) -> Vec<(String, String)> {
    let mut events = vec![(
        "content_block_start".to_owned(),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "write_file", "input": {}}}).to_string(),
    )];
    for piece in pieces {
        events.push((
            "content_block_delta".to_owned(),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": piece}}).to_string(),
        ));
    }
    events.push((
        "content_block_stop".to_owned(),
        json!({"type": "content_block_stop", "index": 0}).to_string(),
    ));
    events
}

#[test]
fn a_tools_typed_argument_is_known_as_soon_as_it_is_complete() {
    let content = "fn main() {\n    println!(\"hello\");\n}\n".repeat(40);
    let text = json!({"path": "src/main.rs", "content": content, "overwrite": true}).to_string();
    // Seven-byte deltas, as a provider streams a long string.
    let pieces: Vec<&str> = (0..text.len())
        .step_by(7)
        .map(|at| &text[at..(at + 7).min(text.len())])
        .collect();
    let mut decoder = Anthropic.stream_decoder();
    let mut calls = PartialCalls::new();
    let mut path_known_at = None;
    let mut content_seen = Vec::new();
    let mut finished = None;
    for (delta, (name, data)) in anthropic_call(&pieces).iter().enumerate() {
        decoder
            .push(name, data, &mut |event| {
                let Some(call) = calls.read(&event) else {
                    return;
                };
                let arguments = call.arguments();
                if path_known_at.is_none()
                    && let Some(path) = arguments.get::<std::path::PathBuf>("path")
                {
                    assert_eq!(path, Path::new("src/main.rs"));
                    path_known_at = Some(delta);
                }
                content_seen.push(arguments.str_so_far("content").unwrap_or("").len());
                if let StreamEvent::ToolCallFinished { call, .. } = event {
                    finished = Some(call);
                }
            })
            .unwrap();
    }
    // The path is complete with the third piece, event 3 (`{"path":"src/main.rs"` is 21 bytes),
    // long before the content.
    assert_eq!(path_known_at, Some(3));
    // The content filled in, never shrinking, to all of it.
    assert!(content_seen.windows(2).all(|pair| pair[0] <= pair[1]));
    assert_eq!(content_seen.last(), Some(&content.len()));
    assert!(
        content_seen
            .iter()
            .filter(|&&len| len > 0 && len < content.len())
            .count()
            > 100
    );
    // The finished call is the tool's, and its arguments are the typed ones shown on the way.
    let toolbox = Toolbox::new().with(WriteFile);
    let result = toolbox.dispatch_blocking(&finished.unwrap());
    assert_eq!(
        result.content,
        format!("replaced {} bytes to src/main.rs", content.len())
    );
    assert!(!result.is_error);
}

#[test]
fn arguments_that_break_mid_stream_say_where_and_the_call_still_gets_a_tool_error() {
    // The model forgot the comma between two members.
    let pieces = [r#"{"path": "a.txt""#, r#" "content": "#, r#""hi"}"#];
    let events: Vec<(String, String)> = [
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "write_file", "arguments": pieces[0]}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": pieces[1]}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": pieces[2]}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
    ]
    .iter()
    .map(|chunk| ("message".to_owned(), chunk.to_string()))
    .chain([("message".to_owned(), "[DONE]".to_owned())])
    .collect();
    let mut decoder = OpenAiChat::default().stream_decoder();
    let mut calls = PartialCalls::new();
    let mut errors = Vec::new();
    let mut finished: Option<ToolCall> = None;
    let mut sink = |event: StreamEvent| {
        if let Some(call) = calls.read(&event) {
            errors.push(call.arguments().error().map(ToString::to_string));
        }
        if let StreamEvent::ToolCallFinished { call, .. } = event {
            finished = Some(call);
        }
    };
    for (name, data) in &events {
        decoder.push(name, data, &mut sink).unwrap();
    }
    let response = decoder.finish(&mut sink).unwrap();
    let broken =
        "the tool call's arguments are not JSON from byte 17 on: expected `,` or `}`, found `\"`";
    assert_eq!(
        errors,
        [
            None,
            None,
            Some(broken.to_owned()),
            Some(broken.to_owned()),
            Some(broken.to_owned()),
        ]
    );
    // What came before the break stays readable.
    let partial = calls.get(0).unwrap();
    assert_eq!(
        partial.arguments().to_value(),
        Some(json!({"path": "a.txt"}))
    );
    // The stream is not poisoned: it finishes, and the call goes the usual way, to a tool error
    // that tells the model what to fix.
    let call = finished.unwrap();
    assert_eq!(response.message.tool_calls().next(), Some(&call));
    let result = Toolbox::new().with(WriteFile).dispatch_blocking(&call);
    assert!(result.is_error);
    assert!(result.content.starts_with("ERROR: "), "{}", result.content);
    assert!(result.content.contains("write_file"), "{}", result.content);
}
