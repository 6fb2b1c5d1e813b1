//! A SQLite journal whose writes a test makes fail: a process that dies between two writes, a
//! disk that fills up, a run another worker holds.

use std::sync::atomic::{AtomicBool, Ordering};

use skyl::agent::{Entry, Journal, JournalError};
use skyl::durable::SqliteJournal;
use skyl::model::BoxFuture;

/// The SQLite `journal`, whose `append` fails with what `fail` answers for the write (the run, its
/// entries, and whether it is durable); a write `fail` answers `None` for is the journal's.
pub(crate) struct Failing<F> {
    pub(crate) journal: SqliteJournal,
    fail: F,
}

impl<F> Failing<F>
where
    F: Fn(&str, &[Entry], bool) -> Option<JournalError> + Send + Sync,
{
    pub(crate) fn new(journal: SqliteJournal, fail: F) -> Self {
        Failing { journal, fail }
    }
}

impl<F> Journal for Failing<F>
where
    F: Fn(&str, &[Entry], bool) -> Option<JournalError> + Send + Sync,
{
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        self.journal.load(run)
    }

    fn release<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<(), JournalError>> {
        self.journal.release(run)
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        match (self.fail)(run, &entries, durable) {
            Some(error) => Box::pin(std::future::ready(Err(error))),
            None => self.journal.append(run, entries, durable),
        }
    }
}

/// The SQLite `journal` of a process that "dies" at the first group it is asked to write without
/// a sync: the results of calls that ran are lost, their intents are not.
pub(crate) fn dies_before_results(
    journal: SqliteJournal,
) -> Failing<impl Fn(&str, &[Entry], bool) -> Option<JournalError> + Send + Sync> {
    let dead = AtomicBool::new(false);
    Failing::new(journal, move |run, _, durable| {
        if durable && !dead.load(Ordering::SeqCst) {
            return None;
        }
        dead.store(true, Ordering::SeqCst);
        Some(JournalError::Storage {
            run: run.to_owned(),
            doing: "writing results",
            source: "the process died".into(),
        })
    })
}
