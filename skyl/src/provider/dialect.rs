//! Lowering skyl's canonical schema (JSON Schema 2020-12, see [`schema`](crate::schema)) to the
//! dialect each provider accepts.
//!
//! - [`openai_strict`]: OpenAI strict mode (Structured Outputs), for [`OpenAiChat`](super::OpenAiChat)
//!   and [`OpenAiResponses`](super::OpenAiResponses) with `.with_strict(true)`: every object closed
//!   with `additionalProperties: false`, every property required, optional ones nullable, `oneOf`
//!   as `anyOf`, `default` removed, a `$ref` with keywords beside it inlined. A schema that cannot be strict (a map, `patternProperties`,
//!   `allOf`, a root that is not an object) is an error naming the field.
//! - [`gemini_json_schema`]: what [`Gemini`](super::Gemini) sends as `parametersJsonSchema` (full
//!   JSON Schema): `$schema` removed and local `$ref`s inlined; a recursive schema keeps its refs,
//!   which that field accepts.
//! - [`gemini_openapi`]: the OpenAPI 3.0 subset of Gemini's legacy `parameters` field: refs
//!   inlined (recursion is an error), `nullable` instead of `null` in types, `const` as a
//!   one-value `enum`, and every keyword outside the subset removed.
//!
//! - [`anthropic_output`]: the schema of an answer for Anthropic's structured outputs: closed
//!   objects, and the constraints it does not take moved into descriptions.
//!
//! Anthropic takes a tool's canonical schema as it is.
//!
//! ```
//! use serde_json::json;
//! use skyl::provider::dialect;
//!
//! let canonical = json!({
//!     "type": "object",
//!     "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
//!     "required": ["city"]
//! });
//! assert_eq!(
//!     dialect::openai_strict(&canonical).unwrap(),
//!     json!({
//!         "type": "object",
//!         "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
//!         "required": ["city", "days"],
//!         "additionalProperties": false
//!     })
//! );
//! assert_eq!(
//!     dialect::gemini_openapi(&canonical).unwrap(),
//!     json!({
//!         "type": "object",
//!         "properties": {"city": {"type": "string"}, "days": {"type": "integer", "nullable": true}},
//!         "required": ["city"]
//!     })
//! );
//! ```

// The lowering lives with the rest of the schema machinery (`schema/dialect.rs`); this module is
// its public path.
pub use crate::schema::dialect::{
    LoweringError, anthropic_output, gemini_json_schema, gemini_openapi, openai_strict,
};
