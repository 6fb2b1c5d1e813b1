//! A top agent, a sub-agent and a sub-sub-agent with effects at each level and an approval at the
//! bottom (`nested_worker`), killed with SIGKILL at seeded instants and started again, in a fresh
//! process each time, until it finishes: every call of every level has one result, no effect
//! happens twice, and the approval is used once.
//!
//! The seed is printed, and `SKYL_CRASH_SEED=N` runs the same instants again. Every wait is
//! bounded, and the kills are counted: the test stops by itself.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use skyl::{Message, ToolResult};
use support::{TempDir, killed_at_random, wait};

mod support;

/// How many times the runs are killed in all.
const KILLS: u32 = 30;

/// The most starts one run may take before the test gives up on it.
const STARTS_LIMIT: u32 = 200;

/// The longest a start of the worker may take before the test gives up on it.
const START_LIMIT: Duration = Duration::from_secs(60);

/// The opening of an outcome-unknown result of `tool`.
fn outcome_unknown(tool: &str) -> String {
    format!("ERROR: the outcome of this {tool} call is unknown")
}

struct Worker<'a> {
    dir: &'a Path,
}

impl Worker<'_> {
    fn start(&self, log: &str) -> Child {
        self.start_as(log, "nested-worker")
    }

    /// Starts a worker that is `owner` to the journal's leases: a worker started after a kill is
    /// the owner it replaces, two running at once are two owners.
    fn start_as(&self, log: &str, owner: &str) -> Child {
        let file = |name: &str| self.dir.join(name);
        Command::new(env!("CARGO_BIN_EXE_nested_worker"))
            .arg("--owner")
            .arg(owner)
            .arg("--journal")
            .arg(file("journal.db"))
            .arg("--outbox")
            .arg(file("outbox.txt"))
            .arg("--paused")
            .arg(file("paused.json"))
            .arg("--approved")
            .arg(file("approved.json"))
            .arg("--transcripts")
            .arg(file("transcripts.json"))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(file(log)).unwrap())
            .stderr(std::fs::File::create(file(&format!("{log}.err"))).unwrap())
            .spawn()
            .unwrap()
    }

    fn log(&self, log: &str) -> String {
        support::log(self.dir, log)
    }

    /// Each line of the outbox: the tool and its effect key.
    fn outbox(&self) -> Vec<String> {
        support::lines(self.dir, "outbox.txt")
    }

    fn finished(&self) -> bool {
        self.dir.join("transcripts.json").exists()
    }

    fn transcripts(&self) -> HashMap<String, Vec<Message>> {
        let text = std::fs::read_to_string(self.dir.join("transcripts.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }
}

/// What a finished run shows.
#[derive(Default)]
struct Figures {
    effects: usize,
    unknown: usize,
    emails_sent: usize,
}

/// Checks a finished run: one result per call at every level, each transcript accepted by
/// every adapter, no effect twice, each effect that has its own result done once, the email
/// approved and run (or answered as outcome-unknown) once.
fn check_finished(worker: &Worker<'_>) -> Figures {
    let transcripts = worker.transcripts();
    let outbox = worker.outbox();
    let mut done: HashMap<&str, usize> = HashMap::new();
    for line in &outbox {
        *done.entry(line.as_str()).or_default() += 1;
    }
    for (line, times) in &done {
        assert_eq!(*times, 1, "{line} happened {times} times: {outbox:?}");
    }
    let mut figures = Figures {
        effects: outbox.len(),
        emails_sent: outbox
            .iter()
            .filter(|line| line.starts_with("send_email "))
            .count(),
        ..Figures::default()
    };
    let expected_calls = [
        ("top", vec!["c1", "c2"]),
        ("research", vec!["r1", "r2", "r3"]),
        ("mail", vec!["m1", "m2"]),
    ];
    for (level, calls) in expected_calls {
        let transcript = &transcripts[level];
        skyl::transcript::validate_complete(transcript).unwrap();
        let mut results: HashMap<&str, Vec<&ToolResult>> = HashMap::new();
        for result in transcript.iter().flat_map(Message::tool_results) {
            results
                .entry(result.call_id.as_str())
                .or_default()
                .push(result);
        }
        let ids: Vec<&str> = transcript
            .iter()
            .flat_map(Message::tool_calls)
            .map(|call| call.id.as_str())
            .collect();
        assert_eq!(ids, calls, "{level}");
        for call in transcript.iter().flat_map(Message::tool_calls) {
            let answers = &results[call.id.as_str()];
            assert_eq!(answers.len(), 1, "{level}: {} has {answers:?}", call.id);
            let result = answers[0];
            if call.name == "note" || call.name == "send_email" {
                if result.content.starts_with(&outcome_unknown(&call.name)) {
                    figures.unknown += 1;
                } else {
                    // Answered by its own run: done, once (its line is in the outbox).
                    assert!(!result.is_error, "{level}: {result:?}");
                    let effect = outbox.iter().filter(|line| {
                        line.starts_with(&format!("{} ", call.name))
                            && line.ends_with(&format!("/{}", call.id))
                    });
                    assert_eq!(effect.count(), 1, "{level}: {result:?} {outbox:?}");
                }
            } else {
                assert!(!result.is_error, "{level}: {result:?}");
            }
        }
        support::every_adapter_takes(transcript, level);
    }
    // The email ran under its sub-sub-run's effect key, at most once.
    assert!(figures.emails_sent <= 1, "{outbox:?}");
    for line in &outbox {
        if let Some(key) = line.strip_prefix("send_email ") {
            assert_eq!(key, "top/1/c1/2/r3/2/m2");
        }
    }
    figures
}

#[test]
fn killed_at_random_instants_three_nested_agents_finish_with_no_effect_twice_and_the_approval_used_once()
 {
    let mut rng = support::seeded_rng("nested crash test");

    let mut kills = 0;
    let mut runs = 0;
    let mut starts_total = 0;
    let mut pauses = 0;
    let mut approvals = 0;
    let mut totals = Figures::default();
    let mut replayed = 0;
    loop {
        runs += 1;
        let dir = TempDir::new(&format!("nested-crash-{runs}"));
        let worker = Worker { dir: &dir.0 };
        for start in 0.. {
            assert!(start < STARTS_LIMIT, "run {runs} took {start} starts");
            starts_total += 1;
            let log = format!("start-{start}.log");
            let mut child = worker.start(&log);
            let ended = killed_at_random(&mut child, kills < KILLS, &mut rng, 700, START_LIMIT);
            let Some(status) = ended else {
                kills += 1;
                let printed = worker.log(&log);
                replayed += printed.matches("replayed").count();
                approvals += printed.matches("approved").count();
                continue;
            };
            let printed = worker.log(&log);
            assert!(status.success(), "{printed}");
            replayed += printed.matches("replayed").count();
            approvals += printed.matches("approved").count();
            if printed.contains("waiting: c1 research > r3 mail > m2 send_email") {
                pauses += 1;
            }
            if worker.finished() {
                break;
            }
        }
        let figures = check_finished(&worker);
        totals.effects += figures.effects;
        totals.unknown += figures.unknown;
        totals.emails_sent += figures.emails_sent;
        if kills >= KILLS {
            break;
        }
    }
    println!(
        "{kills} kills over {runs} runs ({starts_total} starts, {pauses} pauses for approval, {approvals} approvals given); {} effects done, none twice; {} of {runs} emails sent, none twice; {} notes and emails answered as outcome-unknown; {replayed} calls replayed from the journals",
        totals.effects, totals.emails_sent, totals.unknown
    );
    assert!(runs >= 1);
}

#[test]
fn two_processes_approving_and_resuming_one_paused_run_at_once_send_the_email_at_most_once() {
    let dir = TempDir::new("nested-two-workers");
    let worker = Worker { dir: &dir.0 };
    let mut first = worker.start("first.log");
    assert!(
        wait(&mut first, START_LIMIT).success(),
        "{}",
        worker.log("first.log")
    );
    assert!(
        worker
            .log("first.log")
            .contains("waiting: c1 research > r3 mail > m2 send_email"),
        "{}",
        worker.log("first.log")
    );

    // Two people approve the same paused run in two processes at once, and each resumes it: the
    // one that finds the run leased to the other, or loses a record to it (at any level), stops
    // without acting on it.
    let mut a = worker.start_as("a.log", "a");
    let mut b = worker.start_as("b.log", "b");
    let a_status = wait(&mut a, START_LIMIT);
    let b_status = wait(&mut b, START_LIMIT);
    for (status, log) in [
        (a_status, worker.log("a.log")),
        (b_status, worker.log("b.log")),
    ] {
        assert!(
            status.success()
                || log.contains("another worker recorded")
                || log.contains("is owned by worker"),
            "a worker failed otherwise: {log}"
        );
    }
    let mut last = worker.start("last.log");
    assert!(
        wait(&mut last, START_LIMIT).success(),
        "{}",
        worker.log("last.log")
    );
    assert!(worker.finished(), "{}", worker.log("last.log"));
    let figures = check_finished(&worker);
    println!(
        "worker a: {}; worker b: {}; {} email sent",
        if a_status.success() {
            "finished"
        } else {
            "stopped on a conflict"
        },
        if b_status.success() {
            "finished"
        } else {
            "stopped on a conflict"
        },
        figures.emails_sent
    );
}
