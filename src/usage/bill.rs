//! GitHub's usage report (the CSV a person downloads from the billing settings) against what
//! this machine recorded: per UTC day and model, the credits billed, the local credits by the one
//! rule (`credits`), their difference and a status. What runs on GitHub's side (the coding
//! agent, Spark, code review) is listed apart (`not_local`), never as a discrepancy.
//!
//! Every generation of the report is read (see the project's notes on GitHub's billing CSVs):
//! the AI-credit report (`quantity` is credits), the transition-period report (premium requests
//! with `aic_quantity`, the credits), a premium-request report (requests only: compared with the
//! local premium requests) and the legacy one (`Timestamp,User,Model,Requests Used`). Any column
//! order, a BOM, CRLF, quoted fields, dates as a spreadsheet re-saves them (`11/2/26`), several
//! rows for one day × model × user (summed) and zero-quantity rows are taken as they come.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use serde::Serialize;

use super::credits::{counts, entry_credits};
use super::ledger::SessionLedger;
use super::rates::{RateTable, normalise};
use super::{NANO_AIU_PER_CREDIT, NANO_DOLLARS_PER_CREDIT};

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

/// One row of a report, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct BillRow {
    pub day: NaiveDate,
    pub user: String,
    pub sku: String,
    /// The model's display label as the report writes it ("Auto: " removed: `auto`).
    pub label: String,
    pub auto: bool,
    pub credits: f64,
    pub requests: f64,
}

/// A report read whole.
#[derive(Clone, Debug, PartialEq)]
pub struct BillFile {
    pub name: String,
    pub format: Format,
    pub rows: Vec<BillRow>,
}

/// The columns a report can have, by their names in every generation (lower case).
struct Columns {
    day: usize,
    user: usize,
    model: usize,
    quantity: usize,
    sku: Option<usize>,
    unit_type: Option<usize>,
    aic_quantity: Option<usize>,
}

impl Columns {
    fn find(header: &csv::StringRecord, name: &str) -> Result<Columns, String> {
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
                "{name} is not a GitHub usage report: it lacks the columns {} (its columns: {})",
                missing.join(", "),
                names.join(", ")
            ));
        }
        let [day, user, model, quantity] = required.map(|(_, at)| at.unwrap_or_default());
        Ok(Columns {
            day,
            user,
            model,
            quantity,
            sku: at(&["sku"]),
            unit_type: at(&["unit_type"]),
            aic_quantity: at(&["aic_quantity"]),
        })
    }
}

/// `2026-11-02` (a timestamp's day too), or as a spreadsheet re-saves it: `11/2/26`, `11/2/2026`.
pub fn parse_day(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    if let Some(day) = text.get(..10).and_then(|start| NaiveDate::parse_from_str(start, "%Y-%m-%d").ok()) {
        return Some(day);
    }
    let date = text.split([' ', 'T']).next().unwrap_or_default();
    let mut parts = date.split('/').map(|part| part.trim().parse::<u32>().ok());
    let (month, day, year) = (parts.next()??, parts.next()??, parts.next()??);
    let year = if year < 100 { 2000 + year } else { year };
    NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)
}

/// A quantity as written: `1,234.5`, empty (0).
fn quantity(text: &str) -> Option<f64> {
    let text: String = text.trim().chars().filter(|c| *c != ',').collect();
    if text.is_empty() {
        return Some(0.0);
    }
    text.parse::<f64>().ok().filter(|value| value.is_finite())
}

/// Reads a report. `Err` says what it lacks (a CSV that is not such a report), or which row
/// cannot be read.
pub fn read(name: &str, bytes: &[u8]) -> Result<BillFile, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let header = reader.headers().map_err(|error| format!("{name} is not a CSV file: {error}"))?.clone();
    let columns = Columns::find(&header, name)?;
    let mut rows = Vec::new();
    let mut ai_credits = false;
    for (index, record) in reader.records().enumerate() {
        let line = index + 2;
        let record = record.map_err(|error| format!("{name}: row {line} cannot be read: {error}"))?;
        let cell = |at: usize| record.get(at).unwrap_or_default();
        if record.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        let day = parse_day(cell(columns.day))
            .ok_or_else(|| format!("{name}: row {line}: {:?} is not a date", cell(columns.day)))?;
        let quantity_read = |at: usize| {
            quantity(cell(at)).ok_or_else(|| format!("{name}: row {line}: {:?} is not a quantity", cell(at)))
        };
        let sku = columns.sku.map_or("copilot_premium_request", cell).trim().to_string();
        let unit_type = columns.unit_type.map_or("", cell).trim();
        let is_credits = sku.ends_with("_ai_credit") || unit_type == "ai-credits";
        ai_credits |= is_credits;
        let amount = quantity_read(columns.quantity)?;
        let (credits, requests) = match (is_credits, columns.aic_quantity) {
            (true, _) => (amount, 0.0),
            (false, Some(at)) => (quantity_read(at)?, amount),
            (false, None) => (0.0, amount),
        };
        let written = cell(columns.model).trim();
        let (label, auto) = match written.strip_prefix("Auto:") {
            Some(rest) => (rest.trim().to_string(), true),
            None => (written.to_string(), false),
        };
        rows.push(BillRow { day, user: cell(columns.user).trim().to_string(), sku, label, auto, credits, requests });
    }
    let format = match (ai_credits, columns.aic_quantity) {
        (true, _) => Format::AiCredits,
        (false, Some(_)) => Format::Transition,
        (false, None) => Format::PremiumRequests,
    };
    Ok(BillFile { name: name.to_string(), format, rows })
}

/// Work that runs on GitHub's side and never in local files: by its SKU or its model label.
fn runs_on_github(row: &BillRow) -> bool {
    let label = row.label.to_lowercase();
    row.sku.starts_with("coding_agent")
        || row.sku.starts_with("spark")
        || label.contains("coding agent")
        || label.contains("code review")
}

/// Whose rows to reconcile: the one asked for, else the login this machine signed in with,
/// else the report's only user. `Err` lists the users when that cannot be told.
pub fn pick_user(users: &BTreeSet<String>, logins: &[String], asked: Option<&str>) -> Result<String, String> {
    let listed = || users.iter().cloned().collect::<Vec<_>>().join(", ");
    if let Some(asked) = asked {
        return Ok(asked.to_string());
    }
    let signed_in: Vec<&String> = logins.iter().filter(|login| users.contains(*login)).collect();
    match (signed_in.as_slice(), users.len()) {
        ([login], _) => Ok((*login).clone()),
        ([], 0 | 1) if logins.is_empty() => Ok(users.first().cloned().unwrap_or_default()),
        ([], _) if !logins.is_empty() => Err(format!(
            "the report holds no rows of the login this machine signed in with ({}); its users are {}: pick one with --user",
            logins.join(", "),
            listed()
        )),
        _ => Err(format!(
            "no login is known for this machine and the report holds several users ({}): pick one with --user",
            listed()
        )),
    }
}

/// Picks whose rows (`pick_user`) and reconciles them: what the CLI and the page both call.
pub fn reconcile_for<'a>(
    files: &[BillFile],
    asked: Option<&str>,
    logins: &[String],
    ledgers: impl Iterator<Item = &'a SessionLedger>,
    rates: &RateTable,
) -> Result<Reconciliation, String> {
    let users = files.iter().flat_map(|file| &file.rows).map(|row| row.user.clone()).collect();
    let user = pick_user(&users, logins, asked)?;
    Ok(reconcile(files, &user, ledgers, rates))
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
}

fn hundredths(value: f64) -> f64 {
    let rounded = (value * 100.0).round() / 100.0;
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

/// Reconciles the reports' rows of `user` with the ledgers' (days in UTC), day by day between
/// the reports' first and last day.
pub fn reconcile<'a>(
    files: &[BillFile],
    user: &str,
    ledgers: impl Iterator<Item = &'a SessionLedger>,
    rates: &RateTable,
) -> Reconciliation {
    let all_rows = || files.iter().flat_map(|file| &file.rows);
    let users: BTreeSet<String> = all_rows().map(|row| row.user.clone()).collect();
    let from = all_rows().map(|row| row.day).min().unwrap_or_default();
    let to = all_rows().map(|row| row.day).max().unwrap_or_default();
    let credits_known = files.iter().any(|file| file.format != Format::PremiumRequests);
    // This machine's figures by day and model, within the report's days.
    let mut local: BTreeMap<(NaiveDate, String), Local> = BTreeMap::new();
    for ledger in ledgers {
        for (key, entry) in
            ledger.entries.iter().filter(|(key, entry)| (from..=to).contains(&key.day) && counts(key, entry))
        {
            let credits = entry_credits(rates, &key.model, entry);
            let slot = local.entry((key.day, key.model.clone())).or_default();
            slot.recorded += credits.recorded_nano_aiu as f64 / NANO_AIU_PER_CREDIT;
            slot.estimated += credits.estimated_nanos as f64 / NANO_DOLLARS_PER_CREDIT;
            slot.some_recorded |= credits.recorded;
            slot.some_estimated |= credits.estimated;
            slot.premium_requests += entry.recorded.premium_milli.unwrap_or(0) as f64 / 1000.0;
        }
    }
    // A label names the local model it normalises to, else stays as written.
    let local_ids: BTreeMap<String, String> =
        local.keys().map(|(_, model)| (normalise(model), model.clone())).collect();
    let mut billed: BTreeMap<(NaiveDate, String), (f64, f64, bool)> = BTreeMap::new();
    let mut not_local: BTreeMap<(String, String), (f64, f64)> = BTreeMap::new();
    for row in all_rows().filter(|row| row.user == user) {
        if runs_on_github(row) {
            let slot = not_local.entry((row.sku.clone(), row.label.clone())).or_default();
            (slot.0, slot.1) = (slot.0 + row.credits, slot.1 + row.requests);
            continue;
        }
        let model = local_ids.get(&normalise(&row.label)).cloned().unwrap_or_else(|| row.label.clone());
        let slot = billed.entry((row.day, model)).or_default();
        (slot.0, slot.1, slot.2) = (slot.0 + row.credits, slot.1 + row.requests, slot.2 || row.auto);
    }
    let keys: BTreeSet<(NaiveDate, String)> = billed.keys().chain(local.keys()).cloned().collect();
    let mut rows = Vec::new();
    let mut ratios: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for key in keys {
        let (billed_credits, billed_requests, auto) = billed.get(&key).copied().unwrap_or_default();
        let here =
            local.get(&key).filter(|here| here.credits() > 0.0 || here.some_recorded || here.premium_requests > 0.0);
        let (billed_figure, local_figure) = if credits_known {
            (billed_credits, here.map(Local::credits))
        } else {
            (billed_requests, here.map(|here| here.premium_requests))
        };
        if here.is_some_and(|here| here.from() == "estimated") && billed_credits > 0.0 {
            let ratio = ratios.entry(key.1.clone()).or_default();
            (ratio.0, ratio.1) = (ratio.0 + billed_credits, ratio.1 + here.map_or(0.0, Local::credits));
        }
        let local_credits = here.map_or(0.0, Local::credits);
        rows.push(Compared {
            day: key.0.to_string(),
            model: key.1,
            auto,
            billed_credits: hundredths(billed_credits),
            local_credits: hundredths(local_credits),
            local_from: here.map(Local::from),
            difference: hundredths(billed_figure - local_figure.unwrap_or(0.0)),
            status: status(billed_figure, local_figure),
            billed_requests: (!credits_known).then_some(billed_requests),
            local_requests: (!credits_known).then(|| here.map_or(0.0, |here| here.premium_requests)),
        });
    }
    let matched = |row: &Compared| row.status == "matched";
    rows.sort_by(|a, b| {
        matched(a).cmp(&matched(b)).then(b.difference.abs().total_cmp(&a.difference.abs())).then(a.day.cmp(&b.day))
    });
    let sum = |figure: fn(&Compared) -> f64| rows.iter().map(figure).sum::<f64>();
    let (billed_total, local_total) = (sum(|row| row.billed_credits), sum(|row| row.local_credits));
    let requests = (!credits_known)
        .then(|| (sum(|row| row.billed_requests.unwrap_or(0.0)), sum(|row| row.local_requests.unwrap_or(0.0))));
    let not_local: Vec<NotLocal> = not_local
        .into_iter()
        .map(|((sku, model), (credits, requests))| NotLocal {
            sku,
            model,
            credits: hundredths(credits),
            requests: (!credits_known).then_some(requests),
        })
        .collect();
    let mut formats: Vec<Format> = files.iter().map(|file| file.format).collect();
    formats.sort();
    formats.dedup();
    let format_names: Vec<&str> = formats.iter().map(|format| format.name()).collect();
    Reconciliation {
        file: files.iter().map(|file| file.name.as_str()).collect::<Vec<_>>().join(", "),
        format: format_names.join("+"),
        user: user.to_string(),
        users: users.into_iter().collect(),
        from: from.to_string(),
        to: to.to_string(),
        totals: BillTotals {
            billed_credits: hundredths(billed_total),
            local_credits: hundredths(local_total),
            difference: match requests {
                Some((billed, local)) => hundredths(billed - local),
                None => hundredths(billed_total - local_total),
            },
            not_local_credits: hundredths(not_local.iter().map(|row| row.credits).sum()),
            billed_requests: requests.map(|(billed, _)| billed),
            local_requests: requests.map(|(_, local)| local),
        },
        rows,
        not_local,
        estimate_ratio: ratios
            .into_iter()
            .filter(|(_, (_, estimated))| *estimated > 0.0)
            .map(|(model, (billed, estimated))| EstimateRatio {
                model,
                billed_credits: hundredths(billed),
                estimated_credits: hundredths(estimated),
                ratio: (billed / estimated * 1000.0).round() / 1000.0,
            })
            .collect(),
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
                row.status
            )
        })
        .collect()
}

/// What each status means, for the table's legend and the page.
pub const LEGEND: [(&str, &str); 5] = [
    ("matched", "within 0.01 credits or 1%"),
    ("billed_more", "GitHub billed more than this machine recorded (other machines or IDEs, or a lower estimate)"),
    ("local_more", "this machine recorded more than GitHub billed (a higher estimate, or included credits)"),
    ("billed_not_local", "billed, and nothing of it here (another machine or IDE)"),
    ("local_not_billed", "used here, and not in the report (BYOK is 0; another login?)"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_as_written_and_as_spreadsheets_resave_them() {
        let day = |text| parse_day(text).map(|day| day.to_string());
        assert_eq!(day("2026-11-02"), Some("2026-11-02".into()));
        assert_eq!(day("2026-11-02T00:00:00Z"), Some("2026-11-02".into()));
        assert_eq!(day("11/2/26"), Some("2026-11-02".into()));
        assert_eq!(day("11/2/2026"), Some("2026-11-02".into()));
        assert_eq!((day("2/30/26"), day("soon")), (None, None));
    }

    #[test]
    fn the_user_is_the_one_asked_for_else_the_signed_in_login_else_the_only_one() {
        let users: BTreeSet<String> = ["mona".to_string(), "hubot".to_string()].into();
        assert_eq!(pick_user(&users, &["mona".into()], None), Ok("mona".into()));
        assert_eq!(pick_user(&users, &["mona".into()], Some("hubot")), Ok("hubot".into()));
        assert!(pick_user(&users, &[], None).unwrap_err().contains("hubot, mona"));
        assert!(pick_user(&users, &["octocat".into()], None).unwrap_err().contains("octocat"));
        let one: BTreeSet<String> = ["mona".to_string()].into();
        assert_eq!(pick_user(&one, &[], None), Ok("mona".into()));
    }

    #[test]
    fn a_csv_that_is_not_a_report_names_the_columns_it_lacks() {
        let error = read("notes.csv", b"day,who,what\n2026-11-02,mona,x\n").unwrap_err();
        assert!(error.contains("lacks the columns date, username, model, quantity"), "{error}");
    }
}
