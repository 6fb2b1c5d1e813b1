//! skyl's agent runs on [Restate](https://restate.dev): durable across processes and machines.

mod journal;
#[cfg(feature = "local-server")]
pub mod local;
mod workflow;

pub use journal::{JOURNAL_RUN, RestateJournal};
pub use workflow::{
    APPROVAL_PROMISE, Decision, Status, WAITING_STATE, WaitingCall, decide, run_agent, status,
};
