//! The stores (SQLite with a write-ahead log): which files make one store, reading each
//! through its source (or taking its read from the cache when its files did not change), and
//! taking a read back into the shared model.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::{self, BufReader, Read};
use std::rc::Rc;

use super::Options;
use super::state::State;
use crate::cache::{CacheTally, FileKey, Miss, Purpose, RunCache};
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::files::Role;
use crate::input::{FileReader, ReadAt};
use crate::model::HeldRow;
use crate::sources::store::wal::WalIndex;
use crate::sources::store::{self, StoreContents, StoreFailure, StoreFiles, StoreScope, StoreUsageEvent};
use crate::sources::{SOURCES, Source, SourceId, StoreSupport};
use crate::usage::ledger::SessionLedger;

/// The store's files as its source reads them.
pub(super) struct StoreOnDisk<'a> {
    pub reader: &'a mut dyn FileReader,
    pub root: usize,
    pub main: Option<(String, u64)>,
    pub wal: Option<String>,
    pub scanned_wal: Option<Result<WalIndex, String>>,
}

impl StoreFiles for StoreOnDisk<'_> {
    fn main_size(&self) -> Option<u64> {
        self.main.as_ref().map(|(_, size)| *size)
    }

    fn open_main(&mut self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        let (path, _) = self.main.as_ref().ok_or_else(|| std::io::Error::other("no database"))?;
        self.reader.open(self.root, path)
    }

    fn has_wal(&self) -> bool {
        self.wal.is_some()
    }

    fn open_wal(&mut self) -> std::io::Result<Box<dyn std::io::Read + '_>> {
        let path = self.wal.as_ref().ok_or_else(|| std::io::Error::other("no write-ahead log"))?;
        Ok(Box::new(BufReader::with_capacity(1 << 16, self.reader.open(self.root, path)?)))
    }

    fn positional(&mut self) -> Option<std::io::Result<store::PositionalFiles>> {
        let mut open = |path: &Option<String>| match path {
            Some(path) => self.reader.open_at(self.root, path).map(|opened| opened.map(Some)),
            None => Some(Ok(None)),
        };
        let main = open(&self.main.as_ref().map(|(path, _)| path.clone()))?;
        let wal = open(&self.wal)?;
        Some(main.and_then(|main| wal.map(|wal| (main, wal))))
    }

    fn scanned_wal(&mut self) -> Option<Result<WalIndex, String>> {
        self.scanned_wal.take()
    }

    fn database_name(&self) -> &str {
        let log_main = self.wal.as_deref().map(|wal| wal.strip_suffix("-wal").unwrap_or(wal));
        let path = self.main.as_ref().map(|(path, _)| path.as_str()).or(log_main).unwrap_or_default();
        path.rsplit('/').next().unwrap_or(path)
    }
}

/// One store to read, with what it needs from the plan.
#[derive(Clone, Debug)]
pub struct StoreJob {
    /// The file that reports the read (the main file, or the log without one).
    index: usize,
    root: usize,
    home: usize,
    source: SourceId,
    main: Option<(usize, String, u64)>,
    wal: Option<(usize, String)>,
    scope: StoreScope,
    /// The log's scan, when it was made ahead.
    scanned_wal: Option<Result<WalIndex, String>>,
}

/// A store as read, taken back by the analysis (`add_store`).
pub struct StoreRead {
    job: StoreJob,
    result: Result<StoreContents, StoreFailure>,
    /// Per-call rows gathered per session.
    ledgers: BTreeMap<String, SessionLedger>,
    /// Why the store's cache entry was ignored (another version's, damaged), if it was.
    cache_ignored: Option<String>,
}

/// What a store's entry holds: what its read gave, and its per-call rows by session.
type StoreParts = (StoreContents, BTreeMap<String, SessionLedger>);

/// What reading the stores through the cache needs from the caller.
pub struct StoreCache<'a> {
    /// A file's key by its root and listed path; none for a file the cache does not know (a
    /// zip's entry), whose store is then read as without a cache.
    pub key_of: &'a dyn Fn(usize, &str) -> Option<FileKey>,
    pub entries: &'a mut dyn RunCache,
}

impl StoreJob {
    pub(super) fn source(&self) -> &'static dyn Source {
        SOURCES[self.source]
    }

    fn files<'a>(&mut self, reader: &'a mut dyn FileReader) -> StoreOnDisk<'a> {
        StoreOnDisk {
            reader,
            root: self.root,
            main: self.main.as_ref().map(|(_, path, size)| (path.clone(), *size)),
            wal: self.wal.as_ref().map(|(_, path)| path.clone()),
            scanned_wal: self.scanned_wal.take(),
        }
    }

    pub(super) fn set_scope(&mut self, scope: StoreScope) {
        self.scope = scope;
    }

    /// The source's store support; a store of a source without one cannot be read.
    fn support(&self) -> Result<&'static StoreSupport, String> {
        self.source().store().ok_or_else(|| format!("{} has no stores", self.source().agent()))
    }

    /// The write-ahead log's root and path, if the store has one.
    pub fn wal_file(&self) -> Option<(usize, &str)> {
        self.wal.as_ref().map(|(_, path)| (self.root, path.as_str()))
    }

    /// Makes the write-ahead log's scan now (on another thread than the read, say).
    pub fn scan_wal_ahead(&mut self, reader: &mut dyn FileReader) {
        if self.wal.is_some() {
            let scanned = self.support().and_then(|support| (support.scan_wal)(&mut self.files(reader)));
            self.scanned_wal = Some(scanned);
        }
    }

    fn read(mut self, reader: &mut dyn FileReader, options: &Options) -> StoreRead {
        let support = self.support();
        let mut files = self.files(reader);
        let mut ledgers: BTreeMap<String, SessionLedger> = BTreeMap::new();
        let mut on_usage = |event: StoreUsageEvent| {
            let ledger = ledgers.entry(event.session_id).or_insert_with(|| SessionLedger::new(options.zone));
            ledger.call(crate::time::parse_millis(&event.created_at), &event.model, event.call, &options.rates);
        };
        let result = match support {
            Ok(support) => (support.read)(&mut files, self.scope.clone(), &mut on_usage),
            Err(message) => Err(StoreFailure { message, wal_problem: None }),
        };
        StoreRead { job: self, result, ledgers, cache_ignored: None }
    }

    /// The store's read from its cache entry when its files did not change, else read and its
    /// entry kept; without a cache, read. The entry is made for the main file's key (the log's
    /// when there is no main file); the log's key is in its context, with the options and what
    /// is read, so that a grown log is a miss and the store is read again whole. A read that
    /// failed, or met an I/O error on the way, is not kept.
    pub fn read_through(
        self,
        reader: &mut dyn FileReader,
        options: &Options,
        cache: Option<&mut StoreCache<'_>>,
    ) -> (StoreRead, CacheTally) {
        let read_one = CacheTally { parsed: 1, ..CacheTally::default() };
        let Some(cache) = cache else { return (self.read(reader, options), CacheTally::default()) };
        let Some((key, wal_key)) = self.keys(cache.key_of) else { return (self.read(reader, options), read_one) };
        let (purpose, sessions_left_out) = match &self.scope {
            StoreScope::Everything => (Purpose::Store, None),
            StoreScope::UsageExcept(sessions) => (Purpose::StoreUsage, Some(sessions)),
        };
        let also = (self.source().agent(), &wal_key, sessions_left_out);
        let Some(context) = cache.entries.cache_use().store_context(&also) else {
            return (self.read(reader, options), read_one);
        };
        let name = key.name(purpose);
        let decoded = cache
            .entries
            .entry(&name)
            .map(|entry| cache.entries.cache_use().decode::<StoreParts>(&entry, &key, context).map(|(parts, _)| parts));
        let ignored = match decoded {
            Some(Ok((contents, mut ledgers))) => {
                cache.entries.used(&name);
                // The ledgers count in the run's zone, which the context holds.
                ledgers.values_mut().for_each(|ledger| ledger.set_zone(options.zone));
                let bytes = key.size + wal_key.map_or(0, |wal| wal.size);
                let read = StoreRead { job: self, result: Ok(contents), ledgers, cache_ignored: None };
                return (read, CacheTally { cached: 1, cached_bytes: bytes, ..CacheTally::default() });
            }
            Some(Err(Miss::Ignored(why))) => Some(format!("{why}: ignored, the store was read again")),
            Some(Err(Miss::Changed)) | None => None,
        };
        // A log scanned ahead was read outside the watch: a scan that failed is not kept.
        let scanned_failed = matches!(self.scanned_wal, Some(Err(_)));
        let failed = Rc::new(Cell::new(false));
        let mut read = self.read(&mut Watched { reader, failed: failed.clone() }, options);
        if let Ok(contents) = &read.result
            && !failed.get()
            && !scanned_failed
            && let Some(entry) = cache.entries.cache_use().encode(&key, context, &(contents, &read.ledgers), &[])
        {
            cache.entries.put(&name, &entry);
        }
        read.cache_ignored = ignored;
        (read, read_one)
    }

    /// The key the store's entry is made for (its main file's, else its log's) and its log's
    /// beside a main file; none when a file has no key.
    fn keys(&self, key_of: &dyn Fn(usize, &str) -> Option<FileKey>) -> Option<(FileKey, Option<FileKey>)> {
        let wal = match &self.wal {
            Some((_, path)) => Some(key_of(self.root, path)?),
            None => None,
        };
        match &self.main {
            Some((_, path, _)) => Some((key_of(self.root, path)?, wal)),
            None => Some((wal?, None)),
        }
    }
}

/// A reader that notes whether an open or a read of it failed.
struct Watched<'a> {
    reader: &'a mut dyn FileReader,
    failed: Rc<Cell<bool>>,
}

impl FileReader for Watched<'_> {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let failed = self.failed.clone();
        let opened = self.reader.open(root, path).map(|inner| Box::new(Noting { inner, failed }) as Box<dyn Read + '_>);
        self.failed.set(self.failed.get() || opened.is_err());
        opened
    }

    fn open_at(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        let failed = self.failed.clone();
        let opened =
            self.reader.open_at(root, path)?.map(|inner| Box::new(Noting { inner, failed }) as Box<dyn ReadAt>);
        self.failed.set(self.failed.get() || opened.is_err());
        Some(opened)
    }
}

/// A file of a [`Watched`] reader.
struct Noting<R> {
    inner: R,
    failed: Rc<Cell<bool>>,
}

impl<R: Read> Read for Noting<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer);
        self.failed.set(self.failed.get() || read.is_err());
        read
    }
}

impl ReadAt for Noting<Box<dyn ReadAt>> {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read_at(offset, buffer);
        self.failed.set(self.failed.get() || read.is_err());
        read
    }
}

impl State {
    /// The stores to read: one per main file (with its `-wal`), or per `-wal` alone when the
    /// main file is missing.
    pub(super) fn store_jobs(&self, scope: StoreScope) -> Vec<StoreJob> {
        let find = |home: usize, path: &str| {
            self.file_index(home, path).filter(|&at| self.files[at].status == crate::facts::files::FileStatus::Read)
        };
        self.read_files()
            .filter(|(_, file)| matches!(file.kind.role, Role::Store | Role::StoreWal))
            .filter_map(|(index, file)| {
                let main_path = file.path.trim_end_matches("-wal").to_string();
                let (main, wal) = (find(file.home, &main_path), find(file.home, &format!("{main_path}-wal")));
                // A log is read with its main file.
                (file.kind.role == Role::Store || main.is_none()).then(|| StoreJob {
                    index,
                    root: file.root,
                    home: file.home,
                    source: file.source,
                    main: main.map(|at| (at, self.files[at].listed_path.clone(), self.files[at].size)),
                    wal: wal.map(|at| (at, self.files[at].listed_path.clone())),
                    scope: scope.clone(),
                    scanned_wal: None,
                })
            })
            .collect()
    }

    /// Takes a store read back: file statuses, the sessions it names, its held rows and its
    /// per-call rows.
    pub(super) fn add_store(&mut self, read: StoreRead) {
        let StoreRead { job, result, ledgers, cache_ignored } = read;
        if let Some(why) = cache_ignored {
            self.warn(job.index, DiagnosticKind::CacheIgnored, why);
        }
        let wal = job.wal.as_ref().map(|(at, _)| *at);
        // A store is read only through its source's support: without one, the read failed.
        let support = job.support().ok();
        let found_in = support.map_or("", |support| support.found_in);
        for (session, ledger) in ledgers {
            self.session(&session, job.home, job.source().agent(), found_in);
            // The same session in two stores (two homes): the one with more calls counts.
            match self.store_ledgers.entry(session) {
                std::collections::btree_map::Entry::Vacant(entry) => {
                    entry.insert(ledger);
                }
                std::collections::btree_map::Entry::Occupied(mut entry) => {
                    if ledger.calls.requests > entry.get().calls.requests {
                        entry.insert(ledger);
                    }
                }
            }
        }
        let contents = match result {
            Ok(contents) => contents,
            Err(failure) => {
                if let (Some(wal), Some(problem)) = (wal, failure.wal_problem) {
                    self.fail(wal, DiagnosticKind::WriteAheadLog, problem);
                }
                // Without a main file, the -wal entry carries the failure.
                self.fail(job.index, DiagnosticKind::Store, failure.message);
                return;
            }
        };
        if let Some(wal) = wal {
            self.files[wal].wal = contents.wal.clone();
            if let Some(problem) = &contents.wal_problem {
                self.fail(wal, DiagnosticKind::WriteAheadLog, problem.clone());
            }
        }
        self.files[job.index].tables = Some(contents.tables.clone());
        if !contents.problems.is_empty() {
            self.warn(job.index, DiagnosticKind::Store, contents.problems.join("; "));
        }
        for session in &contents.sessions {
            let facts = self.session(&session.id, job.home, job.source().agent(), found_in);
            if let Some(support) = support {
                (support.claim_session)(session, facts);
            }
        }
        let mut session_ids = contents.session_ids.clone();
        session_ids.extend(contents.rows.iter().filter_map(|row| match row {
            HeldRow::Row(row) => Some(row.session_id.clone()),
            HeldRow::Turn(_) => None,
        }));
        for id in session_ids.iter().filter(|id| !id.is_empty()) {
            self.session(id, job.home, job.source().agent(), found_in);
        }
        self.hold_rows(job.index, contents.rows);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;
    use crate::analysis::{Planned, parse_logs_in_order};
    use crate::cache::CacheUse;
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::OwnedRow;
    use crate::outputs::{self, REPORT_JSON, SESSIONS_JSONL, USAGE_JSONL};
    use crate::page_cache::key_of_bytes;

    const STORE: &str = ".copilot/session-store.db";

    /// A run's entries in memory.
    struct Entries(HashMap<String, Vec<u8>>, CacheUse);

    impl RunCache for Entries {
        fn cache_use(&self) -> &CacheUse {
            &self.1
        }
        fn entry(&self, name: &str) -> Option<std::borrow::Cow<'_, [u8]>> {
            self.0.get(name).map(|entry| entry.as_slice().into())
        }
        fn used(&mut self, _: &str) {}
        fn put(&mut self, name: &str, entry: &[u8]) {
            self.0.insert(name.to_string(), entry.to_vec());
        }
    }

    /// A home of Copilot CLI 1.0.102: its logs, and the store whose rows are in its `-wal`.
    fn home() -> MemoryRoots {
        fn walk(root: &mut MemoryRoot, base: &Path, folder: &Path) {
            for found in std::fs::read_dir(folder).unwrap() {
                let path = found.unwrap().path();
                if path.is_dir() {
                    walk(root, base, &path);
                } else {
                    let listed = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                    root.insert(&listed, std::fs::read(&path).unwrap(), Some(1_000));
                }
            }
        }
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/real-cli-1.0.102");
        let mut root = MemoryRoot::new("home");
        walk(&mut root, &base, &base);
        assert!(root.files.contains_key(STORE) && root.files.contains_key(&format!("{STORE}-wal")));
        MemoryRoots(vec![root])
    }

    /// The keys of the files of `reader`'s one root, as the page makes them from bytes.
    fn keys(reader: &MemoryRoots) -> impl Fn(usize, &str) -> Option<FileKey> + use<> {
        let files = reader.0[0].files.clone();
        move |_, path| files.get(path).map(|(bytes, time)| key_of_bytes("home", path, *time, bytes))
    }

    /// One analysis, through `cache` if any: its rows, its output files by name, and what the
    /// cache did.
    fn analyze(reader: &mut MemoryRoots, cache: Option<&mut Entries>) -> (Vec<OwnedRow>, Vec<String>, CacheTally) {
        let mut planned = Planned::new(reader.listings(), Options::default()).unwrap();
        let key_of = keys(reader);
        let tally = match cache {
            Some(entries) => planned.read_stores(reader, Some(&mut StoreCache { key_of: &key_of, entries })),
            None => planned.read_stores(reader, None),
        };
        let mut parsing = planned.read_metadata(reader);
        let mut rows = Vec::new();
        parse_logs_in_order(&mut parsing, reader, &mut rows);
        let outputs = parsing.finish(reader, &mut rows);
        let written = [SESSIONS_JSONL, USAGE_JSONL, REPORT_JSON].map(|file| {
            let mut out = Vec::new();
            outputs::write(file, &outputs, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        });
        (rows, written.to_vec(), tally)
    }

    /// The report without its `cache_ignored` diagnostics (nor their files' messages), and
    /// those, as (file, message).
    fn without_ignored(report: &str) -> (serde_json::Value, Vec<(String, String)>) {
        let mut report: serde_json::Value = serde_json::from_str(report).unwrap();
        let diagnostics = report["diagnostics"].as_array_mut().unwrap();
        let ignored: Vec<(String, String)> = diagnostics
            .iter()
            .filter(|diagnostic| diagnostic["kind"] == "cache_ignored")
            .map(|diagnostic| {
                (diagnostic["file"].as_str().unwrap().into(), diagnostic["message"].as_str().unwrap().into())
            })
            .collect();
        diagnostics.retain(|diagnostic| diagnostic["kind"] != "cache_ignored");
        for file in report["files"].as_array_mut().unwrap() {
            if ignored
                .iter()
                .any(|(path, message)| file["path"] == path.as_str() && file["message"] == message.as_str())
            {
                file.as_object_mut().unwrap().remove("message");
            }
        }
        (report, ignored)
    }

    /// Reads as its roots do, but the store's log cannot be opened.
    struct LogGone<'a>(&'a mut MemoryRoots);

    impl FileReader for LogGone<'_> {
        fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
            if path.ends_with("-wal") {
                return Err(io::Error::other("the disk is gone"));
            }
            self.0.open(root, path)
        }
    }

    #[test]
    fn a_read_that_met_an_io_error_is_not_kept() {
        let mut reader = home();
        let cold = analyze(&mut reader, None);
        let mut entries = Entries(HashMap::new(), CacheUse::new("test", &Options::default(), 0));
        let mut planned = Planned::new(reader.listings(), Options::default()).unwrap();
        let key_of = keys(&reader);
        let through = &mut StoreCache { key_of: &key_of, entries: &mut entries };
        let tally = planned.read_stores(&mut LogGone(&mut reader), Some(through));
        assert_eq!(tally, CacheTally { parsed: 1, ..CacheTally::default() });
        let report = planned.read_metadata(&mut reader).finish(&mut reader, &mut Vec::new()).report;
        let wal = report.files.iter().find(|file| file.path.ends_with("-wal")).unwrap();
        assert!(wal.message.as_deref().unwrap_or_default().contains("the disk is gone"), "{:?}", wal.message);
        assert!(entries.0.is_empty(), "not kept: {:?}", entries.0.keys());
        // The log readable again, the store is read whole, as a cold run reads it.
        let again = analyze(&mut reader, Some(&mut entries));
        assert_eq!(again.2, CacheTally { parsed: 1, ..CacheTally::default() });
        assert_eq!((&again.0, &again.1), (&cold.0, &cold.1));
    }

    #[test]
    fn a_damaged_store_entry_is_ignored_with_its_diagnostic_and_the_outputs_are_a_cold_runs() {
        let mut reader = home();
        let cold = analyze(&mut reader, None);
        assert!(!cold.0.is_empty() && cold.2 == CacheTally::default());
        let mut entries = Entries(HashMap::new(), CacheUse::new("test", &Options::default(), 0));
        let filled = analyze(&mut reader, Some(&mut entries));
        assert_eq!(filled.2, CacheTally { parsed: 1, ..CacheTally::default() }, "the store is read");
        assert_eq!((&filled.0, &filled.1), (&cold.0, &cold.1));
        assert_eq!(entries.0.keys().filter(|name| name.starts_with("store-")).count(), 1, "{:?}", entries.0.keys());
        let cached = analyze(&mut reader, Some(&mut entries));
        let size = |path: &str| reader.0[0].files[path].0.len() as u64;
        let sizes = size(STORE) + size(&format!("{STORE}-wal"));
        assert_eq!(cached.2, CacheTally { cached: 1, cached_bytes: sizes, ..CacheTally::default() }, "from the cache");
        assert_eq!((&cached.0, &cached.1), (&cold.0, &cold.1));

        for entry in entries.0.values_mut() {
            let last = entry.len() - 1;
            entry[last] ^= 0x20;
        }
        let damaged = analyze(&mut reader, Some(&mut entries));
        assert_eq!(damaged.2, CacheTally { parsed: 1, ..CacheTally::default() }, "read again");
        assert_eq!((&damaged.0, &damaged.1[..2]), (&cold.0, &cold.1[..2]), "rows, sessions and usage are a cold run's");
        let (report, ignored) = without_ignored(&damaged.1[2]);
        assert_eq!(
            ignored,
            [(
                STORE.to_string(),
                "the cache's entry is damaged (its checksum differs): ignored, the store was read again".to_string()
            )]
        );
        assert_eq!(report, without_ignored(&cold.1[2]).0, "the report is a cold run's but for the diagnostic");
        let again = analyze(&mut reader, Some(&mut entries));
        assert_eq!(again.2.cached, 1, "the entry was made again");
        assert_eq!((&again.0, &again.1), (&cold.0, &cold.1));
    }
}
