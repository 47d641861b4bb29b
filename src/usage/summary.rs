//! Usage entries grouped, priced and flagged: the rows of `usage.jsonl`, `usage.csv` and the
//! `usage` command, and each session's figure for `sessions.jsonl`.

use std::collections::BTreeMap;
use std::io;

use chrono::NaiveDate;
use serde::Serialize;

use super::counters::Recorded;
use super::credits::{CreditsUsed, EntryCredits, counts, entry_credits, price};
use super::ledger::{AMBIGUOUS_RESUME, IMPLAUSIBLE_COUNTER, SESSION_TOTAL_ABOVE_MODELS, SessionLedger, Shares};
use super::plausible::IMPLAUSIBLE_DATE;
use super::rates::RateTable;
use super::{Entries, Entry, EntryKey, Kind, NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT, TokenColumns, Tokens};

/// How usage rows are grouped. Parsed once, by its name (`day`, `month`, ...), for the CLI's
/// `--by` and the page's requests alike.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum GroupBy {
    #[default]
    Day,
    Month,
    Session,
    Model,
    /// The home (machine) the session was found in.
    Home,
    /// The session's project (empty when none is known).
    Project,
    /// The main agent against each sub-agent, from the shutdowns' `agentMetrics` (sessions
    /// that do not write them, and VS Code chats, are the main agent's).
    Subagent,
    /// The agent (`copilot-cli`, ...): every other grouping adds the agents up.
    Agent,
    /// The program the session was run from (`github/cli`, the Copilot app's `github/autopilot`,
    /// ...: workspace.yaml's `client_name`); empty where none says (VS Code's chats).
    Client,
    /// The calls that answered requests against those Copilot made for a purpose of its own (a
    /// chat's title, summaries), which VS Code's debug logs name.
    Purpose,
}

impl GroupBy {
    pub const ALL: [GroupBy; 10] = [
        GroupBy::Day,
        GroupBy::Month,
        GroupBy::Session,
        GroupBy::Model,
        GroupBy::Home,
        GroupBy::Project,
        GroupBy::Subagent,
        GroupBy::Agent,
        GroupBy::Client,
        GroupBy::Purpose,
    ];

    /// Its name as serde spells it (a test checks they agree), for `--by`'s help.
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Day => "day",
            GroupBy::Month => "month",
            GroupBy::Session => "session",
            GroupBy::Model => "model",
            GroupBy::Home => "home",
            GroupBy::Project => "project",
            GroupBy::Subagent => "subagent",
            GroupBy::Agent => "agent",
            GroupBy::Client => "client",
            GroupBy::Purpose => "purpose",
        }
    }

    /// Whether the grouping needs more than the logs' counter lines: a session's project and
    /// client are read from its other files (a usage-only run reads none).
    pub fn needs_every_file(self) -> bool {
        matches!(self, GroupBy::Project | GroupBy::Client)
    }

    /// The name of the column that holds the group, none when grouping by model or by agent
    /// (the `agent` column, which every row has, holds it).
    pub fn column(self) -> Option<&'static str> {
        match self {
            GroupBy::Day => Some("day"),
            GroupBy::Month => Some("month"),
            GroupBy::Session => Some("session_id"),
            GroupBy::Home => Some("home"),
            GroupBy::Project => Some("project_path"),
            GroupBy::Subagent => Some("subagent"),
            GroupBy::Client => Some("client"),
            GroupBy::Purpose => Some("purpose"),
            GroupBy::Model | GroupBy::Agent => None,
        }
    }
}

/// `--by`'s parser: serde's, as the page's requests are read.
impl std::str::FromStr for GroupBy {
    type Err = String;

    fn from_str(name: &str) -> Result<GroupBy, String> {
        use serde::de::IntoDeserializer;
        let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> = name.into_deserializer();
        serde::Deserialize::deserialize(name).map_err(|error| error.to_string())
    }
}

/// Days to keep, both ends included, the one agent to keep (every agent when none), and
/// whether rows keep the agents apart (the files and JSON rows: one row per agent) rather than
/// add them up (the tables people read: one figure per day and model, CLI and editor together).
#[derive(Clone, Copy, Debug, Default)]
pub struct DayRange {
    pub since: Option<NaiveDate>,
    pub until: Option<NaiveDate>,
    pub agent: Option<&'static str>,
    pub agents_apart: bool,
}

impl DayRange {
    pub fn contains(&self, day: NaiveDate) -> bool {
        self.since.is_none_or(|since| day >= since) && self.until.is_none_or(|until| day <= until)
    }

    fn keeps(&self, agent: &str) -> bool {
        self.agent.is_none_or(|kept| kept == agent)
    }
}

/// One usage row. At most one of its group columns (`day`, `month`, `session_id`, `home`,
/// `project_path`, `subagent`, `client`, `purpose`) is set, by the grouping (none when grouping by model
/// or agent). Written flat, in the fields' order (`Serialize` below), an absent group left
/// out.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct UsageRow {
    #[cfg_attr(test, ts(optional))]
    pub day: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub month: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub session_id: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub home: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub project_path: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub subagent: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub client: Option<String>,
    /// `request` for calls that answered requests, else the purpose of Copilot's own the calls
    /// were made for (`GroupBy::Purpose`).
    #[cfg_attr(test, ts(optional))]
    pub purpose: Option<String>,
    /// The agent whose figures the row adds up; empty when it adds up several agents' (one
    /// day and model used by two agents), which `GroupBy::Agent` splits.
    pub agent: &'static str,
    pub model: String,
    #[cfg_attr(test, ts(flatten))]
    pub tokens: TokenColumns,
    /// The estimate at the published rates (Auto's discount applied; none for BYOK calls).
    pub cost_usd_micros: Option<u64>,
    pub cost_ai_credits: Option<f64>,
    /// What Copilot itself recorded as billed (10^9 to the AI credit): none when it recorded
    /// nothing. Beside the estimate, never mixed into it.
    pub recorded_nano_aiu: Option<u64>,
    /// Premium requests Copilot recorded (legacy plans).
    pub premium_requests: Option<f64>,
    /// AI credits used: as recorded where Copilot recorded them, else estimated; `credits_from`
    /// says which (`recorded`, `estimated`, or `both` for a row of each kind of entry).
    pub credits: Option<f64>,
    pub credits_from: &'static str,
    /// `no_rate`, `partial`, `recovered`, `long_context` (some calls priced at the higher tier),
    /// `implausible_counter` (a counter that cannot be a token count was left out, not added),
    /// `implausible_date` (on a day before 2020 or after tomorrow: left out of the month),
    /// `byok` (calls made with the person's own key: GitHub does not bill them), `auto` (Auto
    /// chose the model: its discount is applied), `differs` (the estimate and the recorded
    /// amount differ by more than 5%), `ambiguous_resume` (a resumed session whose counters may
    /// have restarted with each process: the counted row is the lower reading, the
    /// `ambiguous_resume` kind what the upper one adds), `session_total_above_models` (credits a
    /// shutdown's session-wide totals hold above its per-model ones: a process that ended
    /// without a shutdown), `compaction` (tokens of compactions, which a shutdown's usage
    /// counters leave out, counted from the tokens it says were billed).
    pub flags: Vec<&'static str>,
    /// What the figures rest on (the `partial` and `recovered` flags say it in the files).
    /// Not written: a row's kind is where it is (`UsageTable::totals`).
    #[cfg_attr(test, ts(skip))]
    pub kind: Kind,
}

impl UsageRow {
    /// The row's group: its day, month, session or home (none when grouping by model or agent).
    pub fn group(&self) -> Option<&str> {
        self.groups().into_iter().flat_map(|(_, group)| group).next().map(String::as_str)
    }

    /// The group columns by name: at most one is set.
    fn groups(&self) -> [(&'static str, &Option<String>); 8] {
        [
            ("day", &self.day),
            ("month", &self.month),
            ("session_id", &self.session_id),
            ("home", &self.home),
            ("project_path", &self.project_path),
            ("subagent", &self.subagent),
            ("client", &self.client),
            ("purpose", &self.purpose),
        ]
    }
}

/// By hand, for the token columns flat among the others (`TokenColumns::serialize_fields`).
impl Serialize for UsageRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let groups = self.groups();
        let fields = groups.iter().filter(|(_, group)| group.is_some()).count() + 9 + TokenColumns::NAMES.len();
        let mut row = serializer.serialize_struct("UsageRow", fields)?;
        for (name, group) in groups {
            match group {
                Some(group) => row.serialize_field(name, group)?,
                None => row.skip_field(name)?,
            }
        }
        row.serialize_field("agent", self.agent)?;
        row.serialize_field("model", &self.model)?;
        self.tokens.serialize_fields(&mut row)?;
        row.serialize_field("cost_usd_micros", &self.cost_usd_micros)?;
        row.serialize_field("cost_ai_credits", &self.cost_ai_credits)?;
        row.serialize_field("recorded_nano_aiu", &self.recorded_nano_aiu)?;
        row.serialize_field("premium_requests", &self.premium_requests)?;
        row.serialize_field("credits", &self.credits)?;
        row.serialize_field("credits_from", self.credits_from)?;
        row.serialize_field("flags", &self.flags)?;
        row.end()
    }
}

/// Rows and their totals, per kind of figure (counted, partial, recovered), and the headline
/// figure over the same entries: credits used, by the one rule (`credits`).
#[derive(Clone, Debug, Serialize)]
pub struct UsageTable {
    pub rows: Vec<UsageRow>,
    /// The total the headline gives: every figure that counts by the one rule (`credits::counts`:
    /// from session totals, unfinished sessions and deleted ones), whose parts `totals` gives.
    pub grand_total: UsageRow,
    pub totals: BTreeMap<Kind, UsageRow>,
    pub credits_used: CreditsUsed,
    /// Grouped by project: each project's credits used, in the rows' order (the most first).
    pub project_credits: Vec<(String, CreditsUsed)>,
}

impl UsageTable {
    /// What the flags its rows and totals carry mean, in the legend's order (`flags::legend_of`).
    pub fn flag_legend(&self) -> Vec<&'static super::flags::Flag> {
        super::flags::legend_of(self.rows.iter().chain(self.totals.values()).flat_map(|row| row.flags.iter().copied()))
    }
}

/// How far an estimate may be from the recorded amount before the row says so (5%).
const DIFFERS_ABOVE: u128 = 20;

#[derive(Default)]
struct Accumulator {
    tokens: Tokens,
    nanos: u128,
    unpriced: bool,
    long: bool,
    implausible: bool,
    recorded: crate::usage::counters::Recorded,
    /// Credits used by the rule (`credits`): the estimate of what Copilot recorded nothing
    /// for, in nano-dollars, whether there is any, and whether some of it has no rate.
    estimated_nanos: u128,
    estimated: bool,
    estimate_unpriced: bool,
    byok: bool,
    auto: bool,
    implausible_date: bool,
    ambiguous: bool,
    above_models: bool,
    compaction: bool,
    /// The agent of every entry added, empty once two differ.
    agent: Option<&'static str>,
}

/// What an entry costs (`price`, `entry_credits`), worked out once for every total it is added
/// to: each looks its model's rate up.
struct Priced {
    nanos: Option<u128>,
    credits: EntryCredits,
}

impl Priced {
    fn of(rates: &RateTable, model: &str, entry: &Entry) -> Self {
        Priced { nanos: price(rates, model, entry), credits: entry_credits(rates, model, entry) }
    }
}

impl Accumulator {
    fn add(&mut self, agent: &'static str, entry: &Entry, priced: &Priced) {
        self.agent = match self.agent {
            Some(seen) if seen != agent => Some(""),
            _ => Some(agent),
        };
        self.tokens.add(&entry.tokens);
        self.long |= !entry.long.is_zero();
        self.implausible |= entry.implausible || entry.recorded.implausible;
        self.recorded.add(&entry.recorded);
        self.byok |= entry.byok;
        self.auto |= entry.auto;
        self.implausible_date |= entry.implausible_date;
        self.ambiguous |= entry.ambiguous;
        self.above_models |= entry.above_models;
        self.compaction |= entry.compaction;
        match priced.nanos {
            Some(nanos) => self.nanos += nanos,
            None => self.unpriced = true,
        }
        let credits = &priced.credits;
        self.estimated |= credits.estimated;
        self.estimate_unpriced |= credits.unpriced;
        self.estimated_nanos += credits.estimated_nanos;
    }

    /// Adds `entry` to the total the headline gives, if it counts (`credits::counts`: not the
    /// upper reading of an ambiguous resume, nor usage on a day it cannot be on, which is said).
    fn add_to_headline_total(&mut self, agent: &'static str, key: &EntryKey, entry: &Entry, priced: &Priced) {
        if counts(key, entry) {
            self.add(agent, entry, priced);
        } else {
            self.implausible_date |= entry.implausible_date;
        }
    }

    /// Adds `entry` to a total: usage on a day it cannot be on is left out of it, and said.
    fn add_to_total(&mut self, agent: &'static str, entry: &Entry, priced: &Priced) {
        if entry.implausible_date {
            self.implausible_date = true;
        } else {
            self.add(agent, entry, priced);
        }
    }

    /// Credits: recorded plus the estimate of what was not recorded (none when that cannot be
    /// priced), to the hundredth.
    fn credits(&self) -> Option<f64> {
        if self.estimate_unpriced {
            return None;
        }
        let recorded = self.recorded.nano_aiu.unwrap_or(0) as f64 / NANO_AIU_PER_CREDIT;
        let credits = recorded + self.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT;
        Some((credits * 100.0).round() / 100.0)
    }

    fn row(&self, model: String, kind: Kind) -> UsageRow {
        let agent = self.agent.unwrap_or_default();
        let micros = (!self.unpriced).then(|| u64::try_from((self.nanos + 500) / 1000).unwrap_or(u64::MAX));
        let mut flags = Vec::new();
        if self.unpriced {
            flags.push("no_rate");
        }
        match kind {
            Kind::Partial => flags.push("partial"),
            Kind::Recovered => flags.push("recovered"),
            Kind::Counted | Kind::AmbiguousResume => {}
        }
        if self.ambiguous {
            flags.push(AMBIGUOUS_RESUME);
        }
        if self.above_models {
            flags.push(SESSION_TOTAL_ABOVE_MODELS);
        }
        if self.compaction {
            flags.push("compaction");
        }
        if self.long {
            flags.push("long_context");
        }
        if self.implausible {
            flags.push(IMPLAUSIBLE_COUNTER);
        }
        if self.implausible_date {
            flags.push(IMPLAUSIBLE_DATE);
        }
        if self.byok {
            flags.push("byok");
        }
        if self.auto {
            flags.push("auto");
        }
        if let (Some(recorded), false) = (self.recorded.nano_aiu, self.unpriced) {
            // The estimate of the calls Copilot recorded credits for, against what it recorded.
            let nano_aiu_per_nano_dollar = (NANO_AIU_PER_CREDIT / NANO_DOLLARS_PER_CREDIT) as u128;
            let recorded_part = self.nanos.saturating_sub(self.estimated_nanos);
            let (estimate, recorded) = (recorded_part * nano_aiu_per_nano_dollar, u128::from(recorded));
            if estimate.abs_diff(recorded) * DIFFERS_ABOVE > recorded {
                flags.push("differs");
            }
        }
        UsageRow {
            day: None,
            month: None,
            session_id: None,
            home: None,
            project_path: None,
            subagent: None,
            purpose: None,
            client: None,
            agent,
            model,
            tokens: self.tokens.columns(),
            cost_usd_micros: micros,
            cost_ai_credits: micros.map(|micros| (micros as f64 / 100.0).round() / 100.0),
            recorded_nano_aiu: self.recorded.nano_aiu,
            premium_requests: self.recorded.premium_milli.map(|milli| milli as f64 / 1000.0),
            credits: self.credits(),
            credits_from: match (self.recorded.nano_aiu.is_some(), self.estimated) {
                (true, true) => "both",
                (true, false) => "recorded",
                (false, _) => "estimated",
            },
            flags,
            kind,
        }
    }
}

/// One session's entries with what groups them.
pub struct SessionEntries<'a> {
    pub id: &'a str,
    pub agent: &'static str,
    /// The label of the home it was found in.
    pub home: &'a str,
    pub project: &'a str,
    /// The program it was run from (`GroupBy::Client`).
    pub client: &'a str,
    pub entries: &'a Entries,
}

/// Groups the entries of every session by the group asked for and model, adding the agents
/// up unless grouping by agent. Rows come by group (projects by credits used, the most first),
/// model and kind, so a day's partial and recovered rows sit with its counted ones.
pub fn summarize<'a>(
    sessions: impl Iterator<Item = SessionEntries<'a>>,
    rates: &RateTable,
    by: GroupBy,
    range: DayRange,
) -> UsageTable {
    // By group, the agent when grouping by agent (else empty: the agents are added up), model
    // and kind: a day's partial and recovered rows sit with its counted ones. Usage on a day it
    // cannot be on is a row of its own, so that a row counts in credits used, or not, whole
    // (`credits::counts`).
    let mut groups: BTreeMap<(String, &'static str, String, Kind, bool), Accumulator> = BTreeMap::new();
    // Each project's credits used, which rank the projects.
    let mut project_credits: BTreeMap<String, CreditsUsed> = BTreeMap::new();
    let mut totals: BTreeMap<Kind, Accumulator> = BTreeMap::new();
    let mut grand_total = Accumulator::default();
    let mut credits_used = CreditsUsed::default();
    // The totals' agent: the one agent of every session, or none when they differ.
    let mut agents = std::collections::BTreeSet::new();
    for SessionEntries { id: session_id, agent, home, project, client, entries } in
        sessions.filter(|s| range.keeps(s.agent))
    {
        agents.insert(agent);
        for (key, entry) in entries.iter().filter(|(key, _)| range.contains(key.day)) {
            let group = match by {
                GroupBy::Day => key.day.to_string(),
                GroupBy::Month => crate::time::month_text(key.day),
                GroupBy::Session => session_id.to_string(),
                GroupBy::Home => home.to_string(),
                GroupBy::Project => project.to_string(),
                GroupBy::Client => client.to_string(),
                GroupBy::Subagent | GroupBy::Purpose => unreachable!("shares are summarized by summarize_shares"),
                GroupBy::Model | GroupBy::Agent => String::new(),
            };
            let split = if by == GroupBy::Agent || range.agents_apart { agent } else { "" };
            let priced = Priced::of(rates, &key.model, entry);
            if by == GroupBy::Project {
                project_credits.entry(group.clone()).or_default().add_credits(key, entry, &priced.credits);
            }
            let slot = (group, split, key.model.clone(), key.kind, entry.implausible_date);
            groups.entry(slot).or_default().add(agent, entry, &priced);
            totals.entry(key.kind).or_default().add_to_total(agent, entry, &priced);
            grand_total.add_to_headline_total(agent, key, entry, &priced);
            credits_used.add_credits(key, entry, &priced.credits);
        }
    }
    let mut rows: Vec<UsageRow> = groups
        .into_iter()
        .map(|((group, _, model, kind, _), accumulator)| {
            let mut row = accumulator.row(model, kind);
            match by {
                GroupBy::Day => row.day = Some(group),
                GroupBy::Month => row.month = Some(group),
                GroupBy::Session => row.session_id = Some(group),
                GroupBy::Home => row.home = Some(group),
                GroupBy::Project => row.project_path = Some(group),
                GroupBy::Client => row.client = Some(group),
                GroupBy::Subagent | GroupBy::Purpose | GroupBy::Model | GroupBy::Agent => {}
            }
            row
        })
        .collect();
    // The project that used the most credits first, a project's rows together; ties keep the
    // name order (the sorts are stable).
    // (`order::sort_by`: one copy of the sort in the page's WebAssembly.)
    let credits = |project: &str| project_credits.get(project).map_or(0.0, |used| used.credits);
    if by == GroupBy::Project {
        let group = |row: &UsageRow| credits(row.group().unwrap_or_default());
        crate::order::sort_by(&mut rows, |a, b| group(b).total_cmp(&group(a)));
    }
    let mut ranked: Vec<(String, CreditsUsed)> = project_credits.into_iter().collect();
    crate::order::sort_by(&mut ranked, |(_, a), (_, b)| b.credits.total_cmp(&a.credits));
    let project_credits = ranked;
    let agent = if agents.len() == 1 { agents.first().copied().unwrap_or_default() } else { "" };
    let totals = totals
        .into_iter()
        .map(|(kind, accumulator)| (kind, UsageRow { agent, ..accumulator.row(String::new(), kind) }))
        .collect();
    let grand_total = UsageRow { agent, ..grand_total.row(String::new(), Kind::Counted) };
    UsageTable { rows, grand_total, totals, credits_used, project_credits }
}

/// The figures by share (`Subagent`: the main agent, or a sub-agent by its name; `Purpose`: the
/// calls that answered requests, or a purpose of Copilot's own) and model: each share of the
/// counted figures (a sub-agent's from the shutdowns' `agentMetrics` or its debug log, a
/// purpose's from the debug logs' calls), at most what its day and model counted
/// (`take_share`); the rest is the main agent's or the requests', as are the figures of
/// sessions that name no share and partial, recovered and ambiguous figures, so that the totals
/// are plain usage's whatever the shares say.
pub fn summarize_shares<'a>(
    ledgers: impl Iterator<Item = &'a SessionLedger>,
    rates: &RateTable,
    by: GroupBy,
    range: DayRange,
) -> UsageTable {
    let (rest, shares_of): (&str, fn(&SessionLedger) -> Option<&Shares>) = match by {
        GroupBy::Purpose => ("request", |ledger| ledger.purposes.as_deref()),
        _ => ("main", |ledger| ledger.agents.as_deref()),
    };
    // By share, model and kind, as `summarize` orders its rows.
    // As `summarize`'s: usage on a day it cannot be on is a row of its own.
    let mut groups: BTreeMap<(String, String, Kind, bool), Accumulator> = BTreeMap::new();
    let mut totals: BTreeMap<Kind, Accumulator> = BTreeMap::new();
    let mut grand_total = Accumulator::default();
    let mut credits_used = CreditsUsed::default();
    let mut add = |kind: Kind, label: &str, agent: &'static str, model: &str, entry: &Entry| {
        let priced = Priced::of(rates, model, entry);
        let slot = (label.to_string(), model.to_string(), kind, entry.implausible_date);
        groups.entry(slot).or_default().add(agent, entry, &priced);
        totals.entry(kind).or_default().add_to_total(agent, entry, &priced);
    };
    for ledger in ledgers.filter(|ledger| range.keeps(ledger.agent)) {
        for (key, entry) in ledger.entries.iter().filter(|(key, _)| range.contains(key.day)) {
            let priced = Priced::of(rates, &key.model, entry);
            credits_used.add_credits(key, entry, &priced.credits);
            grand_total.add_to_headline_total(ledger.agent, key, entry, &priced);
            let mut main = *entry;
            let shares = shares_of(ledger).filter(|_| key.kind == Kind::Counted);
            let shares = shares.into_iter().flat_map(|shares| shares.of(key.day, &key.model));
            let mut shared = false;
            for (label, share) in shares {
                let taken = take_share(&mut main, share);
                if !is_nothing(&taken) {
                    shared = true;
                    add(Kind::Counted, label, ledger.agent, &key.model, &taken);
                }
            }
            if !(shared && is_nothing(&main)) {
                add(key.kind, rest, ledger.agent, &key.model, &main);
            }
        }
    }
    let rows = groups
        .into_iter()
        .map(|((label, model, kind, _), accumulator)| {
            let mut row = accumulator.row(model, kind);
            match by {
                GroupBy::Purpose => row.purpose = Some(label),
                _ => row.subagent = Some(label),
            }
            row
        })
        .collect();
    let totals = totals.into_iter().map(|(kind, accumulator)| (kind, accumulator.row(String::new(), kind))).collect();
    let grand_total = grand_total.row(String::new(), Kind::Counted);
    UsageTable { rows, grand_total, totals, credits_used, project_credits: Vec::new() }
}

/// A sub-agent's share of a counted entry, taken from what remains of it: at most that, part by
/// part (requests, fresh input, cache reads, cache writes, output besides reasoning, reasoning,
/// so that each part stays a whole record and the two add up to the entry), with the entry's
/// flags; its billed figures at most the entry's. A share the logs got wrong (above the day's
/// count, of a model not counted) can take no more than there is.
fn take_share(remaining: &mut Entry, share: &Entry) -> Entry {
    let tokens = share.tokens.parts_min(&remaining.tokens);
    let long = tokens.parts_min(&remaining.long);
    remaining.tokens = remaining.tokens.parts_less(&tokens);
    remaining.long = remaining.long.parts_less(&long);
    let take = |have: &mut Option<u64>, asked: Option<u64>| {
        let (have, asked) = (have.as_mut()?, asked?);
        let taken = asked.min(*have);
        *have -= taken;
        Some(taken)
    };
    let recorded = Recorded {
        nano_aiu: take(&mut remaining.recorded.nano_aiu, share.recorded.nano_aiu),
        premium_milli: take(&mut remaining.recorded.premium_milli, share.recorded.premium_milli),
        implausible: remaining.recorded.implausible,
    };
    Entry { tokens, long, recorded, unrecorded: Tokens::default(), unrecorded_long: Tokens::default(), ..*remaining }
}

/// Whether an entry holds no tokens and no billed figure.
fn is_nothing(entry: &Entry) -> bool {
    entry.tokens.is_zero() && entry.recorded.is_zero()
}

/// The sessions (by id) whose ledgers carry `flag`, such as `implausible_counter`.
pub fn sessions_flagged<'a>(ledgers: &'a BTreeMap<String, SessionLedger>, flag: &str) -> Vec<&'a str> {
    ledgers.iter().filter(|(_, ledger)| ledger.flags.contains(flag)).map(|(id, _)| id.as_str()).collect()
}

/// A session's usage for sessions.jsonl: the counted figure when there is one, else the
/// partial lower bound, else the recovered figure; `unknown` when nothing counts it.
/// Written flat, in the fields' order (`Serialize` below; its type for the page follows it).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SessionUsage {
    /// `counted` (shutdown checkpoints), `partial`, `recovered` or `unknown`.
    pub source: &'static str,
    #[cfg_attr(test, ts(flatten))]
    pub tokens: TokenColumns,
    pub cost_usd_micros: Option<u64>,
    /// Sums of the per-call records, for reconciliation with the counted figure.
    pub per_call: Option<Tokens>,
    /// What the upper reading adds when the CLI's version cannot tell whether the shutdowns
    /// restart their counters on resume (flag `ambiguous_resume`; the figure is the lower one);
    /// left out when none.
    #[cfg_attr(test, ts(optional))]
    pub ambiguous_resume_adds: Option<Tokens>,
    pub checkpoints: u64,
    pub flags: Vec<String>,
}

/// By hand, for the token columns flat among the others (`TokenColumns::serialize_fields`).
impl Serialize for SessionUsage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let fields = 5 + TokenColumns::NAMES.len() + usize::from(self.ambiguous_resume_adds.is_some());
        let mut usage = serializer.serialize_struct("SessionUsage", fields)?;
        usage.serialize_field("source", self.source)?;
        self.tokens.serialize_fields(&mut usage)?;
        usage.serialize_field("cost_usd_micros", &self.cost_usd_micros)?;
        usage.serialize_field("per_call", &self.per_call)?;
        match &self.ambiguous_resume_adds {
            Some(adds) => usage.serialize_field("ambiguous_resume_adds", adds)?,
            None => usage.skip_field("ambiguous_resume_adds")?,
        }
        usage.serialize_field("checkpoints", &self.checkpoints)?;
        usage.serialize_field("flags", &self.flags)?;
        usage.end()
    }
}

pub fn session_usage(ledger: &SessionLedger, rates: &RateTable) -> SessionUsage {
    let kind = [Kind::Counted, Kind::Partial, Kind::Recovered]
        .into_iter()
        .find(|kind| ledger.entries.iter().any(|(key, _)| key.kind == *kind));
    let mut accumulator = Accumulator::default();
    let mut models = Vec::new();
    for (key, entry) in ledger.entries.iter().filter(|(key, _)| Some(key.kind) == kind) {
        accumulator.add(ledger.agent, entry, &Priced::of(rates, &key.model, entry));
        if rates.lookup(&key.model).is_none() && !models.contains(&key.model) {
            models.push(key.model.clone());
        }
    }
    let source = match kind {
        Some(Kind::Counted | Kind::AmbiguousResume) => "counted",
        Some(Kind::Partial) => "partial",
        Some(Kind::Recovered) => "recovered",
        None if ledger.checkpoints > 0 => "counted",
        None => "unknown",
    };
    let row = UsageRow { agent: ledger.agent, ..accumulator.row(String::new(), kind.unwrap_or(Kind::Counted)) };
    let mut flags: Vec<String> = ledger.flags.iter().map(|flag| flag.to_string()).collect();
    flags.extend(models.iter().map(|model| format!("no_rate:{model}")));
    SessionUsage {
        source,
        tokens: row.tokens,
        cost_usd_micros: if source == "unknown" { None } else { row.cost_usd_micros },
        per_call: (ledger.calls.requests > 0).then_some(ledger.calls),
        ambiguous_resume_adds: ledger.flags.contains(AMBIGUOUS_RESUME).then(|| {
            let mut adds = Tokens::default();
            for (_, entry) in ledger.entries.iter().filter(|(key, _)| key.kind == Kind::AmbiguousResume) {
                adds.add(&entry.tokens);
            }
            adds
        }),
        checkpoints: ledger.checkpoints,
        flags,
    }
}

/// The rows as CSV, flags joined with `;`; a text that would open as a formula is written as text
/// (`csv_cells`).
pub fn write_csv(rows: &[UsageRow], by: GroupBy, out: impl io::Write) -> io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let mut header: Vec<&str> = by.column().into_iter().collect();
    header.extend(["agent", "model"]);
    header.extend(TokenColumns::NAMES);
    header.extend([
        "cost_usd_micros",
        "cost_ai_credits",
        "recorded_nano_aiu",
        "premium_requests",
        "credits",
        "credits_from",
        "flags",
    ]);
    writer.write_record(&header)?;
    // The texts as text, whatever they start with; the figures as written.
    let text = |cell: &str| crate::csv_cells::text(cell).into_owned();
    for row in rows {
        let mut record = Vec::new();
        if let Some(key) = row.group() {
            record.push(text(key));
        }
        record.push(text(row.agent));
        record.push(text(&row.model));
        for count in row.tokens.values() {
            record.push(count.to_string());
        }
        record.push(row.cost_usd_micros.map(|c| c.to_string()).unwrap_or_default());
        record.push(row.cost_ai_credits.map(|c| c.to_string()).unwrap_or_default());
        record.push(row.recorded_nano_aiu.map(|n| n.to_string()).unwrap_or_default());
        record.push(row.premium_requests.map(|p| p.to_string()).unwrap_or_default());
        record.push(row.credits.map(|c| c.to_string()).unwrap_or_default());
        record.push(text(row.credits_from));
        record.push(text(&row.flags.join(";")));
        writer.write_record(&record)?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::EntryKey;

    /// A session of `agent` in the home "home", run from `client`.
    fn session<'a>(
        id: &'a str,
        agent: &'static str,
        project: &'a str,
        client: &'a str,
        entries: &'a Entries,
    ) -> SessionEntries<'a> {
        SessionEntries { id, agent, home: "home", project, client, entries }
    }

    /// Counted entries of `(day, model, input, output)`.
    fn entries(records: &[(&str, &str, u64, u64)]) -> Entries {
        let counted: Vec<_> =
            records.iter().map(|&(day, model, input, output)| (day, model, input, output, Kind::Counted)).collect();
        entries_of(&counted)
    }

    /// Entries of `(day, model, input, output, kind)`.
    fn entries_of(records: &[(&str, &str, u64, u64, Kind)]) -> Entries {
        let mut entries = Entries::default();
        for &(day, model, input, output, kind) in records {
            let key = EntryKey { day: day.parse().unwrap(), model: model.to_string(), kind };
            let tokens = Tokens { requests: 1, input, output, ..Tokens::default() };
            entries.add(key, &Entry { tokens, ..Entry::default() });
        }
        entries
    }

    /// One counted row of `entry` for claude-sonnet-4 (3.00 in, 15.00 out per million).
    fn row_of(entry: Entry) -> UsageRow {
        let mut entries = Entries::default();
        let key = EntryKey { day: "2026-10-01".parse().unwrap(), model: "claude-sonnet-4".into(), kind: Kind::Counted };
        entries.add(key, &entry);
        let sessions = [session("s", "copilot-cli", "", "", &entries)];
        summarize(sessions.into_iter(), &RateTable::default_table(), GroupBy::Day, DayRange::default()).rows.remove(0)
    }

    #[test]
    fn byok_is_not_billed_auto_is_discounted_and_a_recorded_amount_far_off_is_flagged() {
        use crate::usage::counters::Recorded;
        // 1,000,000 input at 3.00 and 100,000 output at 15.00: 3.00 + 1.50 = 4.50 USD, 450 credits.
        let tokens = Tokens { requests: 1, input: 1_000_000, output: 100_000, ..Tokens::default() };
        let recorded = |credits: u64| Recorded {
            nano_aiu: Some(credits * 1_000_000_000),
            premium_milli: Some(1500),
            implausible: false,
        };
        let plain = row_of(Entry { tokens, recorded: recorded(450), ..Entry::default() });
        assert_eq!(
            (plain.cost_usd_micros, plain.recorded_nano_aiu, plain.premium_requests),
            (Some(4_500_000), Some(450_000_000_000), Some(1.5))
        );
        assert_eq!(plain.flags, Vec::<&str>::new(), "estimate and record agree");
        // 5% off is still the same figure; more is flagged.
        assert_eq!(row_of(Entry { tokens, recorded: recorded(429), ..Entry::default() }).flags, Vec::<&str>::new());
        assert_eq!(row_of(Entry { tokens, recorded: recorded(428), ..Entry::default() }).flags, ["differs"]);
        // Auto: 10% off the estimate, 405 credits, which the record of 405 matches.
        let auto = row_of(Entry { tokens, recorded: recorded(405), auto: true, ..Entry::default() });
        assert_eq!((auto.cost_usd_micros, auto.flags), (Some(4_050_000), vec!["auto"]));
        // BYOK: the tokens stay, GitHub bills nothing.
        let byok = row_of(Entry { tokens, recorded: recorded(0), byok: true, ..Entry::default() });
        assert_eq!((byok.tokens.total, byok.cost_usd_micros, byok.flags), (1_100_000, Some(0), vec!["byok"]));
        // Nothing recorded: no record, no comparison.
        let unrecorded = row_of(Entry { tokens, ..Entry::default() });
        assert_eq!((unrecorded.recorded_nano_aiu, unrecorded.premium_requests, unrecorded.flags), (None, None, vec![]));
    }

    #[test]
    fn usage_on_a_day_it_cannot_be_on_is_a_row_of_its_own_and_out_of_the_headline_total() {
        let key = EntryKey { day: "2026-10-01".parse().unwrap(), model: "claude-sonnet-4".into(), kind: Kind::Counted };
        let tokens = Tokens { requests: 1, input: 1_000_000, ..Tokens::default() };
        let (mut plausible, mut implausible) = (Entries::default(), Entries::default());
        plausible.add(key.clone(), &Entry { tokens, ..Entry::default() });
        implausible.add(key, &Entry { tokens, implausible_date: true, ..Entry::default() });
        let sessions = [
            session("s1", "copilot-cli", "/p", "github/cli", &plausible),
            session("s2", "copilot-cli", "/p", "github/cli", &implausible),
        ];
        let table = summarize(sessions.into_iter(), &RateTable::default_table(), GroupBy::Day, DayRange::default());
        let rows: Vec<_> = table.rows.iter().map(|row| (row.tokens.total, row.flags.clone())).collect();
        assert_eq!(rows, [(1_000_000, vec![]), (1_000_000, vec![IMPLAUSIBLE_DATE])], "the same day and model, apart");
        // 1,000,000 input at 3.00 per million: 300 credits, the plausible row's alone.
        assert_eq!(table.rows[0].credits, Some(300.0));
        assert_eq!((table.grand_total.credits, table.credits_used.credits), (Some(300.0), 300.0));
        assert_eq!(table.grand_total.flags, [IMPLAUSIBLE_DATE], "what was left out is said");
    }

    /// Two agents' sessions: both used `claude-sonnet-4` on 2026-10-01.
    fn table(by: GroupBy, range: DayRange) -> UsageTable {
        let cli = entries(&[("2026-10-01", "claude-sonnet-4", 100, 10), ("2026-10-02", "claude-sonnet-4.5", 200, 20)]);
        let vscode = entries(&[("2026-10-01", "claude-sonnet-4", 1000, 100)]);
        let sessions = [
            session("s1", "copilot-cli", "/p", "github/cli", &cli),
            session("s2", "copilot-vscode", "/p", "", &vscode),
        ];
        summarize(sessions.into_iter(), &RateTable::default_table(), by, range)
    }

    fn shown(table: &UsageTable) -> Vec<(Option<&str>, &str, &str, u64)> {
        table.rows.iter().map(|row| (row.group(), row.agent, row.model.as_str(), row.tokens.total)).collect()
    }

    #[test]
    fn agents_are_added_up_per_group_and_model_unless_split() {
        let by_day = table(GroupBy::Day, DayRange::default());
        assert_eq!(
            shown(&by_day),
            [
                (Some("2026-10-01"), "", "claude-sonnet-4", 1210),
                (Some("2026-10-02"), "copilot-cli", "claude-sonnet-4.5", 220)
            ],
            "one row per day and model; a row of two agents names none"
        );
        let by_model = table(GroupBy::Model, DayRange::default());
        assert_eq!(
            shown(&by_model),
            [(None, "", "claude-sonnet-4", 1210), (None, "copilot-cli", "claude-sonnet-4.5", 220)]
        );
        let by_client = table(GroupBy::Client, DayRange::default());
        assert_eq!(
            shown(&by_client),
            [
                (Some(""), "copilot-vscode", "claude-sonnet-4", 1100),
                (Some("github/cli"), "copilot-cli", "claude-sonnet-4", 110),
                (Some("github/cli"), "copilot-cli", "claude-sonnet-4.5", 220)
            ],
            "a VS Code chat names no client"
        );
        let by_agent = table(GroupBy::Agent, DayRange::default());
        assert_eq!(
            shown(&by_agent),
            [
                (None, "copilot-cli", "claude-sonnet-4", 110),
                (None, "copilot-cli", "claude-sonnet-4.5", 220),
                (None, "copilot-vscode", "claude-sonnet-4", 1100)
            ]
        );
        for table in [&by_day, &by_model, &by_agent, &by_client] {
            let counted = &table.totals[&Kind::Counted];
            assert_eq!(
                (counted.agent, counted.tokens.total, counted.tokens.requests),
                ("", 1430, 3),
                "the same totals"
            );
            let rows: u64 = table.rows.iter().map(|row| row.cost_usd_micros.unwrap()).sum();
            assert_eq!(counted.cost_usd_micros, Some(rows));
        }
        let mut csv = Vec::new();
        write_csv(&by_agent.rows, GroupBy::Agent, &mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(csv.starts_with("agent,model,requests,"), "the agent column holds the group: {csv}");
        assert!(csv.contains("\ncopilot-vscode,claude-sonnet-4,1,"));
    }

    #[test]
    fn one_agent_is_kept_when_asked() {
        let only = |agent| DayRange { agent: Some(agent), ..DayRange::default() };
        let vscode = table(GroupBy::Day, only("copilot-vscode"));
        assert_eq!(shown(&vscode), [(Some("2026-10-01"), "copilot-vscode", "claude-sonnet-4", 1100)]);
        assert_eq!(vscode.totals[&Kind::Counted].agent, "copilot-vscode");
        let cli = table(GroupBy::Month, DayRange { since: "2026-10-02".parse().ok(), ..only("copilot-cli") });
        assert_eq!(shown(&cli), [(Some("2026-10"), "copilot-cli", "claude-sonnet-4.5", 220)]);
        assert!(table(GroupBy::Day, only("another")).rows.is_empty());
    }

    #[test]
    fn a_days_partial_and_recovered_rows_sit_with_its_counted_ones() {
        let live = entries_of(&[
            ("2026-10-02", "claude-sonnet-4", 100, 10, Kind::Partial),
            ("2026-10-01", "claude-sonnet-4", 100, 10, Kind::Counted),
            ("2026-10-02", "claude-sonnet-4", 300, 30, Kind::Counted),
            ("2026-10-01", "claude-sonnet-4", 10, 1, Kind::Partial),
        ]);
        let deleted = entries_of(&[("2026-10-01", "gpt-5-mini", 1000, 100, Kind::Recovered)]);
        let sessions = [
            session("live", "copilot-cli", "/p", "github/cli", &live),
            session("deleted", "copilot-cli", "/p", "github/cli", &deleted),
        ];
        let table = summarize(sessions.into_iter(), &RateTable::default_table(), GroupBy::Day, DayRange::default());
        let order: Vec<_> = table.rows.iter().map(|row| (row.group().unwrap(), row.model.as_str(), row.kind)).collect();
        assert_eq!(
            order,
            [
                ("2026-10-01", "claude-sonnet-4", Kind::Counted),
                ("2026-10-01", "claude-sonnet-4", Kind::Partial),
                ("2026-10-01", "gpt-5-mini", Kind::Recovered),
                ("2026-10-02", "claude-sonnet-4", Kind::Counted),
                ("2026-10-02", "claude-sonnet-4", Kind::Partial),
            ]
        );
        // The total is the headline's: its parts added, tokens and credits alike.
        let parts: Vec<&UsageRow> = table.totals.values().collect();
        let total = &table.grand_total;
        assert_eq!(total.tokens.total, parts.iter().map(|part| part.tokens.total).sum::<u64>());
        assert_eq!(total.tokens.total, 1000 + 100 + 100 + 10 + 300 + 30 + 10 + 1 + 100 + 10);
        assert_eq!(total.credits, Some(table.credits_used.credits));
        let parts_credits: f64 = parts.iter().map(|part| part.credits.unwrap()).sum();
        assert!((parts_credits - table.credits_used.credits).abs() < 0.015, "{parts_credits}");
    }

    #[test]
    fn projects_come_by_credits_used_the_most_first_each_with_its_rows_together() {
        // claude-sonnet-4 at 3.00 in per million tokens: 1,000,000 input is 300 credits.
        let small = entries(&[("2026-10-01", "claude-sonnet-4", 100_000, 0), ("2026-10-02", "gpt-5-mini", 10_000, 0)]);
        let large = entries_of(&[
            ("2026-10-01", "claude-sonnet-4", 1_000_000, 0, Kind::Counted),
            ("2026-10-03", "claude-sonnet-4", 1_000, 0, Kind::Partial),
        ]);
        // A project whose only figures are a partial session's: partial credits count too.
        let partial_only = entries_of(&[("2026-10-01", "claude-sonnet-4", 500_000, 0, Kind::Partial)]);
        // Two projects with the same credits keep their names' order.
        let tied = entries(&[("2026-10-01", "claude-sonnet-4", 100_000, 0), ("2026-10-03", "gpt-5-mini", 10_000, 0)]);
        let sessions = [
            session("a", "copilot-cli", "/a-small", "github/cli", &small),
            session("b", "copilot-cli", "/b-large", "github/cli", &large),
            session("c", "copilot-vscode", "/c-partial", "", &partial_only),
            session("d", "copilot-cli", "/0-tied", "github/cli", &tied),
        ];
        let table = summarize(sessions.into_iter(), &RateTable::default_table(), GroupBy::Project, DayRange::default());
        let order: Vec<_> =
            table.rows.iter().map(|row| (row.group().unwrap(), row.model.as_str(), row.kind, row.credits)).collect();
        assert_eq!(
            order,
            [
                ("/b-large", "claude-sonnet-4", Kind::Counted, Some(300.0)),
                ("/b-large", "claude-sonnet-4", Kind::Partial, Some(0.3)),
                ("/c-partial", "claude-sonnet-4", Kind::Partial, Some(150.0)),
                ("/0-tied", "claude-sonnet-4", Kind::Counted, Some(30.0)),
                ("/0-tied", "gpt-5-mini", Kind::Counted, Some(0.25)),
                ("/a-small", "claude-sonnet-4", Kind::Counted, Some(30.0)),
                ("/a-small", "gpt-5-mini", Kind::Counted, Some(0.25)),
            ]
        );
        let projects: Vec<_> =
            table.project_credits.iter().map(|(project, used)| (project.as_str(), used.credits)).collect();
        assert_eq!(projects, [("/b-large", 300.3), ("/c-partial", 150.0), ("/0-tied", 30.25), ("/a-small", 30.25)]);
    }
}
