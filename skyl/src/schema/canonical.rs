//! The canonical form: one lean JSON Schema 2020-12 per tool, generated once (the rules are on
//! [`schema`](super)'s page).

use schemars::JsonSchema;
use serde_json::{Map, Value, json};

/// The canonical schema of `T`, which must describe a JSON object.
pub fn canonical_schema_for<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    canonicalize(&mut schema);
    schema
}

/// The schema of a tool's JSON output (`#[tool(output_schema)]`): as lean as
/// [`canonical_schema_for`], without the rules that make an arguments schema an object.
///
/// An MCP server sends it as the tool's `outputSchema`, which MCP requires to describe an
/// object: return a struct or a map, not a list.
///
/// ```
/// use serde_json::json;
///
/// #[derive(schemars::JsonSchema)]
/// struct Forecast { celsius: i8 }
///
/// assert_eq!(
///     skyl::schema::output_schema_for::<Forecast>(),
///     json!({
///         "type": "object",
///         "properties": {"celsius": {"type": "integer", "minimum": -128, "maximum": 127}},
///         "required": ["celsius"]
///     })
/// );
/// assert_eq!(skyl::schema::output_schema_for::<Vec<bool>>(), json!({"type": "array", "items": {"type": "boolean"}}));
/// ```
pub fn output_schema_for<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(root) = &mut schema {
        root.remove("$schema");
        root.remove("title");
    }
    replace_formats(&mut schema);
    schema
}

/// Applies the canonical rules to a schema generated elsewhere (a hand-written [`Tool`](crate::Tool)
/// or one read from an MCP server).
pub fn canonicalize(schema: &mut Value) {
    let Value::Object(root) = schema else {
        *schema = json!({"type": "object", "properties": {}, "required": []});
        return;
    };
    root.remove("$schema");
    root.remove("title");
    root.entry("type").or_insert_with(|| json!("object"));
    root.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    root.entry("required")
        .or_insert_with(|| Value::Array(Vec::new()));
    replace_formats(schema);
}

fn replace_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(format)) = map.get("format")
                && let Some(bounds) = numeric_format_bounds(format)
            {
                map.remove("format");
                if let Some((min, max)) = bounds {
                    map.entry("minimum").or_insert(min);
                    map.entry("maximum").or_insert(max);
                }
            }
            // Recurse into subschemas, but never into `properties`' names or literal values.
            for (key, value) in map.iter_mut() {
                match key.as_str() {
                    "enum" | "const" | "default" | "examples" | "required" => {}
                    "properties" | "$defs" | "definitions" | "patternProperties" => {
                        if let Value::Object(children) = value {
                            children.values_mut().for_each(replace_formats);
                        }
                    }
                    _ => replace_formats(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(replace_formats),
        _ => {}
    }
}

/// `None` for a format to keep; `Some(bounds)` for a numeric format to replace.
fn numeric_format_bounds(format: &str) -> Option<Option<(Value, Value)>> {
    Some(match format {
        "int8" => Some((json!(i8::MIN), json!(i8::MAX))),
        "int16" => Some((json!(i16::MIN), json!(i16::MAX))),
        "int32" => Some((json!(i32::MIN), json!(i32::MAX))),
        "uint8" => Some((json!(0), json!(u8::MAX))),
        "uint16" => Some((json!(0), json!(u16::MAX))),
        "uint32" => Some((json!(0), json!(u32::MAX))),
        // Bounds past 2^53 are not exact in most JSON parsers; schemars already adds `minimum: 0`
        // for the unsigned ones.
        "int64" | "int128" | "int" | "uint64" | "uint128" | "uint" | "float" | "double" => None,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Numbers {
        a: i8,
        b: u16,
        c: i32,
        d: u32,
        e: i64,
        f: u64,
        g: f32,
        h: f64,
        i: usize,
        list: Vec<u8>,
    }

    #[test]
    fn integer_formats_become_bounds() {
        assert_eq!(
            canonical_schema_for::<Numbers>(),
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "integer", "minimum": -128, "maximum": 127},
                    "b": {"type": "integer", "minimum": 0, "maximum": 65535},
                    "c": {"type": "integer", "minimum": -2147483648_i64, "maximum": 2147483647},
                    "d": {"type": "integer", "minimum": 0, "maximum": 4294967295_u64},
                    "e": {"type": "integer"},
                    "f": {"type": "integer", "minimum": 0},
                    "g": {"type": "number"},
                    "h": {"type": "number"},
                    "i": {"type": "integer", "minimum": 0},
                    "list": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}}
                },
                "required": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "list"]
            })
        );
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Empty {}

    #[test]
    fn a_tool_without_parameters_still_has_an_object_schema() {
        assert_eq!(
            canonical_schema_for::<Empty>(),
            json!({"type": "object", "properties": {}, "required": []})
        );
    }

    #[test]
    fn string_formats_and_literal_values_are_kept() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "format": {"type": "string", "enum": ["int32"], "default": "int32"}
            }
        });
        canonicalize(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "when": {"type": "string", "format": "date-time"},
                    "format": {"type": "string", "enum": ["int32"], "default": "int32"}
                },
                "required": []
            })
        );
    }

    #[test]
    fn a_schema_that_is_not_an_object_becomes_an_empty_object_schema() {
        let mut schema = json!(true);
        canonicalize(&mut schema);
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {}, "required": []})
        );
    }
}
