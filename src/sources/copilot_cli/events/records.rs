//! The `data` payloads of the event types that give rows, with only the fields rows use.
//! Strings borrow from the line when they carry no escapes. Every field is optional and
//! loosely typed: the real files carry keys and types the published schema does not.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON value read as display text: strings as they are, numbers and booleans as written,
/// `null` as absent, objects and arrays as compact JSON.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text<'a>(pub Option<Cow<'a, str>>);

impl<'a> Text<'a> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The text, or `""` when absent.
    pub fn or_empty(&self) -> &str {
        self.0.as_deref().unwrap_or_default()
    }

    /// The text when present and not empty.
    pub fn non_empty(&self) -> Option<&str> {
        self.get().filter(|text| !text.is_empty())
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v))))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(v.to_string()))))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Text(Some(Cow::Owned(Value::from(v).to_string()))))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
                deserializer.deserialize_any(self)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Text(Some(Cow::Owned(crate::json::compact(&value)))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let value = Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Text(Some(Cow::Owned(crate::json::compact(&value)))))
            }
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

/// The top level of every line: `{id, parentId, timestamp, type, data, agentId?}`, its data kept
/// raw, or read as its type says when the line is read in one pass
/// (`LogParser::event_read_at_once`).
#[derive(Deserialize)]
pub struct Envelope<'a, D = &'a RawValue> {
    #[serde(rename = "type", borrow, default)]
    pub kind: Text<'a>,
    #[serde(borrow, default)]
    pub timestamp: Text<'a>,
    #[serde(borrow, default)]
    pub id: Text<'a>,
    #[serde(rename = "agentId", borrow, default)]
    pub agent_id: Text<'a>,
    pub data: Option<D>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct WorkingDirectory<'a> {
    #[serde(borrow)]
    pub cwd: Text<'a>,
    #[serde(borrow)]
    pub branch: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct SessionStart<'a> {
    #[serde(borrow)]
    pub session_id: Text<'a>,
    #[serde(borrow)]
    pub copilot_version: Text<'a>,
    #[serde(borrow)]
    pub producer: Text<'a>,
    /// The model chosen when the session began (it may never answer).
    #[serde(borrow)]
    pub selected_model: Text<'a>,
    #[serde(borrow)]
    pub context: Option<WorkingDirectory<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ImportLegacy<'a> {
    /// The whole history session, as `history_session::parse` reads it.
    #[serde(borrow)]
    pub legacy_session: Option<&'a RawValue>,
    #[serde(borrow)]
    pub source_file: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct SessionResume<'a> {
    #[serde(borrow)]
    pub selected_model: Text<'a>,
    #[serde(borrow)]
    pub context: Option<WorkingDirectory<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct SystemMessage<'a> {
    #[serde(borrow)]
    pub content: Text<'a>,
    #[serde(borrow)]
    pub role: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct UserMessage<'a> {
    #[serde(borrow)]
    pub content: Text<'a>,
    #[serde(borrow)]
    pub source: Text<'a>,
    #[serde(borrow)]
    pub is_autopilot_continuation: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct AssistantMessage<'a> {
    #[serde(borrow)]
    pub content: Text<'a>,
    #[serde(borrow)]
    pub model: Text<'a>,
    #[serde(borrow)]
    pub reasoning_text: Text<'a>,
    #[serde(borrow)]
    pub reasoning_blocks: Option<ReasoningBlocks<'a>>,
    #[serde(borrow)]
    pub tool_requests: Vec<ToolRequest<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ReasoningBlocks<'a> {
    #[serde(borrow)]
    pub blocks: Vec<ReasoningBlock<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ReasoningBlock<'a> {
    #[serde(borrow)]
    pub summary: Vec<ReasoningSummary<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ReasoningSummary<'a> {
    #[serde(borrow)]
    pub text: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolRequest<'a> {
    #[serde(borrow)]
    pub tool_call_id: Text<'a>,
    #[serde(borrow)]
    pub name: Text<'a>,
    #[serde(borrow)]
    pub arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    pub mcp_server_name: Text<'a>,
    #[serde(borrow)]
    pub mcp_tool_name: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Reasoning<'a> {
    #[serde(borrow)]
    pub content: Text<'a>,
}

/// `tool.execution_start` and `tool.user_requested`.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolStart<'a> {
    #[serde(borrow)]
    pub tool_call_id: Text<'a>,
    #[serde(borrow)]
    pub tool_name: Text<'a>,
    #[serde(borrow)]
    pub arguments: Option<&'a RawValue>,
    #[serde(borrow)]
    pub model: Text<'a>,
    #[serde(borrow)]
    pub mcp_server_name: Text<'a>,
    #[serde(borrow)]
    pub mcp_tool_name: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolComplete<'a> {
    #[serde(borrow)]
    pub tool_call_id: Text<'a>,
    #[serde(borrow)]
    pub success: Text<'a>,
    #[serde(borrow)]
    pub result: Option<ToolResult<'a>>,
    #[serde(borrow)]
    pub error: Option<ToolError<'a>>,
    #[serde(borrow)]
    pub shell_execution: Option<ShellExecution<'a>>,
    #[serde(borrow)]
    pub model: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolResult<'a> {
    #[serde(borrow)]
    pub content: Text<'a>,
    #[serde(borrow)]
    pub detailed_content: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct ToolError<'a> {
    #[serde(borrow)]
    pub message: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ShellExecution<'a> {
    #[serde(borrow)]
    pub exit_code: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionRequested<'a> {
    #[serde(borrow)]
    pub permission_request: Option<PermissionRequest<'a>>,
    #[serde(borrow)]
    pub permission_mode: Text<'a>,
    #[serde(borrow)]
    pub agent_mode: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionRequest<'a> {
    #[serde(borrow)]
    pub kind: Text<'a>,
    #[serde(borrow)]
    pub tool_call_id: Text<'a>,
    #[serde(borrow)]
    pub intention: Text<'a>,
    #[serde(borrow)]
    pub full_command_text: Text<'a>,
    #[serde(borrow)]
    pub url: Text<'a>,
    #[serde(borrow)]
    pub file_name: Text<'a>,
    #[serde(borrow)]
    pub path: Text<'a>,
    #[serde(borrow)]
    pub server_name: Text<'a>,
    #[serde(borrow)]
    pub tool_name: Text<'a>,
}

/// `permission.completed` and `permission.carriedForward`.
#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionDecision<'a> {
    #[serde(borrow)]
    pub tool_call_id: Text<'a>,
    #[serde(borrow)]
    pub decision_source: Text<'a>,
    pub result: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct PermissionsChanged<'a> {
    #[serde(borrow)]
    pub previous_mode: Text<'a>,
    #[serde(borrow)]
    pub mode: Text<'a>,
    #[serde(borrow)]
    pub allow_all_permissions: Text<'a>,
    #[serde(borrow)]
    pub previous_allow_all_permission_mode: Text<'a>,
    #[serde(borrow)]
    pub allow_all_permission_mode: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ModeChanged<'a> {
    #[serde(borrow)]
    pub previous_mode: Text<'a>,
    #[serde(borrow)]
    pub new_mode: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelChange<'a> {
    #[serde(borrow)]
    pub previous_model: Text<'a>,
    #[serde(borrow)]
    pub new_model: Text<'a>,
    #[serde(borrow)]
    pub cause: Text<'a>,
    #[serde(borrow)]
    pub source: Text<'a>,
    #[serde(borrow)]
    pub reasoning_effort: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct AutoModeResolved<'a> {
    #[serde(borrow)]
    pub chosen_model: Text<'a>,
    #[serde(borrow)]
    pub routing_method: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct SessionInfo<'a> {
    #[serde(borrow)]
    pub info_type: Text<'a>,
    #[serde(borrow)]
    pub message: Text<'a>,
    #[serde(borrow)]
    pub url: Text<'a>,
    #[serde(borrow)]
    pub tip: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct UtilityMessage<'a> {
    #[serde(borrow)]
    pub model_call: Option<UtilityCall<'a>>,
    #[serde(borrow)]
    pub message: Option<Reasoning<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub struct UtilityCall<'a> {
    #[serde(borrow)]
    pub model: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionComplete<'a> {
    #[serde(borrow)]
    pub summary_content: Text<'a>,
}

/// `abort`, `session.error` and `session.warning`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub struct Problem<'a> {
    #[serde(borrow)]
    pub reason: Text<'a>,
    #[serde(borrow)]
    pub message: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct Hook<'a> {
    #[serde(borrow)]
    pub hook_type: Text<'a>,
    pub input: Option<Value>,
    pub output: Option<Value>,
    pub success: Option<Value>,
    pub error: Option<Value>,
    #[serde(borrow)]
    pub parent_tool_call_id: Text<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct Shutdown<'a> {
    #[serde(borrow)]
    pub shutdown_type: Text<'a>,
    #[serde(borrow)]
    pub error_reason: Text<'a>,
    #[serde(borrow)]
    pub code_changes: Option<CodeChanges<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
pub struct CodeChanges<'a> {
    #[serde(borrow)]
    pub files_modified: Vec<Text<'a>>,
}
