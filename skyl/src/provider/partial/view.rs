//! Reading a [`PartialArguments`] between deltas: borrowed views of what the parser holds, built
//! at no cost, and a [`Value`] for a reader that wants one.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::parser::{Frame, PartialArguments, State};

/// What is known of a value whose text is still arriving.
///
/// Borrowed from a [`PartialArguments`]: reading it copies nothing. A complete value inside an
/// object or array is in that container's [`members`](PartialObject::members) or
/// [`items`](PartialArray::items); a `Partial` is the one value being written at each level.
#[derive(Clone, Copy, Debug)]
pub enum Partial<'a> {
    /// Nothing of the value yet: its key and colon are read, or a comma before it.
    Nothing,
    /// The whole value (at the top, once the arguments are complete).
    Complete(&'a Value),
    /// A string, decoded so far (escapes read; a `\u` escape cut by the delta's end is not part
    /// of it yet).
    Text(&'a str),
    /// The characters of a number so far, which more digits may follow (`"-"`, `"3."` and
    /// `"1e"` are the start of one).
    Number(&'a str),
    /// The start of `true`, `false` or `null`.
    Literal(&'a str),
    /// An object, some of whose members are complete.
    Object(PartialObject<'a>),
    /// An array, some of whose items are complete.
    Array(PartialArray<'a>),
}

/// An object whose text is still arriving.
#[derive(Clone, Copy, Debug)]
pub struct PartialObject<'a> {
    arguments: &'a PartialArguments,
    depth: usize,
    members: &'a Map<String, Value>,
    key: Option<&'a str>,
}

/// An array whose text is still arriving.
#[derive(Clone, Copy, Debug)]
pub struct PartialArray<'a> {
    arguments: &'a PartialArguments,
    depth: usize,
    items: &'a [Value],
}

/// The member of an object being written: its key is complete, its value is not.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Copy, Debug)]
pub struct OpenMember<'a> {
    /// The member's key.
    pub key: &'a str,
    /// What is known of its value.
    pub value: Partial<'a>,
}

impl<'a> PartialObject<'a> {
    /// The members that are complete, in the order they came.
    #[inline]
    pub fn members(&self) -> &'a Map<String, Value> {
        self.members
    }

    /// The member being written, once its key is complete.
    #[inline]
    pub fn open(&self) -> Option<OpenMember<'a>> {
        Some(OpenMember {
            key: self.key?,
            value: self.arguments.open_child(self.depth),
        })
    }
}

impl<'a> PartialArray<'a> {
    /// The items that are complete.
    pub fn items(&self) -> &'a [Value] {
        self.items
    }

    /// The item being written, once it has begun.
    pub fn open(&self) -> Option<Partial<'a>> {
        match self.arguments.open_child(self.depth) {
            Partial::Nothing => None,
            open => Some(open),
        }
    }
}

impl Partial<'_> {
    /// What is known, as a [`Value`]: complete members and items, the string so far, a number
    /// so far when its characters already are one. Missing are a key still being written, a
    /// member or item not begun, the start of a literal and of a number that is not one yet
    /// (`"-"`); `None` when nothing of the value is known.
    ///
    /// It copies everything known, so it costs what a parse of the text so far would; the
    /// borrowed views cost nothing.
    pub fn to_value(&self) -> Option<Value> {
        match self {
            Partial::Nothing | Partial::Literal(_) => None,
            Partial::Complete(value) => Some((*value).clone()),
            Partial::Text(text) => Some(Value::String((*text).to_owned())),
            Partial::Number(text) => match serde_json::from_str::<Value>(text) {
                Ok(number @ Value::Number(_)) => Some(number),
                _ => None,
            },
            Partial::Object(object) => {
                let mut members = object.members.clone();
                if let Some(open) = object.open()
                    && let Some(value) = open.value.to_value()
                {
                    members.insert(open.key.to_owned(), value);
                }
                Some(Value::Object(members))
            }
            Partial::Array(array) => {
                let mut items = array.items.to_vec();
                if let Some(value) = array.open().and_then(|open| open.to_value()) {
                    items.push(value);
                }
                Some(Value::Array(items))
            }
        }
    }
}

impl PartialArguments {
    /// What is known of the arguments so far, as a borrowed tree.
    ///
    /// ```
    /// use skyl::provider::partial::{Partial, PartialArguments};
    ///
    /// let mut arguments = PartialArguments::new();
    /// arguments.push(r#"{"edits": [{"old": "a", "new": "b"}, {"old": "c"#);
    /// let Partial::Object(top) = arguments.partial() else { panic!() };
    /// let edits = top.open().unwrap();
    /// assert_eq!(edits.key, "edits");
    /// let Partial::Array(edits) = edits.value else { panic!() };
    /// assert_eq!(edits.items().len(), 1);
    /// let Some(Partial::Object(second)) = edits.open() else { panic!() };
    /// assert!(second.members().is_empty());
    /// assert!(matches!(second.open().unwrap().value, Partial::Text("c")));
    /// ```
    #[inline]
    pub fn partial(&self) -> Partial<'_> {
        match &self.root {
            Some(value) => Partial::Complete(value),
            None => self.open_child(usize::MAX),
        }
    }

    /// What is known so far as a [`Value`] ([`Partial::to_value`]): the tree a UI that re-parses
    /// the prefix would get, built anew at each call.
    pub fn to_value(&self) -> Option<Value> {
        self.partial().to_value()
    }

    /// The complete members of the arguments object, in the order they came; `None` until the
    /// text has begun an object.
    #[inline]
    pub fn members(&self) -> Option<&Map<String, Value>> {
        // The stack first: it holds the members while the text streams, when most reads happen.
        match (self.stack.first(), &self.root) {
            (Some(Frame::Object { members, .. }), _) => Some(members),
            (None, Some(Value::Object(members))) => Some(members),
            _ => None,
        }
    }

    /// The complete member `key` of the arguments object.
    #[inline]
    pub fn member(&self, key: &str) -> Option<&Value> {
        let members = self.members()?;
        // Arguments have a few members: comparing their keys beats hashing `key` at every read.
        if members.len() <= 8 {
            members
                .iter()
                .find_map(|(name, value)| (name == key).then_some(value))
        } else {
            members.get(key)
        }
    }

    /// The member `key`, as a `T`, as soon as it is complete: how an application shows the
    /// typed arguments of a `#[tool]` (a path, a query) before the call has finished streaming.
    ///
    /// `None` while the member is incomplete or absent, and when it is not a `T` (the complete
    /// call then goes to the tool, which tells the model what was wrong).
    ///
    /// ```
    /// use skyl::provider::partial::PartialArguments;
    ///
    /// let mut arguments = PartialArguments::new();
    /// arguments.push(r#"{"line": 12, "path": "src/ma"#);
    /// assert_eq!(arguments.get::<u32>("line"), Some(12));
    /// assert_eq!(arguments.get::<String>("path"), None);
    /// arguments.push(r#"in.rs", "#);
    /// assert_eq!(arguments.get::<std::path::PathBuf>("path"), Some("src/main.rs".into()));
    /// ```
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        T::deserialize(self.member(key)?).ok()
    }

    /// The member of the arguments object being written, once its key is complete.
    #[inline]
    pub fn open_member(&self) -> Option<OpenMember<'_>> {
        match self.partial() {
            Partial::Object(object) => object.open(),
            _ => None,
        }
    }

    /// The string member `key`: its text so far while it is being written, all of it once it is
    /// complete. What a UI shows of a file's content as it fills in.
    #[inline]
    pub fn str_so_far(&self, key: &str) -> Option<&str> {
        // The common read, a top-level string being written, without building the view.
        if let [
            Frame::Object {
                key: Some(open), ..
            },
        ] = self.stack.as_slice()
            && matches!(self.state, State::String)
            && !self.in_key
            && open == key
        {
            return Some(&self.text);
        }
        match self.open_member() {
            Some(OpenMember {
                key: open,
                value: Partial::Text(text),
            }) if open == key => Some(text),
            _ => self.member(key)?.as_str(),
        }
    }

    /// The value being written inside the container at `depth` (`usize::MAX`: the top value).
    #[inline]
    pub(super) fn open_child(&self, depth: usize) -> Partial<'_> {
        let child = depth.wrapping_add(1);
        if let Some(frame) = self.stack.get(child) {
            return match frame {
                Frame::Object { members, key } => Partial::Object(PartialObject {
                    arguments: self,
                    depth: child,
                    members,
                    key: key.as_deref(),
                }),
                Frame::Array(items) => Partial::Array(PartialArray {
                    arguments: self,
                    depth: child,
                    items,
                }),
            };
        }
        match self.state {
            State::String
            | State::Escape
            | State::Unicode
            | State::TrailingBackslash
            | State::TrailingU
                if !self.in_key =>
            {
                Partial::Text(&self.text)
            }
            State::Number => Partial::Number(&self.number),
            State::Literal(word, matched) => Partial::Literal(&word[..usize::from(matched)]),
            _ => Partial::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_view_shows_the_member_being_written_at_every_level() {
        let mut arguments = PartialArguments::new();
        assert!(matches!(arguments.partial(), Partial::Nothing));
        arguments.push(r#"{"query": "rust", "limit": 1"#);
        assert_eq!(arguments.get::<String>("query").as_deref(), Some("rust"));
        let open = arguments.open_member().unwrap();
        assert_eq!(open.key, "limit");
        assert!(matches!(open.value, Partial::Number("1")));
        // A number ends only when something follows it.
        assert_eq!(arguments.member("limit"), None);
        arguments.push(r#"0, "tags": ["a", "b"#);
        assert_eq!(arguments.get::<u8>("limit"), Some(10));
        assert_eq!(
            arguments.to_value(),
            Some(json!({"query": "rust", "limit": 10, "tags": ["a", "b"]}))
        );
        arguments.push(r#"", tr"#);
        let Some(OpenMember {
            value: Partial::Array(tags),
            ..
        }) = arguments.open_member()
        else {
            panic!("tags are open");
        };
        assert_eq!(tags.items(), [json!("a"), json!("b")]);
        assert!(matches!(tags.open(), Some(Partial::Literal("tr"))));
        arguments.push(r#"ue], "no"#);
        // A key being written is not a member yet.
        assert!(arguments.open_member().is_none());
        assert_eq!(
            arguments.to_value(),
            Some(json!({"query": "rust", "limit": 10, "tags": ["a", "b", true]}))
        );
        arguments.push(r#"te": "#);
        let open = arguments.open_member().unwrap();
        assert_eq!(open.key, "note");
        assert!(matches!(open.value, Partial::Nothing));
        arguments.push(r#""hi"}"#);
        assert!(arguments.is_complete());
        assert!(matches!(arguments.partial(), Partial::Complete(_)));
        assert_eq!(arguments.str_so_far("note"), Some("hi"));
        assert_eq!(arguments.bytes_read(), 70);
    }

    #[test]
    fn a_number_alone_completes_at_the_end() {
        let mut arguments = PartialArguments::new();
        arguments.push("4");
        arguments.push("2");
        assert!(!arguments.is_complete());
        assert!(matches!(arguments.partial(), Partial::Number("42")));
        assert_eq!(arguments.to_value(), Some(json!(42)));
        assert_eq!(arguments.finish(), Ok(json!(42)));
    }
}
