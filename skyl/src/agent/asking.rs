//! A call that asks the person a [`Question`] while it runs (a mounted MCP server's
//! elicitation): how the call waits in this process meanwhile, until the run is resumed with the
//! [`Reply`]; and the turn's desk, where the calls of a turn leave what they wait on.
//!
//! A call cannot be saved half-run, so the call that asked stays in this process, parked under a
//! ticket, while the run it belongs to stops and serializes like any run waiting for approval.
//! Resumed with the reply, the run hands it to the parked call and awaits the rest of it. A run
//! resumed in a process that does not hold the ticket (it restarted meanwhile) finds the call
//! gone, and answers it as durable runs answer a call whose outcome is unknown. So does a run
//! resumed after its call's ticket expired: a parked call holds a connection's request open, so
//! it is dropped after its expiry (the mounted server's `question_expiry`, by default
//! [`QUESTION_EXPIRY`]) rather than kept for a reply that may never come.
//!
//! Only MCP's elicitation asks: in a build without feature `mcp`, no call parks and the table of
//! parked calls is not there; the desk stays, for what the turn's sub-agents hand up.

use std::cell::RefCell;
#[cfg(feature = "mcp")]
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
#[cfg(feature = "mcp")]
use std::sync::LazyLock;
use std::sync::Mutex;
#[cfg(feature = "mcp")]
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
#[cfg(feature = "mcp")]
use std::time::{Duration, Instant};

use crate::model::BoxFuture;
use crate::tool::RichOutcome;

use crate::agent::event::Event;
use crate::agent::journal::error::JournalError;
use crate::agent::ledger::Ledger;
use crate::agent::lock;
use crate::agent::question::{Question, Reply};
use crate::agent::run::Run;
use crate::agent::run::Spent;
use crate::agent::telemetry::CallSpan;
use crate::agent::turn::slot::Slot;

/// How long a call that asked the person a question stays parked, waiting for the run to be
/// resumed with a reply, unless the mounted server's `question_expiry` says otherwise: one hour.
/// Long enough for a person to read and answer; past it, the call is dropped (its request to
/// the server cancelled), and the run resumed later answers it as a restart would.
#[cfg(feature = "mcp")]
pub(crate) const QUESTION_EXPIRY: Duration = Duration::from_secs(3600);

/// The rest of a parked call: given the reply, it delivers it and finishes the call.
#[cfg(feature = "mcp")]
pub(crate) type Resume = Box<dyn FnOnce(Reply) -> BoxFuture<'static, RichOutcome> + Send>;

/// A parked call, until it expires.
#[cfg(feature = "mcp")]
struct Parked {
    resume: Resume,
    expires: Instant,
}

/// The calls parked in this process, by ticket.
#[cfg(feature = "mcp")]
static PARKED: LazyLock<Mutex<HashMap<String, Parked>>> = LazyLock::new(Mutex::default);

/// Makes tickets unique across processes as well as within one: a run resumed in another
/// process must not find a call of this one.
#[cfg(feature = "mcp")]
static TICKETS: LazyLock<(String, AtomicU64)> = LazyLock::new(|| {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    (
        format!("{}-{nanos:x}", std::process::id()),
        AtomicU64::new(0),
    )
});

thread_local! {
    /// The desk of the turn being polled on this thread, if any.
    static DESK: RefCell<Option<Arc<Desk>>> = const { RefCell::new(None) };
}

/// Where the calls of one turn leave what they wait on (a question they ask, or a sub-agent's
/// run that waits for a person), for the run to stop with; where a resumed run hands a
/// sub-agent's call its saved run; and where a sub-agent's events go to reach the run's.
#[derive(Default)]
pub(crate) struct Desk {
    /// Each call that waits, with its slot: asking a question, or waiting on its sub-agent.
    asked: Mutex<Vec<(String, Slot)>>,
    /// The saved runs of the sub-agents' calls this turn resumes, by call id.
    handed: Mutex<Vec<(String, Run)>>,
    /// Where the events of the turn's calls go, when the run has an event callback.
    events: Mutex<Option<EventSink>>,
    /// The span of each call that runs (feature `tracing`), for a sub-agent's spans to nest under.
    spans: Mutex<Vec<(String, CallSpan)>>,
    /// The calls whose sub-agent's journal failed, and the first such failure: the turn's run
    /// stops on it, as on a failure of its own journal, and records no result for them.
    halted: Mutex<(Vec<String>, Option<JournalError>)>,
    /// What the runs of the sub-agents of the turn's calls used, by call id.
    spent: Mutex<Vec<(String, Spent)>>,
    /// The ledgers of the budgets the turn's run is under, which its sub-agents' runs are under
    /// too.
    ledgers: Mutex<Vec<Arc<Ledger>>>,
}

/// A run's event callback, as a sub-agent's call reaches it.
pub(crate) type EventSink = Arc<dyn Fn(Event) + Send + Sync>;

impl Desk {
    /// Whether the call `call_id` waits (and its result is only a placeholder).
    pub(crate) fn asked(&self, call_id: &str) -> bool {
        lock(&self.asked).iter().any(|(id, _)| id == call_id)
            || lock(&self.halted).0.iter().any(|id| id == call_id)
    }

    /// Stops the turn's run on `error`, the failure of the journal of the sub-agent that the call
    /// `call_id` runs (another worker runs it, or the store failed).
    pub(crate) fn halt(&self, call_id: &str, error: JournalError) {
        let mut halted = lock(&self.halted);
        halted.0.push(call_id.to_owned());
        halted.1.get_or_insert(error);
    }

    /// The failure a sub-agent's journal stopped the turn with, if one did.
    pub(crate) fn halted(&self) -> Option<JournalError> {
        lock(&self.halted).1.take()
    }

    /// What the call `call_id` waits on, taken off the desk: the slot of its question, or of
    /// its sub-agent's run.
    pub(crate) fn take(&self, call_id: &str) -> Option<Slot> {
        let mut asked = lock(&self.asked);
        let at = asked.iter().position(|(id, _)| id == call_id)?;
        Some(asked.swap_remove(at).1)
    }

    /// Leaves the run of the sub-agent that the call `call_id` ran, which waits for a person:
    /// the turn's run stops with it in the call's slot.
    pub(crate) fn park_run(&self, call_id: &str, run: Run) {
        lock(&self.asked).push((call_id.to_owned(), Slot::nested(run)));
    }

    /// Hands the call `call_id` its sub-agent's saved run, with the decisions made on it.
    pub(crate) fn hand(&self, call_id: &str, run: Run) {
        lock(&self.handed).push((call_id.to_owned(), run));
    }

    /// The saved run handed to the call `call_id`, taken off the desk.
    pub(crate) fn handed(&self, call_id: &str) -> Option<Run> {
        let mut handed = lock(&self.handed);
        let at = handed.iter().position(|(id, _)| id == call_id)?;
        Some(handed.swap_remove(at).1)
    }

    /// Keeps what the run of the sub-agent of the call `call_id` used, for the turn's run to count.
    pub(crate) fn spend(&self, call_id: &str, spent: Spent) {
        lock(&self.spent).push((call_id.to_owned(), spent));
    }

    /// What the run of the sub-agent of the call `call_id` used, if it ran one.
    pub(crate) fn spent(&self, call_id: &str) -> Option<Spent> {
        lock(&self.spent)
            .iter()
            .find(|(id, _)| id == call_id)
            .map(|(_, spent)| spent.clone())
    }

    /// Puts the sub-agents of the turn's calls under the budgets of `ledgers`.
    pub(crate) fn bind(&self, ledgers: Vec<Arc<Ledger>>) {
        *lock(&self.ledgers) = ledgers;
    }

    /// The ledgers of the budgets the turn's sub-agents are under.
    pub(crate) fn ledgers(&self) -> Vec<Arc<Ledger>> {
        lock(&self.ledgers).clone()
    }

    /// Sends the events of the turn's sub-agents to `events`.
    pub(crate) fn forward(&self, events: EventSink) {
        *lock(&self.events) = Some(events);
    }

    /// Keeps `span` as the span of the call `call_id`.
    pub(crate) fn mark_span(&self, call_id: &str, span: CallSpan) {
        lock(&self.spans).push((call_id.to_owned(), span));
    }

    /// The span of the call `call_id`, if it has one.
    pub(crate) fn span(&self, call_id: &str) -> Option<CallSpan> {
        lock(&self.spans)
            .iter()
            .find(|(id, _)| id == call_id)
            .map(|(_, span)| span.clone())
    }

    /// Where the events of the turn's calls go, if anywhere.
    pub(crate) fn events(&self) -> Option<EventSink> {
        lock(&self.events).clone()
    }

    /// Polls `work` with this desk as the one calls ask at.
    pub(crate) fn serve<F: Future + Unpin>(self: &Arc<Self>, work: F) -> AtDesk<F> {
        AtDesk {
            desk: Arc::clone(self),
            work,
        }
    }
}

/// A future polled with a [`Desk`] in place.
pub(crate) struct AtDesk<F> {
    desk: Arc<Desk>,
    work: F,
}

impl<F: Future + Unpin> Future for AtDesk<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let before = DESK.with(|desk| desk.replace(Some(Arc::clone(&this.desk))));
        // Put back on the way out, a panic included, so that a nested desk does not leak.
        struct Restore(Option<Arc<Desk>>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let before = self.0.take();
                DESK.with(|desk| *desk.borrow_mut() = before);
            }
        }
        let _restore = Restore(before);
        Pin::new(&mut this.work).poll(cx)
    }
}

/// The desk of the turn being polled on this thread: a call polled in an agent's turn sees it.
pub(crate) fn current_desk() -> Option<Arc<Desk>> {
    DESK.with(|desk| desk.borrow().clone())
}

/// Whether a call polled now can park: it runs in an agent's turn.
#[cfg(all(test, feature = "mcp"))]
pub(crate) fn can_park() -> bool {
    DESK.with(|desk| desk.borrow().is_some())
}

/// Parks the call `call_id`, which asked `question`, until the run is resumed with a reply, or
/// for `expiry` at most: `resume` is kept under a new ticket, and the question left on the
/// turn's desk. Gives `resume` back when no turn is being polled.
#[cfg(feature = "mcp")]
pub(crate) fn park(
    call_id: &str,
    question: Question,
    resume: Resume,
    expiry: Duration,
) -> Result<(), Resume> {
    let Some(desk) = DESK.with(|desk| desk.borrow().clone()) else {
        return Err(resume);
    };
    let (process, counter) = &*TICKETS;
    let question = question.with_ticket(format!(
        "{process}-{}",
        counter.fetch_add(1, Ordering::Relaxed)
    ));
    let now = Instant::now();
    let expires = now.checked_add(expiry).unwrap_or(now + QUESTION_EXPIRY);
    let expired = {
        let mut parked = lock(&PARKED);
        let expired = take_expired(&mut parked, now);
        parked.insert(question.ticket().to_owned(), Parked { resume, expires });
        expired
    };
    // Dropped outside the lock: dropping a call cancels its request, which is the
    // connection's code.
    drop(expired);
    lock(&desk.asked).push((call_id.to_owned(), Slot::asking(question)));
    Ok(())
}

/// Takes the calls that expired by `now` out of `parked`.
#[cfg(feature = "mcp")]
fn take_expired(parked: &mut HashMap<String, Parked>, now: Instant) -> Vec<Parked> {
    let tickets: Vec<String> = parked
        .iter()
        .filter(|(_, call)| call.expires <= now)
        .map(|(ticket, _)| ticket.clone())
        .collect();
    tickets
        .iter()
        .filter_map(|ticket| parked.remove(ticket))
        .collect()
}

/// The parked call `question` asked for, with `reply` delivered; `None` when this process holds
/// no such call (it was started by another process, this one restarted, or it expired).
#[cfg(feature = "mcp")]
pub(crate) fn resume(question: &Question, reply: Reply) -> Option<BoxFuture<'static, RichOutcome>> {
    if question.ticket().is_empty() {
        return None;
    }
    let (found, expired) = {
        let mut parked = lock(&PARKED);
        let expired = take_expired(&mut parked, Instant::now());
        (parked.remove(question.ticket()), expired)
    };
    drop(expired);
    Some((found?.resume)(reply))
}

/// Without feature `mcp` no call parks, so none is found.
#[cfg(not(feature = "mcp"))]
pub(crate) fn resume(
    _question: &Question,
    _reply: Reply,
) -> Option<BoxFuture<'static, RichOutcome>> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::question::tests::question;
    use crate::executor::block_on;
    #[cfg(feature = "mcp")]
    use crate::tool::ToolOutput;

    #[cfg(feature = "mcp")]
    #[test]
    fn a_call_parks_only_at_a_desk_and_resumes_once() {
        let resume: Resume =
            Box::new(|reply| Box::pin(async move { Ok(ToolOutput::from(format!("{reply:?}"))) }));
        // No turn is being polled: the call keeps its rest.
        assert!(!can_park());
        let resume = park("c1", question(), resume, QUESTION_EXPIRY).unwrap_err();

        let desk = Arc::new(Desk::default());
        block_on(desk.serve(Box::pin(async {
            assert!(can_park());
            assert!(park("c1", question(), resume, QUESTION_EXPIRY).is_ok());
        })));
        assert!(!can_park());
        assert!(desk.asked("c1"));
        let Some(asked) = desk.take("c1").and_then(|slot| slot.question().cloned()) else {
            panic!("the call asked a question")
        };
        assert!(!asked.ticket().is_empty());
        assert!(!desk.asked("c1"));

        let rest = resume_call(&asked, Reply::Decline).expect("parked here");
        assert_eq!(block_on(rest).unwrap().text, "Decline");
        // Used up: a second resume finds nothing, as another process would.
        assert!(resume_call(&asked, Reply::Decline).is_none());
        assert!(resume_call(&question(), Reply::Decline).is_none());
    }

    /// Sets its flag when dropped: the parked call it is part of was let go.
    #[cfg(feature = "mcp")]
    struct Dropped(Arc<std::sync::atomic::AtomicBool>);

    #[cfg(feature = "mcp")]
    impl Drop for Dropped {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// Parks a call whose rest answers `text`, for `expiry`; gives its question and a flag set
    /// once the call is dropped.
    #[cfg(feature = "mcp")]
    fn parked(
        text: &'static str,
        expiry: Duration,
    ) -> (Question, Arc<std::sync::atomic::AtomicBool>) {
        let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let guard = Dropped(Arc::clone(&dropped));
        let resume: Resume = Box::new(move |_| {
            let _guard = guard;
            Box::pin(async move { Ok(ToolOutput::from(text)) })
        });
        let desk = Arc::new(Desk::default());
        block_on(desk.serve(Box::pin(async {
            assert!(park("c1", question(), resume, expiry).is_ok());
        })));
        let slot = desk.take("c1");
        match slot.as_ref().and_then(Slot::question) {
            Some(question) => (question.clone(), dropped),
            None => panic!("the call parked with its question, not {slot:?}"),
        }
    }

    #[cfg(feature = "mcp")]
    #[test]
    fn a_parked_call_past_its_expiry_is_dropped_and_found_by_no_resume() {
        let (expired, expired_dropped) = parked("late", Duration::ZERO);
        // Any call parked or resumed afterwards lets the expired one go, its request with it.
        let (kept, kept_dropped) = parked("in time", QUESTION_EXPIRY);
        assert!(expired_dropped.load(Ordering::SeqCst));
        assert!(!kept_dropped.load(Ordering::SeqCst));
        // Resumed, the expired call is not there, as after a restart; the other one is.
        assert!(resume_call(&expired, Reply::Decline).is_none());
        let rest = resume_call(&kept, Reply::Decline).expect("parked within its expiry");
        assert_eq!(block_on(rest).unwrap().text, "in time");
        assert!(kept_dropped.load(Ordering::SeqCst));
    }

    #[cfg(feature = "mcp")]
    #[test]
    fn an_expired_call_is_gone_even_when_its_own_resume_is_the_first_to_look() {
        let (expired, dropped) = parked("late", Duration::ZERO);
        assert!(resume_call(&expired, Reply::Cancel).is_none());
        assert!(dropped.load(Ordering::SeqCst));
    }

    #[cfg(not(feature = "mcp"))]
    #[test]
    fn without_mcp_no_call_parks_and_none_is_found() {
        let desk = Arc::new(Desk::default());
        assert_eq!(block_on(desk.serve(Box::pin(async { 7 }))), 7);
        assert!(!desk.asked("c1"));
        assert!(desk.take("c1").is_none());
        let asked = question().with_ticket("1-2-3".into());
        assert!(resume(&asked, Reply::Decline).is_none());
    }

    #[cfg(feature = "mcp")]
    fn resume_call(question: &Question, reply: Reply) -> Option<BoxFuture<'static, RichOutcome>> {
        resume(question, reply)
    }
}
