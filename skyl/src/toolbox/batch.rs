//! The calls of one turn, run concurrently in one task, at most so many at a time, answered in
//! call order.
//!
//! No runtime is involved: the batch is a future that starts calls in call order while fewer than
//! the limit are in flight, polls the ones in flight when woken, and starts the next waiting call
//! as soon as one finishes. A synchronous tool finishes inside its start and holds no place.

use std::future::Future;
use std::mem;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use super::running::Running;
use super::{RichResult, Toolbox};
use crate::message::{ToolCall, ToolResult};
use crate::tool::CallObserver;

/// What the owner of a batch hears about each call.
pub(crate) trait Watch {
    /// Taken when a call starts and handed back when it finishes.
    type Mark;

    fn started(&mut self) -> Self::Mark;

    fn finished(&mut self, position: usize, answered: &RichResult, mark: Self::Mark);
}

/// Hears nothing, and costs nothing.
impl Watch for () {
    type Mark = ();

    #[inline]
    fn started(&mut self) {}

    #[inline]
    fn finished(&mut self, _: usize, _: &RichResult, (): ()) {}
}

/// Hears of each result as soon as it is known, with how long its call ran.
pub(crate) struct Timed<F>(pub(crate) F);

impl<F: FnMut(usize, &RichResult, Duration)> Watch for Timed<F> {
    type Mark = Instant;

    fn started(&mut self) -> Instant {
        Instant::now()
    }

    fn finished(&mut self, position: usize, answered: &RichResult, begun: Instant) {
        (self.0)(position, answered, begun.elapsed())
    }
}

/// What a call waits for before it starts: it starts once the gate says `true`; a gate that says
/// `false` stops the batch from starting any call after it (the ones running finish).
pub(crate) type Gate<'a> = Pin<Box<dyn Future<Output = bool> + Send + 'a>>;

pub(super) enum Slot<'a, M> {
    /// Not started yet.
    Queued(&'a ToolCall),
    Running(Running<'a>, M),
    Done(RichResult),
    /// Handed to the caller.
    Taken,
}

/// What [`Toolbox::start`] made of a call: its result, or the call still running.
enum Started<'a> {
    Done(RichResult),
    Running(Running<'a>),
}

pub(super) struct Batch<'a, S, W: Watch> {
    toolbox: &'a Toolbox<S>,
    slots: Vec<Slot<'a, W::Mark>>,
    /// Each slot's effect key, or none at all.
    effect_keys: &'a [String],
    /// Each slot's gate, or none at all.
    gates: Vec<Option<Gate<'a>>>,
    /// Where the calls' progress and log lines go.
    observer: Option<Arc<dyn CallObserver>>,
    /// The first slot not yet considered for starting.
    next: usize,
    /// How many calls are in flight.
    running: usize,
    limit: usize,
    watch: W,
}

impl<'a, S: 'static, W: Watch> Batch<'a, S, W> {
    pub(super) fn new(
        toolbox: &'a Toolbox<S>,
        slots: Vec<Slot<'a, W::Mark>>,
        effect_keys: &'a [String],
        gates: Vec<Option<Gate<'a>>>,
        observer: Option<Arc<dyn CallObserver>>,
        watch: W,
    ) -> Self {
        Batch {
            toolbox,
            slots,
            effect_keys,
            gates,
            observer,
            next: 0,
            running: 0,
            limit: toolbox.limits.max_concurrent_calls().unwrap_or(usize::MAX),
            watch,
        }
    }

    /// The results, in slot order, once every call has one; and the watch, to hear of the
    /// results its owner writes.
    pub(super) async fn run(mut self) -> (Vec<RichResult>, W) {
        let results = std::future::poll_fn(|cx| self.poll_all(cx)).await;
        (results, self.watch)
    }

    fn poll_all(&mut self, cx: &mut Context<'_>) -> Poll<Vec<RichResult>> {
        loop {
            self.start_waiting(cx);
            let freed = self.poll_running(cx);
            if self.running == 0 && self.next == self.slots.len() {
                return Poll::Ready(self.take_results());
            }
            // A call finished and others wait for its place: start them, and poll them once so
            // that they can wake this task.
            if !freed || self.next == self.slots.len() {
                return Poll::Pending;
            }
        }
    }

    fn start_waiting(&mut self, cx: &mut Context<'_>) {
        while self.running < self.limit && self.next < self.slots.len() {
            let position = self.next;
            let Slot::Queued(call) = self.slots[position] else {
                self.next += 1;
                continue;
            };
            if let Some(gate) = self.gates.get_mut(position).and_then(Option::as_mut) {
                match gate.as_mut().poll(cx) {
                    // Calls start in order: the ones after it wait too.
                    Poll::Pending => return,
                    Poll::Ready(true) => self.gates[position] = None,
                    Poll::Ready(false) => {
                        self.halt();
                        return;
                    }
                }
            }
            self.next += 1;
            let mark = self.watch.started();
            let key = self.effect_keys.get(position).map(String::as_str);
            self.slots[position] = match self.toolbox.start(
                call,
                key,
                self.observer.as_ref(),
                Started::Done,
                Started::Running,
            ) {
                Started::Done(result) => {
                    self.watch.finished(position, &result, mark);
                    Slot::Done(result)
                }
                Started::Running(running) => {
                    self.running += 1;
                    Slot::Running(running, mark)
                }
            };
        }
    }

    /// Starts no more calls: each one not started gets an empty error result, which its owner,
    /// who stopped the batch, does not use.
    fn halt(&mut self) {
        for slot in &mut self.slots[self.next..] {
            if let Slot::Queued(call) = slot {
                *slot = Slot::Done(ToolResult::error(call.id.as_str(), String::new()).into());
            }
        }
        self.next = self.slots.len();
    }

    /// Polls the calls in flight; says whether one finished.
    fn poll_running(&mut self, cx: &mut Context<'_>) -> bool {
        let mut freed = false;
        for (position, slot) in self.slots[..self.next].iter_mut().enumerate() {
            let Slot::Running(running, _) = slot else {
                continue;
            };
            let Poll::Ready(result) = Pin::new(running).poll(cx) else {
                continue;
            };
            let Slot::Running(_, mark) = mem::replace(slot, Slot::Taken) else {
                unreachable!("the slot was running")
            };
            self.watch.finished(position, &result, mark);
            *slot = Slot::Done(result);
            self.running -= 1;
            freed = true;
        }
        freed
    }

    fn take_results(&mut self) -> Vec<RichResult> {
        self.slots
            .iter_mut()
            .map(|slot| match mem::replace(slot, Slot::Taken) {
                Slot::Done(result) => result,
                _ => unreachable!("every call has its result"),
            })
            .collect()
    }
}
