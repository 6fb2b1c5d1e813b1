//! Answering the calls of a run's last turn, in phases, each in a file of its own:
//!
//! 1. `settle`: what the journal and the saved run's decisions already say about a call, and a
//!    person's reply delivered to the call that asked for it;
//! 2. `decide`: the hooks, and a person's approvals and denials, for the calls nothing settled;
//! 3. `execute`: the calls that asked a question go on with the reply, the results decided so
//!    far and the intents are journaled, and the calls let through run side by side, what they
//!    report handed to the event callback and each result journaled as soon as it is known;
//! 4. `complete`: the hooks after each call, and once every call has its result, the tool
//!    message, the hooks after the step and the stop conditions.
//!
//! The phases step over one list, a [`TurnCall`] a call (`call.rs`), in call order: what the pass
//! does next with the call and what it made of it. Where a call stands between passes (what a
//! saved run keeps) is its `Slot` in the run's `Turn` (`slot.rs`), which answers every question
//! the phases ask of it (how far it got, what deciding does with it, whether it waits).

use std::sync::Arc;

use crate::agent::asking::Desk;
use crate::agent::driver::{Driver, Halt};
use crate::agent::hooks::points::Hooks;
use crate::agent::run::Run;
use crate::agent::stop::Stop;

mod call;
mod complete;
mod decide;
mod execute;
mod settle;
pub(crate) mod slot;

use call::{Next, TurnCall};
use complete::Complete;
use decide::Decide;
use execute::Execute;

/// Answers the calls of the run's last turn, in `driver`: the hooks decide about each new call,
/// the calls let through run concurrently, and once every call has its result the tool message
/// is appended and the stop conditions are checked. Returns why the run stops, if it does.
///
/// In a journaled run, a call the journal settles is not asked about again; the results of
/// calls decided here are recorded before any call runs, each call that can have effects
/// records its intent durably just before it starts, and each result of a call that runs is
/// recorded as soon as it is known.
pub(super) async fn answer_turn<S: Send + Sync + 'static, H: Hooks>(
    driver: &mut Driver<'_, S, H>,
    run: &mut Run,
) -> Result<Option<Stop>, Halt> {
    let step = run.steps;
    let (Some(turn), Some(message)) = (run.turn.as_mut(), run.transcript.last()) else {
        return Ok(None);
    };
    let mut calls: Vec<TurnCall<'_>> = message
        .tool_calls()
        .enumerate()
        .map(|(position, call)| TurnCall::new(position, call))
        .collect();
    Decide {
        driver: &mut *driver,
    }
    .decide(step, &mut calls, turn)
    .await;
    // The calls a question paused go on with the person's reply, delivered while deciding.
    let desk = Arc::new(Desk::default());
    desk.bind(driver.ledgers.clone());
    for turn_call in &mut calls {
        if let Next::Run(saved) = &mut turn_call.next
            && let Some(saved) = saved.take()
        {
            desk.hand(&turn_call.call.id, *saved);
        }
    }
    let mut execute = Execute {
        driver: &mut *driver,
    };
    execute
        .go_on_with_replies(step, &mut calls, turn, &desk)
        .await;
    execute.record_decided(step, &mut calls).await?;
    if calls.iter().any(TurnCall::runs) {
        execute.execute(step, &mut calls, turn, &desk).await?;
    }
    let complete = Complete {
        agent: driver.agent,
    };
    complete.after_tool_calls(&calls, turn).await;
    if turn.is_waiting() {
        return Ok(Some(Stop::AwaitingApproval));
    }
    Ok(complete.complete(run).await)
}
