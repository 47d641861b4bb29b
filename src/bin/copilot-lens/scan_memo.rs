//! The last update's log scans, kept in memory by `watch` from one update to the next, so that an
//! update opens only the logs written since: a log whose size and times are as they were when it
//! was scanned, by the cache's own rule (`copilot_lens::cache::settled`), gives its scan again.
//! The scans depend on the zone and rates alone, which a watch never changes. A store's
//! write-ahead log is scanned ahead only when it changed since the last update: unchanged, its
//! store's cache entry serves, or the read scans it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use copilot_lens::analysis::UsageScan;
use copilot_lens::cache::settled;
use copilot_lens::input::Stat;

#[derive(Default)]
pub struct ScanMemo {
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    /// Per root (by its identity, the cache's: an index would name another root once a zip
    /// comes or goes), per path: the scan, the stat it was made at, the start of the update that
    /// made it, and the last update that asked for it.
    scans: HashMap<String, HashMap<String, Memo>>,
    /// Per root and path, the stat of each write-ahead log at the last update, and its start.
    wals: HashMap<(String, String), (Stat, i64)>,
    update: u64,
    started_ms: i64,
}

struct Memo {
    /// Shared, so that it is copied outside the lock.
    scan: Arc<UsageScan>,
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
        for scans in kept.scans.values_mut() {
            scans.retain(|_, memo| memo.asked_in == update);
        }
        kept.scans.retain(|_, scans| !scans.is_empty());
    }

    /// The scan of the log at `path` under the root of that identity, when it is as it was
    /// scanned (`now`).
    pub fn scan_if_unchanged(&self, root: &str, path: &str, now: Stat) -> Option<UsageScan> {
        let shared = {
            let mut kept = self.kept();
            let update = kept.update;
            let memo = kept.scans.get_mut(root)?.get_mut(path)?;
            memo.asked_in = update;
            settled(memo.stat, memo.made_ms, now).then(|| Arc::clone(&memo.scan))?
        };
        Some(UsageScan::clone(&shared))
    }

    /// Keeps the scan of the log, made after `stat` was read (a write since then changes it).
    pub fn keep(&self, root: &str, path: &str, stat: Stat, scan: &UsageScan) {
        if scan.error.is_some() || scan.cache_ignored.is_some() {
            return;
        }
        let scan = Arc::new(scan.clone());
        let mut kept = self.kept();
        let memo = Memo { scan, stat, made_ms: kept.started_ms, asked_in: kept.update };
        kept.scans.entry(root.to_string()).or_default().insert(path.to_string(), memo);
    }

    /// Whether the write-ahead log at `path` under the root of that identity changed since the
    /// last update (`now` its stat), by the same rule as a log's.
    pub fn wal_changed(&self, root: &str, path: &str, now: Stat) -> bool {
        let mut kept = self.kept();
        let started_ms = kept.started_ms;
        let before = kept.wals.insert((root.to_string(), path.to_string()), (now, started_ms));
        !before.is_some_and(|(stat, made_ms)| settled(stat, made_ms, now))
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
