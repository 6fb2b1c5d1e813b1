//! What the tests share: a Restate server, the demo service as a process of its own, and the
//! checks every finished run must pass.

#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use skyl::agent::{Run, Stop};
use skyl::{Message, Role};

mod local;
pub(crate) use local::{LocalRestate, Response};

/// The `agent_service` example, which the test binaries serve as the demo service.
#[path = "../../examples/agent_service.rs"]
mod agent_service;

/// The test each test binary that starts the demo service defines as
/// `#[test] fn demo_service() { support::serve_demo_if_asked() }`.
const DEMO_TEST: &str = "demo_service";

/// The variable that makes [`serve_demo_if_asked`] serve: the service's arguments, a line each.
const DEMO_ARGS: &str = "SKYL_RESTATE_DEMO_ARGS";

/// The demo service as a process: this test binary again, running only its `demo_service` test,
/// which serves the `agent_service` example with `args` (the package ships no binary for it).
pub fn demo_command(args: &[&std::ffi::OsStr]) -> Command {
    let lines: Vec<String> = args
        .iter()
        .map(|arg| {
            arg.to_str()
                .expect("the demo's arguments are UTF-8")
                .to_owned()
        })
        .collect();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([DEMO_TEST, "--exact", "--nocapture", "--quiet"])
        .env(DEMO_ARGS, lines.join("\n"));
    command
}

/// What the service wrote to its standard output, `log`, without the test harness's line before.
pub fn printed(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    match text.strip_prefix(HARNESS_OPENING) {
        Some(service) => service.to_owned(),
        None => text,
    }
}

/// What the test harness prints before it runs the one test of [`demo_command`].
pub const HARNESS_OPENING: &str = "\nrunning 1 test\n";

/// In the process [`demo_command`] starts, serves the demo until killed and exits with its
/// status; in a test run, does nothing.
pub fn serve_demo_if_asked() {
    if let Ok(lines) = std::env::var(DEMO_ARGS) {
        let status = agent_service::serve(lines.lines().map(str::to_owned));
        std::process::exit(status.into());
    }
}

/// The longest any wait of a test may take before it fails.
pub const WAIT_LIMIT: Duration = Duration::from_secs(120);

/// The opening of an outcome-unknown result.
pub const OUTCOME_UNKNOWN: &str = "ERROR: the outcome of this ";

/// The calls of the demo whose tools have effects, and the line each writes to the outbox.
pub const EFFECTS: [(&str, &str); 4] = [
    ("c3", "ada@example.com"),
    ("c4", "bob@example.com"),
    ("c5", "cancel standup"),
    ("c7", "ada@example.com"),
];

/// A temporary directory of this test, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("skyl-restate-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The Restate server, or a failure naming the script that installs it.
pub fn restate() -> LocalRestate {
    LocalRestate::start().unwrap_or_else(|error| panic!("{error}"))
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The demo service, as a process of its own: started, killed with SIGKILL, started again.
pub struct Service {
    pub address: SocketAddr,
    outbox: PathBuf,
    dir: PathBuf,
    variant: &'static str,
    child: Option<Child>,
    starts: u32,
}

impl Service {
    pub fn new(dir: &Path) -> Service {
        Service {
            address: SocketAddr::from(([127, 0, 0, 1], free_port())),
            outbox: dir.join("outbox.txt"),
            dir: dir.to_owned(),
            variant: "first",
            child: None,
            starts: 0,
        }
    }

    pub fn uri(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Starts the process (the `rebuilt` variant is one more tool) and waits, bounded, until it
    /// accepts connections.
    pub fn start(&mut self, variant: &'static str) {
        assert!(self.child.is_none(), "the service runs already");
        self.variant = variant;
        self.starts += 1;
        let log = self.dir.join(format!("service-{}.log", self.starts));
        let address = self.address.to_string();
        let child = demo_command(&[
            "--listen".as_ref(),
            address.as_ref(),
            "--outbox".as_ref(),
            self.outbox.as_ref(),
            "--variant".as_ref(),
            variant.as_ref(),
        ])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::fs::File::create(log.with_extension("err")).unwrap())
        .spawn()
        .unwrap();
        self.child = Some(child);
        let began = Instant::now();
        while TcpStream::connect_timeout(&self.address, Duration::from_secs(1)).is_err() {
            assert!(
                began.elapsed() < WAIT_LIMIT,
                "the service did not listen on {} within {WAIT_LIMIT:?}",
                self.address
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// What every start of the service printed, in order.
    pub fn logs(&self) -> String {
        (1..=self.starts)
            .map(|start| printed(&self.dir.join(format!("service-{start}.log"))))
            .collect::<Vec<_>>()
            .join("--- killed, started again ---\n")
    }

    /// What the running start of the service printed so far.
    pub fn current_log(&self) -> String {
        printed(&self.dir.join(format!("service-{}.log", self.starts)))
    }

    /// The outbox's lines: one per effect done.
    pub fn outbox(&self) -> Vec<String> {
        std::fs::read_to_string(&self.outbox)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts run `id` of the demo workflow, without waiting for it.
pub fn start_run(restate: &LocalRestate, id: &str) {
    let response = post(
        restate,
        &format!("/AgentRun/{id}/run/send"),
        r#"{"prompt": "Email Ada and Bob that the standup is off, and cancel it."}"#,
    );
    assert_eq!(response.status, 202, "{response:?}");
}

pub fn post(restate: &LocalRestate, path: &str, body: &str) -> Response {
    restate.ingress_request("POST", path, Some(body)).unwrap()
}

/// The run's status, as the workflow's status handler answers it; waits (bounded) while the run
/// Restate accepted has not started yet.
pub fn status(restate: &LocalRestate, id: &str) -> Value {
    let response = wait_for("the run's start", || {
        let response = restate
            .ingress_request("POST", &format!("/AgentRun/{id}/status"), None)
            .unwrap();
        (response.status != 404).then_some(response)
    });
    assert_eq!(response.status, 200, "{response:?}");
    serde_json::from_str(&response.body).unwrap()
}

/// Checks that `response` is the ingress's answer to a handler's terminal error: `status`, and
/// the body Restate writes for it, whole.
pub fn assert_refused(response: &Response, status: u16, message: &str) {
    assert_eq!(response.status, status, "{response:?}");
    let body: Value = serde_json::from_str(&response.body)
        .unwrap_or_else(|error| panic!("{error}: {response:?}"));
    assert_eq!(
        body,
        serde_json::json!({"code": status, "message": message, "source": "invocation"}),
        "{response:?}"
    );
}

/// The finished run, or `None` while it goes on.
pub fn output(restate: &LocalRestate, id: &str) -> Option<Run> {
    let response = restate
        .ingress_request(
            "GET",
            &format!("/restate/workflow/AgentRun/{id}/output"),
            None,
        )
        .unwrap();
    match response.status {
        200 => Some(serde_json::from_str(&response.body).unwrap()),
        // Not finished yet.
        470 => None,
        _ => panic!("reading the run's output: {response:?}"),
    }
}

/// Checks what holds for every finished run of the demo, however often its service died: every
/// call has exactly one result, the transcript is one every provider takes, each effect happened
/// at most once, and exactly once unless its result says its outcome is unknown. Returns the
/// calls answered as outcome-unknown.
pub fn check_finished(run: &Run, outbox: &[String]) -> Vec<String> {
    assert_eq!(run.stop(), &Stop::Answered, "{run:?}");
    assert_eq!(
        run.text(),
        "I emailed Ada and Bob and cancelled the standup."
    );
    skyl::transcript::validate_complete(run.transcript()).unwrap();
    let mut results: HashMap<String, (u32, String)> = HashMap::new();
    let mut calls = Vec::new();
    for message in run.transcript() {
        match message.role {
            Role::Assistant => calls.extend(message.tool_calls().map(|call| call.id.clone())),
            Role::Tool => {
                for result in message.tool_results() {
                    let entry = results.entry(result.call_id.clone()).or_default();
                    entry.0 += 1;
                    entry.1 = result.content.clone();
                }
            }
            _ => {}
        }
    }
    assert_eq!(calls, ["c1", "c2", "c3", "c4", "c5", "c6", "c7"]);
    for call in &calls {
        assert_eq!(
            results.get(call).map(|(count, _)| *count),
            Some(1),
            "{call}: {results:?}"
        );
    }
    let mut unknown = Vec::new();
    for (call, line) in EFFECTS {
        let expected = format!("{call} {line}");
        let done = outbox
            .iter()
            .filter(|written| **written == expected)
            .count();
        let content = &results[call].1;
        if content.starts_with(OUTCOME_UNKNOWN) {
            assert!(done <= 1, "{call} was done {done} times: {outbox:?}");
            unknown.push(call.to_owned());
        } else {
            assert_eq!(
                done, 1,
                "{call} ({content}) was done {done} times: {outbox:?}"
            );
        }
    }
    assert_eq!(
        outbox.len(),
        outbox
            .iter()
            .filter(|line| EFFECTS
                .iter()
                .any(|(call, what)| **line == format!("{call} {what}")))
            .count(),
        "an unexpected line in the outbox: {outbox:?}"
    );
    unknown
}

/// Waits, bounded, for `ready` to give a value.
pub fn wait_for<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let began = Instant::now();
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(
            began.elapsed() < WAIT_LIMIT,
            "{what} did not happen within {WAIT_LIMIT:?}"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

pub fn user_prompt(run: &Run) -> String {
    run.transcript()
        .first()
        .map(Message::text_content)
        .unwrap_or_default()
}
