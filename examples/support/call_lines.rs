//! The line a durable worker prints for each call of its run: `ran <id>`, `replayed <id>` (its
//! result read from the journal) or `outcome-unknown <id>` (cut off last time, and not run
//! again). The crash tests count these lines.

use skyl::agent::{AnsweredBy, Event};

/// The line of `event` when it tells how a call was answered.
pub(crate) fn call_line(event: &Event) -> Option<String> {
    match event {
        Event::ToolFinished { result, .. } => Some(format!("ran {}", result.call_id)),
        Event::ToolAnswered {
            result,
            by: AnsweredBy::Journal,
            ..
        } => Some(format!("replayed {}", result.call_id)),
        Event::ToolAnswered {
            result,
            by: AnsweredBy::OutcomeUnknown,
            ..
        } => Some(format!("outcome-unknown {}", result.call_id)),
        _ => None,
    }
}
