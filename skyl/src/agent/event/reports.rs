//! What a turn's calls report while they run, handed to the run's event callback in the order it
//! came: the tools report from any thread, and a call's reports come before its result.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Poll, Waker};

use crate::tool::{CallContext, CallObserver, Report};

use crate::agent::event::Event;
use crate::agent::lock;

/// The reports of a turn's calls and their results, in the order they came, waiting to be
/// handed to the run's event callback.
#[derive(Default)]
pub(crate) struct Reports {
    queue: Mutex<(Vec<Event>, Option<Waker>)>,
}

impl Reports {
    /// Queues `event` and wakes the turn, which hands it to the callback.
    pub(crate) fn push(&self, event: Event) {
        let waker = {
            let mut queue = lock(&self.queue);
            queue.0.push(event);
            queue.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl CallObserver for Reports {
    fn report(&self, call: &CallContext, report: Report) {
        self.push(Event::ToolReport {
            call_id: call.call_id().to_owned(),
            name: call.tool().to_owned(),
            report,
        });
    }
}

/// A turn being run, whose queued events are handed to the callback each time it is polled.
pub(crate) struct Reporting<'e, 'c, F> {
    pub(crate) work: F,
    pub(crate) reports: Option<&'e Reports>,
    pub(crate) events: Option<&'e mut (dyn FnMut(Event) + Send + 'c)>,
}

impl<F: Future + Unpin> Future for Reporting<'_, '_, F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        if let Some(reports) = this.reports {
            lock(&reports.queue).1 = Some(cx.waker().clone());
        }
        let polled = Pin::new(&mut this.work).poll(cx);
        if let (Some(reports), Some(events)) = (this.reports, this.events.as_mut()) {
            let queued = std::mem::take(&mut lock(&reports.queue).0);
            for event in queued {
                events(event);
            }
        }
        polled
    }
}
