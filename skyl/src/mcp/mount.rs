//! An MCP server's tools in a toolbox, beside local ones.

use std::fmt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ErrorCode, Implementation,
    ProtocolVersion, Tool as McpTool,
};
use rmcp::service::{NotificationContext, Peer, RoleClient, RunningService, ServiceError};
use rmcp::transport::IntoTransport;
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;
use tokio::process::{Child, Command};
use tokio::sync::watch;

use super::error::ConnectError;
use super::{content, listing, names};
use crate::prose::mcp as prose;
use crate::registration::RegistrationError;
use crate::tool::{RichOutcome, Tool, ToolDefinition, ToolFuture};
use crate::toolbox::Toolbox;

/// How long a server gets to answer a call, unless [`RemoteBuilder::call_timeout`] says
/// otherwise (the MCP TypeScript SDK's default request timeout).
const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a server gets to start, unless [`RemoteBuilder::connect_timeout`] says otherwise.
const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

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
    pub(super) name: String,
    prefix: Option<String>,
    connect_timeout: Duration,
    call_timeout: Duration,
    /// The bearer token `connect_http` sends.
    #[cfg(feature = "mcp-http")]
    pub(super) bearer_token: Option<String>,
    /// How `connect_http` gets tokens instead (feature `mcp-oauth`).
    #[cfg(feature = "mcp-oauth")]
    pub(super) oauth: Option<super::oauth::OAuth>,
}

/// One tool of a [`Remote`] server, as a skyl [`Tool`]: its definition is the server's, under a
/// name every provider accepts, and a call is forwarded to the server under the server's name.
pub struct RemoteTool {
    connection: Arc<Connection>,
    definition: ToolDefinition,
    remote_name: String,
}

struct Connection {
    catalog: Arc<Catalog>,
    peer: Peer<RoleClient>,
    /// The running client; taken by [`Remote::close`].
    service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    /// The server's process, when skyl started it.
    child: Option<tokio::sync::Mutex<Child>>,
    process_id: Option<u32>,
    /// How the process ended, once a failed call has asked (`None`: it had not ended by then).
    exit: OnceLock<Option<ExitStatus>>,
    /// Set by [`Remote::close`]: a call after it is told the connection was closed, not that
    /// the server stopped.
    closed: AtomicBool,
}

/// The server's current tools, refreshed when it says they changed.
struct Catalog {
    server: String,
    prefix: String,
    call_timeout: Duration,
    tools: RwLock<Arc<[Listed]>>,
    /// Counts the refreshes, so that [`Remote::changed`] can wait for the next one.
    version: watch::Sender<u64>,
    /// The version the last [`Remote::tools`] returned.
    seen: AtomicU64,
}

struct Listed {
    definition: ToolDefinition,
    remote_name: String,
}

/// The rmcp client handler: it names skyl in the handshake and refreshes the catalog.
struct Handler {
    catalog: Arc<Catalog>,
}

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

    pub(super) async fn start<T, E, A>(
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
            tools: RwLock::new(Arc::from([])),
            version: watch::Sender::new(0),
            seen: AtomicU64::new(0),
        });
        let mut child = child;
        let timed_out = || ConnectError::TimedOut {
            server: catalog.server.clone(),
            limit,
        };
        let handler = Handler {
            catalog: Arc::clone(&catalog),
        };
        let service = match tokio::time::timeout(limit, handler.serve(transport)).await {
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
                peer,
                service: Mutex::new(Some(service)),
                process_id: child.as_ref().and_then(Child::id),
                child: child.map(tokio::sync::Mutex::new),
                exit: OnceLock::new(),
                closed: AtomicBool::new(false),
            }),
        })
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
            })
            .collect();
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = listed;
        self.version.send_modify(|version| *version += 1);
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("skyl", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
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

impl Connection {
    async fn call(&self, remote_name: &str, local_name: &str, arguments: &Value) -> RichOutcome {
        let catalog = &self.catalog;
        // The reader local tools use: `null` is no arguments, JSON text holding an object is that
        // object, anything else is refused the same way.
        let Value::Object(arguments) = crate::arguments::as_object(arguments)?.into_owned() else {
            unreachable!("as_object gives an object or an error");
        };
        if self.closed.load(Ordering::Acquire) {
            return Err(prose::connection_closed(&catalog.server));
        }
        if !catalog.offers(remote_name) {
            return Err(prose::tool_withdrawn(&catalog.server));
        }
        let params = CallToolRequestParams::new(remote_name.to_owned()).with_arguments(arguments);
        // Dropping the request on timeout makes rmcp send `notifications/cancelled`.
        let answer = tokio::time::timeout(catalog.call_timeout, self.peer.call_tool(params));
        let Ok(answer) = answer.await else {
            return Err(prose::server_timed_out(
                &catalog.server,
                catalog.call_timeout,
            ));
        };
        // skyl's OAuth refused to send the call (the person did not authorize, the server wants
        // scopes the account lacks): the server is fine, the access is not.
        #[cfg(feature = "mcp-oauth")]
        if let Err(ServiceError::TransportSend(error)) = &answer
            && let Some(reason) = super::oauth::refusal(error)
        {
            return Err(prose::authorization_failed(&catalog.server, &reason));
        }
        match answer {
            Ok(result) if result.is_error == Some(true) => Err(prose::tool_reported(
                local_name,
                remote_name,
                &content::text_of(result),
            )),
            Ok(result) => Ok(content::from_mcp(result)),
            Err(ServiceError::McpError(error)) => Err(prose::server_refused(
                &catalog.server,
                local_name,
                error.code.0,
                &error.message,
                error.code == ErrorCode::INVALID_PARAMS,
            )),
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_))
                if self.closed.load(Ordering::Acquire) =>
            {
                Err(prose::connection_closed(&catalog.server))
            }
            Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => Err(
                prose::server_gone(&catalog.server, self.exit_status().await),
            ),
            Err(ServiceError::Timeout { .. }) => Err(prose::server_timed_out(
                &catalog.server,
                catalog.call_timeout,
            )),
            Err(other) => Err(prose::server_failed(&catalog.server, &other.to_string())),
        }
    }

    /// How the server's process ended, when skyl started it and it has ended. Waits for it
    /// once; a process still running after [`EXIT_GRACE`] is not waited for again.
    async fn exit_status(&self) -> Option<ExitStatus> {
        if let Some(status) = self.exit.get() {
            return *status;
        }
        let mut child = self.child.as_ref()?.lock().await;
        let status = match self.exit.get() {
            Some(status) => *status,
            None => exited(Some(&mut child)).await,
        };
        *self.exit.get_or_init(|| status)
    }
}

impl<S> Tool<S> for RemoteTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(&'a self, arguments: &'a Value, _state: &'a S) -> ToolFuture<'a> {
        ToolFuture::new_output(self.connection.call(
            &self.remote_name,
            &self.definition.name,
            arguments,
        ))
    }
}

impl RemoteTool {
    /// The tool's name on its server, which calls are forwarded under.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
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
    /// Adds every tool `remote` offers now (see [`Remote::tools`]), for a server you trust to
    /// list tools a toolbox takes (your own); [`add_remote`](Self::add_remote) mounts any
    /// server and reports what it could not mount.
    ///
    /// # Panics
    ///
    /// As [`with`](Self::with) does, if a tool of the same name is already in the toolbox (give
    /// the server another prefix with [`RemoteBuilder::prefix`]) or a tool's definition is one a
    /// toolbox refuses (an input schema that is not an object schema).
    #[track_caller]
    pub fn with_remote(mut self, remote: &Remote) -> Self {
        for tool in remote.tools() {
            self = self.with(tool);
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
