//! The registry of tools, and the dispatcher that turns every call into exactly one result.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::executor::{JoinInOrder, block_on};
use crate::message::{Message, Part, Role, ToolCall, ToolResult};
use crate::name_index::NameIndex;
use crate::prose;
use crate::tool::{Tool, ToolDefinition, ToolFuture, ToolOutcome};

/// A set of tools and the state they share, answering a model's tool calls.
///
/// Dispatch never fails: whatever happens to a call (an unknown name, arguments that do not fit,
/// the tool's `Err`, a panic, a timeout), the caller gets one [`ToolResult`] whose `call_id` is the
/// call's id. A failure has `is_error: true` and content that names the tool, says what went
/// wrong and says what the model should do next (every sentence is in `skyl/src/prose.rs`).
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
/// Panics inside a tool are caught with [`catch_unwind`], both while a synchronous tool runs and
/// while an asynchronous tool's future is polled or dropped (after it finished, after a timeout,
/// or when the caller drops the dispatch), and the toolbox stays usable. A panic payload whose own
/// destructor panics is leaked rather than allowed to unwind into the caller. A binary built
/// with `panic = "abort"` cannot catch them: the process ends, as it would anywhere else. The
/// default panic hook still prints the panic to stderr.
///
/// # State
///
/// [`Toolbox::with_state`] gives the tools a shared state `S`. A tool asks for a part of it with a
/// `#[state]` parameter, which [`FromRef`](crate::FromRef) borrows out of `S`, so tools with
/// different needs share one toolbox.
pub struct Toolbox<S = ()> {
    state: S,
    tools: Vec<Arc<dyn Tool<S>>>,
    /// Each tool's definition, copied once at registration so that a request can borrow them all
    /// as one slice.
    definitions: Vec<ToolDefinition>,
    index: NameIndex,
    #[cfg(feature = "timeout")]
    timeout: Option<Duration>,
}

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
    /// use skyl::{FromRef, Toolbox};
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
            #[cfg(feature = "timeout")]
            timeout: None,
        }
    }

    /// Adds a tool.
    ///
    /// # Panics
    ///
    /// If the toolbox already has a tool of the same name, like a router given the same route
    /// twice: the model could not tell them apart. A panic in the tool's
    /// [`definition`](Tool::definition) also surfaces here, at registration, rather than during a
    /// dispatch: the toolbox reads each name once and keeps it.
    #[track_caller]
    pub fn with<T: Tool<S>>(mut self, tool: T) -> Self {
        let definition = tool.definition();
        let name = definition.name.as_str();
        if !self.index.insert(name) {
            panic!(
                "Toolbox::with: a tool named \"{name}\" is already in this toolbox; give one of them another name with #[tool(name = \"...\")]"
            );
        }
        self.definitions.push(definition.clone());
        self.tools.push(Arc::new(tool));
        self
    }

    /// Stops an asynchronous call that has not finished within `limit`; its result then says it
    /// timed out.
    ///
    /// A synchronous tool runs to completion inside the call and cannot be stopped: make a tool
    /// that may block `async` and let it await its slow work.
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
    #[cfg(feature = "timeout")]
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
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
    /// let request = skyl::provider::Request {
    ///     model: "some-model".into(),
    ///     tools: toolbox.definitions().into(),
    ///     ..Default::default()
    /// };
    /// assert_eq!(request.tools[0].name, "hello");
    /// ```
    pub fn definitions(&self) -> &[ToolDefinition] {
        &self.definitions
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
    pub async fn dispatch(&self, call: &ToolCall) -> ToolResult {
        match self.start(call) {
            Started::Done(result) => result,
            Started::Running(running) => running.await,
        }
    }

    /// Answers every tool call of an assistant message: the calls run concurrently, and the
    /// returned [`Role::Tool`] message holds one result per call, in call order.
    ///
    /// A message without calls gets a tool message without parts. Calls are answered as they
    /// come, even two with the same id (which the transcript rules forbid, see
    /// [`transcript::validate_complete`](crate::transcript::validate_complete)): each gets its
    /// own result, so none is silently dropped.
    pub async fn answer(&self, message: &Message) -> Message {
        let mut join = JoinInOrder::new();
        for call in message.tool_calls() {
            match self.start(call) {
                Started::Done(result) => join.push_done(result),
                Started::Running(running) => join.push_pending(running),
            }
        }
        let results = join.await;
        Message {
            role: Role::Tool,
            parts: results.into_iter().map(Part::ToolResult).collect(),
        }
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
        match self.start(call) {
            Started::Done(result) => result,
            Started::Running(running) => block_on(running),
        }
    }

    /// [`answer`](Self::answer) for code without an executor; the calls still run concurrently.
    pub fn answer_blocking(&self, message: &Message) -> Message {
        block_on(self.answer(message))
    }

    /// Looks the tool up and runs its synchronous part; a call that finishes there never builds
    /// a future.
    fn start<'a>(&'a self, call: &'a ToolCall) -> Started<'a> {
        let Some((name, position)) = self.index.get(&call.name) else {
            return Started::Done(unknown(call, self.names()));
        };
        let tool = &self.tools[position];
        let future =
            match catch_unwind(AssertUnwindSafe(|| tool.call(&call.arguments, &self.state))) {
                Ok(future) => future,
                Err(payload) => return Started::Done(panicked(name, &call.id, payload)),
            };
        match future.into_ready() {
            Ok(outcome) => Started::Done(finish(name, &call.id, outcome)),
            Err(future) => Started::Running(Running {
                name,
                call_id: &call.id,
                future: Some(future),
                #[cfg(feature = "timeout")]
                deadline: self
                    .timeout
                    .map(|limit| (futures_timer::Delay::new(limit), limit)),
            }),
        }
    }
}

impl<S: 'static> Toolbox<S> {
    /// Runs `calls` concurrently in one task, as [`answer`](Self::answer) does, and returns their
    /// results in the order of `calls`. `finished` hears of each result as soon as it is known,
    /// with the call's position in `calls` and how long the call took.
    ///
    /// The agent loop uses it to run only the calls its hooks let through, and to time each one.
    pub(crate) async fn dispatch_each<'a>(
        &'a self,
        calls: &[&'a ToolCall],
        mut finished: impl FnMut(usize, &ToolResult, Duration),
    ) -> Vec<ToolResult> {
        let mut slots: Vec<Result<ToolResult, (Running<'a>, Instant)>> =
            Vec::with_capacity(calls.len());
        for (position, call) in calls.iter().enumerate() {
            let begun = Instant::now();
            match self.start(call) {
                Started::Done(result) => {
                    finished(position, &result, begun.elapsed());
                    slots.push(Ok(result));
                }
                Started::Running(running) => slots.push(Err((running, begun))),
            }
        }
        std::future::poll_fn(|cx| {
            let mut all_done = true;
            for (position, slot) in slots.iter_mut().enumerate() {
                if let Err((running, begun)) = slot {
                    match Pin::new(running).poll(cx) {
                        Poll::Ready(result) => {
                            finished(position, &result, begun.elapsed());
                            *slot = Ok(result);
                        }
                        Poll::Pending => all_done = false,
                    }
                }
            }
            if all_done {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
        slots
            .into_iter()
            .map(|slot| slot.unwrap_or_else(|_| unreachable!("every call has its result")))
            .collect()
    }
}

impl<S: 'static> fmt::Debug for Toolbox<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

enum Started<'a> {
    Done(ToolResult),
    Running(Running<'a>),
}

/// An asynchronous call in flight, with what its result needs.
///
/// The tool's future is dropped as soon as the call has a result, inside [`catch_unwind`], so a
/// destructor that panics (a guard held across an `.await`, a hand-written future) cannot unwind
/// into [`Toolbox::answer`] and cost the other calls their results.
struct Running<'a> {
    name: &'a str,
    call_id: &'a str,
    /// `None` once the call has its result.
    future: Option<ToolFuture<'a>>,
    #[cfg(feature = "timeout")]
    deadline: Option<(futures_timer::Delay, Duration)>,
}

impl Future for Running<'_> {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        let future = this
            .future
            .as_mut()
            .expect("a tool call polled after it completed");
        let result = match catch_unwind(AssertUnwindSafe(|| Pin::new(future).poll(cx))) {
            Ok(Poll::Ready(outcome)) => finish(this.name, this.call_id, outcome),
            Err(payload) => panicked(this.name, this.call_id, payload),
            Ok(Poll::Pending) => match this.timed_out(cx) {
                Some(result) => result,
                None => return Poll::Pending,
            },
        };
        drop_quietly(this.future.take());
        Poll::Ready(result)
    }
}

impl Running<'_> {
    /// The result of a call that ran past the toolbox's timeout.
    #[cfg(feature = "timeout")]
    fn timed_out(&mut self, cx: &mut Context<'_>) -> Option<ToolResult> {
        let (delay, limit) = self.deadline.as_mut()?;
        Pin::new(delay)
            .poll(cx)
            .is_ready()
            .then(|| ToolResult::error(self.call_id, prose::timed_out(self.name, *limit)))
    }

    #[cfg(not(feature = "timeout"))]
    #[inline]
    fn timed_out(&mut self, _: &mut Context<'_>) -> Option<ToolResult> {
        None
    }
}

impl Drop for Running<'_> {
    /// A call dropped before it finished (its caller gave up on it) drops the tool's future here.
    fn drop(&mut self) {
        drop_quietly(self.future.take());
    }
}

/// Drops `value`, catching a panic in its destructor.
fn drop_quietly<T>(value: T) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(move || drop(value))) {
        drop_payload(payload);
    }
}

/// Drops a panic payload; one whose destructor panics in turn is leaked, as the standard library
/// does, since nothing could catch the next payload either.
fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(inner) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(inner);
    }
}

#[cold]
fn unknown<'a>(call: &ToolCall, available: impl Iterator<Item = &'a str>) -> ToolResult {
    ToolResult::error(call.id.as_str(), prose::unknown_tool(&call.name, available))
}

#[inline]
fn finish(name: &str, call_id: &str, outcome: ToolOutcome) -> ToolResult {
    match outcome {
        Ok(content) => ToolResult {
            call_id: call_id.to_owned(),
            content,
            is_error: false,
        },
        Err(failure) => ToolResult::error(call_id, prose::failed(name, &failure)),
    }
}

#[cold]
fn panicked(name: &str, call_id: &str, payload: Box<dyn Any + Send>) -> ToolResult {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
    let result = ToolResult::error(call_id, prose::panicked(name, message));
    drop_payload(payload);
    result
}
