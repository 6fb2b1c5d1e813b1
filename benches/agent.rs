//! What the agent loop costs over the same loop written by hand, doing the same work in the same
//! run.
//!
//! Both sides run the same conversation: each step encodes the request with the Anthropic
//! adapter, decodes a canned response body (a call to a trivial tool, or the final answer), runs
//! the tool, appends the answer and the results, counts the step and adds up the tokens. The model
//! is scripted at the wire level, so the work a real transport does besides the network is in
//! both rows, and the difference between them is the loop's own overhead: hooks, stop conditions,
//! the breaker, the run's bookkeeping, the boxed model call.
//!
//! - `by_hand_loop/N`: encode, decode, `Toolbox::answer`, push, a step counter and a token sum, N steps.
//! - `agent_loop/N`: `Agent::run` over a `Model` doing the same encode and decode, N steps.
//!
//! The two produce the same transcript, checked before measuring. Compare medians in one run:
//! `cargo bench --manifest-path benches/Cargo.toml --bench agent`. The goal is
//! agent_loop / by_hand_loop ≤ 1.10.

use std::future::{Future, IntoFuture, ready};
use std::hint::black_box;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};

use serde_json::{Value, json};
use skyl::agent::{Agent, Stop};
use skyl::model::{BoxFuture, Model, ModelError};
use skyl::provider::{Adapter, Anthropic, Request, Response, Usage};
use skyl::{Message, Toolbox};

// This bench uses only the workload's tool.
#[allow(dead_code)]
mod workload;
use workload::GetWeather;

const SYSTEM: &str = "You are a terse weather assistant.";
const MODEL: &str = "claude-sonnet-4-5";

fn main() {
    for steps in STEPS {
        let bodies = bodies(steps);
        let toolbox = Toolbox::new().with(GetWeather);
        let by_hand = poll_once(by_hand(&toolbox, &bodies));
        let agent = agent(&bodies);
        let run = poll_once(agent.run(prompt()).into_future()).unwrap();
        assert_eq!(run.stop(), &Stop::Answered);
        assert_eq!(run.steps() as usize, steps);
        assert_eq!(
            run.transcript(),
            by_hand.as_slice(),
            "both loops do the same"
        );
    }
    divan::Divan::from_args()
        .sample_count(300)
        .sample_size(20)
        .main();
}

const STEPS: [usize; 3] = [1, 2, 10];

/// The Anthropic response bodies of a `steps`-step conversation: a call to `get_weather` at each
/// step but the last, which answers.
fn bodies(steps: usize) -> Vec<Value> {
    let mut bodies: Vec<Value> = (1..steps)
        .map(|step| {
            json!({
                "id": format!("msg_{step}"),
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": format!("toolu_{step:02}"), "name": "get_weather", "input": {"city": "Kampala", "days": 1}}
                ],
                "stop_reason": "tool_use",
                "usage": {"input_tokens": 420, "output_tokens": 38}
            })
        })
        .collect();
    bodies.push(json!({
        "id": "msg_last",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": "22C and sunny in Kampala."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 470, "output_tokens": 9}
    }));
    bodies
}

fn prompt() -> Vec<Message> {
    vec![Message::user("Weather in Kampala?")]
}

/// The loop written by hand.
async fn by_hand(toolbox: &Toolbox, bodies: &[Value]) -> Vec<Message> {
    let adapter = Anthropic;
    let mut messages = prompt();
    let mut usage = Usage::default();
    let mut steps = 0;
    for body in bodies {
        let request = Request::new(MODEL, messages.as_slice())
            .with_system(SYSTEM)
            .with_tools(toolbox.definitions());
        black_box(adapter.encode(&request).unwrap());
        let response = adapter.decode(body).unwrap();
        steps += 1;
        usage.input_tokens += response.usage.input_tokens;
        usage.output_tokens += response.usage.output_tokens;
        let calls = response.message.tool_calls().next().is_some();
        let results = if calls {
            Some(toolbox.answer(&response.message).await)
        } else {
            None
        };
        messages.push(response.message);
        match results {
            Some(results) => messages.push(results),
            None => break,
        }
    }
    black_box((steps, usage));
    messages
}

/// A model scripted at the wire level: it encodes each request as a transport would, and
/// decodes the next canned body.
struct WireModel {
    adapter: Anthropic,
    bodies: Vec<Value>,
    next: AtomicUsize,
}

impl Model for WireModel {
    fn complete<'a>(
        &'a self,
        request: &'a Request<'_>,
    ) -> BoxFuture<'a, Result<Response, ModelError>> {
        let answer = self
            .adapter
            .encode(request)
            .map(black_box)
            .map_err(ModelError::from);
        let answer = answer.and_then(|_| {
            let next = self.next.fetch_add(1, Ordering::Relaxed) % self.bodies.len();
            self.adapter
                .decode(&self.bodies[next])
                .map_err(ModelError::from)
        });
        Box::pin(ready(answer))
    }
}

fn agent(bodies: &[Value]) -> Agent {
    let model = WireModel {
        adapter: Anthropic,
        bodies: bodies.to_vec(),
        next: AtomicUsize::new(0),
    };
    Agent::new(model, Toolbox::new().with(GetWeather), MODEL).with_system(SYSTEM)
}

/// Everything here is synchronous: one poll finishes it.
fn poll_once<F: Future>(future: F) -> F::Output {
    match pin!(future)
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("no part of the loop waits"),
    }
}

#[divan::bench(args = STEPS)]
fn by_hand_loop(bencher: divan::Bencher<'_, '_>, steps: usize) {
    let bodies = bodies(steps);
    let toolbox = Toolbox::new().with(GetWeather);
    bencher.bench_local(|| drop(poll_once(by_hand(&toolbox, black_box(&bodies)))));
}

#[divan::bench(args = STEPS)]
fn agent_loop(bencher: divan::Bencher<'_, '_>, steps: usize) {
    let agent = agent(&bodies(steps));
    bencher.bench_local(|| drop(poll_once(agent.run(black_box(prompt())).into_future())));
}
