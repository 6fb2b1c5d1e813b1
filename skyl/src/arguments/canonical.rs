//! What makes two calls "the same call": one canonical form of arguments, shared by the repeat
//! guard of a turn and the breaker of a run, so that the two never disagree.
//!
//! Two calls are the same when they name the same tool and their arguments are equal once
//! canonical: an object encoded as a JSON string is read, a `null` that stands for an absent
//! argument is dropped, object keys are unordered, and numbers compare by value (`1` and `1.0`
//! are one number).

use std::borrow::Cow;

use serde_json::Value;

use super::validate::json_equal;
use super::{as_object, has_null, without_absent_nulls};

/// The arguments as the tool reads them, for comparison; `schema` is the tool's parameters
/// schema, which says which `null`s stand for an absent argument (`None` when the tool is not
/// known: then every `null` counts).
pub(crate) fn canonical<'a>(arguments: &'a Value, schema: Option<&Value>) -> Cow<'a, Value> {
    let Ok(object) = as_object(arguments) else {
        return Cow::Borrowed(arguments);
    };
    if let Some(schema) = schema
        && has_null(&object)
        && let Some(cleaned) = without_absent_nulls(&object, schema)
    {
        return Cow::Owned(cleaned);
    }
    object
}

/// Whether two canonical arguments are the same arguments.
pub(crate) fn same_arguments(a: &Value, b: &Value) -> bool {
    json_equal(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn canonical_arguments_ignore_encoding_key_order_and_absent_nulls() {
        let schema = json!({"type": "object", "properties": {"to": {"type": "string"}, "cc": {"type": "string"}}, "required": ["to"]});
        let same = |a: Value, b: Value| {
            same_arguments(&canonical(&a, Some(&schema)), &canonical(&b, Some(&schema)))
        };
        assert!(same(
            json!({"to": "ada", "cc": null}),
            json!("{\"to\": \"ada\"}")
        ));
        assert!(same(
            json!({"cc": "bob", "to": "ada"}),
            json!({"to": "ada", "cc": "bob"})
        ));
        assert!(same(
            json!({"to": "ada", "n": 1}),
            json!({"to": "ada", "n": 1.0})
        ));
        assert!(!same(
            json!({"to": "ada"}),
            json!({"to": "ada", "cc": "bob"})
        ));
        assert_eq!(
            canonical(&json!([1]), Some(&schema)),
            Cow::Owned::<Value>(json!([1]))
        );
        assert_eq!(
            canonical(&json!("{\"to\": \"ada\", \"cc\": null}"), None),
            Cow::Owned::<Value>(json!({"to": "ada", "cc": null})),
            "an unknown tool's nulls are kept"
        );
    }
}
