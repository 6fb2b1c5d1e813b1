//! The part of a tool the model reads, and the hints a host reads about it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a model is told about a tool: its name, what it does, and the JSON schema of its arguments.
///
/// `parameters` is skyl's canonical schema (see [`schema`](crate::schema)); adapters lower it to
/// each provider's dialect. `annotations` and `output_schema` are for hosts, not for the model:
/// the provider adapters leave them off the wire, while an MCP server lists them.
///
/// Build one with a struct literal; the fields a host reads have defaults:
///
/// ```
/// use serde_json::json;
/// use skyl::{ToolAnnotations, ToolDefinition};
///
/// let definition = ToolDefinition {
///     name: "delete_file".into(),
///     description: "Deletes a file in the workspace.".into(),
///     parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
///     annotations: ToolAnnotations { destructive: Some(true), ..Default::default() },
///     ..Default::default()
/// };
/// assert_eq!(definition.output_schema, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// The JSON schema of the arguments object.
    pub parameters: Value,
    /// Hints about the tool's behaviour, named as the Model Context Protocol names them.
    #[serde(default, skip_serializing_if = "ToolAnnotations::is_empty")]
    pub annotations: ToolAnnotations,
    /// The JSON schema of the tool's output, when the output is JSON of a known shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// Hints about what a tool does, for the host that runs it (approval prompts, MCP clients).
///
/// The names and meanings are the Model Context Protocol's tool annotations. They are hints: a
/// host must not trust them from a server it does not trust. `None` means "not said", and each
/// hint then has MCP's default (`read_only: false`, `destructive: true`, `idempotent: false`,
/// `open_world: true`), which the `is_*` methods apply.
///
/// ```
/// use skyl::ToolAnnotations;
///
/// let hints = ToolAnnotations { read_only: Some(true), ..Default::default() };
/// assert!(hints.is_read_only());
/// assert!(!hints.is_destructive(), "a read-only tool changes nothing");
/// assert!(ToolAnnotations::default().is_destructive());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// A human-readable name for the tool, for a host's user interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool changes nothing in its environment.
    #[serde(
        default,
        rename = "readOnlyHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data (meaningful only when it is not read-only).
    #[serde(
        default,
        rename = "destructiveHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub destructive: Option<bool>,
    /// Calling the tool again with the same arguments has no further effect.
    #[serde(
        default,
        rename = "idempotentHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub idempotent: Option<bool>,
    /// The tool reaches outside a closed world (the web, other people's systems).
    #[serde(
        default,
        rename = "openWorldHint",
        skip_serializing_if = "Option::is_none"
    )]
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no hint is set.
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }

    /// The tool changes nothing (MCP's default: no).
    pub fn is_read_only(&self) -> bool {
        self.read_only.unwrap_or(false)
    }

    /// The tool may destroy data: never when read-only, otherwise as said (MCP's default: yes).
    pub fn is_destructive(&self) -> bool {
        !self.is_read_only() && self.destructive.unwrap_or(true)
    }

    /// Repeating a call has no further effect: always when read-only, otherwise as said (MCP's
    /// default: no).
    pub fn is_idempotent(&self) -> bool {
        self.is_read_only() || self.idempotent.unwrap_or(false)
    }

    /// The tool reaches an open world (MCP's default: yes).
    pub fn is_open_world(&self) -> bool {
        self.open_world.unwrap_or(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn annotations_use_mcp_names_and_defaults() {
        let hints = ToolAnnotations {
            title: Some("Delete a file".into()),
            destructive: Some(true),
            idempotent: Some(true),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&hints).unwrap(),
            json!({"title": "Delete a file", "destructiveHint": true, "idempotentHint": true})
        );
        let none = ToolAnnotations::default();
        assert_eq!(
            (
                none.is_read_only(),
                none.is_destructive(),
                none.is_idempotent(),
                none.is_open_world()
            ),
            (false, true, false, true)
        );
    }

    #[test]
    fn a_definition_without_hints_serializes_as_before() {
        let definition = ToolDefinition {
            name: "f".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&definition).unwrap(),
            json!({"name": "f", "description": "d", "parameters": {"type": "object"}})
        );
    }
}
