//! The cache of what parsing an event log gave, so that a run over logs that did not change
//! reads their entries instead of their bytes (issue 26).
//!
//! The core keeps no store and does no I/O. Its one seam with storage is [`EntryStore`]: where
//! a run's entries live (a folder natively, the page's OPFS pack) and the [`EntryRules`] they are
//! made for. A caller looks a file up ([`look_up`], the one rule of "is this file as its entry
//! was made for?": its [`FileKey`] from its listing, or its first and last [`ENDS_BYTES`]
//! read), then hands the job to `replay`, the one place entries are replayed and made: the
//! entry's rows and outcome go through the same tally and sink as a parse's would. A log that
//! only grew since its entry was made (its bytes up to the entry's size hash, all of them, as
//! the entry's parse read them: [`FileKey::grew_from`], [`Stopped`]) is replayed and then
//! parsed on from where the entry's parse stopped, with the parser's state as it was there
//! (`Source::resume_log`; a source that cannot go on, VS Code's, has its log parsed whole).
//! Otherwise the log is parsed whole while recording, and its entry put.
//!
//! A store (a SQLite main file and its `-wal`) is cached as what its read gave
//! (`StoreJob::read_through`): the entry is made for the main file's key (the log's when there
//! is no main file), and its context holds the log's key, so that a store whose log grew is
//! read again whole. The caller gives the files' keys and its store as a [`StoreCache`].
//!
//! A file whose size and times are as when its entry was made, and whose modification time was
//! already [`SETTLED_MS`] old when the run that made the entry started, is taken to be as it was
//! without reading it ([`settled`], [`EntryRules::key_if_unchanged`]): its key is its entry's. A
//! file written after it was read gets a later time, however coarse its file system's clock
//! (git trusts its index, and rsync a copy, on the same two facts). A file rewritten with its
//! size kept and its modification time set back by hand is told natively on unix by its
//! inode's change time ([`Stat::changed_ns`]), which no tool sets back; the page has no such
//! time (a browser's File gives only its modification time), nor has Windows in Rust's std:
//! there the rule stands on the size and modification time alone. A file whose time is recent
//! is read and its ends hashed, so one rewritten in the same second as it was read is still
//! told.
//!
//! An entry ([`entry`]) is a header (format, the tool's version, the caller's build identity,
//! the length and a checksum of the rest), then the key of the file it was made from, the
//! context its rows were made in (the log's fallbacks, the options) and what parsing gave. An
//! entry of another version or build, or a damaged one (its length not its header's, its
//! checksum another), is ignored with a `cache_ignored` diagnostic; a key or context that
//! differs (a changed file, a changed workspace) is a plain miss. Either way the file is parsed:
//! the cache is never a reason for a different output.

pub mod entry;
mod replay;

use std::borrow::Cow;
use std::io::{self, Read};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{Xxh3, xxh3_64, xxh3_64_with_seed};

pub use entry::EntryRules;
pub(crate) use entry::Miss;

use crate::input::{ReadAt, Stat};
use crate::sources::log::LogEnd;

/// How many bytes of a file's start and of its end its key hashes.
pub const ENDS_BYTES: usize = 64 << 10;

/// How long before a run started a file's time must be for the file's size and time alone to
/// stand for its bytes in later runs: beyond any file system's time granularity (FAT's two
/// seconds) and a file server's clock a little off this machine's.
pub const SETTLED_MS: i64 = 60_000;

/// Whether a file listed `now` is the file listed `then` by a run that started at
/// `started_ms` (both by the caller's clock), unread: the same size and times, and a
/// modification time [`SETTLED_MS`] older than that run, so that any write since would have
/// changed it (or, set back by hand, changed the change time).
pub fn settled(then: Stat, started_ms: i64, now: Stat) -> bool {
    then == now && then.modified_ms.is_some_and(|modified| modified <= started_ms - SETTLED_MS)
}

/// A file as the cache knows it: where it is (its root's identity and its path under it), and
/// what says it did not change (size, times, a hash of each of its two ends).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileKey {
    /// The root's identity, as the caller names it (natively its canonical path).
    pub root: String,
    pub path: String,
    pub size: u64,
    pub modified_ms: Option<i64>,
    /// [`Stat::changed_ns`]: none from [`FileKey::new`], the caller sets it where it has one.
    pub changed_ns: Option<i64>,
    /// xxh3 of the first [`ENDS_BYTES`] and of the last (the whole file when it is shorter),
    /// apart: a file changed near either end is told without reading it whole (one that grew
    /// is told by all of its old part, `grew_from`).
    pub head: u64,
    pub tail: u64,
}

/// What an entry is for: a log's in a whole analysis, or in a usage-only run (counter lines
/// only); a store's read (`StoreJob::read_through`) in a whole analysis, or in a usage-only run
/// (its per-call rows only). The two runs keep apart entries, so that neither replaces the other's.
/// `File` keeps a small file's bytes as they are (the page's, `PageCache::kept_file`: a browser
/// charges a read per file, whatever its size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Analyze,
    Usage,
    Store,
    StoreUsage,
    File,
}

impl FileKey {
    /// The key of a file from its `head` (its first `ENDS_BYTES`, or all of it) and `tail` (its
    /// last `ENDS_BYTES`, or all of it).
    pub fn new(root: &str, path: &str, size: u64, modified_ms: Option<i64>, head: &[u8], tail: &[u8]) -> FileKey {
        let (head, tail) = (xxh3_64(head), xxh3_64(tail));
        FileKey { root: root.to_string(), path: path.to_string(), size, modified_ms, changed_ns: None, head, tail }
    }

    /// Whether this file is `before`'s file grown since: longer, and its bytes up to `before`'s
    /// size, every one, hash as `seen` (what the entry's parse read of them: [`Stopped`]), so
    /// that an edit anywhere in them, even one that kept their length, is told. Gives their
    /// hash going on, for the bytes parsed after them (`LogTask::resume`). `file` reads this
    /// file's bytes (the caller's reader: the core does no I/O), each of those once, a chunk at
    /// a time. An empty file never grew into another: a log is read from its start to tell
    /// UTF-16 text.
    pub fn grew_from(&self, before: &FileKey, seen: u64, file: &mut dyn ReadAt) -> Option<Prefix> {
        let longer = before.size > 0 && self.size > before.size;
        if !longer || (&self.root, &self.path) != (&before.root, &before.path) {
            return None;
        }
        let mut prefix = Prefix::default();
        let mut chunk = vec![0; before.size.min(HASHED_CHUNK_BYTES) as usize];
        while prefix.length < before.size {
            let wanted = (before.size - prefix.length).min(HASHED_CHUNK_BYTES) as usize;
            match file.read_at(prefix.length, &mut chunk[..wanted]) {
                Ok(count) if count == wanted => prefix.update(&chunk[..count]),
                _ => return None,
            }
        }
        (prefix.hasher.digest() == seen).then_some(prefix)
    }

    /// The key of a file of `size` bytes from its two ends, read from `file` (the caller's
    /// reader: the core does no I/O). None when they cannot be read whole.
    pub fn read_ends(
        (root, path): (&str, &str),
        size: u64,
        modified_ms: Option<i64>,
        file: &mut dyn ReadAt,
    ) -> Option<FileKey> {
        let mut head = vec![0; ENDS_BYTES.min(size as usize)];
        (file.read_at(0, &mut head).ok()? == head.len()).then_some(())?;
        let tail = if size as usize <= ENDS_BYTES {
            head.clone()
        } else {
            let mut tail = vec![0; ENDS_BYTES];
            (file.read_at(size - ENDS_BYTES as u64, &mut tail).ok()? == ENDS_BYTES).then_some(())?;
            tail
        };
        Some(FileKey::new(root, path, size, modified_ms, &head, &tail))
    }

    /// The key of a file read whole: its size and ends from its `bytes`.
    pub fn of_bytes(root: &str, path: &str, modified_ms: Option<i64>, bytes: &[u8]) -> FileKey {
        let head = &bytes[..bytes.len().min(ENDS_BYTES)];
        let tail = if bytes.len() <= ENDS_BYTES { head } else { &bytes[bytes.len() - ENDS_BYTES..] };
        FileKey::new(root, path, bytes.len() as u64, modified_ms, head, tail)
    }

    /// The name of the file's entry in a store (`entry_name`).
    pub fn name(&self, purpose: Purpose) -> String {
        entry_name(&self.root, &self.path, purpose)
    }
}

/// How much of a grown log's old part is read at a time to be hashed.
const HASHED_CHUNK_BYTES: u64 = 256 << 10;

/// The xxh3 of a log's first bytes, taken as they are read ([`Hashing`]): what an entry keeps
/// of the bytes its parse read ([`Stopped`]).
#[derive(Clone, Default)]
pub struct Prefix {
    /// Boxed: its state is most of a kilobyte, moved along with a grown log's entry.
    hasher: Box<Xxh3>,
    /// How many bytes were hashed.
    length: u64,
}

impl Prefix {
    /// The hash of `bytes`, whole.
    pub fn of(bytes: &[u8]) -> Prefix {
        let mut prefix = Prefix::default();
        prefix.update(bytes);
        prefix
    }

    fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.length += bytes.len() as u64;
    }

    /// Where a parse stopped, with the hash of the bytes before there, when those are the
    /// bytes hashed (a parse that stopped before the end of what it read, or a file that grew
    /// while it was read, gives none: its log is parsed whole next time).
    pub fn stopped_at(&self, end: LogEnd) -> Option<Stopped> {
        (self.length == end.at.offset).then(|| Stopped { end, seen: self.hasher.digest() })
    }
}

/// A reader that adds what it reads to a [`Prefix`].
pub(crate) struct Hashing<'p, R> {
    inner: R,
    prefix: &'p mut Prefix,
}

impl<'p, R: Read> Hashing<'p, R> {
    pub(crate) fn new(inner: R, prefix: &'p mut Prefix) -> Self {
        Hashing { inner, prefix }
    }
}

impl<R: Read> Read for Hashing<'_, R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(buffer)?;
        self.prefix.update(&buffer[..count]);
        Ok(count)
    }
}

/// Where a log's parse stopped (at the end of the bytes its entry was made from), with the xxh3
/// of every byte before there: a parse of the log grown goes on from there only while those
/// bytes still hash so ([`FileKey::grew_from`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    pub end: LogEnd,
    pub seen: u64,
}

/// The name of the entry of the file at `path` under `root`: the same whatever the file's
/// content, so that a changed file's entry replaces the old one.
pub fn entry_name(root: &str, path: &str, purpose: Purpose) -> String {
    let prefix = match purpose {
        Purpose::Analyze => "log",
        Purpose::Usage => "usage",
        Purpose::Store => "store",
        Purpose::StoreUsage => "store-usage",
        Purpose::File => "file",
    };
    let place = xxh3_64_with_seed(path.as_bytes(), xxh3_64(root.as_bytes()));
    format!("{prefix}-{place:016x}")
}

impl EntryRules {
    /// The key of the file at `path` under `root`, listed `now`, when its `entry` (the one
    /// kept under the file's name) was made for it as it still is ([`settled`]): the entry's
    /// own key, the file unread. `time_beside` is the file's time where its store keeps it
    /// beside the entry, not in its key (the page's pack, [`EntryStore::time_beside`]). None when the
    /// file must be read to be keyed.
    pub fn key_if_unchanged(
        &self,
        entry: &[u8],
        (root, path): (&str, &str),
        now: Stat,
        time_beside: Option<i64>,
    ) -> Option<FileKey> {
        let (made_for, started_ms) = self.made_for(entry)?;
        let same_file = (made_for.root.as_str(), made_for.path.as_str()) == (root, path);
        let modified_ms = made_for.modified_ms.or(time_beside);
        let then = Stat { size: made_for.size, modified_ms, changed_ns: made_for.changed_ns };
        (same_file && settled(then, started_ms, now)).then_some(made_for)
    }
}

/// A file's key and its entry in its store, looked up before the file is worked on
/// ([`look_up`]).
pub struct LookedUp {
    pub key: FileKey,
    pub entry: Option<Vec<u8>>,
    /// The key is the entry's, the file unread (`EntryRules::key_if_unchanged`).
    pub unread: bool,
}

/// The cache's one rule for a file before it is read: the file at `path` under the root `root`
/// names, listed `now` (none when its listing gave no size or time), and its entry for
/// `purpose` in `store`; its key is the entry's when the file is as the entry was made for
/// ([`settled`]: it is not read), else `read_key`'s (its two ends read). Whether a log that
/// changed only grew is told from its bytes, when its entry is opened (`FileKey::grew_from`).
/// None when the file cannot be keyed.
pub fn look_up(
    store: &dyn EntryStore,
    purpose: Purpose,
    (root, path): (&str, &str),
    now: Option<Stat>,
    read_key: impl FnOnce() -> Option<FileKey>,
) -> Option<LookedUp> {
    let name = entry_name(root, path, purpose);
    let entry = store.get(&name).map(Cow::into_owned);
    let unchanged = entry
        .as_deref()
        .zip(now)
        .and_then(|(entry, now)| store.rules().key_if_unchanged(entry, (root, path), now, store.time_beside(&name)));
    let (key, unread) = match unchanged {
        Some(key) => (key, true),
        None => (read_key()?, false),
    };
    Some(LookedUp { key, entry, unread })
}

/// Where a run's entries live, and what they must agree with: natively the cache folder for
/// one run (the CLI's `FolderRun`), in the page its pack (`PageCache`). The cache's one seam
/// with storage: the replay (`replay`) and the rule ([`look_up`]) reach entries only through it.
pub trait EntryStore {
    /// What the run's entries are made for and checked against.
    fn rules(&self) -> &EntryRules;
    /// The entry of that name, if there is one.
    fn get(&self, name: &str) -> Option<Cow<'_, [u8]>>;
    /// The time of the file the entry of that name was made for, where the store keeps it
    /// beside the entry and not in its key (the page's pack: a log's entry is made before the
    /// browser gives the log's time), if it has it.
    fn time_beside(&self, _name: &str) -> Option<i64> {
        None
    }
    /// Whether a file of `time` has the time the entry of that name was made at: always where
    /// the key holds the time. An entry of another time serves only a log that grew.
    fn same_time(&self, _name: &str, _time: Option<i64>) -> bool {
        true
    }
    /// The entry of that name served this run as it is (the page's next pack keeps it).
    fn used(&mut self, _name: &str) {}
    /// Keeps an entry under that name, replacing any; `time` is its file's, for a store that
    /// keeps it beside the entry.
    fn put(&mut self, name: &str, entry: &[u8], time: Option<i64>);
}

/// The stores read through the cache (an `analysis::StoreReading`): what that needs from the
/// caller, and what it did (`StoreJob::read_through`).
pub struct StoreCache<'a> {
    /// A file's key by its root and listed path; none for a file the cache does not know (a
    /// zip's entry), whose store is then read as without a cache.
    pub key_of: &'a dyn Fn(usize, &str) -> Option<FileKey>,
    pub entries: &'a mut dyn EntryStore,
    /// What the cache did for the stores read through it.
    pub tally: CacheTally,
}

impl<'a> StoreCache<'a> {
    pub fn new(key_of: &'a dyn Fn(usize, &str) -> Option<FileKey>, entries: &'a mut dyn EntryStore) -> Self {
        StoreCache { key_of, entries, tally: CacheTally::default() }
    }
}

/// What the cache did for logs and stores (a store, main file and log, counts as one file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheTally {
    /// Logs parsed whole and stores read (no entry, or one that could not be used).
    pub parsed: u64,
    /// Logs and stores taken from their entries, and their size.
    pub cached: u64,
    pub cached_bytes: u64,
    /// Of those, the logs not read at all: their size and time were as their entries were
    /// made for ([`settled`]).
    pub unread: u64,
    /// Logs that grew since their entries were made: replayed, then parsed from where their
    /// entries ended; and the bytes parsed after those ends.
    pub resumed: u64,
    pub resumed_bytes: u64,
}

impl CacheTally {
    pub fn add(&mut self, other: &CacheTally) {
        self.parsed += other.parsed;
        self.cached += other.cached;
        self.cached_bytes += other.cached_bytes;
        self.unread += other.unread;
        self.resumed += other.resumed;
        self.resumed_bytes += other.resumed_bytes;
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use super::*;
    use crate::analysis::{LogInput, LogQueue, Options, Parsing, Planned};
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::{OwnedRow, RowSink};
    use crate::usage::summary::{DayRange, GroupBy};

    const LOG: &str = ".copilot/session-state/00000001-0000-4000-8000-000000000000/events.jsonl";

    #[derive(Default)]
    struct MapStore(RefCell<HashMap<String, Vec<u8>>>);

    /// A [`MapStore`] as one run's store: its entries made for `rules`; `same_time` says
    /// whether each log has the time its entry was made at, as the page's pack keeps it.
    struct MapRun<'a> {
        map: &'a MapStore,
        rules: EntryRules,
        same_time: bool,
    }

    impl EntryStore for MapRun<'_> {
        fn rules(&self) -> &EntryRules {
            &self.rules
        }
        fn get(&self, name: &str) -> Option<Cow<'_, [u8]>> {
            self.map.0.borrow().get(name).cloned().map(Cow::Owned)
        }
        fn same_time(&self, _: &str, _: Option<i64>) -> bool {
            self.same_time
        }
        fn put(&mut self, name: &str, entry: &[u8], _: Option<i64>) {
            self.map.0.borrow_mut().insert(name.to_string(), entry.to_vec());
        }
    }

    fn said(text: &str, at: &str) -> String {
        let line = serde_json::json!({"type": "user.message", "id": at, "data": {"content": text}, "timestamp": at});
        format!("{line}\n")
    }

    /// One analysis of the roots through `store`: its rows, its other outputs (the report,
    /// sessions, inventory and usage by session, as JSON) and what the cache did.
    fn analyze(reader: &mut MemoryRoots, store: &MapStore) -> (Vec<OwnedRow>, String, CacheTally) {
        analyze_into::<Vec<OwnedRow>>(reader, store, |rows| rows, true)
    }

    /// `analyze`, the logs' rows into an `R` each, as `R` keeps them (`rows_of`); the store says
    /// whether each log has its entry's time (`EntryStore::same_time`).
    fn analyze_into<R: RowSink + Default>(
        reader: &mut MemoryRoots,
        store: &MapStore,
        rows_of: fn(R) -> Vec<OwnedRow>,
        same_time: bool,
    ) -> (Vec<OwnedRow>, String, CacheTally) {
        let planned = Planned::new(reader.listings(), Options::default()).unwrap();
        let mut parsing = planned.read_metadata(reader);
        let (mut rows, tally) = through_logs::<R>(reader, store, &mut parsing, rows_of, same_time);
        let outputs = parsing.finish(reader, &mut rows);
        let usage = outputs.usage.table(GroupBy::Session, DayRange::default());
        let json = serde_json::json!({
            "report": outputs.report,
            "sessions": outputs.sessions,
            "inventory": outputs.inventory,
            "usage": usage,
        });
        (rows, json.to_string(), tally)
    }

    /// The logs of `parsing` through `store`, each into an `R`: the rows as `R` keeps them
    /// (`rows_of`), and what the cache did.
    fn through_logs<R: RowSink + Default>(
        reader: &mut MemoryRoots,
        store: &MapStore,
        parsing: &mut Parsing,
        rows_of: fn(R) -> Vec<OwnedRow>,
        same_time: bool,
    ) -> (Vec<OwnedRow>, CacheTally) {
        let rules = EntryRules::new("test", &Options::default(), 0);
        let mut queue = LogQueue::<R>::new(parsing);
        let (mut rows, mut tally) = (Vec::new(), CacheTally::default());
        while let Some(job) = queue.next_job(parsing, 1) {
            let root = reader.listings()[job.task.root].label.clone();
            let bytes = reader.0[job.task.root].files[&job.task.listed_path].0.to_vec();
            let key = FileKey::of_bytes(&root, &job.task.listed_path, Some(0), &bytes);
            let (name, options, mut kept) = (key.name(Purpose::Analyze), parsing.options().clone(), R::default());
            let entry = store.0.borrow().get(&name).cloned();
            let mut run = MapRun { map: store, rules: rules.clone(), same_time };
            let looked_up = LookedUp { key, entry, unread: false };
            let (parsed, done) =
                job.through_store(&mut run, looked_up, None, LogInput::Bytes(&bytes), &options, &mut kept);
            assert!(store.0.borrow().contains_key(&name), "an entry kept for {name}");
            tally.add(&done);
            rows.extend(queue.take_back(parsing, parsed, kept).rows.into_iter().flat_map(rows_of));
        }
        (rows, tally)
    }

    /// What the cache did: (parsed whole, replayed, grown and parsed on).
    fn did(tally: &CacheTally) -> (u64, u64, u64) {
        (tally.parsed, tally.cached, tally.resumed)
    }

    #[test]
    fn a_file_is_unchanged_by_its_size_and_time_only_when_its_time_was_settled_before_its_entry_was_made() {
        let started = 1_000_000;
        let stat = |size, modified| Stat { size, modified_ms: Some(modified), changed_ns: None };
        let settled_time = started - SETTLED_MS;
        assert!(settled(stat(10, settled_time), started, stat(10, settled_time)));
        assert!(!settled(stat(10, settled_time + 1), started, stat(10, settled_time + 1)), "recent when read");
        assert!(!settled(stat(10, 5), started, stat(11, 5)), "another size");
        assert!(!settled(stat(10, 5), started, stat(10, 6)), "another time");
        let untimed = Stat { size: 10, modified_ms: None, changed_ns: None };
        assert!(!settled(untimed, started, untimed), "no time");
        let changed = |ns| Stat { changed_ns: Some(ns), ..stat(10, settled_time) };
        assert!(settled(changed(7), started, changed(7)), "the same change time");
        assert!(!settled(changed(7), started, changed(8)), "rewritten, its size and time put back");

        let rules = EntryRules::new("test", &Options::default(), started);
        let key = FileKey::new("home", "log", 10, Some(5), b"head", b"tail");
        let entry = rules.encode(&key, 0, &(), &[]).unwrap();
        assert_eq!(rules.key_if_unchanged(&entry, ("home", "log"), stat(10, 5), None), Some(key.clone()));
        assert_eq!(rules.key_if_unchanged(&entry, ("home", "other"), stat(10, 5), None), None, "another file's");
        assert_eq!(rules.key_if_unchanged(&entry, ("home", "log"), stat(10, 6), None), None, "touched");
        let changed_key = FileKey { changed_ns: Some(7), ..key.clone() };
        let changed_entry = rules.encode(&changed_key, 0, &(), &[]).unwrap();
        let now = Stat { changed_ns: Some(7), ..stat(10, 5) };
        assert_eq!(rules.key_if_unchanged(&changed_entry, ("home", "log"), now, None), Some(changed_key));
        let rewritten = Stat { changed_ns: Some(8), ..now };
        assert_eq!(rules.key_if_unchanged(&changed_entry, ("home", "log"), rewritten, None), None, "times put back");
        let other_build = EntryRules::new("other", &Options::default(), started);
        assert_eq!(other_build.key_if_unchanged(&entry, ("home", "log"), stat(10, 5), None), None);
        // The page's pack keeps a log's time beside its entry.
        let untimed_key = FileKey { modified_ms: None, ..key };
        let entry = rules.encode(&untimed_key, 0, &(), &[]).unwrap();
        assert_eq!(rules.key_if_unchanged(&entry, ("home", "log"), stat(10, 5), Some(5)), Some(untimed_key));
        assert_eq!(rules.key_if_unchanged(&entry, ("home", "log"), stat(10, 5), None), None);
    }

    #[test]
    fn an_entry_longer_or_shorter_than_its_header_says_is_ignored_with_its_diagnostic() {
        let log = said("hello", "2026-10-01T09:00:00.000Z") + &said("again", "2026-10-01T09:01:00.000Z");
        let store = MapStore::default();
        let cold = analyze(&mut home_with(&log), &store);
        let (name, made) = store.0.borrow().iter().next().map(|(name, entry)| (name.clone(), entry.clone())).unwrap();
        assert_eq!(entry::stated_length(&made[..made.len().min(entry::HEADER_BYTES_AT_MOST)]), Some(made.len() as u64));
        let padded = [made.clone(), vec![0; 1 << 20]].concat();
        let cut = made[..made.len() - 1].to_vec();
        for (case, spoilt) in [("padded with zeros", padded), ("cut", cut)] {
            assert_ne!(entry::stated_length(&spoilt), Some(spoilt.len() as u64), "{case}");
            store.0.borrow_mut().insert(name.clone(), spoilt);
            let cached = analyze(&mut home_with(&log), &store);
            assert_eq!(did(&cached.2), (1, 0, 0), "{case}: parsed whole");
            assert_eq!(cached.0, cold.0, "{case}: the rows");
            assert!(cached.1.contains("cache_ignored"), "{case}: {}", cached.1);
            assert!(cached.1.contains("the cache's entry is damaged (its length is not its header's)"), "{case}");
        }
    }

    #[test]
    fn replayed_copies_give_only_the_rows_the_copies_before_lacked_as_their_parse_did() {
        copies_replayed_as_parsed::<Vec<OwnedRow>>(|rows| rows);
        // The page's table, whose entries keep a text's start and its key.
        copies_replayed_as_parsed::<crate::page::table::RowTable>(|table| {
            (0..table.len() as u32).filter_map(|index| table.row(index)).collect()
        });
    }

    fn copies_replayed_as_parsed<R: RowSink + Default>(rows_of: fn(R) -> Vec<OwnedRow>) {
        let analyze = |reader: &mut MemoryRoots, store: &MapStore| analyze_into::<R>(reader, store, rows_of, true);
        // The same session in two homes: the second copy has one line more.
        let (mut first, mut later) = (MemoryRoot::new("a"), MemoryRoot::new("b"));
        let hello = said("hello ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "2026-10-01T09:00:00.000Z");
        first.insert(LOG, hello.clone(), Some(0));
        later.insert(LOG, hello.clone() + &said("again", "2026-10-01T09:01:00.000Z"), Some(0));
        let mut reader = MemoryRoots(vec![first, later]);
        let store = MapStore::default();
        let cold = analyze(&mut reader, &store);
        assert_eq!(did(&cold.2), (2, 0, 0));
        assert_eq!(cold.0.len(), 2, "hello once, again once: {:?}", cold.0);
        assert!(!cold.0[0].text.contains("ghp_"), "scrubbed: {}", cold.0[0].text);
        let cached = analyze(&mut reader, &store);
        assert_eq!(did(&cached.2), (0, 2, 0), "both from the cache");
        assert_eq!((cached.0, cached.1), (cold.0, cold.1));

        // The later copy grows: parsed on from its end, still checked against the first copy.
        let grown = hello + &said("again", "2026-10-01T09:01:00.000Z") + &said("more", "2026-10-01T09:02:00.000Z");
        reader.0[1].insert(LOG, grown, Some(1));
        let resumed = analyze(&mut reader, &store);
        assert_eq!(did(&resumed.2), (0, 1, 1));
        let cold = analyze(&mut reader, &MapStore::default());
        assert_eq!(cold.0.len(), 3, "hello, again and more once each: {:?}", cold.0);
        assert_eq!((resumed.0, resumed.1), (cold.0, cold.1));
    }

    /// The rows of one analysis's logs through `store` into `R`, as `R` keeps them.
    fn kept_through<R: RowSink + Default>(
        reader: &mut MemoryRoots,
        store: &MapStore,
        rows_of: fn(R) -> Vec<OwnedRow>,
    ) -> (Vec<OwnedRow>, CacheTally) {
        let mut parsing = Planned::new(reader.listings(), Options::default()).unwrap().read_metadata(reader);
        through_logs(reader, store, &mut parsing, rows_of, true)
    }

    #[test]
    fn a_sink_that_keeps_a_long_text_s_start_gets_that_start_scrubbed_and_its_entry_keeps_only_that() {
        use crate::page::table::{INLINE_TEXT, RowTable};
        let table_rows = |table: RowTable| (0..table.len() as u32).filter_map(|index| table.row(index)).collect();
        let all_rows = |rows: Vec<OwnedRow>| rows;
        // Secrets at the start, in reach of it, and far past it.
        let long = format!("ghp_{} {} GITHUB_TOKEN=abc123def", "a".repeat(36), "lorem ".repeat(2000));
        let mut home = MemoryRoot::new("home");
        home.insert(LOG, said(&long, "2026-10-01T09:00:00.000Z"), Some(0));
        let mut reader = MemoryRoots(vec![home]);
        let whole = crate::scrub::scrub(&long).0;

        let store = MapStore::default();
        let cold = kept_through::<RowTable>(&mut reader, &store, table_rows);
        assert_eq!(did(&cold.1), (1, 0, 0));
        assert_eq!(cold.0.len(), 1);
        assert!(cold.0[0].text.len() <= INLINE_TEXT && whole.starts_with(&cold.0[0].text), "{}", cold.0[0].text);
        assert!(cold.0[0].text.starts_with("[redacted] lorem"));
        // Its entry keeps only the start of the scrubbed text the table keeps; one made for a
        // sink that keeps texts whole keeps the text and the scrubber's text of it.
        let whole_kept = MapStore::default();
        kept_through::<Vec<OwnedRow>>(&mut reader, &whole_kept, all_rows);
        let size = |store: &MapStore| store.0.borrow().values().map(Vec::len).sum::<usize>();
        assert!(
            size(&store) + 2 * (long.len() - INLINE_TEXT) < size(&whole_kept),
            "{} and {}",
            size(&store),
            size(&whole_kept)
        );
        let replayed = kept_through::<RowTable>(&mut reader, &store, table_rows);
        assert_eq!(did(&replayed.1), (0, 1, 0));
        assert_eq!(replayed.0, cold.0);

        // A sink that keeps whole texts cannot use that entry: the log is parsed again.
        let all = kept_through::<Vec<OwnedRow>>(&mut reader, &store, all_rows);
        assert_eq!(did(&all.1), (1, 0, 0));
        assert_eq!(all.0[0].text, whole);
        assert!(whole.ends_with("GITHUB_TOKEN=[redacted]"));
    }

    /// A line of the log, its data given as JSON.
    fn event(kind: &str, at: &str, data: serde_json::Value) -> String {
        let line = serde_json::json!({"type": kind, "id": format!("{kind}-{at}"), "data": data, "timestamp": at});
        format!("{line}\n")
    }

    /// A log in two parts, the second appended to the first, whose lines change what the
    /// parser carries: a session started, a skill asked for, tool calls (one an MCP server's)
    /// requested and started, a model chosen, a permission mode set, counters; then the calls'
    /// results, the skill invoked, a reply in the model chosen, more counters. Past 64 KiB
    /// before and after, so that its two ends are apart.
    fn log_in_two_parts() -> (String, String) {
        let real = include_str!(
            "../../fixtures/real-cli-1.0.102/.copilot/session-state/16389f9e-9896-4928-b559-7fadd9312083/events.jsonl"
        );
        let (real_before, real_after) = real.split_at(real.match_indices('\n').nth(9).unwrap().0 + 1);
        let padding = |at: &str| {
            (0..600).map(|n| said(&format!("line {n} of a long log {}", "x".repeat(200)), at)).collect::<String>()
        };
        let before = [
            real_before.to_string(),
            padding("2026-11-30T03:07:00.000Z"),
            event("user.message", "2026-11-30T03:08:00.000Z", serde_json::json!({"content": "ship it", "source": "skill-deploy"})),
            event("assistant.message", "2026-11-30T03:08:01.000Z", serde_json::json!({"content": "", "toolRequests": [
                {"toolCallId": "b1", "name": "bash", "arguments": {"command": "make deploy"}},
                {"toolCallId": "m1", "name": "github-get_issue", "mcpServerName": "github"},
            ]})),
            event("tool.execution_start", "2026-11-30T03:08:02.000Z", serde_json::json!(
                {"toolCallId": "m1", "toolName": "github-get_issue", "mcpServerName": "github", "mcpToolName": "get_issue"})),
            event("session.model_change", "2026-11-30T03:08:03.000Z", serde_json::json!({"newModel": "gpt-5.4"})),
            event("session.permissions_changed", "2026-11-30T03:08:04.000Z", serde_json::json!({"previousMode": "manual", "mode": "allow-all"})),
        ]
        .concat();
        let after = [
            event(
                "tool.execution_complete",
                "2026-11-30T03:09:00.000Z",
                serde_json::json!(
                {"toolCallId": "b1", "success": true, "result": {"content": "deployed"}}),
            ),
            event(
                "tool.execution_complete",
                "2026-11-30T03:09:01.000Z",
                serde_json::json!({"toolCallId": "m1", "success": false}),
            ),
            event(
                "skill.invoked",
                "2026-11-30T03:09:02.000Z",
                serde_json::json!({"name": "deploy", "path": "/s", "content": "x"}),
            ),
            event("assistant.message", "2026-11-30T03:09:03.000Z", serde_json::json!({"content": "done"})),
            padding("2026-11-30T03:10:00.000Z"),
            real_after.to_string(),
        ]
        .concat();
        assert!(before.len() > 2 * ENDS_BYTES && after.len() > ENDS_BYTES);
        (before, after)
    }

    /// The roots holding `log` as the session's only log.
    fn home_with(log: &str) -> MemoryRoots {
        let mut home = MemoryRoot::new("home");
        home.insert(LOG, log, Some(0));
        MemoryRoots(vec![home])
    }

    #[test]
    fn a_log_that_only_grew_is_parsed_from_where_its_entry_ended_as_a_cold_parse_reads_it() {
        let (before, after) = log_in_two_parts();
        let store = MapStore::default();
        analyze(&mut home_with(&before), &store);
        let grown = before.clone() + &after;
        let resumed = analyze(&mut home_with(&grown), &store);
        assert_eq!(did(&resumed.2), (0, 0, 1), "parsed from where the entry ended");
        assert_eq!(resumed.2.resumed_bytes, after.len() as u64);
        let cold = analyze(&mut home_with(&grown), &MapStore::default());
        assert_eq!(resumed.0, cold.0, "the rows");
        assert_eq!(resumed.1, cold.1, "the other outputs");
        // What the parser carried over the old end shows in them.
        let result = cold.0.iter().find(|row| row.text == "deployed").expect("the call's result");
        assert_eq!(result.tool_name, "bash", "the result named by its request before the end");
        let reply = cold.0.iter().find(|row| row.text == "done").expect("the reply");
        assert_eq!(reply.model, "gpt-5.4", "the model chosen before the end");
        assert!(cold.1.contains(r#""by_person":1"#), "the skill asked for before the end: {}", cold.1);

        // The entry made for the grown log is the whole log's.
        let again = analyze(&mut home_with(&grown), &store);
        assert_eq!(did(&again.2), (0, 1, 0));
        assert_eq!((again.0, again.1), (cold.0, cold.1));
    }

    /// The page's pack keeps a log's time beside its entry: a log whose time is another is
    /// parsed again, unless it grew.
    #[test]
    fn an_entry_made_at_another_time_serves_only_a_log_that_grew() {
        let (before, after) = log_in_two_parts();
        let store = MapStore::default();
        let at_another_time =
            |reader: &mut MemoryRoots| analyze_into::<Vec<OwnedRow>>(reader, &store, |rows| rows, false);
        analyze(&mut home_with(&before), &store);
        let touched = at_another_time(&mut home_with(&before));
        assert_eq!(did(&touched.2), (1, 0, 0), "the same bytes at another time: parsed whole");
        let grown = before.clone() + &after;
        let resumed = at_another_time(&mut home_with(&grown));
        assert_eq!(did(&resumed.2), (0, 0, 1), "grown: parsed from where the entry ended");
        let cold_before = analyze(&mut home_with(&before), &MapStore::default());
        assert_eq!((touched.0, touched.1), (cold_before.0, cold_before.1));
        let cold = analyze(&mut home_with(&grown), &MapStore::default());
        assert_eq!((resumed.0, resumed.1), (cold.0, cold.1));
        assert_eq!(did(&analyze(&mut home_with(&grown), &store).2), (0, 1, 0), "at its entry's time: replayed");
    }

    #[test]
    fn a_log_changed_before_its_old_end_or_whose_old_end_cut_a_line_is_parsed_whole() {
        let (before, after) = log_in_two_parts();
        // Far from both ends, as a secret blanked out in a live session's log.
        let at = before.find("line 300 of a long log").unwrap();
        assert!(ENDS_BYTES < at && at < before.len() - ENDS_BYTES);
        let changed_middle = before.replacen("line 300 of a long log", "line 300 of a LONG log", 1) + &after;
        let mut changed_tail = before.clone().into_bytes();
        let at = before.len() - ENDS_BYTES / 2;
        changed_tail[at] = if changed_tail[at] == b'x' { b'y' } else { b'x' };
        let changed_tail = String::from_utf8(changed_tail).unwrap() + &after;
        let changed_head = before.replacen("say hi", "say ho", 1) + &after;
        let cut = before.len() - 40;
        let cases = [
            ("the bytes before the old end changed", before.clone(), changed_tail),
            ("the first bytes changed", before.clone(), changed_head),
            ("a line in the middle changed, its length kept", before.clone(), changed_middle),
            ("the old end in a line", before[..cut].to_string(), before.clone() + &after),
        ];
        for (case, old, new) in cases {
            let store = MapStore::default();
            analyze(&mut home_with(&old), &store);
            let cached = analyze(&mut home_with(&new), &store);
            assert_eq!(did(&cached.2), (1, 0, 0), "{case}: parsed whole");
            let cold = analyze(&mut home_with(&new), &MapStore::default());
            assert_eq!((cached.0, cached.1), (cold.0, cold.1), "{case}");
        }
    }

    #[test]
    fn a_key_from_bytes_hashes_the_two_ends_and_sees_a_change_in_either() {
        let long: Vec<u8> = (0..3 * ENDS_BYTES).map(|at| (at % 251) as u8).collect();
        let base = FileKey::of_bytes("home", "log", Some(5), &long);
        let mut head_changed = long.clone();
        head_changed[10] ^= 1;
        let mut tail_changed = long.clone();
        tail_changed[3 * ENDS_BYTES - 10] ^= 1;
        assert_ne!(base, FileKey::of_bytes("home", "log", Some(5), &head_changed));
        assert_ne!(base, FileKey::of_bytes("home", "log", Some(5), &tail_changed));
        assert_ne!(base, FileKey::of_bytes("home", "log", Some(6), &long), "the time is part of the key");
        // The same as a key from the ends read apart (the page's Files, the CLI's files).
        let ends =
            FileKey::new("home", "log", long.len() as u64, Some(5), &long[..ENDS_BYTES], &long[2 * ENDS_BYTES..]);
        assert_eq!(base, ends);
        let short = b"a short log\n";
        assert_eq!(FileKey::of_bytes("home", "log", None, short), FileKey::new("home", "log", 12, None, short, short));
    }
}
