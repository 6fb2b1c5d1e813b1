//! Wall time of concurrent tool calls, and how late a timeout fires under load.
//!
//! Not a divan benchmark: each sample takes 100 ms of sleeping, so this runs a few samples and
//! reports medians and the worst case. Run with
//! `cargo bench --manifest-path benches/Cargo.toml --bench concurrency`.
//!
//! - `answer` on 10 and on 100 calls of an async tool that sleeps 100 ms, as one assistant turn:
//!   the wall time against the 100 ms one call takes (goal ≤ 1.2×: the calls overlap).
//! - 1,000 concurrent calls of a tool that never finishes, each with a 50 ms timeout: how long
//!   after its deadline each call's result arrives (median and maximum).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use serde_json::json;
use skyl::{Message, Part, Role, ToolCall, Toolbox};

const SLEEP: Duration = Duration::from_millis(100);
const TIMEOUT: Duration = Duration::from_millis(50);

/// Sleeps 100 ms without blocking the thread.
#[skyl::tool]
async fn nap() -> &'static str {
    futures_timer::Delay::new(SLEEP).await;
    "rested"
}

/// Never finishes.
#[skyl::tool]
async fn hang() -> &'static str {
    std::future::pending().await
}

fn turn(calls: usize, tool: &str) -> Message {
    Message {
        role: Role::Assistant,
        parts: (0..calls)
            .map(|i| Part::ToolCall(ToolCall::new(format!("c{i}"), tool, json!({}))))
            .collect(),
    }
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Polls every future on this thread until all are done, recording when each finished.
fn finish_times<F: Future>(futures: Vec<F>) -> Vec<Instant> {
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut futures: Vec<Option<Pin<Box<F>>>> =
        futures.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut done = vec![None; futures.len()];
    while done.iter().any(Option::is_none) {
        for (slot, finished) in futures.iter_mut().zip(&mut done) {
            if let Some(future) = slot
                && future.as_mut().poll(&mut cx).is_ready()
            {
                *finished = Some(Instant::now());
                *slot = None;
            }
        }
        if done.iter().any(Option::is_none) {
            thread::park_timeout(Duration::from_millis(5));
        }
    }
    done.into_iter().map(Option::unwrap).collect()
}

fn main() {
    let toolbox = Toolbox::new()
        .with(Nap)
        .with(Hang)
        .with_timeout(TIMEOUT * 20);
    for calls in [1, 10, 100] {
        let message = turn(calls, "nap");
        let mut samples: Vec<Duration> = (0..7)
            .map(|_| {
                let start = Instant::now();
                let answer = toolbox.answer_blocking(&message);
                let elapsed = start.elapsed();
                assert!(answer.tool_results().all(|r| r.content == "rested"));
                elapsed
            })
            .collect();
        let wall = median(&mut samples);
        println!(
            "answer, {calls:>3} calls sleeping 100 ms: median wall {wall:>9.1?} = {:.3}x one call's sleep",
            wall.as_secs_f64() / SLEEP.as_secs_f64()
        );
    }

    let toolbox = Toolbox::new().with(Hang).with_timeout(TIMEOUT);
    let calls: Vec<ToolCall> = (0..1000)
        .map(|i| ToolCall::new(format!("c{i}"), "hang", json!({})))
        .collect();
    for round in 1..=3 {
        let start = Instant::now();
        let futures: Vec<_> = calls.iter().map(|call| toolbox.dispatch(call)).collect();
        let times = finish_times(futures);
        let mut late: Vec<Duration> = times
            .iter()
            .map(|&t| t.saturating_duration_since(start + TIMEOUT))
            .collect();
        let worst = *late.iter().max().unwrap();
        println!(
            "1,000 concurrent calls, 50 ms timeout, round {round}: result after the deadline: median {:.1?}, max {worst:.1?}",
            median(&mut late)
        );
    }
}
