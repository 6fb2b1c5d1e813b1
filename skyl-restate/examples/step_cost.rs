//! What a step costs on Restate, against the same step in memory and on skyl's SQLite journal: a
//! measured run, on loopback, for `BENCHMARKS.md`.
//!
//! ```text
//! cargo run --release -p skyl-restate --example step_cost [-- --runs 30]
//! ```
//!
//! A step is one model answer (scripted, answered at once) with one call of a tool that can have
//! effects (it does nothing), so a journaled step records an answer, an intent and a result. Runs
//! of 1 and of 10 steps are timed end to end, one after the other: in memory (`Agent::run`), on
//! SQLite (`journaled` on `SqliteJournal`, a file in the temporary directory), and on Restate (the
//! workflow served in this process, a local `restate-server` on 127.0.0.1, each run started and
//! awaited through the ingress). The cost of a step is the difference between the medians of the
//! two lengths, over 9: what a run's fixed cost (starting it, Restate's invocation) leaves out.

use std::net::{SocketAddr, TcpListener};
use std::time::{Duration, Instant};

use restate_sdk::prelude::*;
use serde_json::json;
use skyl::agent::{Agent, Run};
use skyl::durable::SqliteJournal;
use skyl::testing::ScriptedModel;
use skyl::{Message, ToolCall, Toolbox};

/// The tests' local Restate server (installed with npm into the target directory on first use).
#[path = "../tests/support/local.rs"]
#[allow(dead_code)] // the tests use the rest
mod local;
use local::LocalRestate;

/// Records something (nothing, here): a tool that can have effects, so its calls get an intent.
#[skyl::tool(destructive = false, idempotent = false)]
fn record(
    /// What to record.
    what: String,
) -> String {
    format!("recorded {what}")
}

/// Answers `steps` steps of one call each, then a text; by step, so a replayed run gets the
/// answer of the step it is at. Unrecorded: the model serves every run of the measure.
fn script(steps: usize) -> ScriptedModel {
    (0..steps)
        .fold(ScriptedModel::by_step().unrecorded(), |script, step| {
            script.reply_calls([ToolCall::new(
                format!("c{step}"),
                "record",
                json!({"what": format!("step {step}")}),
            )])
        })
        .reply_text("done")
}

fn agent(steps: usize) -> Agent {
    Agent::new(script(steps), Toolbox::new().with(Record), "scripted").with_max_steps(100)
}

/// The workflow: a run of one step, and one of ten.
struct StepCost {
    one: Agent,
    ten: Agent,
}

#[restate_sdk::workflow]
impl StepCost {
    /// Runs the agent of `steps` (1 or 10) steps.
    #[handler]
    async fn run(&self, ctx: WorkflowContext<'_>, steps: u32) -> Result<Json<Run>, HandlerError> {
        let agent = if steps == 1 { &self.one } else { &self.ten };
        let run = skyl_restate::run_agent(&ctx, agent, vec![Message::user("go")]).await?;
        Ok(Json(run))
    }
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Times `runs` runs of `steps` steps with `one`, after two untimed ones.
fn time(runs: usize, steps: u32, mut one: impl FnMut(u32, usize)) -> Duration {
    for warm in 0..2 {
        one(steps, usize::MAX - warm);
    }
    let samples = (0..runs)
        .map(|run| {
            let began = Instant::now();
            one(steps, run);
            began.elapsed()
        })
        .collect();
    median(samples)
}

fn main() {
    let mut runs = 30;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--runs", Some(value)) => runs = value.parse().expect("--runs takes a number"),
            _ => panic!("usage: step_cost [--runs N]"),
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let one = agent(1);
    let ten = agent(10);

    let memory = |steps: u32, _run: usize| {
        let agent = if steps == 1 { &one } else { &ten };
        let run = runtime
            .block_on(agent.run(vec![Message::user("go")]).into_future())
            .unwrap();
        assert_eq!(run.steps(), steps + 1);
    };
    let dir = std::env::temp_dir().join(format!("skyl-step-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let journal = SqliteJournal::open(dir.join("journal.db")).unwrap();
    let sqlite = |steps: u32, run: usize| {
        let agent = if steps == 1 { &one } else { &ten };
        let id = format!("{steps}-{run}");
        let run = runtime
            .block_on(
                agent
                    .run(vec![Message::user("go")])
                    .journaled(&journal, id.as_str())
                    .into_future(),
            )
            .unwrap();
        assert_eq!(run.steps(), steps + 1);
    };

    let restate = LocalRestate::start().unwrap_or_else(|error| panic!("{error}"));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    listener.set_nonblocking(true).unwrap();
    let endpoint = Endpoint::builder()
        .bind(StepCost {
            one: agent(1),
            ten: agent(10),
        })
        .build();
    runtime.spawn(async move {
        let listener = tokio::net::TcpListener::from_std(listener).unwrap();
        HttpServer::new(endpoint).serve(listener).await;
    });
    restate.register(&format!("http://{address}")).unwrap();
    let on_restate = |steps: u32, run: usize| {
        let response = restate
            .ingress_request(
                "POST",
                &format!("/StepCost/{steps}-{run}/run"),
                Some(&steps.to_string()),
            )
            .unwrap();
        assert_eq!(response.status, 200, "{response:?}");
        let run: Run = serde_json::from_str(&response.body).unwrap();
        assert_eq!(run.steps(), steps + 1);
    };

    let mut rows = Vec::new();
    let mut measure = |name: &str, one: &mut dyn FnMut(u32, usize)| {
        let short = time(runs, 1, &mut *one);
        let long = time(runs, 10, &mut *one);
        let step = long.saturating_sub(short) / 9;
        rows.push((name.to_owned(), short, long, step));
    };
    measure("in memory", &mut { memory });
    measure("SQLite journal", &mut { sqlite });
    measure("Restate", &mut { on_restate });

    let memory_step = rows[0].3.max(Duration::from_nanos(1));
    let sqlite_step = rows[1].3.max(Duration::from_nanos(1));
    println!("medians of {runs} runs each; a step is one answer and one call with effects");
    println!(
        "{:<16} {:>12} {:>12} {:>12} {:>10} {:>10}",
        "", "1 step", "10 steps", "per step", "/ memory", "/ SQLite"
    );
    for (name, short, long, step) in &rows {
        println!(
            "{name:<16} {short:>12.2?} {long:>12.2?} {step:>12.2?} {:>9.1}x {:>9.2}x",
            step.as_secs_f64() / memory_step.as_secs_f64(),
            step.as_secs_f64() / sqlite_step.as_secs_f64(),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
