//! The browser boundary: the exported surface, and nothing else. `Engine` (one analysis, driven
//! by the page's Web Worker through `crate::engine`), `inflate` (a zip entry, for the page's
//! second worker), `engine_facts` (what the page needs to know) and `zips_in_folder` (which
//! zips of a dropped folder are roots). Options come in and results
//! go out as typed serde values; every error is a `js_sys::Error`.

use std::cell::RefCell;
use std::collections::HashSet;

use js_sys::{Array, Function, Uint8Array};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use web_sys::Blob;

use crate::analysis::{Options, Planned};
use crate::engine::{Done, GivenLog, LOG_GIVEN_WHOLE_MAX_BYTES, PlannedRun, Stage};
use crate::facts::diagnostics::Diagnostic;
use crate::input::browser::{BrowserFile, BrowserRoot, BrowserRoots, Progress, ProgressState};
use crate::input::zip::ZipRoot;
use crate::input::{ListedFile, RootListing, blob::BlobReader};
use crate::outputs::{self, OutputFile, ROWS_CSV, ROWS_JSONL, ROWS_PER_PART, SESSION_MD};
use crate::share::{self, ShareOptions, Transcript};
use crate::table::{INLINE_TEXT, RowFilter, TableRow};
use crate::usage::Kind;
use crate::usage::ledger::IMPLAUSIBLE_COUNTER;
use crate::usage::rates::RateTable;
use crate::usage::summary::{DayRange, GroupBy, UsageRow, sessions_flagged};
use crate::usage::{Zone, ZoneOffsets};
use crate::{export, sources, time};

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

fn not_a_day(text: &str) -> JsError {
    JsError::new(&format!("not a day (YYYY-MM-DD): {text:?}"))
}

// Values cross the boundary as JSON text, through the browser's JSON: serde_json is in the module
// for the outputs anyway, and a second serializer would be a second copy of every output type's
// code in the page's download.
fn to_js(value: &impl Serialize) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(js_error)?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("an answer the browser could not read as JSON"))
}

fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, JsError> {
    let text = js_sys::JSON::stringify(value).map_err(|_| JsError::new("options that are not JSON"))?;
    serde_json::from_str(&String::from(text)).map_err(js_error)
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
    /// The named zone's offsets, `[[from_epoch_ms, offset_seconds], ...]`, from the browser's
    /// Intl: this build carries no time-zone database.
    zone_offsets: Option<Vec<(i64, i32)>>,
    /// A user's rates file (JSON), replacing or adding to the pinned table.
    rates: Option<String>,
    /// The most memory the engine may use, in MiB (default `DEFAULT_MEMORY_LIMIT_MIB`).
    memory_limit_mib: Option<u32>,
    /// Today in UTC by the page's clock (`YYYY-MM-DD`): usage after tomorrow is flagged.
    today: Option<String>,
}

/// A wasm32 memory cannot pass 4 GiB; stopping at 3 GiB leaves room to finish the step under
/// way and to serve the views, where running into the wall would end in a trap.
const DEFAULT_MEMORY_LIMIT_MIB: u32 = 3072;

/// The engine's memory in MiB (a WebAssembly memory only grows, so this is its peak).
fn memory_mib() -> u32 {
    // A WebAssembly page is 64 KiB: 16 to the MiB.
    (core::arch::wasm32::memory_size::<0>() / 16) as u32
}

/// What the page needs to know of the core, so that it keeps no copy.
#[derive(Serialize)]
struct EngineFacts {
    /// The folders of a home the sources' files are in; a walk of a home looks only there.
    home_folders: Vec<&'static str>,
    /// The files at a home's top the sources read, listed beside those folders.
    home_files: Vec<&'static str>,
    /// The data folders among them: a folder holding one is a home.
    data_folders: Vec<&'static str>,
    /// The only child folders walked below some folders (VS Code's user data).
    walk_rules: Vec<&'static sources::WalkRule>,
    /// Copilot plans and their monthly allowances in AI credits, with their source.
    plans: crate::usage::plans::Plans,
    /// Bytes of a long text the row table keeps: asking for more reads the text again.
    table_keeps_text: usize,
    /// The largest log the page reads whole; a larger one is handed over as a File.
    log_given_whole_max_bytes: u64,
    /// Rows made at a time for a rows export.
    rows_per_part: u32,
    /// Every output file, named once.
    outputs: [OutputFile; 8],
    default_memory_limit_mib: u32,
}

#[wasm_bindgen]
pub fn engine_facts() -> Result<JsValue, JsError> {
    to_js(&EngineFacts {
        home_folders: sources::home_folders(),
        home_files: sources::home_files(),
        data_folders: sources::data_folders(),
        walk_rules: sources::walk_rules(),
        plans: crate::usage::plans::Plans::default_table(),
        table_keeps_text: INLINE_TEXT,
        log_given_whole_max_bytes: LOG_GIVEN_WHOLE_MAX_BYTES,
        rows_per_part: ROWS_PER_PART,
        outputs: outputs::CATALOGUE,
        default_memory_limit_mib: DEFAULT_MEMORY_LIMIT_MIB,
    })
}

/// Inflates a zip entry's data for the page (`ZipRoot::raw_entry` says where it lies). The
/// page runs it in a second worker, so that inflating and parsing go on at once.
#[wasm_bindgen]
pub fn inflate(packed: &[u8], size: f64, crc32: u32) -> Result<Vec<u8>, JsError> {
    crate::input::zip::inflate_entry(packed, size as u64, crc32).map_err(js_error)
}

/// The zips of a folder the page lists that are read as roots of their own, and whether the
/// folder is still a root itself (`input::layout::zips_outside_homes`): the page, which holds
/// their Files, then gives them as zips.
#[wasm_bindgen]
pub fn zips_in_folder(paths: Vec<String>) -> Result<JsValue, JsError> {
    to_js(&crate::input::layout::zips_outside_homes(paths.iter().map(String::as_str)))
}

#[derive(Serialize)]
/// The summary numbers, in name order (as the tests compare them).
struct Summary {
    bad_lines: u64,
    cost_usd_micros: u64,
    files: u64,
    rows: u64,
    sessions: u64,
    total_tokens: u64,
    usage_rows: usize,
}

#[derive(Serialize)]
struct RowsPage {
    total: usize,
    rows: Vec<ShownRow>,
}

/// A row as a view gets it.
#[derive(Serialize)]
struct ShownRow {
    #[serde(flatten)]
    row: TableRow,
    /// The whole text's length, where the text was cut to the `text_limit` asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    text_bytes: Option<usize>,
    /// Why the whole text could not be read again (the text is then its start).
    #[serde(skip_serializing_if = "Option::is_none")]
    text_error: Option<String>,
}

#[derive(Serialize)]
struct UsageView<'a> {
    rows: Vec<UsageRow>,
    totals: std::collections::BTreeMap<Kind, UsageRow>,
    unknown_usage_sessions: &'a [String],
    /// Sessions whose figures leave out counters that cannot be token counts.
    implausible_counter_sessions: Vec<&'a str>,
    /// The report's diagnostics of counter lines (left out, without modelMetrics, undated).
    counter_problems: Vec<&'a Diagnostic>,
    rates: &'a str,
}

thread_local! {
    /// Every zone's offsets given so far, kept for the engine's life: `Zone` is `Copy`, and a
    /// page offers at most UTC and its browser's own zone.
    static ZONE_OFFSETS: RefCell<Vec<&'static ZoneOffsets>> = const { RefCell::new(Vec::new()) };
}

fn zone_offsets(offsets: ZoneOffsets) -> &'static ZoneOffsets {
    ZONE_OFFSETS.with_borrow_mut(|known| match known.iter().find(|&&k| *k == offsets) {
        Some(&kept) => kept,
        None => {
            let kept: &'static ZoneOffsets = Box::leak(Box::new(offsets));
            known.push(kept);
            kept
        }
    })
}

/// One analysis in the browser: add roots, run, then query.
#[wasm_bindgen]
pub struct Engine {
    options: Options,
    memory_limit_mib: u32,
    stage: Stage,
}

#[wasm_bindgen]
impl Engine {
    /// `options`: `{include_thinking, timezone, zone_offsets, rates, memory_limit_mib, today}`
    /// (all optional).
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Engine, JsError> {
        let given: EngineOptions =
            if options.is_undefined() || options.is_null() { EngineOptions::default() } else { from_js(&options)? };
        let zone = match (Zone::parse(given.timezone.as_deref().unwrap_or("UTC")), given.zone_offsets) {
            (Ok(zone), _) => zone,
            (Err(_), Some(offsets)) if !offsets.is_empty() => Zone::Offsets(zone_offsets(ZoneOffsets(offsets))),
            (Err(error), _) => return Err(js_error(error)),
        };
        let rates = match &given.rates {
            Some(text) => RateTable::with_overrides(text).map_err(js_error)?,
            None => RateTable::default_table(),
        };
        let today =
            given.today.as_deref().map(|text| time::parse_day(text).ok_or_else(|| not_a_day(text))).transpose()?;
        Ok(Engine {
            options: Options { include_thinking: given.include_thinking, zone, rates, today },
            memory_limit_mib: given.memory_limit_mib.unwrap_or(DEFAULT_MEMORY_LIMIT_MIB),
            stage: Stage::Adding { roots: Vec::new(), listings: Vec::new() },
        })
    }

    /// A folder or loose files as one root, by their paths relative to the root
    /// (`webkitRelativePath` less the folder's name, or names). The files themselves are handed
    /// over once the analysis is planned (`give_bytes`, `give_files`): a browser pays for each
    /// File it hands to a worker, so the page hands them while the analysis runs.
    pub fn add_listing(&mut self, label: String, paths: Vec<String>) -> Result<(), JsError> {
        let Stage::Adding { roots, listings } = &mut self.stage else {
            return Err(js_error("roots come before begin"));
        };
        let files = paths.into_iter().map(|path| ListedFile { path, size: 0, modified_ms: None }).collect();
        listings.push(RootListing { label, files, problems: Vec::new() });
        roots.push(BrowserRoot::Files(Default::default()));
        Ok(())
    }

    /// A zip of a home or of `~/.copilot` as one root, read entry by entry.
    pub fn add_zip(&mut self, label: String, file: Blob) -> Result<(), JsError> {
        let Stage::Adding { roots, listings } = &mut self.stage else {
            return Err(js_error("roots come before begin"));
        };
        let reader = BlobReader::new(file).map_err(js_error)?;
        let (zip, listing) = ZipRoot::open(reader, &label).map_err(js_error)?;
        listings.push(listing);
        roots.push(BrowserRoot::Zip(zip));
        Ok(())
    }

    /// Plans the analysis; `progress` is called with `{bytes, total, files, files_total, file}`.
    /// Returns what the page is to hand over from its folder roots, in this order: `{files:
    /// [[root, path]]}` as Files (read in parts), `{small: [[root, path]]}` as bytes, the
    /// stores' files first (a store's pages are read all over its log, which costs a Blob a
    /// round trip each; the stores are read as soon as they are in), then `read_metadata`, and
    /// `{logs: [{root, path, given, entry?}]}`, the logs, numbered by their place for
    /// `parse_log`, which takes them in any order (`given`: the page hands it over, its bytes
    /// or, above `log_given_whole_max_bytes`, its File; from a zip its bytes by `entry`, which
    /// says where its data lies). Every other file is handed over as a File after `finish`.
    pub fn begin(&mut self, progress: Function) -> Result<JsValue, JsError> {
        let Stage::Adding { roots, listings } = self.take_stage() else {
            return Err(js_error("this engine has begun already"));
        };
        let planned = Planned::new(listings, self.options.clone()).map_err(js_error)?;
        let state = ProgressState {
            callback: progress,
            total: planned.bytes_to_read() as f64,
            done: 0.0,
            files: 0,
            files_total: planned.files_to_read() as u32,
            opened: HashSet::new(),
            last_report: 0.0,
            finished: false,
        };
        let roots = BrowserRoots { roots, progress: Progress { state: std::rc::Rc::new(RefCell::new(state)) } };
        let (run, hand_over) = PlannedRun::new(planned, roots);
        self.stage = Stage::Planned(Box::new(run));
        to_js(&hand_over)
    }

    /// A file of a folder root handed over as bytes (read by the page). Its time is asked for
    /// only if its rows need it (`read_metadata`).
    pub fn give_bytes(&mut self, root: usize, path: String, bytes: Uint8Array) -> Result<(), JsError> {
        let Stage::Planned(run) = &mut self.stage else { return Err(js_error("files come after begin")) };
        let size = bytes.length() as u64;
        run.give(root, path, BrowserFile::Bytes(bytes), size, None);
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
            match &mut self.stage {
                Stage::Planned(run) => {
                    let modified_ms = blob.dyn_ref::<web_sys::File>().map_or(0.0, web_sys::File::last_modified);
                    let modified = (modified_ms > 0.0).then_some(modified_ms as i64);
                    run.give(root, path, BrowserFile::Blob(blob), size, modified);
                }
                Stage::Done(done) => done.give_late(root, path, blob, size),
                _ => return Err(js_error("files are handed over before read_metadata, or after finish")),
            }
        }
        Ok(())
    }

    /// Reads every file but the event logs (the page has handed over the `files` and `small`
    /// files `begin` named). Returns the files handed over as bytes whose modification times
    /// the rows need, `[[root, path]]`: the page gives them (`give_time`) before `finish`.
    pub fn read_metadata(&mut self) -> Result<JsValue, JsError> {
        let Stage::Planned(run) = self.take_stage() else {
            return Err(js_error("begin the analysis first"));
        };
        let (parsing, needed) = run.read_metadata();
        self.stage = Stage::Parsing(Box::new(parsing));
        self.check_memory()?;
        to_js(&needed)
    }

    /// A file's modification time (ms since the epoch), asked for by `read_metadata`.
    pub fn give_time(&mut self, root: usize, path: &str, modified_ms: f64) -> Result<(), JsError> {
        let Stage::Parsing(run) = &mut self.stage else { return Err(js_error("read the metadata first")) };
        if modified_ms > 0.0 {
            run.parsing.set_file_time(root, path, modified_ms as i64);
        }
        Ok(())
    }

    /// Parses log `index` of the `logs` `begin` named (in any order: their rows and facts are
    /// taken in that order): from `log`, a Uint8Array of the whole file (read by the page) or a
    /// File (read here in windows: a log above `log_given_whole_max_bytes`), else from its root.
    pub fn parse_log(&mut self, index: usize, log: JsValue) -> Result<(), JsError> {
        let Stage::Parsing(run) = &mut self.stage else { return Err(js_error("read the metadata first")) };
        let given = if let Some(bytes) = log.dyn_ref::<Uint8Array>() {
            GivenLog::Bytes(bytes.to_vec())
        } else if let Ok(file) = log.dyn_into::<Blob>() {
            GivenLog::File(file)
        } else {
            GivenLog::FromRoot
        };
        run.parse_log(index, given).map_err(js_error)?;
        self.check_memory()
    }

    /// Joins, deduplicates and builds the outputs. Returns the summary numbers.
    pub fn finish(&mut self) -> Result<JsValue, JsError> {
        let Stage::Parsing(run) = self.take_stage() else {
            return Err(js_error("read the metadata first"));
        };
        self.stage = Stage::Done(Box::new(run.finish()));
        self.summary()
    }

    /// `{files, sessions, rows, usage_rows, bad_lines, total_tokens, cost_usd_micros}`;
    /// `usage_rows` are usage.jsonl's (one per day, agent and model).
    pub fn summary(&self) -> Result<JsValue, JsError> {
        let done = self.done()?;
        let totals = &done.outputs.report.totals;
        let usage = done.outputs.usage.table(GroupBy::Day, DayRange { agents_apart: true, ..DayRange::default() });
        let counted = usage.totals.get(&Kind::Counted);
        to_js(&Summary {
            files: totals.files_found,
            sessions: totals.sessions,
            rows: totals.rows,
            usage_rows: usage.rows.len(),
            bad_lines: totals.bad_lines,
            total_tokens: counted.map_or(0, |row| row.total),
            cost_usd_micros: counted.and_then(|row| row.cost_usd_micros).unwrap_or(0),
        })
    }

    /// `{total, rows}`: the `limit` rows from `offset` of the rows passing `filter` (a
    /// `RowFilter`), in time order. The last filter's matches are kept, so scrolling is cheap.
    /// A `text_limit` above 0 cuts longer texts to about that many bytes (a table shows one
    /// line); such rows carry `text_bytes`, the whole text's length. Asking for more than the
    /// table keeps of long texts (`table_keeps_text`), or 0 for everything, reads them again
    /// whole; a text that cannot be carries `text_error`.
    pub fn rows(&self, filter: JsValue, offset: u32, limit: u32, text_limit: u32) -> Result<JsValue, JsError> {
        let done = self.done()?;
        let filter: RowFilter =
            if filter.is_undefined() || filter.is_null() { RowFilter::default() } else { from_js(&filter)? };
        let mut cache = done.last_filter.borrow_mut();
        if cache.as_ref().is_none_or(|(cached, _)| *cached != filter) {
            let matches = done.table.filter(&filter);
            *cache = Some((filter, matches));
        }
        let matches = cache.as_ref().map_or(&[][..], |(_, matches)| matches.as_slice());
        let indices: Vec<u32> = matches.iter().skip(offset as usize).take(limit as usize).copied().collect();
        let whole = text_limit == 0 || text_limit as usize > INLINE_TEXT;
        let (rows, mut errors) = if whole {
            let full = done.full_rows(&indices);
            (full.rows, full.errors)
        } else {
            (indices.iter().filter_map(|&index| done.table.row(index)).collect(), Default::default())
        };
        let rows = indices
            .iter()
            .zip(rows)
            .enumerate()
            .map(|(slot, (&index, mut row))| {
                let text_error = errors.remove(&slot);
                let cut_here = done.table.cut_text(index).is_some() && (!whole || text_error.is_some());
                let bytes = row.text.len();
                let cut = text_limit > 0 && bytes > text_limit as usize;
                if cut {
                    let mut end = text_limit as usize;
                    while !row.text.is_char_boundary(end) {
                        end -= 1;
                    }
                    row.text.truncate(end);
                }
                let row = TableRow::new(&done.table, index, row, cut_here);
                ShownRow { row, text_bytes: cut.then_some(bytes), text_error }
            })
            .collect();
        to_js(&RowsPage { total: matches.len(), rows })
    }

    /// The values the timeline's filters offer: agents, sessions, projects, models, tools.
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

    /// The usage table grouped `by` day, month, session, model, home or agent (the other
    /// groupings add the agents up), between two days (`YYYY-MM-DD`, empty for open), of one
    /// `agent` or (none or empty) all, with the unknown-usage sessions.
    pub fn usage(&self, by: &str, since: &str, until: &str, agent: Option<String>) -> Result<JsValue, JsError> {
        let outputs = &self.done()?.outputs;
        let usage = &outputs.usage;
        let range = DayRange { agent: agent_named(agent.as_deref().unwrap_or_default())?, ..day_range(since, until)? };
        let table = usage.table(group_by(by)?, range);
        to_js(&UsageView {
            rows: table.rows,
            totals: table.totals,
            unknown_usage_sessions: &usage.unknown,
            implausible_counter_sessions: sessions_flagged(&usage.ledgers, IMPLAUSIBLE_COUNTER),
            counter_problems: outputs
                .report
                .diagnostics
                .iter()
                .filter(|diagnostic| diagnostic.kind.is_about_usage_counters())
                .collect(),
            rates: &usage.rates.source,
        })
    }

    /// The billing month (UTC) holding the day `month` (`YYYY-MM-DD`; any day of it), as of
    /// `today` (the page's clock, in UTC: the core has none), against `allowance` credits (none:
    /// no allowance): each day's credits, recorded and estimated apart, the pace's projection
    /// and the day the allowance would run out. The analysis's days must be UTC's.
    pub fn month(&self, month: &str, today: &str, allowance: Option<f64>) -> Result<JsValue, JsError> {
        let day = |text: &str| time::parse_day(text).ok_or_else(|| not_a_day(text));
        let usage = &self.done()?.outputs.usage;
        to_js(&usage.month(
            day(month)?,
            day(today)?,
            allowance.filter(|credits| credits.is_finite() && *credits >= 0.0),
        ))
    }

    /// A file to save, by its name in the outputs catalogue (`engine_facts().outputs`);
    /// `session.md` is the session `session_id`.
    pub fn export(&self, what: &str, session_id: &str) -> Result<String, JsError> {
        let done = self.done()?;
        let file = outputs::by_name(what).ok_or_else(|| js_error(format!("unknown export {what:?}")))?;
        match file {
            ROWS_JSONL | ROWS_CSV => {
                let mut text = String::new();
                let mut offset = 0;
                while offset == 0 || (offset as usize) < done.table.len() {
                    text.push_str(&self.export_rows(what, offset, ROWS_PER_PART)?);
                    offset += ROWS_PER_PART;
                }
                Ok(text)
            }
            SESSION_MD => {
                let filter = RowFilter { session_id: session_id.to_string(), ..RowFilter::default() };
                let rows = whole_texts(done, &done.table.filter(&filter))?;
                let record = done.outputs.sessions.iter().find(|record| record.session_id == session_id);
                Ok(export::session_markdown(record.map_or("", |record| record.name.as_str()), session_id, &rows))
            }
            _ => {
                let mut out = Vec::new();
                outputs::write(file, &done.outputs, &mut out).map_err(js_error)?;
                String::from_utf8(out).map_err(js_error)
            }
        }
    }

    /// The report to share, as `copilot-lens report` writes it: `options` is `{today:
    /// "YYYY-MM-DD", allowance: credits | null, short_project_names: bool, sessions: [ids]}`
    /// (the sessions whose transcripts go in, their secrets scrubbed).
    pub fn share_report(&self, options: JsValue) -> Result<String, JsError> {
        #[derive(serde::Deserialize)]
        struct Asked {
            today: String,
            allowance: Option<f64>,
            short_project_names: bool,
            sessions: Vec<String>,
        }
        let done = self.done()?;
        let asked: Asked = from_js(&options)?;
        let today = time::parse_day(&asked.today).ok_or_else(|| not_a_day(&asked.today))?;
        let allowance = asked.allowance.filter(|credits| credits.is_finite() && *credits >= 0.0);
        let share = ShareOptions { today, allowance, short_project_names: asked.short_project_names };
        let mut transcripts = Vec::new();
        for id in &asked.sessions {
            let record = done.outputs.sessions.iter().find(|record| &record.session_id == id);
            let record = record.ok_or_else(|| js_error(format!("no session {id}")))?;
            let filter = RowFilter { session_id: id.clone(), ..RowFilter::default() };
            transcripts.push(Transcript { record, rows: whole_texts(done, &done.table.filter(&filter))? });
        }
        Ok(share::write(&done.outputs, &transcripts, &share))
    }

    /// Part of a rows export, for files too big for one string: `format` is `rows.jsonl` or
    /// `rows.csv`, the rows `offset..offset + limit` in table order; the CSV header comes with
    /// the part at offset 0 only. The parts joined equal `export(format)`.
    pub fn export_rows(&self, format: &str, offset: u32, limit: u32) -> Result<String, JsError> {
        let done = self.done()?;
        let file = outputs::by_name(format).ok_or_else(|| js_error(format!("unknown rows export {format:?}")))?;
        let end = (offset as usize).saturating_add(limit as usize).min(done.table.len());
        let indices: Vec<u32> = (offset as usize..end).map(|index| index as u32).collect();
        let rows = whole_texts(done, &indices)?;
        let mut out = Vec::new();
        outputs::write_rows(file, rows.iter(), offset == 0, &mut out).map_err(js_error)?;
        String::from_utf8(out).map_err(js_error)
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
        self.take_stage();
        Err(js_error(format!(
            "the analysis was stopped: it needs more than the {limit} MiB of memory this page allows \
             itself ({used} MiB in use). Analyse part of the data at a time (some of session-state/ \
             in a folder or zip), or use the copilot-lens command-line tool, which has no such limit",
            limit = self.memory_limit_mib
        )))
    }

    /// The stage, to move on from (a failed step leaves the engine empty, as a new one).
    fn take_stage(&mut self) -> Stage {
        std::mem::replace(&mut self.stage, Stage::Adding { roots: Vec::new(), listings: Vec::new() })
    }

    fn done(&self) -> Result<&Done, JsError> {
        match &self.stage {
            Stage::Done(done) => Ok(done),
            _ => Err(js_error("run the analysis first")),
        }
    }
}

/// Rows with their whole texts for a file: one that cannot be read again whole fails the
/// export rather than leaving a text cut in it.
fn whole_texts(done: &Done, indices: &[u32]) -> Result<Vec<crate::model::OwnedRow>, JsError> {
    let full = done.full_rows(indices);
    match full.errors.into_iter().next() {
        Some((slot, error)) => {
            let row = &full.rows[slot];
            Err(js_error(format!(
                "the text of {}:{} could not be read again whole: {error}",
                row.source, row.source_line
            )))
        }
        None => Ok(full.rows),
    }
}

fn group_by(by: &str) -> Result<GroupBy, JsError> {
    Ok(match by {
        "" | "day" => GroupBy::Day,
        "month" => GroupBy::Month,
        "session" => GroupBy::Session,
        "model" => GroupBy::Model,
        "home" => GroupBy::Home,
        "project" => GroupBy::Project,
        "subagent" => GroupBy::Subagent,
        "agent" => GroupBy::Agent,
        other => return Err(js_error(format!("unknown grouping {other:?}"))),
    })
}

/// An agent by its name (none for the empty name: every agent).
fn agent_named(name: &str) -> Result<Option<&'static str>, JsError> {
    if name.is_empty() {
        return Ok(None);
    }
    let agent = sources::SOURCES.iter().map(|source| source.agent()).find(|agent| *agent == name);
    agent.map(Some).ok_or_else(|| js_error(format!("unknown agent {name:?}")))
}

fn day_range(since: &str, until: &str) -> Result<DayRange, JsError> {
    let day = |text: &str| -> Result<Option<chrono::NaiveDate>, JsError> {
        if text.is_empty() { Ok(None) } else { time::parse_day(text).map(Some).ok_or_else(|| not_a_day(text)) }
    };
    Ok(DayRange { since: day(since)?, until: day(until)?, ..DayRange::default() })
}
