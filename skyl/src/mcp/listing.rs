//! A tool as `tools/list` shows it, both ways: a skyl definition as an MCP tool, and an MCP tool
//! as a skyl definition.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations as McpAnnotations};
use serde_json::Value;

use crate::schema;
use crate::tool::{ToolAnnotations, ToolDefinition};

/// The MCP tool for a skyl definition.
///
/// The title goes both in `title` and in `annotations.title`: clients of MCP 2025-06-18 and later
/// read the first, older ones only the second.
pub(crate) fn to_mcp(definition: &ToolDefinition) -> McpTool {
    let mut tool = McpTool::new(
        definition.name.clone(),
        definition.description.clone(),
        object(&definition.parameters),
    );
    let hints = &definition.annotations;
    tool.title.clone_from(&hints.title);
    if !hints.is_empty() {
        tool.annotations = Some(McpAnnotations::from_raw(
            hints.title.clone(),
            hints.read_only,
            hints.destructive,
            hints.idempotent,
            hints.open_world,
        ));
    }
    tool.output_schema = definition.output_schema.as_ref().map(object);
    tool
}

/// The dialect of skyl's schemas (schemars generates draft 2020-12), which MCP 2025-11-25
/// assumes when a schema does not say; clients of earlier versions assumed draft-07.
const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A schema as the JSON object MCP wants, saying its dialect. A definition's schema is an object
/// already; anything else (a hand-written definition's `true` or `null`) stands for "any
/// arguments".
///
/// The canonical schema a provider gets leaves `$schema` out (every byte is sent with every
/// request); `tools/list` states it, so that a client of any protocol version reads the schema
/// under the dialect it was written in, and a keyword of 2020-12 (`$defs`, `prefixItems`) means
/// what it says.
fn object(schema: &Value) -> Arc<JsonObject> {
    let dialect = ("$schema".to_owned(), Value::from(DIALECT));
    Arc::new(match schema {
        Value::Object(map) if map.contains_key("$schema") => map.clone(),
        Value::Object(map) => std::iter::once(dialect)
            .chain(map.iter().map(|(key, value)| (key.clone(), value.clone())))
            .collect(),
        _ => JsonObject::from_iter([dialect, ("type".to_owned(), Value::from("object"))]),
    })
}

/// The skyl definition of a server's tool, under the local name it is mounted as.
///
/// The input schema goes through [`schema::canonicalize`], as a hand-written tool's would; a tool
/// without a description gets one naming the server, since a model cannot use a nameless stub
/// well and providers reject some empty descriptions.
pub(crate) fn from_mcp(tool: &McpTool, local_name: String, server: &str) -> ToolDefinition {
    let mut parameters = Value::Object(tool.input_schema.as_ref().clone());
    schema::canonicalize(&mut parameters);
    let hints = tool.annotations.clone().unwrap_or_default();
    let title = tool.title.clone().or(hints.title);
    let description = match tool.description.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => text.to_owned(),
        _ => format!(
            "The tool \"{}\" of the MCP server \"{server}\".{}",
            tool.name,
            title
                .as_deref()
                .map(|t| format!(" {t}."))
                .unwrap_or_default()
        ),
    };
    ToolDefinition {
        name: local_name,
        description,
        parameters,
        annotations: ToolAnnotations {
            title,
            read_only: hints.read_only_hint,
            destructive: hints.destructive_hint,
            idempotent: hints.idempotent_hint,
            open_world: hints.open_world_hint,
        },
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object(schema.as_ref().clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_definition_lists_with_its_hints_and_output_schema() {
        let definition = ToolDefinition {
            name: "delete_file".into(),
            description: "Deletes a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            annotations: ToolAnnotations {
                title: Some("Delete a file".into()),
                destructive: Some(true),
                ..Default::default()
            },
            output_schema: Some(
                json!({"type": "object", "properties": {"deleted": {"type": "boolean"}}}),
            ),
        };
        assert_eq!(
            serde_json::to_value(to_mcp(&definition)).unwrap(),
            json!({
                "name": "delete_file",
                "title": "Delete a file",
                "description": "Deletes a file.",
                "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
                "outputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"deleted": {"type": "boolean"}}},
                "annotations": {"title": "Delete a file", "destructiveHint": true}
            })
        );
    }

    #[test]
    fn a_plain_definition_lists_plainly() {
        let definition = ToolDefinition {
            name: "f".into(),
            description: "Does f.".into(),
            parameters: Value::Null,
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(to_mcp(&definition)).unwrap(),
            json!({"name": "f", "description": "Does f.", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}})
        );
    }

    #[test]
    fn a_server_tool_becomes_a_canonical_definition() {
        let tool: McpTool = serde_json::from_value(json!({
            "name": "files.read",
            "annotations": {"title": "Read a file", "readOnlyHint": true},
            "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"n": {"type": "integer", "format": "uint8"}}},
            "outputSchema": {"type": "object"}
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(from_mcp(&tool, "files_files_read".into(), "files")).unwrap(),
            json!({
                "name": "files_files_read",
                "description": "The tool \"files.read\" of the MCP server \"files\". Read a file.",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 255}}, "required": []},
                "annotations": {"title": "Read a file", "readOnlyHint": true},
                "outputSchema": {"type": "object"}
            })
        );
    }
}
