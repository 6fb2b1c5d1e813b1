//! A tool that must not run twice by accident is not run twice in one turn.
//!
//! Models do send the same call twice in one turn (a parallel call duplicated, a plan that lists
//! a step twice). For a search that costs a little; for a payment or an email it does harm. So
//! [`Toolbox::answer`](super::Toolbox::answer), and the agent loop which answers a turn by the
//! same code, run the first of two identical calls to such a tool and answer the second with a
//! refusal that quotes the first call's result.
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
//! Identical means the same tool and the same canonical arguments, as
//! [`canonical`](crate::arguments::canonical) defines them for the breaker too.

use std::borrow::Cow;

use serde_json::Value;

use super::RichResult;
use crate::arguments::canonical::{canonical, same_arguments};
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
        let arguments = canonical(&call.arguments, Some(&definition.parameters));
        let earlier = self
            .seen
            .iter()
            .find(|(_, tool, seen)| *tool == definition.name && same_arguments(seen, &arguments));
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

    /// The slots of the refused calls.
    pub(crate) fn refused(&self) -> impl Iterator<Item = usize> + '_ {
        self.refused.iter().map(|&(slot, _)| slot)
    }

    /// Writes the refusals into the turn's results, once the first calls have theirs.
    pub(crate) fn write_refusals(&self, results: &mut [RichResult], calls: &[&ToolCall]) {
        for &(slot, first) in &self.refused {
            let call = calls[slot];
            let content =
                prose::repeated_call(&call.name, &calls[first].id, &results[first].result.content);
            results[slot] = ToolResult::error(call.id.as_str(), content).into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
