//! A durable run: kill it at any instant, start it again, and it goes on where it was, running no
//! email twice.
//!
//! ```text
//! cargo run --example durable -- --journal PATH --outbox FILE [--transcript FILE] [--owner NAME]
//! ```
//!
//! Offline: a scripted model plays the provider, over three steps of tool calls (seven calls:
//! contact and weather lookups, which are read-only, and emails, which are not idempotent) and a
//! final answer. Each tool takes 100 to 300 ms, so a kill lands in the middle of one. Every email
//! sent appends one line `<call id> <recipient>` to the outbox.
//!
//! The journal (SQLite, at `PATH`) keeps the run under the id `demo`. Started again after a kill,
//! the run replays it: the model is asked nothing it already answered, no recorded result is made
//! again, a lookup that was cut off runs again, and an email that was cut off is not sent again:
//! the model reads that its outcome is unknown. Once the run is finished, starting it prints the
//! same finished run and runs nothing. `--transcript FILE` writes the final transcript as JSON.
//!
//! The run has one owner at a time, the worker holding its lease in the journal: `--owner NAME`
//! names this one (`durable-example` unless given). Started again under the same name after a
//! kill, it takes the run back at once; a worker under another name is refused while the lease
//! is live (five minutes after the owner's last write), and takes the run over after that.
//!
//! The example is also a binary of this package (`durable_worker`), which the crash test kills.

#[path = "support/call_lines.rs"]
mod call_lines;
#[path = "support/errors.rs"]
mod errors;

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::thread::sleep;
use std::time::Duration;

use serde_json::json;
use skyl::agent::{Agent, Event};
use skyl::durable::SqliteJournal;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

/// The run's id in the journal.
const RUN_ID: &str = "demo";

/// Where the outbox is, for `send_email`.
struct Outbox(PathBuf);

/// Looks up a contact's email address.
#[skyl::tool(read_only)]
fn lookup_contact(
    /// The contact's first name.
    name: String,
) -> Result<String, String> {
    busy(&name);
    match name.as_str() {
        "Ada" => Ok("ada@example.com".into()),
        "Bob" => Ok("bob@example.com".into()),
        other => Err(format!("no contact named {other}")),
    }
}

/// Gets today's weather for a city.
#[skyl::tool(read_only)]
fn get_weather(
    /// The city.
    city: String,
) -> String {
    busy(&city);
    format!("{city}: 21C and clear")
}

/// Sends an email. Each call sends one.
#[skyl::tool(idempotent = false)]
fn send_email(
    #[state] outbox: &Outbox,
    /// The recipient's address.
    to: String,
    /// The text.
    body: String,
) -> Result<String, String> {
    busy(&to);
    // The effect key is `run/step/call id`: the call id is its last part.
    let key = skyl::agent::effect_key().ok_or("send_email runs only in a journaled run")?;
    let call_id = key.rsplit('/').next().unwrap_or(&key).to_owned();
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&outbox.0)
        .map_err(|error| format!("the outbox cannot be opened: {error}"))?;
    writeln!(file, "{call_id} {to}").map_err(|error| format!("the outbox failed: {error}"))?;
    busy(&body);
    Ok(format!("sent to {to} ({} characters)", body.len()))
}

/// Works for 100 to 200 ms, as `seed` says: a lookup once, an email twice (around its effect).
fn busy(seed: &str) {
    let spread = seed.bytes().map(u64::from).sum::<u64>() % 100;
    sleep(Duration::from_millis(100 + spread));
}

/// The scripted model, by step: a run replayed from its journal asks for exactly the step it is
/// at, and gets that step's answer.
fn script() -> ScriptedModel {
    let call = |id: &str, name: &str, arguments| ToolCall::new(id, name, arguments);
    ScriptedModel::by_step()
        .reply_calls([
            call("c1", "lookup_contact", json!({"name": "Ada"})),
            call("c2", "lookup_contact", json!({"name": "Bob"})),
            call("c3", "get_weather", json!({"city": "Lisbon"})),
        ])
        .reply_calls([
            call(
                "c4",
                "send_email",
                json!({"to": "ada@example.com", "body": "Lisbon: 21C and clear."}),
            ),
            call(
                "c5",
                "send_email",
                json!({"to": "bob@example.com", "body": "Lisbon: 21C and clear."}),
            ),
        ])
        .reply_calls([
            call("c6", "get_weather", json!({"city": "Porto"})),
            call(
                "c7",
                "send_email",
                json!({"to": "ada@example.com", "body": "Porto too, if you go north."}),
            ),
        ])
        .reply_text("I sent Ada and Bob the weather in Lisbon, and Ada Porto's too.")
}

struct Args {
    journal: PathBuf,
    outbox: PathBuf,
    transcript: Option<PathBuf>,
    owner: String,
}

fn args() -> Result<Args, String> {
    let mut journal = None;
    let mut outbox = None;
    let mut transcript = None;
    let mut owner = "durable-example".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--journal" => journal = Some(PathBuf::from(value)),
            "--outbox" => outbox = Some(PathBuf::from(value)),
            "--transcript" => transcript = Some(PathBuf::from(value)),
            "--owner" => owner = value,
            other => return Err(format!("unknown option {other}")),
        }
    }
    match (journal, outbox) {
        (Some(journal), Some(outbox)) => Ok(Args {
            journal,
            outbox,
            transcript,
            owner,
        }),
        _ => Err(
            "usage: durable --journal PATH --outbox FILE [--transcript FILE] [--owner NAME]".into(),
        ),
    }
}

/// Runs the example; the `durable_worker` binary calls it too.
pub(crate) fn main() -> ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let journal = match SqliteJournal::open(&args.journal) {
        Ok(journal) => journal.with_owner(&args.owner),
        Err(error) => {
            eprintln!(
                "the journal {} cannot be opened: {}",
                args.journal.display(),
                errors::chain(&error)
            );
            return ExitCode::FAILURE;
        }
    };
    let toolbox = Toolbox::with_state(Outbox(args.outbox))
        .with(LookupContact)
        .with(GetWeather)
        .with(SendEmail);
    let agent = Agent::new(script(), toolbox, "scripted");
    let run = agent
        .run(vec![Message::user(
            "Email Ada and Bob the weather in Lisbon; Ada may go to Porto.",
        )])
        .journaled(&journal, RUN_ID)
        .on_event(|event| {
            let line = match event {
                Event::StepStarted { step } => format!("step {step}: asking the model"),
                event => match call_lines::call_line(&event) {
                    Some(line) => line,
                    None => return,
                },
            };
            println!("{line}");
        })
        .blocking();
    let run = match run {
        Ok(run) => run,
        Err(error) => {
            eprintln!("the run stopped: {}", errors::chain(&error));
            return ExitCode::FAILURE;
        }
    };
    if let Some(path) = &args.transcript {
        let text = serde_json::to_string_pretty(run.transcript()).expect("a transcript serializes");
        if let Err(error) = std::fs::write(path, text) {
            eprintln!(
                "the transcript cannot be written to {}: {error}",
                path.display()
            );
            return ExitCode::FAILURE;
        }
    }
    println!("finished ({}): {}", run.stop(), run.text());
    ExitCode::SUCCESS
}
