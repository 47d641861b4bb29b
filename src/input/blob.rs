//! Browser files as input: a `Blob` read lazily, a slice at a time, with `FileReaderSync`
//! (which exists only in a dedicated Worker). Gives `Read + Seek`, so a zip's central
//! directory and entries are read without loading the archive.

use std::io::{self, Read, Seek, SeekFrom};

use js_sys::Uint8Array;
use web_sys::{Blob, FileReaderSync};

/// A Blob is read in aligned windows of this size, the last `WINDOWS` of them kept: every
/// `FileReaderSync` call costs the browser a round trip whatever its size, and a zip's entries
/// are read in path order, which rarely strays far from the archive's own order.
const WINDOW: u64 = 1 << 20;
const WINDOWS: usize = 16;

pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    size: u64,
    position: u64,
    /// Windows by their start, most recently used last.
    windows: Vec<(u64, Vec<u8>)>,
}

impl BlobReader {
    pub fn new(blob: Blob) -> io::Result<BlobReader> {
        let reader =
            FileReaderSync::new().map_err(|_| io::Error::other("FileReaderSync is only available in a Worker"))?;
        let size = blob.size() as u64;
        Ok(BlobReader { blob, reader, size, position: 0, windows: Vec::new() })
    }

    /// The window holding `position`, fetched if it is not kept.
    fn window(&mut self, position: u64) -> io::Result<&(u64, Vec<u8>)> {
        let start = position - position % WINDOW;
        match self.windows.iter().position(|(kept, _)| *kept == start) {
            Some(at) => {
                let window = self.windows.remove(at);
                self.windows.push(window);
            }
            None => {
                let end = (start + WINDOW).min(self.size);
                let slice = self
                    .blob
                    .slice_with_f64_and_f64(start as f64, end as f64)
                    .map_err(|_| io::Error::other("cannot slice the file"))?;
                let bytes = self
                    .reader
                    .read_as_array_buffer(&slice)
                    .map_err(|error| io::Error::other(format!("cannot read the file: {error:?}")))?;
                if self.windows.len() == WINDOWS {
                    self.windows.remove(0);
                }
                self.windows.push((start, Uint8Array::new(&bytes).to_vec()));
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
        let (start, bytes) = self.window(position)?;
        let available = bytes.get((position - start) as usize..).unwrap_or_default();
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl super::ReadAt for BlobReader {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        self.seek(SeekFrom::Start(offset))?;
        super::fill(self, buffer)
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
