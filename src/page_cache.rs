//! The page's cache (issue 26): the entries (`crate::cache`) of one input, which the page's
//! worker keeps as one pack in the Origin Private File System (`www/cache.js`). The engine takes
//! the pack before it begins, looks each log's and store's entry up in it, and gives back a pack
//! of the entries this run used or made, so that an entry no file used (a deleted or renamed
//! file) goes.
//!
//! A pack, in postcard: a header (the tool's version and the page's build: a pack of another
//! is dropped whole, with one note rather than a diagnostic for every log), then the entries,
//! each a (name, entry) pair, until the end.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use crate::cache::{CacheTally, CacheUse, ENDS_BYTES, FileKey, Purpose, RunCache};

const MAGIC: [u8; 4] = *b"CLpk";

#[derive(Serialize, Deserialize)]
struct PackHeader<'a> {
    magic: [u8; 4],
    version: &'a str,
    build: &'a str,
    /// The input's entries outgrew the cap: the pack holds none, and the next runs record none
    /// (recording them would cost time and memory for a pack that could not be kept).
    full: bool,
}

/// An entry of the old pack: where its (name, entry) pair is, and its entry.
struct Stored {
    pair: Range<usize>,
    entry: Range<usize>,
}

/// What the next pack holds: a pair of the old pack, or one made in this run.
enum Kept {
    Old(Range<usize>),
    New(Vec<u8>),
}

pub struct PageCache {
    pack: Vec<u8>,
    stored: HashMap<String, Stored>,
    kept: Vec<Kept>,
    /// The next pack's header, in postcard, and the page's build, which it names.
    header: Vec<u8>,
    build: String,
    /// The largest pack the page keeps, and the next pack's size so far.
    cap: usize,
    next_size: usize,
    full: bool,
    pub cache_use: CacheUse,
    pub tally: CacheTally,
    /// Why the pack given could not be used, if it could not.
    pub problem: Option<String>,
}

impl PageCache {
    /// The cache of a run, from the pack the page kept (empty for none); `build` names the page's
    /// build (its module's hash); `cap` is the largest pack the page keeps.
    pub fn new(pack: Vec<u8>, build: &str, cache_use: CacheUse, cap: usize) -> PageCache {
        let mut cache = PageCache {
            pack: Vec::new(),
            stored: HashMap::new(),
            kept: Vec::new(),
            header: postcard::to_allocvec(&header(build, false)).unwrap_or_default(),
            build: build.to_string(),
            cap,
            next_size: 0,
            full: false,
            cache_use,
            tally: CacheTally::default(),
            problem: None,
        };
        if !pack.is_empty() {
            match read_pack(&pack, build) {
                Ok(Read::Entries(stored)) => {
                    cache.stored = stored;
                    cache.pack = pack;
                }
                Ok(Read::Full) => cache.fill(),
                Err(problem) => cache.problem = Some(problem),
            }
        }
        cache
    }

    /// Whether this run records entries: not once they outgrew the cap.
    pub fn recording(&self) -> bool {
        !self.full
    }

    /// No more entries: the next pack says the input's outgrew the cap.
    fn fill(&mut self) {
        self.full = true;
        self.kept = Vec::new();
        self.header = postcard::to_allocvec(&header(&self.build, true)).unwrap_or_default();
        self.problem = Some(format!(
            "What this input's logs gave is more than the {} MiB this browser's cache holds for it: it is analysed without the cache (\"Clear the cache\" tries again).",
            self.cap >> 20
        ));
    }

    /// Keeps a pair in the next pack, unless it makes the pack outgrow the cap.
    fn keep(&mut self, length: usize, kept: Kept) {
        if self.full {
            return;
        }
        self.next_size += length;
        if self.next_size > self.cap {
            self.fill();
        } else {
            self.kept.push(kept);
        }
    }

    /// The entry kept for `key`'s log, if any.
    pub fn entry(&self, key: &FileKey) -> Option<&[u8]> {
        self.entry_named(&key.name(Purpose::Analyze))
    }

    /// The entry of `key`'s log was used: it goes into the next pack.
    pub fn keep_old(&mut self, key: &FileKey) {
        self.keep_named(&key.name(Purpose::Analyze));
    }

    /// An entry made in this run for `key`'s log.
    pub fn put(&mut self, key: &FileKey, entry: &[u8]) {
        self.put_named(&key.name(Purpose::Analyze), entry);
    }

    fn entry_named(&self, name: &str) -> Option<&[u8]> {
        self.stored.get(name).map(|stored| &self.pack[stored.entry.clone()])
    }

    fn keep_named(&mut self, name: &str) {
        if let Some(stored) = self.stored.get(name) {
            let pair = stored.pair.clone();
            self.keep(pair.len(), Kept::Old(pair));
        }
    }

    fn put_named(&mut self, name: &str, entry: &[u8]) {
        if !self.full
            && let Ok(pair) = postcard::to_allocvec(&(name, entry))
        {
            self.keep(pair.len(), Kept::New(pair));
        }
    }

    /// The next pack, in pieces (the caller joins them where it keeps them: the page, outside
    /// the engine's memory).
    pub fn pack_pieces(&self) -> Vec<&[u8]> {
        let mut pieces = vec![self.header.as_slice()];
        pieces.extend(self.kept.iter().map(|kept| match kept {
            Kept::Old(pair) => &self.pack[pair.clone()],
            Kept::New(pair) => pair.as_slice(),
        }));
        pieces
    }
}

/// The stores' entries (`StoreJob::read_through`), by name.
impl RunCache for PageCache {
    fn cache_use(&self) -> &CacheUse {
        &self.cache_use
    }

    fn entry(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        self.entry_named(name).map(Cow::Borrowed)
    }

    fn used(&mut self, name: &str) {
        self.keep_named(name);
    }

    fn put(&mut self, name: &str, entry: &[u8]) {
        self.put_named(name, entry);
    }
}

fn header(build: &str, full: bool) -> PackHeader<'_> {
    PackHeader { magic: MAGIC, version: env!("CARGO_PKG_VERSION"), build, full }
}

/// What a pack holds.
enum Read {
    Entries(HashMap<String, Stored>),
    /// None: the input's outgrew the cap.
    Full,
}

/// The key of a log the page read whole: its size and ends from its bytes.
pub fn key_of_bytes(root: &str, path: &str, modified_ms: Option<i64>, bytes: &[u8]) -> FileKey {
    let head = &bytes[..bytes.len().min(ENDS_BYTES)];
    let tail = if bytes.len() <= ENDS_BYTES { head } else { &bytes[bytes.len() - ENDS_BYTES..] };
    FileKey::new(root, path, bytes.len() as u64, modified_ms, head, tail)
}

/// The entries of a pack by name, or why it cannot be used.
fn read_pack(pack: &[u8], build: &str) -> Result<Read, String> {
    let damaged = |_| "the cache kept in this browser is damaged: analysed anew".to_string();
    let (found, mut rest) = postcard::take_from_bytes::<PackHeader>(pack).map_err(damaged)?;
    let expected = header(build, false);
    if (found.magic, found.version, found.build) != (expected.magic, expected.version, expected.build) {
        return Err(format!(
            "the cache kept in this browser was written by another version of this page ({} {}): analysed anew",
            found.version, found.build
        ));
    }
    if found.full {
        return Ok(Read::Full);
    }
    let offset = |part: &[u8]| part.as_ptr() as usize - pack.as_ptr() as usize;
    let mut stored = HashMap::new();
    while !rest.is_empty() {
        let start = offset(rest);
        let ((name, entry), after) = postcard::take_from_bytes::<(&str, &[u8])>(rest).map_err(damaged)?;
        let at = offset(entry);
        stored.insert(name.to_string(), Stored { pair: start..offset(after), entry: at..at + entry.len() });
        rest = after;
    }
    Ok(Read::Entries(stored))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Options;

    fn cache(pack: Vec<u8>, build: &str) -> PageCache {
        PageCache::new(pack, build, CacheUse::new(build, &Options::default()), 1 << 20)
    }

    fn joined(cache: &PageCache) -> Vec<u8> {
        cache.pack_pieces().concat()
    }

    #[test]
    fn a_pack_keeps_the_entries_a_run_used_or_made_and_drops_the_others() {
        let key = |path: &str, bytes: &[u8]| key_of_bytes("home", path, Some(1_000), bytes);
        let (a, b) = (key("a/events.jsonl", b"one\n"), key("b/events.jsonl", b"two\n"));
        let mut first = cache(Vec::new(), "build-1");
        assert!(first.problem.is_none() && first.entry(&a).is_none());
        first.put(&a, b"entry of a");
        first.put(&b, b"entry of b");

        let mut second = cache(joined(&first), "build-1");
        assert_eq!(second.problem, None);
        assert_eq!(second.entry(&a), Some(&b"entry of a"[..]));
        assert_eq!(second.entry(&b), Some(&b"entry of b"[..]));
        // This run used a's entry and made c's; b's file is gone.
        let c = key("c/events.jsonl", b"three\n");
        second.keep_old(&a);
        second.put(&c, b"entry of c");

        let third = cache(joined(&second), "build-1");
        assert_eq!(third.entry(&a), Some(&b"entry of a"[..]));
        assert_eq!(third.entry(&b), None, "an entry no log used is dropped");
        assert_eq!(third.entry(&c), Some(&b"entry of c"[..]));
    }

    #[test]
    fn entries_that_outgrow_the_cap_are_not_recorded_and_the_next_runs_record_none() {
        let key = |path: &str| key_of_bytes("home", path, Some(1_000), path.as_bytes());
        let mut first = PageCache::new(Vec::new(), "build-1", CacheUse::new("build-1", &Options::default()), 100);
        first.put(&key("a/events.jsonl"), &[1; 40]);
        assert!(first.recording() && first.problem.is_none());
        first.put(&key("b/events.jsonl"), &[2; 40]);
        assert!(!first.recording(), "two entries and their names are over 100 bytes");
        let problem = first.problem.clone().unwrap_or_default();
        assert!(problem.contains("more than the 0 MiB this browser's cache holds"), "{problem}");

        let pack = joined(&first);
        let second = PageCache::new(pack, "build-1", CacheUse::new("build-1", &Options::default()), 100);
        assert!(!second.recording(), "the pack says the input outgrew the cap");
        assert_eq!(second.entry(&key("a/events.jsonl")), None);
        assert_eq!(second.problem, first.problem);
        assert!(joined(&second).len() < 40, "it holds no entry");
    }

    #[test]
    fn a_pack_of_another_build_or_a_damaged_one_is_dropped_whole_with_a_note() {
        let key = key_of_bytes("home", "a/events.jsonl", None, b"one\n");
        let mut kept = cache(Vec::new(), "build-1");
        kept.put(&key, b"entry");
        let pack = joined(&kept);

        let other = cache(pack.clone(), "build-2");
        assert_eq!(other.entry(&key), None);
        let problem = other.problem.as_deref().unwrap_or_default();
        assert!(problem.contains("another version of this page") && problem.contains("build-1"), "{problem}");

        let damaged = cache(pack[..pack.len() - 2].to_vec(), "build-1");
        assert_eq!(damaged.entry(&key), None);
        assert!(damaged.problem.as_deref().unwrap_or_default().contains("damaged"));

        let garbage = cache(b"not a pack at all".to_vec(), "build-1");
        assert!(garbage.problem.is_some() && garbage.entry(&key).is_none());
    }

    #[test]
    fn a_key_from_bytes_hashes_the_two_ends_and_sees_a_change_in_either() {
        let long: Vec<u8> = (0..3 * ENDS_BYTES).map(|at| (at % 251) as u8).collect();
        let base = key_of_bytes("home", "log", Some(5), &long);
        let mut head_changed = long.clone();
        head_changed[10] ^= 1;
        let mut tail_changed = long.clone();
        tail_changed[3 * ENDS_BYTES - 10] ^= 1;
        assert_ne!(base, key_of_bytes("home", "log", Some(5), &head_changed));
        assert_ne!(base, key_of_bytes("home", "log", Some(5), &tail_changed));
        assert_ne!(base, key_of_bytes("home", "log", Some(6), &long), "the time is part of the key");
        // The same as a key from the ends read apart (the page's Files, the CLI's files).
        let ends =
            FileKey::new("home", "log", long.len() as u64, Some(5), &long[..ENDS_BYTES], &long[2 * ENDS_BYTES..]);
        assert_eq!(base, ends);
        let short = b"a short log\n";
        assert_eq!(key_of_bytes("home", "log", None, short), FileKey::new("home", "log", 12, None, short, short));
    }
}
