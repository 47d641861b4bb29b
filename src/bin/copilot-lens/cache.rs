//! The native cache store (`copilot_lens::cache`): a folder with one file per entry, named by
//! the entry's name. Writes are atomic (a temporary file renamed over the entry); an entry read
//! is touched, so that the folder's size is held under a cap by dropping the entries least
//! recently used once a run is done.
//!
//! The folder is the user's, but what is in it is not trusted: an entry is read only from a
//! regular file the cache made (never through a link, never a FIFO, never a second name of
//! another file), its time is set only through the handle that was opened and checked, and
//! no more of it is read than its header says it holds (`entry::stated_length`).

use std::borrow::Cow;
use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use copilot_lens::analysis::{AsTheyAre, Options, StoreReading};
use copilot_lens::cache::entry::{HEADER_BYTES_AT_MOST, stated_length};
use copilot_lens::cache::{self, CacheTally, EntryRules, EntryStore, FileKey, LookedUp, Purpose, StoreCache};
use copilot_lens::words::{counted, grouped};

use crate::roots::{DiskRoots, PositionalFile, stat_of};
use crate::terminal::say;

/// The folder's size past which the least recently used entries are dropped.
const SIZE_CAP_BYTES: u64 = 2 << 30;
/// The largest entry kept, a quarter of the folder's cap (a log whose entry is larger, were
/// there one, is parsed every time): a file that says it is larger is not read.
const ENTRY_CAP_BYTES: u64 = SIZE_CAP_BYTES / 4;
/// An entry used more lately than this is not touched again when read: eviction goes by the
/// hour, not by the run.
const TOUCHED_LATELY: Duration = Duration::from_secs(60 * 60);
/// Entries' files end so; anything else in the folder is left alone.
const EXTENSION: &str = "entry";

/// The cache folder as one run's [`EntryStore`]: its entries made for and checked against
/// `rules`. Copied to each thread of the run: the folder is shared, its writes atomic.
#[derive(Clone, Copy)]
pub struct FolderRun<'a> {
    pub store: &'a FolderStore,
    pub rules: &'a EntryRules,
}

impl EntryStore for FolderRun<'_> {
    fn rules(&self) -> &EntryRules {
        self.rules
    }

    fn get(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        self.store.get(name).map(Cow::Owned)
    }

    /// The folder keeps an entry until it is replaced: the time its file's key holds, the
    /// entry touched as it was read.
    fn put(&mut self, name: &str, entry: &[u8], _: Option<i64>) {
        self.store.put(name, entry);
    }
}

/// A command's cache for one run (`analyze`, `usage`): its folder, if one is asked and opens,
/// and what the run's entries are made for (this build, the options, when the run started).
pub struct CachedRun {
    cache: Option<(FolderStore, EntryRules)>,
}

impl CachedRun {
    /// What a run's entries are made for: this build, `options`, and now, when it starts
    /// (before its roots are listed).
    pub fn starting(options: &Options) -> EntryRules {
        EntryRules::new(&build_identity(), options, now_ms())
    }

    /// The run's cache: `store` (none without one), for entries made as `rules` says.
    pub fn new(store: Option<FolderStore>, rules: EntryRules) -> Self {
        CachedRun { cache: store.map(|store| (store, rules)) }
    }

    /// The cache the run reads and writes (`--cache`), if any.
    pub fn cache(&self) -> Option<FolderRun<'_>> {
        self.cache.as_ref().map(|(store, rules)| FolderRun { store, rules })
    }

    /// Says what the cache did (`summary`), and trims the folder to its size.
    pub fn finish(&self, tally: &CacheTally) {
        if let Some((store, _)) = &self.cache {
            say!("{}", summary(tally));
            store.finish();
        }
    }
}

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
    /// A write failed (a read-only folder, a full disk): said once, and nothing more is written.
    unwritable: AtomicBool,
}

impl FolderStore {
    /// The store in `folder`, created if missing.
    pub fn open(folder: &Path) -> io::Result<FolderStore> {
        fs::create_dir_all(folder)?;
        let (next_temporary, unwritable) = (AtomicU64::new(0), AtomicBool::new(false));
        Ok(FolderStore { folder: folder.to_path_buf(), next_temporary, unwritable })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.folder.join(format!("{name}.{EXTENSION}"))
    }

    /// Drops the least recently used entries while the folder is over `cap` bytes.
    pub fn evict(&self, cap: u64) -> io::Result<()> {
        let mut entries = Vec::new();
        for found in fs::read_dir(&self.folder)? {
            let found = found?;
            let path = found.path();
            // The entry's own metadata, not a link's target's.
            let metadata = found.metadata()?;
            if path.extension().is_some_and(|extension| extension == EXTENSION) && made_by_the_cache(&metadata) {
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

    /// Drops what is over the default cap, unless nothing could be written; a failure is said,
    /// never fatal.
    pub fn finish(&self) {
        if self.unwritable.load(Ordering::Relaxed) {
            return;
        }
        if let Err(error) = self.evict(SIZE_CAP_BYTES) {
            say!("the cache in {} could not be trimmed: {error}", self.folder.display());
        }
    }
}

impl FolderStore {
    /// The entry, from a file the cache made (anything else is a miss), touched through the
    /// handle it was read from.
    pub fn get(&self, name: &str) -> Option<Vec<u8>> {
        let file = open_entry(&self.path(name)).ok()?;
        let metadata = file.metadata().ok()?;
        if !made_by_the_cache(&metadata) {
            return None;
        }
        let bytes = read_entry(&file, metadata.len()).ok()?;
        // Touched unless it was lately: the least recently used go first, and a run's reads
        // need not each write the folder.
        let now = SystemTime::now();
        let lately = metadata
            .modified()
            .is_ok_and(|modified| now.duration_since(modified).is_ok_and(|age| age < TOUCHED_LATELY));
        if !lately {
            let _ = file.set_modified(now);
        }
        Some(bytes)
    }

    /// Keeps an entry under that name, replacing any.
    pub fn put(&self, name: &str, entry: &[u8]) {
        if self.unwritable.load(Ordering::Relaxed) || entry.len() as u64 > ENTRY_CAP_BYTES {
            return;
        }
        let number = self.next_temporary.fetch_add(1, Ordering::Relaxed);
        let temporary = self.folder.join(format!(".{name}.{}.{number}.tmp", std::process::id()));
        // A new file: whatever has that name already (a link among them) is left as it is.
        let written = File::options()
            .write(true)
            .create_new(true)
            .open(&temporary)
            .and_then(|mut file| file.write_all(entry))
            .and_then(|()| fs::rename(&temporary, self.path(name)));
        if let Err(error) = written {
            let _ = fs::remove_file(&temporary);
            // A cache that cannot be written only costs the next run its time: said once.
            if !self.unwritable.swap(true, Ordering::Relaxed) {
                say!("nothing will be cached: {}: {error}", self.folder.display());
            }
        }
    }
}

/// Opens an entry's file to read it and set its time, never through a link: on unix with
/// `O_NOFOLLOW` (a link is an error) and `O_NONBLOCK` (a FIFO does not wait for a writer).
#[cfg(unix)]
fn open_entry(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    File::options().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)
}

/// Windows: `FILE_FLAG_OPEN_REPARSE_POINT` opens a link itself, which `made_by_the_cache`
/// refuses; the handle may read and set times (`GENERIC_READ | FILE_WRITE_ATTRIBUTES`).
#[cfg(windows)]
fn open_entry(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    const GENERIC_READ: u32 = 0x8000_0000;
    const FILE_WRITE_ATTRIBUTES: u32 = 0x0100;
    const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
    File::options()
        .access_mode(GENERIC_READ | FILE_WRITE_ATTRIBUTES)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(path)
}

/// Whether a file of the folder is one the cache made (by `put`): a regular file, not a link,
/// a FIFO or a device, and on unix one with no other name (a hard link to a log has two).
/// Windows' std gives no link count: there a hard link is not told.
fn made_by_the_cache(metadata: &Metadata) -> bool {
    #[cfg(unix)]
    let one_name = std::os::unix::fs::MetadataExt::nlink(metadata) == 1;
    #[cfg(not(unix))]
    let one_name = true;
    metadata.is_file() && one_name
}

/// An entry's bytes from its file of `size` bytes: its start, and the rest only when its header
/// says it is as long as its file and at most the cap. Anything else (a file padded with
/// gigabytes of zeros, a header that lies) gives its start alone, which the core ignores as
/// damaged: nothing is allocated beyond what the entry says it holds.
fn read_entry(file: &File, size: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.take(HEADER_BYTES_AT_MOST as u64).read_to_end(&mut bytes)?;
    if stated_length(&bytes) == Some(size) && size <= ENTRY_CAP_BYTES {
        let rest = size - bytes.len() as u64;
        bytes.reserve_exact(rest as usize);
        file.take(rest).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// A log's key and its entry in the run's cache (`cache::look_up`): none for a zip's log or
/// one that cannot be read.
pub fn look_up(roots: &DiskRoots, run: &FolderRun, purpose: Purpose, root: usize, path: &str) -> Option<LookedUp> {
    let (identity, now) = roots.folder_stat(root, path)?;
    cache::look_up(run, purpose, (identity, path), Some(now), || key_of(roots, root, path))
}

/// The key of a folder's file, its two ends read: none for a zip's entry (read again each
/// run) and a file that cannot be read.
pub fn key_of(roots: &DiskRoots, root: usize, path: &str) -> Option<FileKey> {
    let (identity, full) = roots.folder_file(root, path)?;
    let file = File::open(full).ok()?;
    let stat = stat_of(&file.metadata().ok()?);
    let key = FileKey::read_ends((identity, path), stat.size, stat.modified_ms, &mut PositionalFile(file))?;
    Some(FileKey { changed_ns: stat.changed_ns, ..key })
}

/// Epoch milliseconds now: when a run starts, for the entries it makes (`EntryRules::new`).
pub fn now_ms() -> i64 {
    let since = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH);
    since.map_or(0, |since| since.as_millis() as i64)
}

/// Calls `read` with how the run reads its stores: through its cache, their files' keys from
/// `roots`, or as they are without one. Gives what the cache did.
pub fn stores_through(
    roots: DiskRoots,
    cache: Option<FolderRun<'_>>,
    read: impl FnOnce(&mut dyn StoreReading),
) -> CacheTally {
    let Some(mut run) = cache else {
        read(&mut AsTheyAre);
        return CacheTally::default();
    };
    let key_by_file = |root: usize, path: &str| key_of(&roots, root, path);
    let mut through = StoreCache::new(&key_by_file, &mut run);
    read(&mut through);
    through.tally
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
        grouped(tally.cached),
        megabytes(tally.cached_bytes)
    );
    if tally.resumed > 0 {
        let logs = counted(tally.resumed, "grown log", "grown logs");
        let ended = if tally.resumed == 1 { "it ended" } else { "they ended" };
        line.push_str(&format!(", {logs} parsed from where {ended} ({} new)", megabytes(tally.resumed_bytes)));
    }
    line
}

fn megabytes(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
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

    /// A real entry, of `rows` bytes of rows.
    fn an_entry(rows: usize) -> Vec<u8> {
        let rules = EntryRules::new("test", &copilot_lens::analysis::Options::default(), 0);
        let key = copilot_lens::cache::FileKey::new("home", "log", 10, Some(5), b"head", b"tail");
        rules.encode(&key, 0, &(), &vec![b'r'; rows]).unwrap()
    }

    #[test]
    fn an_entry_is_read_no_further_than_its_header_says_it_holds() {
        let folder = tempfile::tempdir().unwrap();
        let store = FolderStore::open(folder.path()).unwrap();
        for rows in [0, 100, 10 << 10] {
            store.put("a", &an_entry(rows));
            assert_eq!(store.get("a"), Some(an_entry(rows)), "read whole");
        }
        // Padded to 68 GB (a sparse file): only its start is read, which the core ignores.
        File::options().append(true).open(store.path("a")).unwrap().set_len(68 << 30).unwrap();
        let start = store.get("a").unwrap();
        assert!(start.len() <= HEADER_BYTES_AT_MOST && an_entry(10 << 10).starts_with(&start), "{}", start.len());
        // Cut: its start only too.
        let entry = an_entry(10 << 10);
        fs::write(store.path("a"), &entry[..entry.len() - 1]).unwrap();
        assert_eq!(store.get("a").map(|bytes| bytes.len()), Some(HEADER_BYTES_AT_MOST));
    }

    #[cfg(unix)]
    #[test]
    fn an_entry_that_is_a_link_a_second_name_or_a_fifo_is_not_read_and_what_it_names_not_touched() {
        let folder = tempfile::tempdir().unwrap();
        let store = FolderStore::open(&folder.path().join("cache")).unwrap();
        let log = folder.path().join("events.jsonl");
        fs::write(&log, an_entry(100)).unwrap();
        let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        File::options().append(true).open(&log).unwrap().set_modified(long_ago).unwrap();
        std::os::unix::fs::symlink(&log, store.path("link")).unwrap();
        fs::hard_link(&log, store.path("second-name")).unwrap();
        let made = std::process::Command::new("mkfifo").arg(store.path("fifo")).status().unwrap();
        assert!(made.success());
        for name in ["link", "second-name", "fifo"] {
            assert_eq!(store.get(name), None, "{name}");
        }
        assert_eq!(fs::metadata(&log).unwrap().modified().unwrap(), long_ago, "the log's time is as it was");
        assert_eq!(fs::read(&log).unwrap(), an_entry(100));
        // Written anew, an entry replaces the link, not what it names.
        store.put("link", &an_entry(1));
        assert_eq!(store.get("link"), Some(an_entry(1)));
        assert_eq!(fs::read(&log).unwrap(), an_entry(100));
        // Eviction leaves what the cache did not make alone.
        store.evict(0).unwrap();
        assert_eq!(fs::read(&log).unwrap(), an_entry(100));
        assert!(fs::symlink_metadata(store.path("second-name")).is_ok() && store.get("link").is_none());
    }

    #[test]
    fn once_a_write_fails_nothing_more_is_written() {
        let folder = tempfile::tempdir().unwrap();
        let cache = folder.path().join("cache");
        let store = FolderStore::open(&cache).unwrap();
        // The folder gone and a file in its place: the next write fails (permissions would not
        // stop one made as root).
        fs::remove_dir(&cache).unwrap();
        fs::write(&cache, b"not a folder").unwrap();
        store.put("a", &an_entry(1));
        assert!(store.unwritable.load(Ordering::Relaxed));
        fs::remove_file(&cache).unwrap();
        fs::create_dir(&cache).unwrap();
        store.put("b", &an_entry(1));
        assert_eq!(fs::read_dir(&cache).unwrap().count(), 0, "not tried again");
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
