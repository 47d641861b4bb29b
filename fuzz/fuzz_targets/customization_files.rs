#![no_main]
//! The files the inventory reads on any bytes: an MCP configuration (names only kept) and a
//! Markdown file's front matter and first line.

use copilot_lens::sources::front_matter;
use copilot_lens::sources::mcp_servers::{self, ConfigPlace};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let place = ConfigPlace { file: "mcp-config.json", servers_key: "mcpServers", plugin_root: None };
    if let Ok(document) = mcp_servers::parse_document(data)
        && let Ok(config) = mcp_servers::read(&document, &place)
    {
        for server in &config.servers {
            // What is kept of a command or URL is one word: never a command line or a query.
            assert!(!server.config.command.contains(char::is_whitespace) && !server.config.url_host.contains(['/', '?', '@']));
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = front_matter::read(text);
        assert!(front_matter::first_line(text).chars().count() <= front_matter::MAX_FIRST_LINE);
    }
});
