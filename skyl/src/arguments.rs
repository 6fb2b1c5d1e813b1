//! Turning a model's arguments into a tool's typed parameters.
//!
//! The success path is one `Deserialize` straight from the borrowed `&Value`: no clone, no
//! re-serialization, no path tracking. Only when that fails is the value parsed again with
//! `serde_path_to_error`, to say which argument was wrong.

use serde::de::DeserializeOwned;

use serde_json::{Map, Value};

use crate::tool::ToolFailure;

/// Parses a call's arguments into `A`.
///
/// Accepts what models and providers really send: a JSON object; `null` or nothing for a tool
/// without parameters; and an object encoded as a JSON string (some models double-encode, and
/// adapters keep an unparseable OpenAI `arguments` string as a string so that the error reaches the
/// model here).
#[inline]
pub fn parse_arguments<A: DeserializeOwned>(arguments: &Value) -> Result<A, ToolFailure> {
    // The object case is the only one on the hot path; the others fail here and are handled below.
    match A::deserialize(arguments) {
        Ok(parsed) => Ok(parsed),
        Err(_) => parse_other::<A>(arguments),
    }
}

#[cold]
fn parse_other<A: DeserializeOwned>(arguments: &Value) -> Result<A, ToolFailure> {
    match arguments {
        Value::Object(_) => Err(explain::<A>(arguments)),
        Value::Null => parse_arguments(&Value::Object(Map::new())),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => parse_arguments(&value),
            Ok(other) => Err(not_an_object(&other)),
            Err(error) => Err(ToolFailure::invalid_arguments(format!(
                "the arguments are not valid JSON ({error}); send them as a JSON object"
            ))),
        },
        other => Err(not_an_object(other)),
    }
}

fn not_an_object(value: &Value) -> ToolFailure {
    ToolFailure::invalid_arguments(format!(
        "the arguments must be a JSON object with one key per parameter, but they were {}",
        describe(value)
    ))
}

/// Re-parses with path tracking, on the failure path only, to name the argument at fault.
fn explain<A: DeserializeOwned>(arguments: &Value) -> ToolFailure {
    let error = match serde_path_to_error::deserialize::<_, A>(arguments) {
        Ok(_) => return ToolFailure::invalid_arguments("the arguments could not be read"),
        Err(error) => error,
    };
    let path = error.path().to_string();
    let cause = error.into_inner().to_string();
    // serde already names the key in "unknown field `x`"; do not say it twice.
    let detail = if path == "." || cause.contains(&format!("`{path}`")) {
        cause
    } else {
        format!("argument `{path}`: {cause}")
    };
    ToolFailure::invalid_arguments(detail)
}

fn describe(value: &Value) -> String {
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
        let cut = (0..=77)
            .rev()
            .find(|&i| shown.is_char_boundary(i))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push_str("...");
    }
    format!("{kind}: {shown}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Weather {
        city: String,
        days: Option<u8>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Nothing {}

    fn failure(arguments: Value) -> String {
        parse_arguments::<Weather>(&arguments)
            .unwrap_err()
            .message()
            .to_owned()
    }

    #[test]
    fn an_object_parses() {
        let parsed: Weather = parse_arguments(&json!({"city": "Kampala", "days": 3})).unwrap();
        assert_eq!(
            parsed,
            Weather {
                city: "Kampala".into(),
                days: Some(3)
            }
        );
    }

    #[test]
    fn null_means_no_arguments() {
        assert_eq!(parse_arguments::<Nothing>(&Value::Null), Ok(Nothing {}));
        assert_eq!(failure(Value::Null), "missing field `city`");
    }

    #[test]
    fn a_json_string_holding_an_object_parses() {
        let parsed: Weather = parse_arguments(&json!(r#"{"city":"Kampala"}"#)).unwrap();
        assert_eq!(parsed.city, "Kampala");
    }

    #[test]
    fn failures_name_the_argument_and_the_cause() {
        assert_eq!(
            failure(json!({"city": 42})),
            "argument `city`: invalid type: integer `42`, expected a string"
        );
        assert_eq!(
            failure(json!({"city": "Kampala", "days": 300})),
            "argument `days`: invalid value: integer `300`, expected u8"
        );
        assert_eq!(failure(json!({})), "missing field `city`");
        assert_eq!(
            failure(json!({"city": "Kampala", "cty": "x"})),
            "unknown field `cty`, expected `city` or `days`"
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_are_described() {
        assert_eq!(
            failure(json!([1, 2])),
            "the arguments must be a JSON object with one key per parameter, but they were an array: [1,2]"
        );
        assert_eq!(
            failure(json!("\"just text\"")),
            "the arguments must be a JSON object with one key per parameter, but they were a string: \"just text\""
        );
        assert_eq!(
            failure(json!("{\"city\": ")),
            "the arguments are not valid JSON (EOF while parsing a value at line 1 column 9); send them as a JSON object"
        );
        let long = failure(json!(vec![1; 100]));
        assert!(long.ends_with("..."), "{long}");
    }
}
