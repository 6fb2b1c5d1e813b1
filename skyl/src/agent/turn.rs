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

use std::sync::Arc;
use std::time::Duration;

use crate::message::ToolCall;
use crate::model::BoxFuture;
use crate::tool::RichOutcome;

use crate::agent::asking::Desk;
use crate::agent::driver::{Driver, Halt};
use crate::agent::hooks::points::Hooks;
use crate::agent::journal::Record;
use crate::agent::run::Run;
use crate::agent::stop::Stop;

mod complete;
mod decide;
mod execute;
mod settle;

use complete::Complete;
use decide::Decide;
use execute::Execute;

/// What deciding made of a turn's calls, which the later phases add to.
#[derive(Default)]
struct Decided {
    /// The positions of the calls to run, in call order.
    to_run: Vec<usize>,
    /// The calls that got their result in this pass, with how long each ran, for
    /// `after_tool_call`.
    answered: Vec<(usize, Duration)>,
    /// The results decided here, for the journal.
    records: Vec<Record>,
    /// The calls that asked the person a question and have the reply, to go on with it.
    replied: Vec<(usize, BoxFuture<'static, RichOutcome>)>,
    /// The sub-agents' calls that go on with their saved runs, and the decisions made on them.
    handed: Vec<(usize, Run)>,
}

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
    let calls: Vec<&ToolCall> = message.tool_calls().collect();
    let mut decided = Decide {
        driver: &mut *driver,
    }
    .decide(step, &calls, turn)
    .await;
    // The calls a question paused go on with the person's reply, delivered while deciding.
    let desk = Arc::new(Desk::default());
    desk.bind(driver.ledgers.clone());
    for (position, saved) in std::mem::take(&mut decided.handed) {
        desk.hand(&calls[position].id, saved);
    }
    let mut execute = Execute {
        driver: &mut *driver,
    };
    execute
        .go_on_with_replies(step, &calls, turn, &desk, &mut decided)
        .await;
    let starts = execute.record_decided(step, &calls, &mut decided).await?;
    if !decided.to_run.is_empty() {
        execute
            .execute(step, &calls, turn, &desk, &mut decided, starts)
            .await?;
    }
    let complete = Complete {
        agent: driver.agent,
    };
    complete
        .after_tool_calls(&calls, turn, decided.answered)
        .await;
    if turn.slots.iter().any(|slot| slot.is_waiting()) {
        return Ok(Some(Stop::AwaitingApproval));
    }
    Ok(complete.complete(run).await)
}
