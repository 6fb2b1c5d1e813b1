//! The breaker: a run stops when the model keeps making the same failing call.
//!
//! A model that misreads an error can call the same tool with the same arguments step after
//! step, spending the step budget on answers it has already seen. The run counts each failing
//! call by tool name and arguments, and the agent stops it when one count reaches its limit.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

    /// Records `call`'s result and returns how many times this call (its tool and arguments) has
    /// failed since it last succeeded: 0 when it succeeded now.
    pub(crate) fn record(&mut self, call: &ToolCall, result: &ToolResult) -> u32 {
        let known = self
            .0
            .iter()
            .position(|failure| failure.tool == call.name && failure.arguments == call.arguments);
        match (known, result.is_error) {
            (Some(position), true) => {
                let failure = &mut self.0[position];
                failure.count = failure.count.saturating_add(1);
                failure.count
            }
            (None, true) => {
                self.0.push(Failure {
                    tool: call.name.clone(),
                    arguments: call.arguments.clone(),
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
        assert_eq!(failures.record(&call, &failed), 1);
        assert_eq!(failures.record(&other_arguments, &failed), 1);
        assert_eq!(failures.record(&call, &failed), 2);
        assert_eq!(failures.record(&call, &ok), 0);
        assert_eq!(failures.record(&call, &failed), 1);
        assert_eq!(failures.record(&other_arguments, &ok), 0);
        assert_eq!(
            serde_json::to_value(&failures).unwrap(),
            json!([{"tool": "search", "arguments": {"q": "x"}, "count": 1}])
        );
    }
}
