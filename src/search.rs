//! The CLI's search of the logs alone ([`LogSearch`]): it parses only the logs a line of which
//! may hold the search (`crate::line_filter`), and keeps the rows whose texts, as the user is
//! shown them, hold it (`crate::needle`).

use crate::analysis::tally::Copies;
use crate::analysis::{LogTask, Options};
use crate::line_filter::LineFilter;
use crate::model::{OwnedRow, Row, RowSink};
use crate::needle::Needle;

/// A search of the logs alone (the CLI's `search`): a log no line of which may hold it
/// (`LineFilter`) is not parsed; one that may is parsed whole, as an analysis parses it, and its
/// rows whose texts hold the search once scrubbed (what the user is shown, as the page
/// searches) are kept, scrubbed.
pub struct LogSearch {
    needle: Needle,
    lines: LineFilter,
    /// The folded copy `LineFilter::each_line` keeps.
    folded: Vec<u8>,
}

impl LogSearch {
    pub fn new(search: &str) -> LogSearch {
        let needle = Needle::new(search);
        LogSearch { lines: LineFilter::new(&needle), needle, folded: Vec::new() }
    }

    /// Whether any line of a log (its bytes) may hold the search. UTF-16 text is not searched
    /// as bytes: it may.
    fn may_match(&mut self, bytes: &[u8]) -> bool {
        if crate::lines::may_be_utf16(&bytes[..bytes.len().min(3)]) {
            return true;
        }
        let mut found = false;
        self.lines.each_line(bytes, &mut self.folded, |_| found = true);
        found
    }

    /// The rows of the log `task` (its bytes) holding the search, scrubbed, in the log's order;
    /// `None`, parsing nothing, when no line may, or when another log holds its rows (an
    /// analysis leaves them out: `Copies::RowsHeldBy`).
    pub fn rows(&mut self, task: &LogTask, bytes: &[u8], options: &Options) -> Option<Vec<OwnedRow>> {
        if matches!(task.copies, Copies::RowsHeldBy { .. }) || !self.may_match(bytes) {
            return None;
        }
        let mut found = Found { needle: &self.needle, rows: Vec::new() };
        task.parse_bytes(bytes, options, &mut found);
        Some(found.rows)
    }
}

/// The rows holding a search once scrubbed.
struct Found<'n> {
    needle: &'n Needle,
    rows: Vec<OwnedRow>,
}

impl RowSink for Found<'_> {
    fn push(&mut self, row: &Row<'_>) {
        let scrubbed = crate::scrub::row(row, None);
        if self.needle.finds(&scrubbed.text) {
            self.rows.push(scrubbed.to_owned_row());
        }
    }
}
