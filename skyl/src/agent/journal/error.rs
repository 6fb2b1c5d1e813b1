//! How a journal, and a journaled run, fail: [`JournalError`] and [`DurableRunError`]. Their one
//! public path is `skyl::agent`.

use std::error::Error;
use std::fmt;
use std::time::SystemTime;

use crate::text::Utc;

use crate::agent::journal::RECORD_FORMAT;

/// A journal could not be read or written.
///
/// `Display` says what happened to which run and record; the store's own error, when there is
/// one, is the [`source`](Error::source).
#[derive(Debug)]
#[non_exhaustive]
pub enum JournalError {
    /// Another worker wrote `key` first: it is running this run. This worker stopped without
    /// acting on it.
    Conflict {
        /// The run.
        run: String,
        /// The key both wrote.
        key: String,
    },
    /// Another worker owns the run: its lease is live until `expires`, unless it renews it,
    /// and, as far as the journal knows, that worker is alive. This worker did nothing to the run.
    Owned {
        /// The run.
        run: String,
        /// The worker that owns it.
        owner: String,
        /// When its lease expires, if it does not renew it.
        expires: SystemTime,
    },
    /// A record was written by a later version of skyl.
    NewerFormat {
        /// The run.
        run: String,
        /// The record's key.
        key: String,
        /// The record's format version.
        version: u64,
    },
    /// A record is torn or corrupt: it cannot be read.
    Corrupt {
        /// The run.
        run: String,
        /// The record's key.
        key: String,
        /// What is wrong with it.
        why: String,
    },
    /// The store failed.
    Storage {
        /// The run.
        run: String,
        /// What the journal was doing.
        doing: &'static str,
        /// The store's error.
        source: Box<dyn Error + Send + Sync>,
    },
}

impl JournalError {
    /// The run the error is about.
    pub fn run(&self) -> &str {
        match self {
            JournalError::Conflict { run, .. }
            | JournalError::Owned { run, .. }
            | JournalError::NewerFormat { run, .. }
            | JournalError::Corrupt { run, .. }
            | JournalError::Storage { run, .. } => run,
        }
    }
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Conflict { run, key } => write!(
                f,
                "run \"{run}\": another worker recorded \"{key}\" first and is running this run; this worker stopped without acting on it. Load the run again once that worker is done"
            ),
            JournalError::Owned {
                run,
                owner,
                expires,
            } => write!(
                f,
                "run \"{run}\" is owned by worker \"{owner}\", whose lease expires at {} unless it renews it; this worker did nothing to the run. If that worker is this one under another name (another handle of the journal), give both one name with SqliteJournal::with_owner; otherwise start the run again once that worker is done, or after its lease has expired",
                Utc(*expires)
            ),
            JournalError::NewerFormat { run, key, version } => write!(
                f,
                "run \"{run}\": record \"{key}\" has format version {version}, and this skyl reads up to version {RECORD_FORMAT}; resume the run with the newer skyl that wrote it"
            ),
            JournalError::Corrupt { run, key, why } => write!(
                f,
                "run \"{run}\": record \"{key}\" cannot be read: {why}. Nothing was dropped: restore the journal from a backup, or start the run under a new id"
            ),
            JournalError::Storage { run, doing, .. } => {
                write!(f, "run \"{run}\": the journal failed while {doing}")
            }
        }
    }
}

impl Error for JournalError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            JournalError::Storage { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

/// Why a journaled run ended without a [`Run`](crate::agent::Run): a model request failed (the run so
/// far is in the [`RunError`](crate::agent::RunError)), or the journal failed (the journal has the run:
/// start it again once the cause is fixed).
#[derive(Debug)]
#[non_exhaustive]
pub enum DurableRunError {
    /// A model request failed.
    Model(crate::agent::RunError),
    /// The journal could not be read or written; nothing was acted on past the last record.
    Journal(JournalError),
    /// A saved run was resumed under an id other than the one its journal has: nothing was read,
    /// written or run. Its journal holds what it already did (the approved calls it ran
    /// included), so under another id it would do that again.
    AnotherRun {
        /// The id the run was saved with ([`Run::id`](crate::agent::Run::id)).
        saved: String,
        /// The id it was resumed under.
        given: String,
    },
}

impl fmt::Display for DurableRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurableRunError::Model(_) => f.write_str("a model request of the journaled run failed"),
            DurableRunError::Journal(error) => write!(
                f,
                "the journal of run \"{}\" could not be used",
                error.run()
            ),
            DurableRunError::AnotherRun { saved, given } => write!(
                f,
                "run \"{saved}\" cannot be resumed as run \"{given}\": its journal, which records what it already did, is under \"{saved}\". Resume it with .journaled(journal, \"{saved}\"), or start a new run from its transcript to use \"{given}\""
            ),
        }
    }
}

impl Error for DurableRunError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            DurableRunError::Model(error) => Some(error),
            DurableRunError::Journal(error) => Some(error),
            DurableRunError::AnotherRun { .. } => None,
        }
    }
}
