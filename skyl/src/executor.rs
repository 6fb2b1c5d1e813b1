//! The little executor skyl needs without depending on a runtime: running a future to completion
//! on the current thread. (Polling the calls of a turn together is the toolbox's batch.)

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};

/// Runs `future` on this thread, parking it while the future waits.
///
/// A tool future that needs a runtime's reactor (tokio's timers or sockets) will wait forever
/// here, as it would under any foreign executor: dispatch those with `.await` inside the runtime.
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let waker = Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
            return output;
        }
        thread::park();
    }
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_on_waits_for_a_wake_from_another_thread() {
        let (sender, receiver) = std::sync::mpsc::channel::<Waker>();
        let waiter = thread::spawn(move || {
            let waker = receiver.recv().unwrap();
            waker.wake();
        });
        let mut sent = Some(sender);
        let value = block_on(std::future::poll_fn(|cx| match sent.take() {
            Some(sender) => {
                sender.send(cx.waker().clone()).unwrap();
                Poll::Pending
            }
            None => Poll::Ready(7),
        }));
        waiter.join().unwrap();
        assert_eq!(value, 7);
    }
}
