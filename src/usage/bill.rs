//! GitHub's usage report (the CSV a person downloads from the billing settings) against what
//! this machine recorded: per UTC day and model, the credits billed, the local credits by the one
//! rule (`credits`), their difference and a status. What runs on GitHub's side (the coding
//! agent, Spark, code review) is listed apart (`not_local`), never as a discrepancy.
//!
//! Every generation of the report is read (see the project's notes on GitHub's billing CSVs):
//! the AI-credit report (`quantity` is credits), the transition-period report (premium requests
//! with `aic_quantity`, the credits), a premium-request report (requests only: compared with the
//! local premium requests) and the legacy one (`Timestamp,User,Model,Requests Used`), as they
//! stream in (`report`): an organisation's report of many logins costs the memory of the rows
//! of the one reconciled. Logins ignore case, as GitHub's do; a row given twice (the same report
//! twice, or two that overlap) is counted once, and said. Figures are kept as recorded: rounding
//! is for the text that people read.

mod report;

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;

use chrono::NaiveDate;
use serde::Serialize;

use self::report::{Figures, Logins, RowKey};
pub use self::report::{Format, MAX_ROW_BYTES};
use super::credits::{counts, entry_credits};
use super::ledger::SessionLedger;
use super::rates::{RateTable, normalise};
use super::{NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT};
use crate::scrub::scrub_cow;

/// Logins listed in a message, at most; the rest are counted.
const LISTED_LOGINS: usize = 10;

/// GitHub's usage reports, read one after another (`read`), then reconciled (`reconcile`).
/// Only the rows of whose they can be are kept: the login asked for, else those this machine
/// signed in with, else (none known) the reports' only login.
pub struct Reports {
    asked: Option<String>,
    logins: Vec<String>,
    kept: Logins,
    names: Vec<String>,
    formats: BTreeSet<Format>,
    days: Option<(NaiveDate, NaiveDate)>,
    /// The rows kept, and which report gave them (by index into `names`).
    rows: BTreeMap<RowKey<NaiveDate>, (Figures, usize)>,
    row_count: u64,
    notes: Vec<String>,
    /// Each kept login's monthly allowance, the largest its reports give.
    quotas: BTreeMap<String, f64>,
}

impl Reports {
    /// Reports of `asked` (any case), else of one of `logins` (this machine's sign-ins).
    pub fn new(asked: Option<&str>, logins: &[String]) -> Reports {
        let wanted = match asked {
            Some(asked) => Some(vec![asked.to_string()]),
            None => (!logins.is_empty()).then(|| logins.to_vec()),
        };
        Reports {
            asked: asked.map(str::to_string),
            logins: logins.to_vec(),
            kept: Logins::new(wanted),
            names: Vec::new(),
            formats: BTreeSet::new(),
            days: None,
            rows: BTreeMap::new(),
            row_count: 0,
            notes: Vec::new(),
            quotas: BTreeMap::new(),
        }
    }

    /// Reads the report `name`. `Err` says why it is not a usage report (what it lacks); what
    /// is wrong in its rows is noted, and the rows left out.
    pub fn read(&mut self, name: &str, reader: impl Read) -> Result<(), String> {
        let read = report::read(name, reader, &mut self.kept)?;
        if self.kept.keep_none() {
            self.rows.clear();
            self.quotas.clear();
        }
        for (login, quota) in read.quotas {
            let slot = self.quotas.entry(login).or_default();
            *slot = slot.max(quota);
        }
        let index = self.names.len();
        self.names.push(name.to_string());
        self.formats.insert(read.format);
        self.row_count += read.row_count;
        self.notes.extend(read.notes);
        if let Some((first, last)) = read.days {
            self.days = Some(self.days.map_or((first, last), |(from, to)| (from.min(first), to.max(last))));
        }
        let (total, mut repeated, mut earlier) = (read.rows.len() as u64, 0, None);
        for (key, figures) in read.rows {
            match self.rows.entry(key) {
                Entry::Occupied(kept) => {
                    repeated += 1;
                    earlier.get_or_insert(kept.get().1);
                }
                Entry::Vacant(slot) => {
                    slot.insert((figures, index));
                }
            }
        }
        if let Some(earlier) = earlier {
            let other = &self.names[earlier];
            self.notes.push(match (other == name, repeated == total) {
                (true, true) => format!("{name} is given twice: counted once"),
                (false, true) => {
                    format!(
                        "{name} repeats {other} (all its {} are in both): counted once",
                        crate::words::counted(total, "row", "rows")
                    )
                }
                _ => format!(
                    "{name}: {repeated} of its {} also in {other} (the same day, login, model and SKU): counted once, \
                     as {other} has them",
                    crate::words::counted(total, "row", "rows")
                ),
            });
        }
        Ok(())
    }

    /// Picks whose rows (`pick_user`) and reconciles them with the ledgers' (days in UTC), day
    /// by day between the reports' first and last day.
    pub fn reconcile<'a>(
        self,
        ledgers: impl Iterator<Item = &'a SessionLedger>,
        rates: &RateTable,
    ) -> Result<Reconciliation, String> {
        let files = self.names.join(", ");
        let Some((from, to)) = self.days.filter(|_| self.row_count > 0) else {
            return Err(format!("{files}: the columns of a usage report and no rows: nothing to compare"));
        };
        let user = pick_user(&self.kept.seen, &self.logins, self.asked.as_deref())?;
        let credits_known = self.formats.iter().any(|format| *format != Format::PremiumRequests);
        let (local, local_days) = local_usage(ledgers, rates, (from, to));
        let mut notes = self.notes;
        notes.extend(other_days(&files, (from, to), local_days, &local));
        let canonical = |model: &str| rates.id_of(model).map_or_else(|| normalise(model).into_owned(), str::to_string);
        // A label names the local model it is, else the rate table's id.
        let local_ids: BTreeMap<String, String> =
            local.keys().map(|(_, model)| (canonical(model), model.clone())).collect();
        let mut billed: BTreeMap<(NaiveDate, String), (Figures, bool)> = BTreeMap::new();
        let mut not_local: BTreeMap<(String, String), Figures> = BTreeMap::new();
        for (key, (figures, _)) in self.rows.iter().filter(|(key, _)| key.login == user) {
            if runs_on_github(key) {
                not_local.entry((scrubbed(&key.sku), scrubbed(&key.label))).or_default().add(*figures);
                continue;
            }
            let id = canonical(&key.label);
            let model = local_ids.get(&id).cloned().unwrap_or_else(|| scrubbed(&id));
            let slot = billed.entry((key.day, model)).or_default();
            slot.0.add(*figures);
            slot.1 |= key.auto;
        }
        let (rows, ratios) = compared(&billed, &local, credits_known);
        let sum = |figure: fn(&Compared) -> f64| rows.iter().map(figure).sum::<f64>();
        let (billed_total, local_total) = (sum(|row| row.billed_credits), sum(|row| row.local_credits));
        let requests = (!credits_known)
            .then(|| (sum(|row| row.billed_requests.unwrap_or(0.0)), sum(|row| row.local_requests.unwrap_or(0.0))));
        let not_local: Vec<NotLocal> = not_local
            .into_iter()
            .map(|((sku, model), figures)| NotLocal {
                sku,
                model,
                credits: as_recorded(figures.credits),
                requests: (!credits_known).then_some(as_recorded(figures.requests)),
            })
            .collect();
        let format_names: Vec<&str> = self.formats.iter().map(|format| format.name()).collect();
        let shown = |login: &str| scrubbed(self.kept.seen.get(login).map_or(login, String::as_str));
        let mut reconciled = Reconciliation {
            headline: String::new(),
            monthly_quota: self.quotas.get(&user).copied(),
            file: scrubbed(&files),
            format: format_names.join("+"),
            user: match &self.asked {
                Some(asked) if !self.kept.seen.contains_key(&user) => scrubbed(asked),
                _ => shown(&user),
            },
            users: self.kept.seen.values().map(|login| scrubbed(login)).collect(),
            from: from.to_string(),
            to: to.to_string(),
            totals: BillTotals {
                billed_credits: as_recorded(billed_total),
                local_credits: as_recorded(local_total),
                difference: match requests {
                    Some((billed, local)) => as_recorded(billed - local),
                    None => as_recorded(billed_total - local_total),
                },
                not_local_credits: as_recorded(not_local.iter().map(|row| row.credits).sum()),
                billed_requests: requests.map(|(billed, _)| as_recorded(billed)),
                local_requests: requests.map(|(_, local)| as_recorded(local)),
            },
            rows,
            not_local,
            estimate_ratio: ratios
                .into_iter()
                .filter(|(_, (_, estimated))| *estimated > 0.0)
                .map(|(model, (billed, estimated))| EstimateRatio {
                    model,
                    billed_credits: as_recorded(billed),
                    estimated_credits: as_recorded(estimated),
                    ratio: (billed / estimated * 1000.0).round() / 1000.0,
                })
                .collect(),
            notes,
        };
        reconciled.headline = headline(&reconciled);
        Ok(reconciled)
    }
}

/// What GitHub billed, explained in one sentence: what ran on GitHub, how much of the rest this
/// machine explains, and the largest use on no machine here. For example, "GitHub billed 239.45
/// credits: 43.50 ran on GitHub (the coding agent, code review, Spark); this machine explains
/// 176.76 of the other 195.95; 5.00 of claude-haiku-4.5 on 2026-10-09 is on no machine here."
fn headline(bill: &Reconciliation) -> String {
    let totals = &bill.totals;
    let requests = totals.billed_requests.is_some();
    let (unit, figure): (&str, fn(f64) -> String) = if requests {
        ("premium requests", |count| format!("{count}"))
    } else {
        ("credits", |credits| format!("{credits:.2}"))
    };
    let of_row = |row: &Compared| if requests { row.billed_requests.unwrap_or(0.0) } else { row.billed_credits };
    let here = |row: &Compared| if requests { row.local_requests.unwrap_or(0.0) } else { row.local_credits };
    let on_github: f64 =
        bill.not_local.iter().map(|row| if requests { row.requests.unwrap_or(0.0) } else { row.credits }).sum();
    let other: f64 = bill.rows.iter().map(of_row).sum();
    let explained: f64 = bill.rows.iter().map(|row| of_row(row).min(here(row))).sum();
    let mut said = format!("GitHub billed {} {unit}", figure(as_recorded(on_github + other)));
    let mut parts = Vec::new();
    if on_github > 0.0 {
        parts.push(format!("{} ran on GitHub (the coding agent, code review, Spark)", figure(as_recorded(on_github))));
    }
    let rest = if on_github > 0.0 { "the other " } else { "" };
    parts.push(format!(
        "this machine explains {} of {rest}{}",
        figure(as_recorded(explained)),
        figure(as_recorded(other))
    ));
    let nowhere = bill.rows.iter().filter(|row| row.status == "billed_not_local");
    if let Some(largest) = nowhere.max_by(|a, b| of_row(a).total_cmp(&of_row(b))) {
        parts.push(format!(
            "{} of {} on {} is on no machine here",
            figure(of_row(largest)),
            largest.model,
            largest.day
        ));
    }
    said.push_str(": ");
    said.push_str(&parts.join("; "));
    said.push('.');
    said
}

/// Reads the reports and reconciles them (`Reports`): what the CLI and the page both call.
pub fn reconcile_reports<'a, R: Read>(
    reports: impl IntoIterator<Item = (String, R)>,
    asked: Option<&str>,
    logins: &[String],
    ledgers: impl Iterator<Item = &'a SessionLedger>,
    rates: &RateTable,
) -> Result<Reconciliation, String> {
    let mut read = Reports::new(asked, logins);
    for (name, reader) in reports {
        read.read(&name, reader)?;
    }
    read.reconcile(ledgers, rates)
}

fn scrubbed(text: &str) -> String {
    scrub_cow(text).0.into_owned()
}

/// Work that runs on GitHub's side and never in local files: by its SKU or its model label.
fn runs_on_github(row: &RowKey<NaiveDate>) -> bool {
    let label = row.label.to_lowercase();
    row.sku.starts_with("coding_agent")
        || row.sku.starts_with("spark")
        || label.contains("coding agent")
        || label.contains("code review")
}

/// Logins as a message lists them: the first few, and how many more.
fn listed(logins: &BTreeMap<String, String>) -> String {
    let mut listed: Vec<String> = logins.values().take(LISTED_LOGINS).map(|login| report::login_shown(login)).collect();
    if logins.len() > LISTED_LOGINS {
        listed.push(format!("and {} more", logins.len() - LISTED_LOGINS));
    }
    listed.join(", ")
}

/// Whose rows to reconcile (in lower case): the one asked for, else the login this machine
/// signed in with, else the report's only user. `Err` lists the users when that cannot be told.
fn pick_user(users: &BTreeMap<String, String>, logins: &[String], asked: Option<&str>) -> Result<String, String> {
    if let Some(asked) = asked {
        return Ok(asked.to_lowercase());
    }
    let signed_in: BTreeSet<String> =
        logins.iter().map(|login| login.to_lowercase()).filter(|login| users.contains_key(login)).collect();
    let signed_in: Vec<&String> = signed_in.iter().collect();
    match (signed_in.as_slice(), users.len()) {
        ([login], _) => Ok((*login).clone()),
        ([], 0 | 1) if logins.is_empty() => Ok(users.keys().next().cloned().unwrap_or_default()),
        ([], _) if !logins.is_empty() => Err(format!(
            "the report holds no rows of the login this machine signed in with ({}); its users are {}: pick one with \
             --user",
            logins.join(", "),
            listed(users)
        )),
        ([], _) => Err(format!(
            "no login is known for this machine and the report holds several users ({}): pick one with --user",
            listed(users)
        )),
        (several, _) => Err(format!(
            "the report holds rows of several logins this machine signed in with ({}): pick one with --user",
            several.iter().map(|login| login.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// This machine's figures by day and model within `days`, and the first and last day of all
/// its usage.
#[allow(clippy::type_complexity)]
fn local_usage<'a>(
    ledgers: impl Iterator<Item = &'a SessionLedger>,
    rates: &RateTable,
    (from, to): (NaiveDate, NaiveDate),
) -> (BTreeMap<(NaiveDate, String), Local>, Option<(NaiveDate, NaiveDate)>) {
    let mut local: BTreeMap<(NaiveDate, String), Local> = BTreeMap::new();
    let mut days: Option<(NaiveDate, NaiveDate)> = None;
    for ledger in ledgers {
        for (key, entry) in ledger.entries.iter().filter(|(key, entry)| counts(key, entry)) {
            days = Some(days.map_or((key.day, key.day), |(first, last)| (first.min(key.day), last.max(key.day))));
            if !(from..=to).contains(&key.day) {
                continue;
            }
            let credits = entry_credits(rates, &key.model, entry);
            let slot = local.entry((key.day, key.model.clone())).or_default();
            slot.recorded += credits.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT;
            slot.estimated += credits.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT;
            slot.some_recorded |= credits.recorded;
            slot.some_estimated |= credits.estimated;
            slot.premium_requests += entry.recorded.premium_milli.unwrap_or(0) as f64 / 1000.0;
        }
    }
    (local, days)
}

/// What to say when none of this machine's usage is on the reports' days: a report of another
/// month, or no usage here at all.
fn other_days(
    files: &str,
    (from, to): (NaiveDate, NaiveDate),
    local_days: Option<(NaiveDate, NaiveDate)>,
    local: &BTreeMap<(NaiveDate, String), Local>,
) -> Option<String> {
    if !local.is_empty() {
        return None;
    }
    Some(match local_days {
        Some((first, last)) => format!(
            "{files} covers {from} to {to}, and this machine's usage is from {first} to {last}: none of it is on the \
             report's days (a report of another month?)"
        ),
        None => format!("{files} covers {from} to {to}, and this machine has no usage to compare with it"),
    })
}

/// The rows compared, the discrepancies first (largest difference first), then the matched by
/// day and model; and per model, billed against estimated credits on the days estimated.
#[allow(clippy::type_complexity)]
fn compared(
    billed: &BTreeMap<(NaiveDate, String), (Figures, bool)>,
    local: &BTreeMap<(NaiveDate, String), Local>,
    credits_known: bool,
) -> (Vec<Compared>, BTreeMap<String, (f64, f64)>) {
    let keys: BTreeSet<&(NaiveDate, String)> = billed.keys().chain(local.keys()).collect();
    let mut rows = Vec::new();
    let mut ratios: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for key in keys {
        let (figures, auto) = billed.get(key).copied().unwrap_or_default();
        let here =
            local.get(key).filter(|here| here.credits() > 0.0 || here.some_recorded || here.premium_requests > 0.0);
        let (billed_figure, local_figure) = if credits_known {
            (figures.credits, here.map(Local::credits))
        } else {
            (figures.requests, here.map(|here| here.premium_requests))
        };
        if here.is_some_and(|here| here.from() == "estimated") && figures.credits > 0.0 {
            let ratio = ratios.entry(key.1.clone()).or_default();
            (ratio.0, ratio.1) = (ratio.0 + figures.credits, ratio.1 + here.map_or(0.0, Local::credits));
        }
        rows.push(Compared {
            day: key.0.to_string(),
            model: key.1.clone(),
            auto,
            billed_credits: as_recorded(figures.credits),
            local_credits: as_recorded(here.map_or(0.0, Local::credits)),
            local_from: here.map(Local::from),
            difference: as_recorded(billed_figure - local_figure.unwrap_or(0.0)),
            status: status(billed_figure, local_figure),
            billed_requests: (!credits_known).then_some(as_recorded(figures.requests)),
            local_requests: (!credits_known).then(|| as_recorded(here.map_or(0.0, |here| here.premium_requests))),
        });
    }
    let matched = |row: &Compared| row.status == "matched";
    rows.sort_by(|a, b| {
        matched(a).cmp(&matched(b)).then(b.difference.abs().total_cmp(&a.difference.abs())).then(a.day.cmp(&b.day))
    });
    (rows, ratios)
}

/// One UTC day × model compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Compared {
    pub day: String,
    pub model: String,
    /// The report's rows for it include Auto's.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub auto: bool,
    pub billed_credits: f64,
    pub local_credits: f64,
    /// `recorded`, `estimated` or `both`; none when nothing of it is here.
    pub local_from: Option<&'static str>,
    /// Billed less local: credits, or requests for a premium-request report (no credits).
    pub difference: f64,
    /// `matched` (within 0.01 credits or 1%), `billed_more`, `local_more`, `billed_not_local`,
    /// `local_not_billed`.
    pub status: &'static str,
    /// A premium-request report's requests, compared instead of credits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billed_requests: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_requests: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NotLocal {
    pub sku: String,
    pub model: String,
    pub credits: f64,
    /// A premium-request report's requests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BillTotals {
    pub billed_credits: f64,
    pub local_credits: f64,
    /// Billed less local: in requests for a premium-request report, as its rows'.
    pub difference: f64,
    pub not_local_credits: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub billed_requests: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_requests: Option<f64>,
}

/// Per model, billed against estimated credits on the days the local figure is an estimate:
/// how far the published rates are from what was paid. Shown, never applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EstimateRatio {
    pub model: String,
    pub billed_credits: f64,
    pub estimated_credits: f64,
    pub ratio: f64,
}

/// The reconciliation: `usage --json`'s `bill`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reconciliation {
    /// What GitHub billed, explained in one sentence (`headline`).
    pub headline: String,
    /// The user's monthly allowance in credits, as the report gives it (`total_monthly_quota`):
    /// the page's Month view takes it when no allowance was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monthly_quota: Option<f64>,
    pub file: String,
    pub format: String,
    pub user: String,
    pub users: Vec<String>,
    pub from: String,
    pub to: String,
    /// The discrepancies first (largest difference first), then the matched, by day and model.
    pub rows: Vec<Compared>,
    pub not_local: Vec<NotLocal>,
    pub totals: BillTotals,
    pub estimate_ratio: Vec<EstimateRatio>,
    /// What a person should know of the reports: rows left out (by line) and why, a report given
    /// twice, dates read day first, a report of other days than this machine's usage.
    pub notes: Vec<String>,
}

/// A figure as recorded: to the billionth of a credit (the logs record nano-AIU), which leaves
/// out only the float arithmetic's dust (30 - 27.81 is 2.19, not 2.1900000000000013).
fn as_recorded(value: f64) -> f64 {
    let rounded = (value * 1e9).round() / 1e9;
    if rounded == 0.0 { 0.0 } else { rounded }
}

/// What this machine recorded for one day × model, by the one rule.
#[derive(Clone, Copy, Default)]
struct Local {
    recorded: f64,
    estimated: f64,
    premium_requests: f64,
    some_recorded: bool,
    some_estimated: bool,
}

impl Local {
    fn credits(&self) -> f64 {
        self.recorded + self.estimated
    }

    fn from(&self) -> &'static str {
        match (self.some_recorded, self.some_estimated) {
            (true, true) => "both",
            (true, false) => "recorded",
            (false, _) => "estimated",
        }
    }
}

fn status(billed: f64, local: Option<f64>) -> &'static str {
    match local {
        None if billed > 0.0 => "billed_not_local",
        None => "matched",
        Some(local) if billed == 0.0 && local > 0.0 => "local_not_billed",
        Some(local) if (billed - local).abs() <= 0.01 || (billed - local).abs() <= billed.max(local) * 0.01 => {
            "matched"
        }
        Some(local) if billed > local => "billed_more",
        Some(_) => "local_more",
    }
}

/// What is never in local files, for the "Why this differs from your GitHub bill" note.
pub const NEVER_IN_LOCAL_FILES: [&str; 5] = [
    "inline completions and next-edit suggestions (not billed)",
    "the coding agent, code review and Spark, which run on GitHub",
    "other machines and other IDEs signed in with the same login",
    "credits pooled by an organisation, beyond this login's own use",
    "calls on your own key (BYOK): used here, never billed by GitHub",
];

/// The days and models that differ, in words, the largest first.
pub fn differences(bill: &Reconciliation) -> Vec<String> {
    let figure = |credits: f64, requests: Option<f64>| match requests {
        Some(requests) => format!("{requests} requests"),
        None => format!("{credits:.2} credits"),
    };
    bill.rows
        .iter()
        .filter(|row| row.status != "matched")
        .map(|row| {
            format!(
                "{} {}: billed {}, here {}{} ({})",
                row.day,
                row.model,
                figure(row.billed_credits, row.billed_requests),
                figure(row.local_credits, row.local_requests),
                row.local_from.map_or(String::new(), |from| format!(", {from}")),
                status_words(row.status)
            )
        })
        .collect()
}

/// Each status (as the JSON outputs name it), in a person's words, and what it means: for the
/// tables, their legends and the page.
pub const LEGEND: [(&str, &str, &str); 5] = [
    ("matched", "matches", "within 0.01 credits or 1%"),
    ("billed_more", "GitHub billed more", "than this machine recorded (other machines or IDEs, or a lower estimate)"),
    ("local_more", "more here than billed", "this machine recorded more (a higher estimate, or included credits)"),
    ("billed_not_local", "only on GitHub's bill", "nothing of it here (another machine or IDE)"),
    ("local_not_billed", "not on the bill", "used here, not in the report (BYOK is 0; another login?)"),
];

/// A status in a person's words (`LEGEND`).
pub fn status_words(status: &str) -> &str {
    LEGEND.iter().find(|(name, ..)| *name == status).map_or(status, |(_, words, _)| words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logins(names: &[&str]) -> BTreeMap<String, String> {
        names.iter().map(|name| (name.to_lowercase(), name.to_string())).collect()
    }

    #[test]
    fn the_user_is_the_one_asked_for_else_the_signed_in_login_else_the_only_one_in_any_case() {
        let users = logins(&["Mona", "hubot"]);
        assert_eq!(pick_user(&users, &["mona".into()], None), Ok("mona".into()));
        assert_eq!(pick_user(&users, &["MONA".into()], None), Ok("mona".into()));
        assert_eq!(pick_user(&users, &["mona".into()], Some("Hubot")), Ok("hubot".into()));
        assert!(pick_user(&users, &[], None).unwrap_err().contains("(hubot, Mona)"));
        assert!(pick_user(&users, &["octocat".into()], None).unwrap_err().contains("octocat"));
        let both = pick_user(&users, &["mona".into(), "hubot".into()], None).unwrap_err();
        assert!(both.contains("several logins this machine signed in with (hubot, mona)"), "{both}");
        assert_eq!(pick_user(&logins(&["Mona"]), &[], None), Ok("mona".into()));
    }

    #[test]
    fn a_message_lists_a_few_logins_and_counts_the_rest() {
        let many: Vec<String> = (0..5000).map(|n| format!("user{n:04}")).collect();
        let users = logins(&many.iter().map(String::as_str).collect::<Vec<_>>());
        let error = pick_user(&users, &[], None).unwrap_err();
        assert!(error.contains("(user0000, user0001, user0002, user0003, user0004, user0005, user0006, user0007, user0008, user0009, and 4990 more)"), "{error}");
        assert!(error.len() < 300, "{error}");
    }

    #[test]
    fn an_organisations_report_keeps_only_the_rows_of_whose_it_is_read_for() {
        let mut text = String::from("date,username,model,quantity,sku\n");
        for n in 0..3000 {
            text += &format!("2026-10-06,dev{n},GPT-5.4 mini,1,copilot_ai_credit\n");
        }
        text += "2026-10-07,Mona,GPT-5.4 mini,2,copilot_ai_credit\n";
        let mut signed_in = Reports::new(None, &["mona".into()]);
        signed_in.read("org.csv", text.as_bytes()).unwrap();
        assert_eq!((signed_in.rows.len(), signed_in.kept.seen.len()), (1, 3001));
        // No login known: the only login's rows, dropped once a second shows there is none.
        let mut unknown = Reports::new(None, &[]);
        unknown.read("org.csv", text.as_bytes()).unwrap();
        assert_eq!(unknown.rows.len(), 0);
        assert!(
            unknown.reconcile(std::iter::empty(), &RateTable::default_table()).unwrap_err().contains("and 2991 more")
        );
    }

    #[test]
    fn a_csv_that_is_not_a_report_names_the_columns_it_lacks() {
        let error = Reports::new(None, &[]).read("notes.csv", &b"day,who,what\n2026-11-02,mona,x\n"[..]).unwrap_err();
        assert!(error.contains("lacks the columns date, username, model, quantity"), "{error}");
    }
}
