//! Three agents, one inside the other, journaled in one SQLite file: the process the nested crash
//! test kills at random instants (`examples/tests/nested_crash.rs`).
//!
//! ```text
//! nested_worker --journal PATH --outbox FILE --paused FILE --approved FILE --transcripts FILE
//! ```
//!
//! The top agent calls `research` (a sub-agent) beside a note of its own; `research` looks a word
//! up, writes a note, then calls `mail` (a sub-sub-agent), which writes a note and sends an email
//! that waits for a person's approval. Every note and email appends one line to the outbox: the
//! tool and its effect key. Each start goes on from where the last one was: a run waiting for
//! approval is saved to `--paused` and the worker exits; the next start approves the email by its
//! path (as a person in another process would), saves the approved run to `--approved`, and
//! resumes it; a start that finds an approved run resumes that. A finished run writes the
//! transcripts of the three runs, as JSON, to `--transcripts`.

#[path = "support/call_lines.rs"]
mod call_lines;
#[path = "support/errors.rs"]
mod errors;

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::thread::sleep;
use std::time::Duration;

use serde_json::json;
use skyl::agent::{Agent, Event, Journal, Run, Stop};
use skyl::durable::SqliteJournal;
use skyl::model::{BoxFuture, Model, ModelError};
use skyl::provider::{Request, Response};
use skyl::{Message, Role, ToolCall, Toolbox};

const RUN_ID: &str = "top";

/// The path of the email, as `Run::waiting` describes it.
const EMAIL_PATH: [&str; 3] = ["c1 research", "r3 mail", "m2 send_email"];

struct Outbox(PathBuf);

impl Outbox {
    fn append(&self, tool: &str) -> Result<String, String> {
        let key = skyl::agent::effect_key().ok_or("this tool runs only in a journaled run")?;
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .map_err(|error| format!("the outbox cannot be opened: {error}"))?;
        writeln!(file, "{tool} {key}").map_err(|error| format!("the outbox failed: {error}"))?;
        Ok(key)
    }
}

/// Looks a word up.
#[skyl::tool(read_only)]
fn lookup(
    /// The word.
    word: String,
) -> String {
    busy(&word);
    format!("{word}: a mathematician")
}

/// Writes a note.
#[skyl::tool(idempotent = false, destructive = false)]
fn note(
    #[state] outbox: &Arc<Outbox>,
    /// The note.
    text: String,
) -> Result<String, String> {
    busy(&text);
    outbox.append("note")?;
    busy(&text);
    Ok(format!("noted: {text}"))
}

/// Sends an email.
#[skyl::tool(idempotent = false)]
fn send_email(
    #[state] outbox: &Arc<Outbox>,
    /// The address.
    to: String,
) -> Result<String, String> {
    busy(&to);
    outbox.append("send_email")?;
    busy(&to);
    Ok(format!("sent to {to}"))
}

/// 50 to 150 ms, so that a kill lands in the middle of a call.
fn busy(seed: &str) {
    let spread = seed.bytes().map(u64::from).sum::<u64>() % 100;
    sleep(Duration::from_millis(50 + spread));
}

/// A model whose answer depends only on how many answers the transcript holds, so that a model
/// in a fresh process answers the step it is asked as the first one would have.
struct Script(fn(usize) -> Response);

impl Model for Script {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        let step = request
            .messages
            .iter()
            .filter(|message| message.role == Role::Assistant)
            .count();
        Box::pin(std::future::ready(Ok((self.0)(step))))
    }
}

fn top(step: usize) -> Response {
    match step {
        0 => Response::calls([
            ToolCall::new("c1", "research", json!({"subject": "Ada"})),
            ToolCall::new("c2", "note", json!({"text": "research started"})),
        ]),
        _ => Response::text("Ada was looked up, noted and emailed."),
    }
}

fn research(step: usize) -> Response {
    match step {
        0 => Response::calls([
            ToolCall::new("r1", "lookup", json!({"word": "Ada"})),
            ToolCall::new("r2", "note", json!({"text": "Ada found"})),
        ]),
        1 => Response::calls([ToolCall::new(
            "r3",
            "mail",
            json!({"to": "ada@example.com"}),
        )]),
        _ => Response::text(r#"{"summary": "Ada is a mathematician; she was emailed."}"#),
    }
}

fn mail(step: usize) -> Response {
    match step {
        0 => Response::calls([ToolCall::new("m1", "note", json!({"text": "mail to Ada"}))]),
        1 => Response::calls([ToolCall::new(
            "m2",
            "send_email",
            json!({"to": "ada@example.com"}),
        )]),
        _ => Response::text(r#""emailed""#),
    }
}

/// What to look into.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Topic {
    /// The subject.
    subject: String,
}

/// What was found.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Finding {
    summary: String,
}

/// Who to email.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Address {
    /// The address.
    to: String,
}

struct Agents {
    top: Agent<Arc<Outbox>>,
}

fn agents(journal: &Arc<SqliteJournal>, outbox: &Arc<Outbox>) -> Agents {
    let journal = Arc::clone(journal) as Arc<dyn Journal>;
    let mailer = Agent::new(
        Script(mail),
        Toolbox::with_state(Arc::clone(outbox))
            .with(Note)
            .with(SendEmail),
        "mail-model",
    )
    // The email is destructive by default: it waits for a person.
    .with_approval_for_destructive(true);
    let mail = mailer
        .as_tool::<Address, String>("mail", "Emails someone.")
        .with_prompt(|address: &Address| format!("Email {}.", address.to))
        .journaled(Arc::clone(&journal));
    let researcher = Agent::new(
        Script(research),
        Toolbox::with_state(Arc::clone(outbox))
            .with(Lookup)
            .with(Note)
            .with(mail),
        "research-model",
    );
    let research = researcher
        .as_tool::<Topic, Finding>("research", "Looks a subject up and emails them.")
        .with_prompt(|topic: &Topic| format!("Look {} up.", topic.subject))
        .journaled(journal);
    let top = Agent::new(
        Script(top),
        Toolbox::with_state(Arc::clone(outbox))
            .with(research)
            .with(Note),
        "top-model",
    );
    Agents { top }
}

struct Args {
    journal: PathBuf,
    outbox: PathBuf,
    paused: PathBuf,
    approved: PathBuf,
    transcripts: PathBuf,
    /// Who this process is to the journal's leases; a worker restarted after a crash passes the
    /// same owner as the one it replaces.
    owner: String,
}

fn args() -> Result<Args, String> {
    let mut values = std::collections::HashMap::new();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        values.insert(flag, PathBuf::from(value));
    }
    let mut take = |flag: &str| values.remove(flag).ok_or(format!("{flag} is missing"));
    Ok(Args {
        journal: take("--journal")?,
        outbox: take("--outbox")?,
        paused: take("--paused")?,
        approved: take("--approved")?,
        transcripts: take("--transcripts")?,
        owner: values.remove("--owner").map_or_else(
            || "nested-worker".to_owned(),
            |owner| owner.display().to_string(),
        ),
    })
}

/// Writes `text` to `path` whole or not at all: a kill never leaves half a file.
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    // Each process writes its own partial file: two at once never rename each other's.
    let partial = path.with_extension(format!("{}.partial", std::process::id()));
    std::fs::write(&partial, text).map_err(|error| format!("{}: {error}", partial.display()))?;
    std::fs::rename(&partial, path).map_err(|error| format!("{}: {error}", path.display()))
}

fn read_run(path: &Path) -> Result<Option<Run>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| format!("{}: {error}", path.display())),
        Err(_) => Ok(None),
    }
}

/// What each start prints of the run's events: the calls run and replayed, with their paths.
fn print_event(event: Event) {
    let path = event.path().join(" > ");
    let line = match event.innermost() {
        Event::ToolPaused { call } => format!("paused {}", call.id),
        event => match call_lines::call_line(event) {
            Some(line) => line,
            None => return,
        },
    };
    println!("[{path}] {line}");
}

fn work(args: &Args) -> Result<(), String> {
    // A process started after a crash is the same owner as the one killed: it takes back the
    // run its predecessor held at once, instead of waiting out that process's lease.
    let journal = SqliteJournal::open(&args.journal).map_err(|error| {
        format!(
            "the journal {} cannot be opened: {}",
            args.journal.display(),
            errors::chain(&error)
        )
    })?;
    let journal = Arc::new(journal.with_owner(&args.owner));
    let outbox = Arc::new(Outbox(args.outbox.clone()));
    let agents = agents(&journal, &outbox);
    let builder = if let Some(run) = read_run(&args.approved)? {
        agents.top.resume(run)
    } else if let Some(mut run) = read_run(&args.paused)? {
        // A person, in this other process, approves the email by its path.
        let waiting = run.waiting();
        let [email] = waiting.as_slice() else {
            return Err(format!("one call should wait, and {} do", waiting.len()));
        };
        if email.describe() != EMAIL_PATH {
            return Err(format!("the email waits at {:?}", email.describe()));
        }
        run.approve_at(&email.ids())
            .map_err(|error| error.to_string())?;
        write_whole(
            &args.approved,
            &serde_json::to_string(&run).expect("a run serializes"),
        )?;
        println!("approved {}", email.describe().join(" > "));
        agents.top.resume(run)
    } else {
        agents
            .top
            .run(vec![Message::user("Look Ada up, note it and email her.")])
    };
    let run = builder
        .journaled(&*journal, RUN_ID)
        .on_event(print_event)
        .blocking()
        .map_err(|error| format!("the run stopped: {}", errors::chain(&error)))?;
    match run.stop() {
        Stop::AwaitingApproval => {
            write_whole(
                &args.paused,
                &serde_json::to_string(&run).expect("a run serializes"),
            )?;
            for waiting in run.waiting() {
                println!("waiting: {}", waiting.describe().join(" > "));
            }
            Ok(())
        }
        Stop::Answered => {
            // The sub-agents' runs, read back from their journals (a finished run replays
            // whole and runs nothing).
            let research = replay(&journal, "top/1/c1")?;
            let mail = replay(&journal, "top/1/c1/2/r3")?;
            let transcripts = json!({
                "top": run.transcript(),
                "research": research,
                "mail": mail,
            });
            write_whole(&args.transcripts, &transcripts.to_string())?;
            println!("finished ({}): {}", run.stop(), run.text());
            Ok(())
        }
        other => Err(format!("the run stopped: {other}")),
    }
}

/// The transcript of the finished sub-run `id`, replayed from its journal by an agent whose
/// model has nothing to say.
fn replay(journal: &Arc<SqliteJournal>, id: &str) -> Result<Vec<Message>, String> {
    let silent = Agent::new(
        skyl::testing::ScriptedModel::new(),
        Toolbox::new(),
        "silent",
    );
    let run = silent
        .run(Vec::new())
        .journaled(&**journal, id)
        .blocking()
        .map_err(|error| format!("the sub-run {id} cannot be read: {}", errors::chain(&error)))?;
    if run.stop() != &Stop::Answered {
        return Err(format!("the sub-run {id} stopped: {}", run.stop()));
    }
    Ok(run.into_transcript())
}

fn main() -> ExitCode {
    let args = match args() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    match work(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
