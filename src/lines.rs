//! Line-by-line reading with a cap on how much of one line is kept, so that a file with a
//! 100 MB line (or no newline at all) costs at most the cap in memory. Text is UTF-8; a file
//! that opens with a UTF-16 byte-order mark (Windows tools write those) is decoded to UTF-8 as
//! it is read, and a UTF-8 byte-order mark is no part of the line it opens.

use std::io::{self, BufRead, BufReader, Read};

/// The longest line kept whole; longer lines keep this many bytes and their full length.
pub const MAX_LINE_BYTES: usize = 64 << 20;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Bytes without the UTF-8 byte-order mark they may open with.
pub fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

/// The text of a file that should be UTF-8, without the byte-order mark it may open with.
pub fn utf8_text(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(without_bom(bytes)).map_err(|error| format!("not UTF-8: {error}"))
}

/// A line longer than this is given the whole line cap's room at once.
const LONG_LINE_BYTES: usize = 1 << 20;

/// Whether a file starting with these bytes (as many as came first, at least one) may be
/// UTF-16 text: it opens with a UTF-16 byte-order mark, or with the first byte of one.
pub fn may_be_utf16(start: &[u8]) -> bool {
    matches!(start, [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] | [0xFF] | [0xFE])
}

/// The chunk `scan_whole_lines` reads at a time.
const SCAN_CHUNK: usize = 1 << 20;

thread_local! {
    /// `scan_whole_lines`'s buffer, kept from log to log: zeroing a fresh megabyte for each of
    /// thousands of logs would cost more than scanning them.
    static SCAN_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads `input` a megabyte at a time and gives `region` its whole lines, in runs (each run
/// ends at a `\n`, or at the input's end), with the byte where the run starts, for a scan that
/// looks at few of them (a usage-only run searches the runs for the lines it wants). A line
/// longer than `MAX_LINE_BYTES` is left out: the run after it is given with 1 (the lines left
/// out before it, for a scan that counts lines), the others with 0. Returns the bytes read.
pub fn scan_whole_lines(input: impl Read, region: impl FnMut(&[u8], u64, u64)) -> io::Result<u64> {
    SCAN_BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        if buffer.len() < SCAN_CHUNK {
            buffer.resize(SCAN_CHUNK, 0);
        }
        scan_with(input, region, &mut buffer, MAX_LINE_BYTES)
    })
}

fn scan_with(
    mut input: impl Read,
    mut region: impl FnMut(&[u8], u64, u64),
    buffer: &mut Vec<u8>,
    max_line: usize,
) -> io::Result<u64> {
    let mut bytes = 0u64;
    // Bytes of a line that began in an earlier chunk.
    let mut carried = 0usize;
    let mut oversized = false;
    loop {
        if carried == buffer.len() {
            // A line longer than the buffer: grow up to the line limit, then skip the rest.
            if buffer.len() >= max_line {
                oversized = true;
                carried = 0;
            } else {
                buffer.resize(buffer.len() * 2, 0);
            }
        }
        // Where `buffer[0]` is in the input.
        let base = bytes - carried as u64;
        let read = match input.read(&mut buffer[carried..]) {
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        bytes += read as u64;
        let filled = carried + read;
        let at_end = read == 0;
        // Complete lines end at the last newline (or at the end of the input).
        let complete = if at_end {
            filled
        } else {
            memchr::memrchr(b'\n', &buffer[carried..filled]).map_or(0, |at| carried + at + 1)
        };
        if complete > 0 {
            let whole = &buffer[..complete];
            if oversized {
                // The rest of an over-long line.
                oversized = false;
                let (skip, ended) = memchr::memchr(b'\n', whole).map_or((whole.len(), false), |at| (at + 1, true));
                region(&whole[skip..], base + skip as u64, u64::from(ended));
            } else {
                region(whole, base, 0);
            }
        }
        if at_end {
            return Ok(bytes);
        }
        buffer.copy_within(complete..filled, 0);
        carried = filled - complete;
    }
}

/// A reader's bytes as UTF-8: UTF-16 text (told by its byte-order mark, in the first three
/// bytes) decoded, with any unpaired surrogate or odd last byte as U+FFFD; anything else passed
/// through as it is, a UTF-8 byte-order mark and invalid bytes too. Passing through costs no copy.
pub fn utf16_as_utf8<R: Read>(reader: R) -> Utf16AsUtf8<R> {
    Utf16AsUtf8 { inner: reader, state: Decoding::Unknown }
}

/// What `utf16_as_utf8` gives: its own small decoder, since the one encoding it needs does not
/// justify a general one's tables in the WebAssembly build.
pub struct Utf16AsUtf8<R> {
    inner: R,
    state: Decoding,
}

enum Decoding {
    /// Nothing read yet.
    Unknown,
    /// Not UTF-16: the first bytes read to tell (`start[at..]` still to give), then the rest.
    Passthrough {
        start: [u8; 3],
        len: usize,
        at: usize,
    },
    Utf16(Box<Utf16State>),
}

struct Utf16State {
    big_endian: bool,
    /// The first byte of a code unit whose second has not come yet.
    odd_byte: Option<u8>,
    /// A high surrogate waiting for its low one.
    high: Option<u16>,
    /// Decoded text not yet given (`out[given..]`).
    out: Vec<u8>,
    given: usize,
    input: Box<[u8]>,
    ended: bool,
}

const REPLACEMENT: char = char::REPLACEMENT_CHARACTER;

impl Utf16State {
    /// The decoder for text that opens with `read`: a UTF-16 byte-order mark and what followed.
    fn after_mark(read: &[u8]) -> Utf16State {
        let mut state = Utf16State {
            big_endian: read[0] == 0xFE,
            odd_byte: None,
            high: None,
            out: Vec::new(),
            given: 0,
            input: vec![0; 1 << 15].into_boxed_slice(),
            ended: false,
        };
        state.bytes(&read[2..]);
        state
    }

    fn push(&mut self, c: char) {
        self.out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }

    fn unit(&mut self, unit: u16) {
        if let Some(high) = self.high.take() {
            if (0xDC00..0xE000).contains(&unit) {
                let code = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                return self.push(char::from_u32(code).unwrap_or(REPLACEMENT));
            }
            self.push(REPLACEMENT);
        }
        match unit {
            0xD800..0xDC00 => self.high = Some(unit),
            0xDC00..0xE000 => self.push(REPLACEMENT),
            _ => self.push(char::from_u32(u32::from(unit)).unwrap_or(REPLACEMENT)),
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        if let (Some(first), Some((&second, tail))) = (self.odd_byte, rest.split_first()) {
            self.odd_byte = None;
            self.unit(self.code_unit([first, second]));
            rest = tail;
        }
        let mut pairs = rest.chunks_exact(2);
        for pair in &mut pairs {
            self.unit(self.code_unit([pair[0], pair[1]]));
        }
        if let [last] = pairs.remainder() {
            self.odd_byte = Some(*last);
        }
    }

    fn code_unit(&self, pair: [u8; 2]) -> u16 {
        if self.big_endian { u16::from_be_bytes(pair) } else { u16::from_le_bytes(pair) }
    }

    /// At the end of the input: a surrogate or byte left waiting is one U+FFFD.
    fn end(&mut self) {
        if self.high.take().is_some() | self.odd_byte.take().is_some() {
            self.push(REPLACEMENT);
        }
        self.ended = true;
    }
}

impl<R: Read> Read for Utf16AsUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_decoded(&mut self.inner, &mut self.state, buf)
    }
}

/// `Utf16AsUtf8::read`, for any reader (one copy of it for every kind of reader, in the page's
/// download; a call through `dyn` per read costs nothing beside the read).
fn read_decoded(inner: &mut dyn Read, decoding: &mut Decoding, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match decoding {
            Decoding::Unknown => {
                let mut start = [0u8; 3];
                let mut len = 0;
                // The first read goes into the caller's buffer when it holds a mark: most
                // files are not UTF-16, and reading three bytes apart first would cost each
                // of thousands of logs a call to the system.
                if buf.len() >= start.len() {
                    let read = match inner.read(buf) {
                        Ok(read) => read,
                        Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                        Err(error) => return Err(error),
                    };
                    if read == 0 || !may_be_utf16(&buf[..read]) {
                        *decoding = Decoding::Passthrough { start, len: 0, at: 0 };
                        return Ok(read);
                    }
                    if read >= start.len() {
                        *decoding = Decoding::Utf16(Box::new(Utf16State::after_mark(&buf[..read])));
                        continue;
                    }
                    start[..read].copy_from_slice(&buf[..read]);
                    len = read;
                }
                while len < start.len() {
                    match inner.read(&mut start[len..]) {
                        Ok(0) => break,
                        Ok(count) => len += count,
                        Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                        Err(error) => return Err(error),
                    }
                }
                *decoding = match start[..len] {
                    [0xFF, 0xFE, _] | [0xFE, 0xFF, _] => Decoding::Utf16(Box::new(Utf16State::after_mark(&start))),
                    _ => Decoding::Passthrough { start, len, at: 0 },
                };
            }
            Decoding::Passthrough { start, len, at } => {
                if *at < *len {
                    let count = (*len - *at).min(buf.len());
                    buf[..count].copy_from_slice(&start[*at..*at + count]);
                    *at += count;
                    return Ok(count);
                }
                return inner.read(buf);
            }
            Decoding::Utf16(state) => {
                if state.given < state.out.len() {
                    let count = (state.out.len() - state.given).min(buf.len());
                    buf[..count].copy_from_slice(&state.out[state.given..state.given + count]);
                    state.given += count;
                    return Ok(count);
                }
                if state.ended || buf.is_empty() {
                    return Ok(0);
                }
                state.out.clear();
                state.given = 0;
                let read = match inner.read(&mut state.input) {
                    Ok(read) => read,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Err(error),
                };
                if read == 0 {
                    state.end();
                } else {
                    let input = std::mem::take(&mut state.input);
                    state.bytes(&input[..read]);
                    state.input = input;
                }
            }
        }
    }
}

/// What lines are read from: the bytes as they are, or UTF-16 text as UTF-8.
enum Input<R: Read> {
    Bytes(R),
    Utf16(BufReader<Utf16AsUtf8<R>>),
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
    /// The bytes consumed end with a line's `\n` (or there are none).
    at_line_start: bool,
}

/// Where a reading of lines stopped at a line's end: how many lines it read, and the bytes
/// they took. A reading of the same bytes grown goes on from there (`LineReader::resumed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LinesEnd {
    pub lines: u64,
    pub offset: u64,
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
        LineReader { inner, buf: Vec::new(), max_len, number: 0, offset: 0, at_line_start: true }
    }

    /// Lines read on from where an earlier reading of the same bytes stopped (`inner` is
    /// there): their numbers and offsets are those a reading from the start gives. The bytes
    /// are read as they are, since only a reading that was not of UTF-16 text gives an end.
    pub fn resumed(inner: R, end: LinesEnd) -> Self {
        LineReader {
            inner: Input::Bytes(inner),
            buf: Vec::new(),
            max_len: MAX_LINE_BYTES,
            number: end.lines,
            offset: end.offset,
            at_line_start: true,
        }
    }

    /// Where the reading is, if a reading of these bytes grown may go on from there: after at
    /// least one byte, at a line's end (a line still being written is read again whole), and
    /// not in UTF-16 text (which is decoded from its start).
    pub fn clean_end(&self) -> Option<LinesEnd> {
        let plain = matches!(self.inner, Input::Bytes(_));
        (plain && self.at_line_start && self.offset > 0).then_some(LinesEnd { lines: self.number, offset: self.offset })
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
            self.at_line_start = done;
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
        let bom = self.buf.len() - without_bom(&self.buf).len();
        self.number += 1;
        Ok(Some(Line {
            number: self.number,
            offset: start + bom as u64,
            bytes: &self.buf[bom..],
            full_len: full_len - bom as u64,
        }))
    }
}

/// A reader that hands out at most `step` bytes a call, for tests of readings that must find
/// lines wherever the reads cut them.
#[cfg(test)]
pub struct Trickle<'a>(pub &'a [u8], pub usize);

#[cfg(test)]
impl Read for Trickle<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let count = self.0.len().min(out.len()).min(self.1);
        out[..count].copy_from_slice(&self.0[..count]);
        self.0 = &self.0[count..];
        Ok(count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_of_whole_lines_leaves_out_an_over_long_line_and_says_where() {
        let input = b"ab\n0123456789abcdefghij\ncd\nlast";
        let mut runs = Vec::new();
        let mut buffer = vec![0; 4];
        let read = scan_with(
            Trickle(input, 3),
            |run, base, left_out| runs.push((String::from_utf8_lossy(run).into_owned(), base, left_out)),
            &mut buffer,
            8,
        )
        .unwrap();
        assert_eq!(read, input.len() as u64);
        let text: String = runs.iter().map(|(run, ..)| run.as_str()).collect();
        assert_eq!(text, "ab\ncd\nlast", "the over-long line is left out");
        let cd = runs.iter().position(|(run, ..)| run.starts_with("cd")).unwrap();
        assert_eq!(runs[cd].1, 24, "where the run after it starts");
        let left_out: Vec<u64> = runs.iter().map(|(.., left_out)| *left_out).collect();
        assert_eq!(left_out.iter().sum::<u64>(), 1, "one line said left out: {runs:?}");
        assert!(left_out[..=cd].contains(&1), "before the line after it: {runs:?}");
    }

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

    /// A line as (number, offset, bytes).
    type Numbered = (u64, u64, Vec<u8>);

    /// Every line a reader gives, and where it ended.
    fn lines_of<R: BufRead>(mut reader: LineReader<R>) -> (Vec<Numbered>, Option<LinesEnd>) {
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((line.number, line.offset, line.bytes.to_vec()));
        }
        (out, reader.clean_end())
    }

    #[test]
    fn a_reading_resumed_at_a_clean_end_numbers_and_places_lines_as_a_whole_reading_does() {
        let whole = b"\xEF\xBB\xBFone\r\n\ntwo\nthree\n\xEF\xBB\xBFfour\nfive";
        let (expected, end) = lines_of(LineReader::new(io::BufReader::with_capacity(3, &whole[..])));
        assert_eq!(end, None, "the last line is still being written");
        for cut in 1..whole.len() {
            let (before, end) = lines_of(LineReader::new(io::BufReader::with_capacity(3, &whole[..cut])));
            let Some(end) = end else {
                assert_ne!(whole[cut - 1], b'\n', "a reading that stopped at a line's end at {cut} gives its end");
                continue;
            };
            assert_eq!(end.offset, cut as u64);
            let (after, _) = lines_of(LineReader::resumed(io::BufReader::with_capacity(3, &whole[cut..]), end));
            assert_eq!([before, after].concat(), expected, "resumed at {cut}");
        }
        assert_eq!(lines_of(LineReader::new(&b""[..])).1, None, "nothing read: no end to go on from");
        let utf16: Vec<u8> = "\u{FEFF}a\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert_eq!(lines_of(LineReader::new(&utf16[..])).1, None, "UTF-16 text is decoded from its start");
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
    fn unpaired_surrogates_and_an_odd_last_byte_are_each_one_replacement() {
        let decode = |bytes: &[u8]| {
            let mut text = String::new();
            utf16_as_utf8(bytes).read_to_string(&mut text).unwrap();
            text
        };
        // BOM, "a", a lone high surrogate before "b", a lone low surrogate, a pair (😀).
        let bytes = b"\xFF\xFEa\x00\x00\xD8b\x00\x00\xDC\x3D\xD8\x00\xDE";
        assert_eq!(decode(bytes), "a\u{FFFD}b\u{FFFD}😀");
        assert_eq!(decode(b"\xFE\xFF\x00a\xD8\x00"), "a\u{FFFD}");
        assert_eq!(decode(b"\xFE\xFF\x00a\xD8\x00\x00"), "a\u{FFFD}");
        assert_eq!(decode(b"\xFF\xFEa"), "\u{FFFD}");
        // Too short to be told UTF-16: as it is.
        let mut short = Vec::new();
        utf16_as_utf8(&b"\xFF\xFE"[..]).read_to_end(&mut short).unwrap();
        assert_eq!(short, b"\xFF\xFE");
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
