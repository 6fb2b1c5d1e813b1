//! URI templates (RFC 6570) as resource templates use them: `{name}` stands for one segment
//! (no `/`, `?` or `#`; percent-encoded), `{+name}` for any text, slashes included. Reading a URI
//! against a template gives each variable's value.

use serde_json::{Map, Value};

/// A template, in its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UriTemplate {
    parts: Vec<Piece>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Literal(String),
    /// A variable; `reserved` (`{+name}`) takes any text, slashes included.
    Variable {
        name: String,
        reserved: bool,
    },
}

impl UriTemplate {
    /// `template` in its parts, or why it is not one skyl reads.
    pub(crate) fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Piece::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(format!(
                    "the `{{` at byte {} is never closed",
                    template.len() - rest.len() + open
                ));
            };
            let expression = &rest[open + 1..open + close];
            let (name, reserved) = match expression.strip_prefix('+') {
                Some(name) => (name, true),
                None => (expression, false),
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                return Err(format!(
                    "`{{{expression}}}` is not a variable skyl reads: write `{{name}}` for one \
                     segment or `{{+name}}` for any text, a name of letters, digits and `_`"
                ));
            }
            if let Some(Piece::Variable { .. }) = parts.last() {
                return Err(format!(
                    "`{{{expression}}}` follows another variable with no text between them, so a \
                     URI cannot tell where one ends"
                ));
            }
            parts.push(Piece::Variable {
                name: name.to_owned(),
                reserved,
            });
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err("a `}` closes no `{`".to_owned());
        }
        if !rest.is_empty() {
            parts.push(Piece::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { parts })
    }

    /// Whether the template has any variable (else it is one URI).
    pub(crate) fn has_variables(&self) -> bool {
        self.parts
            .iter()
            .any(|part| matches!(part, Piece::Variable { .. }))
    }

    /// The values of the variables when `uri` fits the template.
    pub(crate) fn read(&self, uri: &str) -> Option<Map<String, Value>> {
        let mut values = Map::new();
        fits(&self.parts, uri, &mut values).then_some(values)
    }
}

/// Whether `uri` fits `parts`, filling `values` with the variables'.
fn fits(parts: &[Piece], uri: &str, values: &mut Map<String, Value>) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return uri.is_empty();
    };
    match first {
        Piece::Literal(literal) => {
            uri.starts_with(literal.as_str()) && fits(rest, &uri[literal.len()..], values)
        }
        Piece::Variable { name, reserved } => {
            // Each end the value may have, shortest first; a segment stops at a delimiter.
            let limit = if *reserved {
                uri.len()
            } else {
                uri.find(['/', '?', '#']).unwrap_or(uri.len())
            };
            for end in (1..=limit).filter(|end| uri.is_char_boundary(*end)) {
                if fits(rest, &uri[end..], values) {
                    let text = &uri[..end];
                    let value = if *reserved {
                        text.to_owned()
                    } else {
                        decoded(text)
                    };
                    values.insert(name.clone(), Value::String(value));
                    return true;
                }
            }
            false
        }
    }
}

/// `text` with its `%XX` escapes decoded, when they make UTF-8; as it is otherwise.
fn decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(high), Some(low)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(template: &str, uri: &str) -> Option<Value> {
        UriTemplate::parse(template)
            .unwrap()
            .read(uri)
            .map(Value::Object)
    }

    #[test]
    fn a_uri_gives_its_variables() {
        assert_eq!(
            read("test://template/{id}/data", "test://template/123/data"),
            Some(json!({"id": "123"}))
        );
        assert_eq!(
            read("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            read("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            read("file:///{+path}", "file:///src/main.rs"),
            Some(json!({"path": "src/main.rs"}))
        );
        assert_eq!(
            read("notes://{name}", "notes://a%20b"),
            Some(json!({"name": "a b"}))
        );
        assert_eq!(read("test://static", "test://static"), Some(json!({})));
        assert_eq!(read("test://static", "test://static/"), None);
    }

    #[test]
    fn what_is_not_a_template_is_said() {
        assert_eq!(
            UriTemplate::parse("a://{x").unwrap_err(),
            "the `{` at byte 4 is never closed"
        );
        assert!(
            UriTemplate::parse("a://{?q}")
                .unwrap_err()
                .starts_with("`{?q}` is not")
        );
        assert!(UriTemplate::parse("a://{x}{y}").is_err());
        assert!(!UriTemplate::parse("a://b").unwrap().has_variables());
    }
}
