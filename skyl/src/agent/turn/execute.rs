//! Running a turn's calls once they are decided: the calls that asked the person a question go
//! on with the reply, the results decided so far and the intents are journaled, and the calls let
//! through run side by side, what they report and their results handed to the event callback as
//! they come and each result journaled as soon as it is known.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::message::ToolCall;
use crate::tool::CallObserver;
use crate::toolbox::{RichResult, Timed};

use crate::agent::asking::Desk;
use crate::agent::driver::{Driver, Halt};
use crate::agent::event::Event;
use crate::agent::event::reports::{Reporting, Reports};
use crate::agent::hooks::points::Hooks;
use crate::agent::journal::recording::Recording;
use crate::agent::journal::seam::Entry;
use crate::agent::journal::{Record, make_effect_key};
use crate::agent::telemetry::ToolSpans;
use crate::agent::turn::call::{Next, TurnCall};
use crate::agent::turn::slot::Turn;

/// The calls a pass runs, in call order, with what each starts with, taken off the calls.
#[derive(Default)]
struct Running<'t> {
    /// Their positions in the turn.
    to_run: Vec<usize>,
    running: Vec<&'t ToolCall>,
    /// Their effect keys, in a journaled run; empty otherwise.
    effect_keys: Vec<String>,
    /// The intent each writes durably just before it starts, when it can have effects.
    intents: Vec<Option<Entry>>,
}

impl<'t> Running<'t> {
    /// The calls of `calls` that run.
    fn take(calls: &mut [TurnCall<'t>]) -> Self {
        let mut running = Running::default();
        for turn_call in calls.iter_mut().filter(|turn_call| turn_call.runs()) {
            running.to_run.push(turn_call.position);
            running.running.push(turn_call.call);
            running.effect_keys.extend(turn_call.effect_key.take());
            running.intents.push(turn_call.intent.take());
        }
        running
    }
}

/// Running a turn's decided calls, over the run's driver: its agent's toolbox, its journal and
/// its event callback.
pub(super) struct Execute<'d, 'a, S, H> {
    pub(super) driver: &'d mut Driver<'a, S, H>,
}

impl<S: Send + Sync + 'static, H: Hooks> Execute<'_, '_, S, H> {
    /// Goes on with each of `calls` that has the person's reply (given at `desk`), and puts its
    /// result in its slot, or the slot of its next question.
    pub(super) async fn go_on_with_replies(
        &mut self,
        step: u32,
        calls: &mut [TurnCall<'_>],
        turn: &mut Turn,
        desk: &Arc<Desk>,
    ) {
        for turn_call in calls {
            let Some(rest) = turn_call.take_rest() else {
                continue;
            };
            let (position, call) = (turn_call.position, turn_call.call);
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
            turn_call.record = Some(Record::result(
                step,
                position,
                &answered_call.result,
                &answered_call.content,
                spent,
            ));
            turn_call.went_on = true;
            turn.answer(position, answered_call.result, answered_call.content);
            turn_call.took = Some(took);
        }
    }

    /// Writes the results decided so far (then those the replies gave, and the run's first
    /// record) before any call runs, and makes the effect key and intent of each call to run:
    /// before each call starts, the results known by then are written, and its intent,
    /// durably, when it can have effects.
    pub(super) async fn record_decided(
        &mut self,
        step: u32,
        calls: &mut [TurnCall<'_>],
    ) -> Result<(), Halt> {
        let agent = self.driver.agent;
        let Some(journaling) = &mut self.driver.journal else {
            return Ok(());
        };
        let (went_on, decided): (Vec<_>, Vec<_>) = calls
            .iter_mut()
            .filter_map(|turn_call| Some((turn_call.went_on, turn_call.record.take()?)))
            .partition(|(went_on, _)| *went_on);
        let records: Vec<Record> = decided
            .into_iter()
            .chain(went_on)
            .map(|(_, record)| record)
            .collect();
        journaling.append(&records, false).await?;
        for turn_call in calls.iter_mut().filter(|turn_call| turn_call.runs()) {
            let (position, call) = (turn_call.position, turn_call.call);
            turn_call.effect_key = Some(make_effect_key(&journaling.id, step, &call.id));
            // A call run again to pick up the work it handed on has its intent already.
            let effects = agent
                .toolbox
                .definition(&call.name)
                .is_some_and(|definition| !definition.annotations.is_idempotent())
                && !journaling.replay.intents.contains_key(&(step, position));
            turn_call.intent = effects.then(|| {
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
            });
        }
        Ok(())
    }

    /// Runs the calls of `calls` to run, side by side, and puts each one's result in its slot
    /// (or the slot of the question it asked at `desk`).
    pub(super) async fn execute(
        &mut self,
        step: u32,
        calls: &mut [TurnCall<'_>],
        turn: &mut Turn,
        desk: &Arc<Desk>,
    ) -> Result<(), Halt> {
        let agent = self.driver.agent;
        let Running {
            to_run,
            running,
            effect_keys,
            intents,
        } = Running::take(calls);
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
                Some(recording) => intents
                    .into_iter()
                    .map(|intent| Some(recording.gate(intent)))
                    .collect(),
                None => Vec::new(),
            };
            let turn_run = agent
                .toolbox
                .run_turn(&running, &effect_keys, gates, observer, watch);
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
        self.take_results(calls, turn, desk, results, durations);
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
    /// and how long it ran beside it, for `after_tool_call`.
    fn take_results(
        &mut self,
        calls: &mut [TurnCall<'_>],
        turn: &mut Turn,
        desk: &Desk,
        results: Vec<RichResult>,
        durations: Vec<Duration>,
    ) {
        let ran = calls.iter_mut().filter(|turn_call| turn_call.runs());
        for ((turn_call, answered_call), took) in ran.zip(results).zip(durations) {
            let (position, call) = (turn_call.position, turn_call.call);
            turn_call.next = Next::Stay;
            if let Some(asked) = desk.take(&call.id) {
                turn.slots[position] = asked;
                self.driver
                    .event(|| Event::ToolPaused { call: call.clone() });
                continue;
            }
            if let Some(spent) = desk.spent(&call.id) {
                turn.spent.add(&spent);
            }
            turn.answer(position, answered_call.result, answered_call.content);
            turn_call.took = Some(took);
        }
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
