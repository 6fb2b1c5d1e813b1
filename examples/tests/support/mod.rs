//! What the examples' crash tests share: the seeded instants of their kills, a temporary
//! directory, a bounded wait for a worker, the worker's log, and the check that every adapter
//! takes a transcript.

use std::path::Path;
use std::process::{Child, ExitStatus};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use skyl::Message;
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, Request};

/// The workspace tests' seeded generator, so that a failing run can be run again.
#[allow(dead_code)]
#[path = "../../../tests/support/rng.rs"]
mod rng;
pub(crate) use rng::Rng;

/// The seed of the kills: `SKYL_CRASH_SEED` when set (to run the same instants again), else one
/// from the clock.
pub(crate) fn seed() -> u64 {
    std::env::var("SKYL_CRASH_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        })
}

/// The generator of a crash test's kills, from `seed`, which it prints for running the same
/// kills again.
pub(crate) fn seeded_rng(test: &str) -> Rng {
    let seed = seed();
    println!("{test} seed: {seed} (SKYL_CRASH_SEED={seed} runs these kills again)");
    Rng(seed)
}

/// A temporary directory of this test, removed when dropped: the workspace tests' own.
#[allow(dead_code)]
#[path = "../../../tests/support/scratch.rs"]
mod scratch;
pub(crate) use scratch::TempDir;

/// What a worker printed to `log` in `dir`, its standard error (`<log>.err`) after it.
pub(crate) fn log(dir: &Path, log: &str) -> String {
    std::fs::read_to_string(dir.join(log)).unwrap_or_default()
        + &std::fs::read_to_string(dir.join(format!("{log}.err"))).unwrap_or_default()
}

/// The lines of the file `name` in `dir`; none when it is not there yet.
pub(crate) fn lines(dir: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits for `child` at most `limit`; kills it and panics past that.
pub(crate) fn wait(child: &mut Child, limit: Duration) -> ExitStatus {
    let begun = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if begun.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a worker ran past {limit:?}");
        }
        sleep(Duration::from_millis(10));
    }
}

/// Panics unless every provider's adapter encodes a request of `transcript` (the `what`
/// transcript, for the message).
pub(crate) fn every_adapter_takes(transcript: &[Message], what: &str) {
    let request = Request::new("any-model", transcript);
    let adapters: [Box<dyn Adapter>; 4] = [
        Box::new(Anthropic),
        Box::new(OpenAiChat::default()),
        Box::new(OpenAiResponses::default()),
        Box::new(Gemini::default()),
    ];
    for adapter in adapters {
        if let Err(error) = adapter.encode(&request) {
            panic!(
                "{} refuses the {what} transcript: {error}",
                adapter.provider()
            );
        }
    }
}

/// Lets `child` run a while (20 ms and up to `most` ms more, from `rng`) and kills it there if
/// `kill` holds and it is still running (`None`); otherwise waits for it at most `limit` (`Some`
/// of how it ended).
pub(crate) fn killed_at_random(
    child: &mut Child,
    kill: bool,
    rng: &mut Rng,
    most: u64,
    limit: Duration,
) -> Option<ExitStatus> {
    if kill {
        sleep(Duration::from_millis(20 + rng.next() % most));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
    }
    Some(wait(child, limit))
}
