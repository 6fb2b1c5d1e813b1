//! What an application uses in its own tests.
//!
//! - [`ScriptedModel`]: a [`Model`](crate::agent::Model) that answers from a script, to run an
//!   [`Agent`](crate::agent::Agent) without a provider.
//! - [`Instances`]: values a JSON schema allows, from a seed, to check that your tools accept
//!   everything the schemas your adapters send allow.

mod instances;
mod scripted;

pub use instances::Instances;
pub use scripted::ScriptedModel;
