//! skyl's journal seam on Restate's own journal: each group of records the agent loop appends is
//! one `ctx.run` of the workflow's invocation, and reading the journal is replaying those runs.
//!
//! Restate has no random access to an invocation's journal: a retried invocation runs its handler
//! again from the start, and each `ctx.run` it issues gets the value the earlier attempt recorded
//! at that position, or runs its closure if there is none. So [`Journal::load`] reads by issuing
//! runs until one runs its closure (the live edge: nothing was recorded past it) and records a
//! marker there; the groups read before it are the journal. Every run has the same name
//! ([`JOURNAL_RUN`]), as the reader cannot know which group comes next, and Restate checks a
//! replayed run's name.
//!
//! An attempt that finished a part of the run (the loop stopped to wait for a person) records a
//! closing marker ([`RestateJournal::close`]); a later attempt reading the journal stops there,
//! because what follows in Restate's journal is the handler's own wait, which has to be replayed
//! in its place before the loop reads on.
//!
//! The journal holds one run, the workflow's key. It keeps no handles
//! ([`handle_run`](skyl::agent::journal::handle_run)): reading one gives nothing, and writing one
//! is refused. So a call cut off under Restate is never picked up by a handle (a mounted MCP
//! server's task, say): like any cut-off call, it runs again if its tool is idempotent, and
//! otherwise its result says that its outcome is unknown.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use restate_sdk::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skyl::agent::{Entry, Journal, JournalError};
use skyl::model::BoxFuture;

/// The name of every `ctx.run` that holds a part of skyl's journal (compatibility data: a
/// rebuilt service must issue the same names, or Restate refuses the replay).
pub const JOURNAL_RUN: &str = "skyl-journal";

/// What one `ctx.run` named [`JOURNAL_RUN`] holds, as JSON (compatibility data, like the name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "skyl", rename_all = "snake_case")]
pub(crate) enum Group {
    /// An attempt read the journal up to here and went on live: `{"skyl": "open"}`.
    Open,
    /// A group of records the loop appended, all or none: `{"skyl": "entries", "entries":
    /// [{"key": "answer/1", "body": {...}}]}`.
    Entries { entries: Vec<Stored> },
    /// The loop stopped here to wait for a person's decision: `{"skyl": "close"}`.
    Close,
}

/// One record: its key and its body (skyl's record, versioned JSON) as a JSON value, so that
/// Restate's UI and `restate invocations describe` show it readably.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Stored {
    pub(crate) key: String,
    pub(crate) body: Value,
}

/// Where this attempt of the invocation stands in the journal.
#[derive(Debug, Default)]
struct Cursor {
    /// Every record read or appended by this attempt, in journal order.
    seen: Vec<Entry>,
    /// The last read stopped on a closing marker an earlier attempt recorded: the part of the run
    /// being replayed ends there, and [`RestateJournal::close`] has nothing to record.
    closed: bool,
}

/// A [`Journal`] kept in the Restate journal of a workflow's `run` invocation.
///
/// Build one per invocation of the handler, pass it to
/// [`RunBuilder::journaled`](skyl::agent::RunBuilder::journaled) with the workflow's key as the
/// run id, and call [`close`](Self::close) each time the run stops. [`run_agent`](crate::run_agent)
/// does all of this; use the journal directly only to write a handler of your own.
pub struct RestateJournal<'a, 'ctx> {
    ctx: &'a WorkflowContext<'ctx>,
    cursor: tokio::sync::Mutex<Cursor>,
}

impl<'a, 'ctx> RestateJournal<'a, 'ctx> {
    /// The journal of the invocation `ctx` belongs to; its run id is the workflow's key.
    pub fn new(ctx: &'a WorkflowContext<'ctx>) -> Self {
        RestateJournal {
            ctx,
            cursor: tokio::sync::Mutex::new(Cursor::default()),
        }
    }

    /// Records that the run stopped here (to wait for a person, or for good), unless an earlier
    /// attempt did: a later attempt reading the journal stops at this point.
    pub async fn close(&self) -> Result<(), JournalError> {
        let mut cursor = self.cursor.lock().await;
        if std::mem::take(&mut cursor.closed) {
            return Ok(());
        }
        self.record(Group::Close, "closing the journal").await?;
        Ok(())
    }

    fn check_run(&self, run: &str) -> Result<(), JournalError> {
        match refusal(run, self.ctx.key()) {
            None => Ok(()),
            Some((doing, why)) => Err(storage(run, doing, why)),
        }
    }

    /// Issues one journal run holding `group`; returns what the journal holds at that position
    /// and whether it was recorded just now.
    async fn record(
        &self,
        group: Group,
        doing: &'static str,
    ) -> Result<(Group, bool), JournalError> {
        let fresh = Arc::new(AtomicBool::new(false));
        let ran = Arc::clone(&fresh);
        let held = self
            .ctx
            .run(move || async move {
                ran.store(true, Ordering::Release);
                Ok(Json(group))
            })
            .name(JOURNAL_RUN)
            .await
            .map_err(|error| JournalError::Storage {
                run: self.ctx.key().to_owned(),
                doing,
                source: Box::new(RestateFailure(error.to_string())),
            })?;
        Ok((held.into_inner(), fresh.load(Ordering::Acquire)))
    }
}

impl Journal for RestateJournal<'_, '_> {
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        Box::pin(async move {
            if run != self.ctx.key() && is_handle_run(run) {
                // No handle was kept (see the module's docs): the driver asks only to learn
                // whether a cut-off call handed its work on, and none did.
                return Ok(Vec::new());
            }
            self.check_run(run)?;
            let mut cursor = self.cursor.lock().await;
            loop {
                let (held, fresh) = self.record(Group::Open, "reading the journal").await?;
                if fresh {
                    break;
                }
                match held {
                    // An earlier attempt went on live from here.
                    Group::Open => {}
                    Group::Entries { entries } => {
                        for stored in entries {
                            cursor
                                .seen
                                .push(Entry::new(stored.key, stored.body.to_string()));
                        }
                    }
                    Group::Close => {
                        cursor.closed = true;
                        break;
                    }
                }
            }
            Ok(cursor.seen.clone())
        })
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        // Every group is durable: a `ctx.run` returns once Restate has its value, and a record
        // kept back would be lost with the process (Restate's journal is the only store).
        _durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        Box::pin(async move {
            self.check_run(run)?;
            let mut cursor = self.cursor.lock().await;
            if cursor.closed {
                // What an earlier attempt did after this point is the handler's wait, not a run:
                // issuing one here would not match Restate's journal.
                return Err(storage(
                    run,
                    "appending to the journal",
                    "the run appended a record to a part of its journal that an earlier attempt closed; the loop is not deterministic on replay (a hook or a stop condition that reads the clock?)".into(),
                ));
            }
            let mut stored = Vec::with_capacity(entries.len());
            for entry in &entries {
                let body = serde_json::from_str(&entry.body).map_err(|error| {
                    storage(
                        run,
                        "appending to the journal",
                        format!("record \"{}\" is not JSON: {error}", entry.key),
                    )
                })?;
                stored.push(Stored {
                    key: entry.key.clone(),
                    body,
                });
            }
            let group = Group::Entries { entries: stored };
            let (held, fresh) = self
                .record(group.clone(), "appending to the journal")
                .await?;
            if !fresh && held != group {
                return Err(storage(
                    run,
                    "appending to the journal",
                    "Restate's journal holds another group at this position; the loop is not deterministic on replay".into(),
                ));
            }
            cursor.seen.extend(entries);
            Ok(())
        })
    }
}

/// Why the journal of workflow `key` refuses to hold `run`, if it does: what it was doing, and
/// why. It holds the workflow's run alone; a call's handles are refused with the reason, which
/// is not the caller's mistake.
fn refusal(run: &str, key: &str) -> Option<(&'static str, String)> {
    if run == key {
        None
    } else if is_handle_run(run) {
        Some((
            "keeping a call's handle",
            "a journal on Restate keeps no handles; a call cut off here runs again if its tool is idempotent, and otherwise its result says its outcome is unknown".to_owned(),
        ))
    } else {
        Some((
            "opening the journal",
            format!(
                "this journal belongs to workflow \"{key}\"; journal the run under the workflow's key"
            ),
        ))
    }
}

/// Whether `run` is the run that holds a call's handles
/// ([`handle_run`](skyl::agent::journal::handle_run)) rather than an agent run.
fn is_handle_run(run: &str) -> bool {
    run.starts_with(skyl::agent::journal::handle_run("").as_str())
}

fn storage(run: &str, doing: &'static str, why: String) -> JournalError {
    JournalError::Storage {
        run: run.to_owned(),
        doing,
        source: why.into(),
    }
}

/// Restate's error about a journal run, as its text (the SDK's error is not `'static`-free of
/// the context it came from).
#[derive(Debug)]
struct RestateFailure(String);

impl std::fmt::Display for RestateFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Restate failed the journal run: {}", self.0)
    }
}

impl std::error::Error for RestateFailure {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What Restate holds for a run is compatibility data: these documents, under these names,
    /// are what a rebuilt service must read back.
    #[test]
    fn the_journal_runs_hold_these_documents_under_this_name() {
        assert_eq!(JOURNAL_RUN, "skyl-journal");
        assert_eq!(
            serde_json::to_value(Group::Open).unwrap(),
            json!({"skyl": "open"})
        );
        assert_eq!(
            serde_json::to_value(Group::Close).unwrap(),
            json!({"skyl": "close"})
        );
        let entries = Group::Entries {
            entries: vec![Stored {
                key: "intent/2/0".into(),
                body: json!({"record": "intent", "step": 2, "call": 0, "call_id": "c3", "tool": "send_email", "format": 1}),
            }],
        };
        let document = json!({"skyl": "entries", "entries": [{"key": "intent/2/0", "body": {"record": "intent", "step": 2, "call": 0, "call_id": "c3", "tool": "send_email", "format": 1}}]});
        assert_eq!(serde_json::to_value(&entries).unwrap(), document);
        assert_eq!(serde_json::from_value::<Group>(document).unwrap(), entries);
    }

    #[test]
    fn a_calls_handle_run_is_told_from_an_agent_run() {
        assert!(is_handle_run(&skyl::agent::journal::handle_run(
            "crash0/2/c4"
        )));
        assert!(!is_handle_run("crash0"));
        assert!(!is_handle_run("handles"));
    }

    #[test]
    fn the_journal_holds_the_workflows_run_and_says_why_it_refuses_another() {
        assert_eq!(refusal("crash0", "crash0"), None);
        // A workflow whose key looks like a handle's run is still its own run.
        assert_eq!(refusal("handle/x", "handle/x"), None);
        assert_eq!(
            refusal("other", "crash0"),
            Some((
                "opening the journal",
                "this journal belongs to workflow \"crash0\"; journal the run under the workflow's key".to_owned()
            ))
        );
        assert_eq!(
            refusal(&skyl::agent::journal::handle_run("crash0/2/c4"), "crash0"),
            Some((
                "keeping a call's handle",
                "a journal on Restate keeps no handles; a call cut off here runs again if its tool is idempotent, and otherwise its result says its outcome is unknown".to_owned()
            ))
        );
    }
}
