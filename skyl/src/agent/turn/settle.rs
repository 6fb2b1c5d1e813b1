//! What the journal and the decisions of a saved run settle about a call before any hook is
//! asked: its recorded result, whether a call cut off runs again, a person's decision, or the
//! rest of a call that asked the person a question.

use crate::content::Content;
use crate::message::{ToolCall, ToolResult};
use crate::prose;
use crate::tool::RichOutcome;

use crate::agent::approval::Slot;
use crate::agent::asking::{self, Question, Reply};
use crate::agent::journal::journaling::Journaling;
use crate::agent::run::Spent;
use crate::model::BoxFuture;
use crate::toolbox::Toolbox;

/// What the journal, or the decisions of a saved run, settle about a call.
pub(super) enum Settled {
    /// Its recorded result, the content beside it, and what the run of its sub-agent used.
    Replayed(ToolResult, Vec<Content>, Option<Spent>),
    /// It was started and never finished, and its tool is read-only or idempotent: it runs again.
    Rerun,
    /// It was started and never finished, and running it again could repeat its effect.
    Unknown(ToolResult),
    /// A person's decision about it, from the saved run.
    Decided(Slot),
    /// It asked the person a question, and goes on with their reply: the rest of the call.
    Resumed(BoxFuture<'static, RichOutcome>),
}

/// What settling reads: the run's journal (none in a run without one) and its toolbox.
pub(super) struct Settle<'d, S> {
    pub(super) journal: Option<&'d Journaling<'d>>,
    pub(super) toolbox: &'d Toolbox<S>,
}

impl<S: Send + Sync + 'static> Settle<'_, S> {
    /// What is settled about the call at `position` of step `step`, which stands at `slot`.
    pub(super) fn settle(
        &self,
        step: u32,
        position: usize,
        call: &ToolCall,
        slot: &Slot,
    ) -> Option<Settled> {
        match slot {
            Slot::New | Slot::Awaiting | Slot::Paused { .. } => self.settled(step, position, call),
            // The reply is delivered here, before any call is awaited: a server may be
            // waiting on one call's answer to finish another.
            Slot::Replied { question, reply } => {
                Some(self.replied((step, position), call, question, reply))
            }
            _ => None,
        }
    }

    /// What the journal or the saved run's decisions settle about the call at `position` of
    /// step `step`, before any hook is asked: its result, or a decision.
    fn settled(&self, step: u32, position: usize, call: &ToolCall) -> Option<Settled> {
        let journaling = self.journal?;
        if let Some((result, content, spent)) = journaling.replay.results.get(&(step, position)) {
            return Some(Settled::Replayed(
                result.clone(),
                content.clone(),
                spent.clone(),
            ));
        }
        // A call that asked the person a question was started, and its intent may be recorded: it
        // waits for, or goes on with, the reply rather than being answered as unknown.
        if let Some((decided_step, slots)) = &journaling.decisions
            && *decided_step == step
            && let Some(slot @ (Slot::Asking(_) | Slot::Replied { .. } | Slot::Nested(_))) =
                slots.get(position)
        {
            return Some(match slot {
                Slot::Replied { question, reply } => {
                    self.replied((step, position), call, question, reply)
                }
                _ => Settled::Decided(slot.clone()),
            });
        }
        if journaling.replay.intents.contains_key(&(step, position)) {
            return Some(if self.reruns(step, position, call) {
                Settled::Rerun
            } else {
                Settled::Unknown(ToolResult::error(
                    call.id.as_str(),
                    prose::outcome_unknown(&call.name),
                ))
            });
        }
        let (decided_step, slots) = journaling.decisions.as_ref()?;
        if *decided_step != step {
            return None;
        }
        match slots.get(position)? {
            slot @ (Slot::Approved | Slot::Granted(_) | Slot::Denied(_)) => {
                Some(Settled::Decided(slot.clone()))
            }
            _ => None,
        }
    }

    /// What becomes of a call that asked the person `question`, now that they gave `reply`: it
    /// goes on with the reply when this process holds it, or when its question carries what
    /// continues it here (a 2026-07-28 server's request state); otherwise it is lost, and runs
    /// again if that repeats nothing, or is answered as outcome-unknown.
    fn replied(
        &self,
        (step, position): (u32, usize),
        call: &ToolCall,
        question: &Question,
        reply: &Reply,
    ) -> Settled {
        if let Some(rest) = asking::resume(question, reply.clone()) {
            return Settled::Resumed(rest);
        }
        // The question's server keeps nothing between rounds (MCP 2026-07-28): the call's tool
        // goes on with it here, from what the saved run kept.
        if let Some(continuation) = question.continuation()
            && let Some(tool) = self.toolbox.tool(&call.name)
            && let Ok(reply) = serde_json::to_value(reply)
            && let Some(rest) = tool.resume_elsewhere(continuation, reply, call.id.as_str())
        {
            return Settled::Resumed(rest);
        }
        if self.reruns(step, position, call) {
            return Settled::Rerun;
        }
        Settled::Unknown(ToolResult::error(
            call.id.as_str(),
            prose::question_lost(&call.name, question.from()),
        ))
    }

    /// Whether `call` (at `position` of step `step`), started and lost before it finished, runs
    /// again: its tool is read-only or idempotent, as the build that recorded its intent
    /// promised (a rebuild cannot change a cut-off call's fate), or as the toolbox says when
    /// no intent was recorded.
    fn reruns(&self, step: u32, position: usize, call: &ToolCall) -> bool {
        if let Some(intent) = self
            .journal
            .and_then(|journaling| journaling.replay.intents.get(&(step, position)))
        {
            return intent.idempotent || intent.handed;
        }
        self.toolbox
            .definition(&call.name)
            .is_some_and(|definition| definition.annotations.is_idempotent())
    }
}
