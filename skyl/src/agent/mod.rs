//! The agent loop's layer, with no I/O of its own: the [`Model`] seam to a provider, and the
//! errors a model request can end in.

mod error;
mod model;

pub use error::{ModelError, ModelErrorKind};
pub use model::{BoxFuture, EventSink, Model};
