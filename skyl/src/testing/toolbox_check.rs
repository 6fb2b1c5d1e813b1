//! skyl's promise, checked on your own toolbox: every call gets exactly one well-formed result,
//! whatever the model sends, and every value a provider's schema lets a model send is accepted.
//!
//! [`check_toolbox`] is the one line for a test; [`ToolboxCheck`] sets how many cases and which
//! seed, and returns a [`ToolboxReport`] to read instead of panicking.
//!
//! The check in three parts: `plan.rs` makes every call before any runs, from each tool's schema;
//! `judge.rs` reads the toolbox's answers; `report.rs` is what the caller reads.

use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::toolbox::Toolbox;

mod judge;
mod plan;
mod report;

use judge::{Judge, Runner};
use plan::Plan;
pub use report::{Case, CheckFailure, ToolboxReport, Untested};

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
