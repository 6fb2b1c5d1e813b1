//! A temporary directory per test, removed when dropped, and the SQLite journal in it.

use std::ops::Deref;
use std::path::{Path, PathBuf};

use skyl::durable::SqliteJournal;

/// A temporary directory, removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    /// `skyl-<name>-<process id>` in the system's temporary directory, empty.
    pub(crate) fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("skyl-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// The journal in it, under the name its handle makes.
    pub(crate) fn journal(&self) -> SqliteJournal {
        SqliteJournal::open(self.0.join("journal.db")).unwrap()
    }

    /// The journal as one worker opens it: restarted under the same name (another process of the
    /// same worker), it takes its runs back at once instead of waiting out the lease the process
    /// that died still holds.
    pub(crate) fn worker_journal(&self) -> SqliteJournal {
        SqliteJournal::open(self.0.join("journal.db"))
            .unwrap()
            .with_owner("worker")
    }
}

/// The directory's path, so that `&dir` is a `&Path` and `dir.join(..)` names a file in it.
impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
