//! Turning a model's arguments into a tool's typed parameters.
//!
//! The success path is one `Deserialize` straight from the borrowed `&Value`: no clone, no
//! re-serialization, no path tracking, and the tool's schema is not even looked at. Only when that
//! fails are the arguments looked at again: reshaped (`null` or a JSON string holding an object),
//! cleaned of the nulls that mean "not given" ([`absent`]), and, should they still not parse,
//! explained: [`explain`] says which argument was wrong.
//!
//! A tool whose schema is declared as data rather than derived from a type has its arguments
//! checked against that schema first ([`validate`]), with the same prose.
//!
//! What a [`ToolCall::arguments`](crate::ToolCall::arguments) value means, whatever shape it came
//! in, is the message layer's to say ([`shape`], in `message/call_arguments.rs`): dispatching reads
//! it there, and so do the adapters that put a call back on the wire as an object or as text.

use std::borrow::Cow;

use serde::de::DeserializeOwned;

use serde_json::Value;

use crate::message::call_arguments::{Shape, shape};
use crate::prose;
use crate::tool::ToolFailure;

use explain::Explain;

pub(crate) mod canonical;
pub mod explain;

pub(crate) use crate::schema::absent::{has_null, without_absent_nulls};
use crate::schema::validate;

/// Parses a call's arguments into `A`, whose canonical schema `schema` gives.
///
/// Accepts what models and providers really send: a JSON object; `null` or nothing for a tool
/// without parameters; an object encoded as a JSON string (some models double-encode, and
/// adapters keep an unparseable OpenAI `arguments` string as a string so that the error reaches the
/// model here); and `null` for an optional argument whose type does not take `null`, which a
/// strict-mode schema invites (the argument's default applies).
///
/// `schema` is only called when the arguments do not parse as they are. Arguments that do not
/// parse at all are read once more as a whole to name the argument at fault
/// ([`explain::whole`]); a `#[tool]` says how to name it more cheaply with
/// [`parse_explained`].
#[inline]
pub fn parse_arguments<'s, A: DeserializeOwned>(
    arguments: &Value,
    schema: impl FnOnce() -> &'s Value,
) -> Result<A, ToolFailure> {
    parse_explained(arguments, schema, explain::whole::<A>)
}

/// [`parse_arguments`], with `explain` naming the argument at fault when the arguments do not
/// parse at all.
#[inline]
pub fn parse_explained<'s, A: DeserializeOwned>(
    arguments: &Value,
    schema: impl FnOnce() -> &'s Value,
    explain: Explain,
) -> Result<A, ToolFailure> {
    // The object case is the only one on the hot path; the others fail here and are handled below.
    match A::deserialize(arguments) {
        Ok(parsed) => Ok(parsed),
        Err(error) => parse_other::<A>(arguments, error, schema, explain),
    }
}

#[cold]
fn parse_other<'s, A: DeserializeOwned>(
    arguments: &Value,
    error: serde_json::Error,
    schema: impl FnOnce() -> &'s Value,
    explain: Explain,
) -> Result<A, ToolFailure> {
    let object = as_object(arguments)?;
    // `error` is about `arguments`; reshaped arguments have an error of their own.
    let error = match &object {
        Cow::Owned(reshaped) => match A::deserialize(reshaped) {
            Ok(parsed) => return Ok(parsed),
            Err(error) => error,
        },
        Cow::Borrowed(_) => error,
    };
    if has_null(&object)
        && let Some(cleaned) = without_absent_nulls(&object, schema())
    {
        return A::deserialize(&cleaned).map_err(|error| explain(&cleaned, error));
    }
    Err(explain(&object, error))
}

/// Reads arguments against a schema declared as data: reshaped, cleaned of absent nulls, checked
/// against `schema`, then parsed into `A` (a `serde_json::Value` takes them as they are).
pub(crate) fn parse_declared<A: DeserializeOwned>(
    arguments: &Value,
    schema: &Value,
) -> Result<A, ToolFailure> {
    let object = as_object(arguments)?;
    let cleaned = if has_null(&object) {
        without_absent_nulls(&object, schema)
    } else {
        None
    };
    let object = cleaned.as_ref().unwrap_or(&object);
    if let Err(mismatch) = validate::validate(object, schema) {
        return Err(ToolFailure::invalid_arguments(mismatch.to_string()));
    }
    A::deserialize(object).map_err(|error| explain::whole::<A>(object, error))
}

/// The arguments as one JSON object: as sent, `{}` for `null`, or parsed from a JSON string that
/// holds an object.
pub(crate) fn as_object(arguments: &Value) -> Result<Cow<'_, Value>, ToolFailure> {
    match shape(arguments) {
        Shape::Object(Cow::Borrowed(_)) => Ok(Cow::Borrowed(arguments)),
        Shape::Object(Cow::Owned(object)) => Ok(Cow::Owned(Value::Object(object))),
        Shape::Text(text) => match serde_json::from_str::<Value>(text) {
            Ok(other) => Err(not_an_object(&other)),
            Err(error) => Err(ToolFailure::invalid_arguments(prose::arguments::not_json(
                &error,
            ))),
        },
        Shape::Other(other) => Err(not_an_object(other)),
    }
}

fn not_an_object(value: &Value) -> ToolFailure {
    ToolFailure::invalid_arguments(prose::arguments::not_an_object(value))
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

    const NO_SCHEMA: &Value = &Value::Null;

    fn failure(arguments: Value) -> String {
        parse_arguments::<Weather>(&arguments, || NO_SCHEMA)
            .unwrap_err()
            .message()
            .to_owned()
    }

    #[test]
    fn an_object_parses() {
        let parsed: Weather =
            parse_arguments(&json!({"city": "Kampala", "days": 3}), || NO_SCHEMA).unwrap();
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
        assert_eq!(
            parse_arguments::<Nothing>(&Value::Null, || NO_SCHEMA),
            Ok(Nothing {})
        );
        assert_eq!(failure(Value::Null), "missing field `city`");
    }

    #[derive(Debug, PartialEq, Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Search {
        query: String,
        #[serde(default)]
        exact: bool,
        #[serde(default = "ten")]
        limit: u32,
        tag: Option<String>,
    }

    fn ten() -> u32 {
        10
    }

    #[test]
    fn a_null_for_an_optional_argument_means_it_was_not_given() {
        let schema = crate::schema::canonical_schema_for::<Search>();
        let strict_style = json!({"query": "x", "exact": null, "limit": null, "tag": null});
        assert_eq!(
            parse_arguments::<Search>(&strict_style, || &schema),
            Ok(Search {
                query: "x".into(),
                exact: false,
                limit: 10,
                tag: None
            })
        );
        let required = parse_arguments::<Search>(&json!({"query": null}), || &schema).unwrap_err();
        assert_eq!(
            required.message(),
            "argument `query`: invalid type: null, expected a string"
        );
        let other = json!({"query": "x", "exact": null, "limit": "many"});
        assert_eq!(
            parse_arguments::<Search>(&other, || &schema)
                .unwrap_err()
                .message(),
            "argument `limit`: invalid type: string \"many\", expected u32"
        );
    }

    #[test]
    fn arguments_that_parse_never_read_the_schema() {
        let parsed = parse_arguments::<Search>(&json!({"query": "x", "tag": null}), || {
            unreachable!("the schema is read only on failure")
        });
        assert_eq!(parsed.map(|search| search.limit), Ok(10));
    }

    #[test]
    fn a_json_string_holding_an_object_parses() {
        let parsed: Weather =
            parse_arguments(&json!(r#"{"city":"Kampala"}"#), || NO_SCHEMA).unwrap();
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
