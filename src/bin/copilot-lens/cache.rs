//! The native cache store (`copilot_lens::cache`): a folder with one file per entry, named by
//! the entry's name. Writes are atomic (a temporary file renamed over the entry); an entry read
//! is touched, so that the folder's size is held under a cap by dropping the entries least
//! recently used once a run is done.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use copilot_lens::analysis::StoreCache;
use copilot_lens::cache::{CacheStore, CacheTally, CacheUse, Keyed, Purpose};

use crate::parallel::Cache;
use crate::roots::DiskRoots;

/// The folder's size past which the least recently used entries are dropped.
const SIZE_CAP_BYTES: u64 = 2 << 30;
/// An entry used more lately than this is not touched again when read: eviction goes by the
/// hour, not by the run.
const TOUCHED_LATELY: Duration = Duration::from_secs(60 * 60);
/// Entries' files end so; anything else in the folder is left alone.
const EXTENSION: &str = "entry";

/// Where the cache is: `--no-cache` none; `--cache DIR`; else `COPILOT_LENS_CACHE` (a folder,
/// or `off`); else the platform's user cache folder's `copilot-lens`.
pub fn folder(asked: Option<PathBuf>, off: bool) -> Option<PathBuf> {
    if off {
        return None;
    }
    if asked.is_some() {
        return asked;
    }
    match std::env::var_os("COPILOT_LENS_CACHE") {
        Some(value) if value == "off" || value.is_empty() => None,
        Some(value) => Some(PathBuf::from(value)),
        None => dirs::cache_dir().map(|dir| dir.join("copilot-lens")),
    }
}

/// This executable's identity for the entries' header: its size and modification time, so that
/// a rebuilt tool never reads the entries of another build.
pub fn build_identity() -> String {
    let metadata = std::env::current_exe().and_then(fs::metadata);
    match metadata {
        Ok(metadata) => {
            let modified = metadata.modified().ok().and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok());
            format!("{}-{}", metadata.len(), modified.map_or(0, |since| since.as_nanos()))
        }
        Err(_) => "unknown".to_string(),
    }
}

/// A cache folder.
pub struct FolderStore {
    folder: PathBuf,
    /// For the temporary files' names.
    next_temporary: AtomicU64,
}

impl FolderStore {
    /// The store in `folder`, created if missing.
    pub fn open(folder: &Path) -> std::io::Result<FolderStore> {
        fs::create_dir_all(folder)?;
        Ok(FolderStore { folder: folder.to_path_buf(), next_temporary: AtomicU64::new(0) })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.folder.join(format!("{name}.{EXTENSION}"))
    }

    /// Drops the least recently used entries while the folder is over `cap` bytes.
    pub fn evict(&self, cap: u64) -> std::io::Result<()> {
        let mut entries = Vec::new();
        for found in fs::read_dir(&self.folder)? {
            let found = found?;
            let path = found.path();
            if path.extension().is_some_and(|extension| extension == EXTENSION) {
                let metadata = found.metadata()?;
                entries.push((metadata.modified()?, metadata.len(), path));
            }
        }
        let mut total: u64 = entries.iter().map(|(_, size, _)| size).sum();
        entries.sort();
        for (_, size, path) in entries {
            if total <= cap {
                break;
            }
            fs::remove_file(path)?;
            total -= size;
        }
        Ok(())
    }

    /// Drops what is over the default cap; a failure is said, never fatal.
    pub fn finish(&self) {
        if let Err(error) = self.evict(SIZE_CAP_BYTES) {
            eprintln!("copilot-lens: the cache in {} could not be trimmed: {error}", self.folder.display());
        }
    }
}

impl CacheStore for FolderStore {
    fn get(&self, name: &str) -> Option<Vec<u8>> {
        let path = self.path(name);
        let mut file = File::open(&path).ok()?;
        let metadata = file.metadata().ok()?;
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        file.read_to_end(&mut bytes).ok()?;
        // Touched, on the file already open, unless it was lately: the least recently used go
        // first, and a run's reads need not each write the folder.
        let now = SystemTime::now();
        let lately = metadata
            .modified()
            .is_ok_and(|modified| now.duration_since(modified).is_ok_and(|age| age < TOUCHED_LATELY));
        if !lately && file.set_modified(now).is_err() {
            // A system that sets times only through a handle opened for writing.
            if let Ok(file) = File::options().append(true).open(&path) {
                let _ = file.set_modified(now);
            }
        }
        Some(bytes)
    }

    fn put(&self, name: &str, entry: &[u8]) {
        let number = self.next_temporary.fetch_add(1, Ordering::Relaxed);
        let temporary = self.folder.join(format!(".{name}.{}.{number}.tmp", std::process::id()));
        let written = File::create(&temporary)
            .and_then(|mut file| file.write_all(entry))
            .and_then(|()| fs::rename(&temporary, self.path(name)));
        if written.is_err() {
            // A cache that cannot be written only costs the next run its time.
            let _ = fs::remove_file(&temporary);
        }
    }
}

/// A log's key and its entry in the run's cache (`Keyed::look_up`): none for a zip's log or
/// one that cannot be read.
pub fn keyed(
    roots: &DiskRoots,
    (store, cache): (&FolderStore, &CacheUse),
    purpose: Purpose,
    root: usize,
    path: &str,
) -> Option<Keyed> {
    let (identity, now) = roots.cache_stat(root, path)?;
    Keyed::look_up(store, cache, purpose, (identity, path), now, || roots.cache_key(root, path))
}

/// Epoch milliseconds now: when a run starts, for the entries it makes (`CacheUse::new`).
pub fn now_ms() -> i64 {
    let since = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH);
    since.map_or(0, |since| since.as_millis() as i64)
}

/// Calls `read` with what reading the stores through the run's cache needs (none without a
/// cache): their files' keys come from `roots`.
pub fn stores_through<T>(roots: DiskRoots, cache: Cache<'_>, read: impl FnOnce(Option<&mut StoreCache<'_>>) -> T) -> T {
    let Some((store, cache_use)) = cache else { return read(None) };
    let key_of = |root: usize, path: &str| roots.cache_key(root, path);
    let mut entries = (store, cache_use);
    read(Some(&mut StoreCache { key_of: &key_of, entries: &mut entries }))
}

/// What the cache did, for the summary line: "cache: 3 files parsed, 2,777 from the cache
/// (41 MB; 2,770 logs not opened)", and when logs grew, ", 2 grown logs parsed from where they
/// ended (1 MB new)".
pub fn summary(tally: &CacheTally) -> String {
    let unopened = match tally.unread {
        0 => String::new(),
        count => format!("; {} not opened", counted(count, "log", "logs")),
    };
    let mut line = format!(
        "cache: {} parsed, {} from the cache ({}{unopened})",
        counted(tally.parsed, "file", "files"),
        thousands(tally.cached),
        megabytes(tally.cached_bytes)
    );
    if tally.resumed > 0 {
        let (logs, ended) = match tally.resumed {
            1 => ("1 grown log".to_string(), "it ended"),
            count => (format!("{} grown logs", thousands(count)), "they ended"),
        };
        line.push_str(&format!(", {logs} parsed from where {ended} ({} new)", megabytes(tally.resumed_bytes)));
    }
    line
}

fn counted(count: u64, one: &str, many: &str) -> String {
    if count == 1 { format!("1 {one}") } else { format!("{} {many}", thousands(count)) }
}

fn megabytes(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_replaced_atomically_and_the_least_recently_used_dropped_over_the_cap() {
        let folder = tempfile::tempdir().unwrap();
        let store = FolderStore::open(folder.path()).unwrap();
        store.put("a", &[1; 100]);
        store.put("b", &[2; 100]);
        store.put("a", &[3; 50]);
        assert_eq!(store.get("a"), Some(vec![3; 50]), "the later put replaced the entry");
        // "b" is older than "a", which was just read.
        let old = SystemTime::now() - std::time::Duration::from_secs(60);
        File::options().append(true).open(store.path("b")).unwrap().set_modified(old).unwrap();
        store.evict(120).unwrap();
        assert_eq!(store.get("b"), None, "the least recently used went");
        assert_eq!(store.get("a"), Some(vec![3; 50]));
        let names: Vec<_> = fs::read_dir(folder.path()).unwrap().map(|found| found.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "no temporary file is left: {names:?}");
    }

    #[test]
    fn an_entry_read_is_kept_over_one_read_less_lately() {
        let folder = tempfile::tempdir().unwrap();
        let store = FolderStore::open(folder.path()).unwrap();
        let hours_ago = |hours: u64| SystemTime::now() - Duration::from_secs(hours * 60 * 60);
        for (name, hours) in [("a", 3), ("b", 2)] {
            store.put(name, &[1; 100]);
            File::options().append(true).open(store.path(name)).unwrap().set_modified(hours_ago(hours)).unwrap();
        }
        assert_eq!(store.get("a"), Some(vec![1; 100]));
        store.evict(150).unwrap();
        assert_eq!(
            (store.get("a").is_some(), store.get("b").is_some()),
            (true, false),
            "b was used less lately than a"
        );
    }

    #[test]
    fn the_summary_counts_files_and_megabytes() {
        let tally = CacheTally { parsed: 1, cached: 2777, cached_bytes: 41_000_000, ..CacheTally::default() };
        assert_eq!(summary(&tally), "cache: 1 file parsed, 2,777 from the cache (41 MB)");
        let grown = CacheTally { resumed: 2, resumed_bytes: 1_400_000, unread: 2770, ..tally };
        assert_eq!(
            summary(&grown),
            "cache: 1 file parsed, 2,777 from the cache (41 MB; 2,770 logs not opened), 2 grown logs parsed from where they ended (1 MB new)"
        );
        let one = CacheTally { parsed: 3, resumed: 1, ..CacheTally::default() };
        assert_eq!(
            summary(&one),
            "cache: 3 files parsed, 0 from the cache (0 MB), 1 grown log parsed from where it ended (0 MB new)"
        );
    }
}
