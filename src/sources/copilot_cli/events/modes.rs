//! Mode changes: permission mode, agent mode, model and Auto's choices.

use super::records::*;
use super::{LogParser, RowParts};
use crate::model::RowMark;

impl LogParser<'_, '_> {
    pub(super) fn permissions_changed(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let change: PermissionsChanged<'_> = serde_json::from_str(data)?;
        let (text, mode) = if change.mode.get().is_some() || change.previous_mode.get().is_some() {
            let mode = change.mode.or_empty().to_string();
            (format!("permission mode: {} -> {mode}", change.previous_mode.get().unwrap_or("-")), mode)
        } else {
            // The Copilot Desktop app's form: allow-all on or off, with its own mode.
            let previous = change.previous_allow_all_permission_mode.get().unwrap_or("-");
            let current = change.allow_all_permission_mode.get().unwrap_or("-");
            (format!("permission mode: allow-all {previous} -> {current}"), format!("allow-all {current}"))
        };
        self.state.tracked.permission_mode = Some(mode);
        self.emit(line, stamp, RowParts::system(text).mark(RowMark::PermissionSetting));
        Ok(())
    }

    pub(super) fn mode_changed(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let change: ModeChanged<'_> = serde_json::from_str(data)?;
        let (previous, new) = (change.previous_mode.get().unwrap_or("-"), change.new_mode.or_empty());
        self.state.tracked.agent_mode = Some(new.to_string());
        self.emit(line, stamp, RowParts::system(format!("agent mode: {previous} -> {new}")));
        Ok(())
    }

    pub(super) fn model_change(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let change: ModelChange<'_> = serde_json::from_str(data)?;
        let new = change.new_model.or_empty();
        let previous =
            change.previous_model.non_empty().or(Some(self.state.tracked.model.as_str()).filter(|m| !m.is_empty()));
        let mut text = match previous {
            Some(previous) => format!("model: {previous} -> {new}"),
            None => format!("model: {new}"),
        };
        for (key, value) in [("cause", &change.cause), ("source", &change.source), ("effort", &change.reasoning_effort)]
        {
            if let Some(value) = value.get() {
                text.push_str(&format!(" {key}={value}"));
            }
        }
        self.state.tracked.model = new.to_string();
        self.note_chosen_model(new);
        self.emit(line, stamp, RowParts::system(text).mark(RowMark::ModelChange));
        Ok(())
    }

    pub(super) fn auto_mode_resolved(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let resolved: AutoModeResolved<'_> = serde_json::from_str(data)?;
        let chosen = resolved.chosen_model.or_empty();
        let previous = Some(self.state.tracked.model.as_str()).filter(|m| !m.is_empty()).unwrap_or("-");
        let text = format!("model: {previous} -> {chosen} (auto, {})", resolved.routing_method.get().unwrap_or("-"));
        self.state.tracked.model = chosen.to_string();
        self.emit(line, stamp, RowParts::system(text).mark(RowMark::ModelChange));
        Ok(())
    }
}
