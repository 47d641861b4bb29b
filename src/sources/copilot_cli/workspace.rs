//! `session-state/<id>/workspace.yaml`: the session's name, working directory, counts and
//! the Mission Control sync keys (see "workspace.yaml" and "Sync, relay and origin rows").

use std::fmt;

use serde::Deserialize;

use super::utf8_text;
use crate::model::PendingRow;
use crate::model::{RowMark, TurnType};

/// The keys copilot-lens reads; every other key is ignored.
#[derive(Debug, Default, Deserialize, PartialEq)]
pub struct Workspace {
    pub id: Option<Scalar>,
    pub cwd: Option<Scalar>,
    pub client_name: Option<Scalar>,
    pub name: Option<Scalar>,
    pub user_named: Option<Scalar>,
    pub summary_count: Option<Scalar>,
    pub fork_count: Option<Scalar>,
    pub created_at: Option<Scalar>,
    pub updated_at: Option<Scalar>,
    pub branch: Option<Scalar>,
    pub remote_steerable: Option<Scalar>,
    pub mc_task_id: Option<Scalar>,
    pub mc_session_id: Option<Scalar>,
    pub mc_last_event_id: Option<Scalar>,
    /// 1-based line of each key, for `source_line`.
    #[serde(skip)]
    key_lines: Vec<(String, u64)>,
}

/// A YAML scalar of any type, shown as written (`false`, `0`, `fix: the thing`).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(value) => write!(f, "{value}"),
            Scalar::Int(value) => write!(f, "{value}"),
            Scalar::Float(value) => write!(f, "{value}"),
            Scalar::Text(value) => f.write_str(value),
        }
    }
}

pub fn parse(bytes: &[u8]) -> Result<Workspace, String> {
    let text = utf8_text(bytes)?;
    let mut workspace: Workspace = if text.trim().is_empty() {
        Workspace::default()
    } else {
        serde_saphyr::from_str(text).map_err(|error| error.to_string())?
    };
    workspace.key_lines = text
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let (key, _) = line.split_once(':')?;
            (!key.starts_with([' ', '\t', '#', '-'])).then(|| (key.to_string(), index as u64 + 1))
        })
        .collect();
    Ok(workspace)
}

/// A key's value as text; empty when absent or null.
pub fn text(value: &Option<Scalar>) -> String {
    value.as_ref().map(Scalar::to_string).unwrap_or_default()
}

impl Workspace {
    fn key_line(&self, key: &str) -> u64 {
        self.key_lines.iter().find(|(name, _)| name == key).map_or(0, |(_, line)| *line)
    }

    pub fn is_synced(&self) -> bool {
        !text(&self.mc_session_id).is_empty()
    }

    /// The rows of "Other files": name, metadata, the scratch directory of a session that was
    /// never prompted (`has_events_log` false), and the sync marker.
    pub fn rows(&self, session_id: &str, has_events_log: bool) -> Vec<PendingRow> {
        let created = text(&self.created_at);
        let row = |text: String, stamp: &str, key: &str| {
            PendingRow::new(TurnType::System, text, stamp, self.key_line(key)).in_session(session_id)
        };
        let mut rows = Vec::new();
        let name = text(&self.name);
        if !name.is_empty() {
            rows.push(row(format!("session name: {name}"), &created, "name"));
        }
        rows.push(row(
            format!(
                "session metadata: user_named={} forks={} compactions={} client={}",
                text(&self.user_named),
                text(&self.fork_count),
                text(&self.summary_count),
                text(&self.client_name)
            ),
            &created,
            "user_named",
        ));
        let cwd = text(&self.cwd);
        if !has_events_log && !cwd.is_empty() {
            let mut scratch = row(format!("scratch directory: {cwd}"), &created, "cwd");
            scratch.mark = RowMark::ScratchDirectory;
            rows.push(scratch);
        }
        if self.is_synced() {
            let or_dash =
                |value: &Option<Scalar>| Some(text(value)).filter(|t| !t.is_empty()).unwrap_or_else(|| "-".into());
            let mut synced = row(
                format!(
                    "session synced: remote session {} task {} last event {} remote_steerable={}",
                    text(&self.mc_session_id),
                    or_dash(&self.mc_task_id),
                    or_dash(&self.mc_last_event_id),
                    or_dash(&self.remote_steerable)
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
    fn a_session_never_prompted_names_its_scratch_directory() {
        let workspace = parse(b"id: x\ncwd: /tmp/pool\nclient_name: github/autopilot\nmc_session_id: null\n").unwrap();
        let rows = workspace.rows("x", false);
        assert_eq!(rows.last().unwrap().text, "scratch directory: /tmp/pool");
        assert_eq!(rows.last().unwrap().mark, RowMark::ScratchDirectory);
        assert!(!workspace.is_synced());
    }
}
