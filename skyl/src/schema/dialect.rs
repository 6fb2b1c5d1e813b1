//! Lowering the canonical schema to the dialect each provider accepts: one [`Dialect`] a tool's
//! schema can be sent in, and the functions that lower to each (public as
//! [`skyl::provider::dialect`](crate::provider::dialect), whose page says what each one does).

use std::fmt;

use serde_json::{Map, Value, json};

use super::references::{DATA_KEYWORDS, resolve};

/// Why a schema cannot be expressed in a dialect. Adapters turn it into an
/// [`EncodeError::Schema`](crate::provider::EncodeError::Schema) naming the tool.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweringError {
    /// Where: field names joined with `.`, `[]` for array items, `$defs.Name` for a definition;
    /// empty for the root.
    pub path: String,
    /// What cannot be expressed.
    pub problem: String,
    /// What to change.
    pub fix: String,
}

impl fmt::Display for LoweringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}; {}", self.problem, self.fix)
        } else {
            write!(f, "at `{}`: {}; {}", self.path, self.problem, self.fix)
        }
    }
}

impl std::error::Error for LoweringError {}

#[cfg(any(test, feature = "testing"))]
/// A schema dialect a provider is sent a tool's parameters in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// skyl's canonical schema, as Anthropic and OpenAI without strict mode get it.
    Canonical,
    /// [`openai_strict`], for OpenAI with strict mode.
    OpenAiStrict,
    /// [`gemini_json_schema`], Gemini's `parametersJsonSchema`.
    GeminiJsonSchema,
    /// [`gemini_openapi`], Gemini's OpenAPI subset.
    GeminiOpenApi,
}

#[cfg(any(test, feature = "testing"))]
impl Dialect {
    /// Every dialect a tool's parameters are sent in.
    pub(crate) const ALL: [Dialect; 4] = [
        Dialect::Canonical,
        Dialect::OpenAiStrict,
        Dialect::GeminiJsonSchema,
        Dialect::GeminiOpenApi,
    ];

    /// `canonical` in this dialect, or why it cannot be expressed there.
    pub(crate) fn lower(self, canonical: &Value) -> Result<Value, LoweringError> {
        match self {
            Dialect::Canonical => Ok(canonical.clone()),
            Dialect::OpenAiStrict => openai_strict(canonical),
            Dialect::GeminiJsonSchema => Ok(gemini_json_schema(canonical)),
            Dialect::GeminiOpenApi => gemini_openapi(canonical),
        }
    }
}

#[cfg(any(test, feature = "testing"))]
impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Canonical => "canonical",
            Dialect::OpenAiStrict => "OpenAI strict",
            Dialect::GeminiJsonSchema => "Gemini JSON Schema",
            Dialect::GeminiOpenApi => "Gemini OpenAPI",
        })
    }
}

fn join(path: &str, segment: &str) -> String {
    if path.is_empty() {
        segment.to_owned()
    } else if segment == "[]" {
        format!("{path}[]")
    } else {
        format!("{path}.{segment}")
    }
}

// ---------------------------------------------------------------------------------------------
// OpenAI strict mode
// ---------------------------------------------------------------------------------------------

const STRICT_FIX: &str = "strict mode needs every key declared in advance; use a struct with named fields (or a list of {key, value} objects), or leave strict mode off for this adapter";

/// The schema in OpenAI's strict dialect, as the "Supported schemas" section of OpenAI's
/// Structured Outputs guide states it: "additionalProperties: false must always be set in
/// objects", "All fields must be required", "Root objects must not be anyOf and must be an
/// object".
pub fn openai_strict(schema: &Value) -> Result<Value, LoweringError> {
    let is_object_root = schema.get("type") == Some(&json!("object"))
        && schema.get("anyOf").is_none()
        && schema.get("oneOf").is_none();
    if !is_object_root {
        return Err(LoweringError {
            path: String::new(),
            problem: "the root is not a plain object schema, and strict mode accepts only an object at the root".into(),
            fix: "take the arguments as a struct with named fields".into(),
        });
    }
    let mut lowered = schema.clone();
    strict_node(&mut lowered, schema, "")?;
    Ok(lowered)
}

fn is_object_schema(map: &Map<String, Value>) -> bool {
    match map.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => map.contains_key("properties"),
    }
}

fn strict_node(node: &mut Value, root: &Value, path: &str) -> Result<(), LoweringError> {
    let Value::Object(map) = node else {
        return Ok(());
    };
    // Strict mode refuses keywords beside a `$ref` ("$ref cannot have keywords {'description'}"):
    // such a node gets the definition inlined, its own keywords winning.
    if map.len() > 1
        && let Some(Value::String(reference)) = map.get("$ref")
    {
        let Some(Value::Object(target)) = resolve(root, reference) else {
            return Err(LoweringError {
                path: path.to_owned(),
                problem: format!("`$ref` \"{reference}\" points to no definition in the schema"),
                fix: "add the definition under `$defs` or inline the type".into(),
            });
        };
        let mut inlined = target.clone();
        map.remove("$ref");
        inlined.extend(std::mem::take(map));
        *map = inlined;
    }
    if let Some(one_of) = map.remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    map.remove("default");
    if map.contains_key("allOf") {
        return Err(LoweringError {
            path: path.to_owned(),
            problem: "`allOf` is not supported in strict mode".into(),
            fix: "merge the combined types into one struct (avoid #[serde(flatten)] in tool arguments), or leave strict mode off for this adapter".into(),
        });
    }
    if map.contains_key("patternProperties") {
        return Err(LoweringError {
            path: path.to_owned(),
            problem:
                "an object with `patternProperties` (keys chosen by the model) cannot be strict"
                    .into(),
            fix: STRICT_FIX.into(),
        });
    }
    match map.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {}
        Some(_) => {
            return Err(LoweringError {
                path: path.to_owned(),
                problem: "a map (an object whose `additionalProperties` is not false, such as a HashMap) cannot be strict".into(),
                fix: STRICT_FIX.into(),
            });
        }
    }
    if is_object_schema(map) {
        let Some(Value::Object(properties)) = map.get_mut("properties") else {
            return Err(LoweringError {
                path: path.to_owned(),
                problem:
                    "an object without declared `properties` (free-form JSON) cannot be strict"
                        .into(),
                fix: STRICT_FIX.into(),
            });
        };
        let names: Vec<String> = properties.keys().cloned().collect();
        let required: Vec<Value> = match map.get("required") {
            Some(Value::Array(required)) => required.clone(),
            _ => Vec::new(),
        };
        let Some(Value::Object(properties)) = map.get_mut("properties") else {
            unreachable!("checked above");
        };
        for (name, property) in properties.iter_mut() {
            strict_node(property, root, &join(path, name))?;
            if !required.iter().any(|r| r == name) {
                make_nullable(property);
            }
        }
        map.insert(
            "required".into(),
            Value::Array(names.into_iter().map(Value::String).collect()),
        );
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(items) = map.get_mut("items") {
        strict_node(items, root, &join(path, "[]"))?;
    }
    if let Some(Value::Array(items)) = map.get_mut("prefixItems") {
        for item in items {
            strict_node(item, root, &join(path, "[]"))?;
        }
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        for branch in branches {
            strict_node(branch, root, path)?;
        }
    }
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(definitions)) = map.get_mut(defs) {
            for (name, definition) in definitions.iter_mut() {
                strict_node(definition, root, &format!("{defs}.{name}"))?;
            }
        }
    }
    Ok(())
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&json!("null"))
}

/// Makes an optional property accept `null`, the strict-mode way to say "not given".
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    let has_ref = map.contains_key("$ref");
    match map.get_mut("type") {
        Some(Value::String(t)) if t == "null" => return,
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => return,
        Some(Value::String(t)) if !has_ref => {
            let t = t.clone();
            map.insert("type".into(), json!([t, "null"]));
            add_null_to_enum(map);
            return;
        }
        Some(Value::Array(types)) if !has_ref => {
            types.push(json!("null"));
            add_null_to_enum(map);
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        if !branches.iter().any(is_null_schema) {
            branches.push(json!({"type": "null"}));
        }
        return;
    }
    let inner = std::mem::take(map);
    map.insert(
        "anyOf".into(),
        json!([Value::Object(inner), {"type": "null"}]),
    );
}

fn add_null_to_enum(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

// ---------------------------------------------------------------------------------------------
// Anthropic structured outputs
// ---------------------------------------------------------------------------------------------

/// Keywords Anthropic's structured outputs do not take ("JSON Schema limitations" in its
/// structured-outputs guide: numerical and string-length constraints); its SDKs move them into
/// the description, as this does.
const ANTHROPIC_UNSUPPORTED: [&str; 8] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
];

/// The schema of an answer for Anthropic's `output_config.format`: closed objects as in
/// [`openai_strict`] (Anthropic asks for `additionalProperties: false` on every object), and the
/// numerical and string constraints it does not take moved into the description, where the model
/// still reads them.
///
/// ```
/// use serde_json::json;
/// use skyl::provider::dialect;
///
/// let canonical = json!({
///     "type": "object",
///     "properties": {"stars": {"type": "integer", "minimum": 1, "maximum": 5}},
///     "required": ["stars"]
/// });
/// assert_eq!(
///     dialect::anthropic_output(&canonical).unwrap(),
///     json!({
///         "type": "object",
///         "properties": {"stars": {"type": "integer", "description": "{minimum: 1, maximum: 5}"}},
///         "required": ["stars"],
///         "additionalProperties": false
///     })
/// );
/// ```
pub fn anthropic_output(schema: &Value) -> Result<Value, LoweringError> {
    let mut lowered = openai_strict(schema)?;
    move_unsupported(&mut lowered);
    Ok(lowered)
}

fn move_unsupported(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let moved: Vec<String> = ANTHROPIC_UNSUPPORTED
                .iter()
                .filter_map(|key| map.remove(*key).map(|value| format!("{key}: {value}")))
                .collect();
            if !moved.is_empty() {
                let note = format!("{{{}}}", moved.join(", "));
                let description = match map.get("description").and_then(Value::as_str) {
                    Some(text) => format!("{text}\n\n{note}"),
                    None => note,
                };
                map.insert("description".into(), Value::String(description));
            }
            for (key, value) in map.iter_mut() {
                match (key.as_str(), value) {
                    // Maps of names to schemas: a property may be called `minimum`.
                    ("properties" | "$defs" | "definitions", Value::Object(named)) => {
                        named.values_mut().for_each(move_unsupported);
                    }
                    (key, value) if !DATA_KEYWORDS.contains(&key) && key != "description" => {
                        move_unsupported(value);
                    }
                    _ => {}
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(move_unsupported),
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini
// ---------------------------------------------------------------------------------------------

/// The schema for Gemini's `parametersJsonSchema`: `$schema` removed and local `$ref`s inlined,
/// since the backend has answered both with errors (`reference to undefined schema at ...`). A
/// recursive schema cannot be inlined; it keeps its `$ref`s and `$defs`, which this field passes
/// to the backend as they are.
pub fn gemini_json_schema(schema: &Value) -> Value {
    match inline_refs(schema) {
        Ok(inlined) => inlined,
        Err(_) => {
            let mut kept = schema.clone();
            if let Value::Object(map) = &mut kept {
                map.remove("$schema");
            }
            kept
        }
    }
}

/// The schema in the OpenAPI 3.0 subset of Gemini's legacy `parameters` field (the `Schema`
/// object of the Gemini API reference: "a select subset of an OpenAPI 3.0 schema object").
///
/// Local `$ref`s are inlined; a recursive type is an error, since the subset has no references.
/// `["T", "null"]` types and `anyOf [X, {"type": "null"}]` become `nullable: true`, `oneOf`
/// becomes `anyOf`, `const` a one-value `enum`, an `enum` of non-strings is dropped (the subset
/// allows strings only), and keywords outside the subset (`additionalProperties`, `$schema`,
/// `exclusiveMinimum`, `multipleOf`, ...) are removed.
pub fn gemini_openapi(schema: &Value) -> Result<Value, LoweringError> {
    let inlined = inline_refs(schema)?;
    Ok(openapi_node(&inlined))
}

/// Inlines every local `$ref`, drops `$defs` and `$schema`.
fn inline_refs(schema: &Value) -> Result<Value, LoweringError> {
    // The root is being inlined: a `$ref` to "#" inside it is recursion.
    let mut stack = vec!["#".to_owned()];
    inline_node(schema, schema, "", &mut stack)
}

fn inline_node(
    node: &Value,
    root: &Value,
    path: &str,
    stack: &mut Vec<String>,
) -> Result<Value, LoweringError> {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                if stack.contains(reference) {
                    return Err(LoweringError {
                        path: path.to_owned(),
                        problem: format!(
                            "the type refers to itself (`$ref` \"{reference}\"), and Gemini's `parameters` (an OpenAPI subset without references) cannot express recursion"
                        ),
                        fix: "use Gemini's default parametersJsonSchema mode (do not call .with_legacy_parameters(true)), or bound the nesting in the argument type".into(),
                    });
                }
                let target = resolve(root, reference).ok_or_else(|| LoweringError {
                    path: path.to_owned(),
                    problem: format!(
                        "`$ref` \"{reference}\" points to no definition in the schema"
                    ),
                    fix: "add the definition under `$defs` or inline the type".into(),
                })?;
                stack.push(reference.clone());
                let mut inlined = inline_node(target, root, path, stack)?;
                stack.pop();
                if let Value::Object(inlined_map) = &mut inlined {
                    for (key, value) in map {
                        if key != "$ref" {
                            inlined_map.insert(key.clone(), inline_node(value, root, path, stack)?);
                        }
                    }
                }
                return Ok(inlined);
            }
            let mut out = Map::new();
            for (key, value) in map {
                let lowered = match key.as_str() {
                    "$defs" | "definitions" | "$schema" => continue,
                    k if DATA_KEYWORDS.contains(&k) => value.clone(),
                    "properties" | "patternProperties" => match value {
                        Value::Object(children) => {
                            let mut lowered = Map::new();
                            for (name, child) in children {
                                lowered.insert(
                                    name.clone(),
                                    inline_node(child, root, &join(path, name), stack)?,
                                );
                            }
                            Value::Object(lowered)
                        }
                        other => other.clone(),
                    },
                    "items" | "prefixItems" => inline_node(value, root, &join(path, "[]"), stack)?,
                    _ => inline_node(value, root, path, stack)?,
                };
                out.insert(key.clone(), lowered);
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .iter()
            .map(|item| inline_node(item, root, path, stack))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
}

/// Keywords of Gemini's `Schema` kept as they are.
const OPENAPI_KEPT: [&str; 15] = [
    "title",
    "description",
    "required",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minProperties",
    "maxProperties",
    "default",
    "example",
    "propertyOrdering",
];

/// String and number formats the subset documents.
const OPENAPI_FORMATS: [&str; 6] = ["enum", "date-time", "int32", "int64", "float", "double"];

fn openapi_node(node: &Value) -> Value {
    let Value::Object(map) = node else {
        return node.clone();
    };
    if let Some(Value::Array(branches)) = map.get("anyOf").or_else(|| map.get("oneOf")) {
        let nullable = branches.iter().any(is_null_schema);
        let others: Vec<Value> = branches
            .iter()
            .filter(|b| !is_null_schema(b))
            .map(openapi_node)
            .collect();
        if let [only] = others.as_slice() {
            let mut merged = only.as_object().cloned().unwrap_or_default();
            if nullable {
                merged.insert("nullable".into(), Value::Bool(true));
            }
            // The property's own description says more than its type's.
            if let Some(description) = map.get("description") {
                merged.insert("description".into(), description.clone());
            }
            return Value::Object(merged);
        }
        let branches = others
            .into_iter()
            .map(|mut branch| {
                if nullable && let Value::Object(b) = &mut branch {
                    b.insert("nullable".into(), Value::Bool(true));
                }
                branch
            })
            .collect();
        // The API answers an `anyOf` with siblings: "When using any_of, it must be the only
        // field set".
        return json!({ "anyOf": Value::Array(branches) });
    }

    let mut out = Map::new();
    let mut nullable = false;
    match map.get("type") {
        Some(Value::String(t)) => {
            out.insert("type".into(), json!(t));
        }
        Some(Value::Array(types)) => {
            nullable = types.iter().any(|t| t == "null");
            let others: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            match others.as_slice() {
                [] => {
                    out.insert("type".into(), json!("null"));
                }
                [only] => {
                    out.insert("type".into(), (*only).clone());
                }
                several => {
                    let branches: Vec<Value> = several
                        .iter()
                        .map(|t| {
                            let mut branch = map.clone();
                            branch.insert("type".into(), (*t).clone());
                            let mut lowered = openapi_node(&Value::Object(branch));
                            if nullable {
                                lowered["nullable"] = Value::Bool(true);
                            }
                            lowered
                        })
                        .collect();
                    return json!({ "anyOf": branches });
                }
            }
        }
        _ => {}
    }
    for (key, value) in map {
        match key.as_str() {
            "properties" => {
                if let Value::Object(children) = value {
                    let lowered = children
                        .iter()
                        .map(|(name, child)| (name.clone(), openapi_node(child)))
                        .collect();
                    out.insert(key.clone(), Value::Object(lowered));
                }
            }
            "items" => {
                out.insert(key.clone(), openapi_node(value));
            }
            "format" if value.as_str().is_some_and(|f| OPENAPI_FORMATS.contains(&f)) => {
                out.insert(key.clone(), value.clone());
            }
            "const" if value.is_string() => {
                out.insert("enum".into(), json!([value]));
            }
            "enum" => {
                if let Value::Array(values) = value {
                    nullable |= values.iter().any(Value::is_null);
                    let kept: Vec<Value> =
                        values.iter().filter(|v| !v.is_null()).cloned().collect();
                    if kept.iter().all(Value::is_string) {
                        out.insert(key.clone(), Value::Array(kept));
                    }
                }
            }
            k if OPENAPI_KEPT.contains(&k) => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    if nullable {
        out.insert("nullable".into(), Value::Bool(true));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recursive_schema_is_an_error_in_openapi_and_kept_in_json_schema() {
        let schema = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "required": ["root"],
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        let error = gemini_openapi(&schema).unwrap_err();
        assert_eq!(error.path, "root.children[]");
        assert_eq!(gemini_json_schema(&schema), schema);
    }

    #[test]
    fn an_unresolvable_ref_is_an_error() {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Missing"}}});
        assert_eq!(
            gemini_openapi(&schema).unwrap_err().problem,
            "`$ref` \"#/$defs/Missing\" points to no definition in the schema"
        );
    }
}
