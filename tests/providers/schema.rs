//! The schema dialects, whole: OpenAI strict mode, Gemini `parametersJsonSchema` and Gemini's
//! legacy OpenAPI subset.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use skyl::provider::dialect::{self, LoweringError};
use skyl::schema::canonical_schema_for;

use super::support::assert_golden;

/// What to search for.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Search {
    /// Words to look for.
    query: String,
    /// At most this many results.
    limit: Option<u8>,
    /// Only results that pass this filter.
    filter: Option<Filter>,
    /// The order of the results.
    sort: Sort,
    /// Tags every result must carry.
    tags: Vec<String>,
}

/// A filter on results.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
struct Filter {
    /// Published in this year or later.
    since: Option<i32>,
    /// The kind of result.
    kind: Kind,
}

/// A kind of result.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Article,
    Video,
}

/// An order of results.
#[allow(dead_code)]
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Sort {
    Relevance,
    Date,
}

#[test]
fn the_canonical_schema_under_test() {
    assert_golden("schema/search_canonical", &canonical_schema_for::<Search>());
}

#[test]
fn strict_mode_closes_objects_requires_everything_and_makes_optionals_nullable() {
    let strict = dialect::openai_strict(&canonical_schema_for::<Search>()).unwrap();
    assert_golden("schema/search_openai_strict", &strict);
}

#[test]
fn gemini_json_schema_inlines_refs() {
    let lowered = dialect::gemini_json_schema(&canonical_schema_for::<Search>());
    assert_golden("schema/search_gemini_json_schema", &lowered);
}

#[test]
fn gemini_openapi_inlines_refs_and_uses_nullable() {
    let lowered = dialect::gemini_openapi(&canonical_schema_for::<Search>()).unwrap();
    assert_golden("schema/search_gemini_openapi", &lowered);
}

#[allow(dead_code)]
#[derive(JsonSchema)]
struct Headers {
    /// Request headers.
    headers: BTreeMap<String, String>,
}

#[test]
fn a_map_cannot_be_strict() {
    assert_eq!(
        dialect::openai_strict(&canonical_schema_for::<Headers>()),
        Err(LoweringError {
            path: "headers".into(),
            problem: "a map (an object whose `additionalProperties` is not false, such as a HashMap) cannot be strict".into(),
            fix: "strict mode needs every key declared in advance; use a struct with named fields (or a list of {key, value} objects), or leave strict mode off for this adapter".into(),
        })
    );
}

#[test]
fn strict_failures_name_nested_paths() {
    let schema = json!({
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"type": "object", "properties": {
                "meta": {"type": "object"}
            }}},
            "by_name": {"type": "object", "properties": {}, "patternProperties": {"^x": {"type": "string"}}}
        }
    });
    assert_eq!(
        dialect::openai_strict(&schema).unwrap_err().path,
        "items[].meta",
        "properties are checked in the order they are declared"
    );
    let schema = json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"meta": {"type": "object"}}}}}});
    let error = dialect::openai_strict(&schema).unwrap_err();
    assert_eq!(error.path, "items[].meta");
    assert_eq!(
        error.problem,
        "an object without declared `properties` (free-form JSON) cannot be strict"
    );
    assert_eq!(
        dialect::openai_strict(&json!({"anyOf": [{"type": "object"}]}))
            .unwrap_err()
            .to_string(),
        "the root is not a plain object schema, and strict mode accepts only an object at the root; take the arguments as a struct with named fields"
    );
}

#[test]
fn strict_mode_turns_one_of_into_any_of_and_drops_defaults() {
    let schema = json!({
        "type": "object",
        "properties": {
            "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "size": {"type": "integer", "default": 3},
            "unit": {"type": "string", "enum": ["cm", "in"]}
        },
        "required": ["shape"]
    });
    assert_eq!(
        dialect::openai_strict(&schema).unwrap(),
        json!({
            "type": "object",
            "properties": {
                "shape": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "size": {"type": ["integer", "null"]},
                "unit": {"type": ["string", "null"], "enum": ["cm", "in", null]}
            },
            "required": ["shape", "size", "unit"],
            "additionalProperties": false
        })
    );
}

#[test]
fn gemini_openapi_drops_what_the_subset_lacks() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "mode": {"const": "fast"},
            "count": {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2, "format": "uint32"},
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "either": {"oneOf": [{"type": "string"}, {"type": "number"}], "description": "x"},
            "maybe": {"type": ["string", "integer", "null"]}
        },
        "required": ["mode"]
    });
    assert_eq!(
        dialect::gemini_openapi(&schema).unwrap(),
        json!({
            "type": "object",
            "properties": {
                "mode": {"enum": ["fast"]},
                "count": {"type": "integer"},
                "level": {"type": "integer"},
                "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "maybe": {"anyOf": [
                    {"type": "string", "nullable": true},
                    {"type": "integer", "nullable": true}
                ]}
            },
            "required": ["mode"]
        })
    );
}

#[test]
fn recursion_is_reported_not_looped_on() {
    let schema = json!({
        "type": "object",
        "properties": {"next": {"$ref": "#"}}
    });
    let error = dialect::gemini_openapi(&schema).unwrap_err();
    assert_eq!(error.path, "next");
    assert_eq!(dialect::gemini_json_schema(&schema), schema);
}
