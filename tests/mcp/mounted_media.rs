//! Media from a mounted server reaching a model. MCP has no document block, so a PDF travels as
//! an embedded blob resource; mounted through skyl's `Remote`, it must reach each provider as the
//! document it is, from a server written with rmcp alone as from skyl's own. What is checked is
//! each provider's request body, whole.

use serde_json::{Value, json};
use skyl::mcp::rmcp::model::{
    CallToolResult, ContentBlock, EmbeddedResource, ImageContent, ResourceContents, Tool,
};
use skyl::mcp::{Remote, Server};
use skyl::provider::{
    Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request, caching::Caching,
};
use skyl::{
    Content, Message, Part, Role, ToolCall, Toolbox,
    content::{Document, Image, Resource},
};

use crate::common::{bounded, object};
use crate::content_rows::{KINDS, Kind, PROSE, Wire, check_cells, framed, not_sent, rows};
use crate::tools_only::mount_tools_only;

const PDF: &[u8] = b"%PDF-1.4";
const PDF_BASE64: &str = "JVBERi0xLjQ=";
const PNG_BASE64: &str = "iVBORw0KGgo=";

/// A user's question, the model's call of `name` and the tool message `toolbox` answers it with.
async fn transcript(toolbox: &Toolbox, name: &str) -> Vec<Message> {
    let turn = Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall::new("c1", name, json!({})))],
    };
    let answer = bounded("the call", toolbox.answer(&turn)).await;
    vec![Message::user("The Q3 report?"), turn, answer]
}

fn encode(adapter: &dyn Adapter, messages: &[Message]) -> Value {
    let request = Request::new("m", messages)
        // The breakpoints are tests/providers/caching.rs's subject, not this test's.
        .with_caching(Caching::off());
    adapter.encode(&request).unwrap()
}

#[tokio::test]
async fn a_pdf_and_an_image_from_an_rmcp_server_reach_every_provider_as_a_document_and_an_image() {
    // A server written with rmcp alone: one tool, `report`, answering with text, a PDF as an
    // embedded blob resource and a PNG as an image block.
    let empty = object(json!({"type": "object", "properties": {}}));
    let report = Tool::new("report", "The quarter's report and its chart.", empty);
    let docs = mount_tools_only("docs", vec![report], |_| {
        CallToolResult::success(vec![
            ContentBlock::text("The Q3 report and its chart."),
            ContentBlock::Resource(EmbeddedResource::new(
                ResourceContents::blob(PDF_BASE64, "file:///reports/q3.pdf")
                    .with_mime_type("application/pdf"),
            )),
            ContentBlock::Image(ImageContent::new(PNG_BASE64, "image/png")),
        ])
    })
    .await;
    let toolbox = Toolbox::new().with_remote(&docs);
    let messages = transcript(&toolbox, "docs_report").await;

    // Mounted, the content is what the server sent: the blob resource keeps its URI.
    assert_eq!(
        messages[2].result_content("c1").unwrap().content,
        [
            Resource::blob("file:///reports/q3.pdf", "application/pdf", PDF).into(),
            Image::from_base64("image/png", PNG_BASE64).into(),
        ] as [Content; 2]
    );

    let pdf_url = format!("data:application/pdf;base64,{PDF_BASE64}");
    let png_url = format!("data:image/png;base64,{PNG_BASE64}");
    assert_eq!(
        encode(&Anthropic, &messages),
        framed(
            Wire::Anthropic,
            "The Q3 report?",
            "docs_report",
            json!([
                {"type": "text", "text": "The Q3 report and its chart."},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_BASE64}, "title": "q3.pdf"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}}
            ]),
        )
    );
    assert_eq!(
        encode(&OpenAiResponses::default(), &messages),
        framed(
            Wire::OpenAiResponses,
            "The Q3 report?",
            "docs_report",
            json!([
                {"type": "input_text", "text": "The Q3 report and its chart."},
                {"type": "input_file", "file_data": pdf_url, "filename": "q3.pdf"},
                {"type": "input_image", "image_url": png_url}
            ]),
        )
    );
    assert_eq!(
        encode(&Gemini::default(), &messages),
        framed(
            Wire::Gemini,
            "The Q3 report?",
            "docs_report",
            json!([{"functionResponse": {
                "name": "docs_report",
                "response": {"output": "The Q3 report and its chart."},
                "id": "c1",
                "parts": [
                    {"inlineData": {"mimeType": "application/pdf", "data": PDF_BASE64}},
                    {"inlineData": {"mimeType": "image/png", "data": PNG_BASE64}}
                ]
            }}]),
        )
    );
    assert_eq!(
        encode(&OpenAiChat::default(), &messages),
        framed(
            Wire::OpenAiChat,
            "The Q3 report?",
            "docs_report",
            json!([
                {"role": "tool", "tool_call_id": "c1", "content": "The Q3 report and its chart."},
                {"role": "user", "content": [
                    {"type": "text", "text": "The result of the tool call c1 came with this content, which the tool message could not hold:"},
                    {"type": "file", "file": {"filename": "q3.pdf", "file_data": pdf_url}},
                    {"type": "image_url", "image_url": {"url": png_url}}
                ]}
            ]),
        )
    );
}

/// The quarter's report, as a titled PDF.
#[skyl::tool]
fn quarterly() -> (String, Document) {
    (
        "The Q3 report.".into(),
        Document::pdf(PDF).with_title("q3.pdf"),
    )
}

#[tokio::test]
async fn a_pdf_served_by_skyl_and_mounted_back_is_a_titled_document_again() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(Toolbox::new().with(Quarterly)).serve(server_end));
    let served = bounded("mounting", Remote::builder("docs").connect(client_end))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_remote(&served);
    let messages = transcript(&toolbox, "docs_quarterly").await;
    assert_eq!(
        encode(&Anthropic, &messages),
        framed(
            Wire::Anthropic,
            "The Q3 report?",
            "docs_quarterly",
            json!([
                {"type": "text", "text": "The Q3 report."},
                {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_BASE64}, "title": "q3.pdf"}
            ]),
        )
    );
}

/// Answers with the prose and the content of the matrix row it is asked for.
#[skyl::tool]
fn row(kind: Kind) -> (String, Content) {
    (PROSE.to_owned(), kind.content())
}

/// The MCP axis of the content matrix (`tests/content_matrix.rs`): every kind of content, served
/// by skyl over MCP and mounted back through rmcp's client, reaches every wire as the body the
/// same content gives when the tool is local. MCP has no document or JSON block, so two kinds
/// travel as something else, and the model reads the same words in another frame: JSON comes
/// back as text, so the wires that keep parts apart carry it joined to the prose; a PDF comes back
/// as a blob resource, sent as the document it is, and named by its URI where a wire takes no
/// documents.
#[tokio::test]
async fn every_kind_of_content_served_and_mounted_back_is_the_rows_body_on_every_wire() {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(Server::new(Toolbox::new().with(Row)).serve(server_end));
    let served = bounded("mounting", Remote::builder("docs").connect(client_end))
        .await
        .unwrap();
    let toolbox = Toolbox::new().with_remote(&served);
    let mut rows = rows();
    let joined = json!(format!("{PROSE}\n{{\"pages\":2}}"));
    rows[Kind::Json as usize].cells[0] = joined.clone();
    rows[Kind::Json as usize].cells[1] = joined;
    rows[Kind::Pdf as usize].cells[4] = json!({
        "role": "tool",
        "content": format!("{PROSE}\n{}", not_sent(
            "the resource attachment:///q3.pdf (application/pdf, 8 bytes)",
            Wire::Ollama,
            "takes no documents",
        )),
        "tool_name": "report"
    });
    let mut wrong = Vec::new();
    for (row, kind) in rows.iter().zip(KINDS) {
        let turn = Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall::new(
                "c1",
                "docs_row",
                json!({"kind": kind}),
            ))],
        };
        let answer = bounded("the call", toolbox.answer(&turn)).await;
        check_cells("served and mounted back", row, answer, &mut wrong);
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
