//! How this source's session claims rank (lower wins; `facts::session`): the title VS Code
//! shows first, then workspace.yaml's, the store's, then the log's (`LOG_TITLE_RANK`); the
//! project from workspace.yaml, then the store, VS Code's metadata, the sidebar; the branch from
//! the store, then VS Code's metadata; the times from workspace.yaml, then the store; the client only from
//! workspace.yaml.

use crate::facts::session::{LOG_TITLE_RANK, Rank};

pub const TITLE_FROM_VSCODE_METADATA: Rank = 10;
pub const TITLE_FROM_WORKSPACE: Rank = 20;
pub const TITLE_FROM_STORE: Rank = 30;
const _: () = assert!(TITLE_FROM_STORE < LOG_TITLE_RANK);

pub const PROJECT_FROM_WORKSPACE: Rank = 10;
pub const PROJECT_FROM_STORE: Rank = 20;
pub const PROJECT_FROM_VSCODE_METADATA: Rank = 30;
pub const PROJECT_FROM_SIDEBAR: Rank = 40;

pub const BRANCH_FROM_STORE: Rank = 10;
pub const BRANCH_FROM_VSCODE_METADATA: Rank = 20;

pub const CLIENT_FROM_WORKSPACE: Rank = 10;

pub const TIMES_FROM_WORKSPACE: Rank = 10;
pub const TIMES_FROM_STORE: Rank = 20;
