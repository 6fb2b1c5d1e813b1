//! The shape a model's final answer must take: [`OutputSchema`], which each adapter puts on its
//! provider's structured-output field.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::PORTABLE_NAMES;

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
/// It serializes as `{"name": ..., "schema": ...}`, to be logged or stored beside a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct OutputSchema {
    /// The schema's name (OpenAI requires one): letters, digits, `_` and `-`, at most 64.
    pub name: String,
    /// The canonical schema (see [`schema`](crate::schema)).
    pub schema: Value,
}

impl OutputSchema {
    /// The schema of `T`, named after it.
    pub fn of<T: JsonSchema>() -> Self {
        OutputSchema::new(T::schema_name(), crate::schema::canonical_schema_for::<T>())
    }

    /// A schema given as JSON, under `name` (made to fit the name rule where it does not).
    pub fn new(name: impl AsRef<str>, schema: Value) -> Self {
        OutputSchema {
            name: PORTABLE_NAMES
                .sanitized(name.as_ref())
                .chars()
                .take(64)
                .collect(),
            schema,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn it_serializes_as_its_name_and_schema() {
        let output = OutputSchema::new("a verdict", json!({"type": "boolean"}));
        assert_eq!(
            serde_json::to_value(&output).unwrap(),
            json!({"name": "a_verdict", "schema": {"type": "boolean"}})
        );
    }
}
