//! The report's tables: the top sessions, projects and models by credits (as the page's Month
//! view shows them), and the usage by model, project and day with one row per model of a group
//! (its counted, partial and recovered parts in columns) and one money column.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::charts::{hundredths, number};
use super::html::{escape, table};
use super::period::Chosen;
use super::project_name;
use crate::analysis::Outputs;
use crate::sessions::SessionRecord;
use crate::usage::credits::USD_PER_CREDIT;
use crate::usage::summary::{GroupBy, UsageRow};
use crate::usage::{Kind, flags};

/// How many rows each top table shows.
const TOP: usize = 5;

/// What the `~` beside credits means (the flags' words and meanings are `usage::flags`).
const ESTIMATED_MARK: (&str, &str) =
    ("~", "estimated at GitHub's published rates: Copilot recorded no credits for these calls");

/// A session, project or model, its figures added up over every row of it.
#[derive(Default)]
pub struct Ranked {
    /// What groups its rows: the session's id, the project's name, the model.
    pub id: String,
    /// What the report calls it.
    pub name: String,
    credits: f64,
    estimated: bool,
    requests: u64,
    tokens: u64,
    flags: BTreeSet<&'static str>,
}

impl Ranked {
    fn add(&mut self, row: &UsageRow) {
        // The ambiguous part of a resumed session, and usage on a day it cannot be on, are not
        // credits used (the one money rule).
        if counts(row) {
            self.credits += row.credits.unwrap_or_default();
            self.estimated |= row.credits.is_some() && row.credits_from != "recorded";
        }
        self.requests += row.tokens.requests;
        self.tokens += row.tokens.total;
        self.flags.extend(row.flags.iter().copied());
    }

    fn credits_text(&self) -> String {
        format!("{}{}", if self.estimated { "~" } else { "" }, hundredths(self.credits))
    }
}

/// A session as the report names it: its project's last folder (or short name), the day it
/// began, and its id's start: `octo-world, 2026-11-03, 5e55a0a1`, after the title the person
/// gave it (`/rename`), if any: `Fix the login (octo-world, 2026-11-03, 5e55a0a1)`. Never a
/// title made for them, which quotes their first prompt: the report holds no conversation
/// unless asked.
fn session_label(id: &str, record: Option<&SessionRecord>, short_project_names: bool) -> String {
    let short_id: String = id.chars().take(8).collect();
    let Some(record) = record else { return id.to_string() };
    let project = if short_project_names {
        project_name(&record.project_path, true)
    } else {
        record.project_path.rsplit(['/', '\\']).find(|folder| !folder.is_empty()).unwrap_or_default().to_string()
    };
    let began = [&record.first_event, &record.created_at].into_iter().find(|time| !time.is_empty());
    let parts = [project.as_str(), began.map_or("", |time| time.get(..10).unwrap_or(time)), short_id.as_str()];
    let where_and_when = parts.into_iter().filter(|part| !part.is_empty()).collect::<Vec<_>>().join(", ");
    match record.given_title.as_str() {
        "" => where_and_when,
        title => format!("{title} ({where_and_when})"),
    }
}

/// The period's top sessions, projects and models by credits.
pub struct Top {
    pub sessions: Vec<Ranked>,
    pub projects: Vec<Ranked>,
    pub models: Vec<Ranked>,
}

impl Top {
    pub fn of(outputs: &Outputs, chosen: &Chosen, short_project_names: bool) -> Top {
        let records: BTreeMap<&str, &SessionRecord> =
            outputs.sessions.iter().map(|record| (record.session_id.as_str(), record)).collect();
        let ranked = |by: GroupBy| {
            let mut groups: BTreeMap<String, Ranked> = BTreeMap::new();
            for row in outputs.usage.table(by, chosen.range()).rows {
                let group = row.group().unwrap_or_default();
                let (id, name) = match by {
                    GroupBy::Model => (row.model.clone(), row.model.clone()),
                    GroupBy::Project => {
                        let name = project_name(group, short_project_names);
                        (name.clone(), name)
                    }
                    GroupBy::Session => {
                        (group.to_string(), session_label(group, records.get(group).copied(), short_project_names))
                    }
                    _ => (group.to_string(), group.to_string()),
                };
                groups.entry(id.clone()).or_insert_with(|| Ranked { id, name, ..Ranked::default() }).add(&row);
            }
            let mut ranked: Vec<Ranked> = groups.into_values().collect();
            // The most credits first; ties by tokens, then by name (the map's order, kept).
            ranked.sort_by(|a, b| b.credits.total_cmp(&a.credits).then(b.tokens.cmp(&a.tokens)));
            ranked.truncate(TOP);
            ranked
        };
        Top { sessions: ranked(GroupBy::Session), projects: ranked(GroupBy::Project), models: ranked(GroupBy::Model) }
    }

    pub fn write(&self, out: &mut String, used: f64) {
        out.push_str("<h2>Where the credits went</h2>");
        let head = ["credits", "≈ USD", "share of used", "requests", "tokens", "flags"];
        for (name, ranked) in [("session", &self.sessions), ("project", &self.projects), ("model", &self.models)] {
            let rows: Vec<Vec<String>> = ranked
                .iter()
                .map(|group| {
                    let share = if used > 0.0 { format!("{:.1}%", group.credits / used * 100.0) } else { "-".into() };
                    let name = if group.name.is_empty() { "(none known)".to_string() } else { group.name.clone() };
                    vec![
                        name,
                        group.credits_text(),
                        hundredths(group.credits * USD_PER_CREDIT),
                        share,
                        number(group.requests as f64),
                        number(group.tokens as f64),
                        flags_in_words(&group.flags),
                    ]
                })
                .collect();
            let head: Vec<&str> = std::iter::once(name).chain(head).collect();
            let numeric = [false, true, true, true, true, true, false];
            table(out, &format!("Top {TOP} {name}s by credits"), &head, &numeric, &rows);
        }
    }
}

/// A group's model, its parts (counted, partial, recovered, ...) side by side.
#[derive(Default)]
struct Merged {
    ranked: Ranked,
    parts: BTreeMap<Kind, f64>,
}

/// The usage by model, by project and by day, then the legend of the flags.
pub fn usage(out: &mut String, outputs: &Outputs, chosen: &Chosen, short_project_names: bool) {
    out.push_str("<h2>Usage</h2>");
    for (by, caption) in [(GroupBy::Model, "By model"), (GroupBy::Project, "By project"), (GroupBy::Day, "By day")] {
        let usage = outputs.usage.table(by, chosen.range());
        let mut merged: BTreeMap<(String, String), Merged> = BTreeMap::new();
        for row in &usage.rows {
            let group = match by {
                GroupBy::Model => String::new(),
                GroupBy::Project => project_name(row.group().unwrap_or_default(), short_project_names),
                _ => row.group().unwrap_or_default().to_string(),
            };
            let slot = merged.entry((group, row.model.clone())).or_default();
            slot.ranked.add(row);
            if counts(row) {
                *slot.parts.entry(row.kind).or_default() += row.credits.unwrap_or_default();
            }
        }
        // The parts get columns only when there is more than the counted one.
        let kinds: Vec<Kind> = usage.totals.keys().copied().collect();
        let parts_apart = kinds != [Kind::Counted];
        let mut total = Merged::default();
        let mut rows: Vec<Vec<String>> = Vec::new();
        for ((group, model), slot) in &merged {
            rows.push(cells(group, model, slot, &kinds, parts_apart, by));
            total.ranked.credits += slot.ranked.credits;
            total.ranked.estimated |= slot.ranked.estimated;
            total.ranked.requests += slot.ranked.requests;
            total.ranked.tokens += slot.ranked.tokens;
            for (kind, credits) in &slot.parts {
                *total.parts.entry(*kind).or_default() += credits;
            }
        }
        if !merged.is_empty() {
            rows.push(cells("total", "", &total, &kinds, parts_apart, by));
            if by == GroupBy::Model {
                let last = rows.len() - 1;
                rows[last][0] = "total".to_string();
            }
        }
        let mut head: Vec<&str> = Vec::new();
        if by != GroupBy::Model {
            head.push(if by == GroupBy::Project { "project" } else { "day" });
        }
        head.extend(["model", "requests", "tokens"]);
        if parts_apart {
            head.extend(kinds.iter().map(|kind| kind.words()));
        }
        head.extend(["credits", "≈ USD", "flags"]);
        let numeric: Vec<bool> = head.iter().map(|name| !["project", "day", "model", "flags"].contains(name)).collect();
        table(out, caption, &head, &numeric, &rows);
    }
    out.push_str("<h2>What the flags mean</h2><dl class=\"legend\" data-figure=\"legend\">");
    let (mark, meaning) = ESTIMATED_MARK;
    let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(mark), escape(meaning));
    for flag in &flags::LEGEND {
        let _ = write!(out, "<dt>{}</dt><dd>{}</dd>", escape(flag.words), escape(flag.meaning));
    }
    out.push_str("</dl>");
}

/// A group's flags in a person's words, one after another.
fn flags_in_words(names: &BTreeSet<&'static str>) -> String {
    names.iter().map(|name| flags::words(name)).collect::<Vec<_>>().join("; ")
}

/// Whether a row's credits count in credits used: as `usage::credits::counts` says of each of
/// its entries, which `summarize` never mixes with entries that do not count.
pub fn counts(row: &UsageRow) -> bool {
    row.kind != Kind::AmbiguousResume && !row.flags.contains(&"implausible_date")
}

fn cells(group: &str, model: &str, slot: &Merged, kinds: &[Kind], parts_apart: bool, by: GroupBy) -> Vec<String> {
    let mut cells = Vec::new();
    if by != GroupBy::Model {
        cells.push(group.to_string());
    }
    cells.extend([model.to_string(), number(slot.ranked.requests as f64), number(slot.ranked.tokens as f64)]);
    if parts_apart {
        cells.extend(
            kinds.iter().map(|kind| slot.parts.get(kind).map(|credits| hundredths(*credits)).unwrap_or_default()),
        );
    }
    cells.extend([
        slot.ranked.credits_text(),
        hundredths(slot.ranked.credits * USD_PER_CREDIT),
        flags_in_words(&slot.ranked.flags),
    ]);
    cells
}
