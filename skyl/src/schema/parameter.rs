//! What a `#[tool]` parameter's type must be: readable from a model's arguments, and described
//! by a schema. The traits exist for the compiler's diagnostics, which name them where a type
//! falls short; the code `#[tool]` generates reaches them through `skyl::__private`.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// A type a model's arguments can be read into.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `serde::Deserialize`",
    label = "a model's arguments cannot be read into `{Self}`",
    note = "derive `serde::Deserialize` and `schemars::JsonSchema` on `{Self}`, or use a type that implements both",
    note = "if the value comes from the application rather than from the model, borrow it from the toolbox state: `#[state] name: &{Self}`"
)]
pub trait ToolParameterDeserialize: DeserializeOwned {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ToolParameterDeserialize for T {}

/// A type whose JSON schema the model can be shown.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `JsonSchema` of schemars 1",
    label = "the model cannot be shown a schema for `{Self}`",
    note = "derive `schemars::JsonSchema` on `{Self}` with schemars 1, the version skyl uses (`schemars = \"1\"` in Cargo.toml); a derive of schemars 0.8 or 0.9 is another trait, which skyl cannot read",
    note = "if the value comes from the application rather than from the model, borrow it from the toolbox state: `#[state] name: &{Self}`"
)]
pub trait ToolParameterSchema: JsonSchema {}

#[diagnostic::do_not_recommend]
impl<T: JsonSchema> ToolParameterSchema for T {}

/// A type a `#[tool]` parameter can have: the model's arguments read into it, its schema shown.
///
/// `#[tool]` writes `<T as ToolParameter>::This` once for each parameter type `T`, spanned at
/// that type, so that a missing trait is reported there and only there: through the
/// `on_unimplemented` of [`ToolParameterDeserialize`] or [`ToolParameterSchema`] (a type lacking
/// both gets one error for each), with no "required by a bound in" note pointing into skyl, which
/// a bound of a function would add.
pub trait ToolParameter {
    /// Always `Self`.
    type This;
}

impl<T: ToolParameterDeserialize + ToolParameterSchema> ToolParameter for T {
    type This = T;
}
