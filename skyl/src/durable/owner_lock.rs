//! Whether the owner of a lease is alive, known at once: each owner holds a lock on a file of its
//! own beside the journal, and the operating system drops a process's locks when it dies.
//!
//! The file is a SQLite database that stays empty: its owner holds an exclusive transaction on
//! it for as long as a handle under that name lives, and a worker that finds a run leased to
//! another owner tries a transaction of its own on that owner's file, with no wait. Refused, the
//! owner is alive; granted, no process holds the name any more, and its leases are free. SQLite's
//! locks are the operating system's (POSIX advisory locks, `LockFileEx` on Windows), released by
//! the kernel when the process ends however it ends; SQLite also keeps the locks of two
//! connections of one process apart, which the POSIX locks alone do not.
//!
//! An owner whose file is missing (a worker of an older skyl, or a name too long for a file
//! name) has its liveness unknown: its lease is kept until it expires, as before.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags};

/// How long the owner waits to take its own lock while another worker checks it: a check holds
/// the file for the time of one SQLite statement.
const HOLD_WAIT: Duration = Duration::from_millis(500);

/// The longest escaped owner name used as a file name; a longer one has no file.
const LONGEST_NAME: usize = 200;

/// The lock an owner holds while a handle under its name lives, dropped with it. Shared by the
/// handles of one process under one name, since a second lock on the file would be refused by
/// the first.
pub(super) struct OwnerLock {
    path: PathBuf,
    /// The connection holding the exclusive transaction; closing it drops the lock.
    _held: Mutex<Connection>,
}

/// What the file of a lease's owner says of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Liveness {
    /// A process holds the owner's lock.
    Alive,
    /// No process holds it: the owner died or closed its handles.
    Gone,
    /// The owner has no file: only its lease's expiry says.
    Unknown,
}

/// The owners' files of the journal at `journal` (SQLite's full path of the database file), or
/// `None` for a database with no file.
pub(super) fn directory(journal: Option<&str>) -> Option<PathBuf> {
    match journal {
        Some(path) if !path.is_empty() => Some(PathBuf::from(format!("{path}-owners"))),
        _ => None,
    }
}

/// Takes `owner`'s lock in `directory`, or shares the one this process holds already. `None`
/// when the lock cannot be taken (another process holds the name, or the file cannot be made):
/// the owner's leases are then kept until they expire.
pub(super) fn hold(directory: &Path, owner: &str) -> Option<Arc<OwnerLock>> {
    static HELD: Mutex<Vec<Weak<OwnerLock>>> = Mutex::new(Vec::new());
    let path = file(directory, owner)?;
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    held.retain(|lock| lock.strong_count() > 0);
    if let Some(lock) = held
        .iter()
        .filter_map(Weak::upgrade)
        .find(|lock| lock.path == path)
    {
        return Some(lock);
    }
    std::fs::create_dir_all(directory).ok()?;
    let connection = Connection::open(&path).ok()?;
    connection.busy_timeout(HOLD_WAIT).ok()?;
    connection.execute_batch("BEGIN EXCLUSIVE").ok()?;
    let lock = Arc::new(OwnerLock {
        path,
        _held: Mutex::new(connection),
    });
    held.push(Arc::downgrade(&lock));
    Some(lock)
}

/// Whether a process holds `owner`'s lock in `directory`. Waits for nothing.
pub(super) fn liveness(directory: &Path, owner: &str) -> Liveness {
    let Some(path) = file(directory, owner) else {
        return Liveness::Unknown;
    };
    // Opened without creating it: a missing file says nothing of its owner.
    let Ok(connection) = Connection::open_with_flags(
        &path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    ) else {
        return Liveness::Unknown;
    };
    match connection.execute_batch("BEGIN IMMEDIATE; ROLLBACK") {
        Ok(()) => Liveness::Gone,
        Err(rusqlite::Error::SqliteFailure(failure, _))
            if matches!(
                failure.code,
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked
            ) =>
        {
            Liveness::Alive
        }
        Err(_) => Liveness::Unknown,
    }
}

/// Removes the file of `owner`. Only for a name made for one handle, which no process takes
/// again, once no lease names it: a lease whose owner has no file is kept until it expires.
pub(super) fn remove(directory: &Path, owner: &str) {
    if let Some(path) = file(directory, owner) {
        let _ = std::fs::remove_file(path);
    }
}

/// The file of `owner` in `directory`: its name with every byte but ASCII letters, digits, `-`
/// and `_` escaped as `%XX`, so that two names never share a file.
fn file(directory: &Path, owner: &str) -> Option<PathBuf> {
    let mut name = String::with_capacity(owner.len());
    for byte in owner.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_' {
            name.push(char::from(byte));
        } else {
            name.push_str(&format!("%{byte:02X}"));
        }
    }
    (!name.is_empty() && name.len() <= LONGEST_NAME).then(|| directory.join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_is_alive_while_a_handle_holds_its_lock_and_gone_once_none_does() {
        let directory =
            std::env::temp_dir().join(format!("skyl-owner-lock-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        assert_eq!(liveness(&directory, "worker a"), Liveness::Unknown);
        let first = hold(&directory, "worker a").unwrap();
        let second = hold(&directory, "worker a").unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(liveness(&directory, "worker a"), Liveness::Alive);
        assert_eq!(liveness(&directory, "worker b"), Liveness::Unknown);
        drop(first);
        assert_eq!(liveness(&directory, "worker a"), Liveness::Alive);
        drop(second);
        assert_eq!(liveness(&directory, "worker a"), Liveness::Gone);
        remove(&directory, "worker a");
        assert_eq!(liveness(&directory, "worker a"), Liveness::Unknown);
        let _ = std::fs::remove_dir_all(&directory);
    }

    #[test]
    fn two_owner_names_never_share_a_file() {
        let directory = Path::new("journal.db-owners");
        assert_eq!(file(directory, "a/b"), Some(directory.join("a%2Fb")));
        assert_ne!(file(directory, "a/b"), file(directory, "a%2Fb"));
        assert_eq!(file(directory, ""), None);
        assert_eq!(file(directory, &"x".repeat(201)), None);
    }
}
