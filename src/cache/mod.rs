//! The cache of what parsing an event log gave, so that a run over logs that did not change
//! reads their entries instead of their bytes (issue 26).
//!
//! The core keeps no store and does no I/O: the caller makes a log's [`FileKey`] (from its
//! listing and its first and last [`ENDS_BYTES`]), finds the entry named [`FileKey::name`] in
//! its own store (a folder natively, the page's OPFS) and hands it to the log's job
//! (`LogJob::replay`), which feeds the rows and outcome it holds through the same tally and
//! sink as a parse would. On a miss the job parses while recording (`LogJob::parse_recording`)
//! and gives the entry to put back. [`CacheStore`] is that lookup for a caller whose store
//! answers at once (`LogJob::parse_through`).
//!
//! A store (a SQLite main file and its `-wal`) is cached as what its read gave
//! (`StoreJob::read_through`): the entry is made for the main file's key (the log's when there
//! is no main file), and its context holds the log's key, so that a store whose log grew is
//! read again whole. The caller gives the files' keys and its cache as a [`RunCache`].
//!
//! An entry ([`entry`]) is a header (format, the tool's version, the caller's build identity,
//! a checksum of the rest), then the key of the file it was made from, the context its rows
//! were made in (the log's fallbacks, the options) and what parsing gave. An entry of another
//! version or build, or a damaged one, is ignored with a `cache_ignored` diagnostic; a key or
//! context that differs (a changed file, a changed workspace) is a plain miss. Either way the
//! file is parsed: the cache is never a reason for a different output.

pub mod entry;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

pub use entry::{CacheUse, Miss, Recorded};

/// How many bytes of a file's start and of its end its key hashes.
pub const ENDS_BYTES: usize = 64 << 10;

/// A file as the cache knows it: where it is (its root's identity and its path under it), and
/// what says it did not change (size, modification time, a hash of its two ends).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileKey {
    /// The root's identity, as the caller names it (natively its canonical path).
    pub root: String,
    pub path: String,
    pub size: u64,
    pub modified_ms: Option<i64>,
    /// xxh3 of the first [`ENDS_BYTES`] and of the last (the whole file when it is shorter).
    pub ends: u64,
}

/// What an entry is for: a log's in a whole analysis, or in a usage-only run (counter lines
/// only); a store's read (`StoreJob::read_through`) in a whole analysis, or in a usage-only run
/// (its per-call rows only). The two runs keep apart entries, so that neither replaces the other's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Analyze,
    Usage,
    Store,
    StoreUsage,
}

impl FileKey {
    /// The key of a file from its `head` (its first `ENDS_BYTES`, or all of it) and `tail` (its
    /// last `ENDS_BYTES`, or all of it).
    pub fn new(root: &str, path: &str, size: u64, modified_ms: Option<i64>, head: &[u8], tail: &[u8]) -> FileKey {
        let ends = xxh3_64_with_seed(tail, xxh3_64(head));
        FileKey { root: root.to_string(), path: path.to_string(), size, modified_ms, ends }
    }

    /// The name of the file's entry in a store: the same whatever the file's content, so that
    /// a changed file's entry replaces the old one.
    pub fn name(&self, purpose: Purpose) -> String {
        let prefix = match purpose {
            Purpose::Analyze => "log",
            Purpose::Usage => "usage",
            Purpose::Store => "store",
            Purpose::StoreUsage => "store-usage",
        };
        let place = xxh3_64_with_seed(self.path.as_bytes(), xxh3_64(self.root.as_bytes()));
        format!("{prefix}-{place:016x}")
    }
}

/// A store the caller keeps entries in, which answers at once (the native folder). A caller
/// whose store is asynchronous (the page) looks entries up itself and calls
/// `LogJob::replay` / `LogJob::parse_recording`.
pub trait CacheStore {
    /// The entry of that name, if the store has it.
    fn get(&self, name: &str) -> Option<Vec<u8>>;
    /// Keeps an entry under that name, replacing any.
    fn put(&self, name: &str, entry: &[u8]);
}

/// A run's cache as a store's read uses it (`StoreJob::read_through`): natively a
/// [`CacheStore`] with the run's [`CacheUse`], in the page its pack (`PageCache`).
pub trait RunCache {
    fn cache_use(&self) -> &CacheUse;
    /// The entry of that name, if there is one.
    fn entry(&self, name: &str) -> Option<Cow<'_, [u8]>>;
    /// The entry of that name was used (the page's next pack keeps it).
    fn used(&mut self, name: &str);
    /// Keeps an entry under that name, replacing any.
    fn put(&mut self, name: &str, entry: &[u8]);
}

impl<S: CacheStore + ?Sized> RunCache for (&S, &CacheUse) {
    fn cache_use(&self) -> &CacheUse {
        self.1
    }

    fn entry(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        self.0.get(name).map(Cow::Owned)
    }

    /// Nothing to do: the store keeps its entries until they are replaced (the folder touched
    /// this one as it read it).
    fn used(&mut self, _: &str) {}

    fn put(&mut self, name: &str, entry: &[u8]) {
        self.0.put(name, entry);
    }
}

/// What the cache did for logs and stores (a store, main file and log, counts as one file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheTally {
    /// Logs parsed and stores read (no entry, or one that could not be used).
    pub parsed: u64,
    /// Logs and stores taken from their entries, and their size.
    pub cached: u64,
    pub cached_bytes: u64,
}

impl CacheTally {
    pub fn add(&mut self, other: &CacheTally) {
        self.parsed += other.parsed;
        self.cached += other.cached;
        self.cached_bytes += other.cached_bytes;
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use super::*;
    use crate::analysis::{LogInput, LogQueue, Options, Planned};
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::OwnedRow;

    const LOG: &str = ".copilot/session-state/00000001-0000-4000-8000-000000000000/events.jsonl";

    #[derive(Default)]
    struct MapStore(RefCell<HashMap<String, Vec<u8>>>);

    impl CacheStore for MapStore {
        fn get(&self, name: &str) -> Option<Vec<u8>> {
            self.0.borrow().get(name).cloned()
        }
        fn put(&self, name: &str, entry: &[u8]) {
            self.0.borrow_mut().insert(name.to_string(), entry.to_vec());
        }
    }

    fn said(text: &str, at: &str) -> String {
        let line = serde_json::json!({"type": "user.message", "id": at, "data": {"content": text}, "timestamp": at});
        format!("{line}\n")
    }

    /// One analysis of the roots through `store`: its rows, report and what the cache did.
    fn analyze(reader: &mut MemoryRoots, store: &MapStore) -> (Vec<OwnedRow>, String, CacheTally) {
        let planned = Planned::new(reader.listings(), Options::default()).unwrap();
        let cache = CacheUse::new("test", &Options::default());
        let mut parsing = planned.read_metadata(reader);
        let mut queue = LogQueue::<Vec<OwnedRow>>::new(&parsing);
        let (mut rows, mut tally) = (Vec::new(), CacheTally::default());
        while let Some(job) = queue.next_job(&mut parsing, 1) {
            let root = reader.listings()[job.task.root].label.clone();
            let bytes = reader.0[job.task.root].files[&job.task.listed_path].0.to_vec();
            let key = FileKey::new(&root, &job.task.listed_path, bytes.len() as u64, Some(0), &bytes, &bytes);
            let (name, options, mut kept) = (key.name(Purpose::Analyze), parsing.options().clone(), Vec::new());
            let replayed = match store.get(&name) {
                Some(entry) => job.replay(&entry, &key, &cache, &options, &mut kept),
                None => Err(Box::new((job, Miss::Changed))),
            };
            let parsed = match replayed {
                Ok(parsed) => {
                    tally.cached += 1;
                    parsed
                }
                Err(missed) => {
                    let (job, miss) = *missed;
                    tally.parsed += 1;
                    let input = LogInput::Bytes(&bytes);
                    let (parsed, entry) = job.parse_recording(input, &key, &cache, Some(miss), &options, &mut kept);
                    store.put(&name, &entry.expect("an entry"));
                    parsed
                }
            };
            rows.extend(queue.take_back(&mut parsing, parsed, kept).rows.into_iter().flatten());
        }
        let outputs = parsing.finish(reader, &mut rows);
        (rows, serde_json::to_string(&outputs.report).unwrap(), tally)
    }

    #[test]
    fn replayed_copies_give_only_the_rows_the_copies_before_lacked_as_their_parse_did() {
        // The same session in two homes: the second copy has one line more.
        let (mut first, mut later) = (MemoryRoot::new("a"), MemoryRoot::new("b"));
        let hello = said("hello ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "2026-10-01T09:00:00.000Z");
        first.insert(LOG, hello.clone(), Some(0));
        later.insert(LOG, hello + &said("again", "2026-10-01T09:01:00.000Z"), Some(0));
        let mut reader = MemoryRoots(vec![first, later]);
        let store = MapStore::default();
        let cold = analyze(&mut reader, &store);
        assert_eq!(cold.2, CacheTally { parsed: 2, ..CacheTally::default() });
        assert_eq!(cold.0.len(), 2, "hello once, again once: {:?}", cold.0);
        assert!(!cold.0[0].text.contains("ghp_"), "scrubbed: {}", cold.0[0].text);
        let cached = analyze(&mut reader, &store);
        assert_eq!(cached.2, CacheTally { cached: 2, ..CacheTally::default() }, "both from the cache");
        assert_eq!((cached.0, cached.1), (cold.0, cold.1));
    }
}
