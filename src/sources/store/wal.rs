//! Replaying a SQLite write-ahead log onto its database image, as SQLite does on open
//! (`walIndexRecover` in SQLite's wal.c; https://www.sqlite.org/fileformat.html#the_write_ahead_log):
//! an empty log changes nothing; a log SQLite cannot use as a whole (cut inside its header, a
//! wrong magic number, an impossible page size, a header checksum that does not match, an
//! unknown format version) is an error here, and the database is read without it; frames count
//! only up to the last valid commit frame, and a bad checksum, a foreign salt or a torn frame
//! ends the log.
//!
//! Two sequential passes, so that neither the log nor its frames are held in memory: `scan`
//! checks every frame and indexes the latest committed frame of each page; `apply` reads the
//! log again and copies just those frames into the image. `WalIndex::scan_on` goes on from the
//! last commit of a log that grew since (a watch reads a store on).

use std::collections::HashMap;
use std::io::{self, Read};

use crate::input::{ReadAt, ReadFrom};

const WAL_HEADER: usize = 32;
const FRAME_HEADER: usize = 24;
const MAGIC_LITTLE_ENDIAN: u32 = 0x377f_0682;
const MAGIC_BIG_ENDIAN: u32 = 0x377f_0683;
/// The only format version SQLite writes and reads (it refuses to open a database whose log has
/// another).
const FORMAT_VERSION: u32 = 3_007_000;

/// What the replay found in the log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WalStats {
    /// Whole frames present in the file.
    pub frames: u64,
    /// Frames of committed transactions.
    pub frames_applied: u64,
    pub commits: u64,
    /// Frames after the last commit, or at and after the first invalid frame.
    pub frames_ignored: u64,
    /// Bytes after the last whole frame (a frame cut mid-write).
    pub torn_bytes: u64,
    /// Why the valid part of the log ended before its last frame, if it did.
    pub stopped: Option<String>,
}

/// The committed state of a log: for each page, the last committed frame that holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WalIndex {
    pub page_size: usize,
    /// Database size in pages after the last commit; `None` when nothing was committed.
    pub database_pages: Option<u64>,
    latest: HashMap<u32, u64>,
    /// Frames up to and including the last commit.
    committed_frames: u64,
    pub stats: WalStats,
    /// What a scan of the same log, grown since, goes on from (`scan_on`); none for an empty log.
    resume: Option<Resume>,
}

/// The log's header and the checksum its frames continue after the last commit.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Resume {
    header: [u8; WAL_HEADER],
    big_endian: bool,
    salts: [u8; 8],
    checksum: (u32, u32),
}

/// Pass one: reads the whole log, checking its header, then salts and cumulative checksums
/// frame by frame. An empty log (what a truncating checkpoint leaves) is an index of nothing;
/// the error of a log that cannot be used at all says what was found.
pub fn scan(mut log: impl Read) -> Result<WalIndex, String> {
    let mut header = [0u8; WAL_HEADER];
    match read_full(&mut log, &mut header).map_err(|error| format!("cannot read the write-ahead log: {error}"))? {
        0 => return Ok(WalIndex::default()),
        WAL_HEADER => {}
        torn => {
            return Err(format!(
                "the write-ahead log is {torn} bytes, shorter than its {WAL_HEADER} byte header (it was cut off while it was written)"
            ));
        }
    }
    let Header { big_endian, page_size, salts, checksum } = check_header(&header)?;
    let resume = Resume { header, big_endian, salts, checksum };
    let mut index = WalIndex { page_size, resume: Some(resume), ..WalIndex::default() };
    index.scan_frames(log)?;
    Ok(index)
}

/// What a valid header gives the frames.
struct Header {
    big_endian: bool,
    page_size: usize,
    salts: [u8; 8],
    /// The header's checksum, which the first frame's continues.
    checksum: (u32, u32),
}

/// The header's checks in SQLite's order (`walIndexRecover`).
fn check_header(header: &[u8; WAL_HEADER]) -> Result<Header, String> {
    let magic = be32(&header[0..4]);
    let big_endian = match magic {
        MAGIC_BIG_ENDIAN => true,
        MAGIC_LITTLE_ENDIAN => false,
        _ => {
            return Err(format!(
                "the file is not a SQLite write-ahead log (it starts with {magic:#010x}, not {MAGIC_LITTLE_ENDIAN:#010x} or {MAGIC_BIG_ENDIAN:#010x})"
            ));
        }
    };
    let page_size = match be32(&header[8..12]) {
        size @ 512..=65536 if size.is_power_of_two() => size as usize,
        size => {
            return Err(format!(
                "the write-ahead log's header names a page size of {size} bytes, which no SQLite database has (a power of two from 512 to 65536)"
            ));
        }
    };
    let checksum = checksum(big_endian, (0, 0), &header[..24]);
    if checksum != (be32(&header[24..28]), be32(&header[28..32])) {
        return Err("the write-ahead log's header does not match its checksum (the header is damaged)".into());
    }
    let version = be32(&header[4..8]);
    if version != FORMAT_VERSION {
        return Err(format!(
            "the write-ahead log is of format version {version}, which SQLite does not know (it knows {FORMAT_VERSION} only, and would not open the store with this log)"
        ));
    }
    let mut salts = [0u8; 8];
    salts.copy_from_slice(&header[16..24]);
    Ok(Header { big_endian, page_size, salts, checksum })
}

impl WalIndex {
    /// The pages of the last commit's database that neither the log nor a main file of
    /// `main_size` bytes holds: SQLite writes every page past the main file's end into the log,
    /// so a commit that says there are more is damaged (and would have an image made of a size
    /// no input holds).
    pub fn pages_held_by_nothing(&self, main_size: u64) -> u64 {
        let Some(pages) = self.database_pages else { return 0 };
        let in_log = self.latest.keys().max().map_or(0, |page| u64::from(*page));
        let in_main = main_size.div_ceil(self.page_size.max(1) as u64);
        pages.saturating_sub(in_log.max(in_main))
    }

    /// Where the data of a page's latest committed frame starts in the log.
    pub fn frame_data_offset(&self, page: u32) -> Option<u64> {
        let frame = *self.latest.get(&page)?;
        Some(WAL_HEADER as u64 + frame * (FRAME_HEADER + self.page_size) as u64 + FRAME_HEADER as u64)
    }

    /// How many of the database's pages the log holds (the rest are the main file's).
    pub fn pages_held(&self) -> u64 {
        let pages = self.database_pages.unwrap_or(0);
        self.latest.keys().filter(|&&page| u64::from(page) <= pages).count() as u64
    }

    /// How many bytes of the log the scan read.
    pub fn bytes_scanned(&self) -> u64 {
        let frames = self.stats.frames * (FRAME_HEADER + self.page_size) as u64;
        self.resume.as_ref().map_or(0, |_| WAL_HEADER as u64 + frames + self.stats.torn_bytes)
    }

    /// Where the frames after the last commit start: a scan goes on from there (`scan_on`).
    pub fn resume_offset(&self) -> u64 {
        WAL_HEADER as u64 + self.committed_frames * (FRAME_HEADER + self.page_size) as u64
    }

    /// Scans on a log that grew since it was indexed, as `scan` would scan it whole: only its
    /// header and what follows the last commit are read, since SQLite writes a log only after
    /// its last commit until it starts the log again (with new salts, so another header: an
    /// error here).
    pub fn scan_on(&mut self, log: &mut dyn ReadAt) -> Result<(), String> {
        let mut header = [0u8; WAL_HEADER];
        // A log cut inside its header reads as another header.
        read_full(&mut ReadFrom::new(&mut *log, 0), &mut header)
            .map_err(|error| format!("cannot read the write-ahead log: {error}"))?;
        match &self.resume {
            Some(resume) if resume.header == header => {}
            Some(_) => return Err("the write-ahead log was started again".into()),
            None => return Err("the write-ahead log was empty when it was indexed".into()),
        }
        self.stats.frames = self.committed_frames;
        (self.stats.torn_bytes, self.stats.stopped) = (0, None);
        self.scan_frames(ReadFrom::new(log, self.resume_offset()))
    }

    /// Checks the frames from the last commit on, salts and cumulative checksums, indexing
    /// those of each transaction committed.
    fn scan_frames(&mut self, mut log: impl Read) -> Result<(), String> {
        let Some(Resume { big_endian, salts, mut checksum, .. }) = self.resume.clone() else { return Ok(()) };
        let mut frame = vec![0u8; FRAME_HEADER + self.page_size];
        let mut pending: Vec<(u32, u64)> = Vec::new();
        let mut valid = true;
        loop {
            let filled =
                read_full(&mut log, &mut frame).map_err(|error| format!("cannot read the write-ahead log: {error}"))?;
            if filled < frame.len() {
                self.stats.torn_bytes = filled as u64;
                break;
            }
            let number = self.stats.frames;
            self.stats.frames += 1;
            if !valid {
                continue; // counted, never applied: SQLite stops at the first invalid frame
            }
            let (head, page) = frame.split_at(FRAME_HEADER);
            let stop = |reason: &str| Some(format!("frame {} {reason}", number + 1));
            let problem = if head[8..16] != salts {
                stop("belongs to an earlier log (salt differs)")
            } else {
                checksum = checksum_pair(big_endian, checksum, &head[..8], page);
                if checksum != (be32(&head[16..20]), be32(&head[20..24])) {
                    stop("checksum mismatch")
                } else if be32(&head[0..4]) == 0 {
                    stop("names page 0")
                } else {
                    None
                }
            };
            if let Some(problem) = problem {
                self.stats.stopped = Some(problem);
                valid = false;
                continue;
            }
            pending.push((be32(&head[0..4]), number));
            let database_pages = be32(&head[4..8]);
            if database_pages != 0 {
                self.stats.frames_applied += pending.len() as u64;
                self.latest.extend(pending.drain(..));
                self.stats.commits += 1;
                self.database_pages = Some(u64::from(database_pages));
                self.committed_frames = number + 1;
                if let Some(resume) = &mut self.resume {
                    resume.checksum = checksum;
                }
            }
        }
        self.stats.frames_ignored = self.stats.frames - self.stats.frames_applied;
        Ok(())
    }
}

/// Pass two: copies the latest committed frame of each page into `image`, which holds the
/// main file's bytes and is `database_pages * page_size` long.
pub fn apply(mut log: impl Read, index: &WalIndex, image: &mut [u8]) -> Result<(), String> {
    let mut header = [0u8; WAL_HEADER];
    let failed = |error: io::Error| format!("cannot read the write-ahead log again: {error}");
    read_full(&mut log, &mut header).map_err(failed)?;
    let mut frame = vec![0u8; FRAME_HEADER + index.page_size];
    for number in 0..index.committed_frames {
        if read_full(&mut log, &mut frame).map_err(failed)? < frame.len() {
            return Err("the write-ahead log changed while it was read".into());
        }
        let page_number = be32(&frame[0..4]);
        if index.latest.get(&page_number) != Some(&number) {
            continue;
        }
        let start = (page_number as usize - 1) * index.page_size;
        if let Some(target) = image.get_mut(start..start + index.page_size) {
            target.copy_from_slice(&frame[FRAME_HEADER..]);
        }
    }
    Ok(())
}

/// The page size a database header declares, if the bytes start with a header and it declares
/// a possible one.
pub fn database_page_size(db: &[u8]) -> Option<usize> {
    if db.len() < 100 || &db[..16] != b"SQLite format 3\0" {
        return None;
    }
    match u16::from_be_bytes([db[16], db[17]]) {
        1 => Some(65536),
        size @ 512.. if size.is_power_of_two() => Some(size as usize),
        _ => None,
    }
}

/// Reads until `buffer` is full or the input ends; returns how much was read.
fn read_full(input: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match input.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(count) => filled += count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

fn be32(bytes: &[u8]) -> u32 {
    u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

fn checksum_pair(big_endian: bool, seed: (u32, u32), first: &[u8], second: &[u8]) -> (u32, u32) {
    checksum(big_endian, checksum(big_endian, seed, first), second)
}

/// SQLite's WAL checksum over 32-bit words in the byte order the magic number chose.
fn checksum(big_endian: bool, (mut s0, mut s1): (u32, u32), data: &[u8]) -> (u32, u32) {
    for pair in data.chunks_exact(8) {
        let word = |bytes: &[u8]| {
            let array = [bytes[0], bytes[1], bytes[2], bytes[3]];
            if big_endian { u32::from_be_bytes(array) } else { u32::from_le_bytes(array) }
        };
        s0 = s0.wrapping_add(word(&pair[0..4])).wrapping_add(s1);
        s1 = s1.wrapping_add(word(&pair[4..8])).wrapping_add(s0);
    }
    (s0, s1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Builds a log of `frames` (page number, commit size, fill byte).
    pub(crate) fn build_wal(page_size: usize, frames: &[(u32, u32, u8)]) -> Vec<u8> {
        let mut wal = Vec::new();
        wal.extend_from_slice(&MAGIC_BIG_ENDIAN.to_be_bytes());
        wal.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        wal.extend_from_slice(&(page_size as u32).to_be_bytes());
        wal.extend_from_slice(&0u32.to_be_bytes());
        wal.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut sum = checksum(true, (0, 0), &wal);
        wal.extend_from_slice(&sum.0.to_be_bytes());
        wal.extend_from_slice(&sum.1.to_be_bytes());
        for &(page, commit, fill) in frames {
            let mut header = Vec::new();
            header.extend_from_slice(&page.to_be_bytes());
            header.extend_from_slice(&commit.to_be_bytes());
            let mut data = vec![fill; page_size];
            if page == 1 {
                data[..16].copy_from_slice(b"SQLite format 3\0");
                data[16..18].copy_from_slice(&(page_size as u16).to_be_bytes());
            }
            sum = checksum_pair(true, sum, &header, &data);
            header.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
            header.extend_from_slice(&sum.0.to_be_bytes());
            header.extend_from_slice(&sum.1.to_be_bytes());
            wal.extend_from_slice(&header);
            wal.extend_from_slice(&data);
        }
        wal
    }

    fn replay(wal: &[u8]) -> (Vec<u8>, WalStats) {
        let index = scan(wal).unwrap();
        let mut image = vec![0u8; index.database_pages.unwrap_or(0) as usize * index.page_size];
        apply(wal, &index, &mut image).unwrap();
        (image, index.stats)
    }

    #[test]
    fn a_commit_names_pages_that_nothing_holds() {
        let index = scan(&build_wal(512, &[(1, 0, 1), (3, 1000, 2)])[..]).unwrap();
        assert_eq!(index.pages_held_by_nothing(0), 997, "the log holds pages up to 3");
        assert_eq!(index.pages_held_by_nothing(512 * 1000), 0, "the main file holds them");
        let index = scan(&build_wal(512, &[(1, 0, 1), (3, 2, 2)])[..]).unwrap();
        assert_eq!(index.pages_held_by_nothing(0), 0, "a database that shrank");
    }

    #[test]
    fn committed_frames_are_applied_and_the_tail_is_not() {
        let wal = build_wal(512, &[(1, 0, 1), (2, 2, 2), (2, 0, 3)]);
        let (image, stats) = replay(&wal);
        assert_eq!(image.len(), 1024);
        assert_eq!(image[600], 2);
        assert_eq!((stats.frames, stats.frames_applied, stats.commits, stats.frames_ignored), (3, 2, 1, 1));
    }

    #[test]
    fn the_latest_committed_copy_of_a_page_wins() {
        let wal = build_wal(512, &[(1, 1, 1), (2, 2, 7), (2, 2, 9)]);
        let (image, stats) = replay(&wal);
        assert_eq!((image[600], stats.commits), (9, 3));
    }

    #[test]
    fn a_bad_checksum_ends_the_log() {
        let mut wal = build_wal(512, &[(1, 1, 1), (2, 2, 2), (2, 2, 3)]);
        let second_frame_data = WAL_HEADER + (FRAME_HEADER + 512) + FRAME_HEADER + 10;
        wal[second_frame_data] ^= 0xff;
        let (image, stats) = replay(&wal);
        assert_eq!(image.len(), 512);
        assert_eq!((stats.frames, stats.frames_applied, stats.frames_ignored), (3, 1, 2));
        assert_eq!(stats.stopped.as_deref(), Some("frame 2 checksum mismatch"));
    }

    #[test]
    fn a_torn_frame_is_counted_and_ignored() {
        let mut wal = build_wal(512, &[(1, 1, 1), (2, 2, 2)]);
        wal.truncate(wal.len() - 100);
        let (_, stats) = replay(&wal);
        assert_eq!((stats.frames, stats.frames_applied, stats.torn_bytes), (1, 1, 436));
    }

    #[test]
    fn a_log_scanned_on_from_any_earlier_length_is_indexed_as_when_scanned_whole() {
        // Commits of one and of several frames, an uncommitted tail, then a frame of another log.
        let frames = [(1, 1, 1), (2, 0, 2), (3, 3, 3), (2, 3, 4), (1, 0, 5), (4, 4, 6), (3, 0, 7)];
        let mut wal = build_wal(512, &frames);
        let mut foreign = build_wal(512, &[(1, 1, 8)]);
        foreign[WAL_HEADER + 8] ^= 1; // another salt
        wal.extend_from_slice(&foreign[WAL_HEADER..]);
        for length in [WAL_HEADER, wal.len()] {
            let whole = scan(&wal[..length]).unwrap();
            for cut in WAL_HEADER..=length {
                let mut index = scan(&wal[..cut]).unwrap();
                index.scan_on(&mut &wal[..length]).unwrap();
                assert_eq!(index.bytes_scanned(), length as u64);
                assert_eq!(index, whole, "the log cut at {cut} bytes, then scanned on to {length}");
            }
        }
    }

    #[test]
    fn a_log_started_again_is_not_scanned_on() {
        let wal = build_wal(512, &[(1, 1, 1)]);
        let mut index = scan(&wal[..]).unwrap();
        let mut restarted = wal.clone();
        restarted[16] ^= 1; // the first salt, as a checkpoint that starts the log again changes it
        let error = index.scan_on(&mut &restarted[..]);
        assert_eq!(error, Err("the write-ahead log was started again".to_string()));
        let empty = scan(&[][..]).unwrap();
        assert!(empty.clone().scan_on(&mut &wal[..]).is_err());
    }

    #[test]
    fn an_empty_log_is_a_log_of_nothing() {
        let index = scan(&b""[..]).unwrap();
        assert_eq!((index.database_pages, index.stats), (None, WalStats::default()));
        let header_only = scan(&build_wal(4096, &[])[..]).unwrap();
        assert_eq!((header_only.database_pages, header_only.stats.frames), (None, 0));
    }

    /// The log with its header changed by `change` and the header's checksum made right again.
    fn with_header(change: impl FnOnce(&mut [u8])) -> Vec<u8> {
        let mut wal = build_wal(512, &[(1, 1, 1)]);
        change(&mut wal[..WAL_HEADER]);
        let sum = checksum(true, (0, 0), &wal[..24]);
        wal[24..28].copy_from_slice(&sum.0.to_be_bytes());
        wal[28..32].copy_from_slice(&sum.1.to_be_bytes());
        wal
    }

    #[test]
    fn a_log_sqlite_cannot_use_says_what_was_found() {
        let error = |wal: &[u8]| scan(wal).unwrap_err();
        assert_eq!(
            error(&build_wal(512, &[(1, 1, 1)])[..20]),
            "the write-ahead log is 20 bytes, shorter than its 32 byte header (it was cut off while it was written)"
        );
        assert!(error(&b"not a wal at all, but long enough to have a header"[..]).contains("starts with 0x6e6f7420"));
        assert!(error(&with_header(|header| header[8..12].copy_from_slice(&1000u32.to_be_bytes()))).contains("1000"));
        let mut damaged = build_wal(512, &[(1, 1, 1)]);
        damaged[12] ^= 1;
        assert!(error(&damaged).contains("does not match its checksum"));
        let version = error(&with_header(|header| header[4..8].copy_from_slice(&3_007_001u32.to_be_bytes())));
        assert!(version.contains("format version 3007001"), "{version}");
    }

    #[test]
    fn a_database_header_gives_its_page_size() {
        let mut header = vec![0u8; 100];
        header[..16].copy_from_slice(b"SQLite format 3\0");
        let mut with_size = |size: u16| {
            header[16..18].copy_from_slice(&size.to_be_bytes());
            database_page_size(&header)
        };
        assert_eq!(
            (with_size(4096), with_size(1), with_size(1000), with_size(0)),
            (Some(4096), Some(65536), None, None)
        );
    }
}
