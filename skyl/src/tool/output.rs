//! What a tool may return, and how it becomes the text the model reads.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use super::{ToolFailure, ToolOutcome};

/// A value a tool can return: it becomes the text of the [`ToolResult`](crate::ToolResult).
///
/// Implemented for text (`String`, `&str`, `Cow<str>`), `()` (empty output), numbers, `bool`,
/// `serde_json::Value`, [`Json<T>`] for any `Serialize` type, and `Result<T, E>` whose error
/// converts into a [`ToolFailure`] (every `Display` type does).
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
    note = "return text (`String`, `&'static str`), `()`, a number, `serde_json::Value`, `skyl::Json<T>` for a `T: Serialize`, or `Result<T, E>` of one of these with `E: Display`"
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
