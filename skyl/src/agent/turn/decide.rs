//! Deciding about each call of a turn, in call order, once the journal has settled what it
//! could: a new call is the hooks' to run, deny, answer or pause; a call that waited is run or
//! answered as the person decided; a denied or unknown call gets its result here.

use std::time::Duration;

use crate::arguments::canonical::arguments_fingerprint;
use crate::message::{ToolCall, ToolResult};
use crate::prose;
use crate::tool::ToolOutcome;

use crate::agent::agent::Agent;
use crate::agent::driver::Driver;
use crate::agent::event::{AnsweredBy, Event};
use crate::agent::hooks::points::{Decision, Hooks};
use crate::agent::journal::Record;
use crate::agent::ledger::Ledger;
use crate::agent::turn::call::{Next, TurnCall};
use crate::agent::turn::settle::{Settle, Settled};
use crate::agent::turn::slot::{Slot, Turn, Verdict, unix_now};

/// Deciding about a turn's calls, over the run's driver: its agent's hooks, its journal, its
/// budgets and its event callback.
pub(super) struct Decide<'d, 'a, S, H> {
    pub(super) driver: &'d mut Driver<'a, S, H>,
}

impl<S: Send + Sync + 'static, H: Hooks> Decide<'_, '_, S, H> {
    /// Decides about each of `calls`, the calls of `turn`, the turn of step `step`: the calls
    /// answered here get their result in their slot (and their record), the calls that wait
    /// their waiting slot, and the rest are to run or go on with a reply.
    pub(super) async fn decide(&mut self, step: u32, calls: &mut [TurnCall<'_>], turn: &mut Turn) {
        for turn_call in calls {
            let (position, call) = (turn_call.position, turn_call.call);
            let slot = turn.slots[position].clone();
            let settle = Settle {
                journal: self.driver.journal.as_deref(),
                toolbox: &self.driver.agent.toolbox,
            };
            let answer = match settle.settle(step, position, call, &slot) {
                Some(Settled::Replayed(result, content, spent)) => {
                    if let Some(spent) = spent {
                        // Its sub-agent's run is not run again: what it used counts here.
                        let cost = spent.cost.unwrap_or_default();
                        Ledger::count_spent(&self.driver.ledgers, &spent.usage, cost);
                        turn.spent.add(&spent);
                    }
                    self.driver.event(|| Event::ToolAnswered {
                        name: call.name.clone(),
                        result: result.clone(),
                        by: AnsweredBy::Journal,
                    });
                    turn.answer(position, result, content);
                    continue;
                }
                Some(Settled::Rerun) => {
                    turn_call.next = Next::Run(None);
                    continue;
                }
                Some(Settled::Unknown(result)) => Some((result, AnsweredBy::OutcomeUnknown)),
                Some(Settled::Resumed(rest)) => {
                    turn_call.next = Next::GoOn(rest);
                    continue;
                }
                Some(Settled::Decided(decision)) => {
                    self.decide_slot(turn_call, decision, turn).await
                }
                None => self.decide_slot(turn_call, slot, turn).await,
            };
            let Some((result, by)) = answer else {
                continue;
            };
            self.driver.event(|| Event::ToolAnswered {
                name: call.name.clone(),
                result: result.clone(),
                by,
            });
            turn_call.record = Some(Record::result(step, position, &result, &[], None));
            turn.answer(position, result, Vec::new());
            turn_call.took = Some(Duration::ZERO);
        }
    }

    /// Decides about the call at `position`, which stands at `slot` once the journal has said
    /// what it knows: returns its result and who gave it when it is answered here; otherwise it
    /// is to run, or its slot says what it waits for.
    async fn decide_slot(
        &mut self,
        turn_call: &mut TurnCall<'_>,
        slot: Slot,
        turn: &mut Turn,
    ) -> Option<(ToolResult, AnsweredBy)> {
        let (position, call) = (turn_call.position, turn_call.call);
        let agent = self.driver.agent;
        match slot.verdict() {
            Verdict::AskHooks => {
                let proposed = proposed(agent, call);
                match agent.hooks.before_tool_call(call, proposed).await {
                    Decision::Run => turn_call.next = Next::Run(None),
                    Decision::Deny(reason) => {
                        return Some((denied(call, &reason), AnsweredBy::Hook));
                    }
                    Decision::Answer(outcome) => {
                        return Some((answered_with(call, outcome), AnsweredBy::Hook));
                    }
                    Decision::Pause => self.pause(position, call, turn),
                }
            }
            Verdict::Run(None) => turn_call.next = Next::Run(None),
            Verdict::Run(Some(approval)) => {
                let definition = agent.definition_fingerprint(&call.name);
                let arguments = arguments_fingerprint(call);
                let id = self
                    .driver
                    .journal
                    .as_ref()
                    .map(|journaling| journaling.id.as_str());
                if approval.holds(call, id, &arguments, &definition, unix_now()) {
                    turn_call.next = Next::Run(None);
                } else {
                    // Moved, changed or expired: ask again.
                    self.pause(position, call, turn);
                }
            }
            Verdict::Deny(reason) => return Some((denied(call, &reason), AnsweredBy::Person)),
            Verdict::RunNested(saved) => {
                turn_call.next = Next::Run(Some(saved));
            }
            Verdict::Stay(slot) => turn.slots[position] = slot,
        }
        None
    }

    /// Makes the call at `position` wait for a person's decision.
    fn pause(&mut self, position: usize, call: &ToolCall, turn: &mut Turn) {
        turn.slots[position] = paused(self.driver.agent, call);
        self.driver
            .event(|| Event::ToolPaused { call: call.clone() });
    }
}

/// The slot of a call of `agent` that waits for a person's decision.
fn paused<S: Send + Sync + 'static, H: Hooks>(agent: &Agent<S, H>, call: &ToolCall) -> Slot {
    Slot::paused(agent.definition_fingerprint(&call.name))
}

/// What happens to `call` unless a hook of `agent` decides otherwise.
fn proposed<S: Send + Sync + 'static, H>(agent: &Agent<S, H>, call: &ToolCall) -> Decision {
    let destructive = agent.approve_destructive
        && agent.toolbox.definitions().iter().any(|definition| {
            definition.name == call.name && definition.annotations.is_destructive()
        });
    if destructive {
        Decision::Pause
    } else {
        Decision::Run
    }
}

/// The result of a call the application refused.
fn denied(call: &ToolCall, reason: &str) -> ToolResult {
    ToolResult::error(call.id.as_str(), prose::denied(&call.name, reason))
}

/// The result of a call a hook answered in the tool's place, worded as the tool's own would be.
fn answered_with(call: &ToolCall, outcome: ToolOutcome) -> ToolResult {
    match outcome {
        Ok(content) => ToolResult::success(call.id.as_str(), content),
        Err(failure) => ToolResult::error(call.id.as_str(), prose::failed(&call.name, &failure)),
    }
}
