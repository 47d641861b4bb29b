//! The session's own events: start, resume, imports, directory changes, notices, compaction,
//! problems and shutdown.

use serde_json::value::RawValue;

use super::records::*;
use super::{Envelope, LogParser, RowParts, Text, before_counting, history_session};
use crate::model::RowMark;
use crate::sources::copilot_cli::counters::ShutdownCounters;
use crate::usage::ledger::{LoggedAt, Place};
use crate::usage::resumes::{ResumeData, StartData};

impl LogParser<'_, '_> {
    pub(super) fn session_start(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let context = self.context;
        let start = before_counting::<SessionStart<'_>>(data)?;
        if let Some(ledger) = &mut self.outcome.usage {
            // Read first, as a usage-only scan reads it, so that both runs count alike.
            let start: StartData = serde_json::from_str(data)?;
            ledger.started(start.copilot_version.as_deref());
        }
        let start = start?;
        let id = start.session_id.or_empty();
        if context.session_id_from_log && self.outcome.summary.session_id.is_none() && !id.is_empty() {
            self.state.tracked.session_id = id.to_string();
            self.outcome.summary.session_id = Some(id.to_string());
        }
        if let Some(directory) = &start.context {
            self.track_directory(directory);
        }
        self.note_chosen_model(start.selected_model.or_empty());
        let version = start.copilot_version.or_empty();
        if !version.is_empty() {
            self.outcome.summary.copilot_version = Some(version.to_string());
        }
        let cwd = start.context.as_ref().map_or("", |directory| directory.cwd.or_empty());
        let text = format!("session start: copilot {version} producer={} cwd={cwd}", start.producer.or_empty());
        self.emit(line, stamp, RowParts::system(text));
        Ok(())
    }

    pub(super) fn import_legacy(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        // A history session (`history-session-state/`) moved into this log by a CLI that
        // resumed it (0.0.3xx), which then deleted the file: its rows are only here.
        let import: ImportLegacy<'_> = serde_json::from_str(data)?;
        let legacy = history_session::parse(import.legacy_session.map_or("{}", RawValue::get))?;
        let from = import.source_file.non_empty().unwrap_or("-");
        self.emit(line, stamp, RowParts::system(format!("session imported from {from}")));
        for row in &legacy.rows {
            let parts = RowParts::new(row.turn_type, row.text.as_str()).tool(&row.tool_name, &row.tool_use_id);
            self.emit(line, &row.timestamp, parts.model(&row.model));
        }
        self.outcome.summary.merge_imported(legacy.summary);
        Ok(())
    }

    pub(super) fn session_resume(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let resume = before_counting::<SessionResume<'_>>(data)?;
        if let Some(ledger) = &mut self.outcome.usage {
            let marks: ResumeData = serde_json::from_str(data)?;
            ledger.resumed(marks.session_limits);
        }
        let resume = resume?;
        self.note_chosen_model(resume.selected_model.or_empty());
        if let Some(directory) = &resume.context {
            self.track_directory(directory);
        }
        self.emit(line, stamp, RowParts::system("session resumed"));
        Ok(())
    }

    pub(super) fn context_changed(&mut self, _line: u64, _stamp: &str, data: &str) -> serde_json::Result<()> {
        let directory: WorkingDirectory<'_> = serde_json::from_str(data)?;
        self.track_directory(&directory);
        Ok(())
    }

    pub(super) fn session_info(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let info: SessionInfo<'_> = serde_json::from_str(data)?;
        let info_type = info.info_type.or_empty();
        let mut text = format!("session.info {info_type}: {}", info.message.or_empty());
        for (key, value) in [("url", &info.url), ("tip", &info.tip)] {
            if let Some(value) = value.get() {
                text.push_str(&format!(" {key}={value}"));
            }
        }
        // The notice of a model change (`/model`) or of a routing change under Auto.
        let mark = if info_type == "model" { RowMark::ModelChange } else { RowMark::Plain };
        self.emit(line, stamp, RowParts::system(text).mark(mark));
        Ok(())
    }

    pub(super) fn compaction_complete(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let compaction: CompactionComplete<'_> = serde_json::from_str(data)?;
        self.emit(
            line,
            stamp,
            RowParts::system(format!("compaction summary: {}", compaction.summary_content.or_empty())),
        );
        Ok(())
    }

    pub(super) fn problem(&mut self, kind: &str, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let problem: Problem<'_> = serde_json::from_str(data)?;
        let detail = problem.reason.get().or(problem.message.get()).unwrap_or_default();
        self.emit(line, stamp, RowParts::system(format!("{kind}: {detail}")));
        Ok(())
    }

    pub(super) fn session_shutdown(
        &mut self,
        line: u64,
        stamp: &str,
        envelope: &Envelope<'_>,
        data: &str,
    ) -> serde_json::Result<()> {
        // The counters are read apart from the row's fields, as a usage-only scan reads
        // them, so that both runs count the same lines.
        let shutdown = before_counting::<Shutdown<'_>>(data)?;
        if let Some(ledger) = &mut self.outcome.usage {
            let counters: ShutdownCounters = serde_json::from_str(data)?;
            let by_subagent = envelope.agent_id.non_empty().is_some();
            let at = LoggedAt { place: Place::Line(line), timestamp: stamp };
            ledger.checkpoint(at, envelope.id.or_empty(), by_subagent, &counters);
        }
        let shutdown = shutdown?;
        let shutdown_type = shutdown.shutdown_type.or_empty();
        self.outcome.summary.shutdown_type = Some(shutdown_type.to_string());
        let mut text = format!("session end: {shutdown_type}");
        if let Some(reason) = shutdown.error_reason.non_empty() {
            text.push_str(&format!(" {reason}"));
        }
        let files: Vec<&str> = shutdown
            .code_changes
            .iter()
            .flat_map(|changes| changes.files_modified.iter())
            .filter_map(Text::get)
            .collect();
        text.push_str(" files modified: ");
        text.push_str(&if files.is_empty() { "-".to_string() } else { files.join(", ") });
        self.emit(line, stamp, RowParts::system(text));
        Ok(())
    }
}
