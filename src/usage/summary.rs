//! Usage entries grouped, priced and flagged: the rows of `usage.jsonl`, `usage.csv` and the
//! `usage` command, and each session's figure for `sessions.jsonl`.

use std::collections::BTreeMap;
use std::io;

use chrono::NaiveDate;
use serde::Serialize;

use super::ledger::{IMPLAUSIBLE_COUNTER, SessionLedger};
use super::rates::RateTable;
use super::{Entries, Entry, Kind, Tokens};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroupBy {
    #[default]
    Day,
    Month,
    Session,
    Model,
    /// The home (machine) the session was found in.
    Home,
}

impl GroupBy {
    /// The name of the column that holds the group, none when grouping by model.
    pub fn column(self) -> Option<&'static str> {
        match self {
            GroupBy::Day => Some("day"),
            GroupBy::Month => Some("month"),
            GroupBy::Session => Some("session_id"),
            GroupBy::Home => Some("home"),
            GroupBy::Model => None,
        }
    }
}

/// Days to keep, both ends included.
#[derive(Clone, Copy, Debug, Default)]
pub struct DayRange {
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
}

impl DayRange {
    fn contains(&self, day: NaiveDate) -> bool {
        self.since.is_none_or(|since| day >= since) && self.until.is_none_or(|until| day <= until)
    }
}

/// One usage row. Exactly one of `day`, `month`, `session_id` and `home` is set, by the
/// grouping (none when grouping by model).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UsageRow {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub month: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
    pub agent: &'static str,
    pub model: String,
    pub requests: u64,
    /// Fresh input: input less cache reads and cache writes.
    pub input: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output: u64,
    pub reasoning: u64,
    pub total: u64,
    pub cost_usd_micros: Option<u64>,
    pub cost_ai_credits: Option<f64>,
    /// `no_rate`, `partial`, `recovered`, `long_context` (some calls priced at the higher tier),
    /// `implausible_counter` (a counter that cannot be a token count was left out, not added).
    pub flags: Vec<&'static str>,
}

impl UsageRow {
    /// The row's group: its day, month, session or home (none when grouping by model).
    pub fn group(&self) -> Option<&str> {
        [&self.day, &self.month, &self.session_id, &self.home].into_iter().flatten().next().map(String::as_str)
    }
}

/// Rows and their totals, per kind of figure (counted, partial, recovered).
#[derive(Clone, Debug, Serialize)]
pub struct UsageTable {
    pub rows: Vec<UsageRow>,
    pub totals: BTreeMap<Kind, UsageRow>,
}

/// The price of an entry in nano-dollars, or `None` when its model has no rate.
pub fn price(rates: &RateTable, model: &str, entry: &Entry) -> Option<u128> {
    let rate = rates.lookup(model)?;
    let long_tier = rate.long_context.map_or(rate.base, |long| long.tier);
    Some(rate.base.cost_nanos(&entry.tokens.minus(&entry.long)) + long_tier.cost_nanos(&entry.long))
}

#[derive(Default)]
struct Accumulator {
    tokens: Tokens,
    nanos: u128,
    unpriced: bool,
    long: bool,
    implausible: bool,
}

impl Accumulator {
    fn add(&mut self, rates: &RateTable, model: &str, entry: &Entry) {
        self.tokens.add(&entry.tokens);
        self.long |= !entry.long.is_zero();
        self.implausible |= entry.implausible;
        match price(rates, model, entry) {
            Some(nanos) => self.nanos += nanos,
            None => self.unpriced = true,
        }
    }

    fn row(&self, agent: &'static str, model: String, kind: Kind) -> UsageRow {
        let micros = (!self.unpriced).then(|| u64::try_from((self.nanos + 500) / 1000).unwrap_or(u64::MAX));
        let mut flags = Vec::new();
        if self.unpriced {
            flags.push("no_rate");
        }
        match kind {
            Kind::Partial => flags.push("partial"),
            Kind::Recovered => flags.push("recovered"),
            Kind::Counted => {}
        }
        if self.long {
            flags.push("long_context");
        }
        if self.implausible {
            flags.push(IMPLAUSIBLE_COUNTER);
        }
        UsageRow {
            day: None,
            month: None,
            session_id: None,
            home: None,
            agent,
            model,
            requests: self.tokens.requests,
            input: self.tokens.fresh_input(),
            cache_read: self.tokens.cache_read,
            cache_write: self.tokens.cache_write,
            output: self.tokens.output,
            reasoning: self.tokens.reasoning,
            total: self.tokens.total(),
            cost_usd_micros: micros,
            cost_ai_credits: micros.map(|micros| (micros as f64 / 100.0).round() / 100.0),
            flags,
        }
    }
}

/// Groups the entries of every session by the group asked for, agent and model. `sessions`
/// yields `(session id, agent, home label, entries)`.
pub fn summarize<'a>(
    sessions: impl Iterator<Item = (&'a str, &'static str, &'a str, &'a Entries)>,
    rates: &RateTable,
    by: GroupBy,
    range: DayRange,
) -> UsageTable {
    let mut groups: BTreeMap<(Kind, String, &'static str, String), Accumulator> = BTreeMap::new();
    let mut totals: BTreeMap<Kind, Accumulator> = BTreeMap::new();
    // The totals' agent: the one agent of every session, or none when they differ.
    let mut agents = std::collections::BTreeSet::new();
    for (session_id, agent, home, entries) in sessions {
        agents.insert(agent);
        for (key, entry) in entries.iter().filter(|(key, _)| range.contains(key.day)) {
            let group = match by {
                GroupBy::Day => key.day.to_string(),
                GroupBy::Month => key.day.format("%Y-%m").to_string(),
                GroupBy::Session => session_id.to_string(),
                GroupBy::Home => home.to_string(),
                GroupBy::Model => String::new(),
            };
            groups.entry((key.kind, group, agent, key.model.clone())).or_default().add(rates, &key.model, entry);
            totals.entry(key.kind).or_default().add(rates, &key.model, entry);
        }
    }
    // Counted rows first, then partial, then recovered; within each, by group and model.
    let rows = groups
        .into_iter()
        .map(|((kind, group, agent, model), accumulator)| {
            let mut row = accumulator.row(agent, model, kind);
            match by {
                GroupBy::Day => row.day = Some(group),
                GroupBy::Month => row.month = Some(group),
                GroupBy::Session => row.session_id = Some(group),
                GroupBy::Home => row.home = Some(group),
                GroupBy::Model => {}
            }
            row
        })
        .collect();
    let agent = if agents.len() == 1 { agents.first().copied().unwrap_or_default() } else { "" };
    let totals =
        totals.into_iter().map(|(kind, accumulator)| (kind, accumulator.row(agent, String::new(), kind))).collect();
    UsageTable { rows, totals }
}

/// The sessions (by id) whose ledgers carry `flag`, such as `implausible_counter`.
pub fn sessions_flagged<'a>(ledgers: &'a BTreeMap<String, SessionLedger>, flag: &str) -> Vec<&'a str> {
    ledgers.iter().filter(|(_, ledger)| ledger.flags.contains(flag)).map(|(id, _)| id.as_str()).collect()
}

/// A session's usage for sessions.jsonl: the counted figure when there is one, else the
/// partial lower bound, else the recovered figure; `unknown` when nothing counts it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SessionUsage {
    /// `counted` (shutdown checkpoints), `partial`, `recovered` or `unknown`.
    pub source: &'static str,
    pub requests: u64,
    pub input: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub output: u64,
    pub reasoning: u64,
    pub total: u64,
    pub cost_usd_micros: Option<u64>,
    /// Sums of the per-call records, for reconciliation with the counted figure.
    pub per_call: Option<Tokens>,
    pub checkpoints: u64,
    pub flags: Vec<String>,
}

pub fn session_usage(ledger: &SessionLedger, rates: &RateTable) -> SessionUsage {
    let kind = [Kind::Counted, Kind::Partial, Kind::Recovered]
        .into_iter()
        .find(|kind| ledger.entries.iter().any(|(key, _)| key.kind == *kind));
    let mut accumulator = Accumulator::default();
    let mut models = Vec::new();
    for (key, entry) in ledger.entries.iter().filter(|(key, _)| Some(key.kind) == kind) {
        accumulator.add(rates, &key.model, entry);
        if rates.lookup(&key.model).is_none() && !models.contains(&key.model) {
            models.push(key.model.clone());
        }
    }
    let source = match kind {
        Some(Kind::Counted) => "counted",
        Some(Kind::Partial) => "partial",
        Some(Kind::Recovered) => "recovered",
        None if ledger.checkpoints > 0 => "counted",
        None => "unknown",
    };
    let row = accumulator.row(ledger.agent, String::new(), kind.unwrap_or(Kind::Counted));
    let mut flags: Vec<String> = ledger.flags.iter().map(|flag| flag.to_string()).collect();
    flags.extend(models.iter().map(|model| format!("no_rate:{model}")));
    SessionUsage {
        source,
        requests: row.requests,
        input: row.input,
        cache_read: row.cache_read,
        cache_write: row.cache_write,
        output: row.output,
        reasoning: row.reasoning,
        total: row.total,
        cost_usd_micros: if source == "unknown" { None } else { row.cost_usd_micros },
        per_call: (ledger.calls.requests > 0).then_some(ledger.calls),
        checkpoints: ledger.checkpoints,
        flags,
    }
}

/// The rows as CSV, flags joined with `;`.
pub fn write_csv(rows: &[UsageRow], by: GroupBy, out: impl io::Write) -> io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let mut header: Vec<&str> = by.column().into_iter().collect();
    header.extend([
        "agent",
        "model",
        "requests",
        "input",
        "cache_read",
        "cache_write",
        "output",
        "reasoning",
        "total",
        "cost_usd_micros",
        "cost_ai_credits",
        "flags",
    ]);
    writer.write_record(&header)?;
    for row in rows {
        let mut record = Vec::new();
        if let Some(key) = row.group() {
            record.push(key.to_string());
        }
        record.push(row.agent.to_string());
        record.push(row.model.clone());
        for count in [row.requests, row.input, row.cache_read, row.cache_write, row.output, row.reasoning, row.total] {
            record.push(count.to_string());
        }
        record.push(row.cost_usd_micros.map(|c| c.to_string()).unwrap_or_default());
        record.push(row.cost_ai_credits.map(|c| c.to_string()).unwrap_or_default());
        record.push(row.flags.join(";"));
        writer.write_record(&record)?;
    }
    writer.flush()
}
