//! The seam between the agent loop and a store: a journal's [`Entry`] and the [`Journal`] trait.
//! Their one public path is `skyl::agent`; the [rules](super) are the journal module's.

use crate::model::BoxFuture;

use crate::agent::journal::error::JournalError;

/// One record of a run's journal: a key unique within the run, and a body to store as it is.
///
/// Non-exhaustive, so that a record can gain what a store may keep beside it: a journal builds
/// one with [`new`](Self::new) and reads its fields by name.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// Unique within the run (see the [module docs](super)).
    pub key: String,
    /// The record, as versioned JSON text.
    pub body: String,
}

impl Entry {
    /// The record `body` under `key`.
    pub fn new(key: impl Into<String>, body: impl Into<String>) -> Self {
        Entry {
            key: key.into(),
            body: body.into(),
        }
    }
}

/// Where a durable run keeps its journal: an append-only log of [`Entry`]s per run id.
///
/// Implement it for your store; `skyl::durable::SqliteJournal` (feature `durable`) is the
/// embedded default. The [module docs](super) give the rules.
pub trait Journal: Send + Sync {
    /// Every entry of `run`, in the order they were appended; empty for a run never seen.
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>>;

    /// Appends `entries` to `run` as one group: all or none. When `durable`, the group (and
    /// every group before it) is on stable storage before this returns.
    ///
    /// Fails with [`JournalError::Conflict`], appending nothing, when one of the keys exists.
    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>>;

    /// Gives back this worker's hold on `run`, once the run has stopped (finished, paused for a
    /// decision, or failed), so that another worker may resume it at once.
    ///
    /// For a journal that gives each run one owner at a time (a lease, as
    /// `skyl::durable::SqliteJournal` does): `load` takes the hold, or fails with
    /// [`JournalError::Owned`] while another live worker has it, and each `append` renews it.
    /// The loop calls this when a journaled run stops, and ignores its failure (a hold not given
    /// back lapses on its own). A journal without owners does nothing, the default.
    fn release<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<(), JournalError>> {
        let _ = run;
        Box::pin(std::future::ready(Ok(())))
    }
}

impl<J: Journal + ?Sized> Journal for &J {
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        (**self).load(run)
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        (**self).append(run, entries, durable)
    }

    fn release<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<(), JournalError>> {
        (**self).release(run)
    }
}
