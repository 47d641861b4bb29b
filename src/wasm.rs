//! The browser boundary: one exported type, `Engine`, driven by the page's Web Worker.
//! Options and results cross as plain JS objects (serde); every error is a `js_sys::Error`.
//! Files are read lazily from Blobs (see `input::blob`); rows stay here, in a `RowTable`, and
//! the page asks for the slice it shows.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use js_sys::{Array, Function, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::Blob;

use crate::analysis::{Analysis, LateSizes, LogTask, Options, Outputs, Tally, TallySink};
use crate::sources::copilot_cli::events::{self, reparse_line};
use crate::export;
use crate::input::blob::BlobReader;
use crate::input::zip::ZipRoot;
use crate::input::{FileReader, ListedFile, ReadAt, RootListing};
use crate::lines::MAX_LINE_BYTES;
use crate::model::OwnedRow;
use crate::table::{RowFilter, RowTable, TableRow};
use crate::usage::Zone;
use crate::usage::rates::RateTable;
use crate::usage::summary::{self, DayRange, GroupBy};

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

fn to_js(value: &impl Serialize) -> Result<JsValue, JsError> {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).map_err(js_error)
}

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct EngineOptions {
    include_thinking: bool,
    timezone: Option<String>,
    /// A user's rates file (JSON), replacing or adding to the pinned table.
    rates: Option<String>,
    /// The most memory the engine may use, in MiB (default `DEFAULT_MEMORY_LIMIT_MIB`).
    memory_limit_mib: Option<u32>,
}

/// A wasm32 memory cannot pass 4 GiB; stopping at 3 GiB leaves room to finish the step under
/// way and to serve the views, where running into the wall would end in a trap.
const DEFAULT_MEMORY_LIMIT_MIB: u32 = 3072;

/// The engine's memory in MiB (a WebAssembly memory only grows, so this is its peak).
fn memory_mib() -> u32 {
    // A WebAssembly page is 64 KiB: 16 to the MiB.
    (core::arch::wasm32::memory_size::<0>() / 16) as u32
}

/// Rows made at a time for a whole export, so that no step holds all of them as values.
const EXPORT_PART_ROWS: u32 = 20_000;

/// A zip's entries up to this size are inflated in the archive's order before the metadata
/// files are read (see `ZipRoot::read_ahead`); larger ones (the store) are read when asked for.
const READ_AHEAD_MAX_BYTES: u64 = 1 << 20;

enum BrowserRoot {
    Files(HashMap<String, Source>),
    Zip(ZipRoot<BlobReader>),
}

/// A file of a folder root: a Blob read lazily, or bytes the page read ahead.
enum Source {
    Blob(Blob),
    Bytes(Uint8Array),
}

/// What a folder root's file is read through: in order, at positions, or sought.
trait SourceReader: Read + Seek + ReadAt {}
impl<T: Read + Seek + ReadAt> SourceReader for T {}

impl Source {
    fn reader(&self) -> io::Result<Box<dyn SourceReader>> {
        Ok(match self {
            Source::Blob(blob) => Box::new(BlobReader::new(blob.clone())?),
            Source::Bytes(array) => Box::new(ArrayReader { array: array.clone(), position: 0 }),
        })
    }
}

/// Reads bytes held in a JS `Uint8Array`, copying a slice at a time into wasm memory.
struct ArrayReader {
    array: Uint8Array,
    position: u32,
}

impl Read for ArrayReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let end = self.array.length().min(self.position.saturating_add(out.len().min(u32::MAX as usize) as u32));
        let count = (end - self.position) as usize;
        if count > 0 {
            self.array.subarray(self.position, end).copy_to(&mut out[..count]);
            self.position = end;
        }
        Ok(count)
    }
}

impl Seek for ArrayReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let length = self.array.length() as u64;
        let target = match to {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => length.checked_add_signed(delta),
            SeekFrom::Current(delta) => (self.position as u64).checked_add_signed(delta),
        };
        let target = target.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        self.position = target.min(length) as u32;
        Ok(target)
    }
}

/// A log opened again to read some of its lines: it seeks where the root allows it (a Blob,
/// bytes read ahead) and the next line is not close ahead, and reads forward otherwise (always
/// on a zip entry).
enum LineSource<'a> {
    Seekable(BufReader<Box<dyn SourceReader>>, u64),
    Forward(BufReader<Box<dyn Read + 'a>>, u64),
}

/// How far ahead a seekable log is read through rather than sought.
const READ_THROUGH: u64 = 1 << 20;

impl LineSource<'_> {
    /// The line starting at `offset`, with its line end; offsets must not go back on a zip entry.
    fn line_at(&mut self, offset: u64) -> io::Result<Vec<u8>> {
        let (reader, position): (&mut dyn BufRead, &mut u64) = match self {
            LineSource::Seekable(reader, position) => {
                if offset < *position || offset - *position > READ_THROUGH {
                    reader.seek(SeekFrom::Start(offset))?;
                    *position = offset;
                }
                (reader, position)
            }
            LineSource::Forward(reader, position) => {
                if offset < *position {
                    return Err(io::Error::other("a zip entry is read forward only"));
                }
                (reader, position)
            }
        };
        io::copy(&mut reader.take(offset - *position), &mut io::sink())?;
        let mut line = Vec::new();
        let count = reader.take(MAX_LINE_BYTES as u64 + 2).read_until(b'\n', &mut line)?;
        *position = offset + count as u64;
        Ok(line)
    }
}

impl BrowserRoots {
    fn open_lines(&mut self, root: usize, path: &str) -> io::Result<LineSource<'_>> {
        let missing = || io::Error::new(io::ErrorKind::NotFound, path.to_string());
        Ok(match self.roots.get_mut(root) {
            Some(BrowserRoot::Files(files)) => LineSource::Seekable(
                BufReader::with_capacity(1 << 16, files.get(path).ok_or_else(missing)?.reader()?),
                0,
            ),
            Some(BrowserRoot::Zip(zip)) => {
                LineSource::Forward(BufReader::with_capacity(1 << 16, zip.open_entry(path)?), 0)
            }
            None => return Err(missing()),
        })
    }
}

/// The roots as the core reads them, reporting progress as bytes go by.
struct BrowserRoots {
    roots: Vec<BrowserRoot>,
    progress: Progress,
}

#[derive(Clone)]
struct Progress {
    state: std::rc::Rc<RefCell<ProgressState>>,
}

struct ProgressState {
    callback: Function,
    total: f64,
    done: f64,
    files: u32,
    files_total: u32,
    /// Files opened so far: a file opened twice (the store's WAL is read in two passes)
    /// counts once, and its bytes once.
    opened: HashSet<(usize, String)>,
    last_report: f64,
    /// The run is over: files opened again later are not progress.
    finished: bool,
}

impl Progress {
    /// A file the worker read itself and handed over whole.
    fn add_file(&self, root: usize, path: &str, bytes: f64) {
        let first = {
            let mut state = self.state.borrow_mut();
            let first = state.opened.insert((root, path.to_string()));
            if first {
                state.files += 1;
                state.done += bytes;
            }
            first
        };
        if first {
            self.report(path);
        }
    }

    fn report(&self, file: &str) {
        let mut state = self.state.borrow_mut();
        if state.finished {
            return;
        }
        state.last_report = state.done;
        let message = js_sys::Object::new();
        let set = |key: &str, value: JsValue| js_sys::Reflect::set(&message, &key.into(), &value).ok();
        set("bytes", state.done.into());
        set("total", state.total.into());
        set("files", state.files.into());
        set("files_total", state.files_total.into());
        set("file", file.into());
        let _ = state.callback.call1(&JsValue::NULL, &message);
    }
}

struct CountingReader<'a> {
    inner: Box<dyn Read + 'a>,
    progress: Progress,
    file: String,
    /// False on a second opening of the same file.
    counts: bool,
}

impl Read for CountingReader<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let count = self.inner.read(out)?;
        if !self.counts {
            return Ok(count);
        }
        let due = {
            let mut state = self.progress.state.borrow_mut();
            state.done += count as f64;
            state.done - state.last_report >= 4_000_000.0
        };
        if due {
            self.progress.report(&self.file);
        }
        Ok(count)
    }
}

impl FileReader for BrowserRoots {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let inner: Box<dyn Read + '_> = match self.roots.get_mut(root) {
            Some(BrowserRoot::Files(files)) => {
                files.get(path).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, path.to_string()))?.reader()?
            }
            Some(BrowserRoot::Zip(zip)) => zip.open_entry(path)?,
            None => return Err(io::Error::new(io::ErrorKind::NotFound, "no such root")),
        };
        let first = {
            let mut state = self.progress.state.borrow_mut();
            let first = state.opened.insert((root, path.to_string()));
            if first {
                state.files += 1;
            }
            first
        };
        if first {
            self.progress.report(path);
        }
        Ok(Box::new(CountingReader { inner, progress: self.progress.clone(), file: path.to_string(), counts: first }))
    }

    /// Loose files and folders give positional reads (the session store is then read page by
    /// page); zip entries do not.
    fn open_at(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        let Some(BrowserRoot::Files(files)) = self.roots.get(root) else { return None };
        Some(files.get(path)?.reader().map(|reader| reader as Box<dyn ReadAt>))
    }
}

impl ReadAt for ArrayReader {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        self.position = u32::try_from(offset).unwrap_or(u32::MAX).min(self.array.length());
        crate::input::fill(self, buffer)
    }
}

/// An analysis between `begin` and `finish`.
struct Running {
    analysis: Analysis,
    roots: BrowserRoots,
    table: RowTable,
    tasks: Vec<LogTask>,
    next: usize,
    stores: Stores,
}

/// When the stores (phase 1's first part) are read.
enum Stores {
    /// As soon as the page has handed over these files, the last of them.
    Awaiting(Vec<(usize, String)>),
    /// With the other metadata (a store in a zip, read ahead with the zip's small files).
    WithMetadata,
    Read,
}

struct Finished {
    table: RowTable,
    outputs: Outputs,
    last_filter: RefCell<Option<(RowFilter, Vec<u32>)>>,
    /// The inputs and the logs, kept to read whole the long texts the table holds the start of.
    roots: RefCell<BrowserRoots>,
    logs: HashMap<u32, LogTask>,
    options: Options,
    /// For the files the page hands over after `finish` (`give_files`): their sizes go into
    /// the report.
    late_sizes: LateSizes,
}

impl Finished {
    /// The rows at `indices`, each with its whole text: a text the table cut is read again
    /// from its line (each log opened once, its lines in order) and made by the same parser.
    /// A text that cannot be read again stays cut.
    fn full_rows(&self, indices: &[u32]) -> Vec<OwnedRow> {
        let mut rows: Vec<OwnedRow> = indices.iter().filter_map(|&index| self.table.row(index)).collect();
        if rows.len() != indices.len() {
            return rows;
        }
        let mut by_log: BTreeMap<u32, Vec<(u64, u32, usize)>> = BTreeMap::new();
        for (slot, &index) in indices.iter().enumerate() {
            if let Some(locator) = self.table.cut_text(index) {
                by_log.entry(locator.file).or_default().push((locator.offset, locator.ordinal, slot));
            }
        }
        let mut roots = self.roots.borrow_mut();
        for (file, mut wanted) in by_log {
            let Some(task) = self.logs.get(&file) else { continue };
            let Ok(mut source) = roots.open_lines(task.root, &task.listed_path) else { continue };
            wanted.sort_unstable();
            let context = task.context(&self.options);
            let mut last: Option<(u64, Vec<OwnedRow>)> = None;
            for (offset, ordinal, slot) in wanted {
                if last.as_ref().is_none_or(|(at, _)| *at != offset) {
                    let Ok(line) = source.line_at(offset) else { break };
                    last = Some((offset, reparse_line(&context, &line)));
                }
                if let Some(again) = last.as_ref().and_then(|(_, again)| again.get(ordinal as usize)) {
                    rows[slot].text.clone_from(&again.text);
                }
            }
        }
        rows
    }
}

/// Inflates a zip entry's data for the page (`ZipRoot::raw_entry` says where it lies). The
/// page runs it in a second worker, so that inflating and parsing go on at once.
#[wasm_bindgen]
pub fn inflate(packed: &[u8], size: f64, crc32: u32) -> Result<Vec<u8>, JsError> {
    crate::input::zip::inflate_entry(packed, size as u64, crc32).map_err(js_error)
}

/// One analysis in the browser: add roots, run, then query.
#[wasm_bindgen]
pub struct Engine {
    options: Options,
    memory_limit_mib: u32,
    roots: Vec<BrowserRoot>,
    listings: Vec<RootListing>,
    running: Option<Running>,
    finished: Option<Finished>,
}

#[wasm_bindgen]
impl Engine {
    /// `options`: `{include_thinking, timezone, rates}` (all optional).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Engine, JsError> {
        let given: EngineOptions = if options.is_undefined() || options.is_null() {
            EngineOptions::default()
        } else {
            serde_wasm_bindgen::from_value(options).map_err(js_error)?
        };
        let zone = Zone::parse(given.timezone.as_deref().unwrap_or("UTC")).map_err(js_error)?;
        let rates = match &given.rates {
            Some(text) => RateTable::with_overrides(text).map_err(js_error)?,
            None => RateTable::default_table(),
        };
        Ok(Engine {
            options: Options { include_thinking: given.include_thinking, zone, rates },
            memory_limit_mib: given.memory_limit_mib.unwrap_or(DEFAULT_MEMORY_LIMIT_MIB),
            roots: Vec::new(),
            listings: Vec::new(),
            running: None,
            finished: None,
        })
    }

    /// A folder or loose files as one root, by their paths relative to the root
    /// (`webkitRelativePath` less the folder's name, or names). The files themselves are handed
    /// over once the analysis is planned (`give_bytes`, `give_files`): a browser pays for each
    /// File it hands to a worker, so the page hands them while the analysis runs.
    pub fn add_listing(&mut self, label: String, paths: Vec<String>) {
        let files = paths.into_iter().map(|path| ListedFile { path, size: 0, modified_ms: None }).collect();
        self.listings.push(RootListing { label, files, problems: Vec::new() });
        self.roots.push(BrowserRoot::Files(HashMap::new()));
    }

    /// A zip of a home or of `~/.copilot` as one root, read entry by entry.
    pub fn add_zip(&mut self, label: String, file: Blob) -> Result<(), JsError> {
        let reader = BlobReader::new(file).map_err(js_error)?;
        let (zip, listing) = ZipRoot::open(reader, &label).map_err(js_error)?;
        self.listings.push(listing);
        self.roots.push(BrowserRoot::Zip(zip));
        Ok(())
    }

    /// Plans the analysis; `progress` is called with `{bytes, total, files, files_total, file}`.
    /// Returns what the page is to hand over from its folder roots, in this order: `{files:
    /// [[root, path]]}` as Files (process logs, read in parts), `{small: [[root, path]]}` as
    /// bytes, the stores' files first (a store's pages are read all over its log, which costs
    /// a Blob a round trip each; the stores are read as soon as they are in), then
    /// `read_metadata`, and `{logs: [{root, path, given, entry?}]}`, the logs in the order
    /// `parse_log` takes them (`given`: the page hands its bytes, from a zip by `entry`, which
    /// says where its data lies). Every other file is handed over as a File after `finish`.
    pub fn begin(&mut self, progress: Function) -> Result<JsValue, JsError> {
        let analysis = Analysis::plan(std::mem::take(&mut self.listings), self.options.clone()).map_err(js_error)?;
        let state = ProgressState {
            callback: progress,
            total: analysis.bytes_to_read() as f64,
            done: 0.0,
            files: 0,
            files_total: analysis.files_to_read() as u32,
            opened: HashSet::new(),
            last_report: 0.0,
            finished: false,
        };
        let roots = BrowserRoots {
            roots: std::mem::take(&mut self.roots),
            progress: Progress { state: std::rc::Rc::new(RefCell::new(state)) },
        };
        let given_by_page = |root: usize| matches!(roots.roots.get(root), Some(BrowserRoot::Files(_)));
        let (mut in_parts, mut small) = (Vec::new(), Vec::new());
        for (root, path, read_in_parts) in analysis.metadata_files().filter(|(root, _, _)| given_by_page(*root)) {
            if read_in_parts { &mut in_parts } else { &mut small }.push((root, path.to_string()));
        }
        // The stores first: they are read as soon as they are in, while the rest comes; a
        // store in a zip is read with the zip's other small files.
        let stores: Vec<(usize, String)> =
            analysis.store_files().map(|(root, path)| (root, path.to_string())).collect();
        small.sort_by_key(|pair| !stores.contains(pair));
        let stores = if stores.iter().all(|(root, _)| given_by_page(*root)) {
            Stores::Awaiting(stores)
        } else {
            Stores::WithMetadata
        };
        let tasks = analysis.log_tasks();
        let logs: Vec<serde_json::Value> = tasks
            .iter()
            .map(|task| match roots.roots.get(task.root) {
                Some(BrowserRoot::Zip(zip)) => match zip.raw_entry(&task.listed_path) {
                    Some(entry) => serde_json::json!({ "root": task.root, "path": task.listed_path, "given": true, "entry": entry }),
                    None => serde_json::json!({ "root": task.root, "path": task.listed_path, "given": false }),
                },
                _ => serde_json::json!({ "root": task.root, "path": task.listed_path, "given": given_by_page(task.root) }),
            })
            .collect();
        self.running = Some(Running { analysis, roots, table: RowTable::default(), tasks, next: 0, stores });
        to_js(&serde_json::json!({ "files": in_parts, "small": small, "logs": logs }))
    }

    /// A file of a folder root handed over as bytes (read by the page). Its time is asked for
    /// only if its rows need it (`read_metadata`).
    pub fn give_bytes(&mut self, root: usize, path: String, bytes: Uint8Array) -> Result<(), JsError> {
        let size = bytes.length() as u64;
        let stores_complete = match self.running.as_mut().map(|running| &mut running.stores) {
            Some(Stores::Awaiting(pending)) => {
                pending.retain(|(of, at)| (*of, at.as_str()) != (root, path.as_str()));
                pending.is_empty()
            }
            _ => false,
        };
        self.give(root, path, Source::Bytes(bytes), size, 0.0)?;
        if stores_complete {
            let running = self.running.as_mut().expect("given above");
            running.stores = Stores::Read;
            running.analysis.read_stores(&mut running.roots);
        }
        Ok(())
    }

    /// Files of a folder root handed over as File objects (read lazily, a slice at a time); each
    /// file is handed over once, as bytes or as a File. The files the analysis does not read
    /// may come after `finish`: their sizes complete the report, and the logs among them are
    /// where long texts are read again (the page waits for them before asking for either).
    pub fn give_files(&mut self, root: usize, files: Array, paths: Vec<String>) -> Result<(), JsError> {
        for (file, path) in files.iter().zip(paths) {
            let blob: Blob = file.dyn_into().map_err(|_| js_error("not a File or Blob"))?;
            let size = blob.size() as u64;
            if let Some(done) = self.finished.as_mut().filter(|_| self.running.is_none()) {
                done.late_sizes.place(&mut done.outputs.report, root, &path, size);
                if let Some(BrowserRoot::Files(files)) = done.roots.get_mut().roots.get_mut(root) {
                    files.insert(path, Source::Blob(blob));
                }
                continue;
            }
            let modified_ms = blob.dyn_ref::<web_sys::File>().map_or(0.0, web_sys::File::last_modified);
            self.give(root, path, Source::Blob(blob), size, modified_ms)?;
        }
        Ok(())
    }

    fn give(&mut self, root: usize, path: String, source: Source, size: u64, modified_ms: f64) -> Result<(), JsError> {
        let running = self.running.as_mut().ok_or_else(|| js_error("begin the analysis first"))?;
        let Some(BrowserRoot::Files(files)) = running.roots.roots.get_mut(root) else {
            return Err(js_error("not a folder root"));
        };
        let modified = (modified_ms > 0.0).then_some(modified_ms as i64);
        if running.analysis.set_file_facts(root, &path, size, modified) {
            running.roots.progress.state.borrow_mut().total += size as f64;
        }
        files.insert(path, source);
        Ok(())
    }

    /// Reads every file but the event logs (the page has handed over the `files` and `small`
    /// files `begin` named). Returns the files handed over as bytes whose modification times
    /// the rows need, `[[root, path]]`: the page gives them (`give_time`) before `finish`.
    pub fn read_metadata(&mut self) -> Result<JsValue, JsError> {
        let running = self.running.as_mut().ok_or_else(|| js_error("begin the analysis first"))?;
        for (root, browser_root) in running.roots.roots.iter_mut().enumerate() {
            if let BrowserRoot::Zip(zip) = browser_root {
                let small = running.analysis.metadata_files().filter(|(of, _, _)| *of == root).map(|(_, path, _)| path);
                zip.read_ahead(small, READ_AHEAD_MAX_BYTES);
            }
        }
        // Unless read already: a store in a zip, or one the page handed over as a File.
        if !matches!(std::mem::replace(&mut running.stores, Stores::Read), Stores::Read) {
            running.analysis.read_stores(&mut running.roots);
        }
        running.analysis.read_other_metadata(&mut running.roots);
        // A log's rows before its first working directory take the project and branch of
        // workspace.yaml, the store or the sidebar, which are known only now.
        running.tasks = running.analysis.log_tasks();
        let needed: Vec<(usize, String)> =
            running.analysis.files_needing_times().map(|(root, path)| (root, path.to_string())).collect();
        self.check_memory()?;
        to_js(&needed)
    }

    /// A file's modification time (ms since the epoch), asked for by `read_metadata`.
    pub fn give_time(&mut self, root: usize, path: &str, modified_ms: f64) -> Result<(), JsError> {
        let running = self.running.as_mut().ok_or_else(|| js_error("begin the analysis first"))?;
        if modified_ms > 0.0 {
            running.analysis.set_file_time(root, path, modified_ms as i64);
        }
        Ok(())
    }

    /// Parses the next log: from `bytes` (a Uint8Array of the whole file, read by the page)
    /// when given, else from its root.
    pub fn parse_log(&mut self, bytes: JsValue) -> Result<(), JsError> {
        let running = self.running.as_mut().ok_or_else(|| js_error("begin the analysis first"))?;
        let task = running.tasks.get(running.next).ok_or_else(|| js_error("every log is parsed already"))?.clone();
        running.next += 1;
        let mut tally = Tally::default();
        let mut sink = TallySink::new(&mut tally, &mut running.table);
        let outcome = if let Some(array) = bytes.dyn_ref::<Uint8Array>() {
            let bytes = array.to_vec();
            running.roots.progress.add_file(task.root, &task.listed_path, bytes.len() as f64);
            events::parse_log(&task.context(&running.analysis.options), bytes.as_slice(), &mut sink)
        } else {
            task.parse(&mut running.roots, &running.analysis.options, &mut sink)
        };
        running.analysis.add_log(&task, outcome, tally);
        self.check_memory()
    }

    /// Joins, deduplicates and builds the outputs. Returns the summary numbers.
    pub fn finish(&mut self) -> Result<JsValue, JsError> {
        let Running { analysis, mut roots, mut table, tasks, .. } =
            self.running.take().ok_or_else(|| js_error("begin the analysis first"))?;
        let late_sizes = analysis.late_sizes();
        let outputs = analysis.finish(&mut roots, &mut table);
        // Only the logs are read again (for long texts); the rest, the store's bytes among
        // them, can go.
        let logs: HashSet<(usize, &str)> = tasks.iter().map(|task| (task.root, task.listed_path.as_str())).collect();
        for (index, root) in roots.roots.iter_mut().enumerate() {
            if let BrowserRoot::Files(files) = root {
                files.retain(|path, _| logs.contains(&(index, path.as_str())));
            }
        }
        table.seal();
        roots.progress.report("");
        roots.progress.state.borrow_mut().finished = true;
        self.finished = Some(Finished {
            table,
            outputs,
            last_filter: RefCell::new(None),
            roots: RefCell::new(roots),
            logs: tasks.into_iter().map(|task| (task.file as u32, task)).collect(),
            options: self.options.clone(),
            late_sizes,
        });
        self.summary()
    }

    /// `{files, sessions, rows, usage_rows, bad_lines, total_tokens, cost_usd_micros}`.
    pub fn summary(&self) -> Result<JsValue, JsError> {
        let done = self.done()?;
        let totals = &done.outputs.report.totals;
        let usage = done.outputs.usage.table(GroupBy::Day, DayRange::default());
        let counted = usage.totals.get(&crate::usage::Kind::Counted);
        to_js(&serde_json::json!({
            "files": totals.files_found,
            "sessions": totals.sessions,
            "rows": totals.rows,
            "usage_rows": usage.rows.len(),
            "bad_lines": totals.bad_lines,
            "total_tokens": counted.map_or(0, |row| row.total),
            "cost_usd_micros": counted.and_then(|row| row.cost_usd_micros).unwrap_or(0),
        }))
    }

    /// `{total, rows}`: the `limit` rows from `offset` of the rows passing `filter` (a
    /// `RowFilter`), in time order. The last filter's matches are kept, so scrolling is cheap.
    /// A `text_limit` above 0 cuts longer texts to about that many bytes (a table shows one
    /// line); such rows carry `text_bytes`, the whole text's length. Asking for more than the
    /// table keeps of long texts (`INLINE_TEXT`), or 0 for everything, reads them again whole.
    pub fn rows(&self, filter: JsValue, offset: u32, limit: u32, text_limit: u32) -> Result<JsValue, JsError> {
        let done = self.done()?;
        let filter: RowFilter = if filter.is_undefined() || filter.is_null() {
            RowFilter::default()
        } else {
            serde_wasm_bindgen::from_value(filter).map_err(js_error)?
        };
        let mut cache = done.last_filter.borrow_mut();
        if cache.as_ref().is_none_or(|(cached, _)| *cached != filter) {
            let matches = done.table.filter(&filter);
            *cache = Some((filter, matches));
        }
        let matches = &cache.as_ref().expect("just filled").1;
        let indices: Vec<u32> = matches.iter().skip(offset as usize).take(limit as usize).copied().collect();
        let whole = text_limit == 0 || text_limit as usize > crate::table::INLINE_TEXT;
        let rows = if whole {
            done.full_rows(&indices)
        } else {
            indices.iter().filter_map(|&index| done.table.row(index)).collect()
        };
        let rows: Vec<serde_json::Value> = indices
            .iter()
            .zip(rows)
            .map(|(&index, row)| {
                let cut_here =
                    done.table.cut_text(index).is_some() && (!whole || row.text.len() <= crate::table::INLINE_TEXT);
                TableRow { index, row, text_cut: cut_here }
            })
            .map(|mut row| {
                let bytes = row.row.text.len();
                let cut = text_limit > 0 && bytes > text_limit as usize;
                if cut {
                    let mut end = text_limit as usize;
                    while !row.row.text.is_char_boundary(end) {
                        end -= 1;
                    }
                    row.row.text.truncate(end);
                }
                let mut value = serde_json::to_value(&row).unwrap_or_default();
                if cut {
                    value["text_bytes"] = bytes.into();
                }
                value
            })
            .collect();
        to_js(&serde_json::json!({ "total": matches.len(), "rows": rows }))
    }

    /// The values the timeline's filters offer: sessions, projects, models, tools.
    pub fn facets(&self) -> Result<JsValue, JsError> {
        to_js(&self.done()?.table.facets())
    }

    pub fn sessions(&self) -> Result<JsValue, JsError> {
        to_js(&self.done()?.outputs.sessions)
    }

    pub fn inventory(&self) -> Result<JsValue, JsError> {
        to_js(&self.done()?.outputs.inventory)
    }

    pub fn report(&self) -> Result<JsValue, JsError> {
        to_js(&self.done()?.outputs.report)
    }

    /// The usage table grouped `by` day, month, session or model, between two days
    /// (`YYYY-MM-DD`, empty for open), with the unknown-usage sessions.
    pub fn usage(&self, by: &str, since: &str, until: &str) -> Result<JsValue, JsError> {
        let done = self.done()?;
        let table = done.outputs.usage.table(group_by(by)?, day_range(since, until)?);
        to_js(
            &serde_json::json!({ "rows": table.rows, "totals": table.totals, "unknown_usage_sessions": done.outputs.usage.unknown, "rates": done.outputs.usage.rates.source }),
        )
    }

    /// A file to save: `rows.jsonl`, `rows.csv`, `usage.csv`, `usage.json`, `sessions.jsonl`,
    /// `inventory.json`, `report.json`, or `session.md` (with `session_id`).
    pub fn export(&self, what: &str, session_id: &str) -> Result<String, JsError> {
        let done = self.done()?;
        let text = match what {
            "rows.jsonl" | "rows.csv" => {
                let mut text = String::new();
                let mut offset = 0;
                while offset == 0 || (offset as usize) < done.table.len() {
                    text.push_str(&self.export_rows(what, offset, EXPORT_PART_ROWS)?);
                    offset += EXPORT_PART_ROWS;
                }
                text
            }
            "usage.csv" => {
                let table = done.outputs.usage.table(GroupBy::Day, DayRange::default());
                let mut out = Vec::new();
                summary::write_csv(&table.rows, GroupBy::Day, &mut out).map_err(js_error)?;
                String::from_utf8(out).map_err(js_error)?
            }
            "usage.json" => {
                serde_json::to_string_pretty(&done.outputs.usage.table(GroupBy::Day, DayRange::default()).rows)
                    .map_err(js_error)?
            }
            "sessions.jsonl" => done
                .outputs
                .sessions
                .iter()
                .map(|record| serde_json::to_string(record).map(|line| line + "\n"))
                .collect::<Result<String, _>>()
                .map_err(js_error)?,
            "inventory.json" => serde_json::to_string_pretty(&done.outputs.inventory).map_err(js_error)?,
            "report.json" => serde_json::to_string_pretty(&done.outputs.report).map_err(js_error)?,
            "session.md" => {
                let filter = RowFilter { session_id: session_id.to_string(), ..RowFilter::default() };
                let rows = done.full_rows(&done.table.filter(&filter));
                let name = done
                    .outputs
                    .sessions
                    .iter()
                    .find(|record| record.session_id == session_id)
                    .map_or("", |record| record.name.as_str());
                export::session_markdown(name, session_id, &rows)
            }
            other => return Err(js_error(format!("unknown export {other:?}"))),
        };
        Ok(text)
    }

    /// Part of a rows export, for files too big for one string: `format` is `rows.jsonl` or
    /// `rows.csv`, the rows `offset..offset + limit` in table order; the CSV header comes with
    /// the part at offset 0 only. The parts joined equal `export(format)`.
    pub fn export_rows(&self, format: &str, offset: u32, limit: u32) -> Result<String, JsError> {
        let done = self.done()?;
        let end = (offset as usize).saturating_add(limit as usize).min(done.table.len());
        let indices: Vec<u32> = (offset as usize..end).map(|index| index as u32).collect();
        let rows = done.full_rows(&indices);
        match format {
            "rows.jsonl" => rows
                .iter()
                .map(|row| serde_json::to_string(row).map(|line| line + "\n"))
                .collect::<Result<String, _>>()
                .map_err(js_error),
            "rows.csv" => {
                let mut out = Vec::new();
                export::write_rows_csv(rows.iter(), &mut out).map_err(js_error)?;
                let mut text = String::from_utf8(out).map_err(js_error)?;
                if offset > 0 {
                    let header_end = text.find('\n').map_or(text.len(), |at| at + 1);
                    text.drain(..header_end);
                }
                Ok(text)
            }
            other => Err(js_error(format!("unknown rows export {other:?}"))),
        }
    }

    /// How many rows the table holds (all of them, unfiltered).
    pub fn row_count(&self) -> Result<u32, JsError> {
        Ok(self.done()?.table.len() as u32)
    }

    /// Stops the analysis under way, freeing what it holds, once the memory passes the limit:
    /// a clear message rather than a trap when the memory runs out.
    fn check_memory(&mut self) -> Result<(), JsError> {
        let used = memory_mib();
        if used <= self.memory_limit_mib {
            return Ok(());
        }
        self.running = None;
        Err(js_error(format!(
            "the analysis was stopped: it needs more than the {limit} MiB of memory this page allows \
             itself ({used} MiB in use). Analyse part of the data at a time (some of session-state/ \
             in a folder or zip), or use the copilot-lens command-line tool, which has no such limit",
            limit = self.memory_limit_mib
        )))
    }

    fn done(&self) -> Result<&Finished, JsError> {
        self.finished.as_ref().ok_or_else(|| js_error("run the analysis first"))
    }
}

fn group_by(by: &str) -> Result<GroupBy, JsError> {
    Ok(match by {
        "" | "day" => GroupBy::Day,
        "month" => GroupBy::Month,
        "session" => GroupBy::Session,
        "model" => GroupBy::Model,
        other => return Err(js_error(format!("unknown grouping {other:?}"))),
    })
}

fn day_range(since: &str, until: &str) -> Result<DayRange, JsError> {
    let day = |text: &str| -> Result<Option<chrono::NaiveDate>, JsError> {
        if text.is_empty() {
            Ok(None)
        } else {
            chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").map(Some).map_err(js_error)
        }
    };
    Ok(DayRange { since: day(since)?, until: day(until)? })
}
