//! How a tool borrows its part of the toolbox's state.

/// Takes a part of the toolbox state by reference, the way axum's `FromRef` takes it by value.
///
/// A `#[state]` parameter `&T` of a tool asks the toolbox state `S` for `T: FromRef<S>`. Every
/// type is `FromRef` of itself; implement it for the pieces of your application state:
///
/// ```
/// use skyl::tool::FromRef;
///
/// struct Db;
/// struct App { db: Db, api_key: String }
///
/// impl FromRef<App> for Db {
///     fn from_ref(app: &App) -> &Db {
///         &app.db
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool's `#[state]` asks for `{Self}`, which the toolbox state `{S}` cannot provide",
    label = "`{Self}` cannot be borrowed from `{S}`",
    note = "implement `skyl::tool::FromRef<{S}> for {Self}` returning a reference to it, or build the toolbox with `Toolbox::with_state` and a `{Self}`"
)]
pub trait FromRef<S> {
    /// Borrows `Self` out of the state.
    fn from_ref(state: &S) -> &Self;
}

impl<T> FromRef<T> for T {
    fn from_ref(state: &T) -> &T {
        state
    }
}
