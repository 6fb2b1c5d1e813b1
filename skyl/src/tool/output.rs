//! What a tool may return, and how it becomes the text the model reads.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{ToolFailure, ToolOutcome};

/// A value a tool can return: it becomes the text of the [`ToolResult`](crate::ToolResult).
///
/// Text stays text and data becomes compact JSON:
///
/// | returned | the model reads |
/// |---|---|
/// | `String`, `&str`, `Cow<str>` | the text as it is, without quotes |
/// | `()` | nothing (empty content) |
/// | numbers, `bool`, `char` | `42`, `true`, `x` |
/// | `serde_json::Value`, `serde_json::Map` | the JSON |
/// | `Vec<T>` for `T: Serialize` | a JSON array: `["a","b"]` for a `Vec<String>` |
/// | `HashMap<K, V>`, `BTreeMap<K, V>` for `Serialize` keys and values | a JSON object |
/// | [`Json<T>`] for any `T: Serialize` | the JSON of `T` (for your own structs) |
/// | `Option<T>` for any `T` above | `T`'s text, or `null` for `None` |
/// | `Result<T, E>` with `E` converting into a [`ToolFailure`] | `T`'s text, or the failure |
///
/// Every `Display` error converts into a [`ToolFailure`] that tells the model not to retry, so
/// `Result<T, std::io::Error>` and `anyhow::Result<T>` work as they are; return a `ToolFailure` to
/// choose the guidance. A `Vec<String>` is a list, so it is JSON; join it yourself to send
/// lines of text.
///
/// Implement it to choose the text a model reads for your own type:
///
/// ```
/// use skyl::{IntoToolOutput, ToolOutcome};
///
/// struct Forecast { celsius: i32, sky: &'static str }
///
/// impl IntoToolOutput for Forecast {
///     fn into_tool_output(self) -> ToolOutcome {
///         Ok(format!("{}C and {}", self.celsius, self.sky))
///     }
/// }
///
/// /// Gets today's forecast.
/// #[skyl::tool]
/// fn get_forecast() -> Forecast {
///     Forecast { celsius: 22, sky: "sunny" }
/// }
///
/// assert_eq!(get_forecast().into_tool_output().unwrap(), "22C and sunny");
/// # let _ = GetForecast;
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "a #[tool] must return a type that implements `skyl::IntoToolOutput`",
    note = "return text (`String`, `&'static str`), `()`, a number, `serde_json::Value`, a `Vec` or map of `Serialize` values, `skyl::Json<T>` for a `T: Serialize`, or an `Option` or `Result<T, E>` (with `E: Display`) of one of these"
)]
pub trait IntoToolOutput {
    /// The text given to the model, or the failure.
    fn into_tool_output(self) -> ToolOutcome;
}

impl IntoToolOutput for String {
    #[inline]
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self)
    }
}

impl IntoToolOutput for &str {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.to_owned())
    }
}

impl IntoToolOutput for Cow<'_, str> {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.into_owned())
    }
}

impl IntoToolOutput for () {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(String::new())
    }
}

impl IntoToolOutput for Value {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.to_string())
    }
}

macro_rules! display_output {
    ($($ty:ty)*) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> ToolOutcome {
                Ok(self.to_string())
            }
        }
    )*};
}

display_output!(bool char i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64);

impl IntoToolOutput for Map<String, Value> {
    fn into_tool_output(self) -> ToolOutcome {
        Value::Object(self).into_tool_output()
    }
}

impl<T: Serialize> IntoToolOutput for Vec<T> {
    fn into_tool_output(self) -> ToolOutcome {
        Json(self).into_tool_output()
    }
}

impl<K: Serialize, V: Serialize, H: BuildHasher> IntoToolOutput for HashMap<K, V, H> {
    fn into_tool_output(self) -> ToolOutcome {
        Json(self).into_tool_output()
    }
}

impl<K: Serialize, V: Serialize> IntoToolOutput for BTreeMap<K, V> {
    fn into_tool_output(self) -> ToolOutcome {
        Json(self).into_tool_output()
    }
}

/// `None` is `null`, which a model reads as "no value"; empty content would read as "nothing
/// happened".
impl<T: IntoToolOutput> IntoToolOutput for Option<T> {
    fn into_tool_output(self) -> ToolOutcome {
        match self {
            Some(value) => value.into_tool_output(),
            None => Ok("null".to_owned()),
        }
    }
}

impl<T: IntoToolOutput, E: Into<ToolFailure>> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self) -> ToolOutcome {
        self.map_err(Into::into)?.into_tool_output()
    }
}

/// Returns any `Serialize` value from a tool as compact JSON text.
///
/// ```
/// use skyl::{IntoToolOutput, Json};
///
/// #[derive(serde::Serialize)]
/// struct Forecast { celsius: i32, sky: &'static str }
///
/// let text = Json(Forecast { celsius: 22, sky: "sunny" }).into_tool_output().unwrap();
/// assert_eq!(text, r#"{"celsius":22,"sky":"sunny"}"#);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize> IntoToolOutput for Json<T> {
    fn into_tool_output(self) -> ToolOutcome {
        serde_json::to_string(&self.0).map_err(|error| {
            ToolFailure::do_not_retry(format!("its output could not be written as JSON: {error}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::{FailureKind, Guidance, ToolFuture};
    use serde_json::json;

    #[test]
    fn outputs_become_text() {
        assert_eq!("hi".into_tool_output(), Ok("hi".to_owned()));
        assert_eq!(String::from("hi").into_tool_output(), Ok("hi".to_owned()));
        assert_eq!(Cow::Borrowed("hi").into_tool_output(), Ok("hi".to_owned()));
        assert_eq!(().into_tool_output(), Ok(String::new()));
        assert_eq!(42_i64.into_tool_output(), Ok("42".to_owned()));
        assert_eq!(1.5_f64.into_tool_output(), Ok("1.5".to_owned()));
        assert_eq!(true.into_tool_output(), Ok("true".to_owned()));
        assert_eq!(
            json!({"a": [1, 2]}).into_tool_output(),
            Ok(r#"{"a":[1,2]}"#.to_owned())
        );
        assert_eq!(
            Json(vec!["x", "y"]).into_tool_output(),
            Ok(r#"["x","y"]"#.to_owned())
        );
    }

    #[test]
    fn collections_become_json_and_options_keep_text() {
        assert_eq!(
            vec!["a", "b"].into_tool_output(),
            Ok(r#"["a","b"]"#.to_owned())
        );
        assert_eq!(Vec::<u8>::new().into_tool_output(), Ok("[]".to_owned()));
        let map: BTreeMap<&str, Vec<i32>> = [("b", vec![2]), ("a", vec![])].into();
        assert_eq!(map.into_tool_output(), Ok(r#"{"a":[],"b":[2]}"#.to_owned()));
        let map: HashMap<String, bool> = [("ok".to_owned(), true)].into();
        assert_eq!(map.into_tool_output(), Ok(r#"{"ok":true}"#.to_owned()));
        let Value::Object(object) = json!({"x": 1}) else {
            unreachable!()
        };
        assert_eq!(object.into_tool_output(), Ok(r#"{"x":1}"#.to_owned()));
        assert_eq!(
            Some("plain text").into_tool_output(),
            Ok("plain text".to_owned())
        );
        assert_eq!(None::<String>.into_tool_output(), Ok("null".to_owned()));
        assert_eq!(
            Some(Err::<u8, _>("gone")).into_tool_output(),
            Err(ToolFailure::do_not_retry("gone"))
        );
    }

    #[test]
    fn a_map_whose_keys_are_not_text_is_a_failure() {
        let map: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        assert_eq!(
            map.into_tool_output(),
            Err(ToolFailure::do_not_retry(
                "its output could not be written as JSON: key must be a string"
            ))
        );
    }

    #[test]
    fn an_err_becomes_a_failure_that_does_not_retry() {
        let outcome = Err::<String, _>("disk full").into_tool_output();
        assert_eq!(outcome, Err(ToolFailure::do_not_retry("disk full")));
        let ok = Ok::<_, std::io::Error>(7_u8).into_tool_output();
        assert_eq!(ok, Ok("7".to_owned()));
    }

    #[test]
    fn a_tool_failure_keeps_its_guidance_through_result() {
        let failure =
            ToolFailure::ask_user("which Springfield?").with_next_step("Ask which state.");
        let outcome = Err::<(), _>(failure.clone()).into_tool_output();
        assert_eq!(outcome, Err(failure));
    }

    #[test]
    fn failures_report_their_parts() {
        let f = ToolFailure::retry_with_other_arguments("no such city");
        assert_eq!(
            (f.message(), f.guidance(), f.kind(), f.next_step()),
            (
                "no such city",
                Guidance::RetryWithOtherArguments,
                FailureKind::Failed,
                None
            )
        );
        let a = ToolFailure::invalid_arguments("missing field `city`");
        assert_eq!(
            (a.kind(), a.guidance()),
            (
                FailureKind::InvalidArguments,
                Guidance::RetryWithOtherArguments
            )
        );
        assert_eq!(
            ToolFailure::do_not_retry("x").guidance(),
            Guidance::DoNotRetry
        );
    }

    #[test]
    fn a_ready_future_is_taken_without_polling() {
        let ready = ToolFuture::ready(Ok("done".into()));
        assert_eq!(ready.into_ready().unwrap(), Ok("done".to_owned()));
        let pending = ToolFuture::new(async { Ok("later".to_owned()) });
        assert!(pending.into_ready().is_err());
    }
}
