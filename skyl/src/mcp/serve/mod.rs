//! Serving: a toolbox as an MCP server's tool set, with prompts and resources beside it.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`Server`]: its options, `serve`/`serve_stdio`, the `ServerHandler` rmcp calls, a call's run |
//! | `stdio.rs` | the line transport for stdio: bounded reads, JSON-RPC's answers to what is not a message |
//! | `http.rs` | streamable HTTP: how `serve_http` and `http_service` serve (`HttpOptions`), skyl's corrections in front of rmcp |
//! | `approval.rs` | a person's approval of a call: the question, asked during the call or in an input-required result, and what the answer decides |
//! | `authorization.rs` | bearer tokens over HTTP ([`Authorization`](crate::mcp::Authorization), [`Grant`](crate::mcp::Grant)) |
//! | `caller.rs` | the client a served call answers: `caller`, `ask`, `answer` (task-locals), the questions asked during a call before 2026-07-28, and whether it speaks 2026-07-28 |
//! | `request_state.rs` | the request states the server signs, which carry a call's answers between rounds |
//! | `notify.rs` | a call's progress and log lines as notifications, the client's log level |
//! | `params.rs` | requests whose params do not fit their method |
//! | `jsonrpc.rs` | JSON-RPC's error response, for what is answered before rmcp reads it |
//! | `tasks.rs`, `tasks/records.rs` | calls served as MCP Tasks (the extension), kept in a journal |
//! | `legacy_tasks.rs`, `legacy_tasks/wire.rs` | the same tasks in MCP 2025-11-25's form, which rmcp does not read: the requests about them, and what the transports rename and write |
//! | `prompt.rs`, `resource.rs` | what a served prompt and resource are |
//! | `catalog.rs` | the `Catalog` of them: how the server lists, gets, reads, completes and subscribes to them |
//! | `failure.rs` | why a prompt or resource could not be given ([`Failure`](crate::mcp::Failure)) |
//! | `uri_template.rs` | RFC 6570 templates as resource templates use them |

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CustomResult, ErrorCode,
    Implementation, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool as McpTool,
};
use rmcp::service::{RequestContext, RoleServer, ServerInitializeError};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::mcp::error::ServeError;
use crate::mcp::serve::caller::speaks_input_required;
use crate::mcp::serve::legacy_tasks::LegacyTasks;
use crate::mcp::serve::notify::LevelFilter;
use crate::mcp::serve::request_state::RequestStates;
use crate::mcp::serve::tasks::{Ran, Runner, Tasks};
use crate::mcp::{content, listing};

pub(super) mod approval;
#[cfg(feature = "mcp-http")]
pub(super) mod authorization;
pub(super) mod caller;
pub(super) mod catalog;
pub(super) mod failure;
#[cfg(feature = "mcp-http")]
pub(super) mod http;
pub(super) mod jsonrpc;
pub(super) mod legacy_tasks;
pub(super) mod notify;
pub(super) mod params;
pub(super) mod prompt;
pub(super) mod request_state;
pub(super) mod resource;
pub(super) mod stdio;
pub(super) mod tasks;
pub(super) mod uri_template;
use crate::message::{ToolCall, ToolResult};
use crate::prose::mcp as prose;
use crate::tool::ToolDefinition;
use crate::toolbox::Toolbox;

/// Which calls a person approves before they run ([`Server::with_approval`]).
type NeedsApproval = Arc<dyn Fn(&ToolCall, &ToolDefinition) -> bool + Send + Sync>;

/// A [`Toolbox`] served as an MCP server: its tools are the server's tools.
///
/// Build one from a toolbox (or an `Arc` of one, to share it with an agent loop), then serve it
/// on stdio with [`serve_stdio`](Self::serve_stdio), on any rmcp transport with
/// [`serve`](Self::serve), or over HTTP with `serve_http` (feature `mcp-http`). It implements
/// rmcp's [`ServerHandler`], so rmcp's own serving functions take it too. On stdio a message is
/// one line of at most 16 MiB, and a line that is not one gets JSON-RPC's error answer (see
/// [`serve_stdio`](Self::serve_stdio)).
///
/// The tool list is read once, here: a toolbox does not change after it is built.
///
/// ```
/// use skyl::mcp::Server;
///
/// /// Says hello.
/// #[skyl::tool]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let server = Server::new(skyl::Toolbox::new().with(Hello))
///     .with_name("greeter", "1.0.0")
///     .with_instructions("Greets people.");
/// # let _ = server;
/// ```
pub struct Server<S = ()> {
    tools: Arc<Tools<S>>,
    config: ServerConfig,
    /// The least level of the log lines this connection's client wants.
    log_level: LevelFilter,
    /// Seals the request state of an approval asked in an input-required result.
    states: Arc<RequestStates>,
    /// How `serve_http` and `http_service` answer.
    #[cfg(feature = "mcp-http")]
    http: http::HttpOptions,
    /// The journal that keeps the tasks, once [`Server::with_task_journal`] gives one.
    tasks: Option<Arc<Tasks>>,
    /// Which calls become tasks ([`Server::with_tasks_for`]), kept whether or not a journal is
    /// given yet, so that the builder's calls may come in any order.
    makes_task: MakesTask,
    /// Which calls run only as tasks ([`Server::with_tasks_required_for`]).
    requires_task: MakesTask,
    /// What a call asks before its task is created ([`Server::with_questions_before_task`]).
    asks_before_task: AsksBeforeTask,
    /// How often clients are asked to poll a task ([`Server::with_task_poll_interval`]).
    poll_interval: Duration,
    /// How long the tasks running when the server stops get to end
    /// ([`Server::with_task_shutdown_grace`]).
    shutdown_grace: Duration,
    /// The prompts and resources served beside the tools ([`Server::with_prompt`],
    /// [`Server::with_resource`]).
    catalog: Arc<catalog::Catalog>,
    /// The caching hints of every list and read at 2026-07-28 ([`Server::with_cache_hints`]);
    /// rmcp's (`ttlMs: 0`, `cacheScope: "private"`) unless given.
    cache_hints: Option<(u64, rmcp::model::CacheScope)>,
}

/// Which calls are made tasks ([`Server::with_tasks_for`]).
type MakesTask = Arc<dyn Fn(&ToolCall, &ToolDefinition) -> bool + Send + Sync>;

/// What a call asks before its task is created ([`Server::with_questions_before_task`]).
type AsksBeforeTask = Arc<dyn Fn(&ToolCall, &InputResponses) -> InputRequests + Send + Sync>;

/// How often a client is asked to poll a task unless [`Server::with_task_poll_interval`] says.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How long the tasks running when a server stops get to end, unless
/// [`Server::with_task_shutdown_grace`] says.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// What every connection of a server shares.
struct Tools<S> {
    toolbox: Arc<Toolbox<S>>,
    listed: Vec<McpTool>,
    /// For each tool name, whether its output is JSON to put in `structuredContent`.
    structured: HashMap<String, bool>,
    needs_approval: NeedsApproval,
}

impl<S: Send + Sync + 'static> Server<S> {
    /// A server for `toolbox`, named `skyl` with skyl's version until
    /// [`with_name`](Self::with_name) says otherwise.
    pub fn new(toolbox: impl Into<Arc<Toolbox<S>>>) -> Self {
        let toolbox = toolbox.into();
        let definitions = toolbox.definitions();
        let tools = Tools {
            listed: definitions.iter().map(listing::to_mcp).collect(),
            structured: definitions
                .iter()
                .map(|d| (d.name.clone(), d.output_schema.is_some()))
                .collect(),
            toolbox,
            needs_approval: Arc::new(|_, definition| approval::says_destructive(definition)),
        };
        // Logging is deprecated in rmcp (see `notify.rs`), yet clients speak it today.
        #[allow(deprecated)]
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        // A server's tools are read once, here, and never change: no `list_changed` is sent.
        if let Some(tools) = &mut capabilities.tools {
            tools.list_changed = Some(false);
        }
        let config = ServerConfig::new(capabilities)
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
            .with_server_info(Implementation::new("skyl", env!("CARGO_PKG_VERSION")));
        Server {
            tools: Arc::new(tools),
            config,
            log_level: LevelFilter::default(),
            states: Arc::new(RequestStates::random()),
            #[cfg(feature = "mcp-http")]
            http: http::HttpOptions::default(),
            tasks: None,
            makes_task: Arc::new(|_: &ToolCall, _: &ToolDefinition| true),
            requires_task: Arc::new(|_: &ToolCall, _: &ToolDefinition| false),
            asks_before_task: Arc::new(|_: &ToolCall, _: &InputResponses| InputRequests::new()),
            poll_interval: POLL_INTERVAL,
            shutdown_grace: SHUTDOWN_GRACE,
            catalog: Arc::default(),
            cache_hints: None,
        }
    }

    /// Serves calls as MCP Tasks (the `io.modelcontextprotocol/tasks` extension), kept in
    /// `journal`: the server declares the extension, and a `tools/call` from a client that
    /// declares it too is answered at once with a task (`resultType: "task"`, status `working`)
    /// while the call runs; the client polls `tasks/get` (every `pollIntervalMs`, 500 ms unless
    /// [`with_task_poll_interval`](Self::with_task_poll_interval) says) until it is `completed`
    /// with the call's whole result (a failed call too: `isError: true`, as MCP says), or
    /// `cancelled`. `tasks/cancel` cancels the call as a client's `notifications/cancelled`
    /// does (its [`CallContext`](crate::tool::CallContext) is cancelled, its future runs out its
    /// grace); the task ends `cancelled` with a status message for the model saying the call
    /// may have taken effect in part. A client that does not declare the extension gets plain
    /// results, and [`with_tasks_for`](Self::with_tasks_for) chooses which calls become tasks
    /// (all of them unless it is called). A call that needs approval is approved first, in the
    /// `tools/call` request. A task's tool reports no progress and no log lines to the client,
    /// and cannot reach it with [`caller`](super::caller), but it can [`ask`](super::ask) as at
    /// 2026-07-28: the task is then `input_required`, `tasks/get` gives its questions, and once
    /// the client has answered all of them with `tasks/update` the call runs again, from its
    /// start, with the answers ([`answer`](super::answer)). The end of each task, and each
    /// new question, is sent as `notifications/tasks` to the client that created it (or sent
    /// the answers the task went on with).
    ///
    /// Each task is a run of the journal (`mcp-task/{id}`), written with the agent runs'
    /// discipline: the call before it starts (and, for a tool that is not read-only or
    /// idempotent, an intent just before each run), its questions and each answer, its result
    /// once known, all durably. A task waiting for answers waits across a restart. A server
    /// killed at any instant and started again on the same journal answers `tasks/get` for
    /// every task it created: a finished one with its result; one cut off while its read-only or
    /// idempotent tool ran by running it again; one cut off in any other tool with a result
    /// saying that its outcome is unknown, never by running it again. Give a journal to one
    /// server process at a time: a task running in one process looks cut off to another. A
    /// server started again after it was killed takes back at once the tasks its killed self
    /// held: `SqliteJournal` knows that process is gone (its lock is dropped with it).
    ///
    /// ```no_run
    /// # #[cfg(feature = "durable")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use skyl::durable::SqliteJournal;
    /// use skyl::mcp::Server;
    ///
    /// /// Renders the monthly report.
    /// #[skyl::tool(idempotent)]
    /// fn render_report(month: String) -> String {
    ///     format!("the report of {month}")
    /// }
    ///
    /// let journal = SqliteJournal::open("tasks.db")?.with_owner("report-server");
    /// let server = Server::new(skyl::Toolbox::new().with(RenderReport)).with_task_journal(journal);
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// # #[cfg(not(feature = "durable"))]
    /// # fn main() {}
    /// ```
    pub fn with_task_journal(mut self, journal: impl crate::agent::Journal + 'static) -> Self {
        self.tasks = Some(Arc::new(Tasks::new(Arc::new(journal), self.poll_interval)));
        self.config
            .capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                rmcp::model::JsonObject::new(),
            );
        self
    }

    /// Chooses which calls become tasks, once [`with_task_journal`](Self::with_task_journal)
    /// serves them (given before it or after): those for which `makes_task` holds (for
    /// example, those of the tools that take long); the others are answered with their result
    /// as without tasks.
    pub fn with_tasks_for(
        mut self,
        makes_task: impl Fn(&ToolCall, &ToolDefinition) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.makes_task = Arc::new(makes_task);
        self
    }

    /// Chooses which calls run only as tasks, once [`with_task_journal`](Self::with_task_journal)
    /// serves them (given before it or after): those for which `requires_task` holds become
    /// tasks whatever [`with_tasks_for`](Self::with_tasks_for) says, and a client that does not
    /// declare the tasks extension is answered with the error -32021 (missing required client
    /// capability, its `data` naming the extension) and prose saying what to declare; the
    /// tool does not run, and nothing is asked first. Before 2026-07-28, `tools/list` (over
    /// [`serve_stdio`](Self::serve_stdio) and `serve_http`) says so of each tool
    /// (`execution.taskSupport`: `required`, and `optional` for the others): a tool is listed
    /// `required` when `requires_task` holds for a call of it with no arguments, so decide by
    /// the call's name or the tool's definition for the list and the calls to agree.
    ///
    /// ```
    /// use skyl::mcp::Server;
    ///
    /// /// Re-indexes the whole archive.
    /// #[skyl::tool]
    /// async fn reindex() -> &'static str {
    ///     "re-indexed"
    /// }
    ///
    /// # #[cfg(feature = "durable")]
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let journal = skyl::durable::SqliteJournal::open("tasks.db")?;
    /// let server = Server::new(skyl::Toolbox::new().with(Reindex))
    ///     .with_task_journal(journal)
    ///     .with_tasks_required_for(|call, _| call.name == "reindex");
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// # #[cfg(not(feature = "durable"))]
    /// # fn main() {}
    /// ```
    pub fn with_tasks_required_for(
        mut self,
        requires_task: impl Fn(&ToolCall, &ToolDefinition) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.requires_task = Arc::new(requires_task);
        self
    }

    /// Chooses what a call asks its client before its task is created (SEP-2663's input rounds
    /// before a task): `asks(call, answers)` gives the questions still to ask, given the
    /// answers so far, and none once it has what it needs. While it gives some, the
    /// `tools/call` is answered with an input-required result holding them and a signed request
    /// state (as a tool's [`ask`](super::ask) at 2026-07-28 is); the client calls again with
    /// the answers; once it gives none, the task is created, and its tool finds every answer
    /// with [`answer`](super::answer), in each of its runs and after a restart. Nothing runs
    /// before. A client of an earlier revision that takes tasks is asked during the
    /// `tools/call` instead (`elicitation/create`), before its task is created.
    ///
    /// ```
    /// use serde_json::json;
    /// use skyl::mcp::Server;
    /// use skyl::mcp::rmcp::model::InputRequests;
    ///
    /// /// Exports the account's data, in the format the person chose.
    /// #[skyl::tool]
    /// async fn export() -> String {
    ///     let format = skyl::mcp::answer("format");
    ///     format!("exported as {}", format.map_or("json".into(), |f| f["content"]["format"].to_string()))
    /// }
    ///
    /// let server = Server::new(skyl::Toolbox::new().with(Export)).with_questions_before_task(
    ///     |call, answers| {
    ///         let mut asked = InputRequests::new();
    ///         if call.name == "export" && !answers.contains_key("format") {
    ///             let question = json!({"method": "elicitation/create", "params": {
    ///                 "mode": "form",
    ///                 "message": "Which format?",
    ///                 "requestedSchema": {"type": "object", "properties": {"format": {"type": "string"}}}
    ///             }});
    ///             asked.insert("format".into(), serde_json::from_value(question).unwrap());
    ///         }
    ///         asked
    ///     },
    /// );
    /// # let _ = server;
    /// ```
    pub fn with_questions_before_task(
        mut self,
        asks: impl Fn(&ToolCall, &InputResponses) -> InputRequests + Send + Sync + 'static,
    ) -> Self {
        self.asks_before_task = Arc::new(asks);
        self
    }

    /// How often clients are asked to poll a task (`pollIntervalMs`), once
    /// [`with_task_journal`](Self::with_task_journal) serves them (given before it or after).
    pub fn with_task_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        if let Some(tasks) = &mut self.tasks {
            *tasks = Arc::new(tasks.with_poll_interval(interval));
        }
        self
    }

    /// How long the tasks still running when [`serve`](Self::serve) or
    /// [`serve_stdio`](Self::serve_stdio) ends (the client closed stdin or the connection) get
    /// to finish before it returns: 30 s unless set. Each task running then ends into the
    /// journal with its result; one still running after `grace` is cancelled (its
    /// [`CallContext`](crate::tool::CallContext) is, as `tasks/cancel` does: the task ends
    /// `cancelled`) and gets `grace` again to record it. So a task the client created just
    /// before it went away runs its tool, and a server started again on the journal answers
    /// it with its result, never with "outcome unknown" for a tool that did not run.
    pub fn with_task_shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// How a task's call runs: through the toolbox, as a `tools/call` would, cancelled when
    /// the task is.
    fn runner(&self) -> Runner {
        let tools = Arc::clone(&self.tools);
        Arc::new(move |id, created, answers, cancelled| {
            let tools = Arc::clone(&tools);
            Box::pin(async move {
                let call = ToolCall::new(id, created.tool, created.arguments);
                // A task's tool asks as a call at 2026-07-28 does (`ask`); the task then waits
                // for the answers, which `tasks/update` brings, and the call runs again.
                let capabilities = created.capabilities;
                let inputs = Arc::new(caller::Inputs::new(answers, capabilities.clone(), true));
                let dispatch = tools.toolbox.dispatch_rich(&call, None, cancelled);
                let Some(answered) = caller::with_inputs(Arc::clone(&inputs), dispatch).await
                else {
                    return Ran::Cancelled;
                };
                let asked = inputs.take_asked();
                if let Some(missing) = undeclared(&asked, capabilities) {
                    return Ran::Failed(missing_capability(&call.name, missing));
                }
                if !asked.is_empty() {
                    return Ran::Asked(asked);
                }
                Ran::Answered(content::to_mcp(answered, created.structured))
            })
        })
    }

    /// The name and version the server gives clients in the handshake.
    pub fn with_name(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.config.server_info = Implementation::new(name, version);
        self
    }

    /// Instructions the client may show the model: how the tools fit together.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.config.instructions = Some(instructions.into());
        self
    }

    /// Chooses which calls need a person's approval before they run: those for which
    /// `needs_approval` holds. Unless this is called, they are the calls of tools whose
    /// annotations say they are destructive (`#[tool(destructive)]`; not a tool that says
    /// nothing, which MCP presumes destructive); `|_, _| false` approves nothing.
    ///
    /// Before such a call runs, the server asks the client to ask its user
    /// (`elicitation/create`: a message naming the tool and its arguments, and a boolean
    /// `approve`, true unless the person unticks it). The tool runs when the client answers
    /// `accept` with `approve` not false. When the person declines or dismisses the question, or
    /// the client did not declare the elicitation capability, the tool does not run and the
    /// client receives an error result saying why, for its model to read.
    ///
    /// ```
    /// use skyl::mcp::Server;
    ///
    /// /// Sends an email.
    /// #[skyl::tool]
    /// fn send_email(to: String, body: String) -> String {
    ///     format!("sent to {to}: {body}")
    /// }
    ///
    /// // Every call of send_email waits for the user's approval.
    /// let server = Server::new(skyl::Toolbox::new().with(SendEmail))
    ///     .with_approval(|call, _| call.name == "send_email");
    /// # let _ = server;
    /// ```
    pub fn with_approval(
        mut self,
        needs_approval: impl Fn(&ToolCall, &ToolDefinition) -> bool + Send + Sync + 'static,
    ) -> Self {
        // The toolbox and its listing are shared with clones of this server; the rule is not.
        let tools = Tools {
            toolbox: Arc::clone(&self.tools.toolbox),
            listed: self.tools.listed.clone(),
            structured: self.tools.structured.clone(),
            needs_approval: Arc::new(needs_approval),
        };
        self.tools = Arc::new(tools);
        self
    }

    /// The key that signs the request state of the approvals this server asks for in
    /// input-required results (MCP 2026-07-28, SEP-2322), in place of the random one each
    /// server is made with.
    ///
    /// A client sends the state back with the person's answer, to any instance of the server:
    /// give every instance behind one URL the same key (a secret, such as 32 bytes from the
    /// system's random source kept with the deployment's other secrets), so that one checks
    /// what another signed. A state that was not signed with it, or was signed for another call,
    /// is refused (`-32602`), and the tool does not run.
    ///
    /// ```
    /// use skyl::mcp::Server;
    ///
    /// let key = [7u8; 32]; // in a real deployment, a secret
    /// let server = Server::new(skyl::Toolbox::new()).with_state_key(key);
    /// # let _ = server;
    /// ```
    pub fn with_state_key(mut self, key: [u8; 32]) -> Self {
        self.states = Arc::new(RequestStates::new(&key));
        self
    }

    /// The caching hints of MCP 2026-07-28 (SEP-2549) on every list (`tools/list`,
    /// `prompts/list`, `resources/list`, `resources/templates/list`) and every `resources/read`:
    /// how long a client may reuse the answer (`ttlMs`, `ttl` in milliseconds) and who may
    /// (`cacheScope`: `Private`, the requesting user's client only; `Public`, any client or
    /// intermediary). Unless set, `ttlMs: 0` and `cacheScope: "private"`: reuse nothing. A
    /// server's lists do not change while it runs, so a longer time suits them; give one only
    /// if the contents of its resources stay as long, as the same hints cover the reads.
    /// Before 2026-07-28 no result carries hints.
    ///
    /// ```
    /// use std::time::Duration;
    /// use skyl::mcp::Server;
    /// use skyl::mcp::rmcp::model::CacheScope;
    ///
    /// let server = Server::new(skyl::Toolbox::new())
    ///     .with_cache_hints(Duration::from_secs(300), CacheScope::Public);
    /// # let _ = server;
    /// ```
    pub fn with_cache_hints(mut self, ttl: Duration, scope: rmcp::model::CacheScope) -> Self {
        let ttl = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        self.cache_hints = Some((ttl, scope));
        self
    }

    /// The caching hints a list or read answering `context` carries, when the user gave some
    /// and the client speaks 2026-07-28 (rmcp fills its defaults in otherwise).
    fn hints_for(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> (Option<u64>, Option<rmcp::model::CacheScope>) {
        match &self.cache_hints {
            Some((ttl, scope)) if speaks_input_required(context) => (Some(*ttl), Some(*scope)),
            _ => (None, None),
        }
    }

    /// The toolbox being served.
    pub fn toolbox(&self) -> &Arc<Toolbox<S>> {
        &self.tools.toolbox
    }

    /// How a call of `tool` runs as a task, as MCP 2025-11-25's `execution.taskSupport` says it:
    /// `required` when [`with_tasks_required_for`](Self::with_tasks_required_for) holds for a
    /// call of it without arguments, else `optional`, once a journal serves tasks; `None`
    /// (`forbidden`) without one, or for a tool the toolbox does not have.
    fn task_support(&self, tool: &str) -> Option<&'static str> {
        self.tasks.as_ref()?;
        let definition = self.tools.toolbox.definition(tool)?;
        let call = ToolCall::new("tools/list", tool, Value::Object(Default::default()));
        Some(if (self.requires_task)(&call, definition) {
            "required"
        } else {
            "optional"
        })
    }

    /// Serves one client on this process's stdin and stdout, until the client closes stdin
    /// (and the tasks it left running have ended: see
    /// [`with_task_shutdown_grace`](Self::with_task_shutdown_grace)).
    ///
    /// This is how Claude Desktop, Cursor and the MCP inspector run a local server: they start
    /// the process and speak JSON-RPC on its standard streams. Only JSON-RPC is written to
    /// stdout. Needs a tokio runtime with I/O enabled (`#[tokio::main]` has one).
    ///
    /// A message is one line of at most 16 MiB (16,777,216 bytes, its newline not counted). What
    /// is not a message is answered as JSON-RPC 2.0 says, and the server goes on: a line that is
    /// not JSON (or nests arrays and objects more than 128 deep) with a parse error (-32700, `id`
    /// null), JSON that is not a request with an invalid request error (-32600, with the
    /// request's `id` when it has a readable one), and a longer line with an invalid request error
    /// too, with its `id` if one was found while it was skipped (it is never held in memory
    /// whole). A notification is never answered.
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        let (input, output) = rmcp::transport::stdio_pipes();
        self.serve(stdio::Lines::new(input, output, stdio::MAX_MESSAGE))
            .await
    }

    /// Serves one client on any rmcp transport (an `AsyncRead + AsyncWrite` pair such as a
    /// [`tokio::io::duplex`] half, a socket, a child's pipes), until the client disconnects.
    pub async fn serve<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let tasks = self.tasks.clone();
        let grace = self.shutdown_grace;
        let running = match ServiceExt::serve(self, transport).await {
            Ok(running) => running,
            // The client went away before it said anything: nothing was asked, nothing failed.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(error) => return Err(ServeError::Handshake(Box::new(error))),
        };
        let stopped = running.waiting().await;
        // The tasks the client left running end into the journal before the process may exit.
        if let Some(tasks) = tasks {
            tasks.drain(grace).await;
        }
        match stopped {
            Ok(_) => Ok(()),
            Err(error) => Err(ServeError::Stopped(Box::new(error))),
        }
    }

    /// The answer to a call that needs the person's approval and does not have it: the question
    /// (an input-required round at 2026-07-28, an elicitation before) or the refusal as a
    /// result; `None` when the call needs none or was approved.
    async fn unapproved(
        &self,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
        answers: &InputResponses,
        modern: bool,
    ) -> Result<Option<CallToolResponse>, ErrorData> {
        let Some(definition) = self.tools.toolbox.definition(&call.name) else {
            return Ok(None);
        };
        if !(self.tools.needs_approval)(call, definition) {
            return Ok(None);
        }
        let decided = if modern {
            match approval::round(&self.states, call, context, answers)? {
                approval::Round::Ask(asked) => return Ok(Some(asked.into())),
                approval::Round::Decided(decided) => decided,
            }
        } else {
            approval::approved(call, context).await
        };
        Ok(decided.err().map(|refused| failed(call, &refused)))
    }

    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(&structured) = self.tools.structured.get(request.name.as_ref()) else {
            // MCP makes an unknown tool a protocol error; its message is what hosts show the model.
            let prose = crate::prose::unknown_tool(&request.name, self.tools.toolbox.names());
            return Err(ErrorData::new(ErrorCode::INVALID_PARAMS, prose, None));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(context.id.to_string(), request.name, arguments);
        // At 2026-07-28 a question goes in an input-required result, and its answer comes back
        // in the call sent again, with the request state this server signed: the answers of
        // the earlier rounds, bound to this call.
        let takes_tasks = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        let definition = self.tools.toolbox.definition(&call.name);
        let required = self.tasks.is_some()
            && definition.is_some_and(|definition| (self.requires_task)(&call, definition));
        if required && !takes_tasks {
            return Err(task_required(&call.name));
        }
        let modern = speaks_input_required(&context);
        let mut answers = InputResponses::new();
        if modern {
            if let Some(state) = &request.request_state {
                answers = self.states.opened(&call, state)?;
            }
            answers.extend(request.input_responses.unwrap_or_default());
        }
        if let Some(answered) = self.unapproved(&call, &context, &answers, modern).await? {
            return Ok(answered);
        }
        if let Some(tasks) = &self.tasks
            && takes_tasks
            && let Some(definition) = definition
            && (required || (self.makes_task)(&call, definition))
        {
            let answers = match self.before_task(&call, &context, answers, modern).await? {
                BeforeTask::Answered(answers) => answers,
                BeforeTask::Asking(asked) => return Ok(asked.into()),
                BeforeTask::Failed(cause) => return Ok(failed(&call, &cause)),
            };
            let task = self
                .create_task(tasks, &call, definition, structured, answers, &context, "")
                .await?;
            return Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(
                task,
            )));
        }
        // Before 2026-07-28 the server may ask the client during the call: what the tool asks
        // (`skyl::mcp::ask`) is sent to the client as its own request, and the tool runs again,
        // from its start, with the answers, until it asks nothing more.
        for round in 0..=MOST_ROUNDS_DURING_CALL {
            let inputs = Arc::new(caller::Inputs::new(
                answers.clone(),
                context.client_capabilities(),
                true,
            ));
            let Some(answered) = self.dispatch(&call, &context, &inputs).await else {
                // rmcp sends no response for a request the client cancelled.
                return Err(ErrorData::new(
                    ErrorCode::INTERNAL_ERROR,
                    "the client cancelled the call",
                    None,
                ));
            };
            // The tool asked (`skyl::mcp::ask`): its questions are the answer, unless it asked
            // what the client did not say it can answer.
            let asked = inputs.take_asked();
            if let Some(missing) = undeclared(&asked, context.client_capabilities()) {
                return Err(missing_capability(&call.name, missing));
            }
            if asked.is_empty() {
                return Ok(content::to_mcp(answered, structured).into());
            }
            if modern {
                let state = self.states.sealed(&call, &answers);
                return Ok(InputRequiredResult::new(Some(asked), Some(state)).into());
            }
            if round == MOST_ROUNDS_DURING_CALL {
                break;
            }
            match caller::asked_during_call(&context, asked).await {
                Ok(given) => answers.extend(given),
                Err(cause) => {
                    return Ok(failed(&call, &prose::question_failed(&call.name, &cause)));
                }
            }
        }
        let cause = prose::asked_too_often(&call.name, MOST_ROUNDS_DURING_CALL);
        Ok(failed(&call, &cause))
    }

    /// What `call` asks before its task is created ([`Server::with_questions_before_task`]),
    /// with `answers` so far: every answer once it asks nothing more, or, at 2026-07-28 (`modern`),
    /// the questions handed back to the client; before it, the questions are asked during the
    /// call, and a failure of theirs is why the call fails.
    async fn before_task(
        &self,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
        mut answers: InputResponses,
        modern: bool,
    ) -> Result<BeforeTask, ErrorData> {
        for _ in 0..=MOST_ROUNDS_DURING_CALL {
            let asked = (self.asks_before_task)(call, &answers);
            if let Some(missing) = undeclared(&asked, context.client_capabilities()) {
                return Err(missing_capability(&call.name, missing));
            }
            if asked.is_empty() {
                return Ok(BeforeTask::Answered(answers));
            }
            if modern {
                let state = self.states.sealed(call, &answers);
                return Ok(BeforeTask::Asking(InputRequiredResult::new(
                    Some(asked),
                    Some(state),
                )));
            }
            match caller::asked_during_call(context, asked).await {
                Ok(given) => answers.extend(given),
                Err(cause) => {
                    let cause = prose::question_failed(&call.name, &cause);
                    return Ok(BeforeTask::Failed(cause));
                }
            }
        }
        let cause = prose::asked_too_often(&call.name, MOST_ROUNDS_DURING_CALL);
        Ok(BeforeTask::Failed(cause))
    }

    /// Records a task for `call` of the tool `definition`, with the answers given before it,
    /// and starts it; its id begins with `id_prefix`.
    #[allow(clippy::too_many_arguments)]
    async fn create_task(
        &self,
        tasks: &Arc<Tasks>,
        call: &ToolCall,
        definition: &ToolDefinition,
        structured: bool,
        answers: InputResponses,
        context: &RequestContext<RoleServer>,
        id_prefix: &str,
    ) -> Result<rmcp::model::Task, ErrorData> {
        let reruns =
            definition.annotations.is_read_only() || definition.annotations.is_idempotent();
        let created = tasks::Created::new(
            call.name.clone(),
            call.arguments.clone(),
            reruns,
            structured,
            context.client_capabilities(),
        )
        .with_answers(answers);
        tasks
            .create(created, self.runner(), context.peer.clone(), id_prefix)
            .await
    }

    /// The answer to `request` if it is one of 2025-11-25's tasks, which the transports renamed
    /// ([`wire::rename`](legacy_tasks::wire::rename)); `None` for any other.
    async fn legacy_task_request(
        &self,
        request: &rmcp::model::CustomRequest,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        use legacy_tasks::wire::Renamed;

        let renamed = Renamed::of(request)?;
        let served = self.tasks.as_ref().map(|tasks| LegacyTasks {
            tasks,
            runner: self.runner(),
            grace: self.shutdown_grace,
        });
        Some(match (renamed, &served) {
            (Renamed::Call(params), _) => self.legacy_call(params, context).await,
            (Renamed::ListTools, _) => Ok(legacy_tasks::tools_listed(
                self.tools.listed.clone(),
                |name| self.task_support(name),
            )),
            (Renamed::List(params), Some(served)) => served.list(params).await,
            (Renamed::List(_), None) => Err(legacy_tasks::no_list()),
            (Renamed::Get(id), Some(served)) => served.get(&id).await,
            (Renamed::Result(id), Some(served)) => served.result(&id, context).await,
            (Renamed::Cancel(id), Some(served)) => served.cancel(&id).await,
            (Renamed::Get(_) | Renamed::Result(_) | Renamed::Cancel(_), None) => {
                Err(legacy_tasks::no_tasks())
            }
        })
    }

    /// A `tools/call` with a `task` parameter: the call made a task, answered with 2025-11-25's
    /// `CreateTaskResult` (`{"task": ...}`), or refused before anything runs.
    async fn legacy_call(
        &self,
        params: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let request: CallToolRequestParams =
            serde_json::from_value(params.cloned().unwrap_or_default()).map_err(|error| {
                ErrorData::invalid_params(format!("Invalid params for `tools/call`: {error}"), None)
            })?;
        let Some(tasks) = &self.tasks else {
            let refused = prose::task_parameter_refused(&request.name);
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, refused, None));
        };
        let (Some(&structured), Some(definition)) = (
            self.tools.structured.get(request.name.as_ref()),
            self.tools.toolbox.definition(&request.name),
        ) else {
            let prose = crate::prose::unknown_tool(&request.name, self.tools.toolbox.names());
            return Err(ErrorData::new(ErrorCode::INVALID_PARAMS, prose, None));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let call = ToolCall::new(context.id.to_string(), request.name, arguments);
        // Approved first, during the call, as a plain call of this revision is.
        if (self.tools.needs_approval)(&call, definition)
            && let Err(refused) = approval::approved(&call, context).await
        {
            return Err(ErrorData::new(ErrorCode::INVALID_REQUEST, refused, None));
        }
        let answers = match self
            .before_task(&call, context, InputResponses::new(), false)
            .await?
        {
            BeforeTask::Answered(answers) => answers,
            BeforeTask::Failed(cause) => {
                return Err(ErrorData::new(ErrorCode::INVALID_REQUEST, cause, None));
            }
            // Asked during the call at this revision: questions are never handed back sealed.
            BeforeTask::Asking(_) => {
                let cause = "a 2025-11-25 task's questions were to be sealed in a request state";
                return Err(ErrorData::internal_error(cause, None));
            }
        };
        let task = self
            .create_task(
                tasks,
                &call,
                definition,
                structured,
                answers,
                context,
                legacy_tasks::wire::ID_PREFIX,
            )
            .await?;
        Ok(CustomResult(
            serde_json::json!({"task": legacy_tasks::wire::shape(&task)}),
        ))
    }

    /// One run of `call` through the toolbox, with `inputs` as what the tool's [`ask`] and
    /// [`answer`] see; `None` when the client cancelled it.
    ///
    /// [`ask`]: super::ask
    /// [`answer`]: super::answer
    async fn dispatch(
        &self,
        call: &ToolCall,
        context: &RequestContext<RoleServer>,
        inputs: &Arc<caller::Inputs>,
    ) -> Option<crate::toolbox::RichResult> {
        // What the tool reports through its context goes to the client as notifications, sent
        // here in the order it was made, and all of it before the result.
        let (notifier, mut notices) = notify::channel(context.meta.get_progress_token());
        // At 2026-07-28 each request says the level it wants, or gets no log lines.
        let of_request;
        let log_level = if speaks_input_required(context) {
            of_request = LevelFilter::of_request(context.meta.log_level());
            &of_request
        } else {
            &self.log_level
        };
        // The client's cancellation cancels the call's context, and the tool's future runs out
        // its grace (the toolbox's `with_cancel_grace`) before the dispatch ends.
        let dispatch = caller::answering(
            context.peer.clone(),
            self.tools.toolbox.dispatch_rich(
                call,
                Some(Arc::new(notifier)),
                context.ct.cancelled(),
            ),
        );
        let mut dispatch = std::pin::pin!(caller::with_inputs(Arc::clone(inputs), dispatch));
        loop {
            tokio::select! {
                biased;
                Some(report) = notices.next() => {
                    notices.send(&context.peer, log_level, report).await;
                }
                answered = &mut dispatch => {
                    if answered.is_some() {
                        for report in notices.pending() {
                            notices.send(&context.peer, log_level, report).await;
                        }
                    }
                    return answered;
                }
            }
        }
    }
}

/// The prompts and resources beside the tools (`catalog.rs` holds them).
impl<S: Send + Sync + 'static> Server<S> {
    /// Offers `prompt` beside the tools: `prompts/list` lists it and `prompts/get` gets its
    /// messages. The server declares the `prompts` and `completions` capabilities.
    ///
    /// # Panics
    ///
    /// If the server already has a prompt of that name: a client could not tell them apart.
    pub fn with_prompt(mut self, prompt: impl prompt::ServedPrompt) -> Self {
        Arc::make_mut(&mut self.catalog)
            .add_prompt(Arc::new(prompt), &mut self.config.capabilities);
        self
    }

    /// Offers the prompts and resources of `set`: the `#[prompt]` and `#[resource]` methods of a
    /// `#[skyl::served]` impl block, each holding the instance.
    ///
    /// # Panics
    ///
    /// As [`with_prompt`](Self::with_prompt) and [`with_resource`](Self::with_resource) do.
    pub fn with_served<T: catalog::ServedSet>(mut self, set: impl Into<Arc<T>>) -> Self {
        let set = set.into();
        let catalog = Arc::make_mut(&mut self.catalog);
        for prompt in Arc::clone(&set).prompts() {
            catalog.add_prompt(Arc::from(prompt), &mut self.config.capabilities);
        }
        for resource in set.resources() {
            catalog.add_resource(Arc::from(resource), &mut self.config.capabilities);
        }
        self
    }

    /// Offers `resource` beside the tools: `resources/list` lists a resource at one URI,
    /// `resources/templates/list` a template (a URI with `{variables}`), and `resources/read`
    /// reads either. The server declares the `resources` capability (with `subscribe`) and
    /// `completions`.
    ///
    /// # Panics
    ///
    /// If its URI is not a template skyl reads (`{name}` for a segment, `{+name}` for any text),
    /// or the server already has a resource at that URI.
    pub fn with_resource(mut self, resource: impl resource::ServedResource) -> Self {
        let resource = Arc::new(resource);
        Arc::make_mut(&mut self.catalog).add_resource(resource, &mut self.config.capabilities);
        self
    }

    /// A handle that tells the clients subscribed to a resource that it changed, once the
    /// server is serving: keep it before [`serve`](Self::serve) takes the server.
    pub fn resource_updates(&self) -> catalog::ResourceUpdates {
        self.catalog.updates()
    }
}

/// Serving over HTTP (`http.rs` holds how).
#[cfg(feature = "mcp-http")]
impl<S: Send + Sync + 'static> Server<S> {
    /// Serves HTTP without sessions: each request is answered on its own, by whichever process
    /// gets it, so several server processes can sit behind a load balancer without session
    /// affinity. Answers are plain JSON unless a tool sends notifications first.
    ///
    /// What a session carries is then not there: a tool cannot ask the client something mid-call
    /// ([`caller`](crate::mcp::caller) is there, but the client's answer would reach another
    /// process), and the server cannot send a notification outside a call.
    pub fn with_stateless_http(mut self) -> Self {
        self.http = self.http.stateless();
        self
    }

    /// The names (`host` or `host:port`) an HTTP request's `Host` may be, over
    /// [`serve_http`](Self::serve_http) and [`http_service`](Self::http_service); unless set,
    /// the loopback names only (`localhost`, `127.0.0.1`, `::1`). A request addressed to another
    /// name is refused (403): rmcp's protection against DNS rebinding, which keeps a web page
    /// from reaching a server on the person's machine through a name of its own. Name the
    /// hosts clients connect to when serving beyond the machine. An empty list lets every name
    /// through: only for a server behind a proxy that checks them.
    ///
    /// ```
    /// let server = skyl::mcp::Server::new(skyl::Toolbox::new())
    ///     .with_allowed_hosts(["tools.example.com", "tools.example.com:8443"]);
    /// # let _ = server;
    /// ```
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.http = self
            .http
            .allowing(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// Requires a bearer token on every HTTP request, checked by `authorization` (see
    /// [`Authorization`](crate::mcp::Authorization)); [`serve_http`](Self::serve_http) also
    /// serves the protected-resource metadata document that tells a client where to get one.
    ///
    /// A tool server on HTTP can run real effects: without this, anyone who can reach the port
    /// can call its tools. [`serve_http`](Self::serve_http) without authorization answers only
    /// requests addressed to a loopback host. The check is `serve_http`'s:
    /// [`http_service`](Self::http_service) refuses a server given one.
    pub fn with_authorization(mut self, authorization: authorization::Authorization) -> Self {
        self.http = self.http.authorized_by(authorization);
        self
    }

    /// Serves MCP's streamable HTTP transport on `listener`, at every path, until the returned
    /// future is dropped (which also ends the sessions it started) or accepting fails.
    ///
    /// A POST body is one message of at most 4 MiB (rmcp's limit): a longer one is answered 413,
    /// and one that is not a message 400, each with a JSON-RPC error response as
    /// [`serve_stdio`](Self::serve_stdio) would answer it (rmcp alone answers 415 in plain text).
    ///
    /// Each client gets its own session. rmcp's protection against DNS rebinding accepts only
    /// requests addressed to `localhost`, `127.0.0.1` or `::1` unless
    /// [`with_allowed_hosts`](Self::with_allowed_hosts) names others. To mount MCP beside other
    /// routes, build your own router around [`http_service`](Self::http_service).
    ///
    /// ```no_run
    /// # async fn run(server: skyl::mcp::Server) -> Result<(), skyl::mcp::ServeError> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8000").await?;
    /// server.serve_http(listener).await // clients connect to http://127.0.0.1:8000/mcp
    /// # }
    /// ```
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
        let options = self.http.clone();
        let serves_tasks = self.tasks.is_some();
        options.serve(self, serves_tasks, listener).await
    }

    /// The streamable HTTP endpoint as a tower service (rmcp's, with a session per client), to
    /// put in a router of your own (axum's `Router::nest_service("/mcp", ...)`).
    ///
    /// It answers as rmcp does: what [`serve_http`](Self::serve_http) puts in front of it is
    /// not there (a body rmcp cannot read answered as JSON-RPC's error with 400, 200 for a
    /// client that ends its session, 404 and -32601 for `initialize` and `logging/setLevel` at
    /// 2026-07-28), and neither is [`with_authorization`](Self::with_authorization)'s check:
    /// put your router's own authorization in front of it.
    ///
    /// # Panics
    ///
    /// If the server was given [`with_authorization`](Self::with_authorization): the service
    /// would serve the tools to anyone, while the server says they need a token.
    #[track_caller]
    pub fn http_service(
        self,
    ) -> rmcp::transport::StreamableHttpService<
        Server<S>,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    > {
        assert!(
            !self.http.authorizes(),
            "Server::http_service cannot check the authorization given with \
             Server::with_authorization (serve_http checks it, in front of the service), so \
             the tools would be served to anyone: serve with serve_http, or leave \
             with_authorization out and put your router's own authorization in front of the \
             service"
        );
        let options = self.http.clone();
        options.service(self, rmcp::transport::StreamableHttpServerConfig::default())
    }
}

/// How many times a served call of a client before 2026-07-28 is asked during the call, at
/// most, before it is answered that its tool asks too often.
const MOST_ROUNDS_DURING_CALL: usize = 16;

/// The failed result of `call`, with `prose`.
/// What the questions a call asks before its task is created came to.
enum BeforeTask {
    /// Every question answered: the task is created with these answers.
    Answered(InputResponses),
    /// At 2026-07-28, the questions handed back to the client, sealed with what is answered so far.
    Asking(InputRequiredResult),
    /// The client could not be asked, or was asked too often: why, for the call's answer.
    Failed(String),
}

fn failed(call: &ToolCall, prose: &str) -> CallToolResponse {
    let failed = ToolResult::error(call.id.as_str(), prose);
    content::to_mcp(failed.into(), false).into()
}

/// The capabilities the questions `asked` need that `declared` lacks, if any: "If processing a
/// request requires a capability the client did not include in clientCapabilities, the server
/// MUST return a MissingRequiredClientCapabilityError" (2026-07-28, SEP-2575).
fn undeclared(
    asked: &InputRequests,
    declared: Option<ClientCapabilities>,
) -> Option<ClientCapabilities> {
    let declared = declared.unwrap_or_default();
    let mut missing = ClientCapabilities::default();
    for request in asked.values() {
        match request {
            InputRequest::Elicitation(_) if declared.elicitation.is_none() => {
                missing.elicitation = Some(Default::default());
            }
            InputRequest::CreateMessage(_) if declared.sampling.is_none() => {
                missing.sampling = Some(Default::default());
            }
            InputRequest::ListRoots(_) if declared.roots.is_none() => {
                missing.roots = Some(Default::default());
            }
            _ => {}
        }
    }
    (missing != ClientCapabilities::default()).then_some(missing)
}

/// The error -32021 for a call of `tool` that asked what the client did not declare it can
/// answer (`missing`): rmcp's code and data, and prose naming each capability and what the
/// client should declare.
fn missing_capability(tool: &str, missing: ClientCapabilities) -> ErrorData {
    let named: Vec<&str> = [
        (missing.elicitation.is_some(), "elicitation"),
        (missing.sampling.is_some(), "sampling"),
        (missing.roots.is_some(), "roots"),
    ]
    .into_iter()
    .filter_map(|(lacks, name)| lacks.then_some(name))
    .collect();
    let mut error = ErrorData::missing_required_client_capability(missing);
    error.message = prose::capability_missing(tool, &named).into();
    error
}

/// The error -32021 for a call of `tool`, which runs only as a task, from a client that did not
/// declare the tasks extension: its `data` names the extension, as SEP-2663 shows.
fn task_required(tool: &str) -> ErrorData {
    let mut required = ClientCapabilities::default();
    required
        .extensions
        .get_or_insert_with(Default::default)
        .insert(
            rmcp::model::TASKS_EXTENSION_ID.to_owned(),
            rmcp::model::JsonObject::new(),
        );
    let mut error = ErrorData::missing_required_client_capability(required);
    error.message = prose::task_required(tool).into();
    error
}

impl<S> Clone for Server<S> {
    fn clone(&self) -> Self {
        Server {
            tools: Arc::clone(&self.tools),
            config: self.config.clone(),
            log_level: self.log_level.clone(),
            states: Arc::clone(&self.states),
            #[cfg(feature = "mcp-http")]
            http: self.http.clone(),
            tasks: self.tasks.clone(),
            makes_task: Arc::clone(&self.makes_task),
            requires_task: Arc::clone(&self.requires_task),
            asks_before_task: Arc::clone(&self.asks_before_task),
            poll_interval: self.poll_interval,
            shutdown_grace: self.shutdown_grace,
            catalog: Arc::clone(&self.catalog),
            cache_hints: self.cache_hints,
        }
    }
}

impl<S: Send + Sync + 'static> fmt::Debug for Server<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.config.server_info.name)
            .field("toolbox", &self.tools.toolbox)
            .finish_non_exhaustive()
    }
}

impl<S: Send + Sync + 'static> ServerHandler for Server<S> {
    fn get_info(&self) -> ServerConfig {
        self.config.clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = ListToolsResult::with_all_items(self.tools.listed.clone());
        (listed.ttl_ms, listed.cache_scope) = self.hints_for(&context);
        Ok(listed)
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        self.tools
            .listed
            .iter()
            .find(|tool| tool.name == name)
            .cloned()
    }

    // MCP logging is deprecated in rmcp (see `notify.rs`), yet clients speak it today.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_level.set(request.level);
        Ok(())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context).await
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        let Some(tasks) = &self.tasks else {
            return Err(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>());
        };
        let task = tasks.get(&request.task_id, self.runner()).await?;
        Ok(rmcp::model::GetTaskResult::new(task))
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(tasks) = &self.tasks else {
            return Err(ErrorData::method_not_found::<rmcp::model::CancelTaskMethod>());
        };
        tasks.cancel(&request.task_id).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(tasks) = &self.tasks else {
            return Err(ErrorData::method_not_found::<rmcp::model::UpdateTaskMethod>());
        };
        tasks
            .update(
                &request.task_id,
                request.input_responses,
                self.runner(),
                Some(context.peer.clone()),
            )
            .await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, ErrorData> {
        let mut listed = self.catalog.prompts_listed();
        (listed.ttl_ms, listed.cache_scope) = self.hints_for(&context);
        Ok(listed)
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, ErrorData> {
        self.catalog.prompt(request, context, &self.states).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourcesResult, ErrorData> {
        let mut listed = self.catalog.resources_listed();
        (listed.ttl_ms, listed.cache_scope) = self.hints_for(&context);
        Ok(listed)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListResourceTemplatesResult, ErrorData> {
        let mut listed = self.catalog.templates_listed();
        (listed.ttl_ms, listed.cache_scope) = self.hints_for(&context);
        Ok(listed)
    }

    async fn read_resource(
        &self,
        request: rmcp::model::ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
        let hints = self.hints_for(&context);
        let mut read = self.catalog.read(request, context).await?;
        if let rmcp::model::ReadResourceResponse::Complete(contents) = &mut read
            && hints.0.is_some()
        {
            (contents.ttl_ms, contents.cache_scope) = hints;
        }
        Ok(read)
    }

    async fn complete(
        &self,
        request: rmcp::model::CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CompleteResult, ErrorData> {
        self.catalog.completion(request)
    }

    // `resources/subscribe` is 2025-11-25's (2026-07-28 has `subscriptions/listen`).
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.catalog.subscribe_to(request.uri, context)
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: rmcp::model::UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.catalog.unsubscribe_from(&request.uri, &context);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        self.catalog.listen_filter(requested)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.catalog.listening(context).await;
        Ok(())
    }

    // rmcp gives a request of MCP's whose params it cannot read here, as a custom one.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if let Some(answered) = self.legacy_task_request(&request, &context).await {
            return answered;
        }
        Err(params::misfit(&request, self.tools.toolbox.names()))
    }
}
