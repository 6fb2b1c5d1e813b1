//! A turn's end: the hooks hear of each call answered, and once every call has its result the
//! tool message is appended, the hooks see the step, and the breaker and the stop conditions
//! say whether the run goes on.

use crate::agent::agent::Agent;
use crate::agent::breaker::Failures;
use crate::agent::hooks::points::Hooks;
use crate::agent::run::Run;
use crate::agent::step::Step;
use crate::agent::stop::Stop;
use crate::agent::turn::call::TurnCall;
use crate::agent::turn::slot::Turn;

/// A turn's end, over the run's agent: its hooks, its breaker and its stop conditions.
pub(super) struct Complete<'d, S, H> {
    pub(super) agent: &'d Agent<S, H>,
}

impl<S: Send + Sync + 'static, H: Hooks> Complete<'_, S, H> {
    /// Tells the hooks of each of `calls` answered in this pass, in call order, that it has its
    /// result.
    pub(super) fn after_tool_calls<'c>(
        &'c self,
        calls: &[TurnCall<'c>],
        turn: &'c Turn,
    ) -> impl Future<Output = ()> + Send + 'c {
        // Taken out before the future: a call that goes on with a reply holds a future no other
        // thread may share, so the future holds no call.
        let answered: Vec<_> = calls
            .iter()
            .filter_map(|turn_call| Some((turn_call.position, turn_call.call, turn_call.took?)))
            .collect();
        async move {
            for (position, call, took) in answered {
                if let Some(result) = turn.slots[position].result() {
                    self.agent.hooks.after_tool_call(call, result, took).await;
                }
            }
        }
    }

    /// Appends the tool message of `run`'s turn, whose every call has its result, and says
    /// whether the run stops after the step.
    pub(super) async fn complete(&self, run: &mut Run) -> Option<Stop> {
        let agent = self.agent;
        let (answer, spent, tool_message) = run.turn.take()?.into_tool_message();
        run.sub_agents.add(&spent);
        run.transcript.push(tool_message);
        let assistant = run.transcript.len() - 2;
        let priced = (agent.price_of(&answer), run.cost);
        let step = Step::new(
            run.steps,
            &run.transcript,
            assistant,
            &answer,
            &run.usage,
            priced,
        );
        agent.hooks.after_step(&step).await;
        self.check_stops(&mut run.failures, &step)
    }
    /// Whether the run stops after `step`, whose calls all have their results: the breaker
    /// first, then the conditions in the order they were added.
    fn check_stops(&self, failures: &mut Failures, step: &Step<'_>) -> Option<Stop> {
        let mut tripped = None;
        if let Some(results) = step.results() {
            for (call, result) in step.tool_calls().zip(results.tool_results()) {
                let schema = self
                    .agent
                    .toolbox
                    .definition(&call.name)
                    .map(|definition| &definition.parameters);
                let count = failures.record(call, result, schema);
                if tripped.is_none() && self.agent.breaker > 0 && count >= self.agent.breaker {
                    tripped = Some(Stop::Breaker {
                        tool: call.name.clone(),
                        failures: count,
                    });
                }
            }
        }
        tripped.or_else(|| {
            self.agent
                .stop_when
                .iter()
                .find_map(|condition| condition.check(step))
        })
    }
}
