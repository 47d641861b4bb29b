//! The report to share: one self-contained HTML file (no script, no request: inline styles and
//! SVG charts) with the overview, the usage tables, the charts and the billing month. It leaves
//! out prompts, replies, tool output and file contents, except the transcripts of the sessions
//! the person chooses, whose secrets the analysis has scrubbed (`crate::scrub`). The CLI's `report`
//! command and the page's export write it through here: the same bytes.

mod charts;
mod html;
mod paths;
mod period;
mod tables;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use chrono::NaiveDate;

use crate::analysis::Outputs;
use crate::model::{OwnedRow, Row, RowSink, TurnType};
use crate::order;
use crate::sessions::SessionRecord;
use crate::usage::bill::{LEGEND, NEVER_IN_LOCAL_FILES, Reconciliation, differences, status_words};
use crate::usage::credits::{CreditsUsed, USD_PER_CREDIT, grouped_decimal};
use crate::usage::summary::{GroupBy, UsageRow};
use charts::{hundredths, number};
use html::{escape, table};
use paths::PathSpellings;
pub use period::{Chosen, Period};

/// What the person chose for the report.
#[derive(Clone, Debug)]
pub struct ShareOptions {
    /// Today (UTC), by the caller's clock: whether the month is still in progress.
    pub today: NaiveDate,
    /// The period the report covers.
    pub period: Period,
    /// The monthly allowance in AI credits, if the person gave one.
    pub allowance: Option<f64>,
    /// The plan the allowance is of, when it was given by plan (its product name).
    pub plan: Option<String>,
    /// Project paths replaced by stable short names (`project-3fa2c1`, from the path's hash).
    pub short_project_names: bool,
    /// Transcripts keep their system prompts (left out unless asked).
    pub with_system_prompt: bool,
    /// GitHub's usage report reconciled with this machine, shown with the month.
    pub bill: Option<Reconciliation>,
}

/// Keeps the rows of the chosen sessions as the analysis gives them (after deduplication).
#[derive(Default)]
pub struct ChosenRows {
    pub by_session: BTreeMap<String, Vec<OwnedRow>>,
}

impl ChosenRows {
    pub fn of(sessions: &[String]) -> ChosenRows {
        ChosenRows { by_session: sessions.iter().map(|id| (id.clone(), Vec::new())).collect() }
    }

    /// The transcripts of the chosen sessions that exist, in the order asked.
    pub fn transcripts<'a>(&mut self, sessions: &'a [SessionRecord], asked: &[String]) -> Vec<Transcript<'a>> {
        asked
            .iter()
            .filter_map(|id| {
                let record = sessions.iter().find(|record| &record.session_id == id)?;
                Some(Transcript { record, rows: self.by_session.remove(id).unwrap_or_default() })
            })
            .collect()
    }
}

impl RowSink for ChosenRows {
    fn push(&mut self, row: &Row<'_>) {
        if let Some(rows) = self.by_session.get_mut(row.session_id) {
            rows.push(row.to_owned_row());
        }
    }
}

/// A chosen session and its rows, whole.
pub struct Transcript<'a> {
    pub record: &'a SessionRecord,
    pub rows: Vec<OwnedRow>,
}

const STYLE: &str = "body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:64rem;padding:0 1rem;color:#1b1f24;background:#fff}\
h1{font-size:1.6rem}.summary{font-size:1.15rem;font-weight:600}\
dl.legend{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:.2rem 1rem}dl.legend dd{font-size:.9rem;font-weight:400}dl.legend dt,dl.legend dd{min-width:0;overflow-wrap:anywhere}h2{margin-top:2.2rem;border-bottom:1px solid #d0d7de}.meta{color:#57606a}\
dl.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(10rem,1fr));gap:.8rem}\
dl.tiles div{border:1px solid #d0d7de;border-radius:6px;padding:.6rem}dt{color:#57606a;font-size:.85rem}dd{margin:0;font-size:1.3rem;font-weight:600}\
table{border-collapse:collapse;margin:1rem 0;width:100%;font-size:.9rem}caption{text-align:left;font-weight:600;padding:.3rem 0}\
th,td{border-bottom:1px solid #eaeef2;padding:.25rem .5rem;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\
figure.chart{margin:1rem 0}figure.chart figcaption{font-weight:600}svg.chart{width:100%;height:auto;max-height:16rem}.bar{fill:#0969da}.bar.second{fill:#8c959f}.axis{stroke:#8c959f}.tick{font-size:10px;fill:#57606a}\
.used{fill:none;stroke:#0969da;stroke-width:2}.projection{stroke:#0969da;stroke-dasharray:5 4}.allowance{stroke:#cf222e}\
.turn{border-left:3px solid #d0d7de;margin:.6rem 0;padding:.2rem .8rem;white-space:pre-wrap;overflow-wrap:anywhere}\
.turn.user{border-color:#0969da}.turn.assistant{border-color:#1a7f37}.turn b{display:block;font-size:.8rem;color:#57606a}\
@media (max-width:40rem){body{margin:1rem auto}dl.legend{grid-template-columns:minmax(0,1fr)}dl.legend dd{margin-bottom:.4rem}table{display:block;overflow-x:auto}th,td{white-space:nowrap}td:first-child{white-space:normal;overflow-wrap:anywhere;min-width:8rem}}\
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}dl.tiles div,h2{border-color:#30363d}th,td{border-color:#21262d}.meta,dt,.tick{color:#9198a1;fill:#9198a1}}";

/// The whole report.
pub fn write(outputs: &Outputs, transcripts: &[Transcript<'_>], options: &ShareOptions) -> String {
    let usage = &outputs.usage;
    let chosen = Chosen::of(usage, &options.period, options.today);
    let by_day = usage.table(GroupBy::Day, chosen.range());
    // The data's first and last days, whatever order the rows come in.
    let period = match chosen.data_days {
        Some((first, last)) => format!("{first} to {last} (UTC days)"),
        None => "no usage in this period".to_string(),
    };
    let title = chosen.title();
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"file-name\" content=\"{}\">\
         <title>Copilot usage report, {}</title><style>{STYLE}</style></head><body><h1>Copilot usage report: {}</h1>\
         <p class=\"meta\"><span data-figure=\"period\">{}</span> · as of {} · made by copilot-lens {} on this machine, from its own files</p>",
        escape(&chosen.file_name()),
        escape(&title),
        escape(&title),
        escape(&period),
        options.today,
        env!("CARGO_PKG_VERSION")
    );
    whose(&mut out, outputs, options);
    let top = tables::Top::of(outputs, &chosen, options.short_project_names);
    summary(&mut out, &title, &by_day.credits_used, options.allowance, &top);
    overview(&mut out, outputs, &chosen, &by_day.grand_total, &by_day.credits_used);
    if let Some(first) = chosen.month {
        month(&mut out, outputs, first, options);
    }
    top.write(&mut out, by_day.credits_used.credits);
    day_charts(&mut out, &chosen, &by_day.rows);
    tables::usage(&mut out, outputs, &chosen, options.short_project_names);
    let scrubbed = transcripts_section(&mut out, transcripts, options);
    let _ = writeln!(
        out,
        "<h2>What this report holds</h2><p>Figures only: prompts, replies, tool output and file contents are left out{}. \
         Tokens are counted by Copilot's shutdown counters. Credits used are as Copilot recorded them where it did, else \
         estimated at GitHub's published rates, unfinished and deleted sessions included, as their tokens are; dollars \
         are credits × 0.01.</p><p data-value=\"{scrubbed}\" data-figure=\"scrubbed\">{}</p></body></html>",
        if transcripts.is_empty() { "" } else { ", but for the transcripts chosen" },
        if transcripts.is_empty() {
            "No transcript included.".to_string()
        } else {
            format!("Secrets scrubbed from the transcripts: {scrubbed}.")
        }
    );
    out
}

/// The name the report is given by its period (`copilot-report-2026-11.html`).
pub fn file_name(outputs: &Outputs, options: &ShareOptions) -> String {
    Chosen::of(&outputs.usage, &options.period, options.today).file_name()
}

/// Whose figures these are: the logins the homes signed in with, the allowance (and its plan),
/// and the machines (the homes' labels).
fn whose(out: &mut String, outputs: &Outputs, options: &ShareOptions) {
    let logins = outputs.inventory.logins();
    // A home's folder name, as the team export names the machine.
    let machines: BTreeSet<String> = outputs.usage.home_labels.iter().map(|label| machine_name(label)).collect();
    let allowance = match (options.allowance, &options.plan) {
        (Some(credits), Some(plan)) => format!("{} credits a month ({plan})", hundredths(credits)),
        (Some(credits), None) => format!("{} credits a month", hundredths(credits)),
        (None, _) => "none given".to_string(),
    };
    let or_unknown = |list: Vec<&str>| if list.is_empty() { "unknown".to_string() } else { list.join(", ") };
    let _ = write!(
        out,
        "<p class=\"meta\" data-figure=\"whose\">Login: {} · allowance: {} · machines: {}</p>",
        escape(&or_unknown(logins.iter().map(String::as_str).collect())),
        escape(&allowance),
        escape(&or_unknown(machines.iter().map(String::as_str).collect()))
    );
}

/// The opening sentence: `November 2026: 2,715.00 credits (≈ $27.15), 181% of a 1,500-credit
/// allowance; top project octo-world; top model gpt-5.4`.
fn summary(out: &mut String, title: &str, used: &CreditsUsed, allowance: Option<f64>, top: &tables::Top) {
    let mut sentence = if used.credits == 0.0 && used.own_key_tokens > 0 {
        format!("{title}: {}", used.headline())
    } else {
        format!("{title}: {} credits (≈ ${})", grouped_decimal(used.credits), grouped_decimal(used.usd))
    };
    if let Some(allowance) = allowance.filter(|allowance| *allowance > 0.0) {
        let _ =
            write!(sentence, ", {:.0}% of a {}-credit allowance", used.credits / allowance * 100.0, number(allowance));
    }
    if let Some(project) = top.projects.first() {
        let _ = write!(sentence, "; top project {}", if project.id.is_empty() { "(none known)" } else { &project.id });
    }
    if let Some(model) = top.models.first() {
        let _ = write!(sentence, "; top model {}", model.id);
    }
    let _ = write!(out, "<p class=\"summary\" data-figure=\"summary\">{}</p>", escape(&sentence));
}

fn overview(out: &mut String, outputs: &Outputs, chosen: &Chosen, total: &UsageRow, used: &CreditsUsed) {
    // The sessions that began in the period (an undated one counts in every period).
    let range = chosen.range();
    let began_in = |session: &&SessionRecord| {
        crate::time::parse_day(session.first_event.get(..10).unwrap_or_default()).is_none_or(|day| range.contains(day))
    };
    let sessions: Vec<&SessionRecord> = outputs.sessions.iter().filter(began_in).collect();
    let tiles = [
        ("sessions", "Sessions", sessions.len() as f64),
        ("prompts", "Prompts", sessions.iter().map(|s| s.counts.prompts).sum::<u64>() as f64),
        ("tool_calls", "Tool calls", sessions.iter().map(|s| s.counts.tool_calls).sum::<u64>() as f64),
        // The tokens of the total credits used, as the tables below add them up.
        ("tokens", "Tokens", total.tokens.total as f64),
    ];
    // The one money figure: credits used (partial and recovered included), dollars beside; a
    // home that used only the person's own key says so rather than $0.00.
    let money = if used.credits == 0.0 && used.own_key_tokens > 0 {
        vec![("credits", "Credits used", used.headline())]
    } else {
        vec![("credits", "Credits used", hundredths(used.credits)), ("cost_usd", "Dollars", hundredths(used.usd))]
    };
    let tiles = tiles.into_iter().map(|(id, label, value)| (id, label, number(value))).chain(money);
    out.push_str("<h2>Overview</h2><dl class=\"tiles\">");
    for (id, label, value) in tiles {
        let _ = write!(out, "<div><dt>{label}</dt><dd data-figure=\"{id}\">{value}</dd></div>");
    }
    out.push_str("</dl>");
}

fn month(out: &mut String, outputs: &Outputs, first: NaiveDate, options: &ShareOptions) {
    let month = outputs.usage.month(first, options.today, options.allowance);
    let _ = write!(out, "<h2>Billing month {} (UTC)</h2>", escape(&month.month));
    let share = month.allowance.filter(|allowance| *allowance > 0.0).map(|allowance| month.used / allowance * 100.0);
    let mut facts = vec![
        ("month_used", "Used (credits)", hundredths(month.used)),
        ("month_usd", "Dollars", hundredths(month.used * USD_PER_CREDIT)),
        ("month_recorded", "Recorded by Copilot", hundredths(month.recorded)),
        ("month_estimated", "Estimated", hundredths(month.estimated)),
    ];
    if let Some(allowance) = month.allowance {
        facts.push(("month_allowance", "Allowance", hundredths(allowance)));
    }
    if let Some(share) = share {
        facts.push(("month_share", "Share used", format!("{}%", number(share))));
    }
    if let Some(projected) = month.projected {
        facts.push(("month_projected", "Projected by the month's end", hundredths(projected)));
    }
    // When the allowance runs out is news only while the month goes on.
    if let Some(day) = month.runs_out_on.as_ref().filter(|_| !month.finished) {
        facts.push(("month_runs_out", "Allowance runs out on", day.clone()));
    }
    out.push_str("<dl class=\"tiles\">");
    for (id, label, value) in facts {
        let _ = write!(out, "<div><dt>{label}</dt><dd data-figure=\"{id}\">{}</dd></div>", escape(&value));
    }
    out.push_str("</dl>");
    let days: Vec<(String, f64)> = month.days.iter().map(|day| (day.day.clone(), day.cumulative)).collect();
    if !days.is_empty() {
        let projection = month.projected.map(|projected| (month.days_in_month as usize - 1, projected));
        let last_day = format!("{}-{:02}", month.month, month.days_in_month);
        let last = if projection.is_some() { last_day.as_str() } else { month.as_of.as_str() };
        out.push_str(&charts::cumulative(
            "Credits used since the month began",
            &days,
            month.allowance,
            projection,
            last,
        ));
    }
    bill_section(out, options.bill.as_ref());
}

/// Why a local figure differs from GitHub's bill: what is never in local files, and with a bill,
/// billed against this machine by day, the days and models that differ first.
fn bill_section(out: &mut String, bill: Option<&Reconciliation>) {
    out.push_str("<h2>Why this differs from your GitHub bill</h2><p>Never in this machine's files:</p><ul>");
    for item in NEVER_IN_LOCAL_FILES {
        let _ = write!(out, "<li>{}</li>", escape(item));
    }
    out.push_str("</ul>");
    let Some(bill) = bill else { return };
    let _ = write!(out, "<p data-figure=\"bill-headline\"><strong>{}</strong></p>", escape(&bill.headline));
    let _ = write!(
        out,
        "<p data-figure=\"bill\">GitHub's report {} ({}) for {}, {} to {} (UTC days): {} credits billed, {} here, \
         difference {}.</p>",
        escape(&bill.file),
        escape(&bill.format),
        escape(&bill.user),
        bill.from,
        bill.to,
        hundredths(bill.totals.billed_credits),
        hundredths(bill.totals.local_credits),
        hundredths(bill.totals.difference)
    );
    if !bill.notes.is_empty() {
        out.push_str("<ul data-figure=\"bill-notes\">");
        for note in &bill.notes {
            let _ = write!(out, "<li>{}</li>", escape(note));
        }
        out.push_str("</ul>");
    }
    let differing = differences(bill);
    if !differing.is_empty() {
        out.push_str("<p>Where they differ:</p><ul>");
        for line in differing {
            let _ = write!(out, "<li>{}</li>", escape(&line));
        }
        out.push_str("</ul>");
    }
    let mut by_day: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for row in &bill.rows {
        let day = by_day.entry(row.day.as_str()).or_default();
        (day.0, day.1) = (day.0 + row.billed_credits, day.1 + row.local_credits);
    }
    let days: Vec<(String, f64, f64)> =
        by_day.into_iter().map(|(day, (billed, local))| (day.to_string(), billed, local)).collect();
    out.push_str(&charts::paired_bars("Billed against this machine, by day", &days, ("billed", "here"), "credits"));
    let rows: Vec<Vec<String>> = bill
        .rows
        .iter()
        .map(|row| {
            vec![
                row.day.clone(),
                if row.auto { format!("{} (Auto)", row.model) } else { row.model.clone() },
                hundredths(row.billed_credits),
                hundredths(row.local_credits),
                row.local_from.unwrap_or("-").to_string(),
                hundredths(row.difference),
                status_words(row.status).to_string(),
            ]
        })
        .collect();
    let head = ["day", "model", "billed", "here", "from", "difference", "status"];
    let numeric = [false, false, true, true, false, true, false];
    table(out, "Billed against this machine (discrepancies first)", &head, &numeric, &rows);
    if !bill.not_local.is_empty() {
        let rows: Vec<Vec<String>> = (bill.not_local.iter())
            .map(|row| vec![row.sku.clone(), row.model.clone(), hundredths(row.credits)])
            .collect();
        table(out, "Not on this machine (runs on GitHub)", &["sku", "model", "credits"], &[false, false, true], &rows);
    }
    if !bill.estimate_ratio.is_empty() {
        let rows: Vec<Vec<String>> = (bill.estimate_ratio.iter())
            .map(|ratio| {
                let (billed, estimated) = (hundredths(ratio.billed_credits), hundredths(ratio.estimated_credits));
                vec![ratio.model.clone(), billed, estimated, format!("{:.3}", ratio.ratio)]
            })
            .collect();
        let head = ["model", "billed", "estimated", "billed / estimated"];
        table(out, "How far the estimate is, on the days it is one", &head, &[false, true, true, true], &rows);
    }
    let legend: Vec<String> = LEGEND.iter().map(|(_, words, meaning)| format!("{words}: {meaning}")).collect();
    let _ = write!(out, "<p class=\"meta\">{}</p>", escape(&legend.join("; ")));
}

/// Tokens and credits by day on a time axis: every day of the period has its place, so a day
/// without usage is a gap.
fn day_charts(out: &mut String, chosen: &Chosen, rows: &[UsageRow]) {
    let Some((first, last)) = chosen.data_days else { return };
    let (start, end) = (chosen.since.unwrap_or(first), chosen.until.unwrap_or(last));
    let mut tokens: BTreeMap<NaiveDate, f64> = BTreeMap::new();
    let mut credits: BTreeMap<NaiveDate, f64> = BTreeMap::new();
    for row in rows.iter().filter(|row| tables::counts(row)) {
        let Some(day) = row.day.as_deref().and_then(crate::time::parse_day) else { continue };
        *tokens.entry(day).or_default() += row.tokens.total as f64;
        *credits.entry(day).or_default() += row.credits.unwrap_or_default();
    }
    let points = |by: &BTreeMap<NaiveDate, f64>| by.iter().map(|(day, value)| (*day, *value)).collect::<Vec<_>>();
    out.push_str("<h2>By day</h2>");
    out.push_str(&charts::day_bars("Tokens per day", (start, end), &points(&tokens), "tokens"));
    out.push_str(&charts::day_bars("AI credits per day", (start, end), &points(&credits), "credits"));
}

/// A project as the report names it: its path, or a short name that stays the same for the
/// same path in every report.
pub fn project_name(path: &str, short: bool) -> String {
    if !short || path.is_empty() {
        return path.to_string();
    }
    short_name("project", path)
}

/// A machine's name from its home's label: the last folder that is not hidden (`.copilot`),
/// without `.zip`; the rest of the path stays out of the export.
pub fn machine_name(label: &str) -> String {
    let mut folders = label.split(['/', '\\']).filter(|folder| !folder.is_empty() && !folder.starts_with('.'));
    let last = folders.next_back().unwrap_or_default();
    last.strip_suffix(".zip").unwrap_or(last).to_string()
}

/// A private text's short name, the same for the same text everywhere: `kind-` and six hex
/// digits of its hash (`project-3fa2c1`).
pub fn short_name(kind: &str, text: &str) -> String {
    format!("{kind}-{:06x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()) >> 40)
}

/// A system prompt (or developer message) row: the CLI's `system.message` events.
fn is_system_prompt(row: &OwnedRow) -> bool {
    row.turn_type == TurnType::System
        && (row.text.starts_with("system prompt: ") || row.text.starts_with("developer message: "))
}

/// The chosen sessions' rows (scrubbed by the analysis, as every text an output shows); returns
/// how many secrets were scrubbed from them.
fn transcripts_section(out: &mut String, transcripts: &[Transcript<'_>], options: &ShareOptions) -> usize {
    if transcripts.is_empty() {
        return 0;
    }
    let mut scrubbed = 0;
    // Any chosen session's project, however a text spells it.
    let mut projects: Vec<(PathSpellings, String)> = Vec::new();
    if options.short_project_names {
        let mut paths: Vec<&str> = transcripts.iter().map(|t| t.record.project_path.as_str()).collect();
        // The longest first: a project inside another keeps its own short name.
        order::sort_by_key(&mut paths, |path| (std::cmp::Reverse(path.len()), *path));
        paths.dedup();
        projects =
            paths.into_iter().filter_map(|path| Some((PathSpellings::of(path)?, project_name(path, true)))).collect();
    }
    let shown = |text: &str| {
        // Scrubbing again finds nothing new; it keeps a text given unscrubbed from leaking here.
        let text = crate::scrub::scrub(text).0;
        projects.iter().fold(text, |text, (spellings, short)| spellings.replace(&text, short))
    };
    out.push_str("<h2>Transcripts</h2>");
    for transcript in transcripts {
        let record = transcript.record;
        let name = shown(record.display_name());
        scrubbed += crate::scrub::redacted_in(&name);
        let _ = write!(
            out,
            "<h3>{}</h3><p class=\"meta\">{} · {} · {}</p>",
            escape(&name),
            escape(&project_name(&record.project_path, options.short_project_names)),
            escape(record.agent),
            escape(&record.first_event)
        );
        // In time order (undated rows last), whatever order the caller's rows came in.
        let mut rows: Vec<&OwnedRow> = transcript.rows.iter().collect();
        order::sort_by_key(&mut rows, |row| (row.timestamp_utc.is_empty(), row.timestamp_utc.as_str()));
        for row in rows.into_iter().filter(|row| options.with_system_prompt || !is_system_prompt(row)) {
            let text = shown(&row.text);
            scrubbed += crate::scrub::redacted_in(&text);
            let kind = row.turn_type.as_str();
            let label = if row.tool_name.is_empty() { kind.to_string() } else { format!("{kind} {}", row.tool_name) };
            let _ = write!(
                out,
                "<div class=\"turn {kind}\"><b>{} · {}</b>{}</div>",
                escape(&label),
                escape(&row.timestamp_utc),
                escape(&text)
            );
        }
    }
    scrubbed
}
