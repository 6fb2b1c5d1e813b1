//! One call of a turn as the phases of one pass carry it ([`TurnCall`]), and what the pass does
//! with it next ([`Next`]).

use std::time::Duration;

use crate::message::ToolCall;
use crate::model::BoxFuture;
use crate::tool::RichOutcome;

use crate::agent::journal::Record;
use crate::agent::journal::seam::Entry;
use crate::agent::run::Run;

/// One call of a turn as the phases of one pass carry it, in call order: which call it is, what
/// the pass does with it next, and what the pass made of it. Where the call stands between
/// passes (what a saved run keeps) is its slot in the turn; this is what the pass keeps beside it.
pub(super) struct TurnCall<'t> {
    /// Its place in the assistant message, and its slot's in the turn.
    pub(super) position: usize,
    pub(super) call: &'t ToolCall,
    /// What the pass does with it after deciding.
    pub(super) next: Next,
    /// The record of the result this pass decided for it, or its reply gave it, for the journal.
    pub(super) record: Option<Record>,
    /// Whether it went on with a person's reply in this pass (its record is written after the
    /// ones decided).
    pub(super) went_on: bool,
    /// How long it ran, once it has its result from this pass, for `after_tool_call`.
    pub(super) took: Option<Duration>,
    /// Its effect key and its intent, written durably just before it starts when it can have
    /// effects: made for a call to run in a journaled run.
    pub(super) effect_key: Option<String>,
    pub(super) intent: Option<Entry>,
}

/// What a pass does with a call once it is decided.
pub(super) enum Next {
    /// Nothing: it has its result, or waits.
    Stay,
    /// It runs; a sub-agent's call hands its sub-agent the saved run it goes on with.
    Run(Option<Box<Run>>),
    /// It asked the person a question and goes on with the reply: the rest of the call.
    GoOn(BoxFuture<'static, RichOutcome>),
}

impl<'t> TurnCall<'t> {
    /// The call at `position`, nothing decided yet.
    pub(super) fn new(position: usize, call: &'t ToolCall) -> Self {
        TurnCall {
            position,
            call,
            next: Next::Stay,
            record: None,
            went_on: false,
            took: None,
            effect_key: None,
            intent: None,
        }
    }

    /// The rest of the call, when it goes on with a person's reply; it stays then.
    pub(super) fn take_rest(&mut self) -> Option<BoxFuture<'static, RichOutcome>> {
        match std::mem::replace(&mut self.next, Next::Stay) {
            Next::GoOn(rest) => Some(rest),
            next => {
                self.next = next;
                None
            }
        }
    }

    /// Whether it runs in this pass.
    pub(super) fn runs(&self) -> bool {
        matches!(self.next, Next::Run(_))
    }
}
