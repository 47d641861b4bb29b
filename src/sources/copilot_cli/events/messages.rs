//! Messages: system prompts, prompts, replies, reasoning and utility-model messages.

use std::borrow::Cow;

use super::records::*;
use super::texts::{skill_asked, tool_use_text};
use super::{Envelope, LogParser, RowParts};
use crate::model::TurnType;

impl LogParser<'_, '_> {
    pub(super) fn system_message(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let message: SystemMessage<'_> = serde_json::from_str(data)?;
        let label = if message.role.get() == Some("developer") { "developer message" } else { "system prompt" };
        self.emit(line, stamp, RowParts::system(format!("{label}: {}", message.content.or_empty())));
        Ok(())
    }

    pub(super) fn user_message(
        &mut self,
        line: u64,
        stamp: &str,
        envelope: &Envelope<'_>,
        data: &str,
    ) -> serde_json::Result<()> {
        let message: UserMessage<'_> = serde_json::from_str(data)?;
        let content = message.content.or_empty();
        let label = if message.is_autopilot_continuation.get() == Some("true") {
            Some("auto-continuation")
        } else if envelope.agent_id.non_empty().is_some() {
            Some("subagent task")
        } else {
            message.source.non_empty().filter(|source| *source != "user")
        };
        if envelope.agent_id.non_empty().is_none() {
            self.state.skill_asked = skill_asked(message.source.or_empty(), content);
        }
        let parts = match label {
            None => {
                self.outcome.summary.note_prompt(content);
                RowParts::new(TurnType::User, content)
            }
            Some(label) => RowParts::system(format!("{label}: {content}")),
        };
        self.emit(line, stamp, parts);
        Ok(())
    }

    pub(super) fn assistant_message(&mut self, line: u64, stamp: &str, message: AssistantMessage<'_>) {
        let model = message.model.or_empty();
        self.note_model(model);
        self.outcome.summary.answered = true;
        if let Some(content) = message.content.non_empty() {
            self.emit(line, stamp, RowParts::new(TurnType::Assistant, content).model(model));
        }
        if self.context.include_thinking {
            let thinking = match message.reasoning_text.non_empty() {
                Some(text) => Cow::Borrowed(text),
                None => {
                    let blocks = message.reasoning_blocks.iter().flat_map(|blocks| blocks.blocks.iter());
                    let summaries: Vec<&str> = blocks
                        .flat_map(|block| block.summary.iter())
                        .filter_map(|summary| summary.text.non_empty())
                        .collect();
                    Cow::Owned(summaries.join("\n"))
                }
            };
            if !thinking.is_empty() {
                self.emit(line, stamp, RowParts::new(TurnType::Thinking, thinking).model(model));
            }
        }
        for request in &message.tool_requests {
            let (id, name) = (request.tool_call_id.or_empty(), request.name.or_empty());
            self.state.requested_calls.insert(id.to_string());
            self.state.tool_names.insert(id.to_string(), name.to_string());
            self.count_mcp_call(id, &request.mcp_server_name, &request.mcp_tool_name, name);
            self.count_call(name);
            let text = tool_use_text(request.arguments);
            self.emit(line, stamp, RowParts::new(TurnType::ToolUse, text).model(model).tool(name, id));
        }
    }

    pub(super) fn reasoning(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let context = self.context;
        if context.include_thinking {
            let reasoning: Reasoning<'_> = serde_json::from_str(data)?;
            self.emit(line, stamp, RowParts::new(TurnType::Thinking, reasoning.content.or_empty()));
        }
        Ok(())
    }

    pub(super) fn utility_message(&mut self, line: u64, stamp: &str, data: &str) -> serde_json::Result<()> {
        let message: UtilityMessage<'_> = serde_json::from_str(data)?;
        let model = message.model_call.as_ref().map_or("", |call| call.model.or_empty());
        let content = message.message.as_ref().map_or("", |message| message.content.or_empty());
        self.note_model(model);
        self.emit(line, stamp, RowParts::system(format!("utility model {model}: {content}")).model(model));
        Ok(())
    }
}
