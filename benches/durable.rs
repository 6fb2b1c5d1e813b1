//! What a journal costs a run: the same run in memory and journaled in SQLite, in one process.
//!
//! Each run has 10 steps; each step but the last calls one tool, and the last answers. Two tools:
//! a read-only lookup (a journaled step writes the answer durably and the result without a sync)
//! and a non-idempotent notify (an intent is synced before it runs as well). The journal is one
//! SQLite file in the temporary directory, each iteration a new run id in it, as a server keeps
//! many runs in one file.
//!
//! - `in_memory/{lookup,notify}`: `Agent::run`, no journal.
//! - `journaled/{lookup,notify}`: the same run, `.journaled(&SqliteJournal, id)`.
//!
//! The syncs per run are counted and printed before measuring (`SqliteJournal::syncs`). Compare
//! medians in one run: `cargo bench --manifest-path benches/Cargo.toml --bench durable`.

use std::future::IntoFuture;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;
use skyl::agent::{Agent, Stop};
use skyl::durable::SqliteJournal;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

const STEPS: usize = 10;

/// Looks a word up.
#[skyl::tool(read_only)]
fn lookup(word: String) -> String {
    word
}

/// Sends a note to someone.
#[skyl::tool(idempotent = false)]
fn notify(to: String) -> String {
    to
}

/// Calls `tool` at every step but the last, by step (every run asks for steps 1 to 10 again).
/// Unrecorded: a bench's thousands of runs would grow a record of their requests without bound.
fn script(tool: &'static str) -> ScriptedModel {
    (0..STEPS - 1)
        .fold(ScriptedModel::by_step().unrecorded(), |script, step| {
            let arguments = match tool {
                "lookup" => json!({"word": format!("w{step}")}),
                _ => json!({"to": format!("p{step}")}),
            };
            script.reply_calls([ToolCall::new(format!("c{step}"), tool, arguments)])
        })
        .reply_text("done")
}

fn agent(tool: &'static str) -> Agent {
    Agent::new(script(tool), Toolbox::new().with(Lookup).with(Notify), "m").with_max_steps(20)
}

fn journal() -> SqliteJournal {
    let path = std::env::temp_dir().join(format!("skyl-bench-durable-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    SqliteJournal::open(path).unwrap()
}

static RUN: AtomicU64 = AtomicU64::new(0);

fn journaled_run(agent: &Agent, journal: &SqliteJournal) -> skyl::agent::Run {
    let id = format!("run-{}", RUN.fetch_add(1, Ordering::Relaxed));
    agent
        .run(vec![Message::user("go")])
        .journaled(journal, id)
        .blocking()
        .unwrap()
}

fn main() {
    let journal = journal();
    for tool in ["lookup", "notify"] {
        let agent = agent(tool);
        let memory = agent.run(vec![Message::user("go")]).blocking().unwrap();
        let before = journal.syncs();
        let journaled = journaled_run(&agent, &journal);
        assert_eq!(memory.transcript(), journaled.transcript());
        assert_eq!(journaled.stop(), &Stop::Answered);
        println!(
            "{tool}: {} syncs for {STEPS} steps and {} calls",
            journal.syncs() - before,
            STEPS - 1
        );
    }
    divan::Divan::from_args().sample_count(30).main();
}

#[divan::bench(args = ["lookup", "notify"])]
fn in_memory(bencher: divan::Bencher<'_, '_>, tool: &'static str) {
    let agent = agent(tool);
    bencher
        .bench_local(|| futures_block(agent.run(vec![Message::user("go")]).into_future()).unwrap());
}

#[divan::bench(args = ["lookup", "notify"])]
fn journaled(bencher: divan::Bencher<'_, '_>, tool: &'static str) {
    let agent = agent(tool);
    let journal = journal();
    bencher.bench_local(|| journaled_run(&agent, &journal));
}

/// Runs a future whose model and tools are ready at once.
fn futures_block<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
    }
}
