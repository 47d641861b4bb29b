//! `session-state/<id>/workspace.yaml`: the session's name, working directory, counts and
//! the Mission Control sync keys (see "workspace.yaml" and "Sync, relay and origin rows").

use super::ranks;
use crate::facts::session::{MadeAhead, SessionFacts};
use crate::lines::utf8_text;
use crate::model::PendingRow;
use crate::model::{RowMark, TurnType};
use crate::sources::yaml::{self, Field};

/// The file's top-level keys; the ones copilot-lens reads are named where they are used
/// (`id`, `cwd`, `name`, `created_at`, the `mc_*` sync keys...), every other one is ignored.
#[derive(Debug, Default, PartialEq)]
pub struct Workspace {
    fields: Vec<Field>,
}

pub fn parse(bytes: &[u8]) -> Result<Workspace, String> {
    Ok(Workspace { fields: yaml::top_level_fields(utf8_text(bytes)?)? })
}

impl Workspace {
    /// A key's value as text; empty when absent or null.
    pub fn text(&self, key: &str) -> &str {
        yaml::text(&self.fields, key)
    }

    fn key_line(&self, key: &str) -> u64 {
        self.fields.iter().find(|field| field.key == key).map_or(0, |field| field.line)
    }

    /// The session's title: `name`, else `summary`, where CLI 1.0.10 to 1.0.27 wrote it
    /// (`name` came later).
    pub fn title(&self) -> &str {
        Some(self.text("name")).filter(|name| !name.is_empty()).unwrap_or_else(|| self.text("summary"))
    }

    /// How many times the session was compacted (`summary_count`), if the file says: each
    /// compaction adds a checkpoint to `checkpoints/index.md`.
    pub fn compactions(&self) -> Option<u64> {
        self.text("summary_count").parse().ok()
    }

    pub fn is_synced(&self) -> bool {
        !self.text("mc_session_id").is_empty()
    }

    /// Its claims on the session (the first file read of a session speaks for it): a session
    /// with a workspace.yaml was made ahead of its first prompt.
    pub fn claim(&self, facts: &mut SessionFacts) {
        let cwd = self.text("cwd");
        facts.title.claim(ranks::TITLE_FROM_WORKSPACE, self.title());
        if self.text("user_named") == "true" && !self.title().is_empty() {
            facts.given_title.get_or_insert_with(|| self.title().to_string());
        }
        facts.project.claim(ranks::PROJECT_FROM_WORKSPACE, cwd);
        facts.client_name.claim(ranks::CLIENT_FROM_WORKSPACE, self.text("client_name"));
        facts.created_at.claim(ranks::TIMES_FROM_WORKSPACE, self.text("created_at"));
        facts.updated_at.claim(ranks::TIMES_FROM_WORKSPACE, self.text("updated_at"));
        let made = MadeAhead { cwd: cwd.to_string(), synced: self.is_synced() };
        facts.made_ahead.get_or_insert_with(|| Box::new(made));
    }

    /// The rows of "Other files": name, metadata, the scratch directory of a session that was
    /// never prompted (`has_events_log` false), and the sync marker.
    pub fn rows(&self, session_id: &str, has_events_log: bool) -> Vec<PendingRow> {
        let created = self.text("created_at");
        let row = |text: String, stamp: &str, key: &str| {
            PendingRow::new(TurnType::System, text, stamp, self.key_line(key)).in_session(session_id)
        };
        let mut rows = Vec::new();
        let name = self.title();
        if !name.is_empty() {
            let key = if self.text("name").is_empty() { "summary" } else { "name" };
            rows.push(row(format!("session name: {name}"), created, key));
        }
        rows.push(row(
            format!(
                "session metadata: user_named={} forks={} compactions={} client={}",
                self.text("user_named"),
                self.text("fork_count"),
                self.text("summary_count"),
                self.text("client_name")
            ),
            created,
            "user_named",
        ));
        let cwd = self.text("cwd");
        if !has_events_log && !cwd.is_empty() {
            let mut scratch = row(format!("scratch directory: {cwd}"), created, "cwd");
            scratch.mark = RowMark::ScratchDirectory;
            rows.push(scratch);
        }
        if self.is_synced() {
            let or_dash = |key: &str| Some(self.text(key)).filter(|t| !t.is_empty()).unwrap_or("-");
            let mut synced = row(
                format!(
                    "session synced: remote session {} task {} last event {} remote_steerable={}",
                    self.text("mc_session_id"),
                    or_dash("mc_task_id"),
                    or_dash("mc_last_event_id"),
                    or_dash("remote_steerable")
                ),
                "",
                "mc_session_id",
            );
            synced.mark = RowMark::SessionSynced;
            synced.at_file_time = true;
            rows.push(synced);
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNCED: &str = "id: 5e55a0a1-0000-4000-8000-000000000001\ncwd: /srv/proj\nclient_name: github/cli\n\
        name: 'fix: the thing'\nuser_named: false\nsummary_count: 0\nfork_count: 0\n\
        created_at: 2026-10-01T09:00:00.000Z\nupdated_at: 2026-10-01T09:00:30.000Z\nremote_steerable: true\n\
        mc_task_id: task-1\nmc_session_id: remote-1\nmc_last_event_id: null\n";

    #[test]
    fn rows_follow_the_table() {
        let workspace = parse(SYNCED.as_bytes()).unwrap();
        let rows = workspace.rows("s", true);
        let texts: Vec<_> = rows.iter().map(|row| (row.text.as_str(), row.source_line)).collect();
        assert_eq!(
            texts,
            [
                ("session name: fix: the thing", 4),
                ("session metadata: user_named=false forks=0 compactions=0 client=github/cli", 5),
                ("session synced: remote session remote-1 task task-1 last event - remote_steerable=true", 12),
            ]
        );
        assert_eq!(rows[0].timestamp_utc, "2026-10-01T09:00:00.000Z");
        assert!(rows[2].at_file_time && !rows[0].at_file_time);
    }

    #[test]
    fn an_older_cli_s_summary_is_the_title_block_scalar_or_not() {
        // CLI 1.0.14's shape: no `name`, the title in `summary`, a long one as a `|-` block.
        let block = "id: x\ncwd: /srv/proj\nsummary: |-\n  Fix the parser's\n  block scalars\nsummary_count: 0\n";
        let workspace = parse(block.as_bytes()).unwrap();
        assert_eq!(workspace.title(), "Fix the parser's\nblock scalars");
        assert_eq!(workspace.rows("x", true)[0].source_line, 3);
        let plain = parse(b"id: x\nsummary: Add a test\n").unwrap();
        assert_eq!(plain.title(), "Add a test");
        let named = parse(b"id: x\nname: Renamed\nsummary: Add a test\n").unwrap();
        assert_eq!(named.title(), "Renamed");
    }

    #[test]
    fn a_session_never_prompted_names_its_scratch_directory() {
        let workspace = parse(b"id: x\ncwd: /tmp/pool\nclient_name: github/autopilot\nmc_session_id: null\n").unwrap();
        let rows = workspace.rows("x", false);
        assert_eq!(rows.last().unwrap().text, "scratch directory: /tmp/pool");
        assert_eq!(rows.last().unwrap().mark, RowMark::ScratchDirectory);
        assert!(!workspace.is_synced());
    }
}
