//! The browser's analysis, fed by the page's messages: the analysis steps of
//! `crate::analysis` held one at a time in a [`Stage`], so each call can do only what the step
//! it holds allows, and the finished analysis as the views query it (a row table, the outputs,
//! and the inputs kept to read long texts again). `crate::wasm` exports it.

#[cfg(feature = "extras")]
mod extras;

use std::cell::{RefCell, RefMut};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::SeekFrom;

use wasm_bindgen::JsCast;
use web_sys::Blob;

use crate::analysis::{
    LateSizes, LogInput, LogJob, LogQueue, LogTask, Options, Outputs, ParsedLog, Parsing, Planned, Released,
};
use crate::cache::{
    CacheTally, ENDS_BYTES, EntryStore, FileKey, LookedUp, Purpose, Stat, StoreCache, entry_name, look_up,
};
use crate::facts::files::Role;
use crate::input::RootListing;
use crate::input::browser::{BrowserFile, BrowserRoot, BrowserRoots, LineSource, SourceReader};
use crate::line_filter::LineFilter;
use crate::model::OwnedRow;
use crate::model::RowSink;
use crate::order;
use crate::page_cache::{self, PageCache};
use crate::protocol::{
    AfterMetadata, Answer, CacheReport, FileAt, Give, HandOver, HandOverStep, IN_PARTS_GIVEN_WHOLE_MAX_BYTES,
    LOG_GIVEN_WHOLE_MAX_BYTES, LogCache, LogToGive, Need, Request, SessionShown,
};
use crate::search::Matches;
use crate::sources::LogAgain;
use crate::table::{AsTableKeeps, Needle, RowFilter, RowTable};
use crate::usage::credits::CreditsUsed;
use crate::views::{self, FullRows, RowsPage};

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

/// The page's cache in a run, and the roots' labels, which name them there.
pub struct CacheInRun {
    pub cache: PageCache,
    pub labels: Vec<String>,
    /// The small files the page reads whole in this run that were listed with their times
    /// (`take_unread`): kept for the next run as they come (`keep_for_next_run`).
    to_keep: HashMap<(usize, String), Stat>,
}

impl CacheInRun {
    pub fn new(cache: PageCache, labels: Vec<String>) -> CacheInRun {
        CacheInRun { cache, labels, to_keep: HashMap::new() }
    }

    /// Takes out of `files` (small files the page would read whole) those the cache's entries
    /// stand for unread as `stat_of` says they are listed (a remembered folder's listing gives
    /// each file's size and time at no cost, while a read costs the browser a round trip), and
    /// returns them with their bytes. Those left that were listed are kept as they come.
    fn take_unread(
        &mut self,
        files: &mut Vec<FileAt>,
        stat_of: impl Fn(&FileAt) -> Option<Stat>,
    ) -> Vec<(FileAt, Vec<u8>, Stat)> {
        let mut kept = Vec::new();
        files.retain(|file| {
            let Some(stat) = stat_of(file) else { return true };
            match self.cache.kept_file((&self.labels[file.root], &file.path), stat) {
                Some(bytes) => kept.push((file.clone(), bytes, stat)),
                None => {
                    self.to_keep.insert((file.root, file.path.clone()), stat);
                    return true;
                }
            }
            false
        });
        kept
    }

    /// A file the page gave: its bytes are kept for the next run when `take_unread` said so and
    /// they are as long as its listing said.
    fn keep_for_next_run(&mut self, root: usize, path: &str, file: &BrowserFile) {
        let BrowserFile::Bytes(bytes) = file else { return };
        let Some(Stat { size, modified_ms: Some(time), .. }) = self.to_keep.remove(&(root, path.to_string())) else {
            return;
        };
        if u64::from(bytes.length()) == size {
            self.cache.keep_file((&self.labels[root], path), time, &bytes.to_vec());
        }
    }
}

/// Small files taken from the cache (`CacheInRun::take_unread`), given as the page gives bytes (the
/// progress counts them as read).
fn give_unread(kept: Vec<(FileAt, Vec<u8>, Stat)>, mut give: impl FnMut(usize, String, BrowserFile, Stat)) {
    for (FileAt { root, path }, bytes, stat) in kept {
        give(root, path, BrowserFile::Bytes(js_sys::Uint8Array::from(&bytes[..])), stat);
    }
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
    /// The logs parsed without the cache, having no entry in it (`LogCache::EntryAfterDone`), by
    /// `LogTask::file`: their entries are made once the analysis is done (`FinishedRun::record_entries`).
    unrecorded: Vec<u32>,
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
                    Some(CacheInRun { cache, labels, .. }) if given_by_page(root) => {
                        let name = entry_name(&labels[root], path, Purpose::Analyze);
                        match (cache.has_entry(&name), cache.can_stand_unread(&name)) {
                            (true, true) => LogCache::Unread,
                            (true, false) => LogCache::LookedUp,
                            (false, _) => LogCache::EntryAfterDone,
                        }
                    }
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

    /// The stores, through the page's cache when there is one: a folder's store whose files
    /// did not change is taken from its entry.
    fn read_stores(&mut self) {
        // Not once the cache neither records nor holds entries: its keys would be read for nothing.
        let Some(CacheInRun { cache, labels, .. }) = self.cache.as_mut().filter(|cached| cached.cache.in_use()) else {
            self.planned.read_stores(&mut self.roots, None);
            self.stores = Stores::Read;
            return;
        };
        // Made before the read, which borrows the roots.
        let keys: HashMap<(usize, String), FileKey> = (self.planned.store_files())
            .filter_map(|(root, path)| {
                let Some(BrowserRoot::Files(files)) = self.roots.roots.get(root) else { return None };
                Some(((root, path.to_string()), key_of_given(&labels[root], path, files.get(path)?)?))
            })
            .collect();
        let key_of = |root: usize, path: &str| keys.get(&(root, path.to_string())).cloned();
        let mut through = StoreCache { key_of: &key_of, entries: cache };
        let tally = self.planned.read_stores(&mut self.roots, Some(&mut through));
        cache.tally.add(&tally);
        // Read or taken from the cache, the stores' files are done (a file counts once).
        for ((root, path), key) in &keys {
            self.roots.progress.add_file(*root, path, key.size as f64);
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
        let mut run =
            ParsingRun { parsing, roots, cache, table: RowTable::default(), logs, left, unrecorded: Vec::new() };
        give_unread(kept, |root, path, file, stat| {
            run.roots.progress.add_file(root, &path, stat.size as f64);
            run.give(root, path, file, stat.size, stat.modified_ms);
        });
        (run, AfterMetadata { times, late })
    }
}

/// A log as the page hands it over.
pub enum GivenLog {
    /// The whole file, read by the page, with its modification time.
    Bytes(Vec<u8>, Option<i64>),
    /// A File of a folder root, read here in windows.
    File(Blob),
    /// Nothing: read from its root (a zip entry the page does not inflate, or a File handed
    /// over already).
    FromRoot,
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
        let given = self.read_whole_if_changed(&job.task, given);
        let task = &job.task;
        let listed_time = self.parsing.listed_stat(task.root, &task.listed_path).and_then(|stat| stat.modified_ms);
        let options = self.parsing.options();
        // Only a folder's files are keyed (a zip's entries are parsed again, as natively), and
        // only while the cache records or holds entries. A log with no entry is parsed as
        // without the cache: making entries cost a cold run 8% of its time (2 GB folder), so
        // they wait until the analysis is done.
        let mut cache = self.cache.as_mut().filter(|cached| {
            cached.cache.in_use() && matches!(self.roots.roots.get(task.root), Some(BrowserRoot::Files(_)))
        });
        if let Some(CacheInRun { cache: pack, labels, .. }) = &mut cache
            && !pack.has_entry(&entry_name(&labels[task.root], &task.listed_path, Purpose::Analyze))
        {
            pack.tally.add(&CacheTally { parsed: 1, ..CacheTally::default() });
            if pack.recording() {
                self.unrecorded.push(task.file as u32);
            }
            cache = None;
        }
        match given {
            GivenLog::Bytes(bytes, modified_ms) => {
                self.roots.progress.add_file(task.root, &task.listed_path, bytes.len() as f64);
                let looked_up = cache.as_ref().and_then(|CacheInRun { cache, labels, .. }| {
                    let file = (labels[task.root].as_str(), task.listed_path.as_str());
                    look_up(cache, Purpose::Analyze, file, None, || {
                        Some(page_cache::key_of_bytes(file.0, file.1, None, &bytes))
                    })
                });
                match (cache, looked_up) {
                    (Some(CacheInRun { cache, .. }), Some(looked_up)) => {
                        let time = modified_ms.or(listed_time);
                        through_store(cache, job, looked_up, time, LogInput::Bytes(&bytes), options, rows).0
                    }
                    _ => job.parse_bytes(&bytes, options, rows),
                }
            }
            GivenLog::File(blob) => {
                let (task_root, task_path) = (task.root, task.listed_path.clone());
                // Its entry stands for it when its size and time are as the entry says (the
                // page hands such a log over unread, `LogCache::Unread`); else its two ends are
                // read here.
                let looked_up = cache.as_ref().and_then(|cached| {
                    let (label, size, time) = (&cached.labels[task.root], blob.size() as u64, time_of(&blob));
                    let now = Stat { size, modified_ms: time, changed_ns: None };
                    let read_key =
                        || key_of_ends(label, &task.listed_path, &BrowserFile::Blob(blob.clone()), size, None);
                    let looked_up =
                        look_up(&cached.cache, Purpose::Analyze, (label, &task.listed_path), Some(now), read_key)?;
                    Some((looked_up, time))
                });
                if let Some(BrowserRoot::Files(files)) = self.roots.roots.get_mut(task.root) {
                    files.insert(task.listed_path.clone(), BrowserFile::Blob(blob));
                }
                match (cache, looked_up) {
                    (Some(CacheInRun { cache, .. }), Some((looked_up, time))) => {
                        let size = looked_up.key.size;
                        let (parsed, through_entry) = through_store(
                            cache,
                            job,
                            looked_up,
                            time,
                            LogInput::Reader(&mut self.roots),
                            options,
                            rows,
                        );
                        if through_entry {
                            // Not opened, but done: the progress counts it as read.
                            self.roots.progress.add_file(task_root, &task_path, size as f64);
                        }
                        parsed
                    }
                    _ => job.parse(&mut self.roots, options, rows),
                }
            }
            GivenLog::FromRoot => job.parse(&mut self.roots, options, rows),
        }
    }

    /// A log handed over unread for its cache entry (`LogCache::Unread`) whose size or time
    /// changed since: read whole here, as the page would have read it (one read, where keying
    /// it and parsing it through its File take several), the File kept for its long texts.
    /// Any other log as given.
    fn read_whole_if_changed(&mut self, task: &LogTask, given: GivenLog) -> GivenLog {
        let GivenLog::File(blob) = given else { return given };
        let Some(CacheInRun { cache, labels, .. }) = self.cache.as_ref() else { return GivenLog::File(blob) };
        let (size, time) = (blob.size() as u64, time_of(&blob));
        let name = entry_name(&labels[task.root], &task.listed_path, Purpose::Analyze);
        let changed = cache.can_stand_unread(&name)
            && !cache.stands_unread(&name, Stat { size, modified_ms: time, changed_ns: None });
        let read = (changed && size <= LOG_GIVEN_WHOLE_MAX_BYTES).then(|| read_whole(&blob)).flatten();
        let Some(bytes) = read else { return GivenLog::File(blob) };
        if let Some(BrowserRoot::Files(files)) = self.roots.roots.get_mut(task.root) {
            files.insert(task.listed_path.clone(), BrowserFile::Blob(blob));
        }
        GivenLog::Bytes(bytes, time)
    }

    /// Step 4: joins and outputs.
    pub fn finish(mut self) -> FinishedRun {
        // Logs never given (a page that stopped early) leave a gap; the rest are added in order.
        let released = self.logs.skip_missing(&mut self.parsing);
        self.parse_ready(released);
        let ParsingRun { parsing, mut roots, mut table, logs: queue, cache, unrecorded, .. } = self;
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
            unrecorded: unrecorded.into_iter(),
            cache,
        }
    }
}

/// A finished analysis as the views query it.
pub struct FinishedRun {
    pub table: RowTable,
    pub outputs: Outputs,
    /// For the files the page hands over after `finish`: their sizes go into the report.
    pub late_sizes: LateSizes,
    /// The last filter's matches, so that scrolling is cheap, and its search's progress.
    pub last_filter: RefCell<Option<Matches>>,
    /// The inputs and the logs, kept to read whole the long texts the table holds the start of.
    pub roots: RefCell<BrowserRoots>,
    logs: HashMap<u32, LogTask>,
    options: Options,
    /// The logs whose cache entries are still to make (`ParsingRun::unrecorded`).
    unrecorded: std::vec::IntoIter<u32>,
    /// The page's cache, until its pack is finished (`finish_cache`).
    pub cache: Option<CacheInRun>,
}

/// A log through the page's cache (`LogJob::through_store`), its tally added to the cache's.
/// The pack keeps a log's time beside its entry, and `time` is the log's now, if the page gave
/// it with the log (it gives a new log's after the analysis, `Give::FilesAfterDone`). Says whether
/// the log was read through its entry (not opened whole).
fn through_store(
    cache: &mut PageCache,
    job: LogJob,
    looked_up: LookedUp,
    time: Option<i64>,
    input: LogInput<'_>,
    options: &Options,
    rows: &mut dyn RowSink,
) -> (ParsedLog, bool) {
    let (parsed, tally) = job.through_store(cache, looked_up, time, input, options, rows);
    cache.tally.add(&tally);
    (parsed, tally.parsed == 0)
}

/// A File read whole, in one read.
fn read_whole(blob: &Blob) -> Option<Vec<u8>> {
    let buffer = web_sys::FileReaderSync::new().ok()?.read_as_array_buffer(blob).ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// A File's modification time, if the browser gives one.
fn time_of(blob: &Blob) -> Option<i64> {
    let modified = blob.dyn_ref::<web_sys::File>().map(web_sys::File::last_modified).filter(|ms| *ms > 0.0);
    modified.map(|ms| ms as i64)
}

/// The key of a file handed over as a File (its size and time, and its two ends read here) or
/// as bytes (a store's: the page gives no time with them, so its size and two ends alone say
/// it did not change).
fn key_of_given(root: &str, path: &str, file: &BrowserFile) -> Option<FileKey> {
    match file {
        BrowserFile::Blob(blob) => key_of_ends(root, path, file, blob.size() as u64, time_of(blob)),
        BrowserFile::Bytes(bytes) => key_of_ends(root, path, file, bytes.length() as u64, None),
    }
}

/// The key of a file of `size` bytes, from its two ends read here.
fn key_of_ends(root: &str, path: &str, file: &BrowserFile, size: u64, modified: Option<i64>) -> Option<FileKey> {
    let mut reader = file.reader().ok()?;
    let mut head = vec![0; ENDS_BYTES.min(size as usize)];
    read_exactly(&mut *reader, 0, &mut head)?;
    let tail = if size as usize <= ENDS_BYTES {
        head.clone()
    } else {
        let mut tail = vec![0; ENDS_BYTES];
        read_exactly(&mut *reader, size - ENDS_BYTES as u64, &mut tail)?;
        tail
    };
    Some(FileKey::new(root, path, size, modified, &head, &tail))
}

fn read_exactly(reader: &mut dyn SourceReader, offset: u64, buffer: &mut [u8]) -> Option<()> {
    reader.seek(SeekFrom::Start(offset)).ok()?;
    let mut reader = reader;
    (crate::input::fill(&mut reader, buffer).ok()? == buffer.len()).then_some(())
}

impl FinishedRun {
    /// What the page's cache did in this run.
    pub fn cache_report(&self) -> Option<CacheReport> {
        self.cache.as_ref().map(|CacheInRun { cache, .. }| CacheReport {
            from_cache: cache.tally.cached,
            unread: cache.tally.unread,
            changed: cache.tally.parsed + cache.tally.resumed,
            grown: cache.tally.resumed,
            problem: cache.problem.clone(),
            kept: cache.recording(),
        })
    }

    /// Makes the cache entries of at most `most` of the logs parsed without one, each read
    /// again from its File (handed over with the rest, after done), whose time the worker
    /// knows unasked. Gives how many are left.
    pub fn record_entries(&mut self, most: usize) -> usize {
        let Some(CacheInRun { cache, labels, .. }) = self.cache.as_mut().filter(|cached| cached.cache.recording())
        else {
            return 0;
        };
        for id in self.unrecorded.by_ref().take(most) {
            let Some(task) = self.logs.get(&id) else { continue };
            let roots = &mut *self.roots.borrow_mut();
            let Some(BrowserRoot::Files(files)) = roots.roots.get(task.root) else { continue };
            let Some(BrowserFile::Blob(blob)) = files.get(&task.listed_path) else { continue };
            let (label, time, size) = (&labels[task.root], time_of(blob), blob.size() as u64);
            let name = entry_name(label, &task.listed_path, Purpose::Analyze);
            let file = BrowserFile::Blob(blob.clone());
            let entry = key_of_ends(label, &task.listed_path, &file, size, None).and_then(|key| {
                task.entry_alone(LogInput::Reader(roots), &key, cache.rules(), &self.options, &mut AsTableKeeps)
            });
            if let Some(entry) = entry {
                cache.put(&name, &entry, time);
            }
        }
        self.unrecorded.len()
    }

    /// Answers the page's request.
    pub fn answer(&self, request: Request) -> Result<Answer<'_>, String> {
        let outputs = &self.outputs;
        Ok(match request {
            Request::Summary => Answer::Summary(views::summary(outputs)),
            Request::Rows { filter, offset, limit, text_limit } => {
                Answer::Rows(self.rows(filter, offset, limit, text_limit))
            }
            Request::SearchWhole { filter, budget } => {
                let mut matches = self.matches_of(filter);
                matches.read_more(&self.table, budget as usize, |indices, lines| self.read_again(indices, Some(lines)));
                Answer::Searched(matches.progress())
            }
            Request::SessionsWithPrompt { search } => {
                let prompts = RowFilter { search, prompts_only: true, ..RowFilter::default() };
                let mut ids: Vec<&str> =
                    self.table.filter(&prompts).into_iter().filter_map(|index| self.table.session(index)).collect();
                order::sort(&mut ids);
                ids.dedup();
                Answer::SessionIds(ids)
            }
            Request::Facets => Answer::Facets(self.table.facets()),
            Request::Sessions => Answer::Sessions(outputs.sessions.iter().map(SessionShown::of).collect()),
            Request::Inventory => Answer::Inventory(&outputs.inventory),
            Request::Report => Answer::Report(&outputs.report),
            Request::Usage(query) => Answer::Usage(views::usage_view(outputs, &query)?),
            Request::Month { month, today, allowance, budget } => Answer::Month(
                outputs
                    .usage
                    .month(views::day(&month)?, views::day(&today)?, views::allowance(allowance.as_deref())?)
                    .with_budget(views::allowance(budget.as_deref())?),
            ),
            Request::RowCount => Answer::RowCount(self.table.len() as u32),
            #[cfg(feature = "extras")]
            Request::Export { what, session_id } => Answer::Text(self.export(&what, &session_id)?),
            #[cfg(feature = "extras")]
            Request::ExportRows { what, offset, limit } => Answer::Text(self.export_rows(&what, offset, limit)?),
            #[cfg(feature = "extras")]
            Request::ShareReport(asked) => Answer::Text(self.share_report(&asked)?),
            #[cfg(feature = "extras")]
            Request::TeamExport(asked) => Answer::Text(self.team_export(&asked)?),
            #[cfg(not(feature = "extras"))]
            Request::Export { .. } | Request::ExportRows { .. } | Request::ShareReport(_) | Request::TeamExport(_) => {
                return Err(crate::protocol::NOT_IN_FIRST_ENGINE.into());
            }
            Request::SessionCredits => Answer::SessionCredits(
                (outputs.usage.ledgers.iter())
                    .map(|(id, ledger)| (id.as_str(), CreditsUsed::of(&outputs.usage.rates, ledger.entries.iter())))
                    .collect(),
            ),
        })
    }

    /// The `limit` rows from `offset` of those passing `filter`; the last filter's matches
    /// are kept, so scrolling is cheap.
    fn rows(&self, filter: RowFilter, offset: u32, limit: u32, text_limit: u32) -> RowsPage {
        let search = Needle::new(&filter.search);
        let matches = self.matches_of(filter);
        let indices: Vec<u32> = matches.rows.iter().skip(offset as usize).take(limit as usize).copied().collect();
        let progress = matches.progress();
        drop(matches); // reading whole texts borrows the roots, not the matches
        let rows = views::shown_rows(&self.table, &indices, text_limit, &search, |indices| self.full_rows(indices));
        RowsPage { total: progress.total, unread: progress.left, rows }
    }

    /// The matches of `filter`, kept from the last request when it asked the same.
    fn matches_of(&self, filter: RowFilter) -> RefMut<'_, Matches> {
        let mut cache = self.last_filter.borrow_mut();
        if cache.as_ref().is_some_and(|matches| matches.filter != filter) {
            *cache = None;
        }
        RefMut::map(cache, |cache| cache.get_or_insert_with(|| Matches::new(&self.table, filter)))
    }

    /// A file handed over after `finish`: its size completes the report, and a log among them
    /// is where long texts are read again.
    pub fn give_late(&mut self, root: usize, path: String, blob: Blob, size: u64) {
        self.late_sizes.place(&mut self.outputs.report, root, &path, size);
        if let Some(BrowserRoot::Files(files)) = self.roots.get_mut().roots.get_mut(root) {
            files.insert(path, BrowserFile::Blob(blob));
        }
    }

    /// The rows at `indices`, each with its whole text: a text the table cut is read again
    /// from its line (each log opened once, its lines in order) by its source's parser.
    pub fn full_rows(&self, indices: &[u32]) -> FullRows {
        self.read_again(indices, None)
    }

    /// As `full_rows`; with `holding`, a text whose line it says cannot hold its search is left
    /// cut, its line not parsed (where the log's rows are made again line by line).
    fn read_again(&self, indices: &[u32], holding: Option<&LineFilter>) -> FullRows {
        let rows: Vec<OwnedRow> = indices.iter().filter_map(|&index| self.table.row(index)).collect();
        let mut full = FullRows { rows, errors: BTreeMap::new() };
        let mut by_log: BTreeMap<u32, Vec<(u64, u32, usize)>> = BTreeMap::new();
        for (slot, &index) in indices.iter().enumerate().take(full.rows.len()) {
            if let Some(locator) = self.table.cut_text(index) {
                by_log.entry(locator.file).or_default().push((locator.offset, locator.ordinal, slot));
            }
        }
        let mut roots = self.roots.borrow_mut();
        for (file, mut wanted) in by_log {
            let mut fail = |wanted: &[(u64, u32, usize)], why: String| {
                for (_, _, slot) in wanted {
                    full.errors.entry(*slot).or_insert_with(|| why.clone());
                }
            };
            let Some(task) = self.logs.get(&file) else {
                fail(&wanted, "its log is not known".to_string());
                continue;
            };
            let lines = match roots.open_lines(task.root, &task.listed_path) {
                Ok(lines) => lines,
                Err(error) => {
                    fail(&wanted, format!("{}: cannot open it again: {error}", task.source));
                    continue;
                }
            };
            order::sort(&mut wanted);
            let context = task.context(&self.options);
            let holding = holding.filter(|_| task.source().rows_by_line());
            let mut lines = LineKept { lines, kept: None };
            let mut last: Option<(u64, Vec<OwnedRow>)> = None;
            for (at, &(offset, ordinal, slot)) in wanted.iter().enumerate() {
                if let Some(holding) = holding {
                    match lines.line_at(offset) {
                        Ok(line) if !holding.may_match(line) => continue,
                        Ok(_) => {}
                        Err(error) => {
                            fail(&wanted[at..], format!("{}: cannot read it again: {error}", task.source));
                            break;
                        }
                    }
                }
                if last.as_ref().is_none_or(|(line_at, _)| *line_at != offset) {
                    match task.source().rows_again(&context, &mut lines, offset) {
                        Ok(rows) => last = Some((offset, rows)),
                        Err(error) => {
                            fail(&wanted[at..], format!("{}: cannot read it again: {error}", task.source));
                            break;
                        }
                    }
                }
                match last.as_ref().and_then(|(_, again)| again.get(ordinal as usize)) {
                    // Scrubbed as the row was when first given.
                    Some(again) => full.rows[slot].text = crate::scrub::scrub(&again.text).0,
                    None => fail(&wanted[at..=at], format!("{}: its line no longer gives this row", task.source)),
                }
            }
        }
        full
    }
}

/// A log's lines read again, the last one kept: a line checked for a search is then parsed
/// without being read twice.
struct LineKept<'a> {
    lines: LineSource<'a>,
    kept: Option<(u64, Vec<u8>)>,
}

impl LineKept<'_> {
    fn line_at(&mut self, offset: u64) -> std::io::Result<&[u8]> {
        let kept = match self.kept.take() {
            Some((at, line)) if at == offset => line,
            _ => self.lines.line_at(offset)?,
        };
        Ok(&self.kept.insert((offset, kept)).1)
    }
}

impl LogAgain for LineKept<'_> {
    fn line_at(&mut self, offset: u64) -> std::io::Result<Vec<u8>> {
        match self.kept.take() {
            Some((at, line)) if at == offset => Ok(line),
            _ => self.lines.line_at(offset),
        }
    }

    fn whole(&mut self) -> std::io::Result<&mut dyn std::io::BufRead> {
        self.lines.whole()
    }
}
