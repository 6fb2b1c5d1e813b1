//! What a run reports while it goes on, for a progress display.

use std::time::Duration;

use crate::message::{ToolCall, ToolResult};
use crate::provider::StreamEvent;

/// Something that happened in a run, reported as it happens to the callback given to
/// [`RunBuilder::on_event`](super::RunBuilder::on_event).
///
/// With a callback, the agent asks the model to stream ([`Model::stream`](super::Model::stream)),
/// so text arrives piece by piece; a model that cannot stream sends its answer's events at once.
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// A step begins: the model request is about to be sent.
    StepStarted {
        /// The step's number, counted from 1 over the whole run.
        step: u32,
    },
    /// The model said something ([`StreamEvent::TextDelta`], a tool call taking shape, the usage,
    /// the end of the answer).
    Model(StreamEvent),
    /// A tool call starts running. Calls a hook denied or answered, or that wait for approval,
    /// do not start.
    ToolStarted {
        /// The call.
        call: ToolCall,
    },
    /// A tool call that started has its result. Calls running concurrently finish in any order.
    ToolFinished {
        /// The tool's name.
        name: String,
        /// The result the model will read.
        result: ToolResult,
        /// How long the call ran.
        duration: Duration,
    },
}
