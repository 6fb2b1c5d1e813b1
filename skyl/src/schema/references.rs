//! Local `$ref`s: the one resolver every part of skyl that reads a schema uses (validation,
//! lowering, instances, the registration check, the reading of absent nulls).
//!
//! Only references inside the schema are followed: `#` (the root) and JSON pointers into it
//! (`#/$defs/Name`). A tool's schema travels alone to a provider, which could not fetch anything
//! else either.

use serde_json::Value;

/// Keywords whose values are data, not subschemas: a `"$ref"` key under them is not a reference,
/// and a walk over subschemas does not enter them.
pub(crate) const DATA_KEYWORDS: [&str; 6] = [
    "enum", "const", "default", "examples", "example", "required",
];

/// How many `$ref`s may be followed in a row without reaching a value's child; a schema whose
/// references loop on themselves is taken as it stands past that, as no value could fail it
/// sooner.
pub(crate) const MAX_REF_HOPS: usize = 64;

/// Resolves a local `$ref`: `#` or a JSON pointer into the root (`#/$defs/Name`).
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    if reference == "#" {
        return Some(root);
    }
    root.pointer(reference.strip_prefix('#')?)
}

/// Follows a chain of `$ref`s to the schema it ends on; a chain that never ends (a definition
/// that is only a `$ref` to itself) stops after a bounded number of steps.
pub(crate) fn follow<'a>(mut schema: &'a Value, root: &'a Value) -> &'a Value {
    for _ in 0..MAX_REF_HOPS {
        // Keywords beside a `$ref` are annotations (a property's description) in what skyl and
        // schemars emit; the definition says what the value is.
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| resolve(root, reference))
        {
            Some(target) => schema = target,
            None => return schema,
        }
    }
    schema
}

/// The first `$ref` in `schema` that does not resolve inside `root`.
pub(crate) fn unresolved<'a>(schema: &'a Value, root: &Value) -> Option<&'a str> {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref")
                && resolve(root, reference).is_none()
            {
                return Some(reference);
            }
            map.iter()
                .filter(|(key, _)| !DATA_KEYWORDS.contains(&key.as_str()))
                .find_map(|(_, value)| unresolved(value, root))
        }
        Value::Array(items) => items.iter().find_map(|item| unresolved(item, root)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_resolve_to_the_root_and_to_pointers_and_chains_end() {
        let schema = json!({
            "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}, "Loop": {"$ref": "#/$defs/Loop"}},
            "properties": {"a": {"$ref": "#/$defs/A"}}
        });
        assert_eq!(resolve(&schema, "#"), Some(&schema));
        assert_eq!(
            resolve(&schema, "#/$defs/B"),
            Some(&json!({"type": "string"}))
        );
        assert_eq!(resolve(&schema, "other.json#/x"), None);
        assert_eq!(
            follow(&schema["properties"]["a"], &schema),
            &json!({"type": "string"})
        );
        let looping = &schema["$defs"]["Loop"];
        assert_eq!(follow(looping, &schema), looping);
    }
}
