//! A result's content beyond text (images, audio, documents, resources, structured JSON) on each
//! wire, as whole request bodies: what each provider takes as it is, and the line of prose that
//! stands for what it cannot take.

use serde_json::{Value, json};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, caching::Caching,
};
use skyl::{
    Content, Message, Part, Role, ToolResult,
    content::{Audio, Document, Image, Resource, ResourceLink, ResultContent},
};

use crate::support::calling;
use crate::support::content_rows::{self, Wire, frame};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
const PNG_BASE64: &str = "iVBORw0KGgo=";
const PDF: &[u8] = b"%PDF-1.4";
const PDF_BASE64: &str = "JVBERi0xLjQ=";
const WAV: &[u8] = b"RIFF\x24\0\0\0WAVEfmt ";
const WAV_BASE64: &str = "UklGRiQAAABXQVZFZm10IA==";

/// Every kind of content, in the order a tool returned it.
fn every_kind() -> Vec<Content> {
    vec![
        Image::png(PNG).into(),
        Image::url("https://example.com/chart.jpg").into(),
        Document::pdf(PDF).with_title("report.pdf").into(),
        Document::url("https://example.com/paper.pdf").into(),
        Audio::wav(WAV).into(),
        ResourceLink::new("file:///notes.md", "notes.md")
            .with_description("the notes")
            .into(),
        Resource::text("file:///a.txt", "inside a").into(),
        Content::json(json!({"pages": 2})),
    ]
}

/// A user question, a call of `report`, and its result: "The report." and `content`.
fn request(content: Vec<Content>) -> Request<'static> {
    content_rows::answered_with("The report.", content)
}

fn encode(adapter: &dyn Adapter, content: Vec<Content>) -> Value {
    adapter.encode(&request(content)).unwrap()
}

#[test]
fn anthropic_puts_images_and_documents_in_the_tool_result_and_says_what_it_cannot_take() {
    assert_eq!(
        encode(&Anthropic, every_kind()),
        frame(
            Wire::Anthropic,
            json!([
                {"type": "text", "text": "The report."},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}},
                {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.jpg"}},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_BASE64}, "title": "report.pdf"},
                {"type": "document", "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
                {"type": "text", "text": "[The tool also returned audio (audio/wav, 16 bytes), which was not sent: Anthropic takes no audio in a tool result. If it matters, tell the user it could not be shown.]"},
                {"type": "text", "text": "[a resource link file:///notes.md: notes.md (the notes)]"},
                {"type": "text", "text": "[resource file:///a.txt]\ninside a"},
                {"type": "text", "text": "{\"pages\":2}"}
            ]),
        )
    );
}

#[test]
fn anthropic_says_an_image_over_its_five_megabytes_was_left_out() {
    let mut big = PNG.to_vec();
    big.resize(4_000_000, 0);
    let body = encode(&Anthropic, vec![Image::png(&big).into()]);
    assert_eq!(
        body["messages"][2]["content"][0]["content"],
        json!([
            {"type": "text", "text": "The report."},
            {"type": "text", "text": "[The tool also returned an image (image/png, 4000000 bytes), which was not sent: Anthropic takes images of at most 5 MB. If it matters, tell the user it could not be shown.]"}
        ])
    );
}

#[test]
fn openai_responses_puts_input_items_in_the_function_call_output() {
    assert_eq!(
        encode(&OpenAiResponses::default(), every_kind()),
        frame(
            Wire::OpenAiResponses,
            json!([
                {"type": "input_text", "text": "The report."},
                {"type": "input_image", "image_url": format!("data:image/png;base64,{PNG_BASE64}")},
                {"type": "input_image", "image_url": "https://example.com/chart.jpg"},
                {"type": "input_file", "file_data": format!("data:application/pdf;base64,{PDF_BASE64}"), "filename": "report.pdf"},
                {"type": "input_file", "file_url": "https://example.com/paper.pdf"},
                {"type": "input_text", "text": "[The tool also returned audio (audio/wav, 16 bytes), which was not sent: OpenAI Responses takes no audio in a function call's output. If it matters, tell the user it could not be shown.]"},
                {"type": "input_text", "text": "[a resource link file:///notes.md: notes.md (the notes)]"},
                {"type": "input_text", "text": "[resource file:///a.txt]\ninside a"},
                {"type": "input_text", "text": "{\"pages\":2}"}
            ]),
        )
    );
}

#[test]
fn gemini_puts_images_and_pdfs_in_the_function_response_and_audio_after_it() {
    assert_eq!(
        encode(&Gemini::default(), every_kind()),
        frame(
            Wire::Gemini,
            json!([
                {"functionResponse": {
                    "name": "report",
                    "response": {"output": "The report.\n[a resource link file:///notes.md: notes.md (the notes)]\n[resource file:///a.txt]\ninside a\n{\"pages\":2}"},
                    "id": "c1",
                    "parts": [
                        {"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}},
                        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/chart.jpg"}},
                        {"inlineData": {"mimeType": "application/pdf", "data": PDF_BASE64}},
                        {"fileData": {"mimeType": "application/pdf", "fileUri": "https://example.com/paper.pdf"}}
                    ]
                }},
                {"text": "The result of the tool call c1 came with this content, which the tool message could not hold:"},
                {"inlineData": {"mimeType": "audio/wav", "data": WAV_BASE64}}
            ]),
        )
    );
}

#[test]
fn openai_chat_sends_the_media_in_a_user_message_after_the_tool_messages() {
    let sent = |adapter: OpenAiChat, audio_line: &str, audio: Option<Value>| {
        let mut media = vec![
            json!({"type": "text", "text": "The result of the tool call c1 came with this content, which the tool message could not hold:"}),
            json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG_BASE64}")}}),
            json!({"type": "image_url", "image_url": {"url": "https://example.com/chart.jpg"}}),
            json!({"type": "file", "file": {"filename": "report.pdf", "file_data": format!("data:application/pdf;base64,{PDF_BASE64}")}}),
        ];
        media.extend(audio);
        assert_eq!(
            encode(&adapter, every_kind()),
            frame(
                Wire::OpenAiChat,
                json!([
                    {"role": "tool", "tool_call_id": "c1", "content": format!("The report.\n[The tool also returned a document at https://example.com/paper.pdf, which was not sent: OpenAI Chat takes documents only as bytes, not at a URL. If it matters, tell the user it could not be shown.]\n{audio_line}[a resource link file:///notes.md: notes.md (the notes)]\n[resource file:///a.txt]\ninside a\n{{\"pages\":2}}")},
                    {"role": "user", "content": media}
                ]),
            )
        );
    };
    // By default audio is a line: most Chat models take none, and would answer with a 400.
    sent(
        OpenAiChat::default(),
        "[The tool also returned audio (audio/wav, 16 bytes), which was not sent: OpenAI Chat takes audio only on audio models. If it matters, tell the user it could not be shown.]\n",
        None,
    );
    sent(
        OpenAiChat::default().with_audio_input(true),
        "",
        Some(json!({"type": "input_audio", "input_audio": {"data": WAV_BASE64, "format": "wav"}})),
    );
}

#[test]
fn gemini_before_3_gets_the_media_beside_the_response() {
    let body = encode(
        &Gemini::default().with_response_parts(false),
        vec![Image::png(PNG).into(), Document::pdf(PDF).into()],
    );
    assert_eq!(
        body["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"name": "report", "response": {"output": "The report."}, "id": "c1"}},
            {"text": "The result of the tool call c1 came with this content, which the tool message could not hold:"},
            {"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}},
            {"inlineData": {"mimeType": "application/pdf", "data": PDF_BASE64}}
        ]})
    );
}

#[test]
fn json_that_the_prose_already_is_is_sent_once() {
    let messages = vec![
        Message::user("Count?"),
        calling("c1", "count", json!({})),
        Message {
            role: Role::Tool,
            parts: vec![
                Part::ToolResult(ToolResult::success("c1", r#"{"count":3}"#)),
                Part::ResultContent(ResultContent::new(
                    "c1",
                    vec![Content::json(json!({"count": 3}))],
                )),
            ],
        },
    ];
    let request = Request::new("m", messages)
        // The breakpoints are tests/providers/caching.rs's subject, not this test's.
        .with_caching(Caching::off());
    let results: Vec<Value> = [
        &Anthropic as &dyn Adapter,
        &OpenAiResponses::default(),
        &OpenAiChat::default(),
        &Gemini::default(),
    ]
    .iter()
    .map(|adapter| {
        let body = adapter.encode(&request).unwrap();
        let list = ["messages", "input", "contents"]
            .iter()
            .find_map(|key| body.get(*key))
            .unwrap();
        list.as_array().unwrap()[2].clone()
    })
    .collect();
    assert_eq!(
        results,
        [
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": [
                {"type": "text", "text": "{\"count\":3}"}
            ]}]}),
            json!({"type": "function_call_output", "call_id": "c1", "output": [
                {"type": "input_text", "text": "{\"count\":3}"}
            ]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "{\"count\":3}"}),
            json!({"role": "user", "parts": [{"functionResponse": {"name": "count", "response": {"output": "{\"count\":3}"}, "id": "c1"}}]}),
        ]
    );
}

#[test]
fn audio_chat_cannot_take_and_a_gif_gemini_cannot_take_are_said_in_words() {
    let ogg = Audio::new("audio/ogg", b"OggS\0\0");
    let chat = encode(
        &OpenAiChat::default().with_audio_input(true),
        vec![ogg.into()],
    );
    assert_eq!(
        chat["messages"].as_array().unwrap()[2..],
        [
            json!({"role": "tool", "tool_call_id": "c1", "content": "The report.\n[The tool also returned audio (audio/ogg, 6 bytes), which was not sent: OpenAI Chat takes audio only as WAV or MP3. If it matters, tell the user it could not be shown.]"})
        ]
    );
    let gif = Image::gif(b"GIF89a");
    let gemini = encode(&Gemini::default(), vec![gif.into()]);
    assert_eq!(
        gemini["contents"][2],
        json!({"role": "user", "parts": [{"functionResponse": {
            "name": "report",
            "response": {"output": "The report.\n[The tool also returned an image (image/gif, 6 bytes), which was not sent: Gemini takes only PNG, JPEG and WebP images and PDFs in a function response. If it matters, tell the user it could not be shown.]"},
            "id": "c1"
        }}]})
    );
}

#[test]
fn a_transcript_with_content_round_trips_through_json() {
    let transcript = request(every_kind()).messages.into_owned();
    let saved = serde_json::to_string(&transcript).unwrap();
    let read: Vec<Message> = serde_json::from_str(&saved).unwrap();
    assert_eq!(read, transcript);
    assert_eq!(
        serde_json::to_value(&read[2].parts[1]).unwrap()["result_content"]["content"][0],
        json!({"image": {"media_type": "image/png", "source": {"base64": PNG_BASE64}}})
    );
}

/// Blob resources as an MCP server sends them (MCP has no document block, so a served PDF is
/// one): a PDF, a PNG and a WAV clip, then three no model takes as media: bytes of a type none
/// takes, bytes whose type is a PDF's but which are not a PDF, bytes of no type.
fn blobs() -> Vec<Content> {
    let mut untyped = Resource::blob("file:///unknown", "", [0u8, 1]);
    untyped.media_type = None;
    vec![
        Resource::blob("attachment:///q3.pdf", "application/pdf", PDF).into(),
        Resource::blob("file:///chart.png", "image/png", PNG).into(),
        Resource::blob("file:///clip.wav", "audio/wav", WAV).into(),
        Resource::blob("file:///data.bin", "application/octet-stream", [0u8, 1, 2]).into(),
        Resource::blob("file:///fake.pdf", "application/pdf", b"<html>").into(),
        untyped.into(),
    ]
}

#[test]
fn a_blob_resource_of_a_media_type_a_provider_takes_is_sent_as_that_media_on_every_wire() {
    let not_sent = |what: &str, provider: &str, why: &str| {
        format!(
            "[The tool also returned the resource {what}, which was not sent: {provider} {why}. If it matters, tell the user it could not be shown.]"
        )
    };
    let wav = "file:///clip.wav (audio/wav, 16 bytes)";
    let data_bin = |provider| {
        not_sent(
            "file:///data.bin (application/octet-stream, 3 bytes)",
            provider,
            "takes no application/octet-stream in a tool result",
        )
    };
    let fake = "[The tool also returned the resource file:///fake.pdf (application/pdf, 6 bytes), which was not sent: its bytes are not application/pdf. If it matters, tell the user it could not be shown.]";
    let unknown = |provider| {
        not_sent(
            "file:///unknown (binary, 2 bytes)",
            provider,
            "takes no bytes of an unknown type in a tool result",
        )
    };
    let pdf_url = format!("data:application/pdf;base64,{PDF_BASE64}");
    let png_url = format!("data:image/png;base64,{PNG_BASE64}");
    let media_of_call = "The result of the tool call c1 came with this content, which the tool message could not hold:";

    assert_eq!(
        encode(&Anthropic, blobs()),
        frame(
            Wire::Anthropic,
            json!([
                {"type": "text", "text": "The report."},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_BASE64}, "title": "q3.pdf"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}},
                {"type": "text", "text": not_sent(wav, "Anthropic", "takes no audio in a tool result")},
                {"type": "text", "text": data_bin("Anthropic")},
                {"type": "text", "text": fake},
                {"type": "text", "text": unknown("Anthropic")}
            ]),
        )
    );

    assert_eq!(
        encode(&OpenAiResponses::default(), blobs()),
        frame(
            Wire::OpenAiResponses,
            json!([
                {"type": "input_text", "text": "The report."},
                {"type": "input_file", "file_data": pdf_url, "filename": "q3.pdf"},
                {"type": "input_image", "image_url": png_url},
                {"type": "input_text", "text": not_sent(wav, "OpenAI Responses", "takes no audio in a function call's output")},
                {"type": "input_text", "text": data_bin("OpenAI Responses")},
                {"type": "input_text", "text": fake},
                {"type": "input_text", "text": unknown("OpenAI Responses")}
            ]),
        )
    );

    assert_eq!(
        encode(&Gemini::default(), blobs()),
        frame(
            Wire::Gemini,
            json!([
                {"functionResponse": {
                    "name": "report",
                    "response": {"output": format!("The report.\n{}\n{fake}\n{}", data_bin("Gemini"), unknown("Gemini"))},
                    "id": "c1",
                    "parts": [
                        {"inlineData": {"mimeType": "application/pdf", "data": PDF_BASE64}},
                        {"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}}
                    ]
                }},
                {"text": media_of_call},
                {"inlineData": {"mimeType": "audio/wav", "data": WAV_BASE64}}
            ]),
        )
    );

    assert_eq!(
        encode(&OpenAiChat::default(), blobs()),
        frame(
            Wire::OpenAiChat,
            json!([
                {"role": "tool", "tool_call_id": "c1", "content": format!(
                    "The report.\n{}\n{}\n{fake}\n{}",
                    not_sent(wav, "OpenAI Chat", "takes audio only on audio models"),
                    data_bin("OpenAI Chat"),
                    unknown("OpenAI Chat")
                )},
                {"role": "user", "content": [
                    {"type": "text", "text": media_of_call},
                    {"type": "file", "file": {"filename": "q3.pdf", "file_data": pdf_url}},
                    {"type": "image_url", "image_url": {"url": png_url}}
                ]}
            ]),
        )
    );
}
