//! The shape a model's final answer must take: [`OutputSchema`], which each adapter puts on its
//! provider's structured-output field.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::PORTABLE_NAMES;
use crate::schema::references::DATA_KEYWORDS;

/// The field a typed answer that is not a JSON object is wrapped in on the wire:
/// `{"answer": ...}` (see [`OutputSchema`]).
pub const ANSWER_FIELD: &str = "answer";

/// A JSON schema the model's final answer must follow, and its name, for
/// [`Request::output`](super::Request::output).
///
/// Each built-in adapter puts it where its provider constrains the answer, lowered to the
/// provider's dialect as tool schemas are:
///
/// | adapter | field | schema |
/// |---|---|---|
/// | [`OpenAiChat`](super::OpenAiChat) | `response_format: {type: "json_schema", json_schema: {name, schema, strict: true}}` | [`dialect::openai_strict`](super::dialect::openai_strict) |
/// | [`OpenAiResponses`](super::OpenAiResponses) | `text: {format: {type: "json_schema", name, schema, strict: true}}` | [`dialect::openai_strict`](super::dialect::openai_strict) |
/// | [`Gemini`](super::Gemini) | `generationConfig: {responseMimeType: "application/json", responseJsonSchema}` (`responseSchema` with `legacy_parameters`) | [`dialect::gemini_json_schema`](super::dialect::gemini_json_schema) ([`gemini_openapi`](super::dialect::gemini_openapi)) |
/// | [`Anthropic`](super::Anthropic) | `output_config: {format: {type: "json_schema", schema}}` | [`dialect::anthropic_output`](super::dialect::anthropic_output) |
///
/// ```
/// use skyl::provider::OutputSchema;
///
/// /// A verdict on a claim.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Verdict {
///     /// Whether the claim holds.
///     holds: bool,
/// }
///
/// let output = OutputSchema::of::<Verdict>();
/// assert_eq!(output.name, "Verdict");
/// assert_eq!(output.schema["properties"]["holds"]["type"], "boolean");
/// ```
///
/// # Answers that are not objects
///
/// OpenAI (both APIs) and Anthropic take only an object at the root of an answer's schema. An
/// answer of another type (a list, a number, a string, a `bool`, an enum) is wrapped, for every
/// provider alike so that a run moving between providers reads the same: its schema becomes an
/// object of one required field, [`ANSWER_FIELD`] (`"answer"`), whose schema is the answer's, and
/// the model answers `{"answer": ...}`. [`RunBuilder::answer_as`](crate::agent::RunBuilder::answer_as)
/// takes the value out again (and reads a bare value as well); a caller of an adapter reads
/// `answer` itself when [`wraps_answer`](Self::wraps_answer) says so.
///
/// ```
/// use serde_json::json;
/// use skyl::provider::OutputSchema;
///
/// let output = OutputSchema::of::<Vec<String>>();
/// assert!(output.wraps_answer());
/// assert_eq!(
///     output.schema,
///     json!({
///         "type": "object",
///         "properties": {"answer": {"type": "array", "items": {"type": "string"}}},
///         "required": ["answer"]
///     })
/// );
/// ```
///
/// Definitions (`$defs`) nothing refers to are left out. It serializes as `{"name": ...,
/// "schema": ...}` (and `"mode"` when it is not [`OutputMode::Schema`]), to be logged or stored
/// beside a run.
///
/// # A server that cannot hold an answer to a schema
///
/// [`mode`](Self::mode) says how the schema travels: by default ([`OutputMode::Schema`]) as the
/// table above shows; in [`OutputMode::JsonObject`], only a JSON answer is asked for, and the
/// schema is the prompt's to give. A typed run moves to it, once, on a compatible server that
/// refuses the schema (see [`RunBuilder::answer_as`](crate::agent::RunBuilder::answer_as)).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct OutputSchema {
    /// The schema's name (OpenAI requires one): letters, digits, `_` and `-`, at most 64.
    pub name: String,
    /// The canonical schema (see [`schema`](crate::schema)) of what the model sends: the
    /// answer's, or the object wrapping it.
    pub schema: Value,
    /// How the schema travels: on the provider's structured-output field (the default), or
    /// as a request for any JSON object, the schema left to the prompt.
    #[serde(skip_serializing_if = "OutputMode::is_schema")]
    pub mode: OutputMode,
    /// Whether `schema` wraps the answer in [`ANSWER_FIELD`].
    #[serde(skip)]
    wrapped: bool,
}

/// How an [`OutputSchema`] constrains the answer on the wire.
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OutputMode {
    /// The schema on the provider's structured-output field, which holds the answer to it (the
    /// table of [`OutputSchema`]).
    #[default]
    Schema,
    /// JSON mode: the answer is asked to be a JSON object, of no particular schema; whoever
    /// builds the request gives the schema in its prompt. OpenAI Chat sends `response_format:
    /// {type: "json_object"}`, OpenAI Responses `text: {format: {type: "json_object"}}`, Gemini
    /// `generationConfig: {responseMimeType: "application/json"}`, and Anthropic, which has no
    /// JSON mode, nothing.
    JsonObject,
}

impl OutputMode {
    /// Whether it is [`OutputMode::Schema`], the default.
    fn is_schema(&self) -> bool {
        *self == OutputMode::Schema
    }
}

impl OutputSchema {
    /// The schema of `T`, named after it; wrapped in an object when `T` is not one.
    pub fn of<T: JsonSchema>() -> Self {
        OutputSchema::new(T::schema_name(), crate::schema::output_schema_for::<T>())
    }

    /// A schema given as JSON, under `name` (made to fit the name rule where it does not);
    /// wrapped in an object when it does not describe one.
    pub fn new(name: impl AsRef<str>, schema: Value) -> Self {
        let (schema, wrapped) = on_the_wire(schema);
        OutputSchema {
            name: PORTABLE_NAMES
                .sanitized(name.as_ref())
                .chars()
                .take(64)
                .collect(),
            schema,
            mode: OutputMode::Schema,
            wrapped,
        }
    }

    /// The same schema, travelling as `mode` says ([`mode`](Self::mode)).
    pub fn with_mode(mut self, mode: OutputMode) -> Self {
        self.mode = mode;
        self
    }

    /// Whether the answer travels wrapped, as `{"answer": ...}` ([`ANSWER_FIELD`]): its own
    /// schema is not an object's.
    pub fn wraps_answer(&self) -> bool {
        self.wrapped
    }

    /// The answer inside the JSON the model sent: its [`ANSWER_FIELD`] when the answer is
    /// wrapped (`None` when the model left it out), the whole value otherwise.
    pub fn unwrap_answer(&self, sent: Value) -> Option<Value> {
        match sent {
            Value::Object(mut fields) if self.wrapped => fields.remove(ANSWER_FIELD),
            _ if self.wrapped => None,
            sent => Some(sent),
        }
    }
}

/// Whether `schema` is a plain object schema at its root, as the strictest provider wants it.
fn describes_object(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("object"))
        && ["anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .all(|keyword| schema.get(keyword).is_none())
}

/// The schema of what the model sends for an answer of `schema`: the schema itself made
/// canonical when it describes an object, or the object wrapping it; and which of the two.
fn on_the_wire(mut schema: Value) -> (Value, bool) {
    if describes_object(&schema) {
        crate::schema::canonicalize(&mut schema);
        prune_definitions(&mut schema);
        return (schema, false);
    }
    let definitions = match &mut schema {
        Value::Object(root) => {
            root.remove("$schema");
            root.remove("title");
            root.remove("$defs")
        }
        _ => None,
    };
    let mut wrapper = json!({
        "type": "object",
        "properties": {ANSWER_FIELD: schema},
        "required": [ANSWER_FIELD]
    });
    // The answer's references point into the root's `$defs`, which is now the wrapper's.
    if let Some(definitions) = definitions {
        wrapper["$defs"] = definitions;
    }
    prune_definitions(&mut wrapper);
    (wrapper, true)
}

/// Removes the definitions under the root's `$defs` that nothing reachable from the root refers
/// to, and `$defs` itself when none is left.
fn prune_definitions(schema: &mut Value) {
    let Some(Value::Object(definitions)) = schema.get("$defs") else {
        return;
    };
    let mut used = BTreeSet::new();
    let mut pending = Vec::new();
    collect_references(schema, true, &mut pending);
    while let Some(name) = pending.pop() {
        if used.insert(name.clone())
            && let Some(definition) = definitions.get(&name)
        {
            collect_references(definition, false, &mut pending);
        }
    }
    let kept: Map<String, Value> = definitions
        .iter()
        .filter(|(name, _)| used.contains(*name))
        .map(|(name, definition)| (name.clone(), definition.clone()))
        .collect();
    let Value::Object(root) = schema else {
        return;
    };
    if kept.is_empty() {
        root.remove("$defs");
    } else {
        root.insert("$defs".into(), Value::Object(kept));
    }
}

/// Pushes the name of each definition `node` refers to (`#/$defs/Name`); at the root, the
/// definitions themselves are skipped: one is used only when something reachable refers to it.
fn collect_references(node: &Value, root: bool, names: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix("#/$defs/"))
            {
                // A JSON pointer's escapes, for a name with `/` or `~` in it.
                names.push(name.replace("~1", "/").replace("~0", "~"));
            }
            for (key, value) in map {
                if DATA_KEYWORDS.contains(&key.as_str()) || (root && key == "$defs") {
                    continue;
                }
                collect_references(value, false, names);
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_references(item, false, names);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn it_serializes_as_its_name_and_schema() {
        let output = OutputSchema::new(
            "a verdict",
            json!({"type": "object", "properties": {"holds": {"type": "boolean"}}}),
        );
        assert_eq!(
            serde_json::to_value(&output).unwrap(),
            json!({"name": "a_verdict", "schema": {
                "type": "object",
                "properties": {"holds": {"type": "boolean"}},
                "required": []
            }})
        );
    }

    #[test]
    fn an_answer_that_is_not_an_object_is_wrapped_with_only_the_definitions_it_uses() {
        let output = OutputSchema::new(
            "Moods",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "Moods",
                "type": "array",
                "items": {"$ref": "#/$defs/Mood"},
                "$defs": {
                    "Mood": {"oneOf": [{"$ref": "#/$defs/Calm"}, {"type": "string"}]},
                    "Calm": {"const": "calm"},
                    "Unused": {"type": "integer"}
                }
            }),
        );
        assert!(output.wraps_answer());
        assert_eq!(
            output.schema,
            json!({
                "type": "object",
                "properties": {"answer": {"type": "array", "items": {"$ref": "#/$defs/Mood"}}},
                "required": ["answer"],
                "$defs": {
                    "Mood": {"oneOf": [{"$ref": "#/$defs/Calm"}, {"type": "string"}]},
                    "Calm": {"const": "calm"}
                }
            })
        );
        assert_eq!(
            output.unwrap_answer(json!({"answer": ["calm"]})),
            Some(json!(["calm"]))
        );
        assert_eq!(output.unwrap_answer(json!(["calm"])), None);
        let object = OutputSchema::new("Holds", json!({"type": "object", "properties": {}}));
        assert!(!object.wraps_answer());
        assert_eq!(
            object.unwrap_answer(json!({"answer": 1})),
            Some(json!({"answer": 1}))
        );
    }
}
