//! A zip of a home or of `~/.copilot` as a root, over any `Read + Seek` (a file natively, a
//! Blob in the browser's worker). Entries are listed from the central directory and inflated
//! one at a time, only when the analysis asks for them.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek};

use flate2::{Decompress, FlushDecompress, Status};
use zip::{CompressionMethod, ZipArchive};

use super::layout::normalize_entry_name;
use super::{ListedFile, RootListing};

/// The largest entry inflated.
pub const MAX_ENTRY_BYTES: u64 = 4 << 30;
/// Inflated-to-compressed ratio above which a large entry is taken for a zip bomb: text logs
/// compress about 5 to 20 times, deflate tops out near 1032.
pub const MAX_RATIO: u64 = 500;
/// Entries smaller than this are never refused for their ratio.
const RATIO_FLOOR_BYTES: u64 = 16 << 20;

#[derive(Clone)]
pub struct ZipRoot<R> {
    archive: ZipArchive<R>,
    /// Entry index by listed path.
    entries: HashMap<String, usize>,
    /// Small entries inflated ahead by `read_ahead`, taken by `open_entry`.
    inflated: HashMap<String, Vec<u8>>,
    /// The deflate state every entry is inflated with, reset between them.
    state: InflateState,
}

/// One deflate state, made when first needed and reused: a state made for each entry is an
/// aligned allocation of about 40 KB that glibc's heap could not use again, and a zip of
/// 200,000 sessions grew the CLI to 5 GB. A clone (a thread's) makes its own.
#[derive(Default)]
struct InflateState(Option<Box<Decompress>>);

impl Clone for InflateState {
    fn clone(&self) -> Self {
        InflateState(None)
    }
}

impl InflateState {
    /// The state, reset for a new raw deflate stream.
    fn fresh(&mut self) -> &mut Decompress {
        let state = self.0.get_or_insert_with(|| Box::new(Decompress::new(false)));
        state.reset(false);
        state
    }
}

impl<R: Read + Seek> ZipRoot<R> {
    /// Reads the central directory. Entries with unsafe names, duplicates and encrypted
    /// entries are listed as problems, not as files.
    pub fn open(reader: R, label: &str) -> Result<(Self, RootListing), String> {
        let archive =
            ZipArchive::new(reader).map_err(|error| format!("{label}: not a readable zip archive: {error}"))?;
        let mut listing = RootListing { label: label.to_string(), ..RootListing::default() };
        if archive.has_duplicate_names() {
            // The zip crate keeps one entry per name: the last in the central directory.
            listing
                .problems
                .push((String::new(), "the archive repeats entry names; the last entry of each name is read".into()));
        }
        let mut entries = HashMap::new();
        for index in 0..archive.len() {
            let entry = match archive.by_index_data(index) {
                Ok(entry) => entry,
                Err(error) => {
                    listing.problems.push((format!("entry {index}"), error.to_string()));
                    continue;
                }
            };
            let raw_name = String::from_utf8_lossy(entry.name_raw()).into_owned();
            if entry.is_dir() {
                continue;
            }
            let path = match normalize_entry_name(&raw_name) {
                Ok(path) => path,
                Err(reason) => {
                    listing.problems.push((raw_name, format!("{reason}; not read")));
                    continue;
                }
            };
            if entry.encrypted() {
                listing.problems.push((path, "encrypted entry; not read".into()));
                continue;
            }
            let (size, packed) = (entry.size(), entry.compressed_size().max(1));
            if size > MAX_ENTRY_BYTES {
                listing
                    .problems
                    .push((path, format!("inflates to {size} bytes, over the {MAX_ENTRY_BYTES} byte limit; not read")));
                continue;
            }
            if size > RATIO_FLOOR_BYTES && size / packed > MAX_RATIO {
                let message =
                    format!("inflates {} times ({packed} to {size} bytes), like a zip bomb; not read", size / packed);
                listing.problems.push((path, message));
                continue;
            }
            if entries.contains_key(&path) {
                listing.problems.push((path, "duplicate entry name; the first one is read".into()));
                continue;
            }
            let modified_ms = entry.last_modified().and_then(dos_time_millis);
            listing.files.push(ListedFile { path: path.clone(), size: entry.size(), modified_ms });
            entries.insert(path, index);
        }
        Ok((ZipRoot { archive, entries, inflated: HashMap::new(), state: InflateState::default() }, listing))
    }

    /// Inflates the named entries of at most `max_size` bytes in the archive's order and keeps
    /// them for `open_entry`. Path order jumps all over the archive (a session's small files
    /// lie between logs), which costs a reader that fetches in windows (a Blob) a fetch for each.
    /// An entry that fails is left to `open_entry`, which reports the error.
    pub fn read_ahead<'p>(&mut self, paths: impl Iterator<Item = &'p str>, max_size: u64) {
        let mut wanted: Vec<(u64, usize, &str)> = paths
            .filter_map(|path| {
                let index = *self.entries.get(path)?;
                let entry = self.archive.by_index_data(index).ok()?;
                (entry.size() <= max_size).then(|| (entry.header_start(), index, path))
            })
            .collect();
        wanted.sort_unstable();
        for (_, index, path) in wanted {
            let mut bytes = Vec::new();
            let inflated = self.entry(index).and_then(|mut entry| entry.read_to_end(&mut bytes));
            if inflated.is_ok() {
                self.inflated.insert(path.to_string(), bytes);
            }
        }
    }

    /// Where a listed deflated entry's bytes lie in the archive, for a reader that inflates it
    /// elsewhere (`inflate_entry`, in the browser's second worker).
    pub fn raw_entry(&self, path: &str) -> Option<RawEntry> {
        let entry = self.archive.by_index_data(*self.entries.get(path)?).ok()?;
        (entry.compression() == CompressionMethod::Deflated).then(|| RawEntry {
            header_start: entry.header_start(),
            name_length: entry.name_raw().len() as u64,
            packed: entry.compressed_size(),
            size: entry.size(),
            crc32: entry.crc32(),
        })
    }

    /// The inflated bytes of a listed entry, as a stream that stops at its declared size and
    /// fails when its CRC-32 is wrong.
    pub fn open_entry(&mut self, path: &str) -> io::Result<Box<dyn Read + '_>> {
        if let Some(bytes) = self.inflated.remove(path) {
            return Ok(Box::new(Cursor::new(bytes)));
        }
        let index = *self.entries.get(path).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such entry"))?;
        Ok(Box::new(self.entry(index)?))
    }

    /// Entry `index`'s inflated bytes, up to its declared size: a deflated entry with the
    /// root's one state, any other through the zip crate.
    fn entry(&mut self, index: usize) -> io::Result<Box<dyn Read + '_>> {
        let deflated =
            self.archive.by_index_data(index).map_err(io::Error::other)?.compression() == CompressionMethod::Deflated;
        if deflated {
            let entry = self.archive.by_index_raw(index).map_err(io::Error::other)?;
            let (size, crc32) = (entry.size(), entry.crc32());
            return Ok(Box::new(Inflating::new(BufReader::new(entry), self.state.fresh(), size, crc32)));
        }
        let entry = self.archive.by_index(index).map_err(io::Error::other)?;
        let left = entry.size();
        Ok(Box::new(DeclaredSize { entry, left }))
    }
}

std::thread_local! {
    /// `inflate_entry`'s state, reused as `ZipRoot`'s is.
    static ELSEWHERE: std::cell::RefCell<InflateState> = std::cell::RefCell::default();
}

/// A deflated entry's data (as `ZipRoot::raw_entry` places it) inflated elsewhere than its
/// archive: the browser hands this work to a second worker so that inflating and parsing run
/// at once. The bytes must come to exactly `size` with this CRC-32.
pub fn inflate_entry(packed: &[u8], size: u64, crc32: u32) -> io::Result<Vec<u8>> {
    if size > MAX_ENTRY_BYTES {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "the entry is too large"));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    ELSEWHERE.with_borrow_mut(|state| Inflating::new(packed, state.fresh(), size, crc32).read_to_end(&mut bytes))?;
    Ok(bytes)
}

/// A raw deflate stream inflated with a state lent to it, failing unless it comes to exactly
/// `size` bytes with this CRC-32. As with the zip crate's reader, the bytes come first and the
/// failure with the read after them (a log's rows up to there are kept).
struct Inflating<'a, P> {
    packed: P,
    state: &'a mut Decompress,
    size: u64,
    crc32: u32,
    hasher: crc32fast::Hasher,
    ended: bool,
    overrun: bool,
}

impl<'a, P: BufRead> Inflating<'a, P> {
    fn new(packed: P, state: &'a mut Decompress, size: u64, crc32: u32) -> Self {
        Inflating { packed, state, size, crc32, hasher: crc32fast::Hasher::new(), ended: false, overrun: false }
    }

    fn check_end(&self) -> io::Result<()> {
        if self.state.total_out() != self.size {
            return Err(invalid_data("the entry does not inflate to its declared size"));
        }
        if self.hasher.clone().finalize() != self.crc32 {
            return Err(invalid_data("Invalid checksum"));
        }
        Ok(())
    }
}

fn invalid_data(message: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.to_string())
}

impl<P: BufRead> Read for Inflating<'_, P> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.overrun {
                return Err(invalid_data("the entry inflates past its declared size"));
            }
            if self.ended {
                return self.check_end().map(|()| 0);
            }
            let input = self.packed.fill_buf()?;
            let last = input.is_empty();
            let (before_in, before_out) = (self.state.total_in(), self.state.total_out());
            let flush = if last { FlushDecompress::Finish } else { FlushDecompress::None };
            let status = self.state.decompress(input, out, flush).map_err(io::Error::other)?;
            let (taken, given) =
                ((self.state.total_in() - before_in) as usize, (self.state.total_out() - before_out) as usize);
            self.packed.consume(taken);
            if self.state.total_out() > self.size {
                self.overrun = true;
                let within = (self.size - before_out) as usize;
                if within > 0 {
                    return Ok(within);
                }
                continue;
            }
            self.hasher.update(&out[..given]);
            if status == Status::StreamEnd {
                self.ended = true;
            } else if taken == 0 && given == 0 {
                return Err(if last {
                    io::Error::new(io::ErrorKind::UnexpectedEof, "the entry's data ends early")
                } else {
                    invalid_data("the entry's data cannot be inflated")
                });
            }
            if given > 0 {
                return Ok(given);
            }
        }
    }
}

/// An entry's inflated bytes up to its declared size. There one more read of the entry lets
/// the zip crate check the CRC-32 (it does at the end of the data), and shows an entry that
/// inflates past its size; a plain `take` would stop short of both.
struct DeclaredSize<R> {
    entry: R,
    left: u64,
}

impl<R: Read> Read for DeclaredSize<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.entry.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(io::Error::new(io::ErrorKind::InvalidData, "the entry inflates past its declared size")),
            };
        }
        let wanted = out.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let count = self.entry.read(&mut out[..wanted])?;
        self.left -= count as u64;
        Ok(count)
    }
}

/// A deflated zip entry's place in its archive: its local header starts at `header_start`
/// (30 bytes, the name, an extra field whose length only the local header gives), then
/// `packed` bytes that inflate to `size` bytes with this CRC-32.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct RawEntry {
    pub header_start: u64,
    pub name_length: u64,
    pub packed: u64,
    pub size: u64,
    pub crc32: u32,
}

/// A zip's DOS time, which has no zone: read as UTC.
fn dos_time_millis(time: zip::DateTime) -> Option<i64> {
    let date = chrono::NaiveDate::from_ymd_opt(time.year().into(), time.month().into(), time.day().into())?;
    let moment = date.and_hms_opt(time.hour().into(), time.minute().into(), time.second().into())?;
    Some(moment.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read, Write};

    use super::ZipRoot;

    fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            writer.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            writer.write_all(bytes).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    fn entry(root: &mut ZipRoot<Cursor<Vec<u8>>>, path: &str) -> Vec<u8> {
        let mut bytes = Vec::new();
        root.open_entry(path).unwrap().read_to_end(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn entries_inflated_elsewhere_must_match_size_and_checksum() {
        let text = b"{\"type\":\"user.message\"}\n".repeat(100);
        let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&text).unwrap();
        let packed = encoder.finish().unwrap();
        let crc = crc32fast::hash(&text);
        assert_eq!(super::inflate_entry(&packed, text.len() as u64, crc).unwrap(), text);
        assert!(super::inflate_entry(&packed, text.len() as u64, crc ^ 1).is_err(), "wrong checksum");
        assert!(super::inflate_entry(&packed, text.len() as u64 - 1, crc).is_err(), "inflates past its size");
        assert!(super::inflate_entry(&packed, text.len() as u64 + 1, crc).is_err(), "short of its size");
        assert!(super::inflate_entry(&packed[..packed.len() / 2], text.len() as u64, crc).is_err(), "cut data");
    }

    #[test]
    fn entries_read_ahead_equal_entries_read_when_asked() {
        let big = b"{\"type\":\"x\"}\n".repeat(1000);
        let bytes = archive(&[
            (".copilot/b/workspace.yaml", b"id: b\n"),
            (".copilot/b/events.jsonl", &big),
            (".copilot/a/workspace.yaml", b"id: a\n"),
        ]);
        let (mut root, _) = ZipRoot::open(Cursor::new(bytes), "test.zip").unwrap();
        let paths = [".copilot/a/workspace.yaml", ".copilot/b/workspace.yaml", ".copilot/b/events.jsonl", "missing"];
        root.read_ahead(paths.into_iter(), 100);
        assert_eq!(root.inflated.len(), 2, "only the small entries that exist");
        assert_eq!(entry(&mut root, ".copilot/a/workspace.yaml"), b"id: a\n");
        assert_eq!(entry(&mut root, ".copilot/b/workspace.yaml"), b"id: b\n");
        assert!(root.inflated.is_empty(), "each entry read ahead is handed out once");
        assert_eq!(entry(&mut root, ".copilot/b/workspace.yaml"), b"id: b\n", "then read again from the archive");
        assert_eq!(entry(&mut root, ".copilot/b/events.jsonl"), big);
    }
}
