//! The checks a tool passes to join a [`Toolbox`](crate::Toolbox), so that a mistake in a
//! definition is found where the tool is added, not when a provider refuses a request.

use std::error::Error;
use std::fmt;

use serde_json::Value;

use crate::schema::references;
use crate::tool::ToolDefinition;
use crate::tool::names::PORTABLE as PORTABLE_NAMES;

/// Why a tool cannot join a toolbox. Returned by [`Toolbox::try_with`](crate::Toolbox::try_with),
/// [`add`](crate::Toolbox::add) and [`replace`](crate::Toolbox::replace); the panicking
/// [`with`](crate::Toolbox::with) panics with its message.
///
/// ```
/// use serde_json::json;
/// use skyl::{DynamicTool, ToolDefinition, Toolbox, tool::RegistrationError};
///
/// let unnamed = DynamicTool::from_fn(
///     ToolDefinition::new("get weather", "Gets the weather.", json!({"type": "object"})),
///     |_: serde_json::Value| "sunny",
/// );
/// let error = Toolbox::new().try_with(unnamed).unwrap_err();
/// assert!(matches!(error, RegistrationError::InvalidName { .. }));
/// assert_eq!(
///     error.to_string(),
///     "the tool name \"get weather\" is not one every provider accepts (a letter or `_` first, then a-z, A-Z, 0-9, `_` or `-`, at most 64 characters); give the tool's ToolDefinition another name, for example \"get_weather\""
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistrationError {
    /// The toolbox already has a tool of this name; a model could not tell them apart.
    DuplicateName {
        /// The name.
        name: String,
    },
    /// Some provider does not accept the name. A toolbox takes only names every built-in
    /// adapter encodes (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`), so that a request with its tools never
    /// fails at encode because of a name: `files.read` is Gemini's only, `2fa` everyone's but
    /// Gemini's. A `#[tool]` function's name is held to the same rule when it compiles.
    InvalidName {
        /// The name.
        name: String,
        /// A name every provider accepts, made from this one.
        suggestion: String,
    },
    /// The prefix a [`ToolSet`](crate::tool::ToolSet) was added with makes a name that some provider
    /// does not accept (see [`InvalidName`](Self::InvalidName)).
    InvalidPrefix {
        /// The prefix.
        prefix: String,
        /// The name of the set's tool, with the prefix.
        name: String,
        /// A prefix that makes names every provider accepts, made from this one.
        suggestion: String,
    },
    /// The description is empty: a model cannot use a tool it is not told about.
    EmptyDescription {
        /// The tool's name.
        name: String,
    },
    /// The parameters schema does not describe a JSON object, which is how every provider passes
    /// a tool's arguments.
    NotAnObjectSchema {
        /// The tool's name.
        name: String,
        /// What the root of the schema is instead, in words.
        found: String,
    },
    /// The parameters schema has a `$ref` that points to no definition in it.
    UnresolvedReference {
        /// The tool's name.
        name: String,
        /// The reference, such as `#/$defs/Filter`.
        reference: String,
    },
}

impl fmt::Display for RegistrationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistrationError::DuplicateName { name } => write!(
                f,
                "a tool named \"{name}\" is already in this toolbox; give one of them another name (with #[tool(name = \"...\")] or in its definition), or swap it with Toolbox::replace"
            ),
            RegistrationError::InvalidName { name, suggestion } => {
                if name.is_empty() {
                    write!(f, "a tool has an empty name")?;
                } else {
                    write!(
                        f,
                        "the tool name \"{name}\" is not one every provider accepts"
                    )?;
                }
                // A `#[tool]` function's name was checked by the same rule when it compiled, so
                // the name is a definition's: a DynamicTool's or a hand-written Tool's.
                write!(
                    f,
                    " ({}); give the tool's ToolDefinition another name, for example \"{suggestion}\"",
                    PORTABLE_NAMES.text
                )
            }
            RegistrationError::InvalidPrefix {
                prefix,
                name,
                suggestion,
            } => write!(
                f,
                "the prefix \"{prefix}\" makes the tool name \"{name}\", which is not one every provider accepts ({}); add the set with another prefix, for example \"{suggestion}\"",
                PORTABLE_NAMES.text
            ),
            RegistrationError::EmptyDescription { name } => write!(
                f,
                "the tool \"{name}\" has no description, and a model cannot use a tool well without one; say what it does and when to use it"
            ),
            RegistrationError::NotAnObjectSchema { name, found } => write!(
                f,
                "the parameters schema of the tool \"{name}\" is {found}, but providers pass a tool's arguments as one JSON object; give the schema \"type\": \"object\" with one property per argument (a tool without arguments: {{\"type\": \"object\", \"properties\": {{}}}})"
            ),
            RegistrationError::UnresolvedReference { name, reference } => write!(
                f,
                "the parameters schema of the tool \"{name}\" refers to \"{reference}\", which it does not define; add the definition under \"$defs\" or write the type in place (only references inside the schema are followed)"
            ),
        }
    }
}

impl Error for RegistrationError {}

/// A name asked for that a toolbox does not have. Returned by
/// [`Toolbox::definitions_of`](crate::Toolbox::definitions_of).
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTool {
    /// The name asked for.
    pub name: String,
    /// The names the toolbox has, in the order they were added.
    pub available: Vec<String>,
}

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "there is no tool named \"{}\" in this toolbox; it has: {}",
            self.name,
            self.available.join(", ")
        )
    }
}

impl Error for UnknownTool {}

/// Checks a definition on its own: everything but a name clash.
pub(crate) fn check(definition: &ToolDefinition) -> Result<(), RegistrationError> {
    let name = &definition.name;
    if !PORTABLE_NAMES.accepts(name) {
        return Err(RegistrationError::InvalidName {
            name: name.clone(),
            suggestion: PORTABLE_NAMES.suggestion(name),
        });
    }
    if definition.description.trim().is_empty() {
        return Err(RegistrationError::EmptyDescription { name: name.clone() });
    }
    let parameters = &definition.parameters;
    if parameters.get("type") != Some(&Value::String("object".into())) {
        return Err(RegistrationError::NotAnObjectSchema {
            name: name.clone(),
            found: describe_root(parameters),
        });
    }
    if let Some(reference) = references::unresolved(parameters, parameters) {
        return Err(RegistrationError::UnresolvedReference {
            name: name.clone(),
            reference: reference.to_owned(),
        });
    }
    Ok(())
}

fn describe_root(schema: &Value) -> String {
    match schema {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the schema `{b}`"),
        Value::Object(map) => match map.get("type") {
            Some(other) => format!("a schema of \"type\": {other}"),
            None => "a schema without \"type\"".into(),
        },
        other => format!("not a schema ({other})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn definition(name: &str, description: &str, parameters: Value) -> ToolDefinition {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters,
            ..Default::default()
        }
    }

    fn object() -> Value {
        json!({"type": "object", "properties": {}})
    }

    #[test]
    fn a_name_every_provider_accepts_passes() {
        for name in ["get_weather", "get-weather", "_private", "Tool2"] {
            assert_eq!(check(&definition(name, "d", object())), Ok(()), "{name}");
        }
    }

    #[test]
    fn a_name_some_provider_refuses_is_refused_with_a_name_every_provider_accepts() {
        let cases = [
            // Gemini's only.
            ("files.read", "files_read"),
            ("ns:tool", "ns_tool"),
            // Everyone's but Gemini's.
            ("2fa_code", "_2fa_code"),
            ("-dash", "_-dash"),
            // No one's.
            ("get weather", "get_weather"),
            ("2.fa", "_2_fa"),
            ("", "_"),
            ("überprüfen", "_berpr_fen"),
        ];
        for (name, suggestion) in cases {
            let error = check(&definition(name, "d", object())).unwrap_err();
            assert_eq!(
                error,
                RegistrationError::InvalidName {
                    name: name.into(),
                    suggestion: suggestion.into()
                }
            );
            assert!(PORTABLE_NAMES.accepts(suggestion));
        }
        let long = "a".repeat(65);
        assert!(check(&definition(&long, "d", object())).is_err());
        assert_eq!(
            RegistrationError::InvalidName {
                name: String::new(),
                suggestion: "_".into()
            }
            .to_string(),
            "a tool has an empty name (a letter or `_` first, then a-z, A-Z, 0-9, `_` or `-`, at most 64 characters); give the tool's ToolDefinition another name, for example \"_\""
        );
        assert_eq!(
            RegistrationError::InvalidPrefix {
                prefix: "shelf.".into(),
                name: "shelf.count".into(),
                suggestion: "shelf_".into()
            }
            .to_string(),
            "the prefix \"shelf.\" makes the tool name \"shelf.count\", which is not one every provider accepts (a letter or `_` first, then a-z, A-Z, 0-9, `_` or `-`, at most 64 characters); add the set with another prefix, for example \"shelf_\""
        );
    }

    #[test]
    fn a_tool_needs_a_description_and_an_object_schema() {
        assert_eq!(
            check(&definition("t", " \n", object())),
            Err(RegistrationError::EmptyDescription { name: "t".into() })
        );
        let found = |parameters: Value| match check(&definition("t", "d", parameters)) {
            Err(RegistrationError::NotAnObjectSchema { found, .. }) => found,
            other => panic!("{other:?}"),
        };
        assert_eq!(found(Value::Null), "null");
        assert_eq!(found(json!(true)), "the schema `true`");
        assert_eq!(
            found(json!({"type": "string"})),
            "a schema of \"type\": \"string\""
        );
        assert_eq!(found(json!({"anyOf": []})), "a schema without \"type\"");
        assert_eq!(found(json!([1])), "not a schema ([1])");
    }

    #[test]
    fn every_reference_must_resolve_inside_the_schema() {
        let parameters = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"items": {"$ref": "#/$defs/B"}}},
            "$defs": {"A": {"type": "string"}},
            "default": {"$ref": "not a reference"}
        });
        assert_eq!(
            check(&definition("t", "d", parameters)),
            Err(RegistrationError::UnresolvedReference {
                name: "t".into(),
                reference: "#/$defs/B".into()
            })
        );
    }

    #[test]
    fn the_messages_say_what_to_do() {
        let messages = [
            RegistrationError::DuplicateName {
                name: "search".into(),
            }
            .to_string(),
            RegistrationError::EmptyDescription { name: "t".into() }.to_string(),
            RegistrationError::NotAnObjectSchema {
                name: "t".into(),
                found: "null".into(),
            }
            .to_string(),
            RegistrationError::UnresolvedReference {
                name: "t".into(),
                reference: "#/$defs/B".into(),
            }
            .to_string(),
            UnknownTool {
                name: "serch".into(),
                available: vec!["search".into(), "read".into()],
            }
            .to_string(),
        ];
        assert_eq!(
            messages,
            [
                "a tool named \"search\" is already in this toolbox; give one of them another name (with #[tool(name = \"...\")] or in its definition), or swap it with Toolbox::replace",
                "the tool \"t\" has no description, and a model cannot use a tool well without one; say what it does and when to use it",
                "the parameters schema of the tool \"t\" is null, but providers pass a tool's arguments as one JSON object; give the schema \"type\": \"object\" with one property per argument (a tool without arguments: {\"type\": \"object\", \"properties\": {}})",
                "the parameters schema of the tool \"t\" refers to \"#/$defs/B\", which it does not define; add the definition under \"$defs\" or write the type in place (only references inside the schema are followed)",
                "there is no tool named \"serch\" in this toolbox; it has: search, read",
            ]
        );
    }
}
