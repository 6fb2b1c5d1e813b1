//! What a model is told when a call's arguments do not read: not one JSON object, or an argument
//! whose value does not fit (the cause is serde's or the schema check's, named by its path here).

use serde_json::Value;

use crate::text::char_floor;

/// The arguments came as text that is not JSON at all.
pub(crate) fn not_json(error: &serde_json::Error) -> String {
    format!("the arguments are not valid JSON ({error}); send them as a JSON object")
}

/// The arguments are JSON, but not an object.
pub(crate) fn not_an_object(value: &Value) -> String {
    format!(
        "the arguments must be a JSON object with one key per parameter, but they were {}",
        describe(value)
    )
}

/// A cause at `path` (`filter.limit`, `tags[2]`; `.` is the object itself), named as
/// `argument `path`: cause`; serde already names the key in "unknown field `x`", so it is not
/// said twice.
pub(crate) fn at(path: &str, cause: String) -> String {
    if path == "." || cause.contains(&format!("`{path}`")) {
        cause
    } else {
        format!("argument `{path}`: {cause}")
    }
}

/// The arguments failed to parse once and parsed the second time: no cause is left to name.
pub(crate) fn unreadable() -> &'static str {
    "the arguments could not be read"
}

/// A value as a model would recognise it: its kind, then its JSON cut to about 80 bytes.
pub(crate) fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    let mut shown = value.to_string();
    if shown.len() > 80 {
        shown.truncate(char_floor(&shown, 77));
        shown.push_str("...");
    }
    format!("{kind}: {shown}")
}
