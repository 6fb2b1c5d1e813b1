//! Reading a prompt's arguments and a URI's variables, which MCP sends as text, into typed
//! values; and the values an enum may take, for completion.
//!
//! Used by the code `#[prompt]` and `#[resource]` generate (through `skyl::__private::mcp`) and by
//! [`DynamicPrompt`](crate::mcp::DynamicPrompt).

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::{Map, Value as Json};

use crate::mcp::serve::failure::Failure;

/// The argument `name` of `arguments`, read as `T`.
///
/// MCP's prompt arguments are strings: a string is read as `T` as JSON would hold it as a
/// string (a `String`, an enum's variant), and otherwise as the JSON it says (`"3"` is a number,
/// `"true"` a boolean). A missing argument (or `null`) is `T`'s value of nothing (`None` for an
/// `Option`), and a [`Failure::missing`] when `T` has none.
pub fn argument<T: DeserializeOwned>(
    arguments: &Map<String, Json>,
    name: &str,
) -> Result<T, Failure> {
    match arguments.get(name) {
        None | Some(Json::Null) => T::deserialize(Json::Null).map_err(|_| Failure::missing(name)),
        Some(Json::String(text)) => text_as(text).map_err(|cause| Failure::argument(name, cause)),
        Some(other) => match T::deserialize(other) {
            Ok(value) => Ok(value),
            Err(error) => Err(Failure::argument(name, error)),
        },
    }
}

/// `text` read as `T`: as a JSON string first, then as the JSON it is; the first reading's
/// error when neither reads, which says what was expected.
pub fn text_as<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let as_string = match T::deserialize(Json::String(text.to_owned())) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    match serde_json::from_str::<Json>(text) {
        Ok(json) if !json.is_string() => T::deserialize(json).map_err(|_| as_string.to_string()),
        _ => Err(as_string.to_string()),
    }
}

/// The names of `T`'s variants when `T` is an enum serde reads by name (through `Option`,
/// `Box` and newtypes too), as the wire spells them; empty otherwise.
pub fn variants<T: DeserializeOwned>() -> &'static [&'static str] {
    match T::deserialize(Asking) {
        Err(Found(Some(variants))) => variants,
        _ => &[],
    }
}

/// The values of `values` that begin with `typed` (case ignored), in their order.
pub fn completed(values: &[&str], typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    values
        .iter()
        .filter(|value| value.to_lowercase().starts_with(&typed))
        .map(|value| (*value).to_owned())
        .collect()
}

/// A type a prompt's argument or a URI's variable can be read into.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt argument or a URI template variable: it does not implement `serde::Deserialize`",
    label = "a request's text cannot be read into `{Self}`",
    note = "derive `serde::Deserialize` on `{Self}`, or use a type that implements it (`String`, a number, an enum of unit variants)"
)]
pub trait ValueDeserialize: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ValueDeserialize for T {}

/// What a `#[prompt]` or `#[resource]` parameter's type must be. The generated code writes
/// `<T as Value>::This` once per parameter, at its type, so that a type that cannot be read is
/// reported there, once, in [`ValueDeserialize`]'s words; it reads the values through [`Probe`],
/// which says nothing more about such a type.
pub trait Value {
    /// Always `Self`.
    type This;
}

impl<T: ValueDeserialize> Value for T {
    type This = T;
}

/// Reads a parameter of type `T`: through [`Readable`] when `T` can be read, and through
/// [`Unreadable`] (which is never run: the crate does not compile) when it cannot.
pub struct Probe<T>(std::marker::PhantomData<T>);

impl<T> Probe<T> {
    /// The probe of `T`.
    pub const NEW: Self = Probe(std::marker::PhantomData);
}

/// The reading of a type that can be read.
pub trait Readable<T> {
    /// The value `name` of `values`, as [`argument`] reads it.
    fn read(&self, values: &Map<String, Json>, name: &str) -> Result<T, Failure>;
    /// The type's variants, as [`variants`] finds them.
    fn variants(&self) -> &'static [&'static str];
}

impl<T: DeserializeOwned> Readable<T> for &Probe<T> {
    fn read(&self, values: &Map<String, Json>, name: &str) -> Result<T, Failure> {
        argument(values, name)
    }

    fn variants(&self) -> &'static [&'static str] {
        variants::<T>()
    }
}

/// The stand-in of [`Readable`] for a type that cannot be read.
pub trait Unreadable<T> {
    /// Never run.
    fn read(&self, values: &Map<String, Json>, name: &str) -> Result<T, Failure>;
    /// Never run.
    fn variants(&self) -> &'static [&'static str];
}

impl<T> Unreadable<T> for Probe<T> {
    fn read(&self, _: &Map<String, Json>, name: &str) -> Result<T, Failure> {
        Err(Failure::argument(name, "its type cannot be read"))
    }

    fn variants(&self) -> &'static [&'static str] {
        &[]
    }
}

/// A deserializer that asks a type what it is: an enum tells its variants.
struct Asking;

/// The probe's end: the variants, when the type was an enum.
#[derive(Debug)]
struct Found(Option<&'static [&'static str]>);

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("probed")
    }
}

impl std::error::Error for Found {}

impl de::Error for Found {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Found(None)
    }
}

impl<'de> Deserializer<'de> for Asking {
    type Error = Found;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
        Err(Found(None))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Found> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Found> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Found> {
        Err(Found(Some(variants)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Language {
        Rust,
        Python,
    }

    fn object(value: Json) -> Map<String, Json> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn text_reads_as_the_parameter_type() {
        let arguments = object(json!({"n": "3", "on": "true", "s": "3", "l": "rust"}));
        assert_eq!(argument::<u32>(&arguments, "n"), Ok(3));
        assert_eq!(argument::<bool>(&arguments, "on"), Ok(true));
        assert_eq!(argument::<String>(&arguments, "s"), Ok("3".to_owned()));
        assert_eq!(argument::<Language>(&arguments, "l"), Ok(Language::Rust));
        assert_eq!(argument::<Option<u32>>(&arguments, "n"), Ok(Some(3)));
        assert_eq!(argument::<Option<u32>>(&arguments, "absent"), Ok(None));
    }

    #[test]
    fn what_does_not_read_is_named() {
        let arguments = object(json!({"n": "many", "l": "cobol"}));
        assert_eq!(
            argument::<u32>(&arguments, "n").map_err(|f| f.to_string()),
            Err("\"n\" does not read: invalid type: string \"many\", expected u32".to_owned())
        );
        assert_eq!(
            argument::<Language>(&arguments, "l").map_err(|f| f.to_string()),
            Err(
                "\"l\" does not read: unknown variant `cobol`, expected `rust` or `python`"
                    .to_owned()
            )
        );
        assert_eq!(
            argument::<u32>(&arguments, "absent"),
            Err(Failure::missing("absent"))
        );
    }

    #[test]
    fn an_enum_tells_its_variants() {
        assert_eq!(variants::<Language>(), ["rust", "python"]);
        assert_eq!(variants::<Option<Language>>(), ["rust", "python"]);
        assert!(variants::<String>().is_empty());
        assert!(variants::<u32>().is_empty());
        assert_eq!(completed(variants::<Language>(), "Py"), ["python"]);
        assert_eq!(completed(variants::<Language>(), ""), ["rust", "python"]);
    }
}
