//! A session folder's other files: `plan.md` (the agent's plan), `checkpoints/index.md` (a
//! Markdown table of the compaction checkpoints) and the artifacts in `files/` (by name only).

/// The checkpoints' titles, in the table's order: the second cell of every row below the
/// header and its `---` separator.
pub fn checkpoint_titles(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|line| line.starts_with('|'))
        .skip_while(|line| !is_separator(line))
        .skip(1)
        .filter_map(|line| line.split('|').nth(2).map(str::trim))
        .filter(|title| !title.is_empty())
        .map(str::to_string)
        .collect()
}

fn is_separator(line: &str) -> bool {
    line.split('|')
        .map(str::trim)
        .filter(|cell| !cell.is_empty())
        .all(|cell| cell.bytes().all(|b| b == b'-' || b == b':'))
}

/// An artifact's name: its path below the session's `files/`.
pub fn artifact_name(path: &str) -> Option<&str> {
    path.split_once("/files/").map(|(_, name)| name).filter(|name| !name.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_the_rows_below_the_header() {
        let index = "# Checkpoint History\n\nCheckpoints are listed in order.\n\n| # | Title | File |\n|---|-------|------|\n| 1 | Set up the project | 001-set-up.md |\n| 2 | Fix the | 002.md |\n";
        assert_eq!(checkpoint_titles(index), ["Set up the project", "Fix the"]);
        let empty = "# Checkpoint History\n\n| # | Title | File |\n|---|-------|------|\n";
        assert!(checkpoint_titles(empty).is_empty());
        assert_eq!(artifact_name(".copilot/session-state/x/files/out/report.csv"), Some("out/report.csv"));
    }
}
