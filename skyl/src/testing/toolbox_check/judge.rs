//! Reading the toolbox's answers: whether each call got one well-formed result, what became of
//! each tool's valid calls, and which tools no valid call ran.

use std::collections::HashMap;

use serde_json::Value;

use super::plan::{Plan, Planned, Turn, mentions_key};
use super::{Case, CheckFailure, ToolboxReport, Untested};
use crate::message::{Message, Part, Role, ToolResult};
use crate::prose::{self, Ended};
use crate::toolbox::Toolbox;

/// How a check runs the toolbox: what a tool that needs a runtime is told to do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Runner {
    /// [`ToolboxCheck::run`](super::ToolboxCheck::run), on this thread without a runtime.
    Blocking,
    /// [`ToolboxCheck::run_async`](super::ToolboxCheck::run_async), on the caller's executor.
    Async,
}

/// What became of one tool's calls with valid arguments.
#[derive(Default)]
struct Tally {
    valid: usize,
    /// The tool ran and answered: its output, or a failure of its own.
    ran: usize,
    refused: usize,
    crashed: usize,
    wrong_runtime: usize,
    timed_out: usize,
    not_run: usize,
}

/// Whether `answer` is a tool message of results, each followed by the content of its own call
/// when it has content, as the toolbox writes it and every adapter reads it.
fn is_results_only(answer: &Message) -> bool {
    let mut previous: Option<&Part> = None;
    answer.role == Role::Tool
        && answer.parts.iter().all(|part| {
            let fits = match part {
                Part::ToolResult(_) => true,
                Part::ResultContent(content) => matches!(
                    previous,
                    Some(Part::ToolResult(result)) if result.call_id == content.call_id
                ),
                _ => false,
            };
            previous = Some(part);
            fits
        })
}

/// Reads the toolbox's answers into a report, turn by turn.
pub(super) struct Judge {
    runner: Runner,
    report: ToolboxReport,
    tallies: HashMap<String, Tally>,
}

impl Judge {
    pub(super) fn new(plan: &Plan, runner: Runner) -> Self {
        Judge {
            runner,
            report: ToolboxReport {
                calls: plan.calls,
                not_required: plan.not_required,
                failures: Vec::new(),
                untested: Vec::new(),
                notes: plan.notes.clone(),
            },
            tallies: HashMap::new(),
        }
    }

    /// Checks the toolbox's answer to `turn` (`None` when answering it panicked).
    pub(super) fn turn(&mut self, turn: &Turn, answer: Option<Message>) {
        let report = &mut self.report;
        let fail = |report: &mut ToolboxReport, planned: &Planned, problem: String, result| {
            report.failures.push(CheckFailure {
                tool: planned.call.name.clone(),
                case: planned.case,
                arguments: planned.call.arguments.clone(),
                problem,
                result,
            });
        };
        let Some(answer) = answer else {
            for planned in &turn.calls {
                fail(
                    report,
                    planned,
                    "a panic escaped Toolbox::answer, so no call of its turn got a result".into(),
                    None,
                );
            }
            return;
        };
        let results: Vec<&ToolResult> = answer.tool_results().collect();
        if !is_results_only(&answer) {
            for planned in &turn.calls {
                fail(
                    report,
                    planned,
                    "the answer to its turn is not a tool message of results only, each with its content right after it".into(),
                    None,
                );
            }
            return;
        }
        for (position, planned) in turn.calls.iter().enumerate() {
            let Some(&result) = results.get(position) else {
                fail(
                    report,
                    planned,
                    format!(
                        "no result: {} calls in the turn got {} results",
                        turn.calls.len(),
                        results.len()
                    ),
                    None,
                );
                continue;
            };
            if planned.case.is_valid() {
                let tally = self.tallies.entry(planned.call.name.clone()).or_default();
                tally.count(planned, result);
            }
            // An image alone is an answer: its prose may be empty.
            let has_content = answer
                .result_content(&result.call_id)
                .is_some_and(|content| !content.content.is_empty());
            if let Some(problem) = problem(planned, result, has_content, self.runner) {
                fail(report, planned, problem, Some(result.clone()));
            }
        }
        if results.len() > turn.calls.len() {
            let last = turn.calls.last().expect("a turn has calls");
            fail(
                report,
                last,
                format!(
                    "{} calls in its turn got {} results",
                    turn.calls.len(),
                    results.len()
                ),
                None,
            );
        }
    }

    /// The report, with each tool that no valid call ran among the untested (or in a note, for
    /// a tool the caller allowed to go untested).
    pub(super) fn report<S: 'static>(
        mut self,
        toolbox: &Toolbox<S>,
        allowed: &[String],
    ) -> ToolboxReport {
        for definition in toolbox.definitions() {
            let name = definition.name.as_str();
            let tally = self.tallies.remove(name).unwrap_or_default();
            let Some(untested) = tally.untested(name, &definition.parameters, self.runner) else {
                continue;
            };
            if allowed.iter().any(|allowed| allowed == name) {
                self.report.notes.push(format!(
                    "{name}: not exercised, as allowed: {}",
                    untested.problem
                ));
            } else {
                self.report.untested.push(untested);
            }
        }
        self.report
    }
}

impl Tally {
    fn count(&mut self, planned: &Planned, result: &ToolResult) {
        self.valid += 1;
        let ended = if result.is_error {
            prose::ended_by(&planned.call.name, &result.content)
        } else {
            None
        };
        let count = match ended {
            None => &mut self.ran,
            Some(Ended::InvalidArguments) => &mut self.refused,
            Some(Ended::Crashed) => &mut self.crashed,
            Some(Ended::WrongRuntime) => &mut self.wrong_runtime,
            Some(Ended::TimedOut) => &mut self.timed_out,
            Some(Ended::NotRun) => &mut self.not_run,
        };
        *count += 1;
    }

    /// What to report of a tool no valid call ran, if none did.
    fn untested(&self, tool: &str, canonical: &Value, runner: Runner) -> Option<Untested> {
        if self.ran > 0 || self.valid == 0 {
            return None;
        }
        let outcomes = [
            (self.refused, "refused as invalid arguments"),
            (self.crashed, "panicked"),
            (
                self.wrong_runtime,
                "could not run without the runtime it needs",
            ),
            (self.timed_out, "did not finish within the time limit"),
            (self.not_run, "were not run (a limit of the toolbox)"),
        ];
        let outcomes: Vec<String> = outcomes
            .iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, outcome)| format!("{count} {outcome}"))
            .collect();
        let problem = format!(
            "none of its {} calls with valid arguments ran it to an answer of its own: {}",
            self.valid,
            outcomes.join(", ")
        );
        let next_step = if self.wrong_runtime > 0 && runner == Runner::Blocking {
            format!("{RUN_ASYNC}.")
        } else if self.wrong_runtime > 0 {
            "Await the check inside the runtime the tool needs, built with the timers and I/O it uses.".to_owned()
        } else if self.timed_out > 0 {
            format!("Give {tool} a state that answers quickly in tests, or a longer timeout.")
        } else if self.not_run > 0 {
            "Check the toolbox with the limits it has in production, or raise them: its valid arguments do not fit them.".to_owned()
        } else if mentions_key(canonical, &["pattern", "patternProperties"]) {
            format!(
                "Its schema has a `pattern`, and skyl does not generate strings for one: test {tool} with arguments of your own, and let the check pass it with ToolboxCheck::allow_untested(\"{tool}\")."
            )
        } else {
            format!("Fix {tool} so that it accepts and answers the arguments its schema allows.")
        };
        Some(Untested {
            tool: tool.to_owned(),
            problem,
            next_step,
        })
    }
}

/// What a tool that needs Tokio is told under [`ToolboxCheck::run`](super::ToolboxCheck::run).
const RUN_ASYNC: &str = "Check this toolbox inside the runtime instead: `ToolboxCheck::new(&toolbox).run_async().await` in a #[tokio::test] (check_toolbox and ToolboxCheck::run call tools without a runtime)";

/// What is wrong with `result` as the answer to `planned`, if anything.
fn problem(
    planned: &Planned,
    result: &ToolResult,
    has_content: bool,
    runner: Runner,
) -> Option<String> {
    let call = &planned.call;
    let name = call.name.as_str();
    if result.call_id != call.id {
        return Some(format!(
            "the result answers the call `{}`, not this one (`{}`)",
            result.call_id, call.id
        ));
    }
    if result.content.trim().is_empty() && !has_content {
        return Some(
            "the result has no content: a model reads nothing, not even that the call ran; return a short confirmation".into(),
        );
    }
    if result.is_error && !result.content.contains(name) {
        return Some(
            "the error result does not name the tool, so a model cannot tell which call failed"
                .into(),
        );
    }
    if planned.case == Case::UnknownTool {
        return (!result.is_error).then(|| "a call to a tool the toolbox lacks succeeded".into());
    }
    if !result.is_error {
        return None;
    }
    match prose::ended_by(name, &result.content)? {
        Ended::Crashed => Some("the tool panicked".into()),
        Ended::WrongRuntime if runner == Runner::Blocking => Some(format!(
            "the tool needs a Tokio runtime and could not run, so the check could not see what it does. {RUN_ASYNC}."
        )),
        Ended::WrongRuntime => Some(
            "the tool could not run in the runtime the check was awaited in (the result says why), so the check could not see what it does".into(),
        ),
        Ended::TimedOut => Some(
            "the tool did not finish within its time limit, so the check could not see what it does with these arguments".into(),
        ),
        Ended::InvalidArguments if planned.must_accept => {
            Some("the tool refused arguments its schema allows".into())
        }
        Ended::InvalidArguments | Ended::NotRun => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{Image, ResultContent};

    fn tool_message(parts: Vec<Part>) -> Message {
        Message {
            role: Role::Tool,
            parts,
        }
    }

    fn content(call_id: &str) -> Part {
        Part::ResultContent(ResultContent::new(
            call_id,
            vec![Image::png(b"\x89PNG\r\n\x1a\n").into()],
        ))
    }

    #[test]
    fn results_may_each_have_their_content_right_after_them() {
        let result = |id: &str| Part::ToolResult(ToolResult::success(id, "done"));
        let fits = |parts: Vec<Part>| is_results_only(&tool_message(parts));
        assert!(fits(vec![result("c1"), result("c2")]));
        assert!(fits(vec![result("c1"), content("c1"), result("c2")]));
        assert!(fits(vec![result("c1"), result("c2"), content("c2")]));
        assert!(!fits(vec![result("c1"), content("c2"), result("c2")]));
        assert!(!fits(vec![content("c1"), result("c1")]));
        assert!(!fits(vec![result("c1"), content("c1"), content("c1")]));
        assert!(!fits(vec![result("c1"), Part::Text("and".into())]));
        assert!(!is_results_only(&Message {
            role: Role::User,
            parts: vec![result("c1")],
        }));
    }
}
