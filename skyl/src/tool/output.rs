//! What a tool may return, and how it becomes the text the model reads.

use std::any::Any;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{ToolFailure, ToolOutcome};
use crate::content::{self, Audio, Content, Document, Image, Resource, ResourceLink};

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
/// | `Vec<T>`, `[T; N]` for `T: Serialize` | a JSON array: `["a","b"]` for a `Vec<String>` |
/// | `HashMap<K, V>`, `BTreeMap<K, V>` for `Serialize` keys and values | a JSON object |
/// | [`Json<T>`] for any `T: Serialize` | the JSON of `T` (for your own structs) |
/// | `Option<T>` for any `T` above | `T`'s text, or `null` for `None` |
/// | `Result<T, E>` with `E` converting into a [`ToolFailure`] | `T`'s text, or the failure |
/// | [`Image`], [`Audio`], [`Document`], [`ResourceLink`], [`Resource`], [`Content`] | that part (an image the model sees, where its provider takes images) |
/// | a list of content: `Vec<Image>`, `Vec<Content>`, `[Image; 2]`, … | each part in order, as many as there are (leading [`Content::Text`] parts are the text; an empty list reads `[]`) |
/// | a tuple such as `(String, Image)` | each element in order: text plus media |
/// | [`ToolOutput`] | text and a list of content |
///
/// Every `Display` error converts into a [`ToolFailure`] that tells the model not to retry, so
/// `Result<T, std::io::Error>` and `anyhow::Result<T>` work as they are; return a `ToolFailure` to
/// choose the guidance. A `Vec<String>` is a list, so it is JSON; join it yourself to send
/// lines of text. A list of content is content, not JSON: `Option<Vec<Image>>` and
/// `Result<Vec<Content>, E>` send their images. A list's elements are owned (`'static`): see the
/// `Vec` impl for why.
///
/// Implement it to choose the text a model reads for your own type:
///
/// ```
/// use skyl::tool::{IntoToolOutput, ToolOutcome};
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
    label = "a #[tool] must return a type that implements `skyl::tool::IntoToolOutput`",
    note = "return text (`String`, `&'static str`), `()`, a number, `serde_json::Value`, a `Vec` or map of owned `Serialize` values (JSON), `skyl::Json<T>` for a `T: Serialize`, content (`skyl::content::Image`, `skyl::Content`, `skyl::tool::ToolOutput`, a list of content such as `Vec<skyl::content::Image>`, a tuple such as `(String, skyl::content::Image)`), or an `Option` or `Result<T, E>` (with `E: Display`) of one of these"
)]
pub trait IntoToolOutput {
    /// The text given to the model, or the failure.
    ///
    /// For a value with content beyond text (an image), this is what a reader of text gets: the
    /// text, then a line saying what each part is.
    fn into_tool_output(self) -> ToolOutcome;

    /// The whole output, content included, or the failure: what the toolbox sends.
    ///
    /// The default is the text of [`into_tool_output`](Self::into_tool_output); a type with
    /// content beyond text implements this too.
    fn into_output(self) -> Result<ToolOutput, ToolFailure>
    where
        Self: Sized,
    {
        self.into_tool_output().map(ToolOutput::from)
    }
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

/// A list of content ([`Image`], [`Audio`], [`Document`], [`ResourceLink`], [`Resource`],
/// [`Content`]) is that content, part after part (an empty one reads `[]`, as any empty list
/// does); a list of anything else is a JSON array. To send a list of content as JSON instead,
/// return it in a [`Json`].
///
/// Which one is decided by the element type: the content types are `Serialize` too (a journal
/// stores them), so Rust's coherence rules allow no second `impl` for `Vec<Image>` beside this
/// one, and the element type is compared instead (which is why `T` is `'static`).
impl<T: Serialize + 'static> IntoToolOutput for Vec<T> {
    fn into_tool_output(self) -> ToolOutcome {
        self.into_output().map(ToolOutput::into_text)
    }

    fn into_output(self) -> Result<ToolOutput, ToolFailure> {
        match content_list(self) {
            // An empty result would read as "nothing happened"; `[]` says the list was empty.
            Ok(parts) if parts.is_empty() => Ok(ToolOutput::from("[]")),
            Ok(parts) => Ok(ToolOutput::from(parts)),
            Err(items) => Json(items).into_output(),
        }
    }
}

/// As a `Vec` of its elements: `[Image; 2]` is two images, `[u32; 3]` a JSON array.
impl<T: Serialize + 'static, const N: usize> IntoToolOutput for [T; N] {
    fn into_tool_output(self) -> ToolOutcome {
        Vec::from(self).into_tool_output()
    }

    fn into_output(self) -> Result<ToolOutput, ToolFailure> {
        Vec::from(self).into_output()
    }
}

/// `items` as parts when `T` is one of the content types, or `items` back as they were.
fn content_list<T: 'static>(items: Vec<T>) -> Result<Vec<Content>, Vec<T>> {
    /// The list out of `slot` when its elements are `U`.
    fn take<U: 'static, T: 'static>(slot: &mut Option<Vec<T>>) -> Option<Vec<U>> {
        (slot as &mut dyn Any)
            .downcast_mut::<Option<Vec<U>>>()?
            .take()
    }
    fn parts<U: Into<Content>>(items: Vec<U>) -> Vec<Content> {
        items.into_iter().map(Into::into).collect()
    }
    let mut slot = Some(items);
    if let Some(parts) = take::<Content, T>(&mut slot) {
        return Ok(parts);
    }
    macro_rules! try_kinds {
        ($($ty:ty)*) => {$(
            if let Some(items) = take::<$ty, T>(&mut slot) {
                return Ok(parts(items));
            }
        )*};
    }
    try_kinds!(Image Audio Document ResourceLink Resource);
    // No kind matched, so nothing was taken: the slot still holds the items.
    Err(slot.unwrap_or_default())
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

    fn into_output(self) -> Result<ToolOutput, ToolFailure> {
        match self {
            Some(value) => value.into_output(),
            None => Ok("null".into()),
        }
    }
}

impl<T: IntoToolOutput, E: Into<ToolFailure>> IntoToolOutput for Result<T, E> {
    fn into_tool_output(self) -> ToolOutcome {
        self.map_err(Into::into)?.into_tool_output()
    }

    fn into_output(self) -> Result<ToolOutput, ToolFailure> {
        self.map_err(Into::into)?.into_output()
    }
}

/// What a tool answers: text (the prose every provider carries) and, beside it, content such as
/// images, audio, documents, resources and structured JSON.
///
/// Build one from text and add parts; a tool returns it as it is. The text comes first on every
/// wire, then the parts in order (see [`Content`] for each provider's form).
///
/// ```
/// use skyl::{Content, content::Image, tool::{IntoToolOutput, ToolOutput}};
///
/// # const PNG: &[u8] = b"\x89PNG\r\n\x1a\n";
/// /// Renders the page at `url`.
/// #[skyl::tool]
/// fn screenshot(url: String) -> ToolOutput {
///     ToolOutput::from(format!("The page at {url}:"))
///         .with(Image::png(PNG))
///         .with(Content::json(serde_json::json!({"width": 1280, "height": 800})))
/// }
///
/// let output = screenshot("https://example.com".into()).into_output().unwrap();
/// assert_eq!(output.text, "The page at https://example.com:");
/// assert_eq!(output.content.len(), 2);
/// # let _ = Screenshot;
/// ```
///
/// A list of [`Content`] collects into one: its leading text parts become the text, the rest
/// stays in order.
///
/// Frozen: these fields are the whole of it, so it may be built by struct literal; a field
/// added would be a breaking change, listed as one in the CHANGELOG.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// The prose: the [`ToolResult::content`](crate::ToolResult::content) of the result.
    pub text: String,
    /// The content beside it, in order.
    pub content: Vec<Content>,
}

impl ToolOutput {
    /// The output with `part` added after its other parts.
    pub fn with(mut self, part: impl Into<Content>) -> Self {
        self.push(part.into());
        self
    }

    /// Adds `part` after the other parts; text with no part before it joins the text.
    pub fn push(&mut self, part: Content) {
        match part {
            Content::Text(text) if self.content.is_empty() => join(&mut self.text, &text),
            part => self.content.push(part),
        }
    }

    /// The text a reader of text gets: the text, then a line for each part.
    pub fn into_text(self) -> String {
        let mut text = self.text;
        for part in &self.content {
            join(&mut text, &content::line(part));
        }
        text
    }

    /// `other` after this output.
    fn append(mut self, other: ToolOutput) -> Self {
        if !other.text.is_empty() {
            self.push(Content::Text(other.text));
        }
        self.content.extend(other.content);
        self
    }
}

/// `text` after `into`, on a line of its own.
fn join(into: &mut String, text: &str) {
    if text.is_empty() {
        return;
    }
    if !into.is_empty() {
        into.push('\n');
    }
    into.push_str(text);
}

impl From<String> for ToolOutput {
    #[inline]
    fn from(text: String) -> Self {
        ToolOutput {
            text,
            content: Vec::new(),
        }
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        ToolOutput::from(text.to_owned())
    }
}

impl From<Vec<Content>> for ToolOutput {
    fn from(parts: Vec<Content>) -> Self {
        parts.into_iter().collect()
    }
}

impl FromIterator<Content> for ToolOutput {
    fn from_iter<I: IntoIterator<Item = Content>>(parts: I) -> Self {
        let mut output = ToolOutput::default();
        for part in parts {
            output.push(part);
        }
        output
    }
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> ToolOutcome {
        Ok(self.into_text())
    }

    #[inline]
    fn into_output(self) -> Result<ToolOutput, ToolFailure> {
        Ok(self)
    }
}

macro_rules! content_output {
    ($($ty:ty)*) => {$(
        impl IntoToolOutput for $ty {
            fn into_tool_output(self) -> ToolOutcome {
                self.into_output().map(ToolOutput::into_text)
            }

            fn into_output(self) -> Result<ToolOutput, ToolFailure> {
                Ok(ToolOutput::default().with(self))
            }
        }
    )*};
}

content_output!(Content Image Audio Document ResourceLink Resource);

macro_rules! tuple_output {
    ($($name:ident)+) => {
        /// Each element's output in order: text and media side by side, such as
        /// `(String, Image)`.
        impl<$($name: IntoToolOutput),+> IntoToolOutput for ($($name,)+) {
            fn into_tool_output(self) -> ToolOutcome {
                self.into_output().map(ToolOutput::into_text)
            }

            #[allow(non_snake_case)]
            fn into_output(self) -> Result<ToolOutput, ToolFailure> {
                let ($($name,)+) = self;
                let output = ToolOutput::default();
                $(let output = output.append($name.into_output()?);)+
                Ok(output)
            }
        }
    };
}

tuple_output!(A B);
tuple_output!(A B C);
tuple_output!(A B C D);

/// Returns any `Serialize` value from a tool as compact JSON text.
///
/// ```
/// use skyl::{Json, tool::IntoToolOutput};
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
    fn a_list_of_content_is_content_and_any_other_list_is_json() {
        let png = Image::png(b"\x89PNG\r\n\x1a\n");
        let link = ResourceLink::new("file:///a.md", "a.md");
        assert_eq!(
            vec![png.clone(), png.clone()].into_output(),
            Ok(ToolOutput::default().with(png.clone()).with(png.clone()))
        );
        assert_eq!(
            vec![
                Content::text("Two:"),
                png.clone().into(),
                link.clone().into()
            ]
            .into_output(),
            Ok(ToolOutput::from("Two:")
                .with(png.clone())
                .with(link.clone()))
        );
        assert_eq!(
            [link.clone(), link.clone()].into_output(),
            Ok(ToolOutput::default().with(link.clone()).with(link.clone()))
        );
        assert_eq!(
            vec![link.clone()].into_tool_output(),
            Ok("[a resource link file:///a.md: a.md]".to_owned())
        );
        assert_eq!(
            vec![Audio::wav(b"RIFF")].into_output(),
            Ok(ToolOutput::default().with(Audio::wav(b"RIFF")))
        );
        assert_eq!(
            vec![Document::pdf(b"%PDF-")].into_output(),
            Ok(ToolOutput::default().with(Document::pdf(b"%PDF-")))
        );
        let resource = Resource::text("file:///b.txt", "inside b");
        assert_eq!(
            vec![resource.clone()].into_output(),
            Ok(ToolOutput::default().with(resource))
        );
        assert_eq!(
            Vec::<Image>::new().into_output(),
            Ok(ToolOutput::from("[]"))
        );
        assert_eq!(
            Vec::<Content>::new().into_tool_output(),
            Ok("[]".to_owned())
        );
        assert_eq!(
            Some(vec![png.clone()]).into_output(),
            Ok(ToolOutput::default().with(png.clone()))
        );
        assert_eq!(
            Ok::<_, ToolFailure>(vec![Content::from(png.clone())]).into_output(),
            Ok(ToolOutput::default().with(png.clone()))
        );
        assert_eq!(
            ("Charts:", vec![png.clone()]).into_output(),
            Ok(ToolOutput::from("Charts:").with(png))
        );
        assert_eq!(
            vec!["a".to_owned()].into_output(),
            Ok(ToolOutput::from(r#"["a"]"#))
        );
        assert_eq!([1_u8, 2, 3].into_output(), Ok(ToolOutput::from("[1,2,3]")));
        assert_eq!(
            Json(vec![link]).into_output(),
            Ok(ToolOutput::from(
                r#"[{"uri":"file:///a.md","name":"a.md"}]"#
            ))
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
        assert_eq!(ready.into_ready().unwrap(), Ok("done".into()));
        let pending = ToolFuture::new(async { Ok("later".to_owned()) });
        assert!(pending.into_ready().is_err());
    }
}
