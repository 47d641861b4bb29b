//! Browser files as input: a `Blob` read lazily, a slice at a time, with `FileReaderSync`
//! (which exists only in a dedicated Worker). Gives `Read + Seek`, so a zip's central
//! directory and entries are read without loading the archive.

use std::io::{self, Read, Seek, SeekFrom};

use js_sys::Uint8Array;
use web_sys::{Blob, FileReaderSync};

/// A Blob is read in windows, the most recently used kept up to `KEPT_BYTES`: every
/// `FileReaderSync` call costs the browser a round trip whatever its size. A read that follows
/// on from the last window fetches twice as much as that one did, up to `LONGEST_READ` (a log
/// or a zip entry read through); a read elsewhere fetches `FIRST_READ` (a zip entry's header,
/// or one of the store's pages, scattered over its log).
const FIRST_READ: u64 = 64 << 10;
const LONGEST_READ: u64 = 4 << 20;
const KEPT_BYTES: usize = 32 << 20;

pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    size: u64,
    position: u64,
    /// Windows by their start, most recently used last.
    windows: Vec<(u64, Vec<u8>)>,
    /// Where the last fetched window ended, and its length.
    fetched_end: u64,
    fetched: u64,
}

impl BlobReader {
    pub fn new(blob: Blob) -> io::Result<BlobReader> {
        let reader =
            FileReaderSync::new().map_err(|_| io::Error::other("FileReaderSync is only available in a Worker"))?;
        let size = blob.size() as u64;
        Ok(BlobReader { blob, reader, size, position: 0, windows: Vec::new(), fetched_end: u64::MAX, fetched: 0 })
    }

    /// The window holding `position`, fetched (at least `wanted` bytes of it) if it is not kept.
    fn window(&mut self, position: u64, wanted: u64) -> io::Result<&(u64, Vec<u8>)> {
        let kept =
            self.windows.iter().position(|(start, bytes)| (*start..*start + bytes.len() as u64).contains(&position));
        match kept {
            Some(at) => {
                let window = self.windows.remove(at);
                self.windows.push(window);
            }
            None => {
                let length = if position == self.fetched_end { self.fetched * 2 } else { FIRST_READ };
                let length = length.max(wanted).min(LONGEST_READ);
                let end = (position + length).min(self.size);
                let slice = self
                    .blob
                    .slice_with_f64_and_f64(position as f64, end as f64)
                    .map_err(|_| io::Error::other("cannot slice the file"))?;
                let bytes = self
                    .reader
                    .read_as_array_buffer(&slice)
                    .map_err(|error| io::Error::other(format!("cannot read the file: {error:?}")))?;
                let bytes = Uint8Array::new(&bytes).to_vec();
                let mut kept: usize = self.windows.iter().map(|(_, window)| window.len()).sum();
                while kept + bytes.len() > KEPT_BYTES && !self.windows.is_empty() {
                    kept -= self.windows.remove(0).1.len();
                }
                (self.fetched_end, self.fetched) = (end, end - position);
                self.windows.push((position, bytes));
            }
        }
        Ok(self.windows.last().expect("just kept"))
    }
}

impl Read for BlobReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.position >= self.size || out.is_empty() {
            return Ok(0);
        }
        let position = self.position;
        let (start, bytes) = self.window(position, out.len() as u64)?;
        let available = bytes.get((position - start) as usize..).unwrap_or_default();
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl crate::input::ReadAt for BlobReader {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        self.seek(SeekFrom::Start(offset))?;
        crate::input::fill(self, buffer)
    }
}

impl Seek for BlobReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => self.size.checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = target.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.position)
    }
}
