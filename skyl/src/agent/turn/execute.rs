//! Running a turn's calls once they are decided: the calls that asked the person a question go
//! on with the reply, the results decided so far and the intents are journaled, and the calls let
//! through run side by side, what they report and their results handed to the event callback as
//! they come and each result journaled as soon as it is known.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::message::ToolCall;
use crate::tool::CallObserver;
use crate::toolbox::{RichResult, Timed};

use crate::agent::approval::Turn;
use crate::agent::asking::Desk;
use crate::agent::driver::{Driver, Halt};
use crate::agent::event::Event;
use crate::agent::event::reports::{Reporting, Reports};
use crate::agent::hooks::points::Hooks;
use crate::agent::journal::recording::Recording;
use crate::agent::journal::seam::Entry;
use crate::agent::journal::{Record, make_effect_key};
use crate::agent::telemetry::ToolSpans;
use crate::agent::turn::Decided;

/// What a journaled turn's calls to run start with: each one's effect key, and the intent
/// written durably just before it starts, for a call that can have effects. Both empty in a run
/// without a journal.
#[derive(Default)]
pub(super) struct Starts {
    effect_keys: Vec<String>,
    intents: Vec<Option<Entry>>,
}

/// Running a turn's decided calls, over the run's driver: its agent's toolbox, its journal and
/// its event callback.
pub(super) struct Execute<'d, 'a, S, H> {
    pub(super) driver: &'d mut Driver<'a, S, H>,
}

impl<S: Send + Sync + 'static, H: Hooks> Execute<'_, '_, S, H> {
    /// Goes on with each call of `decided` that has the person's reply (given at `desk`), and
    /// puts its result in its slot, or the slot of its next question.
    pub(super) async fn go_on_with_replies(
        &mut self,
        step: u32,
        calls: &[&ToolCall],
        turn: &mut Turn,
        desk: &Arc<Desk>,
        decided: &mut Decided,
    ) {
        for (position, rest) in std::mem::take(&mut decided.replied) {
            let call = calls[position];
            let started = Instant::now();
            let outcome = desk.serve(rest).await;
            if let Some(asked) = desk.take(&call.id) {
                turn.slots[position] = asked;
                self.driver
                    .event(|| Event::ToolPaused { call: call.clone() });
                continue;
            }
            let took = started.elapsed();
            let answered_call = self.driver.agent.toolbox.finished(call, outcome);
            self.driver.event(|| finished(call, &answered_call, took));
            let spent = desk.spent(&call.id);
            if let Some(spent) = &spent {
                turn.spent.add(spent);
            }
            decided.records.push(Record::result(
                step,
                position,
                &answered_call.result,
                &answered_call.content,
                spent,
            ));
            turn.answer(position, answered_call.result, answered_call.content);
            decided.answered.push((position, took));
        }
    }

    /// Writes the results decided so far (and the run's first record) before any call runs, and
    /// makes the effect key and intent of each call to run: before each call starts, the
    /// results known by then are written, and its intent, durably, when it can have effects.
    pub(super) async fn record_decided(
        &mut self,
        step: u32,
        calls: &[&ToolCall],
        decided: &mut Decided,
    ) -> Result<Starts, Halt> {
        let agent = self.driver.agent;
        let mut starts = Starts::default();
        let Some(journaling) = &mut self.driver.journal else {
            return Ok(starts);
        };
        journaling
            .append(&std::mem::take(&mut decided.records), false)
            .await?;
        for &position in &decided.to_run {
            let call = calls[position];
            starts
                .effect_keys
                .push(make_effect_key(&journaling.id, step, &call.id));
            // A call run again to pick up the work it handed on has its intent already.
            let effects = agent
                .toolbox
                .definition(&call.name)
                .is_some_and(|definition| !definition.annotations.is_idempotent())
                && !journaling.replay.intents.contains_key(&(step, position));
            starts.intents.push(effects.then(|| {
                Record::Intent {
                    step,
                    call: position,
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    // What this build promises, which decides the call's fate if it is cut off.
                    idempotent: Some(false),
                    definition: Some(agent.definition_fingerprint(&call.name)),
                }
                .entry()
            }));
        }
        Ok(starts)
    }

    /// Runs the calls of `decided` to run, side by side, and puts each one's result in its slot
    /// (or the slot of the question it asked at `desk`).
    pub(super) async fn execute(
        &mut self,
        step: u32,
        calls: &[&ToolCall],
        turn: &mut Turn,
        desk: &Arc<Desk>,
        decided: &mut Decided,
        starts: Starts,
    ) -> Result<(), Halt> {
        let agent = self.driver.agent;
        let to_run = &decided.to_run;
        let running: Vec<&ToolCall> = to_run.iter().map(|&position| calls[position]).collect();
        let mut spans = ToolSpans::start(&running);
        for (k, call) in running.iter().enumerate() {
            if let Some(span) = spans.call_span(k) {
                desk.mark_span(&call.id, span);
            }
        }
        let mut durations = vec![Duration::ZERO; running.len()];
        let reports = self.announce(&running, desk);
        let events = &mut self.driver.events;
        // In a journaled run, each result is queued as soon as it is known and written before
        // the next call starts, or sooner (see `Recording`).
        let recording = self
            .driver
            .journal
            .as_deref()
            .map(|journaling| Recording::new(journaling.journal, &journaling.id));
        let watch = Timed(|k: usize, answered: &RichResult, took| {
            let result = &answered.result;
            durations[k] = took;
            spans.finish(k, result);
            // A call that asked a question has no result yet, only its placeholder.
            if desk.asked(&running[k].id) {
                return;
            }
            if let Some(recording) = &recording {
                let spent = desk.spent(&running[k].id);
                recording.push(
                    Record::result(step, to_run[k], &answered.result, &answered.content, spent)
                        .entry(),
                );
            }
            if let Some(reports) = &reports {
                reports.push(finished(running[k], answered, took));
            }
        });
        let observer = reports
            .clone()
            .map(|reports| reports as Arc<dyn CallObserver>);
        let results = {
            // Boxed: the turn's calls in flight are the largest part of the run's state, and
            // the run's future is smaller without them (one allocation per turn with calls).
            let gates = match &recording {
                Some(recording) => starts
                    .intents
                    .into_iter()
                    .map(|intent| Some(recording.gate(intent)))
                    .collect(),
                None => Vec::new(),
            };
            let turn_run =
                agent
                    .toolbox
                    .run_turn(&running, &starts.effect_keys, gates, observer, watch);
            let mut turn_run = std::pin::pin!(Reporting {
                work: desk.serve(Box::pin(turn_run)),
                reports: reports.as_deref(),
                events: events.as_deref_mut(),
            });
            match &recording {
                Some(recording) => recording.record_while(turn_run.as_mut()).await?,
                None => turn_run.await,
            }
        };
        if let Some(error) = recording.as_ref().and_then(Recording::refused) {
            return Err(error.into());
        }
        if let Some(error) = desk.halted() {
            return Err(error.into());
        }
        self.take_results(calls, turn, desk, decided, results, durations);
        Ok(())
    }

    /// Tells the event callback, if the run has one, that the calls of `running` start, and
    /// makes the queue their reports and results go through on their way to it (the desk's
    /// reports too).
    fn announce(&mut self, running: &[&ToolCall], desk: &Desk) -> Option<Arc<Reports>> {
        let events = self.driver.events.as_mut()?;
        for call in running {
            events(Event::ToolStarted {
                call: (*call).clone(),
            });
        }
        // What the calls report and their results go through one queue, emptied into the
        // callback each time the turn is polled: the tools report from any thread, and a
        // call's reports come before its result.
        let reports = Arc::new(Reports::default());
        let queued = Arc::clone(&reports);
        desk.forward(Arc::new(move |event| queued.push(event)));
        Some(reports)
    }

    /// Puts the result of each call that ran in its slot, or the question it asked at `desk`,
    /// and adds the answered calls to the ones `after_tool_call` hears of, in call order.
    fn take_results(
        &mut self,
        calls: &[&ToolCall],
        turn: &mut Turn,
        desk: &Desk,
        decided: &mut Decided,
        results: Vec<RichResult>,
        durations: Vec<Duration>,
    ) {
        for ((&position, answered_call), took) in decided.to_run.iter().zip(results).zip(durations)
        {
            if let Some(asked) = desk.take(&calls[position].id) {
                turn.slots[position] = asked;
                self.driver.event(|| Event::ToolPaused {
                    call: calls[position].clone(),
                });
                continue;
            }
            if let Some(spent) = desk.spent(&calls[position].id) {
                turn.spent.add(&spent);
            }
            turn.answer(position, answered_call.result, answered_call.content);
            decided.answered.push((position, took));
        }
        decided
            .answered
            .sort_unstable_by_key(|&(position, _)| position);
    }
}

/// The event of `call` finishing with `answered` after running for `took`.
fn finished(call: &ToolCall, answered: &RichResult, took: Duration) -> Event {
    Event::ToolFinished {
        name: call.name.clone(),
        result: answered.result.clone(),
        duration: took,
        content: Arc::from(answered.content.as_slice()),
    }
}
