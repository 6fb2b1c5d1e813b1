//! Reading a response body so that a value of the wrong shape is reported with its JSON path
//! (`choices[0].message.tool_calls[1].function.name`).
//!
//! A [`Node`] is a place in the body: the value there, if any, and just enough to name the place.
//! Naming it costs nothing until something fails: a node keeps the last value present on its way
//! down (its anchor) and the keys read below that anchor that were missing. Only an error turns
//! that into a path, by finding the anchor in the body.

use serde_json::{Map, Value};

use super::{DecodeError, Provider};

/// Missing keys a node remembers below its anchor. The decoders read at most two levels below a
/// value that is present (`function.name` under a call).
const TRAIL: usize = 3;

/// A place in a response body, as a [`Decoder`](crate::provider::author::Decoder) reads it: the value there, if
/// any, and what names the place should the value not be of the documented shape.
///
/// Reading a member that is missing gives a node with no value, not an error, so optional
/// fields read as plainly as required ones; a required read of a missing or mistyped value
/// (`str`, `object`, `array`) is a [`DecodeError::Shape`] whose path says where
/// (`choices[0].message.tool_calls[1].function.name`).
///
/// ```
/// use serde_json::json;
/// use skyl::provider::{DecodeError, Provider, author::Node};
///
/// let body = json!({"message": {"content": "Hi", "tool_calls": [{"function": {"name": 7}}]}});
/// let root = Node::root(Provider::OpenAiChat, &body);
/// assert_eq!(root.get("message").get("content").str()?, "Hi");
/// assert_eq!(root.get("done_reason").opt_str()?, None);
/// let call = root.get("message").get("tool_calls").array()?.next().unwrap();
/// let error = call.get("function").get("name").str().unwrap_err();
/// assert!(matches!(&error, DecodeError::Shape { path, .. } if path == "message.tool_calls[0].function.name"));
/// # Ok::<(), DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    provider: Provider,
    body: &'a Value,
    value: Option<&'a Value>,
    /// The value at this place, or the last one present above it.
    anchor: &'a Value,
    /// The keys read below `anchor` that were missing, the first `trail_len` of them.
    trail: [&'a str; TRAIL],
    trail_len: usize,
}

impl<'a> Node<'a> {
    /// The root of `body`.
    pub fn root(provider: Provider, body: &'a Value) -> Self {
        Node {
            provider,
            body,
            value: Some(body),
            anchor: body,
            trail: [""; TRAIL],
            trail_len: 0,
        }
    }

    fn at(&self, value: &'a Value) -> Self {
        Node {
            value: Some(value),
            anchor: value,
            trail_len: 0,
            ..*self
        }
    }

    /// The member `key` of this object (missing when this is not an object or has no such key).
    #[inline]
    pub fn get(&self, key: &'a str) -> Node<'a> {
        let member = match self.value {
            Some(Value::Object(object)) => member(object, key),
            _ => None,
        };
        match member {
            Some(member) => self.at(member),
            None => {
                let mut missing = *self;
                missing.value = None;
                if let Some(slot) = missing.trail.get_mut(missing.trail_len) {
                    *slot = key;
                }
                missing.trail_len += 1;
                missing
            }
        }
    }

    /// The value, unless it is missing or `null`.
    #[inline]
    pub fn value(&self) -> Option<&'a Value> {
        self.value.filter(|value| !value.is_null())
    }

    /// The error for finding something other than `expected` here.
    #[cold]
    pub fn error(&self, expected: &'static str) -> DecodeError {
        DecodeError::Shape {
            provider: self.provider,
            path: self.path(),
            expected,
            found: kind(self.value),
        }
    }

    /// The path of this place, `"the body"` for the root.
    fn path(&self) -> String {
        let mut steps = Vec::new();
        locate(self.body, self.anchor, &mut steps);
        let mut path = String::new();
        for step in steps {
            match step {
                Step::Key(key) => push_key(&mut path, key),
                Step::Index(index) => path.push_str(&format!("[{index}]")),
            }
        }
        for key in &self.trail[..self.trail_len.min(TRAIL)] {
            push_key(&mut path, key);
        }
        if self.trail_len > TRAIL {
            path.push_str(".…");
        }
        if path.is_empty() {
            path.push_str("the body");
        }
        path
    }

    /// A required string.
    #[inline]
    pub fn str(&self) -> Result<&'a str, DecodeError> {
        match self.value {
            Some(Value::String(text)) => Ok(text),
            _ => Err(self.error("a string")),
        }
    }

    /// A string, or `None` when missing or `null`.
    #[inline]
    pub fn opt_str(&self) -> Result<Option<&'a str>, DecodeError> {
        match self.value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(self.error("a string")),
        }
    }

    /// A required object.
    #[inline]
    pub fn object(&self) -> Result<&'a Map<String, Value>, DecodeError> {
        match self.value {
            Some(Value::Object(map)) => Ok(map),
            _ => Err(self.error("an object")),
        }
    }

    /// An object, or `None` when missing or `null`.
    #[inline]
    pub fn opt_object(&self) -> Result<Option<&'a Map<String, Value>>, DecodeError> {
        match self.value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(_) => Err(self.error("an object")),
        }
    }

    /// The items of a required array.
    #[inline]
    pub fn array(&self) -> Result<Items<'a>, DecodeError> {
        match self.value {
            Some(Value::Array(items)) => Ok(self.items(items)),
            _ => Err(self.error("an array")),
        }
    }

    /// The items of an array, or none when missing or `null`.
    #[inline]
    pub fn opt_array(&self) -> Result<Items<'a>, DecodeError> {
        match self.value {
            None | Some(Value::Null) => Ok(self.items(&[])),
            Some(Value::Array(items)) => Ok(self.items(items)),
            Some(_) => Err(self.error("an array")),
        }
    }

    fn items(&self, items: &'a [Value]) -> Items<'a> {
        Items {
            node: *self,
            items: items.iter(),
        }
    }

    /// A non-negative integer, or `None` when missing or `null`.
    #[inline]
    pub fn opt_u64(&self) -> Result<Option<u64>, DecodeError> {
        match self.value {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value
                .as_u64()
                .map(Some)
                .ok_or_else(|| self.error("a non-negative integer")),
        }
    }

    /// A token count: zero when missing.
    #[inline]
    pub fn count(&self) -> Result<u64, DecodeError> {
        Ok(self.opt_u64()?.unwrap_or(0))
    }
}

/// The member `key` of `object`. The objects of a response body are small, and comparing a few
/// keys costs less than hashing one, which is how a map looks a key up.
#[inline]
fn member<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if object.len() > 16 {
        return object.get(key);
    }
    object
        .iter()
        .find_map(|(name, value)| (name == key).then_some(value))
}

/// The items of an array, as nodes ([`Node::array`]).
#[derive(Clone, Debug)]
pub struct Items<'a> {
    node: Node<'a>,
    items: std::slice::Iter<'a, Value>,
}

impl<'a> Iterator for Items<'a> {
    type Item = Node<'a>;

    #[inline]
    fn next(&mut self) -> Option<Node<'a>> {
        self.items.next().map(|item| self.node.at(item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// Finds `target` (by address) in `value`, pushing the steps that lead to it.
fn locate<'a>(value: &'a Value, target: &Value, steps: &mut Vec<Step<'a>>) -> bool {
    if std::ptr::eq(value, target) {
        return true;
    }
    match value {
        Value::Object(map) => map.iter().any(|(key, member)| {
            steps.push(Step::Key(key));
            locate(member, target, steps) || {
                steps.pop();
                false
            }
        }),
        Value::Array(items) => items.iter().enumerate().any(|(index, item)| {
            steps.push(Step::Index(index));
            locate(item, target, steps) || {
                steps.pop();
                false
            }
        }),
        _ => false,
    }
}

fn push_key(path: &mut String, key: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(key);
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

    fn shape(path: &str, expected: &'static str, found: &'static str) -> DecodeError {
        DecodeError::Shape {
            provider: Provider::OpenAiChat,
            path: path.into(),
            expected,
            found,
        }
    }

    #[test]
    fn paths_name_members_and_indexes() {
        let body =
            json!({"choices": [{"message": {"tool_calls": [{}, {"function": {"name": 42}}]}}]});
        let root = Node::root(Provider::OpenAiChat, &body);
        let choice = root.get("choices").opt_array().unwrap().next().unwrap();
        let call = choice
            .get("message")
            .get("tool_calls")
            .opt_array()
            .unwrap()
            .nth(1)
            .unwrap();
        assert_eq!(
            call.get("function").get("name").str().unwrap_err(),
            shape(
                "choices[0].message.tool_calls[1].function.name",
                "a string",
                "a number"
            )
        );
        assert_eq!(root.get("missing").opt_str(), Ok(None));
        assert_eq!(root.get("missing").count(), Ok(0));
    }

    #[test]
    fn missing_members_are_named_below_the_last_value_present() {
        let body = json!({"choices": [{"message": {"tool_calls": [{"id": "a"}]}}]});
        let root = Node::root(Provider::OpenAiChat, &body);
        let call = root.get("choices").array().unwrap().next().unwrap();
        let call = call.get("message").get("tool_calls").array().unwrap();
        let call = call.into_iter().next().unwrap();
        assert_eq!(
            call.get("function").get("name").str().unwrap_err(),
            shape(
                "choices[0].message.tool_calls[0].function.name",
                "a string",
                "nothing"
            )
        );
        assert_eq!(
            root.get("a").get("b").get("c").get("d").str().unwrap_err(),
            shape("a.b.c.…", "a string", "nothing")
        );
        assert_eq!(
            Node::root(Provider::OpenAiChat, &json!([]))
                .object()
                .unwrap_err(),
            shape("the body", "an object", "an empty array")
        );
    }

    #[test]
    fn equal_values_are_told_apart_by_place() {
        let body = json!({"a": [1, 1], "b": {"c": 1}});
        let root = Node::root(Provider::OpenAiChat, &body);
        let second = root.get("a").array().unwrap().nth(1).unwrap();
        assert_eq!(
            second.str().unwrap_err(),
            shape("a[1]", "a string", "a number")
        );
        assert_eq!(
            root.get("b").get("c").str().unwrap_err(),
            shape("b.c", "a string", "a number")
        );
    }
}
