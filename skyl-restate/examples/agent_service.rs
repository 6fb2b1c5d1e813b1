//! An agent run as a Restate workflow: kill the service at any instant, start it again (here or
//! on another machine), and the run goes on where it was, sending no email twice; a destructive
//! call waits for a person's decision, posted over HTTP.
//!
//! ```text
//! scripts/install-restate-server.sh
//! skyl-restate/restate-server/bin/restate-server --base-dir /tmp/restate-demo &
//! cargo run -p skyl-restate --example agent_service -- --listen 127.0.0.1:9080 --outbox /tmp/outbox.txt &
//! curl -X POST localhost:9070/deployments -H 'content-type: application/json' -d '{"uri": "http://127.0.0.1:9080"}'
//! curl -X POST localhost:8080/AgentRun/demo/run/send -H 'content-type: application/json' -d '{"prompt": "Email Ada and Bob, and cancel the standup."}'
//! curl -X POST localhost:8080/AgentRun/demo/status
//! curl -X POST localhost:8080/AgentRun/demo/decide -H 'content-type: application/json' -d '{"call": "c5", "approve": true}'
//! curl localhost:8080/restate/workflow/AgentRun/demo/attach
//! ```
//!
//! Offline: a scripted model plays the provider over four steps of calls (contact lookups, which
//! are read-only; emails, which are not idempotent; cancelling a meeting, which is destructive and
//! so waits for approval) and a final answer. Each tool takes 100 to 200 ms, so a kill lands in
//! the middle of one. Every email or cancellation done appends one line `<call id> <what>` to the
//! outbox: a line appears at most once per call, however often the service dies.
//!
//! `--variant rebuilt` serves a rebuilt service (one more tool): a run started by the first build
//! finishes on it. `--variant changed` serves one whose `cancel_meeting` takes one more argument:
//! an approval given while the first build paused the call does not count there. The tests
//! include this file and serve it from their own binary, started as a process of its own, killed
//! and started again (`tests/support/mod.rs`).

use std::fs::OpenOptions;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use restate_sdk::prelude::*;
use serde::Deserialize;
use serde_json::json;
use skyl::agent::{Agent, Run};
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};
use skyl_restate::{Decision, Status};

/// Where the outbox is, for the tools with effects.
struct Outbox(PathBuf);

impl Outbox {
    /// Appends one line for the call running now (its id is the last part of its effect key).
    fn record(&self, what: &str) -> Result<(), String> {
        let key = skyl::agent::effect_key().ok_or("this tool runs only in a journaled run")?;
        let call_id = key.rsplit('/').next().unwrap_or(&key).to_owned();
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .map_err(|error| format!("the outbox cannot be opened: {error}"))?;
        writeln!(file, "{call_id} {what}").map_err(|error| format!("the outbox failed: {error}"))
    }
}

/// Looks up a contact's email address.
#[skyl::tool(read_only)]
async fn lookup_contact(
    /// The contact's first name.
    name: String,
) -> Result<String, String> {
    busy(&name, "lookup").await;
    match name.as_str() {
        "Ada" => Ok("ada@example.com".into()),
        "Bob" => Ok("bob@example.com".into()),
        other => Err(format!("no contact named {other}")),
    }
}

/// Sends an email. Each call sends one.
#[skyl::tool(destructive = false, idempotent = false)]
async fn send_email(
    #[state] outbox: &Outbox,
    /// The recipient's address.
    to: String,
    /// The text.
    body: String,
) -> Result<String, String> {
    busy(&to, "email").await;
    outbox.record(&to)?;
    busy(&body, "email").await;
    Ok(format!("sent to {to} ({} characters)", body.len()))
}

/// Cancels a meeting for everyone invited.
#[skyl::tool(destructive, idempotent = false)]
async fn cancel_meeting(
    #[state] outbox: &Outbox,
    /// The meeting's name.
    meeting: String,
) -> Result<String, String> {
    busy(&meeting, "cancel").await;
    outbox.record(&format!("cancel {meeting}"))?;
    Ok(format!("{meeting} is cancelled"))
}

/// Cancels a meeting for everyone invited, with a note to them (the `changed` service's
/// cancel_meeting: one more argument, so the tool is defined otherwise).
#[skyl::tool(name = "cancel_meeting", destructive, idempotent = false)]
async fn cancel_meeting_with_note(
    #[state] outbox: &Outbox,
    /// The meeting's name.
    meeting: String,
    /// A note to the people invited.
    note: Option<String>,
) -> Result<String, String> {
    busy(&meeting, "cancel").await;
    outbox.record(&format!("cancel {meeting}"))?;
    Ok(format!(
        "{meeting} is cancelled{}",
        note.map(|note| format!(" ({note})")).unwrap_or_default()
    ))
}

/// Gets today's weather for a city (only in the rebuilt service).
#[skyl::tool(read_only)]
async fn get_weather(
    /// The city.
    city: String,
) -> String {
    format!("{city}: 21C and clear")
}

/// Works for 100 to 200 ms, as `seed` says, saying on stdout which call it is in (the tests read
/// where each kill landed).
async fn busy(seed: &str, what: &str) {
    let key = skyl::agent::effect_key().unwrap_or_default();
    println!("in {what} {key}");
    let spread = seed.bytes().map(u64::from).sum::<u64>() % 100;
    tokio::time::sleep(Duration::from_millis(100 + spread)).await;
}

/// The scripted model, by step: a run replayed from its journal asks for exactly the step it is
/// at, and gets that step's answer. Unrecorded: the service's runs would grow a record of their
/// requests without bound.
fn script() -> ScriptedModel {
    let call = |id: &str, name: &str, arguments| ToolCall::new(id, name, arguments);
    ScriptedModel::by_step()
        .unrecorded()
        .reply_calls([
            call("c1", "lookup_contact", json!({"name": "Ada"})),
            call("c2", "lookup_contact", json!({"name": "Bob"})),
        ])
        .reply_calls([
            call(
                "c3",
                "send_email",
                json!({"to": "ada@example.com", "body": "The standup is off this week."}),
            ),
            call(
                "c4",
                "send_email",
                json!({"to": "bob@example.com", "body": "The standup is off this week."}),
            ),
        ])
        .reply_calls([
            call("c5", "cancel_meeting", json!({"meeting": "standup"})),
            call("c6", "lookup_contact", json!({"name": "Ada"})),
        ])
        .reply_calls([call(
            "c7",
            "send_email",
            json!({"to": "ada@example.com", "body": "Done: the standup is cancelled."}),
        )])
        .reply_text("I emailed Ada and Bob and cancelled the standup.")
}

/// What starts a run.
#[derive(Deserialize)]
struct RunRequest {
    prompt: String,
}

/// The workflow: one run per key.
struct AgentRun {
    agent: Agent<Outbox>,
}

#[restate_sdk::workflow]
impl AgentRun {
    /// Runs the agent on the prompt until it answers; each destructive call waits for a decision.
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        request: Json<RunRequest>,
    ) -> Result<Json<Run>, HandlerError> {
        let messages = vec![Message::user(request.into_inner().prompt)];
        let run = skyl_restate::run_agent(&ctx, &self.agent, messages).await?;
        Ok(Json(run))
    }

    /// A person's decision about a call the run waits on.
    #[handler]
    async fn decide(
        &self,
        ctx: SharedWorkflowContext<'_>,
        decision: Json<Decision>,
    ) -> Result<(), HandlerError> {
        skyl_restate::decide(&ctx, decision.into_inner()).await
    }

    /// The calls the run waits on.
    #[handler]
    async fn status(&self, ctx: SharedWorkflowContext<'_>) -> Result<Json<Status>, HandlerError> {
        Ok(Json(skyl_restate::status(&ctx).await?))
    }
}

/// Which build of the service this is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    First,
    /// One more tool.
    Rebuilt,
    /// `cancel_meeting` defined otherwise.
    Changed,
}

struct Args {
    listen: SocketAddr,
    outbox: PathBuf,
    variant: Variant,
}

fn args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut listen = None;
    let mut outbox = None;
    let mut variant = Variant::First;
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => {
                listen = Some(
                    value
                        .parse()
                        .map_err(|error| format!("--listen {value}: {error}"))?,
                );
            }
            "--outbox" => outbox = Some(PathBuf::from(value)),
            "--variant" => {
                variant = match value.as_str() {
                    "first" => Variant::First,
                    "rebuilt" => Variant::Rebuilt,
                    "changed" => Variant::Changed,
                    _ => {
                        return Err(format!(
                            "--variant is first, rebuilt or changed, not {value}"
                        ));
                    }
                }
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    match (listen, outbox) {
        (Some(listen), Some(outbox)) => Ok(Args {
            listen,
            outbox,
            variant,
        }),
        _ => Err(
            "usage: agent_service --listen 127.0.0.1:PORT --outbox FILE [--variant first|rebuilt|changed]"
                .into(),
        ),
    }
}

/// Serves the workflow until killed.
pub(crate) fn main() -> ExitCode {
    ExitCode::from(serve(std::env::args().skip(1)))
}

/// Serves the workflow the command-line arguments `args` describe until killed; the exit status
/// when it cannot (2: the arguments are wrong; 1: it cannot start or listen).
pub(crate) fn serve(args: impl Iterator<Item = String>) -> u8 {
    let args = match self::args(args) {
        Ok(args) => args,
        Err(error) => {
            eprintln!("{error}");
            return 2;
        }
    };
    let toolbox = Toolbox::with_state(Outbox(args.outbox))
        .with(LookupContact)
        .with(SendEmail);
    let toolbox = match args.variant {
        Variant::First => toolbox.with(CancelMeeting),
        Variant::Rebuilt => toolbox.with(CancelMeeting).with(GetWeather),
        Variant::Changed => toolbox.with(CancelMeetingWithNote),
    };
    let tools = toolbox.definitions().len();
    let agent = Agent::new(script(), toolbox, "scripted").with_approval_for_destructive(true);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("the Tokio runtime cannot start: {error}");
            return 1;
        }
    };
    runtime.block_on(async {
        // Bound first, so that "serving" is true when it is printed, and a taken port is an
        // error to read rather than a panic.
        let listener = match tokio::net::TcpListener::bind(args.listen).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("{}", cannot_listen(args.listen, &error));
                return 1;
            }
        };
        println!(
            "serving AgentRun on http://{} with {tools} tools",
            args.listen
        );
        HttpServer::new(Endpoint::builder().bind(AgentRun { agent }).build())
            .serve(listener)
            .await;
        0
    })
}

/// What the service says when it cannot listen on `address`.
fn cannot_listen(address: SocketAddr, error: &std::io::Error) -> String {
    format!(
        "agent_service cannot listen on {address}: {error}; stop what listens there, or pass another address with --listen"
    )
}
