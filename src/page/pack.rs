//! The page's cache (issue 26): the entries (`crate::cache`) of one input, kept by the page's
//! worker in one file of the Origin Private File System (`www/cache.js`). The engine reads and
//! writes that file at offsets through the worker's sync access handle ([`PackFile`]): an entry
//! is read when its file comes, and a new one is appended as soon as it is made, so the engine
//! holds the pack's index alone, whatever the pack's size.
//!
//! A pack: its entries back to back from its start, then its index (postcard: the tool's
//! version and the page's build, whose pack of another is dropped whole with one note, and
//! each entry's name, place, file time, file size and when the run that made it started: what
//! says, before the file is handed over, whether its entry can stand for it unread,
//! [`PageCache::can_stand_unread`]), then the index's length (8 bytes, little-endian) and
//! [`MAGIC`]. A run appends what it makes after the old pack and writes the new index after
//! that, so a run that stops early leaves the old pack whole once the page cuts the file back
//! to its old size. The entries no file used (a deleted file, a changed log's old entry) stay
//! where they are until they are half as large as the kept ones; then the kept ones move down.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::cache::{CacheTally, EntryRules, EntryStore, FileKey, Purpose, entry_name, look_up, settled};
use crate::input::Stat;

/// The pack's last bytes (format 4: the index at the end, with each entry's file time, size
/// and run start).
const MAGIC: [u8; 8] = *b"CLpack04";
/// The start of another format's last bytes.
const MAGIC_OF_ANY_FORMAT: &[u8] = b"CLpack";
/// The index's length and the magic.
const TRAILER_BYTES: u64 = 16;
/// How many bytes of new entries are written at once (`PageCache::pending`).
const WRITE_BYTES: usize = 4 << 20;

/// The page's file of an input's pack, read and written at offsets: the worker's
/// `FileSystemSyncAccessHandle` (`crate::page::wasm`). Errors are the browser's, as text.
pub trait PackFile {
    fn size(&self) -> Result<u64, String>;
    /// Fills `buffer` from `at`: all of it, or an error.
    fn read_at(&self, at: u64, buffer: &mut [u8]) -> Result<(), String>;
    fn write_at(&self, at: u64, bytes: &[u8]) -> Result<(), String>;
    fn truncate(&self, size: u64) -> Result<(), String>;
}

#[derive(Serialize, Deserialize)]
struct PackIndex<'a> {
    version: &'a str,
    build: &'a str,
    /// The input's entries outgrew the cap: the pack holds none, and the next runs record none
    /// (recording them would cost time and a file that could not be kept).
    full: bool,
    /// Each entry's name and `EntryAt`: where it starts, its length, its file's time where the
    /// entry's key leaves it out, its file's size and when the run that made it started.
    #[serde(borrow)]
    entries: Vec<IndexedEntry<'a>>,
}

type IndexedEntry<'a> = (&'a str, u64, u64, Option<i64>, Option<(u64, i64)>);

/// Where an entry is in the pack, and the time of the file it was made for when its key
/// leaves that out (a log's: `EntryStore::put`).
#[derive(Clone)]
struct EntryAt {
    place: Range<u64>,
    time: Option<i64>,
    /// The size of the file it was made for and when the run that made it started (none for
    /// an entry whose key could not be read: it never stands for its file unread).
    made: Option<(u64, i64)>,
}

/// Whether this run records entries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Recording {
    Yes,
    /// Not past the cap: the next pack says so.
    Full,
    /// Not since the browser refused a write: the next pack is empty.
    Failed,
}

pub struct PageCache {
    file: Box<dyn PackFile>,
    build: String,
    /// The old pack's entries by name.
    stored: HashMap<String, EntryAt>,
    /// Where the old pack's index starts (its entries end), and its size.
    old_index_at: u64,
    old_size: u64,
    /// The next pack's entries by name: old ones used and new ones made.
    next: HashMap<String, EntryAt>,
    /// Where the next new entry goes.
    end: u64,
    /// New entries not written yet, which end at `end`: the browser charges each write (a
    /// quarter of a millisecond in Chromium, about as much as writing half a MiB), so entries
    /// go a few MiB at once.
    pending: Vec<u8>,
    /// The bytes of the next pack's entries, which the cap bounds.
    kept_bytes: u64,
    cap: u64,
    recording: Recording,
    pub rules: EntryRules,
    pub tally: CacheTally,
    /// Why the pack could not be used or kept, if so: a sentence, which the page shows after
    /// its cache line's and in Diagnostics.
    pub problem: Option<String>,
}

impl PageCache {
    /// The cache of a run, from the pack in `file` (empty for none); `build` names the page's
    /// build (its module's hash); `cap` bounds the pack's entries.
    pub fn new(file: Box<dyn PackFile>, build: &str, rules: EntryRules, cap: u64) -> PageCache {
        let mut cache = PageCache {
            file,
            build: build.to_string(),
            stored: HashMap::new(),
            old_index_at: 0,
            old_size: 0,
            next: HashMap::new(),
            end: 0,
            pending: Vec::new(),
            kept_bytes: 0,
            cap,
            recording: Recording::Yes,
            rules,
            tally: CacheTally::default(),
            problem: None,
        };
        match read_index(&*cache.file, build, cap) {
            Ok(Read::Empty) => {}
            Ok(Read::Entries { entries, index_at, size }) => {
                cache.stored = entries;
                (cache.old_index_at, cache.old_size, cache.end) = (index_at, size, size);
            }
            Ok(Read::Full) => cache.stop(Recording::Full),
            // Written anew from its start.
            Err(problem) => cache.problem = Some(problem),
        }
        cache
    }

    /// Whether this run records entries: not once they outgrew the cap or a write failed.
    pub fn recording(&self) -> bool {
        self.recording == Recording::Yes
    }

    /// Whether a log's key can still be of use: the run records, or the old pack has entries
    /// to read (still read once recording stopped: a refused write costs the run no hit).
    pub fn in_use(&self) -> bool {
        self.recording() || !self.stored.is_empty()
    }

    fn stop(&mut self, why: Recording) {
        if !self.recording() {
            return;
        }
        self.recording = why;
        self.next = HashMap::new();
        self.problem = Some(match why {
            Recording::Full => format!(
                "What this input's logs gave is more than the {} MiB this browser's cache holds for it: it is analysed without the cache (\"Clear the cache\" tries again).",
                self.cap >> 20
            ),
            _ => "The browser refused to write its cache: nothing is kept of this analysis.".to_string(),
        });
    }

    /// Keeps an entry in the next pack under `name`, unless the pack outgrows the cap.
    fn keep_at(&mut self, name: &str, at: EntryAt) {
        self.kept_bytes += at.place.end - at.place.start;
        if let Some(replaced) = self.next.insert(name.to_string(), at) {
            self.kept_bytes -= replaced.place.end - replaced.place.start;
        }
        if self.kept_bytes > self.cap {
            self.stop(Recording::Full);
        }
    }

    /// Writes the next pack's index (moving its entries down first when the unused ones are
    /// half as large), and returns the pack's size. Once, at the end of the run.
    pub fn finish(&mut self) -> Result<u64, String> {
        self.write_pending();
        let result = match self.recording {
            Recording::Failed => self.file.truncate(0).map(|()| 0),
            Recording::Full => self.write_index(0, &[], true),
            Recording::Yes => {
                let mut entries: Vec<(String, EntryAt)> = std::mem::take(&mut self.next).into_iter().collect();
                crate::order::sort_by_key(&mut entries, |(_, at)| at.place.start);
                // Nothing appended: the new index replaces the old one.
                let mut data_end = if self.end == self.old_size { self.old_index_at } else { self.end };
                if data_end - self.kept_bytes > self.kept_bytes / 2 {
                    data_end = self.compact(&mut entries)?;
                }
                let entries: Vec<IndexedEntry> = (entries.iter())
                    .map(|(name, at)| {
                        let length = at.place.end - at.place.start;
                        (name.as_str(), at.place.start, length, at.time, at.made)
                    })
                    .collect();
                self.write_index(data_end, &entries, false)
            }
        };
        // Not flushed to disk: a pack a crash cut short reads as damaged (its trailer, its
        // entries' checksums) and is written anew, while a flush held the worker after `done`
        // (0.69 s for a 600 MB folder's first visit).
        result
    }

    /// Moves the entries (in the order of their places) down to the pack's start; returns
    /// where they end.
    fn compact(&self, entries: &mut [(String, EntryAt)]) -> Result<u64, String> {
        let mut end = 0;
        for (_, EntryAt { place, .. }) in entries {
            let length = place.end - place.start;
            if place.start != end {
                let mut bytes = vec![0; length as usize];
                self.file.read_at(place.start, &mut bytes)?;
                self.file.write_at(end, &bytes)?;
                *place = end..end + length;
            }
            end += length;
        }
        Ok(end)
    }

    /// Writes the entries not written yet; a write the browser refuses stops the recording.
    fn write_pending(&mut self) {
        if self.recording() && !self.pending.is_empty() {
            let at = self.end - self.pending.len() as u64;
            if self.file.write_at(at, &self.pending).is_err() {
                self.stop(Recording::Failed);
            }
        }
        self.pending.clear();
    }

    /// Writes the index and trailer at `at`, and cuts the file there; returns its size.
    fn write_index(&self, at: u64, entries: &[IndexedEntry], full: bool) -> Result<u64, String> {
        let index =
            PackIndex { version: env!("CARGO_PKG_VERSION"), build: &self.build, full, entries: entries.to_vec() };
        let mut bytes = postcard::to_allocvec(&index).map_err(|error| error.to_string())?;
        bytes.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&MAGIC);
        self.file.write_at(at, &bytes)?;
        let size = at + bytes.len() as u64;
        self.file.truncate(size)?;
        Ok(size)
    }
}

/// The entries by name: the stores' (`StoreJob::read_through`) and the logs' (`engine`). A
/// log's time is kept beside its entry: its key leaves it out, for the browser gives a new
/// log's time only after the analysis (`Give::FilesAfterDone`).
impl EntryStore for PageCache {
    fn rules(&self) -> &EntryRules {
        &self.rules
    }

    /// Read from the pack; one the browser cannot read is a miss.
    fn get(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        let place = &self.stored.get(name)?.place;
        let mut bytes = vec![0; (place.end - place.start) as usize];
        self.file.read_at(place.start, &mut bytes).ok()?;
        Some(Cow::Owned(bytes))
    }

    fn time_beside(&self, name: &str) -> Option<i64> {
        self.stored.get(name)?.time
    }

    fn same_time(&self, name: &str, time: Option<i64>) -> bool {
        time.is_some() && self.time_beside(name) == time
    }

    fn used(&mut self, name: &str) {
        if let (true, Some(at)) = (self.recording(), self.stored.get(name).cloned()) {
            self.keep_at(name, at);
        }
    }

    /// Nothing is kept once the pack stopped recording.
    fn put(&mut self, name: &str, entry: &[u8], time: Option<i64>) {
        if !self.recording() {
            return;
        }
        let made = self.rules.made_for(entry).map(|(made_for, started_ms)| (made_for.size, started_ms));
        let place = self.end..self.end + entry.len() as u64;
        self.pending.extend_from_slice(entry);
        self.end = place.end;
        self.keep_at(name, EntryAt { place, time, made });
        if self.pending.len() >= WRITE_BYTES {
            self.write_pending();
        }
    }
}

impl PageCache {
    /// Whether the old pack has an entry of that name.
    pub fn has_entry(&self, name: &str) -> bool {
        self.stored.contains_key(name)
    }

    /// Whether the old pack's entry of that name can stand for its log unread, while the log's
    /// size and time are as then (`crate::cache::settled`); not when the log must be read
    /// whatever they are.
    pub fn can_stand_unread(&self, name: &str) -> bool {
        self.unread_stat(name).is_some()
    }

    /// Whether the old pack's entry of that name stands for its log, listed `now`, unread (the
    /// entry's own key says so again before it is used: `cache::look_up`).
    pub fn stands_unread(&self, name: &str, now: Stat) -> bool {
        self.unread_stat(name) == Some(now)
    }

    /// The size and time its log must still have for the old pack's entry of that name to
    /// stand for it unread.
    fn unread_stat(&self, name: &str) -> Option<Stat> {
        let EntryAt { time, made: Some((size, started_ms)), .. } = self.stored.get(name)? else { return None };
        // A browser's File gives no change time: the page's rule stands on size and time alone.
        let then = Stat { size: *size, modified_ms: *time, changed_ns: None };
        settled(then, *started_ms, then).then_some(then)
    }

    /// The bytes of the small file at `path` under `root`, listed `now`, from the entry an
    /// earlier run kept (`keep_file`) when it stands for the file unread; the next pack keeps
    /// it. None when the file is to be read (a damaged entry among them: the page reads the file).
    pub fn kept_file(&mut self, (root, path): (&str, &str), now: Stat) -> Option<Vec<u8>> {
        let name = entry_name(root, path, Purpose::File);
        if !self.stands_unread(&name, now) {
            return None;
        }
        let looked_up = look_up(self, Purpose::File, (root, path), Some(now), || None)?;
        let (key, entry) = (looked_up.key, looked_up.entry?);
        let ((), bytes) = self.rules.decode(&entry, &key, FILE_CONTEXT).ok()?;
        let bytes = bytes.to_vec();
        self.used(&name);
        self.tally.add(&CacheTally { cached: 1, cached_bytes: now.size, unread: 1, ..CacheTally::default() });
        Some(bytes)
    }

    /// Keeps the bytes of a small file read in this run, listed with its time, for the next
    /// (`kept_file`). One read as its entry has it (its time was too recent to stand unread)
    /// counts as from the cache; its entry is made again all the same, this run's start
    /// letting its time stand the next time.
    pub fn keep_file(&mut self, (root, path): (&str, &str), modified_ms: i64, bytes: &[u8]) {
        let key = FileKey::of_bytes(root, path, Some(modified_ms), bytes);
        let name = key.name(Purpose::File);
        let made_for = self.get(&name).and_then(|entry| self.rules.made_for(&entry));
        self.tally.add(&match made_for {
            Some((made_for, _)) if made_for == key => {
                CacheTally { cached: 1, cached_bytes: key.size, ..CacheTally::default() }
            }
            _ => CacheTally { parsed: 1, ..CacheTally::default() },
        });
        if let Some(entry) = self.rules.encode(&key, FILE_CONTEXT, &(), bytes) {
            self.put(&name, &entry, Some(modified_ms));
        }
    }
}

/// The context of a small file's entry: its bytes depend on nothing but the file.
const FILE_CONTEXT: u64 = 0;

/// What a pack holds.
enum Read {
    Empty,
    Entries {
        entries: HashMap<String, EntryAt>,
        index_at: u64,
        size: u64,
    },
    /// None: the input's outgrew the cap.
    Full,
}

/// The entries of the pack in `file`, or why it cannot be used. No length it gives is read
/// beyond the file's size or `cap` (the pack's entries' most: its index is far smaller), so
/// that a damaged pack makes the page allocate nothing it could not have written.
fn read_index(file: &dyn PackFile, build: &str, cap: u64) -> Result<Read, String> {
    let damaged = || "The cache kept in this browser is damaged: analysed anew.".to_string();
    let unreadable =
        |error: String| format!("The cache kept in this browser could not be read ({error}): analysed anew.");
    let size = file.size().map_err(unreadable)?;
    if size == 0 {
        return Ok(Read::Empty);
    }
    let mut trailer = [0; TRAILER_BYTES as usize];
    if size < TRAILER_BYTES {
        return Err(damaged());
    }
    file.read_at(size - TRAILER_BYTES, &mut trailer).map_err(unreadable)?;
    let (length, magic) = trailer.split_at(8);
    let length = u64::from_le_bytes(length.try_into().expect("eight bytes"));
    if magic != MAGIC && magic.starts_with(MAGIC_OF_ANY_FORMAT) {
        return Err(
            "The cache kept in this browser was written by another version of this page: analysed anew.".to_string()
        );
    }
    if magic != MAGIC || length > size - TRAILER_BYTES || length > cap {
        return Err(damaged());
    }
    let index_at = size - TRAILER_BYTES - length;
    let mut bytes = vec![0; length as usize];
    file.read_at(index_at, &mut bytes).map_err(unreadable)?;
    let index: PackIndex = postcard::from_bytes(&bytes).map_err(|_| damaged())?;
    if (index.version, index.build) != (env!("CARGO_PKG_VERSION"), build) {
        return Err(format!(
            "The cache kept in this browser was written by another version of this page ({} {}): analysed anew.",
            index.version, index.build
        ));
    }
    if index.full {
        return Ok(Read::Full);
    }
    let mut entries = HashMap::with_capacity(index.entries.len());
    for (name, start, length, time, made) in index.entries {
        let end = start.checked_add(length).filter(|end| *end <= index_at && length <= cap).ok_or_else(damaged)?;
        entries.insert(name.to_string(), EntryAt { place: start..end, time, made });
    }
    Ok(Read::Entries { entries, index_at, size })
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use super::*;
    use crate::analysis::Options;

    /// A pack file in memory, shared with the test that reads it afterwards; its writes are
    /// refused (as a browser out of quota does) while the second field is set.
    #[derive(Clone, Default)]
    struct Memory(Rc<RefCell<Vec<u8>>>, Rc<Cell<bool>>);

    impl PackFile for Memory {
        fn size(&self) -> Result<u64, String> {
            Ok(self.0.borrow().len() as u64)
        }
        fn read_at(&self, at: u64, buffer: &mut [u8]) -> Result<(), String> {
            let file = self.0.borrow();
            let bytes = file.get(at as usize..at as usize + buffer.len()).ok_or("past the end")?;
            buffer.copy_from_slice(bytes);
            Ok(())
        }
        fn write_at(&self, at: u64, bytes: &[u8]) -> Result<(), String> {
            if self.1.get() {
                return Err("QuotaExceededError".to_string());
            }
            let mut file = self.0.borrow_mut();
            let end = at as usize + bytes.len();
            if file.len() < end {
                file.resize(end, 0);
            }
            file[at as usize..end].copy_from_slice(bytes);
            Ok(())
        }
        fn truncate(&self, size: u64) -> Result<(), String> {
            self.0.borrow_mut().resize(size as usize, 0);
            Ok(())
        }
    }

    impl Memory {
        fn bytes(&self) -> Vec<u8> {
            self.0.borrow().clone()
        }
        fn holding(bytes: &[u8]) -> Memory {
            Memory(Rc::new(RefCell::new(bytes.to_vec())), Rc::default())
        }
    }

    fn cache_with_cap(file: &Memory, build: &str, cap: u64) -> PageCache {
        PageCache::new(Box::new(file.clone()), build, EntryRules::new(build, &Options::default(), 0), cap)
    }

    /// A run's cache that started at `started_ms`.
    fn started_at(file: &Memory, started_ms: i64) -> PageCache {
        PageCache::new(Box::new(file.clone()), "b", EntryRules::new("b", &Options::default(), started_ms), 1 << 20)
    }

    fn cache(file: &Memory, build: &str) -> PageCache {
        cache_with_cap(file, build, 1 << 20)
    }

    fn entry(cache: &PageCache, name: &str) -> Option<Vec<u8>> {
        cache.get(name).map(Cow::into_owned)
    }

    #[test]
    fn a_pack_keeps_the_entries_a_run_used_or_made_and_drops_the_others() {
        let file = Memory::default();
        let mut first = cache(&file, "build-1");
        assert!(first.problem.is_none() && entry(&first, "log-a").is_none());
        first.put("log-a", b"entry of a", None);
        first.put("log-b", b"entry of b", None);
        first.finish().expect("kept");

        let mut second = cache(&file, "build-1");
        assert_eq!(second.problem, None);
        assert_eq!(entry(&second, "log-a").as_deref(), Some(&b"entry of a"[..]));
        assert_eq!(entry(&second, "log-b").as_deref(), Some(&b"entry of b"[..]));
        // This run used a's entry and made c's; b's file is gone.
        second.used("log-a");
        second.put("log-c", b"entry of c", None);
        second.finish().expect("kept");

        let third = cache(&file, "build-1");
        assert_eq!(entry(&third, "log-a").as_deref(), Some(&b"entry of a"[..]));
        assert_eq!(entry(&third, "log-b"), None, "an entry no log used is dropped");
        assert_eq!(entry(&third, "log-c").as_deref(), Some(&b"entry of c"[..]));
    }

    #[test]
    fn a_log_s_time_is_kept_beside_its_entry_for_the_next_runs() {
        let file = Memory::default();
        let mut first = cache(&file, "build-1");
        first.put("log-a", b"entry of a", Some(5));
        first.put("log-b", b"entry of b", Some(7));
        first.put("log-c", b"entry of c", None);
        first.finish().expect("kept");

        let mut second = cache(&file, "build-1");
        assert!(second.has_entry("log-a") && !second.has_entry("log-gone"));
        let times = |cache: &PageCache| ["log-a", "log-b", "log-c"].map(|name| cache.time_beside(name));
        assert_eq!(times(&second), [Some(5), Some(7), None], "a time never given is none");
        second.used("log-a");
        second.put("log-b", b"entry of b grown", Some(8));
        second.used("log-c");
        second.finish().expect("kept");

        let third = cache(&file, "build-1");
        assert_eq!(times(&third), [Some(5), Some(8), None]);
        assert_eq!(entry(&third, "log-b").as_deref(), Some(&b"entry of b grown"[..]));
    }

    #[test]
    fn a_log_s_entry_stands_for_it_unread_by_its_size_and_time_once_its_time_was_settled_when_it_was_made() {
        use crate::cache::{Purpose, SETTLED_MS};
        let file = Memory::default();
        let started = 10 * SETTLED_MS;
        let made_at = |started_ms| started_at(&file, started_ms);
        let mut first = made_at(started);
        let key = |path: &str| FileKey::new("home", path, 40, None, b"head", b"tail");
        let settled_time = started - SETTLED_MS;
        for (path, time) in [("old", Some(settled_time)), ("recent", Some(settled_time + 1)), ("untimed", None)] {
            let entry = first.rules.encode(&key(path), 0, &(), &[]).unwrap();
            first.put(&key(path).name(Purpose::Analyze), &entry, time);
        }
        first.put("not-an-entry", b"bytes", None);
        first.finish().expect("kept");

        let second = made_at(started + SETTLED_MS);
        let unread = |path: &str| second.can_stand_unread(&key(path).name(Purpose::Analyze));
        assert!(unread("old"));
        assert!(!unread("recent"), "written a minute or less before the run that read it");
        assert!(!unread("untimed"));
        assert!(!second.can_stand_unread("not-an-entry"));
        let old = key("old").name(Purpose::Analyze);
        assert!(second.stands_unread(&old, Stat { size: 40, modified_ms: Some(settled_time), changed_ns: None }));
        assert!(!second.stands_unread(&old, Stat { size: 41, modified_ms: Some(settled_time), changed_ns: None }));
        let now = Stat { size: 40, modified_ms: Some(settled_time), changed_ns: None };
        let looked_up = |now| look_up(&second, Purpose::Analyze, ("home", "old"), Some(now), || None);
        let crate::cache::LookedUp { key: unread_key, entry, unread } = looked_up(now).expect("keyed unread");
        assert!(entry.is_some() && unread);
        assert_eq!(unread_key, key("old"), "the entry's own key, the file unread");
        let touched = Stat { modified_ms: Some(settled_time + 5), ..now };
        assert!(looked_up(touched).is_none(), "to be read: no key without reading it");
    }

    #[test]
    fn a_small_file_s_bytes_are_taken_unread_while_its_size_and_settled_time_are_as_kept() {
        use crate::cache::SETTLED_MS;
        let file = Memory::default();
        let started = 10 * SETTLED_MS;
        let made_at = |started_ms| started_at(&file, started_ms);
        let settled_time = started - SETTLED_MS;
        let mut first = made_at(started);
        let bytes = b"cwd: /work/app\n";
        let stat = |size: usize, time: i64| Stat { size: size as u64, modified_ms: Some(time), changed_ns: None };
        assert_eq!(first.kept_file(("home", "workspace.yaml"), stat(bytes.len(), settled_time)), None);
        first.keep_file(("home", "workspace.yaml"), settled_time, bytes);
        first.keep_file(("home", "recent.yaml"), settled_time + 1, bytes);
        assert_eq!(first.tally.parsed, 2);
        first.finish().expect("kept");

        let mut second = made_at(started + SETTLED_MS);
        let taken = second.kept_file(("home", "workspace.yaml"), stat(bytes.len(), settled_time));
        assert_eq!(taken.as_deref(), Some(&bytes[..]));
        assert_eq!((second.tally.cached, second.tally.unread, second.tally.cached_bytes), (1, 1, bytes.len() as u64));
        assert_eq!(second.kept_file(("home", "workspace.yaml"), stat(bytes.len() + 1, settled_time)), None, "grown");
        assert_eq!(second.kept_file(("home", "workspace.yaml"), stat(bytes.len(), settled_time + 5)), None, "touched");
        assert_eq!(
            second.kept_file(("other", "workspace.yaml"), stat(bytes.len(), settled_time)),
            None,
            "another root's"
        );
        let recent = second.kept_file(("home", "recent.yaml"), stat(bytes.len(), settled_time + 1));
        assert_eq!(recent, None, "written a minute or less before the run that kept it: read again");
        second.keep_file(("home", "recent.yaml"), settled_time + 1, bytes);
        assert_eq!((second.tally.parsed, second.tally.cached), (0, 2), "read again as it was kept");
        second.keep_file(("home", "changed.yaml"), settled_time, b"new");
        assert_eq!(second.tally.parsed, 1);
        second.finish().expect("kept");

        let mut third = made_at(started + 2 * SETTLED_MS);
        let again = third.kept_file(("home", "workspace.yaml"), stat(bytes.len(), settled_time));
        assert_eq!(again.as_deref(), Some(&bytes[..]), "the run that took it keeps it");
        let recent = third.kept_file(("home", "recent.yaml"), stat(bytes.len(), settled_time + 1));
        assert_eq!(recent.as_deref(), Some(&bytes[..]), "kept again by a run its time was settled for");
    }

    #[test]
    fn a_run_that_changed_nothing_leaves_the_pack_as_it_was_and_one_cut_back_keeps_the_old_pack() {
        let file = Memory::default();
        let mut first = cache(&file, "build-1");
        first.put("log-a", &[1; 100], None);
        first.put("log-b", &[2; 100], None);
        let size = first.finish().expect("kept");
        let pack = file.bytes();
        assert_eq!(size, pack.len() as u64);

        let mut unchanged = cache(&file, "build-1");
        unchanged.used("log-a");
        unchanged.used("log-b");
        assert_eq!(unchanged.finish(), Ok(size));
        assert_eq!(file.bytes(), pack, "the same pack, not a second index after the first");

        // A run that stopped before its end appended entries only: cut back, the old pack reads.
        let mut stopped = cache(&file, "build-1");
        stopped.put("log-a", &[3; 100], None);
        stopped.put("log-c", &[4; 100], None);
        assert_eq!(file.bytes()[..pack.len()], pack[..], "the old pack's bytes are untouched");
        file.truncate(size).expect("cut");
        let after = cache(&file, "build-1");
        assert_eq!((entry(&after, "log-a"), entry(&after, "log-c")), (Some(vec![1; 100]), None));
    }

    #[test]
    fn entries_no_file_uses_are_moved_out_once_half_as_large_as_the_kept_ones() {
        let file = Memory::default();
        let mut first = cache(&file, "build-1");
        for name in ["log-a", "log-b", "log-c", "log-d"] {
            first.put(name, &[name.as_bytes()[4]; 1000], None);
        }
        let full_size = first.finish().expect("kept");

        // b's log changed (its new entry is appended) and d's is gone: 2,000 unused bytes
        // against 3,000 kept, more than half: the kept entries move down.
        let mut second = cache(&file, "build-1");
        second.used("log-a");
        second.used("log-c");
        second.put("log-b", &[b'B'; 1000], None);
        let size = second.finish().expect("kept");
        assert!(size < full_size, "{size} against {full_size}");

        let third = cache(&file, "build-1");
        assert_eq!(entry(&third, "log-a"), Some(vec![b'a'; 1000]));
        assert_eq!(entry(&third, "log-b"), Some(vec![b'B'; 1000]));
        assert_eq!(entry(&third, "log-c"), Some(vec![b'c'; 1000]));
        assert_eq!(entry(&third, "log-d"), None);

        // One unused entry against three kept is left where it is.
        let mut fourth = cache(&file, "build-1");
        fourth.used("log-a");
        fourth.used("log-c");
        fourth.put("log-b", &[b'b'; 1000], None);
        assert!(fourth.finish().expect("kept") > size, "the old b stays until the unused ones are larger");
        assert_eq!(entry(&cache(&file, "build-1"), "log-b"), Some(vec![b'b'; 1000]));
    }

    #[test]
    fn entries_that_outgrow_the_cap_are_not_recorded_and_the_next_runs_record_none() {
        let file = Memory::default();
        let mut first = cache_with_cap(&file, "build-1", 100);
        first.put("log-a", &[1; 60], None);
        assert!(first.recording() && first.problem.is_none());
        first.put("log-b", &[2; 60], None);
        assert!(!first.recording(), "two entries are over 100 bytes");
        let problem = first.problem.clone().unwrap_or_default();
        assert!(problem.contains("more than the 0 MiB this browser's cache holds"), "{problem}");
        first.finish().expect("kept");

        let mut second = cache_with_cap(&file, "build-1", 100);
        assert!(!second.recording(), "the pack says the input outgrew the cap");
        assert_eq!(entry(&second, "log-a"), None);
        assert_eq!(second.problem, first.problem);
        second.put("log-a", &[1; 10], None);
        assert!(second.finish().expect("kept") < 60, "it holds no entry");
    }

    /// A pack of build-1 holding one entry.
    fn pack_of(name: &str, entry: &[u8]) -> Memory {
        let file = Memory::default();
        let mut first = cache(&file, "build-1");
        first.put(name, entry, None);
        first.finish().expect("kept");
        file
    }

    #[test]
    fn a_refused_write_stops_the_recording_not_the_reads_and_the_next_pack_is_empty() {
        let file = pack_of("log-a", b"entry of a");
        let mut second = cache_with_cap(&file, "build-1", 2 * WRITE_BYTES as u64);
        file.1.set(true);
        second.put("log-b", b"entry of b", None);
        assert!(second.recording(), "a small entry waits for more before it is written");
        second.put("log-c", &vec![b'c'; WRITE_BYTES], None);
        assert!(!second.recording() && second.in_use(), "not recording, still reading");
        assert!(second.problem.as_deref().unwrap_or_default().contains("refused"));
        assert_eq!(entry(&second, "log-a").as_deref(), Some(&b"entry of a"[..]), "the old entry still reads");
        file.1.set(false);
        assert_eq!(second.finish(), Ok(0), "nothing is kept of a run whose writes failed");
        assert!(file.bytes().is_empty(), "the next run starts a pack anew");

        // A write refused at the end, of the entries still waiting: the same.
        let file = pack_of("log-a", b"entry of a");
        let mut third = cache(&file, "build-1");
        third.put("log-b", b"entry of b", None);
        file.1.set(true);
        assert_eq!(third.finish(), Ok(0));
        assert!(third.problem.as_deref().unwrap_or_default().contains("refused"));
    }

    #[test]
    fn a_pack_of_another_build_or_a_damaged_one_is_dropped_whole_with_a_note() {
        let pack = pack_of("log-a", b"entry").bytes();

        let other = cache(&Memory::holding(&pack), "build-2");
        assert_eq!(entry(&other, "log-a"), None);
        let problem = other.problem.as_deref().unwrap_or_default();
        assert!(problem.contains("another version of this page") && problem.contains("build-1"), "{problem}");
        // A sentence: the page shows it after its cache line's, and alone in Diagnostics.
        assert!(
            problem.starts_with("The cache kept in this browser") && problem.ends_with(": analysed anew."),
            "{problem}"
        );
        let mut older_format = pack.clone();
        let at = older_format.len() - MAGIC.len();
        older_format[at..].copy_from_slice(b"CLpack02");
        let older = cache(&Memory::holding(&older_format), "build-1");
        assert_eq!(entry(&older, "log-a"), None);
        assert!(older.problem.as_deref().unwrap_or_default().contains("another version of this page"));

        let zeros = vec![0; 1 << 20];
        let followed_by_zeros = [&pack[..], &zeros].concat();
        for damaged in [&pack[..pack.len() - 2], &pack[2..], b"not a pack at all", &zeros, &followed_by_zeros] {
            let damaged = cache(&Memory::holding(damaged), "build-1");
            assert_eq!(entry(&damaged, "log-a"), None);
            let problem = damaged.problem.as_deref();
            assert_eq!(problem, Some("The cache kept in this browser is damaged: analysed anew."));
        }

        // It is written anew from its start.
        let rewritten = Memory::holding(b"not a pack at all, and a long one at that");
        let mut again = cache(&rewritten, "build-1");
        again.put("log-a", b"entry", None);
        again.finish().expect("kept");
        assert_eq!(rewritten.bytes(), pack);
    }

    /// A pack of build-1 holding `data`, then an index of `entries` and its `count` of them.
    fn pack_with_index(data: &[u8], entries: Vec<IndexedEntry>, count: Option<u64>) -> Memory {
        let index = PackIndex { version: env!("CARGO_PKG_VERSION"), build: "build-1", full: false, entries };
        let mut index = postcard::to_allocvec(&index).unwrap();
        if let Some(count) = count {
            // The entries' count is the index's last bytes when it holds none.
            assert_eq!(index.pop(), Some(0));
            index.extend_from_slice(&postcard::to_allocvec(&count).unwrap());
        }
        let length = (index.len() as u64).to_le_bytes();
        Memory::holding(&[data, &index, &length, &MAGIC].concat())
    }

    #[test]
    fn a_pack_whose_lengths_lie_is_dropped_as_damaged_before_they_are_read() {
        let data = [7; 60];
        let honest = pack_with_index(&data, vec![("log-a", 0, 60, None, None)], None);
        assert_eq!(entry(&cache(&honest, "build-1"), "log-a"), Some(vec![7; 60]));
        let lies = [
            ("an entry past the index", pack_with_index(&data, vec![("log-a", 0, 61, None, None)], None), 1 << 20),
            ("an entry past any file", pack_with_index(&data, vec![("log-a", 1, u64::MAX, None, None)], None), 1 << 20),
            ("an entry longer than the cap", honest.clone(), 50),
            ("more entries than bytes", pack_with_index(&data, vec![], Some(u64::MAX >> 1)), 1 << 20),
        ];
        let small_entries =
            vec![("log-a", 0, 5, None, None), ("log-b", 5, 5, None, None), ("log-c", 10, 5, None, None)];
        let lies =
            lies.into_iter().chain([("an index longer than the cap", pack_with_index(&data, small_entries, None), 20)]);
        for (case, pack, cap) in lies {
            let damaged = cache_with_cap(&pack, "build-1", cap);
            assert_eq!(entry(&damaged, "log-a"), None, "{case}");
            assert!(
                damaged.problem.as_deref().unwrap_or_default().contains("damaged"),
                "{case}: {:?}",
                damaged.problem
            );
        }
        let mut trailer_lies = pack_of("log-a", b"entry").bytes();
        let at = trailer_lies.len() - 16;
        trailer_lies[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        let damaged = cache(&Memory::holding(&trailer_lies), "build-1");
        assert!(damaged.problem.as_deref().unwrap_or_default().contains("damaged"), "an index longer than the pack");
    }
}
