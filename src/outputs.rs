//! Every output file, named once. The CLI's `--out` folder and the page's exports are both
//! written by these functions, so a file of the same name holds the same bytes wherever it
//! was made.

use std::io::{self, Write};

use serde::Serialize;

use crate::analysis::Outputs;
use crate::export;
use crate::model::OwnedRow;
use crate::team_export::{self, TeamRow};
use crate::usage::summary::{self, DayRange, GroupBy};

/// One output file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OutputFile {
    pub name: &'static str,
    pub mime: &'static str,
    /// What it holds, for a person choosing it.
    pub what: &'static str,
    /// Whether `copilot-lens analyze --out` writes it (the rest are the page's exports).
    pub written_by_cli: bool,
    pub made_from: MadeFrom,
    /// Whether the page makes it a part at a time (`ROWS_PER_PART` rows a part), so that a
    /// large file never needs one string.
    pub in_parts: bool,
    /// The name the page saves it as; `{session_id}` stands for the session's id.
    pub save_as: &'static str,
}

/// What an output is made of, besides the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum MadeFrom {
    /// The analysis alone.
    Analysis,
    /// One session of it, named when asked for.
    Session,
    /// A person's choices (`share::ShareOptions`, the transcripts to include).
    Choices,
    /// The usage with who and which machine (`team_export::TeamOptions`).
    Team,
}

const fn file(name: &'static str, mime: &'static str, what: &'static str, written_by_cli: bool) -> OutputFile {
    OutputFile { name, mime, what, written_by_cli, made_from: MadeFrom::Analysis, in_parts: false, save_as: name }
}

const JSONL: &str = "application/x-ndjson";
const JSON: &str = "application/json";
const CSV: &str = "text/csv";

pub const ROWS_JSONL: OutputFile =
    OutputFile { in_parts: true, ..file("rows.jsonl", JSONL, "The timeline, one JSON object a line.", true) };
pub const ROWS_CSV: OutputFile =
    OutputFile { in_parts: true, ..file("rows.csv", CSV, "The timeline as CSV, with a header row.", false) };
pub const USAGE_CSV: OutputFile = file("usage.csv", CSV, "Tokens and cost per day and model.", true);
pub const USAGE_JSONL: OutputFile = file("usage.jsonl", JSONL, "The same, one JSON object a line.", true);
pub const SESSIONS_JSONL: OutputFile = file("sessions.jsonl", JSONL, "One record per session.", true);
pub const INVENTORY_JSON: OutputFile =
    file("inventory.json", JSON, "Projects, models, tools, MCP servers, skills, grants, accounts.", true);
pub const REPORT_JSON: OutputFile = file("report.json", JSON, "Every file found and what happened to it.", true);
/// One session as a readable conversation (the page's, for the session it names).
pub const SESSION_MD: OutputFile = OutputFile {
    made_from: MadeFrom::Session,
    save_as: "session-{session_id}.md",
    ..file("session.md", "text/markdown", "One session as a conversation.", false)
};
/// The report to share (`copilot-lens report`, `share::write`).
pub const REPORT_HTML: OutputFile = OutputFile {
    made_from: MadeFrom::Choices,
    ..file("report.html", "text/html", "The report to share, one HTML file that opens anywhere.", false)
};

/// A team export (`usage --export`), made with who and which machine (`write_team`).
pub const TEAM_CSV: OutputFile = OutputFile {
    made_from: MadeFrom::Team,
    ..file("team.csv", CSV, "Usage per day, agent, model, project and machine, with who: for a team's tables.", false)
};
pub const TEAM_JSONL: OutputFile =
    OutputFile { made_from: MadeFrom::Team, ..file("team.jsonl", JSONL, "The same, one JSON object a line.", false) };

/// Every output, in the order they are offered.
pub const CATALOGUE: [OutputFile; 11] = [
    ROWS_JSONL,
    ROWS_CSV,
    USAGE_CSV,
    USAGE_JSONL,
    SESSIONS_JSONL,
    INVENTORY_JSON,
    REPORT_JSON,
    SESSION_MD,
    REPORT_HTML,
    TEAM_CSV,
    TEAM_JSONL,
];

/// Rows made at a time for a whole rows export, so that no step holds all of them as values.
pub const ROWS_PER_PART: u32 = 20_000;

pub fn by_name(name: &str) -> Option<OutputFile> {
    CATALOGUE.into_iter().find(|file| file.name == name)
}

/// Writes one of the outputs besides the rows and `session.md`.
pub fn write(file: OutputFile, outputs: &Outputs, out: &mut dyn Write) -> io::Result<()> {
    // The files keep the agent grain; tables people read add the agents up.
    let usage = || outputs.usage.table(GroupBy::Day, DayRange { agents_apart: true, ..DayRange::default() });
    match file {
        SESSIONS_JSONL => write_jsonl(out, &outputs.sessions),
        USAGE_JSONL => write_jsonl(out, &usage().rows),
        USAGE_CSV => summary::write_csv(&usage().rows, GroupBy::Day, out),
        INVENTORY_JSON => write_json(out, &outputs.inventory),
        REPORT_JSON => write_json(out, &outputs.report),
        other => {
            Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not made from the outputs", other.name)))
        }
    }
}

/// Writes a team export (`team.csv` or `team.jsonl`; Parquet is the CLI's own:
/// `team_export::parquet_file`).
/// The rows are `team_export::rows`.
pub fn write_team(file: OutputFile, rows: &[TeamRow], out: &mut dyn Write) -> io::Result<()> {
    match file {
        TEAM_CSV => team_export::write_csv(rows, out),
        TEAM_JSONL => team_export::write_jsonl(rows, out),
        other => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a team export", other.name))),
    }
}

/// Writes a part of a rows file: `first` says whether it is the file's first part (a CSV
/// header comes with it only). The parts joined are the whole file.
pub fn write_rows<'a>(
    file: OutputFile,
    rows: impl Iterator<Item = &'a OwnedRow>,
    first: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    match file {
        ROWS_JSONL => rows.into_iter().try_for_each(|row| write_line(out, row)),
        ROWS_CSV => export::write_rows_csv(rows, first, out),
        other => Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a rows file", other.name))),
    }
}

fn write_line(out: &mut dyn Write, item: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, item)?;
    out.write_all(b"\n")
}

fn write_jsonl<T: Serialize>(out: &mut dyn Write, items: &[T]) -> io::Result<()> {
    items.iter().try_for_each(|item| write_line(out, item))
}

fn write_json(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value)?;
    out.write_all(b"\n")
}
