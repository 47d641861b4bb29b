//! Team exports: one person's usage as rows that DuckDB, BigQuery or Spark read side by side
//! with everyone else's (`usage --export`, the page's `team.csv`/`team.jsonl`). One row per UTC
//! day × agent × model × project × machine and kind of figure, with who, which machine and when,
//! and nothing of any prompt, reply or tool output. Projects are short names made from their
//! path's hash unless shared. Each row's figures are the usage rows' (`usage::summary`), so that
//! the sum of `credits` over a month is the month's credits used (`usage::month`).

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::Outputs;
use crate::csv_cells::TextCells;
use crate::share::{machine_name, project_name, short_name};
use crate::usage::TokenColumns;
use crate::usage::summary::{self, DayRange, GroupBy, SessionEntries, UsageRow};

/// Who and what the rows are about, and when they were made (the core has no clock).
#[derive(Clone, Debug, Default)]
pub struct TeamOptions {
    /// The login to name, else each home's own (`Signed in to HOST as LOGIN`).
    pub user: Option<String>,
    /// The machine to name, else each home's label's last folder.
    pub machine: Option<String>,
    /// Real project paths rather than short names.
    pub share_projects: bool,
    /// When the export was made (RFC 3339, UTC), as the caller says.
    pub exported_at: String,
    /// The days and agent to export (agents are always kept apart).
    pub range: DayRange,
}

/// One export row. `key` is a hash of (user, machine, day, agent, model, project, kind), the
/// columns a re-export replaces rows by. Written flat, in `COLUMNS`' order (`Serialize` below).
#[derive(Clone, Debug, PartialEq)]
pub struct TeamRow {
    pub key: String,
    pub user: String,
    pub machine: String,
    /// The UTC day, `2026-11-02`.
    pub day: String,
    pub agent: &'static str,
    pub model: String,
    /// `project-3fa2c1`, the path with `share_projects`, empty when none is known.
    pub project: String,
    /// `counted`, `partial` (a lower bound), `recovered` or `ambiguous_resume`: each is part of
    /// the credits used.
    pub kind: &'static str,
    pub tokens: TokenColumns,
    /// Recorded where Copilot recorded them, else estimated; BYOK calls 0; none when the model
    /// has no rate and nothing was recorded.
    pub credits: Option<f64>,
    pub credits_from: &'static str,
    pub recorded_nano_aiu: Option<u64>,
    pub premium_requests: Option<f64>,
    pub cost_usd_micros: Option<u64>,
    /// The usage rows' flags, joined with `;`.
    pub flags: String,
    pub exported_at: String,
    pub tool_version: &'static str,
}

/// By hand, for the token columns flat among the others (`TokenColumns::serialize_fields`).
impl Serialize for TeamRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut row = serializer.serialize_struct("TeamRow", COLUMNS.len())?;
        row.serialize_field("key", &self.key)?;
        row.serialize_field("user", &self.user)?;
        row.serialize_field("machine", &self.machine)?;
        row.serialize_field("day", &self.day)?;
        row.serialize_field("agent", self.agent)?;
        row.serialize_field("model", &self.model)?;
        row.serialize_field("project", &self.project)?;
        row.serialize_field("kind", self.kind)?;
        self.tokens.serialize_fields(&mut row)?;
        row.serialize_field("credits", &self.credits)?;
        row.serialize_field("credits_from", self.credits_from)?;
        row.serialize_field("recorded_nano_aiu", &self.recorded_nano_aiu)?;
        row.serialize_field("premium_requests", &self.premium_requests)?;
        row.serialize_field("cost_usd_micros", &self.cost_usd_micros)?;
        row.serialize_field("flags", &self.flags)?;
        row.serialize_field("exported_at", &self.exported_at)?;
        row.serialize_field("tool_version", self.tool_version)?;
        row.end()
    }
}

/// The columns before the token columns, and after them.
const LEADING: [&str; 8] = ["key", "user", "machine", "day", "agent", "model", "project", "kind"];
const TRAILING: [&str; 8] = [
    "credits",
    "credits_from",
    "recorded_nano_aiu",
    "premium_requests",
    "cost_usd_micros",
    "flags",
    "exported_at",
    "tool_version",
];

/// The columns, in the order every format writes them.
pub const COLUMNS: [&str; LEADING.len() + TokenColumns::NAMES.len() + TRAILING.len()] = {
    let mut columns = [""; LEADING.len() + TokenColumns::NAMES.len() + TRAILING.len()];
    let mut at = 0;
    while at < columns.len() {
        let tokens_at = at.wrapping_sub(LEADING.len());
        let trailing_at = tokens_at.wrapping_sub(TokenColumns::NAMES.len());
        columns[at] = if at < LEADING.len() {
            LEADING[at]
        } else if tokens_at < TokenColumns::NAMES.len() {
            TokenColumns::NAMES[tokens_at]
        } else {
            TRAILING[trailing_at]
        };
        at += 1;
    }
    columns
};

/// An RFC 3339 time as the rows write it: UTC, to the second (`2026-12-02T09:30:00Z`).
pub fn exported_at(text: &str) -> Option<String> {
    let time = chrono::DateTime::parse_from_rfc3339(text.trim()).ok()?;
    Some(time.with_timezone(&chrono::Utc).to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

/// The tool's version, as every row names it.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The rows of every session in the outputs, in key order.
pub fn rows(outputs: &Outputs, options: &TeamOptions) -> Vec<TeamRow> {
    let usage = &outputs.usage;
    let logins = home_logins(outputs);
    // Sessions by who, where and which project: each part's usage rows give its rows.
    // A session copied onto another machine counts each day in the home whose copy holds it.
    let session_parts = usage.session_parts();
    let mut parts: BTreeMap<(String, String, String), Vec<SessionEntries<'_>>> = BTreeMap::new();
    for part in &session_parts {
        let user = options.user.clone().or_else(|| logins.get(part.home).cloned()).unwrap_or_default();
        let machine = options.machine.clone().unwrap_or_else(|| machine_name(part.home));
        let project = project_name(&part.ledger.project, !options.share_projects);
        parts.entry((user, machine, project)).or_default().push(part.entries());
    }
    let by_day = DayRange { agents_apart: true, ..options.range };
    let mut rows = Vec::new();
    for ((user, machine, project), sessions) in parts {
        let table = summary::summarize(sessions.into_iter(), &usage.rates, GroupBy::Day, by_day);
        rows.extend(table.rows.into_iter().map(|row| team_row(row, &user, &machine, &project, options)));
    }
    rows.sort_by(|a, b| key_columns(a).cmp(&key_columns(b)));
    rows
}

fn key_columns(row: &TeamRow) -> [&str; 7] {
    [&row.user, &row.machine, &row.day, row.agent, &row.model, &row.project, row.kind]
}

fn team_row(row: UsageRow, user: &str, machine: &str, project: &str, options: &TeamOptions) -> TeamRow {
    let mut team = TeamRow {
        key: String::new(),
        user: user.to_string(),
        machine: machine.to_string(),
        day: row.day.unwrap_or_default(),
        agent: row.agent,
        model: model_name(row.model, options.share_projects),
        project: project.to_string(),
        kind: row.kind.name(),
        tokens: row.tokens,
        credits: row.credits,
        credits_from: row.credits_from,
        recorded_nano_aiu: row.recorded_nano_aiu,
        premium_requests: row.premium_requests,
        cost_usd_micros: row.cost_usd_micros,
        flags: row.flags.join(";"),
        exported_at: options.exported_at.clone(),
        tool_version: TOOL_VERSION,
    };
    team.key = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(key_columns(&team).join("\u{1f}").as_bytes()));
    team
}

/// A model as the export names it: its id, but a local model's file (`/home/alice/models/
/// llama.gguf`, `C:\Users\…`), which names a person's folders as a project's path does, by a
/// short name unless projects are shared. A model id with a `/` alone (`meta-llama/Llama-3-8B`)
/// names no folder of the machine and stays.
fn model_name(model: String, share_paths: bool) -> String {
    if share_paths || !is_local_path(&model) {
        return model;
    }
    short_name("model", &model)
}

/// Whether a model id is a path on the machine: absolute (`/`, `\\host`, `C:\` or `C:/`), in
/// a home (`~/`), relative to a folder (`./`, `../`), a `file:` URI, or written with Windows'
/// `\`.
fn is_local_path(model: &str) -> bool {
    let drive = model
        .as_bytes()
        .get(..3)
        .is_some_and(|start| start[0].is_ascii_alphabetic() && start[1] == b':' && matches!(start[2], b'/' | b'\\'));
    drive || model.contains('\\') || ["/", "~/", "./", "../", "file:"].iter().any(|start| model.starts_with(start))
}

/// Each home's login, by its label: the first of its sign-ins, by host and login.
fn home_logins(outputs: &Outputs) -> BTreeMap<&str, String> {
    let mut logins = BTreeMap::new();
    for home in &outputs.inventory.homes {
        let accounts = home.agents.iter().flat_map(|agent| &agent.accounts);
        if let Some(account) = accounts.min_by(|a, b| (&a.host, &a.login).cmp(&(&b.host, &b.login))) {
            logins.insert(home.home.as_str(), account.login.clone());
        }
    }
    logins
}

/// The rows as CSV with a header row; an absent figure is an empty field, a text that would open
/// as a formula is written as text (`csv_cells`).
pub fn write_csv(rows: &[TeamRow], out: impl Write) -> io::Result<()> {
    // The header written here, not from the first row, so that no rows still has it.
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(out);
    writer.write_record(COLUMNS)?;
    for row in rows {
        writer.serialize(TextCells(row))?;
    }
    writer.flush()
}

/// The rows as JSON lines.
pub fn write_jsonl(rows: &[TeamRow], mut out: impl Write) -> io::Result<()> {
    for row in rows {
        serde_json::to_writer(&mut out, row)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(feature = "parquet")]
pub mod parquet_file;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_time_is_utc_to_the_second() {
        assert_eq!(exported_at("2026-12-02T10:30:00.987+01:00").as_deref(), Some("2026-12-02T09:30:00Z"));
        assert_eq!(exported_at("2026-12-02T09:30:00Z").as_deref(), Some("2026-12-02T09:30:00Z"));
        assert_eq!(exported_at("yesterday"), None);
    }

    #[test]
    fn a_machine_is_named_by_its_home_folder_never_by_its_path() {
        for (label, machine) in [
            ("/home/mona", "mona"),
            ("/exports/mona-laptop/.copilot", "mona-laptop"),
            (r"C:\Users\mona\.copilot", "mona"),
            ("backups/mona-desktop.zip", "mona-desktop"),
            ("mona-desktop.zip/home/.config", "home"),
            (".copilot", ""),
        ] {
            assert_eq!(machine_name(label), machine, "{label}");
        }
    }

    #[test]
    fn a_local_models_path_is_a_short_name_unless_paths_are_shared() {
        for model in [
            "/home/alice/models/llama.gguf",
            r"C:\Users\alice\models\llama.gguf",
            "c:/models/llama.gguf",
            r"\\nas\models\llama.gguf",
            "~/models/llama.gguf",
            "./llama.gguf",
            "../models/llama.gguf",
            "file:///home/alice/llama.gguf",
            r"models\llama.gguf",
        ] {
            let named = model_name(model.to_string(), false);
            assert!(named.starts_with("model-") && named.len() == 12, "{model} became {named}");
            assert_eq!(named, model_name(model.to_string(), false), "the same name every time");
            assert_eq!(model_name(model.to_string(), true), model, "shared");
        }
        for model in ["gpt-5.4", "claude-opus-4.6", "meta-llama/Llama-3-8B", "ollama:llama3", "auto"] {
            assert_eq!(model_name(model.to_string(), false), model, "a model's id stays");
        }
    }

    #[test]
    fn every_format_writes_the_columns_in_one_order() {
        let row = TeamRow {
            key: "k".into(),
            user: "mona".into(),
            machine: "laptop".into(),
            day: "2026-11-02".into(),
            agent: "copilot-cli",
            model: "gpt-5.4".into(),
            project: "project-3fa2c1".into(),
            kind: "partial",
            tokens: TokenColumns {
                requests: 1,
                input: 2,
                cache_read: 3,
                cache_write: 4,
                output: 5,
                reasoning: 6,
                total: 14,
            },
            credits: None,
            credits_from: "estimated",
            recorded_nano_aiu: Some(7),
            premium_requests: None,
            cost_usd_micros: Some(8),
            flags: "partial;no_rate".into(),
            exported_at: "2026-12-02T00:00:00Z".into(),
            tool_version: TOOL_VERSION,
        };
        let json = serde_json::to_value(&row).unwrap();
        let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        let mut sorted_columns = COLUMNS.to_vec();
        sorted_columns.sort_unstable();
        assert_eq!(keys, sorted_columns, "serde_json's map is sorted: the same names");
        let mut jsonl = Vec::new();
        write_jsonl(std::slice::from_ref(&row), &mut jsonl).unwrap();
        let line = String::from_utf8(jsonl).unwrap();
        let positions: Vec<usize> = COLUMNS.iter().map(|name| line.find(&format!("\"{name}\":")).unwrap()).collect();
        assert!(positions.is_sorted(), "JSON lines in the columns' order: {line}");
        let mut csv = Vec::new();
        write_csv(&[row], &mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let (header, record) = csv.split_once('\n').unwrap();
        assert_eq!(header, COLUMNS.join(","));
        assert_eq!(
            record,
            "k,mona,laptop,2026-11-02,copilot-cli,gpt-5.4,project-3fa2c1,partial,1,2,3,4,5,6,14,,estimated,7,,8,\
             partial;no_rate,2026-12-02T00:00:00Z,0.1.0\n"
        );
        let mut empty = Vec::new();
        write_csv(&[], &mut empty).unwrap();
        assert_eq!(String::from_utf8(empty).unwrap(), format!("{}\n", COLUMNS.join(",")), "no rows: the header");
    }
}
