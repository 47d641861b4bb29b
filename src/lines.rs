//! Line-by-line reading with a cap on how much of one line is kept, so that a file with a
//! 100 MB line (or no newline at all) costs at most the cap in memory. Text is UTF-8; a file
//! that opens with a UTF-16 byte-order mark (Windows tools write those) is decoded to UTF-8 as
//! it is read, and a UTF-8 byte-order mark is no part of the line it opens.

use std::io::{self, BufRead, BufReader, Read};

use encoding_rs_io::{DecodeReaderBytes, DecodeReaderBytesBuilder};

/// The longest line kept whole; longer lines keep this many bytes and their full length.
pub const MAX_LINE_BYTES: usize = 64 << 20;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line longer than this is given the whole line cap's room at once.
const LONG_LINE_BYTES: usize = 1 << 20;

/// Whether a file starting with these bytes (as many as came first, at least one) may be
/// UTF-16 text: it opens with a UTF-16 byte-order mark, or with the first byte of one.
pub fn may_be_utf16(start: &[u8]) -> bool {
    matches!(start, [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] | [0xFF] | [0xFE])
}

/// A reader's bytes as UTF-8: UTF-16 text (told by its byte-order mark) decoded, with any
/// unpaired surrogate as U+FFFD; anything else passed through as it is, a UTF-8 byte-order
/// mark and invalid bytes too. Passing through costs no copy.
pub fn utf16_as_utf8<R: Read>(reader: R) -> DecodeReaderBytes<R, Vec<u8>> {
    DecodeReaderBytesBuilder::new().utf8_passthru(true).build(reader)
}

/// What lines are read from: the bytes as they are, or UTF-16 text as UTF-8.
enum Input<R: Read> {
    Bytes(R),
    Utf16(BufReader<DecodeReaderBytes<R, Vec<u8>>>),
}

impl<R: BufRead> Input<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Input::Bytes(inner) => inner.fill_buf(),
            Input::Utf16(inner) => inner.fill_buf(),
        }
    }

    fn consume(&mut self, count: usize) {
        match self {
            Input::Bytes(inner) => inner.consume(count),
            Input::Utf16(inner) => inner.consume(count),
        }
    }
}

pub struct LineReader<R: Read> {
    inner: Input<R>,
    buf: Vec<u8>,
    max_len: usize,
    number: u64,
    /// Bytes consumed so far: where the next line starts (in a UTF-16 file, in its text as
    /// UTF-8, which is what `utf16_as_utf8` gives to read it again).
    offset: u64,
}

/// One line without its `\n` (or `\r\n`).
pub struct Line<'a> {
    /// 1-based.
    pub number: u64,
    /// Where the line starts in the input, in bytes.
    pub offset: u64,
    pub bytes: &'a [u8],
    /// The line's length in the file, which exceeds `bytes.len()` when it was cut.
    pub full_len: u64,
}

impl Line<'_> {
    pub fn is_cut(&self) -> bool {
        self.full_len > self.bytes.len() as u64
    }
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        Self::with_limit(inner, MAX_LINE_BYTES)
    }

    pub fn with_limit(mut inner: R, max_len: usize) -> Self {
        // A first read that fails here fails again at the first line.
        let inner = match inner.fill_buf() {
            Ok(start) if may_be_utf16(start) => Input::Utf16(BufReader::new(utf16_as_utf8(inner))),
            _ => Input::Bytes(inner),
        };
        LineReader { inner, buf: Vec::new(), max_len, number: 0, offset: 0 }
    }

    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        self.buf.clear();
        let start = self.offset;
        let mut full_len = 0u64;
        let mut saw_any = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(chunk) => chunk,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if chunk.is_empty() {
                break;
            }
            saw_any = true;
            let (take, done) = match memchr::memchr(b'\n', chunk) {
                Some(at) => (at, true),
                None => (chunk.len(), false),
            };
            let room = self.max_len.saturating_sub(self.buf.len());
            let kept = take.min(room);
            if self.buf.len() + kept > self.buf.capacity().max(LONG_LINE_BYTES) {
                // Room for the longest line at once: doubling towards it would leave each
                // smaller block behind in a heap that never shrinks (WebAssembly's). A cap above
                // the usual one (a VS Code chat log's) is reached in one more step, past it.
                let room = if self.buf.len() + kept <= MAX_LINE_BYTES { MAX_LINE_BYTES } else { self.max_len };
                self.buf.reserve_exact(room.min(self.max_len) - self.buf.len());
            }
            self.buf.extend_from_slice(&chunk[..kept]);
            full_len += take as u64;
            let consumed = if done { take + 1 } else { take };
            self.offset += consumed as u64;
            self.inner.consume(consumed);
            if done {
                break;
            }
        }
        if !saw_any {
            return Ok(None);
        }
        if self.buf.last() == Some(&b'\r') && full_len == self.buf.len() as u64 {
            self.buf.pop();
            full_len -= 1;
        }
        // The file's first line, or the first of a file joined to another, may open with one.
        let bom = if self.buf.starts_with(UTF8_BOM) { UTF8_BOM.len() } else { 0 };
        self.number += 1;
        Ok(Some(Line {
            number: self.number,
            offset: start + bom as u64,
            bytes: &self.buf[bom..],
            full_len: full_len - bom as u64,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(input: &[u8], limit: usize) -> Vec<(u64, Vec<u8>, u64)> {
        let mut reader = LineReader::with_limit(io::BufReader::with_capacity(3, input), limit);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            assert!(input[line.offset as usize..].starts_with(line.bytes));
            out.push((line.number, line.bytes.to_vec(), line.full_len));
        }
        out
    }

    #[test]
    fn splits_lines_and_keeps_a_cut_tail() {
        let got = collect(b"ab\r\ncdefgh\n\nlast", 4);
        assert_eq!(
            got,
            [(1, b"ab".to_vec(), 2), (2, b"cdef".to_vec(), 6), (3, b"".to_vec(), 0), (4, b"last".to_vec(), 4)]
        );
        assert!(collect(b"", 4).is_empty());
        assert_eq!(collect(b"x\n", 4), [(1, b"x".to_vec(), 1)]);
    }

    #[test]
    fn a_utf8_byte_order_mark_opens_no_line() {
        let got = collect(b"\xEF\xBB\xBFab\n\xEF\xBB\xBFc\nd\xEF\xBB\xBF\n\xEF\xBB", 8);
        assert_eq!(
            got,
            [
                (1, b"ab".to_vec(), 2),
                (2, b"c".to_vec(), 1),
                (3, b"d\xEF\xBB\xBF".to_vec(), 4),
                (4, b"\xEF\xBB".to_vec(), 2)
            ]
        );
    }

    /// Lines (number, text, offset) of `text` written as UTF-16 with a byte-order mark, read
    /// through a buffer of `capacity` bytes.
    fn utf16_lines(text: &str, big_endian: bool, capacity: usize) -> Vec<(u64, String, u64)> {
        let units = std::iter::once(0xFEFF).chain(text.encode_utf16());
        let bytes: Vec<u8> =
            units.flat_map(|unit| if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() }).collect();
        let mut reader = LineReader::new(io::BufReader::with_capacity(capacity, &bytes[..]));
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((line.number, String::from_utf8(line.bytes.to_vec()).unwrap(), line.offset));
        }
        out
    }

    #[test]
    fn utf16_text_is_read_as_utf8_with_offsets_in_that() {
        let text = "{\"a\":\"é\"}\r\n{\"b\":\"😀\"}\n";
        let expected = [(1, "{\"a\":\"é\"}".to_string(), 0), (2, "{\"b\":\"😀\"}".to_string(), 12)];
        for big_endian in [false, true] {
            for capacity in [1, 3, 4096] {
                assert_eq!(utf16_lines(text, big_endian, capacity), expected, "{big_endian} {capacity}");
            }
        }
        // The offsets are where `utf16_as_utf8` puts the lines.
        let mut again = String::new();
        let bytes: Vec<u8> = std::iter::once(0xFEFF).chain(text.encode_utf16()).flat_map(u16::to_le_bytes).collect();
        utf16_as_utf8(&bytes[..]).read_to_string(&mut again).unwrap();
        assert_eq!(&again[12..], "{\"b\":\"😀\"}\n");
    }

    #[test]
    fn bytes_that_only_start_like_utf16_pass_as_they_are() {
        for capacity in [1, 3] {
            let mut reader = LineReader::new(io::BufReader::with_capacity(capacity, &b"\xFFx\n\xFE"[..]));
            assert_eq!(
                reader.next_line().unwrap().map(|line| (line.bytes.to_vec(), line.offset)),
                Some((b"\xFFx".to_vec(), 0))
            );
            assert_eq!(
                reader.next_line().unwrap().map(|line| (line.bytes.to_vec(), line.offset)),
                Some((b"\xFE".to_vec(), 3))
            );
            assert!(reader.next_line().unwrap().is_none());
        }
    }
}
