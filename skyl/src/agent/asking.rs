//! A call that asks the person a question while it runs (a mounted MCP server's elicitation):
//! the [`Question`] a paused run shows, the [`Reply`] it is resumed with, and how the call waits
//! in this process meanwhile.
//!
//! A call cannot be saved half-run, so the call that asked stays in this process, parked under a
//! ticket, while the run it belongs to stops and serializes like any run waiting for approval.
//! Resumed with the reply, the run hands it to the parked call and awaits the rest of it. A run
//! resumed in a process that does not hold the ticket (it restarted meanwhile) finds the call
//! gone, and answers it as durable runs answer a call whose outcome is unknown.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::task::{Context, Poll};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::BoxFuture;
use crate::tool::RichOutcome;

/// A question a tool call asked the person while it ran: an MCP server's elicitation request
/// during a call of one of its mounted tools.
///
/// A run whose call asks stops with [`Stop::AwaitingApproval`](super::Stop::AwaitingApproval);
/// the call is among [`Run::awaiting_approval`](super::Run::awaiting_approval) and
/// [`Run::question`](super::Run::question) gives its question. Show the person
/// [`message`](Self::message) and a form for [`schema`](Self::schema), then record the answer
/// with [`Run::reply`](super::Run::reply) (or [`Run::approve`](super::Run::approve): accept with
/// the schema's [`defaults`](Self::defaults); [`Run::deny`](super::Run::deny): decline).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    from: String,
    message: String,
    schema: Value,
    /// Where the call that asked waits in the process that ran it; empty for a question
    /// answered on the spot (a [`RemoteBuilder::on_question`](crate::mcp::RemoteBuilder::on_question) handler).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    ticket: String,
    /// What another process needs to go on with the call once the person replies: the request
    /// state and the rest of a 2026-07-28 server's input-required result, which the saved run
    /// keeps; the call's tool goes on with it.
    /// (Boxed: a run's every slot holds a question's room.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    continuation: Option<Box<Value>>,
}

impl Question {
    /// A question from `from` (the name of the server that asks).
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn new(from: impl Into<String>, message: impl Into<String>, schema: Value) -> Self {
        Question {
            from: from.into(),
            message: message.into(),
            schema,
            ticket: String::new(),
            continuation: None,
        }
    }

    /// What continues the call in a process that does not hold it, if anything does.
    pub(crate) fn continuation(&self) -> Option<&Value> {
        self.continuation.as_deref()
    }

    /// The question, with what continues its call in a process that does not hold the call.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn continued_by(mut self, continuation: Option<Value>) -> Self {
        self.continuation = continuation.map(Box::new);
        self
    }

    /// Who asks: the name of the mounted server, as given to `skyl::mcp::Remote::builder`
    /// (feature `mcp`).
    pub fn from(&self) -> &str {
        &self.from
    }

    /// What the server asks, for the person to read.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The JSON schema of the answer the server asks for (MCP's `requestedSchema`: an object of
    /// flat properties: strings, numbers, booleans, enums).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// The schema's defaults: each property that has a `default`, with it (as SEP-1034 asks a
    /// client to fill in the fields the person leaves as they are).
    /// For `{"properties": {"confirm": {"type": "boolean", "default": true}, "note":
    /// {"type": "string"}}}` they are `{"confirm": true}`.
    pub fn defaults(&self) -> Map<String, Value> {
        let Some(properties) = self.schema.get("properties").and_then(Value::as_object) else {
            return Map::new();
        };
        properties
            .iter()
            .filter_map(|(name, property)| Some((name.clone(), property.get("default")?.clone())))
            .collect()
    }

    #[cfg(test)]
    pub(crate) fn ticket(&self) -> &str {
        &self.ticket
    }
}

/// A person's answer to a [`Question`]: what the server that asked receives.
///
/// Non-exhaustive: match it with a wildcard arm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reply {
    /// The person answered, with these values of the schema's properties.
    Accept(Map<String, Value>),
    /// The person chose not to answer; the server goes on without the answer.
    Decline,
    /// The person dismissed the question; the server stops what asked.
    Cancel,
}

/// The rest of a parked call: given the reply, it delivers it and finishes the call.
pub(crate) type Resume = Box<dyn FnOnce(Reply) -> BoxFuture<'static, RichOutcome> + Send>;

/// The calls parked in this process, by ticket.
static PARKED: LazyLock<Mutex<HashMap<String, Resume>>> = LazyLock::new(Mutex::default);

/// Makes tickets unique across processes as well as within one: a run resumed in another
/// process must not find a call of this one.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
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

/// Where the calls of one turn leave the questions they ask, for the run to stop with.
#[derive(Default)]
pub(crate) struct Desk {
    asked: Mutex<Vec<(String, Question)>>,
}

impl Desk {
    /// Whether the call `call_id` asked a question (and its result is only a placeholder).
    pub(crate) fn asked(&self, call_id: &str) -> bool {
        lock(&self.asked).iter().any(|(id, _)| id == call_id)
    }

    /// The question the call `call_id` asked, taken off the desk.
    pub(crate) fn take(&self, call_id: &str) -> Option<Question> {
        let mut asked = lock(&self.asked);
        let at = asked.iter().position(|(id, _)| id == call_id)?;
        Some(asked.swap_remove(at).1)
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

/// Whether a call polled now can park: it runs in an agent's turn.
#[cfg(test)]
pub(crate) fn can_park() -> bool {
    DESK.with(|desk| desk.borrow().is_some())
}

/// Parks the call `call_id`, which asked `question`, until the run is resumed with a reply:
/// `resume` is kept under a new ticket, and the question left on the turn's desk. Gives `resume`
/// back when no turn is being polled.
#[cfg_attr(not(feature = "mcp"), allow(dead_code))]
pub(crate) fn park(call_id: &str, mut question: Question, resume: Resume) -> Result<(), Resume> {
    let Some(desk) = DESK.with(|desk| desk.borrow().clone()) else {
        return Err(resume);
    };
    let (process, counter) = &*TICKETS;
    question.ticket = format!("{process}-{}", counter.fetch_add(1, Ordering::Relaxed));
    lock(&PARKED).insert(question.ticket.clone(), resume);
    lock(&desk.asked).push((call_id.to_owned(), question));
    Ok(())
}

/// The parked call `question` asked for, with `reply` delivered; `None` when this process holds
/// no such call (it was started by another process, or this one restarted).
pub(crate) fn resume(question: &Question, reply: Reply) -> Option<BoxFuture<'static, RichOutcome>> {
    if question.ticket.is_empty() {
        return None;
    }
    let resume = lock(&PARKED).remove(&question.ticket)?;
    Some(resume(reply))
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::block_on;
    use crate::tool::ToolOutput;
    use serde_json::json;

    fn question() -> Question {
        Question::new(
            "files",
            "Delete notes.txt?",
            json!({"type": "object", "properties": {
                "confirm": {"type": "boolean", "default": true},
                "note": {"type": "string"},
                "level": {"type": "integer", "default": 3}
            }}),
        )
    }

    #[test]
    fn defaults_are_the_properties_that_have_one() {
        assert_eq!(
            Value::Object(question().defaults()),
            json!({"confirm": true, "level": 3})
        );
        assert_eq!(Question::new("s", "m", json!({})).defaults(), Map::new());
    }

    #[test]
    fn a_reply_serializes_with_its_action() {
        let accept = Reply::Accept(question().defaults());
        assert_eq!(
            serde_json::to_value(&accept).unwrap(),
            json!({"action": "accept", "content": {"confirm": true, "level": 3}})
        );
        assert_eq!(
            serde_json::to_value(Reply::Decline).unwrap(),
            json!({"action": "decline"})
        );
        let back: Reply = serde_json::from_value(json!({"action": "cancel"})).unwrap();
        assert_eq!(back, Reply::Cancel);
    }

    #[test]
    fn a_call_parks_only_at_a_desk_and_resumes_once() {
        let resume: Resume =
            Box::new(|reply| Box::pin(async move { Ok(ToolOutput::from(format!("{reply:?}"))) }));
        // No turn is being polled: the call keeps its rest.
        assert!(!can_park());
        let resume = park("c1", question(), resume).unwrap_err();

        let desk = Arc::new(Desk::default());
        block_on(desk.serve(Box::pin(async {
            assert!(can_park());
            assert!(park("c1", question(), resume).is_ok());
        })));
        assert!(!can_park());
        assert!(desk.asked("c1"));
        let asked = desk.take("c1").unwrap();
        assert!(!asked.ticket().is_empty());
        assert!(!desk.asked("c1"));

        let rest = resume_call(&asked, Reply::Decline).expect("parked here");
        assert_eq!(block_on(rest).unwrap().text, "Decline");
        // Used up: a second resume finds nothing, as another process would.
        assert!(resume_call(&asked, Reply::Decline).is_none());
        assert!(resume_call(&question(), Reply::Decline).is_none());
    }

    fn resume_call(question: &Question, reply: Reply) -> Option<BoxFuture<'static, RichOutcome>> {
        resume(question, reply)
    }
}
