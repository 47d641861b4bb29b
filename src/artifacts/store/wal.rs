//! Replaying a SQLite write-ahead log onto its database image in memory, as SQLite does on
//! open: frames count only up to the last valid commit frame; a bad checksum, a foreign salt
//! or a torn frame ends the log (https://www.sqlite.org/fileformat.html#the_write_ahead_log).

const WAL_HEADER: usize = 32;
const FRAME_HEADER: usize = 24;
const MAGIC_LITTLE_ENDIAN: u32 = 0x377f_0682;
const MAGIC_BIG_ENDIAN: u32 = 0x377f_0683;

/// What the replay found in the log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WalStats {
    /// Whole frames present in the file.
    pub frames: u64,
    /// Frames written to the image (those of committed transactions).
    pub frames_applied: u64,
    pub commits: u64,
    /// Frames after the last commit, or at and after the first invalid frame.
    pub frames_ignored: u64,
    /// Bytes after the last whole frame (a frame cut mid-write).
    pub torn_bytes: u64,
    /// Why the valid part of the log ended before its last frame, if it did.
    pub stopped: Option<String>,
}

/// Applies the committed frames of `wal` to `db` (the main file, possibly empty) and returns
/// an image SQLite opens in rollback-journal mode.
pub fn replay(db: &[u8], wal: &[u8]) -> Result<(Vec<u8>, WalStats), String> {
    let mut stats = WalStats::default();
    let mut image = db.to_vec();
    if wal.len() < WAL_HEADER {
        if db.is_empty() {
            return Err("neither a database nor a write-ahead log with a header".into());
        }
        mark_rollback_journal(&mut image);
        return Ok((image, stats));
    }
    let magic = be32(&wal[0..4]);
    let big_endian = match magic {
        MAGIC_BIG_ENDIAN => true,
        MAGIC_LITTLE_ENDIAN => false,
        _ => return Err(format!("not a write-ahead log (magic {magic:#010x})")),
    };
    let page_size = match be32(&wal[8..12]) {
        size @ 512..=65536 if size.is_power_of_two() => size as usize,
        size => return Err(format!("write-ahead log with an invalid page size {size}")),
    };
    let salts = &wal[16..24];
    let mut checksum = checksum(big_endian, (0, 0), &wal[..24]);
    if checksum != (be32(&wal[24..28]), be32(&wal[28..32])) {
        return Err("write-ahead log header checksum mismatch".into());
    }
    if !db.is_empty() {
        if let Some(db_page_size) = database_page_size(db) {
            if db_page_size != page_size {
                return Err(format!(
                    "database page size {db_page_size} differs from the log's {page_size}"
                ));
            }
        }
    }

    let frame_len = FRAME_HEADER + page_size;
    let body = &wal[WAL_HEADER..];
    stats.frames = (body.len() / frame_len) as u64;
    stats.torn_bytes = (body.len() % frame_len) as u64;

    // Valid frames are collected per transaction and applied when its commit frame arrives.
    let mut pending: Vec<(u32, &[u8])> = Vec::new();
    let mut committed_pages = None;
    for (index, frame) in body.chunks_exact(frame_len).enumerate() {
        let header = &frame[..FRAME_HEADER];
        let page = &frame[FRAME_HEADER..];
        if &header[8..16] != salts {
            stats.stopped = Some(format!(
                "frame {} belongs to an earlier log (salt differs)",
                index + 1
            ));
            break;
        }
        checksum = checksum_pair(big_endian, checksum, &header[..8], page);
        if checksum != (be32(&header[16..20]), be32(&header[20..24])) {
            stats.stopped = Some(format!("frame {} checksum mismatch", index + 1));
            break;
        }
        let page_number = be32(&header[0..4]);
        if page_number == 0 {
            stats.stopped = Some(format!("frame {} names page 0", index + 1));
            break;
        }
        pending.push((page_number, page));
        let db_pages = be32(&header[4..8]);
        if db_pages != 0 {
            for (number, data) in pending.drain(..) {
                write_page(&mut image, page_size, number, data);
                stats.frames_applied += 1;
            }
            stats.commits += 1;
            committed_pages = Some(db_pages as usize);
        }
    }
    stats.frames_ignored = stats.frames - stats.frames_applied;
    if let Some(pages) = committed_pages {
        image.resize(pages * page_size, 0);
    }
    if image.is_empty() {
        return Err(
            "the write-ahead log holds no committed transaction and there is no database".into(),
        );
    }
    if image.len() < 100 || &image[..16] != b"SQLite format 3\0" {
        return Err("the database image has no SQLite header".into());
    }
    mark_rollback_journal(&mut image);
    Ok((image, stats))
}

/// The page size of a database header, if the header is there.
fn database_page_size(db: &[u8]) -> Option<usize> {
    if db.len() < 100 || &db[..16] != b"SQLite format 3\0" {
        return None;
    }
    Some(match u16::from_be_bytes([db[16], db[17]]) {
        1 => 65536,
        size => size as usize,
    })
}

/// Header bytes 18 and 19 (write and read format versions): 2 means WAL, which an in-memory
/// image cannot be opened in; 1 is the rollback journal.
fn mark_rollback_journal(image: &mut [u8]) {
    if image.len() >= 20 {
        image[18] = 1;
        image[19] = 1;
    }
}

fn write_page(image: &mut Vec<u8>, page_size: usize, number: u32, data: &[u8]) {
    let start = (number as usize - 1) * page_size;
    if image.len() < start + page_size {
        image.resize(start + page_size, 0);
    }
    image[start..start + page_size].copy_from_slice(data);
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
            if big_endian {
                u32::from_be_bytes(array)
            } else {
                u32::from_le_bytes(array)
            }
        };
        s0 = s0.wrapping_add(word(&pair[0..4])).wrapping_add(s1);
        s1 = s1.wrapping_add(word(&pair[4..8])).wrapping_add(s0);
    }
    (s0, s1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a log of `frames` (page number, commit size) with every page filled with its number.
    pub(crate) fn build_wal(page_size: usize, frames: &[(u32, u32)]) -> Vec<u8> {
        let mut wal = Vec::new();
        wal.extend_from_slice(&MAGIC_BIG_ENDIAN.to_be_bytes());
        wal.extend_from_slice(&3_007_000u32.to_be_bytes());
        wal.extend_from_slice(&(page_size as u32).to_be_bytes());
        wal.extend_from_slice(&0u32.to_be_bytes());
        wal.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut sum = checksum(true, (0, 0), &wal);
        wal.extend_from_slice(&sum.0.to_be_bytes());
        wal.extend_from_slice(&sum.1.to_be_bytes());
        for &(page, commit) in frames {
            let mut header = Vec::new();
            header.extend_from_slice(&page.to_be_bytes());
            header.extend_from_slice(&commit.to_be_bytes());
            let mut data = vec![page as u8; page_size];
            if page == 1 {
                data[..16].copy_from_slice(b"SQLite format 3\0");
                data[16..18].copy_from_slice(&(page_size as u16).to_be_bytes());
                data[18] = 2;
                data[19] = 2;
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

    #[test]
    fn committed_frames_are_applied_and_the_tail_is_not() {
        let wal = build_wal(512, &[(1, 0), (2, 2), (2, 0)]);
        let (image, stats) = replay(&[], &wal).unwrap();
        assert_eq!(image.len(), 1024);
        assert_eq!((image[18], image[19]), (1, 1));
        assert_eq!(image[600], 2);
        assert_eq!(
            (
                stats.frames,
                stats.frames_applied,
                stats.commits,
                stats.frames_ignored
            ),
            (3, 2, 1, 1)
        );
    }

    #[test]
    fn a_bad_checksum_ends_the_log() {
        let mut wal = build_wal(512, &[(1, 1), (2, 2)]);
        let second_frame_data = WAL_HEADER + (FRAME_HEADER + 512) + FRAME_HEADER + 10;
        wal[second_frame_data] ^= 0xff;
        let (image, stats) = replay(&[], &wal).unwrap();
        assert_eq!(image.len(), 512);
        assert_eq!((stats.frames_applied, stats.frames_ignored), (1, 1));
        assert_eq!(stats.stopped.as_deref(), Some("frame 2 checksum mismatch"));
    }

    #[test]
    fn a_torn_frame_is_counted_and_ignored() {
        let mut wal = build_wal(512, &[(1, 1), (2, 2)]);
        wal.truncate(wal.len() - 100);
        let (_, stats) = replay(&[], &wal).unwrap();
        assert_eq!(
            (stats.frames, stats.frames_applied, stats.torn_bytes),
            (1, 1, 436)
        );
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(replay(&[], b"not a wal at all, but long enough to have a header").is_err());
        assert!(replay(&[], &[]).is_err());
    }
}
