//! What makes two calls "the same call": one canonical form of arguments, shared by the repeat
//! guard of a turn and the breaker of a run, so that the two never disagree.
//!
//! Two calls are the same when they name the same tool and their arguments are equal once
//! canonical: an object encoded as a JSON string is read, a `null` that stands for an absent
//! argument is dropped, object keys are unordered, and numbers compare by value (`1` and `1.0`
//! are one number).

use std::borrow::Cow;

use serde_json::Value;

use super::{as_object, has_null, without_absent_nulls};
use crate::message::ToolCall;
use crate::schema::validate::json_equal;

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

/// A fingerprint of `value` that is the same in every process and every version of skyl: 64-bit
/// FNV-1a over a form of the value whose object keys are sorted and whose numbers are written by
/// value (`1` and `1.0` alike), as 16 hex digits. Binds an approval to what was approved.
pub(crate) fn fingerprint(value: &Value) -> String {
    let mut hash = Fnv(0xcbf2_9ce4_8422_2325);
    hash.value(value);
    format!("{:016x}", hash.0)
}

/// The fingerprint of `call`'s arguments in canonical form, every `null` kept (neither an
/// approval nor a served request state holds the tool's schema): what an approval is bound to.
pub(crate) fn arguments_fingerprint(call: &ToolCall) -> String {
    fingerprint(&canonical(&call.arguments, None))
}

struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.bytes(b"n"),
            Value::Bool(b) => self.bytes(if *b { b"t" } else { b"f" }),
            Value::Number(number) => {
                let text = match (number.as_i64(), number.as_u64(), number.as_f64()) {
                    (Some(i), _, _) => i.to_string(),
                    (_, Some(u), _) => u.to_string(),
                    (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                        (f as i64).to_string()
                    }
                    _ => number.to_string(),
                };
                self.bytes(b"#");
                self.bytes(text.as_bytes());
                self.bytes(b";");
            }
            Value::String(text) => {
                self.bytes(b"\"");
                self.bytes(&text.len().to_le_bytes());
                self.bytes(text.as_bytes());
            }
            Value::Array(items) => {
                self.bytes(b"[");
                self.bytes(&items.len().to_le_bytes());
                items.iter().for_each(|item| self.value(item));
            }
            Value::Object(object) => {
                let mut keys: Vec<&String> = object.keys().collect();
                keys.sort_unstable();
                self.bytes(b"{");
                self.bytes(&keys.len().to_le_bytes());
                for key in keys {
                    self.bytes(&key.len().to_le_bytes());
                    self.bytes(key.as_bytes());
                    self.value(&object[key]);
                }
            }
        }
    }
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

    #[test]
    fn a_fingerprint_ignores_key_order_and_number_spelling_and_nothing_else() {
        assert_eq!(
            fingerprint(&json!({"a": 1, "b": [true, null, "x"]})),
            fingerprint(&json!({"b": [true, null, "x"], "a": 1.0}))
        );
        assert_eq!(fingerprint(&json!({"to": "ada"})), "8fb83d0941be46e3");
        assert_ne!(fingerprint(&json!({"a": 1})), fingerprint(&json!({"a": 2})));
        assert_ne!(
            fingerprint(&json!({"a": "1"})),
            fingerprint(&json!({"a": 1}))
        );
        assert_ne!(
            fingerprint(&json!(["ab", "c"])),
            fingerprint(&json!(["a", "bc"]))
        );
    }
}
