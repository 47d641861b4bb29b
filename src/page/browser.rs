//! The browser's inputs as the core reads them: a folder's files handed over by the page
//! (Blobs read lazily, or bytes the page read ahead) and zips read from a Blob, with progress
//! reported as bytes go by, and a log's lines read again for the long texts a viewer shows.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use js_sys::{Function, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::Blob;

use super::blob::BlobReader;
use crate::analysis::{LogJob, Options, ParsedLog};
use crate::input::zip::ZipRoot;
use crate::input::{FileReader, ReadAt};
use crate::lines::{self, MAX_LINE_BYTES};
use crate::model::RowSink;
use crate::page::protocol::FileAt;

pub enum BrowserRoot {
    Files(HashMap<String, BrowserFile>),
    Zip(ZipRoot<BlobReader>),
}

/// A file of a folder root: a Blob read lazily, or bytes the page read ahead.
pub enum BrowserFile {
    Blob(Blob),
    Bytes(Uint8Array),
}

/// What a folder root's file is read through: in order, at positions, or sought.
pub trait SourceReader: Read + Seek + ReadAt {}
impl<T: Read + Seek + ReadAt> SourceReader for T {}

impl BrowserFile {
    pub fn reader(&self) -> io::Result<Box<dyn SourceReader>> {
        Ok(match self {
            BrowserFile::Blob(blob) => Box::new(BlobReader::new(blob.clone())?),
            BrowserFile::Bytes(array) => Box::new(ArrayReader { array: array.clone(), position: 0 }),
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
pub enum LineSource<'a> {
    Seekable(BufReader<Box<dyn SourceReader>>, u64),
    Forward(BufReader<Box<dyn Read + 'a>>, u64),
}

/// How far ahead a seekable log is read through rather than sought.
const READ_THROUGH: u64 = 1 << 20;

impl LineSource<'_> {
    /// The line starting at `offset`, with its line end; offsets must not go back on a zip entry.
    pub fn line_at(&mut self, offset: u64) -> io::Result<Vec<u8>> {
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

impl crate::sources::LogAgain for LineSource<'_> {
    fn line_at(&mut self, offset: u64) -> io::Result<Vec<u8>> {
        LineSource::line_at(self, offset)
    }

    fn whole(&mut self) -> io::Result<&mut dyn BufRead> {
        match self {
            LineSource::Seekable(reader, 0) => Ok(reader),
            LineSource::Forward(reader, 0) => Ok(reader),
            _ => Err(io::Error::other("a log is read from its start only before any line of it")),
        }
    }
}

impl BrowserRoots {
    pub fn is_sized(&self, root: usize) -> bool {
        self.sized.get(root).copied().unwrap_or(false)
    }

    /// A file of a folder root handed over; one the analysis reads counts in the progress.
    pub fn take(&mut self, root: usize, path: String, file: BrowserFile, size: u64, read: bool) {
        if read && !self.is_sized(root) {
            self.progress.state.borrow_mut().total += size as f64;
        }
        if let Some(BrowserRoot::Files(files)) = self.roots.get_mut(root) {
            files.insert(path, file);
        }
    }

    /// A log opened again, its lines at the offsets `LineReader` gave them: a UTF-16 log's
    /// are in its text as UTF-8, so that one is decoded again from its start.
    pub fn open_lines(&mut self, root: usize, path: &str) -> io::Result<LineSource<'_>> {
        let missing = || io::Error::new(io::ErrorKind::NotFound, path.to_string());
        fn forward<'a>(reader: Box<dyn Read + 'a>) -> LineSource<'a> {
            LineSource::Forward(BufReader::with_capacity(1 << 16, Box::new(lines::utf16_as_utf8(reader))), 0)
        }
        Ok(match self.roots.get_mut(root) {
            Some(BrowserRoot::Files(files)) => {
                let mut reader = BufReader::with_capacity(1 << 16, files.get(path).ok_or_else(missing)?.reader()?);
                if lines::may_be_utf16(reader.fill_buf()?) {
                    forward(Box::new(reader))
                } else {
                    LineSource::Seekable(reader, 0)
                }
            }
            Some(BrowserRoot::Zip(zip)) => forward(zip.open_entry(path)?),
            None => return Err(missing()),
        })
    }
}

/// The roots as the core reads them, reporting progress as bytes go by.
pub struct BrowserRoots {
    pub roots: Vec<BrowserRoot>,
    /// Whether each root's listing gave its files' sizes (a zip's, a remembered folder's): a
    /// picked folder's sizes come with its files.
    pub sized: Vec<bool>,
    /// The files of those roots whose listing had no size for them: the page got no File for
    /// them, as the analysis never opens them (`layout::never_opened`); it gives them after.
    pub sized_later: Vec<FileAt>,
    pub progress: Progress,
}

#[derive(Clone)]
pub struct Progress {
    pub state: std::rc::Rc<RefCell<ProgressState>>,
}

pub struct ProgressState {
    pub callback: Function,
    pub total: f64,
    pub done: f64,
    pub files: u32,
    pub files_total: u32,
    /// Files opened so far: a file opened twice (the store's WAL is read in two passes)
    /// counts once, and its bytes once.
    pub opened: HashSet<(usize, String)>,
    pub last_report: f64,
    /// The run is over: files opened again later are not progress.
    pub finished: bool,
}

impl Progress {
    /// Files planned to be read that turned out not to be needed: the total counts without them.
    pub fn not_reading(&self, files: usize) {
        let mut state = self.state.borrow_mut();
        state.files_total = state.files_total.saturating_sub(files as u32);
    }

    /// A file the worker read itself and handed over whole.
    pub fn add_file(&self, root: usize, path: &str, bytes: f64) {
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

    pub fn report(&self, file: &str) {
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

impl BrowserRoots {
    /// A log as given, parsed into `rows` without the cache: the progress counts bytes given as
    /// read, a File is kept among its root's files (its long texts are read again from it).
    pub fn parse_given(
        &mut self,
        job: LogJob,
        given: GivenLog,
        options: &Options,
        rows: &mut dyn RowSink,
    ) -> ParsedLog {
        match given {
            GivenLog::Bytes(bytes, _) => {
                self.progress.add_file(job.task.root, &job.task.listed_path, bytes.len() as f64);
                job.parse_bytes(&bytes, options, rows)
            }
            GivenLog::File(blob) => {
                if let Some(BrowserRoot::Files(files)) = self.roots.get_mut(job.task.root) {
                    files.insert(job.task.listed_path.clone(), BrowserFile::Blob(blob));
                }
                job.parse(self, options, rows)
            }
            GivenLog::FromRoot => job.parse(self, options, rows),
        }
    }
}

/// A File's modification time, if the Blob is one and the browser knows it.
pub fn modified_of(blob: &Blob) -> Option<i64> {
    let modified_ms = blob.dyn_ref::<web_sys::File>().map_or(0.0, web_sys::File::last_modified);
    (modified_ms > 0.0).then_some(modified_ms as i64)
}
