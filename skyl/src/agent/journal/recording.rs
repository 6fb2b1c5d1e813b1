//! The results of one turn's calls on their way to the journal.
//!
//! A result is queued as soon as the turn runner hears of it, and written either by the turn's
//! own task while other calls run ([`Recording::record_while`]), or, at the latest, before the
//! next call of the turn starts ([`Recording::gate`]). The second matters for a synchronous tool
//! not marked `blocking`: it runs on the calling thread, so the task cannot write anything while
//! it runs, and a result still queued when the process dies there would be lost, its finished
//! call answered as outcome-unknown on resume.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::Mutex;
use std::task::Poll;

use crate::agent::journal::error::JournalError;
use crate::agent::journal::seam::{Entry, Journal};
use crate::agent::lock;
use crate::model::BoxFuture;
use crate::toolbox::Gate;

/// The entries of one turn waiting to be written to run `id`'s journal.
pub(crate) struct Recording<'a> {
    journal: &'a dyn Journal,
    id: &'a str,
    state: Mutex<State>,
    /// The journal's error, when a gate could not write: no call starts after it.
    refused: Mutex<Option<JournalError>>,
}

#[derive(Default)]
struct State {
    /// Results known and not yet handed to the journal, in the order they came.
    queued: Vec<Entry>,
    /// Whether [`Recording::record_while`] has a write in flight (entries taken from `queued`
    /// and not yet written).
    writing: bool,
}

impl<'a> Recording<'a> {
    pub(crate) fn new(journal: &'a dyn Journal, id: &'a str) -> Self {
        Recording {
            journal,
            id,
            state: Mutex::new(State::default()),
            refused: Mutex::new(None),
        }
    }

    /// Queues a result's entry: it is written before the next call starts, or sooner.
    pub(crate) fn push(&self, entry: Entry) {
        lock(&self.state).queued.push(entry);
    }

    /// What the call about to start waits for: every result known so far written, then its
    /// `intent` (when it can have effects) written durably. A journal that cannot write either
    /// stops the turn, its error kept for [`refused`](Self::refused).
    pub(crate) fn gate<'g>(&'g self, intent: Option<Entry>) -> Gate<'g> {
        Box::pin(async move {
            // A write of `record_while` in flight holds results taken from the queue: wait for
            // it. It is polled by the same task, which it wakes when it is done.
            poll_fn(|_| {
                if lock(&self.state).writing {
                    Poll::Pending
                } else {
                    Poll::Ready(())
                }
            })
            .await;
            let results = std::mem::take(&mut lock(&self.state).queued);
            // The results on their own, so that a conflict over the intent (another worker
            // starting this call) cannot take them with it.
            if !results.is_empty()
                && let Err(error) = self.journal.append(self.id, results, false).await
            {
                lock(&self.refused).get_or_insert(error);
                return false;
            }
            let Some(intent) = intent else {
                return true;
            };
            match self.journal.append(self.id, vec![intent], true).await {
                Ok(()) => true,
                Err(error) => {
                    lock(&self.refused).get_or_insert(error);
                    false
                }
            }
        })
    }

    /// The error of the gate that stopped the turn, if one did.
    pub(crate) fn refused(&self) -> Option<JournalError> {
        lock(&self.refused).take()
    }

    /// Awaits `work` (the turn), while appending the queued results as they come (not durably:
    /// a result lost to a power cut only makes its call run again or be answered as
    /// outcome-unknown). Returns once `work` is done and every queued result is written.
    // `work` is pinned by the caller: taken by value, it would be held twice in the run's future.
    pub(crate) async fn record_while<F: Future>(
        &self,
        mut work: Pin<&mut F>,
    ) -> Result<F::Output, JournalError> {
        let mut output = None;
        let mut writing: Option<BoxFuture<'_, Result<(), JournalError>>> = None;
        poll_fn(|cx| {
            loop {
                if let Some(write) = &mut writing {
                    match write.as_mut().poll(cx) {
                        Poll::Ready(Ok(())) => {
                            writing = None;
                            lock(&self.state).writing = false;
                        }
                        Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                        Poll::Pending => {}
                    }
                }
                if output.is_none()
                    && let Poll::Ready(done) = work.as_mut().poll(cx)
                {
                    output = Some(done);
                }
                if writing.is_some() {
                    return Poll::Pending;
                }
                let entries = {
                    let mut state = lock(&self.state);
                    let entries = std::mem::take(&mut state.queued);
                    state.writing = !entries.is_empty();
                    entries
                };
                if !entries.is_empty() {
                    writing = Some(self.journal.append(self.id, entries, false));
                    continue;
                }
                return match output.take() {
                    Some(done) => Poll::Ready(Ok(done)),
                    None => Poll::Pending,
                };
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::executor::block_on;

    /// A journal whose first append takes three polls and every other one, one: a slow write of
    /// results, then a quick intent.
    #[derive(Default)]
    struct Slow {
        written: Mutex<Vec<String>>,
        appends: AtomicUsize,
    }

    impl Journal for Slow {
        fn load<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
            Box::pin(std::future::ready(Ok(Vec::new())))
        }

        fn append<'a>(
            &'a self,
            _: &'a str,
            entries: Vec<Entry>,
            _: bool,
        ) -> BoxFuture<'a, Result<(), JournalError>> {
            let mut polls = if self.appends.fetch_add(1, Ordering::SeqCst) == 0 {
                3
            } else {
                1
            };
            Box::pin(poll_fn(move |cx| {
                polls -= 1;
                if polls > 0 {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                let keys = entries.iter().map(|entry| entry.key.clone());
                lock(&self.written).extend(keys);
                Poll::Ready(Ok(()))
            }))
        }
    }

    fn entry(key: &str) -> Entry {
        Entry {
            key: key.into(),
            body: "{}".into(),
        }
    }

    #[test]
    fn a_call_starts_only_once_the_results_being_written_are_written() {
        let journal = Slow::default();
        let recording = Recording::new(&journal, "r1");
        recording.push(entry("result/1/0"));
        let mut gate = recording.gate(Some(entry("intent/1/1")));
        // The turn: idle once (the results are taken to be written), then its next call waits
        // for its gate; what the journal held when the gate opened is what the call could
        // count on.
        let mut idle = true;
        let turn = poll_fn(|cx| {
            if std::mem::take(&mut idle) {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            gate.as_mut()
                .poll(cx)
                .map(|open| (open, lock(&journal.written).clone()))
        });
        let turn = std::pin::pin!(turn);
        let (open, written) = block_on(recording.record_while(turn)).unwrap();
        assert!(open);
        assert_eq!(written, ["result/1/0", "intent/1/1"]);
        assert!(recording.refused().is_none());
    }
}
