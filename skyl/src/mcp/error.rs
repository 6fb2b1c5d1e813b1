//! What can go wrong before a single tool call: serving, and connecting to a server.

use std::error::Error;
use std::fmt;
use std::io;
use std::process::ExitStatus;
use std::time::Duration;

/// The lower-level error an MCP error keeps as its cause: rmcp's, reqwest's or the system's.
pub type Cause = Box<dyn Error + Send + Sync>;

/// Why serving a toolbox over MCP stopped with an error. Each says what failed at its level;
/// rmcp's or the system's own error is its cause ([`source`](Error::source)).
///
/// A client that closes the connection, before or after the handshake, is not an error: the
/// serve functions return `Ok(())` then.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The client did not complete MCP's `initialize` handshake.
    Handshake(Cause),
    /// Reading, writing or listening failed.
    Io(io::Error),
    /// The task that served the connection ended abnormally.
    Stopped(Cause),
}

impl fmt::Display for ServeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServeError::Handshake(_) => f.write_str(
                "the MCP client did not complete the handshake; check that it speaks MCP and sends `initialize` first",
            ),
            ServeError::Io(_) => f.write_str("serving MCP failed"),
            ServeError::Stopped(_) => f.write_str("the MCP server task stopped abnormally"),
        }
    }
}

impl Error for ServeError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ServeError::Io(error) => Some(error),
            ServeError::Handshake(cause) | ServeError::Stopped(cause) => Some(&**cause),
        }
    }
}

impl From<io::Error> for ServeError {
    fn from(error: io::Error) -> Self {
        ServeError::Io(error)
    }
}

/// Why mounting an MCP server failed. Each names the server and says what to check.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConnectError {
    /// The server's process could not be started.
    Spawn {
        /// The server's name, as given to [`Remote::builder`](super::Remote::builder).
        server: String,
        /// The command, as it would be typed.
        command: String,
        /// Why it could not start.
        source: io::Error,
    },
    /// The server's process ended before the handshake was over.
    Exited {
        /// The server's name.
        server: String,
        /// How it ended.
        status: ExitStatus,
    },
    /// The server did not complete MCP's `initialize` handshake.
    Handshake {
        /// The server's name.
        server: String,
        /// What went wrong, rmcp's error (or, for a URL, the HTTP client's).
        source: Cause,
    },
    /// The server at a URL ([`RemoteBuilder::connect_http`](super::RemoteBuilder::connect_http))
    /// could not be reached, or did not answer the handshake as an MCP server.
    Http {
        /// The server's name.
        server: String,
        /// The URL connected to.
        url: String,
        /// What went wrong: the HTTP client's error, or the answer that was not MCP's.
        source: Cause,
    },
    /// The server at a URL requires authorization, and getting a token with
    /// [`RemoteBuilder::oauth`](super::RemoteBuilder::oauth) failed.
    Authorization {
        /// The server's name.
        server: String,
        /// The URL connected to.
        url: String,
        /// Which step failed (discovery, registration, the person's authorization, the token),
        /// and why.
        source: Cause,
    },
    /// The server's `tools/list` failed.
    ListTools {
        /// The server's name.
        server: String,
        /// What went wrong, rmcp's error.
        source: Cause,
    },
    /// The server did not answer the handshake or `tools/list` in time.
    TimedOut {
        /// The server's name.
        server: String,
        /// How long it was given.
        limit: Duration,
    },
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Spawn {
                server, command, ..
            } => write!(
                f,
                "could not start the MCP server \"{server}\" (`{command}`); check that the command is installed and on the PATH"
            ),
            ConnectError::Exited { server, status } => write!(
                f,
                "the MCP server \"{server}\" {} before completing the handshake; run its command by hand to see why",
                crate::prose::mcp::exit(*status)
            ),
            ConnectError::Handshake { server, .. } => write!(
                f,
                "the MCP server \"{server}\" did not complete the handshake; check that the command starts an MCP server, and that it writes only JSON-RPC to stdout and its logs to stderr"
            ),
            ConnectError::Http { server, url, .. } => write!(
                f,
                "could not connect to the MCP server \"{server}\" at {url}; check that the server is running and that the URL is its streamable HTTP endpoint (often ending in /mcp)"
            ),
            ConnectError::Authorization { server, url, .. } => write!(
                f,
                "could not get authorization for the MCP server \"{server}\" at {url}"
            ),
            ConnectError::ListTools { server, .. } => write!(
                f,
                "the MCP server \"{server}\" could not list its tools; check that it offers tools"
            ),
            ConnectError::TimedOut { server, limit } => write!(
                f,
                "the MCP server \"{server}\" did not answer within {}; check that it is an MCP server and is not waiting for something (a login, a prompt on its terminal), or raise RemoteBuilder::connect_timeout",
                crate::text::seconds(*limit)
            ),
        }
    }
}

impl Error for ConnectError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ConnectError::Spawn { source, .. } => Some(source),
            ConnectError::Handshake { source, .. }
            | ConnectError::Http { source, .. }
            | ConnectError::Authorization { source, .. }
            | ConnectError::ListTools { source, .. } => Some(&**source),
            _ => None,
        }
    }
}
