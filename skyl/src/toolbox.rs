//! The registry of tools, and the dispatcher that turns every call into exactly one result.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
#[cfg(feature = "timeout")]
use std::time::Duration;

use crate::content::{Content, ResultContent};
use crate::executor::block_on;
use crate::message::{Message, Part, Role, ToolCall, ToolResult};
use crate::name_index::NameIndex;
use crate::prose;
use crate::registration::{self, RegistrationError, UnknownTool};
use crate::tool::effect::EffectKeyGuard;
use crate::tool::names::PORTABLE as PORTABLE_NAMES;
use crate::tool::set::Prefixed;
use crate::tool::{
    CallContext, CallObserver, Invocation, RichOutcome, Tool, ToolDefinition, ToolFuture, ToolSet,
    ToolVisitor,
};

mod batch;
mod cut;
mod dispatch;
mod limits;
mod measure;
mod repeats;

pub use dispatch::Dispatch;
pub use limits::Limits;

pub(crate) use batch::{Gate, Timed, Watch};

use batch::{Batch, Slot};
use repeats::{Repeats, refuses_repeats};

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
/// Panics inside a tool are caught with [`catch_unwind`], both while a synchronous tool runs and
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
/// # Limits
///
/// A tool's output past 100 KiB is cut with a note, and a call whose arguments are over 1 MiB or
/// nested more than 64 levels deep is refused before they are read; [`Toolbox::with_limits`]
/// changes these bounds and can bound how many calls of a turn run at once (see [`Limits`]).
///
/// # State
///
/// [`Toolbox::with_state`] gives the tools a shared state `S`. A tool asks for a part of it with a
/// `#[state]` parameter, which [`FromRef`](crate::FromRef) borrows out of `S`, so tools with
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
            limits: Limits::new(),
            #[cfg(feature = "timeout")]
            timeout: None,
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

    /// Adds a tool, or says why it cannot join: a [`RegistrationError`].
    ///
    /// Use it for tools whose definitions are data (a [`DynamicTool`](crate::DynamicTool) from a
    /// configuration file or another server), where a bad definition is an error to report
    /// rather than a bug. The checks are the ones providers make, done once here instead of on
    /// every request: the name must be one that some provider accepts and not already taken, the
    /// description must not be empty, and the parameters schema must describe an object whose
    /// `$ref`s resolve.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{DynamicTool, RegistrationError, ToolDefinition, Toolbox};
    ///
    /// let undescribed = DynamicTool::from_fn(
    ///     ToolDefinition { name: "ping".into(), parameters: json!({"type": "object"}), ..Default::default() },
    ///     |_: serde_json::Value| "pong",
    /// );
    /// assert_eq!(
    ///     Toolbox::new().try_with(undescribed).unwrap_err(),
    ///     RegistrationError::EmptyDescription { name: "ping".into() }
    /// );
    /// ```
    pub fn try_with<T: Tool<S>>(mut self, tool: T) -> Result<Self, RegistrationError> {
        self.add(tool)?;
        Ok(self)
    }

    /// [`try_with`](Self::try_with) on a toolbox in place: on an error the toolbox is unchanged
    /// and still yours, so a loader can report a bad definition and go on.
    pub fn add<T: Tool<S>>(&mut self, tool: T) -> Result<(), RegistrationError> {
        let definition = tool.definition();
        registration::check(definition)?;
        if !self.index.insert(&definition.name) {
            return Err(RegistrationError::DuplicateName {
                name: definition.name.clone(),
            });
        }
        self.definitions.push(definition.clone());
        self.tools.push(Box::new(tool));
        Ok(())
    }

    /// Puts `tool` in place of the tool of the same name, keeping its position; adds it at the
    /// end when there is none. Fails, leaving the toolbox unchanged, if the tool cannot join (see
    /// [`try_with`](Self::try_with)).
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let version = |answer: &'static str| {
    ///     DynamicTool::from_fn(
    ///         ToolDefinition {
    ///             name: "version".into(),
    ///             description: "Says the version.".into(),
    ///             parameters: json!({"type": "object"}),
    ///             ..Default::default()
    ///         },
    ///         move |_: serde_json::Value| answer,
    ///     )
    /// };
    /// let mut toolbox = Toolbox::new().with(version("1.0"));
    /// toolbox.replace(version("1.1")).unwrap();
    /// let call = ToolCall::new("c1", "version", json!({}));
    /// assert_eq!(toolbox.dispatch_blocking(&call).content, "1.1");
    /// assert_eq!(toolbox.len(), 1);
    /// ```
    pub fn replace<T: Tool<S>>(&mut self, tool: T) -> Result<(), RegistrationError> {
        let definition = tool.definition();
        registration::check(definition)?;
        match self.index.get(&definition.name) {
            Some(position) => {
                self.definitions[position] = definition.clone();
                self.tools[position] = Box::new(tool);
                Ok(())
            }
            None => self.add(tool),
        }
    }

    /// Removes the tool called `name`; returns whether there was one. The tools after it keep
    /// their order.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(position) = self.index.get(name) else {
            return false;
        };
        self.index.remove(position);
        self.definitions.remove(position);
        self.tools.remove(position);
        true
    }

    /// Whether the toolbox has a tool called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.index.get(name).is_some()
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

    /// Adds every tool of a [`ToolSet`], or says why one of them cannot join (see
    /// [`try_with`](Self::try_with)); then none of the set's tools is added.
    pub fn try_with_set<T: ToolSet<S>>(mut self, set: T) -> Result<Self, RegistrationError> {
        self.add_set("", set)?;
        Ok(self)
    }

    /// Adds every tool of a [`ToolSet`] under its name with `prefix` in front, so that two
    /// instances of one type (two databases, two accounts) fit in one toolbox.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{ToolCall, Toolbox};
    ///
    /// struct Shelf { books: Vec<&'static str> }
    ///
    /// #[skyl::tools]
    /// impl Shelf {
    ///     /// Counts the books on the shelf.
    ///     #[tool]
    ///     fn count_books(&self) -> usize {
    ///         self.books.len()
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::new()
    ///     .with_set(Shelf { books: vec!["Emma"] })
    ///     .with_set_prefixed("attic_", Shelf { books: vec!["Ulysses", "Dubliners"] });
    /// assert_eq!(toolbox.names().collect::<Vec<_>>(), ["count_books", "attic_count_books"]);
    /// let call = ToolCall::new("c1", "attic_count_books", json!({}));
    /// assert_eq!(toolbox.dispatch_blocking(&call).content, "2");
    /// ```
    ///
    /// # Panics
    ///
    /// As [`with`](Self::with), when one of the prefixed names is already in the toolbox.
    #[track_caller]
    pub fn with_set_prefixed<T: ToolSet<S>>(mut self, prefix: &str, set: T) -> Self {
        match self.add_set(prefix, set) {
            Ok(()) => self,
            Err(error @ RegistrationError::DuplicateName { .. }) => panic!(
                "Toolbox::with_set: {error}; a second instance of one type needs its own prefix, \
                 with Toolbox::with_set_prefixed"
            ),
            Err(error) => panic!("Toolbox::with_set: {error}"),
        }
    }

    /// Adds every tool of a [`ToolSet`] in place, each name with `prefix` in front. All or
    /// nothing: when one tool cannot join, the ones added before it are taken out again and the
    /// toolbox is as it was.
    pub fn add_set<T: ToolSet<S>>(
        &mut self,
        prefix: &str,
        set: T,
    ) -> Result<(), RegistrationError> {
        let before = self.len();
        let mut register = Register {
            toolbox: self,
            prefix,
            error: None,
        };
        Arc::new(set).visit_tools(&mut register);
        match register.error {
            None => Ok(()),
            Some(error) => {
                while self.len() > before {
                    let last = self.definitions[self.len() - 1].name.clone();
                    self.remove(&last);
                }
                Err(error)
            }
        }
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
    /// let request = skyl::provider::Request {
    ///     model: "some-model".into(),
    ///     tools: toolbox.definitions_of(["read"]).unwrap().into(),
    ///     ..Default::default()
    /// };
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
    /// [`CallContext`] sent to `observer` as they come.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use skyl::{CallContext, CallObserver, Progress, Report, ToolCall, Toolbox};
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

    /// Answers every tool call of an assistant message: the calls run concurrently (at most
    /// [`Limits::with_max_concurrent_calls`] at a time, when it is set), and the returned
    /// [`Role::Tool`] message holds one result per call, in call order.
    ///
    /// A result whose tool answered with [content](crate::Content) beyond text (an image, a
    /// resource, structured JSON) is followed by a [`Part::ResultContent`] holding it, which each
    /// adapter puts on its wire beside the result.
    ///
    /// A message without calls gets a tool message without parts. Calls are answered as they
    /// come, even two with the same id (which the transcript rules forbid, see
    /// [`transcript::validate_complete`](crate::transcript::validate_complete)): each gets its
    /// own result, so none is silently dropped.
    ///
    /// # Repeated calls
    ///
    /// A tool whose annotations say that running it again has an effect
    /// (`idempotent: Some(false)`, or `destructive: Some(true)` without
    /// `idempotent: Some(true)`) runs once per turn for the same arguments: a second identical
    /// call in the same message (same tool, same arguments once canonical: key order, an object
    /// sent as a string, a `null` for an absent argument and `1` against `1.0` make no difference)
    /// is not run, and its result is an error that quotes the first call's result. A tool that
    /// says nothing about itself runs every call, as does [`dispatch`](Self::dispatch), which
    /// sees one call at a time. The [agent loop](crate::agent) answers each turn by the same
    /// code, so these rules, the limits and the concurrency limit hold there too.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::{DynamicTool, Message, Part, Role, ToolAnnotations, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let send = DynamicTool::from_fn(
    ///     ToolDefinition {
    ///         name: "send_email".into(),
    ///         description: "Sends an email.".into(),
    ///         parameters: json!({"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"]}),
    ///         annotations: ToolAnnotations { idempotent: Some(false), ..Default::default() },
    ///         ..Default::default()
    ///     },
    ///     |arguments: serde_json::Value| format!("sent to {}", arguments["to"]),
    /// );
    /// let toolbox = Toolbox::new().with(send);
    /// let turn = Message {
    ///     role: Role::Assistant,
    ///     parts: vec![
    ///         Part::ToolCall(ToolCall::new("c1", "send_email", json!({"to": "ada"}))),
    ///         Part::ToolCall(ToolCall::new("c2", "send_email", json!({"to": "ada"}))),
    ///     ],
    /// };
    /// let answer = toolbox.answer_blocking(&turn);
    /// let results: Vec<_> = answer.tool_results().collect();
    /// assert_eq!(results[0].content, "sent to \"ada\"");
    /// assert!(results[1].is_error);
    /// assert!(results[1].content.starts_with("ERROR: send_email was not run: this call repeats the call `c1`"));
    /// ```
    pub async fn answer(&self, message: &Message) -> Message {
        let calls: Vec<&ToolCall> = message.tool_calls().collect();
        let results = self.run_turn(&calls, &[], Vec::new(), None, ()).await;
        let mut parts = Vec::with_capacity(results.len());
        for answered in results {
            answered.into_parts(&mut parts);
        }
        Message {
            role: Role::Tool,
            parts,
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
        self.start(call, None, None, Answered::into_text_result, |running| {
            block_on(running).into_text_result()
        })
    }

    /// [`dispatch_observed`](Self::dispatch_observed), with the content beside the result.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) async fn dispatch_answered(
        &self,
        call: &ToolCall,
        observer: Option<Arc<dyn CallObserver>>,
    ) -> Answered {
        match self.start(call, None, observer.as_ref(), Ok, Err) {
            Ok(answered) => answered,
            Err(running) => running.await,
        }
    }

    /// [`answer`](Self::answer) for code without an executor; the calls still run concurrently.
    pub fn answer_blocking(&self, message: &Message) -> Message {
        block_on(self.answer(message))
    }

    /// Looks the tool up and runs its synchronous part; a call that finishes there never builds
    /// a future. `done` gets the result of a call that finished, `running` a call that has yet
    /// to.
    ///
    /// Each caller says what to make of the two, rather than take an enum of them, so that a
    /// result goes where its caller returns it without being moved out of one first.
    #[inline(always)]
    fn start<'a, R>(
        &'a self,
        call: &'a ToolCall,
        effect_key: Option<&'a str>,
        observer: Option<&Arc<dyn CallObserver>>,
        done: impl FnOnce(Answered) -> R,
        running: impl FnOnce(Running<'a>) -> R,
    ) -> R {
        let Some(position) = self.index.get(&call.name) else {
            return done(unknown(call, self.names()).into());
        };
        // The name the index found is the call's: the call's copy costs no load from the index.
        let name = call.name.as_str();
        if let Some(refusal) = self.limits.refuse(name, &call.id, &call.arguments) {
            return done(refusal.into());
        }
        let tool = &self.tools[position];
        let max_output = self.limits.max_output_bytes();
        let invocation = Invocation::observed(name, &call.id, effect_key, observer);
        let keyed = EffectKeyGuard::set(effect_key);
        let called = catch_unwind(AssertUnwindSafe(|| {
            tool.invoke(&call.arguments, &self.state, &invocation)
        }));
        drop(keyed);
        let context = invocation.into_context();
        let future = match called {
            Ok(future) => future,
            Err(payload) => {
                return done(panicked(name, &call.id, payload, max_output).into());
            }
        };
        match future.into_ready() {
            Ok(outcome) => done(finish(name, &call.id, outcome, &self.limits)),
            Err(future) => running(Running {
                name,
                call_id: &call.id,
                effect_key,
                context,
                limits: &self.limits,
                future: Some(future),
                #[cfg(feature = "timeout")]
                deadline: tool
                    .timeout()
                    .or(self.timeout)
                    .map(|limit| (futures_timer::Delay::new(limit), limit)),
            }),
        }
    }
}

impl<S: 'static> Toolbox<S> {
    /// The turn runner: runs `calls` (the calls of one turn that are to run) concurrently in one
    /// task and returns their results in the order of `calls`, holding every rule of a turn: the
    /// limits, the repeat guard, the concurrency limit. `watch` hears of each result as soon as
    /// it is known, a refused repeat's included.
    ///
    /// [`answer`](Self::answer) and the agent loop both run a turn through it, so that the rules
    /// hold in both.
    ///
    /// `effect_keys` is empty, or holds each call's effect key (in a journaled run), which the
    /// tool reads with [`effect_key`](crate::agent::effect_key) while it runs. `gates` is empty,
    /// or holds what each call waits for before it starts (its durable intent, in a journaled
    /// run); a gate that fails stops the turn from starting more calls.
    pub(crate) async fn run_turn<'a, W: Watch>(
        &'a self,
        calls: &[&'a ToolCall],
        effect_keys: &'a [String],
        gates: Vec<Option<Gate<'a>>>,
        observer: Option<Arc<dyn CallObserver>>,
        watch: W,
    ) -> Vec<Answered> {
        let mut slots = Vec::with_capacity(calls.len());
        let mut repeats = Repeats::default();
        for (slot, call) in calls.iter().copied().enumerate() {
            if let Some(position) = self.index.get(&call.name)
                && refuses_repeats(&self.definitions[position].annotations)
                // Arguments past the limits are refused unread, here as in `start`.
                && self.limits.refuse(&call.name, &call.id, &call.arguments).is_none()
                && repeats.is_repeat(slot, call, &self.definitions[position])
            {
                // Written once the call it repeats has its result.
                slots.push(Slot::Done(
                    ToolResult::error(call.id.as_str(), String::new()).into(),
                ));
                continue;
            }
            slots.push(Slot::Queued(call));
        }
        let (mut results, mut watch) = Batch::new(self, slots, effect_keys, gates, observer, watch)
            .run()
            .await;
        repeats.answer(&mut results, calls);
        for slot in repeats.refused() {
            let mark = watch.started();
            watch.finished(slot, &results[slot], mark);
        }
        results
    }

    /// The definition of the tool called `name`, if there is one.
    pub(crate) fn definition(&self, name: &str) -> Option<&ToolDefinition> {
        self.index
            .get(name)
            .map(|position| &self.definitions[position])
    }
}

impl<S: 'static> fmt::Debug for Toolbox<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field("tools", &self.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Adds the tools of a set to a toolbox, one at a time.
struct Register<'t, S> {
    toolbox: &'t mut Toolbox<S>,
    prefix: &'t str,
    /// The first tool that could not join; the ones after it are not tried.
    error: Option<RegistrationError>,
}

impl<S: 'static> ToolVisitor<S> for Register<'_, S> {
    fn visit<T: Tool<S>>(&mut self, tool: T) {
        if self.error.is_some() {
            return;
        }
        let added = if self.prefix.is_empty() {
            self.toolbox.add(tool)
        } else {
            self.toolbox.add(Prefixed::new(self.prefix, tool))
        };
        // A set's own names are checked as they compile: a character the rule refuses in a
        // prefixed name is the prefix's.
        let error = match added {
            Ok(()) => return,
            Err(RegistrationError::InvalidName { name, .. })
                if !self.prefix.is_empty()
                    && PORTABLE_NAMES.sanitized(self.prefix) != self.prefix =>
            {
                RegistrationError::InvalidPrefix {
                    prefix: self.prefix.to_owned(),
                    name,
                    suggestion: PORTABLE_NAMES.sanitized(self.prefix),
                }
            }
            Err(error) => error,
        };
        self.error = Some(error);
    }
}

/// An asynchronous call in flight, with what its result needs.
///
/// The tool's future is dropped as soon as the call has a result, inside [`catch_unwind`], so a
/// destructor that panics (a guard held across an `.await`, a hand-written future) cannot unwind
/// into [`Toolbox::answer`] and cost the other calls their results.
struct Running<'a> {
    name: &'a str,
    call_id: &'a str,
    /// The call's effect key, in a journaled run: set for the tool while it is polled.
    effect_key: Option<&'a str>,
    /// The call's context, if the tool asked for one: cancelled when the call times out or is
    /// dropped unfinished.
    context: Option<CallContext>,
    /// The toolbox's bounds on the result's content.
    limits: &'a Limits,
    /// `None` once the call has its result.
    future: Option<ToolFuture<'a>>,
    #[cfg(feature = "timeout")]
    deadline: Option<(futures_timer::Delay, Duration)>,
}

impl Future for Running<'_> {
    type Output = Answered;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answered> {
        let this = &mut *self;
        let future = this
            .future
            .as_mut()
            .expect("a tool call polled after it completed");
        let keyed = EffectKeyGuard::set(this.effect_key);
        let polled = catch_unwind(AssertUnwindSafe(|| future.poll_output(cx)));
        drop(keyed);
        let result = match polled {
            Ok(Poll::Ready(outcome)) => finish(this.name, this.call_id, outcome, this.limits),
            Err(payload) => panicked(
                this.name,
                this.call_id,
                payload,
                this.limits.max_output_bytes(),
            )
            .into(),
            Ok(Poll::Pending) => match this.timed_out(cx) {
                Some(result) => result.into(),
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
        if Pin::new(delay).poll(cx).is_pending() {
            return None;
        }
        if let Some(context) = &self.context {
            context.cancel();
        }
        Some(ToolResult::error(
            self.call_id,
            prose::timed_out(self.name, *limit),
        ))
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
        if let (Some(_), Some(context)) = (&self.future, &self.context) {
            context.cancel();
        }
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

/// A call's result and the content beside it: what the turn runner hands on.
pub(crate) struct Answered {
    pub(crate) result: ToolResult,
    /// Empty for a result of text alone, as every failure is.
    pub(crate) content: Vec<Content>,
}

impl Answered {
    /// The parts of a tool message for this call: its result, then its content if it has any.
    pub(crate) fn into_parts(self, parts: &mut Vec<Part>) {
        let call_id = (!self.content.is_empty()).then(|| self.result.call_id.clone());
        parts.push(Part::ToolResult(self.result));
        if let Some(call_id) = call_id {
            parts.push(Part::ResultContent(ResultContent::new(
                call_id,
                self.content,
            )));
        }
    }
}

impl Answered {
    /// The result alone, for a caller that takes no content: a line for each part of the content
    /// after the prose, so that what the tool returned is still said.
    pub(crate) fn into_text_result(self) -> ToolResult {
        let mut result = self.result;
        for part in &self.content {
            if !result.content.is_empty() {
                result.content.push('\n');
            }
            result.content.push_str(&crate::content::line(part));
        }
        result
    }
}

impl From<ToolResult> for Answered {
    #[inline]
    fn from(result: ToolResult) -> Self {
        Answered {
            result,
            content: Vec::new(),
        }
    }
}

/// The result of a call that ran: its text cut to the output limit, each part of its content
/// checked (media whose bytes are not their type fail the call) and left out with a note when
/// it is over the media limit.
#[inline(always)]
fn finish(name: &str, call_id: &str, outcome: RichOutcome, limits: &Limits) -> Answered {
    let max_output = limits.max_output_bytes();
    match outcome {
        Ok(output) => {
            let mut content = output.text;
            if content.len() > max_output {
                content = cut::cut_output(name, content, max_output);
            }
            let result = ToolResult {
                call_id: call_id.to_owned(),
                content,
                is_error: false,
            };
            if output.content.is_empty() {
                return result.into();
            }
            with_content(name, result, output.content, limits)
        }
        Err(failure) => {
            ToolResult::error(call_id, prose::failed(name, &failure.shortened(max_output))).into()
        }
    }
}

#[cold]
fn with_content(
    name: &str,
    mut result: ToolResult,
    parts: Vec<Content>,
    limits: &Limits,
) -> Answered {
    let max_media = limits.max_media_bytes();
    let mut content = Vec::with_capacity(parts.len());
    for part in parts {
        if let Err(mismatch) = part.check_media() {
            let failure = prose::malformed_media(&part, mismatch);
            return ToolResult::error(result.call_id, prose::failed(name, &failure)).into();
        }
        if part.byte_len().is_some_and(|len| len > max_media) {
            let note = prose::media_too_large(name, &part, max_media);
            if !result.content.is_empty() {
                result.content.push('\n');
            }
            result.content.push_str(&note);
            continue;
        }
        content.push(part);
    }
    Answered { result, content }
}

#[cold]
fn panicked(
    name: &str,
    call_id: &str,
    payload: Box<dyn Any + Send>,
    max_output: usize,
) -> ToolResult {
    let message = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .map(|message| crate::text::shortened(message, max_output));
    let result = ToolResult::error(call_id, prose::panicked(name, message.as_deref()));
    drop_payload(payload);
    result
}
