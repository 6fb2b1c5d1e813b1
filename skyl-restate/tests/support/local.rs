//! A Restate server on this machine, for the tests and the `step_cost` example: started on
//! 127.0.0.1 with a temporary base directory and free ports, stopped and removed when dropped.
//! Not part of the library: the tests include this file, and the example includes it by path.
//!
//! The binary is the one `SKYL_RESTATE_SERVER` names or, without it, npm's
//! `@restatedev/restate-server` (the package ships the Linux binary), which the first start
//! installs into the build's target directory (`target/tmp/`), so that the tests of the packaged
//! crate need no script of the repository and write nothing outside the build.

use std::fmt;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// How long the server may take to answer its health check.
const START_LIMIT: Duration = Duration::from_secs(60);

/// How long one HTTP exchange with the server may take.
const HTTP_LIMIT: Duration = Duration::from_secs(60);

/// The version of npm's `@restatedev/restate-server` installed (scripts/install-restate-server.sh,
/// for running the example by hand, installs the same one).
const SERVER_VERSION: &str = "1.7.12";

/// Where the server is installed: `tmp/restate-server-{version}` in the target directory of the
/// running binary (tests are in `target/<profile>/deps/`, examples in `target/<profile>/examples/`).
fn install_dir() -> Result<PathBuf, LocalError> {
    let exe = std::env::current_exe()
        .map_err(|error| LocalError(format!("this program cannot find itself: {error}")))?;
    let target = exe.ancestors().nth(3).ok_or_else(|| {
        LocalError(format!(
            "{} is not inside a target directory: set SKYL_RESTATE_SERVER to a restate-server binary",
            exe.display()
        ))
    })?;
    Ok(target.join(format!("tmp/restate-server-{SERVER_VERSION}")))
}

/// Installs the server with npm once per process (the tests of one binary start servers in
/// parallel) and returns the binary.
fn install() -> Result<PathBuf, LocalError> {
    static INSTALLING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = INSTALLING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = install_dir()?;
    if let Some(binary) = find_binary(&dir.join("node_modules/@restatedev")) {
        return Ok(binary);
    }
    let package = format!("@restatedev/restate-server@{SERVER_VERSION}");
    let status = Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund", "--no-save", "--prefix"])
        .arg(&dir)
        .arg(&package)
        .env("SCARF_ANALYTICS", "false")
        .stdin(Stdio::null())
        .status()
        .map_err(|error| {
            LocalError(format!(
                "npm could not be started to install {package}: {error}; install Node's npm, or set SKYL_RESTATE_SERVER to a restate-server binary"
            ))
        })?;
    if !status.success() {
        return Err(LocalError(format!(
            "npm install {package} into {} failed ({status}): see npm's output above, or set SKYL_RESTATE_SERVER to a restate-server binary",
            dir.display()
        )));
    }
    find_binary(&dir.join("node_modules/@restatedev")).ok_or_else(|| {
        LocalError(format!(
            "{package} installed into {}, but no restate-server binary is inside it: set SKYL_RESTATE_SERVER to one",
            dir.display()
        ))
    })
}

/// The first file named `restate-server` under `dir` (npm puts the platform's package beside
/// the launcher's).
fn find_binary(dir: &Path) -> Option<PathBuf> {
    let mut entries: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
    entries.sort_by_key(|entry| entry.file_name());
    entries.iter().find_map(|entry| {
        let path = entry.path();
        let kind = entry.file_type().ok()?;
        if kind.is_dir() {
            find_binary(&path)
        } else if entry.file_name() == "restate-server" && is_executable(&path) {
            Some(path)
        } else {
            None
        }
    })
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o100 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

/// A running `restate-server`; dropped, it is killed and its directory removed.
#[derive(Debug)]
pub(crate) struct LocalRestate {
    child: Child,
    dir: PathBuf,
    ingress: SocketAddr,
    admin: SocketAddr,
}

/// The server could not be started or did not answer.
#[derive(Debug)]
pub(crate) struct LocalError(String);

impl fmt::Display for LocalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LocalError {}

/// An HTTP response: its status and its body as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    /// The status code.
    pub(crate) status: u16,
    /// The body.
    pub(crate) body: String,
}

impl LocalRestate {
    /// Starts a server and waits (bounded) until it answers: the binary `SKYL_RESTATE_SERVER`
    /// names, else npm's package, installed into the target directory on first use, so that
    /// `cargo test` on a fresh clone or an unpacked package needs no step by hand.
    pub(crate) fn start() -> Result<LocalRestate, LocalError> {
        let binary = match std::env::var_os("SKYL_RESTATE_SERVER") {
            Some(path) => PathBuf::from(path),
            None => install()?,
        };
        Self::start_with(&binary)
    }

    /// [`start`](Self::start), with the server binary at `binary`.
    pub(crate) fn start_with(binary: &Path) -> Result<LocalRestate, LocalError> {
        if !binary.exists() {
            return Err(LocalError(format!(
                "the Restate server is not installed at {}: set SKYL_RESTATE_SERVER to a restate-server binary, or unset it to have npm install one",
                binary.display()
            )));
        }
        static STARTED: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "skyl-restate-{}-{}",
            std::process::id(),
            STARTED.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map_err(|error| LocalError(format!("{} cannot be made: {error}", dir.display())))?;
        let [node, admin, ingress] = free_ports()?;
        let config = format!(
            r#"default-num-partitions = 1
rocksdb-total-memory-size = "256 MiB"
log-filter = "warn"
disable-telemetry = true
listen-mode = "tcp"
bind-address = "127.0.0.1:{node}"
advertised-address = "http://127.0.0.1:{node}/"

# A service that died is tried again soon and often: tests kill it on purpose.
[default-retry-policy]
initial-interval = "50ms"
exponentiation-factor = 1.5
max-interval = "500ms"
max-attempts = 10000
on-max-attempts = "kill"

[admin]
bind-address = "127.0.0.1:{admin}"
disable-web-ui = true

[ingress]
bind-address = "127.0.0.1:{ingress}"
"#
        );
        let config_path = dir.join("config.toml");
        std::fs::write(&config_path, config).map_err(|error| {
            LocalError(format!(
                "the server's configuration cannot be written: {error}"
            ))
        })?;
        let log = std::fs::File::create(dir.join("server.log"))
            .map_err(|error| LocalError(format!("the server's log cannot be made: {error}")))?;
        let child = Command::new(binary)
            .arg("--config-file")
            .arg(&config_path)
            .arg("--base-dir")
            .arg(dir.join("data"))
            .arg("--no-logo")
            .stdin(Stdio::null())
            .stdout(
                log.try_clone()
                    .map_err(|error| LocalError(error.to_string()))?,
            )
            .stderr(log)
            .spawn()
            .map_err(|error| {
                LocalError(format!("{} cannot be started: {error}", binary.display()))
            })?;
        let mut server = LocalRestate {
            child,
            dir,
            ingress: SocketAddr::from(([127, 0, 0, 1], ingress)),
            admin: SocketAddr::from(([127, 0, 0, 1], admin)),
        };
        let began = Instant::now();
        loop {
            if let Ok(response) = server.admin_request("GET", "/health", None)
                && response.status == 200
            {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(LocalError(format!(
                    "the Restate server stopped while starting ({status}); its log: {}",
                    server.log()
                )));
            }
            if began.elapsed() > START_LIMIT {
                return Err(LocalError(format!(
                    "the Restate server did not answer within {START_LIMIT:?}; its log: {}",
                    server.log()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The ingress, where runs are started and decisions posted.
    pub(crate) fn ingress(&self) -> SocketAddr {
        self.ingress
    }

    /// The admin API, where services are registered.
    pub(crate) fn admin(&self) -> SocketAddr {
        self.admin
    }

    /// The server's log so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    /// Registers the service endpoint at `uri` (over its existing registration at that address,
    /// for a rebuilt service).
    pub(crate) fn register(&self, uri: &str) -> Result<(), LocalError> {
        let body = serde_json::json!({"uri": uri, "force": true}).to_string();
        let response = self.admin_request("POST", "/deployments", Some(&body))?;
        if !(200..300).contains(&response.status) {
            return Err(LocalError(format!(
                "Restate refused to register {uri} (HTTP {}): {}",
                response.status, response.body
            )));
        }
        Ok(())
    }

    /// One request to the ingress.
    pub(crate) fn ingress_request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<Response, LocalError> {
        http(self.ingress, method, path, body)
    }

    /// One request to the admin API.
    pub(crate) fn admin_request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<Response, LocalError> {
        http(self.admin, method, path, body)
    }
}

impl Drop for LocalRestate {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Three ports nothing listens on now.
fn free_ports() -> Result<[u16; 3], LocalError> {
    let listeners: Vec<TcpListener> = (0..3)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()
        .map_err(|error| LocalError(format!("no free port on 127.0.0.1: {error}")))?;
    let mut ports = [0; 3];
    for (port, listener) in ports.iter_mut().zip(&listeners) {
        *port = listener
            .local_addr()
            .map_err(|error| LocalError(error.to_string()))?
            .port();
    }
    Ok(ports)
}

/// One HTTP/1.1 exchange with `address`, the connection closed after it; a JSON body when given.
pub(crate) fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> Result<Response, LocalError> {
    let failed =
        |error: std::io::Error| LocalError(format!("{method} http://{address}{path}: {error}"));
    let mut stream = TcpStream::connect_timeout(&address, HTTP_LIMIT).map_err(failed)?;
    stream.set_read_timeout(Some(HTTP_LIMIT)).map_err(failed)?;
    stream.set_write_timeout(Some(HTTP_LIMIT)).map_err(failed)?;
    let typed = if body.is_some() {
        "content-type: application/json\r\n"
    } else {
        ""
    };
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\n{typed}accept: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).map_err(failed)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(failed)?;
    let text = String::from_utf8_lossy(&raw);
    let malformed = || {
        LocalError(format!(
            "{method} http://{address}{path}: a malformed response: {text:?}"
        ))
    };
    let (head, rest) = text.split_once("\r\n\r\n").ok_or_else(malformed)?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(malformed)?;
    let chunked = head.lines().any(|line| {
        line.to_ascii_lowercase().starts_with("transfer-encoding:")
            && line.to_ascii_lowercase().contains("chunked")
    });
    let body = if chunked {
        dechunk(rest).ok_or_else(malformed)?
    } else {
        rest.to_owned()
    };
    Ok(Response { status, body })
}

/// The body of a chunked response.
fn dechunk(mut rest: &str) -> Option<String> {
    let mut body = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n")?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(body);
        }
        body.push_str(after.get(..size)?);
        rest = after.get(size..)?.strip_prefix("\r\n")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_server_says_how_to_get_one() {
        let error = LocalRestate::start_with(Path::new("/nowhere/restate-server")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the Restate server is not installed at /nowhere/restate-server: set SKYL_RESTATE_SERVER to a restate-server binary, or unset it to have npm install one"
        );
    }

    #[test]
    fn a_chunked_body_is_read_whole() {
        assert_eq!(
            dechunk("4\r\n{\"a\"\r\n3\r\n: 1\r\n1;x=y\r\n}\r\n0\r\n\r\n").as_deref(),
            Some("{\"a\": 1}")
        );
        assert_eq!(dechunk("5\r\nab"), None);
    }
}
