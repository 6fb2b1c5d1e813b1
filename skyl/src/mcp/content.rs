//! A tool's answer as `tools/call` carries it, both ways: a skyl result as MCP content, and MCP
//! content as the text of a skyl result.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;

use crate::message::ToolResult;

/// The MCP result for a dispatched call.
///
/// `structured` says the tool declared an output schema: its output is then JSON text (a
/// [`Json`](crate::Json) output), parsed into `structuredContent` beside the text copy MCP asks
/// servers to keep for clients that read only `content`. Output that does not parse stays text.
pub(crate) fn to_mcp(result: ToolResult, structured: bool) -> CallToolResult {
    if result.is_error {
        return CallToolResult::error(vec![ContentBlock::text(result.content)]);
    }
    let parsed = structured
        .then(|| serde_json::from_str::<Value>(&result.content).ok())
        .flatten();
    let mut answer = CallToolResult::success(vec![ContentBlock::text(result.content)]);
    answer.structured_content = parsed;
    answer
}

/// The text a model reads for a server's result: each content block on its own line, and the
/// structured content as JSON when no text block already carries it.
///
/// A model reading text cannot see an image, hear audio or read a binary blob, so those become a
/// line that says what was there; text resources keep their text under their URI.
pub(crate) fn text_of(result: &CallToolResult) -> String {
    let mut lines: Vec<String> = result.content.iter().map(block_text).collect();
    if let Some(structured) = &result.structured_content {
        let carried = result.content.iter().any(|block| {
            block.as_text().is_some_and(|text| {
                serde_json::from_str::<Value>(&text.text).is_ok_and(|value| &value == structured)
            })
        });
        if !carried {
            lines.push(structured.to_string());
        }
    }
    lines.join("\n")
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!(
            "[an image ({}, {} bytes) that cannot be shown as text]",
            image.mime_type,
            decoded_len(&image.data)
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio ({}, {} bytes) that cannot be shown as text]",
            audio.mime_type,
            decoded_len(&audio.data)
        ),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri} ({}, {} bytes) that cannot be shown as text]",
                mime_type.as_deref().unwrap_or("binary"),
                decoded_len(blob)
            ),
            other => serde_json::to_string(other).unwrap_or_default(),
        },
        ContentBlock::ResourceLink(link) => match &link.description {
            Some(description) => format!(
                "[resource link {}: {} ({description})]",
                link.uri, link.name
            ),
            None => format!("[resource link {}: {}]", link.uri, link.name),
        },
        // Content of a kind newer than this code: its JSON is the most faithful text there is.
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// The number of bytes a base64 text decodes to.
fn decoded_len(base64: &str) -> usize {
    base64.trim_end_matches('=').len() * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_become_mcp_content() {
        let to_json =
            |result, structured| serde_json::to_value(to_mcp(result, structured)).unwrap();
        assert_eq!(
            to_json(ToolResult::success("c", "22C"), false),
            json!({"content": [{"type": "text", "text": "22C"}], "isError": false, "resultType": "complete"})
        );
        assert_eq!(
            to_json(ToolResult::success("c", r#"{"celsius":22}"#), true),
            json!({
                "content": [{"type": "text", "text": "{\"celsius\":22}"}],
                "structuredContent": {"celsius": 22},
                "isError": false,
                "resultType": "complete"
            })
        );
        assert_eq!(
            to_json(ToolResult::success("c", "not json"), true),
            json!({"content": [{"type": "text", "text": "not json"}], "isError": false, "resultType": "complete"})
        );
        assert_eq!(
            to_json(
                ToolResult::error("c", "ERROR: f failed: x. Do not retry."),
                true
            ),
            json!({"content": [{"type": "text", "text": "ERROR: f failed: x. Do not retry."}], "isError": true, "resultType": "complete"})
        );
    }

    #[test]
    fn every_kind_of_block_becomes_text() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "first"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "audio", "data": "aGVsbG8h", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "inside a"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA", "mimeType": "application/octet-stream"}},
                {"type": "resource_link", "uri": "file:///c.md", "name": "c.md", "description": "the notes"},
                {"type": "resource_link", "uri": "file:///d.md", "name": "d.md"}
            ],
            "structuredContent": {"count": 2}
        }))
        .unwrap();
        assert_eq!(
            text_of(&result),
            "first\n\
             [an image (image/png, 5 bytes) that cannot be shown as text]\n\
             [audio (audio/wav, 6 bytes) that cannot be shown as text]\n\
             [resource file:///a.txt]\ninside a\n\
             [resource file:///b.bin (application/octet-stream, 3 bytes) that cannot be shown as text]\n\
             [resource link file:///c.md: c.md (the notes)]\n\
             [resource link file:///d.md: d.md]\n\
             {\"count\":2}"
        );
    }

    #[test]
    fn structured_content_is_not_repeated_when_a_text_block_carries_it() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "{ \"count\": 2 }"}],
            "structuredContent": {"count": 2}
        }))
        .unwrap();
        assert_eq!(text_of(&result), "{ \"count\": 2 }");
        let only: CallToolResult =
            serde_json::from_value(json!({"structuredContent": [1, 2]})).unwrap();
        assert_eq!(text_of(&only), "[1,2]");
    }
}
