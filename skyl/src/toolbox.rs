//! The registry of tools, and the dispatcher that turns every call into exactly one result.
//!
//! This file holds the [`Toolbox`] type, how it is built, what it holds and one call's dispatch;
//! the rest is a file an idea under `toolbox/`:
//!
//! | file | what |
//! |---|---|
//! | `registration.rs` | adding tools and sets (the checks a tool passes are in `crate::registration`), replacing and removing them |
//! | `running.rs` | one call running: started, polled inside `catch_unwind`, timed out, cancelled and given its grace, dropped; its result finished (cut to the limits, content checked) |
//! | `dispatch.rs` | [`Dispatch`], the future of one call |
//! | `turn.rs` | the turn runner: every call of one assistant turn, for [`Toolbox::answer`] and the agent loop alike |
//! | `batch.rs` | the calls of a turn polled together in one task, under the concurrency limit |
//! | `repeats.rs` | a call that must not run twice in one turn, refused |
//! | `limits.rs`, `cut.rs`, `measure.rs` | the bounds on arguments and results, and how an oversized one is cut |

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::executor::block_on;
use crate::message::{ToolCall, ToolResult};
use crate::name_index::NameIndex;
use crate::registration::UnknownTool;
use crate::tool::{CallObserver, Tool, ToolDefinition, ToolSet};

mod batch;
mod cut;
mod dispatch;
mod limits;
mod measure;
mod registration;
mod repeats;
mod running;
mod turn;

pub use dispatch::Dispatch;
pub use limits::Limits;

pub(crate) use batch::{Gate, Timed};
pub(crate) use running::RichResult;

/// A set of tools and the state they share, answering a model's tool calls.
///
/// Dispatch never fails: whatever happens to a call (an unknown name, arguments that do not fit,
/// the tool's `Err`, a panic, a timeout), the caller gets one [`ToolResult`] whose `call_id` is the
/// call's id. A failure has `is_error: true` and content that names the tool, says what went
/// wrong and says what the model should do next (every sentence is in `skyl/src/prose/`).
///
/// ```
/// use serde_json::json;
/// use skyl::{Message, Part, Role, ToolCall, Toolbox};
///
/// /// Adds two numbers.
/// #[skyl::tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let toolbox = Toolbox::new().with(Add);
/// let turn = Message {
///     role: Role::Assistant,
///     parts: vec![
///         Part::ToolCall(ToolCall::new("c1", "add", json!({"a": 2, "b": 3}))),
///         Part::ToolCall(ToolCall::new("c2", "subtract", json!({"a": 2, "b": 3}))),
///     ],
/// };
/// let answer = toolbox.answer_blocking(&turn);
/// let results: Vec<_> = answer.tool_results().collect();
/// assert_eq!(results[0].content, "5");
/// assert!(results[1].is_error);
/// assert!(results[1].content.starts_with("ERROR: there is no tool named \"subtract\"."));
/// ```
///
/// # Panics
///
/// Panics inside a tool are caught with [`catch_unwind`](std::panic::catch_unwind), both while a synchronous tool runs and
/// while an asynchronous tool's future is polled or dropped (after it finished, after a timeout,
/// or when the caller drops the dispatch), and the toolbox stays usable. A panic payload whose own
/// destructor panics is leaked rather than allowed to unwind into the caller. A binary built
/// with `panic = "abort"` cannot catch them: the process ends, as it would anywhere else. The
/// default panic hook still prints the panic to stderr.
///
/// # Timeouts
///
/// With the `timeout` feature (`skyl = { version = "0.1", features = ["timeout"] }`),
/// `Toolbox::with_timeout` stops an asynchronous call that runs too long; its result says so.
/// Without the feature, no timer is compiled in and calls run until they finish.
///
/// # Cancellation
///
/// A call is cancelled when it times out, when the MCP client that asked for it cancels it, or
/// when whoever awaited it (a run, a [`Dispatch`]) drops it unfinished. A tool that takes its
/// [`CallContext`](crate::tool::CallContext) sees it, and one that races
/// [`CallContext::cancelled`](crate::tool::CallContext::cancelled) against its work gets a grace
/// ([`with_cancel_grace`](Toolbox::with_cancel_grace), one second by default) to clean up.
///
/// # Limits
///
/// A tool's output past 100 KiB is cut with a note, and a call whose arguments are over 1 MiB or
/// nested more than 64 levels deep is refused before they are read; [`Toolbox::with_limits`]
/// changes these bounds and can bound how many calls of a turn run at once (see [`Limits`]).
///
/// # State
///
/// [`Toolbox::with_state`] gives the tools a shared state `S`. A tool asks for a part of it with a
/// `#[state]` parameter, which [`FromRef`](crate::tool::FromRef) borrows out of `S`, so tools with
/// different needs share one toolbox.
pub struct Toolbox<S = ()> {
    state: S,
    tools: Vec<Box<dyn Tool<S>>>,
    /// Each tool's definition, copied once at registration so that a request can borrow them all
    /// as one slice.
    definitions: Vec<ToolDefinition>,
    index: NameIndex,
    limits: Limits,
    #[cfg(feature = "timeout")]
    timeout: Option<Duration>,
    /// How long a cancelled call is still polled, unless its tool says otherwise.
    cancel_grace: Duration,
}

/// How long a cancelled call is still polled when neither its tool nor its toolbox says: enough
/// to undo a step or close a connection, short enough that a tool that ignores cancellation
/// costs little.
const DEFAULT_CANCEL_GRACE: Duration = Duration::from_secs(1);

impl Toolbox<()> {
    /// An empty toolbox with no state.
    pub fn new() -> Self {
        Toolbox::with_state(())
    }
}

impl Default for Toolbox<()> {
    fn default() -> Self {
        Toolbox::new()
    }
}

impl<S: 'static> Toolbox<S> {
    /// An empty toolbox whose tools share `state`.
    ///
    /// ```
    /// use skyl::{Toolbox, tool::FromRef};
    ///
    /// struct Db { rows: Vec<String> }
    /// struct App { db: Db }
    ///
    /// impl FromRef<App> for Db {
    ///     fn from_ref(app: &App) -> &Db { &app.db }
    /// }
    ///
    /// /// Counts the rows.
    /// #[skyl::tool]
    /// fn count_rows(#[state] db: &Db) -> usize {
    ///     db.rows.len()
    /// }
    ///
    /// let toolbox = Toolbox::with_state(App { db: Db { rows: vec!["a".into()] } }).with(CountRows);
    /// let result = toolbox.dispatch_blocking(&skyl::ToolCall::new("c", "count_rows", serde_json::json!({})));
    /// assert_eq!(result.content, "1");
    /// ```
    pub fn with_state(state: S) -> Self {
        Toolbox {
            state,
            tools: Vec::new(),
            definitions: Vec::new(),
            index: NameIndex::default(),
            limits: Limits::new(),
            #[cfg(feature = "timeout")]
            timeout: None,
            cancel_grace: DEFAULT_CANCEL_GRACE,
        }
    }

    /// Adds a tool.
    ///
    /// # Panics
    ///
    /// If the tool cannot join the toolbox ([`try_with`](Self::try_with) says why): another tool
    /// has its name (a model could not tell them apart, as a router could not tell two equal
    /// routes apart), no provider accepts its name, it has no description, or its parameters
    /// schema is not an object schema. A panic in the tool's [`definition`](Tool::definition)
    /// also surfaces here, at registration, rather than during a dispatch: the toolbox reads each
    /// definition once and keeps it.
    #[track_caller]
    pub fn with<T: Tool<S>>(self, tool: T) -> Self {
        match self.try_with(tool) {
            Ok(toolbox) => toolbox,
            Err(error) => panic!("Toolbox::with: {error}"),
        }
    }

    /// Adds every tool of a [`ToolSet`]: the `#[tool]` methods of a type whose `impl` block is
    /// marked [`#[tools]`](macro@crate::tools), each calling `set`. Pass an `Arc` to keep a handle
    /// on the instance.
    ///
    /// # Panics
    ///
    /// As [`with`](Self::with), when one of the set's names is already in the toolbox: a second
    /// instance of the same type needs [`with_set_prefixed`](Self::with_set_prefixed).
    #[track_caller]
    pub fn with_set<T: ToolSet<S>>(self, set: T) -> Self {
        self.with_set_prefixed("", set)
    }

    /// Stops an asynchronous call that has not finished within `limit`; its result then says it
    /// timed out.
    ///
    /// A tool's own [`Tool::timeout`] (`#[tool(timeout = "5s")]`) replaces `limit` for that tool.
    /// A synchronous tool runs to completion inside the call and cannot be stopped: make a tool
    /// that may block `async`, or mark it `#[tool(blocking)]` to run it on another thread.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// /// Waits for a reply that never comes.
    /// #[skyl::tool]
    /// async fn wait_for_reply() -> String {
    ///     std::future::pending().await
    /// }
    ///
    /// let toolbox = skyl::Toolbox::new()
    ///     .with(WaitForReply)
    ///     .with_timeout(Duration::from_millis(10));
    /// let call = skyl::ToolCall::new("c1", "wait_for_reply", serde_json::json!({}));
    /// let result = toolbox.dispatch_blocking(&call);
    /// assert!(result.is_error);
    /// assert!(result.content.contains("did not finish within 10ms"));
    /// ```
    ///
    /// A tool with its own limit keeps it in any toolbox:
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// /// Reads a sensor that sometimes hangs.
    /// #[skyl::tool(blocking, timeout = "20ms")]
    /// fn read_sensor() -> u8 {
    ///     std::thread::sleep(Duration::from_secs(2));
    ///     7
    /// }
    ///
    /// let toolbox = skyl::Toolbox::new().with(ReadSensor).with_timeout(Duration::from_secs(60));
    /// let result = toolbox.dispatch_blocking(&skyl::ToolCall::new("c1", "read_sensor", serde_json::json!({})));
    /// assert!(result.content.contains("did not finish within 20ms"));
    /// ```
    #[cfg(feature = "timeout")]
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// How long a cancelled call is still polled so that it can clean up: one second unless set
    /// here; a tool's own [`Tool::cancel_grace`] (`#[tool(cancel_grace = "2s")]`) replaces it for
    /// that tool.
    ///
    /// A call is cancelled when it times out, when the MCP client that asked for it sends
    /// `notifications/cancelled`, or when whoever awaited it drops it unfinished. Its
    /// [`CallContext`](crate::tool::CallContext) says so at once, and a tool that races
    /// [`CallContext::cancelled`](crate::tool::CallContext::cancelled) against its work runs its
    /// cleanup in the grace. What each case gives:
    ///
    /// - **A timeout or an MCP cancellation** (the `mcp` feature turns on `timeout`): the tool's
    ///   future is still polled until it finishes or the grace is over, then dropped. The call's
    ///   result is the timeout's (an MCP client gets none), whatever the tool returns in its
    ///   grace, and a tool that ignores its cancellation delays that result by the grace at most.
    /// - **A dropped call** (a dropped run or [`Dispatch`]): nothing is left to wait, so the
    ///   grace is what runs on the spot, inside the drop: the future is polled for as long as it
    ///   wakes itself. Cleanup that needs no waiting (undo a step, write a line, send on a
    ///   channel) runs; cleanup that awaits anything else (a socket, a timer) does not, and is
    ///   dropped with the future.
    ///
    /// A grace of zero drops a cancelled call's future at once, unpolled. A tool that took no
    /// context cannot see its cancellation and gets no grace. Without the `timeout` feature there
    /// is no timer to wait on, and every cancelled call gets what a dropped one gets.
    ///
    #[cfg_attr(feature = "timeout", doc = "```")]
    #[cfg_attr(not(feature = "timeout"), doc = "```ignore")]
    /// use std::sync::atomic::{AtomicBool, Ordering};
    /// use std::time::Duration;
    ///
    /// use skyl::{ToolCall, Toolbox, tool::CallContext};
    ///
    /// static UNDONE: AtomicBool = AtomicBool::new(false);
    ///
    /// /// Waits for a reply, and takes its request back when cancelled.
    /// #[skyl::tool]
    /// async fn wait_for_reply(#[context] call: CallContext) -> String {
    ///     call.cancelled().await;
    ///     UNDONE.store(true, Ordering::SeqCst);
    ///     "taken back".to_owned()
    /// }
    ///
    /// let toolbox = Toolbox::new()
    ///     .with(WaitForReply)
    ///     .with_timeout(Duration::from_millis(10))
    ///     .with_cancel_grace(Duration::from_millis(500));
    /// let call = ToolCall::new("c1", "wait_for_reply", serde_json::json!({}));
    /// let result = toolbox.dispatch_blocking(&call);
    /// assert!(result.content.contains("did not finish within 10ms"));
    /// assert!(UNDONE.load(Ordering::SeqCst));
    /// ```
    pub fn with_cancel_grace(mut self, grace: Duration) -> Self {
        self.cancel_grace = grace;
        self
    }

    /// Replaces the toolbox's [`Limits`]: how large a tool's output may be before it is cut, how
    /// large and how deep a call's arguments may be before the call is refused, and how many
    /// calls of one turn run at once. Every toolbox starts with [`Limits::default`].
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{Limits, ToolCall, Toolbox};
    ///
    /// /// Saves a note.
    /// #[skyl::tool]
    /// fn save_note(text: String) -> String {
    ///     format!("saved {} bytes", text.len())
    /// }
    ///
    /// let toolbox = Toolbox::new()
    ///     .with(SaveNote)
    ///     .with_limits(Limits::default().with_max_argument_bytes(64));
    /// let call = ToolCall::new("c1", "save_note", json!({"text": "x".repeat(100)}));
    /// let result = toolbox.dispatch_blocking(&call);
    /// assert!(result.is_error);
    /// assert_eq!(
    ///     result.content,
    ///     "ERROR: save_note was not run: its arguments are larger than 64 bytes, the most this \
    ///      application accepts. Call save_note again with smaller arguments; split a large input \
    ///      over several calls."
    /// );
    /// ```
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The toolbox's [`Limits`].
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The definitions of the tools, in the order they were added, for a provider request to
    /// borrow.
    ///
    /// ```
    /// /// Says hello.
    /// #[skyl::tool]
    /// fn hello() -> &'static str {
    ///     "hello"
    /// }
    ///
    /// let toolbox = skyl::Toolbox::new().with(Hello);
    /// let request = skyl::provider::Request::new("some-model", Vec::new()).with_tools(toolbox.definitions());
    /// assert_eq!(request.tools[0].name, "hello");
    /// ```
    pub fn definitions(&self) -> &[ToolDefinition] {
        &self.definitions
    }

    /// The definitions of the tools called `names`, in that order, for a request that offers the
    /// model only some of the tools (a repeated name is given once); a name the toolbox does not
    /// have is an [`UnknownTool`] error.
    ///
    /// The toolbox still answers calls to every tool it has, so a call to a tool that was not
    /// offered (one the model remembers from an earlier turn) still runs; remove a tool that must
    /// not.
    ///
    /// ```
    /// /// Reads a file.
    /// #[skyl::tool]
    /// fn read(path: String) -> String { path }
    ///
    /// /// Deletes a file.
    /// #[skyl::tool]
    /// fn delete(path: String) -> String { path }
    ///
    /// let toolbox = skyl::Toolbox::new().with(Read).with(Delete);
    /// let request = skyl::provider::Request::new("some-model", Vec::new()).with_tools(toolbox.definitions_of(["read"]).unwrap());
    /// assert_eq!(request.tools.len(), 1);
    /// assert!(toolbox.definitions_of(["raed"]).is_err());
    /// ```
    pub fn definitions_of<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<Vec<ToolDefinition>, UnknownTool> {
        let mut chosen: Vec<ToolDefinition> = Vec::new();
        for name in names {
            let Some(position) = self.index.get(name) else {
                return Err(UnknownTool {
                    name: name.to_owned(),
                    available: self.names().map(str::to_owned).collect(),
                });
            };
            if !chosen.iter().any(|definition| definition.name == name) {
                chosen.push(self.definitions[position].clone());
            }
        }
        Ok(chosen)
    }

    /// The definitions that `keep` accepts, in the order the tools were added: a subset chosen by
    /// what the tools are rather than by name.
    ///
    /// ```
    /// use skyl::ToolDefinition;
    ///
    /// # let toolbox = skyl::Toolbox::new();
    /// // Only the tools that change nothing, for a planning step.
    /// let read_only: Vec<ToolDefinition> =
    ///     toolbox.definitions_where(|definition| definition.annotations.is_read_only());
    /// # assert!(read_only.is_empty());
    /// ```
    pub fn definitions_where(
        &self,
        mut keep: impl FnMut(&ToolDefinition) -> bool,
    ) -> Vec<ToolDefinition> {
        self.definitions
            .iter()
            .filter(|definition| keep(definition))
            .cloned()
            .collect()
    }

    /// The names of the tools, in the order they were added.
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.index.names()
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the toolbox has no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The shared state.
    pub fn state(&self) -> &S {
        &self.state
    }

    /// Runs one call and returns its result. Never fails; see the type's documentation.
    ///
    /// Await it on any executor; [`dispatch_blocking`](Self::dispatch_blocking) runs it without
    /// one. To answer a whole assistant turn, use [`answer`](Self::answer), which runs its calls
    /// concurrently.
    ///
    /// The future is a [`Dispatch`]: it does nothing until it is polled, and it is [`Send`] when
    /// the state is [`Sync`].
    ///
    /// A [`ToolResult`] is text: when the tool answers with [content](crate::Content) beyond
    /// text (an image), the result says each part in a line after the prose.
    /// [`answer`](Self::answer) keeps the content itself, beside the result.
    pub fn dispatch<'a>(&'a self, call: &'a ToolCall) -> Dispatch<'a, S> {
        Dispatch::new(self, call, None)
    }

    /// [`dispatch`](Self::dispatch), with the progress and log lines the tool reports through its
    /// [`CallContext`](crate::tool::CallContext) sent to `observer` as they come.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use skyl::{ToolCall, Toolbox, tool::{CallContext, CallObserver, Progress, Report}};
    ///
    /// /// Copies the files.
    /// #[skyl::tool]
    /// fn copy(#[context] call: CallContext) -> &'static str {
    ///     call.progress(Progress::new(1.0).with_total(2.0));
    ///     call.progress(Progress::new(2.0).with_total(2.0));
    ///     "copied"
    /// }
    ///
    /// #[derive(Default)]
    /// struct Heard(Mutex<Vec<Report>>);
    /// impl CallObserver for Heard {
    ///     fn report(&self, _: &CallContext, report: Report) {
    ///         self.0.lock().unwrap().push(report);
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::new().with(Copy);
    /// let heard = Arc::new(Heard::default());
    /// let call = ToolCall::new("c1", "copy", serde_json::json!({}));
    /// let result = futures_executor_free(toolbox.dispatch_observed(&call, heard.clone()));
    /// assert_eq!(result.content, "copied");
    /// assert_eq!(heard.0.lock().unwrap().len(), 2);
    /// # fn futures_executor_free<F: std::future::Future>(future: F) -> F::Output {
    /// #     let mut future = std::pin::pin!(future);
    /// #     match future.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
    /// #         std::task::Poll::Ready(output) => output,
    /// #         std::task::Poll::Pending => unreachable!("a synchronous tool"),
    /// #     }
    /// # }
    /// ```
    pub fn dispatch_observed<'a>(
        &'a self,
        call: &'a ToolCall,
        observer: Arc<dyn CallObserver>,
    ) -> Dispatch<'a, S> {
        Dispatch::new(self, call, Some(observer))
    }

    /// [`dispatch`](Self::dispatch) for code without an executor: runs the call on this thread.
    ///
    /// A synchronous tool never touches an executor. An asynchronous tool that needs a runtime's
    /// reactor (tokio timers, sockets) must be dispatched with `.await` inside that runtime.
    ///
    /// ```
    /// use serde_json::json;
    ///
    /// /// Divides `a` by `b`.
    /// #[skyl::tool]
    /// fn divide(a: f64, b: f64) -> Result<f64, &'static str> {
    ///     if b == 0.0 { Err("division by zero") } else { Ok(a / b) }
    /// }
    ///
    /// let toolbox = skyl::Toolbox::new().with(Divide);
    /// let ok = toolbox.dispatch_blocking(&skyl::ToolCall::new("c1", "divide", json!({"a": 1, "b": 4})));
    /// assert_eq!((ok.call_id.as_str(), ok.content.as_str(), ok.is_error), ("c1", "0.25", false));
    ///
    /// let err = toolbox.dispatch_blocking(&skyl::ToolCall::new("c2", "divide", json!({"a": 1, "b": 0})));
    /// assert!(err.is_error);
    /// assert!(err.content.starts_with("ERROR: divide failed: division by zero."));
    /// ```
    pub fn dispatch_blocking(&self, call: &ToolCall) -> ToolResult {
        self.start(call, None, None, RichResult::into_text_result, |running| {
            block_on(running).into_text_result()
        })
    }

    /// [`dispatch_observed`](Self::dispatch_observed), with the content beside the result, for
    /// a caller that may cancel the call: `None` when `cancelled` finished first, after the
    /// call ran out its grace.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) async fn dispatch_rich(
        &self,
        call: &ToolCall,
        observer: Option<Arc<dyn CallObserver>>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Option<RichResult> {
        let mut running = match self.start(call, None, observer.as_ref(), Ok, Err) {
            Ok(answered) => return Some(answered),
            Err(running) => running,
        };
        let mut cancelled = std::pin::pin!(cancelled);
        let finished = std::future::poll_fn(|cx| {
            if let std::task::Poll::Ready(answered) = std::pin::Pin::new(&mut running).poll(cx) {
                return std::task::Poll::Ready(Some(answered));
            }
            cancelled.as_mut().poll(cx).map(|()| None)
        })
        .await;
        if finished.is_some() {
            return finished;
        }
        // Nobody reads this result: the call only runs out its grace.
        running.cancel(ToolResult::error(call.id.as_str(), String::new()));
        running.await;
        None
    }

    /// The definition of the tool called `name`, if there is one.
    pub(crate) fn definition(&self, name: &str) -> Option<&ToolDefinition> {
        self.index
            .get(name)
            .map(|position| &self.definitions[position])
    }

    /// The tool called `name`, if the toolbox has one.
    pub(crate) fn tool(&self, name: &str) -> Option<&dyn Tool<S>> {
        self.index.get(name).map(|position| &*self.tools[position])
    }
}

impl<S: 'static> fmt::Debug for Toolbox<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}
