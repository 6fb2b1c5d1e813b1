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
/// use skyl::{ToolDefinition, tool::ToolAnnotations};
///
/// let definition = ToolDefinition::new("delete_file", "Deletes a file in the workspace.", json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})).with_annotations(ToolAnnotations::new().with_destructive(true));
/// assert_eq!(definition.output_schema, None);
/// ```
///
/// # As JSON
///
/// A definition is written with camelCase names, as the Model Context Protocol writes a tool
/// (`outputSchema`, and the annotations' `readOnlyHint` and the rest), and with `parameters`
/// for the arguments' schema, as OpenAI and Gemini call it. It is read from the JSON users
/// already have:
///
/// - an MCP tool, as `tools/list` lists it: `inputSchema` for the schema, `title` beside the
///   name (kept as [`ToolAnnotations::title`], over an older `annotations.title`, as a mounted
///   server's tool keeps it), and `icons`, `execution` and `_meta`, which say nothing a model
///   reads and are left out;
/// - an OpenAI function, bare (`{"name", "description", "parameters", "strict"}`), as the
///   Responses API lists it (`"type": "function"` beside those) or as Chat Completions lists it
///   (`{"type": "function", "function": {...}}`); `strict` is the adapter's choice in skyl
///   ([`OpenAiChat`](crate::provider::OpenAiChat)), so it is left out;
/// - an Anthropic tool: `input_schema` for the schema.
///
/// Any other field is refused, with an error that names it: a field skyl would drop is
/// something a user meant to say.
///
/// ```
/// use serde_json::json;
/// use skyl::ToolDefinition;
///
/// let mcp: ToolDefinition = serde_json::from_value(json!({
///     "name": "read_file",
///     "title": "Read a file",
///     "description": "Reads a file of the workspace.",
///     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
///     "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
///     "annotations": {"readOnlyHint": true}
/// }))
/// .unwrap();
/// assert_eq!(mcp.annotations.title.as_deref(), Some("Read a file"));
/// assert!(mcp.output_schema.is_some());
///
/// let typo = serde_json::from_value::<ToolDefinition>(json!({
///     "name": "read_file",
///     "description": "Reads a file of the workspace.",
///     "parameters": {"type": "object"},
///     "output_schema": {"type": "object"}
/// }));
/// assert!(typo.unwrap_err().to_string().starts_with("unknown field `output_schema`"));
/// ```
///
/// Non-exhaustive: definitions gain fields as MCP's do, so one is built with
/// [`new`](Self::new) and the `with_*` methods (or read from JSON), and its fields are set or
/// read by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
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
/// use skyl::tool::ToolAnnotations;
///
/// let hints = ToolAnnotations::new().with_read_only(true);
/// assert!(hints.is_read_only());
/// assert!(!hints.is_destructive(), "a read-only tool changes nothing");
/// assert!(ToolAnnotations::default().is_destructive());
/// ```
///
/// Non-exhaustive: MCP adds hints, and so will this; build one with [`new`](Self::new) and the
/// `with_*` methods.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
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

impl ToolDefinition {
    /// The definition of a tool named `name` that does what `description` says and takes
    /// arguments of the JSON schema `parameters`, without annotations or output schema.
    pub fn new(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters,
            annotations: ToolAnnotations::default(),
            output_schema: None,
        }
    }

    /// With the hints `annotations` ([`annotations`](Self::annotations)).
    pub fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// With the JSON schema of the tool's output ([`output_schema`](Self::output_schema)).
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }
}

impl ToolAnnotations {
    /// No hint said: each has MCP's default.
    pub fn new() -> Self {
        ToolAnnotations::default()
    }

    /// With a human-readable name ([`title`](Self::title)).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Saying whether the tool changes nothing ([`read_only`](Self::read_only)).
    pub fn with_read_only(mut self, read_only: bool) -> Self {
        self.read_only = Some(read_only);
        self
    }

    /// Saying whether the tool may destroy data ([`destructive`](Self::destructive)).
    pub fn with_destructive(mut self, destructive: bool) -> Self {
        self.destructive = Some(destructive);
        self
    }

    /// Saying whether a repeated call has no further effect ([`idempotent`](Self::idempotent)).
    pub fn with_idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = Some(idempotent);
        self
    }

    /// Saying whether the tool reaches an open world ([`open_world`](Self::open_world)).
    pub fn with_open_world(mut self, open_world: bool) -> Self {
        self.open_world = Some(open_world);
        self
    }

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

/// A tool definition as JSON spells it, in every spelling [`ToolDefinition`] reads.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DefinitionJson {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default, alias = "inputSchema", alias = "input_schema")]
    parameters: Option<Value>,
    #[serde(default)]
    annotations: Option<ToolAnnotations>,
    #[serde(default, rename = "outputSchema")]
    output_schema: Option<Value>,
    /// MCP's display name, beside the name.
    #[serde(default)]
    title: Option<String>,
    /// OpenAI's `"function"`, in a Responses tool and around a Chat Completions function.
    #[serde(default, rename = "type")]
    kind: Option<String>,
    /// A Chat Completions tool: the function inside.
    #[serde(default)]
    function: Option<Box<DefinitionJson>>,
    // Read so that they are not refused, and left out: nothing a model reads, or (`strict`)
    // an adapter's choice in skyl.
    #[serde(default, rename = "strict")]
    _strict: Option<Value>,
    #[serde(default, rename = "icons")]
    _icons: Option<Value>,
    #[serde(default, rename = "execution")]
    _execution: Option<Value>,
    #[serde(default, rename = "_meta")]
    _meta: Option<Value>,
}

impl DefinitionJson {
    fn into_definition<E: serde::de::Error>(self) -> Result<ToolDefinition, E> {
        if let Some(kind) = self.kind.as_deref().filter(|kind| *kind != "function") {
            return Err(E::custom(format_args!(
                "a tool of type `{kind}` is not a function tool; skyl reads only definitions of functions (`\"type\": \"function\"`, or none)"
            )));
        }
        if let Some(function) = self.function {
            if self.name.is_some() || self.parameters.is_some() || self.description.is_some() {
                return Err(E::custom(
                    "a tool with a `function` inside has its name, description and parameters there, not beside it",
                ));
            }
            if function.kind.is_some() || function.function.is_some() {
                return Err(E::custom(
                    "the `function` of a tool is the function itself, without a `type` or a `function` of its own",
                ));
            }
            return function.into_definition();
        }
        let name = self.name.ok_or_else(|| E::missing_field("name"))?;
        let parameters = self.parameters.ok_or_else(|| {
            E::custom(format_args!(
                "the tool `{name}` has no schema for its arguments: give it as `parameters` (OpenAI, skyl), `inputSchema` (MCP) or `input_schema` (Anthropic)"
            ))
        })?;
        let mut annotations = self.annotations.unwrap_or_default();
        // As a mounted MCP tool: the title beside the name is the newer place, and wins.
        if self.title.is_some() {
            annotations.title = self.title;
        }
        Ok(ToolDefinition {
            name,
            description: self.description.unwrap_or_default(),
            parameters,
            annotations,
            output_schema: self.output_schema,
        })
    }
}

impl<'de> Deserialize<'de> for ToolDefinition {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        DefinitionJson::deserialize(deserializer)?.into_definition()
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

    fn read(json: Value) -> Result<ToolDefinition, String> {
        serde_json::from_value(json).map_err(|error| error.to_string())
    }

    fn weather(parameters: Value) -> ToolDefinition {
        ToolDefinition {
            name: "get_weather".into(),
            description: "Get the weather for a city.".into(),
            parameters,
            ..Default::default()
        }
    }

    fn city() -> Value {
        json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    }

    #[test]
    fn an_mcp_tool_is_read_whole() {
        let listed = json!({
            "name": "get_weather",
            "title": "Weather",
            "description": "Get the weather for a city.",
            "inputSchema": city(),
            "outputSchema": {"type": "object", "properties": {"celsius": {"type": "number"}}},
            "annotations": {"title": "Old title", "readOnlyHint": true, "openWorldHint": true},
            "icons": [{"src": "https://example.com/sun.png"}],
            "_meta": {"vendor": 1}
        });
        assert_eq!(
            read(listed),
            Ok(ToolDefinition {
                annotations: ToolAnnotations {
                    title: Some("Weather".into()),
                    read_only: Some(true),
                    open_world: Some(true),
                    ..Default::default()
                },
                output_schema: Some(
                    json!({"type": "object", "properties": {"celsius": {"type": "number"}}})
                ),
                ..weather(city())
            })
        );
        // MCP leaves the description out when there is none.
        assert_eq!(
            read(json!({"name": "get_weather", "inputSchema": city()})),
            Ok(ToolDefinition {
                description: String::new(),
                ..weather(city())
            })
        );
    }

    #[test]
    fn an_openai_or_anthropic_function_is_read_whole() {
        let bare = json!({"name": "get_weather", "description": "Get the weather for a city.", "parameters": city()});
        let chat = json!({"type": "function", "function": {
            "name": "get_weather", "description": "Get the weather for a city.", "parameters": city(), "strict": true
        }});
        let responses = json!({
            "type": "function", "name": "get_weather", "description": "Get the weather for a city.",
            "parameters": city(), "strict": false
        });
        let anthropic = json!({"name": "get_weather", "description": "Get the weather for a city.", "input_schema": city()});
        for json in [bare, chat, responses, anthropic] {
            assert_eq!(read(json.clone()), Ok(weather(city())), "{json}");
        }
    }

    #[test]
    fn a_field_skyl_would_drop_is_refused_by_name() {
        assert_eq!(
            read(json!({"name": "f", "description": "d", "parameters": {}, "output_schema": {}})),
            Err("unknown field `output_schema`, expected one of `name`, `description`, `inputSchema`, `input_schema`, `parameters`, `annotations`, `outputSchema`, `title`, `type`, `function`, `strict`, `icons`, `execution`, `_meta`".into())
        );
        assert_eq!(
            read(json!({"name": "f", "parameters": {}, "annotations": {"read_only": true}})),
            Err("unknown field `read_only`, expected one of `title`, `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`".into())
        );
        assert_eq!(
            read(json!({"name": "f", "description": "d"})),
            Err("the tool `f` has no schema for its arguments: give it as `parameters` (OpenAI, skyl), `inputSchema` (MCP) or `input_schema` (Anthropic)".into())
        );
        assert_eq!(
            read(json!({"type": "web_search"})),
            Err("a tool of type `web_search` is not a function tool; skyl reads only definitions of functions (`\"type\": \"function\"`, or none)".into())
        );
        assert_eq!(
            read(json!({"type": "function", "name": "f", "function": {"name": "f", "parameters": {}}})),
            Err("a tool with a `function` inside has its name, description and parameters there, not beside it".into())
        );
        assert_eq!(
            read(json!({"parameters": {}})),
            Err("missing field `name`".into())
        );
    }

    #[test]
    fn a_definition_is_written_in_one_casing_and_read_back() {
        let definition = ToolDefinition {
            annotations: ToolAnnotations {
                read_only: Some(true),
                ..Default::default()
            },
            output_schema: Some(json!({"type": "object"})),
            ..weather(city())
        };
        let written = serde_json::to_value(&definition).unwrap();
        assert_eq!(
            written,
            json!({
                "name": "get_weather",
                "description": "Get the weather for a city.",
                "parameters": city(),
                "annotations": {"readOnlyHint": true},
                "outputSchema": {"type": "object"}
            })
        );
        assert_eq!(read(written), Ok(definition));
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
