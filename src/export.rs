//! Exports besides the JSON outputs: rows as CSV, and one session as Markdown.

use std::io;

use crate::csv_cells::TextCells;
use crate::model::{OwnedRow, TurnType};

/// The header of a rows CSV: `OwnedRow`'s fields.
const ROW_COLUMNS: [&str; 13] = [
    "agent",
    "timestamp_utc",
    "session_id",
    "project_path",
    "git_branch",
    "client_name",
    "model",
    "tool_name",
    "tool_use_id",
    "turn_type",
    "text",
    "source",
    "source_line",
];

/// Rows as CSV: the columns of `OwnedRow` in its order, with the header row when `header`; texts
/// that would open as formulas are written as text (`csv_cells`).
pub fn write_rows_csv<'a>(
    rows: impl Iterator<Item = &'a OwnedRow>,
    header: bool,
    out: impl io::Write,
) -> io::Result<()> {
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(out);
    if header {
        writer.write_record(ROW_COLUMNS)?;
    }
    for row in rows {
        writer.serialize(TextCells(row))?;
    }
    writer.flush()
}

/// A session as a readable conversation: prompts and replies as text, tool calls and their
/// results in fenced blocks, everything else as a note line.
pub fn session_markdown(title: &str, session_id: &str, rows: &[OwnedRow]) -> String {
    let mut out =
        format!("# {}\n\nSession `{session_id}`", if title.is_empty() { "Copilot CLI session" } else { title });
    if let Some(project) = rows.iter().map(|row| row.project_path.as_str()).find(|path| !path.is_empty()) {
        out.push_str(&format!(", project `{project}`"));
    }
    out.push_str(".\n");
    for row in rows {
        let stamp = if row.timestamp_utc.is_empty() { "undated".to_string() } else { row.timestamp_utc.clone() };
        match row.turn_type {
            TurnType::User => out.push_str(&format!("\n## Prompt ({stamp})\n\n{}\n", row.text)),
            TurnType::Assistant => out.push_str(&format!("\n## Reply ({stamp}, {})\n\n{}\n", row.model, row.text)),
            TurnType::Thinking => out.push_str(&format!("\n> Thinking: {}\n", row.text.replace('\n', "\n> "))),
            TurnType::ToolUse => out.push_str(&format!(
                "\n**Tool call** `{}` ({})\n\n{}\n",
                row.tool_name,
                row.tool_use_id,
                fenced(&row.text)
            )),
            TurnType::ToolResult => {
                out.push_str(&format!("\n**Result** of `{}`\n\n{}\n", row.tool_name, fenced(&row.text)))
            }
            TurnType::System => {
                out.push_str(&format!("\n- _{stamp}_ {}\n", row.text.lines().next().unwrap_or_default()))
            }
        }
    }
    out
}

/// A fenced code block whose fence is longer than any backtick run inside the text.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{text}\n{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_text() {
        assert_eq!(fenced("a ``` b"), "````text\na ``` b\n````");
        assert_eq!(fenced("plain"), "```text\nplain\n```");
    }
}
