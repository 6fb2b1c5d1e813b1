//! What the journal and the decisions of a saved run settle about a call before any hook is
//! asked: its recorded result, whether a call cut off runs again, a person's decision, or the
//! rest of a call that asked the person a question.

use crate::content::Content;
use crate::message::{ToolCall, ToolResult};
use crate::prose;
use crate::tool::RichOutcome;

use crate::agent::asking;
use crate::agent::journal::journaling::Journaling;
use crate::agent::question::{Question, Reply};
use crate::agent::run::Spent;
use crate::agent::turn::slot::{Slot, Stage};
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
    /// What is settled about the call at `position` of step `step`, which stands at `slot` in
    /// the turn, before any hook is asked. Its two sources of truth, the journal's replay (what
    /// this run did) and the saved run's decisions (what a person decided since it paused), are
    /// read in this order, the first that says something settling the call:
    ///
    /// 1. the turn's own slot: a reply given to the call's question goes on with it (delivered
    ///    here, before any call is awaited: a server may be waiting on one call's answer to
    ///    finish another), and a slot that no longer waits (decided, asked, answered) is the
    ///    deciding phase's, not settled here;
    /// 2. the journal's result of the call: it finished, whatever was decided since;
    /// 3. the saved run's decision for a call that was started (it asked a question, or its
    ///    sub-agent waits): it waits for, or goes on with, the reply, rather than being answered
    ///    as unknown by its intent below;
    /// 4. the journal's intent of the call: started and never finished, it runs again or is
    ///    answered as outcome-unknown;
    /// 5. the saved run's decision for a call not started: approved, granted or denied.
    pub(super) fn settle(
        &self,
        step: u32,
        position: usize,
        call: &ToolCall,
        slot: &Slot,
    ) -> Option<Settled> {
        if let Some((question, reply)) = slot.reply() {
            return Some(self.replied((step, position), call, question, reply));
        }
        if slot.stage() != Stage::Undecided {
            return None;
        }
        let journaling = self.journal?;
        if let Some((result, content, spent)) = journaling.replay.results.get(&(step, position)) {
            return Some(Settled::Replayed(
                result.clone(),
                content.clone(),
                spent.clone(),
            ));
        }
        let decision = match &journaling.decisions {
            Some((decided_step, slots)) if *decided_step == step => slots.get(position),
            _ => None,
        };
        if let Some(slot) = decision.filter(|slot| slot.stage() == Stage::Started) {
            return Some(match slot.reply() {
                Some((question, reply)) => self.replied((step, position), call, question, reply),
                None => Settled::Decided(slot.clone()),
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
        decision
            .filter(|slot| slot.stage() == Stage::Decided)
            .map(|slot| Settled::Decided(slot.clone()))
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
