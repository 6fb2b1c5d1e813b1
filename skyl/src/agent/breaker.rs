//! The breaker: a run stops when the model keeps making the same failing call.
//!
//! A model that misreads an error can call the same tool with the same arguments step after
//! step, spending the step budget on answers it has already seen. The run counts each failing
//! call by tool name and arguments, and the agent stops it when one count reaches its limit.
//!
//! "The same call" is what the repeat guard of a turn means by it too
//! ([`canonical`](crate::arguments::canonical)): arguments sent as an object and the same object
//! sent as JSON text count together.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::arguments::canonical::{canonical, same_arguments};
use crate::message::{ToolCall, ToolResult};

/// How many times each failing call has failed in a run. A call that succeeds is forgotten.
///
/// Kept in the [`Run`](super::Run), so that a resumed run goes on counting.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Failures(Vec<Failure>);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Failure {
    tool: String,
    arguments: Value,
    count: u32,
}

impl Failures {
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Records `call`'s result and returns how many times this call (its tool and canonical
    /// arguments) has failed since it last succeeded: 0 when it succeeded now. `schema` is the
    /// tool's parameters schema, when the tool is known.
    pub(crate) fn record(
        &mut self,
        call: &ToolCall,
        result: &ToolResult,
        schema: Option<&Value>,
    ) -> u32 {
        let arguments = canonical(&call.arguments, schema);
        let known = self.0.iter().position(|failure| {
            failure.tool == call.name
                && same_arguments(&canonical(&failure.arguments, schema), &arguments)
        });
        match (known, result.is_error) {
            (Some(position), true) => {
                let failure = &mut self.0[position];
                failure.count = failure.count.saturating_add(1);
                failure.count
            }
            (None, true) => {
                self.0.push(Failure {
                    tool: call.name.clone(),
                    arguments: arguments.into_owned(),
                    count: 1,
                });
                1
            }
            (Some(position), false) => {
                self.0.swap_remove(position);
                0
            }
            (None, false) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_the_same_failing_call_and_forgets_it_once_it_succeeds() {
        let mut failures = Failures::default();
        let call = ToolCall::new("c1", "search", json!({"q": "x"}));
        let other_arguments = ToolCall::new("c2", "search", json!({"q": "y"}));
        let failed = ToolResult::error("c", "ERROR");
        let ok = ToolResult::success("c", "ok");
        assert_eq!(failures.record(&call, &failed, None), 1);
        assert_eq!(failures.record(&other_arguments, &failed, None), 1);
        assert_eq!(failures.record(&call, &failed, None), 2);
        assert_eq!(failures.record(&call, &ok, None), 0);
        assert_eq!(failures.record(&call, &failed, None), 1);
        assert_eq!(failures.record(&other_arguments, &ok, None), 0);
        assert_eq!(
            serde_json::to_value(&failures).unwrap(),
            json!([{"tool": "search", "arguments": {"q": "x"}, "count": 1}])
        );
    }

    #[test]
    fn an_object_and_the_same_object_sent_as_text_are_one_failing_call() {
        let schema = json!({"type": "object", "properties": {"q": {"type": "string"}, "n": {"type": "integer"}}});
        let mut failures = Failures::default();
        let failed = ToolResult::error("c", "ERROR");
        let as_object = ToolCall::new("c1", "search", json!({"q": "x", "n": 1}));
        let as_text = ToolCall::new("c2", "search", json!("{\"n\": 1.0, \"q\": \"x\"}"));
        let reordered = ToolCall::new("c3", "search", json!({"n": 1, "q": "x"}));
        assert_eq!(failures.record(&as_object, &failed, Some(&schema)), 1);
        assert_eq!(failures.record(&as_text, &failed, Some(&schema)), 2);
        assert_eq!(failures.record(&reordered, &failed, Some(&schema)), 3);
    }
}
