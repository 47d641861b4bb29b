//! The timeline's search over whole texts. The row table keeps only the start of a long text
//! (`table::INLINE_TEXT`), so a filter's matches are first those of the kept texts; the cut
//! rows that pass all but the search are then read again whole, a few logs at a time
//! (`Matches::read_more`), and those holding the search are added in their place. The page
//! asks for more until none is left, showing the progress, and a new filter drops the rest:
//! memory stays what the table holds, and a search costs reading only the logs of cut texts.

use serde::Serialize;

use crate::line_filter::LineFilter;
use crate::needle::Needle;
use crate::page::table::{RowFilter, RowTable};
use crate::page::views::FullRows;

/// How many times its budget a part of the reading may grow to finish the log it is in.
const LOG_END_SLACK: usize = 4;

/// A filter's matches in the order shown, and the cut texts still to be read for its search.
pub struct Matches {
    pub filter: RowFilter,
    /// The rows passing, in the order the filter asks.
    pub rows: Vec<u32>,
    /// Cut rows that pass all but the search, which their kept start lacks, by their place in
    /// their logs (so each log is opened once).
    unread: Vec<u32>,
    /// How many of `unread` were read.
    read: usize,
    /// Of those read, how many could not be read again (they are left out).
    unreadable: usize,
    /// The lines that may hold the search: a cut text's line that cannot is not parsed again.
    lines: LineFilter,
}

/// How far the reading of whole texts is, for the page's progress.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SearchProgress {
    /// The rows found so far.
    pub total: usize,
    /// The cut texts read again, and those still to read.
    pub read: usize,
    pub left: usize,
    /// Cut texts that could not be read again (a log no longer there).
    pub unreadable: usize,
}

impl Matches {
    pub fn new(table: &RowTable, filter: RowFilter) -> Matches {
        let filtered = table.filter_kept(&filter);
        let mut unread = if Needle::new(&filter.search).is_empty() { Vec::new() } else { filtered.unread };
        crate::order::sort_by_key(&mut unread, |&index| (table.cut_text(index).map(|at| (at.file, at.offset)), index));
        let lines = LineFilter::new(&Needle::new(&filter.search));
        Matches { filter, rows: filtered.rows, unread, read: 0, unreadable: 0, lines }
    }

    pub fn progress(&self) -> SearchProgress {
        SearchProgress {
            total: self.rows.len(),
            read: self.read,
            left: self.unread.len() - self.read,
            unreadable: self.unreadable,
        }
    }

    /// Reads about `budget` more cut texts again whole (`whole` reads rows again, as
    /// `FinishedRun::full_rows`, and may leave cut a text whose line the filter given says cannot hold
    /// the search), and adds those holding the search to the matches. The last log begun
    /// is read to its end when that is at most `LOG_END_SLACK` times `budget` (a log is opened
    /// once, and a zip's entry cannot be sought in); beyond, it goes on in the next part, so the
    /// texts held at once stay what a part reads.
    pub fn read_more(&mut self, table: &RowTable, budget: usize, whole: impl FnOnce(&[u32], &LineFilter) -> FullRows) {
        let log = |index: u32| table.cut_text(index).map(|at| at.file);
        let budget = budget.max(1);
        let most = (self.read + budget * LOG_END_SLACK).min(self.unread.len());
        let mut end = (self.read + budget).min(self.unread.len());
        let last_log = self.unread.get(end.wrapping_sub(1)).map(|&index| log(index));
        let log_end = end + self.unread[end..most].iter().take_while(|&&index| Some(log(index)) == last_log).count();
        if log_end < most || most == self.unread.len() {
            end = log_end;
        }
        let batch = &self.unread[self.read..end];
        let full = whole(batch, &self.lines);
        let needle = Needle::new(&self.filter.search);
        let found: Vec<u32> = (batch.iter().zip(&full.rows).enumerate())
            .filter(|(slot, (_, row))| !full.errors.contains_key(slot) && needle.finds(&row.text))
            .map(|(_, (&index, _))| index)
            .collect();
        self.unreadable += full.errors.len();
        self.read = end;
        table.merge_in_order(&mut self.rows, found, self.filter.newest_first);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::{LineLocator, OwnedRow, Row, RowMark, RowSink, TurnType};
    use crate::page::table::INLINE_TEXT;

    /// A long tool result whose word `needle` comes only after the bytes the table keeps.
    fn long_result(needle: &str) -> String {
        format!("{}{needle} and more", "x".repeat(INLINE_TEXT + 100))
    }

    /// Rows of logs 0 and 1, each a short prompt and long tool results, a minute apart.
    fn table_and_texts() -> (RowTable, Vec<String>) {
        let texts = [
            (0, TurnType::User, "please find the needle".to_string()),
            (0, TurnType::ToolResult, long_result("needle")),
            (0, TurnType::ToolResult, long_result("hay")),
            (1, TurnType::ToolResult, long_result("NEEDLE")),
            (1, TurnType::User, "nothing here".to_string()),
        ];
        let mut table = RowTable::default();
        for (line, (file, turn_type, text)) in texts.iter().enumerate() {
            table.push(&Row {
                agent: "copilot-cli",
                timestamp_utc: format!("2026-10-01T09:0{line}:00.000Z").into(),
                session_id: "s",
                project_path: "/p",
                git_branch: "",
                client_name: "",
                model: "m",
                tool_name: "",
                tool_use_id: "",
                turn_type: *turn_type,
                text: text.as_str().into(),
                source: "events.jsonl",
                source_line: line as u64 + 1,
                mark: RowMark::Plain,
                locator: Some(LineLocator { file: *file, offset: line as u64 * 100, ordinal: 0 }),
            });
        }
        table.seal();
        (table, texts.into_iter().map(|(_, _, text)| text).collect())
    }

    /// Reads rows again whole from `texts`, failing those in `lost`, and records each batch.
    fn reader<'a>(
        table: &'a RowTable,
        texts: &'a [String],
        lost: &'a [u32],
        batches: &'a mut Vec<Vec<u32>>,
    ) -> impl FnOnce(&[u32], &LineFilter) -> FullRows + 'a {
        move |indices, _| {
            batches.push(indices.to_vec());
            let rows = indices
                .iter()
                .map(|&index| OwnedRow { text: texts[index as usize].clone(), ..table.row(index).unwrap() })
                .collect();
            let errors = (indices.iter().enumerate())
                .filter(|(_, index)| lost.contains(index))
                .map(|(slot, _)| (slot, "gone".to_string()))
                .collect::<BTreeMap<_, _>>();
            FullRows { rows, errors }
        }
    }

    #[test]
    fn a_word_past_the_kept_start_of_a_tool_result_is_found_by_reading_it_again() {
        let (table, texts) = table_and_texts();
        let search = RowFilter { search: "needle".into(), ..RowFilter::default() };
        let mut matches = Matches::new(&table, search);
        assert_eq!(matches.rows, [0], "the kept texts: only the prompt");
        assert_eq!(matches.progress(), SearchProgress { total: 1, read: 0, left: 3, unreadable: 0 });

        let mut batches = Vec::new();
        matches.read_more(&table, 1, reader(&table, &texts, &[], &mut batches));
        assert_eq!(batches, [vec![1, 2]], "a budget of 1 still reads log 0 to its end, 2 rows");
        assert_eq!(matches.rows, [0, 1]);
        matches.read_more(&table, 10, reader(&table, &texts, &[], &mut batches));
        assert_eq!(batches[1], [3]);
        assert_eq!(matches.rows, [0, 1, 3], "found case-insensitively, in time order");
        assert_eq!(matches.progress(), SearchProgress { total: 3, read: 3, left: 0, unreadable: 0 });
    }

    #[test]
    fn a_log_longer_than_the_slack_is_read_in_parts() {
        let mut table = RowTable::default();
        let texts: Vec<String> = (0..6).map(|_| long_result("needle")).collect();
        for (line, text) in texts.iter().enumerate() {
            table.push(&Row {
                agent: "copilot-cli",
                timestamp_utc: format!("2026-10-01T09:0{line}:00.000Z").into(),
                session_id: "s",
                project_path: "/p",
                git_branch: "",
                client_name: "",
                model: "m",
                tool_name: "",
                tool_use_id: "",
                turn_type: TurnType::ToolResult,
                text: text.as_str().into(),
                source: "events.jsonl",
                source_line: line as u64 + 1,
                mark: RowMark::Plain,
                locator: Some(LineLocator { file: 0, offset: line as u64 * 100, ordinal: 0 }),
            });
        }
        table.seal();
        let search = RowFilter { search: "needle".into(), ..RowFilter::default() };
        let parts = |budget: usize| {
            let mut matches = Matches::new(&table, search.clone());
            let mut batches = Vec::new();
            while matches.progress().left > 0 {
                matches.read_more(&table, budget, reader(&table, &texts, &[], &mut batches));
            }
            assert_eq!(matches.rows, [0, 1, 2, 3, 4, 5]);
            batches.iter().map(Vec::len).collect::<Vec<_>>()
        };
        assert_eq!(parts(1), [1, 1, 4], "parts of 1 until the log's rest is within 4 times 1");
        assert_eq!(parts(2), [6], "within 4 times 2: the log to its end at once");
    }

    #[test]
    fn found_rows_go_in_their_place_newest_first_and_unreadable_ones_are_counted() {
        let (table, texts) = table_and_texts();
        let search = RowFilter { search: "needle".into(), newest_first: true, ..RowFilter::default() };
        let mut matches = Matches::new(&table, search);
        let mut batches = Vec::new();
        matches.read_more(&table, 10, reader(&table, &texts, &[1], &mut batches));
        assert_eq!(batches, [vec![1, 2, 3]]);
        assert_eq!(matches.rows, [3, 0], "row 1 could not be read again");
        assert_eq!(matches.progress(), SearchProgress { total: 2, read: 3, left: 0, unreadable: 1 });
    }

    #[test]
    fn prompts_only_and_no_search_read_nothing_again() {
        let (table, _) = table_and_texts();
        let prompts = RowFilter { search: "needle".into(), prompts_only: true, ..RowFilter::default() };
        let matches = Matches::new(&table, prompts);
        assert_eq!((matches.rows.as_slice(), matches.progress().left), (&[0][..], 0));
        let everything = Matches::new(&table, RowFilter::default());
        assert_eq!((everything.rows.len(), everything.progress().left), (5, 0));
        let prompts = Matches::new(&table, RowFilter { prompts_only: true, ..RowFilter::default() });
        assert_eq!(prompts.rows, [0, 4], "without a search: every prompt");
    }
}
