//! Synchronous tools that may block, run on a small pool of threads so that a turn's calls run
//! side by side and a timeout can answer for a call that is still blocked.
//!
//! No runtime is involved: a call is a job on a plain `std` thread, and its result comes back
//! through a [`Completion`], a future woken by the worker that finished the job. Threads are
//! started when every existing one is busy (up to [`MAX_THREADS`]; more calls wait their turn)
//! and end after [`KEEP_ALIVE`] without work, so a program that never calls a blocking tool
//! never starts one.

use std::any::Any;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::thread;
use std::time::Duration;

use crate::tool::RichOutcome as ToolOutcome;

/// The most threads the pool runs at once.
const MAX_THREADS: usize = 64;

/// How long an idle thread waits for more work before it ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Starts `job` on the pool; the returned future finishes with its outcome.
///
/// A panic in `job` is caught on the worker and raised again where the future is polled, so the
/// toolbox reports it as it reports a panic in any other tool.
pub(crate) fn run<F>(job: F) -> Completion
where
    F: FnOnce() -> ToolOutcome + Send + 'static,
{
    let shared = Arc::new(Shared {
        slot: Mutex::new(Slot::Waiting(None)),
    });
    let finish = Arc::clone(&shared);
    POOL.submit(Box::new(move || {
        let outcome = catch_unwind(AssertUnwindSafe(job));
        finish.complete(outcome);
    }));
    Completion { shared }
}

/// The outcome of a job on the pool, once it has one.
pub(crate) struct Completion {
    shared: Arc<Shared>,
}

struct Shared {
    slot: Mutex<Slot>,
}

enum Slot {
    /// The job is queued or running; the waker is the last poll's.
    Waiting(Option<Waker>),
    /// The job returned or panicked.
    Finished(thread::Result<ToolOutcome>),
    /// The outcome was handed to the poller.
    Taken,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // The lock is never held while user code runs, so a poisoned lock still holds a whole slot.
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn complete(&self, outcome: thread::Result<ToolOutcome>) {
        let previous = std::mem::replace(&mut *self.lock(), Slot::Finished(outcome));
        // Woken outside the lock: a waker may run the poller's code.
        if let Slot::Waiting(Some(waker)) = previous {
            waker.wake();
        }
    }
}

impl Future for Completion {
    type Output = ToolOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutcome> {
        let mut slot = self.shared.lock();
        match &mut *slot {
            Slot::Waiting(waker) => {
                match waker {
                    Some(waker) => waker.clone_from(cx.waker()),
                    None => *waker = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
            Slot::Finished(_) => {
                let Slot::Finished(outcome) = std::mem::replace(&mut *slot, Slot::Taken) else {
                    unreachable!("the slot was just matched as finished")
                };
                drop(slot);
                match outcome {
                    Ok(outcome) => Poll::Ready(outcome),
                    Err(payload) => resume_unwind(payload),
                }
            }
            Slot::Taken => panic!("a blocking tool call polled after it completed"),
        }
    }
}

type Job = Box<dyn FnOnce() + Send>;

static POOL: Pool = Pool {
    queue: Mutex::new(Queue {
        jobs: VecDeque::new(),
        idle: 0,
        threads: 0,
    }),
    work: Condvar::new(),
};

struct Pool {
    queue: Mutex<Queue>,
    /// Signalled when a job is queued for an idle thread.
    work: Condvar,
}

struct Queue {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job.
    idle: usize,
    /// Threads alive, idle or busy.
    threads: usize,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // No job runs under the lock, so a poisoned queue is still consistent.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn submit(&'static self, job: Job) {
        let mut queue = self.lock();
        queue.jobs.push_back(job);
        // Each idle thread takes one queued job; start a thread for a job none will take.
        if queue.jobs.len() <= queue.idle {
            drop(queue);
            self.work.notify_one();
            return;
        }
        if queue.threads >= MAX_THREADS {
            return;
        }
        queue.threads += 1;
        drop(queue);
        let started = thread::Builder::new()
            .name("skyl-blocking".to_owned())
            .spawn(move || self.work());
        if started.is_err() {
            let mut queue = self.lock();
            queue.threads -= 1;
            if queue.threads == 0 {
                // No thread will ever take these jobs: run them here rather than never.
                let jobs: Vec<Job> = queue.jobs.drain(..).collect();
                drop(queue);
                jobs.into_iter().for_each(run_job);
            }
        }
    }

    /// A worker thread: takes jobs until none comes for [`KEEP_ALIVE`].
    fn work(&self) {
        let mut queue = self.lock();
        loop {
            if let Some(job) = queue.jobs.pop_front() {
                drop(queue);
                run_job(job);
                queue = self.lock();
                continue;
            }
            queue.idle += 1;
            let (guard, wait) = self
                .work
                .wait_timeout(queue, KEEP_ALIVE)
                .unwrap_or_else(PoisonError::into_inner);
            queue = guard;
            queue.idle -= 1;
            if wait.timed_out() && queue.jobs.is_empty() {
                queue.threads -= 1;
                return;
            }
        }
    }
}

/// Runs a job so that nothing it does (a waker that panics, a payload whose destructor panics)
/// can end the worker thread.
fn run_job(job: Job) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(job)) {
        forget_payload(payload);
    }
}

fn forget_payload(payload: Box<dyn Any + Send>) {
    if let Err(inner) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::block_on;

    #[test]
    fn a_job_runs_on_another_thread_and_wakes_its_poller() {
        let caller = thread::current().id();
        let outcome = block_on(run(move || {
            Ok(format!("{}", thread::current().id() != caller).into())
        }));
        assert_eq!(outcome, Ok("true".into()));
    }

    /// Counts the jobs that arrived, and lets each wait (at most `patience`) for all of them.
    struct Gathering {
        arrived: Mutex<usize>,
        changed: Condvar,
    }

    impl Gathering {
        /// Whether all `expected` jobs were running at once.
        fn arrive_and_wait(&self, expected: usize, patience: Duration) -> bool {
            let mut arrived = self.arrived.lock().unwrap();
            *arrived += 1;
            self.changed.notify_all();
            let (arrived, _) = self
                .changed
                .wait_timeout_while(arrived, patience, |arrived| *arrived < expected)
                .unwrap();
            *arrived == expected
        }
    }

    #[test]
    fn jobs_run_side_by_side() {
        // Each job waits for all the others: run one at a time, the first would give up.
        let jobs = 8;
        let gathering = Arc::new(Gathering {
            arrived: Mutex::new(0),
            changed: Condvar::new(),
        });
        let completions: Vec<Completion> = (0..jobs)
            .map(|_| {
                let gathering = Arc::clone(&gathering);
                run(move || {
                    Ok(gathering
                        .arrive_and_wait(jobs, Duration::from_secs(10))
                        .to_string()
                        .into())
                })
            })
            .collect();
        let outcomes: Vec<ToolOutcome> = completions.into_iter().map(block_on).collect();
        assert_eq!(outcomes, vec![Ok("true".into()); jobs]);
    }

    #[test]
    fn a_panic_is_raised_again_where_the_outcome_is_polled() {
        let completion = run(|| panic!("the disk is on fire"));
        let payload = catch_unwind(AssertUnwindSafe(|| block_on(completion))).unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"the disk is on fire"));
    }

    #[test]
    fn a_dropped_completion_lets_its_job_finish_alone() {
        let (sender, receiver) = std::sync::mpsc::channel();
        drop(run(move || {
            sender.send(()).expect("the test is waiting");
            Ok(String::new().into())
        }));
        receiver
            .recv_timeout(Duration::from_secs(30))
            .expect("the job ran although nobody waits for it");
    }
}
