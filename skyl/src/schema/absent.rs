//! `null` where a lowered schema made an optional argument nullable means "not given".
//!
//! OpenAI's strict mode wants every property required, so
//! [`dialect::openai_strict`](crate::provider::dialect::openai_strict) makes each optional
//! property nullable and the model sends `null` for what it leaves out. Sent to the parser as it
//! is, that `null` fails every optional argument whose type does not take `null` (a
//! `#[serde(default)]` enum, a `String` with a default function, a `bool` of a nested struct). So
//! before the arguments are read a second time, each such `null` is removed, and the default
//! applies.
//!
//! The rule, exactly: in an object, a key whose value is `null` is removed when the object's
//! schema does not list it in `required` and its property schema does not accept `null`. Those
//! are the nulls a lowering adds and no others: a `null` the canonical schema accepts (an
//! `Option<T>`) keeps its meaning, and a `null` for a required argument is still an error that
//! names it. The rule applies at every depth: nested objects, array items, and the branch of an
//! `anyOf`/`oneOf` that the value fits once cleaned.
//!
//! This runs only when the first reading failed and the arguments hold a `null`, so a call that
//! parses costs nothing more.

use serde_json::Value;

use super::references::follow;
use super::validate::fits;

/// How deep the cleaning goes; deeper nulls are left to the parser's error.
const MAX_DEPTH: usize = 128;

/// Whether `value` holds a `null` anywhere.
pub(crate) fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(object) => object.values().any(has_null),
        _ => false,
    }
}

/// `arguments` without the nulls that stand for absent optional arguments of `schema`, or `None`
/// when there are none to remove.
pub(crate) fn without_absent_nulls(arguments: &Value, schema: &Value) -> Option<Value> {
    let mut cleaned = arguments.clone();
    clean(&mut cleaned, schema, schema, 0).then_some(cleaned)
}

/// Removes absent nulls from `value` (which `schema`, a part of `root`, describes); returns
/// whether it removed any.
fn clean(value: &mut Value, schema: &Value, root: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH || !has_null(value) {
        return false;
    }
    let schema = follow(schema, root);
    let Value::Object(map) = schema else {
        return false;
    };
    let mut changed = false;
    if let Some(Value::Array(all)) = map.get("allOf") {
        for part in all {
            changed |= clean(value, part, root, depth + 1);
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(keyword) {
            changed |= clean_union(value, branches, root, depth);
        }
    }
    match value {
        Value::Object(object) => {
            let properties = map.get("properties").and_then(Value::as_object);
            let required = |key: &str| {
                map.get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|required| required.iter().any(|name| name == key))
            };
            let before = object.len();
            object.retain(|key, item| {
                let absent = item.is_null()
                    && !required(key)
                    && properties
                        .and_then(|properties| properties.get(key))
                        .is_some_and(|property| !fits(&Value::Null, property, root));
                !absent
            });
            changed |= object.len() != before;
            let additional = map.get("additionalProperties").filter(|a| a.is_object());
            for (key, item) in object.iter_mut() {
                let property = properties
                    .and_then(|properties| properties.get(key))
                    .or(additional);
                if let Some(property) = property {
                    changed |= clean(item, property, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let prefix = map.get("prefixItems").and_then(Value::as_array);
            let rest = map.get("items").filter(|items| items.is_object());
            for (index, item) in items.iter_mut().enumerate() {
                let schema = prefix.and_then(|prefix| prefix.get(index)).or(rest);
                if let Some(schema) = schema {
                    changed |= clean(item, schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
    changed
}

/// Cleans `value` as the first branch it fits once cleaned; a value that already fits a branch,
/// or fits none even cleaned, is left as it is (the parser then explains it).
fn clean_union(value: &mut Value, branches: &[Value], root: &Value, depth: usize) -> bool {
    if branches.iter().any(|branch| fits(value, branch, root)) {
        return false;
    }
    for branch in branches {
        let mut candidate = value.clone();
        if clean(&mut candidate, branch, root, depth + 1) && fits(&candidate, branch, root) {
            *value = candidate;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "sort": {"$ref": "#/$defs/Sort"},
                "days": {"type": ["integer", "null"]},
                "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}]},
                "filters": {"type": "array", "items": {"$ref": "#/$defs/Filter"}},
                "target": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "file"}, "path": {"type": "string"}}, "required": ["kind", "path"]},
                    {"type": "object", "properties": {"kind": {"const": "url"}, "follow": {"type": "boolean"}}, "required": ["kind"]}
                ]}
            },
            "required": ["query"],
            "$defs": {
                "Sort": {"type": "string", "enum": ["relevance", "date"]},
                "Filter": {"type": "object", "properties": {"exact": {"type": "boolean"}, "tags": {"type": "array"}}, "required": ["tags"]}
            }
        })
    }

    #[test]
    fn a_null_for_an_optional_argument_that_takes_none_is_removed() {
        let cleaned = without_absent_nulls(
            &json!({"query": "x", "sort": null, "days": null}),
            &schema(),
        );
        assert_eq!(cleaned, Some(json!({"query": "x", "days": null})));
    }

    #[test]
    fn a_null_for_a_required_argument_stays_for_the_parser_to_explain() {
        assert_eq!(
            without_absent_nulls(&json!({"query": null}), &schema()),
            None
        );
    }

    #[test]
    fn nested_objects_array_items_and_union_branches_are_cleaned() {
        let arguments = json!({
            "query": "x",
            "filter": {"exact": null, "tags": []},
            "filters": [{"exact": true, "tags": []}, {"exact": null, "tags": null}],
            "target": {"kind": "url", "follow": null}
        });
        assert_eq!(
            without_absent_nulls(&arguments, &schema()),
            Some(json!({
                "query": "x",
                "filter": {"tags": []},
                "filters": [{"exact": true, "tags": []}, {"tags": null}],
                "target": {"kind": "url"}
            }))
        );
    }

    #[test]
    fn arguments_without_nulls_are_not_copied() {
        assert_eq!(
            without_absent_nulls(&json!({"query": "x"}), &schema()),
            None
        );
        assert!(!has_null(&json!({"a": [1, {"b": "c"}]})));
        assert!(has_null(&json!({"a": [1, {"b": null}]})));
    }
}
