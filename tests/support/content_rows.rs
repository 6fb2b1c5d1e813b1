//! The rows of the content matrix, shared by the suite (`tests/content_matrix.rs`) and the MCP
//! tests (`tests/mcp/mounted_media.rs`): every kind of content a tool can answer with, and the
//! whole body each wire (the four built-in adapters and `skyl-ollama`) makes of it.
//!
//! A row is one kind of content beside the prose "The report."; its cells say what each wire
//! makes of the part: the slot of the body the tool's answer fills (the `tool_result` blocks,
//! the `function_call_output` output, the `user` turn's parts, the messages after the call).
//! [`frame`] puts a cell into the rest of its body, which is the same for every row, so each
//! comparison is of the whole document.

use serde_json::{Value, json};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, caching::Caching,
};
use skyl::{
    Content, Message, Part, Role, ToolCall, ToolResult,
    content::{Audio, Document, Image, Resource, ResourceLink, ResultContent},
};
use skyl_ollama::Ollama;

pub(crate) const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
pub(crate) const PNG_BASE64: &str = "iVBORw0KGgo=";
pub(crate) const PDF: &[u8] = b"%PDF-1.4";
pub(crate) const PDF_BASE64: &str = "JVBERi0xLjQ=";
pub(crate) const WAV: &[u8] = b"RIFF\x24\0\0\0WAVEfmt ";
pub(crate) const WAV_BASE64: &str = "UklGRiQAAABXQVZFZm10IA==";
pub(crate) const PROSE: &str = "The report.";
pub(crate) const MEDIA_OF_CALL: &str =
    "The result of the tool call c1 came with this content, which the tool message could not hold:";

/// The wires, in the order of a row's cells.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wire {
    Anthropic,
    OpenAiResponses,
    Gemini,
    OpenAiChat,
    Ollama,
}

pub(crate) const WIRES: [Wire; 5] = [
    Wire::Anthropic,
    Wire::OpenAiResponses,
    Wire::Gemini,
    Wire::OpenAiChat,
    Wire::Ollama,
];

impl Wire {
    pub(crate) fn adapter(self) -> Box<dyn Adapter> {
        match self {
            Wire::Anthropic => Box::new(Anthropic),
            Wire::OpenAiResponses => Box::new(OpenAiResponses::default()),
            Wire::Gemini => Box::new(Gemini::default()),
            Wire::OpenAiChat => Box::new(OpenAiChat::default()),
            Wire::Ollama => Box::new(Ollama),
        }
    }

    /// How a "not sent" line names the provider.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Wire::Anthropic => "Anthropic",
            Wire::OpenAiResponses => "OpenAI Responses",
            Wire::Gemini => "Gemini",
            Wire::OpenAiChat => "OpenAI Chat",
            Wire::Ollama => "Ollama",
        }
    }
}

/// The whole body of a request whose tool message fills `cell` on `wire`.
pub(crate) fn frame(wire: Wire, cell: Value) -> Value {
    framed(wire, "Report?", "report", cell)
}

/// The whole body of a request on `wire`: the user's `question`, the model's call `c1` of `tool`
/// with no arguments, and the tool message that fills `cell`.
pub(crate) fn framed(wire: Wire, question: &str, tool: &str, cell: Value) -> Value {
    match wire {
        Wire::Anthropic => json!({
            "model": "m",
            "max_tokens": 4096,
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": question}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": tool, "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "is_error": false, "content": cell}]}
            ]
        }),
        Wire::OpenAiResponses => json!({
            "model": "m",
            "input": [
                {"role": "user", "content": question},
                {"type": "function_call", "call_id": "c1", "name": tool, "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": cell}
            ]
        }),
        Wire::Gemini => json!({
            "contents": [
                {"role": "user", "parts": [{"text": question}]},
                {"role": "model", "parts": [{"functionCall": {"name": tool, "args": {}, "id": "c1"}}]},
                {"role": "user", "parts": cell}
            ]
        }),
        Wire::OpenAiChat => {
            let mut messages = vec![
                json!({"role": "user", "content": question}),
                json!({"role": "assistant", "content": "", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": tool, "arguments": "{}"}}
                ]}),
            ];
            messages.extend(cell.as_array().unwrap().iter().cloned());
            json!({"model": "m", "messages": messages})
        }
        Wire::Ollama => json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": question},
                {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": tool, "arguments": {}}}]},
                cell
            ],
            "stream": false
        }),
    }
}

/// The transcript of a call of `report` answered with the prose and `content`.
pub(crate) fn request(content: Vec<Content>) -> Request<'static> {
    answered_with(PROSE, content)
}

/// The transcript of a call of `report` answered with `prose` and `content`.
pub(crate) fn answered_with(prose: &str, content: Vec<Content>) -> Request<'static> {
    Request::new(
        "m",
        vec![
            Message::user("Report?"),
            Message {
                role: Role::Assistant,
                parts: vec![Part::ToolCall(ToolCall::new("c1", "report", json!({})))],
            },
            Message {
                role: Role::Tool,
                parts: vec![
                    Part::ToolResult(ToolResult::success("c1", prose)),
                    Part::ResultContent(ResultContent::new("c1", content)),
                ],
            },
        ],
    )
    // The breakpoints are tests/providers/caching.rs's subject, not this test's.
    .with_caching(Caching::off())
}

/// One kind of content and what each wire of [`WIRES`] makes of it.
pub(crate) struct Row {
    pub(crate) kind: &'static str,
    pub(crate) content: Content,
    pub(crate) cells: [Value; 5],
}

/// The kinds of [`rows`], in their order, as a tool's argument: a tool answers with the content
/// of the row it is asked for.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub(crate) enum Kind {
    Image,
    Pdf,
    Audio,
    Link,
    TextResource,
    OpaqueBlob,
    PdfBlob,
    Json,
}

pub(crate) const KINDS: [Kind; 8] = [
    Kind::Image,
    Kind::Pdf,
    Kind::Audio,
    Kind::Link,
    Kind::TextResource,
    Kind::OpaqueBlob,
    Kind::PdfBlob,
    Kind::Json,
];

impl Kind {
    pub(crate) fn content(self) -> Content {
        rows().swap_remove(self as usize).content
    }
}

/// The cells of a part each wire carries as a line of text after the prose: `line(wire)`.
pub(crate) fn lines(line: impl Fn(Wire) -> String) -> [Value; 5] {
    WIRES.map(|wire| {
        let line = line(wire);
        let text = format!("{PROSE}\n{line}");
        match wire {
            Wire::Anthropic => json!([
                {"type": "text", "text": PROSE},
                {"type": "text", "text": line}
            ]),
            Wire::OpenAiResponses => json!([
                {"type": "input_text", "text": PROSE},
                {"type": "input_text", "text": line}
            ]),
            Wire::Gemini => json!([{"functionResponse": {
                "name": "report",
                "response": {"output": text},
                "id": "c1"
            }}]),
            Wire::OpenAiChat => json!([{"role": "tool", "tool_call_id": "c1", "content": text}]),
            Wire::Ollama => json!({"role": "tool", "content": text, "tool_name": "report"}),
        }
    })
}

/// The line for a part that was not sent, on `wire`, because it `why`.
pub(crate) fn not_sent(what: &str, wire: Wire, why: &str) -> String {
    format!(
        "[The tool also returned {what}, which was not sent: {} {why}. If it matters, tell the user it could not be shown.]",
        wire.name()
    )
}

pub(crate) fn rows() -> Vec<Row> {
    let png_url = format!("data:image/png;base64,{PNG_BASE64}");
    let pdf_url = format!("data:application/pdf;base64,{PDF_BASE64}");
    let gemini = |parts: Value| {
        json!([{"functionResponse": {
            "name": "report",
            "response": {"output": PROSE},
            "id": "c1",
            "parts": parts
        }}])
    };
    let chat_media = |media: Value| {
        json!([
            {"role": "tool", "tool_call_id": "c1", "content": PROSE},
            {"role": "user", "content": [{"type": "text", "text": MEDIA_OF_CALL}, media]}
        ])
    };
    let pdf_cells = |title: &str, ollama_what: &str| {
        [
            json!([
                {"type": "text", "text": PROSE},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_BASE64}, "title": title}
            ]),
            json!([
                {"type": "input_text", "text": PROSE},
                {"type": "input_file", "file_data": pdf_url, "filename": title}
            ]),
            gemini(json!([{"inlineData": {"mimeType": "application/pdf", "data": PDF_BASE64}}])),
            chat_media(json!({"type": "file", "file": {"filename": title, "file_data": pdf_url}})),
            json!({
                "role": "tool",
                "content": format!("{PROSE}\n{}", not_sent(ollama_what, Wire::Ollama, "takes no documents")),
                "tool_name": "report"
            }),
        ]
    };
    vec![
        Row {
            kind: "an image",
            content: Image::png(PNG).into(),
            cells: [
                json!([
                    {"type": "text", "text": PROSE},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}}
                ]),
                json!([
                    {"type": "input_text", "text": PROSE},
                    {"type": "input_image", "image_url": png_url}
                ]),
                gemini(json!([{"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}}])),
                chat_media(json!({"type": "image_url", "image_url": {"url": png_url}})),
                json!({"role": "tool", "content": PROSE, "images": [PNG_BASE64], "tool_name": "report"}),
            ],
        },
        Row {
            kind: "a PDF document",
            content: Document::pdf(PDF).with_title("q3.pdf").into(),
            cells: pdf_cells("q3.pdf", "a document \"q3.pdf\" (application/pdf, 8 bytes)"),
        },
        Row {
            kind: "audio",
            content: Audio::wav(WAV).into(),
            cells: {
                let what = "audio (audio/wav, 16 bytes)";
                let mut cells = lines(|wire| {
                    let why = match wire {
                        Wire::Anthropic => "takes no audio in a tool result",
                        Wire::OpenAiResponses => "takes no audio in a function call's output",
                        Wire::OpenAiChat => "takes audio only on audio models",
                        _ => "takes no audio",
                    };
                    not_sent(what, wire, why)
                });
                // Gemini takes audio, beside the function response.
                cells[2] = json!([
                    {"functionResponse": {"name": "report", "response": {"output": PROSE}, "id": "c1"}},
                    {"text": MEDIA_OF_CALL},
                    {"inlineData": {"mimeType": "audio/wav", "data": WAV_BASE64}}
                ]);
                cells
            },
        },
        Row {
            kind: "a resource link",
            content: ResourceLink::new("file:///notes.md", "notes.md")
                .with_description("the notes")
                .into(),
            cells: lines(|_| "[a resource link file:///notes.md: notes.md (the notes)]".into()),
        },
        Row {
            kind: "a text resource",
            content: Resource::text("file:///a.txt", "inside a").into(),
            cells: lines(|_| "[resource file:///a.txt]\ninside a".into()),
        },
        Row {
            kind: "a blob resource of a type no model takes",
            content: Resource::blob("file:///data.bin", "application/octet-stream", [0u8, 1, 2])
                .into(),
            cells: lines(|wire| {
                not_sent(
                    "the resource file:///data.bin (application/octet-stream, 3 bytes)",
                    wire,
                    "takes no application/octet-stream in a tool result",
                )
            }),
        },
        Row {
            kind: "a blob resource of a PDF (as MCP carries one)",
            content: Resource::blob("attachment:///q3.pdf", "application/pdf", PDF).into(),
            cells: pdf_cells(
                "q3.pdf",
                "the resource attachment:///q3.pdf (application/pdf, 8 bytes)",
            ),
        },
        Row {
            kind: "structured JSON",
            content: Content::json(json!({"pages": 2})),
            cells: lines(|_| "{\"pages\":2}".into()),
        },
    ]
}

/// Every wire's body for `tool_message` (the message answering call `c1`) against the row's
/// cells; a line per cell that differs, named by `how` the message was made.
pub(crate) fn check_cells(how: &str, row: &Row, tool_message: Message, wrong: &mut Vec<String>) {
    let mut request = request(Vec::new());
    request.messages.to_mut()[2] = tool_message;
    for (wire, cell) in WIRES.into_iter().zip(row.cells.iter()) {
        let body = wire.adapter().encode(&request).unwrap();
        let expected = frame(wire, cell.clone());
        if body != expected {
            wrong.push(format!(
                "{} {how} on {wire:?}:\n  sent:     {body}\n  expected: {expected}",
                row.kind
            ));
        }
    }
}
