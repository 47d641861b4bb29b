//! The page's side: everything only the browser's page uses, apart from the core, which builds
//! and tests without it and never imports it (`scripts/import-graph.py` checks). The messages
//! and answers of the wasm boundary (`protocol`, typed for the page in `www/types.d.ts`), the
//! views' answers (`views`), the row table the timeline reads and its search (`table`,
//! `matches`), the page's cache pack in OPFS (`pack`); and, built for wasm32 only, the
//! browser's roots (`browser`, `blob`), the analysis driven by the page's messages (`engine`)
//! and the exports to JavaScript (`wasm`).

pub mod matches;
pub mod pack;
pub mod protocol;
pub mod table;
pub mod views;

#[cfg(target_arch = "wasm32")]
pub mod blob;
#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
pub mod engine;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
