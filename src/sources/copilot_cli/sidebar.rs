//! `sidebar-sessions-state/<sha256 of cwd>.json`: no rows, only a join from session ids to
//! the project directory, which outlives the project itself.

use serde::Deserialize;

use crate::lines::utf8_text;

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Sidebar {
    #[serde(default)]
    pub cwd: Option<String>,
    #[serde(rename = "sessionIds", default)]
    pub session_ids: Vec<String>,
}

pub fn parse(bytes: &[u8]) -> Result<Sidebar, String> {
    crate::json::from_str(utf8_text(bytes)?, &mut String::new()).map_err(|error| error.to_string())
}
