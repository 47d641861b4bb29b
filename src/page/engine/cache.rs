//! The page's cache in an analysis (`CacheInRun`): the pack (`crate::page::pack`) and the
//! roots' labels that name its entries. It decides how each folder log is handed over
//! (`LogCache`), takes small files from their entries unread, reads the stores and parses
//! the logs through the pack (`crate::cache::look_up`, then the cache's replay), and makes
//! the entries of new logs once the analysis is done. The engine's stages call it; it knows
//! none of them.

use std::collections::HashMap;

use web_sys::Blob;

use crate::analysis::{AsTheyAre, LogInput, LogJob, LogTask, Options, ParsedLog, Planned};
use crate::cache::{CacheTally, EntryStore, FileKey, LookedUp, Purpose, StoreCache, entry_name, look_up};
use crate::input::Stat;
use crate::model::RowSink;
use crate::page::browser::{BrowserFile, BrowserRoot, BrowserRoots, GivenLog, modified_of};
use crate::page::pack::PageCache;
use crate::page::protocol::{CacheReport, FileAt, LOG_GIVEN_WHOLE_MAX_BYTES, LogCache};
use crate::page::table::AsTableKeeps;

/// The page's cache in a run, and the roots' labels, which name its entries.
pub struct CacheInRun {
    pub pack: PageCache,
    pub labels: Vec<String>,
    /// The small files the page reads whole in this run that were listed with their times
    /// (`take_unread`): kept for the next run as they come (`keep_for_next_run`).
    to_keep: HashMap<(usize, String), Stat>,
    /// The logs parsed without the cache, having no entry in it (`LogCache::EntryAfterDone`), by
    /// `LogTask::file`: their entries are made once the analysis is done (`record_entries`).
    unrecorded: Vec<u32>,
}

impl CacheInRun {
    pub fn new(pack: PageCache, labels: Vec<String>) -> CacheInRun {
        CacheInRun { pack, labels, to_keep: HashMap::new(), unrecorded: Vec::new() }
    }

    /// Takes out of `files` (small files the page would read whole) those the cache's entries
    /// stand for unread as `stat_of` says they are listed (a remembered folder's listing gives
    /// each file's size and time at no cost, while a read costs the browser a round trip), and
    /// returns them with their bytes. Those left that were listed are kept as they come.
    /// Gives where each is, its bytes and its listing.
    pub fn take_unread(
        &mut self,
        files: &mut Vec<FileAt>,
        stat_of: impl Fn(&FileAt) -> Option<Stat>,
    ) -> Vec<(FileAt, Vec<u8>, Stat)> {
        let mut unread = Vec::new();
        files.retain(|file| {
            let Some(stat) = stat_of(file) else { return true };
            match self.pack.kept_file((&self.labels[file.root], &file.path), stat) {
                Some(bytes) => unread.push((file.clone(), bytes, stat)),
                None => {
                    self.to_keep.insert((file.root, file.path.clone()), stat);
                    return true;
                }
            }
            false
        });
        unread
    }

    /// A file the page gave: its bytes are kept for the next run when `take_unread` said so and
    /// they are as long as its listing said.
    pub fn keep_for_next_run(&mut self, root: usize, path: &str, file: &BrowserFile) {
        let BrowserFile::Bytes(bytes) = file else { return };
        let Some(Stat { size, modified_ms: Some(time), .. }) = self.to_keep.remove(&(root, path.to_string())) else {
            return;
        };
        if u64::from(bytes.length()) == size {
            self.pack.keep_file((&self.labels[root], path), time, &bytes.to_vec());
        }
    }

    /// How the page hands over the log at `path` of the folder root `root`.
    pub fn log_cache(&self, root: usize, path: &str) -> LogCache {
        let name = entry_name(&self.labels[root], path, Purpose::Analyze);
        match (self.pack.has_entry(&name), self.pack.can_stand_unread(&name)) {
            (true, true) => LogCache::Unread,
            (true, false) => LogCache::LookedUp,
            (false, _) => LogCache::EntryAfterDone,
        }
    }

    /// The stores of `planned` through the pack: a folder's store whose files did not change is
    /// taken from its entry. Not once the pack neither records nor holds entries (its keys
    /// would be read for nothing): then they are read as without a cache.
    pub fn read_stores(&mut self, planned: &mut Planned, roots: &mut BrowserRoots) {
        if !self.pack.in_use() {
            planned.read_stores(roots, &mut AsTheyAre);
            return;
        }
        // Made before the read, which borrows the roots.
        let keys: HashMap<(usize, String), FileKey> = (planned.store_files())
            .filter_map(|(root, path)| {
                let Some(BrowserRoot::Files(files)) = roots.roots.get(root) else { return None };
                Some(((root, path.to_string()), key_of_given(&self.labels[root], path, files.get(path)?)?))
            })
            .collect();
        let key_of = |root: usize, path: &str| keys.get(&(root, path.to_string())).cloned();
        let mut through = StoreCache::new(&key_of, &mut self.pack);
        planned.read_stores(roots, &mut through);
        let tally = through.tally;
        self.pack.tally.add(&tally);
        // Read or taken from the cache, the stores' files are done (a file counts once).
        for ((root, path), key) in &keys {
            roots.progress.add_file(*root, path, key.size as f64);
        }
    }

    /// Whether the log `task` goes through the pack: a folder's log (a zip's entries are parsed
    /// again, as natively), while the pack records or holds entries.
    pub fn takes(&self, task: &LogTask, roots: &BrowserRoots) -> bool {
        self.pack.in_use() && matches!(roots.roots.get(task.root), Some(BrowserRoot::Files(_)))
    }

    /// The log of `job`, as given, through the pack (`takes` said so) into `rows`. A log with no
    /// entry is parsed as without the cache: making entries cost a cold run 8% of its time (2 GB
    /// folder), so they wait until the analysis is done (`record_entries`). `listed_time` is
    /// the log's time as its root listed it.
    pub fn parse_log(
        &mut self,
        job: LogJob,
        given: GivenLog,
        roots: &mut BrowserRoots,
        (listed_time, options): (Option<i64>, &Options),
        rows: &mut dyn RowSink,
    ) -> ParsedLog {
        let given = self.read_whole_if_changed(&job.task, given, roots);
        let task = &job.task;
        let label = self.labels[task.root].clone();
        if !self.pack.has_entry(&entry_name(&label, &task.listed_path, Purpose::Analyze)) {
            self.pack.tally.add(&CacheTally { parsed: 1, ..CacheTally::default() });
            if self.pack.recording() {
                self.unrecorded.push(task.file as u32);
            }
            return roots.parse_given(job, given, options, rows);
        }
        let (path, root) = (task.listed_path.clone(), task.root);
        match given {
            GivenLog::Bytes(bytes, modified_ms) => {
                roots.progress.add_file(root, &path, bytes.len() as f64);
                let read_key = || Some(FileKey::of_bytes(&label, &path, None, &bytes));
                match look_up(&self.pack, Purpose::Analyze, (&label, &path), None, read_key) {
                    Some(looked_up) => {
                        let time = modified_ms.or(listed_time);
                        self.through_pack(job, looked_up, time, LogInput::Bytes(&bytes), options, rows).0
                    }
                    None => job.parse_bytes(&bytes, options, rows),
                }
            }
            GivenLog::File(blob) => {
                // Its entry stands for it when its size and time are as the entry says (the
                // page hands such a log over unread, `LogCache::Unread`); else its two ends are
                // read here.
                let (size, time) = (blob.size() as u64, modified_of(&blob));
                let now = Stat { size, modified_ms: time, changed_ns: None };
                let read_key = || key_of_ends(&label, &path, &BrowserFile::Blob(blob.clone()), size, None);
                let looked_up = look_up(&self.pack, Purpose::Analyze, (&label, &path), Some(now), read_key);
                if let Some(BrowserRoot::Files(files)) = roots.roots.get_mut(root) {
                    files.insert(path.clone(), BrowserFile::Blob(blob));
                }
                let Some(looked_up) = looked_up else { return job.parse(roots, options, rows) };
                let size = looked_up.key.size;
                let (parsed, through_entry) =
                    self.through_pack(job, looked_up, time, LogInput::Reader(roots), options, rows);
                if through_entry {
                    // Not opened, but done: the progress counts it as read.
                    roots.progress.add_file(root, &path, size as f64);
                }
                parsed
            }
            GivenLog::FromRoot => job.parse(roots, options, rows),
        }
    }

    /// A log handed over unread for its cache entry (`LogCache::Unread`) whose size or time
    /// changed since: read whole here, as the page would have read it (one read, where keying
    /// it and parsing it through its File take several), the File kept for its long texts.
    /// Any other log as given.
    fn read_whole_if_changed(&self, task: &LogTask, given: GivenLog, roots: &mut BrowserRoots) -> GivenLog {
        let GivenLog::File(blob) = given else { return given };
        let (size, time) = (blob.size() as u64, modified_of(&blob));
        let name = entry_name(&self.labels[task.root], &task.listed_path, Purpose::Analyze);
        let changed = self.pack.can_stand_unread(&name)
            && !self.pack.stands_unread(&name, Stat { size, modified_ms: time, changed_ns: None });
        let read = (changed && size <= LOG_GIVEN_WHOLE_MAX_BYTES).then(|| read_whole(&blob)).flatten();
        let Some(bytes) = read else { return GivenLog::File(blob) };
        if let Some(BrowserRoot::Files(files)) = roots.roots.get_mut(task.root) {
            files.insert(task.listed_path.clone(), BrowserFile::Blob(blob));
        }
        GivenLog::Bytes(bytes, time)
    }

    /// A log through the pack (`LogJob::through_store`), its tally added to the pack's. The
    /// pack keeps a log's time beside its entry, and `time` is the log's now, if the page gave
    /// it with the log (it gives a new log's after the analysis, `Give::FilesAfterDone`). Says
    /// whether the log was read through its entry (not opened whole).
    fn through_pack(
        &mut self,
        job: LogJob,
        looked_up: LookedUp,
        time: Option<i64>,
        input: LogInput<'_>,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> (ParsedLog, bool) {
        let (parsed, tally) = job.through_store(&mut self.pack, looked_up, time, input, options, rows);
        self.pack.tally.add(&tally);
        (parsed, tally.parsed == 0)
    }

    /// What the cache did in this run.
    pub fn report(&self) -> CacheReport {
        let tally = &self.pack.tally;
        CacheReport {
            from_cache: tally.cached,
            unread: tally.unread,
            changed: tally.parsed + tally.resumed,
            grown: tally.resumed,
            problem: self.pack.problem.clone(),
            kept: self.pack.recording(),
        }
    }

    /// Makes the entries of at most `most` of the logs parsed without one (`logs` by their
    /// `LogTask::file`), each read again from its File (handed over after done), whose time
    /// the worker knows unasked. Gives how many are left.
    pub fn record_entries(
        &mut self,
        most: usize,
        logs: &HashMap<u32, LogTask>,
        roots: &mut BrowserRoots,
        options: &Options,
    ) -> usize {
        if !self.pack.recording() {
            return 0;
        }
        let ids: Vec<u32> = self.unrecorded.drain(..most.min(self.unrecorded.len())).collect();
        for id in ids {
            let Some(task) = logs.get(&id) else { continue };
            let Some(BrowserRoot::Files(files)) = roots.roots.get(task.root) else { continue };
            let Some(BrowserFile::Blob(blob)) = files.get(&task.listed_path) else { continue };
            let (label, time, size) = (&self.labels[task.root], modified_of(blob), blob.size() as u64);
            let name = entry_name(label, &task.listed_path, Purpose::Analyze);
            let file = BrowserFile::Blob(blob.clone());
            let entry = key_of_ends(label, &task.listed_path, &file, size, None).and_then(|key| {
                task.entry_alone(LogInput::Reader(roots), &key, self.pack.rules(), options, &mut AsTableKeeps)
            });
            if let Some(entry) = entry {
                self.pack.put(&name, &entry, time);
            }
        }
        self.unrecorded.len()
    }
}

/// Small files taken from the cache (`CacheInRun::take_unread`), given as the page gives bytes
/// (the progress counts them as read).
pub fn give_unread(unread: Vec<(FileAt, Vec<u8>, Stat)>, mut give: impl FnMut(usize, String, BrowserFile, Stat)) {
    for (FileAt { root, path }, bytes, stat) in unread {
        give(root, path, BrowserFile::Bytes(js_sys::Uint8Array::from(&bytes[..])), stat);
    }
}

/// A File read whole, in one read.
fn read_whole(blob: &Blob) -> Option<Vec<u8>> {
    let buffer = web_sys::FileReaderSync::new().ok()?.read_as_array_buffer(blob).ok()?;
    Some(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The key of a file handed over as a File (its size and time, and its two ends read here) or
/// as bytes (a store's: the page gives no time with them, so its size and two ends alone say
/// it did not change).
fn key_of_given(root: &str, path: &str, file: &BrowserFile) -> Option<FileKey> {
    match file {
        BrowserFile::Blob(blob) => key_of_ends(root, path, file, blob.size() as u64, modified_of(blob)),
        BrowserFile::Bytes(bytes) => key_of_ends(root, path, file, bytes.length() as u64, None),
    }
}

/// The key of a file of `size` bytes, from its two ends read here.
fn key_of_ends(root: &str, path: &str, file: &BrowserFile, size: u64, modified: Option<i64>) -> Option<FileKey> {
    FileKey::read_ends((root, path), size, modified, &mut *file.reader().ok()?)
}
