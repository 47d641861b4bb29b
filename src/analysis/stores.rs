//! The stores (SQLite with a write-ahead log): which files make one store, reading each
//! through its source (or taking its read from the cache when its files did not change), and
//! taking a read back into the shared model.

use std::collections::BTreeMap;
use std::io::BufReader;

use super::Options;
use super::state::State;
use crate::facts::diagnostics::DiagnosticKind;
use crate::facts::files::Role;
use crate::input::FileReader;
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

/// How a store's job is read: as it is ([`AsTheyAre`]), or through a cache
/// (`crate::cache::StoreCache`), which the analysis does not know.
pub trait StoreReading {
    fn read(&mut self, job: StoreJob, reader: &mut dyn FileReader, options: &Options) -> StoreRead;
}

/// The stores read as they are.
pub struct AsTheyAre;

impl StoreReading for AsTheyAre {
    fn read(&mut self, job: StoreJob, reader: &mut dyn FileReader, options: &Options) -> StoreRead {
        job.read(reader, options)
    }
}

/// One store to read, with what it needs from the plan.
#[derive(Clone, Debug)]
pub struct StoreJob {
    /// The file that reports the read (the main file, or the log without one).
    index: usize,
    pub(crate) root: usize,
    home: usize,
    source: SourceId,
    pub(crate) main: Option<(usize, String, u64)>,
    pub(crate) wal: Option<(usize, String)>,
    pub(crate) scope: StoreScope,
    /// The log's scan, when it was made ahead.
    pub(crate) scanned_wal: Option<Result<WalIndex, String>>,
}

/// A store as read, taken back by the analysis (`add_store`).
pub struct StoreRead {
    pub(crate) job: StoreJob,
    pub(crate) result: Result<StoreContents, StoreFailure>,
    /// Per-call rows gathered per session.
    pub(crate) ledgers: BTreeMap<String, SessionLedger>,
    /// Why the store's cache entry was ignored (another version's, damaged), if it was.
    pub(crate) cache_ignored: Option<String>,
}

impl StoreRead {
    /// Whether the store, read, holds what its log's scan made ahead (`index`) holds: read as
    /// its files are, it was read with that scan (which the read takes); from a cache entry (the
    /// scan left), the entry is of the log as listed, `listed_wal_size` long, and so is the
    /// scan.
    pub(super) fn read_as_scanned(&self, index: &WalIndex, listed_wal_size: Option<u64>) -> bool {
        let from_cache = self.job.scanned_wal.is_some();
        self.result.is_ok() && (!from_cache || listed_wal_size == Some(index.bytes_scanned()))
    }
}

impl StoreJob {
    pub(crate) fn source(&self) -> &'static dyn Source {
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

    /// A copy of the write-ahead log's scan made ahead, if one was made and it could be used.
    pub(super) fn scanned_index(&self) -> Option<WalIndex> {
        self.scanned_wal.as_ref()?.as_ref().ok().cloned()
    }

    /// The write-ahead log's `index` scanned on over what was written to it since.
    #[cfg(feature = "cli")]
    pub(super) fn scan_wal_on(&self, reader: &mut dyn FileReader, index: &mut WalIndex) -> Result<(), String> {
        let (root, path) = self.wal_file().ok_or("the store has no write-ahead log")?;
        let opened = reader.open_at(root, path).ok_or("the write-ahead log cannot be read at an offset")?;
        let mut log = opened.map_err(|error| format!("cannot open the write-ahead log: {error}"))?;
        index.scan_on(&mut *log)
    }

    /// The sessions of the per-call rows after the row `after` and the last row
    /// (`StoreSupport::usage_added`), as the store is with its log's `index`.
    #[cfg(feature = "cli")]
    pub(super) fn usage_added(
        &mut self,
        reader: &mut dyn FileReader,
        index: WalIndex,
        after: Option<i64>,
    ) -> Result<store::UsageAdded, String> {
        let support = self.support()?;
        self.scanned_wal = Some(Ok(index));
        (support.usage_added)(&mut self.files(reader), after)
    }

    pub(crate) fn read(mut self, reader: &mut dyn FileReader, options: &Options) -> StoreRead {
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
