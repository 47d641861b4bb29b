//! Browser files as input: a `Blob` read lazily, a slice at a time, with `FileReaderSync`
//! (which exists only in a dedicated Worker). Gives `Read + Seek`, so a zip's central
//! directory and entries are read without loading the archive.

use std::io::{self, Read, Seek, SeekFrom};

use js_sys::Uint8Array;
use web_sys::{Blob, FileReaderSync};

/// How much of a Blob one read fetches: a read that follows the previous one doubles the
/// slice up to `MAX_CHUNK`; a read elsewhere (a seek, as to a zip entry) starts at `MIN_CHUNK`
/// again, so that opening a small entry does not fetch a whole megabyte.
const MIN_CHUNK: u64 = 64 << 10;
const MAX_CHUNK: u64 = 1 << 20;

pub struct BlobReader {
    blob: Blob,
    reader: FileReaderSync,
    size: u64,
    position: u64,
    buffer: Vec<u8>,
    buffer_start: u64,
    chunk: u64,
}

impl BlobReader {
    pub fn new(blob: Blob) -> io::Result<BlobReader> {
        let reader =
            FileReaderSync::new().map_err(|_| io::Error::other("FileReaderSync is only available in a Worker"))?;
        let size = blob.size() as u64;
        Ok(BlobReader { blob, reader, size, position: 0, buffer: Vec::new(), buffer_start: 0, chunk: MIN_CHUNK })
    }

    fn fill(&mut self) -> io::Result<()> {
        let sequential = !self.buffer.is_empty() && self.position == self.buffer_start + self.buffer.len() as u64;
        self.chunk = if sequential { (self.chunk * 2).min(MAX_CHUNK) } else { MIN_CHUNK };
        let end = (self.position + self.chunk).min(self.size);
        let slice = self
            .blob
            .slice_with_f64_and_f64(self.position as f64, end as f64)
            .map_err(|_| io::Error::other("cannot slice the file"))?;
        let bytes = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(|error| io::Error::other(format!("cannot read the file: {error:?}")))?;
        self.buffer = Uint8Array::new(&bytes).to_vec();
        self.buffer_start = self.position;
        Ok(())
    }
}

impl Read for BlobReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.position >= self.size || out.is_empty() {
            return Ok(0);
        }
        let buffered =
            self.position >= self.buffer_start && self.position < self.buffer_start + self.buffer.len() as u64;
        if !buffered {
            self.fill()?;
        }
        let offset = (self.position - self.buffer_start) as usize;
        let available = &self.buffer[offset..];
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl super::ReadAt for BlobReader {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        self.seek(SeekFrom::Start(offset))?;
        let mut filled = 0;
        while filled < buffer.len() {
            match self.read(&mut buffer[filled..])? {
                0 => break,
                count => filled += count,
            }
        }
        Ok(filled)
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
