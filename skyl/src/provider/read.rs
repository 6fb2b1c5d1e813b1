//! Reading a response body while keeping track of where we are in it, so that a value of the
//! wrong shape is reported with its JSON path (`choices[0].message.tool_calls[1].function.name`).

use serde_json::{Map, Value};

use super::DecodeError;

/// A place in a response body: the value there (if any) and its path.
#[derive(Clone, Debug)]
pub(crate) struct Node<'a> {
    provider: &'static str,
    value: Option<&'a Value>,
    path: String,
}

impl<'a> Node<'a> {
    /// The root of `body`.
    pub(crate) fn root(provider: &'static str, body: &'a Value) -> Self {
        Node {
            provider,
            value: Some(body),
            path: String::new(),
        }
    }

    /// The member `key` of this object (missing when this is not an object or has no such key).
    pub(crate) fn get(&self, key: &str) -> Node<'a> {
        let path = if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        };
        Node {
            provider: self.provider,
            value: self.value.and_then(|value| value.get(key)),
            path,
        }
    }

    /// The value, unless it is missing or `null`.
    pub(crate) fn value(&self) -> Option<&'a Value> {
        self.value.filter(|value| !value.is_null())
    }

    /// The error for finding something other than `expected` here.
    pub(crate) fn error(&self, expected: &'static str) -> DecodeError {
        DecodeError::Shape {
            provider: self.provider,
            path: if self.path.is_empty() {
                "the body".to_owned()
            } else {
                self.path.clone()
            },
            expected,
            found: kind(self.value),
        }
    }

    /// A required string.
    pub(crate) fn str(&self) -> Result<&'a str, DecodeError> {
        self.opt_str()?.ok_or_else(|| self.error("a string"))
    }

    /// A string, or `None` when missing or `null`.
    pub(crate) fn opt_str(&self) -> Result<Option<&'a str>, DecodeError> {
        match self.value() {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(self.error("a string")),
        }
    }

    /// A required object.
    pub(crate) fn object(&self) -> Result<&'a Map<String, Value>, DecodeError> {
        match self.value() {
            Some(Value::Object(map)) => Ok(map),
            _ => Err(self.error("an object")),
        }
    }

    /// The items of a required array.
    pub(crate) fn array(&self) -> Result<Vec<Node<'a>>, DecodeError> {
        match self.value() {
            Some(Value::Array(_)) => self.opt_array(),
            _ => Err(self.error("an array")),
        }
    }

    /// The items of an array, or none when missing or `null`.
    pub(crate) fn opt_array(&self) -> Result<Vec<Node<'a>>, DecodeError> {
        match self.value() {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => Ok(items
                .iter()
                .enumerate()
                .map(|(index, item)| Node {
                    provider: self.provider,
                    value: Some(item),
                    path: format!("{}[{index}]", self.path),
                })
                .collect()),
            Some(_) => Err(self.error("an array")),
        }
    }

    /// A non-negative integer, or `None` when missing or `null`.
    pub(crate) fn opt_u64(&self) -> Result<Option<u64>, DecodeError> {
        match self.value() {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.error("a non-negative integer")),
        }
    }

    /// A token count: zero when missing.
    pub(crate) fn count(&self) -> Result<u64, DecodeError> {
        Ok(self.opt_u64()?.unwrap_or(0))
    }
}

fn kind(value: Option<&Value>) -> &'static str {
    match value {
        None => "nothing",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "a boolean",
        Some(Value::Number(_)) => "a number",
        Some(Value::String(_)) => "a string",
        Some(Value::Array(items)) if items.is_empty() => "an empty array",
        Some(Value::Array(_)) => "an array",
        Some(Value::Object(_)) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_name_members_and_indexes() {
        let body =
            json!({"choices": [{"message": {"tool_calls": [{}, {"function": {"name": 42}}]}}]});
        let root = Node::root("openai_chat", &body);
        let choice = &root.get("choices").opt_array().unwrap()[0];
        let call = &choice.get("message").get("tool_calls").opt_array().unwrap()[1];
        assert_eq!(
            call.get("function").get("name").str().unwrap_err(),
            DecodeError::Shape {
                provider: "openai_chat",
                path: "choices[0].message.tool_calls[1].function.name".into(),
                expected: "a string",
                found: "a number",
            }
        );
        assert_eq!(root.get("missing").opt_str(), Ok(None));
        assert_eq!(root.get("missing").count(), Ok(0));
    }
}
