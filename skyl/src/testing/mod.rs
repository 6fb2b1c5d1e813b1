//! What an application uses in its own tests.
//!
//! - [`check_toolbox`] and [`ToolboxCheck`]: skyl's promise checked on your own toolbox. Each
//!   tool gets valid, edge and hostile arguments generated from its own schema; every call must
//!   get one well-formed result, no tool may panic, every value each provider's schema allows
//!   must be accepted, and every tool must have run. One line in a test.
//! - [`ScriptedModel`]: a [`Model`](crate::model::Model) that answers from a script, to run an
//!   [`Agent`](crate::agent::Agent) without a provider.
//! - [`Instances`]: values a JSON schema allows, from a seed, to check that your tools accept
//!   everything the schemas your adapters send allow.

mod scripted;
mod toolbox_check;
#[cfg(all(test, feature = "tracing"))]
pub(crate) mod tracing_capture;

pub use crate::schema::dialect::Dialect;
pub use crate::schema::instances::Instances;
pub use scripted::ScriptedModel;
pub use toolbox_check::{Case, CheckFailure, ToolboxCheck, ToolboxReport, Untested, check_toolbox};
