//! MCP server configurations, read for names only: Copilot CLI's `mcp-config.json` and a
//! plugin's `.mcp.json` (`mcpServers`), VS Code's `mcp.json` (`servers`) and the `mcp` key of
//! its settings. Their `env`, `headers` and `args` can hold tokens in plain text (one did on a
//! real install), so only a server's name, type, command file name, URL host and tool
//! allowlist are kept; everything else is counted and named in the report, never its value.

use serde_json::{Map, Value};

use crate::facts::home::{ConfiguredServer, ServerConfig, SkippedKey};

/// The keys of a server whose values are kept (the command and URL only in part).
const READ_KEYS: [&str; 4] = ["type", "command", "url", "tools"];

/// What a configuration file gave: its servers and the keys whose values were not read.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ReadConfig {
    pub servers: Vec<ConfiguredServer>,
    pub skipped: Vec<SkippedKey>,
}

/// Where a file's servers are, and whose they are.
pub struct ConfigPlace<'a> {
    /// The file's path in its home (the servers' `configured_in`, the skipped keys' `file`).
    pub file: &'a str,
    /// The key holding the servers (`mcpServers`, `servers`).
    pub servers_key: &'a str,
    /// The plugin folder the file is in, if any.
    pub plugin_root: Option<&'a str>,
}

/// A configuration file's text as JSON (with comments and trailing commas, as VS Code allows).
pub fn parse_document(bytes: &[u8]) -> Result<Value, String> {
    crate::json::from_jsonc(crate::lines::utf8_text(bytes)?).map_err(|error| error.to_string())
}

/// Reads the servers under `place.servers_key` of a parsed file; every other top-level key is
/// skipped and named.
pub fn read(document: &Value, place: &ConfigPlace<'_>) -> Result<ReadConfig, String> {
    let Value::Object(top) = document else { return Err("not a JSON object".into()) };
    let mut config = ReadConfig::default();
    for (key, value) in top {
        if key == place.servers_key {
            let Value::Object(servers) = value else {
                return Err(format!("{key} is not an object"));
            };
            read_servers(servers, key, place, &mut config);
        } else {
            config.skipped.push(skipped(place.file, key.clone(), value));
        }
    }
    Ok(config)
}

/// Reads a map of servers found at `at` (a key path, for the report).
pub fn read_servers(servers: &Map<String, Value>, at: &str, place: &ConfigPlace<'_>, config: &mut ReadConfig) {
    for (name, server) in servers {
        let Value::Object(fields) = server else {
            config.skipped.push(skipped(place.file, format!("{at}.{name}"), server));
            continue;
        };
        let text = |key: &str| fields.get(key).and_then(Value::as_str).unwrap_or_default();
        let count = |key: &str| match fields.get(key) {
            Some(Value::Array(items)) => items.len() as u64,
            Some(Value::Object(entries)) => entries.len() as u64,
            Some(Value::Null) | None => 0,
            Some(_) => 1,
        };
        let command = command_file_name(text("command"));
        let url_host = url_host(text("url"));
        let kind = match text("type") {
            "" if !command.is_empty() => "stdio",
            "" if !url_host.is_empty() => "http",
            written => written,
        };
        let tools = fields
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| tools.iter().filter_map(Value::as_str).map(str::to_string).collect::<Vec<_>>());
        config.servers.push(ConfiguredServer {
            name: name.clone(),
            configured_in: place.file.to_string(),
            plugin_root: place.plugin_root.map(str::to_string),
            config: ServerConfig {
                kind: kind.to_string(),
                command,
                url_host,
                tools,
                args: count("args"),
                env: count("env"),
                headers: count("headers"),
            },
        });
        for (key, value) in fields.iter().filter(|(key, _)| !READ_KEYS.contains(&key.as_str())) {
            config.skipped.push(skipped(place.file, format!("{at}.{name}.{key}"), value));
        }
    }
}

fn skipped(file: &str, key: String, value: &Value) -> SkippedKey {
    let values = match value {
        Value::Array(items) => items.len() as u64,
        Value::Object(entries) => entries.len() as u64,
        _ => 1,
    };
    SkippedKey { file: file.to_string(), key, values }
}

/// The file name of a command's program, without its folders. A command can be a whole
/// command line (`GITHUB_TOKEN=ghp_… npx -y server --token ...`, `env NAME=value npx ...`), so
/// the environment's assignments (and `env` with its options) before the program are skipped,
/// and nothing after the program is kept.
fn command_file_name(command: &str) -> String {
    let file_name = |word: &str| word.rsplit(['/', '\\']).next().unwrap_or_default().to_string();
    let mut words = command.split_whitespace();
    while let Some(word) = words.next() {
        match file_name(word).as_str() {
            _ if is_assignment(word) => continue,
            "env" | "env.exe" => {
                // What follows is `env`'s: options (two take a value), assignments, the program.
                let mut program = String::new();
                while let Some(next) = words.next() {
                    match next {
                        "-u" | "--unset" | "-C" | "--chdir" => {
                            words.next();
                        }
                        _ if next.starts_with('-') || is_assignment(next) => {}
                        program_word => {
                            program = file_name(program_word);
                            break;
                        }
                    }
                }
                return if program.is_empty() { file_name(word) } else { program };
            }
            program => return program.to_string(),
        }
    }
    String::new()
}

/// `NAME=value`, as a shell reads an environment assignment before a command.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The host of a URL, without user, password, port, path, query or fragment. (By hand: the
/// `url` crate's IDNA tables would weigh on the page's first load for one field.)
fn url_host(url: &str) -> String {
    let Some((_, rest)) = url.split_once("://") else { return String::new() };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let host = match host_port.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    host.to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PLACE: ConfigPlace<'static> =
        ConfigPlace { file: ".copilot/mcp-config.json", servers_key: "mcpServers", plugin_root: None };

    #[test]
    fn only_names_are_kept_and_every_other_value_is_counted() {
        let document = json!({
            "mcpServers": {
                "github": {
                    "type": "local",
                    "command": "/opt/bin/github-mcp-server --token ghp_secret",
                    "args": ["stdio", "GITHUB_TOKEN=ghp_x"],
                    "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_y"},
                    "tools": ["*"],
                    "cwd": "/home/mona"
                },
                "remote": {"url": "https://user:pass@API.Example.com:8443/mcp?token=abc", "headers": {"Authorization": "Bearer t"}},
                "broken": "npx server"
            },
            "inputs": [{"password": true}]
        });
        let config = read(&document, &PLACE).unwrap();
        let github = &config.servers[0];
        let (github, remote) = ((&github.name, &github.config), &config.servers[1].config);
        assert_eq!(
            (github.0.as_str(), github.1.kind.as_str(), github.1.command.as_str(), github.1.tools.as_deref()),
            ("github", "local", "github-mcp-server", Some(["*".to_string()].as_slice()))
        );
        assert_eq!((github.1.args, github.1.env, github.1.headers), (2, 1, 0));
        assert_eq!((remote.kind.as_str(), remote.url_host.as_str(), remote.headers), ("http", "api.example.com", 1));
        let keys: Vec<_> = config.skipped.iter().map(|key| (key.key.as_str(), key.values)).collect();
        assert_eq!(
            keys,
            [
                ("inputs", 1),
                ("mcpServers.broken", 1),
                ("mcpServers.github.args", 2),
                ("mcpServers.github.cwd", 1),
                ("mcpServers.github.env", 1),
                ("mcpServers.remote.headers", 1),
            ]
        );
        let kept = format!("{config:?}");
        for secret in ["ghp_", "pass", "abc", "Bearer", "/opt/bin", "8443", "/home/mona"] {
            assert!(!kept.contains(secret), "{secret} was kept");
        }
    }

    #[test]
    fn hosts_come_out_of_any_url() {
        assert_eq!(url_host("http://[::1]:3000/x"), "::1");
        assert_eq!(url_host("https://h.example"), "h.example");
        assert_eq!(url_host("not a url"), "");
        assert_eq!(command_file_name(r"C:\Tools\server.exe"), "server.exe");
        assert_eq!(command_file_name(""), "");
    }

    #[test]
    fn a_command_line_gives_its_program_and_no_environment() {
        for (command, program) in [
            ("GITHUB_TOKEN=ghp_abc npx -y server", "npx"),
            ("A=1 B_2=x /usr/local/bin/node server.js", "node"),
            ("/usr/bin/env NPM_TOKEN=npm_x npx eslint-mcp", "npx"),
            ("env -i -u HOME PATH=/bin TOKEN=t uvx server", "uvx"),
            ("env", "env"),
            ("TOKEN=only", ""),
            ("--flag=x server", "--flag=x"),
        ] {
            assert_eq!(command_file_name(command), program, "{command}");
        }
    }
}
