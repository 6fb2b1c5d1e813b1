//! The turn runner: every call of one assistant turn, run concurrently in one task, with every
//! rule of a turn held (the limits, the repeat guard, the concurrency limit). [`Toolbox::answer`]
//! and the agent loop, journaled or not, both answer a turn through it, so the rules hold in both.

use std::sync::Arc;

use super::batch::{Batch, Gate, Slot, Watch};
use super::repeats::{Repeats, refuses_repeats};
use super::{RichResult, Toolbox};
use crate::executor::block_on;
use crate::message::{Message, Role, ToolCall, ToolResult};
use crate::tool::CallObserver;

impl<S: 'static> Toolbox<S> {
    /// Answers every tool call of an assistant message: the calls run concurrently (at most
    /// [`Limits::with_max_concurrent_calls`](super::Limits::with_max_concurrent_calls) at a time, when it is set), and the returned
    /// [`Role::Tool`] message holds one result per call, in call order.
    ///
    /// A result whose tool answered with [content](crate::Content) beyond text (an image, a
    /// resource, structured JSON) is followed by a [`Part::ResultContent`](crate::Part::ResultContent) holding it, which each
    /// adapter puts on its wire beside the result.
    ///
    /// A message without calls gets a tool message without parts. Calls are answered as they
    /// come, even two with the same id (which the transcript rules forbid, see
    /// [`transcript::validate_complete`](crate::transcript::validate_complete)): each gets its
    /// own result, so none is silently dropped.
    ///
    /// # Repeated calls
    ///
    /// A tool whose annotations say that running it again has an effect
    /// (`idempotent: Some(false)`, or `destructive: Some(true)` without
    /// `idempotent: Some(true)`) runs once per turn for the same arguments: a second identical
    /// call in the same message (same tool, same arguments once canonical: key order, an object
    /// sent as a string, a `null` for an absent argument and `1` against `1.0` make no difference)
    /// is not run, and its result is an error that quotes the first call's result. A tool that
    /// says nothing about itself runs every call, as does [`dispatch`](Self::dispatch), which
    /// sees one call at a time. The [agent loop](crate::agent) answers each turn by the same
    /// code, so these rules, the limits and the concurrency limit hold there too.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{DynamicTool, Message, Part, Role, ToolCall, ToolDefinition, Toolbox, tool::ToolAnnotations};
    ///
    /// let send = DynamicTool::from_fn(
    ///     ToolDefinition::new("send_email", "Sends an email.", json!({"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]})).with_annotations(ToolAnnotations::new().with_idempotent(false)),
    ///     |arguments: serde_json::Value| format!("sent to {}", arguments["to"]),
    /// );
    /// let toolbox = Toolbox::new().with(send);
    /// let turn = Message {
    ///     role: Role::Assistant,
    ///     parts: vec![
    ///         Part::ToolCall(ToolCall::new("c1", "send_email", json!({"to": "ada"}))),
    ///         Part::ToolCall(ToolCall::new("c2", "send_email", json!({"to": "ada"}))),
    ///     ],
    /// };
    /// let answer = toolbox.answer_blocking(&turn);
    /// let results: Vec<_> = answer.tool_results().collect();
    /// assert_eq!(results[0].content, "sent to \"ada\"");
    /// assert!(results[1].is_error);
    /// assert!(results[1].content.starts_with("ERROR: send_email was not run: this call repeats the call `c1`"));
    /// ```
    pub async fn answer(&self, message: &Message) -> Message {
        let calls: Vec<&ToolCall> = message.tool_calls().collect();
        let results = self.run_turn(&calls, &[], Vec::new(), None, ()).await;
        let mut parts = Vec::with_capacity(results.len());
        for answered in results {
            answered.into_parts(&mut parts);
        }
        Message {
            role: Role::Tool,
            parts,
        }
    }

    /// [`answer`](Self::answer) for code without an executor; the calls still run concurrently.
    pub fn answer_blocking(&self, message: &Message) -> Message {
        block_on(self.answer(message))
    }

    /// The turn runner: runs `calls` (the calls of one turn that are to run) concurrently in one
    /// task and returns their results in the order of `calls`, holding every rule of a turn: the
    /// limits, the repeat guard, the concurrency limit. `watch` hears of each result as soon as
    /// it is known, a refused repeat's included.
    ///
    /// [`answer`](Self::answer) and the agent loop both run a turn through it, so that the rules
    /// hold in both.
    ///
    /// `effect_keys` is empty, or holds each call's effect key (in a journaled run), which the
    /// tool reads with [`effect_key`](crate::agent::effect_key) while it runs. `gates` is empty,
    /// or holds what each call waits for before it starts (its durable intent, in a journaled
    /// run); a gate that fails stops the turn from starting more calls.
    pub(crate) async fn run_turn<'a, W: Watch>(
        &'a self,
        calls: &[&'a ToolCall],
        effect_keys: &'a [String],
        gates: Vec<Option<Gate<'a>>>,
        observer: Option<Arc<dyn CallObserver>>,
        watch: W,
    ) -> Vec<RichResult> {
        let mut slots = Vec::with_capacity(calls.len());
        let mut repeats = Repeats::default();
        for (slot, call) in calls.iter().copied().enumerate() {
            if let Some(position) = self.index.get(&call.name)
                && refuses_repeats(&self.definitions[position].annotations)
                // Arguments past the limits are refused unread, here as in `start`.
                && self.limits.refuse(&call.name, &call.id, &call.arguments).is_none()
                && repeats.is_repeat(slot, call, &self.definitions[position])
            {
                // Written once the call it repeats has its result.
                slots.push(Slot::Done(
                    ToolResult::error(call.id.as_str(), String::new()).into(),
                ));
                continue;
            }
            slots.push(Slot::Queued(call));
        }
        let (mut results, mut watch) = Batch::new(self, slots, effect_keys, gates, observer, watch)
            .run()
            .await;
        repeats.write_refusals(&mut results, calls);
        for slot in repeats.refused() {
            let mark = watch.started();
            watch.finished(slot, &results[slot], mark);
        }
        results
    }
}
