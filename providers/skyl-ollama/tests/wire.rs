//! Ollama's bodies, whole documents: what the adapter encodes for a transcript, what it decodes
//! from an answer, and that a streamed answer decodes to the same one.

use std::path::Path;

use serde_json::{Value, json};
use skyl::provider::{
    Adapter, DecodeError, Request, Response, StopReason, ToolChoice, Usage,
    stream::{JsonLinesParser, StreamEvent, Streaming},
};
use skyl::{
    Content, Message, Part, Role, ToolCall, ToolDefinition, ToolResult,
    content::{Audio, Document, Image, Resource, ResourceLink, ResultContent},
    transcript::ProviderData,
};
use skyl_ollama::{Ollama, PROVIDER};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Current weather in a city.",
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    )
}

#[test]
fn a_transcript_is_encoded_in_ollamas_shapes() {
    let thinking = ProviderData::new(PROVIDER, json!({"thinking": "Two cities."}));
    let request = Request::new(
        "qwen3",
        vec![
            Message::system("Answer in Celsius."),
            Message::user("Weather in Paris and Kampala?"),
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Provider(thinking),
                    Part::Text("Checking.".into()),
                    Part::ToolCall(ToolCall::new("c1", "get_weather", json!({"city": "Paris"}))),
                    // Arguments kept as the model's text stay what they mean.
                    Part::ToolCall(ToolCall::new(
                        "c2",
                        "get_weather",
                        json!("{\"city\": \"Kampala\"}"),
                    )),
                ],
            },
            Message {
                role: Role::Tool,
                parts: vec![
                    Part::ToolResult(ToolResult::success("c1", "18C")),
                    Part::ToolResult(ToolResult::error("c2", "the weather service timed out")),
                ],
            },
        ],
    )
    .with_system("You are terse.")
    .with_tools(vec![weather()])
    .with_max_tokens(100);
    assert_eq!(
        Ollama.encode(&request).unwrap(),
        json!({
            "model": "qwen3",
            "messages": [
                {"role": "system", "content": "You are terse.\n\nAnswer in Celsius."},
                {"role": "user", "content": "Weather in Paris and Kampala?"},
                {
                    "role": "assistant",
                    "content": "Checking.",
                    "thinking": "Two cities.",
                    "tool_calls": [
                        {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                        {"function": {"name": "get_weather", "arguments": {"city": "Kampala"}}}
                    ]
                },
                {"role": "tool", "content": "18C", "tool_name": "get_weather"},
                {"role": "tool", "content": "error: the weather service timed out", "tool_name": "get_weather"}
            ],
            "tools": [{
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Current weather in a city.",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
                }
            }],
            "stream": false,
            "options": {"num_predict": 100}
        })
    );
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
const PNG_BASE64: &str = "iVBORw0KGgo=";
const JPEG: &[u8] = &[0xff, 0xd8, 0xff, 0xe0];
const JPEG_BASE64: &str = "/9j/4A==";

#[test]
fn a_results_images_go_in_images_and_every_other_part_is_a_line_saying_what_it_was() {
    let not_sent = |what: &str, why: &str| {
        format!(
            "[The tool also returned {what}, which was not sent: Ollama {why}. If it matters, tell the user it could not be shown.]"
        )
    };
    let request = Request::new(
        "qwen3",
        vec![
            Message::user("The chart and the report?"),
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::ToolCall(ToolCall::new("c1", "chart", json!({}))),
                    Part::ToolCall(ToolCall::new("c2", "report", json!({}))),
                ],
            },
            Message {
                role: Role::Tool,
                parts: vec![
                    // An image and no text: the image is the answer.
                    Part::ToolResult(ToolResult::success("c1", "")),
                    Part::ResultContent(ResultContent::new("c1", vec![Image::png(PNG).into()])),
                    Part::ToolResult(ToolResult::success("c2", "The report.")),
                    Part::ResultContent(ResultContent::new(
                        "c2",
                        vec![
                            Document::pdf(b"%PDF-1.4").with_title("q3.pdf").into(),
                            // A JPEG as an MCP server may send it.
                            Resource::blob("file:///photo.jpg", "image/jpeg", JPEG).into(),
                            Image::url("https://example.com/map.png").into(),
                            Image::gif(b"GIF89a").into(),
                            Audio::wav(b"RIFF\x24\0\0\0WAVEfmt ").into(),
                            ResourceLink::new("file:///notes.md", "notes.md").into(),
                            Content::text("That is all."),
                        ],
                    )),
                ],
            },
        ],
    );
    let report = [
        "The report.".to_owned(),
        not_sent(
            "a document \"q3.pdf\" (application/pdf, 8 bytes)",
            "takes no documents",
        ),
        not_sent(
            "an image at https://example.com/map.png",
            "takes images only as bytes, not at a URL",
        ),
        not_sent(
            "an image (image/gif, 6 bytes)",
            "takes only PNG and JPEG images",
        ),
        not_sent("audio (audio/wav, 16 bytes)", "takes no audio"),
        "[a resource link file:///notes.md: notes.md]".to_owned(),
        "That is all.".to_owned(),
    ]
    .join("\n");
    assert_eq!(
        Ollama.encode(&request).unwrap(),
        json!({
            "model": "qwen3",
            "messages": [
                {"role": "user", "content": "The chart and the report?"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"function": {"name": "chart", "arguments": {}}},
                    {"function": {"name": "report", "arguments": {}}}
                ]},
                {"role": "tool", "content": "", "images": [PNG_BASE64], "tool_name": "chart"},
                {"role": "tool", "content": report, "images": [JPEG_BASE64], "tool_name": "report"}
            ],
            "stream": false
        })
    );
}

#[test]
fn no_tool_choice_sends_no_tools_and_a_bad_transcript_is_refused_before_a_body() {
    let mut request = Request::new("qwen3", vec![Message::user("Hi")])
        .with_tools(vec![weather()])
        .with_tool_choice(ToolChoice::None);
    assert_eq!(
        Ollama.encode(&request).unwrap(),
        json!({"model": "qwen3", "messages": [{"role": "user", "content": "Hi"}], "stream": false})
    );
    // A call without its result: the driver's check, which every provider gets.
    request.messages = vec![
        Message::user("Hi"),
        Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall::new(
                "c1",
                "get_weather",
                json!({}),
            ))],
        },
    ]
    .into();
    let error = Ollama.encode(&request).unwrap_err();
    assert_eq!(error.provider(), PROVIDER);
    assert_eq!(error.call_id(), Some("c1"));
}

#[test]
fn an_answer_with_a_call_decodes_with_a_minted_id_and_its_thinking_kept() {
    let body: Value = serde_json::from_slice(&fixture("calls.json")).unwrap();
    let response = Ollama.decode(&body).unwrap();
    let id = response.message.tool_calls().next().unwrap().id.clone();
    assert!(id.starts_with("call_"), "{id}");
    assert_eq!(
        response,
        Response::new(
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::Provider(ProviderData::new(
                        PROVIDER,
                        json!({"thinking": "The user wants the weather in Paris."})
                    )),
                    Part::ToolCall(ToolCall::new(id, "get_weather", json!({"city": "Paris"}))),
                ],
            },
            // Ollama says "stop" for a call; an answer with calls stops for them.
            StopReason::ToolUse,
        )
        .with_usage(Usage::new(122, 33))
        .with_model("qwen3")
    );
    // The same body always gives the same id.
    assert_eq!(Ollama.decode(&body).unwrap(), response);
}

#[test]
fn an_error_body_is_the_providers_error() {
    let error = Ollama
        .decode(&json!({"error": "model \"qwen9\" not found, try pulling it first"}))
        .unwrap_err();
    assert_eq!(
        error,
        DecodeError::Provider {
            provider: PROVIDER,
            kind: None,
            message: "model \"qwen9\" not found, try pulling it first".into(),
        }
    );
    assert_eq!(
        error.to_string(),
        "the Ollama API answered with an error: model \"qwen9\" not found, try pulling it first"
    );
}

/// The events and the answer of a stream, its lines cut at `cut`.
fn stream(name: &str, cut: usize) -> (Vec<StreamEvent>, Result<Response, DecodeError>) {
    let bytes = fixture(name);
    let mut parser = JsonLinesParser::new();
    let mut decoder = Ollama.stream_decoder();
    let mut events = Vec::new();
    for piece in [&bytes[..cut], &bytes[cut..]] {
        parser
            .try_feed(piece, |line| {
                decoder.push("message", line, &mut |e| events.push(e))
            })
            .unwrap();
    }
    parser
        .try_finish(|line| decoder.push("message", line, &mut |e| events.push(e)))
        .unwrap();
    let response = decoder.finish(&mut |e| events.push(e));
    (events, response)
}

#[test]
fn a_streamed_answer_is_the_whole_answer() {
    let whole: Value = serde_json::from_slice(&fixture("answer.json")).unwrap();
    let whole = Ollama.decode(&whole).unwrap();
    let bytes = fixture("answer.ndjson").len();
    for cut in [0, 1, 50, bytes / 2, bytes] {
        let (events, response) = stream("answer.ndjson", cut);
        assert_eq!(response.unwrap(), whole, "cut at {cut}");
        assert_eq!(
            events,
            [
                StreamEvent::TextDelta("It is 22C".into()),
                StreamEvent::TextDelta(" and sunny in Paris.".into()),
                StreamEvent::Usage(Usage::new(160, 11)),
                StreamEvent::Done {
                    stop_reason: StopReason::EndTurn
                },
            ],
            "cut at {cut}"
        );
    }
}

#[test]
fn a_streamed_call_is_told_whole_with_the_id_of_the_answer() {
    let (events, response) = stream("calls.ndjson", 40);
    let response = response.unwrap();
    let call = response.message.tool_calls().next().unwrap().clone();
    assert_eq!(
        events,
        [
            StreamEvent::ReasoningDelta("The user wants ".into()),
            StreamEvent::ReasoningDelta("the weather in Paris.".into()),
            StreamEvent::ToolCallStarted {
                index: 0,
                id: call.id.clone(),
                name: "get_weather".into()
            },
            StreamEvent::ToolCallDelta {
                index: 0,
                arguments: r#"{"city":"Paris"}"#.into()
            },
            StreamEvent::ToolCallFinished { index: 0, call },
            StreamEvent::Usage(Usage::new(122, 33)),
            StreamEvent::Done {
                stop_reason: StopReason::ToolUse
            },
        ]
    );
}

#[test]
fn a_stream_cut_short_or_with_an_error_line_says_so() {
    let mut decoder = Ollama.stream_decoder();
    decoder
        .push(
            "message",
            r#"{"model":"qwen3","message":{"role":"assistant","content":"It"},"done":false}"#,
            &mut |_| {},
        )
        .unwrap();
    let error = decoder.finish(&mut |_| {}).unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot read the Ollama response: the stream, after event 1 (message): expected a last line with \"done\": true, found the end of the stream; is this body from the Ollama API?"
    );

    let mut decoder = Ollama.stream_decoder();
    let error = decoder
        .push(
            "message",
            r#"{"error":"an error was encountered while running the model"}"#,
            &mut |_| {},
        )
        .unwrap_err();
    assert_eq!(
        error,
        DecodeError::Provider {
            provider: PROVIDER,
            kind: None,
            message: "an error was encountered while running the model".into(),
        }
    );
}
