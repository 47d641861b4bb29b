//! `logs/process-<epoch ms>-<pid>.log`: `<ISO ms Z> [LEVEL] <message>` lines, mostly noise.
//! Read as a stream for the few lines that matter: the sign-in line (a row), the session the
//! process served, the CLI version and the MCP servers it connected to or failed to start.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, BufRead};

use crate::facts::home::McpServerSeen;
use crate::lines::LineReader;
use crate::model::PendingRow;
use crate::model::TurnType;

#[derive(Debug, Default, PartialEq, Eq)]
pub struct LogFacts {
    pub sign_ins: Vec<SignIn>,
    /// Session ids of `Workspace initialized: <uuid>` lines.
    pub workspace_ids: BTreeSet<String>,
    /// Versions of `Starting Copilot CLI: <version>` lines.
    pub versions: BTreeSet<String>,
    pub mcp_servers: BTreeMap<String, McpServerSeen>,
    pub lines: u64,
}

#[derive(Debug, PartialEq, Eq)]
pub struct SignIn {
    pub timestamp: String,
    pub host: String,
    pub login: String,
    pub line: u64,
}

pub fn scan(reader: impl BufRead) -> io::Result<LogFacts> {
    let mut facts = LogFacts::default();
    let mut lines = LineReader::new(reader);
    while let Some(line) = lines.next_line()? {
        facts.lines = line.number;
        let text = String::from_utf8_lossy(line.bytes);
        let Some((timestamp, message)) = split_line(&text) else {
            continue;
        };
        if let Some(rest) = message.strip_prefix("Signed in to ") {
            if let Some((host, login)) = rest.rsplit_once(" as ") {
                let login = login.trim_end().trim_end_matches('.');
                facts.sign_ins.push(SignIn {
                    timestamp: timestamp.to_string(),
                    host: host.to_string(),
                    login: login.to_string(),
                    line: line.number,
                });
            }
        } else if let Some(rest) = message.strip_prefix("Workspace initialized: ") {
            let id = rest.split_whitespace().next().unwrap_or_default();
            if super::layout::is_session_id(id) {
                facts.workspace_ids.insert(id.to_string());
            }
        } else if let Some(version) = message.strip_prefix("Starting Copilot CLI: ") {
            facts.versions.insert(version.trim().to_string());
        } else if message.contains("MCP server") {
            record_mcp(&mut facts.mcp_servers, message);
        }
    }
    Ok(facts)
}

/// `(timestamp, message)` of a `<stamp> [LEVEL] <message>` line.
fn split_line(text: &str) -> Option<(&str, &str)> {
    let (timestamp, rest) = text.split_once(' ')?;
    let rest = rest.strip_prefix('[')?;
    let (_level, message) = rest.split_once("] ")?;
    // Messages of the native runtime carry their module first: `[rust:rmcp::service] ...`.
    let message = match message.strip_prefix("[rust:") {
        Some(inner) => inner.split_once("] ").map_or(message, |(_, rest)| rest),
        None => message,
    };
    Some((timestamp, message))
}

fn record_mcp(servers: &mut BTreeMap<String, McpServerSeen>, message: &str) {
    if let Some(rest) = message.strip_prefix("MCP server connection failed") {
        let name = rest
            .find('{')
            .and_then(|at| crate::json::from_str::<serde_json::Value>(rest[at..].trim(), &mut String::new()).ok())
            .and_then(|details| details.get("server_name")?.as_str().map(str::to_string));
        if let Some(name) = name {
            servers.entry(name).or_default().failed += 1;
        }
    } else if let Some(rest) = message.strip_prefix("Service initialized as client for the ")
        && let Some(name) = rest.strip_suffix(" remote MCP server").or_else(|| rest.strip_suffix(" MCP server"))
    {
        servers.entry(name.to_string()).or_default().connected += 1;
    }
}

/// The sign-in rows; they belong to the session the log served when it names exactly one.
pub fn rows(facts: &LogFacts) -> Vec<PendingRow> {
    let session = match facts.workspace_ids.len() {
        1 => facts.workspace_ids.first().map(String::as_str).unwrap_or_default(),
        _ => "",
    };
    facts
        .sign_ins
        .iter()
        .map(|sign_in| {
            let text = format!("signed in: {} as {}", sign_in.host, sign_in.login);
            PendingRow::new(TurnType::System, text, &sign_in.timestamp, sign_in.line).in_session(session)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_lines_that_matter() {
        let log = "2026-10-01T08:59:59.100Z [INFO] Starting Copilot CLI: 1.0.98\n\
            2026-10-01T08:59:59.400Z [INFO] Signed in to https://github.com as octo-user.\n\
            2026-10-01T08:59:59.900Z [INFO] Workspace initialized: 5e55a0a1-0000-4000-8000-000000000001 (checkpoints: 0)\n\
            2026-10-01T09:00:00.000Z [ERROR] MCP server connection failed {\"server_name\":\"playwright\",\"raw_error\":\"program not found\"}\n\
            2026-10-01T09:00:00.000Z [INFO] [rust:rmcp::service] Service initialized as client for the github-mcp-server remote MCP server\n\
            not a log line\n";
        let facts = scan(log.as_bytes()).unwrap();
        assert_eq!(facts.lines, 6);
        assert_eq!(facts.versions.iter().collect::<Vec<_>>(), ["1.0.98"]);
        assert_eq!(facts.mcp_servers["playwright"], McpServerSeen { connected: 0, failed: 1 });
        assert_eq!(facts.mcp_servers["github-mcp-server"], McpServerSeen { connected: 1, failed: 0 });
        let rows = rows(&facts);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].text, "signed in: https://github.com as octo-user");
        assert_eq!(rows[0].session_id, "5e55a0a1-0000-4000-8000-000000000001");
        assert_eq!(rows[0].source_line, 2);
    }
}
