//! Mounting: an MCP server's tools in a toolbox, beside local ones.
//!
//! | file | what it holds |
//! |---|---|
//! | `mod.rs` | [`Remote`], [`RemoteBuilder`], [`RemoteTool`]: connecting over stdio or a transport, the connection's client handler |
//! | `call.rs` | one call of a mounted tool: its rounds, questions and tasks |
//! | `mounted_task.rs` | a call answered with a task: awaited by polling, its id journaled |
//! | `lifecycle.rs` | which revision a mounted server is spoken to in |
//! | `names.rs` | the names mounted tools go by |
//! | `http.rs` | the client `connect_http` connects with, with a bearer token or OAuth, and its failures |
//! | `oauth.rs`, `oauth/` | OAuth for servers mounted over HTTP: the options, the session's tokens, the wrapped HTTP clients |

use std::fmt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    Implementation, JsonObject, ProtocolVersion, Tool as McpTool,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, NotificationContext, Peer, RequestContext, RoleClient,
    RunningService,
};
use rmcp::transport::IntoTransport;
use rmcp::{ClientHandler, ErrorData};
use serde_json::Value;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot, watch};

use crate::mcp::error::ConnectError;
use crate::mcp::listing;
use crate::mcp::mount::mounted_task::TaskJournal;

mod call;
#[cfg(feature = "mcp-http")]
mod http;
mod lifecycle;
pub(super) mod mounted_task;
mod names;
#[cfg(feature = "mcp-oauth")]
pub(super) mod oauth;

use crate::agent::asking;
use crate::agent::{Question, Reply};
use crate::mcp::mount::call::Call;
use crate::model::BoxFuture;
use crate::registration::RegistrationError;
use crate::tool::{RichOutcome, Tool, ToolDefinition, ToolFuture};
use crate::toolbox::Toolbox;

/// How long a server gets to answer a call, unless [`RemoteBuilder::call_timeout`] says
/// otherwise (the MCP TypeScript SDK's default request timeout).
const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a server gets to start, unless [`RemoteBuilder::connect_timeout`] says otherwise.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a call answered with a task is awaited, unless [`RemoteBuilder::task_timeout`]
/// says otherwise.
const DEFAULT_TASK_TIMEOUT: Duration = Duration::from_secs(3600);

/// How long a server whose connection closed gets to exit, before skyl stops waiting for its
/// exit status (and, in [`Remote::close`], kills it).
const EXIT_GRACE: Duration = Duration::from_secs(3);

/// A connection to an MCP server, whose tools go into a [`Toolbox`] with
/// [`Toolbox::with_remote`].
///
/// Cloning it is cheap and shares the connection. The connection stays open as long as this
/// handle or any of its [`RemoteTool`]s lives; [`close`](Self::close) ends it sooner. A server
/// started by [`spawn`](Self::spawn) is killed when the connection ends.
#[derive(Clone)]
pub struct Remote {
    connection: Arc<Connection>,
}

/// Options for connecting to an MCP server; start with [`Remote::builder`].
#[derive(Clone, Debug)]
#[must_use = "a RemoteBuilder connects nothing until spawn, connect or connect_http is awaited"]
pub struct RemoteBuilder {
    name: String,
    prefix: Option<String>,
    connect_timeout: Duration,
    call_timeout: Duration,
    question_expiry: Duration,
    on_question: Option<QuestionHandler>,
    tasks: Tasks,
    /// Set for a second try at a server that answered `server/discover` with something other
    /// than a discover result or an error: the handshake of 2025-11-25 alone.
    legacy_only: bool,
    /// The bearer token `connect_http` sends.
    #[cfg(feature = "mcp-http")]
    bearer_token: Option<String>,
    /// How `connect_http` gets tokens instead (feature `mcp-oauth`).
    #[cfg(feature = "mcp-oauth")]
    oauth: Option<oauth::OAuth>,
}

/// One tool of a [`Remote`] server, as a skyl [`Tool`]: its definition is the server's, under a
/// name every provider accepts, and a call is forwarded to the server under the server's name.
pub struct RemoteTool {
    connection: Arc<Connection>,
    definition: ToolDefinition,
    remote_name: String,
    input_schema: Arc<JsonObject>,
}

struct Connection {
    catalog: Arc<Catalog>,
    asks: Arc<Asks>,
    peer: Peer<RoleClient>,
    /// The running client; taken by [`Remote::close`].
    service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    /// The server's process, when skyl started it.
    child: Option<tokio::sync::Mutex<Child>>,
    process_id: Option<u32>,
    /// How the process ended, once a failed call has asked (`None`: it had not ended by then).
    exit: OnceLock<Option<ExitStatus>>,
    /// The tools [`Toolbox::with_remote`] left out, each with why ([`Remote::left_out`]).
    left_out: Mutex<Vec<RegistrationError>>,
    /// Set by [`Remote::close`]: a call after it is told the connection was closed, not that
    /// the server stopped.
    closed: AtomicBool,
}

/// The server's current tools, refreshed when it says they changed.
struct Catalog {
    server: String,
    prefix: String,
    call_timeout: Duration,
    /// How long a call that asked the person stays parked.
    question_expiry: Duration,
    tasks: Tasks,
    tools: RwLock<Arc<[Listed]>>,
    /// Counts the refreshes, so that [`Remote::changed`] can wait for the next one.
    version: watch::Sender<u64>,
    /// The version the last [`Remote::tools`] returned.
    seen: AtomicU64,
}

struct Listed {
    definition: ToolDefinition,
    remote_name: String,
    /// The input schema as the server listed it; the definition holds its canonical form.
    input_schema: Arc<JsonObject>,
}

/// The rmcp client handler: it names skyl in the handshake, refreshes the catalog and takes the
/// server's questions.
struct Handler {
    catalog: Arc<Catalog>,
    asks: Arc<Asks>,
}

/// How calls answered with a task are awaited, and where their task ids are recorded.
#[derive(Clone)]
struct Tasks {
    journal: Option<TaskJournal>,
    timeout: Duration,
}

impl fmt::Debug for Tasks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tasks")
            .field("journal", &self.journal.is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// What answers the questions a server asks, when the application gives it
/// ([`RemoteBuilder::on_question`]).
#[derive(Clone)]
struct QuestionHandler(Arc<dyn Fn(&Question) -> Reply + Send + Sync>);

impl fmt::Debug for QuestionHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("QuestionHandler(..)")
    }
}

/// The questions (`elicitation/create`) a server asks while calls of the connection are in
/// flight, each taken by one of those calls.
struct Asks {
    handler: Option<QuestionHandler>,
    sender: mpsc::UnboundedSender<Pending>,
    receiver: tokio::sync::Mutex<mpsc::UnboundedReceiver<Pending>>,
    in_flight: AtomicUsize,
}

/// A question waiting for a call to take it, and where its reply goes.
struct Pending {
    message: String,
    schema: Value,
    /// What continues the call in another process, for a question of an input-required result.
    continuation: Option<Value>,
    reply: oneshot::Sender<Reply>,
}

/// Counts a call in flight for as long as it lives.
struct InFlight(Arc<Asks>);

impl Remote {
    /// Options for connecting to the server called `name`.
    ///
    /// The name is how the model's error results and [`ConnectError`]s refer to the server, and
    /// the prefix of its tools' names unless [`RemoteBuilder::prefix`] changes it.
    pub fn builder(name: impl Into<String>) -> RemoteBuilder {
        RemoteBuilder {
            name: name.into(),
            prefix: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            question_expiry: asking::QUESTION_EXPIRY,
            on_question: None,
            tasks: Tasks {
                journal: None,
                timeout: DEFAULT_TASK_TIMEOUT,
            },
            legacy_only: false,
            #[cfg(feature = "mcp-http")]
            bearer_token: None,
            #[cfg(feature = "mcp-oauth")]
            oauth: None,
        }
    }

    /// Starts `command` and speaks MCP with it over its stdin and stdout, with the default
    /// options; see [`RemoteBuilder::spawn`].
    pub async fn spawn(
        name: impl Into<String>,
        command: impl Into<Command>,
    ) -> Result<Remote, ConnectError> {
        Remote::builder(name).spawn(command).await
    }

    /// The server's name, as given to [`builder`](Self::builder).
    pub fn name(&self) -> &str {
        &self.connection.catalog.server
    }

    /// The id of the server's process, when skyl started it.
    pub fn process_id(&self) -> Option<u32> {
        self.connection.process_id
    }

    /// The tools of this server that [`Toolbox::with_remote`] left out of a toolbox, each with
    /// why, in the order it met them (each refusal once): empty when every tool was mounted.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), skyl::mcp::ConnectError> {
    /// let files = skyl::mcp::Remote::spawn("files", tokio::process::Command::new("files-mcp")).await?;
    /// let toolbox = skyl::Toolbox::new().with_remote(&files);
    /// for refused in files.left_out() {
    ///     eprintln!("not mounted: {refused}");
    /// }
    /// # let _ = toolbox;
    /// # Ok(())
    /// # }
    /// ```
    pub fn left_out(&self) -> Vec<RegistrationError> {
        self.connection
            .left_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps `refused` among the tools left out, and says so to `tracing`'s subscriber.
    fn leave_out(&self, refused: RegistrationError) {
        #[cfg(feature = "tracing")]
        tracing::warn!(
            skyl.mcp.server = self.name(),
            error.message = %refused,
            "a tool of the MCP server {} was left out of the toolbox: {refused}",
            self.name()
        );
        let mut left_out = self
            .connection
            .left_out
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !left_out.contains(&refused) {
            left_out.push(refused);
        }
    }

    /// The server's tools as they are now, in the server's order.
    ///
    /// [`changed`](Self::changed) then waits for the list after this one.
    pub fn tools(&self) -> Vec<RemoteTool> {
        let catalog = &self.connection.catalog;
        let version = *catalog.version.borrow();
        let listed = catalog.current();
        catalog.seen.store(version, Ordering::Release);
        listed
            .iter()
            .map(|listed| RemoteTool {
                connection: Arc::clone(&self.connection),
                definition: listed.definition.clone(),
                remote_name: listed.remote_name.clone(),
                input_schema: Arc::clone(&listed.input_schema),
            })
            .collect()
    }

    /// Resolves when the server's tool list has changed since the last [`tools`](Self::tools):
    /// the moment to build the next toolbox. Pending for as long as the list stays the same.
    pub async fn changed(&self) {
        let catalog = &self.connection.catalog;
        let seen = catalog.seen.load(Ordering::Acquire);
        let mut versions = catalog.version.subscribe();
        // The sender lives in the catalog, which outlives this borrow: the wait ends only on a
        // new version.
        let _ = versions.wait_for(|version| *version > seen).await;
    }

    /// Ends the connection: the client stops, and a server that skyl started is stopped too.
    /// Calls to its tools after this get an error result saying the connection was closed.
    pub async fn close(&self) {
        self.connection.closed.store(true, Ordering::Release);
        let service = self
            .connection
            .service
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(service) = service {
            let _ = service.cancel().await;
        }
        if let Some(child) = &self.connection.child {
            let mut child = child.lock().await;
            // Closing its stdin asks a well-behaved server to exit; one that does not is killed.
            if tokio::time::timeout(EXIT_GRACE, child.wait())
                .await
                .is_err()
            {
                let _ = child.kill().await;
            }
        }
    }
}

impl fmt::Debug for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self
            .connection
            .catalog
            .current()
            .iter()
            .map(|listed| listed.definition.name.clone())
            .collect();
        f.debug_struct("Remote")
            .field("name", &self.name())
            .field("tools", &names)
            .finish_non_exhaustive()
    }
}

impl RemoteBuilder {
    /// The prefix put before the server's tool names (`{prefix}_{name}`), instead of the
    /// server's name. An empty prefix keeps the names as the server gives them, made acceptable
    /// to providers: use it only when no local tool can have the same name.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// How long the server gets to start: to answer the handshake and the first `tools/list`
    /// (30 s unless set). A server that takes longer is a [`ConnectError::TimedOut`].
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// How long the server gets to answer each call (60 s unless set), and each `tools/list`
    /// after its tools changed. A call that takes longer is cancelled on the server, and its
    /// result says the server did not answer.
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// How long a call that asked the person a question (and paused its run) waits for the run
    /// to be resumed with a reply: one hour unless set.
    ///
    /// The call stays parked in this process meanwhile, its request to the server open. Past
    /// its expiry it is dropped (the server is told the request is cancelled), and the run,
    /// resumed later, answers the call as it would after a restart of this process: the call
    /// runs again if its tool is read-only or idempotent, and is otherwise answered that its
    /// outcome is unknown.
    pub fn question_expiry(mut self, expiry: Duration) -> Self {
        self.question_expiry = expiry;
        self
    }

    /// How long a call the server answers with a task (MCP's `io.modelcontextprotocol/tasks`
    /// extension, which skyl's client declares) is awaited (an hour unless set): the call polls
    /// `tasks/get` as often as the server asks (between 10 ms and 5 s) until the task ends, and
    /// its result is the task's, as a plain `tools/call` would have given it. A task still
    /// running after `limit` is cancelled (`tasks/cancel`), and the result says the server did
    /// not answer in time; so is a task whose call is cancelled. The call timeout bounds only
    /// the server's first answer. A task that asks the person something (see the module docs)
    /// is awaited anew, for `limit`, once the person's answer is sent: the time a person takes
    /// is not the server's.
    pub fn task_timeout(mut self, limit: Duration) -> Self {
        self.tasks.timeout = limit;
        self
    }

    /// Records the id of each task a server answers a call with, in `journal`, as the handle
    /// of the call's [effect key](crate::tool::CallContext::effect_key) (a call in a journaled agent
    /// run has one; see [`handle_run`](crate::agent::journal::handle_run)), durably, before the
    /// task is polled. A run resumed after this process died, here or in another process, runs
    /// that call again even when its tool is not idempotent, and the call awaits the task the
    /// server already has instead of calling the tool again. Give it the journal the runs are
    /// journaled in (a second [`SqliteJournal`] handle on the same file does): the resumed run
    /// looks for the handle there. A call cut off before the server answered with its task has
    /// no handle, and is answered as any cut-off call is.
    ///
    /// [`SqliteJournal`]: https://docs.rs/skyl/latest/skyl/durable/struct.SqliteJournal.html
    pub fn task_journal(mut self, journal: impl crate::agent::Journal + 'static) -> Self {
        self.tasks.journal = Some(Arc::new(journal));
        self
    }

    /// Answers every question the server asks (`elicitation/create`) with `handler`, on the spot.
    ///
    /// Without one, a question asked during a call made by an [`Agent`](crate::agent::Agent)
    /// run pauses the run, as a call waiting for approval does, until the person replies (see
    /// [`Run::question`](crate::agent::Run::question)); asked anywhere else (a plain
    /// [`Toolbox::dispatch`], or no call in flight), it is declined, and the call logs a warning
    /// saying so. `handler` runs on the connection's task: answer from what you have at hand
    /// (settings, defaults), not by waiting on a person.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), skyl::mcp::ConnectError> {
    /// use skyl::agent::Reply;
    ///
    /// // Accept every question with its schema's defaults (SEP-1034).
    /// let server = skyl::mcp::Remote::builder("forms")
    ///     .on_question(|question| Reply::Accept(question.defaults()))
    ///     .spawn(tokio::process::Command::new("forms-mcp"))
    ///     .await?;
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    pub fn on_question(
        mut self,
        handler: impl Fn(&Question) -> Reply + Send + Sync + 'static,
    ) -> Self {
        self.on_question = Some(QuestionHandler(Arc::new(handler)));
        self
    }

    /// Starts `command` and speaks MCP with it over its stdin and stdout; its stderr stays this
    /// process's. The process is killed when the connection ends.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), skyl::mcp::ConnectError> {
    /// let mut command = tokio::process::Command::new("npx");
    /// command.args(["-y", "@modelcontextprotocol/server-everything"]);
    /// let everything = skyl::mcp::Remote::builder("everything")
    ///     .prefix("ev")
    ///     .spawn(command)
    ///     .await?;
    /// # let _ = everything;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn spawn(self, command: impl Into<Command>) -> Result<Remote, ConnectError> {
        let mut command = command.into();
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| ConnectError::Spawn {
            server: self.name.clone(),
            command: describe(&command),
            source,
        })?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            unreachable!("both streams were set to piped above");
        };
        self.start((stdout, stdin), Some(child)).await
    }

    /// Speaks MCP over any rmcp transport: a `tokio::io::duplex` half, a socket, an
    /// `(AsyncRead, AsyncWrite)` pair, or one of rmcp's transports.
    pub async fn connect<T, E, A>(self, transport: T) -> Result<Remote, ConnectError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        self.start(transport, None).await
    }

    /// The access token [`connect_http`](Self::connect_http) sends with every request
    /// (`Authorization: Bearer ...`), for a server that requires one (see
    /// [`Authorization`](crate::mcp::Authorization)); without the `Bearer ` prefix.
    #[cfg(feature = "mcp-http")]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Gets access tokens with OAuth 2.1 for a server that requires them (see
    /// [`OAuth`](crate::mcp::OAuth)), when [`connect_http`](Self::connect_http) connects;
    /// instead of a fixed [`bearer_token`](Self::bearer_token).
    ///
    /// A failed authorization is a [`ConnectError::Authorization`](crate::mcp::ConnectError) whose
    /// cause says which step failed.
    #[cfg(feature = "mcp-oauth")]
    pub fn oauth(mut self, oauth: oauth::OAuth) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Connects to an MCP server's streamable HTTP endpoint, such as
    /// `http://127.0.0.1:8000/mcp`.
    ///
    /// With the `http` feature on, `https://` URLs work with the transport's TLS (rustls on
    /// aws-lc-rs, the system's roots). With `mcp-http` alone skyl enables reqwest without TLS; for an
    /// `https://` URL then, turn on `http` or one of reqwest's TLS features in your own
    /// `Cargo.toml`.
    #[cfg(feature = "mcp-http")]
    pub async fn connect_http(self, url: &str) -> Result<Remote, ConnectError> {
        let again = self.clone();
        match self.connect_http_once(url).await {
            Err(error) if !again.legacy_only && http::misread_discovery(&error) => {
                let mut again = again;
                again.legacy_only = true;
                again.connect_http_once(url).await
            }
            other => other,
        }
    }

    /// One handshake with the server at `url` (see [`connect_http`](Self::connect_http)).
    #[cfg(feature = "mcp-http")]
    async fn connect_http_once(self, url: &str) -> Result<Remote, ConnectError> {
        use rmcp::transport::StreamableHttpClientTransport;

        let server = self.name.clone();
        let (client, config) = http::client_for(url, self.bearer_token.as_deref())
            .map_err(|source| http::failed(&server, url, source))?;
        #[cfg(feature = "mcp-oauth")]
        if let Some(oauth) = self.oauth.clone() {
            let (client, session) = http::authorized(client, url, oauth)
                .map_err(|source| http::failed(&server, url, source))?;
            let transport = StreamableHttpClientTransport::with_client(client, config);
            let started = self.start(transport, None).await;
            return http::authorized_outcome(started, &session, &server, url);
        }
        let transport = StreamableHttpClientTransport::with_client(client, config);
        http::outcome(self.start(transport, None).await, &server, url)
    }

    async fn start<T, E, A>(
        self,
        transport: T,
        child: Option<Child>,
    ) -> Result<Remote, ConnectError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let limit = self.connect_timeout;
        let catalog = Arc::new(Catalog {
            prefix: self.prefix.unwrap_or_else(|| self.name.clone()),
            server: self.name,
            call_timeout: self.call_timeout,
            question_expiry: self.question_expiry,
            tasks: self.tasks,
            tools: RwLock::new(Arc::from([])),
            version: watch::Sender::new(0),
            seen: AtomicU64::new(0),
        });
        let mut child = child;
        let timed_out = || ConnectError::TimedOut {
            server: catalog.server.clone(),
            limit,
        };
        let (sender, receiver) = mpsc::unbounded_channel();
        let asks = Arc::new(Asks {
            handler: self.on_question,
            sender,
            receiver: tokio::sync::Mutex::new(receiver),
            in_flight: AtomicUsize::new(0),
        });
        let handler = Handler {
            catalog: Arc::clone(&catalog),
            asks: Arc::clone(&asks),
        };
        // 2026-07-28 when the server speaks it (`server/discover`), else the handshake of
        // 2025-11-25 and older: a server that answers the probe with an error is an older one.
        let lifecycle = if self.legacy_only {
            ClientLifecycleMode::Initialize
        } else {
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            }
        };
        let transport = lifecycle::Probe::new(transport.into_transport());
        let serving = handler.serve_with_lifecycle(transport, lifecycle);
        let service = match tokio::time::timeout(limit, serving).await {
            Err(_) => return Err(timed_out()),
            Ok(Err(error)) => {
                // A process that ended explains the failure better than the broken pipe it left.
                return Err(match exited(child.as_mut()).await {
                    Some(status) => ConnectError::Exited {
                        server: catalog.server.clone(),
                        status,
                    },
                    None => ConnectError::Handshake {
                        server: catalog.server.clone(),
                        source: Box::new(error),
                    },
                });
            }
            Ok(Ok(service)) => service,
        };
        let peer = service.peer().clone();
        let tools = match tokio::time::timeout(limit, peer.list_all_tools()).await {
            Err(_) => return Err(timed_out()),
            Ok(Err(error)) => {
                return Err(ConnectError::ListTools {
                    server: catalog.server.clone(),
                    source: Box::new(error),
                });
            }
            Ok(Ok(tools)) => tools,
        };
        catalog.replace(&tools);
        catalog
            .seen
            .store(*catalog.version.borrow(), Ordering::Release);
        Ok(Remote {
            connection: Arc::new(Connection {
                catalog,
                asks,
                peer,
                service: Mutex::new(Some(service)),
                process_id: child.as_ref().and_then(Child::id),
                child: child.map(tokio::sync::Mutex::new),
                exit: OnceLock::new(),
                left_out: Mutex::new(Vec::new()),
                closed: AtomicBool::new(false),
            }),
        })
    }
}

/// The answer a server receives for `reply`.
fn elicit_result(reply: Reply) -> ElicitResult {
    match reply {
        Reply::Accept(content) => {
            ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
        }
        Reply::Decline => ElicitResult::new(ElicitationAction::Decline),
        _ => ElicitResult::new(ElicitationAction::Cancel),
    }
}

/// The question a server asks in `request`, to put to the person; `None` for one skyl does not
/// put: a question in URL mode, which skyl's client does not declare (declined).
pub(super) fn form_question(server: &str, request: ElicitRequestParams) -> Option<Question> {
    let ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = request
    else {
        return None;
    };
    let schema = serde_json::to_value(requested_schema).unwrap_or_default();
    Some(Question::new(server, message, schema))
}

impl Asks {
    /// The application's handler's reply to `question`, when the application gave one
    /// ([`RemoteBuilder::on_question`]).
    fn handled(&self, question: &Question) -> Option<Reply> {
        let handler = self.handler.as_ref()?;
        Some((handler.0)(question))
    }

    /// The answer to the server's question `request`, asked on the spot by the application's
    /// handler or, during a call, of the person through the call that takes it (which parks the
    /// agent's run). The same path serves a question asked mid-call (`elicitation/create`) and
    /// one in a 2026-07-28 server's input-required result.
    async fn ask(
        &self,
        server: &str,
        request: ElicitRequestParams,
        continuation: Option<Value>,
    ) -> ElicitResult {
        let Some(question) = form_question(server, request) else {
            return ElicitResult::new(ElicitationAction::Decline);
        };
        if let Some(reply) = self.handled(&question) {
            return elicit_result(reply);
        }
        // Outside a call there is no run to pause and nobody to ask.
        if self.in_flight.load(Ordering::Acquire) == 0 {
            return ElicitResult::new(ElicitationAction::Decline);
        }
        let (reply, answer) = oneshot::channel();
        let pending = Pending {
            message: question.message().to_owned(),
            schema: question.schema().clone(),
            continuation,
            reply,
        };
        if self.sender.send(pending).is_err() {
            return ElicitResult::new(ElicitationAction::Decline);
        }
        // A call that parked and was never resumed drops its sender: the question is dismissed.
        elicit_result(answer.await.unwrap_or(Reply::Cancel))
    }

    /// The next question a call takes. Pending for as long as the server asks none; the calls
    /// in flight wait in turn, and the first to wait takes it.
    async fn next(&self) -> Option<Pending> {
        self.receiver.lock().await.recv().await
    }
}

impl InFlight {
    fn new(asks: &Arc<Asks>) -> Self {
        asks.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(Arc::clone(asks))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) != 1 {
            return;
        }
        // The last call ended: a question that came as it did has no call left to take it.
        if let Ok(mut receiver) = self.0.receiver.try_lock() {
            while let Ok(pending) = receiver.try_recv() {
                let _ = pending.reply.send(Reply::Decline);
            }
        }
    }
}

/// The exit status of a child that has ended or ends within [`EXIT_GRACE`].
async fn exited(child: Option<&mut Child>) -> Option<ExitStatus> {
    let child = child?;
    tokio::time::timeout(EXIT_GRACE, child.wait())
        .await
        .ok()?
        .ok()
}

/// A command as it would be typed.
fn describe(command: &Command) -> String {
    let command = command.as_std();
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|part| part.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Catalog {
    fn current(&self) -> Arc<[Listed]> {
        Arc::clone(&self.tools.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn offers(&self, remote_name: &str) -> bool {
        self.current()
            .iter()
            .any(|listed| listed.remote_name == remote_name)
    }

    /// Takes the server's new list, and tells whoever waits in [`Remote::changed`].
    fn replace(&self, tools: &[McpTool]) {
        let local = names::local_names(&self.prefix, tools.iter().map(|tool| tool.name.as_ref()));
        let listed: Arc<[Listed]> = tools
            .iter()
            .zip(local)
            .map(|(tool, local)| Listed {
                definition: listing::from_mcp(tool, local, &self.server),
                remote_name: tool.name.to_string(),
                input_schema: Arc::clone(&tool.input_schema),
            })
            .collect();
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = listed;
        self.version.send_modify(|version| *version += 1);
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // Every question gets an answer (a person's, the handler's, or a decline), so the
        // client can say it takes them: form mode, the one a person answers in place.
        ClientConfig::new(
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_tasks()
                .build(),
            Implementation::new("skyl", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(self.asks.ask(&self.catalog.server, request, None).await)
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let listing = context.peer.list_all_tools();
        // A server that announces a change and then fails to list keeps its previous tools: a
        // call to one it dropped is answered by the server itself.
        if let Ok(Ok(tools)) = tokio::time::timeout(self.catalog.call_timeout, listing).await {
            self.catalog.replace(&tools);
        }
    }
}

impl<S> Tool<S> for RemoteTool {
    crate::tool::invoked::invoked_tool!(S, |self, arguments, invocation| {
        let call = Call {
            remote_name: self.remote_name.clone(),
            local_name: self.definition.name.clone(),
            context: invocation.context(),
        };
        ToolFuture::new_output(Arc::clone(&self.connection).call(call, arguments))
    });

    fn resume_elsewhere(
        &self,
        continuation: &Value,
        reply: Value,
        call_id: &str,
    ) -> Option<BoxFuture<'static, RichOutcome>> {
        let reply: Reply = serde_json::from_value(reply).ok()?;
        Arc::clone(&self.connection).continued(continuation, reply, call_id)
    }
}

impl RemoteTool {
    /// The tool's name on its server, which calls are forwarded under.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The tool's input schema exactly as the server listed it, every keyword kept (`$schema`,
    /// `$defs`, `$anchor`, `allOf`, `if`/`then`/`else`, a vendor's `x-` keywords).
    ///
    /// The definition's [`parameters`](ToolDefinition::parameters) are what a model is sent:
    /// the same schema in its canonical form, as for any tool (no `$schema`, no root `title`, a
    /// root with `type`, `properties` and `required`; see [`crate::schema`]). Read this one to
    /// show, store or check the schema as its server wrote it.
    pub fn input_schema(&self) -> &serde_json::Map<String, Value> {
        &self.input_schema
    }
}

impl fmt::Debug for RemoteTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteTool")
            .field("server", &self.connection.catalog.server)
            .field("name", &self.definition.name)
            .field("remote_name", &self.remote_name)
            .finish_non_exhaustive()
    }
}

impl<S: 'static> Toolbox<S> {
    /// Adds every tool `remote` offers now (see [`Remote::tools`]) that the toolbox takes.
    ///
    /// A server's list is data from outside: a tool whose definition a toolbox refuses (an input
    /// schema that is not an object's, a `$ref` to a network URI or to nowhere, a name that is
    /// already a tool's here) is left out, and the others are mounted. Each tool left out is
    /// kept with why in [`Remote::left_out`] (and, with the feature `tracing`, a warning
    /// names the server, the tool and the cause); [`add_remote`](Self::add_remote) returns them
    /// instead, and [`try_with_remote`](Self::try_with_remote) fails at the first.
    pub fn with_remote(mut self, remote: &Remote) -> Self {
        for refused in self.add_remote(remote) {
            remote.leave_out(refused);
        }
        self
    }

    /// Adds every tool `remote` offers now, or fails at the first one a toolbox refuses (its name
    /// is taken, its definition is refused), as [`try_with`](Self::try_with) does.
    pub fn try_with_remote(mut self, remote: &Remote) -> Result<Self, RegistrationError> {
        for tool in remote.tools() {
            self.add(tool)?;
        }
        Ok(self)
    }

    /// Adds each tool `remote` offers now that the toolbox takes, and returns why each of the
    /// others was not added (empty when all were): a server nobody here wrote can list a tool
    /// whose name collides with another's or whose schema a toolbox refuses, and its other tools
    /// are still worth having.
    ///
    /// ```no_run
    /// # async fn run(toolbox: &mut skyl::Toolbox) -> Result<(), skyl::mcp::ConnectError> {
    /// let remote = skyl::mcp::Remote::spawn("files", tokio::process::Command::new("files-mcp")).await?;
    /// for refused in toolbox.add_remote(&remote) {
    ///     eprintln!("not mounted: {refused}");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn add_remote(&mut self, remote: &Remote) -> Vec<RegistrationError> {
        remote
            .tools()
            .into_iter()
            .filter_map(|tool| self.add(tool).err())
            .collect()
    }
}
