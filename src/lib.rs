//! copilot-lens: reads what GitHub Copilot keeps on a machine (the CLI's `~/.copilot`, VS Code
//! Copilot Chat's chat sessions) into timeline rows, session records, an inventory, usage in
//! tokens and AI credits, and a report that accounts for every input line.
//!
//! The core takes listings and readers, never paths: it does no file-system access, starts
//! no threads and reads no clock, so the same code runs natively and in WebAssembly.
//! Start reading at [`analysis`]; ARCHITECTURE.md has the map.

pub mod analysis;
pub mod cache;
pub mod csv_cells;
pub mod dedup;
pub mod export;
pub mod facts;
pub mod input;
pub mod inventory;
pub mod json;
pub mod line_filter;
pub mod lines;
pub mod model;
pub mod needle;
pub mod order;
pub mod outputs;
pub mod page;
pub mod report;
pub mod scrub;
pub mod search;
pub mod sessions;
pub mod share;
pub mod sources;
pub mod team_export;
pub mod time;
pub mod usage;
pub mod words;
