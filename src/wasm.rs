//! The browser boundary: one exported type, `Engine`, driven by the page's Web Worker.
//! Options and results cross as plain JS objects (serde); every error is a `js_sys::Error`.
//! Files are read lazily from Blobs (see `input::blob`); rows stay here, in a `RowTable`, and
//! the page asks for the slice it shows.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::{self, Read};

use js_sys::{Array, Function, Uint8Array};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use web_sys::Blob;

use crate::analysis::{Analysis, Options, Outputs, Tally, TallySink};
use crate::export;
use crate::input::blob::BlobReader;
use crate::input::layout::{FileKind, Rebase, classify};
use crate::input::zip::ZipRoot;
use crate::input::{FileReader, ListedFile, RootListing};
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
}

enum BrowserRoot {
    Files(HashMap<String, Source>),
    Zip(ZipRoot<BlobReader>),
}

/// A file of a folder root: a Blob read lazily, or bytes the worker read ahead.
enum Source {
    Blob(Blob),
    Bytes(Uint8Array),
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

/// For each root-relative path, what the analysis will do with it: 2 an event log, 1 another
/// file it reads, 0 nothing. The worker reads small wanted files ahead, many at once, because
/// a browser pays a fixed cost for each file it opens; this only orders that work.
#[wasm_bindgen(js_name = wantedPaths)]
pub fn wanted_paths(paths: Vec<String>) -> Vec<u8> {
    let Some(rebase) = Rebase::detect(paths.iter().map(String::as_str)) else {
        return vec![0; paths.len()];
    };
    paths
        .iter()
        .map(|path| match rebase.apply(path).map(|home| classify(&home).kind) {
            Some(FileKind::EventsLog) => 2,
            Some(
                FileKind::Workspace
                | FileKind::Snapshots
                | FileKind::Store
                | FileKind::StoreWal
                | FileKind::History
                | FileKind::Permissions
                | FileKind::Settings
                | FileKind::Sidebar
                | FileKind::ProcessLog,
            ) => 1,
            _ => 0,
        })
        .collect()
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
}

impl Progress {
    fn report(&self, file: &str) {
        let mut state = self.state.borrow_mut();
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
                match files.get(path).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, path.to_string()))? {
                    Source::Blob(blob) => Box::new(BlobReader::new(blob.clone())?),
                    Source::Bytes(array) => Box::new(ArrayReader { array: array.clone(), position: 0 }),
                }
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
}

struct Finished {
    table: RowTable,
    outputs: Outputs,
    last_filter: RefCell<Option<(RowFilter, Vec<u32>)>>,
}

/// One analysis in the browser: add roots, run, then query.
#[wasm_bindgen]
pub struct Engine {
    options: Options,
    roots: Vec<BrowserRoot>,
    listings: Vec<RootListing>,
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
            roots: Vec::new(),
            listings: Vec::new(),
            finished: None,
        })
    }

    /// A folder or loose files as one root: `files` are File/Blob objects (or `Uint8Array`s of
    /// files read ahead), `paths` their paths relative to the root (`webkitRelativePath` less
    /// the dropped folder's name, or names).
    pub fn add_files(
        &mut self,
        label: String,
        files: Array,
        paths: Vec<String>,
        modified_ms: Vec<f64>,
    ) -> Result<(), JsError> {
        let mut listing = RootListing { label, ..RootListing::default() };
        let mut blobs = HashMap::new();
        for ((file, path), modified) in files.iter().zip(paths).zip(modified_ms) {
            let source = if file.is_instance_of::<Uint8Array>() {
                Source::Bytes(file.unchecked_into())
            } else {
                Source::Blob(file.dyn_into().map_err(|_| js_error("not a File, Blob or Uint8Array"))?)
            };
            let size = match &source {
                Source::Blob(blob) => blob.size() as u64,
                Source::Bytes(array) => array.length() as u64,
            };
            let modified_ms = (modified > 0.0).then_some(modified as i64);
            listing.files.push(ListedFile { path: path.clone(), size, modified_ms });
            blobs.insert(path, source);
        }
        self.listings.push(listing);
        self.roots.push(BrowserRoot::Files(blobs));
        Ok(())
    }

    /// A zip of a home or of `~/.copilot` as one root, read entry by entry.
    pub fn add_zip(&mut self, label: String, file: Blob) -> Result<(), JsError> {
        let reader = BlobReader::new(file).map_err(js_error)?;
        let (zip, listing) = ZipRoot::open(reader, &label).map_err(js_error)?;
        self.listings.push(listing);
        self.roots.push(BrowserRoot::Zip(zip));
        Ok(())
    }

    /// Runs the whole analysis; `progress` is called with `{bytes, total, files, files_total,
    /// file}` (at each file opened and every 4 MB read).
    /// Returns the summary numbers.
    pub fn run(&mut self, progress: Function) -> Result<JsValue, JsError> {
        let mut analysis =
            Analysis::plan(std::mem::take(&mut self.listings), self.options.clone()).map_err(js_error)?;
        let state = ProgressState {
            callback: progress,
            total: analysis.bytes_to_read() as f64,
            done: 0.0,
            files: 0,
            files_total: analysis.files_to_read() as u32,
            opened: HashSet::new(),
            last_report: 0.0,
        };
        let mut roots = BrowserRoots {
            roots: std::mem::take(&mut self.roots),
            progress: Progress { state: std::rc::Rc::new(RefCell::new(state)) },
        };
        let mut table = RowTable::default();
        analysis.read_metadata(&mut roots);
        for task in analysis.log_tasks() {
            let mut tally = Tally::default();
            let outcome = task.parse(&mut roots, &analysis.options, &mut TallySink::new(&mut tally, &mut table));
            analysis.add_log(&task, outcome, tally);
        }
        let outputs = analysis.finish(&mut roots, &mut table);
        table.seal();
        roots.progress.report("");
        self.finished = Some(Finished { table, outputs, last_filter: RefCell::new(None) });
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
    /// line); such rows carry `text_bytes`, the whole text's length.
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
        let rows: Vec<serde_json::Value> = matches
            .iter()
            .skip(offset as usize)
            .take(limit as usize)
            .filter_map(|&index| {
                done.table.row(index).map(|row| TableRow { index, row, text_cut: done.table.cut_text(index).is_some() })
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
        let all_rows = || (0..done.table.len() as u32).filter_map(|index| done.table.row(index));
        let text = match what {
            "rows.jsonl" => all_rows()
                .map(|row| serde_json::to_string(&row).map(|line| line + "\n"))
                .collect::<Result<String, _>>()
                .map_err(js_error)?,
            "rows.csv" => {
                let rows: Vec<_> = all_rows().collect();
                let mut out = Vec::new();
                export::write_rows_csv(rows.iter(), &mut out).map_err(js_error)?;
                String::from_utf8(out).map_err(js_error)?
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
                let rows: Vec<_> =
                    done.table.filter(&filter).into_iter().filter_map(|index| done.table.row(index)).collect();
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
        let rows = (offset as usize..end).filter_map(|index| done.table.row(index as u32));
        match format {
            "rows.jsonl" => rows
                .map(|row| serde_json::to_string(&row).map(|line| line + "\n"))
                .collect::<Result<String, _>>()
                .map_err(js_error),
            "rows.csv" => {
                let rows: Vec<_> = rows.collect();
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
