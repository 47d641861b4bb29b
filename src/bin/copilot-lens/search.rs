//! `copilot-lens search WORD ROOT...`: the rows whose texts hold a word, from the event logs
//! alone. A log none of whose lines may hold the word is read at memory speed and not parsed
//! (`copilot_lens::search::LogSearch`).

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use copilot_lens::analysis::{Options, Planned};
use copilot_lens::input::FileReader;
use copilot_lens::model::OwnedRow;
use copilot_lens::search::LogSearch;

use crate::roots::{DiskRoots, Scope};
use crate::terminal::{self, say};
use crate::{USAGE_ERROR, fail};

/// Characters of a text shown before the word found.
const BEFORE_THE_WORD: usize = 40;

pub fn run_search(word: &str, root_paths: &[PathBuf], options: Options, json: bool) -> ExitCode {
    let started = Instant::now();
    let found = match find_rows(word, root_paths, options) {
        Ok(found) => found,
        Err(message) => return fail(USAGE_ERROR, &message),
    };
    let seconds = started.elapsed().as_secs_f64();
    if let Err(error) = print(&found.rows, word, json) {
        return fail(1, &format!("writing the rows: {error}"));
    }
    say!(
        "{} rows; {:.1} MB of logs read in {seconds:.3} s ({:.2} GB/s), {} of them parsed",
        found.rows.len(),
        found.bytes_read as f64 / 1e6,
        found.bytes_read as f64 / 1e9 / seconds.max(1e-9),
        found.logs_parsed,
    );
    ExitCode::SUCCESS
}

/// The rows found, scrubbed, in the logs' order, and what finding them read.
pub struct FoundRows {
    pub rows: Vec<OwnedRow>,
    pub bytes_read: u64,
    pub logs_parsed: usize,
}

/// The rows of the roots' event logs whose texts hold `word` (`search`, and the MCP server's
/// `search` tool); a log that cannot be read is said on stderr and left out.
pub fn find_rows(word: &str, root_paths: &[PathBuf], options: Options) -> Result<FoundRows, String> {
    if word.is_empty() {
        return Err("the word to search for is empty: every row would be printed".into());
    }
    // The logs are what `usage` lists (the files with counters are the logs and the store); the
    // metadata files are not read: a row's project is then the one its log names.
    let (mut roots, listings) = DiskRoots::open(root_paths, Scope::Usage, 1)?;
    let run = Planned::new(listings, options).map_err(|error| error.to_string())?.usage_only();
    let mut search = LogSearch::new(word);
    let mut bytes = Vec::new();
    let mut found = FoundRows { rows: Vec::new(), bytes_read: 0, logs_parsed: 0 };
    for task in run.log_tasks() {
        bytes.clear();
        let opened = roots.open(task.root, &task.listed_path).and_then(|mut file| file.read_to_end(&mut bytes));
        if let Err(error) = opened {
            say!("{}: {error}", task.source);
            continue;
        }
        found.bytes_read += bytes.len() as u64;
        if let Some(rows) = search.rows(&task, &bytes, run.options()) {
            found.logs_parsed += 1;
            found.rows.extend(rows);
        }
    }
    Ok(found)
}

fn print(rows: &[OwnedRow], word: &str, json: bool) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if json {
        for row in rows {
            serde_json::to_writer(&mut out, row)?;
            writeln!(out)?;
        }
        return out.flush();
    }
    let mut lines: Vec<[String; 4]> = rows
        .iter()
        .map(|row| {
            let turn_type = serde_json::to_value(row.turn_type).ok();
            let turn_type = turn_type.as_ref().and_then(|value| value.as_str()).unwrap_or_default().to_string();
            [row.timestamp_utc.clone(), row.session_id.clone(), turn_type, around(&row.text, word).to_string()]
        })
        .collect();
    let widths = terminal::fit_columns(&mut lines, &[1, 3], 2);
    for line in &lines {
        let mut text = String::new();
        for (cell, width) in line.iter().zip(widths) {
            text.push_str(&format!("{cell:<width$}  "));
        }
        writeln!(out, "{}", text.trim_end())?;
    }
    out.flush()
}

/// The text from a little before the word (found ASCII-case-insensitively where it is ASCII),
/// with `…` where its start is left out.
fn around<'t>(text: &'t str, word: &str) -> std::borrow::Cow<'t, str> {
    let word = word.to_lowercase();
    let at = (word.is_ascii() && !word.is_empty())
        .then(|| text.as_bytes().windows(word.len()).position(|window| window.eq_ignore_ascii_case(word.as_bytes())))
        .flatten();
    let Some(at) = at else { return text.into() };
    let start = text[..at].char_indices().rev().nth(BEFORE_THE_WORD - 1).map_or(0, |(start, _)| start);
    if start == 0 { text.into() } else { format!("…{}", &text[start..]).into() }
}
