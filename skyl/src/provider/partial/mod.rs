//! A tool call's arguments, readable while they stream in.
//!
//! A model writing a long call (a file, a patch) streams its arguments as pieces of JSON text.
//! Re-parsing the text so far at every piece, as a partial-JSON parser over the prefix does, costs
//! a time that grows with the square of the arguments' length. [`PartialArguments`] reads each
//! piece once and keeps what the text means, not the text: complete members as values, and the
//! one being written as a prefix. [`PartialCalls`] keeps one for each call of a stream.
//!
//! No I/O here: the parser is fed text, by [`PartialCalls`] from
//! [`StreamEvent`](crate::provider::stream::StreamEvent)s or by the caller directly.

mod bytes;
mod calls;
mod error;
mod parser;
mod view;

pub use calls::{PartialCall, PartialCalls};
pub use error::BrokenArguments;
pub use parser::PartialArguments;
pub use view::{OpenMember, Partial, PartialArray, PartialObject};
