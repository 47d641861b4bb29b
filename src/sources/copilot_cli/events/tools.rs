//! Tool calls and their results, permission requests and decisions, hooks.

use std::borrow::Cow;

use serde_json::Value;

use super::records::*;
use super::texts::{decision_text, tool_use_text};
use super::{LogParser, RowParts};
use crate::model::{RowMark, TurnType};

impl LogParser<'_, '_> {
    pub(super) fn tool_start(&mut self, kind: &str, line: u64, stamp: &str, start: ToolStart<'_>) {
        let id = start.tool_call_id.or_empty();
        let name = start.tool_name.or_empty();
        if !name.is_empty() {
            self.state.tool_names.insert(id.to_string(), name.to_string());
        }
        self.count_mcp_call(id, &start.mcp_server_name, &start.mcp_tool_name, name);
        let user_requested = kind == "tool.user_requested";
        if user_requested || !self.state.requested_calls.contains(id) {
            let mut text = tool_use_text(start.arguments);
            if user_requested {
                text = format!("user requested: {text}");
            }
            self.count_call(name);
            self.emit(line, stamp, RowParts::new(TurnType::ToolUse, text).model(start.model.or_empty()).tool(name, id));
        }
    }

    pub(super) fn tool_complete(&mut self, line: u64, stamp: &str, complete: ToolComplete<'_>) {
        let id = complete.tool_call_id.or_empty();
        let failed = complete.success.get() == Some("false");
        let mut text = String::new();
        if let Some(code) = complete.shell_execution.as_ref().and_then(|shell| shell.exit_code.get())
            && code != "0"
        {
            text.push_str(&format!("[exit {code}] "));
        }
        if let Some(result) = &complete.result {
            let (content, detailed) = (result.content.or_empty(), result.detailed_content.or_empty());
            text.push_str(if content.len() > detailed.len() { content } else { detailed });
        }
        if failed && let Some(message) = complete.error.as_ref().and_then(|error| error.message.get()) {
            text.push('\n');
            text.push_str(message);
        }
        let name = self.state.tool_names.get(id).cloned().unwrap_or_default();
        if failed {
            self.outcome.tools.entry(name.clone()).or_default().failures += 1;
            if let Some((server, tool)) = self.state.mcp_call_ids.get(id) {
                let tools = self.outcome.mcp_calls.entry(server.clone()).or_default();
                tools.entry(tool.clone()).or_default().failures += 1;
            }
        }
        let model = complete.model.or_empty();
        self.note_model(model);
        let mark = if failed { RowMark::FailedToolResult } else { RowMark::Plain };
        self.emit(line, stamp, RowParts::new(TurnType::ToolResult, text).model(model).tool(&name, id).mark(mark));
    }

    pub(super) fn permission_requested(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let requested: PermissionRequested<'_> = serde_json::from_str(data)?;
        let request = requested.permission_request.unwrap_or_default();
        let mut text = format!("permission request: {}", request.kind.or_empty());
        let target = request
            .full_command_text
            .non_empty()
            .or(request.url.non_empty())
            .or(request.file_name.non_empty())
            .or(request.path.non_empty())
            .map(Cow::Borrowed)
            .or_else(|| {
                request
                    .server_name
                    .non_empty()
                    .map(|server| Cow::Owned(format!("{server}/{}", request.tool_name.or_empty())))
            });
        if let Some(target) = target {
            text.push(' ');
            text.push_str(&target);
        }
        if let Some(intention) = request.intention.get() {
            text.push_str(&format!(" intention={intention}"));
        }
        let id = request.tool_call_id.or_empty();
        let name = self.state.tool_names.get(id).cloned().unwrap_or_default();
        self.emit(line, stamp, RowParts::system(text).tool(&name, id).mark(RowMark::PermissionRequest));

        let (mode, agent) = (requested.permission_mode.non_empty(), requested.agent_mode.non_empty());
        let mode_text = match (&self.state.tracked.permission_mode, mode) {
            (None, Some(mode)) => Some(format!("permission mode: {mode} agent={}", agent.unwrap_or("-"))),
            (Some(old), Some(mode)) if old != mode => Some(format!("permission mode: {old} -> {mode}")),
            _ => None,
        };
        let agent_text = match (&self.state.tracked.agent_mode, agent) {
            (Some(old), Some(agent)) if old != agent => Some(format!("agent mode: {old} -> {agent}")),
            _ => None,
        };
        if let Some(mode) = mode {
            self.state.tracked.permission_mode = Some(mode.to_string());
        }
        if let Some(agent) = agent {
            self.state.tracked.agent_mode = Some(agent.to_string());
        }
        if let Some(text) = mode_text {
            self.emit(line, stamp, RowParts::system(text).mark(RowMark::PermissionSetting));
        }
        if let Some(text) = agent_text {
            self.emit(line, stamp, RowParts::system(text));
        }
        Ok(())
    }

    pub(super) fn permission_decision(
        &mut self,
        kind: &str,
        line: u64,
        stamp: &str,
        data: &str,
    ) -> serde_json::Result<()> {
        let decision: PermissionDecision<'_> = serde_json::from_str(data)?;
        let (text, mark) = decision_text(kind, &decision);
        let id = decision.tool_call_id.or_empty();
        let name = self.state.tool_names.get(id).cloned().unwrap_or_default();
        self.emit(line, stamp, RowParts::system(text).tool(&name, id).mark(mark));
        Ok(())
    }

    pub(super) fn hook(&mut self, kind: &str, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let hook: Hook<'_> = serde_json::from_str(data)?;
        let hook_type = hook.hook_type.non_empty().unwrap_or("-");
        let json_or_empty =
            |value: &Option<Value>| value.as_ref().map_or_else(|| "{}".to_string(), crate::json::compact);
        let text = if kind == "hook.start" {
            format!("hook {hook_type} start: {}", json_or_empty(&hook.input))
        } else {
            let success = match &hook.success {
                Some(Value::Bool(success)) => success.to_string(),
                _ => "-".to_string(),
            };
            let mut text = format!("hook {hook_type} end: success={success} output={}", json_or_empty(&hook.output));
            if let Some(error) = &hook.error {
                text.push_str(&format!(" error={}", crate::json::compact(error)));
            }
            text
        };
        self.emit(line, stamp, RowParts::system(text).tool("", hook.parent_tool_call_id.or_empty()));
        Ok(())
    }
}
