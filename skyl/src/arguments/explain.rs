//! Naming the argument at fault once the arguments did not parse.
//!
//! Finding the argument means reading the arguments again with `serde_path_to_error`, which
//! tracks where the reader is. Doing that with the whole arguments type would compile a second,
//! path-tracking copy of every tool's `Deserialize`, for a path almost no call takes (it was most
//! of a crate's generated code). So a `#[tool]` describes its parameters instead, as
//! [`ArgumentProbe`]s: the keys each one is sent under and a reader of its type alone. The
//! readers are instantiated once per parameter *type* (`String`, `Option<u8>`), shared by every
//! tool with a parameter of that type, and [`by_probes`] walks the object as serde's derive does:
//! in the object's order, stopping at the first key it refuses, the first value that does not
//! read, or, at the end, a missing field. Errors about the object as a whole (unknown, duplicate
//! or missing fields) are the ones serde's first parse already gave, and are told as they are.
//!
//! Either way the model reads the same prose: `argument `path`: cause`, or the cause alone when
//! it is about the object or already names its key.

use std::fmt::Write as _;

use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_path_to_error::{Path, Segment};

use crate::prose;
use crate::tool::ToolFailure;

/// Explains why arguments did not parse, given the arguments (an object) and serde's error
/// from parsing them.
pub type Explain = fn(&Value, serde_json::Error) -> ToolFailure;

/// One parameter of a `#[tool]`, as the failure path reads it.
#[derive(Clone, Copy)]
pub struct ArgumentProbe {
    /// The keys the parameter is read from: its name (or `rename`), then its `alias`es.
    pub keys: &'static [&'static str],
    /// Reads the value as the parameter's type; [`probe`] of that type.
    pub probe: fn(&Value) -> Result<(), serde_path_to_error::Error<serde_json::Error>>,
}

/// Reads `value` as a `T`, keeping where inside it the reading failed.
pub fn probe<T: DeserializeOwned>(
    value: &Value,
) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    serde_path_to_error::deserialize::<_, T>(value).map(drop)
}

/// [`probe`] of the type `read_as` chose for a parameter (`skyl::__private::ReadAs`).
pub fn probe_of<T: DeserializeOwned>(
    _: std::marker::PhantomData<T>,
) -> fn(&Value) -> Result<(), serde_path_to_error::Error<serde_json::Error>> {
    probe::<T>
}

/// Names the parameter at fault by reading each one alone, in the object's order, as serde's
/// derive read them; `error` is what that derive said about the whole object.
pub fn by_probes(
    arguments: &Value,
    error: serde_json::Error,
    parameters: &[ArgumentProbe],
) -> ToolFailure {
    let Value::Object(object) = arguments else {
        return ToolFailure::invalid_arguments(error.to_string());
    };
    let mut seen = vec![false; parameters.len()];
    for (key, value) in object {
        let Some(index) = parameters
            .iter()
            .position(|parameter| parameter.keys.contains(&key.as_str()))
        else {
            // An unknown field: serde stopped here and said so.
            break;
        };
        if std::mem::replace(&mut seen[index], true) {
            // The same parameter under its name and an alias: a duplicate field.
            break;
        }
        if let Err(inner) = (parameters[index].probe)(value) {
            let path = within(key, inner.path());
            return ToolFailure::invalid_arguments(prose::arguments::at(
                &path,
                inner.into_inner().to_string(),
            ));
        }
    }
    ToolFailure::invalid_arguments(prose::arguments::at(".", error.to_string()))
}

/// Names the argument at fault by reading the whole object again as an `A`, with path tracking.
/// For arguments whose parameters cannot be read one by one (a `#[serde(flatten)]`ed or
/// `deserialize_with` parameter), and for schemas declared as data.
pub fn whole<A: DeserializeOwned>(arguments: &Value, _: serde_json::Error) -> ToolFailure {
    match serde_path_to_error::deserialize::<_, A>(arguments) {
        Ok(_) => ToolFailure::invalid_arguments(prose::arguments::unreadable()),
        Err(error) => {
            let path = error.path().to_string();
            ToolFailure::invalid_arguments(prose::arguments::at(
                &path,
                error.into_inner().to_string(),
            ))
        }
    }
}

/// [`whole`] of the arguments `read_as` chose (`skyl::__private::ReadAs`).
pub fn whole_of<A: DeserializeOwned>(_: std::marker::PhantomData<A>) -> Explain {
    whole::<A>
}

/// `path` inside the argument `key`, written as `serde_path_to_error` writes a whole path:
/// `filter.limit`, `tags[2]`.
fn within(key: &str, path: &Path) -> String {
    let mut whole = key.to_owned();
    for segment in path {
        if !matches!(segment, Segment::Seq { .. }) {
            whole.push('.');
        }
        let _ = write!(whole, "{segment}");
    }
    whole
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Filter {
        limit: u32,
        tags: Vec<String>,
    }

    /// Shaped as `#[tool]` shapes a tool's arguments.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Arguments {
        city: String,
        days: Option<u8>,
        #[serde(default)]
        metric: bool,
        #[serde(rename = "dir", alias = "folder")]
        directory: String,
        filter: Option<Filter>,
        #[serde(skip)]
        hidden: u8,
    }

    const PARAMETERS: &[ArgumentProbe] = &[
        ArgumentProbe {
            keys: &["city"],
            probe: probe::<String>,
        },
        ArgumentProbe {
            keys: &["days"],
            probe: probe::<Option<u8>>,
        },
        ArgumentProbe {
            keys: &["metric"],
            probe: probe::<bool>,
        },
        ArgumentProbe {
            keys: &["dir", "folder"],
            probe: probe::<String>,
        },
        ArgumentProbe {
            keys: &["filter"],
            probe: probe::<Option<Filter>>,
        },
    ];

    fn by_probes_and_whole(arguments: &Value) -> (String, String) {
        let Err(error) = Arguments::deserialize(arguments) else {
            panic!("{arguments} parses");
        };
        let again = Arguments::deserialize(arguments).err().unwrap();
        (
            by_probes(arguments, error, PARAMETERS).message().to_owned(),
            whole::<Arguments>(arguments, again).message().to_owned(),
        )
    }

    #[test]
    fn reading_each_parameter_alone_says_what_reading_the_whole_says() {
        let cases = [
            json!({"city": 42, "dir": "/"}),
            json!({"city": "Kampala", "days": 300, "dir": "/"}),
            json!({"city": "Kampala", "days": "three", "metric": "yes", "dir": "/"}),
            json!({"city": "Kampala", "metric": null, "dir": "/"}),
            json!({"dir": "/"}),
            json!({"city": "Kampala"}),
            json!({"city": "Kampala", "dir": 7}),
            json!({"city": "Kampala", "folder": 7}),
            json!({"city": "Kampala", "dir": "/", "folder": "/"}),
            json!({"city": "Kampala", "dir": "/", "folder": 7}),
            json!({"city": "Kampala", "directory": "/"}),
            json!({"city": "Kampala", "dir": "/", "hidden": 1}),
            json!({"aaa": 1, "city": 42, "dir": "/"}),
            json!({"city": 42, "dir": "/", "zzz": 1}),
            json!({"city": "Kampala", "dir": "/", "filter": {"limit": "ten", "tags": []}}),
            json!({"city": "Kampala", "dir": "/", "filter": {"limit": 1, "tags": ["a", 2]}}),
            json!({"city": "Kampala", "dir": "/", "filter": {"limit": 1}}),
            json!({"city": "Kampala", "dir": "/", "filter": {"limit": 1, "tags": [], "x": 0}}),
            json!({"city": "Kampala", "dir": "/", "filter": [1, [2]]}),
            json!({"city": "Kampala", "dir": "/", "filter": 3}),
        ];
        for arguments in cases {
            let (by_probes, whole) = by_probes_and_whole(&arguments);
            assert_eq!(by_probes, whole, "{arguments}");
        }
    }

    #[test]
    fn the_argument_is_named_with_its_path_inside() {
        let (message, _) = by_probes_and_whole(&json!({
            "city": "Kampala", "dir": "/", "filter": {"limit": 1, "tags": ["a", 2]}
        }));
        assert_eq!(
            message,
            "argument `filter.tags[1]`: invalid type: integer `2`, expected a string"
        );
        let (message, _) = by_probes_and_whole(&json!({"city": "Kampala", "folder": 7}));
        assert_eq!(
            message,
            "argument `folder`: invalid type: integer `7`, expected a string"
        );
        let (message, _) =
            by_probes_and_whole(&json!({"city": "Kampala", "dir": "/", "folder": "/"}));
        assert_eq!(message, "duplicate field `dir`");
    }
}
