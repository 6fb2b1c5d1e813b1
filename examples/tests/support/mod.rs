//! What the examples' crash tests share: the seeded instants of their kills, a temporary
//! directory, a bounded wait for a worker, and the worker's log.

use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A small seeded generator (xorshift64*), so that a failing run can be run again.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound
    }
}

/// The seed of the kills: `SKYL_CRASH_SEED` when set (to run the same instants again), else one
/// from the clock.
pub(crate) fn seed() -> u64 {
    std::env::var("SKYL_CRASH_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        })
}

/// A temporary directory of this test, removed when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    pub(crate) fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("skyl-{name}-{}", std::process::id()));
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

/// What a worker printed to `log` in `dir`, its standard error (`<log>.err`) after it.
pub(crate) fn log(dir: &Path, log: &str) -> String {
    std::fs::read_to_string(dir.join(log)).unwrap_or_default()
        + &std::fs::read_to_string(dir.join(format!("{log}.err"))).unwrap_or_default()
}

/// The lines of the file `name` in `dir`; none when it is not there yet.
pub(crate) fn lines(dir: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(name))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits for `child` at most `limit`; kills it and panics past that.
pub(crate) fn wait(child: &mut Child, limit: Duration) -> ExitStatus {
    let begun = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if begun.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a worker ran past {limit:?}");
        }
        sleep(Duration::from_millis(10));
    }
}
