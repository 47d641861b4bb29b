//! One of GitHub's usage reports read as it streams in, keeping only the rows of the logins
//! asked for, summed by what a row of it is (day, login, organisation, SKU, model): memory is
//! the logins seen and those rows, never the report. No row costs more than `MAX_ROW_BYTES`
//! however long it is written.
//!
//! Taken as they come: any column order, a BOM, UTF-16 (by its byte-order mark), CRLF, quoted
//! fields, `;` as the separator with decimal commas, dates as a spreadsheet re-saves them
//! (`11/2/26`, or day first, told by the whole column), timestamps with a zone (their UTC day),
//! several rows for one day × model × login (summed), zero-quantity rows. A row that cannot be
//! read, or whose figure is not a plausible amount, is left out and named by its line.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, BufRead, BufReader, Read};

use chrono::NaiveDate;

use crate::lines::{utf16_as_utf8, without_bom};
use crate::scrub::scrub_start;
use crate::usage::counters::MAX_PLAUSIBLE_BILLED;
use crate::usage::credits::parse_grouped;
use crate::words::counted;

/// The longest row read (a report's rows are a few hundred bytes): a longer one is left out and
/// named, and costs no more memory than this.
pub const MAX_ROW_BYTES: usize = 64 << 10;
/// The most fields of a row kept (a report has about twenty).
const MAX_FIELDS: usize = 1024;
/// Bytes of a text from a report quoted in a message, at most.
const QUOTED_BYTES: usize = 40;
/// Rows left out named by their line, per report; the rest are counted.
const NAMED_ROWS: usize = 5;
/// The most days one report covers (GitHub's cover at most 31): how a column of dates that
/// reads both ways is told.
const REPORT_DAYS: i64 = 31;

/// Which report a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Format {
    /// From 2026-06-01: `quantity` is AI credits.
    AiCredits,
    /// Premium requests with the credits they would have cost (`aic_quantity`).
    Transition,
    /// Premium requests only: no credits to compare.
    PremiumRequests,
}

impl Format {
    /// As `usage --json`'s `bill.format` names it.
    pub fn name(self) -> &'static str {
        match self {
            Format::AiCredits => "ai_credits",
            Format::Transition => "transition",
            Format::PremiumRequests => "premium_requests",
        }
    }
}

/// What one row of a report is about: rows with the same are summed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RowKey<Day> {
    /// In lower case: GitHub's logins ignore case.
    pub login: String,
    pub day: Day,
    pub organization: String,
    pub sku: String,
    /// The model's display label as the report writes it ("Auto: " removed: `auto`).
    pub label: String,
    pub auto: bool,
}

/// A row's figures: credits (none in a premium-request report) and premium requests.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    pub credits: f64,
    pub requests: f64,
}

impl Figures {
    pub fn add(&mut self, other: Figures) {
        self.credits += other.credits;
        self.requests += other.requests;
    }
}

/// Whose rows are kept while reports are read: the logins asked for, else (none known) the
/// report's only login, until a second shows there is no such login.
pub struct Logins {
    /// Every login seen, by its lower case, as first written.
    pub seen: BTreeMap<String, String>,
    wanted: Option<BTreeSet<String>>,
}

impl Logins {
    /// `wanted` in any case; none: the only login's rows.
    pub fn new(wanted: Option<Vec<String>>) -> Logins {
        let wanted = wanted.map(|logins| logins.iter().map(|login| login.to_lowercase()).collect());
        Logins { seen: BTreeMap::new(), wanted }
    }

    /// Notes a row's login; whether its row is kept.
    fn see(&mut self, login: &str) -> bool {
        let lower = lower_case(login);
        if !self.seen.contains_key(lower.as_ref()) {
            self.seen.insert(lower.clone().into_owned(), login.to_string());
        }
        match &self.wanted {
            Some(wanted) => wanted.contains(lower.as_ref()),
            None => self.seen.len() == 1,
        }
    }

    /// Whether no row is kept any more: no login was asked for, and there are several.
    pub fn keep_none(&self) -> bool {
        self.wanted.is_none() && self.seen.len() > 1
    }
}

fn lower_case(text: &str) -> Cow<'_, str> {
    match text.chars().any(char::is_uppercase) {
        true => Cow::Owned(text.to_lowercase()),
        false => Cow::Borrowed(text),
    }
}

/// What a report gave.
pub struct ReportRead {
    pub format: Format,
    /// Its first and last day (of every login's rows).
    pub days: Option<(NaiveDate, NaiveDate)>,
    /// The rows of the logins kept, summed.
    pub rows: BTreeMap<RowKey<NaiveDate>, Figures>,
    /// Its rows, every login's.
    pub row_count: u64,
    /// What was found in it that a person should know, each naming the report.
    pub notes: Vec<String>,
    /// Each kept login's monthly allowance in credits (`total_monthly_quota` of its AI-credit
    /// rows), by its lower case.
    pub quotas: BTreeMap<String, f64>,
}

/// A text from a report as a message quotes it: its start, scrubbed of secrets, with its
/// control characters escaped.
pub fn quoted(text: &str) -> String {
    let scrubbed = scrub_start(text, QUOTED_BYTES);
    let cut = &scrubbed[..scrubbed.floor_char_boundary(QUOTED_BYTES)];
    let more = if cut.len() < scrubbed.len() { "…" } else { "" };
    format!("{cut:?}{more}")
}

/// A login as a message names it: as written when it can be a GitHub login (letters, digits
/// and hyphens, at most 39), else quoted.
pub fn login_shown(login: &str) -> String {
    match login.len() <= 39 && login.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        true => login.to_string(),
        false => quoted(login),
    }
}

/// Reads the report `name` from `reader`, keeping the rows of the logins `logins` keeps. `Err`
/// says why it is not a usage report.
pub fn read(name: &str, reader: impl Read, logins: &mut Logins) -> Result<ReportRead, String> {
    let mut input = BufReader::with_capacity(MAX_ROW_BYTES, utf16_as_utf8(reader));
    let unreadable = |error: io::Error| format!("{name} cannot be read: {error}");
    // The first line (as much of it as a row can be) tells the separator.
    let mut first_line = Vec::new();
    (&mut input).take(MAX_ROW_BYTES as u64).read_until(b'\n', &mut first_line).map_err(unreadable)?;
    let first_line = without_bom(&first_line).to_vec();
    let separator = separator(&first_line);
    let mut records = Records::new(io::Cursor::new(first_line).chain(input), separator);
    let header = match records.next().map_err(unreadable)? {
        None => return Err(format!("{name} is empty: not a GitHub usage report")),
        Some(record) if record.nul_only => {
            return Err(format!("{name} holds only NUL bytes (a file never written, or wiped): not a usage report"));
        }
        Some(Record { fields: None, .. }) => {
            return Err(format!(
                "{name} is not a GitHub usage report: its first line is longer than {} KiB",
                MAX_ROW_BYTES >> 10
            ));
        }
        Some(Record { fields: Some(fields), .. }) => fields.into_iter().map(Cow::into_owned).collect::<Vec<_>>(),
    };
    let columns = Columns::find(&header, name)?;
    let mut reading = Reading {
        name,
        columns,
        decimal_comma: separator != b',',
        logins,
        dates: BTreeSet::new(),
        rows: BTreeMap::new(),
        quotas: BTreeMap::new(),
        ai_credits: false,
        row_count: 0,
        left_out: LeftOut::default(),
        padding_from: None,
    };
    while let Some(record) = records.next().map_err(unreadable)? {
        reading.record(&record);
    }
    let mut notes = Vec::new();
    if separator != b',' {
        notes.push(format!(
            "{name} is separated by {:?}, not commas (as a spreadsheet saves it where the decimal mark is a comma): \
             read so, with decimal commas",
            char::from(separator)
        ));
    }
    Ok(reading.finish(notes))
}

/// The separator of a report: `,`, or `;` or a tab when its first line holds more of those
/// (as a spreadsheet saves a CSV where the decimal mark is a comma).
fn separator(line: &[u8]) -> u8 {
    let mut quoted = false;
    let mut counts = [0usize; 3];
    for byte in line {
        match byte {
            b'"' => quoted = !quoted,
            b',' if !quoted => counts[0] += 1,
            b';' if !quoted => counts[1] += 1,
            b'\t' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    let most = counts.iter().enumerate().max_by_key(|(at, count)| (**count, std::cmp::Reverse(*at)));
    [b',', b';', b'\t'][most.map_or(0, |(at, _)| at)]
}

/// A record as read: its fields, none when it is longer than `MAX_ROW_BYTES` (or has more than
/// `MAX_FIELDS` fields); the line it ends on; whether it is NUL bytes and nothing else.
struct Record<'a> {
    fields: Option<Vec<Cow<'a, str>>>,
    line: u64,
    nul_only: bool,
}

/// A report's records, each read into a buffer of `MAX_ROW_BYTES`.
struct Records<R> {
    input: R,
    parser: csv_core::Reader,
    bytes: Box<[u8]>,
    ends: Box<[usize]>,
}

impl<R: BufRead> Records<R> {
    fn new(input: R, separator: u8) -> Self {
        Records {
            input,
            parser: csv_core::ReaderBuilder::new().delimiter(separator).build(),
            bytes: vec![0; MAX_ROW_BYTES].into_boxed_slice(),
            ends: vec![0; MAX_FIELDS].into_boxed_slice(),
        }
    }

    fn next(&mut self) -> io::Result<Option<Record<'_>>> {
        let (mut written, mut ended, mut cut) = (0, 0, false);
        let (mut nul, mut other) = (false, false);
        loop {
            let input = self.input.fill_buf()?;
            let (result, read, wrote, ends) =
                self.parser.read_record(input, &mut self.bytes[written..], &mut self.ends[ended..]);
            let ended_line = input[..read].last() == Some(&b'\n');
            for byte in &self.bytes[written..written + wrote] {
                nul |= *byte == 0;
                other |= *byte != 0 && !byte.is_ascii_whitespace();
            }
            self.input.consume(read);
            (written, ended) = (written + wrote, ended + ends);
            match result {
                csv_core::ReadRecordResult::InputEmpty => {}
                // Read on to the record's end, keeping nothing of it.
                csv_core::ReadRecordResult::OutputFull => (written, cut) = (0, true),
                csv_core::ReadRecordResult::OutputEndsFull => (ended, cut) = (0, true),
                csv_core::ReadRecordResult::End => return Ok(None),
                csv_core::ReadRecordResult::Record => {
                    // The parser counts a line once its `\n` is read: a record ending on one is
                    // on the line before.
                    let line = self.parser.line() - u64::from(ended_line);
                    let fields = (!cut).then(|| {
                        let mut start = 0;
                        (self.ends[..ended].iter())
                            .map(|&end| {
                                let field = String::from_utf8_lossy(&self.bytes[start..end]);
                                start = end;
                                field
                            })
                            .collect()
                    });
                    return Ok(Some(Record { fields, line, nul_only: nul && !other }));
                }
            }
        }
    }
}

/// The columns a report can have, by their names in every generation (lower case).
struct Columns {
    day: usize,
    login: usize,
    model: usize,
    quantity: usize,
    sku: Option<usize>,
    unit_type: Option<usize>,
    aic_quantity: Option<usize>,
    organization: Option<usize>,
    quota: Option<usize>,
}

impl Columns {
    fn find(header: &[String], name: &str) -> Result<Columns, String> {
        let names: Vec<String> = header.iter().map(|cell| cell.trim().to_lowercase()).collect();
        let at = |aliases: &[&str]| names.iter().position(|name| aliases.contains(&name.as_str()));
        let required = [
            ("date", at(&["date", "timestamp"])),
            ("username", at(&["username", "user"])),
            ("model", at(&["model"])),
            ("quantity", at(&["quantity", "requests used"])),
        ];
        let missing: Vec<&str> = required.iter().filter(|(_, at)| at.is_none()).map(|(name, _)| *name).collect();
        if !missing.is_empty() {
            return Err(format!(
                "{name} is not a GitHub usage report: it lacks the columns {} (its first line: {})",
                missing.join(", "),
                quoted(&header.join(","))
            ));
        }
        let [day, login, model, quantity] = required.map(|(_, at)| at.unwrap_or_default());
        Ok(Columns {
            day,
            login,
            model,
            quantity,
            sku: at(&["sku"]),
            unit_type: at(&["unit_type"]),
            aic_quantity: at(&["aic_quantity"]),
            organization: at(&["organization"]),
            quota: at(&["total_monthly_quota", "total monthly quota"]),
        })
    }
}

/// A row's day as written: a day (a timestamp's UTC day), or `a/b/year`, whose month is told by
/// the whole column (`Order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DayWritten {
    Day(NaiveDate),
    Slashed { first: u32, second: u32, year: i32 },
}

/// Which part of `a/b/year` is the month.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    MonthFirst,
    DayFirst,
}

impl DayWritten {
    /// `2026-11-02`, a timestamp (on its UTC day when it has a zone), `15.11.2026` (day first),
    /// `2026/11/02`, or `11/2/26` and `11/2/2026` as a spreadsheet re-saves them.
    pub fn parse(text: &str) -> Option<DayWritten> {
        let text = text.trim();
        if let Some(day) = text.get(..10).and_then(crate::time::parse_day) {
            let utc = (text.len() > 10).then(|| crate::time::parse_millis(text)).flatten();
            let utc_day = utc.and_then(chrono::DateTime::from_timestamp_millis).map(|time| time.date_naive());
            return Some(DayWritten::Day(utc_day.unwrap_or(day)));
        }
        let date = text.split([' ', 'T']).next().unwrap_or_default();
        let separator = if date.contains('.') { '.' } else { '/' };
        let mut parts = date.split(separator).map(|part| part.trim().parse::<u32>().ok());
        let (a, b, c) = (parts.next()??, parts.next()??, parts.next()??);
        if parts.next().is_some() {
            return None;
        }
        let year = |year: u32| i32::try_from(if year < 100 { 2000 + year } else { year }).ok();
        match separator {
            _ if a >= 1000 => NaiveDate::from_ymd_opt(i32::try_from(a).ok()?, b, c).map(DayWritten::Day),
            '.' => NaiveDate::from_ymd_opt(year(c)?, b, a).map(DayWritten::Day),
            _ => {
                let written = DayWritten::Slashed { first: a, second: b, year: year(c)? };
                let readable = [Order::MonthFirst, Order::DayFirst].iter().any(|order| written.day(*order).is_some());
                readable.then_some(written)
            }
        }
    }

    pub fn day(self, order: Order) -> Option<NaiveDate> {
        match (self, order) {
            (DayWritten::Day(day), _) => Some(day),
            (DayWritten::Slashed { first, second, year }, Order::MonthFirst) => {
                NaiveDate::from_ymd_opt(year, first, second)
            }
            (DayWritten::Slashed { first, second, year }, Order::DayFirst) => {
                NaiveDate::from_ymd_opt(year, second, first)
            }
        }
    }
}

/// Which part of a report's `a/b/year` dates is the month, told by the whole column: the order
/// that reads every date, else the one whose days fit in one report; with what to say when it
/// is not GitHub's own order (month first), or cannot be told.
pub fn slash_order(dates: &BTreeSet<DayWritten>, name: &str) -> (Order, Option<String>) {
    let slashed: Vec<DayWritten> =
        dates.iter().copied().filter(|date| matches!(date, DayWritten::Slashed { .. })).collect();
    let Some(example) = slashed.first().copied() else { return (Order::MonthFirst, None) };
    let reads_all = |order: Order| slashed.iter().all(|date| date.day(order).is_some());
    let fits = |order: Order| {
        let days: Vec<NaiveDate> = slashed.iter().filter_map(|date| date.day(order)).collect();
        let span = |first: Option<&NaiveDate>, last: Option<&NaiveDate>| {
            first.zip(last).map_or(0, |(first, last)| (*last - *first).num_days())
        };
        reads_all(order) && span(days.iter().min(), days.iter().max()) < REPORT_DAYS
    };
    let written = |date: DayWritten| match date {
        DayWritten::Slashed { first, second, year } => format!("{first:02}/{second:02}/{year}"),
        DayWritten::Day(day) => day.to_string(),
    };
    let day_first = || {
        let day = example.day(Order::DayFirst).map_or_else(String::new, |day| day.to_string());
        let note = format!("{name} writes its dates day first ({} is {day}): read as day/month/year", written(example));
        (Order::DayFirst, Some(note))
    };
    match (reads_all(Order::MonthFirst), reads_all(Order::DayFirst)) {
        (false, true) => day_first(),
        (true, false) => (Order::MonthFirst, None),
        (false, false) => (
            Order::MonthFirst,
            Some(format!(
                "{name} writes its dates in two orders (month first and day first): the rows whose date is not \
                 month/day/year are left out"
            )),
        ),
        (true, true) => match (fits(Order::MonthFirst), fits(Order::DayFirst)) {
            (true, false) => (Order::MonthFirst, None),
            (false, true) => day_first(),
            _ => {
                let day = example.day(Order::MonthFirst).map_or_else(String::new, |day| day.to_string());
                let note = format!(
                    "{name} writes its dates so that they read both ways ({} can be month/day or day/month): read as \
                     month/day/year, GitHub's order ({} is {day}); if that is wrong, save the report with dates as \
                     YYYY-MM-DD",
                    written(example),
                    written(example)
                );
                (Order::MonthFirst, Some(note))
            }
        },
    }
}

/// A quantity as written (`parse_grouped`: decimal commas in a report separated by `;`);
/// empty is 0. None when it is not a number.
fn quantity(text: &str, decimal_comma: bool) -> Option<f64> {
    match text.trim() {
        "" => Some(0.0),
        text => parse_grouped(text, decimal_comma),
    }
}

/// Why an amount cannot be one, by the logs' rule (`MAX_PLAUSIBLE_BILLED`); none when it can.
fn implausible(amount: f64) -> Option<&'static str> {
    match amount {
        amount if !amount.is_finite() => Some("is not a finite number"),
        amount if amount < 0.0 => Some("is negative"),
        amount if amount > MAX_PLAUSIBLE_BILLED => Some("is above 10^9, beyond any use"),
        _ => None,
    }
}

/// The rows left out of a report: the first named by line, the rest counted.
#[derive(Default)]
struct LeftOut {
    named: Vec<String>,
    more: u64,
}

impl LeftOut {
    fn add(&mut self, message: impl FnOnce() -> String) {
        match self.named.len() < NAMED_ROWS {
            true => self.named.push(message()),
            false => self.more += 1,
        }
    }
}

/// A report being read.
struct Reading<'a> {
    name: &'a str,
    columns: Columns,
    decimal_comma: bool,
    logins: &'a mut Logins,
    /// Every date written, every login's: the report's days, and which order its slashed
    /// dates are in.
    dates: BTreeSet<DayWritten>,
    rows: BTreeMap<RowKey<DayWritten>, Figures>,
    quotas: BTreeMap<String, f64>,
    ai_credits: bool,
    row_count: u64,
    left_out: LeftOut,
    /// The line NUL bytes start on (a file padded with zeros).
    padding_from: Option<u64>,
}

impl Reading<'_> {
    fn record(&mut self, record: &Record) {
        let name = self.name;
        let line = record.line;
        if record.nul_only {
            self.padding_from.get_or_insert(line);
            return;
        }
        let Some(fields) = &record.fields else {
            let message = format!("{name} line {line} is longer than {} KiB: left out", MAX_ROW_BYTES >> 10);
            return self.left_out.add(|| message);
        };
        if fields.iter().all(|cell| cell.trim().is_empty()) {
            return;
        }
        self.row_count += 1;
        let cell = |at: usize| fields.get(at).map_or("", |cell| cell.as_ref()).trim();
        let sku = self.columns.sku.map_or("copilot_premium_request", cell);
        let is_credits = sku.ends_with("_ai_credit") || self.columns.unit_type.map_or("", cell) == "ai-credits";
        self.ai_credits |= is_credits;
        let day = DayWritten::parse(cell(self.columns.day));
        if let Some(day) = day {
            self.dates.insert(day);
        }
        if !self.logins.see(cell(self.columns.login)) {
            if self.logins.keep_none() {
                self.rows.clear();
                self.quotas.clear();
            }
            return;
        }
        // A seat's allowance, in credits on an AI-credit row (a premium-request row's counts
        // requests); the largest of its rows.
        let quota = self.columns.quota.filter(|_| is_credits).and_then(|at| quantity(cell(at), self.decimal_comma));
        if let Some(quota) = quota.filter(|quota| *quota > 0.0 && implausible(*quota).is_none()) {
            let slot = self.quotas.entry(lower_case(cell(self.columns.login)).into_owned()).or_default();
            *slot = slot.max(quota);
        }
        let Some(day) = day else {
            let written = quoted(cell(self.columns.day));
            return self.left_out.add(|| format!("{name} line {line}: the date {written} cannot be read: left out"));
        };
        // Err: the column, what it holds and why that is no amount (worded only if named).
        let figure = |at: usize, column: &'static str| {
            let written = cell(at);
            let why = match quantity(written, self.decimal_comma) {
                None => "is not a number",
                Some(amount) => match implausible(amount) {
                    None => return Ok(amount),
                    Some(why) => why,
                },
            };
            Err((column, written, why))
        };
        let amount = figure(self.columns.quantity, "quantity");
        let figures = match (is_credits, self.columns.aic_quantity) {
            (true, _) => amount.map(|credits| Figures { credits, requests: 0.0 }),
            (false, Some(at)) => {
                amount.and_then(|requests| Ok(Figures { credits: figure(at, "aic_quantity")?, requests }))
            }
            (false, None) => amount.map(|requests| Figures { credits: 0.0, requests }),
        };
        let figures = match figures {
            Ok(figures) => figures,
            Err((column, written, why)) => {
                let message = || format!("{name} line {line}: the {column} {} {why}: left out", quoted(written));
                return self.left_out.add(message);
            }
        };
        let written = cell(self.columns.model);
        let (label, auto) = match written.strip_prefix("Auto:") {
            Some(rest) => (rest.trim(), true),
            None => (written, false),
        };
        let key = RowKey {
            login: lower_case(cell(self.columns.login)).into_owned(),
            day,
            organization: self.columns.organization.map_or("", cell).to_string(),
            sku: sku.to_string(),
            label: label.to_string(),
            auto,
        };
        self.rows.entry(key).or_default().add(figures);
    }

    /// The report read: its slashed dates put in their order, what was left out said.
    fn finish(self, mut notes: Vec<String>) -> ReportRead {
        let name = self.name;
        let (order, said) = slash_order(&self.dates, name);
        notes.extend(said);
        let days: Vec<NaiveDate> = self.dates.iter().filter_map(|date| date.day(order)).collect();
        let mut rows: BTreeMap<RowKey<NaiveDate>, Figures> = BTreeMap::new();
        let mut undated = 0;
        for (key, figures) in self.rows {
            let Some(day) = key.day.day(order) else {
                undated += 1;
                continue;
            };
            let key = RowKey {
                login: key.login,
                day,
                organization: key.organization,
                sku: key.sku,
                label: key.label,
                auto: key.auto,
            };
            rows.entry(key).or_default().add(figures);
        }
        if undated > 0 {
            notes.push(format!(
                "{name}: {} whose date is not a day in that order left out",
                counted(undated, "row", "rows")
            ));
        }
        notes.extend(self.left_out.named);
        if self.left_out.more > 0 {
            let more = self.left_out.more;
            notes.push(format!("{name}: {} left out, for the same reasons", counted(more, "more row", "more rows")));
        }
        if let Some(line) = self.padding_from {
            notes.push(format!(
                "{name} is padded with NUL bytes from line {line} (as a copy or download cut short leaves a file): \
                 they are ignored"
            ));
        }
        if self.row_count == 0 {
            notes.push(format!("{name} has the columns of a usage report and no rows"));
        }
        let format = match (self.ai_credits, self.columns.aic_quantity) {
            (true, _) => Format::AiCredits,
            (false, Some(_)) => Format::Transition,
            (false, None) => Format::PremiumRequests,
        };
        ReportRead {
            format,
            days: days.iter().min().copied().zip(days.iter().max().copied()),
            rows,
            row_count: self.row_count,
            notes,
            quotas: self.quotas,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str, order: Order) -> Option<String> {
        DayWritten::parse(text).and_then(|day| day.day(order)).map(|day| day.to_string())
    }

    #[test]
    fn dates_are_read_as_written_as_spreadsheets_resave_them_and_on_their_utc_day() {
        let month_first = |text| day(text, Order::MonthFirst);
        assert_eq!(month_first("2026-11-02"), Some("2026-11-02".into()));
        assert_eq!(month_first("2026-11-02T00:00:00Z"), Some("2026-11-02".into()));
        assert_eq!(month_first("2026-11-02T23:30:00-05:00"), Some("2026-11-03".into()));
        assert_eq!(month_first("2026-11-03T00:30:00+01:00"), Some("2026-11-02".into()));
        assert_eq!(month_first("2026-11-02 23:30:00"), Some("2026-11-02".into()));
        assert_eq!(month_first("11/2/26"), Some("2026-11-02".into()));
        assert_eq!(month_first("11/2/2026"), Some("2026-11-02".into()));
        assert_eq!(month_first("2026/11/02"), Some("2026-11-02".into()));
        assert_eq!(month_first("02.11.2026"), Some("2026-11-02".into()));
        assert_eq!(day("15/11/2026", Order::DayFirst), Some("2026-11-15".into()));
        assert_eq!((DayWritten::parse("2/30/26"), DayWritten::parse("soon")), (None, None));
        assert_eq!(DayWritten::parse("1/2/3/4"), None);
    }

    fn order_of(dates: &[&str]) -> (Order, Option<String>) {
        let dates: BTreeSet<DayWritten> = dates.iter().filter_map(|text| DayWritten::parse(text)).collect();
        slash_order(&dates, "r.csv")
    }

    #[test]
    fn the_order_of_slashed_dates_is_told_by_the_whole_column() {
        // A day above 12 first: day first, said.
        let (order, note) = order_of(&["02/11/2026", "15/11/2026"]);
        assert_eq!(order, Order::DayFirst);
        assert!(note.unwrap().contains("day first (02/11/2026 is 2026-11-02)"));
        // GitHub's order, silently.
        assert_eq!(order_of(&["11/02/2026", "11/15/2026"]), (Order::MonthFirst, None));
        // Both read, one fits in a report: 1-12 November, not twelve months.
        assert_eq!(order_of(&["01/11/2026", "02/11/2026", "12/11/2026"]).0, Order::DayFirst);
        assert_eq!(order_of(&["10/6/26", "10/7/26", "10/10/26"]), (Order::MonthFirst, None));
        // One date that reads both ways: month first, and said.
        let (order, note) = order_of(&["02/11/2026"]);
        assert_eq!(order, Order::MonthFirst);
        assert!(note.unwrap().contains("read both ways (02/11/2026 can be month/day or day/month)"));
        // ISO dates only: nothing to tell.
        assert_eq!(order_of(&["2026-11-02"]), (Order::MonthFirst, None));
    }

    #[test]
    fn quantities_are_read_with_their_grouping_and_decimal_mark() {
        assert_eq!(quantity("1,234.5", false), Some(1234.5));
        assert_eq!(quantity("1.917", false), Some(1.917));
        assert_eq!(quantity("", false), Some(0.0));
        assert_eq!(quantity("1,5", true), Some(1.5));
        assert_eq!(quantity("1.234,5", true), Some(1234.5));
        assert_eq!(quantity("1 234,5", true), Some(1234.5));
        assert_eq!(quantity("1.917", true), Some(1.917));
        assert_eq!(quantity("1,5", false), None, "a comma that groups groups three digits");
        assert_eq!(quantity("lots", false), None);
        assert_eq!(quantity("-3", false).and_then(implausible), Some("is negative"));
        assert_eq!(quantity("1e308", false).and_then(implausible), Some("is above 10^9, beyond any use"));
        assert_eq!(quantity("NaN", false).and_then(implausible), Some("is not a finite number"));
        assert_eq!(quantity("inf", false).and_then(implausible), Some("is not a finite number"));
        assert_eq!(quantity("1e9", false).and_then(implausible), None);
    }

    #[test]
    fn the_separator_is_the_first_lines_most_common() {
        assert_eq!(separator(b"date,username,model;x\n"), b',');
        assert_eq!(separator(b"date;username;model;\"a,b\"\r\n"), b';');
        assert_eq!(separator(b"date\tusername\tmodel"), b'\t');
        assert_eq!(separator(b""), b',');
    }

    #[test]
    fn a_quoted_text_is_its_start_escaped_and_scrubbed() {
        assert_eq!(quoted("short"), "\"short\"");
        let long = "x".repeat(10_000_000);
        assert_eq!(quoted(&long), format!("{:?}…", "x".repeat(QUOTED_BYTES)));
        assert_eq!(quoted("\u{1b}]0;title\u{7}"), "\"\\u{1b}]0;title\\u{7}\"");
        let token = format!("ghp_{}", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
        assert!(!quoted(&token).contains("a1B2c3D4"), "{}", quoted(&token));
    }
}
