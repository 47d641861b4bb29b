//! Replaying a SQLite write-ahead log onto its database image, as SQLite does on open:
//! frames count only up to the last valid commit frame; a bad checksum, a foreign salt or a
//! torn frame ends the log (https://www.sqlite.org/fileformat.html#the_write_ahead_log).
//!
//! Two sequential passes, so that neither the log nor its frames are held in memory: `scan`
//! checks every frame and indexes the latest committed frame of each page; `apply` reads the
//! log again and copies just those frames into the image.

use std::collections::HashMap;
use std::io::{self, Read};

const WAL_HEADER: usize = 32;
const FRAME_HEADER: usize = 24;
const MAGIC_LITTLE_ENDIAN: u32 = 0x377f_0682;
const MAGIC_BIG_ENDIAN: u32 = 0x377f_0683;

/// What the replay found in the log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
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
#[derive(Clone, Debug, Default)]
pub struct WalIndex {
    pub page_size: usize,
    /// Database size in pages after the last commit; `None` when nothing was committed.
    pub database_pages: Option<u64>,
    latest: HashMap<u32, u64>,
    /// Frames up to and including the last commit.
    committed_frames: u64,
    pub stats: WalStats,
}

/// Pass one: reads the whole log, checking salts and cumulative checksums frame by frame.
pub fn scan(mut log: impl Read) -> Result<WalIndex, String> {
    let mut header = [0u8; WAL_HEADER];
    read_full(&mut log, &mut header).map_err(|error| format!("cannot read the write-ahead log: {error}"))?;
    let magic = be32(&header[0..4]);
    let big_endian = match magic {
        MAGIC_BIG_ENDIAN => true,
        MAGIC_LITTLE_ENDIAN => false,
        _ => return Err(format!("not a write-ahead log (magic {magic:#010x})")),
    };
    let page_size = match be32(&header[8..12]) {
        size @ 512..=65536 if size.is_power_of_two() => size as usize,
        size => return Err(format!("write-ahead log with an invalid page size {size}")),
    };
    let salts = [header[16], header[17], header[18], header[19], header[20], header[21], header[22], header[23]];
    let mut checksum = checksum(big_endian, (0, 0), &header[..24]);
    if checksum != (be32(&header[24..28]), be32(&header[28..32])) {
        return Err("write-ahead log header checksum mismatch".into());
    }

    let mut index = WalIndex { page_size, ..WalIndex::default() };
    let mut frame = vec![0u8; FRAME_HEADER + page_size];
    let mut pending: Vec<(u32, u64)> = Vec::new();
    let mut valid = true;
    loop {
        let filled =
            read_full(&mut log, &mut frame).map_err(|error| format!("cannot read the write-ahead log: {error}"))?;
        if filled < frame.len() {
            index.stats.torn_bytes = filled as u64;
            break;
        }
        let number = index.stats.frames;
        index.stats.frames += 1;
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
            index.stats.stopped = Some(problem);
            valid = false;
            continue;
        }
        pending.push((be32(&head[0..4]), number));
        let database_pages = be32(&head[4..8]);
        if database_pages != 0 {
            index.stats.frames_applied += pending.len() as u64;
            index.latest.extend(pending.drain(..));
            index.stats.commits += 1;
            index.database_pages = Some(u64::from(database_pages));
            index.committed_frames = number + 1;
        }
    }
    index.stats.frames_ignored = index.stats.frames - index.stats.frames_applied;
    Ok(index)
}

impl WalIndex {
    /// Where the data of a page's latest committed frame starts in the log.
    pub fn frame_data_offset(&self, page: u32) -> Option<u64> {
        let frame = *self.latest.get(&page)?;
        Some(WAL_HEADER as u64 + frame * (FRAME_HEADER + self.page_size) as u64 + FRAME_HEADER as u64)
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

/// The page size a database header declares, if the bytes start with one.
pub fn database_page_size(db: &[u8]) -> Option<usize> {
    if db.len() < 100 || &db[..16] != b"SQLite format 3\0" {
        return None;
    }
    Some(match u16::from_be_bytes([db[16], db[17]]) {
        1 => 65536,
        size => size as usize,
    })
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
        wal.extend_from_slice(&3_007_000u32.to_be_bytes());
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
    fn garbage_is_an_error_not_a_panic() {
        assert!(scan(&b"not a wal at all, but long enough to have a header"[..]).is_err());
        assert!(scan(&b""[..]).is_err());
    }
}
