//! The `usage` command's output: a readable table with totals, or JSON.

use std::io::{self, Write};

use copilot_lens::analysis::UsageData;
use copilot_lens::usage::bill::{LEGEND, Reconciliation, status_words};
use copilot_lens::usage::credits::{CreditsUsed, grouped_decimal};
use copilot_lens::usage::ledger::IMPLAUSIBLE_COUNTER;
use copilot_lens::usage::month::MonthCredits;
use copilot_lens::usage::summary::{GroupBy, UsageRow, UsageTable, sessions_flagged};
use copilot_lens::usage::{Kind, TokenColumns};
use copilot_lens::words::grouped;

use crate::terminal;

pub fn write_json(
    out: &mut impl Write,
    table: &UsageTable,
    usage: &UsageData,
    month: Option<&MonthCredits>,
    bill: Option<&Reconciliation>,
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &json_document(table, usage, month, bill))?;
    writeln!(out)
}

/// What `usage --json` prints (and the MCP server's `usage` tool answers).
pub fn json_document(
    table: &UsageTable,
    usage: &UsageData,
    month: Option<&MonthCredits>,
    bill: Option<&Reconciliation>,
) -> serde_json::Value {
    let mut document = serde_json::json!({
        "credits_used": table.credits_used,
        "rows": table.rows,
        "grand_total": table.grand_total,
        "totals": table.totals,
        "unknown_usage_sessions": usage.unknown,
        "implausible_counter_sessions": sessions_flagged(&usage.ledgers, IMPLAUSIBLE_COUNTER),
        "rates": usage.rates.source,
    });
    if let Some(month) = month {
        document["month"] = serde_json::json!(month);
    }
    if let Some(bill) = bill {
        document["bill"] = serde_json::json!(bill);
    }
    document
}

pub fn write_text(out: &mut impl Write, table: &UsageTable, usage: &UsageData, by: GroupBy) -> io::Result<()> {
    writeln!(out, "{}\n", credits_used_line(&table.credits_used))?;
    let group = match by {
        GroupBy::Session => "session",
        GroupBy::Agent => "agent",
        by => by.column().unwrap_or_default(),
    };
    let token_names = TokenColumns::NAMES.map(|name| name.replace('_', " "));
    let header = line(group.to_string(), "model".to_string(), token_names, ["credits", "flags"].map(String::from));
    let mut lines: Vec<[String; COLUMNS]> = vec![header];
    for row in &table.rows {
        let key = if by == GroupBy::Agent { row.agent } else { row.group().unwrap_or_default() };
        lines.push(cells(row, key.to_string()));
    }
    let rows_end = lines.len();
    // The total the headline gives, then what the headline leaves out (the parts of the total
    // are said under the table). The label goes in the first column shown (the model column
    // when grouping by model).
    let total = (!table.totals.is_empty()).then_some(("total", &table.grand_total));
    let ambiguous = table.totals.get(&Kind::AmbiguousResume).map(|row| (Kind::AmbiguousResume.words(), row));
    for (label, row) in total.into_iter().chain(ambiguous) {
        let mut line = cells(row, String::new());
        line[usize::from(group.is_empty())] = label.to_string();
        lines.push(line);
    }
    // The names (group, model) and the flags are text; the rest are figures.
    let widths = terminal::fit_columns(&mut lines, &[0, 1, FLAGS], 2);
    let skip_first = group.is_empty();
    let print = |out: &mut dyn Write, line: &[String; COLUMNS]| -> io::Result<()> {
        let mut text = String::new();
        for (index, (cell, width)) in line.iter().zip(widths).enumerate() {
            if skip_first && index == 0 {
                continue;
            }
            // Names to the left, numbers to the right.
            if index <= 1 || index == FLAGS {
                text.push_str(&format!("{cell:<width$}  "))
            } else {
                text.push_str(&format!("{cell:>width$}  "))
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    let (rows, totals) = lines.split_at(rows_end);
    for line in rows {
        print(out, line)?;
    }
    let rule: usize = widths.iter().skip(usize::from(skip_first)).map(|width| width + 2).sum();
    writeln!(out, "{}", "-".repeat(rule.saturating_sub(2)))?;
    for line in totals {
        print(out, line)?;
    }
    if table.rows.is_empty() {
        writeln!(out, "no usage in this range")?;
    }
    if let Some(parts) = total_parts(table) {
        writeln!(out, "of the total's credits: {parts}")?;
    }
    if !usage.unknown.is_empty() {
        writeln!(
            out,
            "\n{} unknown usage (no shutdown and no per-call record yet):",
            sessions_have(usage.unknown.len())
        )?;
        for session in &usage.unknown {
            writeln!(out, "  {}", terminal::safe(session))?;
        }
    }
    let implausible = sessions_flagged(&usage.ledgers, IMPLAUSIBLE_COUNTER);
    if !implausible.is_empty() {
        writeln!(
            out,
            "\n{} counters that cannot be token counts, left out of their figures ({IMPLAUSIBLE_COUNTER}; \
             the lines are named on stderr):",
            sessions_have(implausible.len())
        )?;
        for session in implausible {
            writeln!(out, "  {}", terminal::safe(session))?;
        }
    }
    writeln!(
        out,
        "\ncredits: as Copilot recorded them; ~ where some are estimated, for what it recorded nothing of (1 credit = 0.01 USD)"
    )?;
    for flag in table.flag_legend() {
        if flag.words == flag.name {
            writeln!(out, "{}: {}", flag.name, flag.meaning)?;
        } else {
            writeln!(out, "{} ({}): {}", flag.name, flag.words, flag.meaning)?;
        }
    }
    writeln!(out, "rates: {}", terminal::safe(&usage.rates.source))
}

/// The billing month against the allowance: what was used (recorded and estimated apart), the
/// pace, the projection and the day it would run out.
pub fn write_month(out: &mut impl Write, month: &MonthCredits) -> io::Result<()> {
    let allowance = month.allowance.unwrap_or_default();
    let share = if allowance > 0.0 { format!(" ({:.0}%)", month.used / allowance * 100.0) } else { String::new() };
    writeln!(
        out,
        "\nmonth {} (UTC), as of {}: {:.2} credits used of {allowance:.2}{share}: {:.2} as Copilot recorded them, {:.2} estimated",
        month.month, month.as_of, month.used, month.recorded, month.estimated
    )?;
    if let Some(projected) = month.projected {
        writeln!(out, "  at this pace, {projected:.2} credits by the month's end")?;
    }
    match &month.runs_out_on {
        Some(day) if month.used >= allowance => writeln!(out, "  the allowance ran out on {day}"),
        Some(day) => writeln!(out, "  at this pace the allowance runs out on {day}"),
        None if month.finished => writeln!(out, "  the month is over"),
        None => writeln!(out, "  at this pace the allowance lasts the month"),
    }
}

/// The headline: credits used by the one rule, dollars beside, and what they rest on.
fn credits_used_line(used: &CreditsUsed) -> String {
    let mut line = format!("credits used: {}", used.headline());
    if used.credits > 0.0 {
        let (recorded, estimated) = (grouped_decimal(used.recorded), grouped_decimal(used.estimated));
        line.push_str(&format!(": {recorded} as Copilot recorded them, {estimated} estimated"));
    }
    if used.partial > 0.0 || used.recovered > 0.0 {
        let (partial, recovered) = (grouped_decimal(used.partial), grouped_decimal(used.recovered));
        let (unfinished, deleted) = (Kind::Partial.words(), Kind::Recovered.words());
        line.push_str(&format!("; {partial} {unfinished} and {recovered} {deleted} included"));
    }
    line
}

/// The credits of each part of the total (from session totals, unfinished sessions, deleted
/// ones), where there is more than one.
fn total_parts(table: &UsageTable) -> Option<String> {
    let parts: Vec<String> = table
        .totals
        .iter()
        .filter(|(kind, _)| **kind != Kind::AmbiguousResume)
        .map(|(kind, row)| format!("{} {}", credits(row), kind.words()))
        .collect();
    (parts.len() > 1).then(|| parts.join(", "))
}

/// AI credits: as Copilot recorded them, marked `~` where some are estimated.
fn credits(row: &UsageRow) -> String {
    match (row.credits, row.credits_from) {
        (Some(credits), "recorded") => format!("{credits:.2}"),
        (Some(credits), _) => format!("~{credits:.2}"),
        (None, _) => "-".to_string(),
    }
}

/// The table's columns: the group, the model, the token columns, credits and flags.
const COLUMNS: usize = 2 + TokenColumns::NAMES.len() + 2;
const FLAGS: usize = COLUMNS - 1;

fn cells(row: &UsageRow, group: String) -> [String; COLUMNS] {
    line(group, row.model.clone(), row.tokens.values().map(grouped), [credits(row), row.flags.join(",")])
}

fn line(
    group: String,
    model: String,
    tokens: [String; TokenColumns::NAMES.len()],
    [credits, flags]: [String; 2],
) -> [String; COLUMNS] {
    let mut cells = [group, model].into_iter().chain(tokens).chain([credits, flags]);
    std::array::from_fn(|_| cells.next().unwrap_or_default())
}

/// The reconciliation with GitHub's report: the discrepancies first, what runs on GitHub apart,
/// the estimate against the bill per model, and what each status means.
pub fn write_bill(out: &mut impl Write, bill: &Reconciliation) -> io::Result<()> {
    let totals = &bill.totals;
    let compared = match (totals.billed_requests, totals.local_requests) {
        (Some(billed), Some(local)) => format!(
            "{billed} premium requests billed, {local} here, difference {} (a premium-request report: requests \
             are compared, not credits)",
            totals.difference
        ),
        _ => format!(
            "{} credits billed, {} here, difference {}",
            grouped_decimal(totals.billed_credits),
            grouped_decimal(totals.local_credits),
            grouped_decimal(totals.difference)
        ),
    };
    let said = format!(
        "\nbill {} ({}), user {}, {} to {} (UTC days): {compared}",
        bill.file, bill.format, bill.user, bill.from, bill.to
    );
    writeln!(out, "{}", terminal::safe(&said))?;
    writeln!(out, "{}", terminal::safe(&format!("  {}", bill.headline)))?;
    let mut lines = vec![["day", "model", "billed", "local", "from", "difference", "status"].map(String::from)];
    for row in &bill.rows {
        let figure = |credits: f64, requests: Option<f64>| match requests {
            Some(requests) => format!("{requests} req"),
            None => grouped_decimal(credits),
        };
        lines.push([
            row.day.clone(),
            if row.auto { format!("{} (Auto)", row.model) } else { row.model.clone() },
            figure(row.billed_credits, row.billed_requests),
            figure(row.local_credits, row.local_requests),
            row.local_from.unwrap_or("-").to_string(),
            match row.billed_requests {
                Some(_) => format!("{} req", row.difference),
                None => grouped_decimal(row.difference),
            },
            status_words(row.status).to_string(),
        ]);
    }
    // The day, model, where the local figure is from and the status are text.
    let widths = terminal::fit_columns(&mut lines, &[0, 1, 4, 6], 1);
    for line in &lines {
        let mut text = String::from(" ");
        for (index, (cell, width)) in line.iter().zip(widths).enumerate() {
            if (2..=5).contains(&index) && index != 4 {
                text.push_str(&format!(" {cell:>width$}"));
            } else {
                text.push_str(&format!(" {cell:<width$}"));
            }
        }
        writeln!(out, "{}", text.trim_end())?;
    }
    if !bill.not_local.is_empty() {
        let credits = match totals.billed_requests {
            Some(_) => String::new(),
            None => format!(": {} credits", grouped_decimal(totals.not_local_credits)),
        };
        writeln!(out, "  not on this machine (runs on GitHub{credits}):")?;
        for row in &bill.not_local {
            let figure =
                row.requests.map_or_else(|| grouped_decimal(row.credits), |requests| format!("{requests} req"));
            writeln!(out, "{}", terminal::safe(&format!("    {} {}: {figure}", row.sku, row.model)))?;
        }
    }
    if !bill.estimate_ratio.is_empty() {
        writeln!(out, "  billed against the estimate, on the days this machine's figure is estimated:")?;
        for ratio in &bill.estimate_ratio {
            let said = format!(
                "    {}: {} billed, {} estimated, ratio {:.3}",
                ratio.model,
                grouped_decimal(ratio.billed_credits),
                grouped_decimal(ratio.estimated_credits),
                ratio.ratio
            );
            writeln!(out, "{}", terminal::safe(&said))?;
        }
    }
    for (_, words, meaning) in LEGEND {
        writeln!(out, "  {words}: {meaning}")?;
    }
    Ok(())
}

/// "1 session has", "2 sessions have".
fn sessions_have(count: usize) -> String {
    let sessions = copilot_lens::words::counted(count as u64, "session", "sessions");
    format!("{sessions} {}", if count == 1 { "has" } else { "have" })
}
