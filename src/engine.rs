//! The browser's analysis, fed by the page's messages: the analysis steps of
//! `crate::analysis` held one at a time in a [`Stage`], so each call can do only what the step
//! it holds allows, and the finished analysis as the views query it (a row table, the outputs,
//! and the inputs kept to read long texts again). `crate::wasm` exports it.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use web_sys::Blob;

use crate::analysis::{LateSizes, LogJob, LogQueue, LogTask, Options, Outputs, ParsedLog, Parsing, Planned, Released};
use crate::input::RootListing;
use crate::input::browser::{BrowserFile, BrowserRoot, BrowserRoots};
use crate::input::zip::RawEntry;
use crate::model::OwnedRow;
use crate::order;
use crate::table::RowTable;

/// A zip's entries up to this size are inflated in the archive's order before the metadata
/// files are read (see `ZipRoot::read_ahead`); larger ones (the store) are read when asked for.
const READ_AHEAD_MAX_BYTES: u64 = 1 << 20;

/// The largest log the page reads whole and hands over as bytes (a zip's, inflated by its
/// second worker). A larger one is read here in windows (a File, or a zip entry inflated as it
/// is read), so that the memory a log takes does not grow with its size: a line longer than
/// `MAX_LINE_BYTES` keeps only its start.
pub const LOG_GIVEN_WHOLE_MAX_BYTES: u64 = 16 << 20;

/// Where an analysis is.
pub enum Stage {
    /// Roots are being added.
    Adding {
        roots: Vec<BrowserRoot>,
        listings: Vec<RootListing>,
    },
    /// Planned; the page is handing the files over.
    Planned(Box<PlannedRun>),
    /// The metadata is read; the logs come one by one.
    Parsing(Box<ParsingRun>),
    Done(Box<Done>),
}

pub struct PlannedRun {
    pub planned: Planned,
    pub roots: BrowserRoots,
    pub stores: Stores,
}

pub struct ParsingRun {
    pub parsing: Parsing,
    pub roots: BrowserRoots,
    pub table: RowTable,
    /// The page hands a zip's logs over in the archive's order (one read for many entries,
    /// where a read for each costs the browser a millisecond): each log is parsed into a table
    /// of its own, and the queue puts the tables back in the logs' order.
    logs: LogQueue<RowTable, GivenLog>,
}

/// When the stores (step 2's first part) are read.
pub enum Stores {
    /// As soon as the page has handed over these files, the last of them.
    Awaiting(Vec<(usize, String)>),
    /// With the other metadata (a store in a zip, read ahead with the zip's small files).
    WithMetadata,
}

/// What the page is to hand over from its folder roots, in this order (see `Engine::begin`).
#[derive(Serialize)]
pub struct HandOver {
    /// As Files: the files read in parts.
    pub files: Vec<(usize, String)>,
    /// As bytes: the other small files, the stores' first.
    pub small: Vec<(usize, String)>,
    /// The logs, numbered by their place here for `parse_log`.
    pub logs: Vec<LogToGive>,
}

#[derive(Serialize)]
pub struct LogToGive {
    pub root: usize,
    pub path: String,
    /// Whether the page hands it over: as bytes, or as a File when it is larger than
    /// `LOG_GIVEN_WHOLE_MAX_BYTES` (from a zip, as bytes by `entry`; a larger entry is not given).
    pub given: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<RawEntry>,
}

impl PlannedRun {
    pub fn new(planned: Planned, roots: BrowserRoots) -> (PlannedRun, HandOver) {
        let given_by_page = |root: usize| matches!(roots.roots.get(root), Some(BrowserRoot::Files(_)));
        let (mut in_parts, mut small) = (Vec::new(), Vec::new());
        for (root, path, read_in_parts) in planned.metadata_files().filter(|(root, _, _)| given_by_page(*root)) {
            if read_in_parts { &mut in_parts } else { &mut small }.push((root, path.to_string()));
        }
        // The stores first: they are read as soon as they are in, while the rest comes; a
        // store in a zip is read with the zip's other small files.
        let stores: Vec<(usize, String)> = planned.store_files().map(|(root, path)| (root, path.to_string())).collect();
        order::sort_by_key(&mut small, |pair| !stores.contains(pair));
        let stores = if !stores.is_empty() && stores.iter().all(|(root, _)| given_by_page(*root)) {
            Stores::Awaiting(stores)
        } else {
            Stores::WithMetadata
        };
        let logs = planned
            .log_files()
            .map(|(root, path)| {
                let (given, entry) = match roots.roots.get(root) {
                    Some(BrowserRoot::Zip(zip)) => {
                        let entry = zip.raw_entry(path).filter(|entry| entry.size <= LOG_GIVEN_WHOLE_MAX_BYTES);
                        (entry.is_some(), entry)
                    }
                    _ => (given_by_page(root), None),
                };
                LogToGive { root, path: path.to_string(), given, entry }
            })
            .collect();
        (PlannedRun { planned, roots, stores }, HandOver { files: in_parts, small, logs })
    }

    /// A file of a folder root handed over; the stores are read once the last of theirs is in.
    pub fn give(&mut self, root: usize, path: String, file: BrowserFile, size: u64, modified_ms: Option<i64>) {
        if self.planned.set_file_facts(root, &path, size, modified_ms) {
            self.roots.progress.state.borrow_mut().total += size as f64;
        }
        let stores_complete = match &mut self.stores {
            Stores::Awaiting(pending) => {
                pending.retain(|(of, at)| (*of, at.as_str()) != (root, path.as_str()));
                pending.is_empty()
            }
            Stores::WithMetadata => false,
        };
        if let Some(BrowserRoot::Files(files)) = self.roots.roots.get_mut(root) {
            files.insert(path, file);
        }
        if stores_complete {
            self.planned.read_stores(&mut self.roots);
        }
    }

    /// Step 2: every file but the logs. Returns the next step and the files handed over as
    /// bytes whose modification times the rows need.
    pub fn read_metadata(self) -> (ParsingRun, Vec<(usize, String)>) {
        let PlannedRun { planned, mut roots, .. } = self;
        for (root, browser_root) in roots.roots.iter_mut().enumerate() {
            if let BrowserRoot::Zip(zip) = browser_root {
                let small = planned.metadata_files().filter(|(of, _, _)| *of == root).map(|(_, path, _)| path);
                zip.read_ahead(small, READ_AHEAD_MAX_BYTES);
            }
        }
        let parsing = planned.read_metadata(&mut roots);
        let needed = parsing.files_needing_times().map(|(root, path)| (root, path.to_string())).collect();
        let logs = LogQueue::new(&parsing);
        (ParsingRun { parsing, roots, table: RowTable::default(), logs }, needed)
    }
}

/// A log as the page hands it over.
pub enum GivenLog {
    /// The whole file, read by the page.
    Bytes(Vec<u8>),
    /// A File of a folder root, read here in windows.
    File(Blob),
    /// Nothing: read from its root (a zip entry the page does not inflate, or a File handed
    /// over already).
    FromRoot,
}

impl ParsingRun {
    /// Parses log `index` (of the `logs` `begin` named), as given; the logs come in any order.
    /// A later copy of a session's log (`Copies::Later`) waits for the copies before it.
    pub fn parse_log(&mut self, index: usize, given: GivenLog) -> Result<(), String> {
        let ready = self.logs.give(&mut self.parsing, index, given)?;
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
        let task = &job.task;
        match given {
            GivenLog::Bytes(bytes) => {
                self.roots.progress.add_file(task.root, &task.listed_path, bytes.len() as f64);
                job.parse_bytes(&bytes, self.parsing.options(), rows)
            }
            GivenLog::File(blob) => {
                if let Some(BrowserRoot::Files(files)) = self.roots.roots.get_mut(task.root) {
                    files.insert(task.listed_path.clone(), BrowserFile::Blob(blob));
                }
                job.parse(&mut self.roots, self.parsing.options(), rows)
            }
            GivenLog::FromRoot => job.parse(&mut self.roots, self.parsing.options(), rows),
        }
    }

    /// Step 4: joins and outputs.
    pub fn finish(mut self) -> Done {
        // Logs never given (a page that stopped early) leave a gap; the rest are added in order.
        let released = self.logs.skip_missing(&mut self.parsing);
        self.parse_ready(released);
        let ParsingRun { parsing, mut roots, mut table, logs: queue } = self;
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
        Done {
            table,
            outputs,
            late_sizes,
            last_filter: RefCell::new(None),
            roots: RefCell::new(roots),
            logs: tasks.iter().map(|task| (task.file as u32, task.clone())).collect(),
            options,
        }
    }
}

/// A finished analysis as the views query it.
pub struct Done {
    pub table: RowTable,
    pub outputs: Outputs,
    /// For the files the page hands over after `finish`: their sizes go into the report.
    pub late_sizes: LateSizes,
    pub last_filter: RefCell<Option<(crate::table::RowFilter, Vec<u32>)>>,
    /// The inputs and the logs, kept to read whole the long texts the table holds the start of.
    pub roots: RefCell<BrowserRoots>,
    logs: HashMap<u32, LogTask>,
    options: Options,
}

/// Rows with their whole texts, and why a text could not be read again (it stays cut).
pub struct FullRows {
    pub rows: Vec<OwnedRow>,
    /// By the row's place in `rows`.
    pub errors: BTreeMap<usize, String>,
}

impl Done {
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
            let mut lines = match roots.open_lines(task.root, &task.listed_path) {
                Ok(lines) => lines,
                Err(error) => {
                    fail(&wanted, format!("{}: cannot open it again: {error}", task.source));
                    continue;
                }
            };
            order::sort(&mut wanted);
            let context = task.context(&self.options);
            let mut last: Option<(u64, Vec<OwnedRow>)> = None;
            for (at, &(offset, ordinal, slot)) in wanted.iter().enumerate() {
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
