//! The last update's log scans, kept in memory by `watch` from one update to the next, so that an
//! update opens only the logs written since: a log whose size and times are as they were when it
//! was scanned, by the cache's own rule (`copilot_lens::cache::settled`), gives its scan again.
//! The scans depend on the zone and rates alone, which a watch never changes. A store's
//! write-ahead log is scanned ahead only when it changed since the last update: unchanged, its
//! store's cache entry serves, or the read scans it.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use copilot_lens::analysis::UsageScan;
use copilot_lens::cache::{Stat, settled};

#[derive(Default)]
pub struct ScanMemo {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    /// Per root (by its index), per path: the scan, the stat it was made at, the start of the
    /// update that made it, and the last update that asked for it.
    scans: Vec<HashMap<String, Memo>>,
    /// Per root and path, the stat of each write-ahead log at the last update, and its start.
    wals: HashMap<(usize, String), (Stat, i64)>,
    update: u64,
    started_ms: i64,
}

struct Memo {
    scan: UsageScan,
    stat: Stat,
    made_ms: i64,
    asked_in: u64,
}

impl ScanMemo {
    /// An update begins at `started_ms`.
    pub fn begin(&self, started_ms: i64) {
        let mut kept = self.kept();
        kept.update += 1;
        kept.started_ms = started_ms;
    }

    /// Forgets the logs the update did not ask for (gone from the homes), so that memory holds
    /// only the homes' logs.
    pub fn end(&self) {
        let mut kept = self.kept();
        let update = kept.update;
        for scans in &mut kept.scans {
            scans.retain(|_, memo| memo.asked_in == update);
        }
    }

    /// The scan of the log at `path` under `root`, when it is as it was scanned (`now`).
    pub fn scan_if_unchanged(&self, root: usize, path: &str, now: Stat) -> Option<UsageScan> {
        let mut kept = self.kept();
        let update = kept.update;
        let memo = kept.scans.get_mut(root)?.get_mut(path)?;
        memo.asked_in = update;
        settled(memo.stat, memo.made_ms, now).then(|| memo.scan.clone())
    }

    /// Keeps the scan of the log, made after `stat` was read (a write since then changes it).
    pub fn keep(&self, root: usize, path: &str, stat: Stat, scan: &UsageScan) {
        if scan.error.is_some() || scan.cache_ignored.is_some() {
            return;
        }
        let mut kept = self.kept();
        let (update, made_ms) = (kept.update, kept.started_ms);
        if kept.scans.len() <= root {
            kept.scans.resize_with(root + 1, HashMap::new);
        }
        let memo = Memo { scan: scan.clone(), stat, made_ms, asked_in: update };
        kept.scans[root].insert(path.to_string(), memo);
    }

    /// Whether the write-ahead log at `path` under `root` changed since the last update (`now`
    /// its stat), by the same rule as a log's.
    pub fn wal_changed(&self, root: usize, path: &str, now: Stat) -> bool {
        let mut kept = self.kept();
        let started_ms = kept.started_ms;
        let before = kept.wals.insert((root, path.to_string()), (now, started_ms));
        !before.is_some_and(|(stat, made_ms)| settled(stat, made_ms, now))
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
