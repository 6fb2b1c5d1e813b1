//! The embedded journal of durable runs: SQLite, bundled (feature `durable`).
//!
//! One file holds the journals of many runs, keyed by run id. The file is in WAL mode; a group
//! appended as durable is committed with `synchronous = FULL` (the write-ahead log is synced, and
//! with it every group committed before), any other with `synchronous = NORMAL` (written, not
//! synced: it survives the process dying, and waits for the next durable group to survive the
//! machine losing power). Each group is one transaction, and a key written twice is refused by
//! the table's primary key, so two processes resuming one run from one file cannot both record an
//! answer for the same step or both start the same effect: the second gets
//! [`JournalError::Conflict`].
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use serde_json::json;
//! use skyl::agent::Agent;
//! use skyl::durable::SqliteJournal;
//! use skyl::testing::ScriptedModel;
//! use skyl::{Message, ToolCall, Toolbox};
//!
//! /// Looks a word up.
//! #[skyl::tool(read_only)]
//! fn define(word: String) -> String {
//!     format!("{word}: a greeting")
//! }
//!
//! let dir = std::env::temp_dir().join(format!("skyl-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let journal = SqliteJournal::open(dir.join("runs.db"))?;
//! let model = ScriptedModel::new()
//!     .reply_calls([ToolCall::new("c1", "define", json!({"word": "hello"}))])
//!     .reply_text("It is a greeting.");
//! let agent = Agent::new(model, Toolbox::new().with(Define), "m");
//! let run = agent.run(vec![Message::user("hello?")]).journaled(&journal, "run-1").blocking()?;
//! assert_eq!(run.text(), "It is a greeting.");
//!
//! // Started again, the run is read from the journal: the model is asked nothing.
//! let again = Agent::new(ScriptedModel::new(), Toolbox::new().with(Define), "m");
//! let replayed = again.run(vec![Message::user("hello?")]).journaled(&journal, "run-1").blocking()?;
//! assert_eq!(replayed.transcript(), run.transcript());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OptionalExtension, params};

use crate::agent::BoxFuture;
use crate::agent::journal::{Entry, Journal, JournalError};

/// A [`Journal`] in a SQLite file; see the [module docs](self).
pub struct SqliteJournal {
    connection: Mutex<Connection>,
    syncs: AtomicU64,
}

/// How long a writer waits for another process's transaction before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

impl SqliteJournal {
    /// Opens (or creates) the journal file at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, rusqlite::Error> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        let _mode: String =
            connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        connection.execute_batch(
            "PRAGMA synchronous = NORMAL;
             CREATE TABLE IF NOT EXISTS skyl_records (
                 run TEXT NOT NULL,
                 seq INTEGER NOT NULL,
                 key TEXT NOT NULL,
                 body TEXT NOT NULL,
                 PRIMARY KEY (run, key)
             ) WITHOUT ROWID;
             CREATE UNIQUE INDEX IF NOT EXISTS skyl_records_order ON skyl_records (run, seq);",
        )?;
        Ok(SqliteJournal {
            connection: Mutex::new(connection),
            syncs: AtomicU64::new(0),
        })
    }

    /// How many groups this handle has appended as durable, each one sync of the write-ahead log:
    /// what a run costs in syncs.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    fn append_now(&self, run: &str, entries: &[Entry], durable: bool) -> Result<(), JournalError> {
        let storage = |doing: &'static str| {
            move |error: rusqlite::Error| JournalError::Storage {
                run: run.to_owned(),
                doing,
                source: Box::new(error),
            }
        };
        let mut connection = self
            .connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let synchronous = if durable { "FULL" } else { "NORMAL" };
        connection
            .pragma_update(None, "synchronous", synchronous)
            .map_err(storage("setting how it syncs"))?;
        let transaction = connection
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(storage("beginning a transaction"))?;
        let next: i64 = transaction
            .query_row(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM skyl_records WHERE run = ?1",
                params![run],
                |row| row.get(0),
            )
            .map_err(storage("reading the run's last record"))?;
        for (seq, entry) in (next..).zip(entries) {
            let inserted = transaction.execute(
                "INSERT INTO skyl_records (run, seq, key, body) VALUES (?1, ?2, ?3, ?4)",
                params![run, seq, entry.key, entry.body],
            );
            match inserted {
                Ok(_) => {}
                Err(rusqlite::Error::SqliteFailure(failure, _))
                    if failure.code == ErrorCode::ConstraintViolation =>
                {
                    return Err(JournalError::Conflict {
                        run: run.to_owned(),
                        key: entry.key.clone(),
                    });
                }
                Err(error) => return Err(storage("writing a record")(error)),
            }
        }
        transaction.commit().map_err(storage("committing"))?;
        if durable {
            self.syncs.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    fn load_now(&self, run: &str) -> Result<Vec<Entry>, JournalError> {
        let storage = |error: rusqlite::Error| JournalError::Storage {
            run: run.to_owned(),
            doing: "reading the run",
            source: Box::new(error),
        };
        let connection = self
            .connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut statement = connection
            .prepare("SELECT key, body FROM skyl_records WHERE run = ?1 ORDER BY seq")
            .map_err(storage)?;
        let rows = statement
            .query_map(params![run], |row| {
                Ok(Entry {
                    key: row.get(0)?,
                    body: row.get(1)?,
                })
            })
            .map_err(storage)?;
        rows.collect::<Result<_, _>>().map_err(storage)
    }

    /// Whether the journal holds any record of `run`.
    pub fn has_run(&self, run: &str) -> Result<bool, rusqlite::Error> {
        let connection = self
            .connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        connection
            .query_row(
                "SELECT 1 FROM skyl_records WHERE run = ?1 LIMIT 1",
                params![run],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
    }
}

impl Journal for SqliteJournal {
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        Box::pin(std::future::ready(self.load_now(run)))
    }

    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        Box::pin(std::future::ready(self.append_now(run, &entries, durable)))
    }
}

impl std::fmt::Debug for SqliteJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteJournal")
            .field("syncs", &self.syncs())
            .finish_non_exhaustive()
    }
}
