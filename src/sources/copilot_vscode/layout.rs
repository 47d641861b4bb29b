//! Where VS Code keeps Copilot Chat's sessions under a home, and what each file is. Only the
//! chat files of a `User` folder are read: the rest of VS Code's user data (extensions'
//! storage, caches, local history) is none of ours and often gigabytes, so it is not walked.
//!
//! Chat storage is not per profile: VS Code keeps every profile's chats in the `User` folder's
//! `workspaceStorage` and in the default profile's `globalStorage` (`chatSessionStore.ts`).

use crate::sources::{Classified, HomeLayout, OwnFolderMarker, System, WalkRule};

use crate::facts::files::{FileKind, Role};

/// The `User` folders of a home: Linux, macOS and Windows, stable and Insiders, and the
/// remote server's.
pub const USER_DIRS: [&str; 8] = [
    ".config/Code/User",
    ".config/Code - Insiders/User",
    "Library/Application Support/Code/User",
    "Library/Application Support/Code - Insiders/User",
    "AppData/Roaming/Code/User",
    "AppData/Roaming/Code - Insiders/User",
    ".vscode-server/data/User",
    ".vscode-server-insiders/data/User",
];

/// Where a root that is a `User` folder itself, or the user-data folder holding one
/// (`--user-data-dir`, a portable install), is read in a home.
const READ_AS: &str = ".config/Code/User";

const MARKERS: [OwnFolderMarker; 4] = [
    OwnFolderMarker { entry: "User/workspaceStorage", read_as: ".config/Code", layout: "vscode_user_data" },
    OwnFolderMarker {
        entry: "User/globalStorage/emptyWindowChatSessions",
        read_as: ".config/Code",
        layout: "vscode_user_data",
    },
    OwnFolderMarker { entry: "workspaceStorage", read_as: READ_AS, layout: "vscode_user_folder" },
    OwnFolderMarker { entry: "globalStorage/emptyWindowChatSessions", read_as: READ_AS, layout: "vscode_user_folder" },
];

const WALK_RULES: [WalkRule; 8] = [
    WalkRule { dir: "User", only: &["workspaceStorage", "globalStorage"] },
    WalkRule { dir: "workspaceStorage/*", only: &["chatSessions", EXTENSION_STORAGE] },
    WalkRule { dir: "workspaceStorage/*/GitHub.copilot-chat", only: &[DEBUG_LOGS] },
    WalkRule { dir: "globalStorage", only: &["emptyWindowChatSessions"] },
    WalkRule { dir: "Code", only: &["User"] },
    WalkRule { dir: "Code - Insiders", only: &["User"] },
    WalkRule { dir: ".vscode-server/data", only: &["User"] },
    WalkRule { dir: ".vscode-server-insiders/data", only: &["User"] },
];

pub static LAYOUT: HomeLayout = HomeLayout {
    title: "VS Code",
    data_folders: &USER_DIRS,
    data_folder_systems: &[
        System::Linux,
        System::Linux,
        System::Macos,
        System::Macos,
        System::Windows,
        System::Windows,
        System::Remote,
        System::Remote,
    ],
    cache_folders: &[],
    shared_folders: &[],
    own_folder_markers: &MARKERS,
    loose_log: None,
    top_files: &[],
    walk_rules: &WALK_RULES,
    usage_log: |folder, name| {
        // Only the full module reads debug logs (`sources::READ_BY_FULL_ENGINE_ONLY`).
        let debug_log = cfg!(feature = "extras") && is_debug_log_place(folder, name);
        (is_chat_folder(folder) && session_file_id(name).is_some()) || debug_log
    },
    session_folders: &[],
    store_files: &[],
};

pub const CHAT_SESSION: FileKind = FileKind { name: "chat_session", role: Role::EventLog, secondary: false };
pub const WORKSPACE: FileKind = FileKind { name: "vscode_workspace", role: Role::Metadata, secondary: false };
/// `User/mcp.json`: MCP servers, read for their names only (as Copilot CLI's mcp-config.json).
pub const MCP_CONFIG: FileKind = FileKind { name: "mcp_config", role: Role::Metadata, secondary: false };
/// `User/settings.json`: only its `mcp` key is read.
pub const SETTINGS: FileKind = FileKind { name: "vscode_settings", role: Role::Metadata, secondary: false };
/// A Copilot Chat Agent Debug log (`debug-logs/<session>/main.jsonl`, a child log beside it, or
/// an older flat `debug-logs/<session>.jsonl`): every model request with the credits Copilot
/// recorded for it (`debug_log.rs`). Secondary: its texts are rows only where the session's
/// chat is not given, which holds them.
pub const DEBUG_LOG: FileKind = FileKind { name: "chat_debug_log", role: Role::EventLog, secondary: true };
/// A `state.vscdb`, for its index of the chat sessions (their titles).
pub const CHAT_INDEX: FileKind = FileKind { name: "chat_index", role: Role::Database, secondary: false };

/// Copilot Chat's folder in a workspace's storage (its `storageUri`), and the debug logs' in it
/// (`chatDebugFileLoggerService.ts`). Only a window with a workspace has one: an empty
/// window's requests are in no debug log.
const EXTENSION_STORAGE: &str = "GitHub.copilot-chat";
const DEBUG_LOGS: &str = "debug-logs";

/// Whether a file of this folder and name may be a debug log, for a usage-only walk that sees
/// only these two names: a flat log in `debug-logs/`, or a `.jsonl` in a session's folder
/// (named by the chat session's id, a UUID).
fn is_debug_log_place(folder: &str, name: &str) -> bool {
    let session_folder = folder.len() == 36 && folder.bytes().all(|byte| byte.is_ascii_hexdigit() || byte == b'-');
    (folder == DEBUG_LOGS || session_folder) && name.ends_with(".jsonl")
}

fn is_chat_folder(name: &str) -> bool {
    name == "chatSessions" || name == "emptyWindowChatSessions"
}

/// A chat session file's id: its name without `.json` or `.jsonl`.
fn session_file_id(name: &str) -> Option<&str> {
    let id = name.strip_suffix(".jsonl").or_else(|| name.strip_suffix(".json"))?;
    (!id.is_empty()).then_some(id)
}

pub fn classify(path: &str) -> Classified<'_> {
    let plain = |kind| Classified { kind, session_id: None, tree: None };
    let Some(rest) = USER_DIRS.iter().find_map(|dir| path.strip_prefix(dir)?.strip_prefix('/')) else {
        return plain(FileKind::OUTSIDE);
    };
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        ["mcp.json"] => plain(MCP_CONFIG),
        ["settings.json"] => plain(SETTINGS),
        ["workspaceStorage", _, "workspace.json"] => plain(WORKSPACE),
        ["workspaceStorage", _, "state.vscdb"] | ["globalStorage", "state.vscdb"] => plain(CHAT_INDEX),
        ["workspaceStorage", _, EXTENSION_STORAGE, DEBUG_LOGS, session, name] => match name.strip_suffix(".jsonl") {
            Some(_) if !session.is_empty() => Classified { kind: DEBUG_LOG, session_id: Some(session), tree: None },
            // `models.json`: the models offered when the session began, no usage.
            _ => plain(FileKind::NOT_WANTED),
        },
        ["workspaceStorage", _, EXTENSION_STORAGE, DEBUG_LOGS, name] => match name.strip_suffix(".jsonl") {
            Some(session) if !session.is_empty() => {
                Classified { kind: DEBUG_LOG, session_id: Some(session), tree: None }
            }
            _ => plain(FileKind::NOT_WANTED),
        },
        ["workspaceStorage", _, "chatSessions", name] | ["globalStorage", "emptyWindowChatSessions", name] => {
            match session_file_id(name) {
                Some(id) => Classified { kind: CHAT_SESSION, session_id: Some(id), tree: None },
                None => plain(FileKind::NOT_WANTED),
            }
        }
        _ => plain(FileKind::NOT_WANTED),
    }
}

/// The folder of the chats a `state.vscdb`'s index names: `chatSessions/` beside a workspace's,
/// `emptyWindowChatSessions/` beside the global one.
pub fn chats_named_by(path: &str) -> Option<String> {
    if classify(path).kind != CHAT_INDEX {
        return None;
    }
    let folder = path.strip_suffix("state.vscdb")?;
    let chats = if folder.ends_with("globalStorage/") { "emptyWindowChatSessions/" } else { "chatSessions/" };
    Some(format!("{folder}{chats}"))
}

/// The `.jsonl` beside a `.json` chat session: the live copy, read instead.
pub fn read_instead(path: &str) -> Option<String> {
    (classify(path).kind == CHAT_SESSION && path.ends_with(".json")).then(|| format!("{path}l"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_files_are_recognised() {
        let log = ".config/Code/User/workspaceStorage/ab12/chatSessions/5e55a0a1-0000-4000-8000-000000000001.jsonl";
        let classified = classify(log);
        assert_eq!(
            (classified.kind, classified.session_id),
            (CHAT_SESSION, Some("5e55a0a1-0000-4000-8000-000000000001"))
        );
        let empty_window = "AppData/Roaming/Code - Insiders/User/globalStorage/emptyWindowChatSessions/x.json";
        assert_eq!(classify(empty_window).session_id, Some("x"));
        assert_eq!(classify(".config/Code/User/workspaceStorage/ab12/workspace.json").kind, WORKSPACE);
        assert_eq!(classify(".config/Code/User/workspaceStorage/ab12/state.vscdb").kind, CHAT_INDEX);
        assert_eq!(classify(".config/Code/User/workspaceStorage/ab12/state.vscdb.backup").kind, FileKind::NOT_WANTED);
        assert_eq!(classify(".config/Code/User/settings.json").kind, SETTINGS);
        assert_eq!(classify(".config/Code/User/mcp.json").kind, MCP_CONFIG);
        assert_eq!(classify(".config/Code/User/keybindings.json").kind, FileKind::NOT_WANTED);
        assert_eq!(classify(".config/Code/logs/main.log").kind, FileKind::OUTSIDE);
        let logs = ".config/Code/User/workspaceStorage/ab12/GitHub.copilot-chat/debug-logs";
        for (name, session) in [("s1/main.jsonl", "s1"), ("s1/title-c9.jsonl", "s1"), ("s2.jsonl", "s2")] {
            let classified = classify_owned(&format!("{logs}/{name}"));
            assert_eq!(classified, (DEBUG_LOG, Some(session.to_string())), "{name}");
        }
        assert_eq!(classify_owned(&format!("{logs}/s1/models.json")), (FileKind::NOT_WANTED, None));
        assert!((LAYOUT.usage_log)("5e55a0a1-0000-4000-8000-000000000001", "runSubagent-x-1.jsonl"));
        assert!((LAYOUT.usage_log)("debug-logs", "s2.jsonl"));
        assert!(!(LAYOUT.usage_log)("s1", "models.json"));
        assert_eq!(read_instead(&log.replace(".jsonl", ".json")).as_deref(), Some(log));
        assert_eq!(read_instead(log), None);
        let index = ".config/Code/User/workspaceStorage/ab12/state.vscdb";
        assert_eq!(chats_named_by(index).as_deref(), Some(".config/Code/User/workspaceStorage/ab12/chatSessions/"));
        let global = ".config/Code/User/globalStorage/state.vscdb";
        assert_eq!(chats_named_by(global).as_deref(), Some(".config/Code/User/globalStorage/emptyWindowChatSessions/"));
    }

    fn classify_owned(path: &str) -> (FileKind, Option<String>) {
        let classified = classify(path);
        (classified.kind, classified.session_id.map(str::to_string))
    }

    #[test]
    fn walk_rules_match_folder_ends() {
        let only = |folder: &str| crate::sources::walk_only(folder);
        assert_eq!(only("home/.config/Code/User"), Some(&["workspaceStorage", "globalStorage"][..]));
        assert_eq!(only(".config/Code/User/workspaceStorage/ab12"), Some(&["chatSessions", "GitHub.copilot-chat"][..]));
        assert_eq!(only(".config/Code/User/workspaceStorage/ab12/GitHub.copilot-chat"), Some(&["debug-logs"][..]));
        assert_eq!(only(".config/Code/User/workspaceStorage"), None);
        assert_eq!(only("backup/Code"), Some(&["User"][..]));
        assert_eq!(only(".copilot/session-state"), None);
    }
}
