//! A tool's answer as `tools/call` carries it, both ways: a skyl result and its content as MCP
//! content blocks and `structuredContent`, and an MCP result as a skyl output.

use rmcp::model::{CallToolResult, ContentBlock, Resource as McpResource, ResourceContents};
use serde_json::Value;

use crate::content::{Audio, Content, Image, Resource, ResourceBody, ResourceLink, Source};
use crate::tool::ToolOutput;
use crate::toolbox::RichResult;

/// The MCP result for a dispatched call: its prose as a text block, then a block per part of its
/// content (an image, audio, an embedded resource, a resource link), and structured JSON as
/// `structuredContent`.
///
/// `structured` says the tool declared an output schema: its output is then JSON text (a
/// [`Json`](crate::Json) output), parsed into `structuredContent` beside the text copy MCP asks
/// servers to keep for clients that read only `content`. Output that does not parse stays text.
/// A [`Content::Json`] part is `structuredContent` too, with its JSON as text when the prose is
/// not already that JSON, for the same clients.
pub(crate) fn to_mcp(answered: RichResult, structured: bool) -> CallToolResult {
    let RichResult { result, content } = answered;
    if result.is_error {
        return CallToolResult::error(vec![ContentBlock::text(result.content)]);
    }
    let mut structured_content = structured
        .then(|| serde_json::from_str::<Value>(&result.content).ok())
        .flatten();
    let mut blocks = Vec::with_capacity(content.len() + 1);
    if !result.content.is_empty() || content.is_empty() {
        blocks.push(ContentBlock::text(result.content.as_str()));
    }
    for part in content {
        match part {
            Content::Json(value) if structured_content.is_none() => {
                if !crate::provider::is_json_of(&result.content, &value) {
                    blocks.push(ContentBlock::text(value.to_string()));
                }
                structured_content = Some(value);
            }
            part => blocks.push(block(part)),
        }
    }
    let mut answer = CallToolResult::success(blocks);
    answer.structured_content = structured_content;
    answer
}

/// The MCP block for a part of a result's content (or of a served prompt's message).
pub(super) fn block(part: Content) -> ContentBlock {
    match part {
        Content::Text(text) => ContentBlock::text(text),
        Content::Image(Image {
            media_type,
            source: Source::Base64(data),
        }) => ContentBlock::image(data, media_type),
        Content::Audio(Audio { media_type, data }) => ContentBlock::audio(data, media_type),
        Content::Resource(resource) => ContentBlock::resource(contents(resource)),
        Content::ResourceLink(link) => {
            let mut resource = McpResource::new(link.uri, link.name);
            resource.description = link.description;
            resource.mime_type = link.media_type;
            ContentBlock::resource_link(resource)
        }
        Content::Document(document) => {
            let name = document
                .title
                .unwrap_or_else(|| crate::content::UNTITLED_DOCUMENT.to_owned());
            match document.source {
                // MCP has no document block: a PDF is an embedded blob resource.
                Source::Base64(data) => ContentBlock::resource(
                    ResourceContents::blob(data, format!("{ATTACHMENT}{name}"))
                        .with_mime_type(document.media_type),
                ),
                Source::Url(url) => {
                    let mut resource = McpResource::new(url, name);
                    resource.mime_type = Some(document.media_type);
                    ContentBlock::resource_link(resource)
                }
            }
        }
        // An image at a URL: MCP images are bytes, so it is a link to the image.
        Content::Image(Image {
            media_type,
            source: Source::Url(url),
        }) => {
            let name = url.rsplit('/').next().unwrap_or(&url).to_owned();
            let mut resource = McpResource::new(url, name);
            resource.mime_type = (!media_type.is_empty()).then_some(media_type);
            ContentBlock::resource_link(resource)
        }
        Content::Json(value) => ContentBlock::text(value.to_string()),
    }
}

/// A resource's contents on MCP's wire (embedded in a block, or read by `resources/read`).
pub(super) fn contents(resource: Resource) -> ResourceContents {
    let contents = match resource.body {
        ResourceBody::Text(text) => ResourceContents::text(text, resource.uri),
        ResourceBody::Blob(blob) => ResourceContents::blob(blob, resource.uri),
    };
    match resource.media_type {
        Some(media_type) => contents.with_mime_type(media_type),
        None => contents,
    }
}

/// The URI scheme of a PDF a tool returned as bytes, which has no URI of its own.
const ATTACHMENT: &str = "attachment:///";

/// A server's result as a skyl output: its text blocks are the text, each other block a part of
/// its content, and its structured content a [`Content::Json`] part, unless its text already
/// says it.
///
/// "Already says it" is how the official SDKs write a structured result: the Python SDK's
/// FastMCP sends a function's return value as text and, when the function is typed, the same
/// value as `structuredContent`, wrapped as `{"result": value}` when it is not an object (a
/// `3` is the text `"3"` and `{"result": 3}`; a list is a text block per item). Without this the
/// model would read every value twice: `3\n{"result":3}`.
pub(crate) fn from_mcp(result: CallToolResult) -> ToolOutput {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    let said = result
        .structured_content
        .as_ref()
        .is_some_and(|structured| text_says(&texts, structured));
    let structured = result.structured_content.clone().filter(|_| !said);
    let mut output = ToolOutput::default();
    for block in result.content {
        output.push(part(block));
    }
    if let Some(structured) = structured {
        output.push(Content::Json(structured));
    }
    output
}

/// Whether the text blocks of a result say its structured content: a block that is the JSON
/// (in any spacing, as MCP asks servers to send it), or, for FastMCP's `{"result": value}`, the
/// value (one block: a string as it is, anything else as JSON; an array: one block per item).
fn text_says(texts: &[&str], structured: &Value) -> bool {
    let says = |text: &str, value: &Value| {
        value.as_str() == Some(text) || crate::provider::is_json_of(text, value)
    };
    if texts.iter().any(|text| says(text, structured)) {
        return true;
    }
    let wrapped = match structured {
        Value::Object(object) if object.len() == 1 => object.get("result"),
        _ => None,
    };
    match (texts, wrapped) {
        ([text], Some(value)) if says(text, value) => true,
        (texts, Some(Value::Array(items))) => {
            !items.is_empty()
                && texts.len() == items.len()
                && texts.iter().zip(items).all(|(text, item)| says(text, item))
        }
        _ => false,
    }
}

/// A server's content block as a part of skyl's content.
fn part(block: ContentBlock) -> Content {
    match block {
        ContentBlock::Text(text) => Content::Text(text.text),
        ContentBlock::Image(image) => Image::from_base64(image.mime_type, image.data).into(),
        ContentBlock::Audio(audio) => Audio::from_base64(audio.mime_type, audio.data).into(),
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => Content::Resource(Resource {
                uri,
                media_type: mime_type,
                body: ResourceBody::Text(text),
            }),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => Content::Resource(Resource {
                uri,
                media_type: mime_type,
                body: ResourceBody::Blob(blob),
            }),
            other => Content::Text(serde_json::to_string(&other).unwrap_or_default()),
        },
        ContentBlock::ResourceLink(link) => Content::ResourceLink(ResourceLink {
            uri: link.uri,
            name: link.name,
            description: link.description,
            media_type: link.mime_type,
        }),
        // Content of a kind newer than this code: its JSON is the most faithful text there is.
        other => Content::Text(serde_json::to_string(&other).unwrap_or_default()),
    }
}

/// The text a model reads of a server's failed result: each block's line.
pub(crate) fn text_of(result: CallToolResult) -> String {
    from_mcp(result).into_text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::Document;
    use crate::message::ToolResult;
    use serde_json::json;

    fn to_json(answered: RichResult, structured: bool) -> Value {
        serde_json::to_value(to_mcp(answered, structured)).unwrap()
    }

    #[test]
    fn results_become_mcp_content() {
        assert_eq!(
            to_json(ToolResult::success("c", "22C").into(), false),
            json!({"content": [{"type": "text", "text": "22C"}], "isError": false, "resultType": "complete"})
        );
        assert_eq!(
            to_json(ToolResult::success("c", r#"{"celsius":22}"#).into(), true),
            json!({
                "content": [{"type": "text", "text": "{\"celsius\":22}"}],
                "structuredContent": {"celsius": 22},
                "isError": false,
                "resultType": "complete"
            })
        );
        assert_eq!(
            to_json(ToolResult::success("c", "not json").into(), true),
            json!({"content": [{"type": "text", "text": "not json"}], "isError": false, "resultType": "complete"})
        );
        assert_eq!(
            to_json(
                ToolResult::error("c", "ERROR: f failed: x. Do not retry.").into(),
                true
            ),
            json!({"content": [{"type": "text", "text": "ERROR: f failed: x. Do not retry."}], "isError": true, "resultType": "complete"})
        );
    }

    #[test]
    fn every_kind_of_part_becomes_its_block() {
        let answered = RichResult {
            result: ToolResult::success("c", "Here."),
            content: vec![
                Image::from_base64("image/png", "iVBORw0KGgo=").into(),
                Image::url("https://example.com/a/chart.png").into(),
                Audio::from_base64("audio/wav", "UklGRg==").into(),
                Document::pdf(b"%PDF-").with_title("report.pdf").into(),
                Document::url("https://example.com/paper.pdf").into(),
                ResourceLink::new("file:///c.md", "c.md")
                    .with_description("the notes")
                    .into(),
                Resource::text("file:///a.txt", "inside a").into(),
                Content::text("after"),
                Content::json(json!({"count": 2})),
            ],
        };
        assert_eq!(
            to_json(answered, false),
            json!({
                "content": [
                    {"type": "text", "text": "Here."},
                    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                    {"type": "resource_link", "uri": "https://example.com/a/chart.png", "name": "chart.png", "mimeType": "image/png"},
                    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                    {"type": "resource", "resource": {"uri": "attachment:///report.pdf", "mimeType": "application/pdf", "blob": "JVBERi0="}},
                    {"type": "resource_link", "uri": "https://example.com/paper.pdf", "name": "document.pdf", "mimeType": "application/pdf"},
                    {"type": "resource_link", "uri": "file:///c.md", "name": "c.md", "description": "the notes"},
                    {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "inside a"}},
                    {"type": "text", "text": "after"},
                    {"type": "text", "text": "{\"count\":2}"}
                ],
                "structuredContent": {"count": 2},
                "isError": false,
                "resultType": "complete"
            })
        );
    }

    #[test]
    fn every_kind_of_block_becomes_its_part() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "first"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "audio", "data": "aGVsbG8h", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside a"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA", "mimeType": "application/octet-stream"}},
                {"type": "resource_link", "uri": "file:///c.md", "name": "c.md", "description": "the notes"},
                {"type": "text", "text": "last"}
            ],
            "structuredContent": {"count": 2}
        }))
        .unwrap();
        let output = from_mcp(result);
        assert_eq!(output.text, "first");
        assert_eq!(
            output.content,
            vec![
                Image::from_base64("image/png", "aGVsbG8=").into(),
                Audio::from_base64("audio/wav", "aGVsbG8h").into(),
                Resource::text("file:///a.txt", "inside a").into(),
                Content::Resource(Resource {
                    uri: "file:///b.bin".into(),
                    media_type: Some("application/octet-stream".into()),
                    body: ResourceBody::Blob("AAAA".into()),
                }),
                ResourceLink::new("file:///c.md", "c.md")
                    .with_description("the notes")
                    .into(),
                Content::text("last"),
                Content::json(json!({"count": 2})),
            ]
        );
        assert_eq!(
            output.into_text(),
            "first\n\
             [an image (image/png, 5 bytes)]\n\
             [audio (audio/wav, 6 bytes)]\n\
             [resource file:///a.txt]\ninside a\n\
             [the resource file:///b.bin (application/octet-stream, 3 bytes)]\n\
             [a resource link file:///c.md: c.md (the notes)]\n\
             last\n\
             {\"count\":2}"
        );
    }

    #[test]
    fn structured_content_its_text_already_says_is_read_once() {
        let read =
            |result: Value| from_mcp(serde_json::from_value::<CallToolResult>(result).unwrap());
        // The JSON itself, in other spacing.
        let output = read(json!({
            "content": [{"type": "text", "text": "{ \"count\": 2 }"}],
            "structuredContent": {"count": 2}
        }));
        assert_eq!(
            (output.text.as_str(), output.content),
            ("{ \"count\": 2 }", vec![])
        );
        // The Python SDK's FastMCP: a value as text, `{"result": value}` as structured content.
        for (texts, structured) in [
            (vec!["3"], json!({"result": 3})),
            (vec!["hello"], json!({"result": "hello"})),
            (vec!["1", "2"], json!({"result": [1, 2]})),
        ] {
            let content: Vec<Value> = texts
                .iter()
                .map(|text| json!({"type": "text", "text": text}))
                .collect();
            let output = read(json!({"content": content, "structuredContent": structured}));
            assert_eq!(output, ToolOutput::from(texts.join("\n")), "{structured}");
        }
        // Structured content alone, or that the text does not say, is read as JSON after it.
        assert_eq!(
            read(json!({"structuredContent": [1, 2]})),
            ToolOutput::default().with(Content::json(json!([1, 2])))
        );
        assert_eq!(
            read(
                json!({"content": [{"type": "text", "text": "4"}], "structuredContent": {"result": 3}})
            ),
            ToolOutput::from("4").with(Content::json(json!({"result": 3})))
        );
    }
}
