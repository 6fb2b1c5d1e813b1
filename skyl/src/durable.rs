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
//! # One owner per run
//!
//! A run has one owner at a time: the worker holding its *lease*, a row of the file naming the
//! run, the owner ([`SqliteJournal::with_owner`]), its last heartbeat and its expiry. Loading a
//! run takes its lease, or fails with [`JournalError::Owned`] (naming the run, the owner and
//! when the lease expires) while another owner's lease is live: a second worker refuses to
//! touch a run that a live one is running, instead of answering that worker's calls in flight as
//! outcome-unknown. Each write of the owner renews the lease (no thread beats for it: a worker
//! that writes nothing for a whole lease may lose the run), a write finding the run taken by
//! another owner fails with [`JournalError::Owned`] before it writes anything, and a run that
//! stops (finished, paused, failed) gives its lease back.
//!
//! A worker that dies loses its leases at once. While a handle lives, its owner holds a lock on
//! a file of its own in a directory beside the database (`<file>-owners/`, one empty SQLite
//! database per owner name), which the operating system drops when the process ends, killed or
//! not. A worker that finds a run leased to another owner tries that owner's lock: held, the
//! owner is alive and the run is refused; free, every handle under that name is gone (the
//! process died, or dropped its handles) and the run is taken over, lease unexpired or not. So
//! a worker started again after a crash resumes its runs at once, under the name its handle
//! makes as under [`SqliteJournal::with_owner`]'s, and so does any other worker. An owner with no
//! lock file (a worker of a skyl from before the files, or a name longer than 200 bytes once
//! escaped) keeps its leases until they expire; a worker started again under its name takes
//! them back at once.
//!
//! The lease lasts [`DEFAULT_LEASE`] (five minutes) unless [`SqliteJournal::with_lease`] says
//! otherwise. It must outlast the longest wait between two writes of a live run (a model
//! request, or the slowest tool call): a worker silent for longer may find its run taken over
//! when it next writes. The price of a long lease is only the wait before another worker takes
//! over the runs of a worker whose liveness is unknown (no lock file). Expiries are read on the wall clock, in milliseconds: the
//! workers sharing a file share a machine and its clock (SQLite files are not for network
//! file systems).
//!
//! # Off the executor's thread
//!
//! A journal's writes sync to disk and can wait up to ten seconds for another process's
//! transaction. So each handle has a thread of its own that owns the connection: the futures of
//! [`Journal::load`] and [`Journal::append`] hand their work to it and are woken when it is
//! done, and the executor polling them goes on with other work meanwhile (no runtime is
//! involved). Work is done in the order it is asked for; dropping the handle lets the thread
//! finish what was asked and waits for it.
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

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::task::{Context, Poll, Waker};
use std::thread::{self, JoinHandle};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, ErrorCode, OptionalExtension, Transaction, params};

use crate::agent::{Entry, Journal, JournalError};
use crate::model::BoxFuture;

mod owner_lock;

use owner_lock::{Liveness, OwnerLock};

/// A [`Journal`] in a SQLite file; see the [module docs](self).
pub struct SqliteJournal {
    /// The writer thread's queue; `None` only while the handle is dropped.
    jobs: Option<mpsc::Sender<Job>>,
    writer: Option<JoinHandle<()>>,
    syncs: Arc<AtomicU64>,
    owner: Arc<str>,
    /// Whether the owner name is this handle's own ([`default_owner`]), not given by
    /// [`SqliteJournal::with_owner`].
    owner_made: bool,
    lease: Duration,
    /// The directory of the owners' lock files, beside the database file; `None` for a database
    /// with no file.
    owners: Option<Arc<Path>>,
    /// The lock this handle's owner holds while the handle lives, once a load took it.
    owner_lock: Arc<Mutex<Option<Arc<OwnerLock>>>>,
}

/// How long a lease lasts when [`SqliteJournal::with_lease`] does not say: five minutes, longer
/// than a model request or a tool call usually takes, short enough that the runs of a worker
/// that died with no lock file are taken over the same hour (one with its lock file loses them
/// at once). See [the module docs](self#one-owner-per-run).
pub const DEFAULT_LEASE: Duration = Duration::from_secs(300);

/// How long a writer waits for another process's transaction before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Work for the writer thread, on the connection it owns.
type Job = Box<dyn FnOnce(&mut Connection) + Send>;

impl SqliteJournal {
    /// Opens (or creates) the journal file at `path`, with an owner name of its own (unique to
    /// this handle) and the [`DEFAULT_LEASE`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, rusqlite::Error> {
        let connection = Connection::open(path)?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        let owners = owner_lock::directory(connection.path()).map(Arc::from);
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
             CREATE UNIQUE INDEX IF NOT EXISTS skyl_records_order ON skyl_records (run, seq);
             CREATE TABLE IF NOT EXISTS skyl_leases (
                 run TEXT PRIMARY KEY NOT NULL,
                 owner TEXT NOT NULL,
                 heartbeat INTEGER NOT NULL,
                 expires INTEGER NOT NULL
             ) WITHOUT ROWID;",
        )?;
        let (jobs, queue) = mpsc::channel::<Job>();
        let writer = thread::Builder::new()
            .name("skyl-journal".into())
            .spawn(move || {
                let mut connection = connection;
                for job in queue {
                    // A job that panics drops its reply, which its future reads as the writer
                    // gone; the thread goes on with the next.
                    let _ = catch_unwind(AssertUnwindSafe(|| job(&mut connection)));
                }
            })
            // As `std::thread::spawn` does: a process that cannot start a thread is out of
            // resources.
            .expect("the journal's writer thread starts");
        Ok(SqliteJournal {
            jobs: Some(jobs),
            writer: Some(writer),
            syncs: Arc::new(AtomicU64::new(0)),
            owner: default_owner().into(),
            owner_made: true,
            lease: DEFAULT_LEASE,
            owners,
            owner_lock: Arc::new(Mutex::new(None)),
        })
    }

    /// Names the owner of the runs this handle loads and writes (see
    /// [the module docs](self#one-owner-per-run)).
    ///
    /// Without it, each handle has a name of its own: a run loaded by one handle is refused to
    /// another while the first lives, and free once it is dropped or its process dies. Two live
    /// handles with one name are one owner to each other: give one name to the handles of one
    /// worker that share runs. A stable name per worker process, unique among the workers
    /// running at once (its host and slot, say), also lets a worker started again take back at
    /// once the runs of a predecessor whose liveness the journal cannot know (see
    /// [the module docs](self#one-owner-per-run)).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::time::Duration;
    /// use skyl::durable::SqliteJournal;
    ///
    /// # let dir = std::env::temp_dir().join(format!("skyl-doc-owner-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir)?;
    /// let journal = SqliteJournal::open(dir.join("runs.db"))?
    ///     .with_owner("billing-worker-1")
    ///     .with_lease(Duration::from_secs(60));
    /// assert_eq!(journal.owner(), "billing-worker-1");
    /// # drop(journal);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = owner.into().into();
        self.owner_made = false;
        self
    }

    /// Sets how long a lease this handle takes or renews lasts: longer than the longest wait
    /// between two writes of a run (a model request, a tool call). [`DEFAULT_LEASE`] otherwise.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// The owner name this handle holds leases under.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// How long a lease this handle takes or renews lasts.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// How many groups this handle has appended as durable, each one sync of the write-ahead log:
    /// what a run costs in syncs.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::Relaxed)
    }

    /// Whether the journal holds any record of `run`. Blocks this thread until the writer
    /// thread has answered.
    pub fn has_run(&self, run: &str) -> Result<bool, rusqlite::Error> {
        let run = run.to_owned();
        let (reply, answer) = mpsc::channel();
        self.submit(Box::new(move |connection| {
            let found = connection
                .query_row(
                    "SELECT 1 FROM skyl_records WHERE run = ?1 LIMIT 1",
                    params![run],
                    |_| Ok(()),
                )
                .optional()
                .map(|found| found.is_some());
            let _ = reply.send(found);
        }));
        answer.recv().unwrap_or(Err(rusqlite::Error::InvalidQuery))
    }

    /// Hands `job` to the writer thread; a job it cannot take is dropped, and with it its reply.
    fn submit(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }

    /// Runs `work` on the writer thread, with a lease of `run` for this handle's owner checked
    /// and renewed in the same transaction; the future finishes with its outcome. `taking` (a
    /// load) first takes the owner's lock, if this handle holds none yet.
    fn leased<T: Send + 'static>(
        &self,
        run: &str,
        doing: &'static str,
        durable: bool,
        taking: bool,
        work: impl FnOnce(&Transaction<'_>) -> Result<T, JournalError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, JournalError>> {
        let (reply, answer) = oneshot::<Result<T, JournalError>>();
        let (owner, lease, syncs) = (Arc::clone(&self.owner), self.lease, Arc::clone(&self.syncs));
        let owners = self.owners.clone();
        let owner_lock = Arc::clone(&self.owner_lock);
        let run = run.to_owned();
        let gone = run.clone();
        self.submit(Box::new(move |connection| {
            if taking && let Some(owners) = &owners {
                let mut held = owner_lock.lock().unwrap_or_else(PoisonError::into_inner);
                if held.is_none() {
                    *held = owner_lock::hold(owners, &owner);
                }
            }
            let outcome = in_transaction(connection, &run, doing, durable, |transaction| {
                claim(transaction, &run, &owner, lease, owners.as_deref())?;
                work(transaction)
            });
            if durable && outcome.is_ok() {
                syncs.fetch_add(1, Ordering::Relaxed);
            }
            reply.send(outcome);
        }));
        Box::pin(async move {
            answer.await.unwrap_or_else(|| {
                Err(JournalError::Storage {
                    run: gone,
                    doing,
                    source: "the journal's writer thread stopped before it answered".into(),
                })
            })
        })
    }
}

/// A name for a handle's owner that no other handle, in this process or another, has.
fn default_owner() -> String {
    static HANDLES: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos());
    format!(
        "pid-{}-{nanos:x}-{}",
        std::process::id(),
        HANDLES.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether `owner` is a name [`default_owner`] made: no other handle ever holds it.
fn is_default_owner(owner: &str) -> bool {
    let mut parts = owner.split('-');
    parts.next() == Some("pid")
        && parts
            .next()
            .is_some_and(|pid| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
        && parts
            .next()
            .is_some_and(|nanos| !nanos.is_empty() && nanos.bytes().all(|b| b.is_ascii_hexdigit()))
        && parts
            .next()
            .is_some_and(|handle| !handle.is_empty() && handle.bytes().all(|b| b.is_ascii_digit()))
        && parts.next().is_none()
}

/// Milliseconds since the Unix epoch, as the lease table keeps time.
fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

/// Runs `work` in one immediate transaction of `connection` (synced when `durable`), and
/// commits it when `work` succeeds.
fn in_transaction<T>(
    connection: &mut Connection,
    run: &str,
    doing: &'static str,
    durable: bool,
    work: impl FnOnce(&Transaction<'_>) -> Result<T, JournalError>,
) -> Result<T, JournalError> {
    let storage = |error: rusqlite::Error| JournalError::Storage {
        run: run.to_owned(),
        doing,
        source: Box::new(error),
    };
    let synchronous = if durable { "FULL" } else { "NORMAL" };
    connection
        .pragma_update(None, "synchronous", synchronous)
        .map_err(storage)?;
    let transaction = connection
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(storage)?;
    let value = work(&transaction)?;
    transaction.commit().map_err(storage)?;
    Ok(value)
}

/// Takes or renews the lease of `run` for `owner` until `lease` from now; fails, changing
/// nothing, while another owner's lease is live and that owner is not known to be gone (its lock
/// file in `owners` held by no process).
fn claim(
    transaction: &Transaction<'_>,
    run: &str,
    owner: &str,
    lease: Duration,
    owners: Option<&Path>,
) -> Result<(), JournalError> {
    let storage = |error: rusqlite::Error| JournalError::Storage {
        run: run.to_owned(),
        doing: "taking the run's lease",
        source: Box::new(error),
    };
    let now = now_millis();
    let holder: Option<(String, i64)> = transaction
        .query_row(
            "SELECT owner, expires FROM skyl_leases WHERE run = ?1",
            params![run],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()
        .map_err(storage)?;
    // The owner whose lease, expired or of a process gone, this claim takes over.
    let mut taken_from = None;
    if let Some((holder, expires)) = holder
        && holder != owner
    {
        // Checked inside the transaction: no other worker can take the run meanwhile.
        let gone =
            owners.is_some_and(|owners| owner_lock::liveness(owners, &holder) == Liveness::Gone);
        if expires > now && !gone {
            return Err(JournalError::Owned {
                run: run.to_owned(),
                owner: holder,
                expires: UNIX_EPOCH + Duration::from_millis(u64::try_from(expires).unwrap_or(0)),
            });
        }
        taken_from = Some(holder);
    }
    let lease = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX);
    transaction
        .execute(
            "INSERT INTO skyl_leases (run, owner, heartbeat, expires) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (run) DO UPDATE SET
                 owner = excluded.owner, heartbeat = excluded.heartbeat, expires = excluded.expires",
            params![run, owner, now, now.saturating_add(lease)],
        )
        .map_err(storage)?;
    if let (Some(owners), Some(holder)) = (owners, taken_from)
        && is_default_owner(&holder)
    {
        forget_if_unleased(transaction, owners, &holder).map_err(storage)?;
    }
    Ok(())
}

/// Removes the lock file of `owner`, a name [`default_owner`] made, once no lease names it: no
/// process holds that name again.
fn forget_if_unleased(
    connection: &Connection,
    owners: &Path,
    owner: &str,
) -> Result<(), rusqlite::Error> {
    let leased = connection
        .query_row(
            "SELECT 1 FROM skyl_leases WHERE owner = ?1 LIMIT 1",
            params![owner],
            |_| Ok(()),
        )
        .optional()?;
    if leased.is_none() {
        owner_lock::remove(owners, owner);
    }
    Ok(())
}

/// Every record of `run`, in order.
fn read_run(transaction: &Transaction<'_>, run: &str) -> Result<Vec<Entry>, JournalError> {
    let storage = |error: rusqlite::Error| JournalError::Storage {
        run: run.to_owned(),
        doing: "reading the run",
        source: Box::new(error),
    };
    let mut statement = transaction
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

/// Appends `entries` to `run` after its last record; a key written before is a conflict.
fn write_entries(
    transaction: &Transaction<'_>,
    run: &str,
    entries: &[Entry],
) -> Result<(), JournalError> {
    let storage = |doing: &'static str| {
        move |error: rusqlite::Error| JournalError::Storage {
            run: run.to_owned(),
            doing,
            source: Box::new(error),
        }
    };
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
    Ok(())
}

impl Journal for SqliteJournal {
    /// Takes the run's lease (see [the module docs](self#one-owner-per-run)) and reads its
    /// records, on the writer thread.
    fn load<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<Vec<Entry>, JournalError>> {
        let name = run.to_owned();
        self.leased(run, "reading the run", false, true, move |transaction| {
            read_run(transaction, &name)
        })
    }

    /// Renews the run's lease and appends the group, on the writer thread.
    fn append<'a>(
        &'a self,
        run: &'a str,
        entries: Vec<Entry>,
        durable: bool,
    ) -> BoxFuture<'a, Result<(), JournalError>> {
        let name = run.to_owned();
        let doing = if durable {
            "writing a durable group"
        } else {
            "writing a group"
        };
        self.leased(run, doing, durable, false, move |transaction| {
            write_entries(transaction, &name, &entries)
        })
    }

    /// Gives the run's lease back, if this handle's owner holds it.
    fn release<'a>(&'a self, run: &'a str) -> BoxFuture<'a, Result<(), JournalError>> {
        let (reply, answer) = oneshot::<Result<(), JournalError>>();
        let (owner, run) = (Arc::clone(&self.owner), run.to_owned());
        let gone = run.clone();
        self.submit(Box::new(move |connection| {
            let outcome = connection
                .execute(
                    "DELETE FROM skyl_leases WHERE run = ?1 AND owner = ?2",
                    params![run, &*owner],
                )
                .map(drop)
                .map_err(|error| JournalError::Storage {
                    run: run.clone(),
                    doing: "giving the run's lease back",
                    source: Box::new(error),
                });
            reply.send(outcome);
        }));
        Box::pin(async move {
            answer.await.unwrap_or_else(|| {
                Err(JournalError::Storage {
                    run: gone,
                    doing: "giving the run's lease back",
                    source: "the journal's writer thread stopped before it answered".into(),
                })
            })
        })
    }
}

impl Drop for SqliteJournal {
    fn drop(&mut self) {
        // A name made for this handle is held by no process once it is dropped: its lock file
        // goes, unless a lease still names it (another worker finds that owner gone, and takes
        // the lease over).
        if let (true, Some(owners)) = (self.owner_made, self.owners.clone()) {
            let owner = Arc::clone(&self.owner);
            self.submit(Box::new(move |connection| {
                let _ = forget_if_unleased(connection, &owners, &owner);
            }));
        }
        // The thread finishes what it was asked, then ends: what a run was told is written is.
        drop(self.jobs.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

impl std::fmt::Debug for SqliteJournal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteJournal")
            .field("owner", &self.owner)
            .field("lease", &self.lease)
            .field("syncs", &self.syncs())
            .finish_non_exhaustive()
    }
}

/// A value handed from the writer thread to the future awaiting it, which its waker wakes.
/// Executor-agnostic: any executor's waker will do.
fn oneshot<T>() -> (Reply<T>, Answer<T>) {
    let shared = Arc::new(Mutex::new(State::Waiting(None)));
    (
        Reply {
            shared: Some(Arc::clone(&shared)),
        },
        Answer { shared },
    )
}

enum State<T> {
    /// Not answered yet; the waker is the last poll's.
    Waiting(Option<Waker>),
    Answered(T),
    /// The reply was dropped unanswered (the writer stopped).
    Dropped,
    Taken,
}

/// The writer's end: answering it, or dropping it, wakes the future.
struct Reply<T> {
    shared: Option<Arc<Mutex<State<T>>>>,
}

impl<T> Reply<T> {
    fn send(mut self, value: T) {
        if let Some(shared) = self.shared.take() {
            finish(&shared, State::Answered(value));
        }
    }
}

impl<T> Drop for Reply<T> {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.take() {
            finish(&shared, State::Dropped);
        }
    }
}

fn lock<T>(shared: &Mutex<State<T>>) -> MutexGuard<'_, State<T>> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

fn finish<T>(shared: &Mutex<State<T>>, state: State<T>) {
    let previous = std::mem::replace(&mut *lock(shared), state);
    // Woken outside the lock: a waker may poll at once.
    if let State::Waiting(Some(waker)) = previous {
        waker.wake();
    }
}

/// The future's end: the value, or `None` when the writer dropped the reply.
struct Answer<T> {
    shared: Arc<Mutex<State<T>>>,
}

impl<T> Future for Answer<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = lock(&self.shared);
        match &mut *state {
            State::Waiting(waker) => {
                match waker {
                    Some(waker) => waker.clone_from(cx.waker()),
                    None => *waker = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
            _ => match std::mem::replace(&mut *state, State::Taken) {
                State::Answered(value) => Poll::Ready(Some(value)),
                State::Dropped => Poll::Ready(None),
                _ => panic!("a journal's answer polled after it completed"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::block_on;

    /// A temporary directory, removed when dropped.
    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let path =
                std::env::temp_dir().join(format!("skyl-sqlite-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_write_held_by_a_locked_database_leaves_the_executor_thread_free_for_other_futures() {
        let dir = TempDir::new("locked");
        let path = dir.0.join("journal.db");
        let journal = SqliteJournal::open(&path).unwrap();
        // Another process's transaction holds the database's write lock.
        let mut locker = Connection::open(&path).unwrap();
        let holding = locker
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .unwrap();
        let mut holding = Some(holding);
        let entry = Entry {
            key: "began".into(),
            body: "{}".into(),
        };
        let mut append = journal.append("r1", vec![entry.clone()], true);
        // One thread polls both: the append, and another future that, polled while the append
        // waits, ends the other transaction. Were the append to wait on this thread, the other
        // future would not be polled until the busy timeout failed the append.
        let mut others_polls_while_waiting = 0;
        let written = block_on(std::future::poll_fn(|cx| {
            match append.as_mut().poll(cx) {
                Poll::Ready(written) => return Poll::Ready(written),
                Poll::Pending => {}
            }
            others_polls_while_waiting += 1;
            if let Some(holding) = holding.take() {
                holding.commit().unwrap();
            }
            Poll::Pending
        }));
        written.unwrap();
        assert!(others_polls_while_waiting >= 1);
        assert_eq!(block_on(journal.load("r1")).unwrap(), [entry]);
        assert_eq!(journal.syncs(), 1);
    }

    #[test]
    fn a_job_that_panics_on_the_writer_thread_answers_its_future_and_the_thread_goes_on() {
        let dir = TempDir::new("panic");
        let journal = SqliteJournal::open(dir.0.join("journal.db")).unwrap();
        let (reply, answer) = oneshot::<()>();
        journal.submit(Box::new(move |_| {
            let _reply = reply;
            panic!("a job went wrong");
        }));
        assert_eq!(block_on(answer), None);
        assert!(!journal.has_run("r1").unwrap());
    }
}
