//! The browser's analysis, fed by the page's messages: the analysis steps of
//! `crate::analysis` held one at a time in a [`Stage`], so each call can do only what the step
//! it holds allows. The finished analysis, as the views query it, is `finished.rs`'s; the page's
//! cache in a run `cache.rs`'s. `crate::page::wasm` exports it.

pub mod cache;
#[cfg(feature = "extras")]
mod extras;
mod finished;

pub use finished::FinishedRun;

use std::cell::RefCell;
use std::collections::HashSet;

use crate::analysis::{AsTheyAre, LogJob, LogQueue, ParsedLog, Parsing, Planned, Released};
use crate::facts::files::Role;
use crate::input::RootListing;
use crate::order;
use crate::page::browser::{BrowserFile, BrowserRoot, BrowserRoots, GivenLog};
use crate::page::protocol::{
    AfterMetadata, FileAt, Give, HandOver, HandOverStep, IN_PARTS_GIVEN_WHOLE_MAX_BYTES, LOG_GIVEN_WHOLE_MAX_BYTES,
    LogCache, LogToGive, Need,
};
use crate::page::table::RowTable;
use cache::{CacheInRun, give_unread};

/// A zip's entries up to this size are inflated in the archive's order before the metadata
/// files are read (see `ZipRoot::read_ahead`); larger ones (the store) are read when asked for.
const READ_AHEAD_MAX_BYTES: u64 = 1 << 20;

/// How many of the hand-over's steps (`PlannedRun::new`) each need waits for: the files
/// besides the logs (in parts, then as bytes); then the logs, the times and the files read
/// after the logs; then the rest.
const STEPS_BEFORE_METADATA: usize = 2;
const STEPS_BEFORE_FINISH: usize = 3;
const STEPS_IN_ALL: usize = 4;

/// Where an analysis is.
pub enum Stage {
    /// Roots are being added.
    Adding {
        roots: Vec<BrowserRoot>,
        listings: Vec<RootListing>,
        /// Whether each root's listing gave its files' sizes (`BrowserRoots::sized`).
        sized: Vec<bool>,
        /// The files such a listing gave no size for (`BrowserRoots::sized_later`).
        sized_later: Vec<FileAt>,
    },
    /// Planned; the page is handing the files over.
    Planned(Box<PlannedRun>),
    /// The metadata is read; the logs come one by one.
    Parsing(Box<ParsingRun>),
    Finished(Box<FinishedRun>),
}

impl Stage {
    /// No root added yet.
    pub fn adding() -> Stage {
        Stage::Adding { roots: Vec::new(), listings: Vec::new(), sized: Vec::new(), sized_later: Vec::new() }
    }

    /// What the analysis needs next (the page's worker loops on it).
    pub fn need(&self) -> Need {
        match self {
            Stage::Adding { .. } => Need::Roots,
            Stage::Planned(_) => Need::Files { given: STEPS_BEFORE_METADATA },
            Stage::Parsing(run) if run.left > 0 => Need::Logs { left: run.left },
            Stage::Parsing(_) => Need::LastFiles { given: STEPS_BEFORE_FINISH },
            Stage::Finished(_) => Need::Done { given: STEPS_IN_ALL },
        }
    }
}

pub struct PlannedRun {
    pub planned: Planned,
    pub roots: BrowserRoots,
    pub stores: Stores,
    pub cache: Option<CacheInRun>,
}

pub struct ParsingRun {
    pub parsing: Parsing,
    pub roots: BrowserRoots,
    cache: Option<CacheInRun>,
    pub table: RowTable,
    /// The page hands a zip's logs over in the archive's order (one read for many entries,
    /// where a read for each costs the browser a millisecond): each log is parsed into a table
    /// of its own, and the queue puts the tables back in the logs' order.
    logs: LogQueue<RowTable, GivenLog>,
    /// How many logs are still to be given.
    left: usize,
}

/// When the stores (step 2's first part) are read.
pub enum Stores {
    /// As soon as the page has handed over these files, the last of them.
    Awaiting(Vec<(usize, String)>),
    /// With the other metadata (a store in a zip, read ahead with the zip's small files).
    WithMetadata,
    /// Read already.
    Read,
}

impl PlannedRun {
    pub fn new(planned: Planned, roots: BrowserRoots, cache: Option<CacheInRun>) -> (PlannedRun, HandOver) {
        let given_by_page = |root: usize| matches!(roots.roots.get(root), Some(BrowserRoot::Files(_)));
        let (mut pages, mut lines, mut small) = (Vec::new(), Vec::new(), Vec::new());
        for (root, path, role) in planned.metadata_files().filter(|(root, _, _)| given_by_page(*root)) {
            let files = match role {
                Role::Database => &mut pages,
                Role::MetadataInParts => &mut lines,
                _ => &mut small,
            };
            files.push(FileAt { root, path: path.to_string() });
        }
        // The stores first: they are read as soon as they are in, while the rest comes; a
        // store in a zip is read with the zip's other small files.
        let stores: Vec<FileAt> =
            planned.store_files().map(|(root, path)| FileAt { root, path: path.to_string() }).collect();
        order::sort_by_key(&mut small, |file| !stores.contains(file));
        let mut cache = cache;
        let kept = match &mut cache {
            Some(cached) => {
                let stat_of = |file: &FileAt| {
                    (!stores.contains(file)).then(|| planned.listed_stat(file.root, &file.path)).flatten()
                };
                let mut kept = cached.take_unread(&mut small, stat_of);
                // A file read line by line goes over as bytes while small (most process logs): kept so too.
                let whole = |file: &FileAt| stat_of(file).filter(|stat| stat.size <= IN_PARTS_GIVEN_WHOLE_MAX_BYTES);
                kept.extend(cached.take_unread(&mut lines, whole));
                kept
            }
            None => Vec::new(),
        };
        let stores = if !stores.is_empty() && stores.iter().all(|file| given_by_page(file.root)) {
            Stores::Awaiting(stores.into_iter().map(|file| (file.root, file.path)).collect())
        } else {
            Stores::WithMetadata
        };
        let logs = planned
            .log_files()
            .enumerate()
            .map(|(index, (root, path))| {
                let (given, entry) = match roots.roots.get(root) {
                    Some(BrowserRoot::Zip(zip)) => {
                        let entry = zip.raw_entry(path).filter(|entry| entry.size <= LOG_GIVEN_WHOLE_MAX_BYTES);
                        (entry.is_some(), entry)
                    }
                    _ => (given_by_page(root), None),
                };
                let cache = match &cache {
                    Some(cache) if given_by_page(root) => cache.log_cache(root, path),
                    _ => LogCache::None,
                };
                LogToGive { index, root, path: path.to_string(), given, entry, cache }
            })
            .collect();
        let now = |parts| HandOverStep { after_done: false, parts };
        // A listing that gave every file's size (a remembered folder's) leaves the report
        // nothing to learn from the files not read, and the logs come with step 3.
        let sizes_from = (0..roots.roots.len()).filter(|&root| given_by_page(root) && !roots.is_sized(root)).collect();
        let files = roots.sized_later.clone();
        let steps = vec![
            // A database as a File (SQLite reads the pages it needs); a file read line by line
            // as bytes while it is small (most are).
            now(vec![
                Give::Files { files: pages },
                Give::BytesUpTo { files: lines, max_bytes: IN_PARTS_GIVEN_WHOLE_MAX_BYTES },
            ]),
            now(vec![Give::Bytes { files: small }]),
            // The files read after the logs come while the logs are parsed.
            now(vec![Give::Logs { logs }, Give::Times, Give::LateMetadata]),
            // The browser charges the page for each File handed over, as much as the analysis'
            // own reads: the rest (for the report's sizes, long texts and the new logs' cache
            // entries) waits for the end.
            HandOverStep { after_done: true, parts: vec![Give::FilesAfterDone { sizes_from, files }] },
        ];
        debug_assert_eq!(steps.len(), STEPS_IN_ALL);
        let needs_full_engine = planned.needs_full_engine();
        let mut run = PlannedRun { planned, roots, stores, cache };
        give_unread(kept, |root, path, file, stat| {
            run.roots.progress.add_file(root, &path, stat.size as f64);
            run.give(root, path, file, stat.size, stat.modified_ms);
        });
        (run, HandOver { needs_full_engine, steps })
    }

    /// A file of a folder root handed over; the stores are read once the last of theirs is in.
    pub fn give(&mut self, root: usize, path: String, file: BrowserFile, size: u64, modified_ms: Option<i64>) {
        if let Some(cached) = &mut self.cache {
            cached.keep_for_next_run(root, &path, &file);
        }
        let read = self.planned.set_file_facts(root, &path, size, modified_ms);
        let stores_complete = match &mut self.stores {
            Stores::Awaiting(pending) => {
                pending.retain(|(of, at)| (*of, at.as_str()) != (root, path.as_str()));
                pending.is_empty()
            }
            Stores::WithMetadata | Stores::Read => false,
        };
        self.roots.take(root, path, file, size, read);
        if stores_complete {
            self.read_stores();
        }
    }

    /// The stores, through the page's cache when there is one.
    fn read_stores(&mut self) {
        match &mut self.cache {
            Some(cache) => cache.read_stores(&mut self.planned, &mut self.roots),
            None => self.planned.read_stores(&mut self.roots, &mut AsTheyAre),
        }
        self.stores = Stores::Read;
    }

    /// Step 2: every file but the logs. Returns the next step and what the page is to give
    /// of step 3 besides the logs.
    pub fn read_metadata(mut self) -> (ParsingRun, AfterMetadata) {
        for (root, browser_root) in self.roots.roots.iter_mut().enumerate() {
            if let BrowserRoot::Zip(zip) = browser_root {
                // Those read after the logs too: one pass in the archive's order.
                let planned = &self.planned;
                let early = planned.metadata_files().map(|(of, path, _)| (of, path));
                let small = early.chain(planned.late_metadata_files()).filter(|(of, _)| *of == root);
                zip.read_ahead(small.map(|(_, path)| path), READ_AHEAD_MAX_BYTES);
            }
        }
        if !matches!(self.stores, Stores::Read) {
            self.read_stores();
        }
        let PlannedRun { planned, mut roots, mut cache, .. } = self;
        let late_planned = planned.late_metadata_files().count();
        let parsing = planned.read_metadata(&mut roots);
        let file_at = |(root, path): (usize, &str)| FileAt { root, path: path.to_string() };
        let times = parsing.files_needing_times().map(file_at).collect();
        let given_by_page = |root: usize| matches!(roots.roots.get(root), Some(BrowserRoot::Files(_)));
        let mut late: Vec<FileAt> =
            parsing.late_metadata_files().filter(|(root, _)| given_by_page(*root)).map(file_at).collect();
        let kept = match &mut cache {
            Some(cached) => cached.take_unread(&mut late, |file| parsing.listed_stat(file.root, &file.path)),
            None => Vec::new(),
        };
        // The files the metadata showed hold nothing are not read: the progress counts without them.
        roots.progress.not_reading(late_planned - parsing.late_metadata_files().count());
        let logs = LogQueue::new(&parsing);
        let left = logs.tasks().len();
        let mut run = ParsingRun { parsing, roots, cache, table: RowTable::default(), logs, left };
        give_unread(kept, |root, path, file, stat| {
            run.roots.progress.add_file(root, &path, stat.size as f64);
            run.give(root, path, file, stat.size, stat.modified_ms);
        });
        (run, AfterMetadata { times, late })
    }
}

impl ParsingRun {
    /// A file read after the logs (`Role::LateMetadata`), handed over while they are parsed.
    pub fn give(&mut self, root: usize, path: String, file: BrowserFile, size: u64, modified_ms: Option<i64>) {
        if let Some(cached) = &mut self.cache {
            cached.keep_for_next_run(root, &path, &file);
        }
        let read = self.parsing.set_file_facts(root, &path, size, modified_ms);
        self.roots.take(root, path, file, size, read);
    }

    /// Parses log `index` (of the `logs` `begin` named), as given; the logs come in any order.
    /// A later copy of a session's log (`Copies::Later`) waits for the copies before it.
    pub fn parse_log(&mut self, index: usize, given: GivenLog) -> Result<(), String> {
        let ready = self.logs.give(&mut self.parsing, index, given)?;
        self.left -= 1;
        self.parse_ready(Released { rows: Vec::new(), ready: ready.into_iter().collect() });
        Ok(())
    }

    /// Adds the rows released, and parses the logs released until none is left.
    fn parse_ready(&mut self, mut released: Released<RowTable, GivenLog>) {
        loop {
            for rows in released.rows.drain(..) {
                self.table.append(rows);
            }
            let Some((job, given)) = released.ready.pop() else { return };
            let mut rows = RowTable::default();
            let parsed = self.parse_given(job, given, &mut rows);
            let more = self.logs.take_back(&mut self.parsing, parsed, rows);
            released.rows.extend(more.rows);
            released.ready.extend(more.ready);
        }
    }

    fn parse_given(&mut self, job: LogJob, given: GivenLog, rows: &mut RowTable) -> ParsedLog {
        let options = self.parsing.options();
        match self.cache.as_mut().filter(|cache| cache.takes(&job.task, &self.roots)) {
            Some(cache) => {
                let (root, path) = (job.task.root, &job.task.listed_path);
                let listed_time = self.parsing.listed_stat(root, path).and_then(|stat| stat.modified_ms);
                cache.parse_log(job, given, &mut self.roots, (listed_time, options), rows)
            }
            None => self.roots.parse_given(job, given, options, rows),
        }
    }

    /// Step 4: joins and outputs.
    pub fn finish(mut self) -> FinishedRun {
        // Logs never given (a page that stopped early) leave a gap; the rest are added in order.
        let released = self.logs.skip_missing(&mut self.parsing);
        self.parse_ready(released);
        let ParsingRun { parsing, mut roots, mut table, logs: queue, cache, .. } = self;
        let options = parsing.options().clone();
        let late_sizes = parsing.late_sizes();
        let outputs = parsing.finish(&mut roots, &mut table);
        // Only the logs are read again (for long texts); the rest, the store's bytes among
        // them, can go.
        let tasks = queue.tasks();
        let logs: HashSet<(usize, &str)> = tasks.iter().map(|task| (task.root, task.listed_path.as_str())).collect();
        for (index, root) in roots.roots.iter_mut().enumerate() {
            if let BrowserRoot::Files(files) = root {
                files.retain(|path, _| logs.contains(&(index, path.as_str())));
            }
        }
        table.seal();
        roots.progress.report("");
        roots.progress.state.borrow_mut().finished = true;
        FinishedRun {
            table,
            outputs,
            late_sizes,
            last_filter: RefCell::new(None),
            roots: RefCell::new(roots),
            logs: tasks.iter().map(|task| (task.file as u32, task.clone())).collect(),
            options,
            cache,
        }
    }
}
