//! The streaming decoders, fed the recorded streams in `tests/fixtures/stream/<provider>/`.
//!
//! Each `<name>.sse` is a response body as a provider streamed it; beside it, `<name>.json` is
//! the body the same answer has unstreamed (for a stream that ends in an error, the expected
//! error is in [`expected_error`] instead). Every fixture, streamed event by event, must finish
//! into exactly what the adapter's `decode` gives for the unstreamed body, and its events must
//! tell the same answer. A stream cut anywhere must give an error or a correct prefix of the
//! events, never a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{STREAMING, streaming};
use proptest::prelude::*;
use serde_json::{Value, json};
use skyl::ToolCall;
use skyl::provider::{
    DecodeError, Gemini, Provider, Response, StopReason, Usage,
    stream::{SseParser, StreamEvent, Streaming},
};

fn dir(provider: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("stream")
        .join(provider)
}

/// The stream fixtures of `provider`: name → raw bytes.
fn streams(provider: &str) -> BTreeMap<String, Vec<u8>> {
    let mut streams = BTreeMap::new();
    for entry in std::fs::read_dir(dir(provider)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "sse") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            streams.insert(name, std::fs::read(&path).unwrap());
        }
    }
    assert!(!streams.is_empty(), "no fixtures for {provider}");
    streams
}

fn unstreamed(provider: &str, name: &str) -> Option<Value> {
    let text = std::fs::read_to_string(dir(provider).join(format!("{name}.json"))).ok()?;
    Some(serde_json::from_str(&text).unwrap())
}

/// The server-sent events of a body, as (name, data).
fn sse_events(bytes: &[u8]) -> Vec<(String, String)> {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    parser
        .feed(bytes, |event| {
            events.push((event.event.clone(), event.data.clone()))
        })
        .unwrap();
    events
}

/// What a decoder made of `events`: the stream events it told, and how it finished.
struct Outcome {
    told: Vec<StreamEvent>,
    /// How many of `told` came before `finish`.
    told_before_finish: usize,
    result: Result<Response, DecodeError>,
}

fn decode_events(provider: &str, events: &[(String, String)]) -> Outcome {
    let mut decoder = streaming(provider).stream_decoder();
    let mut told = Vec::new();
    for (name, data) in events {
        if let Err(error) = decoder.push(name, data, &mut |event| told.push(event)) {
            let told_before_finish = told.len();
            return Outcome {
                told,
                told_before_finish,
                result: Err(error),
            };
        }
    }
    let told_before_finish = told.len();
    let result = decoder.finish(&mut |event| told.push(event));
    Outcome {
        told,
        told_before_finish,
        result,
    }
}

/// The streams that end in an error, and the error.
fn expected_error(provider: &str, name: &str) -> Option<DecodeError> {
    let error = match (provider, name) {
        ("anthropic", "overloaded_mid_stream") => DecodeError::Provider {
            provider: Provider::Anthropic,
            kind: Some("overloaded_error".into()),
            message: "Overloaded".into(),
        },
        ("openai_chat", "groq_error_event") => DecodeError::Provider {
            provider: Provider::OpenAiChat,
            kind: Some("invalid_request_error".into()),
            message: "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'invalid_param' not allowed]".into(),
        },
        ("openai_chat", "openrouter_error_chunk") => DecodeError::Provider {
            provider: Provider::OpenAiChat,
            kind: Some("400".into()),
            message: "Token limit reached".into(),
        },
        ("openai_responses", "failed") => DecodeError::Provider {
            provider: Provider::OpenAiResponses,
            kind: Some("server_error".into()),
            message: "The server had an error processing your request. Sorry about that!".into(),
        },
        ("openai_responses", "error_event") => DecodeError::Provider {
            provider: Provider::OpenAiResponses,
            kind: Some("rate_limit_exceeded".into()),
            message: "Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM). Please try again in 20s.".into(),
        },
        ("gemini", "overloaded_mid_stream") => DecodeError::Provider {
            provider: Provider::Gemini,
            kind: Some("UNAVAILABLE".into()),
            message: "The model is overloaded. Please try again later.".into(),
        },
        _ => return None,
    };
    Some(error)
}

/// The events tell the same answer as `response`: the text, each call started once, its
/// argument pieces, finished as the response holds it, then the usage and the end.
fn assert_events_tell(context: &str, told: &[StreamEvent], response: &Response) {
    let text: String = told
        .iter()
        .filter_map(|event| match event {
            StreamEvent::TextDelta(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    // Text with a provider's signature (`Part::ProviderText`) is text the model wrote too.
    assert_eq!(
        text,
        response.message.text_content(),
        "{context}: the text deltas"
    );

    let calls: Vec<&ToolCall> = response.message.tool_calls().collect();
    let mut finished = Vec::new();
    for (position, event) in told.iter().enumerate() {
        if let StreamEvent::ToolCallFinished { index, call } = event {
            let started = told[..position].iter().find_map(|event| match event {
                StreamEvent::ToolCallStarted { index: i, id, name } if i == index => {
                    Some((id, name))
                }
                _ => None,
            });
            assert_eq!(
                started,
                Some((&call.id, &call.name)),
                "{context}: call {index} finished without its start"
            );
            let pieces: String = told[..position]
                .iter()
                .filter_map(|event| match event {
                    StreamEvent::ToolCallDelta {
                        index: i,
                        arguments,
                    } if i == index => Some(arguments.as_str()),
                    _ => None,
                })
                .collect();
            let joined: Value =
                serde_json::from_str(&pieces).unwrap_or_else(|_| Value::String(pieces.clone()));
            let arguments = match &call.arguments {
                Value::String(raw) => serde_json::from_str(raw).unwrap_or(call.arguments.clone()),
                other => other.clone(),
            };
            let empty = json!({});
            assert!(
                joined == arguments || (pieces.is_empty() && arguments == empty),
                "{context}: the argument pieces of call {index} ({pieces:?}) are not its arguments {arguments}"
            );
            finished.push(call.clone());
        }
    }
    let mut expected: Vec<ToolCall> = calls.into_iter().cloned().collect();
    let mut finished_sorted = finished.clone();
    let key = |call: &ToolCall| call.id.clone();
    expected.sort_by_key(key);
    finished_sorted.sort_by_key(key);
    assert_eq!(
        finished_sorted, expected,
        "{context}: every call finished once"
    );
    let starts = told
        .iter()
        .filter(|event| matches!(event, StreamEvent::ToolCallStarted { .. }))
        .count();
    assert_eq!(starts, expected.len(), "{context}: every call started once");
    assert_eq!(
        &told[told.len() - 2..],
        &[
            StreamEvent::Usage(response.usage.clone()),
            StreamEvent::Done {
                stop_reason: response.stop_reason.clone()
            }
        ],
        "{context}: the stream ends with the usage and the end"
    );
}

#[test]
fn every_fixture_streamed_equals_the_same_answer_unstreamed() {
    let mut checked = 0;
    for provider in STREAMING {
        for (name, bytes) in streams(provider) {
            let context = format!("{provider}/{name}");
            let outcome = decode_events(provider, &sse_events(&bytes));
            match (unstreamed(provider, &name), expected_error(provider, &name)) {
                (Some(body), None) => {
                    let expected = streaming(provider).decode(&body);
                    assert_eq!(outcome.result, expected, "{context}");
                    if let Ok(response) = &outcome.result {
                        assert_events_tell(&context, &outcome.told, response);
                    }
                }
                (None, Some(error)) => assert_eq!(outcome.result, Err(error), "{context}"),
                _ => panic!("{context}: give the fixture either a .json body or an expected error"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} fixtures");
}

fn started(index: usize, id: &str, name: &str) -> StreamEvent {
    StreamEvent::ToolCallStarted {
        index,
        id: id.into(),
        name: name.into(),
    }
}

fn delta(index: usize, arguments: &str) -> StreamEvent {
    StreamEvent::ToolCallDelta {
        index,
        arguments: arguments.into(),
    }
}

fn finished(index: usize, call: ToolCall) -> StreamEvent {
    StreamEvent::ToolCallFinished { index, call }
}

fn told(provider: &str, name: &str) -> Vec<StreamEvent> {
    let bytes = &streams(provider)[name];
    let outcome = decode_events(provider, &sse_events(bytes));
    outcome.result.unwrap();
    outcome.told
}

#[test]
fn anthropic_calls_finish_at_their_block_stop_before_the_message_ends() {
    let paris = ToolCall::new(
        "toolu_01A09q90qw90lq917835lq9",
        "get_weather",
        json!({"city": "Paris", "days": 2}),
    );
    let time = ToolCall::new("toolu_01B7xKq3Lh2Ye8Wq5nVbM4zT", "get_time", json!({}));
    assert_eq!(
        told("anthropic", "parallel_calls"),
        vec![
            StreamEvent::TextDelta("I'll check both cities".into()),
            StreamEvent::TextDelta(" at once.".into()),
            started(0, "toolu_01A09q90qw90lq917835lq9", "get_weather"),
            delta(0, "{\"city\": \"Pa"),
            delta(0, "ris\", \"days\": 2}"),
            finished(0, paris),
            started(1, "toolu_01B7xKq3Lh2Ye8Wq5nVbM4zT", "get_time"),
            finished(1, time),
            StreamEvent::Usage(
                Usage::new(540, 87)
                    .with_cached_input_tokens(128)
                    .with_cache_write_tokens(0)
            ),
            StreamEvent::Done {
                stop_reason: StopReason::ToolUse
            },
        ]
    );
}

#[test]
fn anthropic_thinking_streams_as_reasoning_and_keeps_its_signature() {
    let events = told("anthropic", "thinking_and_code_execution");
    let reasoning: String = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::ReasoningDelta(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(reasoning, "Let me calculate this mathematical expression.");
}

#[test]
fn openai_chat_interleaved_fragments_are_kept_apart_by_index() {
    assert_eq!(
        told("openai_chat", "interleaved_calls"),
        vec![
            StreamEvent::TextDelta("Looking up both.".into()),
            started(0, "call_a", "get_weather"),
            delta(0, "{\"ci"),
            started(1, "call_b", "get_weather"),
            delta(1, "{\"city\""),
            delta(0, "ty\":\"Paris\"}"),
            delta(1, ":\"Rome\"}"),
            finished(
                0,
                ToolCall::new("call_a", "get_weather", json!({"city": "Paris"}))
            ),
            finished(
                1,
                ToolCall::new("call_b", "get_weather", json!({"city": "Rome"}))
            ),
            StreamEvent::Usage(Usage::new(80, 30)),
            StreamEvent::Done {
                stop_reason: StopReason::ToolUse
            },
        ]
    );
}

#[test]
fn calls_without_ids_are_told_whole_at_the_end_with_the_ids_the_answer_mints() {
    for (provider, name) in [
        ("openai_chat", "calls_without_ids"),
        ("gemini", "parallel_calls_without_ids"),
    ] {
        let events = told(provider, name);
        let response = streaming(provider)
            .decode(&unstreamed(provider, name).unwrap())
            .unwrap();
        let calls: Vec<ToolCall> = response.message.tool_calls().cloned().collect();
        assert_eq!(calls.len(), 2, "{provider}");
        let tail: Vec<StreamEvent> = calls
            .iter()
            .enumerate()
            .flat_map(|(index, call)| {
                [
                    started(index, &call.id, &call.name),
                    delta(index, &call.arguments.to_string()),
                    finished(index, call.clone()),
                ]
            })
            .chain([
                StreamEvent::Usage(response.usage.clone()),
                StreamEvent::Done {
                    stop_reason: StopReason::ToolUse,
                },
            ])
            .collect();
        assert_eq!(events[events.len() - tail.len()..], tail[..], "{provider}");
    }
}

#[test]
fn gemini_calls_with_ids_finish_as_soon_as_they_arrive() {
    let mut decoder = Gemini::default().stream_decoder();
    let events = sse_events(&streams("gemini")["call_with_id"]);
    let mut told = Vec::new();
    decoder
        .push(&events[0].0, &events[0].1, &mut |event| told.push(event))
        .unwrap();
    let StreamEvent::ToolCallFinished { call, .. } = told.last().unwrap() else {
        panic!("{told:?}");
    };
    assert_eq!(
        (call.id.as_str(), &call.arguments),
        ("fc_k2x91", &json!({"city": "Lima"}))
    );
    assert!(call.provider_data.is_some(), "the thought signature stays");
}

#[test]
fn openai_responses_reasoning_summaries_stream_as_reasoning() {
    let events = told("openai_responses", "reasoning_summary");
    let reasoning = events
        .iter()
        .filter(|event| matches!(event, StreamEvent::ReasoningDelta(_)))
        .count();
    assert!(reasoning > 100, "{reasoning}");
}

fn error_text(provider: &str, events: &[(&str, &str)]) -> String {
    let mut decoder = streaming(provider).stream_decoder();
    for (name, data) in events {
        if let Err(error) = decoder.push(name, data, &mut |_| {}) {
            // A failed decoder keeps failing, with the same error.
            assert_eq!(
                decoder.push("message", "{}", &mut |_| {}),
                Err(error.clone())
            );
            return error.to_string();
        }
    }
    decoder.finish(&mut |_| {}).unwrap_err().to_string()
}

#[test]
fn malformed_and_cut_streams_say_which_event() {
    let start = r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{}}}"#;
    let cases = [
        (
            error_text(
                "anthropic",
                &[
                    ("message_start", start),
                    (
                        "content_block_start",
                        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}"#,
                    ),
                ],
            ),
            "cannot read the Anthropic response: event 2 of the stream (content_block_start), its data (EOF while parsing an object at line 1 column 81): expected JSON, found JSON cut short; is this body from the Anthropic API?",
        ),
        (
            error_text(
                "anthropic",
                &[
                    ("message_start", start),
                    (
                        "content_block_delta",
                        r#"{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}"#,
                    ),
                ],
            ),
            "cannot read the Anthropic response: event 2 of the stream (content_block_delta), block 3: expected events in the documented order, found an event for a block that never started; is this body from the Anthropic API?",
        ),
        (
            error_text(
                "anthropic",
                &[
                    ("message_start", start),
                    (
                        "content_block_start",
                        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"f","input":{}}}"#,
                    ),
                    (
                        "content_block_delta",
                        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\": "}}"#,
                    ),
                    (
                        "content_block_stop",
                        r#"{"type":"content_block_stop","index":0}"#,
                    ),
                ],
            ),
            "cannot read the Anthropic response: event 4 of the stream (content_block_stop), the input of block 0 (EOF while parsing a value at line 1 column 6): expected the JSON of its input_json_delta pieces, found malformed JSON; is this body from the Anthropic API?",
        ),
        (
            error_text(
                "anthropic",
                &[("message_start", start), ("ping", r#"{"type": "ping"}"#)],
            ),
            "cannot read the Anthropic response: the stream, after event 2 (ping): expected a message_stop event, found the end of the stream; is this body from the Anthropic API?",
        ),
        (
            error_text(
                "openai_chat",
                &[(
                    "message",
                    r#"{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
                )],
            ),
            "cannot read the OpenAI Chat response: the stream, after event 1 (message): expected data: [DONE], found the end of the stream; is this body from the OpenAI Chat API?",
        ),
        (
            error_text(
                "openai_chat",
                &[(
                    "message",
                    r#"{"choices":[{"index":0,"delta":{"content":7}}]}"#,
                )],
            ),
            "cannot read the OpenAI Chat response: event 1 of the stream (message), its data (invalid type: integer `7`, expected a string at line 1 column 43): expected the documented shape, found a value of another type; is this body from the OpenAI Chat API?",
        ),
        (
            error_text(
                "openai_responses",
                &[(
                    "response.function_call_arguments.delta",
                    r#"{"type":"response.function_call_arguments.delta","output_index":0,"delta":"{"}"#,
                )],
            ),
            "cannot read the OpenAI Responses response: event 1 of the stream (response.function_call_arguments.delta), output item 0: expected events in the documented order, found a delta for an item that was never added; is this body from the OpenAI Responses API?",
        ),
        (
            error_text("gemini", &[]),
            "cannot read the Gemini response: the stream, before any event: expected a chunk with a finishReason, found the end of the stream; is this body from the Gemini API?",
        ),
        (
            error_text("gemini", &[("message", "not json")]),
            "cannot read the Gemini response: event 1 of the stream (message), its data (expected ident at line 1 column 2): expected JSON, found malformed JSON; is this body from the Gemini API?",
        ),
    ];
    let (actual, expected): (Vec<String>, Vec<&str>) = cases.into_iter().unzip();
    assert_eq!(actual, expected);
}

#[test]
fn a_call_that_ends_under_another_name_or_id_than_it_started_is_an_error() {
    // Found by fuzzing: the decoder told `get_weather` started and `get_time` finished under the
    // same index, so a listener would have shown one call as two. Each way the name or id can
    // change is refused, where it changes.
    let added = r#"{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":""}}"#;
    let done = |name: &str, call_id: &str| {
        format!(
            r#"{{"type":"response.output_item.done","output_index":0,"item":{{"type":"function_call","id":"fc_1","call_id":"{call_id}","name":"{name}","arguments":"{{}}"}}}}"#
        )
    };
    let completed = |name: &str| {
        format!(
            r#"{{"type":"response.completed","response":{{"id":"r","status":"completed","output":[{{"type":"function_call","id":"fc_1","call_id":"call_1","name":"{name}","arguments":"{{}}"}}]}}}}"#
        )
    };
    let (renamed, new_id) = (done("get_time", "call_1"), done("get_weather", "call_2"));
    let in_the_answer = completed("get_time");
    let cases = [
        (
            error_text(
                "openai_responses",
                &[
                    ("response.output_item.added", added),
                    ("response.output_item.done", &renamed),
                ],
            ),
            "cannot read the OpenAI Responses response: event 2 of the stream (response.output_item.done), tool call \"call_1\" (get_time): expected the id and name the call started with, found another id or name; is this body from the OpenAI Responses API?",
        ),
        (
            error_text(
                "openai_responses",
                &[
                    ("response.output_item.added", added),
                    ("response.output_item.done", &new_id),
                ],
            ),
            "cannot read the OpenAI Responses response: event 2 of the stream (response.output_item.done), tool call \"call_2\" (get_weather): expected the id and name the call started with, found another id or name; is this body from the OpenAI Responses API?",
        ),
        (
            // Not finished before the end: the complete answer names it otherwise.
            error_text(
                "openai_responses",
                &[
                    ("response.output_item.added", added),
                    ("response.completed", &in_the_answer),
                ],
            ),
            "cannot read the OpenAI Responses response: the answer the stream built, tool call \"call_1\" (get_time): expected the id and name the call started with, found another id or name; is this body from the OpenAI Responses API?",
        ),
    ];
    let (actual, expected): (Vec<String>, Vec<&str>) = cases.into_iter().unzip();
    assert_eq!(actual, expected);
}

#[test]
fn a_provider_error_mid_stream_is_the_providers_own_words() {
    let bytes = &streams("anthropic")["overloaded_mid_stream"];
    let outcome = decode_events("anthropic", &sse_events(bytes));
    assert_eq!(
        outcome.result.unwrap_err().to_string(),
        "the Anthropic API answered with an error (overloaded_error): Overloaded"
    );
    assert_eq!(outcome.told, vec![StreamEvent::TextDelta("Let me".into())]);
}

/// The stream of `provider`/`name` cut after `cut` bytes gives a correct prefix of the whole
/// stream's events, and finishes into the whole answer only if the cut came after the end.
fn check_cut(provider: &str, bytes: &[u8], whole: &Outcome, cut: usize) {
    let events = sse_events(&bytes[..cut]);
    let outcome = decode_events(provider, &events);
    let prefix = &outcome.told[..outcome.told_before_finish];
    assert!(
        whole.told.starts_with(prefix),
        "{provider}: cut at byte {cut}: the events are not a prefix of the whole stream's"
    );
    match &outcome.result {
        // A Chat Completions body may end cleanly after the chunk with the `finish_reason`, as
        // compatible servers end it: a whole answer, but what came after (the usage chunk, an
        // error a server sends late) is not known, and the usage says so.
        Ok(response) if provider == "openai_chat" && Ok(response) != whole.result.as_ref() => {
            assert!(
                response.usage.unreported,
                "{provider}: cut at byte {cut} finished into another answer, with its usage"
            );
            if let Ok(whole) = &whole.result {
                assert_eq!(
                    (&response.message, &response.stop_reason),
                    (&whole.message, &whole.stop_reason),
                    "{provider}: cut at byte {cut} finished into another answer"
                );
            }
        }
        Ok(response) => {
            assert_eq!(
                Ok(response),
                whole.result.as_ref(),
                "{provider}: cut at byte {cut} finished into another answer"
            );
            assert_eq!(outcome.told, whole.told, "{provider}: cut at byte {cut}");
        }
        Err(_) => {
            assert!(
                outcome.told_before_finish == outcome.told.len(),
                "{provider}: cut at byte {cut}: events told by a finish that failed"
            );
        }
    }
}

/// The byte offsets just after each event of `bytes` (where a cut leaves whole events).
fn event_boundaries(bytes: &[u8]) -> Vec<usize> {
    let mut boundaries = vec![0];
    let mut count = 0;
    let mut parser = SseParser::new();
    for (offset, byte) in bytes.iter().enumerate() {
        parser
            .feed(std::slice::from_ref(byte), |_| count += 1)
            .unwrap();
        if count > boundaries.len() - 1 {
            boundaries.push(offset + 1);
        }
    }
    boundaries
}

#[test]
fn a_stream_cut_at_any_event_boundary_is_an_error_or_a_correct_prefix() {
    for provider in STREAMING {
        for (name, bytes) in streams(provider) {
            let whole = decode_events(provider, &sse_events(&bytes));
            let boundaries = event_boundaries(&bytes);
            assert!(boundaries.len() > 1, "{provider}/{name}");
            for cut in boundaries {
                check_cut(provider, &bytes, &whole, cut);
            }
        }
    }
}

fn all_streams() -> Vec<(&'static str, Vec<u8>)> {
    STREAMING
        .iter()
        .flat_map(|provider| {
            streams(provider)
                .into_values()
                .map(move |bytes| (*provider, bytes))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_stream_cut_at_random_bytes_is_an_error_or_a_correct_prefix(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
    ) {
        let streams = all_streams();
        let (provider, bytes) = &streams[pick.index(streams.len())];
        let whole = decode_events(provider, &sse_events(bytes));
        check_cut(provider, bytes, &whole, at.index(bytes.len() + 1));
    }

    #[test]
    fn a_stream_with_a_byte_changed_never_panics(
        pick in any::<prop::sample::Index>(),
        at in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let streams = all_streams();
        let (provider, bytes) = &streams[pick.index(streams.len())];
        let mut bytes = bytes.clone();
        let at = at.index(bytes.len());
        bytes[at] = byte;
        let _ = decode_events(provider, &sse_events(&bytes));
    }

    #[test]
    fn any_events_never_panic(
        provider in prop::sample::select(STREAMING.to_vec()),
        events in prop::collection::vec(("[a-z_.]{0,12}", any_event_data()), 0..12),
    ) {
        let _ = decode_events(provider, &events);
    }
}

/// Event data that is usually JSON of the shapes the decoders read, with wrong types mixed in.
fn any_event_data() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        (0u64..4).prop_map(Value::from),
        "[a-z_.{}\"]{0,6}".prop_map(Value::from),
        prop::sample::select(vec![
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
            "error",
            "text_delta",
            "input_json_delta",
            "tool_use",
            "text",
            "thinking",
            "function_call",
            "response.output_item.added",
            "response.output_item.done",
            "response.function_call_arguments.delta",
            "response.completed",
            "response.failed",
            "STOP",
            "[DONE]",
        ])
        .prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type",
                    "index",
                    "delta",
                    "content_block",
                    "message",
                    "usage",
                    "text",
                    "partial_json",
                    "id",
                    "name",
                    "input",
                    "choices",
                    "tool_calls",
                    "function",
                    "arguments",
                    "finish_reason",
                    "output_index",
                    "item",
                    "call_id",
                    "response",
                    "output",
                    "candidates",
                    "content",
                    "parts",
                    "functionCall",
                    "args",
                    "finishReason",
                    "error",
                    "thought",
                    "thoughtSignature",
                ]),
                inner,
                0..4,
            )
            .prop_map(|map| Value::Object(
                map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
            )),
        ]
    });
    prop_oneof![
        value.prop_map(|value| value.to_string()),
        Just("[DONE]".to_owned()),
        "[ -~]{0,20}",
    ]
}

#[test]
fn an_anthropic_call_that_opens_with_its_whole_input_tells_it_as_one_piece() {
    let events = [
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":3,"output_tokens":1}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Oslo"}}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ];
    let events: Vec<(String, String)> = events
        .iter()
        .map(|(name, data)| ((*name).to_owned(), (*data).to_owned()))
        .collect();
    let outcome = decode_events("anthropic", &events);
    let response = outcome.result.unwrap();
    assert_events_tell("anthropic/whole input", &outcome.told, &response);
    assert_eq!(outcome.told[1], delta(0, r#"{"city":"Oslo"}"#));
}

/// Cache reads and writes, and reasoning, reach the same `Usage` from every provider's own
/// names, in the whole answer and in the streamed one (the stream tells it as its usage event).
#[test]
fn cache_reads_writes_and_reasoning_are_decoded_whole_and_streamed() {
    let cases = [
        (
            "anthropic",
            "cache_read_and_write",
            // 20 uncached + 2048 read + 512 written.
            Usage::new(2580, 5)
                .with_cached_input_tokens(2048)
                .with_cache_write_tokens(512),
        ),
        (
            "openai_chat",
            "cached_prompt",
            Usage::new(2062, 8)
                .with_cached_input_tokens(1920)
                .with_reasoning_tokens(0),
        ),
        (
            "openai_responses",
            "cached_input",
            Usage::new(2326, 9)
                .with_cached_input_tokens(2048)
                .with_reasoning_tokens(0),
        ),
        (
            "gemini",
            "cached_content",
            // 8 of the answer + 24 of thoughts, both billed as output.
            Usage::new(2061, 32)
                .with_cached_input_tokens(2048)
                .with_reasoning_tokens(24),
        ),
    ];
    for (provider, name, expected) in cases {
        let whole = streaming(provider)
            .decode(&unstreamed(provider, name).unwrap())
            .unwrap();
        assert_eq!(whole.usage, expected, "{provider}/{name} whole");
        let outcome = decode_events(provider, &sse_events(&streams(provider)[name]));
        assert_eq!(
            outcome.result.unwrap().usage,
            expected,
            "{provider}/{name} streamed"
        );
        assert!(
            outcome.told.contains(&StreamEvent::Usage(expected.clone())),
            "{provider}/{name}: the stream tells its usage"
        );
    }
}
