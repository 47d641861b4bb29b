//! What the page's views are served from a finished analysis: the summary numbers, the usage
//! view, a page of rows with long texts cut, and the page's options with the memory guard.
//! Plain Rust, tested natively; `crate::page::engine` answers the page's requests with it and
//! `crate::page::wasm` only carries the answers across.

use std::collections::BTreeMap;

use crate::team_export::{self, TeamOptions};
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::analysis::{Options, Outputs};
use crate::facts::diagnostics::Diagnostic;
use crate::model::{OwnedRow, RowMark, TurnType};
use crate::needle::Needle;
use crate::page::table::{INLINE_TEXT, RowTable};
use crate::share::{Period, ShareOptions};
use crate::usage::Kind;
use crate::usage::flags::Flag;
use crate::usage::ledger::IMPLAUSIBLE_COUNTER;
use crate::usage::month::parse_allowance;
use crate::usage::rates::RateTable;
use crate::usage::summary::{DayRange, GroupBy, UsageRow, sessions_flagged};
use crate::usage::{Zone, ZoneOffsets};
use crate::{sources, time};

/// A wasm32 memory cannot pass 4 GiB; stopping at 3 GiB leaves room to finish the step under
/// way and to serve the views, where running into the wall would end in a trap.
pub const DEFAULT_MEMORY_LIMIT_MIB: u32 = 3072;

/// The page's options for an analysis (all optional).
#[derive(Deserialize, Default)]
#[serde(default)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PageOptions {
    pub include_thinking: bool,
    pub timezone: Option<String>,
    /// The named zone's offsets, `[[from_epoch_ms, offset_seconds], ...]`, from the browser's
    /// Intl: this build carries no time-zone database.
    pub zone_offsets: Option<Vec<(i64, i32)>>,
    /// A user's rates file (JSON), replacing or adding to the pinned table.
    pub rates: Option<String>,
    /// The most memory the engine may use, in MiB (default `DEFAULT_MEMORY_LIMIT_MIB`).
    pub memory_limit_mib: Option<u32>,
    /// Today in UTC by the page's clock (`YYYY-MM-DD`): usage after tomorrow is flagged.
    pub today: Option<String>,
}

impl PageOptions {
    /// The analysis's options and the memory limit in MiB.
    pub fn options(self) -> Result<(Options, u32), String> {
        let zone = match (Zone::parse(self.timezone.as_deref().unwrap_or("UTC")), self.zone_offsets) {
            (Ok(zone), _) => zone,
            (Err(_), Some(offsets)) if !offsets.is_empty() => Zone::Offsets(ZoneOffsets(offsets).kept()),
            (Err(error), _) => return Err(error),
        };
        let rates = match &self.rates {
            Some(text) => RateTable::with_overrides(text)?,
            None => RateTable::default_table(),
        };
        let today = self.today.as_deref().map(day).transpose()?;
        let options = Options { include_thinking: self.include_thinking, zone, rates, today };
        Ok((options, self.memory_limit_mib.unwrap_or(DEFAULT_MEMORY_LIMIT_MIB)))
    }
}

/// Whether an analysis using `used` MiB may go on under `limit`: a clear message rather than
/// a trap when the memory runs out.
pub fn memory_check(used: u32, limit: u32) -> Result<(), String> {
    if used <= limit {
        return Ok(());
    }
    Err(format!(
        "the analysis was stopped: it needs more than the {limit} MiB of memory this page allows \
         itself ({used} MiB in use). Analyse part of the data at a time (some of session-state/ \
         in a folder or zip), or use the copilot-lens command-line tool, which has no such limit"
    ))
}

/// A day as the page writes it (`YYYY-MM-DD`).
pub fn day(text: &str) -> Result<NaiveDate, String> {
    time::parse_day(text).ok_or_else(|| format!("not a day (YYYY-MM-DD): {text:?}"))
}

/// An allowance as the page's field holds it: none when blank, else read as the CLI's
/// `--allowance` is (`usage::month::parse_allowance`).
pub fn allowance(typed: Option<&str>) -> Result<Option<f64>, String> {
    typed.filter(|typed| !typed.trim().is_empty()).map(parse_allowance).transpose()
}

/// The summary numbers, in name order (as the tests compare them).
#[derive(Serialize, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Summary {
    pub bad_lines: u64,
    pub files: u64,
    pub rows: u64,
    pub sessions: u64,
    /// The total's tokens, by the headline's rule (`UsageTable::grand_total`).
    pub total_tokens: u64,
    /// usage.jsonl's rows (one per day, agent and model).
    pub usage_rows: usize,
}

pub fn summary(outputs: &Outputs) -> Summary {
    let totals = &outputs.report.totals;
    let usage = outputs.usage.table(GroupBy::Day, DayRange { agents_apart: true, ..DayRange::default() });
    Summary {
        files: totals.files_found,
        sessions: totals.sessions,
        rows: totals.rows,
        usage_rows: usage.rows.len(),
        bad_lines: totals.bad_lines,
        total_tokens: usage.grand_total.tokens.total,
    }
}

/// The usage table as the Usage view asks for it.
#[derive(Deserialize, Debug, Default)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct UsageQuery {
    pub by: GroupBy,
    /// Days (`YYYY-MM-DD`) to show, both included; empty for open.
    pub since: String,
    pub until: String,
    /// One agent's figures; empty for every agent's, added up.
    pub agent: String,
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct UsageView<'a> {
    pub rows: Vec<UsageRow>,
    /// The total the headline gives, whose parts `totals` holds (and what it leaves out).
    pub grand_total: UsageRow,
    pub totals: BTreeMap<Kind, UsageRow>,
    /// What a person reads for each kind of figure (`Kind::words`).
    #[cfg_attr(test, ts(type = "Record<string, string>"))]
    pub kind_words: KindWords,
    /// The flags the rows and totals carry, in a person's words, with what each means.
    pub flag_legend: Vec<&'static Flag>,
    /// The one money figure, by the Month's rule (`usage::credits`).
    pub credits_used: crate::usage::credits::CreditsUsed,
    /// Grouped by project: each project's credits used, the most first (the rows' order).
    pub project_credits: Vec<(String, crate::usage::credits::CreditsUsed)>,
    pub unknown_usage_sessions: &'a [String],
    /// Sessions whose figures leave out counters that cannot be token counts.
    pub implausible_counter_sessions: Vec<&'a str>,
    /// The report's diagnostics of counter lines (left out, without modelMetrics, undated).
    pub counter_problems: Vec<&'a Diagnostic>,
    pub rates: &'a str,
}

/// `Kind::words` by the kinds' names: a struct, not a map, which would bring a sort into the
/// page's first download.
#[derive(Serialize)]
pub struct KindWords {
    counted: &'static str,
    partial: &'static str,
    recovered: &'static str,
    ambiguous_resume: &'static str,
}

/// The usage table grouped `by`, between two days, of one agent or all, with the
/// unknown-usage sessions and the counter problems.
pub fn usage_view<'a>(outputs: &'a Outputs, query: &UsageQuery) -> Result<UsageView<'a>, String> {
    let open_day = |text: &str| if text.is_empty() { Ok(None) } else { day(text).map(Some) };
    let range = DayRange {
        since: open_day(&query.since)?,
        until: open_day(&query.until)?,
        agent: agent_named(&query.agent)?,
        agents_apart: false,
    };
    let usage = &outputs.usage;
    let table = usage.table(query.by, range);
    Ok(UsageView {
        flag_legend: table.flag_legend(),
        rows: table.rows,
        grand_total: table.grand_total,
        kind_words: KindWords {
            counted: Kind::Counted.words(),
            partial: Kind::Partial.words(),
            recovered: Kind::Recovered.words(),
            ambiguous_resume: Kind::AmbiguousResume.words(),
        },
        totals: table.totals,
        credits_used: table.credits_used,
        project_credits: table.project_credits,
        unknown_usage_sessions: &usage.unknown,
        implausible_counter_sessions: sessions_flagged(&usage.ledgers, IMPLAUSIBLE_COUNTER),
        counter_problems: outputs
            .report
            .diagnostics
            .iter()
            .filter(|diagnostic| diagnostic.kind.is_about_usage_counters())
            .collect(),
        rates: &usage.rates.title,
    })
}

/// An agent by its name (none for the empty name: every agent).
fn agent_named(name: &str) -> Result<Option<&'static str>, String> {
    if name.is_empty() {
        return Ok(None);
    }
    sources::agent_named(name).map(Some)
}

/// The report to share, as the page asks for it.
#[derive(Deserialize, Debug)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShareAsked {
    /// `YYYY-MM-DD`, by the page's clock in UTC.
    pub today: String,
    /// The billing month `YYYY-MM` (none or blank, and no days: the latest month with usage).
    pub month: Option<String>,
    /// A period of days instead, `YYYY-MM-DD`, both included.
    pub since: Option<String>,
    pub until: Option<String>,
    /// The monthly allowance as typed (`allowance`).
    pub allowance: Option<String>,
    pub short_project_names: bool,
    /// The sessions whose transcripts go in, their secrets scrubbed.
    pub sessions: Vec<String>,
    /// Transcripts keep their system prompts.
    pub with_system_prompt: bool,
}

impl ShareAsked {
    pub fn options(&self) -> Result<ShareOptions, String> {
        let period = match (given(&self.month), given(&self.since), given(&self.until)) {
            (Some(month), None, None) => Period::Month(day(&format!("{month}-01"))?),
            (None, None, None) => Period::LatestMonth,
            (None, since, until) => {
                Period::Days { since: since.map(day).transpose()?, until: until.map(day).transpose()? }
            }
            (Some(_), ..) => return Err("a month or a period of days, not both".to_string()),
        };
        Ok(ShareOptions {
            today: day(&self.today)?,
            period,
            allowance: allowance(self.allowance.as_deref())?,
            plan: None,
            short_project_names: self.short_project_names,
            with_system_prompt: self.with_system_prompt,
            bill: None,
        })
    }
}

/// A text the page gave, none when blank.
fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|text| !text.trim().is_empty())
}

/// A team export, as the page asks for it.
#[derive(Deserialize, Debug)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TeamAsked {
    /// `team.csv` or `team.jsonl`.
    pub what: String,
    /// The login the rows name (none or blank: the one each home signed in with).
    pub user: Option<String>,
    /// The machine the rows name (none or blank: each home's folder name).
    pub machine: Option<String>,
    pub share_projects: bool,
    /// RFC 3339, by the page's clock (the core has none).
    pub exported_at: String,
}

impl TeamAsked {
    pub fn options(&self) -> Result<TeamOptions, String> {
        let given =
            |text: &Option<String>| text.as_deref().map(str::trim).filter(|text| !text.is_empty()).map(String::from);
        Ok(TeamOptions {
            user: given(&self.user),
            machine: given(&self.machine),
            share_projects: self.share_projects,
            exported_at: team_export::exported_at(&self.exported_at)
                .ok_or_else(|| format!("not a time: {:?}", self.exported_at))?,
            range: DayRange::default(),
        })
    }
}

/// Rows with their whole texts, and why a text could not be read again (it stays cut).
pub struct FullRows {
    pub rows: Vec<OwnedRow>,
    /// By the row's place in `rows`.
    pub errors: BTreeMap<usize, String>,
}

impl FullRows {
    /// The rows for a file: one whose text cannot be read again whole fails the file rather
    /// than leaving a text cut in it.
    pub fn whole(self) -> Result<Vec<OwnedRow>, String> {
        match self.errors.into_iter().next() {
            Some((slot, error)) => {
                let row = &self.rows[slot];
                Err(format!("the text of {}:{} could not be read again whole: {error}", row.source, row.source_line))
            }
            None => Ok(self.rows),
        }
    }
}

#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RowsPage {
    /// The rows passing the filter, all of them (those found so far, while `unread` is not 0).
    pub total: usize,
    /// Cut texts whose rows pass all but the search, still to be read whole for it
    /// (`Request::SearchWhole`).
    pub unread: usize,
    pub rows: Vec<ShownRow>,
}

/// A row as a view gets it: an `OwnedRow` (the columns every row has) with what only the page's
/// table knows of it, its index and mark, and how its text was cut for the view.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShownRow {
    pub index: u32,
    #[serde(flatten)]
    pub row: OwnedRow,
    /// The text is only its start: read the rest with the row's locator.
    pub text_cut: bool,
    /// What the row means beyond its text (`"permission_denied"`, `"bad_line"`, ...).
    pub mark: RowMark,
    /// The whole text's length, where the text was cut to the `text_limit` asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub text_bytes: Option<usize>,
    /// Where in the whole text the text shown starts, when it was cut around a search's first
    /// match further in (a snippet).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub text_from: Option<usize>,
    /// Why the whole text could not be read again (the text is then its start).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub text_error: Option<String>,
    /// A note whose text ends in `key=value` pairs (`hook ... end: success=true output=...`),
    /// as its lead and those pairs, for the page to show labelled; rows.jsonl keeps the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub note_fields: Option<NoteFields>,
}

/// A note's text read as a lead and `key=value` pairs.
#[derive(Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NoteFields {
    pub lead: String,
    pub fields: Vec<(String, String)>,
}

impl NoteFields {
    /// The pairs of a note's text: each starts at a word `key=` (lower-case letters and `_`)
    /// after a space and runs to the next; none when no word is one.
    pub fn of(text: &str) -> Option<NoteFields> {
        let is_key = |word: &str| {
            word.split_once('=')
                .is_some_and(|(key, _)| !key.is_empty() && key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
        };
        let starts: Vec<usize> =
            text.match_indices(' ').map(|(at, _)| at + 1).filter(|&at| is_key(&text[at..])).collect();
        let first = *starts.first()?;
        let ends = starts.iter().skip(1).map(|&at| at - 1).chain([text.len()]);
        let fields = starts.iter().zip(ends).map(|(&start, end)| {
            let (key, value) = text[start..end].split_once('=').unwrap_or_default();
            (key.to_string(), value.to_string())
        });
        Some(NoteFields { lead: text[..first].trim_end().to_string(), fields: fields.collect() })
    }
}

/// The rows at `indices` of `table` as a view shows them. A `text_limit` above 0 cuts longer
/// texts to about that many bytes, around the first match of `search` where it lies further in;
/// asking for more than the table keeps (`INLINE_TEXT`), or 0 for everything, reads the cut
/// texts again whole with `full_rows`, as it reads those whose kept start lacks the search.
pub fn shown_rows(
    table: &RowTable,
    indices: &[u32],
    text_limit: u32,
    search: &Needle,
    full_rows: impl FnOnce(&[u32]) -> FullRows,
) -> Vec<ShownRow> {
    let whole = text_limit == 0 || text_limit as usize > INLINE_TEXT;
    let mut rows: Vec<OwnedRow> = indices.iter().filter_map(|&index| table.row(index)).collect();
    // Read again: every cut text when asked for whole, else only those whose kept start lacks
    // the search's match (their snippet is further in): a page of rows reads no more.
    let again: Vec<usize> = (0..rows.len())
        .filter(|&slot| {
            table.cut_text(indices[slot]).is_some()
                && (whole || (!search.is_empty() && !search.finds(&rows[slot].text)))
        })
        .collect();
    let mut errors = BTreeMap::new();
    if !again.is_empty() {
        let full = full_rows(&again.iter().map(|&slot| indices[slot]).collect::<Vec<u32>>());
        for (&slot, row) in again.iter().zip(full.rows) {
            rows[slot] = row;
        }
        errors.extend(full.errors.into_iter().map(|(at, error)| (again[at], error)));
    }
    indices
        .iter()
        .zip(rows)
        .enumerate()
        .map(|(slot, (&index, mut row))| {
            let text_error = errors.remove(&slot);
            let cut_here = table.cut_text(index).is_some() && (!again.contains(&slot) || text_error.is_some());
            let (text_from, text_bytes) = cut_around(&mut row.text, text_limit as usize, search);
            let note_fields = (row.turn_type == TurnType::System).then(|| NoteFields::of(&row.text)).flatten();
            let mark = table.mark(index).unwrap_or_default();
            let text_from = (text_from > 0).then_some(text_from);
            ShownRow { index, row, text_cut: cut_here, mark, text_bytes, text_from, text_error, note_fields }
        })
        .collect()
}

/// Bytes of a snippet shown before its match.
const SNIPPET_LEAD: usize = 80;

/// Cuts `text` to at most `limit` bytes (0: no limit) on characters' boundaries: its start, or
/// from a little before the first match of `search` when the start would not show it. Returns
/// where the part kept starts, and the whole text's length when it was cut.
pub fn cut_around(text: &mut String, limit: usize, search: &Needle) -> (usize, Option<usize>) {
    let bytes = text.len();
    if limit == 0 || bytes <= limit {
        return (0, None);
    }
    let from = match search.first_match(text) {
        Some(at) if at + search.folded().len() > limit => text.floor_char_boundary(at.saturating_sub(SNIPPET_LEAD)),
        _ => 0,
    };
    let end = text.floor_char_boundary((from + limit).min(bytes));
    *text = text[from..end].to_string();
    (from, Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_of_key_value_pairs_is_read_as_its_lead_and_the_pairs() {
        let note = NoteFields::of(r#"hook preToolUse end: success=true output={} error={"message":"x y"}"#).unwrap();
        assert_eq!(note.lead, "hook preToolUse end:");
        let pairs: Vec<(&str, &str)> = note.fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, [("success", "true"), ("output", "{}"), ("error", r#"{"message":"x y"}"#)]);
        let tip = NoteFields::of("session.info tip: Try /model url=https://docs.example tip=t1").unwrap();
        assert_eq!((tip.lead.as_str(), tip.fields.len()), ("session.info tip: Try /model", 2));
        assert_eq!(NoteFields::of("model: gpt-5.4"), None, "no pairs: the text as it is");
        assert_eq!(
            NoteFields::of("a =b x=y").unwrap().fields,
            [("x".to_string(), "y".to_string())],
            "`=b` names no key"
        );
    }
    use crate::input::memory::{MemoryRoot, MemoryRoots};
    use crate::model::{LineLocator, Row, RowMark, RowSink, TurnType};

    #[test]
    fn a_text_is_cut_on_a_character_boundary_and_says_its_length() {
        let none = Needle::new("");
        let mut text = "ab€cd".to_string(); // '€' is bytes 2..5
        assert_eq!(cut_around(&mut text, 3, &none), (0, Some(7)));
        assert_eq!(text, "ab");
        let mut text = "ab€cd".to_string();
        assert_eq!(cut_around(&mut text, 5, &none), (0, Some(7)));
        assert_eq!(text, "ab€");
        let mut short = "abc".to_string();
        assert_eq!(cut_around(&mut short, 3, &none), (0, None));
        assert_eq!(cut_around(&mut short, 0, &none), (0, None));
        assert_eq!(short, "abc");
    }

    #[test]
    fn a_match_past_the_limit_is_shown_in_a_snippet_from_a_little_before_it() {
        let whole = format!("{}NEEDLE{}", "é".repeat(500), "x".repeat(500)); // the match at byte 1,000
        let mut text = whole.clone();
        let (from, bytes) = cut_around(&mut text, 200, &Needle::new("needle"));
        assert_eq!((from, bytes), (1000 - SNIPPET_LEAD, Some(whole.len())));
        assert_eq!((text.len(), &text[SNIPPET_LEAD..SNIPPET_LEAD + 6]), (200, "NEEDLE"));
        // A match the start shows keeps the start.
        let mut near = format!("ab NEEDLE {}", "x".repeat(500));
        assert_eq!(cut_around(&mut near, 200, &Needle::new("needle")).0, 0);
        // A lead that starts inside a character starts at its boundary.
        let mut odd = format!("{}yNEEDLE{}", "é".repeat(500), "x".repeat(500)); // the match at 1,001
        let (from, _) = cut_around(&mut odd, 200, &Needle::new("needle"));
        assert_eq!((from, odd.starts_with('é')), (1001 - SNIPPET_LEAD - 1, true));
    }

    /// A table of a short row and a long one (kept in part: its log is where it is whole).
    fn table_of_two(long: &str) -> RowTable {
        let mut table = RowTable::default();
        for (line, text) in [(1, "hello"), (2, long)] {
            table.push(&Row {
                agent: "copilot-cli",
                timestamp_utc: format!("2026-10-01T09:00:0{line}.000Z").into(),
                session_id: "s",
                project_path: "/p",
                git_branch: "",
                client_name: "",
                model: "m",
                tool_name: "",
                tool_use_id: "",
                turn_type: TurnType::User,
                text: text.into(),
                source: "events.jsonl",
                source_line: line,
                mark: RowMark::Plain,
                locator: Some(LineLocator { file: 0, offset: 0, ordinal: 0 }),
            });
        }
        table.seal();
        table
    }

    #[test]
    fn rows_are_cut_to_the_limit_asked_and_read_again_whole_past_what_the_table_keeps() {
        let long = "é".repeat(600); // 1,200 bytes; the table keeps 512
        let table = table_of_two(&long);
        let shown = |rows: &[ShownRow]| -> Vec<(usize, bool, Option<usize>, Option<String>)> {
            rows.iter().map(|r| (r.row.text.len(), r.text_cut, r.text_bytes, r.text_error.clone())).collect()
        };

        // A table's line: the kept start, cut again; nothing is read again.
        let none = Needle::new("");
        let one_line = shown_rows(&table, &[0, 1], 101, &none, |_| panic!("read again for a line"));
        assert_eq!(shown(&one_line), [(5, false, None, None), (100, true, Some(INLINE_TEXT), None)]);
        // Served flat: the row's columns beside its index, mark and cut.
        let served = serde_json::to_value(&one_line[1]).unwrap();
        let fields = ["index", "session_id", "mark", "text_cut", "text_bytes"].map(|name| served[name].to_string());
        assert_eq!(fields, ["1", r#""s""#, r#""plain""#, "true", &INLINE_TEXT.to_string()]);

        // Whole: read again, no longer cut.
        let whole = |indices: &[u32]| FullRows {
            rows: indices.iter().map(|&index| OwnedRow { text: long.clone(), ..table.row(index).unwrap() }).collect(),
            errors: BTreeMap::new(),
        };
        assert_eq!(shown(&shown_rows(&table, &[1], 0, &none, whole)), [(1200, false, None, None)]);

        // A search's match in what the table keeps is shown from there; one past it is read again
        // whole and shown in a snippet around it.
        let kept = shown_rows(&table, &[1], 101, &Needle::new("É"), |_| panic!("read again for a kept match"));
        assert_eq!((kept[0].text_cut, kept[0].text_from), (true, None));
        let with_word = |indices: &[u32]| FullRows {
            rows: indices
                .iter()
                .map(|&index| OwnedRow { text: format!("{long}WORD"), ..table.row(index).unwrap() })
                .collect(),
            errors: BTreeMap::new(),
        };
        let found = shown_rows(&table, &[0, 1], 101, &Needle::new("word"), |indices| {
            assert_eq!(indices, [1], "only the text whose kept start lacks the word");
            with_word(indices)
        });
        assert_eq!((found[1].text_cut, found[1].text_from, found[1].text_bytes), (false, Some(1120), Some(1204)));
        assert!(found[1].row.text.ends_with("WORD"));

        // A text that cannot be read again stays cut and says why. Only the cut texts are read
        // again: the long row is the first asked.
        let failing = |indices: &[u32]| {
            assert_eq!(indices, [1]);
            FullRows {
                rows: indices.iter().map(|&index| table.row(index).unwrap()).collect(),
                errors: BTreeMap::from([(0, "gone".to_string())]),
            }
        };
        let failed = shown_rows(&table, &[0, 1], 0, &none, failing);
        assert_eq!(shown(&failed), [(5, false, None, None), (INLINE_TEXT, true, None, Some("gone".to_string()))]);
        let error = FullRows { rows: vec![table.row(1).unwrap()], errors: BTreeMap::from([(0, "gone".into())]) };
        assert_eq!(error.whole().unwrap_err(), "the text of events.jsonl:2 could not be read again whole: gone");
    }

    #[test]
    fn the_memory_guard_stops_past_the_limit_only() {
        assert!(memory_check(3072, 3072).is_ok());
        let error = memory_check(3073, 3072).unwrap_err();
        assert!(error.contains("more than the 3072 MiB") && error.contains("(3073 MiB in use)"), "{error}");
    }

    #[test]
    fn page_options_read_zones_rates_and_today() {
        let (options, limit) = PageOptions::default().options().unwrap();
        assert_eq!((options.zone, options.today, limit), (Zone::Utc, None, DEFAULT_MEMORY_LIMIT_MIB));

        let given: PageOptions = serde_json::from_str(
            r#"{"timezone":"Europe/Nowhere","zone_offsets":[[0,3600]],"memory_limit_mib":10,"today":"2026-12-02"}"#,
        )
        .unwrap();
        let (options, limit) = given.options().unwrap();
        assert_eq!(limit, 10);
        assert_eq!(options.today, NaiveDate::from_ymd_opt(2026, 12, 2));
        let Zone::Offsets(offsets) = options.zone else { panic!("not the offsets given: {:?}", options.zone) };
        assert_eq!(offsets.0, [(0, 3600)]);
        // The same offsets again are the ones kept (a page makes an engine per analysis).
        let again: PageOptions = serde_json::from_str(r#"{"timezone":"X/Y","zone_offsets":[[0,3600]]}"#).unwrap();
        let Zone::Offsets(kept) = again.options().unwrap().0.zone else { panic!("not offsets") };
        assert!(std::ptr::eq(offsets, kept));

        let unknown: PageOptions = serde_json::from_str(r#"{"timezone":"X/Y"}"#).unwrap();
        assert!(unknown.options().is_err());
        let bad_day: PageOptions = serde_json::from_str(r#"{"today":"2 Dec"}"#).unwrap();
        assert_eq!(bad_day.options().unwrap_err(), r#"not a day (YYYY-MM-DD): "2 Dec""#);
    }

    #[test]
    fn usage_queries_check_their_days_and_agent() {
        let outputs = {
            let mut home = MemoryRoot::new("home");
            home.insert(".copilot/config.json", "{}", None);
            let mut roots = MemoryRoots(vec![home]);
            crate::analysis::analyze(roots.listings(), &mut roots, Options::default(), &mut Vec::new()).unwrap()
        };
        let query = |json: &str| serde_json::from_str::<UsageQuery>(json).unwrap();
        let view = usage_view(&outputs, &query(r#"{"by":"month","since":"","until":"","agent":""}"#)).unwrap();
        assert!(view.rows.is_empty());
        let bad_day = usage_view(&outputs, &query(r#"{"by":"day","since":"May","until":"","agent":""}"#));
        assert_eq!(bad_day.err().unwrap(), r#"not a day (YYYY-MM-DD): "May""#);
        let bad_agent = usage_view(&outputs, &query(r#"{"by":"day","since":"","until":"","agent":"nobody"}"#));
        assert!(
            bad_agent
                .err()
                .unwrap()
                .starts_with(r#"unknown agent "nobody": the agents are copilot-cli, copilot-vscode"#)
        );
        let bad_grouping = serde_json::from_str::<UsageQuery>(r#"{"by":"week","since":"","until":"","agent":""}"#);
        assert!(bad_grouping.is_err());
    }
}
