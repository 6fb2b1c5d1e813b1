//! skyl's promise, checked on your own toolbox: every call gets exactly one well-formed result,
//! whatever the model sends, and every value a provider's schema lets a model send is accepted.
//!
//! [`check_toolbox`] is the one line for a test; [`ToolboxCheck`] sets how many cases and which
//! seed, and returns a [`ToolboxReport`] to read instead of panicking.

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::{Map, Value, json};

use super::{Dialect, Instances};
use crate::message::{Message, Part, Role, ToolCall, ToolResult};
use crate::prose::{self, Ended};
use crate::random::{GAMMA, SplitMix64};
use crate::schema::absent::without_absent_nulls;
use crate::schema::validate::fits;
use crate::toolbox::Toolbox;

/// Checks `toolbox` with [`ToolboxCheck`]'s defaults and panics with the report when a check
/// fails: the line to put in a `#[test]`.
///
/// ```
/// /// Adds two numbers.
/// #[skyl::tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a.saturating_add(b)
/// }
///
/// /// Greets someone.
/// #[skyl::tool]
/// fn greet(
///     /// Who to greet.
///     name: String,
///     /// Shout it.
///     #[serde(default)]
///     loud: bool,
/// ) -> String {
///     let greeting = format!("Hello, {name}!");
///     if loud { greeting.to_uppercase() } else { greeting }
/// }
///
/// skyl::testing::check_toolbox(&skyl::Toolbox::new().with(Add).with(Greet));
/// ```
///
/// # Panics
///
/// When a check fails, with a report that names each tool, the arguments and what went wrong.
#[track_caller]
pub fn check_toolbox<S: 'static>(toolbox: &Toolbox<S>) {
    ToolboxCheck::new(toolbox).run().assert_passed();
}

/// A check of a whole [`Toolbox`]: it generates arguments from each tool's own schema, sends
/// them as a model would, and checks every result.
///
/// The arguments, for each tool:
///
/// - **valid**: values the tool's schema allows, in each dialect a provider is sent (the
///   canonical schema Anthropic and OpenAI without strict mode get,
///   [`openai_strict`](crate::provider::dialect::openai_strict), and both Gemini forms); and **edge** values
///   (bounds, the limits of integer formats, empty and long strings, the fewest and most items).
///   Each must be **accepted**:
///   the tool may fail on its own terms (its `Err`), but not refuse the arguments as invalid or
///   panic.
/// - **hostile**: a property of the wrong type, a required property missing, a string of a
///   quarter of a megabyte, values nested hundreds deep, JSON text nested thousands deep,
///   arguments that are not an object, valid arguments as JSON text (as a model that encodes
///   them twice sends them), malformed JSON text, and a tool name the toolbox does not have. Each must get a well-formed result; the tool may refuse or accept it, but not
///   panic.
///
/// Every call is answered by [`Toolbox::answer`], a few calls a turn, and each result must
/// answer its own call (its id, in call order, one per call), have content, and name the tool
/// when it is a failure.
///
/// The tools run: point it at a toolbox whose state touches nothing real (a test database, a
/// fake client). A value a dialect allows but the canonical schema does not (a constraint the
/// lowering had to drop, such as `multipleOf` in Gemini's OpenAPI subset) is not required to be
/// accepted, nor is a string for a `pattern` (skyl does not generate strings for a regular
/// expression, so a tool whose schema has one may refuse its valid cases).
///
/// ```
/// use skyl::testing::ToolboxCheck;
///
/// /// Repeats a word.
/// #[skyl::tool]
/// fn repeat(word: String, times: u8) -> String {
///     word.repeat(usize::from(times))
/// }
///
/// let toolbox = skyl::Toolbox::new().with(Repeat);
/// let report = ToolboxCheck::new(&toolbox).cases(20).seed(7).run();
/// assert!(report.calls > 100);
/// // An empty word, or `times: 0`, makes an empty answer, which tells a model nothing.
/// assert!(!report.passed());
/// let failure = &report.failures[0];
/// assert_eq!(failure.tool, "repeat");
/// assert!(failure.problem.starts_with("the result has no content"));
/// ```
pub struct ToolboxCheck<'t, S: 'static = ()> {
    toolbox: &'t Toolbox<S>,
    cases: usize,
    seed: u64,
    allowed_untested: Vec<String>,
}

impl<S: 'static> fmt::Debug for ToolboxCheck<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolboxCheck")
            .field("toolbox", self.toolbox)
            .field("cases", &self.cases)
            .field("seed", &self.seed)
            .field("allowed_untested", &self.allowed_untested)
            .finish()
    }
}

impl<'t, S: 'static> ToolboxCheck<'t, S> {
    /// A check of `toolbox`: 32 cases of each kind a tool, seed 0.
    pub fn new(toolbox: &'t Toolbox<S>) -> Self {
        ToolboxCheck {
            toolbox,
            cases: 32,
            seed: 0,
            allowed_untested: Vec::new(),
        }
    }

    /// How many arguments of each kind (each dialect's valid values, edge values, each kind of
    /// hostile arguments) each tool gets; 32 unless set. A few kinds are capped lower (huge
    /// strings at 4, deep nesting at 8).
    pub fn cases(mut self, cases: usize) -> Self {
        self.cases = cases.max(1);
        self
    }

    /// The seed the arguments are generated from; 0 unless set. The same seed gives the same
    /// arguments on every run.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Lets the tool named `tool` pass when no call with valid arguments could run it, which
    /// fails the check otherwise (see [`ToolboxReport::untested`]): the report says so in a note
    /// instead. For a tool whose valid arguments skyl cannot generate, such as a string that must
    /// match a `pattern`; test that tool with arguments of your own.
    pub fn allow_untested(mut self, tool: impl Into<String>) -> Self {
        self.allowed_untested.push(tool.into());
        self
    }

    /// Runs the check on this thread, with [`Toolbox::answer_blocking`].
    ///
    /// An asynchronous tool that needs a runtime's reactor (Tokio timers or sockets) cannot run
    /// here: each of its calls fails the check with a problem that says so. Check such a toolbox
    /// with [`run_async`](Self::run_async), awaited inside that runtime.
    pub fn run(&self) -> ToolboxReport {
        let plan = Plan::new(self.toolbox, self.cases, self.seed);
        let mut judge = Judge::new(&plan, Runner::Blocking);
        for turn in &plan.turns {
            let message = turn.message();
            let answer = catch_unwind(AssertUnwindSafe(|| self.toolbox.answer_blocking(&message)));
            judge.turn(turn, answer.ok());
        }
        judge.report(self.toolbox, &self.allowed_untested)
    }

    /// Runs the check with [`Toolbox::answer`], on the caller's executor: the way to check tools
    /// that need the caller's runtime, such as Tokio's timers or sockets.
    ///
    /// ```
    /// # async fn check() {
    /// /// Waits for a moment.
    /// #[skyl::tool]
    /// async fn pause() -> &'static str {
    ///     // tokio::time::sleep(...).await, in a real tool
    ///     "paused"
    /// }
    ///
    /// let toolbox = skyl::Toolbox::new().with(Pause);
    /// // In a #[tokio::test]: the tools run inside the test's runtime.
    /// skyl::testing::ToolboxCheck::new(&toolbox).run_async().await.assert_passed();
    /// # }
    /// ```
    pub async fn run_async(&self) -> ToolboxReport {
        let plan = Plan::new(self.toolbox, self.cases, self.seed);
        let mut judge = Judge::new(&plan, Runner::Async);
        for turn in &plan.turns {
            let message = turn.message();
            let answer = CatchUnwind(Box::pin(self.toolbox.answer(&message))).await;
            judge.turn(turn, answer);
        }
        judge.report(self.toolbox, &self.allowed_untested)
    }
}

/// What a [`ToolboxCheck`] found.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ToolboxReport {
    /// How many calls were made.
    pub calls: usize,
    /// Valid values a dialect allows that the canonical schema does not (a constraint its
    /// lowering dropped), or that a `pattern` constrains: sent, but not required to be accepted.
    pub not_required: usize,
    /// What went wrong, one entry a call.
    pub failures: Vec<CheckFailure>,
    /// The tools no call with valid arguments ran to an answer of their own: every one was
    /// refused, stopped by a time limit or a limit of the toolbox, or could not run where the
    /// check ran it. A tool the check could not exercise fails it, unless
    /// [`ToolboxCheck::allow_untested`] names it.
    pub untested: Vec<Untested>,
    /// What was not checked, and why (a tool whose schema a dialect cannot express, a tool
    /// allowed to go untested).
    pub notes: Vec<String>,
}

impl ToolboxReport {
    /// Whether every check passed: no call failed, and every tool was exercised.
    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.untested.is_empty()
    }

    /// Panics with the report unless every check passed.
    #[track_caller]
    pub fn assert_passed(&self) {
        if !self.passed() {
            panic!("{self}");
        }
    }
}

/// How many failures a report spells out; the rest are counted.
const SHOWN_FAILURES: usize = 12;

impl fmt::Display for ToolboxReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passed() {
            write!(f, "the toolbox passed: {} calls", self.calls)?;
        } else if self.failures.is_empty() {
            write!(
                f,
                "the toolbox failed: {} of its tools could not be exercised ({} calls)",
                self.untested.len(),
                self.calls
            )?;
        } else {
            write!(
                f,
                "the toolbox failed {} of {} calls:",
                self.failures.len(),
                self.calls
            )?;
            for failure in self.failures.iter().take(SHOWN_FAILURES) {
                write!(f, "\n\n{failure}")?;
            }
            if self.failures.len() > SHOWN_FAILURES {
                write!(
                    f,
                    "\n\n... and {} more failures",
                    self.failures.len() - SHOWN_FAILURES
                )?;
            }
        }
        for untested in &self.untested {
            write!(f, "\n\n{untested}")?;
        }
        for note in &self.notes {
            write!(f, "\nnote: {note}")?;
        }
        Ok(())
    }
}

/// A tool that no call with valid arguments ran to an answer of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Untested {
    /// The tool's name.
    pub tool: String,
    /// How many calls with valid arguments it got, and what became of them.
    pub problem: String,
    /// What to do about it.
    pub next_step: String,
}

impl fmt::Display for Untested {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (untested): {}\n  {}",
            self.tool, self.problem, self.next_step
        )
    }
}

/// One call that failed a check.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CheckFailure {
    /// The tool the call named.
    pub tool: String,
    /// What kind of arguments it was.
    pub case: Case,
    /// The arguments sent.
    pub arguments: Value,
    /// What went wrong.
    pub problem: String,
    /// The result, when there was one.
    pub result: Option<ToolResult>,
}

/// How many characters of arguments and results a failure shows.
const SHOWN_CHARS: usize = 400;

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({}): {}", self.tool, self.case, self.problem)?;
        write!(f, "  arguments: {}", shorten(&self.arguments.to_string()))?;
        if let Some(result) = &self.result {
            write!(
                f,
                "\n  result: {} {}",
                if result.is_error { "error" } else { "ok" },
                shorten(&format!("{:?}", result.content))
            )?;
        }
        Ok(())
    }
}

fn shorten(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((end, _)) => format!(
            "{}... ({} characters in all)",
            &text[..end],
            text.chars().count()
        ),
        None => text.to_owned(),
    }
}

/// The kind of arguments a call had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Case {
    /// Values the schema allows, in a provider's dialect.
    Valid(Dialect),
    /// Values the schema allows, at its edges.
    Edge,
    /// Valid arguments sent as JSON text rather than an object. skyl reads them for a
    /// `#[tool]`; a hand-written [`Tool`](crate::Tool) sees the text.
    JsonText,
    /// A property of another type than its schema's.
    WrongType,
    /// A required property left out.
    MissingRequired,
    /// A string of a quarter of a megabyte.
    HugeString,
    /// Values nested hundreds deep, or JSON text nested thousands deep.
    DeepNesting,
    /// Arguments that are not an object: a number, a boolean, an array, plain words.
    NotAnObject,
    /// JSON text cut short.
    MalformedJsonText,
    /// A tool name the toolbox does not have.
    UnknownTool,
}

impl Case {
    /// Whether the arguments are valid, so that the tool must accept them.
    pub fn is_valid(self) -> bool {
        matches!(self, Case::Valid(_) | Case::Edge)
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Case::Valid(dialect) => write!(f, "valid arguments, {dialect} schema"),
            Case::Edge => f.write_str("valid arguments at the schema's edges"),
            Case::JsonText => f.write_str("valid arguments as JSON text"),
            Case::WrongType => f.write_str("a property of the wrong type"),
            Case::MissingRequired => f.write_str("a required property missing"),
            Case::HugeString => f.write_str("a huge string"),
            Case::DeepNesting => f.write_str("deeply nested arguments"),
            Case::NotAnObject => f.write_str("arguments that are not an object"),
            Case::MalformedJsonText => f.write_str("malformed JSON text"),
            Case::UnknownTool => f.write_str("an unknown tool name"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The plan: every call, made before any runs.

/// How many calls go in one assistant turn.
const CALLS_A_TURN: usize = 8;

/// How long a huge string is.
const HUGE: usize = 256 * 1024;

/// How deep nested values go, and nested JSON text.
const DEEP_VALUE: usize = 200;
const DEEP_TEXT: usize = 5_000;

struct Planned {
    call: ToolCall,
    case: Case,
    /// Whether the call must be accepted: valid, and nothing excuses a refusal.
    must_accept: bool,
}

struct Turn {
    calls: Vec<Planned>,
}

impl Turn {
    fn message(&self) -> Message {
        Message {
            role: Role::Assistant,
            parts: self
                .calls
                .iter()
                .map(|planned| Part::ToolCall(planned.call.clone()))
                .collect(),
        }
    }
}

struct Plan {
    turns: Vec<Turn>,
    calls: usize,
    not_required: usize,
    notes: Vec<String>,
}

impl Plan {
    fn new<S: 'static>(toolbox: &Toolbox<S>, cases: usize, seed: u64) -> Plan {
        let mut planner = Planner {
            planned: Vec::new(),
            not_required: 0,
            notes: Vec::new(),
        };
        for (n, definition) in toolbox.definitions().iter().enumerate() {
            let seed = seed.wrapping_add((n as u64).wrapping_mul(GAMMA));
            planner.tool(&definition.name, &definition.parameters, cases, seed);
        }
        let calls = planner.planned.len();
        let mut turns = Vec::new();
        let mut planned = planner.planned.into_iter().enumerate().peekable();
        while planned.peek().is_some() {
            let calls = planned
                .by_ref()
                .take(CALLS_A_TURN)
                .map(|(n, mut planned)| {
                    planned.call.id = format!("check_{n}");
                    planned
                })
                .collect();
            turns.push(Turn { calls });
        }
        Plan {
            turns,
            calls,
            not_required: planner.not_required,
            notes: planner.notes,
        }
    }
}

/// How a check runs the toolbox: what a tool that needs a runtime is told to do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runner {
    /// [`ToolboxCheck::run`], on this thread without a runtime.
    Blocking,
    /// [`ToolboxCheck::run_async`], on the caller's executor.
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

/// Reads the toolbox's answers into a report, turn by turn.
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

struct Judge {
    runner: Runner,
    report: ToolboxReport,
    tallies: HashMap<String, Tally>,
}

impl Judge {
    fn new(plan: &Plan, runner: Runner) -> Self {
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
    fn turn(&mut self, turn: &Turn, answer: Option<Message>) {
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
    fn report<S: 'static>(mut self, toolbox: &Toolbox<S>, allowed: &[String]) -> ToolboxReport {
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

/// What a tool that needs Tokio is told under [`ToolboxCheck::run`].
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

struct Planner {
    planned: Vec<Planned>,
    not_required: usize,
    notes: Vec<String>,
}

impl Planner {
    fn push(&mut self, name: &str, arguments: Value, case: Case, must_accept: bool) {
        if case.is_valid() && !must_accept {
            self.not_required += 1;
        }
        self.planned.push(Planned {
            call: ToolCall::new(String::new(), name, arguments),
            case,
            must_accept,
        });
    }

    fn tool(&mut self, name: &str, canonical: &Value, cases: usize, seed: u64) {
        // skyl cannot generate strings for a regular expression, so their refusal is excused.
        let pattern = mentions_key(canonical, &["pattern", "patternProperties"]);
        for dialect in Dialect::ALL {
            let lowered = match dialect.lower(canonical) {
                Ok(lowered) => lowered,
                Err(error) => {
                    self.notes.push(format!(
                        "{name}: not checked in the {dialect} dialect, which cannot express its schema ({error}); that adapter refuses the tool"
                    ));
                    continue;
                }
            };
            for arguments in Instances::new(&lowered, seed).take(cases) {
                // A dialect may allow what the canonical schema does not (a dropped constraint);
                // the nulls OpenAI strict mode sends for what it leaves out mean "absent".
                let allowed = canonically_valid(&arguments, canonical);
                self.push(name, arguments, Case::Valid(dialect), allowed && !pattern);
            }
        }

        let valid: Vec<Value> = Instances::new(canonical, seed ^ 0x5eed)
            .take(cases)
            .collect();
        let mut edges = Instances::new(canonical, seed ^ 0xed9e).edges(true);
        for _ in 0..cases {
            let arguments = edges.next().expect("instances never end");
            let allowed = fits(&arguments, canonical, canonical);
            self.push(name, arguments, Case::Edge, allowed && !pattern);
        }
        for arguments in &valid {
            if arguments.is_object() {
                let text = Value::String(arguments.to_string());
                self.push(name, text, Case::JsonText, false);
            }
        }

        let mut random = SplitMix64::new(seed);
        for (n, arguments) in valid.iter().enumerate() {
            if let Some(wrong) = wrong_type(arguments, canonical, &mut random) {
                self.push(name, wrong, Case::WrongType, false);
            }
            if let Some(missing) = missing_required(arguments, canonical, &mut random) {
                self.push(name, missing, Case::MissingRequired, false);
            }
            if n < 4 {
                self.push(
                    name,
                    huge_string(arguments, &mut random),
                    Case::HugeString,
                    false,
                );
            }
            if n < 8 {
                self.push(
                    name,
                    deep(arguments, n, &mut random),
                    Case::DeepNesting,
                    false,
                );
            }
            let not_an_object = NOT_OBJECTS[n % NOT_OBJECTS.len()].clone();
            self.push(name, not_an_object, Case::NotAnObject, false);
            let text = arguments.to_string();
            let cut = Value::String(text[..text.len() - 1].to_owned());
            self.push(name, cut, Case::MalformedJsonText, false);
        }
        let unknown = [format!("{name}_unknown"), name.to_uppercase()];
        for unknown in unknown {
            if unknown != name {
                self.push(&unknown, json!({}), Case::UnknownTool, false);
            }
        }
    }
}

/// Arguments that are not an object. (`null` is not among them: skyl reads it as no
/// arguments.)
static NOT_OBJECTS: std::sync::LazyLock<[Value; 6]> = std::sync::LazyLock::new(|| {
    [
        json!(42),
        json!(-1.5),
        json!(true),
        json!([]),
        json!([{"a": 1}]),
        json!("plain words, not JSON"),
    ]
});

/// Whether `arguments`, from a lowered schema, is a value of the canonical schema once the
/// nulls a lowering adds for absent properties are removed.
fn canonically_valid(arguments: &Value, canonical: &Value) -> bool {
    match without_absent_nulls(arguments, canonical) {
        Some(cleaned) => fits(&cleaned, canonical, canonical),
        None => fits(arguments, canonical, canonical),
    }
}

/// Whether `schema` uses any of `keys` anywhere.
fn mentions_key(schema: &Value, keys: &[&str]) -> bool {
    match schema {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| keys.contains(&key.as_str()) || mentions_key(value, keys)),
        Value::Array(items) => items.iter().any(|item| mentions_key(item, keys)),
        _ => false,
    }
}

/// `arguments` with one property replaced by a value of a type its schema refuses.
fn wrong_type(arguments: &Value, canonical: &Value, random: &mut SplitMix64) -> Option<Value> {
    let object = arguments.as_object()?;
    let keys: Vec<&String> = object.keys().collect();
    let key = random.pick(&keys)?;
    let others = [
        json!(7),
        json!(2.5),
        json!("text"),
        json!(false),
        json!([1, "two"]),
        json!({"nested": true}),
        Value::Null,
    ];
    let start = random.next() as usize;
    (0..others.len()).find_map(|i| {
        let mut wrong = object.clone();
        wrong.insert((*key).clone(), others[(start + i) % others.len()].clone());
        let wrong = Value::Object(wrong);
        (!canonically_valid(&wrong, canonical)).then_some(wrong)
    })
}

/// `arguments` without one of the properties the schema requires.
fn missing_required(
    arguments: &Value,
    canonical: &Value,
    random: &mut SplitMix64,
) -> Option<Value> {
    let required: Vec<&str> = canonical
        .get("required")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let key = random.pick(&required)?;
    let mut missing = arguments.as_object()?.clone();
    missing.remove(*key)?;
    Some(Value::Object(missing))
}

/// `arguments` with a huge string: in place of one property, or as a property of its own.
fn huge_string(arguments: &Value, random: &mut SplitMix64) -> Value {
    let huge: String = "Lorem ipsum \u{1f600} \"quoted\" \\ "
        .chars()
        .cycle()
        .take(HUGE)
        .collect();
    let mut object = arguments.as_object().cloned().unwrap_or_default();
    let keys: Vec<String> = object.keys().cloned().collect();
    let key = random.pick(&keys).cloned().unwrap_or_else(|| "huge".into());
    object.insert(key, Value::String(huge));
    Value::Object(object)
}

/// `arguments` with a value nested [`DEEP_VALUE`] deep in one property, or (every other time)
/// JSON text nested [`DEEP_TEXT`] deep.
fn deep(arguments: &Value, n: usize, random: &mut SplitMix64) -> Value {
    if n % 2 == 1 {
        let mut text = "[".repeat(DEEP_TEXT);
        text.push_str(&"]".repeat(DEEP_TEXT));
        return Value::String(format!("{{\"deep\": {text}}}"));
    }
    let mut value = json!("bottom");
    for depth in 0..DEEP_VALUE {
        value = if depth % 2 == 0 {
            Value::Array(vec![value])
        } else {
            let mut inner = Map::new();
            inner.insert("a".into(), value);
            Value::Object(inner)
        };
    }
    let mut object = arguments.as_object().cloned().unwrap_or_default();
    let keys: Vec<String> = object.keys().cloned().collect();
    let key = random.pick(&keys).cloned().unwrap_or_else(|| "deep".into());
    object.insert(key, value);
    Value::Object(object)
}

/// A future's output, or `None` when polling it panicked.
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = Option<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let future = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| future.poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Some(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(None),
        }
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
