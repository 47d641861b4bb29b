//! `usage --export FILE`: the team export, in the format its extension names.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use clap::Args;
use copilot_lens::analysis::Outputs;
use copilot_lens::outputs::{self, TEAM_CSV, TEAM_JSONL};
use copilot_lens::team_export::{self, TeamOptions};
use copilot_lens::usage::summary::DayRange;

use crate::terminal::say;

#[derive(Args)]
pub struct TeamArgs {
    /// Write a team export (.parquet, .csv or .jsonl, by the extension): one row per UTC day,
    /// agent, model, project and machine, with the login and the machine. No prompt, reply or
    /// tool output is in it; projects are short names unless --share-projects. The guide's chapter
    /// on team exports shows how DuckDB and BigQuery read everyone's files together.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// The machine the export names (default: each home's folder name).
    #[arg(long, value_name = "NAME", requires = "export")]
    pub machine: Option<String>,
    /// Put the projects' real paths in the export, not their short names.
    #[arg(long, requires = "export")]
    pub share_projects: bool,
    /// The export's time (RFC 3339; default: now), to make an export again byte for byte.
    #[arg(long, value_name = "TIME", requires = "export")]
    pub exported_at: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Jsonl,
    #[cfg(feature = "parquet")]
    Parquet,
}

/// A team export asked for, checked before anything is read.
pub struct Export {
    pub file: PathBuf,
    format: Format,
    options: TeamOptions,
}

impl TeamArgs {
    /// None when no export was asked for; `user` is `--user`, the login the export names.
    pub fn checked(self, user: Option<String>) -> Result<Option<Export>, String> {
        let Some(file) = self.export else { return Ok(None) };
        let format = format_of(&file)?;
        let now = || DateTime::<Utc>::from(std::time::SystemTime::now()).to_rfc3339();
        let asked = self.exported_at.unwrap_or_else(now);
        let exported_at = team_export::exported_at(&asked)
            .ok_or_else(|| format!("--exported-at {asked:?} is not a time like 2026-12-02T09:30:00Z"))?;
        let options = TeamOptions {
            user,
            machine: self.machine,
            share_projects: self.share_projects,
            exported_at,
            range: DayRange::default(),
        };
        Ok(Some(Export { file, format, options }))
    }
}

fn format_of(file: &Path) -> Result<Format, String> {
    let extension = file.extension().and_then(|extension| extension.to_str()).unwrap_or_default();
    match extension.to_ascii_lowercase().as_str() {
        "csv" => Ok(Format::Csv),
        "jsonl" => Ok(Format::Jsonl),
        #[cfg(feature = "parquet")]
        "parquet" => Ok(Format::Parquet),
        #[cfg(not(feature = "parquet"))]
        "parquet" => Err("this build has no Parquet (the `parquet` feature): export .csv or .jsonl".into()),
        _ => Err(format!("--export {}: name a .parquet, .csv or .jsonl file", file.display())),
    }
}

impl Export {
    /// Writes the rows of the days and agent of `range`; returns how many.
    pub fn write(mut self, outputs: &Outputs, range: DayRange) -> Result<usize, String> {
        self.options.range = range;
        let failed = |error: &dyn std::fmt::Display| format!("{}: {error}", self.file.display());
        let mut out = BufWriter::new(File::create(&self.file).map_err(|error| failed(&error))?);
        let rows = team_export::rows(outputs, &self.options);
        match self.format {
            Format::Csv => outputs::write_team(TEAM_CSV, &rows, &mut out),
            Format::Jsonl => outputs::write_team(TEAM_JSONL, &rows, &mut out),
            #[cfg(feature = "parquet")]
            Format::Parquet => team_export::parquet_file::write(&rows, &mut out).map_err(std::io::Error::other),
        }
        .and_then(|()| out.flush())
        .map_err(|error| failed(&error))?;
        let unnamed: std::collections::BTreeSet<&str> =
            rows.iter().filter(|row| row.user.is_empty()).map(|row| row.machine.as_str()).collect();
        if !unnamed.is_empty() {
            let machines = unnamed.into_iter().collect::<Vec<_>>().join(", ");
            say!("no login is known for {machines} (no sign-in in its logs): give --user");
        }
        Ok(rows.len())
    }
}
