//! The browser boundary: the exported surface, and nothing else. `Engine` (one analysis, driven
//! by the page's Web Worker through `crate::page::engine`: `need` says what it needs next, `ask`
//! answers a `protocol::Request`), `inflate` (a zip entry, for the page's second worker),
//! `engine_facts` (what the page needs to know), `needs_every_file`, `zips_in_folder` (which
//! zips of a dropped folder are roots) and `never_opened` (which of its files a walk need not
//! open before the analysis). Values cross as the serde types of
//! `crate::page::protocol` (typed for the page in `www/types.d.ts`); every error is a `js_sys::Error`.

use std::cell::RefCell;
use std::collections::HashSet;

use js_sys::{Array, Function, Uint8Array};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use web_sys::Blob;

use crate::analysis::{Options, Planned};
use crate::cache::EntryRules;
use crate::input::zip::ZipRoot;
use crate::input::{ListedFile, RootListing};
use crate::page::blob::BlobReader;
use crate::page::browser::{BrowserFile, BrowserRoot, BrowserRoots, Progress, ProgressState};
use crate::page::browser::{GivenLog, modified_of};
use crate::page::engine::cache::CacheInRun;
use crate::page::engine::{FinishedRun, PlannedRun, Stage};
use crate::page::pack::{PackFile, PageCache};
use crate::page::protocol::{self, FileAt, Request};
use crate::page::views::{self, PageOptions};

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

// Values cross the boundary as JSON text, through the browser's JSON: serde_json is in the module
// for the outputs anyway, and a second serializer would be a second copy of every output type's
// code in the page's download.
fn to_js(value: &impl Serialize) -> Result<JsValue, JsError> {
    let text = serde_json::to_string(value).map_err(js_error)?;
    js_sys::JSON::parse(&text).map_err(|_| JsError::new("an answer the browser could not read as JSON"))
}

fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, JsError> {
    let text = js_sys::JSON::stringify(value).map_err(|_| JsError::new("a value that is not JSON"))?;
    serde_json::from_str(&String::from(text)).map_err(js_error)
}

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The engine's memory in MiB (a WebAssembly memory only grows, so this is its peak).
fn memory_mib() -> u32 {
    // A WebAssembly page is 64 KiB: 16 to the MiB.
    (core::arch::wasm32::memory_size::<0>() / 16) as u32
}

/// `protocol::EngineFacts`.
#[wasm_bindgen]
pub fn engine_facts() -> Result<JsValue, JsError> {
    to_js(&protocol::engine_facts())
}

/// Whether the answer to a `protocol::Request` waits for the files handed over after the
/// analysis (`Request::needs_every_file`).
#[wasm_bindgen]
pub fn needs_every_file(request: JsValue) -> Result<bool, JsError> {
    Ok(from_js::<Request>(&request)?.needs_every_file())
}

/// Inflates a zip entry for the page's second worker (`input::zip::inflate_raw`): `bytes` start
/// at its local header; `packed`, `size` and `crc32` are its `RawEntry`'s.
#[wasm_bindgen]
pub fn inflate(bytes: &[u8], packed: f64, size: f64, crc32: u32) -> Result<Vec<u8>, JsError> {
    crate::input::zip::inflate_raw(bytes, packed as u64, size as u64, crc32).map_err(js_error)
}

/// The files of a folder's listing (their indices) no analysis opens
/// (`input::layout::never_opened`): a remembered folder's walk gets their Files after it.
#[wasm_bindgen]
pub fn never_opened(paths: Vec<String>) -> Vec<u32> {
    crate::input::layout::never_opened(paths.iter().map(String::as_str))
}

/// The zips of a folder the page lists that are read as roots of their own, and whether the
/// folder is still a root itself (`input::layout::zips_outside_homes`): the page, which holds
/// their Files, then gives them as zips.
#[wasm_bindgen]
pub fn zips_in_folder(paths: Vec<String>) -> Result<JsValue, JsError> {
    to_js(&crate::input::layout::zips_outside_homes(paths.iter().map(String::as_str)))
}

#[wasm_bindgen]
extern "C" {
    /// The worker's `FileSystemSyncAccessHandle` of an input's pack (`www/cache.js`).
    pub type SyncAccessHandle;
    #[wasm_bindgen(method, catch, js_name = getSize)]
    fn get_size(this: &SyncAccessHandle) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn read(this: &SyncAccessHandle, buffer: &mut [u8], options: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn write(this: &SyncAccessHandle, buffer: &[u8], options: &JsValue) -> Result<f64, JsValue>;
    #[wasm_bindgen(method, catch, js_name = truncate)]
    fn cut(this: &SyncAccessHandle, size: f64) -> Result<(), JsValue>;
}

/// `{at}`, where a handle reads or writes.
fn at(offset: u64) -> JsValue {
    let options = js_sys::Object::new();
    // Setting a property of a new plain object cannot fail.
    let _ = js_sys::Reflect::set(&options, &"at".into(), &(offset as f64).into());
    options.into()
}

fn browser_error(error: JsValue) -> String {
    // A DOMException is an Error; the glue's debug printer is not worth its download.
    error.dyn_ref::<js_sys::Error>().map_or_else(|| "the browser refused".to_string(), |error| error.message().into())
}

impl PackFile for SyncAccessHandle {
    fn size(&self) -> Result<u64, String> {
        self.get_size().map(|size| size as u64).map_err(browser_error)
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> Result<(), String> {
        let read = self.read(buffer, &at(offset)).map_err(browser_error)?;
        (read as usize == buffer.len()).then_some(()).ok_or_else(|| "the file ended early".to_string())
    }

    fn write_at(&self, offset: u64, bytes: &[u8]) -> Result<(), String> {
        let written = self.write(bytes, &at(offset)).map_err(browser_error)?;
        (written as usize == bytes.len()).then_some(()).ok_or_else(|| "the browser wrote part of it".to_string())
    }

    fn truncate(&self, size: u64) -> Result<(), String> {
        self.cut(size as f64).map_err(browser_error)
    }
}

/// One analysis in the browser: add roots, begin, hand over what `need` says, then `ask`.
#[wasm_bindgen]
pub struct Engine {
    options: Options,
    memory_limit_mib: u32,
    stage: Stage,
    /// The page's cache: its pack's file, the page's build and the cap, taken before `begin`.
    cache: Option<(SyncAccessHandle, String, u64)>,
}

#[wasm_bindgen]
impl Engine {
    /// `options`: a `protocol::PageOptions` (every field optional), or nothing.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Engine, JsError> {
        let given: PageOptions =
            if options.is_undefined() || options.is_null() { PageOptions::default() } else { from_js(&options)? };
        let (options, memory_limit_mib) = given.options().map_err(js_error)?;
        Ok(Engine { options, memory_limit_mib, stage: Stage::adding(), cache: None })
    }

    /// What the analysis needs next: a `protocol::Need`.
    pub fn need(&self) -> Result<JsValue, JsError> {
        to_js(&self.stage.need())
    }

    /// A folder or loose files as one root, by their paths relative to the root
    /// (`webkitRelativePath` less the folder's name, or names). The files themselves are handed
    /// over once the analysis is planned (`give_bytes`, `give_files`): a browser pays for each
    /// File it hands to a worker, so the page hands them while the analysis runs. A listing
    /// that knows each file's size and time (a remembered folder's: its walk got each File)
    /// gives them (`sizes`, `times` in ms since the epoch, by path): the cache then stands for
    /// the small files that did not change, unread, and the files not read need not come. A
    /// size of NaN is a file the walk got no File for (`never_opened`): it comes after the
    /// analysis, for the report's size.
    pub fn add_listing(
        &mut self,
        label: String,
        paths: Vec<String>,
        sizes: Option<Vec<f64>>,
        times: Option<Vec<f64>>,
    ) -> Result<(), JsError> {
        let Stage::Adding { roots, listings, sized, sized_later } = &mut self.stage else {
            return Err(js_error("roots come before begin"));
        };
        let stats = match (sizes, times) {
            (Some(sizes), Some(times)) if sizes.len() == paths.len() && times.len() == paths.len() => {
                Some((sizes, times))
            }
            (None, None) => None,
            _ => return Err(js_error("a listing's sizes and times go together, one of each a path")),
        };
        let root = roots.len();
        let files = paths.into_iter().enumerate().map(|(at, path)| match &stats {
            // No size: a file the analysis never opens, whose File the page gets after it.
            Some((sizes, _)) if sizes[at].is_nan() => {
                sized_later.push(FileAt { root, path: path.clone() });
                ListedFile { path, size: 0, modified_ms: None }
            }
            Some((sizes, times)) => {
                let time = (times[at] > 0.0).then_some(times[at] as i64);
                ListedFile { path, size: sizes[at] as u64, modified_ms: time }
            }
            None => ListedFile { path, size: 0, modified_ms: None },
        });
        listings.push(RootListing { label, files: files.collect(), problems: Vec::new() });
        roots.push(BrowserRoot::Files(Default::default()));
        sized.push(stats.is_some());
        Ok(())
    }

    /// A zip of a home or of `~/.copilot` as one root, read entry by entry.
    pub fn add_zip(&mut self, label: String, file: Blob) -> Result<(), JsError> {
        let Stage::Adding { roots, listings, sized, .. } = &mut self.stage else {
            return Err(js_error("roots come before begin"));
        };
        let reader = BlobReader::new(file).map_err(js_error)?;
        let (zip, listing) = ZipRoot::open(reader, &label).map_err(js_error)?;
        listings.push(listing);
        roots.push(BrowserRoot::Zip(zip));
        sized.push(true);
        Ok(())
    }

    /// Uses the page's cache (`crate::page::pack`): `pack` is the sync access handle of the file
    /// it keeps for these inputs (read and written during the run), `build` names the page's
    /// build, `cap` bounds the pack's entries (beyond it none are recorded). Before `begin`.
    pub fn use_cache(&mut self, pack: SyncAccessHandle, build: String, cap: f64) -> Result<(), JsError> {
        if !matches!(self.stage, Stage::Adding { .. }) {
            return Err(js_error("the cache comes before begin"));
        }
        self.cache = Some((pack, build, cap as u64));
        Ok(())
    }

    /// What the page's cache did (a `protocol::CacheReport`), null without one. After `finish`.
    pub fn cache_report(&self) -> Result<JsValue, JsError> {
        to_js(&self.done()?.cache_report())
    }

    /// Writes the pack's index, once, after `finish`: returns the pack's size, or nothing
    /// without a cache. (A run that ends before cuts the file back to its size before the run.)
    pub fn finish_cache(&mut self) -> Result<Option<f64>, JsError> {
        let Stage::Finished(done) = &mut self.stage else { return Err(js_error("run the analysis first")) };
        let Some(mut cached) = done.cache.take() else { return Ok(None) };
        Ok(Some(cached.pack.finish().map_err(js_error)? as f64))
    }

    /// Makes the cache entries of at most `most` of the logs `begin` marked `LogCache::EntryAfterDone`
    /// (once the hand-over's every step is given, before `finish_cache`): gives how many are left.
    pub fn record_entries(&mut self, most: usize) -> Result<usize, JsError> {
        let Stage::Finished(done) = &mut self.stage else { return Err(js_error("run the analysis first")) };
        Ok(done.record_entries(most))
    }

    /// Plans the analysis; `progress` is called with `{bytes, total, files, files_total, file}`.
    /// Returns what the page is to hand over from its folder roots: a `protocol::HandOver`.
    pub fn begin(&mut self, progress: Function) -> Result<JsValue, JsError> {
        let Stage::Adding { roots, listings, sized, sized_later } = self.take_stage() else {
            return Err(js_error("this engine has begun already"));
        };
        // The run starts now by the page's clock (the core has none): before any log is read.
        let started_ms = js_sys::Date::now() as i64;
        let cache = self.cache.take().map(|(pack, build, cap)| {
            CacheInRun::new(
                PageCache::new(Box::new(pack), &build, EntryRules::new(&build, &self.options, started_ms), cap),
                listings.iter().map(|listing| listing.label.clone()).collect(),
            )
        });
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
        let roots = BrowserRoots {
            roots,
            sized,
            sized_later,
            progress: Progress { state: std::rc::Rc::new(RefCell::new(state)) },
        };
        let (run, hand_over) = PlannedRun::new(planned, roots, cache);
        self.stage = Stage::Planned(Box::new(run));
        to_js(&hand_over)
    }

    /// A file of a folder root handed over as bytes (read by the page), before the metadata is
    /// read or, for one read after the logs, while they are parsed. Its time is asked for only
    /// if its rows need it (`read_metadata`).
    pub fn give_bytes(&mut self, root: usize, path: String, bytes: Uint8Array) -> Result<(), JsError> {
        let size = bytes.length() as u64;
        let file = BrowserFile::Bytes(bytes);
        match &mut self.stage {
            Stage::Planned(run) => run.give(root, path, file, size, None),
            Stage::Parsing(run) => run.give(root, path, file, size, None),
            Stage::Adding { .. } | Stage::Finished(_) => {
                return Err(js_error("files come after begin, and before finish"));
            }
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
            match &mut self.stage {
                Stage::Planned(run) => {
                    let modified = modified_of(&blob);
                    run.give(root, path, BrowserFile::Blob(blob), size, modified);
                }
                Stage::Parsing(run) => {
                    let modified = modified_of(&blob);
                    run.give(root, path, BrowserFile::Blob(blob), size, modified);
                }
                Stage::Finished(done) => done.give_late(root, path, blob, size),
                Stage::Adding { .. } => return Err(js_error("files come after begin")),
            }
        }
        Ok(())
    }

    /// Reads every file but the event logs (the page has handed over the `files` and `small`
    /// files `begin` named). Returns a `protocol::AfterMetadata`: the files handed over as bytes
    /// whose modification times the rows need (the page gives them, `give_time`, before
    /// `finish`), and the files read after the logs that hold something.
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
    /// taken in that order): from `log`, a Uint8Array of the whole file (read by the page, which
    /// gives its time, `modified_ms`, for the cache's key) or a File (read here in windows: a log
    /// above `log_given_whole_max_bytes`, or one the cache may have), else from its root.
    pub fn parse_log(&mut self, index: usize, log: JsValue, modified_ms: Option<f64>) -> Result<(), JsError> {
        let Stage::Parsing(run) = &mut self.stage else { return Err(js_error("read the metadata first")) };
        let given = if let Some(bytes) = log.dyn_ref::<Uint8Array>() {
            GivenLog::Bytes(bytes.to_vec(), modified_ms.filter(|ms| *ms > 0.0).map(|ms| ms as i64))
        } else if let Ok(file) = log.dyn_into::<Blob>() {
            GivenLog::File(file)
        } else {
            GivenLog::FromRoot
        };
        run.parse_log(index, given).map_err(js_error)?;
        self.check_memory()
    }

    /// Joins, deduplicates and builds the outputs. Returns the summary numbers
    /// (`views::Summary`).
    pub fn finish(&mut self) -> Result<JsValue, JsError> {
        let Stage::Parsing(run) = self.take_stage() else {
            return Err(js_error("read the metadata first"));
        };
        let done = Box::new(run.finish());
        let summary = views::summary(&done.outputs);
        self.stage = Stage::Finished(done);
        to_js(&summary)
    }

    /// The answer (`protocol::Answer`) to a `protocol::Request` of the finished analysis.
    pub fn ask(&self, request: JsValue) -> Result<JsValue, JsError> {
        let request: Request = from_js(&request)?;
        to_js(&self.done()?.answer(request).map_err(js_error)?)
    }

    /// GitHub's usage reports (`files`, File objects, read a slice at a time) reconciled with
    /// the finished analysis, for `user` or (none) the login the homes signed in with: a
    /// `usage::bill::Reconciliation`, what `usage --bill --json` gives as `bill`.
    pub fn reconcile_bill(&self, files: Array, user: Option<String>) -> Result<JsValue, JsError> {
        let mut reports = Vec::new();
        for file in files.iter() {
            let file: web_sys::File = file.dyn_into().map_err(|_| js_error("not a File"))?;
            reports.push((file.name(), Blob::from(file)));
        }
        let user = user.filter(|user| !user.is_empty());
        // The Files are taken as File in both modules, which so share one wasm-bindgen glue.
        #[cfg(feature = "extras")]
        return to_js(&self.done()?.reconcile_bill(reports, user.as_deref()).map_err(js_error)?);
        #[cfg(not(feature = "extras"))]
        {
            let _ = (reports, user, self.done()?);
            Err(js_error(protocol::NOT_IN_FIRST_ENGINE))
        }
    }

    /// Stops the analysis under way, freeing what it holds, once the memory passes the limit.
    fn check_memory(&mut self) -> Result<(), JsError> {
        views::memory_check(memory_mib(), self.memory_limit_mib).map_err(|error| {
            self.take_stage();
            js_error(error)
        })
    }

    /// The stage, to move on from (a failed step leaves the engine empty, as a new one).
    fn take_stage(&mut self) -> Stage {
        std::mem::replace(&mut self.stage, Stage::adding())
    }

    fn done(&self) -> Result<&FinishedRun, JsError> {
        match &self.stage {
            Stage::Finished(done) => Ok(done),
            _ => Err(js_error("run the analysis first")),
        }
    }
}
