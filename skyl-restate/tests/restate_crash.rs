//! The failure test: the demo service is killed with SIGKILL at seeded instants while its runs go
//! on (most land inside a tool call, as each takes 100 to 400 ms), and started again; every run
//! finishes, every call has exactly one result, and no email or cancellation happens twice.
//!
//! The seed is printed; `SKYL_CRASH_SEED=N` replays the same instants. The runs, the kills and
//! every wait are bounded: the test stops by itself.

mod support;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::json;
use support::*;

/// How many runs, one after the other, each with its own kills.
const RUNS: u32 = 3;

/// The most times the service is killed during one run before it is let finish.
const KILLS_PER_RUN: u32 = 7;

/// The demo's calls, in order.
const CALLS: [&str; 7] = ["c1", "c2", "c3", "c4", "c5", "c6", "c7"];

/// A small seeded generator (xorshift64*), so that a failing run can be run again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound
    }
}

/// Where the last start of the service was when it was killed: the call it was in, from what it
/// printed.
fn landed(log: &str) -> String {
    let last = log
        .rsplit("--- killed, started again ---")
        .next()
        .unwrap_or("");
    match last.lines().rev().find(|line| line.starts_with("in ")) {
        Some(line) => line.trim_start_matches("in ").to_owned(),
        None => "before any call".to_owned(),
    }
}

/// Whether `log` says that call `call` of run `id` started (its effect key is
/// `{id}/{step}/{call}`).
fn started(log: &str, id: &str, call: &str) -> bool {
    let run = format!(" {id}/");
    let call = format!("/{call}");
    log.lines()
        .any(|line| line.starts_with("in ") && line.contains(&run) && line.ends_with(&call))
}

/// How the wait for a target call ended.
enum Reached {
    Target,
    Past,
    End,
}

/// Approves c5 of run `id` once it waits; first kills the service while the run waits, when
/// `kill_first` says so.
fn approve_when_asked(
    restate: &LocalRestate,
    id: &str,
    approved: &mut bool,
    kill_first: &mut bool,
    service: &mut Service,
    kills: &mut Vec<String>,
) {
    if !*approved && status(restate, id)["waiting"] != json!([]) {
        if std::mem::take(kill_first) {
            service.kill();
            kills.push("waiting for the approval of c5".to_owned());
            service.start("first");
        }
        let decision = post(
            restate,
            &format!("/AgentRun/{id}/decide"),
            r#"{"call": "c5", "approve": true}"#,
        );
        assert_eq!(decision.status, 200, "{decision:?}");
        *approved = true;
    }
}

#[test]
fn runs_killed_in_seeded_calls_finish_with_one_result_per_call_and_no_effect_twice() {
    let seed = std::env::var("SKYL_CRASH_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("seed {seed} (SKYL_CRASH_SEED={seed} runs the same instants again)");
    let mut rng = Rng(seed);
    let dir = TempDir::new("crash");
    let restate = restate();
    let mut service = Service::new(&dir.0);
    service.start("first");
    restate.register(&service.uri()).unwrap();

    let mut outbox_before = 0;
    let mut in_calls = 0;
    for round in 0..RUNS {
        let id = format!("crash{round}");
        // The calls this run is killed in, in call order: a seeded half of them, at least one.
        let mut targets: Vec<&str> = CALLS.into_iter().filter(|_| rng.below(2) == 0).collect();
        if targets.is_empty() {
            targets.push(CALLS[rng.below(CALLS.len() as u64) as usize]);
        }
        start_run(&restate, &id);
        let mut kills = Vec::new();
        let mut approved = false;
        // The first run is also killed while it waits for a person's decision.
        let mut kill_waiting = round == 0;
        for target in &targets {
            // The target shows in what this start of the service prints; unless the run went
            // past it (a call answered from the journal or as outcome-unknown does not run, and a
            // later call shows instead), or to its end.
            let later: Vec<&str> = CALLS
                .into_iter()
                .skip_while(|call| call != target)
                .collect();
            let reached = wait_for("the run reaching its next target", || {
                let log = service.current_log();
                if started(&log, &id, later[0]) {
                    return Some(Reached::Target);
                }
                if later[1..].iter().any(|call| started(&log, &id, call)) {
                    return Some(Reached::Past);
                }
                approve_when_asked(
                    &restate,
                    &id,
                    &mut approved,
                    &mut kill_waiting,
                    &mut service,
                    &mut kills,
                );
                output(&restate, &id).is_some().then_some(Reached::End)
            });
            match reached {
                Reached::Target => {}
                Reached::Past => continue,
                Reached::End => break,
            }
            std::thread::sleep(Duration::from_millis(rng.below(150)));
            service.kill();
            kills.push(landed(&service.logs()));
            service.start("first");
        }
        let run = wait_for("the end of the run", || {
            approve_when_asked(
                &restate,
                &id,
                &mut approved,
                &mut kill_waiting,
                &mut service,
                &mut kills,
            );
            output(&restate, &id)
        });
        // The outbox holds every run's lines: this run's are the ones after the last run's.
        let outbox = service.outbox();
        let unknown = check_finished(&run, &outbox[outbox_before..]);
        outbox_before = outbox.len();
        println!(
            "run {id}: targets {targets:?}, killed in {kills:?}; answered as outcome-unknown: {unknown:?}"
        );
        in_calls += kills
            .iter()
            .filter(|kill| kill.contains(&format!("{id}/")))
            .count();
        assert!(kills.len() <= KILLS_PER_RUN as usize);
    }
    // The kills landed inside tool calls, not only between them.
    assert!(in_calls >= 1, "no kill landed inside a tool call");
}

/// Not a test of its own: the demo service, when a test starts this binary as its process
/// (`support::demo_command`); in a test run it does nothing.
#[test]
fn demo_service() {
    serve_demo_if_asked();
}
