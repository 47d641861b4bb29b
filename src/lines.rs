//! Line-by-line reading with a cap on how much of one line is kept, so that a file with a
//! 100 MB line (or no newline at all) costs at most the cap in memory.

use std::io::{self, BufRead};

/// The longest line kept whole; longer lines keep this many bytes and their full length.
pub const MAX_LINE_BYTES: usize = 64 << 20;

pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    max_len: usize,
    number: u64,
    /// Bytes consumed so far: where the next line starts.
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

    pub fn with_limit(inner: R, max_len: usize) -> Self {
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
            self.buf.extend_from_slice(&chunk[..take.min(room)]);
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
        self.number += 1;
        Ok(Some(Line { number: self.number, offset: start, bytes: &self.buf, full_len }))
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
}
