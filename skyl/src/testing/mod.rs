//! What an application uses in its own tests: a [`ScriptedModel`] that answers from a script.

mod scripted;

pub use scripted::ScriptedModel;
