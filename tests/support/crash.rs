//! A process killed while a call runs: the test runs itself again in a child process, whose
//! tools leave marks in files (what a killed process leaves behind), and kills it once a call
//! has started.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the tools of a crash test leave their marks: a line per mark in a file of the
/// directory.
pub(crate) struct Marks(pub(crate) PathBuf);

impl Marks {
    pub(crate) fn append(&self, file: &str, line: &str) {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.0.join(file))
            .unwrap();
        writeln!(file, "{line}").unwrap();
    }

    pub(crate) fn read(&self, file: &str) -> Vec<String> {
        std::fs::read_to_string(self.0.join(file))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// Runs the suite's test `test` (`module::name`) in a child process with `child` set to `dir`,
/// waits until its tools have marked `started` in `dir` (the call `what` has started), and kills
/// it (SIGKILL). Bounded: the child starts the call within a minute, or the test fails.
pub(crate) fn kill_child_once_started(
    test: &str,
    child: &str,
    dir: &Path,
    started: &str,
    what: &str,
) {
    let mut process = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture"])
        .env(child, dir)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let marks = Marks(dir.to_owned());
    let mut waited = 0;
    while marks.read(started).is_empty() {
        assert!(
            process.try_wait().unwrap().is_none(),
            "the child process ended before it started {what}"
        );
        assert!(waited < 6000, "the child process never started {what}");
        std::thread::sleep(Duration::from_millis(10));
        waited += 1;
    }
    process.kill().unwrap();
    process.wait().unwrap();
}
