//! An in-memory row table for an interactive viewer (the browser's worker): rows kept
//! compactly (repeated columns interned, texts in an arena of chunks), a chronological order, and
//! filtered views that a page reads a slice at a time. Each row keeps its `RowMark`, what it
//! means beyond its text, so the page never has to read meaning back out of texts.
//!
//! A long text of an event-log row keeps only its first `INLINE_TEXT` bytes here, with the
//! row's `LineLocator`; the viewer reads the whole text again from its line when it shows it
//! (`events::reparse_line`). A filter finds a search in what is kept and names the cut rows
//! whose whole texts are still to be read for it (`Filtered::unread`, read by `crate::page::matches`).

use crate::needle::Needle;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use chrono::{Days, NaiveDate};

use crate::model::{LineLocator, OwnedRow, Row, RowMark, RowSink, TurnType};
use crate::order;
use crate::usage::{Zone, ZoneOffsets};

/// Bytes of a long text kept in memory; the rest is read again from the source when shown.
pub const INLINE_TEXT: usize = 512;

#[derive(Default)]
pub struct RowTable {
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    rows: Vec<StoredRow>,
    arena: Arena,
    /// Row indices by time (undated rows, and those dated by their file, last), then by arrival.
    chronological: Vec<u32>,
    /// Where to read the whole text of rows whose text was cut.
    cut: HashMap<u32, LineLocator>,
}

/// A text in the arena: its chunk, where it starts there, and its length.
#[derive(Clone, Copy)]
struct Span {
    chunk: u32,
    start: u32,
    len: u32,
}

/// The texts, in chunks never moved once made. One buffer of hundreds of megabytes grew by
/// copying itself into one twice its size, both held meanwhile: the page's memory, which never
/// shrinks, kept that as its peak.
#[derive(Default)]
struct Arena {
    chunks: Vec<String>,
    /// The chunk being filled; a long text has a chunk of its own, after it.
    filling: usize,
}

/// The largest chunk; the first ones are smaller, as a table may hold one log's rows only.
const CHUNK: usize = 1 << 22;

impl Arena {
    fn store(&mut self, text: &str) -> Span {
        let room = |chunk: &String| chunk.capacity() - chunk.len();
        if self.chunks.get(self.filling).is_none_or(|chunk| room(chunk) < text.len()) {
            if text.len() > CHUNK / 4 {
                self.chunks.push(String::with_capacity(text.len()));
                return self.push(self.chunks.len() - 1, text);
            }
            let last = self.chunks.get(self.filling).map_or(0, String::capacity);
            self.chunks.push(String::with_capacity((last * 2).clamp(4096, CHUNK)));
            self.filling = self.chunks.len() - 1;
        }
        self.push(self.filling, text)
    }

    fn push(&mut self, chunk: usize, text: &str) -> Span {
        let into = &mut self.chunks[chunk];
        let span = Span { chunk: chunk as u32, start: into.len() as u32, len: text.len() as u32 };
        into.push_str(text);
        span
    }

    fn text(&self, span: Span) -> &str {
        &self.chunks[span.chunk as usize][span.start as usize..][..span.len as usize]
    }

    /// Takes `other`'s chunks after these (none copied); gives how far its spans' chunks move.
    fn append(&mut self, other: Arena) -> u32 {
        let shift = self.chunks.len();
        self.chunks.extend(other.chunks.into_iter().map(|mut chunk| {
            chunk.shrink_to_fit();
            chunk
        }));
        // Filling goes on in a chunk of its own: those taken are full.
        self.filling = usize::MAX;
        shift as u32
    }
}

#[derive(Clone, Copy)]
struct StoredRow {
    millis: Option<i64>,
    /// The timestamp as written, when it is not the canonical form of `millis`.
    raw_timestamp: Option<Span>,
    agent: u32,
    session: u32,
    project: u32,
    branch: u32,
    client: u32,
    model: u32,
    tool: u32,
    source: u32,
    /// In the arena: nearly every call's is its own, two rows' at most (interning it cost more
    /// than it saved).
    tool_use_id: Span,
    text: Span,
    turn_type: TurnType,
    mark: RowMark,
    /// Only the text's start is kept (`RowTable::cut` says where the rest is).
    cut: bool,
    line: u64,
}

/// A filter over the table; empty fields match everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RowFilter {
    pub turn_types: Vec<TurnType>,
    /// The agent whose rows to keep (`copilot-cli`, ...).
    pub agent: String,
    pub session_id: String,
    pub project_path: String,
    pub model: String,
    pub tool_name: String,
    /// Days, `YYYY-MM-DD`, both included, in the zone of `zone_offsets`.
    pub since: String,
    pub until: String,
    /// The zone `since` and `until` are days of, as the page's `zone.js` gives the browser's:
    /// `[[from_epoch_ms, offset_seconds], ...]`; empty for UTC.
    pub zone_offsets: Vec<(i64, i32)>,
    /// Case-insensitive text to find in the row's text.
    pub search: String,
    /// Only the prompts (user turns): the search then finds prompts only.
    pub prompts_only: bool,
    /// The newest row first (undated rows, and those dated by their file, still last); else the
    /// oldest first.
    pub newest_first: bool,
    /// Rows with any of these marks (`["bad_line"]`: the bad lines).
    pub marks: Vec<RowMark>,
}

impl StoredRow {
    /// When it happened, for the order: a note dated by its file's modification time (a
    /// standing grant, a sync marker) tells no event's time, and goes last with the undated.
    fn event_millis(&self) -> Option<i64> {
        self.millis.filter(|_| !self.mark.dated_by_its_file())
    }
}

impl RowSink for RowTable {
    fn push(&mut self, row: &Row<'_>) {
        let (millis, canonical) = crate::time::parse_millis_noting_canonical(&row.timestamp_utc);
        let raw_timestamp = (!canonical && !row.timestamp_utc.is_empty()).then(|| self.store_text(&row.timestamp_utc));
        let cut = row.locator.is_some() && row.text.len() > INLINE_TEXT;
        let text = match row.locator {
            Some(locator) if cut => {
                self.cut.insert(self.rows.len() as u32, locator);
                let mut end = INLINE_TEXT;
                while !row.text.is_char_boundary(end) {
                    end -= 1;
                }
                self.store_text(&row.text[..end])
            }
            _ => self.store_text(&row.text),
        };
        let stored = StoredRow {
            millis,
            raw_timestamp,
            agent: self.intern(row.agent),
            session: self.intern(row.session_id),
            project: self.intern(row.project_path),
            branch: self.intern(row.git_branch),
            client: self.intern(row.client_name),
            model: self.intern(row.model),
            tool: self.intern(row.tool_name),
            source: self.intern(row.source),
            tool_use_id: self.store_text(row.tool_use_id),
            text,
            turn_type: row.turn_type,
            mark: row.mark,
            cut,
            line: row.source_line,
        };
        self.rows.push(stored);
    }

    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        kept_inline(row)
    }
}

/// A long event-log text is kept to its start (`INLINE_TEXT`).
fn kept_inline(row: &Row<'_>) -> Option<usize> {
    row.locator.is_some().then_some(INLINE_TEXT)
}

/// Keeps no row, but says of each what the table keeps of its text: where a log parsed again
/// for its cache entry alone sends its rows (`LogTask::entry_alone`), the table having them.
pub struct AsTableKeeps;

impl RowSink for AsTableKeeps {
    fn push(&mut self, _row: &Row<'_>) {}

    fn text_kept(&self, row: &Row<'_>) -> Option<usize> {
        kept_inline(row)
    }
}

impl RowTable {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds `other`'s rows after these: the browser parses a zip's logs in the archive's
    /// order, each into a table of its own, and adds them in the order of the logs.
    pub fn append(&mut self, other: RowTable) {
        let first = self.rows.len() as u32;
        let shift = self.arena.append(other.arena);
        let ids: Vec<u32> = other.names.iter().map(|name| self.intern(name)).collect();
        let id = |of: u32| ids[of as usize];
        let moved = |span: Span| Span { chunk: span.chunk + shift, ..span };
        self.rows.extend(other.rows.into_iter().map(|row| StoredRow {
            raw_timestamp: row.raw_timestamp.map(moved),
            agent: id(row.agent),
            session: id(row.session),
            project: id(row.project),
            branch: id(row.branch),
            client: id(row.client),
            model: id(row.model),
            tool: id(row.tool),
            source: id(row.source),
            tool_use_id: moved(row.tool_use_id),
            text: moved(row.text),
            ..row
        }));
        self.cut.extend(other.cut.into_iter().map(|(index, locator)| (first + index, locator)));
    }

    /// Orders the rows by time once they are all in.
    pub fn seal(&mut self) {
        let key = |index: usize| {
            let millis = self.rows[index].event_millis();
            (millis.is_none(), millis)
        };
        let order = order::positions_by(self.rows.len(), &|a, b| key(a).cmp(&key(b)));
        self.chronological = order.into_iter().map(|index| index as u32).collect();
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.name_ids.insert(name.to_string(), id);
        id
    }

    fn store_text(&mut self, text: &str) -> Span {
        let mut end = text.len().min(u32::MAX as usize);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.arena.store(&text[..end])
    }

    fn text(&self, span: Span) -> &str {
        self.arena.text(span)
    }

    /// Where to read the whole text of a row whose text was cut.
    pub fn cut_text(&self, index: u32) -> Option<LineLocator> {
        self.cut.get(&index).copied()
    }

    /// What the row means beyond its text.
    pub fn mark(&self, index: u32) -> Option<RowMark> {
        self.rows.get(index as usize).map(|row| row.mark)
    }

    /// The row as stored (its text cut when `cut_text` says so).
    pub fn row(&self, index: u32) -> Option<OwnedRow> {
        let row = self.rows.get(index as usize)?;
        let name = |id: u32| self.names[id as usize].clone();
        let timestamp = match (row.raw_timestamp, row.millis) {
            (Some(raw), _) => self.text(raw).to_string(),
            (None, Some(millis)) => crate::time::format_millis(millis),
            (None, None) => String::new(),
        };
        Some(OwnedRow {
            agent: name(row.agent),
            timestamp_utc: timestamp,
            session_id: name(row.session),
            project_path: name(row.project),
            git_branch: name(row.branch),
            client_name: name(row.client),
            model: name(row.model),
            tool_name: name(row.tool),
            tool_use_id: self.text(row.tool_use_id).to_string(),
            turn_type: row.turn_type,
            text: self.text(row.text).to_string(),
            source: name(row.source),
            source_line: row.line,
        })
    }

    /// Indices of the rows that pass `filter` on their kept texts, in the order asked.
    pub fn filter(&self, filter: &RowFilter) -> Vec<u32> {
        self.filter_kept(filter).rows
    }

    /// The rows passing `filter` on their kept texts, in the order asked, and the cut rows that
    /// pass all but the search, whose whole texts may yet hold it.
    pub fn filter_kept(&self, filter: &RowFilter) -> Filtered {
        let name_id = |name: &str| -> Option<Option<u32>> {
            if name.is_empty() { Some(None) } else { self.name_ids.get(name).map(|&id| Some(id)) }
        };
        let (Some(agent), Some(session), Some(project), Some(model), Some(tool)) = (
            name_id(&filter.agent),
            name_id(&filter.session_id),
            name_id(&filter.project_path),
            name_id(&filter.model),
            name_id(&filter.tool_name),
        ) else {
            return Filtered::default(); // a name no row has
        };
        let zone = filter.zone();
        let since = crate::time::parse_day(&filter.since).map(|day| day_start(zone, day));
        let until = crate::time::parse_day(&filter.until).and_then(|day| day.checked_add_days(Days::new(1)));
        let until = until.map(|next| day_start(zone, next));
        let needle = Needle::new(&filter.search);
        let mut filtered = Filtered::default();
        for &index in &self.chronological {
            let row = &self.rows[index as usize];
            let passes = (filter.turn_types.is_empty() || filter.turn_types.contains(&row.turn_type))
                && (!filter.prompts_only || row.turn_type == TurnType::User)
                && agent.is_none_or(|id| row.agent == id)
                && session.is_none_or(|id| row.session == id)
                && project.is_none_or(|id| row.project == id)
                && model.is_none_or(|id| row.model == id)
                && tool.is_none_or(|id| row.tool == id)
                && since.is_none_or(|since| row.millis.is_some_and(|m| m >= since))
                && until.is_none_or(|until| row.millis.is_some_and(|m| m < until))
                && (filter.marks.is_empty() || filter.marks.contains(&row.mark));
            if !passes {
            } else if needle.finds(self.text(row.text)) {
                filtered.rows.push(index);
            } else if row.cut {
                filtered.unread.push(index);
            }
        }
        if filter.newest_first {
            let dated = filtered.rows.partition_point(|&index| self.rows[index as usize].event_millis().is_some());
            filtered.rows[..dated].reverse();
        }
        filtered
    }

    /// Adds `found` to `rows` (both in the order `newest_first` asks) where they belong.
    pub fn merge_in_order(&self, rows: &mut Vec<u32>, mut found: Vec<u32>, newest_first: bool) {
        let key = |index: u32| -> (bool, i64, i64) {
            match self.rows[index as usize].event_millis() {
                Some(millis) if newest_first => (false, -millis, -i64::from(index)),
                Some(millis) => (false, millis, i64::from(index)),
                None => (true, 0, i64::from(index)),
            }
        };
        order::sort_by_key(&mut found, |&index| key(index));
        let mut merged = Vec::with_capacity(rows.len() + found.len());
        let mut found = found.into_iter().peekable();
        for &row in rows.iter() {
            while let Some(earlier) = found.next_if(|&next| key(next) < key(row)) {
                merged.push(earlier);
            }
            merged.push(row);
        }
        merged.extend(found);
        *rows = merged;
    }

    /// The session id of row `index`.
    pub fn session(&self, index: u32) -> Option<&str> {
        self.rows.get(index as usize).map(|row| self.names[row.session as usize].as_str())
    }

    /// The distinct values of the filterable columns, for the viewer's pickers.
    pub fn facets(&self) -> Facets {
        let mut facets = Facets::default();
        let mut seen = vec![[false; 5]; self.names.len()];
        for row in &self.rows {
            for (slot, (id, list)) in [
                (row.agent, &mut facets.agents),
                (row.session, &mut facets.sessions),
                (row.project, &mut facets.projects),
                (row.model, &mut facets.models),
                (row.tool, &mut facets.tools),
            ]
            .into_iter()
            .enumerate()
            {
                if !seen[id as usize][slot] && !self.names[id as usize].is_empty() {
                    seen[id as usize][slot] = true;
                    list.push(self.names[id as usize].clone());
                }
            }
        }
        for list in
            [&mut facets.agents, &mut facets.sessions, &mut facets.projects, &mut facets.models, &mut facets.tools]
        {
            order::sort(list);
        }
        facets
    }
}

#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Facets {
    /// The agents whose rows the table holds (`copilot-cli`, ...).
    pub agents: Vec<String>,
    pub sessions: Vec<String>,
    pub projects: Vec<String>,
    pub models: Vec<String>,
    pub tools: Vec<String>,
}

/// The rows passing a filter (`RowTable::filter_kept`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Filtered {
    /// In the order asked.
    pub rows: Vec<u32>,
    /// Cut rows passing all but the search, which their kept start lacks, in time order.
    pub unread: Vec<u32>,
}

impl RowFilter {
    /// The zone `since` and `until` are days of.
    fn zone(&self) -> Zone {
        if self.zone_offsets.is_empty() {
            Zone::Utc
        } else {
            Zone::Offsets(ZoneOffsets(self.zone_offsets.clone()).kept())
        }
    }
}

/// The first instant (epoch milliseconds) of `day` in `zone`: a zone's day only grows with
/// time, so it is searched for in the two days either side of UTC's midnight (no offset is
/// larger than a day).
pub fn day_start(zone: Zone, day: NaiveDate) -> i64 {
    const DAY: i64 = 86_400_000;
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp_millis();
    let (mut before, mut on_or_after) = (midnight - 2 * DAY, midnight + 2 * DAY);
    while on_or_after - before > 1 {
        let middle = before + (on_or_after - before) / 2;
        if zone.day(middle) < day { before = middle } else { on_or_after = middle }
    }
    on_or_after
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGENT: &str = "copilot-cli";

    /// A plain row of project `/p` and model `m`.
    fn row<'a>(stamp: &'a str, session: &'a str, turn_type: TurnType, text: &'a str) -> Row<'a> {
        Row {
            agent: AGENT,
            timestamp_utc: stamp.into(),
            session_id: session,
            project_path: "/p",
            git_branch: "",
            client_name: "",
            model: "m",
            tool_name: "",
            tool_use_id: "",
            turn_type,
            text: text.into(),
            source: "s",
            source_line: 1,
            mark: RowMark::Plain,
            locator: None,
        }
    }

    fn push(table: &mut RowTable, stamp: &str, session: &str, turn_type: TurnType, text: &str) {
        table.push(&row(stamp, session, turn_type, text));
    }

    #[test]
    fn notes_dated_by_their_file_go_last_in_either_order_as_the_undated() {
        let mut table = RowTable::default();
        push(&mut table, "2026-10-01T00:00:00.000Z", "a", TurnType::User, "prompt");
        let grant =
            Row { mark: RowMark::StandingGrant, ..row("2026-12-01T00:00:00.000Z", "", TurnType::System, "grant") };
        table.push(&grant);
        push(&mut table, "2026-10-02T00:00:00.000Z", "a", TurnType::User, "later prompt");
        push(&mut table, "", "a", TurnType::User, "undated");
        table.seal();
        let newest = RowFilter { newest_first: true, ..RowFilter::default() };
        assert_eq!(table.filter(&newest), [2, 0, 1, 3], "newest first: the events, then the grant with the undated");
        assert_eq!(table.filter(&RowFilter::default()), [0, 2, 1, 3]);
        let mut rows = vec![2, 0];
        table.merge_in_order(&mut rows, vec![3, 1], true);
        assert_eq!(rows, [2, 0, 1, 3]);
    }

    #[test]
    fn filters_in_time_order() {
        let mut table = RowTable::default();
        push(&mut table, "2026-10-02T00:00:00.000Z", "a", TurnType::User, "Later PROMPT");
        push(&mut table, "", "b", TurnType::User, "undated prompt");
        push(&mut table, "2026-10-01T00:00:00.000Z", "a", TurnType::Assistant, "earlier reply");
        table.seal();
        assert_eq!(table.filter(&RowFilter::default()), [2, 0, 1]);
        let prompts = RowFilter { turn_types: vec![TurnType::User], search: "prompt".into(), ..RowFilter::default() };
        assert_eq!(table.filter(&prompts), [0, 1]);
        let day = RowFilter { since: "2026-10-02".into(), until: "2026-10-02".into(), ..RowFilter::default() };
        assert_eq!(table.filter(&day), [0]);
        let newest = RowFilter { newest_first: true, ..RowFilter::default() };
        assert_eq!(table.filter(&newest), [0, 2, 1], "newest first, the undated row still last");
        assert!(table.filter(&RowFilter { session_id: "zzz".into(), ..RowFilter::default() }).is_empty());
        assert_eq!(table.row(2).unwrap().text, "earlier reply");
        assert_eq!(table.row(0).unwrap().timestamp_utc, "2026-10-02T00:00:00.000Z");
        assert_eq!(table.facets().sessions, ["a", "b"]);
    }

    #[test]
    fn days_are_those_of_the_zone_given_around_its_midnight() {
        let mut table = RowTable::default();
        // UTC instants either side of midnight in Tokyo (+09:00) and New York (-05:00).
        let stamps = [
            "2026-12-01T14:59:59.999Z", // Tokyo 12-01 23:59:59.999
            "2026-12-01T15:00:00.000Z", // Tokyo 12-02 00:00; New York 12-01 10:00
            "2026-12-02T04:59:59.999Z", // New York 12-01 23:59:59.999
            "2026-12-02T05:00:00.000Z", // New York 12-02 00:00
        ];
        for stamp in stamps {
            push(&mut table, stamp, "a", TurnType::User, "prompt");
        }
        table.seal();
        // As zone.js gives a zone: from an instant on, an offset in seconds.
        let on = |day: &str, offset: i32, since: &str| RowFilter {
            since: since.into(),
            until: day.into(),
            zone_offsets: vec![(0, offset)],
            ..RowFilter::default()
        };
        let tokyo = 9 * 3600;
        assert_eq!(table.filter(&on("2026-12-01", tokyo, "2026-12-01")), [0]);
        assert_eq!(table.filter(&on("2026-12-02", tokyo, "2026-12-02")), [1, 2, 3]);
        let new_york = -5 * 3600;
        assert_eq!(table.filter(&on("2026-12-01", new_york, "2026-12-01")), [0, 1, 2]);
        assert_eq!(table.filter(&on("2026-12-02", new_york, "2026-12-02")), [3]);
        assert_eq!(table.filter(&on("2026-12-02", new_york, "2026-11-26")), [0, 1, 2, 3], "seven days");
        let utc = RowFilter { since: "2026-12-02".into(), until: "2026-12-02".into(), ..RowFilter::default() };
        assert_eq!(table.filter(&utc), [2, 3], "no zone: UTC days");
        // A zone whose offset goes from +01:00 to 00:00 at 22:00 UTC on 12-01.
        let changing = vec![(0, 3600), (crate::time::parse_millis("2026-12-01T22:00:00Z").unwrap(), 0)];
        let day = |day: &str| crate::time::parse_day(day).unwrap();
        let zone = Zone::Offsets(ZoneOffsets(changing).kept());
        assert_eq!(crate::time::format_millis(day_start(zone, day("2026-12-01"))), "2026-11-30T23:00:00.000Z");
        assert_eq!(crate::time::format_millis(day_start(zone, day("2026-12-02"))), "2026-12-02T00:00:00.000Z");
    }

    #[test]
    fn prompts_only_keeps_the_user_turns_and_finds_the_search_in_them() {
        let mut table = RowTable::default();
        push(&mut table, "2026-10-01T00:00:00.000Z", "a", TurnType::User, "please touch a file");
        push(&mut table, "2026-10-01T00:00:01.000Z", "a", TurnType::ToolUse, "touch a.txt");
        push(&mut table, "2026-10-01T00:00:02.000Z", "b", TurnType::User, "read it");
        table.seal();
        let search = |prompts_only| RowFilter { search: "TOUCH".into(), prompts_only, ..RowFilter::default() };
        assert_eq!(table.filter(&search(false)), [0, 1]);
        assert_eq!(table.filter(&search(true)), [0]);
        assert_eq!(table.filter(&RowFilter { prompts_only: true, ..RowFilter::default() }), [0, 2]);
        assert_eq!(table.session(0), Some("a"));
    }

    #[test]
    fn long_log_texts_keep_their_start_and_a_locator() {
        let mut table = RowTable::default();
        let long = "é".repeat(INLINE_TEXT);
        let locator = LineLocator { file: 3, offset: 120, ordinal: 1 };
        for with_locator in [true, false] {
            let locator = with_locator.then_some(locator);
            table.push(&Row { locator, ..row("2026-10-02T01:00:00Z", "a", TurnType::ToolResult, &long) });
        }
        let cut = table.row(0).unwrap();
        assert_eq!((cut.text.len(), table.cut_text(0)), (INLINE_TEXT, Some(locator)));
        assert_eq!(cut.timestamp_utc, "2026-10-02T01:00:00Z", "a non-canonical stamp is kept as written");
        assert_eq!((table.row(1).unwrap().text, table.cut_text(1)), (long, None));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]

        /// Every text comes back as stored, however the arena's chunks fill, a text longer
        /// than a chunk among them, and whichever tables are appended.
        #[test]
        fn every_text_comes_back_across_chunks_and_appended_tables(
            logs in proptest::collection::vec(
                proptest::collection::vec((0usize..3000, proptest::bool::weighted(0.02)), 0..200), 1..6),
        ) {
            let mut table = RowTable::default();
            let mut expected = Vec::new();
            for (number, texts) in logs.iter().enumerate() {
                let mut log = RowTable::default();
                for (at, &(length, huge)) in texts.iter().enumerate() {
                    let length = if huge { CHUNK / 4 + length } else { length };
                    let text = char::from(b'a' + (at % 26) as u8).to_string().repeat(length);
                    push(&mut log, "", &number.to_string(), TurnType::User, &text);
                    expected.push(text);
                }
                if number == 0 { table = log } else { table.append(log) }
            }
            let texts: Vec<String> = (0..expected.len() as u32).map(|index| table.row(index).unwrap().text).collect();
            proptest::prop_assert_eq!(texts, expected);
        }
    }

    #[test]
    fn appended_tables_keep_their_rows_names_and_cut_texts() {
        let long = "x".repeat(INLINE_TEXT + 1);
        let locator = |file| Some(LineLocator { file, offset: 7, ordinal: 0 });
        let mut table = RowTable::default();
        push(&mut table, "2026-10-02T00:00:00Z", "a", TurnType::User, "first");
        let mut log = RowTable::default();
        push(&mut log, "", "b", TurnType::System, "other session");
        log.push(&Row { locator: locator(4), ..row("2026-10-03T00:00:00.000Z", "a", TurnType::ToolResult, &long) });
        table.append(log);
        let rows: Vec<(String, String, String)> = (0..3)
            .map(|index| table.row(index).unwrap())
            .map(|row| (row.session_id, row.timestamp_utc, row.text))
            .collect();
        let expected = [
            ("a", "2026-10-02T00:00:00Z", "first"),
            ("b", "", "other session"),
            ("a", "2026-10-03T00:00:00.000Z", &long[..INLINE_TEXT]),
        ]
        .map(|(session, at, text)| (session.to_string(), at.to_string(), text.to_string()));
        assert_eq!(rows, expected);
        assert_eq!((table.cut_text(1), table.cut_text(2)), (None, locator(4)), "the locator moves with its row");
        assert_eq!(table.facets().sessions, ["a", "b"], "a name both tables hold is kept once");
    }

    #[test]
    fn marks_and_agents_are_kept_and_served() {
        let mut table = RowTable::default();
        let rows = [
            ("other-agent", TurnType::System, "permission decision: denied-by-rules", RowMark::PermissionDenied),
            (AGENT, TurnType::System, "permission mode: manual agent=interactive", RowMark::PermissionSetting),
            (AGENT, TurnType::System, "model: a -> b", RowMark::ModelChange),
            (AGENT, TurnType::User, "permission please", RowMark::Plain),
            (AGENT, TurnType::System, "parser: unparseable line (not a JSON object): x", RowMark::BadLine),
        ];
        for (agent, turn_type, text, mark) in rows {
            table.push(&Row { agent, mark, ..row("2026-10-02T00:00:00.000Z", "a", turn_type, text) });
        }
        table.seal();
        for (index, (agent, _, text, mark)) in rows.into_iter().enumerate() {
            let index = index as u32;
            let row = table.row(index).unwrap();
            assert_eq!((row.agent.as_str(), row.text.as_str(), table.mark(index)), (agent, text, Some(mark)));
        }
        assert_eq!(table.mark(rows.len() as u32), None);
        let bad = RowFilter { marks: vec![RowMark::BadLine], ..RowFilter::default() };
        assert_eq!(table.filter(&bad), [4]);
        let permissions =
            RowFilter { marks: vec![RowMark::PermissionDenied, RowMark::PermissionSetting], ..RowFilter::default() };
        assert_eq!(table.filter(&permissions), [0, 1]);
        assert_eq!(table.facets().sessions, ["a"], "an agent's name is no session");
        assert_eq!(table.facets().agents, [AGENT, "other-agent"]);
    }

    #[test]
    fn filters_by_agent() {
        let mut table = RowTable::default();
        for (agent, session) in [("copilot-vscode", "v"), (AGENT, "c"), ("copilot-vscode", "v")] {
            table.push(&Row { agent, ..row("2026-10-02T00:00:00.000Z", session, TurnType::User, "prompt") });
        }
        table.seal();
        let only = |agent: &str| RowFilter { agent: agent.into(), ..RowFilter::default() };
        assert_eq!(table.filter(&only("copilot-vscode")), [0, 2]);
        assert_eq!(table.filter(&only(AGENT)), [1]);
        assert_eq!(table.filter(&only("")), [0, 1, 2], "no agent: every row");
        assert!(table.filter(&only("another")).is_empty(), "an agent no row has: none");
        assert!(table.filter(&only("v")).is_empty(), "a session's id is no agent");
        let both = RowFilter { session_id: "c".into(), ..only("copilot-vscode") };
        assert!(table.filter(&both).is_empty(), "the agent and the other filters all apply");
        assert_eq!(table.facets().agents, [AGENT, "copilot-vscode"]);
        let filter: RowFilter = serde_json::from_str(r#"{"agent":"copilot-vscode"}"#).unwrap();
        assert_eq!(filter, only("copilot-vscode"));
    }

    #[test]
    fn marks_are_served_in_snake_case() {
        let names = [
            (RowMark::Plain, "plain"),
            (RowMark::FailedToolResult, "failed_tool_result"),
            (RowMark::PermissionRequest, "permission_request"),
            (RowMark::PermissionDenied, "permission_denied"),
            (RowMark::PermissionGranted, "permission_granted"),
            (RowMark::PermissionDecision, "permission_decision"),
            (RowMark::PermissionSetting, "permission_setting"),
            (RowMark::ModelChange, "model_change"),
            (RowMark::BadLine, "bad_line"),
            (RowMark::SessionSynced, "session_synced"),
            (RowMark::ScratchDirectory, "scratch_directory"),
        ];
        for (mark, name) in names {
            assert_eq!(serde_json::to_value(mark).unwrap(), name);
            assert_eq!(serde_json::from_value::<RowMark>(name.into()).unwrap(), mark);
        }
        let filter: RowFilter = serde_json::from_str(r#"{"marks":["bad_line"]}"#).unwrap();
        assert_eq!(filter.marks, [RowMark::BadLine]);
    }
}
