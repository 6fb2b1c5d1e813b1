//! What an agent run tells the model about its final answer.

use crate::text::shortened;

/// The user message that sends a typed run's final answer back: it could not be read as the
/// type the run expects (`reason` says where and why), so the model answers again, shown the
/// schema (the provider's structured output shows it too, where there is one).
pub(crate) fn answer_unreadable(name: &str, schema: &serde_json::Value, reason: &str) -> String {
    let reason = shortened(reason, 2048);
    format!(
        "ERROR: your final answer could not be read as {name}: {reason}. Answer again with only a JSON value that follows this schema, with nothing before or after it: {schema}"
    )
}
