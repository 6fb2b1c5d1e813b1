//! Checking a model's arguments against a declared JSON schema, for tools whose schema is data
//! (a [`DynamicTool`](crate::DynamicTool)) rather than derived from a Rust type.
//!
//! A typed tool needs no validator: serde refuses what does not fit and `serde_path_to_error`
//! names the argument. A tool built at run time declares its schema as JSON, so skyl checks the
//! arguments against that schema before the tool's closure runs, and says what is wrong in the
//! same words serde would use (`invalid type: integer `42`, expected a string`, `missing field
//! `city``, `unknown field `cty`, expected `city``), so that a model reads one style of prose.
//!
//! The validator covers the JSON Schema a tool schema uses in practice, which is everything skyl
//! and schemars emit and what MCP servers send: `type` (with OpenAPI's `nullable`), `enum`,
//! `const`, `properties`, `required`, `additionalProperties`, `minProperties`, `maxProperties`,
//! `items`, `prefixItems`, `minItems`, `maxItems`, `uniqueItems`, `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `anyOf`,
//! `oneOf`, `allOf`, `not`, `if`/`then`/`else`, and local `$ref`s (`#`, `#/$defs/...`).
//!
//! It is skyl's own rather than a crate such as `jsonschema` because that crate brings a regular
//! expression engine, URL and date parsers and more into every build for keywords tool schemas
//! do not use, and its errors would not speak serde's words; this file is a few hundred lines
//! with no dependency beyond serde_json.
//!
//! Two keywords are deliberately not checked, because checking them would need a regular
//! expression engine in every build of skyl: `pattern` and `patternProperties` (a key that only a
//! `patternProperties` could allow is accepted). `format` is an annotation, as JSON Schema 2020-12
//! says by default. Unknown keywords are ignored, as the specification requires.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use serde_json::{Map, Number, Value};

use super::references::{MAX_REF_HOPS, follow, resolve};
use wording::{Bound, Counted};

// The sentences a model reads when its arguments do not fit, apart from the checks that find
// what does not fit.
mod wording;

/// Why a value does not fit a schema: where, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// The argument at fault, as serde_path_to_error writes paths (`filter.tags[0]`); empty for
    /// the arguments object itself.
    pub(crate) path: String,
    /// What is wrong, in serde's words.
    pub(crate) detail: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.detail)
        } else {
            write!(f, "argument `{}`: {}", self.path, self.detail)
        }
    }
}

/// Checks `value` against `schema`, whose `$ref`s resolve inside `schema` itself.
pub(crate) fn validate(value: &Value, schema: &Value) -> Result<(), Mismatch> {
    validate_in(value, schema, schema)
}

/// Checks `value` against `schema`, a part of `root` (where its `$ref`s resolve).
pub(crate) fn validate_in(value: &Value, schema: &Value, root: &Value) -> Result<(), Mismatch> {
    let mut walk = Walk {
        root,
        path: Vec::new(),
    };
    walk.check(value, schema, 0).map_err(|detail| Mismatch {
        path: render(&walk.path),
        detail,
    })
}

/// Whether `value` fits `schema` (a part of `root`).
pub(crate) fn fits(value: &Value, schema: &Value, root: &Value) -> bool {
    Walk {
        root,
        path: Vec::new(),
    }
    .check(value, schema, 0)
    .is_ok()
}

/// JSON equality as JSON Schema defines it: `1` and `1.0` are the same number; object keys are
/// unordered.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y) == Some(Ordering::Equal),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, a)| y.get(key).is_some_and(|b| json_equal(a, b)))
        }
        _ => a == b,
    }
}

enum Segment<'v> {
    Key(&'v str),
    Index(usize),
}

/// `filter.tags[0]`, as serde_path_to_error writes it.
fn render(path: &[Segment<'_>]) -> String {
    let mut text = String::new();
    for segment in path {
        match segment {
            Segment::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Segment::Index(index) => {
                let _ = write!(text, "[{index}]");
            }
        }
    }
    text
}

struct Walk<'v, 's> {
    root: &'s Value,
    /// Where the walk is; on failure, where the mismatch is.
    path: Vec<Segment<'v>>,
}

type Checked = Result<(), String>;

impl<'v, 's> Walk<'v, 's> {
    fn check(&mut self, value: &'v Value, schema: &'s Value, hops: usize) -> Checked {
        let map = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => {
                return Err(wording::nothing_allowed(value));
            }
            Value::Object(map) => map,
            // Not a schema; nothing can be checked against it.
            _ => return Ok(()),
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str)
            && hops < MAX_REF_HOPS
        {
            match resolve(self.root, reference) {
                Some(target) => self.check(value, target, hops + 1)?,
                None => {
                    return Err(wording::undefined_reference(reference));
                }
            }
        }
        self.check_type(value, map)?;
        if let Some(expected) = map.get("const")
            && !json_equal(value, expected)
        {
            return Err(wording::not_the_constant(value, expected));
        }
        if let Some(Value::Array(allowed)) = map.get("enum")
            && !allowed.iter().any(|candidate| json_equal(value, candidate))
        {
            return Err(wording::not_in_enum(value, allowed));
        }
        self.check_combinators(value, map, hops)?;
        match value {
            Value::Number(number) => check_number(number, map),
            Value::String(text) => check_string(text, map),
            Value::Array(items) => self.check_array(items, map),
            Value::Object(object) => self.check_object(object, map),
            Value::Null | Value::Bool(_) => Ok(()),
        }
    }

    fn check_type(&mut self, value: &Value, map: &Map<String, Value>) -> Checked {
        let nullable = map.get("nullable") == Some(&Value::Bool(true));
        if value.is_null() && nullable {
            return Ok(());
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(several)) => several.iter().filter_map(Value::as_str).collect(),
            _ => return Ok(()),
        };
        if types.iter().any(|t| has_type(value, t)) {
            return Ok(());
        }
        Err(wording::wrong_type(value, &types, nullable))
    }

    fn check_combinators(
        &mut self,
        value: &'v Value,
        map: &'s Map<String, Value>,
        hops: usize,
    ) -> Checked {
        if let Some(Value::Array(all)) = map.get("allOf") {
            for branch in all {
                self.check(value, branch, hops)?;
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            let Some(Value::Array(branches)) = map.get(keyword) else {
                continue;
            };
            let fitting = branches
                .iter()
                .filter(|branch| self.fits_here(value, branch, hops))
                .count();
            if fitting == 0 {
                return self.explain_branches(value, branches, hops);
            }
            if keyword == "oneOf" && fitting > 1 {
                return Err(wording::fits_several_forms(value, branches, self.root));
            }
        }
        if let Some(not) = map.get("not")
            && self.fits_here(value, not, hops)
        {
            return Err(wording::fits_the_excluded(value, not, self.root));
        }
        if let Some(condition) = map.get("if") {
            let branch = if self.fits_here(value, condition, hops) {
                map.get("then")
            } else {
                map.get("else")
            };
            if let Some(branch) = branch {
                self.check(value, branch, hops)?;
            }
        }
        Ok(())
    }

    /// Whether `value` fits `schema`, without moving the reported path.
    fn fits_here(&self, value: &Value, schema: &Value, hops: usize) -> bool {
        Walk {
            root: self.root,
            path: Vec::new(),
        }
        .check(value, schema, hops)
        .is_ok()
    }

    /// The error of a value that fits none of `branches`: the branch's own error when exactly one
    /// branch is of the value's kind (and, for objects, agrees with the value's constant
    /// properties, which is how tagged enums tell variants apart); a list of forms otherwise.
    fn explain_branches(
        &mut self,
        value: &'v Value,
        branches: &'s [Value],
        hops: usize,
    ) -> Checked {
        let close: Vec<&Value> = branches
            .iter()
            .filter(|branch| is_close(value, follow(branch, self.root), self.root))
            .collect();
        if let [only] = close.as_slice() {
            return self.check(value, only, hops);
        }
        if let Some((key, given, names)) = mismatched_tag(value, branches, self.root) {
            return Err(wording::unknown_tag(key, given, &names));
        }
        Err(wording::fits_no_form(value, branches, self.root))
    }

    fn check_array(&mut self, items: &'v [Value], map: &'s Map<String, Value>) -> Checked {
        let count = items.len();
        if let Some(min) = map.get("minItems").and_then(Value::as_u64)
            && (count as u64) < min
        {
            return Err(wording::length(
                count as u64,
                Bound::AtLeast,
                min,
                Counted::Item,
            ));
        }
        if let Some(max) = map.get("maxItems").and_then(Value::as_u64)
            && (count as u64) > max
        {
            return Err(wording::length(
                count as u64,
                Bound::AtMost,
                max,
                Counted::Item,
            ));
        }
        let prefix: &[Value] = match map.get("prefixItems") {
            Some(Value::Array(prefix)) => prefix,
            _ => &[],
        };
        // Draft 2019 and earlier wrote a tuple as an array under `items`.
        let (prefix, rest) = match map.get("items") {
            Some(Value::Array(tuple)) => (tuple.as_slice(), map.get("additionalItems")),
            rest => (prefix, rest),
        };
        for (index, item) in items.iter().enumerate() {
            let schema = match prefix.get(index) {
                Some(schema) => schema,
                None => match rest {
                    Some(schema) => schema,
                    None => continue,
                },
            };
            self.path.push(Segment::Index(index));
            self.check(item, schema, 0)?;
            self.path.pop();
        }
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            for (later, item) in items.iter().enumerate() {
                if let Some(earlier) = items[..later].iter().position(|e| json_equal(e, item)) {
                    return Err(wording::repeated_item(later, earlier));
                }
            }
        }
        Ok(())
    }

    fn check_object(
        &mut self,
        object: &'v Map<String, Value>,
        map: &'s Map<String, Value>,
    ) -> Checked {
        let properties = map.get("properties").and_then(Value::as_object);
        let additional = map.get("additionalProperties");
        // Only `patternProperties` could allow a key that is not declared; see the module docs.
        let open = map.contains_key("patternProperties");
        for (key, item) in object {
            let schema = match properties.and_then(|properties| properties.get(key)) {
                Some(schema) => schema,
                None => match additional {
                    Some(Value::Bool(false)) if !open => {
                        return Err(wording::unknown_field(key, properties));
                    }
                    Some(schema) => schema,
                    None => continue,
                },
            };
            self.path.push(Segment::Key(key));
            self.check(item, schema, 0)?;
            self.path.pop();
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    return Err(wording::missing_field(name));
                }
            }
        }
        let count = object.len() as u64;
        if let Some(min) = map.get("minProperties").and_then(Value::as_u64)
            && count < min
        {
            return Err(wording::length(
                count,
                Bound::AtLeast,
                min,
                Counted::Property,
            ));
        }
        if let Some(max) = map.get("maxProperties").and_then(Value::as_u64)
            && count > max
        {
            return Err(wording::length(
                count,
                Bound::AtMost,
                max,
                Counted::Property,
            ));
        }
        Ok(())
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match (name, value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(number)) => is_integer(number),
        _ => false,
    }
}

/// JSON Schema counts `1.0` as an integer.
fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// Compares two JSON numbers exactly when both are integers, as floats otherwise.
fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let exact = |n: &Number| {
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (exact(a), exact(b)) {
        (Some(a), Some(b)) => Some(a.cmp(&b)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

fn check_number(number: &Number, map: &Map<String, Value>) -> Checked {
    let bound = |key: &str| match map.get(key) {
        Some(Value::Number(bound)) => Some(bound),
        _ => None,
    };
    if let Some(min) = bound("minimum")
        && compare(number, min) == Some(Ordering::Less)
    {
        return Err(wording::out_of_bounds(number, Bound::AtLeast, min));
    }
    if let Some(max) = bound("maximum")
        && compare(number, max) == Some(Ordering::Greater)
    {
        return Err(wording::out_of_bounds(number, Bound::AtMost, max));
    }
    if let Some(min) = bound("exclusiveMinimum")
        && compare(number, min) != Some(Ordering::Greater)
    {
        return Err(wording::out_of_bounds(number, Bound::MoreThan, min));
    }
    if let Some(max) = bound("exclusiveMaximum")
        && compare(number, max) != Some(Ordering::Less)
    {
        return Err(wording::out_of_bounds(number, Bound::LessThan, max));
    }
    if let Some(step) = bound("multipleOf")
        && !is_multiple(number, step)
    {
        return Err(wording::out_of_bounds(number, Bound::MultipleOf, step));
    }
    Ok(())
}

fn is_multiple(number: &Number, step: &Number) -> bool {
    if let (Some(n), Some(s)) = (number.as_i64(), step.as_i64())
        && s != 0
    {
        return n % s == 0;
    }
    match (number.as_f64(), step.as_f64()) {
        (Some(n), Some(s)) if s != 0.0 => {
            let quotient = n / s;
            (quotient - quotient.round()).abs() <= 1e-9 * quotient.abs().max(1.0)
        }
        _ => true,
    }
}

fn check_string(text: &str, map: &Map<String, Value>) -> Checked {
    // JSON Schema counts characters, not bytes.
    let length = || text.chars().count() as u64;
    if let Some(min) = map.get("minLength").and_then(Value::as_u64)
        && length() < min
    {
        return Err(wording::length(
            length(),
            Bound::AtLeast,
            min,
            Counted::Character,
        ));
    }
    if let Some(max) = map.get("maxLength").and_then(Value::as_u64)
        && length() > max
    {
        return Err(wording::length(
            length(),
            Bound::AtMost,
            max,
            Counted::Character,
        ));
    }
    Ok(())
}

/// Whether `branch` is of `value`'s kind, and for an object, agrees with its constant
/// properties.
fn is_close(value: &Value, branch: &Value, root: &Value) -> bool {
    let Some(map) = branch.as_object() else {
        return false;
    };
    let of_kind = match map.get("type") {
        Some(Value::String(t)) => of_kind(value, t),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .any(|t| of_kind(value, t)),
        _ => match value {
            Value::Object(_) => map.contains_key("properties"),
            Value::Array(_) => map.contains_key("items"),
            _ => false,
        },
    };
    if !of_kind {
        return false;
    }
    let (Value::Object(object), Some(Value::Object(properties))) = (value, map.get("properties"))
    else {
        return true;
    };
    properties.iter().all(|(key, property)| {
        match (tag_values(follow(property, root)), object.get(key)) {
            (Some(tags), Some(given)) => tags.iter().any(|tag| json_equal(tag, given)),
            _ => true,
        }
    })
}

/// A number is close to an integer schema: its error then says which bound or kind it missed.
fn of_kind(value: &Value, type_name: &str) -> bool {
    has_type(value, type_name) || (type_name == "integer" && value.is_number())
}

/// The values a property may take when it is a constant (a tagged enum's tag).
fn tag_values(property: &Value) -> Option<Vec<&Value>> {
    if let Some(constant) = property.get("const") {
        return Some(vec![constant]);
    }
    match property.get("enum") {
        Some(Value::Array(values)) if values.len() == 1 => Some(values.iter().collect()),
        _ => None,
    }
}

/// For an object whose tag property names no variant (an internally tagged enum's): the tag's
/// key, the value given there, and the names the variants have.
fn mismatched_tag<'v>(
    value: &'v Value,
    branches: &[Value],
    root: &Value,
) -> Option<(&'v str, &'v Value, Vec<String>)> {
    let object = value.as_object()?;
    let (key, given) = object.iter().find(|(key, _)| {
        branches.iter().all(|branch| {
            follow(branch, root)
                .get("properties")
                .and_then(|properties| properties.get(key.as_str()))
                .is_some_and(|property| tag_values(follow(property, root)).is_some())
        })
    })?;
    let mut names = Vec::new();
    for branch in branches {
        let property = follow(branch, root).get("properties")?.get(key.as_str())?;
        for tag in tag_values(follow(property, root))? {
            names.push(tag.as_str()?.to_owned());
        }
    }
    Some((key, given, names))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mismatch(value: Value, schema: Value) -> String {
        validate(&value, &schema).unwrap_err().to_string()
    }

    #[test]
    fn types_and_nullability() {
        let schema = json!({"type": "object", "properties": {
            "city": {"type": "string"},
            "days": {"type": ["integer", "null"]},
            "legacy": {"type": "integer", "nullable": true},
            "ratio": {"type": "number"}
        }});
        assert!(
            validate(
                &json!({"city": "x", "days": null, "legacy": null, "ratio": 1}),
                &schema
            )
            .is_ok()
        );
        assert!(
            validate(&json!({"days": 2.0}), &schema).is_ok(),
            "2.0 is an integer"
        );
        assert_eq!(
            mismatch(json!({"city": 42}), schema.clone()),
            "argument `city`: invalid type: integer `42`, expected a string"
        );
        assert_eq!(
            mismatch(json!({"days": "3"}), schema.clone()),
            "argument `days`: invalid type: string \"3\", expected an integer or null"
        );
        assert_eq!(
            mismatch(json!({"legacy": 1.5}), schema.clone()),
            "argument `legacy`: invalid type: floating point `1.5`, expected an integer or null"
        );
        assert_eq!(
            mismatch(json!([1]), schema),
            "invalid type: sequence, expected an object"
        );
    }

    #[test]
    fn objects_say_what_is_missing_and_what_is_unknown() {
        let schema = json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
            "additionalProperties": false
        });
        assert_eq!(mismatch(json!({}), schema.clone()), "missing field `city`");
        assert_eq!(
            mismatch(json!({"city": "x", "cty": 1}), schema.clone()),
            "unknown field `cty`, expected `city` or `days`"
        );
        let nested = json!({
            "type": "object",
            "properties": {"filter": {"$ref": "#/$defs/Filter"}},
            "$defs": {"Filter": {
                "type": "object",
                "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
                "required": ["tags"]
            }}
        });
        assert_eq!(
            mismatch(json!({"filter": {}}), nested.clone()),
            "argument `filter`: missing field `tags`"
        );
        assert_eq!(
            mismatch(json!({"filter": {"tags": ["a", 2]}}), nested.clone()),
            "argument `filter.tags[1]`: invalid type: integer `2`, expected a string"
        );
        assert!(
            validate(&json!({"filter": {"tags": [], "other": 1}}), &nested).is_ok(),
            "an object without additionalProperties: false is open"
        );
        let typed_extra = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        assert_eq!(
            mismatch(json!({"a": 1, "b": "2"}), typed_extra),
            "argument `b`: invalid type: string \"2\", expected an integer"
        );
        assert_eq!(
            mismatch(
                json!({"a": 1}),
                json!({"type": "object", "additionalProperties": false})
            ),
            "unknown field `a`, there are no fields"
        );
    }

    #[test]
    fn enums_constants_and_bounds() {
        let schema = json!({"type": "object", "properties": {
            "sort": {"type": "string", "enum": ["relevance", "date"]},
            "level": {"enum": [1, 2, 3]},
            "kind": {"const": "file"},
            "days": {"type": "integer", "minimum": 0, "maximum": 255},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "step": {"type": "integer", "multipleOf": 5},
            "code": {"type": "string", "minLength": 3, "maxLength": 3},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true}
        }});
        let cases = [
            (
                json!({"sort": "name"}),
                "argument `sort`: unknown variant `name`, expected `relevance` or `date`",
            ),
            (
                json!({"level": 4}),
                "argument `level`: invalid value: integer `4`, expected one of 1, 2, 3",
            ),
            (
                json!({"kind": "url"}),
                "argument `kind`: invalid value: string \"url\", expected \"file\"",
            ),
            (
                json!({"days": 300}),
                "argument `days`: invalid value: integer `300`, expected at most 255",
            ),
            (
                json!({"days": -1}),
                "argument `days`: invalid value: integer `-1`, expected at least 0",
            ),
            (
                json!({"ratio": 1}),
                "argument `ratio`: invalid value: integer `1`, expected less than 1",
            ),
            (
                json!({"ratio": 0.0}),
                "argument `ratio`: invalid value: floating point `0.0`, expected more than 0",
            ),
            (
                json!({"step": 7}),
                "argument `step`: invalid value: integer `7`, expected a multiple of 5",
            ),
            (
                json!({"code": "ab"}),
                "argument `code`: invalid length 2, expected at least 3 characters",
            ),
            (
                json!({"code": "abcd"}),
                "argument `code`: invalid length 4, expected at most 3 characters",
            ),
            (
                json!({"tags": []}),
                "argument `tags`: invalid length 0, expected at least 1 item",
            ),
            (
                json!({"tags": [1, 2, 3]}),
                "argument `tags`: invalid length 3, expected at most 2 items",
            ),
            (
                json!({"tags": [1, 1.0]}),
                "argument `tags`: the items must be unique, and item 1 repeats item 0",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(mismatch(value, schema.clone()), expected);
        }
        assert!(
            validate(
                &json!({"level": 2.0, "code": "日本語", "step": 10}),
                &schema
            )
            .is_ok()
        );
    }

    #[test]
    fn unions_report_the_branch_the_value_meant() {
        let schema = json!({
            "type": "object",
            "properties": {"target": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "file"}, "path": {"type": "string"}}, "required": ["kind", "path"]},
                {"type": "object", "properties": {"kind": {"const": "url"}, "url": {"type": "string"}}, "required": ["kind", "url"]}
            ]},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}}
        });
        assert_eq!(
            mismatch(json!({"target": {"kind": "url", "url": 3}}), schema.clone()),
            "argument `target.url`: invalid type: integer `3`, expected a string"
        );
        assert_eq!(
            mismatch(json!({"target": {"kind": "ftp"}}), schema.clone()),
            "argument `target`: unknown variant `ftp` in `kind`, expected `file` or `url`"
        );
        assert_eq!(
            mismatch(json!({"limit": "ten"}), schema.clone()),
            "argument `limit`: invalid value: string \"ten\", expected an integer or null"
        );
        assert_eq!(
            mismatch(json!({"either": "x"}), schema.clone()),
            "argument `either`: invalid value: string \"x\", expected an integer or a boolean"
        );
        let overlapping = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(
            mismatch(json!(1), overlapping),
            "invalid value: integer `1`, which fits more than one of the forms expected here (an integer or a number)"
        );
    }

    #[test]
    fn references_all_of_not_and_conditionals() {
        let recursive = json!({
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "name": {"type": "string"}
            }}}
        });
        assert_eq!(
            mismatch(
                json!({"node": {"children": [{"children": [{"name": 1}]}]}}),
                recursive
            ),
            "argument `node.children[0].children[0].name`: invalid type: integer `1`, expected a string"
        );
        let dangling = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Gone"}}});
        assert_eq!(
            mismatch(json!({"a": 1}), dangling),
            "argument `a`: the tool's schema refers to `#/$defs/Gone`, which it does not define"
        );
        let looping = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
        assert!(validate(&json!(1), &looping).is_ok());
        let all = json!({"allOf": [{"type": "integer"}, {"minimum": 3}]});
        assert_eq!(
            mismatch(json!(2), all),
            "invalid value: integer `2`, expected at least 3"
        );
        let not = json!({"not": {"type": "null"}});
        assert_eq!(
            mismatch(Value::Null, not),
            "invalid value: null, expected anything but null"
        );
        let conditional = json!({
            "if": {"properties": {"unit": {"const": "percent"}}},
            "then": {"properties": {"value": {"maximum": 100}}}
        });
        assert!(validate(&json!({"unit": "count", "value": 500}), &conditional).is_ok());
        assert_eq!(
            mismatch(json!({"unit": "percent", "value": 500}), conditional),
            "argument `value`: invalid value: integer `500`, expected at most 100"
        );
        assert_eq!(
            mismatch(json!(1), json!(false)),
            "invalid value: integer `1`, expected nothing here"
        );
        assert!(validate(&json!({"anything": [1]}), &json!(true)).is_ok());
    }

    #[test]
    fn equality_is_json_schemas() {
        assert!(json_equal(
            &json!({"a": 1, "b": [2.0]}),
            &json!({"b": [2], "a": 1.0})
        ));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": null})));
        assert!(!json_equal(&json!("1"), &json!(1)));
        assert!(json_equal(&json!(u64::MAX), &json!(u64::MAX)));
        assert!(!json_equal(&json!(u64::MAX), &json!(u64::MAX - 1)));
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(100);
        assert_eq!(
            mismatch(json!(long), json!({"type": "integer"})),
            format!(
                "invalid type: string \"{}...\", expected an integer",
                "x".repeat(60)
            )
        );
    }
}
