//! A zip of a home or of `~/.copilot` as a root, over any `Read + Seek` (a file natively, a
//! Blob in the browser's worker). Entries are listed from the central directory and inflated
//! one at a time, only when the analysis asks for them. A zip that holds no home but zips that
//! may (a backup sent as a zip of zips) has those read too, one level deep, from memory. A file
//! that is not a zip is told apart by its first bytes, so the message says what it is.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::sync::Arc;

use flate2::{Decompress, FlushDecompress, Status};
use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use super::layout::{Rebase, normalize_entry_name};
use super::{ListedFile, RootListing};

use crate::order;

/// The largest entry inflated.
pub const MAX_ENTRY_BYTES: u64 = 4 << 30;
/// Inflated-to-compressed ratio above which a large entry is taken for a zip bomb: text logs
/// compress about 5 to 20 times, deflate tops out near 1032.
pub const MAX_RATIO: u64 = 500;
/// Entries smaller than this are never refused for their ratio.
const RATIO_FLOOR_BYTES: u64 = 16 << 20;
/// The most bytes of zips inside a zip held in memory to be read: a zip entry cannot be sought
/// in, and a zip is read from its end.
pub const MAX_INNER_ZIPS_BYTES: u64 = 1 << 30;
/// What one byte of deflate data inflates to at most (zlib's technical details: 1032 to 1).
const DEFLATE_MAX_RATIO: u64 = 1032;
/// The first bytes of a file, kept to tell what it is when it is not a zip (a tar header's
/// magic is at 257; a gzip's start inflates to that within this).
const HEAD_BYTES: usize = 4096;

/// The root's file or, for a zip inside it, that zip held in memory: one reader type for both,
/// so that zip's reading is compiled once (it is a fair part of the page's download).
#[derive(Clone)]
enum ArchiveReader<R> {
    Root(R),
    Held(Cursor<Arc<[u8]>>),
}

impl<R: Read> Read for ArchiveReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            ArchiveReader::Root(reader) => reader.read(buf),
            ArchiveReader::Held(held) => held.read(buf),
        }
    }
}

impl<R: Seek> Seek for ArchiveReader<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            ArchiveReader::Root(reader) => reader.seek(to),
            ArchiveReader::Held(held) => held.seek(to),
        }
    }
}

type Archive<R> = ZipArchive<ArchiveReader<R>>;

#[derive(Clone)]
pub struct ZipRoot<R> {
    archive: Archive<R>,
    /// The zips inside it that are read too (see `open_inner_zips`).
    inner: Vec<Archive<R>>,
    /// Entries by listed path.
    entries: HashMap<String, EntryAt>,
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

/// Entry `index` of `archive`, inflated with `state` when deflated.
fn entry_of<'a, T: Read + Seek>(
    archive: &'a mut ZipArchive<T>,
    index: usize,
    deflated: bool,
    state: &'a mut InflateState,
) -> io::Result<Box<dyn Read + 'a>> {
    if deflated {
        let entry = archive.by_index_raw(index).map_err(io::Error::other)?;
        let (size, crc32) = (entry.size(), entry.crc32());
        return Ok(Box::new(Inflating::new(BufReader::new(entry), state.fresh(), size, crc32)));
    }
    let entry = archive.by_index(index).map_err(io::Error::other)?;
    let left = entry.size();
    Ok(Box::new(DeclaredSize { entry, left }))
}

/// A listed entry's archive (`None`: the root's own, else a zip inside it) and index there.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct EntryAt {
    inner: Option<usize>,
    index: usize,
}

impl<R: Read + Seek> ZipRoot<R> {
    /// Reads the central directory. Entries with unsafe names, duplicates and encrypted
    /// entries are listed as problems, not as files. The error, for a file that cannot be read
    /// as a zip, says what the file is and what to do (the caller names the file).
    pub fn open(mut reader: R, label: &str) -> Result<(Self, RootListing), String> {
        let head = head_of(&mut reader).map_err(|error| format!("cannot read the file: {error}"))?;
        let archive = ZipArchive::new(ArchiveReader::Root(reader)).map_err(|error| not_a_zip(&head, &error))?;
        let mut root = ZipRoot {
            archive,
            inner: Vec::new(),
            entries: HashMap::new(),
            inflated: HashMap::new(),
            state: InflateState::default(),
        };
        let mut listing = RootListing { label: label.to_string(), ..RootListing::default() };
        list_entries(&root.archive, None, "", &mut listing, &mut root.entries);
        if !holds_a_home(&listing) {
            root.open_inner_zips(&mut listing)?;
        }
        Ok((root, listing))
    }

    /// Lists the zips inside a zip that holds no home of its own, each under its path (so a
    /// home found in one of them is named by that path), with the same
    /// limits as the root's own entries. Only one level: a zip in those is a file like any
    /// other. When no home is found in them either, the error says why where that is not plain
    /// (a zip nested deeper, one that is unreadable).
    fn open_inner_zips(&mut self, listing: &mut RootListing) -> Result<(), String> {
        let mut zips: Vec<String> =
            listing.files.iter().filter(|file| is_zip_name(&file.path)).map(|file| file.path.clone()).collect();
        order::sort(&mut zips);
        let (mut held, mut unread, mut deeper) = (0, Vec::new(), Vec::new());
        for path in &zips {
            match self.read_inner(path, &mut held) {
                Ok(archive) => {
                    let listed_before = listing.files.len();
                    list_entries(&archive, Some(self.inner.len()), &format!("{path}/"), listing, &mut self.entries);
                    let inside = &listing.files[listed_before..];
                    let zips_inside = inside.iter().filter(|file| is_zip_name(&file.path));
                    deeper.extend(zips_inside.map(|file| (path.clone(), file.path.clone())));
                    self.inner.push(archive);
                }
                Err(why) => {
                    listing.problems.push((path.clone(), format!("{why}; not read")));
                    unread.push(format!("{path}: {why}"));
                }
            }
        }
        // Each inner zip's home is named by its path there (`Rebase::detect_all`).
        if holds_a_home(listing) {
            return Ok(());
        }
        if let Some((zip, deep)) = deeper.first() {
            return Err(format!(
                "no Copilot CLI data found in it, nor in the zip inside it, which holds yet another zip ({deep}): \
                 only one zip inside a zip is read; extract {zip} from it and give that instead"
            ));
        }
        if !unread.is_empty() {
            return Err(format!(
                "no Copilot CLI data found in it, and the zip inside it could not be read: {}",
                unread.join("; ")
            ));
        }
        Ok(())
    }

    /// A zip entry of the root's archive read into memory and opened, if the zips inside held
    /// so far (`held` bytes) leave room for it.
    fn read_inner(&mut self, path: &str, held: &mut u64) -> Result<Archive<R>, String> {
        let at = self.entries[path];
        let entry = self.archive.by_index_data(at.index).map_err(|error| error.to_string())?;
        // Its data lies before the central directory, whatever its header says.
        let (size, packed) = (entry.size(), entry.compressed_size().min(self.archive.central_directory_start()));
        drop(entry);
        if *held + size > MAX_INNER_ZIPS_BYTES {
            return Err(format!(
                "a zip of {size} bytes inside the archive, over the {MAX_INNER_ZIPS_BYTES} byte limit for zips \
                 inside a zip: extract it and give it on its own"
            ));
        }
        let mut bytes = Vec::with_capacity(room_for(size, packed));
        self.entry(at)
            .and_then(|mut entry| entry.read_to_end(&mut bytes))
            .map_err(|error| format!("cannot be read: {error}"))?;
        *held += size;
        let bytes: Arc<[u8]> = bytes.into();
        let head = &bytes[..bytes.len().min(HEAD_BYTES)];
        ZipArchive::new(ArchiveReader::Held(Cursor::new(Arc::clone(&bytes)))).map_err(|error| not_a_zip(head, &error))
    }

    /// Inflates the named entries of at most `max_size` bytes in the archive's order and keeps
    /// them for `open_entry`. Path order jumps all over the archive (a session's small files
    /// lie between logs), which costs a reader that fetches in windows (a Blob) a fetch for each.
    /// An entry that fails is left to `open_entry`, which reports the error.
    pub fn read_ahead<'p>(&mut self, paths: impl Iterator<Item = &'p str>, max_size: u64) {
        let mut wanted: Vec<(Option<usize>, u64, EntryAt, &str)> = paths
            .filter_map(|path| {
                let at = *self.entries.get(path)?;
                let entry = self.data(at)?;
                (entry.size() <= max_size).then(|| (at.inner, entry.header_start(), at, path))
            })
            .collect();
        order::sort_by_key(&mut wanted, |(inner, header_start, at, _)| (*inner, *header_start, *at));
        for (_, _, at, path) in wanted {
            let mut bytes = Vec::new();
            let inflated = self.entry(at).and_then(|mut entry| entry.read_to_end(&mut bytes));
            if inflated.is_ok() {
                self.inflated.insert(path.to_string(), bytes);
            }
        }
    }

    /// Where a listed deflated entry's bytes lie in the archive, for a reader that inflates it
    /// elsewhere (`inflate_entry`, in the browser's second worker). None for an entry of a zip
    /// inside the archive.
    pub fn raw_entry(&self, path: &str) -> Option<RawEntry> {
        let at = *self.entries.get(path)?;
        let entry = self.data(at).filter(|_| at.inner.is_none())?;
        (entry.compression() == CompressionMethod::Deflated).then(|| RawEntry {
            header_start: entry.header_start(),
            span: LOCAL_HEADER_BYTES + entry.name_raw().len() as u64 + EXTRA_FIELD_ROOM + entry.compressed_size(),
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
        let at = *self.entries.get(path).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "no such entry"))?;
        self.entry(at)
    }

    /// A listed entry's central directory record.
    fn data(&self, at: EntryAt) -> Option<zip::read::ZipFileEntry<'_>> {
        match at.inner {
            None => self.archive.by_index_data(at.index).ok(),
            Some(inner) => self.inner.get(inner)?.by_index_data(at.index).ok(),
        }
    }

    /// A listed entry's inflated bytes, up to its declared size: a deflated entry with the
    /// root's one state, any other through the zip crate.
    fn entry(&mut self, at: EntryAt) -> io::Result<Box<dyn Read + '_>> {
        let deflated = self.data(at).ok_or_else(|| io::Error::other("no such entry"))?.compression()
            == CompressionMethod::Deflated;
        match at.inner {
            None => entry_of(&mut self.archive, at.index, deflated, &mut self.state),
            Some(inner) => {
                let archive = self.inner.get_mut(inner).ok_or_else(|| io::Error::other("no such archive"))?;
                entry_of(archive, at.index, deflated, &mut self.state)
            }
        }
    }
}

/// Lists an archive's entries, under `prefix` (`path/` of a zip inside the root's), into
/// `listing` and `entries`; the entries it leaves out are listed as problems.
fn list_entries<A: Read + Seek>(
    archive: &ZipArchive<A>,
    inner: Option<usize>,
    prefix: &str,
    listing: &mut RootListing,
    entries: &mut HashMap<String, EntryAt>,
) {
    if archive.has_duplicate_names() {
        // The zip crate keeps one entry per name: the last in the central directory.
        listing.problems.push((
            prefix.trim_end_matches('/').to_string(),
            "the archive repeats entry names; the last entry of each name is read".into(),
        ));
    }
    for index in 0..archive.len() {
        let entry = match archive.by_index_data(index) {
            Ok(entry) => entry,
            Err(error) => {
                listing.problems.push((format!("{prefix}entry {index}"), error.to_string()));
                continue;
            }
        };
        if entry.is_dir() {
            continue;
        }
        let raw_name = String::from_utf8_lossy(entry.name_raw());
        let path = match normalize_entry_name(&raw_name) {
            Ok(path) => format!("{prefix}{path}"),
            Err(reason) => {
                listing.problems.push((format!("{prefix}{raw_name}"), format!("{reason}; not read")));
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
        listing.files.push(ListedFile { path: path.clone(), size, modified_ms });
        entries.insert(path, EntryAt { inner, index });
    }
}

fn holds_a_home(listing: &RootListing) -> bool {
    !Rebase::detect_all(&mut listing.files.iter().map(|file| file.path.as_str())).is_empty()
}

fn is_zip_name(path: &str) -> bool {
    path.len() > 4 && path.is_char_boundary(path.len() - 4) && path[path.len() - 4..].eq_ignore_ascii_case(".zip")
}

/// The first bytes of a file, the reader put back at its start.
fn head_of(reader: &mut (impl Read + Seek)) -> io::Result<Vec<u8>> {
    let mut head = vec![0; HEAD_BYTES];
    let count = super::fill(reader, &mut head)?;
    head.truncate(count);
    reader.seek(SeekFrom::Start(0))?;
    Ok(head)
}

/// What to do with an archive that is not a zip.
const EXTRACT: &str = "extract it and give the folder, or make a zip of the folder";
/// What to do with a file that is no archive at all.
const GIVE_FOLDER: &str =
    "give the folder that holds it (a .copilot folder, or the home above it), or a zip of that folder";

/// Why a file with these first bytes could not be read as a zip: what it is, by its magic
/// number, and what to do instead.
fn not_a_zip(head: &[u8], error: &ZipError) -> String {
    let starts = |magic: &[u8]| head.starts_with(magic);
    let (what, todo) = if head.is_empty() {
        ("an empty file (0 bytes)", "copy or download it again")
    } else if starts(b"\x1f\x8b") {
        if is_tar(&gunzip_start(head)) {
            ("a gzip-compressed tar archive (.tar.gz)", EXTRACT)
        } else {
            ("a gzip-compressed file (.gz)", "decompress it and give what it holds (a folder, or a zip)")
        }
    } else if is_tar(head) {
        ("a tar archive (.tar)", EXTRACT)
    } else if starts(b"BZh") {
        ("a bzip2-compressed file (.bz2, .tar.bz2)", EXTRACT)
    } else if starts(b"\xfd7zXZ\x00") {
        ("an xz-compressed file (.xz, .tar.xz)", EXTRACT)
    } else if starts(b"\x28\xb5\x2f\xfd") {
        ("a zstd-compressed file (.zst, .tar.zst)", EXTRACT)
    } else if starts(b"7z\xbc\xaf\x27\x1c") {
        ("a 7-Zip archive (.7z)", EXTRACT)
    } else if starts(b"Rar!\x1a\x07") {
        ("a RAR archive (.rar)", EXTRACT)
    } else if starts(b"MSCF") {
        ("a Windows cabinet archive (.cab)", EXTRACT)
    } else if starts(b"SQLite format 3\x00") {
        ("a SQLite database", GIVE_FOLDER)
    } else if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") || starts(b"PK\x07\x08") {
        return if error.to_string().contains("EOCD") {
            "this zip archive is cut short: its end, which lists its entries, is missing (an unfinished download \
             or copy?): copy or download it again, or make a new zip of the folder"
                .to_string()
        } else {
            format!("this zip archive is damaged ({error}): copy or download it again, or make a new zip of the folder")
        };
    } else if is_text(head) {
        ("a text file", GIVE_FOLDER)
    } else {
        let why = if error.to_string().contains("EOCD") {
            "no directory of entries at its end".to_string()
        } else {
            error.to_string()
        };
        return format!(
            "not a zip archive ({why}), nor another kind of file copilot-lens knows: give a home folder, a .copilot \
             folder, or a zip of either"
        );
    };
    format!("this is {what}, not a zip: {todo}")
}

/// A tar header: "ustar" at 257.
fn is_tar(head: &[u8]) -> bool {
    head.get(257..262) == Some(b"ustar")
}

/// The first inflated bytes of a gzip stream's start (as far as they come; the rest is cut off).
fn gunzip_start(head: &[u8]) -> Vec<u8> {
    let mut start = Vec::new();
    // An error comes where the head ends; the bytes inflated before it are kept.
    let _ = flate2::read::GzDecoder::new(head).take(512).read_to_end(&mut start);
    start
}

/// UTF-8 (perhaps cut in a character at the end) without control characters but line ends and tabs.
fn is_text(head: &[u8]) -> bool {
    let valid = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(error) => error.error_len().is_none(),
    };
    valid && head.iter().all(|&byte| byte >= 0x20 || matches!(byte, b'\t' | b'\n' | b'\r'))
}

std::thread_local! {
    /// `inflate_entry`'s state, reused as `ZipRoot`'s is.
    static ELSEWHERE: std::cell::RefCell<InflateState> = std::cell::RefCell::default();
}

/// A deflated entry's data inflated, to exactly `size` bytes with this CRC-32.
fn inflate_entry(packed: &[u8], size: u64, crc32: u32) -> io::Result<Vec<u8>> {
    if size > MAX_ENTRY_BYTES {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "the entry is too large"));
    }
    let mut bytes = Vec::with_capacity(room_for(size, packed.len() as u64));
    ELSEWHERE.with_borrow_mut(|state| Inflating::new(packed, state.fresh(), size, crc32).read_to_end(&mut bytes))?;
    Ok(bytes)
}

/// A deflated entry's data inflated elsewhere than its archive (the browser hands this work to
/// a second worker, so that inflating and parsing run at once), from `bytes` that start at its
/// local header (`RawEntry::span` bytes from `header_start`, or fewer at the archive's end):
/// `packed` bytes that must come to exactly `size` with this CRC-32.
pub fn inflate_raw(bytes: &[u8], packed: u64, size: u64, crc32: u32) -> io::Result<Vec<u8>> {
    let field = |at: usize| bytes.get(at..at + 2).map_or(0, |pair| u64::from(u16::from_le_bytes([pair[0], pair[1]])));
    if bytes.get(..4) != Some(&LOCAL_HEADER_SIGNATURE[..]) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "no local header where the directory says"));
    }
    // The name's and the extra field's lengths, which only the local header gives.
    let data = LOCAL_HEADER_BYTES + field(26) + field(28);
    let data = usize::try_from(data.saturating_add(packed)).ok().and_then(|end| bytes.get(data as usize..end));
    let data =
        data.ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "the entry's data was not all given"))?;
    inflate_entry(data, size, crc32)
}

const LOCAL_HEADER_SIGNATURE: [u8; 4] = 0x04034b50_u32.to_le_bytes();
const LOCAL_HEADER_BYTES: u64 = 30;
/// Room for a local header's extra field, which only the local header gives: an entry whose
/// field is longer is not all in its `span` (`inflate_raw` then fails and it is read again).
const EXTRA_FIELD_ROOM: u64 = 512;

/// The room to make for an entry whose header says it inflates to `size` bytes from `packed`:
/// no more than those bytes can inflate to, so that a size in a damaged or hostile header
/// costs nothing (the read fails when the bytes do not come to `size`).
fn room_for(size: u64, packed: u64) -> usize {
    size.min(packed.saturating_mul(DEFLATE_MAX_RATIO)) as usize
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
/// `packed` bytes that inflate to `size` bytes with this CRC-32. The `span` bytes from
/// `header_start` hold both, but for an extra field longer than `EXTRA_FIELD_ROOM`.
#[derive(Clone, Copy, Debug, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RawEntry {
    pub header_start: u64,
    pub span: u64,
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
    fn an_entry_is_inflated_from_the_bytes_its_span_covers() {
        let log = b"{\"type\":\"user.message\"}\n".repeat(50);
        let bytes = archive(&[("a/events.jsonl", &log[..]), ("b/events.jsonl", b"{}\n")]);
        let (root, _) = ZipRoot::open(Cursor::new(bytes.clone()), "home.zip").unwrap();
        let raw = root.raw_entry("a/events.jsonl").unwrap();
        let start = raw.header_start as usize;
        let spanned = &bytes[start..(start + raw.span as usize).min(bytes.len())];
        assert_eq!(super::inflate_raw(spanned, raw.packed, raw.size, raw.crc32).unwrap(), log);
        // Its data cut short, or bytes that do not start at its local header: read again.
        let data_end = (raw.span - super::EXTRA_FIELD_ROOM) as usize;
        assert!(super::inflate_raw(&spanned[..data_end - 1], raw.packed, raw.size, raw.crc32).is_err());
        assert_eq!(
            super::inflate_raw(&spanned[..data_end], raw.packed, raw.size, raw.crc32).unwrap(),
            log,
            "an extra field left no gap"
        );
        assert!(super::inflate_raw(&bytes[start + 1..], raw.packed, raw.size, raw.crc32).is_err());
        assert!(super::inflate_raw(&[], raw.packed, raw.size, raw.crc32).is_err());
    }

    #[test]
    fn a_size_in_a_header_makes_no_more_room_than_the_data_can_fill() {
        assert_eq!(super::room_for(4 << 30, 10), 10_320, "ten bytes of deflate data fill at most 10,320");
        assert_eq!(super::room_for(100, 10), 100);
        // Once 4 GiB were set aside for this before the read failed.
        let packed = [0x03, 0x00];
        assert!(super::inflate_entry(&packed, (4 << 30) - 1, 0).is_err());
    }

    #[test]
    fn a_zip_inside_a_zip_without_a_home_is_read_from_memory() {
        let inner = archive(&[(".copilot/session-state/a/events.jsonl", b"{}\n"), ("notes.zip", b"not read")]);
        let outer = archive(&[("readme.txt", b"hi"), ("backup/home.zip", &inner)]);
        let (mut root, listing) = ZipRoot::open(Cursor::new(outer), "outer.zip").unwrap();
        assert_eq!(listing.label, "outer.zip", "the home is named by its path in the root, not the root");
        let paths: Vec<&str> = listing.files.iter().map(|file| file.path.as_str()).collect();
        let log = "backup/home.zip/.copilot/session-state/a/events.jsonl";
        assert_eq!(paths, ["readme.txt", "backup/home.zip", log, "backup/home.zip/notes.zip"]);
        assert!(root.raw_entry(log).is_none(), "its entries are not in the outer archive's bytes");
        assert!(root.raw_entry("readme.txt").is_some());
        root.read_ahead([log, "readme.txt"].into_iter(), 100);
        assert_eq!(entry(&mut root, log), b"{}\n");
        assert_eq!(entry(&mut root, log), b"{}\n", "and again from the inner archive");

        // A zip with a home of its own: the zips in it are files like any other.
        let home = archive(&[(".copilot/config.json", b"{}"), ("backup/home.zip", &inner)]);
        let (_, listing) = ZipRoot::open(Cursor::new(home), "home.zip").unwrap();
        assert_eq!(listing.files.len(), 2);
        assert_eq!(listing.label, "home.zip");
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
