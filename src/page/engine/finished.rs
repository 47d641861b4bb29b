//! A finished analysis as the views query it (`FinishedRun`): the row table, the outputs, and
//! the inputs kept to read long texts again, whole, from their logs.

use std::cell::{RefCell, RefMut};
use std::collections::{BTreeMap, HashMap};

use web_sys::Blob;

use super::cache::CacheInRun;
use crate::analysis::{LateSizes, LogTask, Options, Outputs};
use crate::line_filter::LineFilter;
use crate::model::OwnedRow;
use crate::needle::Needle;
use crate::order;
use crate::page::browser::{BrowserFile, BrowserRoot, BrowserRoots, LineSource};
use crate::page::matches::Matches;
use crate::page::protocol::{Answer, CacheReport, Request, SessionShown};
use crate::page::table::{RowFilter, RowTable};
use crate::page::views::{self, FullRows, RowsPage};
use crate::sources::LogAgain;
use crate::usage::credits::CreditsUsed;

/// A finished analysis as the views query it.
pub struct FinishedRun {
    pub table: RowTable,
    pub outputs: Outputs,
    /// For the files the page hands over after `finish`: their sizes go into the report.
    pub late_sizes: LateSizes,
    /// The last filter's matches, so that scrolling is cheap, and its search's progress.
    pub last_filter: RefCell<Option<Matches>>,
    /// The inputs and the logs, kept to read whole the long texts the table holds the start of.
    pub roots: RefCell<BrowserRoots>,
    pub(super) logs: HashMap<u32, LogTask>,
    pub(super) options: Options,
    /// The page's cache, until its pack is finished (`finish_cache`).
    pub cache: Option<CacheInRun>,
}

impl FinishedRun {
    /// What the page's cache did in this run.
    pub fn cache_report(&self) -> Option<CacheReport> {
        self.cache.as_ref().map(CacheInRun::report)
    }

    /// Makes the cache entries of at most `most` of the logs parsed without one
    /// (`CacheInRun::record_entries`). Gives how many are left.
    pub fn record_entries(&mut self, most: usize) -> usize {
        let Some(cache) = &mut self.cache else { return 0 };
        cache.record_entries(most, &self.logs, &mut self.roots.borrow_mut(), &self.options)
    }

    /// Answers the page's request.
    pub fn answer(&self, request: Request) -> Result<Answer<'_>, String> {
        let outputs = &self.outputs;
        Ok(match request {
            Request::Summary => Answer::Summary(views::summary(outputs)),
            Request::Rows { filter, offset, limit, text_limit } => {
                Answer::Rows(self.rows(filter, offset, limit, text_limit))
            }
            Request::SearchWhole { filter, budget } => {
                let mut matches = self.matches_of(filter);
                matches.read_more(&self.table, budget as usize, |indices, lines| self.read_again(indices, Some(lines)));
                Answer::SearchWhole(matches.progress())
            }
            Request::SessionsWithPrompt { search } => {
                let prompts = RowFilter { search, prompts_only: true, ..RowFilter::default() };
                let mut ids: Vec<&str> =
                    self.table.filter(&prompts).into_iter().filter_map(|index| self.table.session(index)).collect();
                order::sort(&mut ids);
                ids.dedup();
                Answer::SessionsWithPrompt(ids)
            }
            Request::Facets => Answer::Facets(self.table.facets()),
            Request::Sessions => Answer::Sessions(outputs.sessions.iter().map(SessionShown::of).collect()),
            Request::Inventory => Answer::Inventory(&outputs.inventory),
            Request::Report => Answer::Report(&outputs.report),
            Request::Usage(query) => Answer::Usage(views::usage_view(outputs, &query)?),
            Request::Month { month, today, allowance, budget } => Answer::Month(
                outputs
                    .usage
                    .month(views::day(&month)?, views::day(&today)?, views::allowance(allowance.as_deref())?)
                    .with_budget(views::allowance(budget.as_deref())?),
            ),
            Request::RowCount => Answer::RowCount(self.table.len() as u32),
            #[cfg(feature = "extras")]
            Request::Export { what, session_id } => Answer::Export(self.export(&what, &session_id)?),
            #[cfg(feature = "extras")]
            Request::ExportRows { what, offset, limit } => Answer::ExportRows(self.export_rows(&what, offset, limit)?),
            #[cfg(feature = "extras")]
            Request::ShareReport(asked) => Answer::ShareReport(self.share_report(&asked)?),
            #[cfg(feature = "extras")]
            Request::TeamExport(asked) => Answer::TeamExport(self.team_export(&asked)?),
            #[cfg(not(feature = "extras"))]
            Request::Export { .. } | Request::ExportRows { .. } | Request::ShareReport(_) | Request::TeamExport(_) => {
                return Err(crate::page::protocol::NOT_IN_FIRST_ENGINE.into());
            }
            Request::SessionCredits => Answer::SessionCredits(
                (outputs.usage.ledgers.iter())
                    .map(|(id, ledger)| (id.as_str(), CreditsUsed::of(&outputs.usage.rates, ledger.entries.iter())))
                    .collect(),
            ),
        })
    }

    /// The `limit` rows from `offset` of those passing `filter`; the last filter's matches
    /// are kept, so scrolling is cheap.
    fn rows(&self, filter: RowFilter, offset: u32, limit: u32, text_limit: u32) -> RowsPage {
        let search = Needle::new(&filter.search);
        let matches = self.matches_of(filter);
        let indices: Vec<u32> = matches.rows.iter().skip(offset as usize).take(limit as usize).copied().collect();
        let progress = matches.progress();
        drop(matches); // reading whole texts borrows the roots, not the matches
        let rows = views::shown_rows(&self.table, &indices, text_limit, &search, |indices| self.full_rows(indices));
        RowsPage { total: progress.total, unread: progress.left, rows }
    }

    /// The matches of `filter`, kept from the last request when it asked the same.
    fn matches_of(&self, filter: RowFilter) -> RefMut<'_, Matches> {
        let mut cache = self.last_filter.borrow_mut();
        if cache.as_ref().is_some_and(|matches| matches.filter != filter) {
            *cache = None;
        }
        RefMut::map(cache, |cache| cache.get_or_insert_with(|| Matches::new(&self.table, filter)))
    }

    /// A file handed over after `finish`: its size completes the report, and a log among them
    /// is where long texts are read again.
    pub fn give_late(&mut self, root: usize, path: String, blob: Blob, size: u64) {
        self.late_sizes.place(&mut self.outputs.report, root, &path, size);
        if let Some(BrowserRoot::Files(files)) = self.roots.get_mut().roots.get_mut(root) {
            files.insert(path, BrowserFile::Blob(blob));
        }
    }

    /// The rows at `indices`, each with its whole text: a text the table cut is read again
    /// from its line (each log opened once, its lines in order) by its source's parser.
    pub fn full_rows(&self, indices: &[u32]) -> FullRows {
        self.read_again(indices, None)
    }

    /// As `full_rows`; with `holding`, a text whose line it says cannot hold its search is left
    /// cut, its line not parsed (where the log's rows are made again line by line).
    fn read_again(&self, indices: &[u32], holding: Option<&LineFilter>) -> FullRows {
        let rows: Vec<OwnedRow> = indices.iter().filter_map(|&index| self.table.row(index)).collect();
        let mut full = FullRows { rows, errors: BTreeMap::new() };
        let mut by_log: BTreeMap<u32, Vec<(u64, u32, usize)>> = BTreeMap::new();
        for (slot, &index) in indices.iter().enumerate().take(full.rows.len()) {
            if let Some(locator) = self.table.cut_text(index) {
                by_log.entry(locator.file).or_default().push((locator.offset, locator.ordinal, slot));
            }
        }
        let mut roots = self.roots.borrow_mut();
        for (file, mut wanted) in by_log {
            let mut fail = |wanted: &[(u64, u32, usize)], why: String| {
                for (_, _, slot) in wanted {
                    full.errors.entry(*slot).or_insert_with(|| why.clone());
                }
            };
            let Some(task) = self.logs.get(&file) else {
                fail(&wanted, "its log is not known".to_string());
                continue;
            };
            let lines = match roots.open_lines(task.root, &task.listed_path) {
                Ok(lines) => lines,
                Err(error) => {
                    fail(&wanted, format!("{}: cannot open it again: {error}", task.source));
                    continue;
                }
            };
            order::sort(&mut wanted);
            let context = task.context(&self.options);
            let holding = holding.filter(|_| task.source().rows_by_line());
            let mut lines = LineKept { lines, kept: None };
            let mut last: Option<(u64, Vec<OwnedRow>)> = None;
            for (at, &(offset, ordinal, slot)) in wanted.iter().enumerate() {
                if let Some(holding) = holding {
                    match lines.line_at(offset) {
                        Ok(line) if !holding.may_match(line) => continue,
                        Ok(_) => {}
                        Err(error) => {
                            fail(&wanted[at..], format!("{}: cannot read it again: {error}", task.source));
                            break;
                        }
                    }
                }
                if last.as_ref().is_none_or(|(line_at, _)| *line_at != offset) {
                    match task.source().rows_again(&context, &mut lines, offset) {
                        Ok(rows) => last = Some((offset, rows)),
                        Err(error) => {
                            fail(&wanted[at..], format!("{}: cannot read it again: {error}", task.source));
                            break;
                        }
                    }
                }
                match last.as_ref().and_then(|(_, again)| again.get(ordinal as usize)) {
                    // Scrubbed as the row was when first given.
                    Some(again) => full.rows[slot].text = crate::scrub::scrub(&again.text).0,
                    None => fail(&wanted[at..=at], format!("{}: its line no longer gives this row", task.source)),
                }
            }
        }
        full
    }
}

/// A log's lines read again, the last one kept: a line checked for a search is then parsed
/// without being read twice.
struct LineKept<'a> {
    lines: LineSource<'a>,
    kept: Option<(u64, Vec<u8>)>,
}

impl LineKept<'_> {
    fn line_at(&mut self, offset: u64) -> std::io::Result<&[u8]> {
        let kept = match self.kept.take() {
            Some((at, line)) if at == offset => line,
            _ => self.lines.line_at(offset)?,
        };
        Ok(&self.kept.insert((offset, kept)).1)
    }
}

impl LogAgain for LineKept<'_> {
    fn line_at(&mut self, offset: u64) -> std::io::Result<Vec<u8>> {
        match self.kept.take() {
            Some((at, line)) if at == offset => Ok(line),
            _ => self.lines.line_at(offset),
        }
    }

    fn whole(&mut self) -> std::io::Result<&mut dyn std::io::BufRead> {
        self.lines.whole()
    }
}
