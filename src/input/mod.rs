//! The input layer: what a root lists and how the core asks for a file's bytes. Walking a
//! directory is the CLI's work and reading Blobs the page's (`crate::page`); both hand the core a
//! [`RootListing`] and a [`FileReader`]. Zip archives are read here, over any `Read + Seek`.

pub mod layout;
pub mod memory;
pub mod zip;

use std::io::{self, Read};

/// A file's size and times, as its listing gives them (what the cache's rule compares:
/// `crate::cache::settled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub modified_ms: Option<i64>,
    /// The inode's change time in nanoseconds since the epoch, which any write or change of
    /// times sets to the clock's now (natively on unix); none where there is none to have (the
    /// page, Windows).
    pub changed_ns: Option<i64>,
}

/// A file as its root lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedFile {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub size: u64,
    /// Modification time in epoch milliseconds, where the root knows it.
    pub modified_ms: Option<i64>,
}

/// One root: a home, a Copilot directory, or a zip of either.
#[derive(Clone, Debug, Default)]
pub struct RootListing {
    /// How the root is named in reports (the path or file name the user gave).
    pub label: String,
    pub files: Vec<ListedFile>,
    /// Entries the root could not list (an unreadable directory, an unsafe zip entry name),
    /// as `(path, message)`.
    pub problems: Vec<(String, String)>,
}

/// Opens the files of the roots; the only way the core gets bytes.
pub trait FileReader {
    /// `path` is relative to root number `root`, as listed.
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>>;

    /// Positional access to a file, where the root allows it (a directory on disk, a browser
    /// Blob, memory; not a zip entry). The session store is then read page by page instead of
    /// being built in memory.
    fn open_at(&mut self, _root: usize, _path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        None
    }
}

impl<T: FileReader + ?Sized> FileReader for &mut T {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        (**self).open(root, path)
    }

    fn open_at(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        (**self).open_at(root, path)
    }
}

/// Positional reads of a file.
pub trait ReadAt {
    /// Fills `buffer` from `offset`; returns how many bytes there were (fewer at the end).
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize>;
}

/// Reads until `buffer` is full or the reader ends; returns how many bytes were read. The
/// `ReadAt` of a sequential reader that can be positioned.
pub fn fill(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..])? {
            0 => break,
            count => filled += count,
        }
    }
    Ok(filled)
}

impl ReadAt for std::sync::Arc<[u8]> {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        (&self[..]).read_at(offset, buffer)
    }
}

impl<R: ReadAt + ?Sized> ReadAt for Box<R> {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        (**self).read_at(offset, buffer)
    }
}

impl<R: ReadAt + ?Sized> ReadAt for &mut R {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        (**self).read_at(offset, buffer)
    }
}

impl ReadAt for &[u8] {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(self.len());
        let count = (self.len() - start).min(buffer.len());
        buffer[..count].copy_from_slice(&self[start..start + count]);
        Ok(count)
    }
}

/// A file with positional reads read in order from an offset (a log read on from where an
/// earlier parse stopped).
pub struct ReadFrom<R> {
    file: R,
    at: u64,
}

impl<R: ReadAt> ReadFrom<R> {
    pub fn new(file: R, at: u64) -> Self {
        ReadFrom { file, at }
    }
}

impl<R: ReadAt> Read for ReadFrom<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = self.file.read_at(self.at, buffer)?;
        self.at += count as u64;
        Ok(count)
    }
}

/// Reads a whole file, refusing one larger than `limit` bytes.
pub fn read_all(reader: &mut dyn FileReader, root: usize, path: &str, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.open(root, path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other(format!("larger than the {limit} byte limit for this kind of file")));
    }
    Ok(bytes)
}
