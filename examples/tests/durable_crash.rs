//! The durable example killed with SIGKILL at random instants and started again until it
//! finishes; and two copies of it resuming one run from one journal at once, one its owner.
//!
//! The instants come from a seeded generator; the seed is printed, and `SKYL_CRASH_SEED=N` runs
//! the same instants again. Every wait is bounded, and the kills are counted: the test stops by
//! itself.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::Duration;

use skyl::{Message, ToolResult};
use support::{TempDir, killed_at_random, wait};

mod support;

/// How many times the run is killed before it is let finish.
const KILLS: u32 = 40;

/// The longest a start of the worker may take before the test gives up on it.
const START_LIMIT: Duration = Duration::from_secs(60);

/// The opening of an outcome-unknown result.
const OUTCOME_UNKNOWN: &str = "ERROR: the outcome of this send_email call is unknown";

struct Worker<'a> {
    dir: &'a Path,
}

impl Worker<'_> {
    fn command(&self, log: &str, owner: &str) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_durable_worker"));
        command
            .arg("--owner")
            .arg(owner)
            .arg("--journal")
            .arg(self.dir.join("journal.db"))
            .arg("--outbox")
            .arg(self.dir.join("outbox.txt"))
            .arg("--transcript")
            .arg(self.dir.join("transcript.json"))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(self.dir.join(log)).unwrap())
            .stderr(std::fs::File::create(self.dir.join(format!("{log}.err"))).unwrap());
        command
    }

    /// Starts the worker as the owner `worker`, the one name a worker started again keeps.
    fn start(&self, log: &str) -> Child {
        self.start_as(log, "worker")
    }

    fn start_as(&self, log: &str, owner: &str) -> Child {
        self.command(log, owner).spawn().unwrap()
    }

    fn log(&self, log: &str) -> String {
        support::log(self.dir, log)
    }

    fn outbox(&self) -> Vec<String> {
        support::lines(self.dir, "outbox.txt")
    }

    fn transcript(&self) -> Vec<Message> {
        let text = std::fs::read_to_string(self.dir.join("transcript.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

/// The call ids of the emails sent since the outbox held `before` lines.
fn sent_since(worker: &Worker<'_>, before: usize) -> Vec<String> {
    worker.outbox()[before..]
        .iter()
        .map(|line| line.split(' ').next().unwrap().to_owned())
        .collect()
}

/// Checks a finished run: one result per call, every email sent at most once, every email cut off
/// mid-effect answered as outcome-unknown, and the transcript accepted by every adapter. Returns
/// how many emails were answered as outcome-unknown.
fn check_finished(worker: &Worker<'_>) -> usize {
    let transcript = worker.transcript();
    skyl::transcript::validate_complete(&transcript).unwrap();
    let mut results: HashMap<&str, Vec<&ToolResult>> = HashMap::new();
    for result in transcript.iter().flat_map(Message::tool_results) {
        results
            .entry(result.call_id.as_str())
            .or_default()
            .push(result);
    }
    let mut emails = 0;
    for call in transcript.iter().flat_map(Message::tool_calls) {
        let answers = results.get(call.id.as_str()).map_or(0, Vec::len);
        assert_eq!(answers, 1, "call {} has {answers} results", call.id);
        emails += usize::from(call.name == "send_email");
    }
    assert_eq!(emails, 3);

    let outbox = worker.outbox();
    let mut sent: HashMap<&str, usize> = HashMap::new();
    for line in &outbox {
        let call_id = line.split(' ').next().unwrap();
        *sent.entry(call_id).or_default() += 1;
    }
    for (call_id, times) in &sent {
        assert_eq!(*times, 1, "{call_id} was sent {times} times: {outbox:?}");
    }
    let mut unknown = 0;
    for call in transcript.iter().flat_map(Message::tool_calls) {
        if call.name != "send_email" {
            continue;
        }
        let result = results[call.id.as_str()][0];
        if result.content.starts_with(OUTCOME_UNKNOWN) {
            unknown += 1;
        } else {
            // Answered by its own run: it was sent, once.
            assert!(!result.is_error, "{result:?}");
            assert_eq!(sent.get(call.id.as_str()), Some(&1), "{result:?}");
        }
    }
    // An email in the outbox without its own result was cut off mid-effect: the model read that
    // its outcome is unknown (the loop above checked every result).

    support::every_adapter_takes(&transcript, "final");
    unknown
}

/// How many emails of a finished run were answered as outcome-unknown although they had finished:
/// a later email of their turn was sent by the same start of the worker (its tools are
/// synchronous, so the calls of a turn run one after another, each once the one before returned).
/// `starts` holds the call ids each start of the worker sent.
fn finished_but_unknown(worker: &Worker<'_>, starts: &[Vec<String>]) -> usize {
    let transcript = worker.transcript();
    let unknown: Vec<&str> = transcript
        .iter()
        .flat_map(Message::tool_results)
        .filter(|result| result.content.starts_with(OUTCOME_UNKNOWN))
        .map(|result| result.call_id.as_str())
        .collect();
    let mut finished = 0;
    for turn in &transcript {
        let emails: Vec<&str> = turn
            .tool_calls()
            .filter(|call| call.name == "send_email")
            .map(|call| call.id.as_str())
            .collect();
        for (at, email) in emails.iter().enumerate() {
            let sent_with_a_later_one = starts.iter().any(|sent| {
                sent.iter().any(|id| id == email)
                    && emails[at + 1..]
                        .iter()
                        .any(|later| sent.iter().any(|id| id == later))
            });
            if unknown.contains(email) && sent_with_a_later_one {
                finished += 1;
            }
        }
    }
    finished
}

#[test]
fn killed_at_random_instants_the_run_finishes_with_no_email_sent_twice() {
    let mut rng = support::seeded_rng("crash test");

    // Runs from a fresh journal, each killed at random instants and started again until it
    // finishes, until the kills add up to KILLS; every start is bounded.
    let mut kills = 0;
    let mut runs = 0;
    let mut unknown = 0;
    let mut finished_unknown = 0;
    let mut sent = 0;
    let mut logs = String::new();
    let dir = loop {
        runs += 1;
        let dir = TempDir::new(&format!("crash-{runs}"));
        let worker = Worker { dir: &dir.0 };
        // The call ids each start sent.
        let mut starts: Vec<Vec<String>> = Vec::new();
        for start in 0.. {
            let before = worker.outbox().len();
            let log = format!("start-{start}.log");
            let mut child = worker.start(&log);
            let ended = killed_at_random(&mut child, kills < KILLS, &mut rng, 1200, START_LIMIT);
            let Some(status) = ended else {
                kills += 1;
                logs += &worker.log(&log);
                starts.push(sent_since(&worker, before));
                continue;
            };
            assert!(status.success(), "{}", worker.log(&log));
            logs += &worker.log(&log);
            starts.push(sent_since(&worker, before));
            break;
        }
        unknown += check_finished(&worker);
        finished_unknown += finished_but_unknown(&worker, &starts);
        sent += worker.outbox().len();
        if kills >= KILLS {
            break dir;
        }
    };
    println!(
        "{kills} kills over {runs} runs; {sent} of {} emails sent, none twice; {unknown} answered as outcome-unknown, {finished_unknown} of them finished; {} lookups and emails replayed from the journal",
        3 * runs,
        logs.matches("replayed").count()
    );
    // An email that finished before the next one of its turn started has its result recorded.
    assert_eq!(finished_unknown, 0);
    let worker = Worker { dir: &dir.0 };

    // Finished: a further start prints the same run and runs nothing.
    let outbox = worker.outbox();
    let transcript = worker.transcript();
    let mut again = worker.start("again.log");
    assert!(wait(&mut again, START_LIMIT).success());
    let printed = worker.log("again.log");
    assert!(
        !printed.contains("ran ") && !printed.contains("step "),
        "{printed}"
    );
    assert!(printed.contains("finished (the model answered without calling a tool)"));
    assert_eq!(worker.outbox(), outbox);
    assert_eq!(worker.transcript(), transcript);
}

#[test]
fn two_processes_resuming_one_run_from_one_journal_send_each_email_at_most_once() {
    let dir = TempDir::new("two-workers");
    let worker = Worker { dir: &dir.0 };
    // Part of the run first, cut off while it sends the first emails.
    let mut first = worker.start("first.log");
    sleep(Duration::from_millis(750));
    if first.try_wait().unwrap().is_none() {
        first.kill().unwrap();
    }
    first.wait().unwrap();

    // Two workers resume it at once: the first one's owner and another. The killed process's
    // lease is free at once (its process is gone), so either takes the run; the other is refused
    // while the first holds its lease (or, started after it finished, finds the run finished).
    let mut a = worker.start("a.log");
    let mut b = worker.start_as("b.log", "other");
    let a_status = wait(&mut a, START_LIMIT);
    let b_status = wait(&mut b, START_LIMIT);
    let (a_log, b_log) = (worker.log("a.log"), worker.log("b.log"));
    let refused = |log: &str, by: &str| log.contains(&format!("is owned by worker \"{by}\""));
    assert!(
        (a_status.success() && (b_status.success() || refused(&b_log, "worker")))
            || (b_status.success() && refused(&a_log, "other")),
        "a worker failed otherwise: {a_log}\n{b_log}"
    );
    // A last start finds the run finished.
    let mut last = worker.start("last.log");
    assert!(
        wait(&mut last, START_LIMIT).success(),
        "{}",
        worker.log("last.log")
    );
    check_finished(&worker);
    let told = |status: std::process::ExitStatus| {
        if status.success() {
            "ran or found it finished"
        } else {
            "refused: the run was owned"
        }
    };
    println!("worker a: {}; worker b: {}", told(a_status), told(b_status));
}
