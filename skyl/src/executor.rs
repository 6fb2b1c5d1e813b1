//! The little executor skyl needs without depending on a runtime: running a future to completion
//! on the current thread, and polling several calls at once while keeping their order.

use std::future::Future;
use std::pin::{Pin, pin};
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

/// Futures that all run concurrently in one task and finish in their original order.
///
/// Every pending future is polled on each wake. That is quadratic in theory and cheap in
/// practice: an assistant turn holds a handful of calls, and the ones that finish synchronously
/// never get here.
pub(crate) struct JoinInOrder<F: Future> {
    slots: Vec<Slot<F>>,
}

enum Slot<F: Future> {
    Pending(F),
    Done(Option<F::Output>),
}

impl<F: Future> JoinInOrder<F> {
    pub(crate) fn new() -> Self {
        JoinInOrder { slots: Vec::new() }
    }

    /// Adds a value that is already known.
    pub(crate) fn push_done(&mut self, output: F::Output) {
        self.slots.push(Slot::Done(Some(output)));
    }

    /// Adds a future to run.
    pub(crate) fn push_pending(&mut self, future: F) {
        self.slots.push(Slot::Pending(future));
    }
}

impl<F> Future for JoinInOrder<F>
where
    F: Future + Unpin,
    F::Output: Unpin,
{
    type Output = Vec<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut all_done = true;
        for slot in &mut self.slots {
            if let Slot::Pending(future) = slot {
                match Pin::new(future).poll(cx) {
                    Poll::Ready(output) => *slot = Slot::Done(Some(output)),
                    Poll::Pending => all_done = false,
                }
            }
        }
        if !all_done {
            return Poll::Pending;
        }
        Poll::Ready(
            self.slots
                .iter_mut()
                .map(|slot| match slot {
                    Slot::Done(output) => output
                        .take()
                        .expect("JoinInOrder polled after it completed"),
                    Slot::Pending(_) => unreachable!("every slot is done"),
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::ready;

    #[test]
    fn join_keeps_order_and_mixes_done_and_pending() {
        let mut join = JoinInOrder::new();
        join.push_pending(ready(1));
        join.push_done(2);
        join.push_pending(ready(3));
        assert_eq!(block_on(join), vec![1, 2, 3]);
        assert_eq!(
            block_on(JoinInOrder::<std::future::Ready<u8>>::new()),
            Vec::<u8>::new()
        );
    }

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
