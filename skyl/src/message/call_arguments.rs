//! What a call's arguments look like on the wire: a JSON object, or JSON text (the OpenAI
//! formats), or text that is not JSON at all, which a model does write. One reading of them, for
//! the adapters that put calls on the wire and take them off, the toolbox that reads them, and
//! the MCP mounting that forwards them.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// What a call's arguments are, whatever shape they are stored in.
#[derive(Debug, PartialEq)]
pub(crate) enum Shape<'a> {
    /// An object: one as it is, or one that came as JSON text; `null`, empty text and the text
    /// `null` are the empty object (a call without arguments).
    Object(Cow<'a, Map<String, Value>>),
    /// Text that is not a JSON object: what the model wrote, kept so that dispatching the call
    /// can tell the model what was wrong with it.
    Text(&'a str),
    /// Any other JSON value.
    Other(&'a Value),
}

/// What `arguments` are.
pub(crate) fn shape(arguments: &Value) -> Shape<'_> {
    match arguments {
        Value::Object(object) => Shape::Object(Cow::Borrowed(object)),
        Value::Null => Shape::Object(Cow::Owned(Map::new())),
        Value::String(text) => text_shape(text),
        other => Shape::Other(other),
    }
}

fn text_shape(text: &str) -> Shape<'_> {
    if text.trim().is_empty() {
        return Shape::Object(Cow::Owned(Map::new()));
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(object)) => Shape::Object(Cow::Owned(object)),
        Ok(Value::Null) => Shape::Object(Cow::Owned(Map::new())),
        _ => Shape::Text(text),
    }
}

/// The arguments of a call a provider sent as JSON text (the OpenAI formats), as skyl keeps
/// them: the object, or the text itself when it is not a JSON object.
pub(crate) fn from_text(text: &str) -> Value {
    match text_shape(text) {
        Shape::Object(object) => Value::Object(object.into_owned()),
        _ => Value::String(text.to_owned()),
    }
}

/// The arguments as a JSON object, for providers that take only an object (Anthropic `input`,
/// Gemini `args`). Text that is not an object, or another value, is kept under `"arguments"`:
/// the provider accepts nothing else, and the model was already told in the call's result that
/// its arguments were wrong.
pub(crate) fn to_object(arguments: &Value) -> Map<String, Value> {
    match shape(arguments) {
        Shape::Object(object) => object.into_owned(),
        Shape::Text(_) | Shape::Other(_) => {
            let mut object = Map::new();
            object.insert("arguments".to_owned(), arguments.clone());
            object
        }
    }
}

/// The arguments as the JSON text the OpenAI formats carry. Text is sent as it is (what the model
/// wrote, even when it is not valid JSON); an object, or the absence of arguments, as its JSON.
pub(crate) fn to_text(arguments: &Value) -> Cow<'_, str> {
    match arguments {
        Value::String(text) => Cow::Borrowed(text),
        Value::Null => Cow::Borrowed("{}"),
        other => Cow::Owned(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_shape_has_one_meaning() {
        let empty = || Shape::Object(Cow::Owned(Map::new()));
        assert_eq!(shape(&Value::Null), empty());
        assert_eq!(shape(&json!("")), empty());
        assert_eq!(shape(&json!(" null ")), empty());
        let object = json!({"city": "Kampala"});
        assert_eq!(
            shape(&object),
            Shape::Object(Cow::Borrowed(object.as_object().unwrap()))
        );
        assert_eq!(
            shape(&json!(r#"{"city": "Kampala"}"#)),
            Shape::Object(Cow::Owned(object.as_object().unwrap().clone()))
        );
        assert_eq!(shape(&json!("[1, 2]")), Shape::Text("[1, 2]"));
        assert_eq!(shape(&json!("{\"city\": ")), Shape::Text("{\"city\": "));
        assert_eq!(shape(&json!([1, 2])), Shape::Other(&json!([1, 2])));
    }

    #[test]
    fn decoded_text_is_an_object_or_the_text_itself() {
        assert_eq!(from_text(""), json!({}));
        assert_eq!(from_text(r#"{"a": 1}"#), json!({"a": 1}));
        assert_eq!(from_text("[1]"), json!("[1]"));
        assert_eq!(from_text("{\"a\""), json!("{\"a\""));
    }

    #[test]
    fn the_wire_gets_an_object_or_text() {
        assert_eq!(
            Value::Object(to_object(&json!(r#"{"a": 1}"#))),
            json!({"a": 1})
        );
        assert_eq!(Value::Object(to_object(&Value::Null)), json!({}));
        assert_eq!(
            Value::Object(to_object(&json!("{\"a\""))),
            json!({"arguments": "{\"a\""})
        );
        assert_eq!(Value::Object(to_object(&json!(7))), json!({"arguments": 7}));
        assert_eq!(to_text(&json!({"a": 1})), r#"{"a":1}"#);
        assert_eq!(to_text(&json!("{\"a\"")), "{\"a\"");
        assert_eq!(to_text(&Value::Null), "{}");
    }
}
