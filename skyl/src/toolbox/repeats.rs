//! A tool that must not run twice by accident is not run twice in one turn.
//!
//! Models do send the same call twice in one turn (a parallel call duplicated, a plan that lists
//! a step twice). For a search that costs a little; for a payment or an email it does harm. So
//! [`Toolbox::answer`](super::Toolbox::answer) runs the first of two identical calls to such a
//! tool and answers the second with a refusal that quotes the first call's result.
//!
//! Which tools: those whose annotations say that a repeat has an effect, and only those. That is
//! `idempotent: Some(false)`, or `destructive: Some(true)` without `idempotent: Some(true)` (a
//! tool that may destroy data and does not say that repeating is safe; MCP's default for the
//! unsaid hint is "not idempotent"). A read-only tool never is. A tool that says nothing keeps
//! running every call: MCP's defaults (destructive, not idempotent) are what a host must assume of
//! a stranger's tools before asking a user for approval, and applied here they would refuse the
//! harmless repeated read of every unannotated tool, including every `#[tool]` written before
//! annotations existed.
//!
//! Identical means the same tool and the same canonical arguments: an object encoded as a string
//! is read, a `null` that stands for an absent argument is dropped, object keys are unordered, and
//! numbers compare by value (`1` and `1.0` are one number).

use std::borrow::Cow;

use serde_json::Value;

use crate::arguments::validate::json_equal;
use crate::arguments::{as_object, has_null, without_absent_nulls};
use crate::message::{ToolCall, ToolResult};
use crate::prose;
use crate::tool::{ToolAnnotations, ToolDefinition};

/// Whether a second identical call in one turn is refused; see the module docs.
pub(crate) fn refuses_repeats(annotations: &ToolAnnotations) -> bool {
    if annotations.read_only == Some(true) {
        return false;
    }
    annotations.idempotent == Some(false)
        || (annotations.destructive == Some(true) && annotations.idempotent != Some(true))
}

/// The guarded calls of one turn so far, and the repeats found among them.
#[derive(Default)]
pub(crate) struct Repeats<'a> {
    /// Each guarded call that ran: its slot in the turn, its tool, its canonical arguments.
    seen: Vec<(usize, &'a str, Cow<'a, Value>)>,
    /// Each refused call: its slot, and the slot of the call it repeats.
    refused: Vec<(usize, usize)>,
}

impl<'a> Repeats<'a> {
    /// Records the call in `slot`; returns `true` when it repeats an earlier call of the turn and
    /// must not run.
    pub(crate) fn is_repeat(
        &mut self,
        slot: usize,
        call: &'a ToolCall,
        definition: &'a ToolDefinition,
    ) -> bool {
        if !refuses_repeats(&definition.annotations) {
            return false;
        }
        let arguments = canonical(&call.arguments, &definition.parameters);
        let earlier = self
            .seen
            .iter()
            .find(|(_, tool, seen)| *tool == definition.name && json_equal(seen, &arguments));
        match earlier {
            Some(&(first, _, _)) => {
                self.refused.push((slot, first));
                true
            }
            None => {
                self.seen.push((slot, &definition.name, arguments));
                false
            }
        }
    }

    /// Writes the refusals into the turn's results, once the first calls have theirs.
    pub(crate) fn answer(&self, results: &mut [ToolResult], calls: &[&ToolCall]) {
        for &(slot, first) in &self.refused {
            let call = calls[slot];
            let content =
                prose::repeated_call(&call.name, &calls[first].id, &results[first].content);
            results[slot] = ToolResult::error(call.id.as_str(), content);
        }
    }
}

/// The arguments as the tool reads them, for comparison.
fn canonical<'a>(arguments: &'a Value, schema: &Value) -> Cow<'a, Value> {
    let Ok(object) = as_object(arguments) else {
        return Cow::Borrowed(arguments);
    };
    if has_null(&object)
        && let Some(cleaned) = without_absent_nulls(&object, schema)
    {
        return Cow::Owned(cleaned);
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn hints(read_only: Option<bool>, destructive: Option<bool>, idempotent: Option<bool>) -> bool {
        refuses_repeats(&ToolAnnotations {
            read_only,
            destructive,
            idempotent,
            ..Default::default()
        })
    }

    #[test]
    fn only_tools_marked_as_having_repeatable_effects_refuse_repeats() {
        assert!(hints(None, None, Some(false)));
        assert!(hints(None, Some(true), None));
        assert!(hints(Some(false), Some(true), Some(false)));
        assert!(
            !hints(None, None, None),
            "nothing said: MCP's defaults do not apply"
        );
        assert!(!hints(None, Some(true), Some(true)));
        assert!(!hints(None, Some(false), None));
        assert!(
            !hints(Some(true), Some(true), Some(false)),
            "read-only wins"
        );
    }

    #[test]
    fn canonical_arguments_ignore_encoding_key_order_and_absent_nulls() {
        let schema = json!({"type": "object", "properties": {"to": {"type": "string"}, "cc": {"type": "string"}}, "required": ["to"]});
        let same =
            |a: Value, b: Value| json_equal(&canonical(&a, &schema), &canonical(&b, &schema));
        assert!(same(
            json!({"to": "ada", "cc": null}),
            json!("{\"to\": \"ada\"}")
        ));
        assert!(same(
            json!({"cc": "bob", "to": "ada"}),
            json!({"to": "ada", "cc": "bob"})
        ));
        assert!(same(
            json!({"to": "ada", "n": 1}),
            json!({"to": "ada", "n": 1.0})
        ));
        assert!(!same(
            json!({"to": "ada"}),
            json!({"to": "ada", "cc": "bob"})
        ));
        assert_eq!(
            canonical(&json!([1]), &schema),
            Cow::Owned::<Value>(json!([1]))
        );
    }
}
