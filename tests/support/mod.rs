//! What the tests share: futures that stand in for a runtime, the fixtures on disk, the streaming
//! adapters by name, a scripted HTTP server, temporary directories, a seeded generator and the crash
//! tests' child process.

use std::future::Future;
use std::path::Path;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use serde_json::Value;
use skyl::provider::{Adapter, Anthropic, Gemini, OpenAiChat, OpenAiResponses, stream::Streaming};
use skyl::{Content, Message, Part, Role, ToolCall, ToolResult, content::ResultContent};

pub(crate) mod content_rows;
pub(crate) mod crash;
pub(crate) mod http_server;
pub(crate) mod journal;
pub(crate) mod rng;
pub(crate) mod scratch;

/// The model's turn of one call, `id` of `name` with `arguments`.
pub(crate) fn calling(id: &str, name: &str, arguments: Value) -> Message {
    Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall::new(id, name, arguments))],
    }
}

/// The tool message answering the call `c1` with `result`, and `content` beside it when there
/// is any.
pub(crate) fn answered(result: ToolResult, content: Vec<Content>) -> Message {
    let mut parts = vec![Part::ToolResult(result)];
    if !content.is_empty() {
        parts.push(Part::ResultContent(ResultContent::new("c1", content)));
    }
    Message {
        role: Role::Tool,
        parts,
    }
}

/// A future that is pending `n` times, waking itself each time: concurrency without a timer.
pub(crate) struct YieldTimes(pub(crate) usize);

impl Future for YieldTimes {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            return Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Polls `future` on this thread until it finishes, parking between polls until it is woken.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut Context::from_waker(&waker)) {
            return output;
        }
        std::thread::park();
    }
}

/// The bytes of `tests/fixtures/<path>`.
pub(crate) fn fixture(path: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The adapter of every provider skyl has, in the order of [`STREAMING`].
pub(crate) fn adapters() -> Vec<Box<dyn Adapter>> {
    vec![
        Box::new(Anthropic),
        Box::new(OpenAiChat::default()),
        Box::new(OpenAiResponses::default()),
        Box::new(Gemini::default()),
    ]
}

/// The providers with recorded streams in `tests/fixtures/stream/`.
pub(crate) const STREAMING: [&str; 4] = ["anthropic", "openai_chat", "openai_responses", "gemini"];

/// The streaming adapter of `provider`, one of [`STREAMING`].
pub(crate) fn streaming(provider: &str) -> Box<dyn Streaming> {
    match provider {
        "anthropic" => Box::new(Anthropic),
        "openai_chat" => Box::new(OpenAiChat::default()),
        "openai_responses" => Box::new(OpenAiResponses::default()),
        "gemini" => Box::new(Gemini::default()),
        other => panic!("no adapter {other}"),
    }
}
